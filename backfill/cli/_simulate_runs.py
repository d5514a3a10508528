"""The runs of ``backfill simulate``: each scheduler simulated in turn, and the results printed."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from backfill.cli._metrics import trim_words
from backfill.cli._partitions import (
    partition_lines,
    partition_measures,
    partitions_planning,
    simulate_partitioned,
)
from backfill.cli._resources import resource_columns
from backfill.cli._tables import chosen_table, planning_measures
from backfill.cli._timing import kernel_words, since_start_words
from backfill.experiments.columns import extra_measures, needs_reservations
from backfill.experiments.progress import Progress, progress_meter
from backfill.experiments.results import TRIM_COLUMNS
from backfill.experiments.specs import SchedulerSpec
from backfill.experiments.sweep import summary_row
from backfill.measures.metrics import DEFAULT_COLUMNS, metrics_table
from backfill.measures.partitions import validate_partitions
from backfill.measures.trim import Trim, trim_schedule
from backfill.measures.validation import validate_schedule
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import scheduler_name
from backfill.schedulers.registry import PLANNING_OPTIONS
from backfill.simulator import simulate
from backfill.workloads.swf import ReadReport
from backfill.workloads.workload import Workload

__all__ = ["PLANNING_PARAMETERS", "Runs", "Stopped", "print_results", "run_all"]

#: The parameters that make a run plan with a predictor or a limit, whose planning measures
#: ``simulate`` prints: the planning options and Slurm's window and test limit. The reservation
#: depth is left out: it predates them, and runs with it print what they always printed.
PLANNING_PARAMETERS = frozenset({p.name for p in PLANNING_OPTIONS} | {"planning_window", "max_tested"})


class Stopped(KeyboardInterrupt):
    """``simulate`` interrupted: the schedulers that finished (printed and written) and the others."""

    def __init__(self, finished: list[str], unfinished: list[str]) -> None:
        super().__init__(finished, unfinished)
        self.finished, self.unfinished = finished, unfinished

    def __str__(self) -> str:
        total = len(self.finished) + len(self.unfinished)
        if not self.finished:
            return f"0 of {total} schedules finished; nothing written"
        return (
            f"{len(self.finished)} of {total} schedules finished ({', '.join(self.finished)}), "
            f"printed and written; not finished: {', '.join(self.unfinished)}"
        )


class Runs:
    """What the runs made: the schedules, the planned ones, the rows, the output names finished."""

    def __init__(self) -> None:
        self.schedules: dict[str, Schedule] = {}
        self.planned: list[Schedule] = []  # of the runs that plan with a predictor or a limit
        self.rows: list[dict[str, Any]] = []
        self.finished: list[str] = []  # the output names of the runs done, in order
        self.stopped: Stopped | None = None
        self.elapsed = 0.0


class _Context:
    """What every run of one ``simulate`` shares: the arguments, the workload and its measures."""

    def __init__(
        self,
        args: argparse.Namespace,
        workload: Workload,
        parts: Any,
        extra: list[str],
        run_fields: dict[str, Any],
        origin: dict[str, Any],
        show_progress: Progress,
        trim: Trim,
    ) -> None:
        self.args, self.workload, self.parts, self.extra = args, workload, parts, extra
        self.run_fields, self.origin, self.show_progress = run_fields, origin, show_progress
        self.trim = trim


def run_all(
    args: argparse.Namespace,
    runs: list[tuple[SchedulerSpec, str]],
    names: list[str],
    workload: Workload,
    parts: Any,
    extra: list[str],
    run_fields: dict[str, Any],
    origin: dict[str, Any],
    show_progress: Progress,
    trim: Trim,
) -> Runs:
    """Simulate every run in turn; Ctrl-C keeps the runs finished and notes the others in ``stopped``.

    ``run_fields`` are the row's fields every run shares (workload, load, estimates); ``trim`` the
    jobs every measure leaves out (``--warmup``, ``--cooldown``), as ``compare``'s cells do.
    """
    context = _Context(args, workload, parts, extra, run_fields, origin, show_progress, trim)
    done = Runs()
    started = time.perf_counter()
    bar = progress_meter(show_progress, len(workload) * len(runs), "simulate", "job")
    try:
        for (spec, priority), name in zip(runs, names, strict=True):
            _run_one(context, spec, priority, name, bar, done)
    except KeyboardInterrupt:
        unfinished = [_run_label(spec, p, workload) for spec, p in runs[len(done.finished) :]]
        done.stopped = Stopped(list(done.schedules), unfinished)
    finally:
        if bar is not None:
            bar.close()
    done.elapsed = time.perf_counter() - started
    return done


def _run_one(context: _Context, spec: SchedulerSpec, priority: str, name: str, bar: Any, done: Runs) -> None:
    """Simulate, validate and measure one run, and keep it in ``done`` once it is whole."""
    workload = context.workload
    # Broken guarantees and unreserved waits are read from the reservation log.
    plans = any(param in PLANNING_PARAMETERS for param, _ in spec.params)
    t0 = time.perf_counter()
    scheduler = spec.build(priority, workload)
    # Each partition plans the scheduler's resources at its share of their capacity.
    own_parts = partitions_planning(context.parts, scheduler, workload.machine_size)
    record = plans or needs_reservations(context.extra)
    progress = _advance(bar) if bar else None
    if own_parts:
        schedule = simulate_partitioned(
            workload, scheduler, own_parts, record_reservations=record, progress=progress
        )
    else:
        schedule = simulate(workload, scheduler, record_reservations=record, progress=progress)
    seconds = time.perf_counter() - t0
    validate_schedule(schedule)
    if own_parts:
        validate_partitions(schedule, own_parts)
    row = _row(context, spec, priority, schedule, own_parts, seconds)
    # Kept together, once the run is whole: an interrupt before here leaves no trace of it.
    done.schedules[schedule.scheduler] = schedule
    done.rows.append(row)
    done.finished.append(name)
    if plans:
        done.planned.append(schedule)


def _advance(bar: Any) -> Callable[[int], None]:
    """The progress callback of one run: it moves ``bar`` by the jobs done since its last call."""
    done = [0]

    def advance(n: int) -> None:
        bar.update(n - done[0])
        done[0] = n

    return advance


def _row(
    context: _Context,
    spec: SchedulerSpec,
    priority: str,
    schedule: Schedule,
    own_parts: Any,
    seconds: float,
) -> dict[str, Any]:
    """The run's row: what was run, its summary, its extra measures and its provenance."""
    args, workload, extra = context.args, context.workload, context.extra
    run = {"workload": context.run_fields["workload"], "scheduler": spec.label, "scheduler_name": spec.name}
    run |= {"params": spec.row_params(), "priority": priority}  # with the node machine's, on one
    run |= {"load": context.run_fields["load"], "estimates": context.run_fields["estimates"]}
    trim = context.trim
    row = run | summary_row(
        schedule, bound=args.bound, seconds=seconds, trim=trim, partitions=own_parts or ()
    )
    row |= dict(zip(TRIM_COLUMNS, trim.describe(), strict=True))
    if extra and own_parts:
        row |= partition_measures(
            schedule,
            own_parts,
            spec.build(priority, workload),
            extra,
            args.bound,
            trim,
            progress=context.show_progress,
        )
    elif extra:
        row |= extra_measures(
            schedule,
            extra,
            scheduler=spec.build(priority, workload),
            bound=args.bound,
            trim=trim,
            progress=context.show_progress,
        )
    return row | context.origin | {"path": schedule.path} | getattr(args, "stamp", {})


