"""Time each scheduler on archive traces, measure a 500K-job workload's memory, and check the targets.

Usage: python benchmarks/speed/bench_schedulers.py [--traces NAME ...] [--schedulers NAME ...] [--repeat N]
                                             [--trace-dir DIR] [--memory-jobs N]

Each trace is read with ``read_swf`` and the default cleaning policy (the read is timed on its own),
then simulated under each scheduler with ``backfill.simulate`` and its default settings (reservations
recorded), and every schedule is checked with ``validate_schedule``. Wall seconds are the best of
``--repeat`` runs, to keep other work on the machine out of the figure; CPU seconds are those of the
same run. The memory of a large workload is measured first, in a child process, so that nothing the
timings allocate counts: the peak resident set size (``ru_maxrss``) after importing the library,
after generating ``lublin_feitelson(N)`` and after simulating it with EASY. (On Linux a child
inherits its parent's peak through fork and exec, so the first figure is at least the parent's peak
when it started the child: the parent has then only imported the library.)

The results are printed as markdown tables, ready to paste into the README, followed by one line
per target of the performance issue with PASS or FAIL (1 GB is 10**9 bytes of peak RSS); the exit
status is 1 if a target failed. A target whose trace or scheduler was not selected is reported as
not run. Timings depend on the machine and on whatever else runs on it; the load average is
printed to judge that.

The traces live in ../shared/traces relative to the project root.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, markdown

import backfill
from backfill import (
    DC,
    EASY,
    FCFS,
    G2,
    PC,
    CategoryThresholds,
    Conservative,
    LookaheadSlack,
    RelShare,
    Scheduler,
    Selective,
    ljf,
    read_swf,
    simulate,
    sjf,
    validate_schedule,
)
from backfill.measures.metrics import summarize

DEFAULT_TRACES = (
    "KTH-SP2-1996-2",
    "SDSC-SP2-1998-4.2-cln",
    "CTC-SP2-1996-3.1-cln",
    "HPC2N-2002-2.1-cln",
)
SCHEDULERS: dict[str, Callable[[], Scheduler]] = {
    "FCFS": FCFS,
    "EASY": EASY,
    "EASY-sjf": lambda: EASY(priority=sjf),
    "Conservative": Conservative,
    "PC-sjf": lambda: PC(sjf),
    "DC-sjf": lambda: DC(sjf),
    "PC-ljf": lambda: PC(ljf),
    "Selective": Selective,
    "Selective-D": lambda: Selective(CategoryThresholds(22.30, 72.40, 1.72, 2.59)),
    "EASY-depth4": lambda: EASY(depth=4),
    "EASY-depth16": lambda: EASY(depth=16),
    "EASY-depth-inf": lambda: EASY(depth=None),
    "RelShare-1d": RelShare,
    "RelShare-1d-wo": lambda: RelShare(expected_usage=False),
    "LookaheadSlack-G1": LookaheadSlack,
    "LookaheadSlack-G2": lambda: LookaheadSlack(goal=G2()),
}
MEMORY_JOBS = 500_000
MEMORY_MACHINE = 128
GB = 1e9

# The performance issue's targets: (label, kind, trace, scheduler, limit). Kinds: "simulate" (best
# wall seconds), "read" (best read_swf seconds), "memory" (peak RSS in bytes with the big workload).
TARGETS: tuple[tuple[str, str, str, str, float], ...] = (
    ("EASY over CTC-SP2 < 1 s", "simulate", "CTC-SP2-1996-3.1-cln", "EASY", 1.0),
    ("Conservative over CTC-SP2 < 10 s", "simulate", "CTC-SP2-1996-3.1-cln", "Conservative", 10.0),
    ("Conservative over HPC2N < 20 s", "simulate", "HPC2N-2002-2.1-cln", "Conservative", 20.0),
    ("PC(sjf) over CTC-SP2 < 30 s", "simulate", "CTC-SP2-1996-3.1-cln", "PC-sjf", 30.0),
    ("DC(sjf) over CTC-SP2 < 30 s", "simulate", "CTC-SP2-1996-3.1-cln", "DC-sjf", 30.0),
    ("PC(ljf) over HPC2N < 10 min", "simulate", "HPC2N-2002-2.1-cln", "PC-ljf", 600.0),
    ("Selective (adaptive) over CTC-SP2 < 10 s", "simulate", "CTC-SP2-1996-3.1-cln", "Selective", 10.0),
    ("Selective-D over CTC-SP2 < 10 s", "simulate", "CTC-SP2-1996-3.1-cln", "Selective-D", 10.0),
    ("EASY depth 4 over CTC-SP2 < 10 s", "simulate", "CTC-SP2-1996-3.1-cln", "EASY-depth4", 10.0),
    ("EASY depth 16 over CTC-SP2 < 10 s", "simulate", "CTC-SP2-1996-3.1-cln", "EASY-depth16", 10.0),
    ("RelShare(1d) over CTC-SP2 < 15 s", "simulate", "CTC-SP2-1996-3.1-cln", "RelShare-1d", 15.0),
    (
        "LookaheadSlack(G1, 20) over CTC-SP2 < 60 s",
        "simulate",
        "CTC-SP2-1996-3.1-cln",
        "LookaheadSlack-G1",
        60.0,
    ),
    (
        "LookaheadSlack(G2, 20) over CTC-SP2 < 60 s",
        "simulate",
        "CTC-SP2-1996-3.1-cln",
        "LookaheadSlack-G2",
        60.0,
    ),
    ("reading HPC2N < 3 s", "read", "HPC2N-2002-2.1-cln", "", 3.0),
    ("500K-job workload < 1 GB (peak RSS)", "memory", "", "", GB),
)


def peak_rss() -> int:
    """Return the peak resident set size of this process so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024  # Linux reports KiB


