"""Time strict and relaxed Fair Start Times of a whole trace, and their speed-up with more workers.

Usage::

    python benchmarks/speed/bench_fst.py                       # Conservative over CTC-SP2, 2 workers
    python benchmarks/speed/bench_fst.py --trace HPC2N-2002-2.1-cln --workers 1 2
    python benchmarks/speed/bench_fst.py --dask --workers 1 2  # a local Dask cluster instead

For each worker count the trace's FSTs are computed from scratch (on a process pool, or on a local
Dask cluster of that many single-threaded workers) and the wall time printed with the speed-up over the
first count. The results of every run are compared with the first: they must be identical. Targets:
Conservative over CTC-SP2 under 30 min on this 2-core machine; HPC2N completes.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR as TRACE_DIR

from backfill import DC, EASY, PC, Conservative, read_swf
from backfill.experiments.fair_start import FairStartTimes, fair_start_times

SCHEDULERS = {"Conservative": Conservative, "EASY": EASY, "PC": PC, "DC": DC}
TARGETS_S = {("CTC-SP2-1996-3.1-cln", "Conservative"): 1800.0}


def _children_cpu() -> float:
    """CPU seconds of the child processes that have ended (the pool's workers, once shut down)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(
    stem: str, spec: str, workers: int, dask: bool, progress: bool
) -> tuple[float, float, FairStartTimes]:
    """Compute the FSTs of one trace with ``workers`` workers.

    Returns the wall time, the CPU time of the worker processes (0 for one worker, which runs in
    this process) and the result.
    """
    workload, _ = read_swf(TRACE_DIR / f"{stem}.swf.gz")
    scheduler = SCHEDULERS[spec]()
    cpu = _children_cpu()
    started = time.perf_counter()
    if dask:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0") as cluster,
            Client(cluster) as client,
        ):
            fst = fair_start_times(workload, scheduler, executor=client.get_executor(), progress=progress)
    else:
        fst = fair_start_times(workload, scheduler, workers=workers, progress=progress)
    return time.perf_counter() - started, _children_cpu() - cpu, fst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="CTC-SP2-1996-3.1-cln", help="file stem in ../shared/traces")
    parser.add_argument("--scheduler", default="Conservative", choices=list(SCHEDULERS))
    parser.add_argument("--workers", type=int, nargs="+", default=[2], help="worker counts to time")
    parser.add_argument("--dask", action="store_true", help="use a local Dask cluster, not a process pool")
    parser.add_argument("--progress", action="store_true", help="show a progress bar (tqdm)")
    args = parser.parse_args(argv)
    if not TRACE_DIR.is_dir():
        parser.error(f"no trace folder at {TRACE_DIR}")
    first: tuple[float, FairStartTimes] | None = None
    ok = True
    kind = "Dask workers" if args.dask else "processes"
    for workers in args.workers:
        seconds, cpu, fst = run(args.trace, args.scheduler, workers, args.dask, args.progress)
        line = f"{args.scheduler} over {args.trace}, {workers} {kind}: {seconds:,.1f} s"
        if cpu > 0:
            # The workers' CPU time is the work one process would do (less the per-range unpickling),
            # so cpu / wall is the parallelism reached, whatever the machine's other load.
            line += f", workers' CPU {cpu:,.1f} s ({cpu / seconds:.2f} busy on average)"
        if first is None:
            first = (seconds, fst)
        else:
            same = np.array_equal(fst.strict, first[1].strict, equal_nan=True) and np.array_equal(
                fst.relaxed, first[1].relaxed, equal_nan=True
            )
            ok &= same
            line += f", speed-up {first[0] / seconds:.2f}x, {'identical' if same else 'DIFFERENT'} results"
        target = TARGETS_S.get((args.trace, args.scheduler))
        if target is not None:
            ok &= seconds < target
            line += f" (target < {target:,.0f} s)"
        print(line, flush=True)
    if first is not None:
        jobs = int(np.isfinite(first[1].strict).sum())
        later = float(np.mean(first[1].strict > first[1].relaxed)) * 100
        print(f"{jobs:,} jobs; strict FST above relaxed for {later:.2f} % of them")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
