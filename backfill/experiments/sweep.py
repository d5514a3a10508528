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
import csv
import importlib
import json
import math
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from backfill.errors import BackfillError
from backfill.experiments._progress import progress_bar
from backfill.experiments.cache import CellStore, content_key, library_version
from backfill.experiments.specs import (
    SCHEDULERS,
    ModelWorkload,
    SchedulerSpec,
    TraceWorkload,
    WorkloadSpec,
    check_priority,
)
from backfill.measures.metrics import DEFAULT_BOUND, SUMMARY_KEYS, percent_improvement, summarize
from backfill.measures.validation import validate_schedule
from backfill.schedulers.priorities import PRIORITIES
from backfill.schedulers.registry import scheduler_entry
from backfill.simulator import simulate

__all__ = [
    "COLUMNS",
    "ESTIMATES",
    "SCHEDULERS",
    "Cell",
    "Grid",
    "ModelWorkload",
    "SchedulerSpec",
    "SweepResult",
    "TraceWorkload",
    "run_sweep",
]

#: Estimate policies: ``"user"`` keeps the workload's estimates, ``"exact"`` sets each to the runtime.
ESTIMATES: tuple[str, ...] = ("user", "exact")

#: Columns of a result row that describe its cell.
DESCRIPTION_COLUMNS: tuple[str, ...] = (
    "workload",
    "scheduler",
    "scheduler_name",
    "params",
    "priority",
    "load",
    "estimates",
)
#: Columns of a result row that measure its schedule: :data:`~backfill.measures.metrics.SUMMARY_KEYS` and
#: ``seconds``, the wall time of the simulation.
METRIC_COLUMNS: tuple[str, ...] = (*SUMMARY_KEYS, "seconds")
#: The column of a result row that says why the simulator rejected jobs: ``"reason: count; ..."``
#: with the reasons in alphabetical order (see :meth:`~backfill.schedule.Schedule.rejection_counts`),
#: or ``""`` when it rejected none.
REJECTIONS_COLUMN = "rejected_reasons"
#: The column of a result row that says which jobs of an SWF log the reader's cleaning policy
#: dropped before simulation, in the same form (see :attr:`~backfill.workloads.swf.ReadReport.dropped`);
#: ``""`` for a log it dropped nothing from and for a synthetic workload.
DROPPED_COLUMN = "dropped_reasons"
#: Every column of a result row, in the order of :meth:`SweepResult.to_csv`.
COLUMNS: tuple[str, ...] = (*DESCRIPTION_COLUMNS, *METRIC_COLUMNS, REJECTIONS_COLUMN, DROPPED_COLUMN)

_COUNT_COLUMNS = frozenset({"jobs", "rejected"})


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    # A lone name, path, spec or number is one value, not a sequence of characters.
    return (value,) if isinstance(value, str) or not isinstance(value, Iterable) else tuple(value)


# -- cells and grids -------------------------------------------------------------------------------


def _check_workload(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, TraceWorkload | ModelWorkload):
        raise BackfillError(f"a workload must be a TraceWorkload or ModelWorkload, got {value!r}")


def _as_spec(value: Any) -> Any:
    return SchedulerSpec(value) if isinstance(value, str) else value


def _as_specs(value: Any) -> tuple[Any, ...]:
    return tuple(_as_spec(s) for s in _as_tuple(value))


def _as_workloads(value: Any) -> tuple[Any, ...]:
    return tuple(TraceWorkload(w) if isinstance(w, str | os.PathLike) else w for w in _as_tuple(value))


def _check_spec(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, SchedulerSpec):
        raise BackfillError(f"a scheduler must be a SchedulerSpec or a name, got {value!r}")


def _as_float(value: Any) -> Any:
    # Numbers become floats, so that 1 and 1.0 are one load (and one cache key); anything else is
    # left for the validators to name.
    return float(value) if _is_number(value) else value


def _as_floats(value: Any) -> tuple[Any, ...]:
    return tuple(_as_float(x) for x in _as_tuple(value))


def _check_load(value: object) -> None:
    if not (isinstance(value, float) and 0 < value < math.inf):
        raise BackfillError(f"load factor must be a positive finite number, got {value!r}")


def _check_estimates(value: object) -> None:
    if value not in ESTIMATES:
        raise BackfillError(f"unknown estimate policy {value!r}; known: {', '.join(ESTIMATES)}")


