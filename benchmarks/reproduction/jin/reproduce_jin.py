"""Reproduce Jin's thesis (2009, ch. 5): backfilling with fairness and slack against Conservative.

Compares plain Conservative backfilling with ``LookaheadSlack(goal=G1())`` and
``LookaheadSlack(goal=G2())`` (lookahead 20 and the slack parameters of the thesis's Table 3). The
Conservative baseline is ``LookaheadSlack(lookahead=0)``, which is exactly Conservative (checked
again here against ``Conservative()``) and records each job's fair start time (FST) too, so that all
three are measured the same way. Four kinds of cells:

* **model**: 10,000 Lublin-Feitelson jobs on 128 processors from the model's all-jobs parameter set
  (``job_class="all"``, whose arrival scale and job mix are the thesis's), exact estimates (the
  model has none), with the thesis's arrival shapes alpha = 10.05, 10.23, 10.33, 10.43, 10.73 as
  they are and its 11 seeds (Table 2);
* **scaled**: the W1 workloads (alpha = 10.23) with submit times divided so that each seed's offered
  load is 0.9 (``--loads``), above the thesis's heaviest workload;
* **trace**: archive traces as they are, with their users' estimates;
* **estimates**: W1 with f-model estimates (f = 3), and the traces with exact estimates, to tell the
  effect of the estimates from that of the workload.

Per cell and scheduler: mean relative response time (RR, cut-off ``--cutoff``) over all jobs and per
class (short < 10 min, medium < 3 h, long otherwise, as Scojo-PECT's classes), mean wait and bounded
slowdown, Jin's OverallUnfairness and SkipUnfairness against the scheduler's own FSTs, utilization
during high-load phases (at least ``--threshold`` jobs waiting) and overall, the lookahead counts and
wall seconds. Every schedule is validated. Each (workload, scheduler) cell runs in its own process
(``--workers``) and is cached as JSON under ``--cache``, so an interrupted run resumes. Usage::

    python benchmarks/reproduction/jin/reproduce_jin.py --workers 2 --output report.md  # the whole grid
    python benchmarks/reproduction/jin/reproduce_jin.py --seeds 71 3 --traces           # two seeds, no traces
    python benchmarks/reproduction/jin/reproduce_jin.py --loads 0.9 --alphas 10.23 --traces KTH-SP2-1996-2
    python benchmarks/reproduction/jin/reproduce_jin.py --report-only                   # what is cached

The thesis's §5.3 sweeps (lookahead depth, slack factor, the other slack parameters) are run by
``_jin_sweeps.py`` into the same cache; ``_checks_jin.py`` turns both into the page's rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import (
    DEFAULT_TRACE_DIR,
    RESULTS,
    load_result,
    markdown,
    markdown_split,
    save_result,
    write_report,
)

from backfill import (
    G1,
    G2,
    Conservative,
    LookaheadSlack,
    Workload,
    high_load_phases,
    high_load_utilization,
    lublin_feitelson,
    read_swf,
    relative_response_times,
    simulate,
    skip_unfairness,
    summarize,
    unfairness,
    validate_schedule,
)
from backfill.measures.metrics import percent_improvement
from backfill.simulator import Simulator

DEFAULT_CACHE = RESULTS / "jin"

JOBS = 10_000
MACHINE = 128
#: Table 2: the arrival shapes, by the thesis's workload names.
ALPHAS: dict[float, str] = {10.05: "W4", 10.23: "W1", 10.33: "W2", 10.43: "W3", 10.73: "W3"}
SEEDS = (71, 3, 7, 13, 23, 31, 35, 70, 73, 99, 103)
W1_ALPHA = 10.23
LOADS = (0.9,)
TRACES = ("CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln", "KTH-SP2-1996-2")
#: Scojo-PECT's job classes (§5.1): short < 10 minutes, medium < 3 hours, long otherwise.
SHORT, MEDIUM = 600.0, 10_800.0
HLU = "high_load_utilization"

SCHEDULERS: dict[str, Callable[[], LookaheadSlack]] = {
    "Conservative": lambda: LookaheadSlack(lookahead=0),
    "G1": lambda: LookaheadSlack(goal=G1()),
    "G2": lambda: LookaheadSlack(goal=G2()),
}

#: The thesis's improvements of RR over Conservative, percent (all, medium, long), from the text of
#: §5.2 (Fig. 9, 10) and §5.4 (Fig. 17-22). W2 (alpha 10.33) appears only in the bar charts of
#: Fig. 23 and 24, whose values the text does not give.
THESIS: dict[float, dict[str, tuple[float, float, float]]] = {
    10.23: {"G1": (6.92, 7.89, 10.49), "G2": (8.13, 11.99, 9.73)},
    10.05: {"G1": (5.8, 7.59, 8.17), "G2": (5.05, 9.86, 7.48)},
    10.43: {"G1": (3.74, 4.7, 5.32), "G2": (4.51, 7.9, 3.31)},
    10.73: {"G1": (3.78, 7.32, 3.12), "G2": (4.76, 8.76, 4.69)},
}
#: Table 4: the utilization of the thesis's runs (W1 is not given).
THESIS_UTILIZATION = {10.05: 0.8529, 10.33: 0.7643, 10.43: 0.7190, 10.73: 0.6329}
FIGURES = {10.23: "Fig. 9, 10", 10.05: "Fig. 21, 22", 10.43: "Fig. 17, 18", 10.73: "Fig. 19, 20"}


# --- workloads --------------------------------------------------------------------------------------


def scale_to(w: Workload, target: float) -> tuple[Workload, float]:
    """Return ``w`` scaled to an offered load of ``target`` (within 0.01 %), and the factor.

    ``offered_load`` divides the area by the span from the first submit to the last submit plus
    runtime; scaling divides the submit times only, so ``target / load`` falls a little short when
    the last job is long. A fixed-point iteration on the factor corrects it.
    """
    factor = target / w.offered_load()
    for _ in range(50):
        got = w.scaled(factor).offered_load()
        if abs(got / target - 1) < 1e-4:
            break
        factor *= target / got
    return w.scaled(factor), factor


def model_workload(
    alpha: float, seed: int, load: float | None, estimates: str
) -> tuple[Workload, dict[str, float]]:
    w = lublin_feitelson(
        JOBS,
        machine_size=MACHINE,
        seed=seed,
        job_class="all",
        arrival_shape=alpha,
        estimates="f-model" if estimates == "f-model" else "accurate",
    )
    info = {"base_load": w.offered_load(), "factor": 1.0}
    if load is not None:
        w, info["factor"] = scale_to(w, load)
    info["offered_load"] = w.offered_load()
    return w, info


def trace_workload(trace_dir: str, stem: str, estimates: str) -> tuple[Workload, dict[str, float]]:
    w = read_swf(Path(trace_dir) / f"{stem}.swf.gz")[0]
    if estimates == "exact":
        w = w.with_exact_estimates()
    return w, {"base_load": w.offered_load(), "factor": 1.0, "offered_load": w.offered_load()}


# --- one cell -----------------------------------------------------------------------------------------


def cell_name(cell: tuple[Any, ...], spec: str, threshold: float, cutoff: float) -> str:
    if cell[0] == "trace":
        _, stem, estimates = cell
        base = f"trace_{stem}_{estimates}"
    else:
        _, alpha, seed, load, estimates = cell
        base = f"model_all_n{JOBS}_a{alpha:.2f}_s{seed}_" + ("base" if load is None else f"L{load:.2f}")
        base += f"_{estimates}"
    return f"{base}__{spec}__nh{threshold:g}_c{cutoff:g}"


def characteristics(w: Workload) -> dict[str, float]:
    """The shares of Jin's Table 2: jobs and work per class, serial jobs, powers of two among parallel."""
    runtime = np.maximum(w.column("runtime").astype(np.float64), 0.0)
    width = w.column("processors").astype(np.int64)
    area = runtime * width
    classes = {"short": runtime < SHORT, "medium": (runtime >= SHORT) & (runtime < MEDIUM)}
    classes["long"] = runtime >= MEDIUM
    out = {}
    for name, mask in classes.items():
        out[f"jobs_share_{name}"] = float(mask.mean())
        out[f"work_share_{name}"] = float(area[mask].sum() / area.sum())
    parallel = width > 1
    out["serial_share"] = float((width == 1).mean())
    out["pow2_share"] = float(((width[parallel] & (width[parallel] - 1)) == 0).mean())
    return out


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else float("nan")


