"""The ``backfill compare`` subcommand: a sweep of workloads x schedulers, as tables, CSV and figures."""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Collection, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from backfill._files import open_atomically, write_atomically
from backfill.cli._outputs import check_outputs, write_outputs
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
    read_values,
    scheduler_spec,
    scheduler_specs,
    slug,
    split_params,
)
from backfill.errors import BackfillError, ParameterError
from backfill.experiments.outputs import stamp_jobs_csv, write_metrics_json
from backfill.experiments.plots import improvement_bars, require_matplotlib
from backfill.experiments.sweep import (
    DROPPED_COLUMN,
    METRIC_COLUMNS,
    REJECTIONS_COLUMN,
    Grid,
    ModelWorkload,
    SweepResult,
    TraceWorkload,
    run_sweep,
)
from backfill.measures.metrics import format_metric

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
    cmp.add_argument(
        "workloads",
        nargs="+",
        metavar="TRACE_OR_MODEL",
        help=(
            "SWF logs (.swf, .swf.gz), and/or the synthetic workload 'model' or 'model:K=V,...' "
            "with keys n, machine_size, seed, job_class, arrival_shape, estimates, estimate_factor "
            f"and name (default {DEFAULT_JOBS} jobs, {DEFAULT_MACHINE_SIZE} processors, seed 0, "
            "f-model estimates; labelled by the text given unless name= says otherwise)"
        ),
    )
    add_run_options(cmp, sweep=True)
    cmp.add_argument(
        "--baseline",
        metavar="LABEL",
        help="scheduler to compare with (a label or a SPEC); default Conservative if given, else the first",
    )
    cmp.add_argument(
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=(
            f"metrics to show and plot ({', '.join(METRIC_COLUMNS)}); "
            f"default {' '.join(DEFAULT_COMPARE_METRICS)}"
        ),
    )
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


