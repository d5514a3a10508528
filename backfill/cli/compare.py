"""The ``backfill compare`` subcommand: a sweep of workloads x schedulers, as tables, CSV and figures."""

from __future__ import annotations

import argparse
import math
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from backfill._files import open_atomically, write_atomically
from backfill.cli._empty import no_jobs
from backfill.cli._metrics import add_metric_option, add_trim_options, metrics_wanted, trim_wanted, trim_words
from backfill.cli._nodes import add_nodes_options, machine_line, with_nodes
from backfill.cli._outputs import check_outputs, write_outputs
from backfill.cli._partitions import add_partitions_option, check_partitioned_compare, log_partition_lines
from backfill.cli._replications import (
    plain_summary,
    replicated_workloads,
    replications_words,
    summary_markdown,
    write_summary_csv,
)
from backfill.cli._resources import (
    add_resources_option,
    check_capacities,
    check_resource_metrics,
    processors_only_note,
    resource_columns,
    with_resources,
)
from backfill.cli._tables import DESCRIPTION, describe, markdown, metric_cell, numeric_columns, percent_cell
from backfill.cli._timing import kernel_words, since_start_words
from backfill.cli.options import (
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    NO_JOBS,
    ORDER_HINT,
    CommandLineError,
    add_run_options,
    estimate_policies,
    loads,
    output_path,
    positive_int,
    priorities,
    progress_wanted,
    scheduler_spec,
    scheduler_specs,
    slug,
    split_params,
)
from backfill.errors import BackfillError
from backfill.experiments.columns import EXTRA_COLUMNS
from backfill.experiments.outputs import stamp_jobs_csv, write_metrics_json
from backfill.experiments.plots import improvement_bars, require_matplotlib
from backfill.experiments.progress import Progress
from backfill.experiments.replications import replication_summary
from backfill.experiments.sweep import (
    DROPPED_COLUMN,
    REJECTIONS_COLUMN,
    Grid,
    ModelWorkload,
    SweepResult,
    TraceWorkload,
    run_sweep,
)
from backfill.measures.trim import Trim

__all__ = [
    "DEFAULT_COMPARE_METRICS",
    "NO_JOBS",
    "add_compare_command",
    "run_compare",
    "scheduler_spec",
    "workload_spec",
]

#: Metrics ``backfill compare`` tabulates and plots unless ``--metric`` names others.
DEFAULT_COMPARE_METRICS = ("mean_wait", "mean_bsld")


def add_compare_command(commands: Any) -> None:
    """Add the ``compare`` subcommand to the subparsers ``commands`` of the ``backfill`` parser."""
    cmp = commands.add_parser(
        "compare",
        help="run a sweep: workloads x schedulers x priorities x loads; tables, CSV and figures",
        # Options of many values take every word after them, workloads included.
        hints={"the following arguments are required: TRACE_OR_MODEL": f"no workload: {ORDER_HINT}"},
        description=(
            "Simulate every workload under every scheduler, priority, load factor and estimate "
            "policy (a sweep grid, on a process pool, optionally cached), validate every "
            "schedule, and print the chosen metrics of each cell and their percent improvement "
            "over the baseline, 100 x (baseline - other) / baseline, as markdown tables. "
            "Give the workloads first, then the options."
        ),
    )
    _add_workloads_argument(cmp)
    add_run_options(cmp, sweep=True)
    add_resources_option(cmp)
    add_nodes_options(cmp)
    cmp.add_argument(
        "--baseline",
        metavar="LABEL",
        help="scheduler to compare with (a label or a SPEC); default Conservative if given, else the first",
    )
    add_metric_option(cmp, f"default {' '.join(DEFAULT_COMPARE_METRICS)}")
    _add_replication_options(cmp)
    _add_pool_options(cmp)
    add_partitions_option(cmp)


