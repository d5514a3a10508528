"""What if our Slurm used another backfill setting? One SWF trace under three Slurm settings.

Run: python examples/slurm_what_if.py TRACE [--jobs N] [--predictions] [--markdown PATH]

TRACE is an ``.swf`` or ``.swf.gz`` log (for example SDSC-SP2-1998-4.2-cln.swf.gz from the Parallel
Workloads Archive). Each setting is the value of a ``SchedulerParameters=`` line of ``slurm.conf``,
read with Slurm's names and units into EASY backfilling with a reservation for every tested job
(``bf_job_part_count_reserve=0``, Slurm's default): ``easy:`` followed by that value is the same
scheduler spec that ``backfill simulate --scheduler`` takes. The script prints, for each setting,
the mean wait, the maximum wait, the mean bounded slowdown, the utilization and the planning
measures (jobs that waited without ever holding a reservation, jobs whose reservation was moved
later while held), and with ``--markdown`` writes that table as Markdown.

``--predictions`` adds a fourth run that no Slurm setting gives: Slurm's defaults planned with
Tsafrir et al.'s runtime predictions (the mean of the user's last two runtimes) instead of the
time limits.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import attrs
import numpy as np

from backfill import (
    Schedule,
    SchedulerSpec,
    Workload,
    planning_summary,
    read_swf,
    simulate,
    summarize,
    validate_schedule,
)

#: The settings compared: a label, and the value of slurm.conf's ``SchedulerParameters`` that gives it.
SETTINGS: dict[str, str] = {
    "Slurm's defaults": "bf_window=1440,bf_resolution=60,bf_max_job_test=500,bf_job_part_count_reserve=0",
    "1-hour window": "bf_window=60,bf_resolution=60,bf_max_job_test=500,bf_job_part_count_reserve=0",
    "test 50 jobs": "bf_window=1440,bf_resolution=60,bf_max_job_test=50,bf_job_part_count_reserve=0",
}

#: Not a Slurm setting: Slurm's defaults, planned with predicted runtimes (``--predictions``).
PREDICTIONS: tuple[str, str] = ("defaults + predictions", SETTINGS["Slurm's defaults"])
PREDICTION_KEYS = "predictor=last2,correction=steps"

#: Width classes, as fractions of the machine: narrow jobs use at most 1/16 of it, wide ones more than half.
NARROW, WIDE = 1 / 16, 1 / 2

WIDTH_COLUMNS = (
    "setting",
    "narrow jobs (<= 1/16 of the machine)",
    "middle",
    "wide jobs (> 1/2 of the machine)",
)

COLUMNS = (
    "setting",
    "mean wait (h)",
    "max wait (days)",
    "mean bounded slowdown",
    "utilization",
    "longest queue",
    "jobs never reserved",
    "jobs with a broken guarantee",
)


@attrs.frozen
class Row:
    """What one setting gave: the measures of the table, and the simulation's wall time (seconds)."""

    setting: str
    spec: str
    mean_wait: float
    max_wait: float
    mean_bsld: float
    utilization: float
    longest_queue: int
    never_reserved: int
    violated_jobs: int
    narrow_wait: float
    middle_wait: float
    wide_wait: float
    seconds: float

    def cells(self) -> list[str]:
        """The row's cells, as the table prints them (the wall time is not among them)."""
        return [
            self.setting,
            f"{self.mean_wait / 3600:.2f}",
            f"{self.max_wait / 86400:.1f}",
            f"{self.mean_bsld:.1f}",
            f"{self.utilization:.4f}",
            f"{self.longest_queue:,}",
            f"{self.never_reserved:,}",
            f"{self.violated_jobs:,}",
        ]

    def width_cells(self) -> list[str]:
        """The row's cells of the table by width: mean waits in hours."""
        return [
            self.setting,
            *(f"{w / 3600:.2f}" for w in (self.narrow_wait, self.middle_wait, self.wide_wait)),
        ]


def spec_text(parameters: str, predictions: bool = False) -> str:
    """The scheduler spec of a ``SchedulerParameters`` value: ``easy:`` and the value, in Slurm's names."""
    return f"easy:{parameters},{PREDICTION_KEYS}" if predictions else f"easy:{parameters}"


def settings(predictions: bool = False) -> list[tuple[str, str]]:
    """The (label, scheduler spec text) of every setting run, in table order."""
    chosen = [(label, spec_text(parameters)) for label, parameters in SETTINGS.items()]
    if predictions:
        chosen.append((PREDICTIONS[0], spec_text(PREDICTIONS[1], predictions=True)))
    return chosen


