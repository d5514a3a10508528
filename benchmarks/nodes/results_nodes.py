"""New measurements beyond the papers: EASY, Conservative, PC and DC on machines of nodes.

Issue 56, point 7. No paper we reproduce places jobs on nodes, so these are new figures, not claims of
any paper. On a fixed window of RICC-2010-2 and of HPC2N (the first jobs of each cleaned trace, read
with ``read_swf``'s default cleaning), each scheduler runs on one pool of processors and memory
(``resources=[Resource.memory(...)]`` at the nodes' memory per processor) and on the trace's nodes
(``nodes=Machine.parse(...)``, each job's processors as one-core tasks with its memory per processor,
placed first fit, and for HPC2N best fit too). A Lublin-Feitelson model workload, with every fourth
job asking nodes with GPUs (:func:`gpu_request`), runs on a machine of GPU and plain nodes under
EASY and Conservative, with a GPU pool and with each placement. Each cell keeps the mean wait, the
mean bounded slowdown (10 s bound), the strict fair-start unfairness (Sabin and Sadayappan's fair start
times under the same scheduler and machine) and, on nodes, the fragmentation
(:func:`~backfill.measures.nodes.fragmentation`) and the spread of the nodes' utilization.

Jobs that either run would reject (a job asking more memory than the pool, or a share no node holds)
are left out of the window before both runs, so that every run schedules the same jobs (the page
counts them). Every run takes the pure-Python path (node machines have no compiled kernel).

Each cell is a small JSON file under ``--results``, stamped with the commit that measured it; the page
``docs/results-nodes.md`` is written from those files alone. Usage::

    python benchmarks/nodes/results_nodes.py           # run the missing cells, then write the page
    python benchmarks/nodes/results_nodes.py --cached  # write the page from the kept cells only
"""

from __future__ import annotations

import argparse
import math
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
    Machine,
    NodeRequest,
    Resource,
    Schedule,
    Scheduler,
    Workload,
    fragmentation,
    kernel,
    lublin_feitelson,
    node_utilization,
    read_swf,
    simulate,
    tasks_request,
    validate_schedule,
)
from backfill.experiments.fair_start import fair_start_times
from backfill.measures.fairness import unfairness
from backfill.measures.metrics import bounded_slowdowns, wait_times
from backfill.profile.placement import PLACEMENTS
from backfill.schedulers import DC, PC

DEFAULT_RESULTS = ROOT / "benchmarks" / "nodes"
DEFAULT_PAGE = ROOT / "docs" / "results-nodes.md"

#: kB in a GB (the SWF records memory in kB).
GB = 2**20


class NodeSetup:
    """One workload of the page: its name and file stem, the window of jobs, the node machine, the
    pool's resource per processor (memory, kB) or in all (GPUs), the configurations run, and why."""

    def __init__(
        self, name: str, stem: str, jobs: int, machine: str, configs: tuple[str, ...], why: str
    ) -> None:
        self.name, self.stem, self.jobs, self.machine, self.configs, self.why = (
            name,
            stem,
            jobs,
            machine,
            configs,
            why,
        )


#: The traces, each with its window (its first ``jobs`` jobs after cleaning) and node machine; the pool
#: has the machine's processors and memory. The windows keep the whole page's runs within about a
#: quarter of an hour on one core (``benchmarks/nodes/NOTES-nodes.md`` has the costs measured to choose them).
TRACES: tuple[NodeSetup, ...] = (
    NodeSetup(
        "RICC-2010-2",
        "RICC-2010-2",
        1_000,
        "1024x8,memory=12G",
        ("pool", "first_fit"),
        "1,024 nodes of 8 cores and 12 GB (the header's 8,192 processors; 1.5 GB per processor, as on"
        " [the resources page](results-resources.md))",
    ),
    NodeSetup(
        "HPC2N",
        "HPC2N-2002-2.1-cln",
        3_000,
        "120x2,memory=1G",
        ("pool", "first_fit", "best_fit"),
        "120 dual-processor nodes of 1 GB (the header's 240 processors; the archive's description of the"
        " machine, 512 MB per processor, as on [the resources page](results-resources.md))",
    ),
)

