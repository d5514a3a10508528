"""The protocol's door: what every scheduler checks of each call a host makes, always, in O(1).

Every built-in scheduler checks, at each :meth:`~backfill.schedulers.Scheduler.reset`,
:meth:`~backfill.schedulers.Scheduler.submit`, :meth:`~backfill.schedulers.Scheduler.complete` and
:meth:`~backfill.schedulers.Scheduler.schedule`:

* the time ``now`` is a number, finite, at most :data:`~backfill.workloads.limits.MAX_CLOCK`, and never
  before the time of the previous call (``reset`` starts the count again);
* ``reset`` is given a whole number of processors, at least 1;
* the job given to ``submit`` or ``complete`` is a :class:`~backfill.workloads.workload.Job`;
* a job submitted needs between 1 and the machine's processors, has an estimate ``>= 0`` (SWF's
  ``-1``, "unknown", is for the host to replace: the simulator plans such a job with its runtime),
  and is not submitted before its own submit time.

A call that breaks one raises :class:`~backfill.errors.ScheduleError` naming the scheduler, the job
and the time, before the scheduler changes anything. These are the checks a scheduler can make in
O(1); what needs a record of the whole run (a job id submitted again after it ended, a decision
missing at an instant, a priority that is not a pure function) is :func:`~backfill.guarded`'s.

The checks live in :class:`~backfill.schedulers.SchedulerBase`, so a subclass of a built-in
scheduler or of :class:`~backfill.schedulers.QueueScheduler`,
:class:`~backfill.schedulers.GuaranteeScheduler` or :class:`~backfill.schedulers.Conservative`
inherits them. A scheduler written from scratch applies the same checks with a :class:`Door`.
"""

from __future__ import annotations

import math
import numbers

from backfill.errors import ScheduleError
from backfill.workloads.limits import MAX_CLOCK, MAX_INT
from backfill.workloads.workload import Job

__all__ = ["Door"]

_DONE = {"submit": "submitted", "complete": "completed"}


