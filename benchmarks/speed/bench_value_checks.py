"""What the value checks of jobs, workloads and the profile cost: two installs of the library, one run.

Usage: python benchmarks/speed/bench_value_checks.py --before PYTHON --after PYTHON [--trace PATH]
                                                [--repeat N] [--jobs N] [--schedulers NAME ...]
       python benchmarks/speed/bench_value_checks.py --instructions --before PYTHON --after PYTHON [--jobs N]

``--before`` and ``--after`` are the Python interpreters of two environments with the library
installed (say, one with the main branch and one with the checks). Each measurement runs in a child
process of one of them, and the children alternate (before, after, after, before, ...), so that the
load of a shared machine falls on both alike; each figure is the best of ``--repeat`` runs. A child
reads the trace with ``read_swf`` (timed on its own: the workload's bulk check is part of it), keeps
its first ``--jobs`` jobs if asked, and simulates it under each scheduler with ``simulate`` and its
default settings.

With ``--instructions`` each child runs under ``valgrind --tool=callgrind`` instead, which counts
the instructions executed (far steadier than wall time on a busy machine): once only loading the
workload and once loading it and simulating under each scheduler, so the difference is the
simulation's count. The trace is read once, and its first ``--jobs`` jobs saved as a numpy file
that each child loads and builds a workload from (``Workload.from_records``, so the load includes the
workload's bulk check), which keeps the noise of parsing out of the counts. Use a prefix (``--jobs
20000``): under valgrind Python runs about fifty times slower.

The traces live in ../shared/traces relative to the project root.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

DEFAULT_TRACE = (
    Path(__file__).resolve().parents[2].parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"
)


def child(trace: str, jobs: int, schedulers: list[str], save: str, load: str) -> dict[str, float]:
    """Read (or load), cut and simulate in this process; return wall seconds by step."""
    import numpy as np

    from backfill import Workload, read_swf, simulate
    from backfill.schedulers.registry import scheduler_entry

    out: dict[str, float] = {}
    t = time.perf_counter()
    if load:
        saved = np.load(load)
        workload = Workload.from_records(saved["records"], int(saved["machine_size"]))
    else:
        workload, _ = read_swf(trace)
        if jobs:
            workload = Workload.from_records(workload.records[:jobs], workload.machine_size)
    out["read"] = time.perf_counter() - t
    if save:
        np.savez(save, records=workload.records, machine_size=workload.machine_size)
    for name in schedulers:
        t = time.perf_counter()
        simulate(workload, scheduler_entry(name).build())
        out[name] = time.perf_counter() - t
    return out


def run_child(python: str, args: argparse.Namespace, schedulers: list[str]) -> dict[str, float]:
    command = [python, __file__, "--child", "--trace", str(args.trace), "--jobs", str(args.jobs)]
    done = subprocess.run(
        [*command, "--schedulers", *schedulers], capture_output=True, text=True, check=True, env=_env()
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def count_instructions(python: str, saved: Path, schedulers: list[str]) -> int:
    """Instructions of one child under callgrind (the whole process), loading the saved workload."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "callgrind.out"
        command = [python, __file__, "--child", "--load", str(saved)]
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                *command,
                "--schedulers",
                *schedulers,
            ],
            capture_output=True,
            text=True,
            check=True,
            env=_env(),
        )
        summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
        assert summary is not None, "callgrind wrote no summary"
        return int(summary.group(1))


def _env() -> dict[str, str]:
    # The same string hashes in every child, so that dict and set layouts (and counts) repeat.
    return os.environ | {"PYTHONHASHSEED": "0"}


def _version(python: str) -> str:
    """Where the interpreter imports the library from (run outside the project, which would shadow it)."""
    code = "import backfill, pathlib; print(pathlib.Path(backfill.__file__).parent.parent.name)"
    with tempfile.TemporaryDirectory() as d:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, cwd=d)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", help="Python of the environment without the checks")
    parser.add_argument("--after", help="Python of the environment with the checks")
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=0, help="keep the first N jobs (0: all)")
    parser.add_argument("--schedulers", nargs="*", default=["EASY", "Conservative"])
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--save", default="", help=argparse.SUPPRESS)
    parser.add_argument("--load", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(str(args.trace), args.jobs, args.schedulers, args.save, args.load)))
        return
    if not (args.before and args.after):
        parser.error("--before and --after are required")
    sides = {"before": args.before, "after": args.after}
    if _version(args.before) == _version(args.after):
        parser.error("--before and --after import the library from the same place")
    print(
        f"trace {args.trace.name}, jobs {args.jobs or 'all'}; before: {_version(args.before)}, "
        f"after: {_version(args.after)}; load average {os.getloadavg()[0]:.2f}"
    )
    if args.instructions:
        counts: dict[tuple[str, str], int] = {}
        with tempfile.TemporaryDirectory() as d:
            saved = Path(d) / "workload.npz"
            command = [args.before, __file__, "--child", "--trace", str(args.trace), "--jobs", str(args.jobs)]
            subprocess.run([*command, "--schedulers", "--save", str(saved)], check=True, capture_output=True)
            for step in ["read", *args.schedulers]:
                for side, python in sides.items():
                    counts[side, step] = count_instructions(python, saved, [] if step == "read" else [step])
        print("| step | before (instructions) | after | change |")
        print("|---|---:|---:|---:|")
        for step in ["read", *args.schedulers]:
            b, a = counts["before", step], counts["after", step]
            if step != "read":
                b, a = b - counts["before", "read"], a - counts["after", "read"]
            print(f"| {step} | {b:,} | {a:,} | {100 * (a - b) / b:+.2f} % |")
        return
    best: dict[tuple[str, str], float] = {}
    for r in range(args.repeat):
        order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
        for side, python in order:
            for step, seconds in run_child(python, args, args.schedulers).items():
                best[side, step] = min(best.get((side, step), float("inf")), seconds)
    print(f"best of {args.repeat}, wall seconds, children interleaved; load average {os.getloadavg()[0]:.2f}")
    print("| step | before (s) | after (s) | change |")
    print("|---|---:|---:|---:|")
    for step in ["read", *args.schedulers]:
        fb, fa = best["before", step], best["after", step]
        print(f"| {step} | {fb:.3f} | {fa:.3f} | {100 * (fa - fb) / fb:+.2f} % |")


if __name__ == "__main__":
    main()