def class_masks(runtime: np.ndarray) -> dict[str, np.ndarray]:
    """Which of the jobs with these runtimes are in each of the thesis's classes (Table 2), and all."""
    return {
        "all": np.ones(runtime.size, dtype=bool),
        "short": runtime < SHORT,
        "medium": (runtime >= SHORT) & (runtime < MEDIUM),
        "long": runtime >= MEDIUM,
    }


def run_cell(
    cell: tuple[Any, ...], spec: str, trace_dir: str, threshold: float, cutoff: float
) -> dict[str, Any]:
    """Simulate one workload under one scheduler and measure it (runs in a worker process)."""
    if cell[0] == "trace":
        w, info = trace_workload(trace_dir, *cell[1:])
    else:
        w, info = model_workload(*cell[1:])
    scheduler = SCHEDULERS[spec]()
    t0 = time.perf_counter()
    # Simulator drives the very object passed in (simulate() does too), so its FSTs can be read after.
    s = Simulator(w, scheduler, record_reservations=False).run()
    seconds = time.perf_counter() - t0
    validate_schedule(s)
    started = np.isfinite(s.start)
    fair = scheduler.fair_starts()
    if len(fair) != int(started.sum()):
        raise RuntimeError(
            f"{len(fair)} FSTs for {int(started.sum())} scheduled jobs: not the run's scheduler"
        )
    fst = np.array([fair.get(i, np.nan) for i in w.column("id").tolist()], dtype=np.float64)
    if np.isnan(fst[started]).any():
        raise RuntimeError("a scheduled job has no FST")
    out: dict[str, Any] = {"cell": list(cell), "scheduler": spec, "jobs": len(w), **info}
    out["rejected"] = len(s.rejected)
    out["seconds"] = seconds
    if spec == "Conservative":
        plain = simulate(w, Conservative(), record_reservations=False)
        out["same_as_conservative"] = bool(np.array_equal(plain.start, s.start, equal_nan=True))

    out |= characteristics(w)

    done = started & np.isfinite(s.end)
    runtime = s.runtime[done]
    rr = relative_response_times(s, cutoff)
    wait = (s.start - s.submit)[done]
    for name, mask in class_masks(runtime).items():
        out[f"rr_{name}"] = _mean(rr[mask])
        out[f"wait_{name}"] = _mean(wait[mask])
        out[f"n_{name}"] = int(mask.sum())
    summary = summarize(s, bound=cutoff)
    out["mean_wait"] = summary["mean_wait"]
    out["mean_bsld"] = summary["mean_bsld"]
    out["utilization"] = summary["utilization"]
    out["overall_unfairness"] = unfairness(s, fst)
    out["skip_unfairness"] = skip_unfairness(s, fst)
    late = (s.start - fst)[done]
    out["late_jobs"] = int((late > 0).sum())
    out["late_mean"] = _mean(late[late > 0])
    out["early_jobs"] = int((late < 0).sum())
    out["early_mean"] = _mean(-late[late < 0])
    phases = high_load_phases(s, threshold)
    span = float(np.nanmax(s.end) - np.nanmin(s.submit))
    out["high_load_share"] = float(np.sum(phases[:, 1] - phases[:, 0]) / span) if span > 0 else 0.0
    out["high_load_utilization"] = high_load_utilization(s, threshold)
    out |= scheduler.lookahead_stats()
    return out


