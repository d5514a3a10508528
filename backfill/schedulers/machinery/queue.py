"""The queue scheduler: a priority-ordered queue and the running jobs, the base of FCFS, EASY, PC and DC."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, cast

import attrs
from sortedcontainers import SortedList

from backfill.errors import ParameterError, ScheduleError
from backfill.profile import ProfileError
from backfill.profile.nodes import NodeProfile
from backfill.schedulers._replan import extension_error
from backfill.schedulers.machinery.base import RunningJob, SchedulerBase
from backfill.schedulers.machinery.priorities import (
    Priority,
    StatefulPriority,
    depends_on_time,
    fcfs,
    priority_name,
)
from backfill.workloads.amounts import Amounts
from backfill.workloads.limits import MAX_CLOCK
from backfill.workloads.workload import Job

__all__ = ["QueueEntry", "QueueScheduler"]

#: A queue entry, as :meth:`QueueScheduler.ordered` lists them and :meth:`QueueScheduler.start`
#: takes them: ``(key, seq, job)``, the job's priority key (None for a time-dependent or stateful
#: priority until :meth:`~QueueScheduler.ordered` keys it), its arrival sequence number (unique: it
#: breaks ties by arrival order and keeps the job itself out of comparisons), and the job.
QueueEntry = tuple[Any, int, Job]
Entry = QueueEntry


def _planned_end(job: RunningJob) -> float:
    return job.planned_end


# Builds a RunningJob from its three fields without RunningJob.__new__'s keyword handling.
_running_job = RunningJob._make


def check_priority(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Attrs validator: a priority must be a callable ``(job, now) -> key``."""
    if not callable(value):
        raise ParameterError(f"{attribute.name} must be a callable (job, now) -> key, got {value!r}")


def own_priority(priority: Priority, machine_size: int, now: float) -> Priority:
    """Return the priority a scheduler orders by from ``reset`` on: its own reset copy if it keeps state.

    A :class:`~backfill.schedulers.machinery.priorities.StatefulPriority` passed to a scheduler is a
    template: every scheduler (and every copy of one) works on a copy of its own, so two schedulers,
    or a simulation and its forks, never share history.
    """
    if isinstance(priority, StatefulPriority):
        own = priority.copy()
        own.reset(machine_size, now)
        return own
    return priority


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class QueueScheduler(SchedulerBase):
    """Base of schedulers that keep a priority-ordered queue (FCFS, EASY, PC, DC); subclass it.

    It implements every method of the protocol but :meth:`schedule`: jobs join the queue at
    :meth:`submit`, free their processors at :meth:`complete`, and :meth:`copy` returns a scheduler of
    the subclass's type. A subclass decides in :meth:`schedule` which queued jobs start, reading
    :meth:`ordered` (the queue in service order) and :attr:`free`, and starts them with
    :meth:`start`. Static priorities (see :func:`~backfill.schedulers.machinery.priorities.depends_on_time`)
    are keyed once at submission and kept in a :class:`~sortedcontainers.SortedList`; time-dependent ones and
    :class:`~backfill.schedulers.machinery.priorities.StatefulPriority` objects are re-keyed at each decision.

    What a subclass reads, all read-only: :meth:`ordered` (the queue in priority order),
    :attr:`free` (processors free now), :meth:`running_jobs` (the running jobs by planned end),
    :meth:`reservations` and :meth:`queued`. A subclass that reserves starts for queued jobs tells
    the base with :meth:`note_reservation`: :meth:`reservations` answers from those notes and the
    reservation log records them (a subclass that overrides :meth:`reservations` instead is logged
    by comparing its answers; see :attr:`~SchedulerBase.logs_reservations`).

    **Resources.** Built with ``resources=[...]`` (:mod:`backfill.workloads.resources`), the same
    steps work on :class:`~backfill.workloads.amounts.Amounts`: :attr:`free` and
    :attr:`~SchedulerBase.capacity` are Amounts, :meth:`~SchedulerBase.request` gives a job's
    amounts, each :class:`~backfill.schedulers.machinery.base.RunningJob`'s ``request`` holds its amounts
    (``processors`` its processors), :meth:`~SchedulerBase.amount` reads one resource of a job,
    and :meth:`start`
    refuses jobs whose amounts do not all fit. Written with :meth:`~SchedulerBase.request` (an int
    without resources), a subclass's rule works both ways, as the example below does; a job asking
    more of a resource than the machine has is refused at :meth:`submit`.

    Host mistakes that would corrupt the state raise :class:`~backfill.ScheduleError` naming the job:
    a job submitted twice, a job completed that was not running, and a job completed after its start
    plus estimate (its processors were counted free from then on).

    Args:
        priority: Queue order (smallest key first, ties by arrival); any callable
            ``(job, now) -> key``, or a :class:`~backfill.schedulers.machinery.priorities.StatefulPriority`.
        resources: Resources planned besides processors (see "Resources" above).

    Examples:
        A scheduler that starts, in priority order, every queued job that fits (no reservations):

        >>> from backfill import Job, Workload, simulate, sjf
        >>> class FirstFit(QueueScheduler):
        ...     def schedule(self, now):
        ...         chosen, free = [], self.free
        ...         for entry in self.ordered(now):
        ...             need = self.request(entry[2])  # its processors, or its amounts
        ...             if need <= free:
        ...                 chosen.append(entry)
        ...                 free -= need
        ...         return self.start(chosen, now)
        >>> jobs = [Job(id=i, submit=0.0, processors=p, runtime=5.0, estimate=5.0, requested_memory=m)
        ...         for i, (p, m) in enumerate([(3, 1.0), (2, 1.0), (1, 10.0)])]
        >>> simulate(Workload.from_jobs(jobs, machine_size=4), FirstFit(sjf)).start.tolist()
        [0.0, 5.0, 0.0]
        >>> FirstFit(sjf).name
        'FirstFit(sjf)'

        The same rule with 12 kB of memory planned too: job 2 asks 10 kB, more than the 9 kB left
        while job 0 runs, so it waits.

        >>> from backfill import Resource
        >>> mine = FirstFit(sjf, resources=[Resource.memory(12)])
        >>> simulate(Workload.from_jobs(jobs, machine_size=4), mine).start.tolist(), mine.name
        ([0.0, 5.0, 5.0], 'FirstFit(sjf, +memory)')
    """

    #: :meth:`reservations` answers from the notes (see :attr:`SchedulerBase.logs_reservations`).
    logs_reservations: ClassVar[bool] = True

    priority: Priority = attrs.field(default=fcfs, validator=check_priority)
    # Processors free now, or with resources the Amounts free now (typed an int for the code that
    # reads it either way, as SchedulerBase's widths are; see _new_profile).
    _free: int = attrs.field(init=False, default=0)
    _seq: int = attrs.field(init=False, default=0)
    _static: bool = attrs.field(init=False, default=True)
    # The callable the queue is ordered by: ``priority`` itself, or this scheduler's own copy of a
    # stateful priority (told of every arrival, start and completion).
    _key: Priority = attrs.field(init=False, default=fcfs)
    _stateful: StatefulPriority | None = attrs.field(init=False, default=None)
    _queue: SortedList = attrs.field(init=False, factory=SortedList)
    _dynamic: list[tuple[int, Job]] = attrs.field(init=False, factory=list)
    _queued: set[int] = attrs.field(init=False, factory=set)
    # Running jobs: id -> (planned end, seq, width), the width its processors or with resources its Amounts.
    _running: dict[int, tuple[float, int, int]] = attrs.field(init=False, factory=dict)
    _reserved: dict[int, float] = attrs.field(init=False, factory=dict)
    # On a node machine (``nodes``): the running jobs' placements, each from its start to its
    # planned end; None on a pool machine.
    _running_nodes: NodeProfile | None = attrs.field(init=False, default=None)

    @property
    def name(self) -> str:
        """Short readable name, e.g. ``EASY(sjf)``, ``EASY(sjf, +memory)`` with memory planned too."""
        return f"{type(self).__name__}({', '.join([priority_name(self.priority), *self._resource_extras()])})"

    def __repr__(self) -> str:
        extras = "".join(f", {extra}" for extra in self._resource_extras())
        return f"{type(self).__name__}(priority={priority_name(self.priority)}{extras})"

    @property
    def machine_size(self) -> int:
        """Processors of the machine, as given to :meth:`reset`."""
        return self._size

    @property
    def free(self) -> int | Amounts:
        """Processors free now: the machine's, less those held by running jobs until they complete. O(1).

        With :attr:`~SchedulerBase.resources`, the :class:`~backfill.workloads.amounts.Amounts` of
        each resource free now.
        """
        if self._running_nodes is not None:
            placed = self._placing_profile()
            assert placed is not None
            return placed._free_at(self._now)  # type: ignore[return-value]
        return self._free

    def _nothing(self) -> Any:
        """A width of nothing: 0, or with resources Amounts of zeros. O(r)."""
        capacity = self._capacity
        return 0 if capacity is None else Amounts([0] * len(capacity))

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._door_reset(machine_size, now)
        self._free = self._size if self._capacity is None else cast(int, self._capacity)
        self._running_nodes = None if self.nodes is None else cast(NodeProfile, self._new_profile(now))
        self._seq = 0
        self._key = own_priority(self.priority, machine_size, now)
        self._stateful = self._key if isinstance(self._key, StatefulPriority) else None
        self._static = self._stateful is None and not depends_on_time(self.priority)
        self._queue = SortedList()
        self._dynamic = []
        self._queued = set()
        self._running = {}
        self._reserved = {}
        self._clear_log()

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job (keyed now if its priority is static). O(log q)."""
        self._enqueue(job, now)

    def key(self, job: Job, now: float) -> Any:
        """Return the sort key this scheduler gives a job at ``now`` (its own priority state's, if any)."""
        return self._key(job, now)

    def _enqueue(self, job: Job, now: float) -> Entry | None:
        """Queue a job (past the door's checks); return its entry if the priority is static, else None."""
        # SchedulerBase._door_submit, inline (a hot path); the method raises with the reason.
        # Conditions in an ``if``, not a value: CPython specializes a comparison followed by a jump.
        refused = True
        try:
            if (
                self._now <= now <= MAX_CLOCK
                and job.__class__ is Job
                and 0 < job.processors <= self._size
                and job.estimate >= 0.0
                and job.submit <= now
            ):
                refused = False
        except TypeError:
            pass
        if refused:
            self._door_submit(job, now)
        self._now = now
        jid = job.id
        queued = self._queued
        if jid in queued or jid in self._running:
            raise self._submitted_twice(job, now)
        if self._requests is not None:
            self._take_request(job)
        queued.add(jid)
        self._seq = seq = self._seq + 1
        if self._static:
            entry = (self._key(job, now), seq, job)
            self._queue.add(entry)
            return entry
        if self._stateful is not None:
            self._stateful.submitted(job, now)
        self._hold(seq, job)
        return None

    def _submitted_twice(self, job: Job, now: float) -> ScheduleError:
        """The error for a job submitted while it is queued or running."""
        state = "queued" if job.id in self._queued else "running"
        return ScheduleError(
            f"{self.name}: job {job.id} submitted at {now:g} while already {state}; a host submits each "
            "job once"
        )

    def _hold(self, seq: int, job: Job) -> None:
        """Keep a job queued under a time-dependent or stateful priority (a subclass may index it)."""
        self._dynamic.append((seq, job))

    def _drop(self, entries: list[Entry]) -> None:
        """Forget the started ``entries`` of a time-dependent or stateful priority. O(q)."""
        gone = {seq for _, seq, _ in entries}
        self._dynamic = [(s, j) for s, j in self._dynamic if s not in gone]

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job."""
        self._finish(job, now)

    def _finish(self, job: Job, now: float) -> tuple[float, int, int]:
        """Forget a finished job and free what it held; return its (planned end, seq, width)."""
        # SchedulerBase._door_complete, inline (a hot path).
        refused = True
        try:
            if self._now <= now <= MAX_CLOCK and job.__class__ is Job:
                refused = False
        except TypeError:
            pass
        if refused:
            self._door_complete(job, now)
        self._now = now
        record = self._running.get(job.id)
        if record is None:
            raise self._completion_error(job, now, None, job.id in self._queued)
        if now > record[0]:
            raise self._completion_error(job, now, record[0], False)
        del self._running[job.id]
        placed = self._running_nodes
        if placed is None:
            self._free += record[2]
        elif now < record[0] and placed.placement(job.id) is not None:
            placed._release(now, record[0], record[2])  # type: ignore[arg-type]
        if self._requests is not None:
            del self._requests[job.id]
        if self._stateful is not None:
            self._stateful.completed(job, now)
        return record

    def ordered(self, now: float) -> Sequence[QueueEntry]:
        """Return the queued jobs in priority (service) order at ``now``, as ``(key, seq, job)`` entries.

        See :data:`QueueEntry` for what an entry holds.
        Do not change the queue while iterating over the answer. O(1) for a static priority (the
        sorted queue itself), O(q log q) for a time-dependent or stateful one.
        """
        return self._ordered(now)

    def _ordered(self, now: float) -> Sequence[Entry]:
        if self._static:
            return self._queue  # type: ignore[no-any-return]
        priority = self._key
        return sorted((priority(job, now), seq, job) for seq, job in self._dynamic)

    def start(self, entries: Iterable[QueueEntry], now: float) -> list[Job]:
        """Start queued entries (from :meth:`ordered`) at ``now`` and return their jobs, in order.

        They count as running from now on, until :meth:`complete`. The time passes the door's check
        of a decision (:mod:`backfill.schedulers.machinery.door`), so a subclass's :meth:`schedule` that
        starts its jobs here inherits it.

        Raises:
            ScheduleError: If the time goes backwards or is not finite, if an entry's job has not
                arrived (was never submitted) or already started (is running, or ran), or if the jobs
                need more processors than are free (with resources: more of some resource).
        """
        self._door_time(now, "start")
        taken = list(entries)
        jobs = [entry[2] for entry in taken]
        seen: set[int] = set()
        for entry in taken:
            job = entry[2]
            if job.id not in self._queued or job.id in self._running:
                raise ScheduleError(self._start_error(entry, now))
            if job.id in seen:
                raise ScheduleError(
                    f"{self.name}: cannot start job {job.id} at {now:g}: it already started earlier in "
                    "this call (it is named twice)"
                )
            seen.add(job.id)
        if self._running_nodes is not None:
            self._place_all(jobs, now)
            need = free = self._nothing()
        else:
            need = self._nothing()
            for job in jobs:
                need += self.request(job)
            free = self.free
        if need > free:
            have = f"{free} are free" if self._capacity is None else f"{self._amounts_text(free)} are free"
            raise ScheduleError(
                f"{self.name}: cannot start jobs {[job.id for job in jobs]} at {now:g}: they need "
                f"{self._amounts_text(need)}{', ' if self._capacity is None else '; '}{have}"
            )
        for entry in taken:
            self._start(entry[2], now, entry[1])
        if self._reserved:
            # A reservation ends when its job starts: not a change, so not logged.
            for job in jobs:
                self._reserved.pop(job.id, None)
        self._dequeue(taken, now)
        return jobs

    def _place_all(self, jobs: list[Job], now: float) -> None:
        """Place ``jobs`` on the running jobs' nodes from ``now``, all or none (a node machine).

        Raises:
            ScheduleError: If the policy cannot place one of them beside the others; nothing changes.
        """
        placed = self._running_nodes
        assert placed is not None
        done: list[Job] = []
        for job in jobs:
            demand = self.request(job)
            try:
                placed._reserve(now, now + job.estimate, demand)  # type: ignore[arg-type]
            except ProfileError:
                for other in done:
                    placed._release(now, now + other.estimate, self.request(other))  # type: ignore[arg-type]
                raise ScheduleError(
                    f"{self.name}: cannot start jobs {[job.id for job in jobs]} at {now:g}: job {job.id}'s "
                    f"{demand!r} is not placed on the nodes free beside the others"
                ) from None
            done.append(job)

    def _amounts_text(self, width: Any) -> str:
        """``3 processors``, or with resources ``3 processors and 10 memory``."""
        if self._capacity is None:
            return f"{width} processors"
        names = ["processors", *(r.name for r in self.resources)]
        parts = [f"{a} {name}" for a, name in zip(width, names, strict=True)]
        return f"{', '.join(parts[:-1])} and {parts[-1]}"

    def _start_error(self, entry: QueueEntry, now: float) -> str:
        """Why an entry's job cannot start: it already started (running, or ran), or has not arrived.

        A job leaves the queue only by starting, so an entry this scheduler issued (its arrival
        sequence number is one it gave) whose job is not queued already started.
        """
        job = entry[2]
        if job.id in self._running:
            state = "it already started and is running"
        elif isinstance(entry[1], int) and 1 <= entry[1] <= self._seq:
            state = "it already started and has ended"
        else:
            state = "it has not arrived (it was never submitted)"
        return f"{self.name}: cannot start job {job.id} at {now:g}: {state}"

    def _dequeue(self, entries: list[Entry], now: float) -> None:
        """Remove started entries from the queue (their jobs are running now)."""
        queued = self._queued
        for entry in entries:
            queued.discard(entry[2].id)
        if self._static:
            for entry in entries:
                self._queue.remove(entry)
        else:
            self._drop(entries)
        if self._stateful is not None:
            started = self._stateful.started
            for entry in entries:
                started(entry[2], now)

    def _start(self, job: Job, now: float, seq: int) -> None:
        requests = self._requests
        width = job.processors if requests is None else requests[job.id]
        self._running[job.id] = (now + job.estimate, seq, width)
        placed = self._running_nodes
        if placed is None:
            self._free -= width
        elif job.estimate > 0 and placed.placement(job.id) is None:
            placed._reserve(now, now + job.estimate, width)  # type: ignore[arg-type]

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its planned end to end at ``end`` (planning's hook).

        See :class:`~backfill.schedulers.prediction.planning.Replanning`. O(1) here; a subclass that plans
        with running jobs' ends extends its own records too.

        Raises:
            ScheduleError: If the job is not running or ``end`` is not after its planned end.
        """
        record = self._running.get(job.id)
        if record is None or end <= record[0]:
            raise ScheduleError(extension_error(self.name, job, end, now, record and record[0]))
        self._running[job.id] = (end, record[1], record[2])
        placed = self._running_nodes
        if placed is not None and placed.placement(job.id) is not None and self._placing_profile() is placed:
            try:
                placed._reserve(max(record[0], now), end, record[2])  # type: ignore[arg-type]
            except ProfileError as e:
                raise ScheduleError(
                    f"{self.name}: job {job.id} cannot run on to {end:g} on its nodes: {e}"
                ) from None

    def next_wakeup(self) -> float | None:
        """These schedulers act only on arrivals and completions."""
        return None

    def reservations(self) -> Mapping[int, float]:
        """Reserved starts of queued jobs, by job id: a read-only view that follows the scheduler. O(1).

        A subclass's reservations are those it noted (:meth:`note_reservation`) and whose jobs have
        not started since.
        """
        return MappingProxyType(self._reserved)

    def note_reservation(self, job_id: int, start: float) -> None:
        """Reserve ``start`` for queued job ``job_id`` (``math.nan``: withdraw its reservation), and log it.

        :meth:`reservations` answers from these notes, and the reservation log records each one, so
        the two always agree; a reservation ends by itself when :meth:`start` starts its job. O(1).

        Raises:
            ScheduleError: If the job is not queued, or ``start`` is neither NaN nor a time from now
                to ``MAX_CLOCK`` (see :meth:`SchedulerBase.note_reservation`); always on EASY,
                GuaranteeScheduler (PC, DC) and their subclasses, which plan their reservations
                themselves.

        Examples:
            >>> from backfill import Job
            >>> s = QueueScheduler()
            >>> s.reset(4, now=0.0)
            >>> s.log_reservation_changes()
            >>> s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), now=0.0)
            >>> s.note_reservation(1, 10.0)
            >>> dict(s.reservations()), s.take_reservation_changes()
            ({1: 10.0}, [(1, 10.0)])
            >>> s.start(s.ordered(0.0), now=0.0)[0].id, dict(s.reservations()), s.take_reservation_changes()
            (1, {}, [])
        """
        self._check_note(job_id, start)
        if job_id not in self._queued:
            raise ScheduleError(f"{self.name}: cannot reserve a start for job {job_id}: it is not queued")
        if start != start:  # NaN: the job lost its reservation
            if self._reserved.pop(job_id, None) is None:
                return
        elif self._reserved.get(job_id) == start:
            return
        else:
            self._reserved[job_id] = start
        self._changes.append((job_id, start))

    def running_jobs(self) -> list[RunningJob]:
        """Return the running jobs in order of planned end (ties in the order they started). O(r log r).

        A new list of :class:`~backfill.schedulers.machinery.base.RunningJob` ``(job_id, planned_end,
        request)`` each call: the planned end is start + estimate, or the end given through
        :meth:`extend`; ``request`` is what the job holds (:meth:`~SchedulerBase.request`), and the
        requests add up to :attr:`~SchedulerBase.capacity` less :attr:`free`: processors without
        :attr:`~SchedulerBase.resources`, :class:`~backfill.workloads.amounts.Amounts` with them.
        ``processors`` is the int number of processors either way.

        Examples:
            >>> from backfill import Job
            >>> s = QueueScheduler()
            >>> s.reset(4, now=0.0)
            >>> for i, (p, e) in enumerate([(1, 9.0), (2, 4.0)]):
            ...     s.submit(Job(id=i, submit=0.0, processors=p, runtime=e, estimate=e), now=0.0)
            >>> _ = s.start(s.ordered(0.0), now=0.0)
            >>> s.running_jobs()  # doctest: +NORMALIZE_WHITESPACE
            [RunningJob(job_id=1, planned_end=4.0, request=2),
             RunningJob(job_id=0, planned_end=9.0, request=1)]
            >>> s.free
            1
        """
        jobs = [_running_job((jid, end, held)) for jid, (end, _, held) in self._running.items()]
        jobs.sort(key=_planned_end)
        return jobs

    def _still_queued(self, job_id: int) -> bool:
        return job_id in self._queued

    def queued(self) -> int:
        """Number of queued jobs. O(1)."""
        return len(self._queued)

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._queue = self._queue.copy()
        other._dynamic = self._dynamic.copy()
        other._queued = self._queued.copy()
        other._running = self._running.copy()
        other._reserved = self._reserved.copy()
        if self._running_nodes is not None:
            other._running_nodes = self._running_nodes.copy()
        if self._stateful is not None:
            other._key = other._stateful = self._stateful.copy()
