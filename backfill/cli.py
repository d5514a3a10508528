"""The ``backfill`` command line: simulate schedulers on a workload and print their metrics.

Usage::

    backfill simulate [SWF_PATH] [--scheduler NAME ...] [--priority NAME] [--load FACTOR]
                      [--jobs N] [--seed S] [--machine-size P] [--estimates accurate|f-model]
                      [--job-class batch|interactive|all]
                      [--depth K|inf] [--threshold T] [--window DURATION] [--no-expected-usage]
                      [--bound SECONDS] [--lenient] [--output-swf PATH]
    backfill compare TRACE_OR_MODEL ... --scheduler NAME[:K=V,...] ... [--priority NAME ...]
                     [--load FACTOR ...] [--estimates user|exact ...] [--baseline LABEL]
                     [--metric NAME ...] [--bound SECONDS] [--workers N] [--cache DIR]
                     [--csv PATH] [--figures DIR] [--progress]

``simulate``: without ``SWF_PATH`` the workload is synthetic: the Lublin-Feitelson (2003) model
with f-model runtime estimates (so that backfilling and compression have something to gain), 5,000
batch jobs on 128 processors, seed 0. Each schedule is checked with
:func:`~backfill.validation.validate_schedule` before its metrics are printed, and every job is
accounted for: after the reader's report (for a log) the output gives ``N in = S scheduled + R
rejected`` with the rejection reasons. ``--lenient`` skips and counts malformed lines of a log.

``compare`` runs a :mod:`backfill.sweep` grid: every workload (an SWF path, or ``model`` for that
synthetic workload, with arguments as in ``model:n=2000,seed=1,machine_size=64``) under every
scheduler (a :class:`~backfill.sweep.SchedulerSpec` name with parameters, as in ``easy:depth=4``),
priority, load factor and estimate policy. It prints as markdown tables the chosen metrics of each
cell, the account of every job of each workload (dropped by the SWF reader's cleaning policy,
scheduled or rejected, by reason) and the metrics' percent improvement over the baseline; with
``--csv`` and ``--figures`` it writes the rows as CSV and one ``improvement_<metric>.png`` per metric
(:func:`backfill.plots.improvement_bars`, the ``plot`` extra).

``python -m backfill`` runs the same command line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from backfill._cli_args import (
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    _depth,
    _duration,
    _Failure,
    _non_negative_float,
    _non_negative_int,
    _positive_float,
    _positive_int,
)
from backfill._cli_compare import DEFAULT_COMPARE_METRICS, _add_compare, _compare
from backfill.errors import BackfillError
from backfill.lublin import JobClass, lublin_feitelson
from backfill.metrics import DEFAULT_BOUND, metrics_table
from backfill.priorities import PRIORITIES, Priority
from backfill.schedule import Schedule
from backfill.schedulers import (
    DC,
    EASY,
    FCFS,
    G1,
    G2,
    PC,
    AdaptiveThreshold,
    Conservative,
    LookaheadSlack,
    RelShare,
    Scheduler,
    Selective,
    SlackBackfill,
)
from backfill.simulator import simulate
from backfill.swf import ReadReport, read_swf
from backfill.validation import validate_schedule
from backfill.workload import Workload

__all__ = [
    "DEFAULT_COMPARE_METRICS",
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "SCHEDULERS",
    "build_parser",
    "main",
]

#: Schedulers the command line offers: name -> (factory taking a priority and the parsed options,
#: whether it uses the priority). ``easy`` takes ``--depth``, ``selective`` ``--threshold``,
#: ``relshare`` ``--window``, ``--no-expected-usage`` and ``--depth``, ``lookahead`` ``--goal`` and
#: ``--lookahead``, ``slack`` ``--tolerance``.
SCHEDULERS: dict[str, tuple[Callable[[Priority, argparse.Namespace], Scheduler], bool]] = {
    "fcfs": (lambda priority, args: FCFS(priority=priority), True),
    "easy": (lambda priority, args: EASY(priority=priority, depth=args.depth), True),
    "conservative": (lambda priority, args: Conservative(), False),
    "pc": (lambda priority, args: PC(priority=priority), True),
    "dc": (lambda priority, args: DC(priority=priority), True),
    "selective": (
        lambda priority, args: Selective(
            AdaptiveThreshold() if args.threshold is None else args.threshold, priority
        ),
        True,
    ),
    "relshare": (
        lambda priority, args: RelShare(args.window, not args.no_expected_usage, depth=args.depth),
        False,
    ),
    "lookahead": (
        lambda priority, args: LookaheadSlack(
            goal=G2() if args.goal == "G2" else G1(), lookahead=args.lookahead
        ),
        False,
    ),
    "slack": (lambda priority, args: SlackBackfill(tolerance=args.tolerance), False),
}
DEFAULT_SCHEDULERS = ("fcfs", "easy", "conservative")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``backfill`` command.

    Examples:
        >>> args = build_parser().parse_args(["simulate", "--scheduler", "easy", "--jobs", "10"])
        >>> args.command, args.scheduler, args.jobs
        ('simulate', ['easy'], 10)
    """
    parser = argparse.ArgumentParser(
        prog="backfill",
        description="Parallel-job scheduling for HPC batch systems: simulate, compare schedulers.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sim = commands.add_parser(
        "simulate",
        help="simulate schedulers on a workload and print a metrics table",
        description=(
            "Simulate schedulers on an SWF log, or without one on a synthetic Lublin-Feitelson "
            f"workload ({DEFAULT_JOBS} jobs, {DEFAULT_MACHINE_SIZE} processors, f-model "
            "estimates), validate every schedule and print their metrics."
        ),
    )
    sim.add_argument(
        "swf_path",
        nargs="?",
        metavar="SWF_PATH",
        help="an SWF log (.swf or .swf.gz); default: the synthetic workload",
    )
    sim.add_argument(
        "--scheduler",
        nargs="+",
        choices=list(SCHEDULERS),
        default=list(DEFAULT_SCHEDULERS),
        metavar="NAME",
        help=f"schedulers to compare ({', '.join(SCHEDULERS)}); default: {', '.join(DEFAULT_SCHEDULERS)}",
    )
    sim.add_argument(
        "--priority",
        choices=list(PRIORITIES),
        default=None,
        metavar="NAME",
        help=(
            f"queue order for fcfs, easy, selective, pc and dc ({', '.join(PRIORITIES)}); default fcfs. "
            "Conservative serves jobs in the order of their reservations and takes none."
        ),
    )
    sim.add_argument(
        "--load",
        type=_positive_float,
        default=1.0,
        metavar="FACTOR",
        help="raise the arrival rate by FACTOR (submit times divided by it); default 1",
    )
    sim.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"jobs to simulate: the model's count (default {DEFAULT_JOBS}), or a log's first N",
    )
    sim.add_argument(
        "--seed",
        type=_non_negative_int,
        default=None,
        metavar="S",
        help="seed of the synthetic workload (default 0)",
    )
    sim.add_argument(
        "--machine-size",
        type=_positive_int,
        default=None,
        metavar="P",
        help=(
            f"processors: of the synthetic machine (default {DEFAULT_MACHINE_SIZE}), or instead "
            "of a log's MaxProcs"
        ),
    )
    sim.add_argument(
        "--estimates",
        choices=["accurate", "f-model"],
        default=None,
        help="runtime estimates of the synthetic workload (default f-model, f = 3)",
    )
    sim.add_argument(
        "--job-class",
        choices=["batch", "interactive", "all"],
        default=None,
        help="parameter set of the synthetic workload (default batch; all: the typeless set)",
    )
    sim.add_argument(
        "--depth",
        type=_depth,
        default=1,
        metavar="K",
        help="reservation depth of easy: reservations for the first K blocked jobs, or inf; default 1",
    )
    sim.add_argument(
        "--threshold",
        type=_positive_float,
        default=None,
        metavar="T",
        help=(
            "starvation threshold of selective: promote a job when (wait + estimate) / estimate "
            "reaches T; default adaptive (running mean bounded slowdown of completed jobs)"
        ),
    )
    sim.add_argument(
        "--window",
        type=_duration,
        default=86400.0,
        metavar="DURATION",
        help="fair-share window of relshare: seconds, or e.g. 4h, 12h, 1d, 7d; default 1d",
    )
    sim.add_argument(
        "--no-expected-usage",
        action="store_true",
        help="relshare counts only the usage so far, not running and reserved jobs' expected usage",
    )
    sim.add_argument(
        "--goal",
        choices=["G1", "G2"],
        default="G1",
        help="goal of lookahead: G1 stays close to FCFS, G2 maximises utilization; default G1",
    )
    sim.add_argument(
        "--lookahead",
        type=_non_negative_int,
        default=20,
        metavar="N",
        help="waiting jobs lookahead searches for a set to start (default 20, the thesis's)",
    )
    sim.add_argument(
        "--tolerance",
        type=_non_negative_float,
        default=1.0,
        metavar="F",
        help="slack's delay tolerance: a job's slack is F x the mean wait so far (default 1)",
    )
    sim.add_argument(
        "--bound",
        type=_positive_float,
        default=DEFAULT_BOUND,
        metavar="SECONDS",
        help=f"threshold of the bounded slowdown (default {DEFAULT_BOUND:g} s)",
    )
    sim.add_argument(
        "--output-swf",
        type=Path,
        default=None,
        metavar="PATH",
        help=(
            "write each schedule as SWF (wait field = simulated wait); with several schedulers "
            "the scheduler's name is added before the suffix"
        ),
    )
    sim.add_argument(
        "--lenient",
        action="store_true",
        help="skip malformed lines of the SWF log (counted in its report) instead of stopping at the first",
    )
    _add_compare(commands)
    return parser