def _add_workloads_argument(cmp: argparse.ArgumentParser) -> None:
    """The workloads of the sweep: logs and synthetic models."""
    cmp.add_argument(
        "workloads",
        nargs="+",
        metavar="TRACE_OR_MODEL",
        help=(
            "SWF logs (.swf, .swf.gz), Batsim workloads (.json), and/or the synthetic workload "
            "'model' or 'model:K=V,...' "
            "with keys n, machine_size, seed, job_class, arrival_shape, estimates, estimate_factor "
            f"and name (default {DEFAULT_JOBS} jobs, {DEFAULT_MACHINE_SIZE} processors, seed 0, "
            "f-model estimates; labelled by the text given unless name= says otherwise)"
        ),
    )


def _add_replication_options(cmp: argparse.ArgumentParser) -> None:
    """Replications (seeds, samples, windows), the measures' trim (as simulate's), and their summary."""
    cmp.add_argument(
        "--seeds",
        nargs="+",
        action="extend",
        metavar="SEED",
        help=(
            "replicate every model workload over these seeds and report each configuration's mean, "
            "standard deviation and 95 %% Student-t confidence interval, and those of its paired "
            "improvement over the baseline"
        ),
    )
    cmp.add_argument(
        "--samples",
        action="store_true",
        help=(
            "the workloads given are samples of one workload: report each configuration over them "
            "as --seeds does"
        ),
    )
    cmp.add_argument(
        "--windows",
        metavar="N",
        help=(
            "cut every log into N consecutive windows of nearly equal job counts (submit order, "
            "after cleaning) and report each configuration over them as --seeds does"
        ),
    )
    add_trim_options(cmp)
    cmp.add_argument(
        "--summary-csv",
        type=Path,
        metavar="PATH",
        help=(
            "with --seeds, --windows or --samples, write the mean, deviation and interval of each "
            "measure as CSV"
        ),
    )


def _add_pool_options(cmp: argparse.ArgumentParser) -> None:
    """Where the cells run and what keeps them: the worker processes and the cache."""
    cmp.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="worker processes (default: one per core; 1 runs the cells in this process)",
    )
    cmp.add_argument(
        "--cache", type=Path, default=None, metavar="DIR", help="cache finished cells in DIR and reuse them"
    )


_MODEL_KEYS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "n": ("n_jobs", int),
    "n_jobs": ("n_jobs", int),
    "machine_size": ("machine_size", int),
    "seed": ("seed", int),
    "job_class": ("job_class", str),
    "arrival_shape": ("arrival_shape", float),
    "estimates": ("estimates", str),
    "estimate_factor": ("estimate_factor", float),
    "name": ("name", str),
}


def workload_spec(text: str) -> TraceWorkload | ModelWorkload:
    """Return the sweep workload of a positional argument: ``model[:K=V,...]``, an SWF or a Batsim path."""
    if text != "model" and not text.startswith("model:"):
        path = Path(text)
        try:
            with path.open("rb"):
                pass
        except OSError as e:
            raise CommandLineError(f"cannot read {path}: {e.strerror or e}") from None
        return TraceWorkload(path)
    _, pairs = split_params(text, "workload")
    # The defaults of `simulate`'s synthetic workload, not ModelWorkload's, so the two commands agree.
    kwargs: dict[str, Any] = {
        "n_jobs": DEFAULT_JOBS,
        "machine_size": DEFAULT_MACHINE_SIZE,
        "seed": 0,
        "estimates": "f-model",
        "name": text,
    }
    for key, value in pairs:
        if key not in _MODEL_KEYS:
            raise CommandLineError(f"workload {text!r}: unknown key {key!r}; known: {', '.join(_MODEL_KEYS)}")
        field, convert = _MODEL_KEYS[key]
        try:
            kwargs[field] = convert(value)
        except ValueError:
            raise CommandLineError(
                f"workload {text!r}: {key}={value!r} is not a valid {convert.__name__}"
            ) from None
    if "n" in dict(pairs) and "n_jobs" in dict(pairs):
        raise CommandLineError(f"workload {text!r}: n and n_jobs both given")
    try:
        return ModelWorkload(**kwargs)
    except BackfillError as e:
        raise CommandLineError(f"workload {text!r}: {e}") from None


