"""The largest archive traces end to end through every scheduler: time, peak memory, job accounting.

Usage: python benchmarks/speed/bench_largest.py [--traces STEM ...] [--schedulers NAME ...]
                                          [--fractions F ...] [--runs NAME:F ...] [--parallel N]
                                          [--output PATH] [--checkpoint-every SECONDS]

Each (trace, scheduler, fraction) runs in a fresh interpreter, so that no run's memory counts in
another's. The child reads the trace with ``read_swf`` (default cleaning policy) and keeps its first
``fraction`` of the jobs; then, with the peak-RSS mark of the kernel reset (``/proc/self/clear_refs``),
it simulates the workload with the scheduler's defaults and the reservation log off (as sweeps run;
the log, when asked for, holds one row per reservation change), validates the schedule with
``validate_schedule`` and checks that every job is accounted for (jobs in = scheduled + rejected).

Reported per run: the jobs, the wall seconds of reading, simulating and validating, and memory:
``peak`` is the process's peak resident set size over the whole run (``ru_maxrss``, reading
included), ``simulation`` the peak during simulation and validation above the resident size just
before it (the workload already in memory), and that per job. Memory in O(jobs) shows as the
simulation's bytes per job staying level between half and all of a trace; the last table gives the
ratio of the simulation memory of the whole trace to that of its first half (2 for linear growth).

``--parallel 2`` runs two children at a time (memory figures are per process and unaffected; wall
times then share the machine). Results are appended to ``--output`` (JSON lines) as runs finish, and
runs already there are not repeated, so an interrupted benchmark resumes.

Some runs take hours (RICC-2010-2 under the compressing schedulers), longer than a machine may stay
up, so every ``--checkpoint-every`` wall seconds (600 by default) a run pickles its simulator to
``checkpoints/`` beside the output, from a forked copy of the process so that neither its time nor
its memory counts. A stopped run resumes from its last checkpoint if the library source it uses is
unchanged (a digest of it is stored; see ``_source_digest``) and otherwise starts again. Resuming
changes nothing in the schedule (``tests/test_simulator.py`` checks that a pickled simulation
resumes exactly), and the reported time is the sum of the segments' simulation times, so only the
work since the last checkpoint is done twice, uncounted. ``segments`` in the results says how many
processes a run took; the simulation memory of a resumed run is the largest of its segments', each
counting the state it unpickled, which takes more room than the same state built up in one process
(PC over HPC2N, stopped once and resumed: 442 bytes per job, against 369 run straight through). To
stop runs without losing work, send SIGTERM to the runs (``--child`` processes) after stopping the
benchmark itself: each checkpoints at once and exits.

``--adopt`` resumes a checkpoint written by other library code too: for a change that alters no
decision (a speed-up whose tests show it exact), so that a run of many hours need not start again.
The run's time then mixes the codes, so its row in ``--output`` lists the digests of the code of
each stretch (``codes``, oldest first).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import ctypes
import gc
import hashlib
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import DEFAULT_TRACE_DIR, ROOT, markdown

TRACES = ("LPC-EGEE-2004-1.2-cln", "CEA-Curie-2011-2.1-cln", "RICC-2010-2")
SCHEDULERS = (
    "FCFS",
    "EASY",
    "Conservative",
    "PC",
    "DC",
    "Selective",
    "RelShare",
    "LookaheadSlack",
    "SlackBackfill",
)
MB = 1e6
#: Most simulated seconds between checks of whether a checkpoint is due (fewer where time is busy).
_SLICE = 3600.0
#: Exit status of a run that checkpointed and stopped on SIGTERM.
_SUSPENDED = 3


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _free_and_reset_peak() -> None:
    """Hand freed memory back to the kernel and restart the process's peak-RSS mark from here.

    Without the trim, the simulation's own allocations would reuse memory freed earlier (after
    reading, after unpickling) unseen in the resident size. Writing 5 to ``clear_refs`` resets the
    kernel's peak mark (VmHWM) to the current size.
    """
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")


def _source_digest(scheduler: str) -> str:
    """A digest of the library source a run depends on: a checkpoint is resumed only by that code.

    That is every module outside ``backfill/schedulers``, the scheduler package's ``__init__``, and
    the scheduler modules the scheduler's class is built from (its bases) with every scheduler module
    they import, found from their import statements; an import of the package itself (or of the
    library's top level, which re-exports it) counts as all of it. So a change to one scheduler does
    not throw away the checkpoints of the others.
    """
    import backfill

    package = ROOT / "backfill" / "schedulers"
    prefix = "backfill.schedulers"
    todo = [
        c.__module__ for c in getattr(backfill, scheduler).__mro__ if c.__module__.startswith(prefix + ".")
    ]
    needed: set[Path] = set()
    while todo:
        path = package / (todo.pop().removeprefix(prefix + ".") + ".py")
        if path in needed:
            continue
        needed.add(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else [prefix]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name in (prefix, "backfill"):  # the whole package, or what the library re-exports
                    todo.extend(f"{prefix}.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__")
                elif name.startswith(prefix + "."):
                    todo.append(name)
    digest = hashlib.sha256()
    for path in sorted((ROOT / "backfill").rglob("*.py")):
        if path.parent == package and path.stem != "__init__" and path not in needed:
            continue
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _save(simulator: Any, state: dict[str, Any], path: Path) -> None:
    """Pickle the simulation to ``path`` from a forked copy of this process, and wait for it.

    The fork writes while this process waits: the pickler's memory and page copies are the fork's, so
    they count in neither this process's peak nor its times. The workload is left out (the resumed
    run reads the trace again) so that it is not held twice.
    """
    pid = os.fork()
    if pid == 0:  # the fork: write, then leave without running any of the parent's clean-up
        code = 1
        try:
            object.__setattr__(simulator, "workload", None)
            tmp = path.with_suffix(".tmp")
            with open(tmp, "wb") as f:
                pickle.dump((state, simulator), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError(f"writing the checkpoint {path} failed (status {status})")


def _load(path: Path, workload: Any, digest: str, adopt: bool = False) -> tuple[dict[str, Any], Any] | None:
    """The state and simulator checkpointed at ``path``, or None if there is none for this code.

    With ``adopt``, a checkpoint of other code is resumed too, and the new digest is added to the
    state's ``codes``.
    """
    if not path.exists():
        return None
    with open(path, "rb") as f:
        state, simulator = pickle.load(f)
    codes = state.setdefault("codes", [state["digest"]])
    if state["digest"] != digest:
        if not adopt:
            print(f"{path.name}: written by other code, starting again", file=sys.stderr)
            return None
        print(f"{path.name}: written by other code, adopted", file=sys.stderr)
        codes.append(digest)
        state["digest"] = digest
    object.__setattr__(simulator, "workload", workload)
    return state, simulator


def child(
    trace: str,
    scheduler_name: str,
    fraction: float,
    trace_dir: Path,
    checkpoint: Path | None,
    every: float,
    adopt: bool = False,
) -> dict[str, Any]:
    """One run, in this (fresh) process, resumed from ``checkpoint`` if one is there."""
    import backfill
    from backfill import Simulator, read_swf, validate_schedule
    from backfill.schedulers import scheduler_name as name_of

    result: dict[str, Any] = {"trace": trace, "scheduler": scheduler_name, "fraction": fraction}
    start = time.perf_counter()
    workload, report = read_swf(trace_dir / f"{trace}.swf.gz")
    result["read_s"] = time.perf_counter() - start
    result["lines"] = report.lines
    result["kept"] = report.kept
    if fraction < 1.0:
        n = int(len(workload) * fraction)
        workload = backfill.Workload.from_records(workload.records[:n], workload.machine_size)
    result["jobs"] = len(workload)
    result["machine_size"] = workload.machine_size
    _free_and_reset_peak()
    base = _status_kib("VmRSS")
    digest = _source_digest(scheduler_name)
    loaded = _load(checkpoint, workload, digest, adopt) if checkpoint else None
    if loaded is None:
        state: dict[str, Any] = {"digest": digest, "simulate_s": 0.0, "segments": 0, "simulation_kib": 0}
        sim = Simulator(workload, getattr(backfill, scheduler_name)(), record_reservations=False)
    else:
        state, sim = loaded
        # Unpickling needs memory of its own (the file's frames, a table of every object): give it
        # back and start the peak mark again, so that only the simulation's state counts.
        del loaded
        _free_and_reset_peak()
    state["segments"] += 1
    # The run goes on in slices of simulated time; between slices, every ``every`` wall seconds, the
    # simulation is checkpointed, so that a run longer than the machine stays up can be resumed.
    # Slicing changes nothing: run_before processes the same instants in the same order as run().
    # SIGTERM asks for a checkpoint now and an exit (when the machine is about to go down).
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    span = _SLICE
    segment = saved = time.perf_counter()
    while (t := sim.next_time()) is not None:
        before = time.perf_counter()
        sim.run_before(t + span)
        # A slice of busy hours can take minutes: shorter slices then, so that a stop is prompt.
        took = time.perf_counter() - before
        if took > 0.5 and span > 1.0:
            span /= 2
        elif took < 0.05 and span < _SLICE:
            span *= 2
        if checkpoint is not None and (stop or time.perf_counter() - saved >= every):
            state["simulate_s"] += time.perf_counter() - segment
            state["simulation_kib"] = max(state["simulation_kib"], _status_kib("VmHWM") - base)
            _save(sim, state, checkpoint)
            if stop:
                sys.exit(_SUSPENDED)
            segment = saved = time.perf_counter()
    schedule = sim.run()
    result["simulate_s"] = state["simulate_s"] + time.perf_counter() - segment
    result["segments"] = state["segments"]
    if len(state.get("codes", ())) > 1:
        result["codes"] = [code[:12] for code in state["codes"]]
    result["scheduler_name"] = name_of(sim.scheduler)
    # As after simulate(): the simulator's own lists are freed before validation, which can reuse them.
    del sim
    start = time.perf_counter()
    validate_schedule(schedule)
    result["validate_s"] = time.perf_counter() - start
    result["simulation_bytes"] = max(state["simulation_kib"], _status_kib("VmHWM") - base) * 1024
    result["peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = int(schedule.started.sum())
    result["started"] = started
    result["rejected"] = len(schedule.rejected)
    assert started + len(schedule.rejected) == len(workload), schedule.accounting()
    result["accounting"] = schedule.accounting()
    return result


def _checkpoint_path(directory: Path, trace: str, scheduler: str, fraction: float) -> Path:
    return directory / f"{trace}-{scheduler}-{fraction:g}.pickle"


def run_child(
    trace: str,
    scheduler: str,
    fraction: float,
    trace_dir: Path,
    checkpoints: Path | None,
    every: float,
    adopt: bool = False,
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", trace, scheduler, str(fraction)]
    command += ["--trace-dir", str(trace_dir), "--checkpoint-every", str(every)]
    if adopt:
        command.append("--adopt")
    if checkpoints is not None:
        command += ["--checkpoint", str(_checkpoint_path(checkpoints, trace, scheduler, fraction))]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode == _SUSPENDED:
        return {"trace": trace, "scheduler": scheduler, "fraction": fraction, "suspended": True}
    if done.returncode != 0:
        raise RuntimeError(f"{trace} / {scheduler} / {fraction} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def report(results: list[dict[str, Any]]) -> str:
    full = [r for r in results if r["fraction"] == 1.0]
    rows = [
        [
            r["trace"],
            r["scheduler_name"],
            f"{r['jobs']:,}",
            f"{r['read_s']:.1f}",
            f"{r['simulate_s']:.1f}",
            f"{r['validate_s']:.2f}",
            f"{r['jobs'] / r['simulate_s']:,.0f}",
            f"{r['peak_bytes'] / MB:,.0f}",
            f"{r['simulation_bytes'] / MB:,.0f}",
            f"{r['simulation_bytes'] / r['jobs']:,.0f}",
            f"{r['rejected']}",
        ]
        for r in full
    ]
    header = ["trace", "scheduler", "jobs", "read (s)", "simulate (s)", "validate (s)", "jobs/s"]
    header += ["peak RSS (MB)", "simulation (MB)", "simulation bytes/job", "rejected"]
    out = [markdown(header, rows, right=2)]
    half = {(r["trace"], r["scheduler"]): r for r in results if r["fraction"] == 0.5}
    pairs = [(half[(r["trace"], r["scheduler"])], r) for r in full if (r["trace"], r["scheduler"]) in half]
    if pairs:
        rows = [
            [
                f["trace"],
                f["scheduler_name"],
                f"{h['simulation_bytes'] / h['jobs']:,.0f}",
                f"{f['simulation_bytes'] / f['jobs']:,.0f}",
                f"{f['simulation_bytes'] / h['simulation_bytes']:.2f}",
                f"{f['simulate_s'] / h['simulate_s']:.2f}",
            ]
            for h, f in pairs
        ]
        header = ["trace", "scheduler", "bytes/job, first half", "bytes/job, whole", "memory ratio"]
        header += ["time ratio"]
        out.append(markdown(header, rows, right=2))
    return "\n\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=list(TRACES))
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS))
    parser.add_argument("--fractions", nargs="+", type=float, default=[1.0, 0.5])
    parser.add_argument(
        "--runs",
        nargs="+",
        metavar="SCHEDULER:FRACTION",
        help="exactly these runs, in this order, on each trace (instead of --schedulers x --fractions)",
    )
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "largest.jsonl")
    parser.add_argument(
        "--checkpoint-every",
        type=float,
        default=600.0,
        help="wall seconds between checkpoints of a run (0: none); a stopped run resumes from its last",
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="resume checkpoints written by other library code too (a change that alters no decision)",
    )
    parser.add_argument("--child", nargs=3, metavar=("TRACE", "SCHEDULER", "FRACTION"))
    parser.add_argument("--checkpoint", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        trace, scheduler, fraction = args.child
        result = child(
            trace,
            scheduler,
            float(fraction),
            args.trace_dir,
            args.checkpoint,
            args.checkpoint_every,
            args.adopt,
        )
        print(json.dumps(result))
        return 0
    if not args.trace_dir.is_dir():
        print(f"no trace folder at {args.trace_dir}", file=sys.stderr)
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    checkpoints = args.output.parent / "checkpoints" if args.checkpoint_every > 0 else None
    if checkpoints is not None:
        checkpoints.mkdir(exist_ok=True)
    results = []
    if args.output.exists():
        results = [json.loads(line) for line in args.output.read_text().splitlines() if line.strip()]
    done = {(r["trace"], r["scheduler"], r["fraction"]) for r in results}
    if args.runs:
        pairs = [(s, float(f)) for s, _, f in (run.rpartition(":") for run in args.runs)]
        todo = [(t, s, f) for s, f in pairs for t in args.traces if (t, s, f) not in done]
    else:
        todo = [
            (t, s, f)
            for f in args.fractions
            for t in args.traces
            for s in args.schedulers
            if (t, s, f) not in done
        ]
    print(f"{len(todo)} runs to do, {len(done)} done; load average {os.getloadavg()[0]:.2f}", flush=True)
    with cf.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        every, adopt = args.checkpoint_every, args.adopt
        futures = {
            pool.submit(run_child, t, s, f, args.trace_dir, checkpoints, every, adopt): (t, s, f)
            for t, s, f in todo
        }
        for future in cf.as_completed(futures):
            r = future.result()
            if r.get("suspended"):
                print(
                    f"{r['trace']} {r['scheduler']} x{r['fraction']:g}: checkpointed and stopped", flush=True
                )
                continue
            results.append(r)
            with open(args.output, "a", encoding="utf-8") as out:
                out.write(json.dumps(r) + "\n")
            if checkpoints is not None:
                _checkpoint_path(checkpoints, r["trace"], r["scheduler"], r["fraction"]).unlink(
                    missing_ok=True
                )
            print(
                f"{r['trace']} {r['scheduler_name']} x{r['fraction']:g}: {r['simulate_s']:.1f} s, "
                f"simulation {r['simulation_bytes'] / MB:.0f} MB, peak {r['peak_bytes'] / MB:.0f} MB; "
                f"{r['accounting']}",
                flush=True,
            )
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
