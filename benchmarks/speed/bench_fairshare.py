"""Time the resource-equality fairness measures (unweighted and weighted) on a large schedule and a trace.

Usage: python benchmarks/speed/bench_fairshare.py [--jobs N] [--seed S] [--repeat N] [--trace PATH]

The synthetic schedule is built directly, without simulating: Poisson arrivals, waits and runtimes
drawn from exponential distributions (times rounded to whole seconds, so many coincide, as in
traces) and widths from 1 to the machine size. Each start is after its submit and each end is start
+ runtime; the capacity is not respected, which the measures do not need. The trace, if present, is
read with ``read_swf`` and simulated with EASY (not timed as part of the measures). Times are the
best of ``--repeat`` runs; the target is under 5 s for both measures together on 200,000 jobs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from backfill import EASY, Workload, read_swf, simulate
from backfill.measures.fairshare import fair_share_unfairness
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.workloads.workload import JOB_DTYPE

DEFAULT_TRACE = (
    Path(__file__).resolve().parents[2].parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"
)
BUDGET_S = 5.0


def synthetic(n: int, seed: int, machine_size: int = 1024) -> Schedule:
    rng = np.random.default_rng(seed)
    records = np.zeros(n, dtype=JOB_DTYPE)
    records["id"] = np.arange(1, n + 1)
    records["submit"] = np.round(np.cumsum(rng.exponential(60.0, n)))
    records["processors"] = rng.integers(1, machine_size + 1, n)
    records["runtime"] = np.round(rng.exponential(3600.0, n))
    records["estimate"] = records["runtime"]
    w = Workload.from_records(records, machine_size)
    start = w.column("submit") + np.round(rng.exponential(1800.0, n))
    runtime = w.column("runtime").astype(np.float64)
    return Schedule(
        workload=w,
        scheduler="synthetic",
        start=start,
        end=start + runtime,
        runtime=runtime,
        estimate=runtime.copy(),
        start_order=np.argsort(start, kind="stable"),
        rejected={},
        altered={},
        reservations=np.empty(0, dtype=RESERVATION_DTYPE),
    )


def best(fn: Callable[[], float], repeat: int) -> tuple[float, float]:
    times, value = [], float("nan")
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def report(name: str, s: Schedule, repeat: int) -> float:
    total = 0.0
    for weighted in (False, True):
        seconds, value = best(lambda w=weighted: fair_share_unfairness(s, weighted=w), repeat)
        total += seconds
        label = "weighted" if weighted else "unweighted"
        print(f"{name:<28} {len(s):>8} {label:<11} {seconds:>8.3f} {value:>14.1f}")
    print(f"{name:<28} {len(s):>8} {'both':<11} {total:>8.3f}")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200_000, help="jobs in the synthetic schedule")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic schedule")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure (best is shown)")
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE, help="SWF trace to simulate with EASY")
    args = parser.parse_args(argv)

    print(f"{'schedule':<28} {'jobs':>8} {'measure':<11} {'best s':>8} {'unfairness':>14}")
    total = report("synthetic", synthetic(args.jobs, args.seed), args.repeat)
    if args.trace.is_file():
        t0 = time.perf_counter()
        workload, _ = read_swf(args.trace)
        s = simulate(workload, EASY(), record_reservations=False)
        print(f"(read and EASY simulation of {args.trace.name}: {time.perf_counter() - t0:.1f} s)")
        report(f"EASY {args.trace.name.split('.swf')[0]}", s, args.repeat)
    else:
        print(f"no trace at {args.trace}; skipped")
    ok = args.jobs < 200_000 or total < BUDGET_S
    print(
        f"{'PASS' if ok else 'FAIL'}: both measures on {args.jobs} synthetic jobs in {total:.2f} s "
        f"(target < {BUDGET_S:.0f} s at 200,000 jobs)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