def _load_workload(args: argparse.Namespace) -> tuple[Workload, ReadReport | None, str]:
    """Return the workload, the reader's report (for a log) and a one-line description."""
    if args.swf_path is None:
        if args.lenient:
            raise _Failure("--lenient applies only to an SWF log, not to the synthetic workload")
        n = DEFAULT_JOBS if args.jobs is None else args.jobs
        size = DEFAULT_MACHINE_SIZE if args.machine_size is None else args.machine_size
        seed = 0 if args.seed is None else args.seed
        estimates: Literal["accurate", "f-model"] = args.estimates or "f-model"
        job_class: JobClass = args.job_class or "batch"
        workload = lublin_feitelson(n, machine_size=size, seed=seed, estimates=estimates, job_class=job_class)
        shown = "f-model (f = 3)" if estimates == "f-model" else "accurate"
        description = (
            f"Lublin-Feitelson model: {n} {job_class} jobs, {size} processors, seed {seed}, {shown} estimates"
        )
        return workload, None, description
    for option, value in (
        ("--seed", args.seed),
        ("--estimates", args.estimates),
        ("--job-class", args.job_class),
    ):
        if value is not None:
            raise _Failure(f"{option} applies only to the synthetic workload, not to an SWF log")
    path = Path(args.swf_path)
    try:
        workload, report = read_swf(path, machine_size=args.machine_size, lenient=args.lenient)
    except OSError as e:
        raise _Failure(f"cannot read {path}: {e.strerror or e}") from None
    description = f"{path.name}: {workload.machine_size} processors"
    if args.jobs is not None and args.jobs < len(workload):
        workload = Workload.from_records(
            workload.records[: args.jobs],
            workload.machine_size,
            provenance={**workload.provenance, "first_jobs": args.jobs},
            header=workload.header,
        )
        description += f", first {args.jobs} jobs"
    return workload, report, description


