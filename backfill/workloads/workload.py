"""Jobs and workloads.

A :class:`Job` is an immutable record of one rigid parallel job with all 18 fields of the Standard
Workload Format (SWF). A :class:`Workload` keeps its jobs as one numpy structured array (about 150
bytes a job, so 500K jobs fit in well under 100 MB) and builds :class:`Job` objects only when asked.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, overload

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError, JobError, ParameterError
from backfill.workloads.limits import MAX_INT, MAX_TIME

__all__ = ["JOB_DTYPE", "SWF_FIELDS", "Job", "Workload"]

#: Job attribute names in SWF column order (fields 1-18).
SWF_FIELDS: tuple[str, ...] = (
    "id",
    "submit",
    "wait",
    "runtime",
    "processors",
    "cpu_time",
    "memory",
    "requested_processors",
    "estimate",
    "requested_memory",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)

_FLOAT_FIELDS = frozenset(
    {
        "submit",
        "wait",
        "runtime",
        "cpu_time",
        "memory",
        "estimate",
        "requested_memory",
        "think_time",
    }
)

#: The structured dtype a :class:`Workload` stores its jobs in, one column per SWF field.
JOB_DTYPE = np.dtype([(name, np.float64 if name in _FLOAT_FIELDS else np.int64) for name in SWF_FIELDS])

_INF = math.inf


def _refuse(field: str, job_id: int | None, value: object, expected: str) -> JobError:
    shown = repr(value)
    if len(shown) > 40:
        shown = f"{shown[:30]}...{shown[-6:]}"
    return JobError(f"must be {expected}, got {shown}", job_id=job_id, field=field)


def _check_int(value: Any, field: str, job_id: int | None) -> int:
    """An int field's value as a Python int: ints and numpy integers, never bool, float or str."""
    v: int
    if type(value) is int:
        v = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _refuse(field, job_id, value, "an int")
    else:
        v = int(value)
    if field == "processors" or field == "partition":
        if not (v == -1 or 0 <= v < MAX_INT):
            raise _refuse(field, job_id, v, "-1 (unknown) or an int from 0 to 2**53 - 1")
    elif not -MAX_INT < v < MAX_INT:
        raise _refuse(field, job_id, v, "an int strictly between -2**53 and 2**53")
    return v


def _check_real(value: Any, field: str, job_id: int | None) -> float:
    """A real field's value as a Python float: ints, floats and numpy numbers, never bool or str."""
    v: float
    if type(value) is float:
        v = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _refuse(field, job_id, value, "a number")
    else:
        try:
            v = float(value)
        except OverflowError:
            raise _refuse(field, job_id, value, "a finite number") from None
    if field == "submit":
        if not 0 <= v <= MAX_TIME:
            raise _refuse(field, job_id, v, "a finite time from 0 to 1e12 s")
    elif field == "runtime" or field == "estimate":
        if not (v == -1 or 0 <= v <= MAX_TIME):
            raise _refuse(field, job_id, v, "-1 (unknown) or a finite time from 0 to 1e12 s")
    elif field == "memory" or field == "requested_memory":
        if not (v == -1 or 0 <= v < _INF):
            raise _refuse(field, job_id, v, "-1 (unknown) or a finite amount from 0 (kB per processor)")
    elif not -_INF < v < _INF:
        raise _refuse(field, job_id, v, "a finite number")
    return v


#: The fields in :class:`Job`'s attribute (constructor) order, which is the order they are checked in.
_JOB_FIELDS: tuple[str, ...] = (
    "id",
    "submit",
    "processors",
    "runtime",
    "estimate",
    "user",
    "group",
    "wait",
    "cpu_time",
    "memory",
    "requested_processors",
    "requested_memory",
    "status",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)
_CHECKS = tuple((name, _check_real if name in _FLOAT_FIELDS else _check_int) for name in _JOB_FIELDS)
_USUAL_TYPES = tuple(float if name in _FLOAT_FIELDS else int for name in _JOB_FIELDS)