def _baseline(text: str | None, labels: list[str]) -> str:
    if text is None:
        return "Conservative" if "Conservative" in labels else labels[0]
    if text in labels:
        return text
    try:
        label: str | None = scheduler_spec(text).label
    except CommandLineError:
        label = None
    if label not in labels:
        raise CommandLineError(f"--baseline {text!r} is not among the schedulers: {', '.join(labels)}")
    return str(label)


def _metrics_markdown(result: SweepResult, metrics: Sequence[str]) -> str:
    """Return the table of ``metrics`` per cell, as ``backfill compare`` prints it."""
    # A resource's utilization is in the rows of the schedulers that plan it only: "-" in the others.
    rows = [describe(r) + [metric_cell(m, float(r.get(m, math.nan))) for m in metrics] for r in result.rows]
    return markdown([*DESCRIPTION, *metrics], rows, numeric_columns(metrics))


def _accounting_markdown(result: SweepResult) -> str:
    """Return one line per workload, load and estimates: every job of the input and where it went.

    The SWF reader's cleaning policy drops some jobs of a log (by reason); the rest go in to the
    simulator, which schedules each or rejects it (by reason). Both depend on the workload alone, so
    the schedulers of one group agree; a group whose rows disagree gets a line per scheduler
    instead, so nothing is hidden.
    """
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in result.rows:
        groups.setdefault((row["workload"], row["load"], row["estimates"]), []).append(row)
    lines: list[list[str]] = []
    for (workload, load, estimates), rows in groups.items():
        accounts = {(r["jobs"], r["rejected"], r[REJECTIONS_COLUMN], r[DROPPED_COLUMN]) for r in rows}
        shown = [("all", rows[0])] if len(accounts) == 1 else [(str(r["scheduler"]), r) for r in rows]
        for scheduler, r in shown:
            jobs, rejected = int(r["jobs"]), int(r["rejected"])
            lines.append(
                [
                    str(workload),
                    scheduler,
                    f"{load:g}",
                    str(estimates),
                    str(r[DROPPED_COLUMN]) or "-",
                    str(jobs + rejected),
                    str(jobs),
                    str(rejected),
                    str(r[REJECTIONS_COLUMN]) or "-",
                ]
            )
    header = ["workload", "scheduler", "load", "estimates", "dropped by the reader", "jobs in"]
    header += ["scheduled", "rejected", "reasons"]
    return markdown(header, lines, {2, 5, 6, 7})


def _improvement_markdown(result: SweepResult, metrics: Sequence[str], baseline: str) -> str:
    """Return the table of percent improvements over ``baseline`` per cell and metric."""
    by_metric = [result.improvement(m, baseline) for m in metrics]
    rows = [
        describe(cells[0]) + [percent_cell(c["improvement"]) for c in cells]
        for cells in zip(*by_metric, strict=True)
    ]
    return markdown([*DESCRIPTION, *metrics], rows, numeric_columns(metrics))


def run_compare(args: argparse.Namespace) -> int:
    """Run ``backfill compare`` with the parsed ``args`` and return its exit status."""
    plan = _Plan(args)
    # Everything that can fail is checked before the sweep, which may run for hours.
    _check_before(args, plan)
    grid = _grid(args, plan)
    names = _cell_names([cell.description() for cell in grid.cells()])
    given = [("--csv", args.csv), ("--json", args.json), ("--jobs-csv", args.jobs_csv)]
    given.append(("--summary-csv", args.summary_csv))
    inputs = [t for t in args.workloads if t != "model" and not t.startswith("model:")]
    check_outputs(_output_files(args, names, plan.metrics), inputs, [args.figures], given=given)
    show_progress = progress_wanted(args)
    partition_lines = _read_workloads(args, plan)
    _print_notes(plan)
    result, elapsed = _sweep(args, grid, show_progress)
    _print_tables(args, plan, result, elapsed, partition_lines)
    summary = _print_replications(args, plan, result)
    _write_outputs(args, result, names, plan.metrics, plan.baseline, summary, plan.trim)
    if result.unsaved:
        raise CommandLineError(
            f"the cache {args.cache} could not keep {result.unsaved} of the {result.computed} cells "
            f"simulated ({result.cache_error}); the results above are complete"
        )
    return 0


