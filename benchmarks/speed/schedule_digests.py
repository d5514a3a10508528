"""Fingerprint every built-in scheduler's schedule on archive traces, to prove a refactoring changed none.

Usage: python benchmarks/speed/schedule_digests.py [--traces NAME ...] [--jobs N] [--output PATH]
                                             [--compare PATH] [--trace-dir DIR]

Each trace is read with ``read_swf`` (default cleaning policy), optionally cut to its first ``--jobs``
jobs, and simulated under each configuration below with reservations recorded. The digest of a
schedule is the SHA-256 of its start, end, start order, reservation records and rejection reasons,
as bytes: two schedules have the same digest only if they are byte-identical. ``--output`` writes
the digests as JSON; ``--compare`` reads such a file (made, say, by the same script at an earlier
commit) and exits 1 if any digest differs, listing which.

The configurations are written with the public constructors only, so that the same file runs
against any version of the library since they existed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR

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
    Schedule,
    Scheduler,
    Selective,
    SlackBackfill,
    Workload,
    ljf,
    read_swf,
    simulate,
    sjf,
)

DEFAULT_TRACES = (
    "NASA-iPSC-1993-3.1-cln",
    "KTH-SP2-1996-2",
    "SDSC-Par-1996-3.1-cln",
    "SDSC-SP2-1998-4.2-cln",
    "CTC-SP2-1996-3.1-cln",
    "OSC-Clust-2000-3.1-cln",
)

CONFIGURATIONS: dict[str, Callable[[], Scheduler]] = {
    "FCFS": FCFS,
    "EASY": EASY,
    "EASY-sjf": lambda: EASY(priority=sjf),
    "EASY-depth4": lambda: EASY(depth=4),
    "EASY-depth-inf": lambda: EASY(depth=None),
    "Conservative": Conservative,
    "PC": PC,
    "PC-sjf": lambda: PC(sjf),
    "PC-ljf": lambda: PC(ljf),
    "DC": DC,
    "DC-sjf": lambda: DC(sjf),
    "Selective": Selective,
    "Selective-D": lambda: Selective(CategoryThresholds(22.30, 72.40, 1.72, 2.59)),
    "RelShare": RelShare,
    "RelShare-wo": lambda: RelShare(expected_usage=False),
    "LookaheadSlack-G1": LookaheadSlack,
    "LookaheadSlack-G2": lambda: LookaheadSlack(goal=G2()),
    "SlackBackfill": SlackBackfill,
}


def digest(schedule: Schedule) -> str:
    """Return the SHA-256 of everything a schedule decided."""
    h = hashlib.sha256()
    for array in (schedule.start, schedule.end, schedule.start_order, schedule.reservations):
        h.update(np.ascontiguousarray(array).tobytes())
    h.update(json.dumps(sorted(schedule.rejected.items())).encode())
    return h.hexdigest()


def head(workload: Workload, n: int | None) -> Workload:
    """Return the first ``n`` jobs of a workload (all of it when ``n`` is None)."""
    if n is None or n >= len(workload):
        return workload
    return Workload.from_jobs(list(workload)[:n], machine_size=workload.machine_size)


def main(argv: list[str] | None = None) -> int:
    """Run the configurations over the traces, then write or compare the digests."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", nargs="+", default=list(DEFAULT_TRACES))
    parser.add_argument("--schedulers", nargs="+", default=list(CONFIGURATIONS))
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args(argv)
    if args.output and args.compare and args.output.resolve() == args.compare.resolve():
        # The run would overwrite the digests it compares with, and then find them all identical.
        parser.error(f"--output and --compare are the same file ({args.compare}): give two files")
    # Read before the run: a missing or unreadable file fails at once, not after an hour of simulations.
    expected = None
    if args.compare:
        try:
            expected = json.loads(args.compare.read_text())
        except (OSError, ValueError) as error:
            parser.error(f"cannot read the digests to compare with, {args.compare}: {error}")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    for trace in args.traces:
        workload = head(read_swf(args.trace_dir / f"{trace}.swf.gz")[0], args.jobs)
        for name in args.schedulers:
            start = time.perf_counter()
            schedule = simulate(workload, CONFIGURATIONS[name]())
            key = f"{trace}/{name}"
            digests[key] = digest(schedule)
            print(
                f"{key}: {digests[key][:16]} ({len(workload)} jobs, {time.perf_counter() - start:.1f} s)",
                flush=True,
            )
            if args.output:  # written after each run, so that a long run's progress is kept
                args.output.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    if expected is not None:
        differ = [key for key, value in digests.items() if expected.get(key) not in (None, value)]
        missing = [key for key in digests if key not in expected]
        print(
            f"{len(digests) - len(differ) - len(missing)} identical, {len(differ)} differ, "
            f"{len(missing)} not in {args.compare}"
        )
        for key in differ:
            print(f"DIFFERS: {key}")
        return 1 if differ or missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
