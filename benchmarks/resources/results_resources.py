"""New measurements beyond the papers: EASY, Conservative, PC and DC with memory as a second resource.

Issue 45, point 6. No paper we reproduce schedules more than processors, so these are new figures, not
claims of any paper. On a fixed window of RICC-2010-2 and of HPC2N (the first jobs of each cleaned
trace, read with ``read_swf``'s default cleaning), each scheduler runs twice, on processors alone and
with memory as a second resource (``Resource.memory``: SWF field 10, requested memory per processor,
else field 7, used memory), and each cell keeps the mean wait, the mean bounded slowdown (10 s bound)
and the strict and relaxed fair-start unfairness (``extra_measures``'s ``strict_unfairness`` and
``relaxed_unfairness``: Sabin and Sadayappan's fair start times under the same scheduler).

Jobs whose memory can never fit the machine would be rejected by the runs with memory; they are left
out of the window before either run, so both runs schedule the same jobs (the page counts them).

Every run takes the pure-Python path (under :func:`backfill.kernel.pure_python`): the compiled kernel
plans processors alone, and its results with processors alone are the same, so only the seconds
recorded would differ.

A scheduler whose build does not plan memory yet (it would start two jobs whose memory together
exceeds the machine's) is probed first and its cells with memory are not run: the page says which.
Each cell is a small JSON file under ``--results``, stamped with the commit that measured it; the page
``docs/results-resources.md`` is written from those files alone. Usage::

    python benchmarks/resources/results_resources.py           # run the missing cells, then write the page
    python benchmarks/resources/results_resources.py --cached  # write the page from the kept cells only
"""

from __future__ import annotations

import argparse
import heapq
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import (
    ALLOW_DIRTY,
    DEFAULT_TRACE_DIR,
    ROOT,
    change_text,
    load_result,
    markdown,
    measured_stamp,
    provenance,
    save_result,
)

from backfill import (
    EASY,
    BackfillError,
    Conservative,
    Job,
    Resource,
    Schedule,
    Scheduler,
    Workload,
    extra_measures,
    kernel,
    read_swf,
    simulate,
    validate_schedule,
)
from backfill.measures.fairness import unfairness
from backfill.measures.metrics import bounded_slowdowns, wait_times
from backfill.schedulers import DC, PC
from backfill.workloads.resources import memory_request

try:  # partitions (issue 45, point 4); the Curie section is not measured where they are missing
    from backfill import (
        Partition,
        log_partitions,
        partition_fair_start_times,
        simulate_partitions,
        validate_partitions,
    )
except ImportError:
    PARTITIONS = False
else:
    PARTITIONS = True

DEFAULT_RESULTS = ROOT / "benchmarks" / "resources"
DEFAULT_PAGE = ROOT / "docs" / "results-resources.md"

#: kB in a GB (the SWF records memory in kB).
GB = 2**20


class TraceSetup:
    """One trace of the page: its file, the window of jobs and the memory per processor, with why."""

    def __init__(self, name: str, stem: str, jobs: int, per_processor: int, why: str) -> None:
        self.name, self.stem, self.jobs, self.per_processor, self.why = name, stem, jobs, per_processor, why


#: The traces, each with the window (its first ``jobs`` jobs after cleaning) and the memory per
#: processor the machine is given. The windows keep the whole page's runs within about half an hour
#: on one core (``benchmarks/resources/NOTES-resources.md`` has the costs measured to choose them).
TRACES: tuple[TraceSetup, ...] = (
    TraceSetup(
        "RICC-2010-2",
        "RICC-2010-2",
        3_000,
        3 * GB // 2,
        "RICC's nodes have 12 GB for 8 cores, 1.5 GB per processor; the default request, 1.2 GB per"
        " processor (95 % of the jobs), fits under it; 1.6 % of the trace's jobs ask more per processor",
    ),
    TraceSetup(
        "HPC2N",
        "HPC2N-2002-2.1-cln",
        10_000,
        GB // 2,
        "HPC2N's nodes have 1 GB for two processors (the archive's description of the machine, as"
        " default_capacity documents it), 512 MB per processor: 95 % of the jobs ask the default 400 MB"
        " per processor (two fit a node with room for the system) and only 0.9 % ask more than 512 MB",
    ),
)

