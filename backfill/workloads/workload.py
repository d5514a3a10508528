"""Jobs and workloads.

A :class:`Job` is an immutable record of one rigid parallel job with all 18 fields of the Standard
Workload Format (SWF). A :class:`Workload` keeps its jobs as one numpy structured array (about 150
bytes a job, so 500K jobs fit in well under 100 MB) and builds :class:`Job` objects only when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, overload

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError

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


@attrs.frozen
class Job:
    """One rigid parallel job, with every field of the Standard Workload Format.

    Times are in seconds. ``processors`` is the width the simulators use (SWF field 5, allocated
    processors, unless the reader's policy chose the requested count); ``estimate`` is the user's
    runtime estimate (SWF field 9) after the reader's cleaning policy. Fields unknown in the source
    are ``-1``, as in SWF.

    Examples:
        >>> job = Job(id=1, submit=0.0, processors=4, runtime=50.0, estimate=100.0)
        >>> job.area
        200.0
    """

    id: int
    submit: float
    processors: int
    runtime: float
    estimate: float
    user: int = -1
    group: int = -1
    wait: float = -1.0
    cpu_time: float = -1.0
    memory: float = -1.0
    requested_processors: int = -1
    requested_memory: float = -1.0
    status: int = 1
    executable: int = -1
    queue: int = -1
    partition: int = -1
    preceding_job: int = -1
    think_time: float = -1.0

    @classmethod
    def from_swf_fields(cls, fields: Iterable[float]) -> Job:
        """Build a job from the 18 SWF fields in file order, without any cleaning.

        Examples:
            >>> fields = [7, 10, -1, 30, 2] + [-1] * 3 + [60] + [-1, 1] + [-1] * 7
            >>> Job.from_swf_fields(fields).estimate
            60.0
        """
        values = list(fields)
        if len(values) != len(SWF_FIELDS):
            raise BackfillError(f"an SWF job has {len(SWF_FIELDS)} fields, got {len(values)}")
        kwargs: dict[str, Any] = {
            name: (float(v) if name in _FLOAT_FIELDS else int(v))
            for name, v in zip(SWF_FIELDS, values, strict=True)
        }
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


def job_from_row(row: tuple[Any, ...]) -> Job:
    (
        id_,
        submit,
        wait,
        runtime,
        processors,
        cpu_time,
        memory,
        req_procs,
        estimate,
        req_mem,
        status,
        user,
        group,
        executable,
        queue,
        partition,
        preceding,
        think,
    ) = row
    return Job(
        id_,
        submit,
        processors,
        runtime,
        estimate,
        user,
        group,
        wait,
        cpu_time,
        memory,
        req_procs,
        req_mem,
        status,
        executable,
        queue,
        partition,
        preceding,
        think,
    )


def _frozen_mapping(m: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(m))


def _frozen_strings(m: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(m))


@attrs.frozen(eq=False)
class Workload:
    """A set of jobs for one machine, stored column-wise.

    Use :meth:`from_jobs` or a reader (:func:`backfill.read_swf`, :func:`backfill.lublin_feitelson`)
    rather than the constructor. Jobs are kept sorted by submit time (stable, so ties keep file
    order); job ids are unique.

    Attributes:
        records: Structured array with dtype :data:`JOB_DTYPE`, one row per job.
        machine_size: Processors of the machine the jobs run on.
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
        if self.records.dtype != JOB_DTYPE:
            raise BackfillError("Workload.records must have dtype backfill.workloads.workload.JOB_DTYPE")
        if self.machine_size <= 0:
            raise BackfillError(f"machine size must be positive, got {self.machine_size}")
        submit = self.records["submit"]
        if not bool(np.all(np.isfinite(submit))):
            raise BackfillError("every submit time in a workload must be a finite number")
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
        """Build a workload from a structured array of :data:`JOB_DTYPE` (sorted stably here)."""
        order = np.argsort(records["submit"], kind="stable")
        return cls(
            np.ascontiguousarray(records[order]),
            int(machine_size),
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
