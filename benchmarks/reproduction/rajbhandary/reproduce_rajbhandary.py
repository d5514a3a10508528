"""Reproduce Rajbhandary et al. (2013) Fig. 4, 6, 7 and 8 on the Parallel Workloads Archive traces we have.

For every trace, simulates Conservative, EASY, PC and DC, all with the FCFS priority, validates each
schedule, computes every job's strict and relaxed Fair Start Time under that scheduler, and prints
markdown tables of the percent improvement over Conservative, (Conservative - other) / Conservative:

* average strict and relaxed unfairness, mean of max(0, start - FST) (Fig. 4 for DC, Fig. 6 for EASY
  and PC);
* average unweighted and weighted fair-share unfairness (Fig. 7);
* mean wait (Fig. 8).

Each (trace, scheduler) cell runs in its own process (``--workers``); its figures and costs are kept
as a small JSON result under ``--cache``, its start times and FSTs as ``.npz`` beside it (not
committed), so an interrupted run resumes and the tables are rewritten from the results in seconds.
``_checks_rajbhandary.py`` turns the same results into the paper's claims beside ours. Usage::

    python benchmarks/reproduction/rajbhandary/reproduce_rajbhandary.py  # every trace of the paper we have
    python benchmarks/reproduction/rajbhandary/reproduce_rajbhandary.py --traces KTH-SP2-1996-2 \
        --output report.md
    python benchmarks/reproduction/rajbhandary/reproduce_rajbhandary.py --report-only  # what is cached so far
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import (
    DEFAULT_TRACE_DIR,
    RESULTS,
    TRACE_STEMS,
    load_result,
    markdown,
    save_result,
    write_report,
)

from backfill import DC, EASY, PC, Conservative, Schedule, Scheduler, read_swf, simulate, validate_schedule
from backfill.experiments.fair_start import fair_start_times
from backfill.measures.fairness import unfairness
from backfill.measures.fairshare import fair_share_unfairness
from backfill.measures.metrics import percent_improvement, wait_times
from backfill.schedule import RESERVATION_DTYPE

DEFAULT_CACHE = RESULTS / "rajbhandary"

#: The paper's traces (Fig. 3) that ../shared/traces holds, as (paper name, our file stem). ANL-Intrepid
#: and DAS2-fs2, fs3, fs4 are not among our traces. HPC2N, which the authors dropped because FST took
#: too long, is added last.
TRACES: tuple[tuple[str, str], ...] = (
    *((name, stem) for name, stem in TRACE_STEMS.items() if name != "HPC2N"),
    ("HPC2N (not in paper)", TRACE_STEMS["HPC2N"]),
)

SCHEDULERS: dict[str, type[Conservative] | type[EASY] | type[PC] | type[DC]] = {
    "Conservative": Conservative,
    "EASY": EASY,
    "PC": PC,
    "DC": DC,
}

METRICS = ("strict_unfairness", "relaxed_unfairness", "unweighted_share", "weighted_share", "mean_wait")


def make_scheduler(spec: str) -> Scheduler:
    """Build one of the four schedulers, with the FCFS priority (every one's default)."""
    return SCHEDULERS[spec]()


def figures_of(schedule: Schedule, strict: np.ndarray, relaxed: np.ndarray) -> dict[str, float]:
    """Return the figures the page reports for one schedule and its jobs' strict and relaxed FSTs."""
    return {
        "strict_unfairness": unfairness(schedule, strict),
        "relaxed_unfairness": unfairness(schedule, relaxed),
        "unweighted_share": fair_share_unfairness(schedule),
        "weighted_share": fair_share_unfairness(schedule, weighted=True),
        "mean_wait": float(wait_times(schedule).mean()),
        "strict_above_relaxed": float(np.mean(strict > relaxed) * 100),
    }


def run_cell(trace_dir: str, stem: str, spec: str, cache: str, fst_workers: int = 1) -> dict[str, Any]:
    """Simulate one trace under one scheduler and compute its FSTs (runs in a worker process).

    Returns the cell's figures and costs; the start times and FSTs themselves are kept beside the
    result as ``.npz`` for further analysis (not committed: they are megabytes per cell).
    """
    workload, _ = read_swf(Path(trace_dir) / f"{stem}.swf.gz")
    scheduler = make_scheduler(spec)
    started = time.perf_counter()
    schedule = simulate(workload, scheduler, record_reservations=False)
    sim_seconds = time.perf_counter() - started
    validate_schedule(schedule)
    # A cell's FSTs can take hours (PC on a congested trace): an interrupted run resumes from here.
    checkpoint = Path(cache) / f"{stem}__{spec}.checkpoint.npz"
    resumed = 0
    if checkpoint.exists():
        with np.load(checkpoint) as data:
            resumed = int(data["done"].sum())
    started = time.perf_counter()
    fst = fair_start_times(workload, scheduler, workers=fst_workers, checkpoint=checkpoint)
    fst_seconds = time.perf_counter() - started
    np.savez_compressed(
        Path(cache) / f"{stem}__{spec}.npz",
        start=schedule.start,
        end=schedule.end,
        runtime=schedule.runtime,
        estimate=schedule.estimate,
        strict=fst.strict,
        relaxed=fst.relaxed,
    )
    checkpoint.unlink()
    return {
        "trace": stem,
        "scheduler": spec,
        "jobs": len(workload),
        "rejected": len(schedule.rejected),
        "sim_seconds": sim_seconds,
        "fst_seconds": fst_seconds,
        # Rows an earlier, interrupted run had done: fst_seconds is then the time of the rest only.
        "fst_resumed_rows": resumed,
        "fst_workers": fst_workers,
        "figures": figures_of(schedule, fst.strict, fst.relaxed),
    }


def figures_from_arrays(trace_dir: Path, stem: str, spec: str, cache: Path) -> dict[str, float]:
    """Return the figures of a cell saved without them, from its ``.npz`` and its trace."""
    workload, _ = read_swf(trace_dir / f"{stem}.swf.gz")
    with np.load(cache / f"{stem}__{spec}.npz") as data:
        schedule = Schedule(
            workload=workload,
            scheduler=spec,
            start=data["start"],
            end=data["end"],
            runtime=data["runtime"],
            estimate=data["estimate"],
            start_order=np.empty(0, dtype=np.int64),
            rejected={},
            altered={},
            reservations=np.empty(0, dtype=RESERVATION_DTYPE),
        )
        return figures_of(schedule, data["strict"], data["relaxed"])


def _pct(base: float, other: float) -> str:
    value = percent_improvement(base, other)
    return f"{value:+.1f}" if np.isfinite(value) else ("-inf" if value < 0 else "+inf")


def report(figures: dict[tuple[str, str], dict[str, float]], times: dict[tuple[str, str], Any]) -> str:
    """Return the markdown report of every cached cell."""
    parts = []
    titles = {
        "strict_unfairness": "Average strict unfairness (Fig. 4 DC, Fig. 6 EASY and PC)",
        "relaxed_unfairness": "Average relaxed unfairness (Fig. 4 DC, Fig. 6 EASY and PC)",
        "unweighted_share": "Average unweighted fair-share unfairness (Fig. 7 top)",
        "weighted_share": "Average weighted fair-share unfairness (Fig. 7 bottom)",
        "mean_wait": "Mean wait (Fig. 8)",
    }
    others = ["EASY", "PC", "DC"]
    for metric in METRICS:
        rows = []
        for name, stem in TRACES:
            base = figures.get((stem, "Conservative"))
            if base is None:
                continue
            row = [name, f"{base[metric]:,.1f}"]
            for spec in others:
                cell = figures.get((stem, spec))
                row.append("" if cell is None else _pct(base[metric], cell[metric]))
            rows.append(row)
        parts += [f"{titles[metric]}: Conservative's value, percent improvement over it", ""]
        parts.append(markdown(["trace", "Conservative", *others], rows))
        parts.append("")
    rows = []
    resumed = []
    for name, stem in TRACES:
        row = [name]
        for spec in SCHEDULERS:
            t = times.get((stem, spec))
            text = "" if t is None else f"{t['sim_seconds']:.0f} + {t['fst_seconds']:.0f}"
            if t is not None and t.get("fst_resumed_rows"):
                text += "*"
                resumed.append(
                    f"{name} {spec}: resumed at row {t['fst_resumed_rows']:,} of {t['jobs']:,} from an "
                    f"interrupted run's checkpoint, the rest on {t.get('fst_workers', 1)} worker(s)"
                )
            row.append(text)
        rows.append(row)
    parts += ["Seconds: simulation + strict and relaxed FST (one process each, unless marked *)", ""]
    parts.append(markdown(["trace", *SCHEDULERS], rows))
    if resumed:
        parts += ["", *(f"\\* {line}." for line in resumed)]
    rows = []
    for name, stem in TRACES:
        row = [name]
        for spec in SCHEDULERS:
            cell = figures.get((stem, spec))
            row.append("" if cell is None else f"{cell['strict_above_relaxed']:.2f}")
        rows.append(row)
    parts += ["", "Percent of jobs whose strict FST exceeds their relaxed FST", ""]
    parts.append(markdown(["trace", *SCHEDULERS], rows))
    return "\n".join(parts) + "\n"


def collect(
    trace_dir: Path,
    stems: list[str],
    specs: list[str],
    cache: Path,
    *,
    workers: int = 2,
    run: bool = True,
    fst_workers: int = 1,
) -> tuple[dict[tuple[str, str], dict[str, float]], dict[tuple[str, str], Any]]:
    """Run the cells not yet cached (unless ``run`` is false), then return every cached cell's figures
    and times, keyed by (file stem, scheduler)."""
    times: dict[tuple[str, str], Any] = {}
    todo = []
    for stem in stems:
        for spec in specs:
            path = cache / f"{stem}__{spec}.json"
            if path.exists():
                times[stem, spec] = load_result(path)
            elif run:
                todo.append((stem, spec))
    if todo:
        cache.mkdir(parents=True, exist_ok=True)
        # Smallest traces first, so that a partial run already gives whole rows.
        sizes = {stem: (trace_dir / f"{stem}.swf.gz").stat().st_size for stem, _ in todo}
        todo.sort(key=lambda cell: (sizes[cell[0]], cell[1]))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(run_cell, str(trace_dir), stem, spec, str(cache), fst_workers): (stem, spec)
                for stem, spec in todo
            }
            for future in as_completed(futures):
                stem, spec = futures[future]
                cell = save_result(cache / f"{stem}__{spec}.json", future.result())
                times[stem, spec] = cell
                print(
                    f"{stem:28} {spec:14} sim {cell['sim_seconds']:7.1f} s  FST {cell['fst_seconds']:8.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    for (stem, spec), cell in times.items():
        if "figures" not in cell:  # a result saved before figures were part of it
            cell["figures"] = figures_from_arrays(trace_dir, stem, spec, cache)
            save_result(cache / f"{stem}__{spec}.json", cell, stamp=False)
    figures = {key: cell["figures"] for key, cell in times.items()}
    return figures, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--traces", nargs="+", help="file stems (default: the paper's traces we have)")
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS), choices=list(SCHEDULERS))
    parser.add_argument("--workers", type=int, default=2, help="cells run at once")
    parser.add_argument(
        "--fst-workers", type=int, default=1, help="processes for each cell's FSTs (for a last, long cell)"
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--output", type=Path, help="write the markdown report here (default: stdout)")
    parser.add_argument("--report-only", action="store_true", help="report the cached cells, run nothing")
    args = parser.parse_args(argv)
    if not args.trace_dir.is_dir():
        parser.error(f"no trace folder at {args.trace_dir}")
    stems = args.traces or [stem for _, stem in TRACES]
    args.cache.mkdir(parents=True, exist_ok=True)
    figures, times = collect(
        args.trace_dir,
        stems,
        args.schedulers,
        args.cache,
        workers=args.workers,
        run=not args.report_only,
        fst_workers=args.fst_workers,
    )
    write_report(report(figures, times), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
