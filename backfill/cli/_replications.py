"""``backfill compare``'s replications: the replicated workloads, their summary tables and CSV.

Private to :mod:`backfill.cli`.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from backfill._files import open_atomically
from backfill.cli._tables import DESCRIPTION, describe, markdown, mean_cell, percent_cell
from backfill.cli.options import CommandLineError, read_values
from backfill.errors import BackfillError
from backfill.experiments.sweep import ModelWorkload, TraceWorkload
from backfill.measures.trim import Trim
from backfill.schedulers.registry import non_negative_int_from_text

__all__ = [
    "plain_summary",
    "replicated_workloads",
    "replications_words",
    "summary_markdown",
    "write_summary_csv",
]


def replicated_workloads(
    args: argparse.Namespace, workloads: list[TraceWorkload | ModelWorkload]
) -> tuple[list[TraceWorkload | ModelWorkload], dict[str, str]]:
    """The workloads to simulate, and the configuration's workload label of each replication's.

    With ``--seeds``, every model workload once per seed (labelled ``LABEL seed=S``); with
    ``--windows N``, every log cut into N windows (labelled ``LABEL jobs A-B``); the two combine, each
    replicating the workloads of its kind, and a workload neither replicates is run once. Each is
    refused where no workload is of its kind. With
    ``--samples``, the workloads as given, all samples of one configuration. Empty without any.
    """
    seeds = read_values(args.seeds, _seed, "--seeds", "a seed")
    windows = _windows(args.windows)
    if (seeds or windows) and args.samples:
        given = "--seeds" if seeds else "--windows"
        raise CommandLineError(
            f"{given} and --samples: give one ({given} replicates each workload; --samples pools them)"
        )
    if windows and not any(isinstance(w, TraceWorkload) for w in workloads):
        raise CommandLineError("--windows cuts SWF or Batsim logs, and no log is given")
    if seeds and not any(isinstance(w, ModelWorkload) for w in workloads):
        # A log has no seed: without a model, --seeds would replicate nothing, silently.
        raise CommandLineError(
            "--seeds replicates the model workload, and no model is given (a log has no seed; "
            "--windows N replicates a log)"
        )
    if args.samples:
        if len(workloads) < 2:
            raise CommandLineError("--samples needs at least two workloads to pool")
        pooled = f"{len(workloads)} samples"
        return workloads, {w.label: pooled for w in workloads}
    if not (seeds or windows):
        return workloads, {}
    out: list[TraceWorkload | ModelWorkload] = []
    configuration_of: dict[str, str] = {}
    for w in workloads:
        if isinstance(w, TraceWorkload):
            # Without --windows a log is one replication, without an interval.
            parts = _cut(w, windows) if windows else (w,)
            configuration_of |= {p.label: f"{w.label} ({windows} windows)" for p in parts if windows}
            out.extend(parts)
            continue
        if not seeds:
            out.append(w)  # a model without --seeds: one replication
            continue
        if "seed=" in w.label:
            raise CommandLineError(f"workload {w.label!r} gives its seed; --seeds gives the seeds")
        for seed in seeds:
            replica = attrs.evolve(w, seed=seed, name=f"{w.label} seed={seed}")
            configuration_of[replica.label] = w.label
            out.append(replica)
    return out, configuration_of


def _windows(text: str | None) -> int:
    """``--windows``: an integer from 2 (one window is the whole log, no interval); 0 if not given."""
    if text is None:
        return 0
    try:
        n = int(text.strip())
    except ValueError:
        raise CommandLineError(f"--windows {text!r}: expected a whole number of windows, from 2") from None
    if n < 2:
        raise CommandLineError(f"--windows {text!r}: replications need at least 2 windows of each log")
    return n


def _cut(log: TraceWorkload, n: int) -> tuple[TraceWorkload, ...]:
    try:
        return log.windows(n)
    except BackfillError as e:
        raise CommandLineError(f"--windows {n}: {e}") from None


def _seed(text: str) -> int:
    return int(non_negative_int_from_text(text))


def replications_words(
    summary: list[dict[str, Any]],
    args: argparse.Namespace,
    workloads: Sequence[TraceWorkload | ModelWorkload],
) -> str:
    n = sorted({int(r["n"]) for r in summary if r["kind"] == "value"})
    shown = "/".join(str(k) for k in n)
    # Only what replicated a workload given: seeds without a model replicate nothing.
    seeded = args.seeds and any(isinstance(w, ModelWorkload) for w in workloads)
    hows = [f"seeds {', '.join(dict.fromkeys(args.seeds))}" if seeded and not args.samples else ""]
    hows.append(f"{args.windows.strip()} windows of each log" if args.windows else "")
    how = "; ".join(h for h in hows if h) or "the workloads given as samples"
    return (
        f"over {shown} replications per configuration ({how}): "
        "mean ± half-width of the 95 % Student-t confidence interval of the mean "
        "(sd: sample standard deviation):"
    )


def summary_markdown(summary: list[dict[str, Any]], metrics: Sequence[str], kind: str) -> str:
    """One line per configuration: n, then each metric's mean ± half-width and its deviation."""
    lines: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in summary:
        if r["kind"] == kind:
            lines.setdefault(tuple(r[c] for c in DESCRIPTION), {})[r["metric"]] = r
    show = (lambda m, v: percent_cell(v)) if kind == "improvement" else mean_cell
    rows = []
    for key, by_metric in lines.items():
        row = dict(zip(DESCRIPTION, key, strict=True))
        first = next(iter(by_metric.values()))
        cells = [*describe(row), str(int(first["n"]))]
        for m in metrics:
            r = by_metric[m]
            half = r["half_width"]
            mean = show(m, r["mean"])
            # One replication has a mean and no interval.
            cells.append(mean if half != half else f"{mean} ± {show(m, half).lstrip('+')}")
            cells.append(show(m, r["std"]).lstrip("+"))
        rows.append(cells)
    header = [*DESCRIPTION, "n"]
    for m in metrics:
        header += [m, "sd"]
    right = {DESCRIPTION.index("load"), *range(len(DESCRIPTION), len(header))}
    return markdown(header, rows, right)


_SUMMARY_COLUMNS = (*DESCRIPTION, "metric", "kind", "n", "mean", "std", "half_width", "low", "high")


def plain_summary(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}


def write_summary_csv(summary: list[dict[str, Any]], trim: Trim, path: Path) -> None:
    warmup, cooldown = trim.describe()
    with open_atomically(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[*_SUMMARY_COLUMNS, "warmup", "cooldown"], lineterminator="\n")
        writer.writeheader()
        for r in summary:
            fixed = {"n": int(r["n"]), "warmup": warmup, "cooldown": cooldown}
            writer.writerow({c: r[c] for c in _SUMMARY_COLUMNS} | fixed)
