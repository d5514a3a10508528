"""The ``--partitions`` option of ``simulate`` and ``compare``: which SWF partitions, of what size.

``--partitions`` alone schedules every partition of the log (SWF field 16) on its own, each with
the default size :func:`~backfill.partitions.partition_sizes` reads from the log; ``--partitions
10,4`` those partitions only (the other jobs are rejected as in no partition, and counted);
``--partitions 10=80640,4=11520`` gives their sizes (a number without ``=SIZE`` keeps the default).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Collection
from typing import Any

import attrs

from backfill.cli.options import CommandLineError, argument_type
from backfill.errors import ParameterError
from backfill.experiments.columns import extra_measures, needs_reservations
from backfill.experiments.outputs import provenance, reading_policy
from backfill.experiments.partitioned import partition_fair_start_times
from backfill.experiments.progress import progress_bar
from backfill.experiments.results import TRIM_COLUMNS, SweepResult
from backfill.experiments.specs import TraceWorkload
from backfill.experiments.sweep import Grid, summary_row
from backfill.measures.fairness import unfairness
from backfill.measures.partitions import partition_held_back, validate_partitions
from backfill.measures.resource_use import held_back_column
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.partitions import Partition, jobs_per_partition, log_partitions, simulate_partitions
from backfill.schedule import Schedule
from backfill.schedulers.protocol import Scheduler
from backfill.workloads.resources import Resource
from backfill.workloads.workload import Workload

__all__ = [
    "PartitionChoice",
    "add_partitions_option",
    "check_partitioned_compare",
    "chosen_partitions",
    "partition_lines",
    "partition_measures",
    "partitioned_sweep",
    "partitions_from_text",
    "simulate_partitioned",
]


@attrs.frozen
class PartitionChoice:
    """What ``--partitions`` said: the SWF partition numbers (None: every one) and the sizes given."""

    numbers: tuple[int, ...] | None = None
    sizes: tuple[tuple[int, int], ...] = ()


def _number(item: str, text: str) -> int:
    try:
        return int(item, 10)
    except ValueError:
        raise ParameterError(f"{item!r} in {text!r} is not an SWF partition number") from None


def partitions_from_text(text: str) -> PartitionChoice:
    """Read ``--partitions``'s value: ``N,N,...`` with ``=SIZE`` after any number (empty: every one).

    Raises:
        ParameterError: An empty item, a number that is not an int, one given twice, or a size
            that is not an int >= 1.

    Examples:
        >>> partitions_from_text("10=80640,4")
        PartitionChoice(numbers=(10, 4), sizes=((10, 80640),))
        >>> partitions_from_text("10,x")
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: 'x' in '10,x' is not an SWF partition number
    """
    if not text.strip():
        return PartitionChoice()
    numbers: list[int] = []
    sizes: list[tuple[int, int]] = []
    for item in text.split(","):
        number, equals, size = item.strip().partition("=")
        if not number:
            raise ParameterError(f"{text!r} has an empty item: give N or N=SIZE, separated by commas")
        n = _number(number, text)
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
    return PartitionChoice(tuple(numbers), tuple(sizes))


def add_partitions_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--partitions`` to a command's parser."""
    parser.add_argument(
        "--partitions",
        nargs="?",
        const="",
        default=None,
        type=argument_type(partitions_from_text, "partitions"),
        metavar="N[=SIZE],...",
        help=(
            "schedule each SWF partition (field 16) of the log on its own processors with its own copy "
            "of the scheduler: alone, every partition; N,... those (the others' jobs are rejected, "
            "counted); N=SIZE gives its processors (default: the most its jobs held at once in the log)"
        ),
    )


def chosen_partitions(
    choice: PartitionChoice | None, workload: Workload, source: str | None
) -> tuple[Partition, ...]:
    """The partitions ``--partitions`` chose for a log as read (its default sizes come from it).

    ``source`` names the log; None is the synthetic workload, whose jobs name no partition.

    Raises:
        CommandLineError: On the synthetic workload, or a partition with no job in the log and no size.
    """
    if choice is None:
        return ()
    if source is None:
        raise CommandLineError("--partitions applies only to a log, not to the synthetic workload")
    try:
        return log_partitions(workload, choice.numbers, dict(choice.sizes))
    except ParameterError as e:
        raise CommandLineError(f"--partitions: {source}: {e}") from None


