"""Instructions EASY executes at depth 1 and depth 4, in two versions of the library (callgrind).

Usage: python benchmarks/speed/bench_easy_paths.py --before PYTHON --after PYTHON [--trace NAME]
                                             [--prefix N] [--configs EXPR ...] [--workers N]

``--before`` and ``--after`` are Python interpreters whose environments import the two versions (an
editable install of each checkout). Each count is one process under callgrind, made as
``_callgrind.py`` says (the method ``bench_door_checks.py`` uses too): the first ``--prefix`` jobs of
the trace simulated under a scheduler given as an expression over ``backfill``'s names (``EASY()``,
``EASY(depth=4)``), less the count of a run that only builds the workload. The counted processes run
``--workers`` at a time, which changes no count.

The traces live in ../shared/traces relative to the project root.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _callgrind import instructions, write_prefix
from _common import DEFAULT_TRACE_DIR, markdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="Python that imports the version before")
    parser.add_argument("--after", required=True, help="Python that imports the version after")
    parser.add_argument("--trace", default="CTC-SP2-1996-3.1-cln")
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--prefix", type=int, default=20_000, help="jobs counted under callgrind")
    parser.add_argument("--configs", nargs="+", default=["EASY()", "EASY(depth=4)"])
    parser.add_argument("--workers", type=int, default=2, help="counted processes run side by side")
    args = parser.parse_args()
    trace = args.trace_dir / f"{args.trace}.swf.gz"
    sides = {"before": args.before, "after": args.after}
    counts: dict[tuple[str, str], int] = {}
    with tempfile.TemporaryDirectory() as cwd, ThreadPoolExecutor(args.workers) as pool:
        prefix = Path(cwd) / "prefix.npz"
        write_prefix(trace, args.prefix, prefix)
        # Each count is a process of its own, so running them side by side changes no count.
        asked = {
            (side, config, mode): pool.submit(instructions, python, prefix, config, mode, cwd)
            for side, python in sides.items()
            for config, mode in [(args.configs[0], "setup"), *((c, "run") for c in args.configs)]
        }
        for side in sides:
            setup = asked[side, args.configs[0], "setup"].result()
            for config in args.configs:
                counts[side, config] = asked[side, config, "run"].result() - setup
                print(f"{side} {config}: {counts[side, config]:,} instructions", file=sys.stderr)
    rows = []
    for config in args.configs:
        b, a = counts["before", config], counts["after", config]
        rows.append([f"`{config}`", f"{b:,}", f"{a:,}", f"{100 * (a / b - 1):+.2f} %"])
    print(f"Instructions (callgrind) simulating the first {args.prefix:,} jobs of {args.trace}:\n")
    print(markdown(["scheduler", "before", "after", "change"], rows))


if __name__ == "__main__":
    main()
