"""Time read_swf on a few archive traces, and measure its peak memory.

Usage:
    python benchmarks/speed/bench_read_swf.py [--traces DIR] [--repeat N] [NAME ...]
    python benchmarks/speed/bench_read_swf.py --memory [--python PY ...] [--repeat N] [NAME ...]

The traces live in ../shared/traces relative to the project root. Each trace is read --repeat times
(the best time is reported, to keep other work on the machine out of the figure); the budget the
library aims for is HPC2N-2002-2.1-cln (202,876 jobs, gzip) in under 3 s on 2 cores.

``--memory`` reads each trace in a fresh process per read, under each interpreter given with
``--python`` (default: this one), taking turns so that a slow moment of a shared machine falls on
both: the best wall time of --repeat reads, the peak resident size of such a process (``ru_maxrss``)
and, from one more process, the peak of Python's and numpy's allocations seen by ``tracemalloc``.
A process that only imports the reader gives the resident size that is not the read's. Giving the
interpreters of two virtual environments (one with the old code installed, one with the new)
compares them in one run; each child runs outside the project, so it reads with the code installed
in its environment.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backfill.workloads.swf import read_swf

DEFAULT_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
DEFAULT_NAMES = (
    "HPC2N-2002-2.1-cln",
    "CTC-SP2-1996-3.1-cln",
    "KTH-SP2-1996-2",
    "SDSC-SP2-1998-4.2-cln",
)
MEMORY_NAMES = ("RICC-2010-2", "CTC-SP2-1996-3.1-cln")
BUDGET_S = {"HPC2N-2002-2.1-cln": 3.0}

# One read in a fresh process: prints the module read from, jobs, seconds, ru_maxrss (KiB) and, with
# tracing, the tracemalloc peak (bytes). An empty path only imports.
CHILD = """
import json, resource, sys, time, tracemalloc
import backfill.workloads.swf as swf
path, trace = sys.argv[1], sys.argv[2] == "1"
jobs, seconds, peak = 0, 0.0, 0
if path:
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    workload, report = swf.read_swf(path)
    seconds = time.perf_counter() - start
    jobs = len(workload)
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"module": swf.__file__, "jobs": jobs, "s": seconds, "rss_kib": rss, "peak": peak}))
"""


def _child(python: str, path: str, trace: bool) -> dict[str, float]:
    # Run outside the project, so that the interpreter's own installed code is the code measured.
    out = subprocess.run(
        [python, "-c", CHILD, path, "1" if trace else "0"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def memory(names: list[str], traces: Path, pythons: list[str], repeat: int) -> int:
    for python in pythons:
        base = _child(python, "", False)
        print(f"{python}: reads with {base['module']}; import alone {base['rss_kib'] / 1024:.0f} MB resident")
    print(f"{'trace':<22} {'python':<28} {'jobs':>8} {'best s':>7} {'max rss MB':>10} {'traced peak MB':>14}")
    for name in names:
        path = str(traces / f"{name}.swf.gz")
        runs: dict[str, list[dict[str, float]]] = {p: [] for p in pythons}
        for _ in range(repeat):
            for python in pythons:
                runs[python].append(_child(python, path, False))
        for python in pythons:
            traced = _child(python, path, True)
            best = min(r["s"] for r in runs[python])
            rss = max(r["rss_kib"] for r in runs[python]) / 1024
            print(
                f"{name:<22} {python[-28:]:<28} {int(traced['jobs']):>8} {best:>7.3f} {rss:>10.0f} "
                f"{traced['peak'] / 2**20:>14.0f}"
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="trace names")
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="trace folder")
    parser.add_argument("--repeat", type=int, default=3, help="reads per trace (best is shown)")
    parser.add_argument("--memory", action="store_true", help="peak memory, a fresh process per read")
    parser.add_argument(
        "--python", action="append", help="with --memory: an interpreter to measure (repeat to compare)"
    )
    args = parser.parse_args(argv)
    if not args.traces.is_dir():
        print(f"trace folder {args.traces} not found", file=sys.stderr)
        return 2
    if args.memory:
        pythons = args.python or [sys.executable]
        return memory(args.names or list(MEMORY_NAMES), args.traces, pythons, args.repeat)

    print(f"{'trace':<26} {'lines':>8} {'jobs':>8} {'best s':>8} {'jobs/s':>10}")
    over_budget = False
    for name in args.names or DEFAULT_NAMES:
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
