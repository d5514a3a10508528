"""Queue-order (priority) functions.

A priority is any callable ``priority(job, now)`` returning a sort key: the job with the *smallest*
key is served first, and schedulers break ties by arrival order. Plain functions are enough;
parametrised priorities are small frozen attrs classes with a ``__call__``.

A scheduler that keeps its queue sorted must know whether the key changes as time passes. Built-in
priorities that ignore ``now`` say so with the attribute ``depends_on_time = False``; any callable
without that attribute is treated as time-dependent and re-sorted at every decision, which is always
correct, only slower.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import Any, Protocol, Self, TypeVar, runtime_checkable

import attrs

from backfill.errors import ParameterError
from backfill.workloads.workload import Job

__all__ = [
    "PRIORITIES",
    "Priority",
    "RecentUsage",
    "StatefulPriority",
    "depends_on_time",
    "fcfs",
    "ljf",
    "lxf",
    "njf",
    "priority_name",
    "sjf",
    "wjf",
]

#: The type of a priority function: ``(job, now) -> sort key`` (smallest served first).
Priority = Callable[[Job, float], Any]

_F = TypeVar("_F", bound=Callable[..., Any])


@runtime_checkable
class StatefulPriority(Protocol):
    """A priority that learns from history (per-user recent usage, fair-share-like orders).

    A plain priority is shared by a scheduler's copies and by every fork of a simulation, so it must
    be a pure function of ``(job, now)``. A priority that needs history implements this protocol
    instead, and the scheduler keeps the state: at :meth:`reset` it takes its own :meth:`copy` of
    the object it was given (which is never changed, so one object can serve many schedulers), tells
    that copy of every arrival, start and completion, and copies it along with itself. Keys are then
    a pure function of ``(job, now)`` and the events seen so far, and the forks that fair start times
    take see exactly the history a fresh simulation would.

    Schedulers re-key the queue at every decision for such a priority. ``__call__`` must not change
    the state: it is called any number of times per decision.
    """

    def __call__(self, job: Job, now: float) -> Any:
        """Return the job's sort key at ``now`` (smallest served first); no side effects."""
        ...

    def reset(self, machine_size: int, now: float) -> None:
        """Forget all history: a simulation of a machine of ``machine_size`` processors starts at ``now``."""
        ...

    def submitted(self, job: Job, now: float) -> None:
        """Learn that a job arrived."""
        ...

    def started(self, job: Job, now: float) -> None:
        """Learn that a job started."""
        ...

    def completed(self, job: Job, now: float) -> None:
        """Learn that a job ended."""
        ...

    def copy(self) -> Self:
        """Return an independent copy with the same history."""
        ...


