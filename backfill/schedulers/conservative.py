"""Conservative backfilling (Mu'alem & Feitelson 2001): every job gets a reservation when it arrives."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import attrs
from sortedcontainers import SortedList

import backfill.kernel as kernel
from backfill.errors import ScheduleError
from backfill.profile import Profile
from backfill.schedulers._long_queues import LongQueueConservative
from backfill.schedulers._replan import extension_error, replan
from backfill.schedulers._window import PlanningWindow
from backfill.schedulers.machinery.base import RunningJob, SchedulerBase
from backfill.schedulers.machinery.compiled import CONSERVATIVE_RUN, WholeRun, whole_run_settings
from backfill.schedulers.machinery.priorities import fcfs
from backfill.workloads.amounts import Amounts
from backfill.workloads.limits import MAX_CLOCK
from backfill.workloads.workload import Job

__all__ = ["Conservative"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class Conservative(PlanningWindow, LongQueueConservative, SchedulerBase):
    """Conservative backfilling with compression in the order of the current profile.

    An arriving job is placed at its earliest fit in the profile of running and queued jobs (planned by
    their estimates); that start is its reservation and never moves later. When a job ends before its
    estimate, the scheduler *compresses*: every queued job, in the order of its planned start (ties by
    arrival), is removed and re-inserted at its earliest fit, which can only be earlier. This is the
    compression Lindsay et al. (2013, §1) and Rajbhandary et al. (2013, §2) specify for Conservative.
    Jobs start when the clock reaches their planned start.

    Simultaneous events are handled as the protocol orders them: all completions at an instant release
    their unused time first, the profile is compressed once, and only then are that instant's arrivals
    placed, so a new job never takes space an earlier job could have moved into.

    With a ``planning_window`` (Slurm's ``bf_window``, seconds), a job whose earliest fit lies beyond
    it waits unreserved until it comes within reach; ``max_tested`` (Slurm's ``bf_max_job_test``)
    caps the unreserved jobs tried per decision. See :mod:`backfill.schedulers._window`; neither is
    in the papers, and with neither set every job is reserved on arrival.

    The compression reads as the papers state it in :meth:`_compress_plain`; on long queues the same
    moves are found with fewer searches (``backfill/schedulers/_long_queues.py``, proven equal by
    ``tests/test_compression_paths.py``; ``accelerated = False`` in a subclass runs the plain path).

    A subclass reads, all read-only: :meth:`ordered` (the reserved queue in planned-start order),
    :attr:`free`, :meth:`running_jobs`, :meth:`reservations` and :meth:`profile_copy`.

    Examples:
        >>> s = Conservative()
        >>> s.reset(4, now=0)
        >>> a = Job(id=1, submit=0.0, processors=4, runtime=2.0, estimate=10.0)
        >>> b = Job(id=2, submit=0.0, processors=4, runtime=5.0, estimate=5.0)
        >>> s.submit(a, now=0); s.submit(b, now=0)
        >>> [j.id for j in s.schedule(now=0)], dict(s.reservations())
        ([1], {2: 10.0})
        >>> s.complete(a, now=2)  # ends 8 s early: job 2 is compressed to start now
        >>> [j.id for j in s.schedule(now=2)]
        [2]
    """

    #: Compress with the long-queue shortcuts (True) or the plain pass of the papers (False): the
    #: same moves in the same order either way (``tests/test_compression_paths.py``).
    accelerated: ClassVar[bool] = True
    #: Every reservation change is noted in the log (see :attr:`SchedulerBase.logs_reservations`).
    logs_reservations: ClassVar[bool] = True

    # Its own plan of every queued job's start: note_reservation is refused (SchedulerBase._check_note).
    _plans_reservations: ClassVar[str] = "every queued job's planned start"

    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _planned: dict[int, float] = attrs.field(init=False, factory=dict)
    _order: SortedList = attrs.field(init=False, factory=SortedList)
    _running: dict[int, tuple[float, int]] = attrs.field(init=False, factory=dict)
    _seq: int = attrs.field(init=False, default=0)
    _dirty: bool = attrs.field(init=False, default=False)
    _freed: list[tuple[float, float]] = attrs.field(init=False, factory=list)

    def __attrs_post_init__(self) -> None:
        self._check_window()

    @property
    def name(self) -> str:
        """Short readable name: the class name (a subclass's own), with a window if there is one."""
        extras = self._window_extras() + self._resource_extras()
        return f"{type(self).__name__}({', '.join(extras)})" if extras else type(self).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._window_extras() + self._resource_extras())})"

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._door_reset(machine_size, now)
        self._profile = self._new_profile(now)
        self._planned = {}
        self._order = SortedList()
        self._running = {}
        self._seq = 0
        self._dirty = False
        self._freed = []
        self._reset_window()
        self._clear_log()

    def submit(self, job: Job, now: float) -> None:
        """Reserve the job at its earliest fit. O(log n + k) on the profile, O(log q) on the queue.

        Raises:
            ScheduleError: If the job does not pass the door (:mod:`backfill.schedulers.machinery.door`), or
                is already queued or running.
        """
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
        if job.id in self._planned or job.id in self._running or job.id in self._unreserved:
            state = "running" if job.id in self._running else "queued"
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already {state}; "
                "a host submits each job once"
            )
        if self._requests is not None:
            self._take_request(job)
        if self._dirty:
            self._compress(now)
        if self.planning_window is not None and self._out_of_reach(self._profile, job, now):
            return
        self._arrive(job, now)

    def _arrive(self, job: Job, now: float) -> None:
        """Reserve a job at its earliest fit."""
        profile = self._profile
        requests = self._requests
        width = job.processors if requests is None else requests[job.id]
        start = profile._earliest_fit(now, width, job.estimate)
        profile._reserve(start, start + job.estimate, width)
        self._seq += 1
        self._order.add((start, self._seq, job))
        self._planned[job.id] = start
        self._changes.append((job.id, start))

    def complete(self, job: Job, now: float) -> None:
        """Release the unused part of a job's reservation; compression follows before the next decision.

        Raises:
            ScheduleError: If the job was not running, or ended after its start + estimate (when its
                processors were already planned free).
        """
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
            raise self._completion_error(job, now, None, job.id in self._planned)
        if now > record[0]:
            raise self._completion_error(job, now, record[0], False)
        end, procs = self._running.pop(job.id)
        if self._requests is not None:
            del self._requests[job.id]
        if now < end:
            self._profile._release(now, end, procs)
            self._freed.append((now, end))
            self._dirty = True

    def schedule(self, now: float) -> list[Job]:
        """Compress if a job ended early, then start every job whose planned start has come."""
        if now != self._now:  # a time already checked, or the door's check of a new one
            self._door_time(now)
        if self._dirty:
            self._compress(now)
        if self._unreserved:
            self._reserve_within_reach(self._profile, now)
        self._profile._advance(now)
        order = self._order
        requests = self._requests
        started: list[Job] = []
        while order and order[0][0] <= now:
            _, _, job = order.pop(0)
            del self._planned[job.id]
            width = job.processors if requests is None else requests[job.id]
            self._running[job.id] = (now + job.estimate, width)
            started.append(job)
        return started

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its planned end to end at ``end``; re-plan what it overlaps.

        The hook of :class:`~backfill.schedulers.prediction.planning.Replanning`: see
        :mod:`backfill.schedulers._replan` for which reservations move and where. Moved jobs are
        logged; the space they left is compressed into before the next decision.
        O(log n + s) when the extra time fits, else O(k (log n + s) + k log q) for k moved jobs.

        Raises:
            ScheduleError: If the job is not running or ``end`` is not after its planned end.
        """
        record = self._running.get(job.id)
        if record is None or end <= record[0]:
            raise ScheduleError(extension_error(self.name, job, end, now, record and record[0]))
        old, procs = record
        self._running[job.id] = (end, procs)
        moved = replan(self._profile, self._order, max(old, now), end, procs, now, self._requests)
        for start, new, seq, other in moved:
            self._order.add((new, seq, other))
            self._planned[other.id] = new
            if new != start:
                self._changes.append((other.id, new))
            if other.estimate > 0:
                self._freed.append((start, start + other.estimate))
                self._dirty = True

    def _start_unreserved(self, entries: Iterable[tuple[Any, Any, Job]], now: float) -> list[Job]:
        """Start, in the given order, every job that fits now without touching any reservation.

        ``entries`` are queue entries, each with the job last (``(key, seq, job)``).

        For schedulers built on Conservative whose other jobs hold no reservation (Selective's entry
        queue): a job starts if it fits over ``[now, now + estimate)`` in the profile, and then counts
        as running exactly like a guaranteed job, so its early completion frees space and compresses.
        A job of zero estimate occupies nothing and always fits. O(1) for a job wider than the
        processors free now, else O(log n + k) on the profile.
        """
        requests = self._requests
        if (compiled := kernel.KERNEL) is not None and requests is None:
            return compiled.start_unreserved(self._profile, self._running, entries, now)
        profile = self._profile
        running = self._running
        free = profile._free_at(now)
        placing = self.nodes is not None  # free is then read again: only the profile places
        started: list[Job] = []
        for _, _, job in entries:
            p = job.processors if requests is None else requests[job.id]
            end = now + job.estimate
            if end > now:
                if p > free or profile._min_free(now, end) < p:
                    continue
                profile._reserve(now, end, p)
                free = profile._free_at(now) if placing else free - p
            running[job.id] = (end, p)
            started.append(job)
        return started

    def _compress(self, now: float) -> None:
        """Compress after early completions: :meth:`_compress_plain`, or the same moves found faster."""
        if self.accelerated and self._requests is None:
            self._compress_long_queue(now)
        else:
            self._compress_plain(now)

    def _compress_plain(self, now: float) -> None:
        """Conservative's compression as the papers state it: one pass in planned-start order.

        Every queued job, in the order of its planned start (ties by arrival), is removed and
        re-inserted at its earliest fit if that is earlier (Lindsay et al. 2013, §1; Rajbhandary et
        al. 2013, §2). O(q) profile searches.
        """
        entries = list(self._order)
        requests = self._requests
        moved = False
        for i, (start, seq, job) in enumerate(entries):
            new = None
            width = job.processors if requests is None else requests[job.id]
            if start > now:
                new = self._profile._earliest_move(now, width, job.estimate, start)
            if new is not None:
                self._profile._move(start, new, job.estimate, width)
                self._planned[job.id] = new
                self._changes.append((job.id, new))
                entries[i] = (new, seq, job)
                moved = True
        if moved:
            self._order = SortedList(entries)
        self._freed = []
        self._dirty = False

    def _whole_run(self) -> WholeRun | None:
        """The compiled kernel's run of exactly this scheduler, or None.

        Conservative itself on processors alone, with no planning window or test limit and its
        accelerated compression.
        """
        plain = self.planning_window is None and self.max_tested is None
        if type(self) is Conservative and not self.resources and plain and Conservative.accelerated:
            return whole_run_settings(CONSERVATIVE_RUN, fcfs)
        return None

    @property
    def events_examined(self) -> int:
        """Profile events (planned starts and ends) examined by searches since :meth:`reset`.

        The work measure of Lindsay et al. (2013, §4.3); see :attr:`Profile.examined`.
        """
        return self._profile.examined

    def next_wakeup(self) -> float | None:
        """Conservative acts only on arrivals and completions, and when a job comes within its window."""
        return self._window_wakeup(self._now) if self._unreserved else None

    def reservations(self) -> Mapping[int, float]:
        """Planned (guaranteed) start of every queued job, by job id: a read-only view. O(1)."""
        return MappingProxyType(self._planned)

    # -- what a subclass reads (all read-only) -------------------------------------------------------

    @property
    def machine_size(self) -> int:
        """Processors of the machine, as given to :meth:`reset`. O(1)."""
        return self._size

    @property
    def free(self) -> int | Amounts:
        """Processors free now: the machine's, less those held by running jobs until they complete. O(r).

        With :attr:`resources`, the :class:`Amounts` of each resource free now.

        Examples:
            >>> s = Conservative()
            >>> s.reset(4, now=0.0)
            >>> s.submit(Job(id=1, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
            >>> [j.id for j in s.schedule(0.0)], s.free
            ([1], 1)
        """
        if self._capacity is None:
            return self._size - sum(procs for _, procs in self._running.values())
        free = self._capacity
        for _, amounts in self._running.values():
            free -= amounts
        return free

    def ordered(self, now: float) -> Sequence[tuple[float, int, Job]]:
        """Return the reserved queued jobs in planned-start order, as ``(start, seq, job)``. O(1).

        Conservative's queue has no priority: jobs start in the order of their reservations (ties by
        arrival, ``seq``). The answer is the scheduler's own sorted list: read it, do not change it,
        and do not keep it across calls. Jobs left unreserved by a planning window are not in it.
        ``now`` is accepted for the same call as :meth:`QueueScheduler.ordered`.

        Examples:
            >>> s = Conservative()
            >>> s.reset(4, now=0.0)
            >>> for i in (1, 2):
            ...     s.submit(Job(id=i, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
            >>> [(start, job.id) for start, _, job in s.ordered(0.0)]
            [(0.0, 1), (5.0, 2)]
        """
        return self._order  # type: ignore[no-any-return]

    def running_jobs(self) -> list[RunningJob]:
        """Return the running jobs in order of planned end (ties in the order they started). O(r log r).

        A new list of :class:`~backfill.schedulers.machinery.base.RunningJob` each call; the planned end is
        start + estimate, or the end given through :meth:`extend`, and ``request`` what the job
        holds (processors, or Amounts with resources; ``processors`` is always the int).

        Examples:
            >>> s = Conservative()
            >>> s.reset(4, now=0.0)
            >>> s.submit(Job(id=1, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
            >>> _ = s.schedule(0.0)
            >>> s.running_jobs()
            [RunningJob(job_id=1, planned_end=5.0, request=3)]
        """
        jobs = [RunningJob._make((jid, end, held)) for jid, (end, held) in self._running.items()]
        jobs.sort(key=lambda job: job.planned_end)
        return jobs

    def profile_copy(self) -> Profile:
        """Return a copy of the profile of running and reserved jobs, for what-if plans. O(n).

        A copy for the reason :meth:`GuaranteeScheduler.profile_copy` gives: the profile changes under
        every call, and a caller's searches and trial reservations must not change the guarantees.

        Examples:
            >>> s = Conservative()
            >>> s.reset(4, now=0.0)
            >>> s.submit(Job(id=1, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
            >>> s.profile_copy().earliest_fit(0.0, 2, 1.0)
            5.0
        """
        return self._profile.copy()

    def _still_queued(self, job_id: int) -> bool:
        return job_id in self._planned or job_id in self._unreserved

    def queued(self) -> int:
        """Number of queued jobs, reserved or not. O(1)."""
        return len(self._order) + len(self._unreserved)

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._profile = self._profile.copy()
        other._planned = self._planned.copy()
        other._order = self._order.copy()
        other._running = self._running.copy()
        other._freed = self._freed.copy()
        self._copy_window(other)
