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
The driver also owes the scheduler two things it cannot check: it never submits a job wider than the
machine (the simulator rejects those, with a reason), and it reports a job complete no later than its
start plus its estimate (a job that runs longer needs its estimate raised before submission; the
simulator's ``overrun`` policy does that by default).

The driver then asks :meth:`Scheduler.next_wakeup`; if the scheduler names a future time, the driver calls
:meth:`Scheduler.schedule` at that time even if nothing else happens (a Selective promotion threshold
crossed, a hole DC must fill). :meth:`Scheduler.reservations` exposes the guaranteed starts of queued
jobs, and :meth:`Scheduler.copy` gives an independent scheduler for what-if runs.

Optional fast path: a scheduler that keeps its own log of reservation changes may also define
``take_reservation_changes() -> list[tuple[int, float]]``, returning the ``(job_id, start)`` changes since
the previous call (``start`` is NaN when a queued job loses its reservation; a job's reservation ending
because it starts is not a change). The simulator then records from that log instead of comparing
:meth:`Scheduler.reservations` at every instant, which matters when every queued job holds one. Such a
scheduler appends to its log whether or not anyone reads it, so a driver that does not record
reservations must still call it now and then (our simulator drains it at every instant) or the log
grows for the whole run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, Self, runtime_checkable

from backfill.workload import Job

__all__ = ["Scheduler", "scheduler_name"]


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


def scheduler_name(scheduler: object) -> str:
    """Return a short name for tables: the ``name`` attribute if there is one, else the class name.

    Examples:
        >>> from backfill.schedulers import EASY
        >>> scheduler_name(EASY())
        'EASY(fcfs)'
    """
    name = getattr(scheduler, "name", None)
    return name if isinstance(name, str) else type(scheduler).__name__