#: CEA-Curie by partition: the window, and no memory (``per_processor`` 0). Its machine is the
#: partitions that hold at least :data:`MIN_SHARE` of the window's jobs, each of the size
#: ``log_partitions`` gives it (the most processors its jobs held at once in the whole log, at least
#: its widest job); one pool is a machine of their processors together.
CURIE = TraceSetup(
    "CEA-Curie",
    "CEA-Curie-2011-2.1-cln",
    10_000,
    0,
    "the log records no partition sizes: each partition gets the most processors its jobs held at once"
    " in the whole log (at least its widest job), and one pool has their processors together",
)

#: A partition with fewer of the window's jobs than this share is left out with its jobs (a few test
#: jobs whose log sizes, the whole machine, would swell the pool).
MIN_SHARE = 0.01

#: Each scheduler's key (its cells' file names), its label in the tables, and its class.
SCHEDULERS: dict[str, tuple[str, Callable[..., Scheduler]]] = {
    "easy": ("EASY", EASY),
    "conservative": ("Conservative", Conservative),
    "pc": ("PC", PC),
    "dc": ("DC", DC),
}

#: The two configurations of each trace: processors alone, and processors and memory.
CONFIGS = ("processors", "memory")
#: Curie's two: one pool of the whole machine, and its partitions.
CURIE_CONFIGS = ("pool", "partitions")
#: How each configuration is headed in the tables.
LABELS = {
    "processors": "processors alone",
    "memory": "+ memory",
    "pool": "one pool",
    "partitions": "partitions",
}

#: The measures each cell keeps, with their labels and the unit they are shown in (seconds divided by).
MEASURES: tuple[tuple[str, str, float], ...] = (
    ("mean_wait", "mean wait (h)", 3600.0),
    ("mean_bsld", "mean bounded slowdown", 1.0),
    ("strict_unfairness", "strict unfairness (h)", 3600.0),
    ("relaxed_unfairness", "relaxed unfairness (h)", 3600.0),
)


def plans_memory(build: Callable[..., Scheduler]) -> bool:
    """Whether ``build(resources=...)`` plans memory: two one-processor jobs whose memory together
    exceeds the machine's must not run at once.

    >>> plans_memory(Conservative)
    True
    """
    memory = Resource.memory(10)
    jobs = [
        Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=6) for i in (1, 2)
    ]
    schedule = simulate(Workload.from_jobs(jobs, machine_size=2), build(resources=[memory]))
    return sorted(schedule.start.tolist()) == [0.0, 10.0]


def window(trace_dir: Path, setup: TraceSetup) -> tuple[Workload, int]:
    """The trace's first ``setup.jobs`` jobs, without those whose memory exceeds the machine's; and how
    many were left out."""
    workload, _ = read_swf(trace_dir / f"{setup.stem}.swf.gz")
    first = Workload.from_records(workload.records[: setup.jobs], workload.machine_size)
    capacity = setup.per_processor * workload.machine_size
    fits = np.array([memory_request(job) <= capacity for job in first], dtype=bool)
    return Workload.from_records(first.records[fits], first.machine_size), int(np.count_nonzero(~fits))


def held_back(schedule: Schedule, need: Any, group: Any, capacities: list[int]) -> float:
    """The share of the time with a job waiting in which the oldest waiting job's processors were free
    on the whole machine but its ``need`` did not fit what its group had free.

    ``need[row]`` is what the job takes of its group's pool ``capacities[group[row]]``: its memory
    (one group, the machine's memory), or its processors (a group per partition). Every job must have
    run. A sweep over the submit, start and end instants: O(n log n).
    """
    w = schedule.workload
    processors = w.column("processors").astype(np.int64)
    events: list[tuple[float, int, int]] = []  # (instant, kind: 0 end, 1 start, 2 submit, row)
    for row in range(len(w)):
        events += [(schedule.end[row], 0, row), (schedule.start[row], 1, row), (schedule.submit[row], 2, row)]
    events.sort()
    free_p, free = int(w.machine_size), list(capacities)
    waiting: list[tuple[float, int]] = []
    started = np.zeros(len(w), dtype=bool)
    held = queued = 0.0
    for i, (instant, kind, row) in enumerate(events):
        if kind == 0:
            free_p += processors[row]
            free[group[row]] += need[row]
        elif kind == 1:
            free_p -= processors[row]
            free[group[row]] -= need[row]
            started[row] = True
        else:
            heapq.heappush(waiting, (schedule.submit[row], row))
        if i + 1 < len(events) and events[i + 1][0] == instant:
            continue
        while waiting and started[waiting[0][1]]:
            heapq.heappop(waiting)
        if waiting and i + 1 < len(events):
            span = events[i + 1][0] - instant
            head = waiting[0][1]
            queued += span
            held += span if processors[head] <= free_p and need[head] > free[group[head]] else 0.0
    return held / queued if queued > 0 else 0.0