def _output_path(base: Path, name: str, several: bool) -> Path:
    if not several:
        return base
    suffix = "".join(base.suffixes[-2:]) if base.name.endswith(".swf.gz") else base.suffix
    stem = base.name[: len(base.name) - len(suffix)] if suffix else base.name
    return base.with_name(f"{stem}-{name}{suffix}")


def _simulate(args: argparse.Namespace) -> int:
    workload, report, description = _load_workload(args)
    if args.load != 1.0:
        workload = workload.scaled(args.load)
        description += f", load x{args.load:g}"
    names = list(dict.fromkeys(args.scheduler))  # keep order, drop repeats
    priority = PRIORITIES[args.priority or "fcfs"]
    if report is not None:
        print(report.summary())
    print(f"workload: {description}, offered load {workload.offered_load():.3f}")
    if args.priority not in (None, "fcfs"):
        ignoring = [name for name in names if not SCHEDULERS[name][1]]
        if ignoring:
            shown = ", ".join(ignoring)
            print(f"note: {shown} takes no priority; --priority applies to the others")

    schedules: dict[str, Schedule] = {}
    started = time.perf_counter()
    for name in names:
        factory, _ = SCHEDULERS[name]
        schedule = simulate(workload, factory(priority, args), record_reservations=False)
        validate_schedule(schedule)
        schedules[schedule.scheduler] = schedule
    elapsed = time.perf_counter() - started

    print()
    print(metrics_table(schedules, bound=args.bound))
    print()
    lines = {s.accounting() for s in schedules.values()}
    if len(lines) == 1:
        print(f"jobs: {lines.pop()}")
    else:
        for label, s in schedules.items():
            print(f"jobs ({label}): {s.accounting()}")
    if report is not None:
        dropped = sum(report.dropped.values())
        print(
            f"log: {report.lines} data lines = {report.kept} kept + {dropped} dropped by the "
            f"cleaning policy + {len(report.skipped_lines)} malformed"
        )
    print(
        f"times in seconds; bounded slowdown with a {args.bound:g} s bound; "
        f"{len(schedules)} schedule(s) valid, simulated in {elapsed:.2f} s"
    )
    if args.output_swf is not None:
        several = len(schedules) > 1
        for name, schedule in zip(names, schedules.values(), strict=True):
            path = _output_path(args.output_swf, name, several)
            try:
                schedule.to_swf(path)
            except OSError as e:
                raise _Failure(f"cannot write {path}: {e.strerror or e}") from None
            print(f"wrote {path}")
    return 0


# -- backfill compare --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``backfill`` command line and return its exit status.

    Errors of the library (:class:`~backfill.errors.BackfillError`) and unreadable files are
    reported on one line of standard error with exit status 2; bad options exit with status 2
    through :mod:`argparse`.

    Args:
        argv: The arguments, without the program name; default ``sys.argv[1:]``.

    Returns:
        0 on success, 2 on error.
    """
    args = build_parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "compare":
            return _compare(args)
    except BackfillError as e:
        print(f"backfill: error: {e}", file=sys.stderr)
        return 2
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover
