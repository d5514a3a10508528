"""An event-driven simulator that drives any :class:`~backfill.schedulers.Scheduler`.

Event order is deterministic. Events are kept in a heap of ``(time, kind, seq, row)`` tuples; arrivals
come from the workload in row order (submit time, then file order). At each instant the simulator

1. delivers every completion at that time (kind 0), in the order the jobs were started;
2. delivers every arrival at that time, in workload order;
3. drops the wake-ups due then (kind 2);
4. calls ``schedule(now)`` once and starts what it returns; jobs of zero runtime that this starts
   complete at the same instant, so steps 1 and 4 repeat until nothing more happens at ``now``;
5. asks ``next_wakeup()`` and queues a wake-up if it names a future time not already queued;
6. records every reservation that changed (if ``record_reservations``): from the scheduler's own
   log if it keeps one (:class:`~backfill.schedulers.machinery.protocol.ReservationLog`), else by comparing
   ``reservations()`` with the previous instant's. A subclass of the library's bases that answers
   ``reservations()`` its own way is compared by its base's log itself (see
   :attr:`~backfill.schedulers.SchedulerBase.logs_reservations`), so what is recorded always
   agrees with ``reservations()``.

A simulator can be forked between instants; the fork shares the immutable workload, copies the
scheduler, and can drop the arrivals after a given job, as strict Fair-Start-Time metrics need.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

import attrs
import numpy as np

from backfill._validators import one_of
from backfill.admission import machine_size, rejections
from backfill.errors import BackfillError, ScheduleError
from backfill.kernel._runs import settle, whole_run
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.schedulers.machinery.protocol import ReservationLog, Scheduler, scheduler_name
from backfill.workloads.nodes import Allocation
from backfill.workloads.workload import SWF_FIELDS, Job, Workload, job_from_row

__all__ = ["Simulator", "simulate"]

_COMPLETE = 0
_RUNTIME, _ESTIMATE = SWF_FIELDS.index("runtime"), SWF_FIELDS.index("estimate")
_WAKEUP = 2

OverrunPolicy = Literal["raise_estimate", "kill"]


@attrs.define(eq=False, on_setattr=attrs.setters.NO_OP)
class Simulator:
    """Replay a workload through a scheduler, one instant at a time.

    Jobs wider than the machine, with no positive width or with an unknown runtime (SWF's -1) are
    rejected with a reason before the scheduler sees them, while an unknown estimate (-1) becomes an
    accurate one. A job of zero runtime occupies no processors.
    A job whose runtime exceeds its estimate breaks the scheduler's planning assumptions, so
    ``overrun`` decides:
    ``"raise_estimate"`` (default, as the SWF reader does) shows the scheduler an estimate equal to the
    runtime; ``"kill"`` ends the job at its estimate, as a batch system enforcing walltime limits would.

    Args:
        workload: The jobs and machine size.
        scheduler: Any object satisfying the scheduler protocol; it is reset here.
        record_reservations: Keep every reservation change: O(changes) per instant from a
            scheduler's own log, else one comparison of the reservation map per instant.
        overrun: Policy for jobs whose runtime exceeds their estimate.

    Examples:
        >>> from backfill.schedulers import EASY
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> result = Simulator(Workload.from_jobs(jobs, machine_size=2), EASY()).run()
        >>> result.start.tolist(), result.end.tolist()
        ([0.0, 10.0], [10.0, 15.0])
    """

    workload: Workload
    scheduler: Scheduler
    record_reservations: bool = True
    overrun: OverrunPolicy = attrs.field(default="raise_estimate", validator=one_of("raise_estimate", "kill"))
    now: float = attrs.field(init=False, default=-math.inf)
    _submit: list[float] = attrs.field(init=False, repr=False)
    _runtime: list[float] = attrs.field(init=False, repr=False)
    _estimate: list[float] = attrs.field(init=False, repr=False)
    _changed: list[bool] = attrs.field(init=False, repr=False)
    _bad: list[bool] = attrs.field(init=False, repr=False)
    _rejected: dict[int, str] = attrs.field(init=False, repr=False)
    _altered: dict[str, int] = attrs.field(init=False, repr=False)
    _heap: list[tuple[float, int, int, int]] = attrs.field(init=False, repr=False, factory=list)
    _seq: int = attrs.field(init=False, default=0, repr=False)
    _next: int = attrs.field(init=False, default=0, repr=False)
    _last: int = attrs.field(init=False, default=0, repr=False)
    _active: dict[int, int] = attrs.field(init=False, repr=False, factory=dict)
    _queued: dict[int, Job] = attrs.field(init=False, repr=False, factory=dict)
    _running: dict[int, Job] = attrs.field(init=False, repr=False, factory=dict)
    _used: int = attrs.field(init=False, default=0, repr=False)
    _wakeups: set[float] = attrs.field(init=False, repr=False, factory=set)
    _start: dict[int, float] = attrs.field(init=False, repr=False, factory=dict)
    # On a node machine: each started job's allocation, by row; and the machine's cores (else the
    # workload's machine size).
    _allocations: dict[int, Allocation] = attrs.field(init=False, repr=False, factory=dict)
    _size: int = attrs.field(init=False, default=0, repr=False)
    _end: dict[int, float] = attrs.field(init=False, repr=False, factory=dict)
    _order: list[int] = attrs.field(init=False, repr=False, factory=list)
    # The reservation log as (time, job id, start) triples of doubles, flat: no object per change, so
    # a log of millions of changes costs 24 bytes each and nothing to the garbage collector.
    _log: array[float] = attrs.field(init=False, repr=False, factory=lambda: array("d"))
    _last_res: dict[int, float] = attrs.field(init=False, repr=False, factory=dict)
    _take: Callable[[], list[tuple[int, float]]] | None = attrs.field(init=False, repr=False, default=None)

    def __attrs_post_init__(self) -> None:
        size = self._size = machine_size(self.workload, self.scheduler)
        if size != self.workload.machine_size:
            # A node machine: its cores are the machine's size for every measure of the schedule.
            w = self.workload
            self.workload = Workload(w.records, size, w.provenance, w.header)
        r = self.workload.records
        runtime = r["runtime"].astype(np.float64)
        estimate = r["estimate"].astype(np.float64)
        self._rejected, bad = rejections(self.workload, self.scheduler)
        self._altered = {}
        # SWF's -1 means "unknown": such a job gets an accurate estimate, as the reader's policy does.
        missing = ~bad & (estimate < 0)
        if missing.any():
            estimate = np.where(missing, runtime, estimate)
            self._altered["estimate_from_runtime"] = int(missing.sum())
        over = ~bad & ~(estimate >= runtime)
        if over.any():
            if self.overrun == "raise_estimate":
                estimate = np.where(over, runtime, estimate)
                self._altered["estimate_raised_to_runtime"] = int(over.sum())
            else:
                runtime = np.where(over, estimate, runtime)
                self._altered["killed_at_estimate"] = int(over.sum())
        self._changed = (over | missing).tolist()
        self._bad = bad.tolist()
        self._submit = r["submit"].tolist()
        self._runtime = runtime.tolist()
        self._estimate = estimate.tolist()
        self._last = len(r)
        scheduler = self.scheduler
        if isinstance(scheduler, ReservationLog):
            # The scheduler's own log is the cheap way to record; off when nobody reads it.
            scheduler.log_reservation_changes(self.record_reservations)
        scheduler.reset(size, float(r["submit"][0]) if len(r) else 0.0)
        self._take = self._reader(scheduler)

    # -- running -------------------------------------------------------------------------------------

    def next_time(self) -> float | None:
        """Return the time of the next instant with something to do, or ``None`` when done."""
        t = self._heap[0][0] if self._heap else math.inf
        if self._next < self._last:
            t = min(t, self._submit[self._next])
        return None if t == math.inf else t

    def step(self) -> bool:
        """Process the next instant (see the module docstring); return False if nothing was left."""
        now = self.next_time()
        if now is None:
            return False
        self._step(now)
        return True

    def _step(self, now: float) -> None:
        self.now = now
        scheduler = self.scheduler
        heap = self._heap
        self._complete_due(now)
        submit = self._submit
        last = self._last
        i = self._next
        while i < last and submit[i] == now:
            if not self._bad[i]:
                job = self._job(i)
                self._active[job.id] = i
                self._queued[job.id] = job
                scheduler.submit(job, now)
            i += 1
        self._next = i
        while heap and heap[0][0] == now:
            heapq.heappop(heap)
            self._wakeups.discard(now)
        self._settle(now)

    def _settle(self, now: float) -> None:
        """Steps 4-6 of an instant: schedule until nothing more starts, ask for a wake-up, record."""
        scheduler = self.scheduler
        heap = self._heap
        while True:
            started = scheduler.schedule(now)
            if started:
                self._start_jobs(started, now)
            if heap and heap[0][0] == now:
                self._complete_due(now)
                continue
            break
        wake = scheduler.next_wakeup()
        if wake is not None and wake > now and wake not in self._wakeups:
            self._wakeups.add(wake)
            self._seq += 1
            heapq.heappush(heap, (wake, _WAKEUP, self._seq, -1))
        if self._take is not None:
            changes = self._take()
            if changes:
                log = self._log
                for job_id, start in changes:
                    log.extend((now, job_id, start))
        elif self.record_reservations:
            self._record_reservations(now)

    def _reader(self, scheduler: Scheduler) -> Callable[[], list[tuple[int, float]]] | None:
        """The scheduler's own reservation log, if it keeps one and reservations are recorded."""
        if self.record_reservations and isinstance(scheduler, ReservationLog):
            return scheduler.take_reservation_changes
        return None

    def stop_recording(self) -> None:
        """Record no more reservation changes from now on (a fork that only wants start times)."""
        self.record_reservations = False
        if isinstance(self.scheduler, ReservationLog):
            self.scheduler.log_reservation_changes(False)
        self._take = None

    def _job(self, i: int) -> Job:
        # The workload checked its rows when it was built, and a changed runtime or estimate is a
        # runtime of a kept row: each job is built without checking it again.
        row = self.workload.records[i].tolist()
        if self._changed[i]:
            row = list(row)
            row[_RUNTIME] = self._runtime[i]
            row[_ESTIMATE] = self._estimate[i]
        return job_from_row(row)

    def _complete_due(self, now: float) -> None:
        heap = self._heap
        scheduler = self.scheduler
        while heap and heap[0][0] == now and heap[0][1] == _COMPLETE:
            _, _, _, i = heapq.heappop(heap)
            job = self._running.pop(i)
            if self._runtime[i] > 0:
                self._used -= job.processors
            self._end[i] = now
            del self._active[job.id]
            scheduler.complete(job, now)

    def _start_jobs(self, started: Sequence[Job], now: float) -> None:
        queued = self._queued
        size = self._size
        placing = getattr(self.scheduler, "nodes", None) is not None
        for job in started:
            if queued.pop(job.id, None) is None:
                raise self._not_queued(job, now)
            i = self._active[job.id]
            # A job of zero runtime occupies nothing, as in the profile and the validator.
            if self._runtime[i] > 0:
                self._used += job.processors
            # (On a node machine the request rule says what a job holds, not its processors: every
            # node's capacity is the validator's to check, from the allocations.)
            if self._used > size and not placing:
                name = scheduler_name(self.scheduler)
                raise ScheduleError(
                    f"{name} started job {job.id} at {now:g}: {self._used} processors in use "
                    f"on a {size}-processor machine"
                )
            self._running[i] = job
            self._start[i] = now
            if placing:
                self._allocations[i] = self._allocation(job, now)
            self._order.append(i)
            self._seq += 1
            heapq.heappush(self._heap, (now + self._runtime[i], _COMPLETE, self._seq, i))

    def _allocation(self, job: Job, now: float) -> Allocation:
        """The allocation the scheduler gives a job it started at ``now``."""
        allocation = self.scheduler.allocation(job.id)  # type: ignore[attr-defined]
        if not isinstance(allocation, Allocation):
            name = scheduler_name(self.scheduler)
            raise ScheduleError(
                f"{name} started job {job.id} at {now:g} on a node machine with no allocation"
            )
        return allocation

    def _not_queued(self, job: Job, now: float) -> ScheduleError:
        """The error for a started job that is not queued: it has not arrived, or already started."""
        name = scheduler_name(self.scheduler)
        if job.id in self._active:
            state = "already started and is running"
        else:
            rows = np.flatnonzero(self.workload.records["id"] == job.id).tolist()
            # Rows before _next were submitted unless rejected; a job leaves the active ones by ending.
            if any((r < self._next and not self._bad[r]) or r in self._start for r in rows):
                state = "already started and has ended"
            else:
                state = "has not arrived (it was never submitted)"
        return ScheduleError(f"{name} started job {job.id} at {now:g}, which {state}")

    def _record_reservations(self, now: float) -> None:
        res = self.scheduler.reservations()
        last = self._last_res
        if res == last:
            return
        log = self._log
        # Set operations on the item views run in C; the loops below touch only what changed.
        for job_id, start in sorted(res.items() - last.items()):
            log.extend((now, job_id, start))
        queued = self._queued
        for job_id in sorted(last.keys() - res.keys()):
            if job_id in queued:
                log.extend((now, job_id, math.nan))
        self._last_res = dict(res)

    def run(self, until: float | None = None) -> Schedule:
        """Run every instant (up to and including ``until``, if given) and return the schedule so far.

        Raises:
            ScheduleError: Run to the end (no ``until``), queued jobs were left unstarted when nothing
                was left to happen.
        """
        self._advance(math.inf if until is None else math.nextafter(until, math.inf))
        if until is None and self._queued:
            # Nothing is left to happen, so these jobs would never start: a scheduler bug, not a
            # result. Reporting it here keeps any job from being lost silently.
            name = scheduler_name(self.scheduler)
            ids = sorted(self._queued)
            shown = ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")
            raise ScheduleError(
                f"{name} left {len(ids)} queued jobs unstarted when nothing was left to happen "
                f"(job ids {shown}); a scheduler must start every queued job once it fits"
            )
        return self.result()

    def run_before(self, time: float) -> None:
        """Process every instant strictly before ``time`` (a fork taken then sees ``time``'s arrivals).

        Examples:
            >>> from backfill.schedulers import FCFS
            >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0),
            ...         Job(id=2, submit=3.0, processors=1, runtime=1.0, estimate=1.0)]
            >>> sim = Simulator(Workload.from_jobs(jobs, machine_size=1), FCFS())
            >>> sim.run_before(3.0)
            >>> sim.now, sorted(sim.queued_jobs)
            (0.0, [])
        """
        self._advance(time)

    def _advance(self, stop: float) -> None:
        """Process every instant before ``stop`` (every one if ``stop`` is infinite)."""
        heap = self._heap
        submit = self._submit
        step = self._step
        while True:
            # next_time(), inlined: this loop runs once per instant of the whole simulation.
            t = heap[0][0] if heap else math.inf
            if self._next < self._last and submit[self._next] < t:
                t = submit[self._next]
            if t >= stop:
                return
            step(t)

    def run_until_started(self, job_id: int) -> float:
        """Run until the job with this id has started and return its start time.

        Raises:
            BackfillError: If no job has this id, or the simulation ends without starting it (for
                example, its arrival was dropped from a fork).
        """
        rows = np.flatnonzero(self.workload.records["id"] == job_id)
        if not rows.size:
            raise BackfillError(f"no job has id {job_id}")
        return self._run_until_row_started(int(rows[0]))

    def _run_until_row_started(self, row: int) -> float:
        # Keyed by row, not through the active jobs: a job of zero runtime ends in the instant it starts.
        start = self._start
        while row not in start:
            if not self.step():
                raise BackfillError(f"job {int(self.workload.records['id'][row])} never started")
        return start[row]

    def _deliver_late(self, row: int) -> None:
        """Deliver the job of ``row``, which this simulation dropped, as an arrival at :attr:`now`.

        Its submit time is unchanged (priorities still see when it really arrived); only the moment the
        scheduler learns of it is late. Relaxed Fair Start Times need this.
        """
        if row < self._last or self._bad[row] or row in self._start:
            raise BackfillError(f"row {row} cannot be delivered late")
        now = self.now
        job = self._job(row)
        self._active[job.id] = row
        self._queued[job.id] = job
        self.scheduler.submit(job, now)
        self._settle(now)

    def fork(self, *, last_arrival: int | None = None) -> Simulator:
        """Return an independent copy of this simulation, between two instants.

        The fork copies the scheduler (through its ``copy()``) and the simulator's state of queued and
        running jobs and pending events; the workload is shared. Its records start empty: it reports
        only what happens after the fork. O(active jobs + events + the scheduler's copy).

        Args:
            last_arrival: If given, the row index of the last job allowed to arrive in the fork; later
                arrivals are dropped (strict Fair Start Time: "as if no job arrived after it").
        """
        other = Simulator.__new__(Simulator)
        for a in attrs.fields(Simulator):
            object.__setattr__(other, a.name, getattr(self, a.name))
        other.scheduler = self.scheduler.copy()
        other._take = other._reader(other.scheduler)
        other._heap = self._heap.copy()
        other._active = self._active.copy()
        other._queued = self._queued.copy()
        other._running = self._running.copy()
        other._wakeups = self._wakeups.copy()
        other._start = {}
        other._allocations = {}
        other._end = {}
        other._order = []
        other._log = array("d")
        other._last_res = self._last_res.copy()
        if last_arrival is not None:
            other._last = min(self._last, last_arrival + 1)
        return other

    def _compiled_run(self) -> Any | None:
        """The kernel's whole run of this simulation, if it implements the configuration exactly.

        Only :func:`simulate` asks, before the first instant: a simulation stepped, forked or read
        on the way runs the Python path (see ``backfill/kernel/_runs.py`` for what runs compiled).
        """
        if self.now != -math.inf or getattr(self.scheduler, "nodes", None) is not None:
            return None
        return whole_run(
            self.scheduler,
            self._size,
            self.workload.records,
            self._submit,
            self._runtime,
            self._estimate,
            self._bad,
            self.record_reservations,
        )

    def _compiled_result(self, run: Any) -> Schedule:
        """The schedule of a finished compiled run, as :meth:`run` would return it."""
        if run.queued():
            raise AssertionError(f"{scheduler_name(self.scheduler)}: the compiled run left jobs queued")
        start, end, order, log = run.results()
        settle(self.scheduler, run)
        return self._schedule(start, end, order, array("d", log.tobytes()), None, "compiled")

    def result(self) -> Schedule:
        """Return the schedule recorded so far (rejected and not-yet-started jobs have NaN times)."""
        n = len(self.workload)
        start = np.full(n, np.nan)
        end = np.full(n, np.nan)
        if self._start:
            idx = np.fromiter(self._start.keys(), dtype=np.int64, count=len(self._start))
            start[idx] = np.fromiter(self._start.values(), dtype=np.float64, count=len(idx))
        if self._end:
            idx = np.fromiter(self._end.keys(), dtype=np.int64, count=len(self._end))
            end[idx] = np.fromiter(self._end.values(), dtype=np.float64, count=len(idx))
        order = np.asarray(self._order, dtype=np.int64)
        return self._schedule(start, end, order, self._log, self._predicted(), "python")

    def _schedule(
        self,
        start: np.ndarray,
        end: np.ndarray,
        order: np.ndarray,
        log: array[float],
        predicted: np.ndarray | None,
        path: str,
    ) -> Schedule:
        """A schedule of this simulation's workload from what a path recorded."""
        return Schedule(
            workload=self.workload,
            scheduler=scheduler_name(self.scheduler),
            start=start,
            end=end,
            runtime=np.asarray(self._runtime, dtype=np.float64),
            estimate=np.asarray(self._estimate, dtype=np.float64),
            start_order=order,
            rejected=self._rejected,
            altered=self._altered,
            reservations=_reservations(log),
            predicted=predicted,
            path=path,
            resources=getattr(self.scheduler, "resources", ()),
            machine=getattr(self.scheduler, "nodes", None),
            allocations={int(self.workload.records["id"][i]): a for i, a in self._allocations.items()},
        )

    def _predicted(self) -> np.ndarray | None:
        """Each row's first planned runtime if the scheduler planned with predictions, else None."""
        planned = getattr(self.scheduler, "planned_runtimes", None)
        if planned is None:
            return None
        by_id = planned()
        ids = self.workload.records["id"].tolist()
        return np.array([by_id.get(i, math.nan) for i in ids], dtype=np.float64)

    @property
    def queued_jobs(self) -> Mapping[int, Job]:
        """Jobs submitted and not yet started, by id."""
        return MappingProxyType(self._queued)

    def row_of(self, job_id: int) -> int | None:
        """Return the workload row of a queued or running job, or ``None``."""
        return self._active.get(job_id)


def _reservations(log: array[float]) -> np.ndarray:
    """The flat log of (time, job id, start) triples as a structured array of ``RESERVATION_DTYPE``."""
    flat = np.frombuffer(log, dtype=np.float64).reshape(-1, 3) if log else np.empty((0, 3))
    out = np.empty(len(flat), dtype=RESERVATION_DTYPE)
    out["time"] = flat[:, 0]
    out["job_id"] = flat[:, 1]
    out["start"] = flat[:, 2]
    return out


def simulate(
    workload: Workload,
    scheduler: Scheduler,
    *,
    record_reservations: bool = True,
    overrun: OverrunPolicy = "raise_estimate",
    progress: Callable[[int], object] | None = None,
) -> Schedule:
    """Simulate a whole workload under a scheduler and return the schedule.

    Every job is accounted for: jobs in = jobs scheduled + jobs rejected with a reason (see
    :meth:`~backfill.schedule.Schedule.accounting`), checked before the schedule is returned.

    ``progress``, if given, is called with the number of jobs submitted so far, about every 1 % of
    the submissions and once more with ``len(workload)`` when the simulation has ended (a progress
    bar's ``update`` takes the differences). Running in steps does not change the schedule.

    Where the compiled kernel implements the configuration exactly (FCFS and EASY at any depth under
    a built-in static priority, Conservative, and PC and DC under a built-in static priority; not a
    subclass; see :mod:`backfill.kernel`), the whole run is made in it, with the same starts, start
    order and reservation log, and the schedule's ``path`` is ``"compiled"``; the scheduler object
    is then reset but not driven (only the ``events_examined`` of Conservative, PC and DC, and the
    ``moves`` of PC and DC, are set to the run's). Everything else runs the Python path, as does a
    :class:`Simulator` run by hand.

    Raises:
        ScheduleError: The scheduler started a job that has not arrived or already started,
            over-committed the machine, or left queued jobs unstarted when nothing was left to happen.

    Examples:
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=3.0, estimate=4.0) for i in range(3)]
        >>> simulate(Workload.from_jobs(jobs, machine_size=2), FCFS()).start.tolist()
        [0.0, 0.0, 3.0]
    """
    sim = Simulator(workload, scheduler, record_reservations=record_reservations, overrun=overrun)
    compiled = sim._compiled_run()
    if progress is not None:
        submit = workload.column("submit")
        n = len(workload)
        for k in range(1, 100):
            # Every instant before the k-th percentile's submission: the jobs submitted earlier.
            at = float(submit[n * k // 100]) if n else math.inf
            if compiled is None:
                sim.run_before(at)
            elif not compiled.advance(at):
                break
            progress(int(np.searchsorted(submit, at, side="left")))
    if compiled is None:
        schedule = sim.run()
    elif compiled.advance(math.inf):
        schedule = sim._compiled_result(compiled)
    else:
        # The clock passed MAX_CLOCK, where the scheduler refuses the completion: the Python path
        # makes the same decisions up to there and raises the door's own error.
        again = Simulator(workload, scheduler, record_reservations=record_reservations, overrun=overrun)
        schedule = again.run()
    if progress is not None:
        progress(len(workload))
    # Jobs in = jobs scheduled + jobs rejected with a reason, checked on every run.
    started = int(np.count_nonzero(schedule.started))
    if started + len(schedule.rejected) != len(workload):
        raise ScheduleError(
            f"{schedule.scheduler}: {len(workload)} jobs in, but {started} scheduled + "
            f"{len(schedule.rejected)} rejected"
        )
    return schedule
