"""Sweeps: every combination of workload, scheduler, priority, load and estimates, simulated and measured.

A :class:`Grid` names the workloads (:class:`TraceWorkload`, :class:`ModelWorkload`), the schedulers
with their parameters (:class:`SchedulerSpec`), the queue priorities, load factors and estimate
policies to combine; each combination is a :class:`Cell`, one simulation whose schedule is validated
and summarized. :func:`run_sweep` runs the cells on a process pool, or on any
:class:`concurrent.futures.Executor` (a Dask ``client.get_executor()`` runs them on a cluster), caches
each finished cell on disk under a content key so that an interrupted sweep resumes, and returns a
:class:`SweepResult`: one row per cell, in grid order, as CSV, a pandas DataFrame or percent
improvements over a baseline. See ``docs/sweeps.md``.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from backfill.errors import BackfillError
from backfill.experiments._grid_values import (
    ESTIMATES,
    as_float,
    as_floats,
    as_measures,
    as_spec,
    as_specs,
    as_tuple,
    as_workloads,
    check_bound,
    check_estimates,
    check_load,
    check_spec,
    check_trim,
    check_workload,
)
from backfill.experiments._parallel import run_parallel
from backfill.experiments.cache import DAMAGED, CellStore, content_key, library_version
from backfill.experiments.columns import (
    MEASURE_GROUPS,
    extra_measures,
    needs_reservations,
)
from backfill.experiments.outputs import MODEL_SOURCE, jobs_csv_text, provenance, reading_policy
from backfill.experiments.partitioned import PartitionSpec, check_partitioned, partition_measures
from backfill.experiments.progress import Progress, progress_meter
from backfill.experiments.results import (
    COLUMNS,
    COUNT_COLUMNS,
    DESCRIPTION_COLUMNS,
    DROPPED_COLUMN,
    METRIC_COLUMNS,
    REJECTIONS_COLUMN,
    TRIM_COLUMNS,
    SweepInterrupted,
    SweepResult,
)
from backfill.experiments.specs import (
    SCHEDULERS,
    ModelWorkload,
    SchedulerSpec,
    TraceWorkload,
    WorkloadSpec,
    check_priority,
)
from backfill.measures.metrics import DEFAULT_BOUND, summarize
from backfill.measures.nodes import NODE_COLUMNS, node_columns
from backfill.measures.partitions import partition_held_back, validate_partitions
from backfill.measures.resource_use import held_back_column, held_back_columns, utilization_column
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.measures.validation import validate_schedule
from backfill.partitions import Partition, simulate_partitions
from backfill.schedule import Schedule
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.simulator import simulate

__all__ = [
    "COLUMNS",
    "DESCRIPTION_COLUMNS",
    "DROPPED_COLUMN",
    "ESTIMATES",
    "METRIC_COLUMNS",
    "REJECTIONS_COLUMN",
    "SCHEDULERS",
    "Cell",
    "Grid",
    "ModelWorkload",
    "PartitionSpec",
    "SchedulerSpec",
    "SweepInterrupted",
    "SweepResult",
    "TraceWorkload",
    "Trim",
    "run_sweep",
    "summary_row",
]

# -- cells and grids -------------------------------------------------------------------------------


def _check_cell(cell: Cell) -> None:
    check_priority(cell.scheduler, cell.priority)
    check_load(cell.load)
    check_estimates(cell.estimates)
    check_partitioned(cell.partitions, [cell.workload])


@attrs.frozen
class Cell:
    """One simulation of a sweep: a workload under a scheduler, priority, load factor and estimates.

    The workload gets the estimate policy first, then the load factor
    (:meth:`~backfill.workloads.workload.Workload.scaled`); ``bound`` is the bounded-slowdown threshold of
    its metrics. ``measures`` names the columns of
    :data:`~backfill.experiments.columns.EXTRA_COLUMNS` to compute besides the standard ones (the
    others of the vocabulary are always there), and ``trim`` the jobs every measure leaves out
    (:class:`~backfill.measures.trim.Trim`; the simulation keeps them). With ``partitions`` (logs
    only), the partitions it chooses on the log as read run apart, each planning its share of the
    resources (:func:`~backfill.partitions.simulate_partitions`, then ``validate_partitions``).

    Examples:
        >>> cell = Cell(ModelWorkload(n_jobs=60, machine_size=16), SchedulerSpec("EASY"), "sjf", load=1.5)
        >>> row = cell.run()
        >>> row["scheduler"], row["priority"], row["load"], row["jobs"]
        ('EASY', 'sjf', 1.5, 60)
        >>> len(cell.key())
        64
    """

    workload: WorkloadSpec = attrs.field(validator=check_workload)
    scheduler: SchedulerSpec = attrs.field(converter=as_spec, validator=check_spec)
    priority: str = "fcfs"
    load: float = attrs.field(default=1.0, converter=as_float)
    estimates: str = "user"
    bound: float = attrs.field(default=DEFAULT_BOUND, converter=as_float, validator=check_bound)
    measures: tuple[str, ...] = attrs.field(default=(), converter=as_measures)
    trim: Trim = attrs.field(factory=Trim, validator=check_trim)
    partitions: PartitionSpec | None = None

    def __attrs_post_init__(self) -> None:
        _check_cell(self)

    def key(self) -> str:
        """Return the cell's content key: the hex SHA-256 of everything its result depends on."""
        return content_key(self._key_data(self.workload.identity()))

    def _key_data(self, identity: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "workload": dict(identity),
            "scheduler": self.scheduler.name,
            "params": [list(p) for p in self.scheduler.params],
            "priority": self.priority,
            "load": self.load,
            "estimates": self.estimates,
            "bound": self.bound,
            "version": library_version(),
            # Only when given, so that the cells of sweeps without them keep their keys.
            **({"measures": list(self.measures)} if self.measures else {}),
            **({"trim": [self.trim.warmup, self.trim.cooldown]} if self.trim else {}),
            **self.scheduler.resource_key(),  # with resources or nodes, never the key of a cell without
            **({"partitions": self.partitions.identity()} if self.partitions is not None else {}),
        }

    def description(self) -> dict[str, Any]:
        """Return the columns that describe the cell (:data:`DESCRIPTION_COLUMNS`)."""
        return {
            "workload": self.workload.label,
            "scheduler": self.scheduler.label,
            "scheduler_name": self.scheduler.name,
            "params": self.scheduler.row_params(),  # with the node machine's, on one
            "priority": self.priority,
            "load": self.load,
            "estimates": self.estimates,
        }

    def run(self) -> dict[str, Any]:
        """Simulate the cell in this process, validate the schedule, and return its result row."""
        identity = self.workload.identity()
        return _row(self, _measure(self, identity), identity)