def partitions_planning(
    partitions: tuple[Partition, ...], scheduler: Scheduler, machine_size: int
) -> tuple[Partition, ...]:
    """The partitions, each with the resources ``scheduler`` plans, at its share of their capacity.

    ``--resources`` gives a resource's capacity per processor (``memory=1.5G``, or the default, see
    :mod:`backfill.cli._resources`) for the machine of ``machine_size`` processors; a partition of P
    processors gets P times that, rounded down (at least 1), so that with ``--partitions`` the
    memory per processor is the same in every partition as in the whole machine.
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


def simulate_partitioned(
    workload: Workload,
    scheduler: Scheduler,
    partitions: tuple[Partition, ...],
    progress: Callable[[int], object] | None = None,
    **options: Any,
) -> Schedule:
    """Simulate each partition on its own (:func:`~backfill.partitions.simulate_partitions`).

    Each partition is a run of its own, so ``progress`` is told once, at the end.
    """
    schedule = simulate_partitions(workload, partitions, scheduler, **options)
    if progress is not None:
        progress(len(workload))
    return schedule


def partition_lines(schedule: Schedule, partitions: tuple[Partition, ...]) -> list[str]:
    """One line per partition: its processors and how many jobs it ran; then the jobs of none."""
    ran = jobs_per_partition(schedule, partitions)
    lines = [f"partition {p.name}: {p.processors} processors, {ran[p.name]} jobs ran" for p in partitions]
    outside = sum(
        n for reason, n in schedule.rejection_counts().items() if reason.startswith("in no partition")
    )
    lines.append(f"jobs in no partition: {outside}")
    return lines


def check_partitioned_compare(args: argparse.Namespace) -> None:
    """Refuse what ``compare --partitions`` does not do: models, a cache, per-job CSV, worker processes.

    Partitioned cells run in this process, one after another, and are not cached (a cell's cache key
    does not say how the machine was partitioned).
    """
    refused = [
        ("--cache", args.cache is not None),
        ("--jobs-csv", args.jobs_csv is not None),
        ("--workers", args.workers not in (None, 1)),
    ]
    for option, given in refused:
        if given:
            raise CommandLineError(
                f"{option} is not available with --partitions (partitioned cells run here, uncached)"
            )
    for text in args.workloads:
        if text == "model" or text.startswith("model:"):
            raise CommandLineError(
                f"--partitions applies only to logs, not to the synthetic workload {text!r}"
            )


def partitioned_sweep(grid: Grid, choice: PartitionChoice, progress: bool) -> tuple[SweepResult, list[str]]:
    """Run every cell of a sweep with each partition on its own; the rows, and a line per partition.

    Each log's partitions are chosen from it as read (:func:`chosen_partitions`), before the estimate
    policy and the load factor, which apply to every partition's jobs alike.
    """
    rows: list[dict[str, Any]] = []
    lines: dict[str, str] = {}
    cells = list(grid.cells())
    bar = progress_bar(len(cells), "compare", "cell") if progress else None
    try:
        for cell in cells:
            spec = cell.workload
            assert isinstance(spec, TraceWorkload)  # check_partitioned_compare refused the models
            as_read = spec.load()
            parts = chosen_partitions(choice, as_read, str(spec.path))
            workload = as_read.with_exact_estimates() if cell.estimates == "exact" else as_read
            workload = workload.scaled(cell.load) if cell.load != 1.0 else workload
            started = time.perf_counter()
            scheduler = cell.scheduler.build(cell.priority, workload)
            parts = partitions_planning(parts, scheduler, workload.machine_size)
            logged = needs_reservations(cell.measures)
            schedule = simulate_partitions(workload, parts, scheduler, record_reservations=logged)
            seconds = time.perf_counter() - started
            validate_partitions(schedule, parts)  # with the resources each partition planned
            measured = summary_row(schedule, bound=cell.bound, seconds=seconds, trim=cell.trim)
            # Each partition a machine of its own, not the merged pools.
            measured |= {held_back_column(k): v for k, v in partition_held_back(schedule, parts).items()}
            if cell.measures:
                measured |= partition_measures(
                    schedule, parts, scheduler, cell.measures, cell.bound, cell.trim
                )
            trimmed = dict(zip(TRIM_COLUMNS, cell.trim.describe(), strict=True))
            reading = reading_policy(spec.reading_policy())
            digest = spec.identity()["sha256"]
            origin = provenance(spec.path.name, sha256=digest, reading=reading, path=schedule.path)
            rows.append(cell.description() | measured | trimmed | origin)
            lines[spec.label] = f"partitions of {spec.label}: " + "; ".join(partition_lines(schedule, parts))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return SweepResult(rows, computed=len(rows)), list(lines.values())


_FAIR_START = ("strict_unfairness", "relaxed_unfairness")


def partition_measures(
    schedule: Schedule,
    partitions: tuple[Partition, ...],
    scheduler: Scheduler,
    columns: Collection[str],
    bound: float,
    trim: Trim | None = None,
    progress: bool | Callable[[int], object] = False,
) -> dict[str, float]:
    """:func:`~backfill.experiments.columns.extra_measures` of a partitioned run.

    The fair-start unfairness comes from each partition's own fair start times
    (:func:`~backfill.experiments.partitioned.partition_fair_start_times`); the other measures are
    read from the merged schedule as from any.
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