class _Plan:
    """The sweep asked for: workloads (replicated), schedulers, metrics, trim, estimates, baseline."""

    def __init__(self, args: argparse.Namespace) -> None:
        if not args.workloads:
            # Options of many values take every word after them, workloads included.
            raise CommandLineError(f"no workload: {ORDER_HINT}")
        workloads = [workload_spec(t) for t in dict.fromkeys(args.workloads)]
        bare = scheduler_specs(args)
        given = list(dict.fromkeys(args.workloads))
        self.specs = specs = with_nodes(args, with_resources(args, bare), given)
        self.orders = priorities(args)
        self.metrics = metrics_wanted(args, DEFAULT_COMPARE_METRICS)
        check_resource_metrics(self.metrics, specs)
        self.processors_only = processors_only_note(self.metrics, specs)
        self.trim = trim_wanted(args)
        self.workloads, self.configuration_of = replicated_workloads(args, workloads)
        self.replicated = bool(self.configuration_of)
        if args.summary_csv is not None and not self.replicated:
            raise CommandLineError("--summary-csv needs replications: give --seeds, --windows or --samples")
        logs = [str(w.path) for w in self.workloads if isinstance(w, TraceWorkload)]
        self.estimates = estimate_policies(args, logs)
        labels = [s.label for s in specs]
        # The baseline is named as on the command line, without the resources every scheduler plans.
        self.baseline = labels[
            [s.label for s in bare].index(_baseline(args.baseline, [s.label for s in bare]))
        ]


def _check_before(args: argparse.Namespace, plan: _Plan) -> None:
    """Refuse figures that cannot be drawn and partitions the sweep cannot run."""
    if args.figures is not None:
        if len(plan.specs) < 2:
            raise CommandLineError("--figures needs a scheduler besides the baseline to compare")
        try:
            require_matplotlib()
        except BackfillError as e:
            raise CommandLineError(f"--figures: {e}") from None
    if args.partitions is not None:
        check_partitioned_compare(args)


def _grid(args: argparse.Namespace, plan: _Plan) -> Grid:
    """The sweep's grid: every workload x scheduler x priority x load x estimates."""
    return Grid(
        plan.workloads,
        plan.specs,
        priorities=plan.orders,
        loads=loads(args),
        estimates=plan.estimates,
        bound=args.bound,
        measures=[m for m in plan.metrics if m in EXTRA_COLUMNS],
        trim=plan.trim,
        partitions=args.partitions,
    )


def _read_workloads(args: argparse.Namespace, plan: _Plan) -> list[str]:
    """Read every workload, refuse one without jobs or too big, and return each log's partition lines."""
    for workload in plan.workloads:
        # Read (and cached for the workers of a fork) now: a workload with no job is an error, not
        # a table of dashes after the sweep.
        if len(workload.load()) == 0:
            name = workload.path if isinstance(workload, TraceWorkload) else workload.label
            raise CommandLineError(no_jobs(str(name), workload.load().provenance))
    check_capacities(args, plan.specs, [(w.label, w.load()) for w in plan.workloads])
    # Each log's partitions, chosen now: a log they cannot serve stops here, before any cell runs.
    return log_partition_lines(args.partitions, plan.workloads) if args.partitions is not None else []


def _print_notes(plan: _Plan) -> None:
    """Note the schedulers that take no priority, and the metrics of processors only."""
    ignoring = [s.label for s in plan.specs if not s.takes_priority]
    if ignoring and plan.orders != ["fcfs"]:
        print(f"note: {', '.join(ignoring)} takes no priority; its one run per load serves every priority")
    if plan.processors_only:
        print(plan.processors_only)
    machines = machine_line(plan.specs)
    if machines:
        print(machines)


def _sweep(args: argparse.Namespace, grid: Grid, show_progress: Progress) -> tuple[SweepResult, float]:
    """Run the sweep; return its result and the seconds it took."""
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # A cache that could not be written is said below, with the results.
            warnings.filterwarnings("ignore", "the sweep cache", RuntimeWarning)
            result = run_sweep(
                grid,
                cache=args.cache,
                workers=args.workers,
                progress=show_progress,
                jobs=args.jobs_csv is not None,
            )
    except BackfillError as e:
        where = "; ".join(getattr(e, "__notes__", ()))
        raise CommandLineError(f"{e} ({where})" if where else str(e)) from None
    return result, time.perf_counter() - started


def _print_tables(
    args: argparse.Namespace, plan: _Plan, result: SweepResult, elapsed: float, partition_lines: list[str]
) -> None:
    """Print the sweep's line, the metrics, the accounting of jobs, the partitions and the improvements."""
    metrics, specs, baseline = plan.metrics, plan.specs, plan.baseline
    print(_summary(result, elapsed, args))
    print()
    trimmed = trim_words(plan.trim)
    print(f"metrics per cell (times in seconds, bounded slowdown with a {args.bound:g} s bound{trimmed}):")
    print()
    # Each planned resource's utilization is shown beside the metrics chosen.
    print(_metrics_markdown(result, [*metrics, *(c for c in resource_columns(specs) if c not in metrics)]))
    print()
    print("every job: dropped by the SWF reader's cleaning policy, or in = scheduled + rejected:")
    print()
    print(_accounting_markdown(result))
    print()
    if partition_lines:
        print("\n".join(partition_lines))
        print()
    if len(specs) > 1:
        print(f"percent improvement over {baseline}, 100 x (baseline - other) / baseline:")
        print()
        print(_improvement_markdown(result, metrics, baseline))
    else:
        print(f"no scheduler besides the baseline {baseline} to compare")


def _print_replications(args: argparse.Namespace, plan: _Plan, result: SweepResult) -> list[dict[str, Any]]:
    """With replications, print and return each configuration's summary over them; else return none."""
    if not plan.replicated:
        return []
    metrics, baseline, several = plan.metrics, plan.baseline, len(plan.specs) > 1
    summary = replication_summary(
        result, metrics, plan.configuration_of, baseline=baseline if several else None
    )
    print()
    print(replications_words(summary, args, plan.workloads))
    print()
    print(summary_markdown(summary, metrics, "value"))
    if several:
        print()
        print(f"percent improvement over {baseline}, paired per replication: mean ± 95 % half-width (sd):")
        print()
        print(summary_markdown(summary, metrics, "improvement"))
    return summary


def _summary(result: SweepResult, elapsed: float, args: argparse.Namespace) -> str:
    """The line after a sweep: cells simulated and validated now, read from the cache, damaged.

    Its time is the sweep's (simulating, validating and measuring the cells, on the pool), then the
    command's so far (reading the workloads and starting included).
    """
    kernel = kernel_words(str(r.get("path", "python")) for r in result.rows)
    since = since_start_words(args)
    line = (
        f"{len(result.rows)} cells: {result.computed} simulated, {result.cached} from the cache, "
        f"in {elapsed:.2f} s (the sweep: simulating ({kernel}), validating and measuring)"
        + (f"; {since}" if since else "")
        + f"; schedules validated: {result.computed} in this run"
    )
    if result.cached:
        line += f", {result.cached} when they were cached"
    if result.damaged:
        cells = "cell" if result.damaged == 1 else "cells"
        line += f"; {result.damaged} damaged cache {cells} recomputed"
    if result.unsaved:
        line += f"; the cache could not keep {result.unsaved} of them: {result.cache_error}"
    return line