# --- the report ---------------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{x:+.2f}" if np.isfinite(x) else "n/a"


def _improvement(
    cells: list[dict[str, dict[str, Any]]], spec: str, key: str
) -> tuple[float, int, float, float]:
    """Improvement of the seed-mean, seeds improved, and the range of the per-seed improvements."""
    base = float(np.mean([c["Conservative"][key] for c in cells]))
    other = float(np.mean([c[spec][key] for c in cells]))
    each = [percent_improvement(c["Conservative"][key], c[spec][key]) for c in cells]
    better = sum(1 for c in cells if c[spec][key] < c["Conservative"][key])
    return percent_improvement(base, other), better, min(each), max(each)


def _groups(results: dict[tuple[Any, ...], dict[str, dict[str, Any]]]) -> list[tuple[str, list[Any]]]:
    """The rows of the report: (label, the complete cells of that row), in the report's order."""
    rows: list[tuple[str, list[Any]]] = []

    def complete(keys: list[tuple[Any, ...]]) -> list[dict[str, dict[str, Any]]]:
        return [results[k] for k in keys if k in results and all(s in results[k] for s in SCHEDULERS)]

    model = {(k[1], k[3], k[4]) for k in results if k[0] == "model"}
    for alpha, load, estimates in sorted(model, key=lambda x: (x[2] != "exact", x[1] or 0, x[0])):
        keys = [k for k in results if k[0] == "model" and k[1:2] + k[3:] == (alpha, load, estimates)]
        label = f"alpha {alpha:.2f} ({ALPHAS.get(alpha, '?')})"
        label += "" if load is None else f" at load {load:.1f}"
        label += "" if estimates == "exact" else f", {estimates} estimates"
        rows.append((label, complete(keys)))
    for k in sorted(k for k in results if k[0] == "trace"):
        rows.append((k[1] + ("" if k[2] == "user" else f", {k[2]} estimates"), complete([k])))
    return [(label, cells) for label, cells in rows if cells]


def rr_table(groups: list[tuple[str, list[Any]]]) -> str:
    header = ["workload", "seeds", "offered load", "Cons. RR all"]
    for spec in ("G1", "G2"):
        header += [
            f"{spec} all",
            f"{spec} medium",
            f"{spec} long",
            f"{spec} short",
            f"{spec} seeds better (all)",
        ]
    rows = []
    for label, cells in groups:
        load = np.mean([c["Conservative"]["offered_load"] for c in cells])
        row = [
            label,
            str(len(cells)),
            f"{load:.3f}",
            f"{np.mean([c['Conservative']['rr_all'] for c in cells]):.2f}",
        ]
        for spec in ("G1", "G2"):
            for cls in ("all", "medium", "long", "short"):
                row.append(_pct(_improvement(cells, spec, f"rr_{cls}")[0]))
            _, better, low, high = _improvement(cells, spec, "rr_all")
            row.append(
                f"{better}/{len(cells)} ({low:+.1f} to {high:+.1f})" if len(cells) > 1 else f"{better}/1"
            )
        rows.append(row)
    return markdown_split(header, rows, [3, 5, 5])


def seeds_table(groups: list[tuple[str, list[Any]]]) -> str:
    """How many seeds each scheduler improved, per measure, and how often G2 beat G1."""

    def count(cells: list[Any], test: Callable[[dict[str, dict[str, Any]]], bool]) -> str:
        return f"{sum(1 for c in cells if test(c))}/{len(cells)}"

    header = ["workload"]
    for spec in ("G1", "G2"):
        header += [f"{spec} RR all", f"{spec} RR medium", f"{spec} RR long", f"{spec} wait"]
        header += [f"{spec} high-load util. higher"]
    header += ["G2 RR all < G1's"]
    rows = []
    for label, cells in groups:
        row = [label]
        for spec in ("G1", "G2"):
            for key in ("rr_all", "rr_medium", "rr_long", "mean_wait"):
                row.append(count(cells, lambda c, k=key, s=spec: c[s][k] < c["Conservative"][k]))
            row.append(count(cells, lambda c, s=spec: c[s][HLU] > c["Conservative"][HLU]))
        row.append(count(cells, lambda c: c["G2"]["rr_all"] < c["G1"]["rr_all"]))
        rows.append(row)
    return markdown(header, rows)


