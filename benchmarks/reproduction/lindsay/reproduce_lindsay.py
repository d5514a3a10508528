"""Reproduce Lindsay et al. (2013) Fig. 5-8 and §4.3 on the Parallel Workloads Archive traces we have.

For every trace, simulates Conservative, EASY, and PC and DC with the chosen priorities (SJF for
responsiveness, WJF for wide jobs), validates each schedule, and prints markdown tables of the percent
improvement over Conservative, (Conservative - other) / Conservative, as the paper plots them:

* mean wait with SJF (Fig. 5), mean of the top 5 % and top 1 % of waits with SJF (Fig. 6, 7);
* mean wait of the widest 10 % of jobs with WJF (Fig. 8) and mean wait with WJF (Fig. 9);
* profile events examined by PC relative to Conservative (§4.3).

A trace stem may end in ``@<processors>`` to read the trace on a machine of that size instead of the one
its header declares: ``CTC-SP2-1996-3.1-cln@430`` is CTC-SP2 on the 430 processors of the version the
paper used (:data:`CTC_430`). :func:`trace_facts` keeps what the statements need from the traces
themselves (job counts, share of jobs with a user estimate, widest job), so the report reads no trace.

Each simulation runs in its own process (``--workers``) and its figures are cached as JSON under
``--cache``, so an interrupted run resumes; ``collect`` is shared with ``_checks_lindsay.py``, which sets
the paper's statements beside these figures for ``reproduce.py``. Usage::

    python benchmarks/reproduction/lindsay/reproduce_lindsay.py  # every trace of the paper we have
    python benchmarks/reproduction/lindsay/reproduce_lindsay.py --traces KTH-SP2-1996-2 \
        --priorities sjf wjf ljf
    python benchmarks/reproduction/lindsay/reproduce_lindsay.py --traces CTC-SP2-1996-3.1-cln@430 --workers 1
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import (
    DEFAULT_TRACE_DIR,
    RESULTS,
    TRACE_STEMS,
    cached_result,
    load_result,
    markdown,
    save_result,
    write_report,
)

from backfill import (
    DC,
    EASY,
    PC,
    Conservative,
    Scheduler,
    check_reservations,
    read_swf,
    simulate,
    validate_schedule,
)
from backfill.measures.metrics import mean_top_wait, mean_wait_of_widest, percent_improvement, wait_times
from backfill.schedulers.machinery.priorities import PRIORITIES

DEFAULT_CACHE = RESULTS / "lindsay"

#: The paper's traces (Fig. 4) that ../shared/traces holds, as (paper name, our file stem).
#: DAS2-fs0, fs2, fs3 and fs4 are not among our traces.
TRACES: tuple[tuple[str, str], ...] = tuple(TRACE_STEMS.items())

#: Lindsay et al. Fig. 4 for the traces we have: jobs after their cleaning, percent with a user estimate.
FIG4: dict[str, tuple[int, float]] = {
    "CTC-SP2": (77_222, 99.99),
    "DAS2-fs1": (39_348, 100.0),
    "HPC2N": (202_876, 100.0),
    "KTH-SP2": (28_489, 100.0),
    "LANL-CM5": (122_057, 90.75),
    "LLNL-Atlas": (38_143, 84.85),
    "LLNL-Thunder": (118_754, 32.47),
    "LPC-EGEE": (220_679, 100.0),
    "SDSC-BLUE": (223_669, 100.0),
    "SDSC-DS": (85_006, 100.0),
    "SDSC-SP2": (54_041, 99.94),
}

#: CTC-SP2 read on the 430 processors the paper's version (2.1) declared; ours (3.1) declares 338.
CTC_430 = TRACE_STEMS["CTC-SP2"] + "@430"


def split_stem(stem: str) -> tuple[str, int | None]:
    """``"CTC-SP2-1996-3.1-cln@430"`` -> ``("CTC-SP2-1996-3.1-cln", 430)``; no ``@``: the header's size."""
    base, _, size = stem.partition("@")
    return base, int(size) if size else None


def trace_facts(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, Any] | None:
    """For each trace of :data:`TRACES` we have: its jobs after cleaning, the percent of them with a user
    estimate, its widest job and its machine size; read once and kept in ``cache/traces.json`` (None
    without ``run`` when not kept)."""

    def compute() -> dict[str, Any]:
        facts = {}
        for name, stem in TRACES:
            path = trace_dir / f"{stem}.swf.gz"
            if path.exists():
                workload, read = read_swf(path)
                jobs = len(workload)
                estimated = 100.0 * (1.0 - read.altered.get("estimate_from_runtime", 0) / jobs)
                widest = int(workload.records["processors"].max())
                facts[name] = {
                    "jobs": jobs,
                    "estimated": estimated,
                    "widest": widest,
                    "machine_size": workload.machine_size,
                }
        return {"traces": facts}

    return cached_result(cache / "traces.json", compute, run=run)