def memory_binds(schedule: Schedule, capacity: int) -> float:
    """The share of the time with a job waiting in which the oldest waiting job's processors were
    free but its memory (of the machine's ``capacity``) was not (:func:`held_back`).

    >>> from backfill import Conservative, Resource, Workload, simulate
    >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=6)
    ...         for i in (1, 2)]
    >>> s = simulate(Workload.from_jobs(jobs, 2), Conservative(resources=[Resource.memory(10)]))
    >>> memory_binds(s, 10)
    1.0
    """
    memory = [memory_request(job) for job in schedule.workload]
    return held_back(schedule, memory, [0] * len(memory), [capacity])


def run_cell(workload: Workload, key: str, config: str, setup: TraceSetup, left_out: int) -> dict[str, Any]:
    """Simulate one cell, validate it and return its figures, fair start times included."""
    capacity = setup.per_processor * workload.machine_size
    resources = (Resource.memory(capacity),) if config == "memory" else ()
    build = SCHEDULERS[key][1]
    started = time.perf_counter()
    schedule = simulate(workload, build(resources=resources))
    sim_seconds = time.perf_counter() - started
    validate_schedule(schedule)
    if schedule.rejected:
        raise BackfillError(f"{setup.name} {key} {config}: {len(schedule.rejected)} jobs rejected")
    started = time.perf_counter()
    fair = extra_measures(
        schedule, ["strict_unfairness", "relaxed_unfairness"], scheduler=build(resources=resources)
    )
    binds = {"memory_binds": memory_binds(schedule, capacity)}
    machine = {"memory_per_processor": setup.per_processor}
    return _result(schedule, setup, key, config, left_out, fair | binds, machine, sim_seconds, started)


def _result(
    schedule: Schedule,
    setup: TraceSetup,
    key: str,
    config: str,
    left_out: int,
    figures: dict[str, float],
    machine: dict[str, Any],
    sim_seconds: float,
    started: float,
) -> dict[str, Any]:
    """One cell as kept: what ran, on what, the seconds (the measures' since ``started``), the figures."""
    return {
        "trace": setup.stem,
        "scheduler": key,
        "config": config,
        "name": schedule.scheduler,
        "jobs": len(schedule.workload),
        "left_out": left_out,
        "machine_size": schedule.workload.machine_size,
        **machine,
        "sim_seconds": sim_seconds,
        "fst_seconds": time.perf_counter() - started,
        "figures": {
            "mean_wait": float(wait_times(schedule).mean()),
            "mean_bsld": float(bounded_slowdowns(schedule).mean()),
            **{k: float(v) for k, v in figures.items()},
        },
    }


def curie_window(trace_dir: Path, setup: TraceSetup) -> tuple[Workload, tuple[Partition, ...], int]:
    """The trace's first ``setup.jobs`` jobs in the partitions holding at least :data:`MIN_SHARE` of
    them, on a machine of those partitions' processors together; the partitions; how many jobs of
    the other partitions were left out."""
    workload, _ = read_swf(trace_dir / f"{setup.stem}.swf.gz")
    first = workload.records[: setup.jobs]
    numbers, counts = np.unique(first["partition"], return_counts=True)
    kept = [int(n) for n, c in zip(numbers, counts, strict=True) if c >= MIN_SHARE * len(first)]
    parts = log_partitions(workload, numbers=kept)
    inside = np.isin(first["partition"], kept)
    total = sum(p.processors for p in parts)
    return Workload.from_records(first[inside], total), parts, int(np.count_nonzero(~inside))