def _row(cell: Cell, metrics: Mapping[str, Any], identity: Mapping[str, Any]) -> dict[str, Any]:
    trim = dict(zip(TRIM_COLUMNS, cell.trim.describe(), strict=True))
    measured = {k: v for k, v in metrics.items() if k != "path"}  # a provenance column
    return cell.description() | measured | trim | _provenance(cell.workload, identity, metrics["path"])


#: The key of a measured cell under which a sweep run with ``jobs=True`` returns its per-job CSV.
_JOBS = "jobs_csv"


def _provenance(workload: WorkloadSpec, identity: Mapping[str, Any], path: str) -> dict[str, Any]:
    # The schedule's path comes with the measures, which the cache keeps: a cached cell has no schedule.
    if isinstance(workload, TraceWorkload):
        reading = reading_policy(workload.reading_policy())  # a sweep reads its logs strictly
        return provenance(workload.path.name, sha256=identity["sha256"], reading=reading, path=path)
    return provenance(MODEL_SOURCE, seed=identity["seed"], path=path)


def summary_row(
    schedule: Schedule,
    *,
    bound: float = DEFAULT_BOUND,
    seconds: float = math.nan,
    trim: Trim | None = None,
    partitions: Sequence[Partition] = (),
) -> dict[str, Any]:
    """Return the metric and accounting columns of a result row for a validated ``schedule``.

    :func:`~backfill.measures.metrics.summarize` with ``jobs`` and ``rejected`` as integers,
    ``seconds`` (the simulation's wall time), each planned resource's utilization (which
    ``summarize`` gives; none with processors alone) and the seconds each held the oldest waiting
    job back (``held_back_<name>``, :func:`~backfill.measures.resource_use.held_back`, over the
    whole run even when trimmed; with ``partitions``, the schedule's own, partition by partition,
    :func:`~backfill.measures.partitions.partition_held_back`, not on the merged pools), on a node
    machine the ``fragmentation`` columns (their free amounts over the whole run), the simulator's rejections
    and the SWF reader's dropped jobs by reason, as a sweep's rows have them; ``backfill simulate`` too.
    With ``trim``, the statistics cover the jobs it keeps (:func:`~backfill.measures.trim.trim_schedule`),
    while ``jobs``, ``rejected`` and the reasons still account for every job.

    Examples:
        >>> from backfill import EASY, lublin_feitelson, simulate
        >>> row = summary_row(simulate(lublin_feitelson(30, machine_size=8), EASY()), seconds=0.5)
        >>> row["jobs"], row["seconds"], row["rejected_reasons"]
        (30, 0.5, '')
    """
    trim = trim or Trim()
    measured = trim_schedule(schedule, trim)
    metrics: dict[str, Any] = summarize(measured, bound=bound)  # with each resource's utilization
    # Over the whole run, trimming aside: what was free at an instant depends on every job running.
    if partitions:  # each partition a machine of its own
        metrics |= {held_back_column(k): v for k, v in partition_held_back(schedule, partitions).items()}
    else:
        metrics |= held_back_columns(schedule)
    if trim:  # the free amounts of every job running, the waits of the jobs measured
        metrics |= node_columns(schedule, measured_jobs(schedule.submit, trim))
    whole = summarize(schedule, bound=bound) if trim else metrics
    for key in COUNT_COLUMNS:
        metrics[key] = int(whole[key])
    metrics["seconds"] = seconds
    metrics[REJECTIONS_COLUMN] = _reasons(schedule.rejection_counts())
    metrics[DROPPED_COLUMN] = _reasons(schedule.workload.provenance.get("dropped") or {})
    return metrics