def make_scheduler(spec: str) -> Scheduler:
    """Build a scheduler from ``Conservative``, ``EASY`` or ``PC-<priority>`` / ``DC-<priority>``."""
    if spec == "Conservative":
        return Conservative()
    if spec == "EASY":
        return EASY()
    algorithm, _, priority = spec.partition("-")
    kinds: dict[str, type[PC] | type[DC]] = {"PC": PC, "DC": DC}
    return kinds[algorithm](PRIORITIES[priority])


def run_cell(trace_dir: str, stem: str, spec: str) -> dict[str, Any]:
    """Simulate one trace under one scheduler; return its figures (runs in a worker process)."""
    base, size = split_stem(stem)
    workload, _ = read_swf(Path(trace_dir) / f"{base}.swf.gz", machine_size=size)
    scheduler = make_scheduler(spec)
    started = time.perf_counter()
    schedule = simulate(workload, scheduler, record_reservations=True)
    seconds = time.perf_counter() - started
    validate_schedule(schedule)
    if spec != "EASY":
        # Every guarantee on a whole real trace: no reservation ever moved later or was missed.
        check_reservations(schedule)
    return {
        "trace": stem,
        "scheduler": spec,
        "jobs": len(workload),
        "machine_size": workload.machine_size,
        "seconds": seconds,
        "mean_wait": float(wait_times(schedule).mean()),
        "top5_wait": mean_top_wait(schedule, 0.05),
        "top1_wait": mean_top_wait(schedule, 0.01),
        "widest10_wait": mean_wait_of_widest(schedule, 0.10),
        "events": getattr(scheduler, "events_examined", None),
        "moves": getattr(scheduler, "moves", None),
        "reservation_changes": len(schedule.reservations),
    }


def improvement_table(cells: dict[tuple[str, str], dict[str, Any]], metric: str, specs: list[str]) -> str:
    """Percent improvement over Conservative of ``metric``, one row per trace."""
    rows = []
    for name, stem in TRACES:
        base = cells.get((stem, "Conservative"))
        if base is None:
            continue
        row = [name]
        for spec in specs:
            cell = cells.get((stem, spec))
            row.append("" if cell is None else f"{percent_improvement(base[metric], cell[metric]):+.1f}")
        rows.append(row)
    return markdown(["trace", *specs], rows)


def events_table(cells: dict[tuple[str, str], dict[str, Any]], specs: list[str]) -> str:
    """Events examined by each PC/DC run relative to Conservative, one row per trace."""
    rows = []
    for name, stem in TRACES:
        base = cells.get((stem, "Conservative"))
        if base is None:
            continue
        row = [name, f"{base['events']:,}"]
        for spec in specs:
            cell = cells.get((stem, spec))
            row.append("" if cell is None else f"{cell['events'] / base['events']:.1f}x")
        rows.append(row)
    return markdown(["trace", "Conservative events", *specs], rows)


#: The measures of the tables, as (result key, what it is).
MEASURES = (
    ("mean_wait", "mean wait"),
    ("top5_wait", "mean of the top 5 % of waits"),
    ("top1_wait", "mean of the top 1 % of waits"),
    ("widest10_wait", "mean wait of the widest 10 %"),
)


def machine_table(cells: dict[tuple[str, str], dict[str, Any]], stem: str, specs: list[str]) -> str:
    """Percent improvement over Conservative on one trace stem (such as :data:`CTC_430`), one row per
    measure, one column per scheduler; empty when its Conservative cell is not kept."""
    base = cells.get((stem, "Conservative"))
    if base is None:
        return ""
    rows = []
    for key, measure in MEASURES:
        row = [measure]
        for spec in specs:
            cell = cells.get((stem, spec))
            row.append("" if cell is None else f"{percent_improvement(base[key], cell[key]):+.1f}")
        rows.append(row)
    return markdown(["measure", *specs], rows)


