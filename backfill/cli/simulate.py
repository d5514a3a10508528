"""The command line's parser, its ``simulate`` command and ``main`` (``compare`` has its own module)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from backfill.cli._empty import no_jobs
from backfill.cli._metrics import add_metric_option, add_trim_options, metrics_wanted, trim_wanted
from backfill.cli._nodes import add_nodes_options, machine_line, with_nodes
from backfill.cli._outputs import OutputsInterrupted, check_outputs
from backfill.cli._partitions import (
    add_partitions_option,
    chosen_partitions,
)
from backfill.cli._resources import (
    add_resources_option,
    check_capacities,
    check_resource_metrics,
    processors_only_note,
    with_resources,
)
from backfill.cli._simulate_outputs import (
    add_batsim_output_options,
    add_gantt_options,
    check_batsim_version,
    check_gantt_options,
    write_simulate_outputs,
)
from backfill.cli._simulate_runs import PLANNING_PARAMETERS, Stopped, print_results, run_all
from backfill.cli._timing import mark_start
from backfill.cli.compare import DEFAULT_COMPARE_METRICS, add_compare_command, run_compare
from backfill.cli.options import (
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    DEFAULT_SCHEDULERS,
    ESTIMATE_WORDS,
    CommandLineError,
    Parser,
    add_run_options,
    duration,
    estimate_policies,
    loads,
    non_negative_int,
    output_path,
    positive_int,
    priorities,
    progress_wanted,
    scheduler_specs,
    slug,
    unused_options,
)
from backfill.errors import BackfillError
from backfill.experiments.cache import file_digest, library_version
from backfill.experiments.columns import EXTRA_COLUMNS
from backfill.experiments.outputs import (
    MODEL_SOURCE,
    provenance,
    reading_policy,
    run_provenance,
)
from backfill.experiments.plots import require_matplotlib
from backfill.experiments.specs import ModelWorkload, TraceWorkload
from backfill.experiments.sweep import SweepInterrupted
from backfill.schedulers.registry import scheduler_entry
from backfill.workloads.batsim import (
    BATSIM_POLICY,
    is_batsim_path,
    read_batsim_workload,
)
from backfill.workloads.swf import ReadReport, read_swf
from backfill.workloads.workload import Workload

__all__ = [
    "DEFAULT_COMPARE_METRICS",
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "DEFAULT_SCHEDULERS",
    "PLANNING_PARAMETERS",
    "build_parser",
    "main",
]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``backfill`` command.

    Examples:
        >>> args = build_parser().parse_args(["simulate", "--scheduler", "easy", "--jobs", "10"])
        >>> args.command, args.scheduler, args.jobs
        ('simulate', ['easy'], 10)
    """
    parser = Parser(
        prog="backfill",
        formatter_class=argparse.HelpFormatter,  # its options come before the command
        description="Parallel-job scheduling for HPC batch systems: simulate, compare schedulers.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {library_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_simulate_command(commands)
    add_compare_command(commands)
    return parser


def _add_simulate_command(commands: Any) -> None:
    """Add the ``simulate`` subcommand: its log, the run options, the workload's and the outputs'."""
    sim = commands.add_parser(
        "simulate",
        help="simulate schedulers on a workload and print a metrics table",
        description=(
            "Simulate schedulers on an SWF log, or without one on a synthetic Lublin-Feitelson "
            f"workload ({DEFAULT_JOBS} jobs, {DEFAULT_MACHINE_SIZE} processors, f-model "
            "estimates), validate every schedule and print their metrics; optionally write them as "
            "CSV and JSON, every job's result as CSV, the schedules as SWF, and figures. "
            "Give the log first, then the options."
        ),
    )
    sim.add_argument(
        "swf_path",
        nargs="?",
        metavar="SWF_PATH",
        help="an SWF log (.swf or .swf.gz) or a Batsim workload (.json); default: the synthetic workload",
    )
    add_run_options(sim, sweep=False)
    add_resources_option(sim)
    add_nodes_options(sim)
    add_metric_option(sim, "default: the standard table")
    add_trim_options(sim)
    _add_model_options(sim)
    _add_schedule_outputs(sim)
    sim.add_argument(
        "--lenient",
        action="store_true",
        help="skip malformed lines of the SWF log (counted in its report) instead of stopping at the first",
    )
    add_partitions_option(sim)


def _add_model_options(sim: argparse.ArgumentParser) -> None:
    """The synthetic workload's options (``--jobs`` and ``--machine-size`` also cut or resize a log)."""
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
        "--job-class",
        choices=["batch", "interactive", "all"],
        default=None,
        help="parameter set of the synthetic workload (default batch; all: the typeless set)",
    )