def _metric(text: str) -> str:
    if text not in METRIC_COLUMNS:
        raise ParameterError(f"unknown metric {text!r}; known: {', '.join(METRIC_COLUMNS)}")
    return text


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
    """Return the sweep workload of a positional argument: ``model[:K=V,...]`` or an SWF path."""
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


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int]) -> str:
    """Return a markdown table, padded to line up, with the columns numbered in ``right`` right-aligned."""
    cells = [[c.replace("|", "\\|") for c in line] for line in (header, *rows)]
    widths = [max(3, *(len(line[i]) for line in cells)) for i in range(len(header))]

    def line(values: Sequence[str]) -> str:
        padded = [
            v.rjust(w) if i in right else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = ["-" * (w - 1) + ":" if i in right else "-" * w for i, w in enumerate(widths)]
    return "\n".join([line(cells[0]), line(rule), *(line(c) for c in cells[1:])])


_DESCRIPTION = ("workload", "scheduler", "priority", "load", "estimates")


def _numeric(metrics: Sequence[str]) -> set[int]:
    """The right-aligned columns of a table of ``metrics``: the load and the metrics."""
    return {_DESCRIPTION.index("load"), *range(len(_DESCRIPTION), len(_DESCRIPTION) + len(metrics))}


def _describe(row: dict[str, Any]) -> list[str]:
    return [
        str(row["workload"]),
        str(row["scheduler"]),
        str(row["priority"]),
        f"{row['load']:g}",
        str(row["estimates"]),
    ]


def _metric_cell(metric: str, value: float) -> str:
    return f"{value:.2f}" if metric == "seconds" else format_metric(metric, value)


def _percent_cell(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}"  # NaN is the one value unequal to itself


def _metrics_markdown(result: SweepResult, metrics: Sequence[str]) -> str:
    """Return the table of ``metrics`` per cell, as ``backfill compare`` prints it."""
    rows = [_describe(r) + [_metric_cell(m, float(r[m])) for m in metrics] for r in result.rows]
    return _markdown([*_DESCRIPTION, *metrics], rows, _numeric(metrics))


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
    return _markdown(header, lines, {2, 5, 6, 7})


def _improvement_markdown(result: SweepResult, metrics: Sequence[str], baseline: str) -> str:
    """Return the table of percent improvements over ``baseline`` per cell and metric."""
    by_metric = [result.improvement(m, baseline) for m in metrics]
    rows = [
        _describe(cells[0]) + [_percent_cell(c["improvement"]) for c in cells]
        for cells in zip(*by_metric, strict=True)
    ]
    return _markdown([*_DESCRIPTION, *metrics], rows, _numeric(metrics))


def run_compare(args: argparse.Namespace) -> int:
    """Run ``backfill compare`` with the parsed ``args`` and return its exit status."""
    if not args.workloads:
        # Options of many values take every word after them, workloads included.
        raise CommandLineError(f"no workload: {ORDER_HINT}")
    workloads = [workload_spec(t) for t in dict.fromkeys(args.workloads)]
    specs = scheduler_specs(args)
    orders = priorities(args)
    metrics = read_values(args.metric or DEFAULT_COMPARE_METRICS, _metric, "--metric", "a metric")
    logs = [str(w.path) for w in workloads if isinstance(w, TraceWorkload)]
    estimates = estimate_policies(args, logs)
    labels = [s.label for s in specs]
    baseline = _baseline(args.baseline, labels)
    # Everything that can fail is checked before the sweep, which may run for hours.
    if args.figures is not None:
        if len(specs) < 2:
            raise CommandLineError("--figures needs a scheduler besides the baseline to compare")
        try:
            require_matplotlib()
        except BackfillError as e:
            raise CommandLineError(f"--figures: {e}") from None
    grid = Grid(
        workloads,
        specs,
        priorities=orders,
        loads=loads(args),
        estimates=estimates,
        bound=args.bound,
    )
    names = _cell_names([cell.description() for cell in grid.cells()])
    given = [("--csv", args.csv), ("--json", args.json), ("--jobs-csv", args.jobs_csv)]
    inputs = [t for t in args.workloads if t != "model" and not t.startswith("model:")]
    check_outputs(_output_files(args, names, metrics), inputs, [args.figures], given=given)
    show_progress = progress_wanted(args)
    for workload in workloads:
        # Read (and cached for the workers of a fork) now: a workload with no job is an error, not
        # a table of dashes after the sweep.
        if len(workload.load()) == 0:
            name = workload.path if isinstance(workload, TraceWorkload) else workload.label
            raise CommandLineError(f"{name}: {NO_JOBS}")
    ignoring = [s.label for s in specs if not s.takes_priority]
    if ignoring and orders != ["fcfs"]:
        print(f"note: {', '.join(ignoring)} takes no priority; its one run per load serves every priority")
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
    elapsed = time.perf_counter() - started
    print(_summary(result, elapsed))
    print()
    print(f"metrics per cell (times in seconds, bounded slowdown with a {args.bound:g} s bound):")
    print()
    print(_metrics_markdown(result, metrics))
    print()
    print("every job: dropped by the SWF reader's cleaning policy, or in = scheduled + rejected:")
    print()
    print(_accounting_markdown(result))
    print()
    if len(specs) > 1:
        print(f"percent improvement over {baseline}, 100 x (baseline - other) / baseline:")
        print()
        print(_improvement_markdown(result, metrics, baseline))
    else:
        print(f"no scheduler besides the baseline {baseline} to compare")
    _write_outputs(args, result, names, metrics, baseline)
    if result.unsaved:
        raise CommandLineError(
            f"the cache {args.cache} could not keep {result.unsaved} of the {result.computed} cells "
            f"simulated ({result.cache_error}); the results above are complete"
        )
    return 0


def _summary(result: SweepResult, elapsed: float) -> str:
    """The line after a sweep: cells simulated and validated now, read from the cache, damaged."""
    line = (
        f"{len(result.rows)} cells: {result.computed} simulated, {result.cached} from the cache, "
        f"in {elapsed:.2f} s; schedules validated: {result.computed} in this run"
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
    if args.jobs_csv is not None:
        files += [("--jobs-csv", output_path(args.jobs_csv, name, len(names) > 1)) for name in names]
    if args.figures is not None:
        files += [("--figures", args.figures / f"improvement_{m}.png") for m in metrics]
    return files


def _write_outputs(
    args: argparse.Namespace, result: SweepResult, names: list[str], metrics: list[str], baseline: str
) -> None:
    """Write every output asked for, each whole or not at all; the error names those that failed."""
    outputs: list[tuple[Path, Callable[[Path], object]]] = []
    stamp = getattr(args, "stamp", {})  # the command line's words and start time (main sets them)
    rows = [row | stamp for row in result.rows]
    if args.csv is not None:
        outputs.append((args.csv, SweepResult(rows).to_csv))
    if args.json is not None:
        write = partial(write_metrics_json, rows, command="compare", bound=args.bound, baseline=baseline)
        outputs.append((args.json, write))
    if args.jobs_csv is not None:
        for name, text in zip(names, result.jobs, strict=True):
            stamped = stamp_jobs_csv(text, stamp) if stamp else text
            outputs.append((output_path(args.jobs_csv, name, len(names) > 1), partial(_write_text, stamped)))
    if args.figures is not None:
        for m in metrics:
            write = partial(_improvement_figure, result.improvement(m, baseline))
            outputs.append((args.figures / f"improvement_{m}.png", write))
    write_outputs(outputs)


def _write_text(text: str, path: Path) -> None:
    write_atomically(path, text)


def _improvement_figure(improvements: list[dict[str, Any]], path: Path) -> None:
    import matplotlib.pyplot as plt

    figure = improvement_bars(improvements)
    try:
        with open_atomically(path, "wb") as f:
            figure.savefig(f, format="png", dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)