def _cell_names(rows: Sequence[dict[str, Any]]) -> list[str]:
    """A file-name part per row: its workload, scheduler, priority, load and estimates, where they vary."""
    shown: dict[str, Callable[[Any], str]] = {
        "workload": str,
        "scheduler": str,
        "priority": str,
        "load": lambda v: f"load{v:g}",
        "estimates": str,
    }
    varying = [(c, show) for c, show in shown.items() if len({r[c] for r in rows}) > 1]
    return ["-".join(slug(show(r[c])) for c, show in varying) for r in rows]


def _output_files(
    args: argparse.Namespace, names: list[str], metrics: list[str]
) -> list[tuple[str, Path | None]]:
    """Every file the run writes, with its option: one per cell for ``--jobs-csv``."""
    files: list[tuple[str, Path | None]] = [("--csv", args.csv), ("--json", args.json)]
    files.append(("--summary-csv", args.summary_csv))
    if args.jobs_csv is not None:
        files += [("--jobs-csv", output_path(args.jobs_csv, name, len(names) > 1)) for name in names]
    if args.figures is not None:
        files += [("--figures", args.figures / f"improvement_{m}.png") for m in metrics]
    return files


def _write_outputs(
    args: argparse.Namespace,
    result: SweepResult,
    names: list[str],
    metrics: list[str],
    baseline: str,
    summary: list[dict[str, Any]],
    trim: Trim,
) -> None:
    """Write every output asked for, each whole or not at all; the error names those that failed."""
    outputs: list[tuple[Path, Callable[[Path], object]]] = []
    stamp = getattr(args, "stamp", {})  # the command line's words and start time (main sets them)
    rows = [row | stamp for row in result.rows]
    if args.csv is not None:
        outputs.append((args.csv, SweepResult(rows).to_csv))
    if args.json is not None:
        warmup, cooldown = trim.describe()
        meta: dict[str, Any] = {"command": "compare", "bound": args.bound, "baseline": baseline}
        meta |= {"warmup": warmup, "cooldown": cooldown}
        if summary:
            meta["replications"] = [plain_summary(r) for r in summary]
        outputs.append((args.json, partial(write_metrics_json, rows, **meta)))
    if args.summary_csv is not None:
        outputs.append((args.summary_csv, partial(write_summary_csv, summary, trim)))
    if args.jobs_csv is not None:
        for name, text in zip(names, result.jobs, strict=True):
            stamped = stamp_jobs_csv(text, stamp) if stamp else text
            outputs.append((output_path(args.jobs_csv, name, len(names) > 1), partial(_write_text, stamped)))
    if args.figures is not None:
        for m in metrics:
            write = partial(_improvement_figure, _drawn_improvements(result, summary, m, baseline))
            outputs.append((args.figures / f"improvement_{m}.png", write))
    write_outputs(outputs)


def _drawn_improvements(
    result: SweepResult, summary: list[dict[str, Any]], metric: str, baseline: str
) -> list[dict[str, Any]]:
    """The bars of ``metric``'s figure: with replications, what their table says (mean and interval)."""
    if not summary:
        return result.improvement(metric, baseline)
    chosen = [r for r in summary if r["kind"] == "improvement" and r["metric"] == metric]
    return [r | {"baseline": baseline} for r in chosen]


def _write_text(text: str, path: Path) -> None:
    write_atomically(path, text)


def _improvement_figure(improvements: list[dict[str, Any]], path: Path) -> None:
    import matplotlib.pyplot as plt

    figure = improvement_bars(improvements, values=len(improvements) <= 12)  # more would overlap
    try:
        with open_atomically(path, "wb") as f:
            figure.savefig(f, format="png", dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)