def run_curie_cell(
    workload: Workload, parts: tuple[Partition, ...], key: str, config: str, setup: TraceSetup, left_out: int
) -> dict[str, Any]:
    """Simulate one Curie cell (one pool or the partitions), validate it and return its figures."""
    build = SCHEDULERS[key][1]
    started = time.perf_counter()
    if config == "partitions":
        schedule = simulate_partitions(workload, parts, build())
        validate_partitions(schedule, parts)
    else:
        schedule = simulate(workload, build())
        validate_schedule(schedule)
    sim_seconds = time.perf_counter() - started
    if schedule.rejected:
        raise BackfillError(f"{setup.name} {key} {config}: {len(schedule.rejected)} jobs rejected")
    started = time.perf_counter()
    if config == "partitions":
        fst = partition_fair_start_times(workload, parts, build(), workers=1)
        fair = {
            "strict_unfairness": unfairness(schedule, fst.strict),
            "relaxed_unfairness": unfairness(schedule, fst.relaxed),
        }
    else:
        fair = extra_measures(schedule, ["strict_unfairness", "relaxed_unfairness"], scheduler=build())
    column = workload.column("partition")
    group = [next(i for i, p in enumerate(parts) if n in p.numbers) for n in column.tolist()]
    sizes = [p.processors for p in parts]
    binds = {"partition_binds": held_back(schedule, workload.column("processors").tolist(), group, sizes)}
    machine = {"partitions": [[p.name, p.processors] for p in parts]}
    return _result(schedule, setup, key, config, left_out, fair | binds, machine, sim_seconds, started)


def _path(results: Path, setup: TraceSetup, key: str, config: str) -> Path:
    return results / f"{setup.stem}__{key}__{config}.json"


