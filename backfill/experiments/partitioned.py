"""Partitioned runs in experiments: which partitions a sweep's cell schedules, and their measures.

:class:`PartitionSpec` says, as data a sweep's cell holds (and its cache key), which SWF partitions
of a log run apart and of what size; :func:`partition_fair_start_times` gives the Fair Start Times
of a partitioned run, each partition's computed alone and merged; :func:`partition_measures` the
extra measures of a partitioned run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import attrs
import numpy as np

from backfill.errors import BackfillError, ParameterError
from backfill.experiments.columns import extra_measures
from backfill.experiments.fair_start import FairStartTimes, fair_start_times
from backfill.experiments.progress import Progress
from backfill.experiments.specs import TraceWorkload, WorkloadSpec
from backfill.measures.fairness import unfairness
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.partitions import (
    Partition,
    check_partitions,
    log_partitions,
    partition_numbers,
    partition_runs,
    partitioned_name,
    partitioned_workload,
)
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.workloads.resources import Resource
from backfill.workloads.workload import Workload

__all__ = [
    "PartitionSpec",
    "check_partitioned",
    "partition_fair_start_times",
    "partition_measures",
    "partitions_planning",
]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_numbers(value: Any) -> tuple[int, ...] | None:
    return None if value is None else partition_numbers(value, "PartitionSpec.numbers")


def _as_sizes(value: Any) -> tuple[tuple[int, int], ...]:
    pairs = tuple(value.items()) if isinstance(value, Mapping) else tuple(tuple(p) for p in value)
    numbers = [p[0] for p in pairs if len(p) == 2]
    if (
        len(numbers) != len(pairs)
        or len(set(numbers)) != len(numbers)
        or not all(_is_int(n) and _is_int(size) and size >= 1 for n, size in pairs)
    ):
        raise ParameterError(
            f"PartitionSpec.sizes must map distinct SWF numbers to processors (ints >= 1), got {value!r}"
        )
    if numbers:
        partition_numbers(numbers, "PartitionSpec.sizes' numbers")  # -1 or from 0, as a job's
    return pairs


@attrs.frozen
class PartitionSpec:
    """Which SWF partitions of a log a run schedules apart, and the sizes given: plain data.

    Resolved on each log as read by :func:`~backfill.partitions.log_partitions` (``numbers`` None:
    every partition the log names; a size not given: read from the log). A sweep's
    :class:`~backfill.experiments.sweep.Grid` and :class:`~backfill.experiments.sweep.Cell` hold
    one, and a cell's cache key holds it. The text form is the command line's ``--partitions``:
    ``""`` (every partition), ``10,4``, ``10=80640,4``.

    Examples:
        >>> spec = PartitionSpec.parse("10=80640,4")
        >>> spec, str(spec)
        (PartitionSpec(numbers=(10, 4), sizes=((10, 80640),)), '10=80640,4')
        >>> PartitionSpec.parse("10,x")
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: 'x' in '10,x' is not an SWF partition number
    """

    numbers: tuple[int, ...] | None = attrs.field(default=None, converter=_as_numbers)
    sizes: tuple[tuple[int, int], ...] = attrs.field(default=(), converter=_as_sizes)

    @classmethod
    def parse(cls, text: str) -> PartitionSpec:
        """Read ``N,N,...`` with ``=SIZE`` after any number (empty: every partition of the log).

        Raises:
            ParameterError: An empty item, a number that is not an int, one given twice, or a size
                that is not an int >= 1.
        """
        if not text.strip():
            return cls()
        numbers: list[int] = []
        sizes: list[tuple[int, int]] = []
        for item in text.split(","):
            number, equals, size = item.strip().partition("=")
            if not number:
                raise ParameterError(f"{text!r} has an empty item: give N or N=SIZE, separated by commas")
            try:
                n = int(number, 10)
            except ValueError:
                raise ParameterError(f"{number!r} in {text!r} is not an SWF partition number") from None
            if n in numbers:
                raise ParameterError(f"SWF partition {n} is given twice in {text!r}")
            numbers.append(n)
            if equals:
                try:
                    processors = int(size, 10)
                except ValueError:
                    processors = 0
                if processors < 1:
                    raise ParameterError(
                        f"the size of partition {n} must be an int >= 1 (processors), got {size!r}"
                    )
                sizes.append((n, processors))
        return cls(tuple(numbers), tuple(sizes))

    def __str__(self) -> str:
        given = dict(self.sizes)
        numbers = self.numbers if self.numbers is not None else tuple(given)
        return ",".join(f"{n}={given[n]}" if n in given else str(n) for n in numbers)

    def identity(self) -> dict[str, Any]:
        """What a cell's result depends on, as JSON-able data."""
        numbers = list(self.numbers) if self.numbers is not None else None
        return {"numbers": numbers, "sizes": [list(p) for p in self.sizes]}

    def partitions(self, workload: Workload) -> tuple[Partition, ...]:
        """The partitions on ``workload``, the log as read (:func:`~backfill.partitions.log_partitions`).

        Raises:
            ParameterError: As ``log_partitions`` raises (a log that names no partition, say); it
                warns as it does when sizes read from the log add up to more than the machine.
        """
        return log_partitions(workload, self.numbers, dict(self.sizes))

    def planned(self, as_read: Workload, scheduler: Scheduler, machine_size: int) -> tuple[Partition, ...]:
        """A cell's partitions: :meth:`partitions` of the log as read, with ``scheduler``'s resources.

        A cell does not repeat ``log_partitions``' warning (a sweep would say it once per cell, in
        its worker processes): call :meth:`partitions` on the log to see it.
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            parts = self.partitions(as_read)
        return partitions_planning(parts, scheduler, machine_size)


def check_partitioned(partitions: object, workloads: Iterable[WorkloadSpec]) -> None:
    """Refuse a grid's or cell's ``partitions`` unless a :class:`PartitionSpec` (or None) for logs.

    The jobs of a synthetic workload name no partition.

    Raises:
        BackfillError: Naming the value or the workload.
    """
    if partitions is None:
        return
    if not isinstance(partitions, PartitionSpec):
        raise BackfillError(f"partitions must be a PartitionSpec or None, got {partitions!r}")
    models = [w.label for w in workloads if not isinstance(w, TraceWorkload)]
    if models:
        raise BackfillError(f"partitions apply to logs, not to the synthetic workload {models[0]}")


def partitions_planning(
    partitions: tuple[Partition, ...], scheduler: Scheduler, machine_size: int
) -> tuple[Partition, ...]:
    """The partitions, each with the resources ``scheduler`` plans, at its share of their capacity.

    A resource's capacity is given for the machine of ``machine_size`` processors (the command
    line's ``--resources`` gives it per processor); a partition of P processors gets P times that
    over ``machine_size``, rounded down (at least 1), so that the amount per processor is the same
    in every partition as in the whole machine.

    Examples:
        >>> from backfill import EASY
        >>> parts = (Partition("a", 1, processors=4), Partition("b", 2, processors=12))
        >>> planned = partitions_planning(parts, EASY(resources=[Resource.memory(1600)]), 16)
        >>> [p.resources[0].capacity for p in planned]
        [400, 1200]
    """
    planned = tuple(getattr(scheduler, "resources", ()))
    if not planned:
        return partitions
    return tuple(
        attrs.evolve(
            p,
            resources=tuple(
                Resource(r.name, max(1, r.capacity * p.processors // machine_size), r.request)
                for r in planned
            ),
        )
        for p in partitions
    )


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


_FAIR_START = ("strict_unfairness", "relaxed_unfairness")


def partition_measures(
    schedule: Schedule,
    partitions: tuple[Partition, ...],
    scheduler: Scheduler,
    columns: Collection[str],
    bound: float,
    trim: Trim | None = None,
    progress: Progress | Callable[[int], object] = False,
) -> dict[str, float]:
    """:func:`~backfill.experiments.columns.extra_measures` of a partitioned run.

    The fair-start unfairness comes from each partition's own fair start times
    (:func:`partition_fair_start_times`, with copies of ``scheduler``, which should be fresh); the
    other measures are read from the merged schedule as from any.
    """
    trim = trim or Trim()
    forked = [c for c in columns if c in _FAIR_START]
    out = extra_measures(schedule, [c for c in columns if c not in _FAIR_START], bound=bound, trim=trim)
    if forked:
        fst = partition_fair_start_times(
            schedule.workload,
            partitions,
            scheduler,
            strict="strict_unfairness" in forked,
            relaxed="relaxed_unfairness" in forked,
            workers=1,
            progress=progress,
        )
        keep = measured_jobs(schedule.submit, trim)
        kept = trim_schedule(schedule, trim)
        for column, times in zip(_FAIR_START, (fst.strict, fst.relaxed), strict=True):
            if column in forked:
                out[column] = unfairness(kept, times[keep])
    return out