def facts_table(facts: dict[str, Any] | None) -> str:
    """The traces as Fig. 4 gives them beside ours: jobs and percent with a user estimate; and our widest
    job and machine size."""
    if not facts:
        return ""
    rows = []
    for name, f in facts["traces"].items():
        jobs, estimated = FIG4[name]
        rows.append(
            [
                name,
                f"{jobs:,}",
                f"{f['jobs']:,}",
                f"{estimated:.2f}",
                f"{f['estimated']:.2f}",
                f"{f['widest']:,}",
                f"{f['machine_size']:,}",
            ]
        )
    header = ["trace", "paper's jobs", "our jobs", "paper's % estimated", "our %", "widest job", "machine"]
    return markdown(header, rows)


def report(
    cells: dict[tuple[str, str], dict[str, Any]], priorities: list[str], facts: dict[str, Any] | None = None
) -> str:
    """Return the markdown report of every cached cell (and of the trace facts, if given)."""
    sjf = ["EASY", "PC-sjf", "DC-sjf"]
    wjf = ["EASY", "PC-wjf", "DC-wjf"]
    guaranteed = [f"{a}-{p}" for p in priorities for a in ("PC", "DC")]
    parts = [
        "Mean wait, SJF (Fig. 5): percent improvement over Conservative",
        improvement_table(cells, "mean_wait", sjf),
        "Mean of the top 5 % of waits, SJF (Fig. 6)",
        improvement_table(cells, "top5_wait", sjf),
        "Mean of the top 1 % of waits, SJF (Fig. 7)",
        improvement_table(cells, "top1_wait", sjf),
        "Mean wait of the widest 10 % of jobs, WJF (Fig. 8)",
        improvement_table(cells, "widest10_wait", wjf),
        "Mean wait, WJF (Fig. 9)",
        improvement_table(cells, "mean_wait", wjf),
        "Mean wait, every priority run",
        improvement_table(cells, "mean_wait", guaranteed),
        "Profile events examined relative to Conservative (§4.3)",
        events_table(cells, guaranteed),
    ]
    ctc = machine_table(cells, CTC_430, ["EASY", *guaranteed])
    if ctc:
        parts += [
            "CTC-SP2 read with 430 processors: percent improvement over Conservative on 430 processors",
            ctc,
        ]
    if facts:
        parts += ["The traces (Fig. 4) beside ours as `read_swf` cleans them", facts_table(facts)]
    seconds = sum(c["seconds"] for c in cells.values())
    parts.append(f"{len(cells)} simulations, {seconds:,.0f} s of simulation in total.")
    return "\n\n".join(parts) + "\n"


def collect(
    trace_dir: Path, stems: list[str], specs: list[str], cache: Path, workers: int, *, run: bool = True
) -> dict[tuple[str, str], dict[str, Any]]:
    """Return the figures of every (trace stem, scheduler) cell, keyed so.

    Cached cells are read from ``cache``; with ``run`` the missing ones are simulated in ``workers``
    processes and cached, otherwise they are left out.
    """
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    todo = []
    for stem in stems:
        for spec in specs:
            path = cache / f"{stem}__{spec}.json"
            if path.exists():
                cells[stem, spec] = load_result(path)
            else:
                todo.append((stem, spec))
    if not run or not todo:
        return cells
    cache.mkdir(parents=True, exist_ok=True)
    # Largest traces first, so the pool is not left waiting on one long run at the end.
    sizes = {stem: (trace_dir / f"{split_stem(stem)[0]}.swf.gz").stat().st_size for stem in stems}
    todo.sort(key=lambda cell: -sizes[cell[0]])
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_cell, str(trace_dir), stem, spec): (stem, spec) for stem, spec in todo}
        for future in as_completed(futures):
            stem, spec = futures[future]
            cell = future.result()
            cell = save_result(cache / f"{stem}__{spec}.json", cell)
            cells[stem, spec] = cell
            print(f"{stem:28} {spec:14} {cell['seconds']:8.1f} s", file=sys.stderr, flush=True)
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--traces", nargs="+", help="file stems (default: the paper's traces we have)")
    parser.add_argument("--priorities", nargs="+", default=["sjf", "wjf"], choices=sorted(PRIORITIES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--output", type=Path, help="write the markdown report here (default: stdout)")
    args = parser.parse_args(argv)
    if not args.trace_dir.is_dir():
        parser.error(f"no trace folder at {args.trace_dir}")
    stems = args.traces or [*(stem for _, stem in TRACES), CTC_430]
    specs = ["Conservative", "EASY"] + [f"{a}-{p}" for p in args.priorities for a in ("PC", "DC")]
    cells = collect(args.trace_dir, stems, specs, args.cache, args.workers)
    # The trace facts with the paper's whole set of traces only.
    facts = None if args.traces else trace_facts(args.trace_dir, args.cache, run=True)
    text = report(cells, args.priorities, facts)
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
