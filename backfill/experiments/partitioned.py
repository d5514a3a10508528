"""Fair Start Times of a partitioned run: each partition's, computed alone and merged."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from backfill.errors import BackfillError
from backfill.experiments.fair_start import FairStartTimes, fair_start_times
from backfill.partitions import (
    Partition,
    check_partitions,
    partition_runs,
    partitioned_name,
    partitioned_workload,
)
from backfill.schedulers.protocol import Scheduler
from backfill.workloads.workload import Workload

__all__ = ["partition_fair_start_times"]


def partition_fair_start_times(
    workload: Workload,
    partitions: Iterable[Partition],
    scheduler: Scheduler | Mapping[str, Scheduler],
    **options: Any,
) -> FairStartTimes:
    """Return the strict and relaxed Fair Start Times of a partitioned run, aligned with its schedule.

    A job's strict FST is its start had no job arrived after it; a job of another partition never
    shares its processors, so only its own partition's arrivals matter, and each partition's FSTs
    are :func:`~backfill.experiments.fair_start.fair_start_times` of that partition alone (its jobs,
    its processors, its scheduler: :func:`~backfill.partitions.partition_runs`). The same holds for
    the relaxed FST, whose "other jobs queued at its arrival" are its partition's. The result is
    aligned with :func:`~backfill.partitions.simulate_partitions`'s schedule (same workload and
    name), so :func:`~backfill.measures.fairness.unfairness` takes the two; a job of no partition,
    or rejected by its partition, has NaN.

    Args:
        workload: Every job, partitions named in field 16.
        partitions: The disjoint partitions.
        scheduler: One prototype, or a scheduler per partition name.
        **options: Passed to ``fair_start_times`` for every partition (``strict``, ``relaxed``,
            ``workers``, ``executor``, ``overrun``, ...; not ``checkpoint``, a file of one run).

    Raises:
        BackfillError: As ``fair_start_times`` and ``partition_runs`` raise, or a ``checkpoint``.

    Examples:
        >>> from backfill import Conservative, Job, Workload
        >>> jobs = [Job(id=1, submit=0.0, processors=5, runtime=10.0, estimate=100.0, partition=1),
        ...         Job(id=2, submit=1.0, processors=10, runtime=10.0, estimate=10.0, partition=1),
        ...         Job(id=3, submit=1.5, processors=4, runtime=1.0, estimate=1.0, partition=2),
        ...         Job(id=4, submit=2.0, processors=5, runtime=50.0, estimate=50.0, partition=1)]
        >>> parts = [Partition("a", 1, processors=10), Partition("b", 2, processors=4)]
        >>> fst = partition_fair_start_times(Workload.from_jobs(jobs, 14), parts, Conservative(), workers=1)
        >>> fst.strict.tolist(), fst.relaxed.tolist()
        ([0.0, 10.0, 1.5, 2.0], [0.0, 10.0, 1.5, 20.0])
    """
    if "checkpoint" in options:
        raise BackfillError("partition_fair_start_times takes no checkpoint: it runs one per partition")
    parts = check_partitions(partitions)
    runs = partition_runs(workload, parts, scheduler)
    n = len(workload)
    strict, relaxed = np.full(n, np.nan), np.full(n, np.nan)
    for run in runs:
        if len(run.rows):
            own = fair_start_times(run.workload, run.scheduler, **options)
            strict[run.rows], relaxed[run.rows] = own.strict, own.relaxed
    return FairStartTimes(
        workload=partitioned_workload(workload, parts),
        scheduler=partitioned_name(runs),
        strict=strict,
        relaxed=relaxed,
    )