def _check_bound(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not (isinstance(value, float) and 0 < value < math.inf):
        raise BackfillError(f"bound must be a positive finite number of seconds, got {value!r}")


def _check_cell(cell: Cell) -> None:
    check_priority(cell.scheduler, cell.priority)
    _check_load(cell.load)
    _check_estimates(cell.estimates)


@attrs.frozen
class Cell:
    """One simulation of a sweep: a workload under a scheduler, priority, load factor and estimates.

    The workload gets the estimate policy first, then the load factor
    (:meth:`~backfill.workloads.workload.Workload.scaled`); ``bound`` is the bounded-slowdown threshold of
    its metrics.

    Examples:
        >>> cell = Cell(ModelWorkload(n_jobs=60, machine_size=16), SchedulerSpec("EASY"), "sjf", load=1.5)
        >>> row = cell.run()
        >>> row["scheduler"], row["priority"], row["load"], row["jobs"]
        ('EASY', 'sjf', 1.5, 60)
        >>> len(cell.key())
        64
    """

    workload: WorkloadSpec = attrs.field(validator=_check_workload)
    scheduler: SchedulerSpec = attrs.field(converter=_as_spec, validator=_check_spec)
    priority: str = "fcfs"
    load: float = attrs.field(default=1.0, converter=_as_float)
    estimates: str = "user"
    bound: float = attrs.field(default=DEFAULT_BOUND, converter=_as_float, validator=_check_bound)

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
        }

    def description(self) -> dict[str, Any]:
        """Return the columns that describe the cell (:data:`DESCRIPTION_COLUMNS`)."""
        return {
            "workload": self.workload.label,
            "scheduler": self.scheduler.label,
            "scheduler_name": self.scheduler.name,
            "params": json.dumps(dict(self.scheduler.params), sort_keys=True),
            "priority": self.priority,
            "load": self.load,
            "estimates": self.estimates,
        }

    def run(self) -> dict[str, Any]:
        """Simulate the cell in this process, validate the schedule, and return its result row."""
        return self.description() | _measure(self, self.workload.identity())


def _measure(cell: Cell, identity: Mapping[str, Any]) -> dict[str, Any]:
    workload = cell.workload._load(identity)
    if cell.estimates == "exact":
        workload = workload.with_exact_estimates()
    if cell.load != 1.0:
        workload = workload.scaled(cell.load)
    scheduler = cell.scheduler.build(cell.priority)
    started = time.perf_counter()
    schedule = simulate(workload, scheduler, record_reservations=False)
    seconds = time.perf_counter() - started
    validate_schedule(schedule)
    metrics: dict[str, Any] = summarize(schedule, bound=cell.bound)
    for key in _COUNT_COLUMNS:
        metrics[key] = int(metrics[key])
    metrics["seconds"] = seconds
    metrics[REJECTIONS_COLUMN] = _reasons(schedule.rejection_counts())
    metrics[DROPPED_COLUMN] = _reasons(workload.provenance.get("dropped") or {})
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
        _check_workload(grid, attrs.fields(Grid).workloads, w)
    for s in grid.schedulers:
        _check_spec(grid, attrs.fields(Grid).schedulers, s)
    for p in grid.priorities:
        if not isinstance(p, str) or p not in PRIORITIES:
            raise BackfillError(f"unknown priority {p!r}; known: {', '.join(PRIORITIES)}")
    for load in grid.loads:
        _check_load(load)
    for e in grid.estimates:
        _check_estimates(e)
    _nonempty_unique("workload label", [w.label for w in grid.workloads])
    _nonempty_unique("scheduler label", [s.label for s in grid.schedulers])
    _nonempty_unique("priority", list(grid.priorities))
    _nonempty_unique("load factor", list(grid.loads))
    _nonempty_unique("estimate policy", list(grid.estimates))