#: The GPU machine: 16 nodes of 32 cores and 4 GPUs, then 48 nodes of 32 cores; its workload is
#: :data:`GPU_JOBS` jobs of the Lublin-Feitelson model (batch set, seed 0) for its 2,048 cores.
GPU = NodeSetup(
    "GPU model",
    "lublin-gpu",
    2_000,
    "16x32,gpus=4 48x32",
    ("pool", "first_fit", "best_fit", "contiguous"),
    "16 nodes of 32 cores and 4 GPUs (nodes 0-15), then 48 nodes of 32 cores (16-63); 64 GPUs",
)
#: The same nodes and workload with the GPU nodes numbered last: first fit and contiguous placement,
#: which take the lowest-numbered nodes, then fill the plain nodes before the GPU nodes.
GPU_LAST = NodeSetup(
    "GPU nodes last",
    "lublin-gpu-last",
    2_000,
    "48x32 16x32,gpus=4",
    ("first_fit", "best_fit", "contiguous"),
    "the same nodes numbered the other way: 48 nodes of 32 cores (0-47), then the 16 GPU nodes (48-63)",
)
#: The setups of the GPU machine.
GPU_SETUPS = (GPU, GPU_LAST)

#: The GPU machine's GPUs in all (the pool's capacity).
GPUS = 64
#: Cores per node of the GPU machine.
GPU_NODE_CORES = 32
#: Nodes with GPUs on the GPU machine.
GPU_NODES = 16


def _is_gpu_job(job: Job) -> bool:
    return job.id % 4 == 0 and job.processors <= GPU_NODES * GPU_NODE_CORES


