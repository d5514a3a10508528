"""Time a node machine against the pool model: EASY and Conservative over a trace's first jobs.

Usage: python benchmarks/speed/bench_nodes.py [--trace NAME] [--jobs N] [--nodes GROUP ...]
                                             [--schedulers easy conservative ...]

Each scheduler runs three times over the same jobs (``read_swf``'s default cleaning, the first
``--jobs``): on processors alone (the compiled kernel where it runs), on a pool of processors and
memory (``Resource.memory`` at the node machine's memory per core: the pool model of issue 45), and
on the node machine (``nodes=Machine.parse(...)``, first fit). It prints each run's seconds, its
path, and the node run's time over the pool-with-memory run's: issue 56 asks at most 3x for EASY
and Conservative over RICC-2010-2's first 100,000 jobs on 1024 nodes of 8 cores and 12 GB.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR

from backfill import DC, EASY, PC, Conservative, Machine, Resource, Workload, read_swf, simulate

SCHEDULERS = {"easy": EASY, "conservative": Conservative, "pc": PC, "dc": DC}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="RICC-2010-2")
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--nodes", nargs="+", default=["1024x8,memory=12G"])
    parser.add_argument(
        "--schedulers", nargs="+", default=["easy", "conservative"], choices=sorted(SCHEDULERS)
    )
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    args = parser.parse_args()
    full, _ = read_swf(args.trace_dir / f"{args.trace}.swf.gz")
    machine = Machine.parse(args.nodes)
    w = Workload.from_jobs(full[: args.jobs], machine_size=machine.cores)
    memory = machine.totals()[machine.resources.index("memory")] if "memory" in machine.resources else 0
    print(f"{args.trace}: first {len(w):,} jobs; nodes {machine.text()} ({machine.node_count} nodes)")
    for name in args.schedulers:
        cls = SCHEDULERS[name]
        runs = {"processors": cls()}
        if memory:
            runs["pool+memory"] = cls(resources=[Resource.memory(memory)])
        runs["nodes"] = cls(nodes=machine)
        seconds = {}
        for label, scheduler in runs.items():
            start = time.perf_counter()
            schedule = simulate(w, scheduler)
            seconds[label] = time.perf_counter() - start
            print(
                f"  {scheduler.name:40s} {label:12s} {seconds[label]:9.2f} s  path={schedule.path}",
                flush=True,
            )
        base = seconds.get("pool+memory", seconds["processors"])
        print(f"  {name}: nodes / pool = {seconds['nodes'] / base:.0f}x", flush=True)


if __name__ == "__main__":
    main()
