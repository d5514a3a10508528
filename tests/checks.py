"""Checks shared by several test files: the slack-based schedulers' guarantees, decision traces.

The guarantees of Conservative, PC, DC, Selective and EASY are checked by the public
:mod:`backfill.testing`; the slack ones are particular to one scheduler each, so they live with the
tests. :func:`trace` records a run decision by decision, to compare two implementations of one rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from backfill import Job, LookaheadSlack, QueueScheduler, Schedule, Workload, simulate

__all__ = [
    "Tracing",
    "head_at_latest_end",
    "check_slack_bound",
    "check_slack_guarantees",
    "expected_guarantees",
    "starts_of",
    "trace",
]


def starts_of(schedule: Schedule) -> dict[int, float]:
    """Start time by job id (NaN for a rejected job)."""
    ids = schedule.workload.column("id").tolist()
    return dict(zip(ids, schedule.start.tolist(), strict=True))


def expected_guarantees(
    schedule: Schedule, tolerance: float, weight: Callable[[Job], float] | None = None
) -> dict[int, float]:
    """Each started job's SlackBackfill guarantee, recomputed from the schedule alone, not from the scheduler.

    A job arriving at ``a`` gets the slack ``tolerance * mean wait * weight``, the mean over the jobs
    started before ``a`` (the simulator delivers arrivals before it asks for a decision, so jobs
    started at ``a`` itself are not counted), added to its first logged reservation.
    """
    w = schedule.workload
    ids = w.column("id").tolist()
    submit = dict(zip(ids, w.column("submit").tolist(), strict=True))
    start = {j: s for j, s in starts_of(schedule).items() if not math.isnan(s)}
    jobs = {job.id: job for job in w}
    out: dict[int, float] = {}
    for jid in start:
        waits = [s - submit[i] for i, s in start.items() if s < submit[jid]]
        mean = math.fsum(waits) / len(waits) if waits else 0.0
        first = float(schedule.reservations_of(jid)[0])
        out[jid] = first + tolerance * mean * (1.0 if weight is None else weight(jobs[jid]))
    return out


def check_slack_guarantees(
    schedule: Schedule, tolerance: float, weight: Callable[[Job], float] | None = None
) -> int:
    """No SlackBackfill job starts after its guarantee, nor is planned after it; return the moves later."""
    guarantee = expected_guarantees(schedule, tolerance, weight)
    start = starts_of(schedule)
    later = 0
    for jid, g in guarantee.items():
        eps = 1e-9 * (1.0 + abs(g))
        assert start[jid] <= g + eps
        previous = math.inf
        for s in schedule.reservations_of(jid).tolist():
            assert s <= g + eps
            if s > previous:
                later += 1
            previous = s
    return later


def check_slack_bound(schedule: Schedule, scheduler: LookaheadSlack) -> int:
    """Every LookaheadSlack move later stays within the slack usable then; return how many there were.

    A job arriving at ``a`` with fair start ``f`` may be planned later only up to
    ``a + F_part(t - a) * (f - a)`` at time ``t``, so it never starts after ``a + F_slack * (f - a)``.
    ``scheduler`` must be the instance that made ``schedule`` (it remembers the fair starts).
    Rejected jobs never reached the scheduler and are left out.
    """
    fst = scheduler.fair_starts()
    ids = schedule.workload.column("id").tolist()
    submit = dict(zip(ids, schedule.workload.column("submit").tolist(), strict=True))
    start = dict(zip(ids, schedule.start.tolist(), strict=True))
    slack = scheduler.slack
    later = 0
    for jid in ids:
        if jid in schedule.rejected:
            continue
        a, f = submit[jid], fst[jid]
        assert start[jid] <= max(f, a + slack.factor(f - a) * (f - a)) + 1e-9
        r = schedule.reservations
        mine = r[r["job_id"] == jid]
        previous = math.inf
        for t, s in zip(mine["time"].tolist(), mine["start"].tolist(), strict=True):
            if s > previous:
                later += 1
                assert s <= max(previous, slack.latest_start(a, f - a, t - a)) + 1e-9
            previous = s
        assert start[jid] <= previous + 1e-9
    return later


class Tracing:
    """A scheduler wrapper that records, at every decision, what started and the reservations after it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.trace: list[tuple[float, list[int], dict[int, float]]] = []

    def reset(self, machine_size: int, now: float) -> None:
        self.inner.reset(machine_size, now)

    def submit(self, job: Job, now: float) -> None:
        self.inner.submit(job, now)

    def complete(self, job: Job, now: float) -> None:
        self.inner.complete(job, now)

    def schedule(self, now: float) -> list[Job]:
        out = list(self.inner.schedule(now))
        self.trace.append((now, [j.id for j in out], dict(self.inner.reservations())))
        return out

    def next_wakeup(self) -> float | None:
        return self.inner.next_wakeup()  # type: ignore[no-any-return]

    def reservations(self) -> Mapping[int, float]:
        return self.inner.reservations()

    def log_reservation_changes(self, on: bool = True) -> None:
        self.inner.log_reservation_changes(on)

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        return self.inner.take_reservation_changes()  # type: ignore[no-any-return]

    def copy(self) -> Tracing:
        return Tracing(self.inner.copy())


def trace(w: Workload, scheduler: Any, overrun: str = "raise_estimate") -> list[Any]:
    traced = Tracing(scheduler)
    simulate(w, traced, overrun=overrun)  # type: ignore[arg-type]
    return traced.trace


def head_at_latest_end(base: type[QueueScheduler]) -> type[QueueScheduler]:
    """A subclass of ``base`` that starts in order while jobs fit and reserves the blocked head at the
    latest planned end, noting the reservation the public way (``note_reservation``)."""

    class HeadAtLatestEnd(base):  # type: ignore[valid-type, misc]
        def schedule(self, now: float) -> list[Job]:
            chosen, free, head = [], self.free, None
            for entry in self.ordered(now):
                if entry[2].processors > free:
                    head = entry[2]
                    break
                chosen.append(entry)
                free -= entry[2].processors
            started: list[Job] = self.start(chosen, now)
            if head is not None:
                self.note_reservation(head.id, max(r.planned_end for r in self.running_jobs()))
            return started

    return HeadAtLatestEnd
