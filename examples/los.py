"""LOS, backfilling with lookahead by dynamic programming, written outside the library.

LOS is from E. Shmueli and D. G. Feitelson, "Backfilling with lookahead to optimize the packing of
parallel jobs", J. Parallel and Distributed Computing 65(9):1090-1107, 2005 (first at JSSPP 2003 as
"... to optimize the performance of parallel job scheduling", LNCS 2862, pp. 228-251). Where EASY
backfills greedily, job by job, LOS chooses by dynamic programming the set of waiting jobs that uses
the most processors now without delaying the head job's reservation.

The variant here is the paper's reservation DP with EASY's head and a lookahead limit:

1. Queued jobs start in priority order while they fit, as in EASY.
2. The first job that does not fit (the head) is reserved at its shadow time: the earliest planned
   end of a running job by which enough processors are free for it. The processors free then beyond
   the head's are the extra processors.
3. Among the next ``lookahead`` queued jobs (default 50; the paper bounds its lookahead the same
   way), a DP over (free processors now, extra processors) finds a set that uses the most
   processors now, subject to: every chosen job fits the free processors, and the chosen jobs that
   would still run at the shadow time (start + estimate after it) fit the extra processors too. So
   the head never starts later than its reservation. Among sets of equal width the one that takes
   earlier queued jobs is chosen (each job, in queue order, is taken if some best set with the
   jobs already taken includes it).

Where the paper's LOS differs in other details (such as what it does when the queue's first job
fits), this example follows EASY. Not implemented: the paper's other ways of choosing among sets
of equal width (it found that the set with the largest expected slowdown does better than the one
at the front of the queue). The DP costs O(L * f * x) for L jobs looked at, f free and x extra
processors. The scheduler uses only public names of ``backfill`` (QueueScheduler's ``ordered``,
``free``, ``running_jobs``, ``reservations``, ``note_reservation``, ``start``).

Run: python examples/los.py [--trace PATH] [--jobs N] [--lookahead L] [--examples K]
Without --trace the workload is the Lublin-Feitelson model; with it, the first N jobs of an SWF
log (e.g. ../shared/traces/KTH-SP2-1996-2.swf.gz). The script simulates LOS and EASY, validates
both schedules, property-tests LOS with backfill.testing on K random workloads (needs hypothesis:
pip install ".[test]") and prints a table of mean wait, mean bounded slowdown, utilization.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import numpy as np

from backfill import (
    EASY,
    Job,
    ParameterError,
    QueueScheduler,
    Workload,
    lublin_feitelson,
    metrics_table,
    read_swf,
    simulate,
    validate_schedule,
)
from backfill.schedulers import QueueEntry


@attrs.define(repr=False, eq=False)
class LOS(QueueScheduler):
    """LOS with EASY's head reservation: pack the most processors now by dynamic programming."""

    lookahead: int = attrs.field(default=50, kw_only=True)

    @lookahead.validator
    def check_lookahead(self, attribute: attrs.Attribute[int], value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ParameterError(f"LOS: lookahead must be an int >= 0, got {value!r}")

    @property
    def name(self) -> str:
        return f"LOS({self.lookahead})"

    def shadow(self, processors: int) -> tuple[float, int]:
        """When ``processors`` will be free by the running jobs' planned ends, and the surplus then."""
        avail, shadow = self.free, None
        for running in self.running_jobs():
            if shadow is not None and running.planned_end > shadow:
                break
            avail += running.processors
            if shadow is None and avail >= processors:
                shadow = running.planned_end
        assert shadow is not None, "a job no wider than the machine fits once every job ends"
        return shadow, avail - processors

    def pack(self, candidates: Sequence[QueueEntry], free: int, extra: int, ends: list[bool]) -> list[int]:
        """Return the indices of the widest set of candidates to start now (see the module docstring).

        ``ends[k]`` tells whether candidate k, started now, ends by the shadow time; one that does
        not uses extra processors as well as free ones.
        """
        extra = min(extra, free)
        widths = [entry[2].processors for entry in candidates]
        # best[i][a, b]: the most processors candidates i.. can use with a free and b extra ones.
        best = [np.zeros((free + 1, extra + 1), dtype=np.int64) for _ in range(len(candidates) + 1)]
        for i in range(len(candidates) - 1, -1, -1):
            p, q = widths[i], 0 if ends[i] else widths[i]
            table = best[i + 1].copy()
            if p <= free and q <= extra:
                taken = best[i + 1][: free + 1 - p, : extra + 1 - q] + p
                np.maximum(table[p:, q:], taken, out=table[p:, q:])
            best[i] = table
        chosen, a, b = [], free, extra
        for i, p in enumerate(widths):
            q = 0 if ends[i] else p
            if p <= a and q <= b and best[i + 1][a - p, b - q] + p == best[i][a, b]:
                chosen.append(i)
                a, b = a - p, b - q
        return chosen

    def schedule(self, now: float) -> list[Job]:
        queue = list(self.ordered(now))
        free = self.free
        # As EASY: the previous head loses its reservation if a job ahead of it now takes its place.
        previous = next(iter(self.reservations()), None)
        overtaken = False
        i = 0
        while i < len(queue) and queue[i][2].processors <= free:
            free -= queue[i][2].processors
            if queue[i][2].id == previous:
                previous = None
            elif previous is not None:
                overtaken = True
            i += 1
        started = self.start(queue[:i], now) if i else []
        if i == len(queue):
            return started
        head = queue[i][2]
        shadow, extra = self.shadow(head.processors)
        if previous is not None and (overtaken or previous != head.id):
            self.note_reservation(previous, math.nan)
        self.note_reservation(head.id, shadow)
        candidates = [e for e in queue[i + 1 : i + 1 + self.lookahead] if e[2].processors <= free]
        if not candidates or free == 0:
            return started
        ends = [now + entry[2].estimate <= shadow for entry in candidates]
        chosen = [candidates[k] for k in self.pack(candidates, free, extra, ends)]
        return started + (self.start(chosen, now) if chosen else [])


def property_test(examples: int) -> int:
    """Check LOS with backfill.testing on ``examples`` random workloads; return how many ran."""
    from hypothesis import given, settings

    from backfill.testing import check_scheduler, workloads

    tried = []

    @settings(max_examples=examples, deadline=None, database=None)
    @given(workloads(max_jobs=20, overruns=True))
    def los_keeps_the_head_reservation(workload: Workload) -> None:
        # "while_held": no job starts later than a reservation it holds (LOS reserves only the head).
        check_scheduler(LOS(lookahead=8), workload, guarantees="while_held")
        tried.append(workload)

    los_keeps_the_head_reservation()
    return len(tried)


def load(trace: Path | None, jobs: int) -> tuple[Workload, str]:
    """The first ``jobs`` jobs of an SWF log, or of the Lublin-Feitelson model; and a description."""
    if trace is None:
        return lublin_feitelson(jobs, seed=1), f"Lublin-Feitelson model, 128 processors, {jobs} jobs, seed 1"
    workload, _ = read_swf(trace)
    workload = Workload.from_records(workload.records[:jobs], workload.machine_size, header=workload.header)
    return workload, f"{trace.name}: {workload.machine_size} processors, first {len(workload)} jobs"


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= ``low``."""

    def read(text: str) -> int:
        if not text.strip().lstrip("+").isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {text!r}")
        return int(text)

    return read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--trace", type=Path, help="an SWF log (.swf or .swf.gz); none: the model")
    parser.add_argument("--jobs", type=at_least(1), default=2000, help="jobs to simulate")
    parser.add_argument("--lookahead", type=at_least(0), default=50, help="queued jobs LOS looks at")
    parser.add_argument("--examples", type=at_least(1), default=25, help="random workloads to check")
    args = parser.parse_args(argv)
    if args.trace is not None and not args.trace.exists():
        print(f"{args.trace}: no such file", file=sys.stderr)
        return 2

    workload, description = load(args.trace, args.jobs)
    schedules = [simulate(workload, EASY()), simulate(workload, LOS(lookahead=args.lookahead))]
    for schedule in schedules:
        validate_schedule(schedule)
    print(f"LOS kept the head's reservation on {property_test(args.examples)} random workloads")
    print(description)
    print(metrics_table(schedules, columns=["jobs", "mean_wait", "mean_bsld", "utilization"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