@attrs.frozen(init=False)
class Job:
    """One rigid parallel job, with every field of the Standard Workload Format.

    Times are in seconds. ``processors`` is the width the simulators use (SWF field 5, allocated
    processors, unless the reader's policy chose the requested count); ``estimate`` is the user's
    runtime estimate (SWF field 9) after the reader's cleaning policy. Fields unknown in the source
    are ``-1``, as in SWF.

    Every value is checked when the job is built (``attrs.evolve`` builds one too), and stored as a
    Python ``int`` or ``float``; numpy numbers are accepted. What a job may hold:

    * ``id``: an int strictly between ``-2**53`` and ``2**53`` (so that it stays exact in a float);
    * ``submit``: a finite time from 0 to :data:`~backfill.workloads.limits.MAX_TIME` (1e12 s, where
      a float still resolves a millisecond);
    * ``runtime``, ``estimate``: -1 (unknown) or a finite time from 0 to ``MAX_TIME``;
    * ``processors``: an int, -1 (unknown) or from 0 (archive logs hold both; the simulator rejects
      such jobs with a reason);
    * ``memory``, ``requested_memory`` (kB per processor, SWF fields 7 and 10): -1 (unknown) or a
      finite amount from 0;
    * ``partition``: an int, -1 (unknown) or from 0 (a partition's number; no other negative number
      names one);
    * the other int fields (``user``, ``status``, ...): any int strictly between ``-2**53`` and
      ``2**53``; the other real fields (``wait``, ``memory``, ...): any finite number.

    An int field takes no bool, float (even ``2.0``) or string. A value outside these rules raises
    :class:`~backfill.errors.JobError` naming the job and the field.

    Examples:
        >>> job = Job(id=1, submit=0.0, processors=4, runtime=50.0, estimate=100.0)
        >>> job.area
        200.0
        >>> Job(id=5, submit=0.0, processors=2.7, runtime=50.0, estimate=100.0)
        Traceback (most recent call last):
        ...
        backfill.errors.JobError: job 5: processors must be an int, got 2.7
    """

    id: int
    submit: float
    processors: int
    runtime: float
    estimate: float
    user: int
    group: int
    wait: float
    cpu_time: float
    memory: float
    requested_processors: int
    requested_memory: float
    status: int
    executable: int
    queue: int
    partition: int
    preceding_job: int
    think_time: float

    def __init__(
        self,
        id: int,
        submit: float,
        processors: int,
        runtime: float,
        estimate: float,
        user: int = -1,
        group: int = -1,
        wait: float = -1.0,
        cpu_time: float = -1.0,
        memory: float = -1.0,
        requested_processors: int = -1,
        requested_memory: float = -1.0,
        status: int = 1,
        executable: int = -1,
        queue: int = -1,
        partition: int = -1,
        preceding_job: int = -1,
        think_time: float = -1.0,
    ) -> None:
        values = (
            id,
            submit,
            processors,
            runtime,
            estimate,
            user,
            group,
            wait,
            cpu_time,
            memory,
            requested_processors,
            requested_memory,
            status,
            executable,
            queue,
            partition,
            preceding_job,
            think_time,
        )
        # The usual job (ints where ints go, floats where floats go, all in range) takes one test;
        # any other goes field by field, which converts numpy numbers and names what is wrong. A sum
        # of the other real fields is finite only if each is (an overflow just takes the long way).
        if (
            tuple(map(type, values)) == _USUAL_TYPES
            and -MAX_INT < id < MAX_INT
            and 0 <= submit <= MAX_TIME
            and (0 <= processors < MAX_INT or processors == -1)
            and (0 <= runtime <= MAX_TIME or runtime == -1)
            and (0 <= estimate <= MAX_TIME or estimate == -1)
            and (memory >= 0 or memory == -1)
            and (requested_memory >= 0 or requested_memory == -1)
            and min(user, group, requested_processors, status, executable, queue) > -MAX_INT
            and max(user, group, requested_processors, status, executable, queue) < MAX_INT
            and (0 <= partition < MAX_INT or partition == -1)
            and -MAX_INT < preceding_job < MAX_INT
            and math.isfinite(wait + cpu_time + memory + requested_memory + think_time)
        ):
            self.__attrs_init__(*values)
            return
        job_id = _check_int(id, "id", None)
        checked: list[Any] = [
            check(v, name, job_id) for (name, check), v in zip(_CHECKS, values, strict=True)
        ]
        self.__attrs_init__(*checked)

    @classmethod
    def from_swf_fields(cls, fields: Iterable[float]) -> Job:
        """Build a job from the 18 SWF fields in file order, without any cleaning.

        A whole number given as a float (``7.0``, as a reader parses it) is taken for an int field;
        a fraction (``2.7``) is refused, never truncated.

        Raises:
            JobError: If a field holds a value no job can have (see :class:`Job`).

        Examples:
            >>> fields = [7, 10, -1, 30, 2] + [-1] * 3 + [60] + [-1, 1] + [-1] * 7
            >>> Job.from_swf_fields(fields).estimate
            60.0
            >>> Job.from_swf_fields([7.0, 10, -1, 30, 2.5] + fields[5:])
            Traceback (most recent call last):
            ...
            backfill.errors.JobError: job 7: processors must be a whole number, got 2.5
        """
        values = list(fields)
        if len(values) != len(SWF_FIELDS):
            raise BackfillError(f"an SWF job has {len(SWF_FIELDS)} fields, got {len(values)}")
        kwargs: dict[str, Any] = dict(zip(SWF_FIELDS, values, strict=True))
        job_id: int | None = None
        for name in SWF_FIELDS:
            v = kwargs[name]
            if name not in _FLOAT_FIELDS and isinstance(v, float | np.floating):
                if not float(v).is_integer():
                    raise _refuse(name, job_id, v, "a whole number")
                kwargs[name] = int(v)
            if name == "id":
                job_id = _check_int(kwargs[name], "id", None)
        return cls(**kwargs)

    def swf_fields(self) -> tuple[float | int, ...]:
        """Return the 18 SWF fields in file order.

        Examples:
            >>> Job(id=3, submit=5.0, processors=1, runtime=2.0, estimate=2.0).swf_fields()[:5]
            (3, 5.0, -1.0, 2.0, 1)
        """
        return tuple(getattr(self, name) for name in SWF_FIELDS)

    @property
    def area(self) -> float:
        """Processor-seconds actually used: ``processors * runtime``."""
        return self.processors * self.runtime


