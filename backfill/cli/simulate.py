"""The command line's parser, its ``simulate`` command and ``main`` (``compare`` has its own module)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from backfill.cli.compare import DEFAULT_COMPARE_METRICS, add_compare_command, run_compare
from backfill.cli.options import (
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    NO_JOBS,
    CommandLineError,
    add_scheduler_options,
    given_parameters,
    non_negative_int,
    positive_float,
    positive_int,
)
from backfill.errors import BackfillError, ParameterError
from backfill.experiments.cache import library_version
from backfill.measures.metrics import DEFAULT_BOUND, metrics_table
from backfill.measures.validation import validate_schedule
from backfill.schedule import Schedule
from backfill.schedulers.priorities import PRIORITIES
from backfill.schedulers.registry import SCHEDULERS as REGISTRY
from backfill.schedulers.registry import Entry, scheduler_entry
from backfill.simulator import simulate
from backfill.workloads.lublin import JobClass, lublin_feitelson
from backfill.workloads.swf import ReadReport, read_swf
from backfill.workloads.workload import Workload

__all__ = [
    "DEFAULT_COMPARE_METRICS",
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "DEFAULT_SCHEDULERS",
    "build_parser",
    "main",
]

#: The schedulers ``simulate`` runs when ``--scheduler`` is not given.
DEFAULT_SCHEDULERS = ("fcfs", "easy", "conservative")


def _scheduler_name(text: str) -> str:
    """Return the command-line name of the registered scheduler called ``text`` (any spelling)."""
    try:
        return scheduler_entry(text).cli_name
    except ParameterError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
    parser.add_argument("--version", action="version", version=f"%(prog)s {library_version()}")
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
        type=_scheduler_name,
        default=list(DEFAULT_SCHEDULERS),
        metavar="NAME",
        help=(
            f"schedulers to compare ({', '.join(e.cli_name for e in REGISTRY)}); "
            f"default: {', '.join(DEFAULT_SCHEDULERS)}"
        ),
    )
    sim.add_argument(
        "--priority",
        choices=list(PRIORITIES),
        default=None,
        metavar="NAME",
        help=(
            f"queue order of {', '.join(e.cli_name for e in REGISTRY if e.takes_priority)} "
            f"({', '.join(PRIORITIES)}); default fcfs. The others keep their own order."
        ),
    )
    sim.add_argument(
        "--load",
        type=positive_float,
        default=1.0,
        metavar="FACTOR",
        help="raise the arrival rate by FACTOR (submit times divided by it); default 1",
    )
    sim.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"jobs to simulate: the model's count (default {DEFAULT_JOBS}), or a log's first N",
    )
    sim.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        metavar="S",
        help="seed of the synthetic workload (default 0)",
    )
    sim.add_argument(
        "--machine-size",
        type=positive_int,
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
    add_scheduler_options(sim)
    sim.add_argument(
        "--bound",
        type=positive_float,
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
    add_compare_command(commands)
    return parser


def _load_workload(args: argparse.Namespace) -> tuple[Workload, ReadReport | None, str]:
    """Return the workload, the reader's report (for a log) and a one-line description."""
    if args.swf_path is None:
        if args.lenient:
            raise CommandLineError("--lenient applies only to an SWF log, not to the synthetic workload")
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
            raise CommandLineError(f"{option} applies only to the synthetic workload, not to an SWF log")
    path = Path(args.swf_path)
    try:
        workload, report = read_swf(path, machine_size=args.machine_size, lenient=args.lenient)
    except OSError as e:
        raise CommandLineError(f"cannot read {path}: {e.strerror or e}") from None
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


def _names(entry: Entry) -> set[str]:
    return {p.name for p in entry.parameters}


def _simulate(args: argparse.Namespace) -> int:
    workload, report, description = _load_workload(args)
    if len(workload) == 0:
        source = args.swf_path if args.swf_path is not None else "the synthetic workload"
        raise CommandLineError(f"{source}: {NO_JOBS}")
    if args.load != 1.0:
        workload = workload.scaled(args.load)
        description += f", load x{args.load:g}"
    names = list(dict.fromkeys(args.scheduler))  # keep order, drop repeats
    priority = PRIORITIES[args.priority or "fcfs"]
    if report is not None:
        print(report.summary())
    print(f"workload: {description}, offered load {workload.offered_load():.3f}")
    if args.priority not in (None, "fcfs"):
        ignoring = [name for name in names if not scheduler_entry(name).takes_priority]
        if ignoring:
            shown = ", ".join(ignoring)
            print(f"note: {shown} takes no priority; --priority applies to the others")

    unused = sorted(
        p.name for e in REGISTRY for p in e.parameters
        if hasattr(args, p.name) and not any(p.name in _names(scheduler_entry(n)) for n in names)
    )  # fmt: skip
    if unused:
        print(f"note: {', '.join(unused)} applies to none of the schedulers chosen")

    schedules: dict[str, Schedule] = {}
    started = time.perf_counter()
    for name in names:
        entry = scheduler_entry(name)
        scheduler = entry.build(priority if entry.takes_priority else None, **given_parameters(entry, args))
        schedule = simulate(workload, scheduler, record_reservations=False)
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
                raise CommandLineError(f"cannot write {path}: {e.strerror or e}") from None
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
            return run_compare(args)
    except BackfillError as e:
        print(f"backfill: error: {e}", file=sys.stderr)
        return 2
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover
