"""Reproduce Srinivasan et al. (2002) Tables 3-9 and Fig. 1-6 on the archive traces we have.

For CTC, SDSC, KTH and LANL (the paper's four traces), at several load factors (submit times divided
by the factor, as the paper raises the load) and with exact and with user estimates, simulates
Conservative, EASY, SJF-EASY and the Selective family, all FCFS unless named otherwise:

* ``Sel`` and ``Sel-D``: Selective with the threshold calibrated from that same Conservative run
  (:func:`~backfill.starvation_threshold` and :func:`~backfill.category_thresholds`, which with user
  estimates average only well-estimated jobs, as the paper's §4.3 does);
* ``Sel-A`` and ``Sel-A1.5``: the adaptive threshold (running mean slowdown of completed jobs) and its
  scaled variant (x 1.5), which need no previous run.

Every schedule is validated and the guarantees of Conservative and of promoted jobs are checked. The
report gives the category shares (Tables 3-6), the per-category change of average bounded slowdown,
turnaround and worst-case slowdown relative to Conservative (Fig. 1-3, 5), the overall change per load
(Fig. 4, 6), the calibrated thresholds (Tables 7, 8) and the fairness buckets against the
FCFS-Conservative fair start (Table 9). Each (trace, load, estimates) group runs in its own process
(``--workers``) and is cached as JSON under ``--cache``, so an interrupted run resumes. Usage::

    python benchmarks/reproduction/srinivasan/reproduce_srinivasan.py --output report.md
    python benchmarks/reproduction/srinivasan/reproduce_srinivasan.py --traces SDSC-SP2-1998-4.2-cln \
        --loads 1.0 1.2
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import (
    DEFAULT_TRACE_DIR,
    RESULTS,
    cached_result,
    load_result,
    markdown,
    save_result,
    write_report,
)

from backfill import (
    EASY,
    AdaptiveThreshold,
    Conservative,
    Scheduler,
    Selective,
    category_shares,
    category_thresholds,
    fairness_buckets,
    per_category,
    read_swf,
    simulate,
    srinivasan_fair_starts,
    starvation_threshold,
    summarize,
    validate_schedule,
)
from backfill.measures.groups import CATEGORIES
from backfill.measures.metrics import percent_improvement
from backfill.schedulers.machinery.priorities import sjf
from backfill.testing import check_guarantees

DEFAULT_CACHE = RESULTS / "srinivasan"

#: (paper name, file stem, width boundary of a narrow job, the paper's shares SN/SW/LN/LW in percent,
#: whether the paper had user estimates). LANL's boundary is 64 processors (Table 2) and the paper
#: had no user estimates for it.
TRACES: tuple[tuple[str, str, int, tuple[float, float, float, float], bool], ...] = (
    ("CTC", "CTC-SP2-1996-3.1-cln", 8, (45.06, 11.84, 30.26, 12.84), True),
    ("SDSC", "SDSC-SP2-1998-4.2-cln", 8, (47.24, 21.44, 20.94, 10.38), True),
    ("KTH", "KTH-SP2-1996-2", 8, (53.78, 19.52, 16.50, 10.20), True),
    ("LANL", "LANL-CM5-1994-4.1-cln", 64, (70.80, 11.72, 9.42, 8.06), False),
)

SCHEDULERS = ("Conservative", "EASY", "SJF-EASY", "Sel", "Sel-D", "Sel-A", "Sel-A1.5")
COMPARED = SCHEDULERS[1:]
DEFAULT_LOADS = (1.0, 1.1, 1.2)
#: Table 9's buckets of slowdown / fair slowdown, in its order (a result keeps them with sorted keys).
BUCKETS = ("<=1", "1-1.5", "1.5-2", "2-4", ">4")


def _boundary(stem: str) -> int:
    return next(t[2] for t in TRACES if t[1] == stem)


def _figures(schedule: Any, width_boundary: int) -> dict[str, Any]:
    """The figures the report needs from one schedule: overall and per-category statistics."""
    summary = summarize(schedule)
    groups = per_category(schedule, width_boundary=width_boundary)
    return {
        "overall": {k: summary[k] for k in ("mean_bsld", "max_bsld", "mean_response", "mean_wait")},
        "categories": {
            c: {k: groups[c][k] for k in ("mean_bsld", "max_bsld", "mean_response")} for c in CATEGORIES
        },
    }


def run_group(trace_dir: str, stem: str, load: float, estimates: str) -> dict[str, Any]:
    """Simulate every scheduler on one trace at one load; return the figures (runs in a worker)."""
    workload, _ = read_swf(Path(trace_dir) / f"{stem}.swf.gz")
    if estimates == "exact":
        workload = workload.with_exact_estimates()
    workload = workload.scaled(load)
    wb = _boundary(stem)
    out: dict[str, Any] = {"trace": stem, "load": load, "estimates": estimates, "jobs": len(workload)}
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    reference = simulate(workload, Conservative(), record_reservations=True)
    seconds["Conservative"] = time.perf_counter() - started
    validate_schedule(reference)
    check_guarantees(reference)
    fair = srinivasan_fair_starts(reference)
    sel = starvation_threshold(reference)
    sel_d = category_thresholds(reference, width_boundary=wb)
    out["thresholds"] = {"Sel": sel, "Sel-D": {c: getattr(sel_d, c.lower()) for c in CATEGORIES}}
    schedulers: dict[str, Scheduler] = {
        "EASY": EASY(),
        "SJF-EASY": EASY(sjf),
        "Sel": Selective(sel),
        "Sel-D": Selective(sel_d),
        # The adaptive thresholds classify by the same boundaries as the paper's categories.
        "Sel-A": Selective(AdaptiveThreshold(width_boundary=wb)),
        "Sel-A1.5": Selective(AdaptiveThreshold(factor=1.5, width_boundary=wb)),
    }
    figures = {"Conservative": _figures(reference, wb)}
    buckets = {"Conservative": fairness_buckets(reference, fair).as_dict()["all"]}
    for name, scheduler in schedulers.items():
        started = time.perf_counter()
        schedule = simulate(workload, scheduler, record_reservations=name.startswith("Sel"))
        seconds[name] = time.perf_counter() - started
        validate_schedule(schedule)
        if name.startswith("Sel"):
            check_guarantees(schedule, require_log=False)  # promoted jobs keep their reservation
        figures[name] = _figures(schedule, wb)
        buckets[name] = fairness_buckets(schedule, fair).as_dict()["all"]
    out |= {"figures": figures, "buckets": buckets, "seconds": seconds}
    return out


def _key(stem: str, load: float, estimates: str) -> str:
    return f"{stem}__x{load:g}__{estimates}"


def _pct(base: float, other: float) -> str:
    # The paper plots the change of the average, (other - Conservative) / Conservative: negative is
    # better. We print the same sign convention as its figures.
    return f"{-percent_improvement(base, other):+.1f}"


def our_shares(
    trace_dir: Path, cache: Path = DEFAULT_CACHE, *, run: bool = True
) -> dict[str, tuple[int, tuple[float, float, float, float]]] | None:
    """Each paper trace's job count and our SN/SW/LN/LW shares (percent), by the paper's name.

    Read from the traces once and kept in ``cache`` (``shares.json``); without ``run`` only the kept
    shares are returned, or None when there are none.
    """

    def compute() -> dict[str, Any]:
        out = {}
        for name, stem, wb, *_ in TRACES:
            workload, _ = read_swf(trace_dir / f"{stem}.swf.gz")
            shares = category_shares(workload, width_boundary=wb)
            out[name] = [len(workload), [shares[c] for c in CATEGORIES]]
        return {"shares": out}

    kept = cached_result(cache / "shares.json", compute, run=run)
    if kept is None:
        return None
    return {name: (jobs, tuple(four)) for name, (jobs, four) in kept["shares"].items()}  # type: ignore[misc]


def shares_table(shares: dict[str, tuple[int, tuple[float, float, float, float]]] | None) -> str:
    if shares is None:
        return "Not measured yet: `shares.json` is not in the results."
    rows = []
    for name, stem, wb, paper, _ in TRACES:
        jobs, ours = shares[name]
        row = [name, stem, f"{jobs:,}", f"{wb}"]
        row += [f"{p:.2f} / {o:.2f}" for p, o in zip(paper, ours, strict=True)]
        rows.append(row)
    header = ["trace", "our version", "jobs", "narrow <=", *(f"{c} paper / ours" for c in CATEGORIES)]
    return markdown(header, rows, right=2)


def category_table(
    groups: dict[str, Any], estimates: str, load: float, metric: str, specs: tuple[str, ...]
) -> str:
    """Change (%) of a per-category average relative to Conservative, one row per trace and scheduler."""
    rows = []
    for name, stem, *_ in TRACES:
        g = groups.get(_key(stem, load, estimates))
        if g is None:
            continue
        base = g["figures"]["Conservative"]
        for spec in specs:
            fig = g["figures"][spec]
            row = [name, spec]
            row += [_pct(base["categories"][c][metric], fig["categories"][c][metric]) for c in CATEGORIES]
            row.append(_pct(base["overall"][metric], fig["overall"][metric]))
            rows.append(row)
    return markdown(["trace", "scheduler", *CATEGORIES, "overall"], rows, right=2)


def load_table(groups: dict[str, Any], estimates: str, loads: list[float], metric: str) -> str:
    """Overall change (%) relative to Conservative per trace and load (Fig. 4 and 6)."""
    rows = []
    for name, stem, *_ in TRACES:
        for load in loads:
            g = groups.get(_key(stem, load, estimates))
            if g is None:
                continue
            base = g["figures"]["Conservative"]["overall"][metric]
            row = [name, f"x{load:g}", f"{base:,.1f}"]
            row += [_pct(base, g["figures"][s]["overall"][metric]) for s in COMPARED]
            rows.append(row)
    return markdown(["trace", "load", "Conservative", *COMPARED], rows, right=2)


def threshold_table(groups: dict[str, Any], estimates: str, loads: list[float]) -> str:
    rows = []
    for name, stem, *_ in TRACES:
        for load in loads:
            g = groups.get(_key(stem, load, estimates))
            if g is None:
                continue
            th = g["thresholds"]
            rows.append(
                [name, f"x{load:g}", f"{th['Sel']:.2f}", *(f"{th['Sel-D'][c]:.2f}" for c in CATEGORIES)]
            )
    return markdown(["trace", "load", "Sel", *(f"Sel-D {c}" for c in CATEGORIES)], rows, right=2)


def buckets_table(groups: dict[str, Any], estimates: str, load: float) -> str:
    rows = []
    for name, stem, *_ in TRACES:
        g = groups.get(_key(stem, load, estimates))
        if g is None:
            continue
        for spec in SCHEDULERS:
            b = g["buckets"][spec]
            rows.append([name, spec, *(f"{b[k]:.2f}" for k in BUCKETS)])
    return markdown(["trace", "scheduler", *BUCKETS], rows, right=2)


def seconds_table(groups: dict[str, Any]) -> str:
    rows = []
    for key in sorted(groups):
        g = groups[key]
        rows.append([key, *(f"{g['seconds'][s]:.1f}" for s in SCHEDULERS)])
    return markdown(["trace, load, estimates", *SCHEDULERS], rows)


def report(
    shares: dict[str, tuple[int, tuple[float, float, float, float]]] | None,
    groups: dict[str, Any],
    loads: list[float],
    *,
    seconds: bool = True,
) -> str:
    high = max(loads)
    normal = min(loads)
    parts = [
        "Category shares (Tables 3-6), percent of jobs, by actual runtime (1 h) and width",
        "",
        shares_table(shares),
        "",
        "Thresholds calibrated from Conservative, exact estimates (Table 7, taken as SDSC at high load: Sel "
        "26.69; Sel-D 22.30 / 72.40 / 1.72 / 2.59)",
        "",
        threshold_table(groups, "exact", loads),
        "",
        "Thresholds calibrated from Conservative, user estimates, well-estimated jobs only (Table 8, taken "
        "as SDSC at high load: Sel 3.92; Sel-D 3.55 / 21.53 / 1.35 / 2.27)",
        "",
        threshold_table(groups, "user", loads),
    ]
    for estimates in ("exact", "user"):
        for load, what in ((normal, "normal load"), (high, "high load")):
            for metric, title in (
                ("mean_bsld", "average bounded slowdown"),
                ("mean_response", "average turnaround"),
                ("max_bsld", "worst-case bounded slowdown"),
            ):
                parts += [
                    "",
                    f"Change of {title} over Conservative (%; negative is better), per category, "
                    f"{estimates} estimates, {what} (x{load:g})",
                    "",
                    category_table(groups, estimates, load, metric, COMPARED),
                ]
        for metric, title in (
            ("mean_bsld", "average bounded slowdown"),
            ("mean_response", "average turnaround"),
        ):
            parts += [
                "",
                f"Change of overall {title} over Conservative (%; negative is better) by load, "
                f"{estimates} estimates",
                "",
                load_table(groups, estimates, loads, metric),
            ]
        parts += [
            "",
            f"Fairness (Table 9{', judged on SDSC' if estimates == 'exact' else ', another setting'}): "
            f"percent of jobs whose bounded slowdown is within each multiple of their fair slowdown "
            f"(FCFS-Conservative fair start), {estimates} estimates, high load (x{high:g})",
            "",
            buckets_table(groups, estimates, high),
        ]
    if seconds:  # how long a run took: for the script's report, not for the docs page
        parts += ["", "Seconds per simulation", "", seconds_table(groups)]
    return "\n".join(parts) + "\n"


def collect(
    trace_dir: Path,
    stems: list[str],
    loads: list[float],
    cache: Path,
    *,
    workers: int = 2,
    run: bool = True,
) -> dict[str, Any]:
    """Return the (trace, load, estimates) groups of these traces and loads, keyed as in the cache.

    Reads the cached groups; with ``run`` simulates the missing ones in ``workers`` processes first,
    caching each as it finishes. Without ``run`` it returns only what the cache holds.
    """
    known = {t[1]: t for t in TRACES}
    groups: dict[str, Any] = {}
    todo = []
    for stem in stems:
        for estimates in ("exact", "user") if known[stem][4] else ("exact",):
            for load in loads:
                key = _key(stem, load, estimates)
                path = cache / f"{key}.json"
                if path.exists():
                    groups[key] = load_result(path)
                else:
                    todo.append((stem, load, estimates))
    if not run:
        return groups
    cache.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_group, str(trace_dir), *cell): cell for cell in todo}
        for future in as_completed(futures):
            stem, load, estimates = futures[future]
            group = future.result()
            key = _key(stem, load, estimates)
            group = save_result(cache / f"{key}.json", group)
            groups[key] = group
            total = sum(group["seconds"].values())
            print(f"{key:45} {total:7.1f} s", file=sys.stderr, flush=True)
    return groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--traces", nargs="+", help="file stems (default: the paper's four traces)")
    parser.add_argument("--loads", nargs="+", type=float, default=list(DEFAULT_LOADS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--output", type=Path, help="write the markdown report here (default: stdout)")
    args = parser.parse_args(argv)
    if not args.trace_dir.is_dir():
        parser.error(f"no trace folder at {args.trace_dir}")
    known = {t[1]: t for t in TRACES}
    stems = args.traces or list(known)
    unknown = [s for s in stems if s not in known]
    if unknown:
        parser.error(f"not one of the paper's traces: {', '.join(unknown)}")
    groups = collect(args.trace_dir, stems, args.loads, args.cache, workers=args.workers)
    text = report(our_shares(args.trace_dir, args.cache), groups, sorted(args.loads))
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