def other_table(groups: list[tuple[str, list[Any]]]) -> str:
    header = ["workload", "Cons. wait (h)", "G1 wait", "G2 wait", "Cons. bsld", "G1 bsld", "G2 bsld"]
    header += ["G1 wait short", "G2 wait short", "Cons. wait medium (h)", "G1 wait medium", "G2 wait medium"]
    header += ["G1 wait long", "G2 wait long"]
    rows = []
    for label, cells in groups:
        base = np.mean([c["Conservative"]["mean_wait"] for c in cells])
        bsld = np.mean([c["Conservative"]["mean_bsld"] for c in cells])
        medium = np.mean([c["Conservative"]["wait_medium"] for c in cells])
        rows.append(
            [
                label,
                f"{base / 3600:.2f}",
                *(_pct(_improvement(cells, s, "mean_wait")[0]) for s in ("G1", "G2")),
                f"{bsld:.1f}",
                *(_pct(_improvement(cells, s, "mean_bsld")[0]) for s in ("G1", "G2")),
                *(_pct(_improvement(cells, s, "wait_short")[0]) for s in ("G1", "G2")),
                f"{medium / 3600:.2f}",
                *(_pct(_improvement(cells, s, "wait_medium")[0]) for s in ("G1", "G2")),
                *(_pct(_improvement(cells, s, "wait_long")[0]) for s in ("G1", "G2")),
            ]
        )
    return markdown_split(header, rows, [6, 7])


def workload_table(groups: list[tuple[str, list[Any]]]) -> str:
    """Table 2's characteristics of our workloads (the same for every load of one seed)."""
    header = ["workload", "short jobs", "medium jobs", "long jobs", "short work", "medium work"]
    header += ["long work", "serial", "powers of 2 among parallel"]
    keys = ["jobs_share_short", "jobs_share_medium", "jobs_share_long", "work_share_short"]
    keys += ["work_share_medium", "work_share_long", "serial_share", "pow2_share"]
    rows = [["Jin's Table 2", "64%", "19.5%", "16.5%", "0.5%", "26.0%", "73.5%", "24%", "75%"]]
    seen: set[str] = set()
    for label, cells in groups:
        name = "model (every alpha and load)" if label.startswith("alpha") else label.split(",")[0]
        if name in seen:
            continue
        seen.add(name)
        rows.append([name, *(f"{100 * _avg(cells, 'Conservative', k):.1f}%" for k in keys)])
    return markdown(header, rows)


def _avg(cells: list[Any], spec: str, key: str) -> float:
    values = np.array([c[spec][key] for c in cells], dtype=np.float64)
    return float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")


def fairness_table(groups: list[tuple[str, list[Any]]]) -> str:
    header = ["workload"]
    header += [f"{s} overall (s)" for s in SCHEDULERS] + [f"{s} skip (s)" for s in SCHEDULERS]
    header += ["G1 late jobs", "G1 mean late (s)", "G2 late jobs", "G2 mean late (s)"]
    header += ["Cons. early jobs", "G1 early jobs", "G2 early jobs"]
    rows = []
    for label, cells in groups:
        row = [label]
        row += [f"{_avg(cells, s, 'overall_unfairness'):,.0f}" for s in SCHEDULERS]
        row += [f"{_avg(cells, s, 'skip_unfairness'):,.0f}" for s in SCHEDULERS]
        for s in ("G1", "G2"):
            row += [f"{_avg(cells, s, 'late_jobs'):,.1f}", f"{_avg(cells, s, 'late_mean'):,.0f}"]
        row += [f"{_avg(cells, s, 'early_jobs'):,.1f}" for s in SCHEDULERS]
        rows.append(row)
    return markdown_split(header, rows, [6, 4, 3])


