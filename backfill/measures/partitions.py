"""The validator of a partitioned run: the whole schedule, then each partition's own capacity."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from backfill.errors import ScheduleError
from backfill.measures.validation import validate_schedule
from backfill.partitions import Partition, check_partitions
from backfill.schedule import Schedule
from backfill.workloads.workload import Workload

__all__ = ["validate_partitions"]


def validate_partitions(schedule: Schedule, partitions: Iterable[Partition]) -> None:
    """Raise :class:`~backfill.ScheduleError` unless a partitioned schedule is feasible in every partition.

    :func:`~backfill.measures.validation.validate_schedule` first checks the whole schedule (every
    job started once or rejected, starts after submits, the partitioned machine's capacity). Then no
    job of no partition may have started, and each partition's jobs must fit that partition alone:
    at no instant more processors, or more of one of its resources, than it has. A schedule that
    overfills one partition while another is idle fits the whole machine, so only this catches it.

    Examples:
        >>> from backfill import EASY, Job, Workload
        >>> from backfill.partitions import simulate_partitions
        >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=5.0, partition=1)
        ...         for i in (1, 2)]
        >>> w = Workload.from_jobs(jobs, machine_size=4)
        >>> parts = [Partition("a", 1, processors=2), Partition("b", 2, processors=2)]
        >>> validate_partitions(simulate_partitions(w, parts, EASY()), parts)
        >>> both = Schedule.from_starts(Workload.from_jobs(jobs, 4), {1: 0.0, 2: 0.0}, name="mine")
        >>> validate_partitions(both, parts)
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: mine, partition a: 4 processors in use at time 0 on a 2-processor \
machine
    """
    parts = check_partitions(partitions)
    validate_schedule(schedule)
    w = schedule.workload
    column = w.column("partition")
    ids = w.column("id")
    served = np.isin(column, [n for p in parts for n in p.numbers])
    if (stray := np.flatnonzero(schedule.started & ~served)).size:
        row = int(stray[0])
        raise ScheduleError(
            f"{schedule.scheduler}: job {int(ids[row])} started, but its SWF partition "
            f"{int(column[row])} is in no partition"
        )
    for p in parts:
        rows = np.flatnonzero(np.isin(column, p.numbers))
        mine = set(ids[rows].tolist())
        own = Schedule.from_starts(
            Workload.from_records(w.records[rows], p.processors),
            schedule.start[rows],
            schedule.end[rows],
            name=f"{schedule.scheduler}, partition {p.name}",
            runtime=schedule.runtime[rows],
            rejected={job: why for job, why in schedule.rejected.items() if job in mine},
            resources=p.resources,
        )
        validate_schedule(own)