def by_width(schedule: Schedule) -> tuple[float, float, float]:
    """The mean wait (seconds) of the narrow, middle and wide jobs that ran; NaN for a class without any."""
    workload = schedule.workload
    fraction = workload.column("processors") / workload.machine_size
    wait = schedule.start - workload.column("submit")
    ran = np.isfinite(wait)
    classes = (fraction <= NARROW, (fraction > NARROW) & (fraction <= WIDE), fraction > WIDE)
    return tuple(float(wait[c & ran].mean()) if (c & ran).any() else math.nan for c in classes)  # type: ignore[return-value]


def longest_queue(schedule: Schedule) -> int:
    """The most jobs waiting at once, counted after each instant's decisions."""
    submit = schedule.workload.column("submit")
    start = schedule.start[np.isfinite(schedule.start)]
    # At equal times the starts come first: the queue is counted after the instant's decision.
    times = np.concatenate([start, submit])
    steps = np.concatenate([-np.ones(start.size, dtype=np.int64), np.ones(submit.size, dtype=np.int64)])
    order = np.lexsort((steps, times))
    return int(max(0, np.cumsum(steps[order]).max(initial=0)))


def what_if(workload: Workload, predictions: bool = False) -> list[Row]:
    """Simulate ``workload`` under every setting, validate each schedule and measure it."""
    rows = []
    for label, text in settings(predictions):
        scheduler = SchedulerSpec.parse(text).build()
        began = time.perf_counter()
        schedule = simulate(workload, scheduler)
        seconds = time.perf_counter() - began
        validate_schedule(schedule)
        metrics, plan = summarize(schedule), planning_summary(schedule)
        narrow, middle, wide = by_width(schedule)
        rows.append(
            Row(
                setting=label,
                spec=text,
                mean_wait=metrics["mean_wait"],
                max_wait=metrics["max_wait"],
                mean_bsld=metrics["mean_bsld"],
                utilization=metrics["utilization"],
                longest_queue=longest_queue(schedule),
                never_reserved=int(plan["never_reserved"]),
                violated_jobs=int(plan["violated_jobs"]),
                narrow_wait=narrow,
                middle_wait=middle,
                wide_wait=wide,
                seconds=seconds,
            )
        )
    return rows


def _tables(rows: Sequence[Row]) -> list[list[list[str]]]:
    return [
        [list(COLUMNS), *(row.cells() for row in rows)],
        [list(WIDTH_COLUMNS), *(row.width_cells() for row in rows)],
    ]


def markdown_table(rows: Sequence[Row]) -> str:
    """The measures as Markdown: the main table, a blank line, the waits by width; ends with a newline."""
    out = []
    for header, *body in _tables(rows):
        lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def text_table(rows: Sequence[Row]) -> str:
    """The same tables as aligned plain text, for the terminal."""
    out = []
    for table in _tables(rows):
        widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
        out.append(
            "\n".join(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(line, widths, strict=True))
                )
                for line in table
            )
        )
    return "\n\nmean wait (h) by width:\n".join(out)


def first_jobs(workload: Workload, n: int | None) -> Workload:
    """The workload's first ``n`` jobs (all if ``n`` is None), cut as ``backfill simulate --jobs`` cuts it."""
    if n is None or n >= len(workload):
        return workload
    return Workload.from_records(
        workload.records[:n],
        workload.machine_size,
        provenance={**workload.provenance, "first_jobs": n},
        header=workload.header,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path, help="an SWF log (.swf or .swf.gz)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="simulate the log's first N jobs")
    parser.add_argument(
        "--predictions",
        action="store_true",
        help="also run Slurm's defaults planned with the users' last-two-runtimes predictions",
    )
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="write the table as Markdown")
    args = parser.parse_args(argv)
    if not args.trace.is_file():
        print(
            f"slurm_what_if: {args.trace}: no such file; give an SWF log, e.g. "
            "SDSC-SP2-1998-4.2-cln.swf.gz from the Parallel Workloads Archive",
            file=sys.stderr,
        )
        return 2
    if args.jobs is not None and args.jobs < 1:
        print(f"slurm_what_if: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return 2

    workload, report = read_swf(args.trace)
    workload = first_jobs(workload, args.jobs)
    print(report.summary())
    print(f"{len(workload)} jobs on {workload.machine_size} processors\n")
    rows = what_if(workload, predictions=args.predictions)
    print(text_table(rows))
    print()
    for row in rows:
        print(f"{row.setting}: --scheduler '{row.spec}' simulated in {row.seconds:.1f} s")
    if args.markdown is not None:
        args.markdown.write_text(markdown_table(rows), encoding="utf-8")
        print(f"wrote {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