def gpu_request(job: Job) -> NodeRequest:
    """The GPU workload's request rule: every fourth job (by id) that fits on the GPU nodes asks
    ``ceil(p / 32)`` nodes with 1 to 4 GPUs each (by id); the others ask their processors
    as one-core tasks.

    A GPU job of ``p`` processors asks ``k = ceil(p / 32)`` nodes of ``ceil(p / k)`` tasks: ``p``
    cores when ``k`` divides it (every size up to 32, and the powers of two), a few more otherwise.

    >>> gpu_request(Job(id=8, submit=0.0, processors=64, runtime=1.0, estimate=1.0))
    NodeRequest(count=2, share=(('cores', 32), ('gpus', 3)), per_node=1, exclusive=False)
    >>> gpu_request(Job(id=7, submit=0.0, processors=3, runtime=1.0, estimate=1.0)).count
    3
    """
    if not _is_gpu_job(job):
        return tasks_request(job)
    nodes = math.ceil(job.processors / GPU_NODE_CORES)
    return NodeRequest.nodes(
        nodes, tasks_per_node=math.ceil(job.processors / nodes), gpus_per_node=1 + (job.id // 4) % 4
    )


def gpu_amount(job: Job) -> int:
    """A job's GPUs in all under :func:`gpu_request`, the pool's view of them.

    >>> gpu_amount(Job(id=8, submit=0.0, processors=64, runtime=1.0, estimate=1.0))
    6
    """
    request = gpu_request(job)
    return request.count * request.amount("gpus")


#: Each scheduler's key (its cells' file names), its label in the tables, and its class.
SCHEDULERS: dict[str, tuple[str, Callable[..., Scheduler]]] = {
    "easy": ("EASY", EASY),
    "conservative": ("Conservative", Conservative),
    "pc": ("PC", PC),
    "dc": ("DC", DC),
}
#: The schedulers of the GPU machine.
GPU_SCHEDULERS = ("easy", "conservative")

#: How each configuration is headed in the tables.
LABELS = {"pool": "pool", "first_fit": "first fit", "best_fit": "best fit", "contiguous": "contiguous"}

#: The measures each cell keeps, with their labels and the unit they are shown in (seconds divided by).
MEASURES: tuple[tuple[str, str, float], ...] = (
    ("mean_wait", "mean wait (h)", 3600.0),
    ("mean_bsld", "mean bounded slowdown", 1.0),
    ("strict_unfairness", "strict unfairness (h)", 3600.0),
)
#: The measures of node runs only.
NODE_MEASURES: tuple[tuple[str, str, float], ...] = (
    ("fragmentation", "fragmentation (job-h)", 3600.0),
    ("mean_fragmentation", "per job (h)", 3600.0),
    ("utilization_spread", "utilization spread", 1.0),
)


def _pool_resources(setup: NodeSetup, machine: Machine) -> tuple[Resource, ...]:
    if setup in GPU_SETUPS:
        return (Resource("gpus", GPUS, gpu_amount),)
    return (Resource.memory(machine.totals()[machine.resources.index("memory")]),)


def machine_of(setup: NodeSetup) -> Machine:
    """The setup's node machine, with its request rule.

    >>> machine_of(GPU).cores, machine_of(TRACES[0]).text()
    (2048, '1024x8,memory=12G')
    """
    return Machine.parse(setup.machine.split(), request=gpu_request if setup in GPU_SETUPS else tasks_request)


def window(trace_dir: Path, setup: NodeSetup) -> tuple[Workload, int]:
    """The setup's first ``setup.jobs`` jobs, without those either run would reject; and how many were
    left out."""
    machine = machine_of(setup)
    if setup in GPU_SETUPS:
        first = lublin_feitelson(setup.jobs, machine_size=machine.cores, seed=0)
    else:
        workload, _ = read_swf(trace_dir / f"{setup.stem}.swf.gz")
        first = Workload.from_records(workload.records[: setup.jobs], machine.cores)
    (pool,) = _pool_resources(setup, machine)
    fits = np.array(
        [
            job.processors <= machine.cores
            and pool.request(job) <= pool.capacity
            and machine.refusal(machine.request(job)) is None
            for job in first
        ],
        dtype=bool,
    )
    return Workload.from_records(first.records[fits], first.machine_size), int(np.count_nonzero(~fits))


def _build(setup: NodeSetup, key: str, config: str) -> Scheduler:
    build = SCHEDULERS[key][1]
    machine = machine_of(setup)
    if config == "pool":
        return build(resources=_pool_resources(setup, machine))
    return build(nodes=machine, placement=PLACEMENTS[config])


def run_cell(workload: Workload, setup: NodeSetup, key: str, config: str, left_out: int) -> dict[str, Any]:
    """Simulate one cell, validate it and return its figures, the strict fair start times included."""
    started = time.perf_counter()
    schedule = simulate(workload, _build(setup, key, config))
    sim_seconds = time.perf_counter() - started
    validate_schedule(schedule)
    if schedule.rejected:
        raise BackfillError(f"{setup.name} {key} {config}: {len(schedule.rejected)} jobs rejected")
    started = time.perf_counter()
    fst = fair_start_times(workload, _build(setup, key, config), relaxed=False, workers=1)
    figures = {
        "mean_wait": float(wait_times(schedule).mean()),
        "mean_bsld": float(bounded_slowdowns(schedule).mean()),
        "strict_unfairness": float(unfairness(schedule, fst.strict)),
    }
    if config != "pool":
        figures |= node_figures(schedule)
    if setup in GPU_SETUPS:
        figures |= gpu_job_waits(schedule)
    return {
        "trace": setup.stem,
        "scheduler": key,
        "config": config,
        "name": schedule.scheduler,
        "jobs": len(workload),
        "left_out": left_out,
        "machine": setup.machine,
        "machine_size": workload.machine_size,
        "sim_seconds": sim_seconds,
        "fst_seconds": time.perf_counter() - started,
        "figures": figures,
    }


def node_figures(schedule: Schedule) -> dict[str, float]:
    """Fragmentation in job-seconds and per job, and the spread of the nodes' core utilization (its
    standard deviation over the nodes), and where the machine has GPUs the mean core utilization of
    the nodes with GPUs and of the others, and the GPUs' (NaN where a group is empty).

    >>> from backfill import FCFS
    >>> jobs = [Job(id=1, submit=0.0, processors=4, runtime=10.0, estimate=10.0)]
    >>> node_figures(simulate(Workload.from_jobs(jobs, 8), FCFS(nodes=Machine.parse("2x4"))))
    {'fragmentation': 0.0, 'mean_fragmentation': 0.0, 'utilization_spread': 0.5}
    """
    frag = fragmentation(schedule)
    cores = node_utilization(schedule)
    figures = {
        "fragmentation": frag,
        "mean_fragmentation": frag / len(schedule.workload),
        "utilization_spread": float(np.std(cores)),
    }
    machine = schedule.machine
    if machine is not None and "gpus" in machine.resources:
        gpus = node_utilization(schedule, "gpus")
        with_gpus = ~np.isnan(gpus)
        figures["utilization_gpu_nodes"] = float(cores[with_gpus].mean())
        figures["utilization_other_nodes"] = float(cores[~with_gpus].mean())
        figures["gpu_utilization"] = float(gpus[with_gpus].mean())
    return figures


def gpu_job_waits(schedule: Schedule) -> dict[str, float]:
    """The mean wait of the jobs :func:`gpu_request` gives GPUs, and of the others (NaN if none).

    >>> from backfill import FCFS
    >>> jobs = [Job(id=i, submit=0.0, processors=4, runtime=10.0, estimate=10.0) for i in (3, 4)]
    >>> gpu_job_waits(simulate(Workload.from_jobs(jobs, 4), FCFS()))
    {'mean_wait_gpu_jobs': 10.0, 'mean_wait_other_jobs': 0.0}
    """
    gpu = np.array([_is_gpu_job(job) for job in schedule.workload], dtype=bool)
    waits = wait_times(schedule)
    return {
        "mean_wait_gpu_jobs": float(waits[gpu].mean()) if gpu.any() else float("nan"),
        "mean_wait_other_jobs": float(waits[~gpu].mean()) if (~gpu).any() else float("nan"),
    }


def _path(results: Path, setup: NodeSetup, key: str, config: str) -> Path:
    return results / f"{setup.stem}__{key}__{config}.json"


def _sections() -> list[tuple[NodeSetup, tuple[str, ...]]]:
    return [*((s, tuple(SCHEDULERS)) for s in TRACES), *((s, GPU_SCHEDULERS) for s in GPU_SETUPS)]


def collect(
    trace_dir: Path, results: Path, *, run: bool, only: str | None = None
) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Run the missing cells (unless ``run`` is false; of the workload named ``only`` if given) and
    return every kept cell by (workload, scheduler, configuration)."""
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for setup, keys in _sections():
        todo = [
            (key, config)
            for key in keys
            for config in setup.configs
            if not _path(results, setup, key, config).exists()
        ]
        if run and todo and only in (None, setup.name):
            workload, left_out = window(trace_dir, setup)
            for key, config in todo:
                cell = run_cell(workload, setup, key, config, left_out)
                save_result(_path(results, setup, key, config), cell)
                seconds = cell["sim_seconds"] + cell["fst_seconds"]
                print(f"{setup.name:12} {key:12} {config:10} {seconds:7.1f} s", file=sys.stderr, flush=True)
        for key in keys:
            for config in setup.configs:
                path = _path(results, setup, key, config)
                if path.exists():
                    cells[setup.name, key, config] = load_result(path)
    return cells


def _value(cell: dict[str, Any] | None, measure: str, scale: float) -> str:
    if cell is None or measure not in cell["figures"]:
        return "-"
    return f"{cell['figures'][measure] / scale:,.2f}"


def workload_table(
    cells: dict[tuple[str, str, str], dict[str, Any]],
    setup: NodeSetup,
    keys: tuple[str, ...],
    pool_of: NodeSetup | None = None,
) -> str:
    """A row per scheduler and configuration: the measures, the mean wait's change against the pool
    (of ``pool_of``'s cells if given, for a setup that shares another's pool), and on nodes the
    fragmentation and the utilization spread."""
    header = [
        "scheduler",
        "machine",
        "mean wait (h)",
        "vs pool",
        *(label for _, label, _ in MEASURES[1:]),
        *(label for _, label, _ in NODE_MEASURES),
    ]
    rows = []
    for key in keys:
        pool = cells.get(((pool_of or setup).name, key, "pool"))
        for config in setup.configs:
            cell = cells.get((setup.name, key, config))
            change = "-"
            if cell is not None and pool is not None and config != "pool":
                change = change_text(pool["figures"]["mean_wait"], cell["figures"]["mean_wait"])
            rows.append(
                [
                    SCHEDULERS[key][0],
                    LABELS[config],
                    _value(cell, "mean_wait", 3600.0),
                    change,
                    *(_value(cell, m, scale) for m, _, scale in (*MEASURES[1:], *NODE_MEASURES)),
                ]
            )
    return markdown(header, rows, right=2)


#: The GPU machine's columns of job kinds and node groups: (figure, label, unit).
GPU_GROUPS = (
    ("mean_wait_gpu_jobs", "GPU jobs' mean wait (h)", 3600.0),
    ("mean_wait_other_jobs", "other jobs' mean wait (h)", 3600.0),
    ("utilization_gpu_nodes", "GPU nodes' cores busy", 1.0),
    ("utilization_other_nodes", "other nodes' cores busy", 1.0),
    ("gpu_utilization", "GPUs busy", 1.0),
)


def gpu_groups_table(cells: dict[tuple[str, str, str], dict[str, Any]]) -> str:
    """A row per machine, scheduler and placement of the GPU workload: the mean wait of the GPU jobs
    and of the others, and on nodes how busy each node group's cores and the GPUs were (fractions of
    the span)."""
    header = ["GPU nodes", "scheduler", "machine", *(label for _, label, _ in GPU_GROUPS)]
    rows = [
        [
            "last" if setup is GPU_LAST else "first",
            SCHEDULERS[key][0],
            LABELS[config],
            *(_value(cells.get((setup.name, key, config)), f, scale) for f, _, scale in GPU_GROUPS),
        ]
        for setup in GPU_SETUPS
        for key in GPU_SCHEDULERS
        for config in setup.configs
    ]
    return markdown(header, rows, right=3)


def _span(values: list[float], scale: float, unit: str) -> str:
    low, high = min(values) / scale, max(values) / scale
    return f"{low:,.2f}{unit}" if f"{low:,.2f}" == f"{high:,.2f}" else f"{low:,.2f} to {high:,.2f}{unit}"


def _pct(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:+.1f} %" if f"{low:+.1f}" == f"{high:+.1f}" else f"{low:+.1f} to {high:+.1f} %"


def summary(cells: dict[tuple[str, str, str], dict[str, Any]]) -> list[str]:
    """What the tables show, in ranges over the cells kept: the node runs' mean wait and bounded
    slowdown against the pool's for each trace, and the GPU jobs' mean wait by where the GPU nodes
    are numbered. Empty where a range has no cell."""
    lines = []
    for setup in TRACES:
        wait, bsld = [], []
        for (name, key, config), cell in cells.items():
            pool = cells.get((name, key, "pool"))
            if name == setup.name and config != "pool" and pool is not None:
                for out, measure in ((wait, "mean_wait"), (bsld, "mean_bsld")):
                    before = pool["figures"][measure]
                    out.append(100 * (cell["figures"][measure] - before) / before if before else 0.0)
        if wait:
            lines.append(
                f"* **{setup.name}.** Against the pool of the same processors and memory, the node runs'"
                f" mean wait changes by {_pct(wait)} and their mean bounded slowdown by {_pct(bsld)}"
                f" ({len(wait)} node run{'s' if len(wait) > 1 else ''})."
            )
    waits = {}
    for setup, configs in ((GPU, ("pool",)), (GPU, tuple(PLACEMENTS)), (GPU_LAST, tuple(PLACEMENTS))):
        for kind in ("gpu", "other"):
            waits[setup.name, configs[0], kind] = [
                cell["figures"][f"mean_wait_{kind}_jobs"]
                for (name, _, config), cell in cells.items()
                if name == setup.name and config in configs
            ]
    pool_gpu, first_gpu, last_gpu = (
        waits[s.name, c, "gpu"] for s, c in ((GPU, "pool"), (GPU, "first_fit"), (GPU_LAST, "first_fit"))
    )
    if pool_gpu and first_gpu and last_gpu:
        busy = {
            kind: [
                cell["figures"][f"{kind}_utilization" if kind == "gpu" else f"utilization_{kind}"]
                for (name, _, config), cell in cells.items()
                if name == GPU.name and config != "pool"
            ]
            for kind in ("gpu_nodes", "other_nodes", "gpu")
        }
        first_other, last_other = (
            waits[GPU.name, "first_fit", "other"],
            waits[GPU_LAST.name, "first_fit", "other"],
        )
        lines.append(
            f"* **{GPU.name}.** The GPU jobs wait {_span(pool_gpu, 3600.0, ' h')} on average in the pool,"
            f" {_span(first_gpu, 3600.0, ' h')} on the nodes with the GPU nodes numbered first and"
            f" {_span(last_gpu, 3600.0, ' h')} with them numbered last, under every placement; the other"
            f" jobs {_span(first_other, 3600.0, ' h')} and {_span(last_other, 3600.0, ' h')}. All three"
            " placements take the lowest-numbered of equally roomy nodes (first fit and contiguous by"
            " design, best fit on ties, and every node has 32 cores), so with the GPU nodes first the"
            f" jobs without GPUs fill them (their cores busy {_span(busy['gpu_nodes'], 1.0, '')} of the"
            f" span, the other nodes' {_span(busy['other_nodes'], 1.0, '')}), while the GPUs are busy"
            f" {_span(busy['gpu'], 1.0, '')} of it; a GPU job then waits for cores on the GPU nodes,"
            " which the pool, seeing 64 GPUs and 2,048 cores apart, does not see. Numbered last, the"
            " GPU nodes are left to the GPU jobs until the plain nodes are full."
            + (
                " Which node group comes first decides more here than the choice among the three"
                " placements: the GPU jobs wait less in every run with them last than in any with them first."
                if max(last_gpu) < min(first_gpu)
                else ""
            )
        )
    return lines


def _runs_row(cells: dict[tuple[str, str, str], dict[str, Any]], setup: NodeSetup) -> list[str]:
    some = [c for (name, _, _), c in cells.items() if name == setup.name]
    source = "Lublin-Feitelson model, seed 0" if setup in GPU_SETUPS else setup.stem
    if not some:
        return [setup.name, source, f"first {setup.jobs:,}", "", "", f"`{setup.machine}`", ""]
    first = some[0]
    seconds = sum(c["sim_seconds"] + c["fst_seconds"] for c in some)
    return [
        setup.name,
        source,
        f"first {setup.jobs:,}",
        f"{first['jobs']:,}",
        f"{first['left_out']:,}",
        f"`{setup.machine}`",
        f"{seconds:,.0f}",
    ]


def runs_table(cells: dict[tuple[str, str, str], dict[str, Any]]) -> str:
    """Each workload's window, the jobs run and left out, the node machine, the seconds of its cells."""
    rows = [_runs_row(cells, setup) for setup, _ in _sections()]
    header = ["workload", "source", "window", "jobs run", "left out", "nodes", "seconds"]
    return markdown(header, rows, right=3)