def _positive_finite(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not (isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf):
        raise ParameterError(f"{attribute.name} must be a positive finite number, got {value!r}")


@attrs.define(eq=False)
class RecentUsage:
    """Serve first the users who used the machine least recently: a :class:`StatefulPriority`.

    A user's usage is the processor-seconds of their jobs, counted when each job ends and decaying by
    half every ``half_life`` seconds; a job's key is its owner's usage at ``now`` (smallest first,
    ties by arrival). Jobs of unknown user (``-1``) share one account. This is the usage term of
    fair-share priorities (Slurm's, for one) without the shares.

    Args:
        half_life: Seconds for usage to lose half its weight (positive, finite).

    Examples:
        >>> from backfill import EASY, Job, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=4, runtime=100.0, estimate=100.0, user=1),
        ...         Job(id=2, submit=1.0, processors=4, runtime=10.0, estimate=10.0, user=1),
        ...         Job(id=3, submit=2.0, processors=4, runtime=10.0, estimate=10.0, user=2)]
        >>> # User 1 has used 400 processor-seconds when job 1 ends, so user 2's job goes first.
        >>> simulate(Workload.from_jobs(jobs, machine_size=4), EASY(RecentUsage())).start.tolist()
        [0.0, 110.0, 100.0]
        >>> RecentUsage(half_life=3600)
        RecentUsage(half_life=3600)
    """

    half_life: float = attrs.field(default=86_400.0, validator=_positive_finite)
    _usage: dict[int, tuple[float, float]] = attrs.field(init=False, factory=dict, repr=False)
    _started: dict[int, float] = attrs.field(init=False, factory=dict, repr=False)

    def __call__(self, job: Job, now: float) -> float:
        """The owner's decayed usage at ``now``."""
        usage = self._usage.get(job.user)
        if usage is None:
            return 0.0
        amount, since = usage
        return amount * 0.5 ** ((now - since) / self.half_life)  # type: ignore[no-any-return]

    def reset(self, machine_size: int, now: float) -> None:
        """Forget all usage."""
        self._usage = {}
        self._started = {}

    def submitted(self, job: Job, now: float) -> None:
        """Arrivals do not change usage."""

    def started(self, job: Job, now: float) -> None:
        """Note when the job started."""
        self._started[job.id] = now

    def completed(self, job: Job, now: float) -> None:
        """Add the job's processor-seconds to its owner's usage."""
        start = self._started.pop(job.id, now)
        self._usage[job.user] = (self(job, now) + job.processors * (now - start), now)

    def copy(self) -> RecentUsage:
        """Return an independent copy with the same usage."""
        other = RecentUsage(self.half_life)
        other._usage = self._usage.copy()
        other._started = self._started.copy()
        return other


def _static(func: _F) -> _F:
    """Mark a priority whose key does not depend on ``now``."""
    setattr(func, "depends_on_time", False)  # noqa: B010 - a function attribute, on purpose
    return func


def depends_on_time(priority: Priority) -> bool:
    """Return whether a priority's key may change as time passes (True unless it says otherwise).

    Examples:
        >>> depends_on_time(fcfs), depends_on_time(lxf), depends_on_time(lambda job, now: 0)
        (False, True, True)
    """
    return getattr(priority, "depends_on_time", True) is not False


def _short(value: object) -> str:
    """A short repr for a name: no memory address, at most about 30 characters."""
    name = getattr(value, "__name__", None)
    if callable(value) and isinstance(name, str):
        return priority_name(value)
    text = repr(value)
    if " at 0x" in text:
        return type(value).__name__
    return text if len(text) <= 30 else text[:27] + "..."


def priority_name(priority: Priority) -> str:
    """Return a short readable name for a priority, distinct for priorities that differ.

    A function's ``__name__``; a closure's, with the values it captured (``by_user(weight=2)``), so two
    closures made by one factory with different values get different names; a lambda as
    ``lambda@file:line``; a :func:`functools.partial` as ``func(arg, key=value)``; anything else by its
    repr, or its type's name if the repr would show a memory address.

    Examples:
        >>> import functools
        >>> def weighted(weight):
        ...     def by_weight(job, now):
        ...         return weight * job.estimate
        ...     return by_weight
        >>> priority_name(sjf), priority_name(weighted(2)), priority_name(weighted(3))
        ('sjf', 'by_weight(weight=2)', 'by_weight(weight=3)')
        >>> def blend(job, now, wait=1.0):
        ...     return job.estimate - wait * (now - job.submit)
        >>> priority_name(functools.partial(blend, wait=2.0))
        'blend(wait=2.0)'
    """
    if isinstance(priority, functools.partial):
        args = [_short(a) for a in priority.args] + [f"{k}={_short(v)}" for k, v in priority.keywords.items()]
        return f"{priority_name(priority.func)}({', '.join(args)})"
    name = getattr(priority, "__name__", None)
    if not isinstance(name, str):
        text = repr(priority)
        return type(priority).__name__ if " at 0x" in text else text
    code = getattr(priority, "__code__", None)
    if name == "<lambda>":
        where = f"@{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else ""
        name = "lambda" + where
    cells = getattr(priority, "__closure__", None)
    if cells and code is not None:
        captured = []
        for var, cell in zip(code.co_freevars, cells, strict=False):
            try:
                captured.append(f"{var}={_short(cell.cell_contents)}")
            except ValueError:  # a cell not filled yet
                continue
        if captured:
            return f"{name}({', '.join(captured)})"
    return name


@_static
def fcfs(job: Job, now: float) -> float:
    """First come, first served: earliest submit time first.

    Examples:
        >>> fcfs(Job(id=1, submit=5.0, processors=1, runtime=1.0, estimate=2.0), now=9.0)
        5.0
    """
    return job.submit


@_static
def sjf(job: Job, now: float) -> float:
    """Shortest job first, by runtime estimate.

    Examples:
        >>> sjf(Job(id=1, submit=5.0, processors=1, runtime=1.0, estimate=2.0), now=9.0)
        2.0
    """
    return job.estimate


@_static
def ljf(job: Job, now: float) -> float:
    """Longest job first, by runtime estimate.

    Examples:
        >>> ljf(Job(id=1, submit=5.0, processors=1, runtime=1.0, estimate=2.0), now=9.0)
        -2.0
    """
    return -job.estimate


@_static
def wjf(job: Job, now: float) -> int:
    """Widest job first, by processors.

    Examples:
        >>> wjf(Job(id=1, submit=5.0, processors=8, runtime=1.0, estimate=2.0), now=9.0)
        -8
    """
    return -job.processors


@_static
def njf(job: Job, now: float) -> int:
    """Narrowest job first, by processors.

    Examples:
        >>> njf(Job(id=1, submit=5.0, processors=8, runtime=1.0, estimate=2.0), now=9.0)
        8
    """
    return job.processors


def lxf(job: Job, now: float) -> float:
    """Largest expansion factor first: ``(wait + estimate) / estimate``, growing while a job waits.

    A zero estimate counts as one second, so such jobs get a large but finite factor.

    Examples:
        >>> lxf(Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=10.0), now=30.0)
        -4.0
    """
    estimate = job.estimate if job.estimate > 0 else 1.0
    return -((now - job.submit) + estimate) / estimate


#: Ready-made priorities by name, as the CLI offers them.
PRIORITIES: dict[str, Priority] = {
    "fcfs": fcfs,
    "sjf": sjf,
    "ljf": ljf,
    "wjf": wjf,
    "njf": njf,
    "lxf": lxf,
}
