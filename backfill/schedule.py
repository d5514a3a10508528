"""A finished (or partial) simulation: when each job started and ended, every reservation change."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import IO, Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill._validators import one_of
from backfill._version import library_version
from backfill.errors import ScheduleError
from backfill.workloads.nodes import Allocation, Machine
from backfill.workloads.resources import Resource, check_resources
from backfill.workloads.workload import Workload

__all__ = ["RESERVATION_DTYPE", "Schedule"]

#: One reservation change: at ``time`` the guaranteed start of job ``job_id`` became ``start``
#: (``NaN`` when a still-queued job lost its reservation, as EASY's head does when a job overtakes
#: it).
RESERVATION_DTYPE = np.dtype([("time", np.float64), ("job_id", np.int64), ("start", np.float64)])

FloatArray = npt.NDArray[np.float64]


def _readonly(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def _optional_readonly(a: npt.ArrayLike | None) -> npt.NDArray[Any] | None:
    return None if a is None else _readonly(np.asarray(a, dtype=np.float64))


def _frozen_reasons(m: Mapping[int, str]) -> Mapping[int, str]:
    return MappingProxyType(dict(m))


def _optional_machine(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, Machine):
        raise ScheduleError(f"Schedule.machine must be a Machine of node groups or None, got {value!r}")


def _frozen_allocations(m: Mapping[int, Allocation]) -> Mapping[int, Allocation]:
    if not isinstance(m, Mapping) or not all(isinstance(a, Allocation) for a in m.values()):
        raise ScheduleError("Schedule.allocations must map job ids to Allocation")
    return MappingProxyType(dict(m))


def _frozen_counts(m: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(m))


@attrs.frozen(eq=False)
class Schedule:
    """What happened to every job of a workload under one scheduler.

    Arrays are aligned with the rows of :attr:`workload`. A job that was rejected (see
    :attr:`rejected`) or has not started yet has ``NaN`` start and end.

    Attributes:
        workload: The simulated jobs.
        scheduler: Name of the scheduler.
        start: Start time of each job.
        end: Completion time of each job.
        runtime: Runtime each job ran for (its actual runtime, unless the overrun policy cut it).
        estimate: Runtime estimate the scheduler saw (after the overrun policy).
        start_order: Row indices of jobs in the order the simulator started them (each once).
        rejected: Reason each rejected job was not scheduled, by job id.
        altered: How many jobs the overrun policy changed, by reason.
        reservations: Every reservation change, as an array of :data:`RESERVATION_DTYPE`.
        predicted: The runtime each job was first planned with, if a predictor planned the run
            (:func:`~backfill.schedulers.prediction.planning.planning`; NaN for jobs never submitted), else
            None: the scheduler planned with :attr:`estimate`. See :attr:`planned`.
        path: Which code made it: ``"python"``, the pure-Python reference (and any schedule built
            with :meth:`from_starts`), or ``"compiled"``, the kernel's whole-run path, which makes
            the same decisions for the configurations it runs (see :mod:`backfill.kernel`).
        resources: The resources besides processors the scheduler planned (its ``resources``):
            :func:`~backfill.measures.validation.validate_schedule` checks each one's capacity and
            :func:`~backfill.measures.resource_use.resource_utilization` reports each one's use
            (a ``utilization_<name>`` of :func:`~backfill.measures.metrics.summarize`).
    """

    workload: Workload
    scheduler: str
    start: FloatArray = attrs.field(converter=_readonly, repr=False)
    end: FloatArray = attrs.field(converter=_readonly, repr=False)
    runtime: FloatArray = attrs.field(converter=_readonly, repr=False)
    estimate: FloatArray = attrs.field(converter=_readonly, repr=False)
    start_order: npt.NDArray[np.int64] = attrs.field(converter=_readonly, repr=False)
    rejected: Mapping[int, str] = attrs.field(converter=_frozen_reasons)
    altered: Mapping[str, int] = attrs.field(converter=_frozen_counts)
    reservations: npt.NDArray[np.void] = attrs.field(converter=_readonly, repr=False)
    predicted: FloatArray | None = attrs.field(default=None, converter=_optional_readonly, repr=False)
    path: str = attrs.field(default="python", kw_only=True, validator=one_of("python", "compiled"))
    resources: tuple[Resource, ...] = attrs.field(default=(), kw_only=True, converter=check_resources)
    machine: Machine | None = attrs.field(default=None, kw_only=True, validator=_optional_machine)
    allocations: Mapping[int, Allocation] = attrs.field(
        factory=dict, kw_only=True, converter=_frozen_allocations, repr=False
    )

    @classmethod
    def from_starts(
        cls,
        workload: Workload,
        start: Mapping[int, float] | npt.ArrayLike,
        end: Mapping[int, float] | npt.ArrayLike | None = None,
        *,
        name: str = "host",
        reservations: Iterable[tuple[float, int, float]] | npt.NDArray[np.void] = (),
        runtime: Mapping[int, float] | npt.ArrayLike | None = None,
        estimate: Mapping[int, float] | npt.ArrayLike | None = None,
        rejected: Mapping[int, str] | None = None,
        start_order: Iterable[int] | None = None,
        resources: Iterable[Resource] = (),
        machine: Machine | None = None,
        allocations: Mapping[int, Allocation] | None = None,
    ) -> Schedule:
        """Build the schedule of a run made outside this library (a host simulator of your own).

        Then :func:`~backfill.validate_schedule`, :func:`~backfill.check_reservations`, the metrics
        and :func:`~backfill.measures.validation.same_schedule` judge it as they judge ``simulate``'s.

        Args:
            workload: The jobs that were run.
            start: Each job's start: a mapping job id -> time (what a host keeps; jobs missing from
                it did not start) or an array aligned with the workload's rows (NaN: not started).
            end: Each job's end, in the same forms; by default start + runtime.
            name: The scheduler's name, for tables and messages.
            reservations: The reservation changes as ``(time, job_id, start)`` (a NaN start: the job
                lost its reservation), in the order they were made, or an array of
                :data:`RESERVATION_DTYPE`.
            runtime: What each job ran for, if not the workload's runtime (jobs killed at their
                estimate); same forms as ``start``.
            estimate: The estimate each job was planned with, if not the workload's.
            rejected: Why each job the host left out was not scheduled, by job id.
            start_order: Job ids in the order they started; by default by start time, then row.
            resources: The resources besides processors the host planned, which the validator
                checks (see :attr:`resources`).
            machine: The machine of nodes the host placed jobs on, if any (see :attr:`machine`).
            allocations: Each started job's allocation on it, by job id: the validator checks every
                node's capacity from them (see :attr:`allocations`).

        Raises:
            ScheduleError: If a job id is not in the workload, an array has the wrong length, or a
                mapping's value is not a number; the message names the job.

        Examples:
            >>> from backfill import Job, Workload, validate_schedule
            >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=9.0) for i in (7, 8)]
            >>> w = Workload.from_jobs(jobs, machine_size=2)
            >>> mine = Schedule.from_starts(w, {7: 0.0, 8: 5.0}, reservations=[(0.0, 8, 9.0)], name="mine")
            >>> mine.end.tolist(), mine.wait.tolist(), mine.reservations_of(8).tolist()
            ([5.0, 10.0], [0.0, 5.0], [9.0])
            >>> validate_schedule(mine)
        """
        host = _HostColumns(workload, name)
        run = host.column(runtime, "runtime") if runtime is not None else workload.column("runtime")
        run = np.asarray(run, dtype=np.float64)
        starts = host.column(start, "start")
        ends = starts + run if end is None else host.column(end, "end")
        plans = workload.column("estimate") if estimate is None else host.column(estimate, "estimate")
        reasons = dict(rejected or {})
        for job_id in reasons:
            if job_id not in host.row_of:
                raise host.unknown("rejected", job_id)
        return cls(
            workload=workload,
            scheduler=name,
            start=starts,
            end=ends,
            runtime=run,
            estimate=np.asarray(plans, dtype=np.float64),
            start_order=np.asarray(host.order(start_order, starts), dtype=np.int64),
            rejected=reasons,
            altered={},
            reservations=host.log(reservations),
            resources=check_resources(resources),
            machine=machine,
            allocations={} if allocations is None else allocations,
        )

    def __len__(self) -> int:
        return len(self.workload)

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only mapping proxies do not pickle; results come back from process pools and Dask.
        state = {a.name: getattr(self, a.name) for a in attrs.fields(Schedule)}
        state["rejected"], state["altered"] = dict(self.rejected), dict(self.altered)
        state["allocations"] = dict(self.allocations)
        return (_schedule_from, (state,))

    @property
    def planned(self) -> FloatArray:
        """The runtime each job was first planned with: :attr:`predicted`, else :attr:`estimate`.

        Examples:
            >>> from backfill import EASY, Job, Workload, exact_runtime, planning, simulate
            >>> w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=9.0)], 1)
            >>> oracle = planning(EASY(), predictor=exact_runtime)
            >>> simulate(w, EASY()).planned.tolist(), simulate(w, oracle).planned.tolist()
            ([9.0], [5.0])
        """
        return self.estimate if self.predicted is None else self.predicted

    @property
    def submit(self) -> FloatArray:
        """Submit time of each job."""
        return self.workload.column("submit")

    @property
    def processors(self) -> npt.NDArray[np.int64]:
        """Width of each job."""
        return self.workload.column("processors")

    @property
    def started(self) -> npt.NDArray[np.bool_]:
        """Mask of jobs that started."""
        return ~np.isnan(self.start)

    @property
    def wait(self) -> FloatArray:
        """Wait time (start - submit) of each job; NaN if it did not start."""
        return self.start - self.submit

    @property
    def response(self) -> FloatArray:
        """Response (turnaround) time (end - submit) of each job; NaN if it did not run."""
        return self.end - self.submit

    def rejection_counts(self) -> dict[str, int]:
        """Return how many jobs were rejected for each reason, reasons in alphabetical order.

        Examples:
            >>> from backfill import FCFS, Job, Workload, simulate
            >>> jobs = [Job(id=1, submit=0.0, processors=9, runtime=1.0, estimate=1.0),
            ...         Job(id=2, submit=0.0, processors=2, runtime=1.0, estimate=1.0)]
            >>> simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()).rejection_counts()
            {'wider than the machine (4 processors)': 1}
        """
        counts: dict[str, int] = {}
        for reason in self.rejected.values():
            counts[reason] = counts.get(reason, 0) + 1
        return dict(sorted(counts.items()))

    def accounting(self) -> str:
        """Return the one-line account of every job: jobs in = scheduled + rejected (by reason).

        A job is counted as scheduled once it has started; in a complete schedule every job is one or
        the other (:func:`~backfill.simulator.simulate` asserts it).

        Examples:
            >>> from backfill import FCFS, Job, Workload, simulate
            >>> jobs = [Job(id=1, submit=0.0, processors=9, runtime=1.0, estimate=1.0),
            ...         Job(id=2, submit=0.0, processors=2, runtime=1.0, estimate=1.0)]
            >>> simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()).accounting()
            '2 in = 1 scheduled + 1 rejected (wider than the machine (4 processors): 1)'
        """
        started = int(np.count_nonzero(self.started))
        line = f"{len(self)} in = {started} scheduled + {len(self.rejected)} rejected"
        counts = self.rejection_counts()
        if counts:
            line += " (" + "; ".join(f"{reason}: {n}" for reason, n in counts.items()) + ")"
        return line

    def reservations_of(self, job_id: int) -> FloatArray:
        """Return the successive reservations of one job, in the order they were made."""
        r = self.reservations
        return np.asarray(r["start"][r["job_id"] == job_id])

    def to_swf(self, target: str | os.PathLike[str] | IO[str], *, notes: Iterable[str] = ()) -> None:
        """Write the simulated schedule as SWF, with the wait field from the simulation.

        The header is the input's, except that its ``Note`` lines say what produced the file: first
        that this library (with its version) simulated the schedule with :attr:`scheduler`, and that
        field 3 is the simulated wait (-1 for a rejected job), then ``notes`` (the command line adds
        the load factor, estimates and the input's checksum), then the input's own notes, each marked
        ``(input log)`` since they describe the system that ran the original log.

        Examples:
            >>> import io
            >>> from backfill import FCFS, Job, Workload, simulate
            >>> w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=9.0)],
            ...                        machine_size=2, header={"Note": "uses the EASY scheduler"})
            >>> out = io.StringIO()
            >>> simulate(w, FCFS()).to_swf(out, notes=["load factor 1"])
            >>> print(out.getvalue().replace(library_version(), "X"), end="")
            ; Note: schedule simulated by backfill X with FCFS(fcfs); field 3 (wait) is the simulated wait
            ; Note: load factor 1
            ; Note: (input log) uses the EASY scheduler
            ; MaxProcs: 2
            1 0 0 5 1 -1 -1 -1 9 -1 1 -1 -1 -1 -1 -1 -1 -1
        """
        from backfill.workloads.swf import write_swf

        given = self.workload.header
        theirs = [f"(input log) {line.strip()}" for line in given.get("Note", "").split("\n") if line.strip()]
        ours = [
            f"schedule simulated by backfill {library_version()} with {self.scheduler}; "
            "field 3 (wait) is the simulated wait",
            *(str(n) for n in notes),
        ]
        note = "\n".join([*ours, *theirs])
        # The notes stay where the input had them (after Version, Computer, ...), else go first.
        header = {k: (note if k == "Note" else v) for k, v in given.items()}
        if "Note" not in header:
            header = {"Note": note, **header}
        write_swf(target, self.workload, wait=np.where(self.started, self.wait, -1.0), header=header)


class _HostColumns:
    """Reads a host's columns for :meth:`Schedule.from_starts`: by job id or by row, each id checked."""

    def __init__(self, workload: Workload, name: str) -> None:
        self.ids, self.name = workload.column("id"), name
        self.row_of = {int(job_id): row for row, job_id in enumerate(self.ids.tolist())}

    def unknown(self, what: str, job_id: object) -> ScheduleError:
        return ScheduleError(f"{self.name}: {what} names job {job_id}, which is not in the workload")

    def column(self, values: Mapping[int, float] | npt.ArrayLike, what: str) -> FloatArray:
        """A column by job id (NaN for the jobs missing) or aligned with the workload's rows."""
        name, ids = self.name, self.ids
        if isinstance(values, Mapping):
            out = np.full(len(ids), math.nan)
            for job_id, value in values.items():
                row = self.row_of.get(job_id)
                if row is None:
                    raise self.unknown(what, job_id)
                try:
                    out[row] = float(value)
                except (TypeError, ValueError):
                    raise ScheduleError(
                        f"{name}: {what} of job {job_id} is {value!r}, not a number"
                    ) from None
            return out
        array = np.asarray(values, dtype=np.float64)
        if array.shape != (len(ids),):
            raise ScheduleError(
                f"{name}: {what} has shape {array.shape}, but the workload has {len(ids)} jobs"
            )
        return array.copy()

    def order(self, start_order: Iterable[int] | None, starts: FloatArray) -> npt.NDArray[Any]:
        """The rows in the order they started: as given by job id, else by start time, then row."""
        if start_order is None:
            begun = np.flatnonzero(~np.isnan(starts))
            return begun[np.argsort(starts[begun], kind="stable")]
        rows = []
        for job_id in start_order:
            if job_id not in self.row_of:
                raise self.unknown("start_order", job_id)
            rows.append(self.row_of[job_id])
        return np.asarray(rows, dtype=np.int64)

    def log(
        self, reservations: Iterable[tuple[float, int, float]] | npt.NDArray[np.void]
    ) -> npt.NDArray[np.void]:
        """The reservation log as an array of :data:`RESERVATION_DTYPE`, every job id checked."""
        if isinstance(reservations, np.ndarray) and reservations.dtype == RESERVATION_DTYPE:
            log = reservations.copy()
        else:
            log = np.array([tuple(map(float, change)) for change in reservations], dtype=RESERVATION_DTYPE)
        if log.size and (stray := np.setdiff1d(log["job_id"], self.ids)).size:
            raise self.unknown("the reservation log", int(stray[0]))
        return log


def _schedule_from(state: dict[str, Any]) -> Schedule:
    """Rebuild a pickled :class:`Schedule` from its fields (see ``Schedule.__reduce__``)."""
    return Schedule(**state)
