"""Srinivasan et al. (2002): the experiments beside the (trace, load, estimates) groups.

* Fig. 7: the fairness buckets of Table 9 per runtime class (<= 15 min, 15 min-1 h, 1-4 h, 4-16 h,
  > 16 h), for FCFS-EASY, Sel, Sel-D and SJF-EASY, one cell per trace at high load with exact
  estimates (``fig7__<trace>__x1.2__exact.json``).
* §2.1: the paper says the trends of §3 (Fig. 1) stay when the category boundaries change. One cell per
  trace at normal load with exact estimates (``boundaries__<trace>__x1__exact.json``) keeps the
  per-category averages of Conservative and EASY for every pair of boundaries: short up to 15 min, 1 h
  or 4 h, narrow up to half, once or twice the paper's width boundary.
* The offered load of each trace at each load factor (``offered_loads.json``), a trace fact the page
  quotes, kept so that ``--cached`` reads no trace.

Each cell is computed only when missing and ``run`` is set, and saved with ``save_result``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from _common import cached_result, load_result, markdown, save_result
from reproduce_srinivasan import BUCKETS, DEFAULT_LOADS, TRACES

from backfill import (
    EASY,
    Conservative,
    Scheduler,
    Selective,
    category_thresholds,
    fairness_buckets,
    per_category,
    read_swf,
    simulate,
    srinivasan_fair_starts,
    starvation_threshold,
    validate_schedule,
)
from backfill.measures.groups import runtime_class_labels
from backfill.schedulers.machinery.priorities import sjf

HIGH, NORMAL = max(DEFAULT_LOADS), min(DEFAULT_LOADS)

#: The schemes of Fig. 7 (and Table 9), in its order, with Conservative, the reference.
FIG7_SCHEMES = ("Conservative", "EASY", "Sel", "Sel-D", "SJF-EASY")

#: Fig. 7's runtime classes, in the paper's order (the results keep them as JSON objects with sorted keys).
CLASSES = runtime_class_labels()

#: The runtime boundaries of a short job tried in §2.1's experiment (seconds), the paper's 1 h among them.
RUNTIME_BOUNDARIES = (900.0, 3600.0, 14400.0)
#: The width boundaries tried, as multiples of the paper's (8 processors, 64 on LANL).
WIDTH_FACTORS = (0.5, 1.0, 2.0)


def _workload(trace_dir: Path, stem: str, load: float) -> Any:
    workload, _ = read_swf(trace_dir / f"{stem}.swf.gz")
    return workload.with_exact_estimates().scaled(load)


def run_fig7(trace_dir: Path, stem: str, width_boundary: int, load: float = HIGH) -> dict[str, Any]:
    """Fairness buckets per runtime class of each Fig. 7 scheme on one trace, exact estimates."""
    workload = _workload(trace_dir, stem, load)
    reference = simulate(workload, Conservative(), record_reservations=True)
    validate_schedule(reference)
    fair = srinivasan_fair_starts(reference)
    schedulers: dict[str, Scheduler] = {
        "EASY": EASY(),
        "Sel": Selective(starvation_threshold(reference)),
        "Sel-D": Selective(category_thresholds(reference, width_boundary=width_boundary)),
        "SJF-EASY": EASY(sjf),
    }
    buckets, counts = {}, {}
    for name in FIG7_SCHEMES:
        schedule = reference if name == "Conservative" else simulate(workload, schedulers[name])
        validate_schedule(schedule)
        table = fairness_buckets(schedule, fair)
        buckets[name] = table.as_dict()
        counts[name] = dict(zip(table.groups, table.counts.tolist(), strict=True))
    return {"trace": stem, "load": load, "estimates": "exact", "buckets": buckets, "counts": counts}


def _boundary_key(runtime: float, width: int) -> str:
    return f"{runtime:g}s/{width}"


def run_boundaries(trace_dir: Path, stem: str, width_boundary: int, load: float = NORMAL) -> dict[str, Any]:
    """Per-category averages of Conservative and EASY for every pair of boundaries, exact estimates."""
    workload = _workload(trace_dir, stem, load)
    schedules = {"Conservative": simulate(workload, Conservative()), "EASY": simulate(workload, EASY())}
    figures: dict[str, Any] = {}
    for runtime in RUNTIME_BOUNDARIES:
        for factor in WIDTH_FACTORS:
            width = int(width_boundary * factor)
            figures[_boundary_key(runtime, width)] = {
                name: {
                    c: {k: g[k] for k in ("jobs", "mean_bsld", "mean_response")}
                    for c, g in per_category(s, runtime_boundary=runtime, width_boundary=width).items()
                }
                for name, s in schedules.items()
            }
    return {"trace": stem, "load": load, "estimates": "exact", "width_boundary": width_boundary} | {
        "figures": figures
    }


def _collect(
    cache: Path, prefix: str, load: float, run: bool, compute: Any, trace_dir: Path
) -> dict[str, Any]:
    """The cells of one experiment by paper trace name, computing the missing ones when ``run``."""
    out = {}
    for name, stem, wb, *_ in TRACES:
        path = cache / f"{prefix}__{stem}__x{load:g}__exact.json"
        if path.exists():
            out[name] = load_result(path)
        elif run:
            out[name] = save_result(path, compute(trace_dir, stem, wb, load))
            print(f"{path.stem}", file=sys.stderr, flush=True)
    return out


def fig7_cells(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, Any]:
    """The Fig. 7 cells by paper trace name (SDSC is the paper's), computed when missing and ``run``."""
    return _collect(cache, "fig7", HIGH, run, run_fig7, trace_dir)


def boundary_cells(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, Any]:
    """The §2.1 cells by paper trace name, computed when missing and ``run``."""
    return _collect(cache, "boundaries", NORMAL, run, run_boundaries, trace_dir)


def offered_loads(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, dict[str, float]] | None:
    """The offered load of each paper trace at each load factor, kept in ``offered_loads.json``."""

    def compute() -> dict[str, Any]:
        out = {}
        for name, stem, *_ in TRACES:
            workload, _ = read_swf(trace_dir / f"{stem}.swf.gz")
            out[name] = {f"{x:g}": workload.scaled(x).offered_load() for x in DEFAULT_LOADS}
        return {"offered": out}

    kept = cached_result(cache / "offered_loads.json", compute, run=run)
    return None if kept is None else kept["offered"]


def boundary_keys(cell: dict[str, Any]) -> list[str]:
    """The boundary pairs of a §2.1 cell, shortest first and narrowest first within each."""
    wb = cell["width_boundary"]
    return [_boundary_key(r, int(wb * x)) for r in RUNTIME_BOUNDARIES for x in WIDTH_FACTORS]


def alternative_boundaries(cell: dict[str, Any]) -> list[str]:
    """The boundary pairs of a §2.1 cell other than the paper's (1 h, the trace's width boundary)."""
    paper = _boundary_key(3600.0, cell["width_boundary"])
    return [k for k in boundary_keys(cell) if k != paper]


def unfair_counts(cell: dict[str, Any], scheme: str) -> dict[str, float]:
    """The number of jobs of each runtime class whose slowdown exceeds their fair slowdown."""
    shares, counts = cell["buckets"][scheme], cell["counts"][scheme]
    return {g: counts[g] * (100.0 - shares[g]["<=1"]) / 100.0 for g in CLASSES}


def fig7_table(cells: dict[str, Any]) -> str:
    """Percent of each runtime class's jobs in each unfair bucket, per trace and scheme (Fig. 7)."""
    if not cells:
        return "Not measured yet: no Fig. 7 cell in the results."
    rows = []
    for name, cell in cells.items():
        for scheme in FIG7_SCHEMES[1:]:
            for group in CLASSES:
                shares = cell["buckets"][scheme][group]
                jobs = cell["counts"][scheme][group]
                rows.append([name, scheme, group, f"{jobs:,}", *(f"{shares[k]:.2f}" for k in BUCKETS)])
    return markdown(["trace", "scheduler", "runtime", "jobs", *BUCKETS], rows, right=3)


def boundaries_table(cells: dict[str, Any]) -> str:
    """EASY's change (%) over Conservative of the SW and LN averages for each pair of boundaries."""
    if not cells:
        return "Not measured yet: no §2.1 cell in the results."
    rows = []
    for name, cell in cells.items():
        for key in boundary_keys(cell):
            figures = cell["figures"][key]
            runtime, width = key.split("/")
            row = [name, f"{float(runtime[:-1]) / 3600:g} h", width]
            for cat in ("SW", "LN"):
                base, easy = figures["Conservative"][cat], figures["EASY"][cat]
                row.append(f"{int(base['jobs']):,}")
                for metric in ("mean_bsld", "mean_response"):
                    row.append(f"{100 * (easy[metric] - base[metric]) / base[metric]:+.1f}")
            rows.append(row)
    header = ["trace", "short <=", "narrow <="]
    for cat in ("SW", "LN"):
        header += [f"{cat} jobs", f"{cat} slowdown", f"{cat} turnaround"]
    return markdown(header, rows, right=3)


def offered_table(offered: dict[str, dict[str, float]] | None) -> str:
    if offered is None:
        return "Not measured yet: `offered_loads.json` is not in the results."
    loads = [f"{x:g}" for x in DEFAULT_LOADS]
    rows = [[name, *(f"{offered[name][x]:.2f}" for x in loads)] for name in offered]
    return markdown(["trace", *(f"x{x}" for x in loads)], rows)
