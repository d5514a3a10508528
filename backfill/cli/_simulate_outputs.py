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
from backfill.cli.options import CommandLineError, output_path
from backfill.experiments.outputs import write_jobs_csv, write_metrics_json
from backfill.experiments.plots import schedule_window
from backfill.experiments.results import SweepResult
from backfill.experiments.timeline import utilization_bins, utilization_queue
from backfill.schedule import Schedule
from backfill.workloads.batsim import BATSIM_PROFILE_TYPES, write_batsim_workload

__all__ = ["GANTT_WINDOW", "add_batsim_output_options", "check_batsim_version", "write_simulate_outputs"]

#: The longest time span of the Gantt chart ``simulate --figures`` draws of each schedule: two days.
GANTT_WINDOW = 2 * 86_400.0


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
        for schedule, name in zip(schedules, names, strict=True):
            outputs.append((args.figures / f"gantt-{name}.png", partial(_gantt_figure, schedule)))
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


def _gantt_figure(schedule: Schedule, path: Path) -> None:
    """The Gantt chart of a schedule over a busy window of at most two days."""
    start, end = _gantt_window(schedule)
    _save_figure(schedule_window(schedule, start=start, end=end, reservations=False), path)


def _gantt_window(schedule: Schedule) -> tuple[float, float]:
    """A window of at most two days from the middle job's submission: a busy stretch, readable."""
    submit = schedule.submit
    first, last = float(submit.min()), float(np.nanmax(schedule.end))
    start = float(submit[len(submit) // 2])
    end = min(last, start + GANTT_WINDOW)
    if end <= start:
        start, end = first, max(last, first + 1.0)
    return start, end