@attrs.frozen
class Grid:
    """The cells of a sweep: workloads x schedulers x priorities x load factors x estimate policies.

    Sequences may be given as lists; a scheduler as a name, a workload as a trace path. Labels must
    be unique, since results are grouped by them. :meth:`cells` yields the combinations in the
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

    workloads: tuple[WorkloadSpec, ...] = attrs.field(converter=_as_workloads)
    schedulers: tuple[SchedulerSpec, ...] = attrs.field(converter=_as_specs)
    priorities: tuple[str, ...] = attrs.field(default=("fcfs",), converter=_as_tuple)
    loads: tuple[float, ...] = attrs.field(default=(1.0,), converter=_as_floats)
    estimates: tuple[str, ...] = attrs.field(default=("user",), converter=_as_tuple)
    bound: float = attrs.field(default=DEFAULT_BOUND, converter=_as_float, validator=_check_bound)

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
                            yield Cell(workload, scheduler, priority, load, estimates, self.bound)


# -- running ---------------------------------------------------------------------------------------


def run_sweep(
    grid: Grid,
    *,
    cache: str | os.PathLike[str] | None = None,
    executor: cf.Executor | None = None,
    workers: int | None = None,
    progress: bool = False,
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

    Args:
        grid: The cells.
        cache: Directory of cached cells, or None for no cache.
        executor: Where to run the cells; None makes (and shuts down) a process pool.
        workers: Processes of the default pool; 1 runs the cells in this process, one by one.
        progress: Show a tqdm progress bar (the ``progress`` extra).

    Returns:
        The rows, with how many cells were computed and how many read from the cache.

    Examples:
        >>> grid = Grid([ModelWorkload(n_jobs=50, machine_size=16)], ["Conservative", "EASY"])
        >>> result = run_sweep(grid, workers=1)
        >>> [(row["scheduler"], row["jobs"]) for row in result.rows]
        [('Conservative', 50), ('EASY', 50)]
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise BackfillError(f"workers must be a positive integer, got {workers!r}")
    if not isinstance(grid, Grid):
        raise BackfillError(f"run_sweep needs a Grid, got {grid!r}")
    cells = list(grid.cells())
    # One identity per workload: hashing a trace once, not once per cell.
    identities = {w: w.identity() for w in grid.workloads}
    key_data = [cell._key_data(identities[cell.workload]) for cell in cells]
    keys = [content_key(data) for data in key_data]
    store = CellStore(cache) if cache is not None else None
    metrics: list[dict[str, Any] | None] = [store.load(k) if store else None for k in keys]
    if store is not None:
        # A cell cached before a column existed is computed again.
        needed = {*METRIC_COLUMNS, REJECTIONS_COLUMN, DROPPED_COLUMN}
        metrics = [m if m is not None and needed <= m.keys() else None for m in metrics]
    todo = [i for i, m in enumerate(metrics) if m is None]

    def finish(i: int, m: dict[str, Any]) -> None:
        metrics[i] = m
        if store is not None:
            store.save(keys[i], key_data[i], m)
        if bar is not None:
            bar.update(1)

    bar = progress_bar(len(cells), "sweep", "cell", len(cells) - len(todo)) if progress else None
    try:
        if executor is None and (workers == 1 or len(todo) <= 1):
            for i in todo:
                finish(i, _run(cells[i], identities[cells[i].workload]))
        elif todo:
            _run_parallel(cells, todo, identities, executor, workers, finish)
    finally:
        if bar is not None:
            bar.close()
    rows = [cell.description() | m for cell, m in zip(cells, metrics, strict=True) if m is not None]
    return SweepResult(rows, computed=len(todo), cached=len(cells) - len(todo))


def _run(cell: Cell, identity: Mapping[str, Any]) -> dict[str, Any]:
    # Module-level so that every executor (processes, Dask) can pickle it by reference.
    try:
        return _measure(cell, identity)
    except Exception as e:
        e.add_note(
            f"in sweep cell {cell.workload.label} / {cell.scheduler.label} / {cell.priority} / "
            f"load {cell.load} / {cell.estimates} estimates"
        )
        raise


def _run_parallel(
    cells: list[Cell],
    todo: list[int],
    identities: Mapping[WorkloadSpec, Mapping[str, Any]],
    executor: cf.Executor | None,
    workers: int | None,
    finish: Any,
) -> None:
    own = executor is None
    pool: cf.Executor = (
        cf.ProcessPoolExecutor(max_workers=min(workers or os.cpu_count() or 1, len(todo)))
        if executor is None
        else executor
    )
    futures: dict[cf.Future[dict[str, Any]], int] = {}
    try:
        for i in todo:
            futures[pool.submit(_run, cells[i], identities[cells[i].workload])] = i
        for done in cf.as_completed(futures):
            finish(futures[done], done.result())
    finally:
        # On an error or an interrupt, queued cells are dropped; finished ones are already cached.
        for future in futures:
            future.cancel()
        if own:
            pool.shutdown(cancel_futures=True)


# -- results ---------------------------------------------------------------------------------------


def _parse(column: str, text: str) -> Any:
    if column in _COUNT_COLUMNS:
        return int(text)
    if column == "load" or column in METRIC_COLUMNS:
        return float(text)
    return text


@attrs.frozen(eq=False)
class SweepResult:
    """The rows of a sweep, one per cell in grid order, with every column of :data:`COLUMNS`.

    A row holds its cell's description (workload and scheduler labels, scheduler name, parameters as
    JSON, priority, load, estimates) and its metrics (:data:`~backfill.measures.metrics.SUMMARY_KEYS`, with
    ``jobs`` and ``rejected`` as integers, and ``seconds``). ``computed`` and ``cached`` count the
    cells simulated by this run and read from the cache.

    Examples:
        >>> result = run_sweep(Grid([ModelWorkload(n_jobs=40, machine_size=8)], "FCFS"), workers=1)
        >>> result
        SweepResult(1 rows, 1 computed, 0 cached)
        >>> result.rows[0]["workload"], result.rows[0]["params"]
        ('lublin(n_jobs=40, machine_size=8, seed=0)', '{}')
    """

    rows: list[dict[str, Any]]
    computed: int = 0
    cached: int = 0

    def __repr__(self) -> str:
        return f"SweepResult({len(self.rows)} rows, {self.computed} computed, {self.cached} cached)"

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the rows as CSV with a header, columns in the order of :data:`COLUMNS`.

        Floats are written in their shortest round-tripping form, so :meth:`from_csv` gives back
        equal rows.
        """
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(self.rows)

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> SweepResult:
        """Read rows written by :meth:`to_csv`.

        Raises:
            BackfillError: The file lacks a column of :data:`COLUMNS`.
        """
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise BackfillError(
                    f"{os.fspath(path)!r} is not a sweep table: no column {', '.join(missing)}"
                )
            rows = [{c: _parse(c, row[c]) for c in COLUMNS} for row in reader]
        return cls(rows)

    def to_dataframe(self) -> Any:
        """Return the rows as a :class:`pandas.DataFrame` with the columns of :data:`COLUMNS`.

        Raises:
            BackfillError: pandas is not installed.
        """
        try:
            pandas = importlib.import_module("pandas")
        except ImportError as e:
            raise BackfillError("to_dataframe needs pandas: pip install 'backfill[dataframe]'") from e
        return pandas.DataFrame(self.rows, columns=list(COLUMNS))

    def improvement(self, metric: str, baseline: str = "Conservative") -> list[dict[str, Any]]:
        """Return the percent improvement in ``metric`` of every row over the ``baseline`` scheduler.

        The seeds' formula, 100 (baseline - other) / baseline
        (:func:`~backfill.measures.metrics.percent_improvement`): positive when the row's value is lower, as
        is better for waits and slowdowns. The baseline is the row whose scheduler label is
        ``baseline`` with the same workload, priority, load and estimates; a baseline without a queue
        priority (Conservative, ...) has only ``"fcfs"`` rows, which then serve every priority. The
        baseline's own rows are left out.

        Returns:
            Per row (grid order): its description columns, then ``metric``, ``baseline``,
            ``value``, ``baseline_value`` and ``improvement``.

        Raises:
            BackfillError: Unknown metric, or a group without a baseline row.

        Examples:
            >>> grid = Grid([ModelWorkload(n_jobs=80, machine_size=16)], ["Conservative", "EASY"])
            >>> result = run_sweep(grid, workers=1)
            >>> [row] = result.improvement("mean_wait")
            >>> base, easy = (r["mean_wait"] for r in result.rows)
            >>> row["scheduler"], row["improvement"] == 100 * (base - easy) / base
            ('EASY', True)
        """
        if metric not in METRIC_COLUMNS:
            raise BackfillError(f"unknown metric {metric!r}; known: {', '.join(METRIC_COLUMNS)}")
        groups = ("workload", "priority", "load", "estimates")
        base: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in self.rows:
            if row["scheduler"] == baseline:
                base[tuple(row[c] for c in groups)] = row
        if not base:
            known = ", ".join(dict.fromkeys(str(r["scheduler"]) for r in self.rows))
            raise BackfillError(f"no row has the baseline scheduler {baseline!r}; schedulers: {known}")
        out = []
        for row in self.rows:
            if row["scheduler"] == baseline:
                continue
            group = tuple(row[c] for c in groups)
            ref = base.get(group)
            if ref is None:
                fallback = base.get((row["workload"], "fcfs", row["load"], row["estimates"]))
                if fallback is not None and not scheduler_entry(fallback["scheduler_name"]).takes_priority:
                    ref = fallback
            if ref is None:
                where = ", ".join(f"{c}={v!r}" for c, v in zip(groups, group, strict=True))
                raise BackfillError(f"no {baseline!r} row to compare {row['scheduler']!r} with at {where}")
            value, reference = float(row[metric]), float(ref[metric])
            out.append(
                {c: row[c] for c in DESCRIPTION_COLUMNS}
                | {
                    "metric": metric,
                    "baseline": baseline,
                    "value": value,
                    "baseline_value": reference,
                    "improvement": percent_improvement(reference, value),
                }
            )
        return out
