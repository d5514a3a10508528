"""The ``--partitions`` option of ``simulate`` and ``compare``: which SWF partitions, of what size.

``--partitions`` alone schedules every partition of the log (SWF field 16) on its own, each with
the default size :func:`~backfill.partitions.partition_sizes` reads from the log; ``--partitions
10,4`` those partitions only (the other jobs are rejected as in no partition, and counted);
``--partitions 10=80640,4=11520`` gives their sizes (a number without ``=SIZE`` keeps the default).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from backfill.cli.options import CommandLineError, argument_type
from backfill.errors import ParameterError
from backfill.experiments.partitioned import PartitionSpec, partition_measures, partitions_planning
from backfill.experiments.specs import TraceWorkload, WorkloadSpec
from backfill.partitions import Partition, jobs_per_partition, simulate_partitions
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.workloads.workload import Workload

__all__ = [
    "PartitionChoice",
    "add_partitions_option",
    "check_partitioned_compare",
    "chosen_partitions",
    "log_partition_lines",
    "partition_lines",
    "partition_measures",
    "partitions_from_text",
    "partitions_planning",
    "simulate_partitioned",
]

#: What ``--partitions`` said (the library's :class:`~backfill.experiments.partitioned.PartitionSpec`).
PartitionChoice = PartitionSpec


def partitions_from_text(text: str) -> PartitionChoice:
    """Read ``--partitions``'s value: ``N,N,...`` with ``=SIZE`` after any number (empty: every one).

    Raises:
        ParameterError: An empty item, a number that is not an int, one given twice, or a size
            that is not an int >= 1.

    Examples:
        >>> partitions_from_text("10=80640,4")
        PartitionSpec(numbers=(10, 4), sizes=((10, 80640),))
        >>> partitions_from_text("10,x")
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: 'x' in '10,x' is not an SWF partition number
    """
    return PartitionSpec.parse(text)


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
            "counted; -1, unknown, only if named); N=SIZE gives its processors (default: the most its "
            "jobs held at once in the log, a bound: give the sizes where known)"
        ),
    )


def chosen_partitions(
    choice: PartitionChoice | None, workload: Workload, source: str | None
) -> tuple[Partition, ...]:
    """The partitions ``--partitions`` chose for a log as read (its default sizes come from it).

    ``source`` names the log; None is the synthetic workload, whose jobs name no partition. When
    sizes read from the log add up to more than its machine, a note says so (on standard output).

    Raises:
        CommandLineError: On the synthetic workload, a log that names no partition, or a partition
            with no job in the log and no size.
    """
    if choice is None:
        return ()
    if source is None:
        raise CommandLineError("--partitions applies only to a log, not to the synthetic workload")
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", UserWarning)
            parts = choice.partitions(workload)
    except ParameterError as e:
        raise CommandLineError(f"--partitions: {source}: {e}") from None
    for w in said:
        print(f"note: --partitions: {source}: {w.message} (--partitions N=SIZE,...)")
    return parts


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


def log_partition_lines(choice: PartitionChoice, workloads: Sequence[WorkloadSpec]) -> list[str]:
    """Each log's partitions, chosen before a sweep runs: a line per log (their sizes and jobs).

    Chosen now, so that a log ``--partitions`` cannot serve stops the command before any cell runs,
    and the note on sizes read from the log is said once per log, not once per cell.

    Raises:
        CommandLineError: As :func:`chosen_partitions`.
    """
    lines = []
    for spec in workloads:
        assert isinstance(spec, TraceWorkload)  # check_partitioned_compare refused the models
        as_read = spec.load()
        parts = chosen_partitions(choice, as_read, str(spec.path))
        column = as_read.column("partition")
        served = [int(np.count_nonzero(np.isin(column, p.numbers))) for p in parts]
        sizes = "; ".join(
            f"partition {p.name}: {p.processors} processors, {n} jobs"
            for p, n in zip(parts, served, strict=True)
        )
        outside = len(as_read) - sum(served)
        lines.append(f"partitions of {spec.label}: {sizes}; jobs in no partition: {outside}")
    return lines


def check_partitioned_compare(args: argparse.Namespace) -> None:
    """Refuse what ``compare --partitions`` does not do: the synthetic workload has no partitions."""
    for text in args.workloads:
        if text == "model" or text.startswith("model:"):
            raise CommandLineError(
                f"--partitions applies only to logs, not to the synthetic workload {text!r}"
            )
