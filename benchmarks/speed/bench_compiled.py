"""The compiled whole-run path against the pure-Python path: every speed target, in one run.

Usage: python benchmarks/speed/bench_compiled.py [--traces NAME ...] [--configs LABEL ...] [--repeat N]
                                           [--prefix-trace NAME]
                                           [--prefix N] [--fst-trace NAME] [--fst-jobs N]
                                           [--fst-schedulers NAME ...] [--ricc-schedulers NAME ...]
                                           [--ricc-limit SECONDS] [--trace-dir DIR] [--json PATH]

``simulate`` runs a configuration whole in the compiled kernel where the kernel implements it exactly
(``backfill/kernel/_runs.py``), else on the Python path, whose profile searches and compression
loops the kernel still speeds up. Each table comes from this one run, with each trace read once
(``read_swf``, default cleaning):

1. **Compiled against pure Python.** Every configuration simulates every trace as installed and
   inside :func:`backfill.kernel.pure_python`, the two interleaved, best of ``--repeat``. The
   schedules (start, end, start order, reservation log) must be byte-identical, or the script exits
   1. The target is the issue's: 6x for EASY, FCFS and Conservative, 4x for PC and DC; a
   configuration the whole-run path does not implement yet shows its path as ``python``.
2. **Per-job cost against trace length.** Microseconds per job (as installed) over the first
   ``--prefix`` jobs of ``--prefix-trace`` and over the whole trace, and their ratio (target 1.3,
   1.5 for PC); best of ``--repeat`` (at least 5) where the run is compiled, one run otherwise.
3. **Fair start times.** Strict and relaxed FSTs of each of ``--fst-schedulers`` over
   ``--fst-trace`` (its first ``--fst-jobs`` jobs if given), on the default process pool, as
   installed (forks of the compiled run where the kernel runs the configuration whole) and under
   :func:`backfill.kernel.python_path` (forks of the Python simulator, with the kernel's profile
   steps and compression loops: the library before whole runs were compiled), one after the other.
   The FSTs must be identical. Target 5x.
4. **RICC-2010-2.** Each of ``--ricc-schedulers`` (every registered scheduler in its default
   configuration unless told) simulates the whole of RICC-2010-2 as installed, in a process of its
   own that is stopped after ``--ricc-limit`` seconds (600: the target is under 10 minutes), beside
   the figure the issue recorded for the Python path. Reading the trace is not timed.

The growth table also gives the reservation-log entries per job over the prefix and the whole trace:
every entry is one reservation the algorithm made or moved, which the compiled path must make and
log too (its log is byte-identical), so their ratio is the growth of the algorithm's own work, and
the last column the growth of the cost per entry.

The machine's load average is printed: timings mean something only on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, markdown

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Schedule,
    Scheduler,
    Workload,
    fair_start_times,
    read_swf,
    simulate,
    sjf,
)
from backfill.kernel import compiled, pure_python, python_path
from backfill.schedulers.registry import SCHEDULERS

DEFAULT_TRACES = ("CTC-SP2-1996-3.1-cln", "KTH-SP2-1996-2")
#: (label, scheduler, target ratio of the pure path's time to the installed one's)
CONFIGS: list[tuple[str, Callable[[], Scheduler], float]] = [
    ("EASY(fcfs)", EASY, 6.0),
    ("EASY(sjf)", lambda: EASY(sjf), 6.0),
    ("EASY(fcfs, depth=4)", lambda: EASY(depth=4), 6.0),
    ("EASY(sjf, depth=4)", lambda: EASY(sjf, depth=4), 6.0),
    ("FCFS", FCFS, 6.0),
    ("Conservative", Conservative, 6.0),
    ("PC(fcfs)", PC, 4.0),
    ("PC(sjf)", lambda: PC(sjf), 4.0),
    ("DC(fcfs)", DC, 4.0),
    ("DC(sjf)", lambda: DC(sjf), 4.0),
]
#: Per-job growth targets, whole trace over prefix.
GROWTH = {"PC(fcfs)": 1.5, "PC(sjf)": 1.5}
#: Fair start times: the schedulers, and the target ratio of the Python path's time to the installed.
FST: dict[str, Callable[[], Scheduler]] = {"Conservative": Conservative, "EASY": EASY, "PC": PC, "DC": DC}
FST_TARGET = 5.0
#: RICC-2010-2 over the whole trace: the seconds issue 43 recorded (the Python path with the kernel's
#: profile steps and compression loops; PC had not been run to its end).
RICC = "RICC-2010-2"
RICC_BEFORE = {"DC": 1736.0, "SlackBackfill": 2716.0, "RelShare": 9759.0}


def _run(w: Workload, make: Callable[[], Scheduler], pure: bool) -> tuple[float, Schedule]:
    gc.collect()
    if pure:
        with pure_python():
            start = time.perf_counter()
            schedule = simulate(w, make())
    else:
        start = time.perf_counter()
        schedule = simulate(w, make())
    return time.perf_counter() - start, schedule


def _identical(a: Schedule, b: Schedule) -> bool:
    return (
        a.start.tobytes() == b.start.tobytes()
        and a.end.tobytes() == b.end.tobytes()
        and a.start_order.tobytes() == b.start_order.tobytes()
        and a.reservations.tobytes() == b.reservations.tobytes()
    )


def compare(
    traces: dict[str, Workload], repeat: int, labels: list[str]
) -> tuple[list[list[str]], list[dict[str, Any]], bool]:
    rows, records, same = [], [], True
    for name, w in traces.items():
        for label, make, target in CONFIGS:
            if label not in labels:
                continue
            best = {True: float("inf"), False: float("inf")}
            schedules: dict[bool, Schedule] = {}
            for r in range(repeat):
                for pure in (False, True) if r % 2 == 0 else (True, False):
                    seconds, schedules[pure] = _run(w, make, pure)
                    best[pure] = min(best[pure], seconds)
            ok = _identical(schedules[False], schedules[True])
            same &= ok
            path = schedules[False].path
            ratio = best[True] / best[False]
            per_job = [1e6 * best[p] / len(w) for p in (True, False)]
            met = "yes" if ratio >= target else "no"
            rows.append(
                [
                    name,
                    label,
                    path,
                    f"{best[True]:.2f}",
                    f"{best[False]:.3f}",
                    f"{per_job[0]:.1f}",
                    f"{per_job[1]:.2f}",
                    f"{ratio:.1f}x",
                    f"{target:g}x",
                    met,
                    "yes" if ok else "NO",
                ],
            )
            records.append(
                {"trace": name, "config": label, "path": path, "pure": best[True], "installed": best[False]}
                | {"jobs": len(w), "ratio": ratio, "target": target, "identical": ok}
            )
            print(f"{name} {label}: {path} {ratio:.1f}x", file=sys.stderr)
    return rows, records, same


GROWTH_HEADER = ("configuration", "path", "prefix", "whole", "whole / prefix", "target", "met")
GROWTH_HEADER += ("log/job prefix", "log/job whole", "log growth", "us/entry growth")


def growth(
    w: Workload, prefix: int, labels: list[str], repeat: int
) -> tuple[list[list[str]], list[dict[str, Any]]]:
    head = Workload.from_records(w.records[:prefix], w.machine_size)
    rows, records = [], []
    for label, make, _ in CONFIGS:
        if label not in labels:
            continue
        short, first = _run(head, make, False)
        whole, schedule = _run(w, make, False)
        if schedule.path == "compiled":
            # A compiled prefix takes milliseconds, so one run is mostly noise: take the best of
            # several (the Python path's runs take seconds to minutes and are timed once).
            for _ in range(repeat - 1):
                short = min(short, _run(head, make, False)[0])
                whole = min(whole, _run(w, make, False)[0])
        a, b = 1e6 * short / len(head), 1e6 * whole / len(w)
        la, lb = len(first.reservations) / len(head), len(schedule.reservations) / len(w)
        per_entry = (b / lb) / (a / la) if la and lb else float("nan")
        target = GROWTH.get(label, 1.3)
        rows.append(
            [
                label,
                schedule.path,
                f"{a:.2f}",
                f"{b:.2f}",
                f"{b / a:.2f}",
                f"{target:g}",
                "yes" if b / a <= target else "no",
                f"{la:.2f}",
                f"{lb:.2f}",
                f"{lb / la:.2f}" if la else "-",
                f"{per_entry:.2f}",
            ],
        )
        records.append(
            {"config": label, "path": schedule.path, "prefix_us": a, "whole_us": b, "target": target}
            | {"prefix_log_per_job": la, "whole_log_per_job": lb}
        )
        print(f"growth {label}: {b / a:.2f}", file=sys.stderr)
    return rows, records


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def fair_starts(w: Workload, names: list[str]) -> tuple[list[list[str]], list[dict[str, Any]], bool]:
    rows, records, same = [], [], True
    for name in names:
        gc.collect()
        start = time.perf_counter()
        fast = fair_start_times(w, FST[name]())
        installed = time.perf_counter() - start
        gc.collect()
        with python_path():
            start = time.perf_counter()
            plain = fair_start_times(w, FST[name]())
            before = time.perf_counter() - start
        ok = (
            fast.strict.tobytes() == plain.strict.tobytes()
            and fast.relaxed.tobytes() == plain.relaxed.tobytes()
        )
        same &= ok
        ratio = before / installed
        met = "yes" if ratio >= FST_TARGET else "no"
        rows.append(
            [
                name,
                f"{before:,.1f}",
                f"{installed:,.1f}",
                f"{ratio:.1f}x",
                f"{FST_TARGET:g}x",
                met,
                "yes" if ok else "NO",
            ]
        )
        records.append({"scheduler": name, "python_path": before, "installed": installed, "identical": ok})
        print(f"FST {name}: {ratio:.1f}x", file=sys.stderr)
    return rows, records, same


def _ricc_child(trace_dir: Path, name: str) -> None:
    """Simulate RICC-2010-2 under the registered scheduler ``name``; print one JSON line of figures."""
    w = read_swf(trace_dir / f"{RICC}.swf.gz")[0]
    print("ready", flush=True)
    scheduler = SCHEDULERS.entry(name).cls()
    start = time.perf_counter()
    schedule = simulate(w, scheduler)
    seconds = time.perf_counter() - start
    figures = {"seconds": seconds, "path": schedule.path, "log": len(schedule.reservations)}
    print(json.dumps(figures), flush=True)


def ricc(trace_dir: Path, names: list[str], limit: float) -> tuple[list[list[str]], list[dict[str, Any]]]:
    rows, records = [], []
    for name in names:
        command = [sys.executable, __file__, "--ricc-child", name, "--trace-dir", str(trace_dir)]
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
            assert child.stdout is not None
            ready = child.stdout.readline()  # "ready": the trace is read, the clock starts
            try:
                out, _ = child.communicate(timeout=limit)
                if not ready or child.returncode:
                    raise SystemExit(f"{RICC} under {name}: the run failed (exit {child.returncode})")
                record = json.loads(out.splitlines()[-1]) | {"scheduler": name, "finished": True}
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
                record = {"scheduler": name, "finished": False, "seconds": limit, "path": "", "log": None}
        before = RICC_BEFORE.get(name)
        seconds = record["seconds"]
        shown = f"{seconds:,.1f}" if record["finished"] else f"> {limit:,.0f}"
        rows.append(
            [
                name,
                record["path"] or "-",
                f"{before:,.0f}" if before else "-",
                shown,
                "yes" if record["finished"] and seconds < 600 else "no",
            ]
        )
        records.append(record)
        print(f"RICC {name}: {shown}", file=sys.stderr)
    return rows, records


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=list(DEFAULT_TRACES))
    parser.add_argument("--repeat", type=_at_least_one, default=3)
    labels = [label for label, _, _ in CONFIGS]
    parser.add_argument("--configs", nargs="+", default=labels, choices=labels, help="configurations to time")
    parser.add_argument("--prefix-trace", default="HPC2N-2002-2.1-cln")
    parser.add_argument("--prefix", type=int, default=5000)
    parser.add_argument("--fst-trace", default="HPC2N-2002-2.1-cln")
    parser.add_argument("--fst-jobs", type=int, default=None, help="the FST trace's first N jobs")
    parser.add_argument("--fst-schedulers", nargs="*", default=list(FST), choices=list(FST))
    names = [entry.cls.__name__ for entry in SCHEDULERS]
    parser.add_argument("--ricc-schedulers", nargs="*", default=names, choices=names)
    parser.add_argument("--ricc-limit", type=_seconds, default=600.0, help="seconds before a RICC run stops")
    parser.add_argument("--ricc-child", choices=names, help=argparse.SUPPRESS)
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.ricc_child:
        _ricc_child(args.trace_dir, args.ricc_child)
        return 0
    ricc_trace = args.trace_dir / f"{RICC}.swf.gz"
    if args.ricc_schedulers and not ricc_trace.is_file():
        parser.error(f"no such trace: {ricc_trace} (give --trace-dir, or --ricc-schedulers with no name)")
    if not compiled():
        print("the compiled kernel is not in use: nothing to compare", file=sys.stderr)
        return 1
    load = os.getloadavg()
    traces = {t: read_swf(args.trace_dir / f"{t}.swf.gz")[0] for t in args.traces}
    rows, records, same = compare(traces, args.repeat, args.configs)
    print(f"Load average before the run: {load[0]:.2f}. Best of {args.repeat}, interleaved.\n")
    header = ["trace", "configuration", "path", "pure (s)", "installed (s)", "pure us/job"]
    header += ["installed us/job", "ratio", "target", "met", "identical"]
    print(markdown(header, rows, right=3))
    whole = read_swf(args.trace_dir / f"{args.prefix_trace}.swf.gz")[0]
    grows, grecords = growth(whole, args.prefix, args.configs, max(args.repeat, 5))
    print(
        f"\nMicroseconds per job as installed, {args.prefix_trace}: first {args.prefix:,} jobs and whole:\n"
    )
    print(
        markdown(
            [*GROWTH_HEADER],
            grows,
            right=2,
        )
    )
    fst_records: list[dict[str, Any]] = []
    if args.fst_schedulers:
        w = read_swf(args.trace_dir / f"{args.fst_trace}.swf.gz")[0]
        if args.fst_jobs is not None:
            w = Workload.from_records(w.records[: args.fst_jobs], w.machine_size)
        frows, fst_records, fsame = fair_starts(w, args.fst_schedulers)
        same &= fsame
        print(f"\nStrict and relaxed fair start times, {args.fst_trace} ({len(w):,} jobs), default pool:\n")
        header = ["scheduler", "Python path (s)", "installed (s)", "ratio", "target", "met", "identical"]
        print(markdown(header, frows, right=3))
    ricc_records: list[dict[str, Any]] = []
    if args.ricc_schedulers:
        rrows, ricc_records = ricc(args.trace_dir, args.ricc_schedulers, args.ricc_limit)
        print(f"\n{RICC}, whole trace, as installed, stopped after {args.ricc_limit:g} s (target < 600 s):\n")
        print(markdown(["scheduler", "path", "issue's figure (s)", "installed (s)", "met"], rrows, right=2))
    if args.json:
        figures = {"compare": records, "growth": grecords, "fst": fst_records, "ricc": ricc_records}
        args.json.write_text(json.dumps(figures, indent=1))
    if not same:
        print("\nSCHEDULES DIFFER between the compiled and the pure-Python path", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
