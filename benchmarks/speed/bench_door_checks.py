"""The cost of the protocol's door checks: two versions of the library, the same simulations, one run.

Usage: python benchmarks/speed/bench_door_checks.py --before PYTHON --after PYTHON [--trace NAME]
                                              [--schedulers NAME ...] [--repeat N] [--prefix N]
                                              [--no-timings] [--no-instructions]

``--before`` and ``--after`` are Python interpreters whose environments import the two versions
(an editable install of each checkout). Each runs as a worker process, started in an empty
temporary directory so that neither imports the checkout the script lives in, that reads the trace
once (``read_swf``, default cleaning) and then simulates it on request (``backfill.simulate``,
reservations recorded, the scheduler's defaults). The requests are interleaved, before and after
taking turns and swapping which goes first at every round, and each figure is the best of
``--repeat`` rounds, so that the load of a shared machine falls on both alike.

Wall time on a shared machine moves by more than the difference measured, so the script also counts
instructions, which other processes do not change: for the first ``--prefix`` jobs of the trace, each
version simulates them under ``valgrind --tool=callgrind`` once with the simulation and once without
(reading the prefix only), and the difference is the simulation's count. Both versions read the same
prefix, written by the script as a plain array file, and run with ``PYTHONHASHSEED=0`` and the
garbage collector off (when it runs depends on every allocation since the start, which moves the
count by more than the checks cost; the checks allocate nothing).

The traces live in ../shared/traces relative to the project root.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _callgrind import instructions as count
from _callgrind import write_prefix
from _common import DEFAULT_TRACE_DIR, markdown

# A worker: reads the trace, then for each line "NAME" on stdin simulates it and prints the timings.
_WORKER = r"""
import json, sys, time
import backfill
from backfill import read_swf, simulate
w, _ = read_swf(sys.argv[1])
print(json.dumps({"jobs": len(w), "file": backfill.__file__}), flush=True)
for line in sys.stdin:
    cls = getattr(backfill, line.strip())
    t, c = time.perf_counter(), time.process_time()
    simulate(w, cls())
    print(json.dumps([time.perf_counter() - t, time.process_time() - c]), flush=True)
"""


def _start(python: str, trace: Path, cwd: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    worker = subprocess.Popen(
        [python, "-c", _WORKER, str(trace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert worker.stdout is not None
    return worker, json.loads(worker.stdout.readline())


def _ask(worker: subprocess.Popen[str], name: str) -> list[float]:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(name + "\n")
    worker.stdin.flush()
    answer: list[float] = json.loads(worker.stdout.readline())
    return answer


def timings(sides: dict[str, str], trace: Path, schedulers: list[str], repeat: int) -> dict[str, Any]:
    """Best wall and CPU seconds of each (side, scheduler), the requests interleaved."""
    best: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as cwd:
        workers = {side: _start(python, trace, cwd) for side, python in sides.items()}
        for side, (_, info) in workers.items():
            print(f"{side}: {info['file']}, {info['jobs']:,} jobs", file=sys.stderr)
        order = list(sides)
        for r in range(repeat):
            for name in schedulers:
                for side in order if r % 2 == 0 else order[::-1]:
                    wall, cpu = _ask(workers[side][0], name)
                    old = best.get((side, name), [float("inf"), float("inf")])
                    best[side, name] = [min(old[0], wall), min(old[1], cpu)]
                    print(f"round {r + 1}: {side} {name} {wall:.3f} s", file=sys.stderr)
        for worker, _ in workers.values():
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()
    return {f"{side} {name}": value for (side, name), value in best.items()}


def instructions(sides: dict[str, str], trace: Path, schedulers: list[str], n: int) -> dict[str, int]:
    """Instructions of simulating the first ``n`` jobs, per (side, scheduler): run minus setup."""
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as cwd:
        prefix = Path(cwd) / "prefix.npz"
        write_prefix(trace, n, prefix)
        for side, python in sides.items():
            setup = count(python, prefix, f"{schedulers[0]}()", "setup", cwd)
            for name in schedulers:
                counts[f"{side} {name}"] = count(python, prefix, f"{name}()", "run", cwd) - setup
                print(f"{side} {name}: {counts[f'{side} {name}']:,} instructions", file=sys.stderr)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="Python that imports the version before")
    parser.add_argument("--after", required=True, help="Python that imports the version after")
    parser.add_argument("--trace", default="CTC-SP2-1996-3.1-cln")
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--schedulers", nargs="+", default=["EASY", "Conservative"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--prefix", type=int, default=20_000, help="jobs counted under callgrind")
    parser.add_argument("--no-timings", action="store_true")
    parser.add_argument("--no-instructions", action="store_true")
    args = parser.parse_args()
    trace = args.trace_dir / f"{args.trace}.swf.gz"
    sides = {"before": args.before, "after": args.after}
    if not args.no_timings:
        best = timings(sides, trace, args.schedulers, args.repeat)
        rows = []
        for name in args.schedulers:
            (bw, bc), (aw, ac) = best[f"before {name}"], best[f"after {name}"]
            wall = [f"{bw:.3f}", f"{aw:.3f}", f"{100 * (aw / bw - 1):+.1f} %"]
            rows.append([name, *wall, f"{bc:.3f}", f"{ac:.3f}", f"{100 * (ac / bc - 1):+.1f} %"])
        header = ["scheduler", "wall before (s)", "wall after (s)", "wall"]
        header += ["CPU before (s)", "CPU after (s)", "CPU"]
        print(f"{args.trace}, best of {args.repeat} interleaved rounds:\n")
        print(markdown(header, rows))
    if not args.no_instructions:
        counts = instructions(sides, trace, args.schedulers, args.prefix)
        rows = []
        for name in args.schedulers:
            b, a = counts[f"before {name}"], counts[f"after {name}"]
            rows.append([name, f"{b:,}", f"{a:,}", f"{100 * (a / b - 1):+.2f} %"])
        print(f"\nInstructions (callgrind) simulating the first {args.prefix:,} jobs:\n")
        print(markdown(["scheduler", "before", "after", "change"], rows))


if __name__ == "__main__":
    main()