def utilization_table(groups: list[tuple[str, list[Any]]]) -> str:
    header = ["workload", "high-load share of time (Cons.)"]
    header += [f"{s} high-load util." for s in SCHEDULERS] + [f"{s} util." for s in SCHEDULERS]
    header += ["G1 packings", "G1 jobs", "G2 packings", "G2 jobs", "G1 sets per search", "G2 sets per search"]
    header += [f"{s} s" for s in SCHEDULERS]
    rows = []
    for label, cells in groups:
        row = [label, f"{100 * _avg(cells, 'Conservative', 'high_load_share'):.1f}%"]
        row += [f"{100 * _avg(cells, s, 'high_load_utilization'):.2f}%" for s in SCHEDULERS]
        row += [f"{100 * _avg(cells, s, 'utilization'):.2f}%" for s in SCHEDULERS]
        for s in ("G1", "G2"):
            row += [f"{_avg(cells, s, 'packings_started'):.0f}", f"{_avg(cells, s, 'jobs_started'):.0f}"]
        row += [f"{_avg(cells, s, 'sets_tried') / _avg(cells, s, 'searches'):.1f}" for s in ("G1", "G2")]
        row += [f"{_avg(cells, s, 'seconds'):.1f}" for s in SCHEDULERS]
        rows.append(row)
    return markdown_split(header, rows, [7, 6, 3])


def thesis_table(results: dict[tuple[Any, ...], dict[str, dict[str, Any]]]) -> str:
    """The thesis's improvements in RR beside ours at the same alpha, with both utilizations."""
    rows = []
    for alpha, figures in THESIS.items():
        keys = [k for k in results if k[0] == "model" and k[1:2] + k[3:] == (alpha, None, "exact")]
        cells = [results[k] for k in keys if all(s in results[k] for s in SCHEDULERS)]
        util = THESIS_UTILIZATION.get(alpha)
        for spec, thesis in figures.items():
            row = [
                f"alpha {alpha:.2f} ({ALPHAS[alpha]}), {FIGURES[alpha]}",
                spec,
                "n/a" if util is None else f"{100 * util:.0f}%",
                " / ".join(f"{x:.2f}" for x in thesis),
            ]
            if cells:
                ours = [_improvement(cells, spec, f"rr_{c}")[0] for c in ("all", "medium", "long")]
                better = _improvement(cells, spec, "rr_all")[1]
                row += [
                    f"{100 * _avg(cells, 'Conservative', 'utilization'):.0f}%",
                    f"{_avg(cells, 'Conservative', 'offered_load'):.2f}",
                    " / ".join(f"{x:+.2f}" for x in ours) + f" ({better}/{len(cells)})",
                ]
            else:
                row += ["", "", ""]
            rows.append(row)
    header = [
        "thesis workload",
        "goal",
        "thesis utilization",
        "thesis: all / medium / long %",
        "our utilization (Cons.)",
        "our offered load",
        "ours: all / medium / long % (seeds better)",
    ]
    return markdown(header, rows)


def report(results: dict[tuple[Any, ...], dict[str, dict[str, Any]]], args: argparse.Namespace) -> str:
    groups = _groups(results)
    seconds = sum(c["seconds"] for r in results.values() for c in r.values())
    same = [c.get("same_as_conservative") for r in results.values() for c in r.values()]
    checked = [x for x in same if x is not None]
    parts = [
        f"{sum(len(r) for r in results.values())} schedules, all validated; {seconds:.0f} s of simulation "
        f"in all. RR cut-off {args.cutoff:g} s; high-load phases: at least {args.threshold:g} jobs waiting. "
        f"LookaheadSlack(lookahead=0) gave the same start times as Conservative() in "
        f"{sum(checked)}/{len(checked)} workloads.",
        "Improvement = (Conservative - other) / Conservative x 100 of the mean over seeds "
        "(positive: better than Conservative); 'seeds better' counts the seeds whose own mean RR over "
        "all jobs improved, with the range of the per-seed improvements.",
        "## Workload characteristics beside the thesis's Table 2 (mean over seeds)",
        workload_table(groups),
        "## The thesis's improvements in RR beside ours",
        thesis_table(results),
        "## RR: percent improvement over Conservative",
        rr_table(groups),
        "## Seeds on which G1 and G2 beat Conservative, per measure",
        seeds_table(groups),
        "## Wait and bounded slowdown: percent improvement over Conservative",
        other_table(groups),
        "## Unfairness against each scheduler's own FSTs "
        "(OverallUnfairness, SkipUnfairness: mean over all jobs)",
        fairness_table(groups),
        "## Utilization in high-load phases and overall; lookahead counts and sets tried per search; "
        "wall seconds per run",
        utilization_table(groups),
    ]
    return "\n\n".join(parts) + "\n"