def collect(trace_dir: Path, results: Path, *, run: bool) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Run the missing cells (unless ``run`` is false) and return every kept cell by (trace, scheduler,
    configuration)."""
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for setup in TRACES:
        todo = [
            (key, config)
            for key, (_, build) in SCHEDULERS.items()
            for config in CONFIGS
            if not _path(results, setup, key, config).exists()
            and (config == "processors" or plans_memory(build))
        ]
        if run and todo:
            workload, left_out = window(trace_dir, setup)
            for key, config in todo:
                cell = run_cell(workload, key, config, setup, left_out)
                save_result(_path(results, setup, key, config), cell)
                seconds = cell["sim_seconds"] + cell["fst_seconds"]
                print(f"{setup.name:12} {key:12} {config:10} {seconds:7.1f} s", file=sys.stderr, flush=True)
        _load_cells(cells, results, setup, CONFIGS)
    curie = [
        (key, config)
        for key in SCHEDULERS
        for config in CURIE_CONFIGS
        if not _path(results, CURIE, key, config).exists()
    ]
    if run and curie and PARTITIONS:
        workload, parts, left_out = curie_window(trace_dir, CURIE)
        for key, config in curie:
            cell = run_curie_cell(workload, parts, key, config, CURIE, left_out)
            save_result(_path(results, CURIE, key, config), cell)
            seconds = cell["sim_seconds"] + cell["fst_seconds"]
            print(f"{CURIE.name:12} {key:12} {config:10} {seconds:7.1f} s", file=sys.stderr, flush=True)
    _load_cells(cells, results, CURIE, CURIE_CONFIGS)
    return cells


def _load_cells(
    cells: dict[tuple[str, str, str], dict[str, Any]],
    results: Path,
    setup: TraceSetup,
    configs: tuple[str, ...],
) -> None:
    for key in SCHEDULERS:
        for config in configs:
            path = _path(results, setup, key, config)
            if path.exists():
                cells[setup.name, key, config] = load_result(path)


def trace_table(
    cells: dict[tuple[str, str, str], dict[str, Any]], setup: TraceSetup, configs: tuple[str, ...] = CONFIGS
) -> str:
    """A row per scheduler; for each measure one cell: its value in the first configuration (processors
    alone, or one pool), in the second (with memory, or partitions) and the change, so that the table
    has five columns and fits the page."""
    first, second = LABELS[configs[0]], LABELS[configs[1]]
    header = ["scheduler", *(label for _, label, _ in MEASURES)]
    rows = []
    for key, (label, _) in SCHEDULERS.items():
        alone, both = cells.get((setup.name, key, configs[0])), cells.get((setup.name, key, configs[1]))
        row = [label]
        for measure, _, scale in MEASURES:
            a = None if alone is None else alone["figures"][measure]
            b = None if both is None else both["figures"][measure]
            if a is None and b is None:
                row.append("")
                continue
            shown = " → ".join("-" if v is None else f"{v / scale:,.2f}" for v in (a, b))
            row.append(shown if a is None or b is None else f"{shown} ({change_text(a, b)})")
        rows.append(row)
    return f"Each cell: {first} → {second} (change).\n\n" + markdown(header, rows)


def _runs_row(
    cells: dict[tuple[str, str, str], dict[str, Any]], setup: TraceSetup, configs: tuple[str, ...]
) -> list[str]:
    some = [c for (name, _, _), c in cells.items() if name == setup.name]
    if not some:
        return [setup.name, setup.stem, f"first {setup.jobs:,}", "", "", "", "", ""]
    first = some[0]
    measure = "memory_binds" if configs == CONFIGS else "partition_binds"
    binds = [
        f"{SCHEDULERS[k][0]} {100 * cells[setup.name, k, configs[1]]['figures'][measure]:.1f} %"
        for k in SCHEDULERS
        if (setup.name, k, configs[1]) in cells
    ]
    if configs == CONFIGS:
        machine = f"{first['machine_size']:,} processors, {first['memory_per_processor'] / GB:.2f} GB each"
    else:
        sizes = ", ".join(f"{name}: {size:,}" for name, size in first["partitions"])
        machine = f"{first['machine_size']:,} processors in partitions {sizes}"
    seconds = sum(c["sim_seconds"] + c["fst_seconds"] for c in some)
    return [
        setup.name,
        setup.stem,
        f"first {setup.jobs:,}",
        f"{first['jobs']:,}",
        f"{first['left_out']:,}",
        machine,
        ", ".join(binds) or "not measured",
        f"{seconds:,.0f}",
    ]


def runs_table(cells: dict[tuple[str, str, str], dict[str, Any]]) -> str:
    """Each trace's window, the jobs run and left out, the machine, where the constraint bound, the
    seconds of its cells."""
    rows = [_runs_row(cells, setup, CONFIGS) for setup in TRACES] + [_runs_row(cells, CURIE, CURIE_CONFIGS)]
    header = ["trace", "file", "window", "jobs run", "left out", "machine", "binds", "seconds"]
    return markdown(header, rows, right=3)


def _missing(cells: dict[tuple[str, str, str], dict[str, Any]]) -> list[str]:
    sections = [*((setup, CONFIGS) for setup in TRACES), (CURIE, CURIE_CONFIGS)]
    return [
        f"{setup.name} {SCHEDULERS[key][0]} ({LABELS[config]})"
        for setup, configs in sections
        for key in SCHEDULERS
        for config in configs
        if (setup.name, key, config) not in cells
    ]


#: Said on the page, beside the results: what the memory figures can show, given that memory is one pool.
POOL_MODEL = (
    "**The memory results follow from the model.** Memory here is one machine-wide pool: a job's memory"
    " is spread over every node, so no job ever waits for the memory of the nodes it would run on. That"
    " memory seldom or never holds a job back below (*binds*, and the values after the arrows) is what this"
    " model gives: it shows how little memory binds under a pool model, not how much it binds on the"
    " real machine, where each node's memory is its own."
)


def page(cells: dict[tuple[str, str, str], dict[str, Any]]) -> str:
    """The whole page, from the kept cells."""
    count, dates, codes = provenance(cells.values())
    parts = [
        "# New results: memory as a second resource, and partitions",
        "",
        "<!-- written by benchmarks/resources/results_resources.py from benchmarks/resources/:"
        " do not edit -->",
        "",
        "These are **new measurements, not claims of any paper**: none of the papers this library"
        " reproduces schedules more than processors. They show what planning memory beside processors"
        " (see [Resources besides processors](resources.md)) changes for EASY, Conservative, PC and DC on"
        " two archive traces that record each job's memory request, and what splitting CEA-Curie into its"
        " partitions changes against one pool of the same processors.",
        "",
        POOL_MODEL,
        "",
        "## How they were measured",
        "",
        "* **Window.** The first jobs of each trace after `read_swf`'s default cleaning (the table below),"
        " the same for every scheduler and configuration, chosen so that the whole page regenerates in"
        " about half an hour on one core (the column *seconds* gives each trace's share).",
        "* **Memory.** `Resource.memory(capacity)`: each job holds its processors times its requested memory"
        " per processor (SWF field 10), else its used memory (field 7). The machine's memory is one pool"
        " (placement in nodes is not modelled). The capacity per processor, and why:",
        *(f"    * {s.name}: {s.per_processor / GB:.2f} GB per processor. {s.why}." for s in TRACES),
        "* **Same jobs in both runs.** A job whose memory exceeds the whole machine's would be rejected by"
        " the run with memory; such jobs are left out of the window before either run (column *left out*).",
        f"* **Partitions.** {CURIE.name}: the partitions (SWF field 16) holding at least"
        f" {MIN_SHARE:.0%} of the window's jobs, the others' jobs left out of both runs; {CURIE.why}.",
        "* **Measures.** Mean wait and mean bounded slowdown (10 s bound) over every job of the window; the"
        " strict and relaxed fair-start unfairness, the mean over jobs of max(0, start - fair start) with"
        " Sabin and Sadayappan's fair start times under the same scheduler and configuration (see"
        " [Fairness](fairness.md); with partitions, each partition's own). The change in brackets is"
        " (second - first) / first.",
        "* **Binds** is the share of the time with a job waiting in which the oldest waiting job's"
        " processors were free on the whole machine but its memory (or its partition's processors) were"
        " not, in the runs with memory (or partitions).",
        "* Every run takes the pure-Python path; with processors alone its schedules are the compiled"
        " kernel's.",
        "",
        "Regenerate with `python benchmarks/resources/results_resources.py` (runs the missing cells,"
        " then writes this page) or `python benchmarks/resources/results_resources.py --cached` (writes"
        " it from the kept results in `benchmarks/resources/`, without the traces).",
        "",
        "## The runs",
        "",
        runs_table(cells),
        "",
    ]
    for setup in TRACES:
        parts += [f"## {setup.name} with memory", "", trace_table(cells, setup), ""]
    parts += [f"## {CURIE.name} by partition", "", trace_table(cells, CURIE, CURIE_CONFIGS), ""]
    missing = _missing(cells)
    if missing:
        parts += [
            "## Not measured yet",
            "",
            "A scheduler runs with memory only once it plans memory (a probe checks it), and the partitioned"
            " runs need the library's partitions. Missing: " + "; ".join(missing) + ".",
            "",
        ]
    parts += [
        "## When they were measured",
        "",
        f"{count} cells, measured {dates} with {codes}." if count else "No cell is kept yet.",
        "",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="the folder of the kept cells")
    parser.add_argument("--page", type=Path, default=DEFAULT_PAGE, help="the page to write")
    parser.add_argument("--cached", action="store_true", help="use the kept cells only, run nothing")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="stamp new cells <commit>-dirty when the checkout has uncommitted changes (else refused)",
    )
    args = parser.parse_args(argv)
    if not args.cached:
        if not args.trace_dir.is_dir():
            print(f"results_resources: no trace folder at {args.trace_dir}", file=sys.stderr)
            return 2
        if args.allow_dirty:
            os.environ[ALLOW_DIRTY] = "1"
        try:
            measured_stamp()
        except BackfillError as error:
            print(f"results_resources: {error}", file=sys.stderr)
            return 2
    try:
        with kernel.pure_python():
            cells = collect(args.trace_dir, args.results, run=not args.cached)
        args.page.write_text(page(cells))
    except (BackfillError, OSError, ValueError) as error:  # a missing trace or folder, a bad cell
        print(f"results_resources: {error}", file=sys.stderr)
        return 2
    print(f"results_resources: wrote {args.page} from {len(cells)} cells", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