_new = object.__new__
_store = Job.__attrs_init__


def job_from_row(row: tuple[Any, ...] | list[Any]) -> Job:
    """Build a job from a checked workload's row (``records[i].tolist()``), without checking it again.

    The simulator builds one job per submission: the rows were checked, in bulk, when the workload
    was built, so checking each job again would only cost time.
    """
    # The SWF fields by their initials, unpacked into names (on the hot path, no tuple is built).
    i, s, w, r, p, c, m, rp, e, rm, st, u, g, x, q, pa, pj, t = row
    job: Job = _new(Job)
    _store(job, i, s, p, r, e, u, g, w, c, m, rp, rm, st, x, q, pa, pj, t)
    return job


def _check_records(records: npt.NDArray[np.void]) -> None:
    """Check every row of a workload as :class:`Job` would, in bulk: O(n), a few numpy passes a column.

    Raises the error :class:`Job` would raise for the first row (in the array's order) that breaks a
    rule, naming that job and its first bad field in the order :class:`Job` checks them.
    """
    if not len(records):
        return
    first: tuple[int, int] | None = None  # (row, field's position in Job) of the earliest bad value
    for k, name in enumerate(_JOB_FIELDS):
        column = records[name]
        lo, hi = column.min(), column.max()
        if name in _FLOAT_FIELDS:
            if name == "submit":
                if lo >= 0 and hi <= MAX_TIME:
                    continue
                bad = ~((column >= 0) & (column <= MAX_TIME))
            elif name == "runtime" or name == "estimate":
                if lo >= 0 and hi <= MAX_TIME:
                    continue
                bad = ~((column == -1) | ((column >= 0) & (column <= MAX_TIME)))
            elif name == "memory" or name == "requested_memory":
                if lo >= 0 and hi < _INF:
                    continue
                bad = ~((column == -1) | ((column >= 0) & (column < _INF)))
            else:
                if lo > -_INF and hi < _INF:
                    continue
                bad = ~np.isfinite(column)
        elif name == "processors" or name == "partition":
            if lo >= -1 and hi < MAX_INT:
                continue
            bad = ~((column == -1) | ((column >= 0) & (column < MAX_INT)))
        else:
            if lo > -MAX_INT and hi < MAX_INT:
                continue
            bad = (column <= -MAX_INT) | (column >= MAX_INT)
        rows = np.flatnonzero(bad)
        if rows.size and (first is None or int(rows[0]) < first[0]):  # ties: the earlier field
            first = (int(rows[0]), k)
    if first is None:
        return
    row, k = first
    job_id = int(records["id"][row])
    name = _JOB_FIELDS[k]
    value = records[name][row].item()
    # The scalar check words the error, so a workload and a job say the same thing.
    check = _check_real if name in _FLOAT_FIELDS else _check_int
    check(value, name, None if name == "id" else job_id)
    raise JobError(f"breaks the rules of a job's values, got {value!r}", job_id=job_id, field=name)