# --- main ---------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command line of :func:`main`; its defaults are the whole grid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--traces", nargs="*", default=list(TRACES), help="file stems (none: no traces)")
    parser.add_argument("--seeds", nargs="*", type=int, default=list(SEEDS))
    parser.add_argument("--alphas", nargs="*", type=float, default=list(ALPHAS), help="thesis arrival shapes")
    parser.add_argument(
        "--loads", nargs="*", type=float, default=list(LOADS), help="offered loads of scaled W1"
    )
    parser.add_argument(
        "--fmodel-loads",
        nargs="*",
        type=float,
        default=[],
        help="offered loads at which W1 also runs with f-model estimates (f = 3), besides its own",
    )
    parser.add_argument(
        "--trace-estimates",
        nargs="+",
        default=["user", "exact"],
        choices=["user", "exact"],
        help="run the traces with their users' estimates, exact ones, or both",
    )
    parser.add_argument(
        "--threshold", type=float, default=10.0, help="N_H: waiting jobs of a high-load phase"
    )
    parser.add_argument("--cutoff", type=float, default=10.0, help="RR cut-off for very short jobs (s)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--output", type=Path, help="write the markdown report here (default: stdout)")
    parser.add_argument("--report-only", action="store_true", help="report the cached cells, run nothing")
    return parser


def collect(args: argparse.Namespace) -> dict[tuple[Any, ...], dict[str, dict[str, Any]]]:
    """Read the grid's cached cells and, unless ``args.report_only``, simulate and cache the missing ones.

    Trace cells whose trace is not in ``args.trace_dir`` are only read from the cache.
    """
    cells: list[tuple[Any, ...]] = [("model", a, s, None, "exact") for a in args.alphas for s in args.seeds]
    cells += [("model", W1_ALPHA, s, load, "exact") for load in args.loads for s in args.seeds]
    fmodel_loads = [None, *args.fmodel_loads]
    cells += [("model", W1_ALPHA, s, load, "f-model") for load in fmodel_loads for s in args.seeds]
    cells += [("trace", stem, e) for e in args.trace_estimates for stem in args.traces]
    results: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    todo = []
    for cell in cells:
        for spec in SCHEDULERS:
            path = args.cache / f"{cell_name(cell, spec, args.threshold, args.cutoff)}.json"
            if path.exists():
                results.setdefault(cell, {})[spec] = load_result(path)
            elif not args.report_only and (
                cell[0] == "model" or (args.trace_dir / f"{cell[1]}.swf.gz").exists()
            ):
                todo.append((cell, spec))
    # Model cells first (short), traces last, so that a partial run already gives whole rows.
    todo.sort(key=lambda item: item[0][0] == "trace")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = {
            pool.submit(run_cell, cell, spec, str(args.trace_dir), args.threshold, args.cutoff): (cell, spec)
            for cell, spec in todo
        }
        for n, future in enumerate(as_completed(futures), 1):
            cell, spec = futures[future]
            out = future.result()
            path = args.cache / f"{cell_name(cell, spec, args.threshold, args.cutoff)}.json"
            out = save_result(path, out)
            results.setdefault(cell, {})[spec] = out
            print(
                f"[{n}/{len(todo)} {time.perf_counter() - started:6.0f} s] "
                f"{cell_name(cell, spec, args.threshold, args.cutoff):55} {out['seconds']:6.1f} s",
                file=sys.stderr,
                flush=True,
            )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for stem in args.traces:
        if not (args.trace_dir / f"{stem}.swf.gz").exists():
            parser.error(f"trace {stem} not found in {args.trace_dir}")
    args.cache.mkdir(parents=True, exist_ok=True)
    results = collect(args)
    write_report(report(results, args), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