def _add_schedule_outputs(sim: argparse.ArgumentParser) -> None:
    """The outputs only ``simulate`` writes: the schedules as SWF or Batsim, and the figures' bin."""
    sim.add_argument(
        "--output-swf",
        type=Path,
        default=None,
        metavar="PATH",
        help=(
            "write each schedule as SWF (wait field = simulated wait; the header's notes name the "
            "scheduler, load, estimates and input); with several, what tells them apart is added "
            "before the suffix"
        ),
    )
    add_batsim_output_options(sim)
    sim.add_argument(
        "--figure-bin",
        type=duration,
        default=None,
        metavar="DURATION",
        help=(
            "with --figures: the bin of utilization_queue.png's time-weighted means (1h, 1d, 7d); "
            "default chosen from the span, from a minute to a week"
        ),
    )
    add_gantt_options(sim)


class _Input:
    """The workload ``simulate`` runs: its jobs, label, description and provenance."""

    def __init__(
        self,
        workload: Workload,
        report: ReadReport | None,
        label: str,
        description: str,
        origin: dict[str, Any],
    ) -> None:
        self.workload, self.report, self.label, self.description = workload, report, label, description
        self.origin = origin


def _load_workload(args: argparse.Namespace) -> _Input:
    """Return the workload, the reader's report (for a log), its label, description and provenance."""
    if args.swf_path is None:
        if args.lenient:
            raise CommandLineError("--lenient applies only to an SWF log, not to the synthetic workload")
        n = DEFAULT_JOBS if args.jobs is None else args.jobs
        size = DEFAULT_MACHINE_SIZE if args.machine_size is None else args.machine_size
        seed = 0 if args.seed is None else args.seed
        job_class = args.job_class or "batch"
        model = ModelWorkload(n, machine_size=size, seed=seed, job_class=job_class, estimates="f-model")
        description = (
            f"Lublin-Feitelson model: {n} {job_class} jobs, {size} processors, seed {seed}, "
            "f-model (f = 3) estimates"
        )
        origin = provenance(MODEL_SOURCE, seed=seed)
        return _Input(model.load(), None, model.label, description, origin)
    path = Path(args.swf_path)
    given = "a Batsim workload" if is_batsim_path(path) else "an SWF log"
    for option, value in (("--seed", args.seed), ("--job-class", args.job_class)):
        if value is not None:
            raise CommandLineError(f"{option} applies only to the synthetic workload, not to {given}")
    if args.lenient and is_batsim_path(path):
        raise CommandLineError("--lenient applies only to an SWF log, not to a Batsim workload")
    try:
        if is_batsim_path(path):
            workload, report = read_batsim_workload(path, machine_size=args.machine_size)
        else:
            workload, report = read_swf(path, machine_size=args.machine_size, lenient=args.lenient)
        digest = file_digest(path)
    except OSError as e:
        raise CommandLineError(f"cannot read {path}: {e.strerror or e}{_one_value_hint(args)}") from None
    label = TraceWorkload(path).label
    description = f"{path.name}: {workload.machine_size} processors"
    if args.jobs is not None and args.jobs < len(workload):
        workload = Workload.from_records(
            workload.records[: args.jobs],
            workload.machine_size,
            provenance={**workload.provenance, "first_jobs": args.jobs},
            header=workload.header,
        )
        description += f", first {args.jobs} jobs"
        label += f" (first {args.jobs} jobs)"
    if args.machine_size is not None:
        label += f" ({workload.machine_size} processors)"
    # The reader's cleaning policy (read_swf's default, or the Batsim reader's), and --lenient.
    policy = BATSIM_POLICY if is_batsim_path(path) else None
    origin = provenance(path.name, sha256=digest, reading=reading_policy(policy, lenient=args.lenient))
    return _Input(workload, report, label, description, origin)


def _one_value_hint(args: argparse.Namespace) -> str:
    """Why a log that cannot be read may be a second value of ``--load`` or ``--estimates``."""
    text = str(args.swf_path)
    for option, values, word in (("--load", args.load, "factor"), ("--estimates", args.estimates, "policy")):
        if values and (text in ESTIMATE_WORDS if option == "--estimates" else _is_number(text)):
            return f" (simulate takes one {option} {word}; backfill compare sweeps several)"
    return ""


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _one(values: list[Any], option: str) -> Any:
    if len(values) > 1:
        shown = " ".join(str(v) for v in values)
        raise CommandLineError(f"{option} {shown}: simulate runs one; backfill compare sweeps several")
    return values[0]


