"""The scheduler protocol: what a simulator (ours or anyone's) needs from a scheduler.

A scheduler never sees a simulator. At each instant the driver tells it, always with the current time:

1. :meth:`Scheduler.complete` for every job that finished at ``now`` (possibly before its estimate),
2. :meth:`Scheduler.submit` for every job that arrived at ``now``,
3. :meth:`Scheduler.schedule` once: time has advanced to ``now``; the answer is the jobs to start now,
   which the scheduler already counts as running.
4. If a job it started has zero runtime, it ends in the same instant: :meth:`Scheduler.complete` for
   it, then :meth:`Scheduler.schedule` again, until an answer starts no such job.

Calling :meth:`Scheduler.schedule` between the notifications of one instant, or delivering arrivals
before completions, gives valid schedules but not the ones our simulator gives (PC and DC differ most).
The driver also owes the scheduler jobs it can plan, at sane times: every built-in scheduler checks
each call at its door (:mod:`backfill.schedulers.machinery.door`), always and in O(1), and refuses a time that
is not finite, is after ``MAX_CLOCK`` (2**43 s) or goes backwards, and a job that is not a :class:`Job`, needs
no processors or more than the machine has (the simulator never submits those: it rejects them,
with a reason), has no known estimate (SWF's -1) or is submitted before its submit time. And it
reports a job complete no later than its start plus its estimate (a job that runs longer needs its
estimate raised before submission; the simulator's ``overrun`` policy does that by default).

The driver then asks :meth:`Scheduler.next_wakeup`; if the scheduler names a future time, the driver calls
:meth:`Scheduler.schedule` at that time even if nothing else happens (a Selective promotion threshold
crossed, a hole DC must fill). :meth:`Scheduler.reservations` exposes the guaranteed starts of queued
jobs, and :meth:`Scheduler.copy` gives an independent scheduler for what-if runs.

Optional fast path, the :class:`ReservationLog` protocol: a scheduler that keeps its own log of
reservation changes has ``log_reservation_changes(on=True)``, which turns the log on (it is off until
then, so a driver that never reads it never lets it grow), and ``take_reservation_changes()``, which
returns the ``(job_id, start)`` changes since the previous call (``start`` is NaN when a queued job
loses its reservation; a job's reservation ending because it starts is not a change). The simulator
then records from that log instead of comparing :meth:`Scheduler.reservations` at every instant,
which matters when every queued job holds one.

The duties of a driver (host) that the scheduler cannot check cheaply are listed in
``docs/how-to/embedding.md``; :func:`backfill.guarded` checks every one of them at run time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, Self, runtime_checkable

from backfill.workloads.nodes import Allocation
from backfill.workloads.workload import Job

__all__ = ["Placing", "ReservationLog", "Scheduler", "scheduler_name"]


@runtime_checkable
class Scheduler(Protocol):
    """Anything that decides which queued jobs start when, driven by notifications.

    Jobs are identified by :attr:`Job.id`. A driver must not call :meth:`complete` for a job the
    scheduler has not started, nor :meth:`submit` twice for one job; it must call :meth:`schedule` after
    the notifications of each instant, with non-decreasing times.
    """

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job and prepare to schedule a machine of ``machine_size`` processors from ``now``."""
        ...

    def submit(self, job: Job, now: float) -> None:
        """Take a newly arrived job into the queue."""
        ...

    def complete(self, job: Job, now: float) -> None:
        """Learn that a running job finished at ``now`` (at or before ``start + estimate``)."""
        ...

    def schedule(self, now: float) -> Sequence[Job]:
        """Return the queued jobs to start at ``now``; from then on they count as running."""
        ...

    def next_wakeup(self) -> float | None:
        """Return a future time at which :meth:`schedule` must be called even without events, or None."""
        ...

    def reservations(self) -> Mapping[int, float]:
        """Return the guaranteed start of every queued job that has one, by job id."""
        ...

    def copy(self) -> Self:
        """Return an independent scheduler in the same state, for what-if runs."""
        ...


@runtime_checkable
class ReservationLog(Protocol):
    """The optional part of the protocol: a scheduler's own log of reservation changes.

    Check for it with ``isinstance(scheduler, ReservationLog)``. Every built-in scheduler that gives
    reservations has it (FCFS has it too, and logs nothing).

    Examples:
        >>> from backfill import Conservative, Job
        >>> s = Conservative()
        >>> isinstance(s, ReservationLog)
        True
        >>> s.log_reservation_changes()
        >>> s.reset(2, now=0.0)
        >>> for i in (1, 2):
        ...     s.submit(Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=5.0), now=0.0)
        >>> s.take_reservation_changes(), s.take_reservation_changes()
        ([(1, 0.0), (2, 5.0)], [])
    """

    def log_reservation_changes(self, on: bool = True) -> None:
        """Start (``on=False``: stop) logging reservation changes; the log is off until this is called."""
        ...

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        """Return the ``(job_id, start)`` reservation changes since the last call, and forget them."""
        ...


@runtime_checkable
class Placing(Protocol):
    """The optional placing extension: a scheduler that says which nodes each job it starts runs on.

    Every built-in scheduler built with ``nodes=Machine(...)`` has it
    (:class:`~backfill.schedulers.machinery.placing.NodePlacing`). A host that places jobs (Batsim,
    AccaSim, a SimPy model) asks :meth:`allocation` for every job :meth:`Scheduler.schedule`
    returned, before its next call to the scheduler; a pool scheduler answers None, and the host
    places the job itself, as before.
    """

    def allocation(self, job_id: int) -> Allocation | None:
        """The node ids a running job holds and its amounts on each, or None on a pool machine."""
        ...


def scheduler_name(scheduler: object) -> str:
    """Return a short name for tables: the ``name`` attribute if there is one, else the class name.

    Examples:
        >>> from backfill.schedulers import EASY
        >>> scheduler_name(EASY())
        'EASY(fcfs)'
    """
    name = getattr(scheduler, "name", None)
    return name if isinstance(name, str) else type(scheduler).__name__