def _measure(
    cell: Cell, identity: Mapping[str, Any], jobs: bool = False, tick: Callable[[int], object] | None = None
) -> dict[str, Any]:
    workload = as_read = cell.workload._load(identity)
    if cell.estimates == "exact":
        workload = workload.with_exact_estimates()
    if cell.load != 1.0:
        workload = workload.scaled(cell.load)
    scheduler = cell.scheduler.build(cell.priority, workload)
    # A log's partitions and their default sizes come from it as read, before estimates and load.
    parts = cell.partitions.planned(as_read, scheduler, workload.machine_size) if cell.partitions else ()
    logged = needs_reservations(cell.measures)
    started = time.perf_counter()
    if cell.partitions is not None:
        schedule = simulate_partitions(workload, parts, scheduler, record_reservations=logged)
    else:
        schedule = simulate(workload, scheduler, record_reservations=logged)
    seconds = time.perf_counter() - started
    if parts:
        validate_partitions(schedule, parts)  # the whole schedule, then each partition's capacities
    else:
        validate_schedule(schedule)
    metrics = summary_row(schedule, bound=cell.bound, seconds=seconds, trim=cell.trim, partitions=parts)
    fresh = cell.scheduler.build(cell.priority, workload) if cell.measures else scheduler
    if cell.measures and parts:
        metrics |= partition_measures(
            schedule, parts, fresh, cell.measures, cell.bound, cell.trim, progress=tick or False
        )
    elif cell.measures:
        metrics |= extra_measures(
            schedule, cell.measures, scheduler=fresh, bound=cell.bound, trim=cell.trim, progress=tick or False
        )
    metrics["path"] = schedule.path
    if jobs:
        description = cell.description() | _provenance(cell.workload, identity, schedule.path)
        metrics[_JOBS] = jobs_csv_text(schedule, description, bound=cell.bound)
    return metrics


def _reasons(counts: Mapping[str, int]) -> str:
    return "; ".join(f"{reason}: {counts[reason]}" for reason in sorted(counts))


def _nonempty_unique(what: str, labels: list[Any]) -> None:
    if not labels:
        raise BackfillError(f"a grid needs at least one {what}")
    repeated = sorted({str(x) for x in labels if labels.count(x) > 1})
    if repeated:
        raise BackfillError(f"{what} given twice in a grid: {', '.join(repeated)}")


def _check_grid(grid: Grid) -> None:
    for w in grid.workloads:
        check_workload(grid, attrs.fields(Grid).workloads, w)
    for s in grid.schedulers:
        check_spec(grid, attrs.fields(Grid).schedulers, s)
    for p in grid.priorities:
        if not isinstance(p, str) or p not in PRIORITIES:
            raise BackfillError(f"unknown priority {p!r}; known: {', '.join(PRIORITIES)}")
    for load in grid.loads:
        check_load(load)
    for e in grid.estimates:
        check_estimates(e)
    _nonempty_unique("workload label", [w.label for w in grid.workloads])
    _nonempty_unique("scheduler label", [s.label for s in grid.schedulers])
    _nonempty_unique("priority", list(grid.priorities))
    _nonempty_unique("load factor", list(grid.loads))
    _nonempty_unique("estimate policy", list(grid.estimates))
    check_partitioned(grid.partitions, grid.workloads)


