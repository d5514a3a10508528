"""Backfilling with a priority of your own: a weighted blend of wait time and runtime estimate.

A priority is any callable ``priority(job, now)`` returning a sort key; the job with the smallest key
is served first, ties by arrival. A parametrised one is best written as a small frozen attrs class,
whose repr then names the scheduler in the metrics table. The same priority orders EASY's queue and
the compression queue of PC and DC, which still give every job a guarantee at arrival.

Run: python examples/custom_priority.py
"""

from __future__ import annotations

import attrs

from backfill import (
    DC,
    EASY,
    PC,
    Conservative,
    Job,
    check_reservations,
    lublin_feitelson,
    simulate,
    validate_schedule,
)
from backfill.measures.metrics import metrics_table


@attrs.frozen
class Blend:
    """Serve short jobs first, but let every second of waiting count against a job's estimate.

    The key is ``estimate_weight * estimate - wait_weight * wait``: with the default weights a job
    that has waited an hour goes ahead of one estimated an hour longer.

    It reads ``now``, and has no ``depends_on_time = False`` marker, so EASY re-sorts its queue at
    every decision (and PC and DC at every compression); that is always correct. (This particular
    blend happens to order the queue as the static key ``estimate_weight * estimate + wait_weight *
    submit`` would, since ``now`` is common to all jobs; written that way, with the marker, it would
    take the faster static path.)
    """

    wait_weight: float = 1.0
    estimate_weight: float = 1.0

    def __call__(self, job: Job, now: float) -> float:
        return self.estimate_weight * job.estimate - self.wait_weight * (now - job.submit)


def main() -> None:
    workload = lublin_feitelson(2_000, machine_size=128, seed=1, estimates="f-model")
    blend = Blend(wait_weight=2.0)
    schedulers = [EASY(), EASY(priority=blend), Conservative(), PC(priority=blend), DC(priority=blend)]
    schedules = [simulate(workload, scheduler) for scheduler in schedulers]
    for schedule in schedules:
        validate_schedule(schedule)
    for schedule in schedules[2:]:
        check_reservations(schedule)  # guarantees given at arrival never moved later
    print(f"{len(workload)} Lublin-Feitelson jobs on {workload.machine_size} processors")
    print(metrics_table(schedules))


if __name__ == "__main__":
    main()
