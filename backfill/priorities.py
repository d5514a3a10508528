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

from collections.abc import Callable
from typing import Any, TypeVar

from backfill.workload import Job

__all__ = [
    "PRIORITIES",
    "Priority",
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


def priority_name(priority: Priority) -> str:
    """Return a short readable name for a priority (function name or repr).

    Examples:
        >>> priority_name(sjf)
        'sjf'
    """
    name = getattr(priority, "__name__", None)
    return name if isinstance(name, str) and name != "<lambda>" else repr(priority)


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
