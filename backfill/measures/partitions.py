"""The validator of a partitioned run: the whole schedule, then each partition's own capacity."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from backfill.errors import ScheduleError
from backfill.measures.resource_use import held_back
from backfill.measures.validation import validate_schedule
from backfill.partitions import Partition, check_partitions
from backfill.schedule import Schedule
from backfill.workloads.workload import Workload

__all__ = ["partition_held_back", "validate_partitions"]


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
        validate_schedule(_own_schedule(schedule, p))


def _own_schedule(schedule: Schedule, partition: Partition) -> Schedule:
    """The part of a partitioned schedule that ran in ``partition``: its jobs, processors and resources."""
    w = schedule.workload
    rows = np.flatnonzero(np.isin(w.column("partition"), partition.numbers))
    mine = set(w.column("id")[rows].tolist())
    return Schedule.from_starts(
        Workload.from_records(w.records[rows], partition.processors),
        schedule.start[rows],
        schedule.end[rows],
        name=f"{schedule.scheduler}, partition {partition.name}",
        runtime=schedule.runtime[rows],
        rejected={job: why for job, why in schedule.rejected.items() if job in mine},
        resources=partition.resources,
    )


def partition_held_back(schedule: Schedule, partitions: Iterable[Partition]) -> dict[str, float]:
    """:func:`~backfill.measures.resource_use.held_back` of a partitioned run, partition by partition, summed.

    Each partition is a machine of its own: its oldest waiting job, its free processors and its
    resources' free amounts; the merged schedule's pools (every partition's capacities added up)
    would call a job's processors free when another partition's were. A resource counts in the
    partitions that have it.

    Examples:
        >>> from backfill import EASY, Job, Resource, Workload
        >>> from backfill.partitions import simulate_partitions
        >>> jobs = [Job(id=i, submit=float(i), processors=1, runtime=10.0, estimate=10.0, partition=1,
        ...             requested_memory=6) for i in (1, 2)]
        >>> parts = [Partition("a", 1, processors=2, resources=(Resource.memory(10),)),
        ...          Partition("b", 2, processors=2, resources=(Resource.memory(10),))]
        >>> partition_held_back(simulate_partitions(Workload.from_jobs(jobs, 4), parts, EASY()), parts)
        {'memory': 9.0}
    """
    out: dict[str, float] = {}
    for p in check_partitions(partitions):
        for name, seconds in held_back(_own_schedule(schedule, p)).items():
            out[name] = out.get(name, 0.0) + seconds
    return out
