"""What a second resource costs: Conservative and EASY with processors alone and with memory, in one run.

Usage: python benchmarks/speed/bench_resources.py [--trace STEM] [--jobs N] [--per-processor KB]
                                            [--repeats N] [--schedulers NAME ...] [--profile NAME]

Issue 45, point 7: "two resources cost at most 2x one resource for Conservative and EASY on the same
trace, measured in one run". In this one process, on the first ``--jobs`` jobs of the trace (read with
``read_swf``'s default cleaning, the jobs whose memory exceeds the machine's left out), each scheduler
simulates the window with processors alone and with processors and memory (``Resource.memory`` of
``--per-processor`` kB per processor), both on the pure-Python path (``BACKFILL_PURE_PYTHON=1``, set
here before ``backfill`` is imported, so the comparison is of the same code path). The runs are
interleaved (each repeat runs every configuration once) and the minimum of ``--repeats`` CPU times of
this process (``time.process_time``, steadier than wall time on a shared machine) is kept;
the ratio is memory's over processors alone. A scheduler that does not plan memory yet is reported and
skipped. ``--profile NAME`` then profiles NAME with memory (cProfile) and prints the 25 costliest
functions by their own time.

The traces live in ../shared/traces relative to the project root.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("BACKFILL_PURE_PYTHON", "1")

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, markdown

from backfill import EASY, Conservative, Resource, Scheduler, Workload, kernel, read_swf, simulate
from backfill.workloads.resources import memory_request


class _PlainConservative(Conservative):
    """Conservative on its plain path even with processors alone (the path it takes with resources)."""

    accelerated = False


class _PlainEASY(EASY):
    """EASY on its plain path even with processors alone: a full pass at every decision."""

    accelerated = False


#: The schedulers timed. With resources Conservative compresses on its plain path (one search per
#: queued job), while with processors alone it takes the faster long-queue path by default: the
#: ``-plain`` variants take the plain path in both configurations, so their ratio is what the second
#: resource itself costs.
SCHEDULERS: dict[str, Callable[..., Scheduler]] = {
    "conservative": Conservative,
    "conservative-plain": _PlainConservative,
    "easy": EASY,
    "easy-plain": _PlainEASY,
}


def window(trace: Path, jobs: int, per_processor: int) -> tuple[Workload, Resource]:
    """The first ``jobs`` jobs of ``trace`` whose memory fits the machine, and the machine's memory."""
    workload, _ = read_swf(trace)
    first = Workload.from_records(workload.records[:jobs], workload.machine_size)
    memory = Resource.memory(per_processor * first.machine_size)
    keep = [memory_request(job) <= memory.capacity for job in first]
    return Workload.from_records(first.records[keep], first.machine_size), memory


def _seconds(workload: Workload, build: Callable[[], Scheduler]) -> float:
    gc.collect()
    # CPU seconds of this process: on a machine shared with other runs, wall seconds vary by more
    # than the difference measured.
    started = time.process_time()
    simulate(workload, build())
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="RICC-2010-2")
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--jobs", type=int, default=5_000)
    parser.add_argument("--per-processor", type=int, default=3 * 2**20 // 2, help="memory per processor, kB")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS), choices=list(SCHEDULERS))
    parser.add_argument("--profile", choices=list(SCHEDULERS), help="profile this scheduler with memory")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.repeats < 1 or args.per_processor < 1:
        parser.error("--jobs, --repeats and --per-processor must be at least 1")
    trace = args.trace_dir / f"{args.trace}.swf.gz"
    if not trace.is_file():
        parser.error(f"no trace at {trace}")
    if kernel.compiled():
        parser.error(
            "BACKFILL_PURE_PYTHON is 0: the comparison is of the pure-Python path, leave it unset or 1"
        )
    workload, memory = window(trace, args.jobs, args.per_processor)
    configs: dict[tuple[str, str], Callable[[], Scheduler]] = {}
    for name in args.schedulers:
        build = SCHEDULERS[name]
        configs[name, "processors"] = build
        configs[name, "memory"] = lambda build=build: build(resources=[memory])
        if simulate(workload, configs[name, "memory"]()).scheduler == simulate(workload, build()).scheduler:
            print(f"{name} does not plan memory in this build: skipped", file=sys.stderr)
            del configs[name, "processors"], configs[name, "memory"]
    best = {key: float("inf") for key in configs}
    for repeat in range(args.repeats):
        for key, build in configs.items():
            best[key] = min(best[key], _seconds(workload, build))
            print(f"repeat {repeat + 1}: {key[0]} {key[1]} {best[key]:.3f} s", file=sys.stderr, flush=True)
    rows = []
    for name in args.schedulers:
        if (name, "processors") in best:
            alone, both = best[name, "processors"], best[name, "memory"]
            rows.append([name, f"{alone:.3f}", f"{both:.3f}", f"{both / alone:.2f}"])
    print(
        f"CPU seconds (min of {args.repeats}, interleaved, pure Python) to simulate the first"
        f" {args.jobs:,} jobs of {args.trace} ({len(workload):,} after leaving out those too large), memory"
        f" {args.per_processor:,} kB per processor:\n"
    )
    print(markdown(["scheduler", "processors", "processors + memory", "ratio"], rows))
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(simulate, workload, SCHEDULERS[args.profile](resources=[memory]))
        print()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
