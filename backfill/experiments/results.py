"""The rows of a sweep: their columns, CSV and DataFrame forms, and improvements over a baseline.

:func:`~backfill.experiments.sweep.run_sweep` returns a :class:`SweepResult`; ``backfill simulate``
writes its rows in the same columns (:data:`COLUMNS`), so that one reader serves both commands.
"""

from __future__ import annotations

import csv
import importlib
import math
import os
from typing import Any

import attrs

from backfill._files import open_atomically
from backfill.errors import BackfillError
from backfill.experiments.columns import EXTRA_COLUMNS, MEASURE_COLUMNS, METRIC_COLUMNS, is_machine_column
from backfill.experiments.outputs import PROVENANCE_COLUMNS
from backfill.measures.metrics import percent_improvement
from backfill.schedulers.registry import scheduler_entry

__all__ = [
    "COLUMNS",
    "COUNT_COLUMNS",
    "DESCRIPTION_COLUMNS",
    "DROPPED_COLUMN",
    "METRIC_COLUMNS",
    "REJECTIONS_COLUMN",
    "REQUIRED_COLUMNS",
    "SweepInterrupted",
    "SweepResult",
    "TRIM_COLUMNS",
]

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
#: The column of a result row that says why the simulator rejected jobs: ``"reason: count; ..."``
#: with the reasons in alphabetical order (see :meth:`~backfill.schedule.Schedule.rejection_counts`),
#: or ``""`` when it rejected none.
REJECTIONS_COLUMN = "rejected_reasons"
#: The column of a result row that says which jobs of an SWF log the reader's cleaning policy
#: dropped before simulation, in the same form (see :attr:`~backfill.workloads.swf.ReadReport.dropped`);
#: ``""`` for a log it dropped nothing from and for a synthetic workload.
DROPPED_COLUMN = "dropped_reasons"
#: The columns that say which jobs the measures left out (:class:`~backfill.measures.trim.Trim`):
#: the warm-up and the cool-down, as ``"N jobs"``, ``"S s"`` or ``""`` for none.
TRIM_COLUMNS: tuple[str, ...] = ("warmup", "cooldown")
#: Every column of a result row, in the order of :meth:`SweepResult.to_csv`; the last ones say where
#: the row came from (:data:`~backfill.experiments.outputs.PROVENANCE_COLUMNS`). A row may also
#: hold columns of :data:`~backfill.experiments.columns.EXTRA_COLUMNS` (measures computed only when
#: asked for), written after :data:`METRIC_COLUMNS`.
COLUMNS: tuple[str, ...] = (
    *DESCRIPTION_COLUMNS,
    *METRIC_COLUMNS,
    REJECTIONS_COLUMN,
    DROPPED_COLUMN,
    *TRIM_COLUMNS,
    *PROVENANCE_COLUMNS,
)

#: The columns :meth:`SweepResult.from_csv` requires: all but the trim and provenance ones.
REQUIRED_COLUMNS: tuple[str, ...] = COLUMNS[: -len(PROVENANCE_COLUMNS) - len(TRIM_COLUMNS)]
#: Columns of a result row that hold whole numbers (counts of jobs).
COUNT_COLUMNS = frozenset({"jobs", "rejected"})


def _parse(column: str, text: str) -> Any:
    if column == "seed":
        return int(text) if text else ""
    if column in COUNT_COLUMNS:
        return int(text)
    if column == "load" or column in MEASURE_COLUMNS or is_machine_column(column):
        return float(text) if text else float("nan")
    return text


def _parse_row(
    row: dict[str, str], columns: list[str], path: str | os.PathLike[str], line: int
) -> dict[str, Any]:
    parsed = {}
    for c in columns:
        try:
            parsed[c] = _parse(c, row.get(c) or "")
        except ValueError:
            raise BackfillError(
                f"{os.fspath(path)!r} line {line}: {c} is {row.get(c)!r}, not a number"
            ) from None
    return parsed