@attrs.frozen
class Grid:
    """The cells of a sweep: workloads x schedulers x priorities x load factors x estimate policies.

    Sequences may be given as lists; a scheduler as a name, a workload as a trace path. Labels must
    be unique, since results are grouped by them. ``measures``, ``trim`` and ``partitions`` apply to
    every cell (see :class:`Cell`). :meth:`cells` yields the combinations in the
    order of :func:`itertools.product` over the fields as listed (workloads outermost, estimates
    fastest), except that a scheduler without a queue priority (Conservative, RelShare,
    LookaheadSlack, SlackBackfill) gets one cell with priority ``"fcfs"`` per workload, load and
    estimates, whatever the grid's priorities: it would run the same simulation for each.

    Examples:
        >>> grid = Grid([ModelWorkload(n_jobs=50, machine_size=16)], ["Conservative", "EASY"],
        ...             priorities=["fcfs", "sjf"], loads=[1.0, 1.2])
        >>> [(c.scheduler.label, c.priority, c.load) for c in grid.cells()]  # doctest: +NORMALIZE_WHITESPACE
        [('Conservative', 'fcfs', 1.0), ('Conservative', 'fcfs', 1.2),
         ('EASY', 'fcfs', 1.0), ('EASY', 'fcfs', 1.2), ('EASY', 'sjf', 1.0), ('EASY', 'sjf', 1.2)]
    """

    workloads: tuple[WorkloadSpec, ...] = attrs.field(converter=as_workloads)
    schedulers: tuple[SchedulerSpec, ...] = attrs.field(converter=as_specs)
    priorities: tuple[str, ...] = attrs.field(default=("fcfs",), converter=as_tuple)
    loads: tuple[float, ...] = attrs.field(default=(1.0,), converter=as_floats)
    estimates: tuple[str, ...] = attrs.field(default=("user",), converter=as_tuple)
    bound: float = attrs.field(default=DEFAULT_BOUND, converter=as_float, validator=check_bound)
    measures: tuple[str, ...] = attrs.field(default=(), converter=as_measures)
    trim: Trim = attrs.field(factory=Trim, validator=check_trim)
    partitions: PartitionSpec | None = None

    def __attrs_post_init__(self) -> None:
        _check_grid(self)

    def cells(self) -> Iterator[Cell]:
        """Yield every cell, in the documented order."""
        for workload in self.workloads:
            for scheduler in self.schedulers:
                priorities = self.priorities if scheduler.takes_priority else ("fcfs",)
                for priority in priorities:
                    for load in self.loads:
                        for estimates in self.estimates:
                            yield Cell(
                                workload,
                                scheduler,
                                priority,
                                load,
                                estimates,
                                self.bound,
                                self.measures,
                                self.trim,
                                self.partitions,
                            )


# -- running ---------------------------------------------------------------------------------------


