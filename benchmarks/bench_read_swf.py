"""Time read_swf on a few archive traces and print seconds and jobs per second.

Usage: python benchmarks/bench_read_swf.py [--traces DIR] [--repeat N] [NAME ...]

The traces live in ../shared/traces relative to the project root. Each trace is read --repeat times
(the best time is reported, to keep other work on the machine out of the figure); the budget the
library aims for is HPC2N-2002-2.1-cln (202,876 jobs, gzip) in under 3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from backfill.workloads.swf import read_swf

DEFAULT_TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
DEFAULT_NAMES = (
    "HPC2N-2002-2.1-cln",
    "CTC-SP2-1996-3.1-cln",
    "KTH-SP2-1996-2",
    "SDSC-SP2-1998-4.2-cln",
)
BUDGET_S = {"HPC2N-2002-2.1-cln": 3.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(DEFAULT_NAMES), help="trace names")
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="trace folder")
    parser.add_argument("--repeat", type=int, default=3, help="reads per trace (best is shown)")
    args = parser.parse_args(argv)
    if not args.traces.is_dir():
        print(f"trace folder {args.traces} not found", file=sys.stderr)
        return 2

    print(f"{'trace':<26} {'lines':>8} {'jobs':>8} {'best s':>8} {'jobs/s':>10}")
    over_budget = False
    for name in args.names:
        path = args.traces / f"{name}.swf.gz"
        if not path.exists():
            print(f"{name:<26} missing")
            continue
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            workload, report = read_swf(path)
            times.append(time.perf_counter() - start)
        best = min(times)
        note = ""
        if name in BUDGET_S:
            ok = best < BUDGET_S[name]
            over_budget |= not ok
            note = f"  ({'within' if ok else 'OVER'} the {BUDGET_S[name]:g} s budget)"
        print(
            f"{name:<26} {report.lines:>8} {len(workload):>8} {best:>8.3f} "
            f"{len(workload) / best:>10,.0f}{note}"
        )
    return 1 if over_budget else 0


if __name__ == "__main__":
    sys.exit(main())