def _run_label(spec: SchedulerSpec, priority: str, workload: Workload) -> str:
    """The label of a run not made, as its schedule would have been labelled."""
    return scheduler_name(spec.build(priority, workload))


def print_results(
    args: argparse.Namespace,
    specs: list[SchedulerSpec],
    chosen: list[str],
    parts: Any,
    report: ReadReport | None,
    done: Runs,
    trim: Trim,
) -> None:
    """Print the metrics table, the planning measures, the accounting of jobs and the closing line."""
    schedules = done.schedules
    print()
    held = resource_columns(specs)
    if chosen:
        print(chosen_table(done.rows, chosen))
    elif held or trim:
        # The default columns from the rows, which measure the jobs the trim keeps, and each
        # planned resource's utilization beside the processors'.
        print(chosen_table(done.rows, [*DEFAULT_COLUMNS, *held]))
    else:
        print(metrics_table(schedules, bound=args.bound))
    print()
    if done.planned:
        print(planning_measures([trim_schedule(s, trim) for s in done.planned]))
        print()
    lines = {s.accounting() for s in schedules.values()}
    if len(lines) == 1:
        print(f"jobs: {lines.pop()}")
    else:
        for label, s in schedules.items():
            print(f"jobs ({label}): {s.accounting()}")
    if parts and schedules:
        print("\n".join(partition_lines(next(iter(schedules.values())), parts)))
    if report is not None:
        dropped = sum(report.dropped.values())
        print(
            f"log: {report.lines} data lines = {report.kept} kept + {dropped} dropped by the "
            f"cleaning policy + {len(report.skipped_lines)} malformed"
        )
    kernel = kernel_words(s.path for s in schedules.values())
    since = since_start_words(args)
    print(
        f"times in seconds; bounded slowdown with a {args.bound:g} s bound{trim_words(trim)}; "
        f"{len(schedules)} schedule(s) valid, simulated ({kernel}), validated and measured in "
        f"{done.elapsed:.2f} s" + (f"; {since}" if since else "")
    )