def _check_machine_size(size: Any) -> int:
    """A machine size as a Python int from 1 to 2**53 - 1: an int or numpy integer, never bool or float."""
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise ParameterError(f"machine_size must be an int, got {size!r}")
    n = int(size)
    if not 1 <= n < MAX_INT:
        raise ParameterError(f"machine_size must be from 1 to 2**53 - 1 processors, got {n}")
    return n


def _frozen_mapping(m: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(m))


def _frozen_strings(m: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(m))


@attrs.frozen(eq=False)
class Workload:
    """A set of jobs for one machine, stored column-wise.

    Use :meth:`from_jobs` or a reader (:func:`backfill.read_swf`, :func:`backfill.lublin_feitelson`)
    rather than the constructor. Jobs are kept sorted by submit time (stable, so ties keep file
    order); job ids are unique. Every row is checked when the workload is built, in bulk (a few numpy
    passes a column, O(n)), by the rules of :class:`Job`: the first row that breaks one raises the
    :class:`~backfill.errors.JobError` a job would, naming that job and field.

    Attributes:
        records: Structured array with dtype :data:`JOB_DTYPE`, one row per job.
        machine_size: Processors of the machine the jobs run on: an int (or numpy integer) from 1.
            A float is refused, even a whole one such as ``4.0``, as a job's width would be.
        provenance: Where the jobs came from (source file, model and seed, transformations applied).
        header: SWF header comments (``MaxProcs`` and so on), if any.

    Examples:
        >>> job = Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=9.0)
        >>> w = Workload.from_jobs([job], 4)
        >>> len(w), w[0].processors, w.machine_size
        (1, 2, 4)
    """

    records: npt.NDArray[np.void] = attrs.field(repr=False)
    machine_size: int
    provenance: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)
    header: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_strings, repr=False)

    def __attrs_post_init__(self) -> None:
        records = self.records
        if not isinstance(records, np.ndarray) or records.dtype != JOB_DTYPE or records.ndim != 1:
            raise BackfillError(
                "Workload.records must be a one-dimensional array of dtype "
                "backfill.workloads.workload.JOB_DTYPE"
            )
        object.__setattr__(self, "machine_size", _check_machine_size(self.machine_size))
        _check_records(self.records)
        submit = self.records["submit"]
        if len(submit) > 1 and bool(np.any(submit[1:] < submit[:-1])):
            raise BackfillError("Workload.records must be sorted by submit time (use from_jobs)")
        ids = self.records["id"]
        if len(np.unique(ids)) != len(ids):
            raise BackfillError("job ids in a workload must be unique")

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only mapping proxies do not pickle; process pools and Dask ship workloads to workers.
        return (Workload, (self.records, self.machine_size, dict(self.provenance), dict(self.header)))

    @classmethod
    def from_jobs(
        cls,
        jobs: Iterable[Job],
        machine_size: int,
        *,
        provenance: Mapping[str, Any] | None = None,
        header: Mapping[str, str] | None = None,
    ) -> Workload:
        """Build a workload from jobs in any order (they are sorted stably by submit time).

        Raises:
            ParameterError: If ``machine_size`` is not an int from 1 (``2.9`` is refused, not truncated).

        Examples:
            >>> jobs = [Job(id=i, submit=10.0 - i, processors=1, runtime=1.0, estimate=1.0)
            ...         for i in range(3)]
            >>> [j.id for j in Workload.from_jobs(jobs, machine_size=1)]
            [2, 1, 0]
        """
        rows = [j.swf_fields() for j in jobs]
        records = np.array(rows, dtype=JOB_DTYPE) if rows else np.empty(0, dtype=JOB_DTYPE)
        return cls.from_records(records, machine_size, provenance=provenance, header=header)

    @classmethod
    def from_records(
        cls,
        records: npt.NDArray[np.void],
        machine_size: int,
        *,
        provenance: Mapping[str, Any] | None = None,
        header: Mapping[str, str] | None = None,
    ) -> Workload:
        """Build a workload from a structured array of :data:`JOB_DTYPE` (sorted stably here).

        Raises:
            JobError: If a row holds a value no job can have (see :class:`Job`), naming the job.
            ParameterError: If ``machine_size`` is not an int from 1.

        Examples:
            >>> records = np.zeros(2, dtype=JOB_DTYPE)
            >>> records["id"] = [1, 2]
            >>> records["runtime"] = [5.0, float("nan")]
            >>> Workload.from_records(records, machine_size=4)
            Traceback (most recent call last):
            ...
            backfill.errors.JobError: job 2: runtime must be -1 (unknown) or a finite time from 0 to 1e12 s, \
got nan
        """
        order = np.argsort(records["submit"], kind="stable")
        return cls(
            np.ascontiguousarray(records[order]),
            machine_size,
            provenance or {},
            header or {},
        )

    def __len__(self) -> int:
        return len(self.records)

    @overload
    def __getitem__(self, index: int) -> Job: ...
    @overload
    def __getitem__(self, index: slice) -> list[Job]: ...
    def __getitem__(self, index: int | slice) -> Job | list[Job]:
        if isinstance(index, slice):
            return [job_from_row(r) for r in self.records[index].tolist()]
        return job_from_row(self.records[index].tolist())

    def __iter__(self) -> Iterator[Job]:
        for row in self.records.tolist():
            yield job_from_row(row)

    def column(self, name: str) -> npt.NDArray[Any]:
        """Return one SWF field of every job as a read-only array (no copy).

        Examples:
            >>> job = Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=9.0)
            >>> w = Workload.from_jobs([job], 4)
            >>> w.column("estimate").tolist()
            [9.0]
        """
        col = self.records[name]
        col.flags.writeable = False
        return col

    def scaled(self, load_factor: float) -> Workload:
        """Return the workload with its arrival rate raised by ``load_factor``.

        Submit times are divided by the factor (as Srinivasan et al. 2002 do to study high load);
        runtimes, estimates and widths are unchanged. A factor of 1.2 gives 20 % more offered load.

        Examples:
            >>> job = Job(id=1, submit=60.0, processors=1, runtime=5.0, estimate=9.0)
            >>> w = Workload.from_jobs([job], 4)
            >>> w.scaled(2.0)[0].submit
            30.0
        """
        if not load_factor > 0 or not np.isfinite(load_factor):
            raise BackfillError(f"load factor must be a positive number, got {load_factor!r}")
        records = self.records.copy()
        records["submit"] = records["submit"] / load_factor
        provenance = dict(self.provenance)
        provenance["load_factor"] = provenance.get("load_factor", 1.0) * load_factor
        return Workload(records, self.machine_size, provenance, self.header)

    def with_exact_estimates(self) -> Workload:
        """Return the workload with every job's estimate set to its runtime.

        The "accurate user estimates" setting of Srinivasan et al. (2002, §3 and §4.2). A job of
        unknown runtime (SWF's -1) keeps its estimate, since there is nothing exact to give it.

        Examples:
            >>> job = Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=60.0)
            >>> Workload.from_jobs([job], 4).with_exact_estimates()[0].estimate
            5.0
        """
        records = self.records.copy()
        known = records["runtime"] >= 0
        records["estimate"][known] = records["runtime"][known]
        provenance = dict(self.provenance)
        provenance["estimates"] = "exact"
        return Workload(records, self.machine_size, provenance, self.header)

    def offered_load(self) -> float:
        """Return the offered load: total area / (machine size x span of submit times and runtimes).

        Examples:
            >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0)]
            >>> Workload.from_jobs(jobs, 4).offered_load()
            0.5
        """
        if len(self) == 0:
            return 0.0
        r = self.records
        span = float(np.max(r["submit"] + np.maximum(r["runtime"], 0)) - r["submit"][0])
        area = float(np.sum(r["processors"] * np.maximum(r["runtime"], 0)))
        return area / (self.machine_size * span) if span > 0 else 0.0
