"""Time the whole Lindsay et al. (2013) sweep (:mod:`backfill.experiments.sweep`), and with more workers.

Usage::

    python benchmarks/speed/bench_sweep.py            # the full grid, Dask with 1 then 2 workers
    python benchmarks/speed/bench_sweep.py --workers 2 --progress --csv lindsay-sweep.csv
    python benchmarks/speed/bench_sweep.py --no-dask  # a process pool of each size instead
    python benchmarks/speed/bench_sweep.py --traces KTH-SP2-1996-2 --schedulers Conservative EASY \\
        --priorities fcfs sjf --workers 1 2          # a small grid, about a minute

The grid is every trace of the paper that ../shared/traces holds (``_common.TRACE_STEMS``) x
Conservative, EASY, PC and DC x the paper's five priorities (FCFS, SJF, LJF, WJF, NJF, as in
``reproduce_lindsay.py --priorities sjf wjf fcfs ljf njf``). Conservative takes no queue priority, so
the sweep runs it once per trace: 16 cells per trace, 176 for the 11 traces. For each worker count the
sweep runs from scratch (no cache) on a local Dask cluster of that many single-threaded worker
processes (``client.get_executor()``), or on a process pool with ``--no-dask``; the wall time of
``run_sweep`` is printed with the speed-up over the first count, and every run's rows (all columns but
``seconds``) are compared with the first run's: they must be identical. Target (issue 8): the full grid
in under 2 h (7,200 s) on this 2-core machine, with close to linear scaling from 1 to 2 workers.

``run_sweep`` submits cells in grid order, so the traces are put in the grid largest file first: the
long simulations start early and the last ones to run are short, which keeps the workers evenly busy
to the end.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, TRACE_STEMS

from backfill.experiments.sweep import SCHEDULERS, Grid, SweepResult, TraceWorkload, run_sweep
from backfill.schedulers.machinery.priorities import PRIORITIES

#: The algorithms and the five priorities of Lindsay et al. (§4.1), as reproduce_lindsay.py runs them.
LINDSAY_SCHEDULERS = ["Conservative", "EASY", "PC", "DC"]
LINDSAY_PRIORITIES = ["fcfs", "sjf", "ljf", "wjf", "njf"]
TARGET_S = 7200.0


def build_grid(trace_dir: Path, stems: list[str], schedulers: list[str], priorities: list[str]) -> Grid:
    """Return the grid of ``stems`` (largest file first) x ``schedulers`` x ``priorities``."""
    paths = sorted((trace_dir / f"{stem}.swf.gz" for stem in stems), key=lambda p: -p.stat().st_size)
    return Grid([TraceWorkload(p) for p in paths], schedulers, priorities=priorities)


def run(grid: Grid, workers: int, dask: bool, progress: bool) -> tuple[float, float, SweepResult]:
    """Run the whole grid from scratch on ``workers`` workers.

    Returns the seconds spent starting the cluster or pool (not timed), the wall time of ``run_sweep``
    and its result.
    """
    started = time.perf_counter()
    if dask:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as cluster,
            Client(cluster) as client,
        ):
            client.wait_for_workers(workers)
            setup = time.perf_counter() - started
            began = time.perf_counter()
            result = run_sweep(grid, cache=None, executor=client.get_executor(), progress=progress)
            seconds = time.perf_counter() - began
    else:
        # An explicit pool, so that one worker is also a separate process, as on Dask.
        with cf.ProcessPoolExecutor(max_workers=workers) as pool:
            setup = time.perf_counter() - started
            began = time.perf_counter()
            result = run_sweep(grid, cache=None, executor=pool, progress=progress)
            seconds = time.perf_counter() - began
    return setup, seconds, result


def _same_value(a: Any, b: Any) -> bool:
    both_nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    return both_nan or (type(a) is type(b) and a == b)


def same_rows(rows: list[dict[str, Any]], reference: list[dict[str, Any]]) -> bool:
    """Whether two runs' rows are identical in every column but ``seconds`` (NaN equals NaN)."""
    if len(rows) != len(reference):
        return False
    for row, ref in zip(rows, reference, strict=True):
        if row.keys() != ref.keys():
            return False
        if not all(_same_value(row[c], ref[c]) for c in row if c != "seconds"):
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument(
        "--traces", nargs="+", metavar="STEM", help="trace file stems (default: all the paper's)"
    )
    parser.add_argument(
        "--schedulers",
        nargs="+",
        default=LINDSAY_SCHEDULERS,
        choices=list(SCHEDULERS),
        metavar="NAME",
        help=f"default: {' '.join(LINDSAY_SCHEDULERS)}",
    )
    parser.add_argument(
        "--priorities",
        nargs="+",
        default=LINDSAY_PRIORITIES,
        choices=list(PRIORITIES),
        metavar="NAME",
        help=f"default: {' '.join(LINDSAY_PRIORITIES)}",
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to time")
    parser.add_argument("--no-dask", action="store_true", help="use a process pool, not a local Dask cluster")
    parser.add_argument("--progress", action="store_true", help="show a progress bar (tqdm)")
    parser.add_argument("--csv", type=Path, metavar="PATH", help="write the last run's rows here")
    args = parser.parse_args(argv)
    if not args.trace_dir.is_dir():
        parser.error(f"no trace folder at {args.trace_dir}")
    if any(w < 1 for w in args.workers):
        parser.error("worker counts must be positive")
    if args.traces:
        missing = [s for s in args.traces if not (args.trace_dir / f"{s}.swf.gz").is_file()]
        if missing:
            parser.error(f"no {', '.join(f'{s}.swf.gz' for s in missing)} in {args.trace_dir}")
        stems = args.traces
    else:
        stems = [s for s in TRACE_STEMS.values() if (args.trace_dir / f"{s}.swf.gz").is_file()]
        absent = [s for s in TRACE_STEMS.values() if s not in stems]
        if absent:
            print(f"traces not found, left out: {', '.join(absent)}")
        if not stems:
            parser.error(f"none of the paper's traces is in {args.trace_dir}")
    grid = build_grid(args.trace_dir, stems, args.schedulers, args.priorities)
    cells = list(grid.cells())
    full = (
        set(stems) == set(TRACE_STEMS.values())
        and set(args.schedulers) == set(LINDSAY_SCHEDULERS)
        and set(args.priorities) == set(LINDSAY_PRIORITIES)
    )
    per_trace = " + ".join(
        f"{s} {len(args.priorities) if grid.schedulers[i].takes_priority else 1}"
        for i, s in enumerate(args.schedulers)
    )
    print(
        f"{len(cells)} cells: {len(stems)} traces x ({per_trace}); priorities {', '.join(args.priorities)}"
        + ("" if full else " (a subset of the full grid)")
    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load} before the first run", flush=True)

    kind = "processes" if args.no_dask else "Dask workers"
    first: tuple[float, SweepResult] | None = None
    last: tuple[int, float, SweepResult] | None = None
    ok = True
    for workers in args.workers:
        setup, seconds, result = run(grid, workers, not args.no_dask, args.progress)
        busy = sum(row["seconds"] for row in result.rows)
        line = (
            f"{workers} {kind}: {seconds:,.1f} s (start-up {setup:.1f} s not counted), "
            f"simulations {busy:,.1f} s ({busy / seconds:.2f} busy on average)"
        )
        if first is None:
            first = (seconds, result)
        else:
            same = same_rows(result.rows, first[1].rows)
            ok &= same
            line += f", speed-up {first[0] / seconds:.2f}x, {'identical' if same else 'DIFFERENT'} rows"
        print(line, flush=True)
        last = (workers, seconds, result)
    assert first is not None and last is not None
    workers, seconds, result = last
    met = seconds < TARGET_S
    if full:
        ok &= met
    print(
        f"target: the full Lindsay grid in < {TARGET_S:,.0f} s; {seconds:,.1f} s with {workers} {kind}, "
        + ("met" if met else "NOT met")
        + ("" if full else " (on this subset, not the full grid)")
    )
    print("slowest cells (last run):")
    for row in sorted(result.rows, key=lambda r: -r["seconds"])[:10]:
        print(f"  {row['workload']:28} {row['scheduler']:13} {row['priority']:5} {row['seconds']:8.1f} s")
    if args.csv:
        result.to_csv(args.csv)
        print(f"rows written to {args.csv}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