def run_sweep(
    grid: Grid,
    *,
    cache: str | os.PathLike[str] | None = None,
    executor: cf.Executor | None = None,
    workers: int | None = None,
    progress: Progress = False,
    jobs: bool = False,
) -> SweepResult:
    """Run every cell of ``grid`` and return one row per cell, in grid order.

    Each cell's workload gets its estimate policy, then its load factor; it is simulated
    (:func:`~backfill.simulator.simulate`), the schedule is checked
    (:func:`~backfill.measures.validation.validate_schedule`, which raises on an infeasible one) and
    summarized (:func:`~backfill.measures.metrics.summarize` with the grid's ``bound``), and the simulation's
    wall time is added as ``seconds``. Cells run on ``executor`` if given (a Dask cluster through
    ``client.get_executor()``), else on a :class:`~concurrent.futures.ProcessPoolExecutor` of
    ``workers`` processes (``os.cpu_count()`` if not given), or in this process with ``workers=1`` (or
    when one cell is left to run).
    Everything sent to a worker is plain data, so any executor can pickle it; trace files must be
    readable at the same path there.

    With ``cache`` (a directory, created if missing), each finished cell is written there as
    ``<key>.json`` (see :meth:`Cell.key`) as soon as it is done, and cells found there are not run
    again, so an interrupted sweep resumes where it stopped. Rows are the same, bit for bit, run
    serially, in parallel or from the cache, except ``seconds``, which a cached row keeps from its run.
    A cached cell is used only if its file is whole (its checksum, key and values check out); a
    damaged one is computed again and counted in :attr:`SweepResult.damaged`. A cache where no file
    can be created is refused before any cell runs; a write that fails later (a full disk) costs the
    cache, not the results: the sweep goes on, and :attr:`SweepResult.unsaved` and
    :attr:`SweepResult.cache_error` (with a :class:`RuntimeWarning`) say how many cells it could not
    keep and which file failed.

    With ``jobs``, every cell's per-job results come back too (:attr:`SweepResult.jobs`, CSV text
    as :func:`~backfill.experiments.outputs.jobs_csv_text` writes it); the cache keeps them beside
    the cell (a cell cached without them is simulated again).

    An interrupt (Ctrl-C; ``backfill compare`` turns SIGTERM into one) stops the sweep at once: the
    pool's queued cells are cancelled, its worker processes (which ignore Ctrl-C themselves, so
    that the pool never hangs on a half-delivered interrupt) are terminated, and
    :class:`SweepInterrupted` says how many cells had finished; with ``cache`` they are kept.

    Args:
        grid: The cells.
        cache: Directory of cached cells, or None for no cache.
        executor: Where to run the cells; None makes (and shuts down) a process pool.
        workers: Processes of the default pool; 1 runs the cells in this process, one by one.
        progress: Show a tqdm progress bar (True; the ``progress`` extra), or a line now and then
            on standard error (``"lines"``, :data:`~backfill.experiments.progress.LINES`).
        jobs: Also return every cell's per-job results.

    Returns:
        The rows, with how many cells were computed and how many read from the cache.

    Raises:
        SweepInterrupted: The sweep was interrupted (a :class:`KeyboardInterrupt`).
        BackfillError: A bad grid or argument, a cell that fails (naming the cell), or a cache
            directory that cannot be created or written in.

    Examples:
        >>> grid = Grid([ModelWorkload(n_jobs=50, machine_size=16)], ["Conservative", "EASY"])
        >>> result = run_sweep(grid, workers=1)
        >>> [(row["scheduler"], row["jobs"]) for row in result.rows]
        [('Conservative', 50), ('EASY', 50)]
    """
    _check_run(grid, workers)
    cells = list(grid.cells())
    # One identity per workload: hashing a trace once, not once per cell.
    identities = {w: w.identity() for w in grid.workloads}
    key_data = [cell._key_data(identities[cell.workload]) for cell in cells]
    keys = [content_key(data) for data in key_data]
    store = CellStore(cache) if cache is not None else None
    metrics, damaged = _cached_metrics(store, cells, keys, jobs, grid.measures)
    todo = [i for i, m in enumerate(metrics) if m is None]
    if store is not None and todo:
        store.check_writable()  # refused now, not after hours of simulations it could not keep
    finish = _Finish(store, keys, key_data, jobs, metrics)
    finish.bar = progress_meter(progress, len(cells), "sweep", "cell", len(cells) - len(todo))
    # The fair start times cost a fork per job: their own bar counts the jobs, as the workers report them.
    fst_bar = None
    if progress and todo and any(MEASURE_GROUPS[m] == "fair_start" for m in grid.measures):
        forks = sum(len(cells[i].workload._load(identities[cells[i].workload])) for i in todo)
        fst_bar = progress_meter(progress, forks, "fair starts", "job")
    try:
        if executor is None and (workers == 1 or len(todo) <= 1):
            tick = fst_bar.update if fst_bar is not None else None
            for i in todo:
                finish(i, _run(cells[i], identities[cells[i].workload], jobs, tick))
        elif todo:
            run_parallel(cells, todo, identities, executor, workers, finish, jobs, fst_bar, run=_run)
    except KeyboardInterrupt:
        done = sum(m is not None for m in metrics)
        raise SweepInterrupted(done, len(cells), cache, unsaved=len(finish.failures)) from None
    finally:
        for b in (fst_bar, finish.bar):
            if b is not None:
                b.close()
    return _result(cells, metrics, identities, todo, jobs, damaged, finish.failures, cache)