def memory_child(n_jobs: int, machine_size: int) -> None:
    """Build and simulate the big workload in this (fresh) process; print the figures as JSON."""
    result: dict[str, Any] = {"rss_imported": peak_rss()}
    start = time.perf_counter()
    workload = backfill.lublin_feitelson(n_jobs, machine_size=machine_size)
    result["build_s"] = time.perf_counter() - start
    result["jobs"] = len(workload)
    result["nbytes"] = int(workload.records.nbytes)
    result["rss_built"] = peak_rss()
    start = time.perf_counter()
    schedule = simulate(workload, EASY())
    result["simulate_s"] = time.perf_counter() - start
    result["rss_simulated"] = peak_rss()
    validate_schedule(schedule)
    print(json.dumps(result))


def measure_memory(n_jobs: int, machine_size: int) -> dict[str, Any]:
    """Run :func:`memory_child` in a new interpreter and return what it measured."""
    command = [sys.executable, __file__, "--memory-child", str(n_jobs), str(machine_size)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the memory measurement failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def time_read(path: Path, repeat: int) -> tuple[float, backfill.Workload, backfill.ReadReport]:
    """Read a trace ``repeat`` times; return the best wall time, the workload and the report."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        workload, report = read_swf(path)
        best = min(best, time.perf_counter() - start)
    return best, workload, report


def time_simulation(
    workload: backfill.Workload, make: Callable[[], Scheduler], repeat: int
) -> dict[str, Any]:
    """Simulate ``repeat`` times; return the best wall time, its CPU time and the schedule's figures."""
    best_wall, best_cpu = float("inf"), float("inf")
    schedule = None
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        scheduler = make()
        current = simulate(workload, scheduler)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if schedule is not None and not np.array_equal(schedule.start, current.start, equal_nan=True):
            raise RuntimeError(f"{current.scheduler}: two runs of the same simulation differ")
        schedule = current
        if wall < best_wall:
            best_wall, best_cpu = wall, cpu
    assert schedule is not None
    validate_schedule(schedule)
    return {
        "wall": best_wall,
        "cpu": best_cpu,
        "mean_wait": summarize(schedule)["mean_wait"],
        "changes": len(schedule.reservations),
        # Lindsay et al. (2013, §4.3)'s work measure, for the schedulers that plan on a profile.
        "events": getattr(scheduler, "events_examined", None),
    }


def parse_names(parser: argparse.ArgumentParser, values: list[str], known: tuple[str, ...]) -> list[str]:
    """Split comma-separated scheduler names and match them to ``known``, ignoring case."""
    by_lower = {name.lower(): name for name in known}
    names = []
    for value in values:
        for name in filter(None, (part.strip() for part in value.split(","))):
            if name.lower() not in by_lower:
                parser.error(f"unknown scheduler {name!r}; choose from {', '.join(known)}")
            names.append(by_lower[name.lower()])
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--traces",
        nargs="+",
        default=list(DEFAULT_TRACES),
        metavar="NAME",
        help="trace names (file name without .swf.gz), space or comma separated",
    )
    parser.add_argument(
        "--schedulers",
        nargs="+",
        default=list(SCHEDULERS),
        metavar="NAME",
        help=f"schedulers among {', '.join(SCHEDULERS)}",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement (best is shown)")
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR, help="trace folder")
    parser.add_argument(
        "--memory-jobs", type=int, default=MEMORY_JOBS, help="jobs of the memory workload (0 skips it)"
    )
    parser.add_argument("--memory-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(*args.memory_child)
        return 0
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    traces = [part.strip() for value in args.traces for part in value.split(",") if part.strip()]
    schedulers = parse_names(parser, args.schedulers, tuple(SCHEDULERS))
    if not args.trace_dir.is_dir():
        print(f"trace folder {args.trace_dir} not found", file=sys.stderr)
        return 2

    load_before = os.getloadavg()
    # First, while this process is small: Linux keeps ru_maxrss across fork and exec, so a child
    # started after the traces were loaded would report this process's peak, not its own.
    memory = None
    if args.memory_jobs > 0:
        print(f"memory: {args.memory_jobs:,} Lublin-Feitelson jobs in a child process", file=sys.stderr)
        memory = measure_memory(args.memory_jobs, MEMORY_MACHINE)
    reads: dict[str, float] = {}
    sims: dict[tuple[str, str], dict[str, Any]] = {}
    read_rows, sim_rows = [], []
    for name in traces:
        path = args.trace_dir / f"{name}.swf.gz"
        if not path.exists():
            print(f"{name}: missing, skipped", file=sys.stderr)
            continue
        seconds, workload, report = time_read(path, args.repeat)
        reads[name] = seconds
        n = len(workload)
        print(f"{name}: read {n:,} jobs in {seconds:.2f} s", file=sys.stderr)
        read_rows.append(
            [
                name,
                f"{report.lines:,}",
                f"{n:,}",
                str(workload.machine_size),
                f"{seconds:.2f}",
                f"{n / seconds:,.0f}",
            ]
        )
        for sched in schedulers:
            m = sims[name, sched] = time_simulation(workload, SCHEDULERS[sched], args.repeat)
            print(f"{name}: {sched} in {m['wall']:.2f} s", file=sys.stderr)
            sim_rows.append(
                [
                    name,
                    f"{n:,}",
                    sched,
                    f"{m['wall']:.2f}",
                    f"{m['cpu']:.2f}",
                    f"{n / m['wall']:,.0f}",
                    f"{m['mean_wait']:,.0f}",
                    f"{m['changes']:,}",
                    "-" if m["events"] is None else f"{m['events']:,}",
                ]
            )

    load_after = os.getloadavg()

    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; best of {args.repeat}."
    )
    if sim_rows:
        print()
        header = [
            "trace",
            "jobs",
            "scheduler",
            "wall (s)",
            "CPU (s)",
            "jobs/s",
            "mean wait (s)",
            "res. changes",
            "events examined",
        ]
        print(markdown(header, sim_rows, right=3))
    if read_rows:
        print()
        print(markdown(["read_swf", "lines", "jobs", "procs", "time (s)", "jobs/s"], read_rows))
    if memory is not None:
        mb = 1e6
        print()
        rows = [
            [
                f"lublin_feitelson({memory['jobs']:,}, machine_size={MEMORY_MACHINE})",
                f"{memory['nbytes'] / mb:.1f}",
                f"{memory['rss_imported'] / mb:.0f}",
                f"{memory['rss_built'] / mb:.0f}",
                f"{memory['rss_simulated'] / mb:.0f}",
                f"{memory['build_s']:.1f}",
                f"{memory['simulate_s']:.1f}",
            ]
        ]
        header = [
            "workload",
            "records (MB)",
            "peak RSS: imported (MB)",
            "built (MB)",
            "simulated with EASY (MB)",
            "build (s)",
            "simulate (s)",
        ]
        print(markdown(header, rows))

    failed = False
    target_rows = []
    for label, kind, trace, sched, limit in TARGETS:
        value: float | None = None
        if kind == "simulate" and (trace, sched) in sims:
            value = sims[trace, sched]["wall"]
        elif kind == "read" and trace in reads:
            value = reads[trace]
        elif kind == "memory" and memory is not None and memory["jobs"] >= MEMORY_JOBS:
            value = float(memory["rss_simulated"])
        if value is None:
            target_rows.append([label, "-", "not run"])
            continue
        ok = value < limit
        failed |= not ok
        shown = f"{value / 1e6:,.0f} MB" if kind == "memory" else f"{value:.2f} s"
        target_rows.append([label, shown, "PASS" if ok else "FAIL"])
    print()
    print(markdown(["target", "measured", "result"], target_rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
