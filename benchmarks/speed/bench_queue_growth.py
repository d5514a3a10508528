"""How a scheduler's cost per job grows from a trace's first jobs to the whole trace, and why.

Usage: python benchmarks/speed/bench_queue_growth.py [--trace NAME] [--prefix N] [--jobs N]
                                               [--schedulers NAME ...] [--repeat N] [--trace-dir DIR]

For each scheduler, with the compiled kernel and inside :func:`backfill.kernel.pure_python`, the
trace's first ``--prefix`` jobs and the whole trace (its first ``--jobs``, if given) are simulated
(best of ``--repeat``), and the table gives:

* microseconds per job on each, and their ratio (issue 32's target for Conservative over HPC2N:
  the whole trace within 1.5 times the first 25,000 jobs);
* the mean queue length a job finds when it arrives;
* the profile steps examined per job (``events_examined``, the searches' work), and what scanning
  them costs: one search over a profile of 40,000 steps is timed to give nanoseconds per step, and
  steps x that cost estimates the seconds of the run spent scanning steps.

The schedules of the two paths must be byte-identical (or the script exits 1). The machine's load
average is printed: timings mean something only on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, markdown
from bench_kernel import SCHEDULERS, timed_run
from schedule_digests import digest

from backfill import Profile, Schedule, Workload, read_swf
from backfill.kernel import compiled, pure_python


def mean_queue_at_arrival(schedule: Schedule) -> float:
    """Mean number of jobs waiting when a job arrives (the arriving job not counted)."""
    submit = np.sort(schedule.submit)
    start = np.sort(schedule.start[np.isfinite(schedule.start)])
    arrived = np.searchsorted(submit, submit, side="left")  # jobs submitted strictly before
    started = np.searchsorted(start, submit, side="right")  # jobs started by then
    return float(np.mean(arrived - np.minimum(started, arrived)))


def ns_per_step(steps: int = 20_000) -> float:
    """Nanoseconds per profile step scanned by ``earliest_fit`` (whichever path is in use)."""
    p = Profile(100)
    for i in range(steps):
        p.reserve(i * 10, i * 10 + 5, 50 + i % 2)
    best = float("inf")
    for _ in range(20):
        before = p.examined
        t = time.perf_counter()
        p.earliest_fit(0, 60, 7)  # room only after the last step: every step is scanned
        best = min(best, (time.perf_counter() - t) / (p.examined - before))
    return best * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", default="HPC2N-2002-2.1-cln")
    parser.add_argument("--prefix", type=int, default=25_000)
    parser.add_argument("--jobs", type=int, default=None, help="the trace's first N jobs only")
    parser.add_argument("--schedulers", nargs="+", default=["Conservative"], choices=list(SCHEDULERS))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    args = parser.parse_args(argv)
    if not compiled():
        print(
            "the compiled kernel is not built: install with a C compiler (pip install -e .)", file=sys.stderr
        )
        return 2
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    whole = read_swf(args.trace_dir / f"{args.trace}.swf.gz")[0]
    if args.jobs is not None:
        whole = Workload.from_records(whole.records[: args.jobs], whole.machine_size)
    prefix = Workload.from_records(whole.records[: args.prefix], whole.machine_size)
    step_ns = {"kernel": ns_per_step()}
    with pure_python():
        step_ns["pure"] = ns_per_step()
    rows = []
    identical = True
    for name in args.schedulers:
        make = SCHEDULERS[name]
        for mode in ("kernel", "pure"):
            figures = {}
            for label, w in (("prefix", prefix), ("whole", whole)):
                best, examined, schedule = float("inf"), 0, None
                for _ in range(args.repeat):
                    scheduler = make()
                    if mode == "pure":
                        with pure_python():
                            seconds, schedule = timed_run(w, lambda s=scheduler: s)
                    else:
                        seconds, schedule = timed_run(w, lambda s=scheduler: s)
                    best = min(best, seconds)
                    examined = getattr(scheduler, "events_examined", 0) or 0
                assert schedule is not None
                figures[label] = (best, examined, schedule)
            for label, w in (("prefix", prefix), ("whole", whole)):
                best, examined, schedule = figures[label]
                n = len(w)
                scan = examined * step_ns[mode] * 1e-9
                rows.append(
                    [name, mode, f"{n:,}", f"{mean_queue_at_arrival(schedule):.1f}", f"{best:.2f}",
                     f"{best / n * 1e6:.1f}", f"{examined / n:.0f}", f"{scan:.2f} ({scan / best:.0%})"]
                )  # fmt: skip
            ratio = (figures["whole"][0] / len(whole)) / (figures["prefix"][0] / len(prefix))
            rows.append([name, mode, "whole / prefix", "", "", f"{ratio:.2f}x", "", ""])
            print(" | ".join(rows[-1]), flush=True)
            if mode == "kernel":
                kernel_digest = digest(figures["whole"][2])
            elif digest(figures["whole"][2]) != kernel_digest:
                identical = False
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    print(f"ns per profile step scanned: kernel {step_ns['kernel']:.1f}, pure {step_ns['pure']:.1f}\n")
    print(
        markdown(
            ["scheduler", "path", "jobs", "mean queue at arrival", "seconds", "us per job",
             "steps examined per job", "est. seconds scanning steps"],
            rows,
            right=2,
        )
    )  # fmt: skip
    if not identical:
        print("\nTHE SCHEDULES DIFFER between the kernel and the pure path", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