def _check_run(grid: Grid, workers: int | None) -> None:
    """Refuse a bad ``workers`` or a grid that is not a :class:`Grid`."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise BackfillError(f"workers must be a positive integer, got {workers!r}")
    if not isinstance(grid, Grid):
        raise BackfillError(f"run_sweep needs a Grid, got {grid!r}")


def _cached_metrics(
    store: CellStore | None, cells: list[Cell], keys: list[str], jobs: bool, measures: tuple[str, ...]
) -> tuple[list[dict[str, Any] | None], int]:
    """Every cell's cached metrics (None where it must run), and how many cached cells were damaged."""
    metrics: list[dict[str, Any] | None] = [None] * len(cells)
    damaged = 0
    if store is not None:
        for i, key in enumerate(keys):
            planned = tuple(
                c
                for r in cells[i].scheduler.resources
                for c in (utilization_column(r.name), held_back_column(r.name))
            ) + (NODE_COLUMNS if cells[i].scheduler.nodes is not None else ())
            metrics[i], damaged_now = _read_cached(store, key, jobs, planned + measures)
            damaged += damaged_now
    return metrics, damaged


class _Finish:
    """Called with each cell's metrics as it finishes: saved in the cache, kept, counted on the bar."""

    def __init__(
        self,
        store: CellStore | None,
        keys: list[str],
        key_data: list[Any],
        jobs: bool,
        metrics: list[dict[str, Any] | None],
    ) -> None:
        self.store, self.keys, self.key_data, self.jobs, self.metrics = store, keys, key_data, jobs, metrics
        self.failures: list[OSError] = []
        self.bar: Any = None

    def __call__(self, i: int, m: dict[str, Any]) -> None:
        # Saved first, counted after: an interrupt between the two must not count a cell the cache lacks.
        if self.store is not None:
            try:
                self.store.save(self.keys[i], self.key_data[i], {k: v for k, v in m.items() if k != _JOBS})
                if self.jobs:
                    self.store.save_jobs(self.keys[i], m[_JOBS])
            except OSError as e:
                # A full disk loses the cache, not the results: the sweep goes on and says so.
                self.failures.append(e)
        self.metrics[i] = m
        if self.bar is not None:
            self.bar.update(1)


def _result(
    cells: list[Cell],
    metrics: list[dict[str, Any] | None],
    identities: Mapping[WorkloadSpec, Mapping[str, Any]],
    todo: list[int],
    jobs: bool,
    damaged: int,
    failures: list[OSError],
    cache: str | os.PathLike[str] | None,
) -> SweepResult:
    """The sweep's rows in grid order, with a warning when the cache could not keep some cells."""
    rows, texts = [], []
    for cell, m in zip(cells, metrics, strict=True):
        assert m is not None
        texts.append(m.pop(_JOBS, ""))
        rows.append(_row(cell, m, identities[cell.workload]))
    problem = ""
    if failures:
        e = failures[0]
        problem = f"cannot write {e.filename}: {e.strerror or e}"
        warnings.warn(
            f"the sweep cache {os.fspath(cache or '')} could not keep {len(failures)} of the "
            f"{len(todo)} cells computed ({problem}); the results are complete",
            RuntimeWarning,
            stacklevel=3,
        )
    return SweepResult(
        rows,
        computed=len(todo),
        cached=len(cells) - len(todo),
        jobs=texts if jobs else [],
        damaged=damaged,
        unsaved=len(failures),
        cache_error=problem,
    )


def _read_cached(
    store: CellStore, key: str, jobs: bool, measures: tuple[str, ...]
) -> tuple[dict[str, Any] | None, int]:
    """A cell's cached metrics (with its per-job text if ``jobs``), and 1 if its files were damaged."""
    m, status = store.read_result(key, measures)
    if m is not None and jobs:
        # Every job of the cell is a row: a short file would silently lose jobs.
        text, status = store.read_jobs(key, rows=m["jobs"] + m["rejected"])
        m = None if text is None else m | {_JOBS: text}
    return m, int(status == DAMAGED)


def _run(
    cell: Cell, identity: Mapping[str, Any], jobs: bool = False, tick: Callable[[int], object] | None = None
) -> dict[str, Any]:
    # Module-level so that every executor (processes, Dask) can pickle it by reference.
    try:
        return _measure(cell, identity, jobs, tick)
    except Exception as e:
        e.add_note(
            f"in sweep cell {cell.workload.label} / {cell.scheduler.label} / {cell.priority} / "
            f"load {cell.load} / {cell.estimates} estimates"
        )
        raise