def _time(value: object) -> str:
    """A time as messages show it: ``%g`` for a number, the repr of anything else."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{float(value):g}"
    return repr(value)


def _size_refusal(name: str, machine_size: object) -> ScheduleError | None:
    """The error for a machine size that is not a whole number of processors >= 1, or None."""
    if (
        isinstance(machine_size, bool)
        or not isinstance(machine_size, numbers.Integral)
        or not 1 <= int(machine_size) < MAX_INT
    ):
        return ScheduleError(
            f"{name}: reset() was given a machine of {machine_size!r} processors; a machine has a whole "
            "number of processors, at least 1"
        )
    return None


def _time_refusal(name: str, subject: str, now: object, last: float) -> ScheduleError | None:
    """The error for a time that is not a finite number <= MAX_CLOCK or goes backwards, or None."""
    try:
        infinite = now != now or now == math.inf or now == -math.inf
        late = not infinite and now > MAX_CLOCK  # type: ignore[operator]
        early = not infinite and not last <= now  # type: ignore[operator]
    except TypeError:
        return ScheduleError(f"{name}: {subject} at {now!r}, which is not a number of seconds")
    if infinite:
        return ScheduleError(f"{name}: {subject} at {now!r}; a time is a finite number of seconds")
    if late:
        return ScheduleError(
            f"{name}: {subject} at {_time(now)}, after MAX_CLOCK (2**43 s), the latest time a run's clock "
            "may reach: beyond it a float no longer resolves a millisecond"
        )
    if early:
        return ScheduleError(
            f"{name}: {subject} at {_time(now)}, before a call at {_time(last)}: a host's time never "
            "goes backwards"
        )
    return None


def refusal(name: str, call: str, job: object, now: object, last: float, size: int) -> ScheduleError:
    """Return the error for a call the door refused: the checks again, one at a time, the first that fails.

    ``call`` is ``"submit"``, ``"complete"``, or the method that checks a decision's time
    (``"schedule"``, or a public step such as ``"compress"``), for which ``job`` is None;
    ``last`` is the time of the previous call and ``size`` the machine's processors (0 before
    :meth:`~backfill.schedulers.Scheduler.reset`). The slow path of every door: only a refused call
    gets here.
    """
    if call in _DONE and not isinstance(job, Job):
        return ScheduleError(f"{name}: {call}() at {_time(now)} was given {job!r}, which is not a Job")
    subject = f"job {job.id} {_DONE[call]}" if isinstance(job, Job) else f"{call}()"
    if size < 1:
        return ScheduleError(
            f"{name}: {subject} at {_time(now)} before any reset(); a host calls reset(machine_size, now) "
            "before the run"
        )
    error = _time_refusal(name, subject, now, last)
    if error is not None or call != "submit":
        return error or ScheduleError(f"{name}: {subject} at {_time(now)} was refused")
    assert isinstance(job, Job)
    p = job.processors
    if not p >= 1:
        return ScheduleError(
            f"{name}: job {job.id} submitted at {_time(now)} needs {p!r} processors; a job needs at least 1"
        )
    if not p <= size:
        return ScheduleError(
            f"{name}: job {job.id} submitted at {_time(now)} needs {p} processors, more than the "
            f"machine's {size}; a host leaves such jobs out (simulate() rejects and counts them)"
        )
    if not job.estimate >= 0.0:
        return ScheduleError(
            f"{name}: job {job.id} submitted at {_time(now)} with estimate {job.estimate!r}; a scheduler "
            "plans with a known estimate, a number of seconds >= 0, so a host replaces SWF's -1 "
            "(unknown) before submitting"
        )
    if not job.submit <= now:  # type: ignore[operator]
        return ScheduleError(
            f"{name}: job {job.id} submitted at {_time(now)}, before its submit time {_time(job.submit)}"
        )
    return ScheduleError(f"{name}: job {job.id} submitted at {_time(now)} was refused")  # pragma: no cover


def reset_refusal(name: str, machine_size: object, now: object) -> ScheduleError | None:
    """The error for a ``reset(machine_size, now)`` the door refuses, or None if it passes."""
    return _size_refusal(name, machine_size) or _time_refusal(name, "reset()", now, -math.inf)


class Door:
    """The door checks for a scheduler written from scratch: call one first in each protocol method.

    :class:`~backfill.schedulers.SchedulerBase` makes these checks for every built-in scheduler and
    its subclasses; a scheduler that does not derive from it keeps a ``Door`` and calls
    :meth:`reset`, :meth:`submit`, :meth:`complete` and :meth:`schedule` at the start of its own
    methods of those names, before it changes anything. Each raises
    :class:`~backfill.errors.ScheduleError` naming the scheduler, the job and the time (see the
    module docstring for what is refused), and otherwise remembers the time. O(1) each.

    Args:
        name: The scheduler's name, which every refusal starts with.

    Attributes:
        name: As given.
        machine_size: The processors given to the latest :meth:`reset` (0 before the first).
        now: The time of the latest call (NaN before the first :meth:`reset`, so that every call
            before it is refused).

    Examples:
        >>> from backfill import Job
        >>> door = Door("Mine")
        >>> door.reset(4, now=0.0)
        >>> door.submit(Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0), now=0.0)
        >>> door.submit(Job(id=2, submit=0.0, processors=8, runtime=5.0, estimate=5.0), now=0.0)
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: Mine: job 2 submitted at 0 needs 8 processors, more than the ...
        >>> door.schedule(now=10.0)
        >>> door.complete(Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0), now=5.0)
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: Mine: job 1 completed at 5, before a call at 10: a host's time ...
    """

    __slots__ = ("machine_size", "name", "now")

    def __init__(self, name: str) -> None:
        self.name = name
        self.machine_size = 0
        self.now = math.nan

    def __repr__(self) -> str:
        return f"Door({self.name!r}, machine_size={self.machine_size}, now={self.now!r})"

    def copy(self) -> Door:
        """Return a door in the same state (for a scheduler's ``copy()``)."""
        other = Door(self.name)
        other.machine_size, other.now = self.machine_size, self.now
        return other

    def reset(self, machine_size: int, now: float) -> None:
        """Check a reset: a whole number of processors >= 1 and a finite time <= MAX_CLOCK."""
        error = reset_refusal(self.name, machine_size, now)
        if error is not None:
            raise error
        self.machine_size = int(machine_size)
        self.now = now

    def submit(self, job: Job, now: float) -> None:
        """Check an arrival: the time, then the job's width, estimate and submit time."""
        try:
            ok = (
                self.now <= now <= MAX_CLOCK
                and (job.__class__ is Job or isinstance(job, Job))
                and 0 < job.processors <= self.machine_size
                and job.estimate >= 0.0
                and job.submit <= now
            )
        except TypeError:
            ok = False
        if not ok:
            raise refusal(self.name, "submit", job, now, self.now, self.machine_size)
        self.now = now

    def complete(self, job: Job, now: float) -> None:
        """Check a completion: a job, at a time that does not go backwards."""
        try:
            ok = self.now <= now <= MAX_CLOCK and (job.__class__ is Job or isinstance(job, Job))
        except TypeError:
            ok = False
        if not ok:
            raise refusal(self.name, "complete", job, now, self.now, self.machine_size)
        self.now = now

    def schedule(self, now: float) -> None:
        """Check a decision's time: finite, at most MAX_CLOCK, not before the previous call's."""
        try:
            ok = self.now <= now <= MAX_CLOCK
        except TypeError:
            ok = False
        if not ok:
            raise refusal(self.name, "schedule", None, now, self.now, self.machine_size)
        self.now = now