def _output_files(args: argparse.Namespace, names: list[str]) -> list[tuple[str, Path | None]]:
    """Every file the run writes, with its option: one per schedule for the per-schedule outputs."""
    several = len(names) > 1
    files: list[tuple[str, Path | None]] = [("--csv", args.csv), ("--json", args.json)]
    per_schedule = [("--jobs-csv", args.jobs_csv), ("--output-swf", args.output_swf)]
    for option, base in [*per_schedule, ("--output-batsim", args.output_batsim)]:
        if base is not None:
            files += [(option, output_path(base, name, several)) for name in names]
    if args.figures is not None:
        figures = ["utilization_queue.png", *(f"gantt-{name}.png" for name in names)]
        files += [("--figures", args.figures / name) for name in figures]
    return files


def _check_outputs(args: argparse.Namespace, names: list[str]) -> None:
    """Refuse, before any simulation, figures without matplotlib and outputs that would fail or destroy.

    An output that cannot be written, that is the input, or that another output names is refused.
    """
    if args.figure_bin is not None and args.figures is None:
        raise CommandLineError("--figure-bin applies only with --figures")
    check_batsim_version(args)
    check_gantt_options(args)
    if args.figures is not None:
        try:
            require_matplotlib()
        except BackfillError as e:
            raise CommandLineError(f"--figures: {e}") from None
    inputs = [args.swf_path] if args.swf_path is not None else []
    given = [
        (f"--{o.replace('_', '-')}", getattr(args, o))
        for o in ("csv", "json", "jobs_csv", "output_swf", "output_batsim")
    ]
    check_outputs(_output_files(args, names), inputs, [args.figures], given=given)


def _simulate(args: argparse.Namespace) -> int:
    """Run ``backfill simulate``: every check first, then the workload, the runs, the tables, the files.

    An interrupt keeps the runs finished: printed and written, then :class:`Stopped` says which.
    """
    plan = _Plan(args)
    _check_outputs(args, plan.names)
    show_progress = progress_wanted(args)
    given = _load_workload(args)
    workload, description, parts = _prepare(args, plan, given)
    _print_before(args, plan, given, workload, description)
    run_fields = {"workload": given.label, "load": plan.load, "estimates": plan.estimates}
    done = run_all(
        args,
        plan.runs,
        plan.names,
        workload,
        parts,
        plan.extra,
        run_fields,
        given.origin,
        show_progress,
        plan.trim,
    )
    if done.stopped is not None and not done.schedules:
        raise done.stopped
    print_results(args, plan.specs, plan.chosen, parts, given.report, done, plan.trim)
    # Named as planned (and checked) for every run, also when an interrupt left one finished.
    write_simulate_outputs(
        args, list(done.schedules.values()), done.rows, done.finished, several=len(plan.names) > 1
    )
    if done.stopped is not None:
        raise done.stopped
    return 0


