"""A host simulator of your own: drive backfill's schedulers from a hundred-line event loop.

A scheduler never sees a simulator; this is everything a host owes it (the duties are marked
"Duty" below, and listed in docs/how-to/embedding.md):

* one ``reset``, then at each instant every completion (in start order), every arrival (in workload
  order), and one ``schedule(now)``, repeated while jobs of zero runtime end in the same instant;
* a wake-up at the time ``next_wakeup()`` names;
* no job runs past its start + estimate (the estimate is raised to the runtime before submission,
  as ``backfill.simulate`` does), each job once, and only jobs that can fit: none wider than the
  machine, none asking more of a resource the scheduler plans (its ``resources``) than the
  machine has; the others are rejected, with the reason ``backfill.simulate`` gives;
* the scheduler's own reservation log is opt-in: turn it on to record it.

The host runs under ``backfill.guarded``, which checks each of these duties at every call, then
turns its result into a ``Schedule`` with ``Schedule.from_starts`` and checks it with the library's
validators and with ``same_schedule`` against ``backfill.simulate``. ``--forget-overruns`` drops the
raising of estimates and lets one job run past its estimate, to show what a host then sees.
``--memory`` gives every job a memory request and plans memory too (1 GB a processor): the host
rejects the jobs asking more memory than the machine has, and says how many.

Run: python examples/host_simulator.py [--forget-overruns | --memory]
"""

from __future__ import annotations

import argparse
import heapq
import random
from collections import Counter
from collections.abc import Sequence

import attrs

import backfill
from backfill import (
    DC,
    EASY,
    PC,
    Conservative,
    Job,
    ReservationLog,
    Resource,
    Schedule,
    ScheduleError,
    Scheduler,
    Workload,
    check_reservations,
    guarded,
    same_schedule,
    scheduler_name,
    sjf,
    validate_schedule,
)

COMPLETION, ARRIVAL, WAKEUP = 0, 1, 2  # at one time: completions, then arrivals, then wake-ups


@attrs.define
class Host:
    """An event loop around one scheduler, recording starts, ends and reservation changes by job id."""

    scheduler: Scheduler
    machine_size: int
    raise_estimates: bool = True
    start: dict[int, float] = attrs.Factory(dict)
    end: dict[int, float] = attrs.Factory(dict)
    rejected: dict[int, str] = attrs.Factory(dict)
    log: list[tuple[float, int, float]] = attrs.Factory(list)

    def run(self, jobs: list[Job]) -> None:
        s = self.scheduler
        logs = isinstance(s, ReservationLog)
        if logs:
            s.log_reservation_changes()  # Duty: the log is off unless asked for
        resources: Sequence[Resource] = getattr(s, "resources", ())  # what it plans besides processors
        events: list[tuple[float, int, int, Job | None]] = []
        for seq, job in enumerate(jobs):
            reason = self.refusal(job, resources)
            if reason is not None:
                self.rejected[job.id] = reason  # Duty: only jobs that can fit
                continue
            if self.raise_estimates and job.runtime > job.estimate:
                job = attrs.evolve(job, estimate=job.runtime)  # Duty: end by start + estimate
            heapq.heappush(events, (job.submit, ARRIVAL, seq, job))
        seq, wakeups = len(jobs), set()
        s.reset(self.machine_size, events[0][0] if events else 0.0)
        while events:
            now = events[0][0]
            while True:
                # Duty: tell every completion and arrival of the instant, then decide once.
                while events and events[0][0] == now:
                    _, kind, _, job = heapq.heappop(events)
                    if kind == COMPLETION:
                        assert job is not None
                        self.end[job.id] = now
                        s.complete(job, now)
                    elif kind == ARRIVAL:
                        assert job is not None
                        s.submit(job, now)
                    else:
                        wakeups.discard(now)
                for job in s.schedule(now):
                    self.start[job.id] = now
                    seq += 1  # completions at one time come out in start order
                    heapq.heappush(events, (now + job.runtime, COMPLETION, seq, job))
                # Duty: a job of zero runtime ends in this instant; tell it and decide again.
                if not (events and events[0][0] == now):
                    break
            wake = s.next_wakeup()
            if wake is not None and wake > now and wake not in wakeups:  # Duty: wake it then
                wakeups.add(wake)
                seq += 1
                heapq.heappush(events, (wake, WAKEUP, seq, None))
            if logs:
                self.log += [(now, job_id, start) for job_id, start in s.take_reservation_changes()]

    def refusal(self, job: Job, resources: Sequence[Resource]) -> str | None:
        """Why a job can never fit (wider than the machine, or asking more of a resource), or None."""
        if job.processors > self.machine_size:
            return f"wider than the machine ({self.machine_size} processors)"
        for resource in resources:
            if resource.amount(job) > resource.capacity:
                return f"needs more {resource.name} than the machine has ({resource.capacity})"
        return None

    def schedule_of(self, workload: Workload) -> Schedule:
        """The run as a Schedule, for the library's validators, metrics and comparisons."""
        return Schedule.from_starts(
            workload,
            self.start,
            self.end,
            name=scheduler_name(self.scheduler),
            reservations=self.log,
            rejected=self.rejected,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    both = parser.add_mutually_exclusive_group()
    both.add_argument("--forget-overruns", action="store_true", help="let a job run past its estimate")
    both.add_argument("--memory", action="store_true", help="give jobs memory and plan it (1 GB a processor)")
    args = parser.parse_args(argv)
    workload = backfill.lublin_feitelson(500, machine_size=64, seed=4, estimates="f-model")
    jobs = list(workload)
    if args.forget_overruns:
        # Job 40 runs twice its estimate, and the host no longer raises estimates.
        jobs[39] = attrs.evolve(jobs[39], runtime=2 * jobs[39].estimate + 60)
    resources: list[Resource] = []
    if args.memory:
        # kB per processor, as SWF field 10 records it; 64 processors x 1 GB in all, so that a job
        # of 32 processors asking 4 GB each can never fit.
        draw = random.Random(4)
        jobs = [attrs.evolve(job, requested_memory=draw.choice([2**18, 2**19, 2**20, 2**22])) for job in jobs]
        workload = Workload.from_jobs(jobs, machine_size=workload.machine_size)
        resources = [Resource.memory(capacity=workload.machine_size * 2**20)]
    print(f"{len(workload)} jobs on {workload.machine_size} processors")
    for scheduler in (
        EASY(sjf, resources=resources),
        Conservative(resources=resources),
        PC(sjf, resources=resources),
        DC(sjf, resources=resources),
    ):
        for guard in (True, False) if args.forget_overruns else (True,):
            host = Host(guarded(scheduler.copy()) if guard else scheduler.copy(), workload.machine_size)
            host.raise_estimates = not args.forget_overruns
            try:
                host.run(jobs)
            except ScheduleError as error:
                print(f"{'guarded' if guard else 'unguarded'}: {error}")
                continue
            ours = host.schedule_of(workload)
            validate_schedule(ours)  # feasible, every job accounted for
            check_reservations(ours, while_held=isinstance(scheduler, EASY))
            same_schedule(ours, backfill.simulate(workload, scheduler), reservations=True)
            waits = [
                ours.start[i] - job.submit for i, job in enumerate(workload) if job.id not in host.rejected
            ]
            print(
                f"{ours.scheduler}: mean wait {sum(waits) / len(waits):.0f} s, {len(ours.reservations)} "
                "reservation changes, the same schedule and reservation log as backfill.simulate"
            )
            for reason, count in sorted(Counter(host.rejected.values()).items()):
                print(f"  rejected {count} jobs: {reason}")


if __name__ == "__main__":
    main()
