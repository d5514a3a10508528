"""Drive backfill schedulers from a SimPy model, through the scheduler protocol alone.

A scheduler never sees a simulator: it is told ``complete``, ``submit`` and ``schedule``, with the
time, and answers which jobs start. This script is the SimPy side of that contract, without
``backfill.simulator``: a process delivers the arrivals of a Lublin-Feitelson workload, each started
job is a process that runs for its runtime, and a timeout wakes the scheduler at its
``next_wakeup()`` (DC asks for some). SimPy runs the events of one instant in the order they were
scheduled, not by kind, so the host buffers the instant's completions and arrivals and decides once,
after all of them, in the protocol's order: completions (in start order), arrivals (in workload
order), then ``schedule``. Times are rounded to 5 minutes, so many jobs arrive together or as others
end, and the short ones have zero runtime.

The schedule built from the SimPy run is validated, and its start times and reservation log are
compared with ``backfill.simulate`` on the same workload. ``--decide-per-event`` calls ``schedule``
at every SimPy event instead, to show that the order at equal times changes the result.

Run: python examples/embed_in_simpy.py [--decide-per-event]   (needs simpy: pip install ".[embedding]")
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable

import attrs
import numpy as np
import simpy

import backfill
from backfill import DC, EASY, Conservative, Job, ReservationLog, Schedule, Scheduler, Workload, sjf

GRID = 300.0  # seconds


class Host:
    """Turn SimPy events into the protocol's calls, one decision per instant."""

    def __init__(self, env: simpy.Environment, scheduler: Scheduler, size: int, per_event: bool) -> None:
        self.env, self.scheduler, self.per_event = env, scheduler, per_event
        self.ended: list[Job] = []
        self.arrived: list[Job] = []
        self.decision: simpy.Event | None = None
        self.wakeups: set[float] = set()
        self.start: dict[int, float] = {}
        self.end: dict[int, float] = {}
        self.rank: dict[int, int] = {}  # position in start order, by job id
        self.log: list[tuple[float, int, float]] = []
        # The scheduler's own log of reservation changes is opt-in (see ReservationLog).
        self.logs = isinstance(scheduler, ReservationLog)
        if self.logs:
            scheduler.log_reservation_changes()
        scheduler.reset(size, env.now)

    def notify(self, arrived: Job | None = None, ended: Job | None = None) -> None:
        self.arrived += [arrived] if arrived is not None else []
        self.ended += [ended] if ended is not None else []
        if self.per_event:
            self._decide()
        elif self.decision is None:
            # Every other event due now was scheduled before now (except the end of a zero-runtime job,
            # which belongs after the decision that started it), so a timeout made now runs last.
            self.decision = self.env.timeout(0)
            self.decision.callbacks.append(lambda _: self._decide())

    def _decide(self) -> None:
        self.decision, now = None, self.env.now
        # SimPy already ends same-time jobs in start order; sorting states the contract, not luck.
        for job in sorted(self.ended, key=lambda job: self.rank[job.id]):
            self.scheduler.complete(job, now)
        for job in self.arrived:
            self.scheduler.submit(job, now)
        self.ended, self.arrived = [], []
        for job in self.scheduler.schedule(now):
            self.start[job.id] = now
            self.rank[job.id] = len(self.rank)
            self.env.process(self._run(job))
        wake = self.scheduler.next_wakeup()
        if wake is not None and wake > now and wake not in self.wakeups:
            self.wakeups.add(wake)
            self.env.timeout(wake - now).callbacks.append(lambda _: self._wake(wake))
        if self.logs:
            changes = self.scheduler.take_reservation_changes()  # type: ignore[attr-defined]
            self.log.extend((now, job_id, start) for job_id, start in changes)

    def _wake(self, at: float) -> None:
        self.wakeups.discard(at)
        self.notify()

    def _run(self, job: Job) -> simpy.events.ProcessGenerator:
        yield self.env.timeout(job.runtime)
        self.end[job.id] = self.env.now
        self.notify(ended=job)


def arrivals(env: simpy.Environment, host: Host, jobs: Iterable[Job]) -> simpy.events.ProcessGenerator:
    for job in jobs:
        # A timeout(0) per same-time job would come after the decision: deliver them in one step.
        if job.submit > env.now:
            yield env.timeout(job.submit - env.now)
        # The protocol needs every job to end by start + estimate; raise an estimate the runtime
        # exceeds, as backfill.simulate does by default.
        host.notify(arrived=attrs.evolve(job, estimate=max(job.estimate, job.runtime)))


def simpy_schedule(workload: Workload, scheduler: Scheduler, per_event: bool = False) -> Schedule:
    """Run the workload through the scheduler in SimPy and return the result as a ``Schedule``."""
    env = simpy.Environment(initial_time=float(workload.column("submit")[0]) if len(workload) else 0.0)
    host = Host(env, scheduler, workload.machine_size, per_event)
    env.process(arrivals(env, host, workload))
    env.run()
    return Schedule.from_starts(
        workload,
        host.start,
        host.end,
        name="SimPy",  # the reference run is named after the scheduler
        reservations=host.log,
        estimate=np.maximum(workload.column("estimate"), workload.column("runtime")),
        start_order=list(host.rank),  # job ids in the order they started
    )


def coarse(workload: Workload) -> Workload:
    """Round submit times down, runtimes to the nearest multiple and estimates up to the grid."""
    jobs = [
        attrs.evolve(
            job,
            submit=GRID * math.floor(job.submit / GRID),
            runtime=GRID * round(job.runtime / GRID),
            estimate=GRID * math.ceil(job.estimate / GRID),
        )
        for job in workload
    ]
    return Workload.from_jobs(jobs, machine_size=workload.machine_size)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decide-per-event", action="store_true", help="ignore the order at equal times")
    args = parser.parse_args(argv)
    workload = coarse(backfill.lublin_feitelson(300, machine_size=64, seed=4, estimates="f-model"))
    together = len(workload) - len(np.unique(workload.column("submit")))
    zero = int((workload.column("runtime") == 0).sum())
    print(f"{len(workload)} jobs, {together} arriving with an earlier one, {zero} of zero runtime")
    for scheduler in (EASY(priority=sjf), Conservative(), DC(priority=sjf)):
        ours = simpy_schedule(workload, scheduler.copy(), args.decide_per_event)
        reference = backfill.simulate(workload, scheduler)
        backfill.validate_schedule(ours)  # capacity and accounting, from the arrays alone
        backfill.check_reservations(ours, while_held=isinstance(scheduler, EASY))
        same = int((ours.start == reference.start).sum())
        try:
            backfill.same_schedule(ours, reference, reservations=True)
            same_log = True
        except backfill.ScheduleError as difference:
            same_log = False
            first = str(difference)
        print(
            f"{reference.scheduler}: mean wait {np.mean(ours.wait):.1f} s, {len(ours.reservations)} "
            f"reservation changes, same log as simulate: {same_log}"
        )
        print(f"SimPy run matches backfill.simulate: {same} of {len(workload)} jobs start at the same time")
        if not same_log:
            print(f"  first difference: {first}")


if __name__ == "__main__":
    main()
