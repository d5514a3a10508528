"""The compiled kernel against the pure-Python reference, per scheduler, by queue length, and a naive list.

Usage: python benchmarks/speed/bench_kernel.py [--traces NAME ...] [--schedulers NAME ...] [--jobs N]
                                         [--repeat N] [--naive-jobs N] [--trace-dir DIR] [--json PATH]

Three tables, all from one run (each trace is read once, with ``read_swf``'s default cleaning policy,
and cut to its first ``--jobs`` jobs where given):

1. **Kernel against pure Python.** Every scheduler simulates every trace with the compiled kernel
   and inside :func:`backfill.kernel.pure_python` (the code without the kernel), the two runs
   interleaved, best of ``--repeat``; the schedules (start, end, order, reservation log) must be
   byte-identical, or the script exits 1.
2. **Cost per decision against queue length.** The same runs, once more each way, with every call of
   the scheduler (submit, complete, schedule) timed and filed under the number of jobs queued when it
   was made (bins 0, 1-3, 4-15, 16-63, ...): the mean microseconds per call in each bin show whether
   a decision's cost grows with the queue. Timing each call adds about 0.1 us to it.
3. **Against a naive list profile.** Conservative over the first ``--naive-jobs`` jobs of each trace
   on ``ListProfile``, the profile a first prototype writes: a Python list of ``[time, free]`` steps,
   scanned from the start for every query and updated one step at a time. The schedule must equal the
   library's; the ratio of the times is printed.

The machine's load average is printed: timings mean something only on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import sys
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, markdown
from schedule_digests import digest

from backfill import (
    DC,
    EASY,
    PC,
    Conservative,
    Job,
    LookaheadSlack,
    RelShare,
    Schedule,
    Scheduler,
    Selective,
    SlackBackfill,
    Workload,
    read_swf,
    simulate,
    sjf,
)
from backfill.kernel import compiled, pure_python

DEFAULT_TRACES = ("KTH-SP2-1996-2", "CTC-SP2-1996-3.1-cln", "HPC2N-2002-2.1-cln")
SCHEDULERS: dict[str, Callable[[], Scheduler]] = {
    "EASY": EASY,
    "Conservative": Conservative,
    "PC-sjf": lambda: PC(sjf),
    "DC-sjf": lambda: DC(sjf),
    "Selective": Selective,
    "RelShare": RelShare,
    "LookaheadSlack": LookaheadSlack,
    "SlackBackfill": SlackBackfill,
}
BINS = (0, 1, 4, 16, 64, 256, 1024, 4096, 16384)


def timed_run(w: Workload, make: Callable[[], Scheduler]) -> tuple[float, Schedule]:
    gc.collect()
    start = time.perf_counter()
    schedule = simulate(w, make())
    return time.perf_counter() - start, schedule


def timed_calls(make: Callable[[], Scheduler]) -> tuple[Scheduler, array[float], array[int]]:
    """A scheduler whose every call is timed and filed under the queue length when it was made."""
    costs: array[float] = array("d")
    queues: array[int] = array("q")
    queued = [0]
    clock = time.perf_counter
    scheduler = make()

    class Timed(type(scheduler)):  # type: ignore[misc]
        __slots__ = ()  # the same layout, so the scheduler can take this class

        def submit(self, job: Job, now: float) -> None:
            t = clock()
            super().submit(job, now)
            costs.append(clock() - t)
            queues.append(queued[0])
            queued[0] += 1

        def complete(self, job: Job, now: float) -> None:
            t = clock()
            super().complete(job, now)
            costs.append(clock() - t)
            queues.append(queued[0])

        def schedule(self, now: float) -> Sequence[Job]:
            t = clock()
            started = super().schedule(now)
            costs.append(clock() - t)
            queues.append(queued[0])
            queued[0] -= len(started)
            return started

    scheduler.__class__ = Timed
    return scheduler, costs, queues


def by_queue_length(costs: array[float], queues: array[int]) -> list[tuple[int, float]]:
    """(calls, mean microseconds per call) per bin of queue length."""
    c = np.frombuffer(costs, dtype=np.float64)
    q = np.frombuffer(queues, dtype=np.int64)
    which = np.searchsorted(np.array(BINS), q, side="right") - 1
    return [
        (int((which == b).sum()), float(c[which == b].mean() * 1e6) if (which == b).any() else float("nan"))
        for b in range(len(BINS))
    ]


class ListProfile:
    """Free processors as a plain list of ``[time, free]`` steps, scanned from the start every time.

    What a first prototype of Conservative writes: no bisection, one list object per step, updates
    that walk the list. The same step function and the same answers as :class:`backfill.Profile`.
    """

    def __init__(self, capacity: int, origin: float = 0) -> None:
        self.capacity = capacity
        self.steps: list[list[Any]] = [[origin, capacity]]
        self.examined = 0

    @property
    def origin(self) -> float:
        return self.steps[0][0]

    def _index(self, t: float) -> int:
        i = 0
        while i + 1 < len(self.steps) and self.steps[i + 1][0] <= t:
            i += 1
        return i

    def free_at(self, t: float) -> int:
        return self.steps[self._index(t)][1]

    def _split(self, t: float) -> int:
        i = self._index(t)
        if self.steps[i][0] != t:
            self.steps.insert(i + 1, [t, self.steps[i][1]])
            i += 1
        return i

    def _add(self, start: float, end: float, delta: int) -> None:
        i = self._split(start)
        j = self._split(end)
        for k in range(i, j):
            self.steps[k][1] += delta
        merged = [self.steps[0]]
        for step in self.steps[1:]:
            if step[1] != merged[-1][1]:
                merged.append(step)
        self.steps = merged

    def min_free(self, start: float, end: float) -> int:
        i = self._index(start)
        low = self.steps[i][1]
        for t, f in self.steps[i + 1 :]:
            if t >= end:
                break
            low = min(low, f)
        return low

    def reserve(self, start: float, end: float, processors: int) -> None:
        if end > start:
            self._add(start, end, -processors)

    def release(self, start: float, end: float, processors: int) -> None:
        if end > start:
            self._add(start, end, processors)

    def move(self, start: float, new: float, duration: float, processors: int) -> None:
        if duration > 0 and new != start:
            self._add(start, start + duration, processors)
            self._add(new, new + duration, -processors)

    def fits(self, s: float, p: int, d: float) -> bool:
        return self.min_free(s, s + d) >= p

    def earliest_fit(self, time: float, processors: int, duration: float) -> float:
        time = max(time, self.origin)
        if not duration > 0:
            return time
        for s in [time] + [t for t, _ in self.steps if t > time]:
            if self.fits(s, processors, duration):
                return s
        raise AssertionError("the last step has every processor free")

    def earliest_move(
        self, time: float, p: int, d: float, current: float, before: float | None = None
    ) -> float | None:
        bound = current if before is None or before > current else before
        time = max(time, self.origin)
        if not time < bound:
            return None
        self._add(current, current + d, p)  # the job's own reservation counts as free
        try:
            new = self.earliest_fit(time, p, d)
        finally:
            self._add(current, current + d, -p)
        return new if new < bound else None

    def advance(self, time: float) -> None:
        i = self._index(time)
        self.steps = [[time, self.steps[i][1]], *self.steps[i + 1 :]] if time > self.origin else self.steps

    def copy(self) -> ListProfile:
        other = ListProfile(self.capacity)
        other.steps = [list(s) for s in self.steps]
        return other


class ListConservative(Conservative):
    """Conservative's plain path (the papers' compression) on :class:`ListProfile`."""

    accelerated = False

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self._profile = ListProfile(machine_size, now)  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", nargs="+", default=list(DEFAULT_TRACES))
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS), choices=list(SCHEDULERS))
    parser.add_argument("--jobs", type=int, default=None, help="each trace's first N jobs (default all)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--naive-jobs", type=int, default=10_000)
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)
    if not compiled():
        print(
            "the compiled kernel is not built: install with a C compiler (pip install -e .)", file=sys.stderr
        )
        return 2
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    results: dict[str, Any] = {"speed": [], "queues": [], "naive": []}
    speed_rows, queue_rows, naive_rows = [], [], []
    identical = True
    for trace in args.traces:
        workload = read_swf(args.trace_dir / f"{trace}.swf.gz")[0]
        if args.jobs is not None and args.jobs < len(workload):
            workload = Workload.from_records(workload.records[: args.jobs], workload.machine_size)
        n = len(workload)
        for name in args.schedulers:
            make = SCHEDULERS[name]
            best = {"kernel": float("inf"), "pure": float("inf")}
            digests = {}
            for _ in range(args.repeat):
                for mode in ("kernel", "pure"):
                    if mode == "pure":
                        with pure_python():
                            seconds, schedule = timed_run(workload, make)
                    else:
                        seconds, schedule = timed_run(workload, make)
                    best[mode] = min(best[mode], seconds)
                    digests[mode] = digest(schedule)
            same = digests["kernel"] == digests["pure"]
            identical &= same
            ratio = best["pure"] / best["kernel"]
            results["speed"].append({"trace": trace, "scheduler": name, "jobs": n, **best, "identical": same})
            speed_rows.append(
                [trace, name, f"{n:,}", f"{best['pure']:.2f}", f"{best['kernel']:.2f}",
                 f"{best['pure'] / n * 1e6:.1f}", f"{best['kernel'] / n * 1e6:.1f}", f"{ratio:.2f}x",
                 "yes" if same else "NO"]
            )  # fmt: skip
            print(" | ".join(speed_rows[-1]), flush=True)
            for mode in ("pure", "kernel"):
                scheduler, costs, queues = timed_calls(make)
                if mode == "pure":
                    with pure_python():
                        simulate(workload, scheduler)
                else:
                    simulate(workload, scheduler)
                bins = by_queue_length(costs, queues)
                results["queues"].append({"trace": trace, "scheduler": name, "mode": mode, "bins": bins})
                queue_rows.append(
                    [trace, name, mode] + [f"{mean:.1f} ({calls:,})" if calls else "" for calls, mean in bins]
                )
        naive_workload = Workload.from_records(workload.records[: args.naive_jobs], workload.machine_size)
        times, digests = {}, {}
        for label, make in (("list", ListConservative), ("pure", Conservative), ("kernel", Conservative)):
            if label == "pure":
                with pure_python():
                    times[label], schedule = timed_run(naive_workload, make)
            else:
                times[label], schedule = timed_run(naive_workload, make)
            digests[label] = digest(schedule)
        same = len(set(digests.values())) == 1
        identical &= same
        results["naive"].append({"trace": trace, "jobs": len(naive_workload), **times, "identical": same})
        naive_rows.append(
            [trace, f"{len(naive_workload):,}", f"{times['list']:.2f}", f"{times['pure']:.2f}",
             f"{times['kernel']:.2f}", f"{times['list'] / times['pure']:.1f}x",
             f"{times['list'] / times['kernel']:.1f}x", "yes" if same else "NO"]
        )  # fmt: skip
    print(f"\nload average after: {os.getloadavg()[0]:.2f}\n")
    print("Kernel against pure Python (seconds, best of", args.repeat, "; us per job):\n")
    print(
        markdown(
            ["trace", "scheduler", "jobs", "pure (s)", "kernel (s)", "pure us/job", "kernel us/job",
             "speed-up", "identical"],
            speed_rows,
        )
    )  # fmt: skip
    print("\nMean microseconds per scheduler call by jobs queued at the call (number of calls):\n")
    labels = [str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}" for lo, hi in itertools.pairwise(BINS)]
    labels.append(f"{BINS[-1]}+")
    print(markdown(["trace", "scheduler", "path", *labels], queue_rows))
    print("\nConservative on a plain list profile (the naive prototype) against the library:\n")
    print(
        markdown(
            ["trace", "jobs", "list profile (s)", "pure (s)", "kernel (s)", "list / pure", "list / kernel",
             "identical"],
            naive_rows,
        )
    )  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if not identical:
        print("\nFAIL: a schedule differs between the paths", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
