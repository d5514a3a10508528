"""The ``backfill compare`` subcommand: a sweep of workloads x schedulers, as tables, CSV and figures."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from backfill.cli.options import (
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    NO_JOBS,
    CommandLineError,
    positive_float,
    positive_int,
)
from backfill.errors import BackfillError
from backfill.experiments.plots import improvement_bars, require_matplotlib
from backfill.experiments.sweep import (
    DROPPED_COLUMN,
    ESTIMATES,
    METRIC_COLUMNS,
    REJECTIONS_COLUMN,
    Grid,
    ModelWorkload,
    SchedulerSpec,
    SweepResult,
    TraceWorkload,
    run_sweep,
)
from backfill.measures.metrics import DEFAULT_BOUND, format_metric
from backfill.schedulers.priorities import PRIORITIES
from backfill.schedulers.registry import SCHEDULERS as REGISTRY
from backfill.schedulers.registry import scheduler_entry

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
        nargs="*",
        metavar="TRACE_OR_MODEL",
        help=(
            "SWF logs (.swf, .swf.gz), and/or the synthetic workload 'model' or 'model:K=V,...' "
            "with keys n, machine_size, seed, job_class, arrival_shape, estimates, estimate_factor "
            f"and name (default {DEFAULT_JOBS} jobs, {DEFAULT_MACHINE_SIZE} processors, seed 0, "
            "f-model estimates; labelled by the text given unless name= says otherwise)"
        ),
    )
    cmp.add_argument(
        "--scheduler",
        nargs="+",
        action="extend",
        required=True,
        metavar="SPEC",
        help=_scheduler_help(),
    )
    cmp.add_argument(
        "--priority",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=f"queue priorities ({', '.join(PRIORITIES)}); default fcfs",
    )
    cmp.add_argument(
        "--load",
        nargs="+",
        action="extend",
        type=positive_float,
        metavar="FACTOR",
        help="load factors (submit times divided by each); default 1",
    )
    cmp.add_argument(
        "--estimates",
        nargs="+",
        action="extend",
        choices=list(ESTIMATES),
        help="estimate policies: user keeps the workload's, exact sets them to the runtimes; default user",
    )
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
        "--bound",
        type=positive_float,
        default=DEFAULT_BOUND,
        metavar="SECONDS",
        help=f"threshold of the bounded slowdown (default {DEFAULT_BOUND:g} s)",
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
    cmp.add_argument("--csv", type=Path, default=None, metavar="PATH", help="write every row as CSV to PATH")
    cmp.add_argument(
        "--figures",
        type=Path,
        default=None,
        metavar="DIR",
        help="write improvement_<metric>.png per metric to DIR (needs matplotlib: the plot extra)",
    )
    cmp.add_argument("--progress", action="store_true", help="show a progress bar (needs tqdm)")


def _split_params(text: str, what: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``NAME:K=V,...`` into the name and its (key, value) texts."""
    head, colon, rest = text.partition(":")
    pairs = []
    if colon:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not (eq and key.strip() and value.strip()):
                raise CommandLineError(f"{what} {text!r}: expected KEY=VALUE, got {item!r}")
            pairs.append((key.strip(), value.strip()))
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise CommandLineError(f"{what} {text!r}: {', '.join(repeated)} given twice")
    return head.strip(), pairs


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
    _, pairs = _split_params(text, "workload")
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


def scheduler_spec(text: str) -> SchedulerSpec:
    """Return the sweep spec of ``NAME[:K=V,...]``, each value read by its registered parameter.

    Examples:
        >>> scheduler_spec("relshare:window=4h,expected_usage=false").label
        'RelShare(expected_usage=False, window=14400.0)'
    """
    name, pairs = _split_params(text, "--scheduler")
    try:
        entry = scheduler_entry(name)
        params = tuple((key, entry.parameter(key).from_text(value)) for key, value in pairs)
        return SchedulerSpec(entry.name, params)
    except BackfillError as e:
        raise CommandLineError(f"--scheduler {text!r}: {e}") from None


def _scheduler_help() -> str:
    """The help of ``--scheduler``: every registered name and its parameters, from the registry."""
    described = []
    for entry in REGISTRY:
        alias = f" ({', '.join(entry.aliases)})" if entry.aliases else ""
        keys = ", ".join(p.name for p in entry.parameters)
        described.append(f"{entry.name.lower()}{alias}" + (f" [{keys}]" if keys else ""))
    return (
        "schedulers as NAME or NAME:K=V,... (e.g. easy:depth=4, selective:threshold=20, "
        "relshare:window=4h,expected_usage=false, lookahead:goal=G2); NAME [its keys K] one of "
        + "; ".join(described)
        + ". Values are read as by simulate's option of the same name"
    )


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
        raise CommandLineError(
            "no workload: give the traces or 'model' first, before the options (or after them, following --)"
        )
    workloads = [workload_spec(t) for t in dict.fromkeys(args.workloads)]
    specs = list(dict.fromkeys(scheduler_spec(t) for t in args.scheduler))
    priorities = list(dict.fromkeys(args.priority or ["fcfs"]))
    for p in priorities:
        if p not in PRIORITIES:
            raise CommandLineError(f"unknown priority {p!r}; known: {', '.join(PRIORITIES)}")
    metrics = list(dict.fromkeys(args.metric or DEFAULT_COMPARE_METRICS))
    for m in metrics:
        if m not in METRIC_COLUMNS:
            raise CommandLineError(f"unknown metric {m!r}; known: {', '.join(METRIC_COLUMNS)}")
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
        try:
            args.figures.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CommandLineError(f"cannot create {args.figures}: {e.strerror or e}") from None
    if args.csv is not None and not args.csv.parent.is_dir():
        raise CommandLineError(f"cannot write {args.csv}: no directory {args.csv.parent}")
    for workload in workloads:
        # Read (and cached for the workers of a fork) now: a workload with no job is an error, not
        # a table of dashes after the sweep.
        if len(workload.load()) == 0:
            name = workload.path if isinstance(workload, TraceWorkload) else workload.label
            raise CommandLineError(f"{name}: {NO_JOBS}")
    grid = Grid(
        workloads,
        specs,
        priorities=priorities,
        loads=list(dict.fromkeys(args.load or [1.0])),
        estimates=list(dict.fromkeys(args.estimates or ["user"])),
        bound=args.bound,
    )
    ignoring = [s.label for s in specs if not s.takes_priority]
    if ignoring and priorities != ["fcfs"]:
        print(f"note: {', '.join(ignoring)} takes no priority; its one run per load serves every priority")
    started = time.perf_counter()
    try:
        result = run_sweep(grid, cache=args.cache, workers=args.workers, progress=args.progress)
    except BackfillError as e:
        where = "; ".join(getattr(e, "__notes__", ()))
        raise CommandLineError(f"{e} ({where})" if where else str(e)) from None
    elapsed = time.perf_counter() - started
    print(
        f"{len(result.rows)} cells: {result.computed} simulated, {result.cached} from the cache, "
        f"in {elapsed:.2f} s; every schedule validated"
    )
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
    if args.csv is not None:
        try:
            result.to_csv(args.csv)
        except OSError as e:
            raise CommandLineError(f"cannot write {args.csv}: {e.strerror or e}") from None
        print(f"wrote {args.csv}")
    if args.figures is not None:
        for m in metrics:
            path = args.figures / f"improvement_{m}.png"
            figure = improvement_bars(result.improvement(m, baseline))
            try:
                figure.savefig(path, dpi=120)
            except OSError as e:
                raise CommandLineError(f"cannot write {path}: {e.strerror or e}") from None
            print(f"wrote {path}")
    return 0