def _missing(cells: dict[tuple[str, str, str], dict[str, Any]]) -> list[str]:
    return [
        f"{setup.name} {SCHEDULERS[key][0]} ({LABELS[config]})"
        for setup, keys in _sections()
        for key in keys
        for config in setup.configs
        if (setup.name, key, config) not in cells
    ]


#: Said on the page, beside the results: what a pool sees that nodes do not, and the other way round.
MODELS = (
    "**Pool against nodes.** The pool is the machine's processors and memory (or GPUs) as two"
    " machine-wide amounts: a job starts when both have room, wherever that room is. On nodes, each"
    " one-core task of a job must find a core and its memory per processor on one node, and a GPU"
    " job its cores and GPUs on each of its nodes: free cores on nodes that lack the memory, or on"
    " nodes without GPUs, hold no such task. A reservation on nodes holds particular nodes. At any instant"
    " the nodes can start no job the pool's free amounts could not hold, though over a whole run the"
    " schedules part and a node run may start some jobs sooner;"
    " *fragmentation* counts the job-hours jobs waited while the machine-wide free amounts would have"
    " held them (its definition: [fragmentation](reference/measures.nodes.md))."
)


def page(cells: dict[tuple[str, str, str], dict[str, Any]]) -> str:
    """The whole page, from the kept cells."""
    count, dates, codes = provenance(cells.values())
    parts = [
        "# New results: machines of nodes",
        "",
        "<!-- written by benchmarks/nodes/results_nodes.py from benchmarks/nodes/: do not edit -->",
        "",
        "These are **new measurements, not claims of any paper**: none of the papers this library"
        " reproduces places jobs on nodes. They show what scheduling on nodes (a `Machine` of node"
        " groups, see [Machines of nodes](nodes.md)) changes for EASY, Conservative, PC"
        " and DC against one pool of the same processors and memory, on two archive traces with their"
        " nodes' memory, and what the placement (first fit, best fit, contiguous) changes on a model"
        " machine where some nodes carry GPUs.",
        "",
        MODELS,
        "",
        "## How they were measured",
        "",
        "* **Window.** The first jobs of each trace after `read_swf`'s default cleaning (the table below),"
        " the same for every scheduler and machine, chosen so that the whole page regenerates in about"
        " a quarter of an hour on one core (the column *seconds* gives each workload's share, measured on a"
        " shared two-core machine).",
        "* **Nodes.** Each job's processors are one-core tasks with its requested memory per processor"
        " (SWF field 10, else its used memory, field 7), as `tasks_request` reads them. The machines:",
        *(f"    * {s.name}: `{s.machine}`, {s.why}." for s in TRACES),
        f"    * {GPU.name}: `{GPU.machine}`, {GPU.why}. The workload is `lublin_feitelson({GPU.jobs},"
        " machine_size=2048, seed=0)`; every fourth job (by id) that fits on the GPU nodes asks"
        " ceil(p / 32) nodes with ceil(p / nodes) cores and 1 to 4 GPUs on each (by id), the others"
        " their processors as tasks (`gpu_request` in the script). The pool has the 2,048 processors"
        " and 64 GPUs, each GPU job holding its GPUs in all.",
        f"    * {GPU_LAST.name}: `{GPU_LAST.machine}`, {GPU_LAST.why}; the same workload and pool.",
        "* **Pool.** The same scheduler with `resources=[Resource.memory(...)]` at the node machine's"
        " memory in all (or a GPU resource of 64), processors and memory as one pool each.",
        "* **Same jobs in every run.** A job that the pool or the nodes could never hold is left out of the"
        " window before every run (column *left out*).",
        "* **Measures.** Mean wait and mean bounded slowdown (10 s bound) over every job of the window;"
        " the strict fair-start unfairness, the mean over jobs of max(0, start - fair start) with Sabin"
        " and Sadayappan's strict fair start times under the same scheduler and machine (see"
        " [Fairness](fairness.md)); on nodes, the fragmentation in job-hours and per job, and the"
        " *utilization spread*, the standard deviation over the nodes of each node's share of the span"
        " its cores were busy (0 when every node was as busy as the others). *vs pool* is the mean"
        " wait's change against the pool run of the same scheduler.",
        "* Every run takes the pure-Python path (the compiled kernel plans processors alone).",
        "",
        "Regenerate with `python benchmarks/nodes/results_nodes.py` (runs the missing cells, then writes"
        " this page) or `python benchmarks/nodes/results_nodes.py --cached` (writes it from the kept"
        " results in `benchmarks/nodes/`, without the traces).",
        "",
        "## The runs",
        "",
        runs_table(cells),
        "",
    ]
    for setup in TRACES:
        parts += [f"## {setup.name}: pool and nodes", "", workload_table(cells, setup, tuple(SCHEDULERS)), ""]
    parts += [
        f"## {GPU.name}: placement on GPU and plain nodes",
        "",
        workload_table(cells, GPU, GPU_SCHEDULERS),
        "",
        f"With the GPU nodes numbered last (`{GPU_LAST.machine}`), against the same pool:",
        "",
        workload_table(cells, GPU_LAST, GPU_SCHEDULERS, pool_of=GPU),
        "",
        "The GPU jobs against the others, and how busy each group of nodes was (fractions of the span):",
        "",
        gpu_groups_table(cells),
        "",
    ]
    said = summary(cells)
    if said:
        parts += ["## What the tables show", "", *said, ""]
    missing = _missing(cells)
    if missing:
        parts += ["## Not measured yet", "", "Missing: " + "; ".join(missing) + ".", ""]
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
    parser.add_argument("--only", help="run the missing cells of this workload only (its name on the page)")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="stamp new cells <commit>-dirty when the checkout has uncommitted changes (else refused)",
    )
    args = parser.parse_args(argv)
    names = [s.name for s, _ in _sections()]
    if args.only is not None and args.only not in names:
        print(f"results_nodes: --only {args.only!r} is none of {', '.join(names)}", file=sys.stderr)
        return 2
    if not args.cached:
        if not args.trace_dir.is_dir():
            print(f"results_nodes: no trace folder at {args.trace_dir}", file=sys.stderr)
            return 2
        if args.allow_dirty:
            os.environ[ALLOW_DIRTY] = "1"
        try:
            measured_stamp()
        except BackfillError as error:
            print(f"results_nodes: {error}", file=sys.stderr)
            return 2
    try:
        with kernel.pure_python():
            cells = collect(args.trace_dir, args.results, run=not args.cached, only=args.only)
        args.page.write_text(page(cells))
    except (BackfillError, OSError, ValueError) as error:  # a missing trace or folder, a bad cell
        print(f"results_nodes: {error}", file=sys.stderr)
        return 2
    print(f"results_nodes: wrote {args.page} from {len(cells)} cells", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