def row_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The columns of ``rows``: :data:`COLUMNS`, with the measures they hold besides after the metrics.

    Those are each resource's utilization (``utilization_<name>``) and a node machine's
    ``fragmentation`` columns, in the order the rows first have them, then the extra measures in
    the vocabulary's order.

    Examples:
        >>> row_columns([{"mean_wait": 1.0, "users": 3.0}])[len(DESCRIPTION_COLUMNS) + len(METRIC_COLUMNS)]
        'users'
        >>> cut = len(DESCRIPTION_COLUMNS) + len(METRIC_COLUMNS)
        >>> row_columns([{"users": 3.0, "utilization_memory": 0.5}])[cut : cut + 2]
        ['utilization_memory', 'users']
    """
    present = {k: None for row in rows for k in row}
    extra = [c for c in present if is_machine_column(c)] + [c for c in EXTRA_COLUMNS if c in present]
    cut = len(DESCRIPTION_COLUMNS) + len(METRIC_COLUMNS)
    return [*COLUMNS[:cut], *extra, *COLUMNS[cut:]]


@attrs.frozen(eq=False)
class SweepResult:
    """The rows of a sweep, one per cell in grid order, with every column of :data:`COLUMNS`.

    A row holds its cell's description (workload and scheduler labels, scheduler name, parameters as
    JSON, priority, load, estimates) and its metrics (:data:`~backfill.measures.metrics.SUMMARY_KEYS`, with
    ``jobs`` and ``rejected`` as integers, and ``seconds``). ``computed`` and ``cached`` count the
    cells simulated (and their schedules validated) by this run and read from the cache; ``damaged``
    counts the cells among the computed ones whose cache files were damaged, ``unsaved`` the
    computed cells the cache could not keep, and ``cache_error`` says why (the file and the
    reason; empty when every write succeeded).

    Examples:
        >>> from backfill.experiments.sweep import Grid, ModelWorkload, run_sweep
        >>> result = run_sweep(Grid([ModelWorkload(n_jobs=40, machine_size=8)], "FCFS"), workers=1)
        >>> result
        SweepResult(1 rows, 1 computed, 0 cached)
        >>> result.rows[0]["workload"], result.rows[0]["params"]
        ('lublin(n_jobs=40, machine_size=8, seed=0)', '{}')
    """

    rows: list[dict[str, Any]]
    computed: int = 0
    cached: int = 0
    jobs: list[str] = attrs.field(factory=list, repr=False)
    damaged: int = 0
    unsaved: int = 0
    cache_error: str = ""

    def __repr__(self) -> str:
        extra = f", {self.damaged} damaged" if self.damaged else ""
        extra += f", {self.unsaved} not saved" if self.unsaved else ""
        return f"SweepResult({len(self.rows)} rows, {self.computed} computed, {self.cached} cached{extra})"

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the rows as CSV with a header, columns in the order of :data:`COLUMNS`.

        Floats are written in their shortest round-tripping form, so :meth:`from_csv` gives back
        equal rows. The file is written whole or not at all (an error leaves ``path`` as it was;
        see :func:`~backfill._files.open_atomically`), and a special file such as ``/dev/stdout``
        is written in place.
        """
        with open_atomically(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=row_columns(self.rows), lineterminator="\n", restval="")
            writer.writeheader()
            writer.writerows(self.rows)

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> SweepResult:
        """Read rows written by :meth:`to_csv`.

        Raises:
            BackfillError: The file lacks a column of :data:`COLUMNS` other than the provenance ones,
                or a count or a measure of it is not a number.
        """
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            # Tables written before the provenance columns existed are still read (those left empty).
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise BackfillError(
                    f"{os.fspath(path)!r} is not a sweep table: no column {', '.join(missing)}"
                )
            given = reader.fieldnames or ()
            extra = [c for c in given if is_machine_column(c)] + [c for c in EXTRA_COLUMNS if c in given]
            columns = row_columns([dict.fromkeys(extra)])
            rows = [_parse_row(row, columns, path, reader.line_num) for row in reader]
        return cls(rows)

    def to_dataframe(self) -> Any:
        """Return the rows as a :class:`pandas.DataFrame` with the columns of :data:`COLUMNS`.

        Raises:
            BackfillError: pandas is not installed.
        """
        try:
            pandas = importlib.import_module("pandas")
        except ImportError as e:
            raise BackfillError("to_dataframe needs pandas: pip install '.[dataframe]'") from e
        return pandas.DataFrame(self.rows, columns=row_columns(self.rows))

    def improvement(self, metric: str, baseline: str = "Conservative") -> list[dict[str, Any]]:
        """Return the percent improvement in ``metric`` of every row over the ``baseline`` scheduler.

        The seeds' formula, 100 (baseline - other) / baseline
        (:func:`~backfill.measures.metrics.percent_improvement`): positive when the row's value is lower, as
        is better for waits and slowdowns. The baseline is the row whose scheduler label is
        ``baseline`` with the same workload, priority, load and estimates; a baseline without a queue
        priority (Conservative, ...) has only ``"fcfs"`` rows, which then serve every priority. The
        baseline's own rows are left out. A resource's utilization (``utilization_memory``) is in
        the rows of the schedulers that plan it only: a row without it, or whose baseline lacks it,
        has a NaN value and improvement (a row read from CSV has NaN there already).

        Returns:
            Per row (grid order): its description columns, then ``metric``, ``baseline``,
            ``value``, ``baseline_value`` and ``improvement``.

        Raises:
            BackfillError: Unknown metric, or a group without a baseline row.

        Examples:
            >>> from backfill.experiments.sweep import Grid, ModelWorkload, run_sweep
            >>> grid = Grid([ModelWorkload(n_jobs=80, machine_size=16)], ["Conservative", "EASY"])
            >>> result = run_sweep(grid, workers=1)
            >>> [row] = result.improvement("mean_wait")
            >>> base, easy = (r["mean_wait"] for r in result.rows)
            >>> row["scheduler"], row["improvement"] == 100 * (base - easy) / base
            ('EASY', True)
        """
        if metric not in MEASURE_COLUMNS and not is_machine_column(metric):
            raise BackfillError(f"unknown metric {metric!r}; known: {', '.join(MEASURE_COLUMNS)}")
        if self.rows and not any(metric in row for row in self.rows):
            raise BackfillError(f"the rows have no column {metric!r}: the sweep was not asked for it")
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
            value, reference = float(row.get(metric, math.nan)), float(ref.get(metric, math.nan))
            # Not measured on one side: nothing to compare (a zero baseline would otherwise give inf).
            change = math.nan if math.isnan(value) or math.isnan(reference) else None
            out.append(
                {c: row[c] for c in DESCRIPTION_COLUMNS}
                | {
                    "metric": metric,
                    "baseline": baseline,
                    "value": value,
                    "baseline_value": reference,
                    "improvement": percent_improvement(reference, value) if change is None else change,
                }
            )
        return out


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by an interrupt, with how many of its cells had finished.

    Attributes:
        finished: Cells done (computed or read from the cache) when it stopped.
        total: Cells of the grid.
        cache: The cache directory that keeps the finished cells, or None.
        unsaved: Finished cells the cache could not keep (its disk was full, say).
    """

    def __init__(
        self, finished: int, total: int, cache: str | os.PathLike[str] | None, *, unsaved: int = 0
    ) -> None:
        kept = f"the cache {os.fspath(cache)} keeps them" if cache is not None else "no cache keeps them"
        if cache is not None and unsaved:
            kept = f"the cache {os.fspath(cache)} keeps {finished - unsaved} (it could not write the others)"
        super().__init__(f"sweep interrupted: {finished} of {total} cells finished; {kept}")
        self.finished = finished
        self.total = total
        self.cache = cache
        self.unsaved = unsaved
