"""Machine-readable results with their provenance: metrics as JSON, every job's result as CSV.

Each output says where it came from (:data:`PROVENANCE_COLUMNS`): the library's version, the
workload's source (an SWF file's name, or the synthetic model), the SHA-256 of that file, the
model's seed, how the log was read, whether the compiled kernel and path ran, and the command line
and its start time, beside the description of the run (workload label, scheduler with its parameters,
priority, load factor, estimate policy). The per-job CSV has the column layout of Batsim's
``jobs.csv``, which evalys (the field's schedule-visualisation library) reads with
``evalys.jobset.JobSet.from_csv``, followed by columns of its own (see :data:`JOB_COLUMNS`); its
provenance is on its first row only, the same for every job of the file.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from backfill._files import write_atomically
from backfill._version import library_version
from backfill.errors import BackfillError
from backfill.experiments.gantt import processor_lanes
from backfill.kernel import compiled
from backfill.measures.metrics import DEFAULT_BOUND, bounded_slowdowns
from backfill.measures.resource_use import job_amounts
from backfill.schedule import Schedule
from backfill.workloads.batsim import batsim_ids
from backfill.workloads.cleaning import CleaningPolicy

__all__ = [
    "JOB_COLUMNS",
    "MODEL_SOURCE",
    "PROVENANCE_COLUMNS",
    "job_columns",
    "job_rows",
    "jobs_csv_text",
    "metrics_json",
    "provenance",
    "reading_policy",
    "run_provenance",
    "stamp_jobs_csv",
    "write_jobs_csv",
    "write_metrics_json",
]

#: Columns that say where a result came from: the library's version, the workload's source (an SWF
#: file's name, or :data:`MODEL_SOURCE`), the SHA-256 of that file (empty for the model), the
#: model's seed (empty for a log), the reading policy (:func:`reading_policy`: the SWF reader's
#: cleaning settings and ``lenient``, as JSON; empty for the model), ``kernel`` (``compiled`` when the
#: compiled kernel was in use, else ``python``), ``path`` (the schedule's
#: :attr:`~backfill.schedule.Schedule.path`, ``compiled`` or ``python``, where the schedule is at
#: hand, as in ``backfill simulate``; empty in a sweep's rows, which are the same whether a cell was
#: simulated or read from the cache), and the command line that made the file (``argv``, a JSON
#: list) and when it started (``utc``, ISO 8601), both empty outside the command line
#: (:func:`run_provenance`).
PROVENANCE_COLUMNS: tuple[str, ...] = (
    "version",
    "source",
    "sha256",
    "seed",
    "reading",
    "kernel",
    "path",
    "argv",
    "utc",
)

#: The ``source`` of a synthetic workload.
MODEL_SOURCE = "lublin_feitelson"

#: Columns of the per-job CSV: first Batsim's ``jobs.csv`` layout, as evalys reads it (``jobID`` the
#: job's id in the workload, as a Batsim file gave it (:func:`~backfill.workloads.batsim.batsim_ids`),
#: the name evalys uses inside; times in
#: seconds; ``requested_time`` is the estimate; ``allocated_resources`` an interval set: on a pool
#: machine of processor numbers such as ``0-3 8``, a feasible packing from
#: :func:`~backfill.experiments.gantt.processor_lanes`, since such a schedule says how many
#: processors a job used, not which; on a node machine (:attr:`~backfill.schedule.Schedule.machine`)
#: of the ids of the nodes the job held, 0-based in the machine's order
#: (:meth:`~backfill.workloads.nodes.Allocation.text`), as Batsim writes its hosts; empty for a
#: rejected job in both), then ``bounded_slowdown``, ``rejected_reason`` (empty for a job that ran),
#: ``user`` and ``group`` (SWF fields 12 and 13, -1 where the log does not say, as for the model),
#: the run's description (on every row, short, so that files read together stay apart) and
#: :data:`PROVENANCE_COLUMNS`, on the first row only: they are the same for every job of the file,
#: and a CSV reader (pandas, evalys) skips no comment line that could hold them once; the other rows
#: leave them empty. A rejected job has ``success`` 0,
#: ``final_state`` ``REJECTED`` and empty times. A schedule that planned resources besides processors
#: has one more column per resource after ``allocated_resources``, named as the resource
#: (``memory``): the amount the job holds, in its units (kB of memory for the whole job); see
#: :func:`job_columns`.
JOB_COLUMNS: tuple[str, ...] = (
    "jobID",
    "workload_name",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "bounded_slowdown",
    "rejected_reason",
    "user",
    "group",
    "scheduler",
    "priority",
    "load",
    "estimates",
    *PROVENANCE_COLUMNS,
)


def provenance(
    source: str,
    sha256: str = "",
    seed: int | None = None,
    *,
    reading: str = "",
    path: str = "",
    argv: Sequence[str] | None = None,
    utc: str = "",
) -> dict[str, Any]:
    """Return the provenance columns of a result (:data:`PROVENANCE_COLUMNS`).

    Args:
        source: The SWF file's name, or :data:`MODEL_SOURCE` for the synthetic model.
        sha256: The hex SHA-256 of the SWF file's bytes; empty for the model.
        seed: The model's seed; None for a log.
        reading: How the log was read (:func:`reading_policy`); empty for the model.
        path: The schedule's :attr:`~backfill.schedule.Schedule.path`; empty where unknown.
        argv: The command line that made the result; None outside the command line.
        utc: When that command started, ISO 8601 in UTC; empty outside the command line.

    Examples:
        >>> p = provenance("CTC-SP2.swf.gz", sha256="ab12", path="compiled")
        >>> p["source"], p["sha256"], p["seed"], p["path"], p["version"] == library_version()
        ('CTC-SP2.swf.gz', 'ab12', '', 'compiled', True)
        >>> p["kernel"] in ("compiled", "python"), p["argv"]
        (True, '')
    """
    return {
        "version": library_version(),
        "source": source,
        "sha256": sha256,
        "seed": "" if seed is None else seed,
        "reading": reading,
        "kernel": "compiled" if compiled() else "python",
        "path": path,
        "argv": "" if argv is None else json.dumps(list(argv)),
        "utc": utc,
    }


def reading_policy(policy: CleaningPolicy | None = None, *, lenient: bool = False) -> str:
    """Return how an SWF log was read, as the ``reading`` provenance column: JSON, keys sorted.

    The :class:`~backfill.workloads.cleaning.CleaningPolicy`'s settings (the default policy if
    None) and whether malformed lines were skipped (``lenient``).

    Examples:
        >>> json.loads(reading_policy(lenient=True))["lenient"], json.loads(reading_policy())["overrun"]
        (True, 'raise_estimate')
    """
    settings = attrs.asdict(policy if policy is not None else CleaningPolicy())
    return json.dumps(settings | {"lenient": lenient}, sort_keys=True)


def run_provenance(argv: Sequence[str], started: datetime.datetime | None = None) -> dict[str, str]:
    """Return the ``argv`` and ``utc`` provenance columns of a command: its words and when it started.

    Args:
        argv: The command line, program name first.
        started: When it started (now if None); written in UTC, ISO 8601, to the second.

    Examples:
        >>> when = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
        >>> run_provenance(["backfill", "simulate", "--jobs", "10"], when)
        {'argv': '["backfill", "simulate", "--jobs", "10"]', 'utc': '2026-01-02T03:04:05Z'}
    """
    moment = started if started is not None else datetime.datetime.now(datetime.UTC)
    utc = moment.astimezone(datetime.UTC).replace(microsecond=0, tzinfo=None)
    return {"argv": json.dumps(list(argv)), "utc": utc.isoformat() + "Z"}


def _number(value: float) -> str:
    """A float as CSV text, round-tripping and always with a point (``10.0``); NaN empty.

    With the point, a column is read as floats from every file, whether or not its values happen
    to be whole.
    """
    if math.isnan(value):
        return ""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(float(value))


def _interval_set(blocks: list[tuple[int, int]]) -> str:
    spans = sorted(blocks)
    return " ".join(f"{a}" if n == 1 else f"{a}-{a + n - 1}" for a, n in spans)


def _allocated_resources(schedule: Schedule) -> Callable[[int, int], str]:
    """The ``allocated_resources`` of a job (by row and id): its nodes on a node machine, else processors."""
    if schedule.machine is not None:
        allocations = schedule.allocations
        return lambda row, job_id: allocations[job_id].text() if job_id in allocations else ""
    lanes = processor_lanes(schedule)
    return lambda row, job_id: _interval_set(lanes.get(row, []))


def job_columns(schedule: Schedule) -> tuple[str, ...]:
    """The per-job CSV's columns for ``schedule``: :data:`JOB_COLUMNS`, with one per planned resource.

    Each resource of :attr:`~backfill.schedule.Schedule.resources` gets a column of its name after
    ``allocated_resources``; a schedule of processors alone has exactly :data:`JOB_COLUMNS`.

    Raises:
        BackfillError: A resource is named as one of :data:`JOB_COLUMNS`.

    Examples:
        >>> from backfill import Conservative, Resource, lublin_feitelson, simulate
        >>> s = simulate(lublin_feitelson(5, machine_size=4), Conservative(resources=[Resource.memory(64)]))
        >>> columns = job_columns(s)
        >>> columns[columns.index("allocated_resources") + 1]
        'memory'
    """
    names = [r.name for r in schedule.resources]
    clash = [n for n in names if n in JOB_COLUMNS]
    if clash:
        raise BackfillError(f"a resource named {clash[0]!r} would repeat a column of the per-job CSV")
    cut = JOB_COLUMNS.index("allocated_resources") + 1
    return (*JOB_COLUMNS[:cut], *names, *JOB_COLUMNS[cut:]) if names else JOB_COLUMNS


def job_rows(
    schedule: Schedule, description: Mapping[str, Any], *, bound: float = DEFAULT_BOUND
) -> list[dict[str, str]]:
    """Return one row per job of ``schedule`` (workload order), with the columns of :func:`job_columns`.

    The description is on every row; the provenance columns on the first row only, empty on the others.

    Args:
        schedule: A finished schedule.
        description: The run's ``workload`` (written as ``workload_name``), ``scheduler``,
            ``priority``, ``load``, ``estimates`` and provenance columns, as in a sweep's row.
        bound: The bounded slowdown's threshold, in seconds.

    Examples:
        >>> from backfill import FCFS, Job, Workload, simulate
        >>> jobs = [Job(id=7, submit=0.0, processors=2, runtime=10.0, estimate=20.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> row = job_rows(s, {"workload": "tiny", "scheduler": "FCFS"})[0]
        >>> row["jobID"], row["starting_time"], row["finish_time"], row["allocated_resources"]
        ('7', '0.0', '10.0', '0-1')
        >>> row["user"], row["group"], row["scheduler"]
        ('-1', '-1', 'FCFS')
    """
    ids = schedule.workload.column("id").tolist()
    given = batsim_ids(schedule)  # a Batsim file's ids, written back as the file gave them
    submit, start, end = schedule.submit, schedule.start, schedule.end
    processors = schedule.processors.tolist()
    estimate = schedule.estimate
    started = schedule.started
    slowdown = np.full(len(schedule), math.nan)
    slowdown[started] = bounded_slowdowns(schedule, bound)
    allocated = _allocated_resources(schedule)
    rejected = schedule.rejected
    users, groups = schedule.workload.column("user").tolist(), schedule.workload.column("group").tolist()
    fixed = {c: str(description.get(c, "")) for c in ("scheduler", "priority", "estimates")}
    fixed["workload_name"] = str(description.get("workload", ""))
    load = description.get("load", "")
    fixed["load"] = _number(float(load)) if load != "" else ""
    origin = {c: str(description.get(c, "")) for c in PROVENANCE_COLUMNS}
    later = dict.fromkeys(PROVENANCE_COLUMNS, "")  # once per file: on the first row
    held = {r.name: job_amounts(schedule, r).tolist() for r in schedule.resources}
    rows: list[dict[str, str]] = []
    for i, job_id in enumerate(ids):
        ran = bool(started[i])
        run = float(end[i] - start[i]) if ran else math.nan
        wait = float(start[i] - submit[i]) if ran else math.nan
        turnaround = wait + run
        row = {
            "jobID": given.get(job_id, str(job_id)),
            "submission_time": _number(float(submit[i])),
            "requested_number_of_resources": str(processors[i]),
            "requested_time": _number(float(estimate[i])),
            "success": "1" if ran else "0",
            "final_state": "COMPLETED_SUCCESSFULLY" if ran else "REJECTED",
            "starting_time": _number(float(start[i]) if ran else math.nan),
            "execution_time": _number(run),
            "finish_time": _number(float(end[i]) if ran else math.nan),
            "waiting_time": _number(wait),
            "turnaround_time": _number(turnaround),
            "stretch": _number(turnaround / run if ran and run > 0 else math.nan),
            "allocated_resources": allocated(i, int(job_id)),
            "bounded_slowdown": _number(float(slowdown[i])),
            "rejected_reason": "" if ran else str(rejected.get(int(job_id), "")),
            "user": str(users[i]),
            "group": str(groups[i]),
        }
        for name, amounts in held.items():
            row[name] = str(amounts[i])
        rows.append(row | fixed | (later if rows else origin))
    return rows


def jobs_csv_text(schedule: Schedule, description: Mapping[str, Any], *, bound: float = DEFAULT_BOUND) -> str:
    """Return :func:`job_rows` as CSV text with a header line, columns in :func:`job_columns` order."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=job_columns(schedule), lineterminator="\n")
    writer.writeheader()
    writer.writerows(job_rows(schedule, description, bound=bound))
    return out.getvalue()


def write_jobs_csv(
    schedule: Schedule,
    path: str | os.PathLike[str],
    description: Mapping[str, Any],
    *,
    bound: float = DEFAULT_BOUND,
) -> None:
    """Write every job's result as CSV (:func:`jobs_csv_text`) to ``path``; evalys reads it.

    The file is written whole or not at all (:func:`~backfill._files.write_atomically`).

    Examples:
        >>> import tempfile, pathlib
        >>> from backfill import EASY, lublin_feitelson, simulate
        >>> s = simulate(lublin_feitelson(20, machine_size=8), EASY())
        >>> with tempfile.TemporaryDirectory() as d:
        ...     write_jobs_csv(s, pathlib.Path(d) / "jobs.csv", {"scheduler": "EASY"})
        ...     lines = (pathlib.Path(d) / "jobs.csv").read_text().splitlines()
        >>> len(lines), lines[0].split(",")[:3]
        (21, ['jobID', 'workload_name', 'submission_time'])
    """
    write_atomically(path, jobs_csv_text(schedule, description, bound=bound))


def stamp_jobs_csv(text: str, stamp: Mapping[str, str]) -> str:
    r"""Return a per-job CSV text (:func:`jobs_csv_text`) with the columns of ``stamp`` set on its first row.

    A sweep's cells make their per-job CSV before the command that ran them is known; the command
    line stamps its ``argv`` and ``utc`` (:func:`run_provenance`) on them when it writes them,
    where the other provenance columns are: on the first row.

    Examples:
        >>> stamp_jobs_csv("jobID,utc\n1,\n2,\n", {"utc": "2026-01-02T03:04:05Z"})
        'jobID,utc\n1,2026-01-02T03:04:05Z\n2,\n'
    """
    reader = csv.DictReader(io.StringIO(text))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(reader.fieldnames or ()), lineterminator="\n")
    writer.writeheader()
    writer.writerows(row | dict(stamp) if i == 0 else row for i, row in enumerate(reader))
    return out.getvalue()


def _plain(value: Any) -> Any:
    """A value as JSON: NaN as null, a params column (JSON text) as an object."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


#: Columns of a result row that hold whole numbers; ``seed`` is empty (null) for a log.
_INTEGER_COLUMNS = frozenset({"jobs", "rejected", "seed"})
#: Columns of a result row that are objects or lists in JSON (JSON text in a CSV cell).
_JSON_COLUMNS = frozenset({"params", "reading", "argv"})
#: Columns of a result row that hold text.
_TEXT_COLUMNS = frozenset(
    {"workload", "scheduler", "scheduler_name", "priority", "estimates"}
    | {"rejected_reasons", "dropped_reasons", "warmup", "cooldown", "version", "source", "sha256"}
    | {"kernel", "path", "utc"}
)


def _field(name: str) -> dict[str, str]:
    """A column's field in the JSON table schema: one pandas dtype per column, whatever the rows."""
    if name in _INTEGER_COLUMNS:
        return {"name": name, "type": "integer", "extDtype": "Int64"}  # nullable: a log has no seed
    if name in _JSON_COLUMNS:
        return {"name": name, "type": "any"}
    if name in _TEXT_COLUMNS:
        return {"name": name, "type": "string"}
    return {"name": name, "type": "number"}


def metrics_json(rows: Iterable[Mapping[str, Any]], **meta: Any) -> dict[str, Any]:
    """Return the result rows and ``meta`` (command, bound, ...) as one JSON-able object.

    The object is a table in the layout pandas reads whole, ``pandas.read_json(path,
    orient="table")``, one dtype per column: ``schema`` (its ``fields``, each column's name and
    type) and ``data``, every row with its columns (description, metrics, accounting and
    provenance), ``params`` and ``reading`` as objects and ``argv`` as a list (where given), NaN
    and a log's missing seed as null and infinities as the strings ``"inf"``/``"-inf"``; beside
    them ``version`` (this library's) and the ``meta`` items, which pandas leaves alone.

    Examples:
        >>> out = metrics_json([{"scheduler": "EASY", "params": '{"depth": 4}', "mean_wait": float("nan")}],
        ...                    command="simulate")
        >>> out["command"], out["data"]
        ('simulate', [{'scheduler': 'EASY', 'params': {'depth': 4}, 'mean_wait': None}])
        >>> [f["type"] for f in out["schema"]["fields"]]
        ['string', 'any', 'number']
    """
    plain = []
    columns: dict[str, None] = {}
    for row in rows:
        item = {k: _plain(v) for k, v in row.items()}
        for column in _JSON_COLUMNS:
            # JSON text in a CSV cell is an object or a list in the JSON file.
            if isinstance(item.get(column), str) and item[column]:
                item[column] = json.loads(item[column])
        if item.get("seed") == "":
            item["seed"] = None
        columns |= dict.fromkeys(item)
        plain.append(item)
    schema = {"fields": [_field(c) for c in columns], "pandas_version": "1.4.0"}
    return {"schema": schema, "data": plain, "version": library_version(), **meta}


def write_metrics_json(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike[str], **meta: Any) -> None:
    """Write :func:`metrics_json` to ``path``, indented, keys in the rows' column order, whole or not at all.

    Examples:
        >>> import tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as d:
        ...     write_metrics_json([{"scheduler": "EASY"}], pathlib.Path(d) / "m.json", command="simulate")
        ...     json.loads((pathlib.Path(d) / "m.json").read_text())["data"]
        [{'scheduler': 'EASY'}]
    """
    write_atomically(path, json.dumps(metrics_json(rows, **meta), indent=2, allow_nan=False) + "\n")