class _Plan:
    """The schedulers, priorities, metrics, load and estimates asked for, and the runs they make.

    Read from the arguments before any workload is read.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        inputs = [args.swf_path] if args.swf_path is not None else []
        self.specs = with_nodes(args, with_resources(args, scheduler_specs(args)), inputs)
        self.orders = priorities(args)
        self.chosen = metrics_wanted(args, ()) if args.metric else []
        check_resource_metrics(self.chosen, self.specs)
        self.processors_only = processors_only_note(self.chosen, self.specs)
        self.extra = [m for m in self.chosen if m in EXTRA_COLUMNS]
        self.trim = trim_wanted(args)
        self.load = _one(loads(args), "--load")
        self.estimates = _one(
            estimate_policies(args, [args.swf_path] if args.swf_path is not None else []), "--estimates"
        )
        orders = self.orders
        self.runs = [(spec, p) for spec in self.specs for p in (orders if spec.takes_priority else ["fcfs"])]
        # The name of each schedule's output files, when there are several.
        self.names = [
            slug(spec.label) + (f"-{priority}" if len(orders) > 1 and spec.takes_priority else "")
            for spec, priority in self.runs
        ]


def _prepare(args: argparse.Namespace, plan: _Plan, given: _Input) -> tuple[Workload, str, Any]:
    """The workload as run (exact estimates, scaled), its description, and the partitions chosen.

    A workload without jobs, or with a job no scheduler's resources can hold, is refused.
    """
    workload, description = given.workload, given.description
    if len(workload) == 0:
        source = args.swf_path if args.swf_path is not None else "the synthetic workload"
        raise CommandLineError(no_jobs(str(source), workload.provenance))
    check_capacities(args, plan.specs, [(given.label, workload)])
    parts = chosen_partitions(args.partitions, workload, args.swf_path)  # sizes from the log as read
    if plan.estimates == "exact":
        workload = workload.with_exact_estimates()
        description += ", exact estimates (set to the runtimes)"
    if plan.load != 1.0:
        workload = workload.scaled(plan.load)
        description += f", load x{plan.load:g}"
    return workload, description, parts


def _print_before(
    args: argparse.Namespace, plan: _Plan, given: _Input, workload: Workload, description: str
) -> None:
    """Print the reader's report, the workload's line and the notes on options that apply to none."""
    if given.report is not None:  # with the notes on the resources planned, and only those
        print(given.report.summary(resources=[r.name for spec in plan.specs for r in spec.resources]))
    print(f"workload: {description}, offered load {workload.offered_load():.3f}")
    machines = machine_line(plan.specs, workload.machine_size)
    if machines:
        print(machines)
    if plan.orders != ["fcfs"]:
        ignoring = [spec.label.lower() for spec in plan.specs if not spec.takes_priority]
        if ignoring:
            print(f"note: {', '.join(ignoring)} takes no priority; --priority applies to the others")
    unused = unused_options(args, [scheduler_entry(s.name) for s in plan.specs])
    if unused:
        print(f"note: {', '.join(unused)} applies to none of the schedulers chosen")
    if plan.processors_only:
        print(plan.processors_only)


@contextmanager
def _sigterm_interrupts(received: list[int]) -> Iterator[None]:
    """While running, SIGTERM interrupts like Ctrl-C; the signal number is appended to ``received``."""

    def interrupt(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``backfill`` command line and return its exit status.

    Errors of the library (:class:`~backfill.errors.BackfillError`) and unreadable files are
    reported on one line of standard error with exit status 2; bad arguments too, through the
    parser (:class:`~backfill.cli.options.Parser`), which raises :class:`SystemExit` with status 2.
    Ctrl-C or SIGTERM stops a command with one line on standard error (for ``simulate``: which
    schedules finished, those being printed and written; for ``compare``: how many cells
    finished, and whether ``--cache`` keeps them; while the outputs are written: which were
    written and which were not) and exit status 128 + the signal's number (130,
    143), without a traceback. Every file written records ``argv`` (``backfill`` and the
    arguments) and the UTC start time in its provenance.

    Args:
        argv: The arguments, without the program name; default ``sys.argv[1:]``.

    Returns:
        0 on success, 2 on error, 130 or 143 when interrupted, 141 (as SIGPIPE would) when the
        reader of standard output closed it early (``backfill simulate | head``), without a traceback.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(words)
    # The provenance of every file the command writes: its words and when it started.
    args.stamp = run_provenance(["backfill", *words])
    mark_start(args, whole_process=argv is None)
    received: list[int] = []
    try:
        with _sigterm_interrupts(received):
            if args.command == "simulate":
                return _simulate(args)
            if args.command == "compare":
                return run_compare(args)
    except BackfillError as e:
        print(f"backfill: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError as e:
        if e.filename is not None:
            raise
        # The reader of standard output left (``| head``): stop quietly, as a Unix filter does on
        # SIGPIPE; what is still buffered goes nowhere, so the exit flush cannot fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + int(getattr(signal, "SIGPIPE", 13))
    except KeyboardInterrupt as e:
        signum = received[0] if received else signal.SIGINT
        name = signal.Signals(signum).name
        if isinstance(e, (Stopped, OutputsInterrupted)):
            print(f"backfill: interrupted ({name}): {e}", file=sys.stderr)
        elif isinstance(e, SweepInterrupted):
            kept = (
                f"--cache {e.cache} keeps them: the same command goes on from there"
                if e.cache is not None
                else "give --cache DIR to keep finished cells"
            )
            if e.cache is not None and e.unsaved:
                kept = f"--cache {e.cache} keeps {e.finished - e.unsaved} (it could not write the others)"
            print(
                f"backfill: interrupted ({name}): {e.finished} of {e.total} cells finished; {kept}",
                file=sys.stderr,
            )
        else:
            print(f"backfill: interrupted ({name})", file=sys.stderr)
        return 128 + int(signum)
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover
