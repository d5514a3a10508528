"""What ``backfill simulate`` writes: metrics files, each schedule's files and its figures.

Private to :mod:`backfill.cli`: :func:`write_simulate_outputs` gathers every output asked for and
writes them through :func:`~backfill.cli._outputs.write_outputs`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np

from backfill._files import open_atomically
from backfill._version import library_version
from backfill.cli._outputs import write_outputs
from backfill.cli.options import CommandLineError, argument_type, output_path
from backfill.errors import BackfillError
from backfill.experiments.gantt import COLOR_BY, GanttWindow, gantt_window, schedule_window
from backfill.experiments.outputs import write_jobs_csv, write_metrics_json
from backfill.experiments.results import SweepResult
from backfill.experiments.timeline import utilization_bins, utilization_queue
from backfill.schedule import Schedule
from backfill.workloads.batsim import BATSIM_PROFILE_TYPES, write_batsim_workload

__all__ = [
    "add_batsim_output_options",
    "add_gantt_options",
    "check_batsim_version",
    "check_gantt_options",
    "write_simulate_outputs",
]


def add_batsim_output_options(parser: argparse.ArgumentParser) -> None:
    """Add ``simulate``'s ``--output-batsim PATH`` and ``--batsim-version 4|5`` (its profile type)."""
    parser.add_argument(
        "--output-batsim",
        type=Path,
        default=None,
        metavar="PATH",
        help=(
            "write each schedule's workload as a Batsim workload (JSON, one delay profile per "
            "runtime); with several, what tells them apart is added before the suffix"
        ),
    )
    parser.add_argument(
        "--batsim-version",
        type=int,
        choices=sorted(BATSIM_PROFILE_TYPES),
        default=None,
        metavar="{4,5}",
        help=(
            "the Batsim that reads --output-batsim: 4 writes the delay profile type 'delay', 5 "
            "'DelayProfile' (default 4)"
        ),
    )


def add_gantt_options(parser: argparse.ArgumentParser) -> None:
    """Add ``simulate``'s ``--gantt-window WINDOW`` and ``--gantt-color BY`` (the Gantt figures')."""
    parser.add_argument(
        "--gantt-window",
        type=argument_type(GanttWindow.from_text, "gantt_window"),
        default=None,
        metavar="WINDOW",
        help=(
            "with --figures: the time the Gantt figures show, LENGTH (from the middle job's "
            "submission), START:END or START: (two days from START), counted from the first "
            "submission (36h, 10d:12d), or all; default two days from the middle job's submission"
        ),
    )
    parser.add_argument(
        "--gantt-color",
        "--gantt-colour",
        choices=COLOR_BY,
        default=None,
        metavar="BY",
        help=(
            "with --figures: what the Gantt figures' colors tell apart: user, group, queue or "
            "partition (the top ten by area, the rest in grey), size (processors, powers of two), "
            "or job (colors cycling by id, no key); default user"
        ),
    )


def check_gantt_options(args: argparse.Namespace) -> None:
    """Refuse ``--gantt-window`` and ``--gantt-color`` without ``--figures``: they would change nothing."""
    for option, value in (("--gantt-window", args.gantt_window), ("--gantt-color", args.gantt_color)):
        if value is not None and args.figures is None:
            raise CommandLineError(f"{option} applies only with --figures")


def check_batsim_version(args: argparse.Namespace) -> None:
    """Refuse ``--batsim-version`` without ``--output-batsim``: it would change nothing."""
    if args.batsim_version is not None and args.output_batsim is None:
        raise CommandLineError("--batsim-version applies only with --output-batsim")


def write_simulate_outputs(
    args: argparse.Namespace,
    schedules: list[Schedule],
    rows: list[dict[str, Any]],
    names: list[str],
    *,
    several: bool,
) -> None:
    """Write every output asked for, each whole or not at all; the error names those that failed."""
    outputs: list[tuple[Path, Callable[[Path], object]]] = []
    if args.csv is not None:
        outputs.append((args.csv, SweepResult(rows).to_csv))
    if args.json is not None:
        outputs.append((args.json, partial(write_metrics_json, rows, command="simulate", bound=args.bound)))
    for schedule, row, name in zip(schedules, rows, names, strict=True):
        if args.jobs_csv is not None:
            write = partial(_jobs_csv, schedule, row, args.bound)
            outputs.append((output_path(args.jobs_csv, name, several), write))
        if args.output_swf is not None:
            write = partial(_schedule_swf, schedule, _swf_notes(row))
            outputs.append((output_path(args.output_swf, name, several), write))
        if args.output_batsim is not None:
            version = 4 if args.batsim_version is None else args.batsim_version
            write = partial(_schedule_batsim, schedule, _swf_notes(row), BATSIM_PROFILE_TYPES[version])
            outputs.append((output_path(args.output_batsim, name, several), write))
    if args.figures is not None:
        if args.figure_bin is not None:  # refused before anything is written, not halfway
            utilization_bins(schedules, bin_width=args.figure_bin)
        outputs.append(
            (args.figures / "utilization_queue.png", partial(_utilization_figure, schedules, args.figure_bin))
        )
        color = args.gantt_color or "user"
        if color not in ("size", "job") and all(np.all(s.workload.column(color) == -1) for s in schedules):
            print(f"note: the workload records no {color}: the Gantt figures draw every job in one color")
        for schedule, name in zip(schedules, names, strict=True):
            window = _gantt_window(schedule, args.gantt_window)  # refused before anything is written
            write = partial(_gantt_figure, schedule, window, color)
            outputs.append((args.figures / f"gantt-{name}.png", write))
    write_outputs(outputs)


def _jobs_csv(schedule: Schedule, row: dict[str, Any], bound: float, path: Path) -> None:
    write_jobs_csv(schedule, path, row, bound=bound)


def _schedule_swf(schedule: Schedule, notes: list[str], path: Path) -> None:
    schedule.to_swf(path, notes=notes)


def _schedule_batsim(
    schedule: Schedule, notes: list[str], profile_type: Literal["delay", "DelayProfile"], path: Path
) -> None:
    made = f"workload of a schedule simulated by backfill {library_version()} with {schedule.scheduler}"
    description = "; ".join([made, *notes])
    left_out = write_batsim_workload(schedule, path, description=description, profile_type=profile_type)
    for reason, ids in left_out.items():
        jobs = "1 job" if len(ids) == 1 else f"{len(ids)} jobs"
        print(f"note: {path}: {jobs} left out, which Batsim cannot run ({reason.replace('_', ' ')})")


def _swf_notes(row: dict[str, Any]) -> list[str]:
    """The header notes of a written schedule: how it was made and from what."""
    origin = f"seed {row['seed']}" if row["sha256"] == "" else f"sha256 {row['sha256']}"
    return [
        f"scheduler {row['scheduler']}, parameters {row['params']}, priority {row['priority']}, "
        f"load factor {row['load']:g}, estimates {row['estimates']}",
        f"input {row['workload']}: {row['source']}, {origin}",
    ]


def _save_figure(figure: Any, path: Path) -> None:
    """Save a figure as PNG, whole or not at all, and close it."""
    import matplotlib.pyplot as plt

    try:
        with open_atomically(path, "wb") as f:
            figure.savefig(f, format="png", dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)


def _utilization_figure(schedules: list[Schedule], bin_width: float | None, path: Path) -> None:
    """The utilization and queue figure of all schedules, in bins of ``bin_width`` (None: chosen)."""
    _save_figure(utilization_queue(schedules, bin_width=bin_width), path)


def _gantt_figure(schedule: Schedule, window: tuple[float, float], color: str, path: Path) -> None:
    """The Gantt chart of a schedule over ``window``, colored by ``color``."""
    start, end = window
    figure = schedule_window(schedule, start=start, end=end, reservations=False, color=color)
    _save_figure(figure, path)


def _gantt_window(schedule: Schedule, window: GanttWindow | None) -> tuple[float, float]:
    """The window of a schedule's Gantt chart (default: two days from the middle job's submission)."""
    try:
        return gantt_window(schedule, window)
    except BackfillError as e:
        raise CommandLineError(f"--gantt-window: {schedule.scheduler}: {e}") from None
