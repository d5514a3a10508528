"""Schedulers of your own on the library's two base classes: a queue scheduler and a guarantee scheduler.

* ``FirstFit`` subclasses :class:`backfill.QueueScheduler`, which keeps the priority-ordered queue and
  the running jobs: only ``schedule`` is new. It starts, in priority order, every queued job that
  fits, and promises nothing (aggressive backfilling without reservations).
* ``LazyPC`` subclasses :class:`backfill.GuaranteeScheduler`, PC's and DC's base: every job gets a
  guarantee at arrival that never moves later, and the subclass chooses when to compress. LazyPC
  compresses only once some job has ended at least ``min_early`` seconds before its estimate, and
  then with every interval freed since the last compression, so the guarantees stay PC's.

Both are checked as the library's own schedulers are: ``validate_schedule`` for feasibility,
``check_reservations`` for LazyPC's guarantees; and ``copy()`` keeps their type, so forks (fair start
times, ``backfill.testing.check_scheduler``) run the subclass, not its base.

Run: python examples/subclass_schedulers.py
"""

from __future__ import annotations

from typing import Any

import attrs

from backfill import (
    PC,
    GuaranteeScheduler,
    Job,
    QueueScheduler,
    check_reservations,
    lublin_feitelson,
    metrics_table,
    simulate,
    sjf,
    validate_schedule,
)


class FirstFit(QueueScheduler):
    """Start every queued job that fits, in priority order; no reservations."""

    def schedule(self, now: float) -> list[Job]:
        chosen, free = [], self.free
        for entry in self.ordered(now):  # (key, arrival seq, job), smallest key first
            if entry[2].processors <= free:
                chosen.append(entry)
                free -= entry[2].processors
        return self.start(chosen, now)


@attrs.define(repr=False, eq=False)
class LazyPC(GuaranteeScheduler):
    """PC that compresses only after a job ended at least ``min_early`` seconds before its estimate."""

    min_early: float = attrs.field(default=600.0, kw_only=True)
    # Names of its own: the base's private attributes start with an underscore.
    pending: list[tuple[float, float]] = attrs.field(init=False, factory=list)
    due: bool = attrs.field(init=False, default=False)

    @property
    def name(self) -> str:
        return f"LazyPC({self.min_early:g}s)"

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self.pending, self.due = [], False

    def submit(self, job: Job, now: float) -> None:
        self._compress_if_due(now)
        self.place(job, now)  # the guarantee: its earliest fit now

    def complete(self, job: Job, now: float) -> None:
        interval = self.release(job, now)  # None unless it ended before its estimate
        if interval is not None:
            self.pending.append(interval)
            self.due = self.due or interval[1] - interval[0] >= self.min_early

    def schedule(self, now: float) -> list[Job]:
        self._compress_if_due(now)
        return self.start_due(now)

    def _compress_if_due(self, now: float) -> None:
        if self.due:
            self.compress(now, self.pending)  # every interval since the last compression
            self.pending, self.due = [], False

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other.pending = self.pending.copy()  # copy() shares what is not copied here


def main() -> None:
    workload = lublin_feitelson(2_000, machine_size=128, seed=3, estimates="f-model")
    schedulers = [FirstFit(sjf), LazyPC(sjf, min_early=3600), PC(sjf)]
    schedules = [simulate(workload, scheduler) for scheduler in schedulers]
    for schedule in schedules:
        validate_schedule(schedule)
    check_reservations(schedules[1])  # LazyPC's guarantees never moved later
    check_reservations(schedules[2])
    for scheduler in schedulers:
        assert type(scheduler.copy()) is type(scheduler)
    print(f"{len(workload)} Lublin-Feitelson jobs on {workload.machine_size} processors")
    print(metrics_table(schedules, columns=["mean_wait", "max_wait", "mean_bsld", "utilization"]))
    print("LazyPC: every guarantee kept; copies keep their type")


if __name__ == "__main__":
    main()
