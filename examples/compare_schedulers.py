"""Compare FCFS, EASY and Conservative backfilling on an archive log in the Standard Workload Format.

Run: python examples/compare_schedulers.py [PATH]

PATH is an ``.swf`` or ``.swf.gz`` file; by default the KTH-SP2 log in ../shared/traces relative to
the project root. The reader's report (jobs kept, dropped and altered, by reason) is printed before
the metrics table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from backfill import EASY, FCFS, Conservative, read_swf, simulate, validate_schedule
from backfill.measures.metrics import metrics_table

DEFAULT_TRACE = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "KTH-SP2-1996-2.swf.gz"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_TRACE, help="an SWF log")
    args = parser.parse_args(argv)
    if not args.path.exists():
        print(f"{args.path}: no such file", file=sys.stderr)
        return 2

    workload, report = read_swf(args.path)
    print(report.summary())
    print()
    schedules = [simulate(workload, scheduler) for scheduler in (FCFS(), EASY(), Conservative())]
    for schedule in schedules:
        validate_schedule(schedule)
    print(metrics_table(schedules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
