"""Shared machinery of PC and DC: a profile of guarantees plus a priority-ordered compression queue.

Both algorithms (Lindsay et al. 2013, §2) keep every queued job's planned start in a
:class:`~backfill.profile.Profile` and only ever move a job earlier. The compression reads as the
papers state it in :meth:`GuaranteeScheduler._compress_plain`: try the queued jobs in priority order,
move the first that can start earlier to its earliest fit, go back to the head, until none can. On
queues of thousands of jobs the schedulers make the same moves, in the same order, with far fewer
profile searches (:mod:`backfill.schedulers._long_queues`); :attr:`GuaranteeScheduler.accelerated`
is the seam between the two, and ``tests/test_compression_paths.py`` proves them equal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import attrs
from sortedcontainers import SortedList

import backfill.schedulers._long_queues as long_queues
from backfill.errors import ScheduleError
from backfill.profile import Profile
from backfill.schedulers._long_queues import TRIM, LongQueueCompression
from backfill.schedulers._replan import replan
from backfill.schedulers._window import PlanningWindow
from backfill.schedulers.machinery.priorities import priority_name
from backfill.schedulers.machinery.queue import Entry, QueueScheduler
from backfill.workloads.workload import Job

__all__ = ["GuaranteeScheduler"]


def compression_thresholds() -> tuple[int, int, int]:
    """``NARROW``, ``PER_WIDTH`` and ``TRIM`` as the compression reads them now.

    For PC's compiled whole run (``backfill/kernel/_runs.py``), which must use the same ones: a
    test lowers the first two to send small queues down the long-queue branches.
    """
    return long_queues.NARROW, long_queues.PER_WIDTH, TRIM


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class GuaranteeScheduler(PlanningWindow, LongQueueCompression, QueueScheduler):
    """Base of PC and DC: a profile of guarantees and prioritized compression; subclass it.

    Every queued job holds a guarantee, its planned start in a :class:`~backfill.profile.Profile` of
    running and queued jobs, which only ever moves earlier. A subclass writes :meth:`submit`,
    :meth:`complete` and :meth:`schedule` from four steps, the ones :class:`~backfill.schedulers.PC`
    is made of:

    * :meth:`place` queues an arriving job and gives it its guarantee, the earliest fit;
    * :meth:`release` forgets a finished job and frees the rest of its reservation, returning the
      interval freed (for the next compression) if it ended early;
    * :meth:`compress` moves queued jobs earlier in priority order, back to the head after each move,
      until none can move (Lindsay et al. 2013, §2.1);
    * :meth:`start_due` starts the jobs whose guarantee has come.

    Guarantees never move later whatever the order of these calls, so a subclass changes *when* and
    *which* jobs are compressed, never the promise. Besides what :class:`QueueScheduler` lets a
    subclass read, :meth:`profile_copy` gives the profile of guarantees and :meth:`reservations`
    the guarantees themselves. ``examples/subclass_schedulers.py`` compresses
    only after a job ended well before its estimate. The base's own attributes start with an
    underscore; give a subclass's names of its own.

    Examples:
        >>> from backfill import Job, Workload, simulate, sjf
        >>> class CompressAtArrivals(GuaranteeScheduler):
        ...     # Compress only when a job arrives, never at a completion alone.
        ...     freed: list = []
        ...     def submit(self, job, now):
        ...         self.compress(now, self.freed)
        ...         self.freed = []
        ...         self.place(job, now)
        ...     def complete(self, job, now):
        ...         interval = self.release(job, now)
        ...         self.freed = self.freed + ([interval] if interval else [])
        ...     def schedule(self, now):
        ...         return self.start_due(now)
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
        ...         Job(id=3, submit=4.0, processors=1, runtime=1.0, estimate=1.0)]
        >>> simulate(Workload.from_jobs(jobs, machine_size=2), CompressAtArrivals(sjf)).start.tolist()
        [0.0, 4.0, 9.0]

    With a ``planning_window`` (and ``max_tested``), a job whose earliest fit lies beyond the window
    waits unreserved, outside the queue, until it comes within reach: see
    :mod:`backfill.schedulers._window`. A subclass that wants it calls :meth:`_out_of_reach` at
    submission and :meth:`_reserve_within_reach` after compressing, and names its arrival in
    :meth:`_arrive` (PC and DC do).

    With ``resources=[...]`` (:mod:`backfill.workloads.resources`) the profile is a
    :class:`~backfill.profile.multi.ResourceProfile` and every width an
    :class:`~backfill.workloads.amounts.Amounts`: a guarantee is the earliest time all of a job's
    amounts fit, a move goes to the earliest such time, and :attr:`free` is Amounts. The
    long-queue compression reads the processors' arrays, so with resources the plain loop runs
    (the papers say nothing of several resources; the promise is the same, per resource).

    Internals: planned starts live in ``_reserved`` (the guarantees), and in ``_by_start`` ordered by
    time so that due jobs start in O(log q). ``_freed`` is the log of freed intervals, of which the first
    ``_base`` have been dropped; ``_seen[id]`` is how much of the log a job has read, and
    ``_no_fit_before[id]`` and ``_no_fit_from[id]`` its search range (see
    :mod:`backfill.schedulers._long_queues`).
    """

    #: Compress with the long-queue machinery (True) or the plain loop of the papers (False): the
    #: same moves in the same order either way. A subclass may set it False to read or debug the
    #: plain path; the tests run both.
    accelerated: ClassVar[bool] = True

    # Its guarantees: note_reservation is refused (SchedulerBase._check_note).
    _plans_reservations: ClassVar[str] = "the guarantees, which only ever move earlier"

    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _by_start: SortedList = attrs.field(init=False, factory=SortedList)
    _entry: dict[int, Entry] = attrs.field(init=False, factory=dict)
    _freed: list[tuple[float, float]] = attrs.field(init=False, factory=list)
    _base: int = attrs.field(init=False, default=0)
    _seen: dict[int, int] = attrs.field(init=False, factory=dict)
    _no_fit_before: dict[int, float] = attrs.field(init=False, factory=dict)
    _no_fit_from: dict[int, float] = attrs.field(init=False, factory=dict)
    _moves: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self) -> None:
        self._check_window()

    @property
    def name(self) -> str:
        """Short readable name, e.g. ``PC(sjf)`` or ``DC(fcfs, planning_window=3600)``."""
        return f"{type(self).__name__}({', '.join([priority_name(self.priority), *self._extras()])})"

    def __repr__(self) -> str:
        shown = [f"priority={priority_name(self.priority)}", *self._extras()]
        return f"{type(self).__name__}({', '.join(shown)})"

    def _extras(self) -> list[str]:
        """The parameters a name shows after the priority (a subclass adds its own)."""
        return self._window_extras() + self._resource_extras()

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._reset_window()
        self._profile = self._new_profile(now)
        if self._capacity is not None:
            # With resources, what is free now is Amounts, as every running job's width.
            self._free = self._capacity  # type: ignore[assignment]
        self._by_start = SortedList()
        self._entry = {}
        self._freed = []
        self._base = 0
        self._seen = {}
        self._no_fit_before = {}
        self._no_fit_from = {}
        self._moves = 0

    # -- statistics ----------------------------------------------------------------------------------

    @property
    def events_examined(self) -> int:
        """Profile events (planned starts and ends) examined by searches since :meth:`reset`.

        This is the work measure of Lindsay et al. (2013, §4.3); see :attr:`Profile.examined`.
        """
        return self._profile.examined

    @property
    def moves(self) -> int:
        """Number of times a queued job moved earlier since :meth:`reset`."""
        return self._moves

    # -- what a subclass reads -------------------------------------------------------------------------

    def profile_copy(self) -> Profile:
        """Return a copy of the profile of guarantees: running jobs and reserved queued jobs. O(n).

        A copy, not the profile itself nor a read-only view: the scheduler's profile changes under
        every call, and a caller that searches or tries reservations on it (a what-if plan) must
        neither see that nor change the guarantees. The copy is a snapshot, O(n) for n steps; its
        searches are counted on it, not in :attr:`events_examined`.

        Examples:
            >>> from backfill import PC, Job
            >>> s = PC()
            >>> s.reset(4, now=0.0)
            >>> for i in (1, 2):
            ...     s.submit(Job(id=i, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
            >>> [j.id for j in s.schedule(0.0)], dict(s.reservations())
            ([1], {2: 5.0})
            >>> p = s.profile_copy()
            >>> p.free_at(0.0), p.free_at(5.0), p.earliest_fit(0.0, 2, 1.0)
            (1, 1, 10.0)
        """
        return self._profile.copy()

    # -- the steps a subclass is made of ------------------------------------------------------------

    def place(self, job: Job, now: float) -> None:
        """Queue a newly arrived job and give it its guarantee: its earliest fit now. O(log n + k + log q).

        Raises:
            ScheduleError: If the job does not pass the door (:mod:`backfill.schedulers.machinery.door`: its
                width, estimate, submit time, the time), or is already queued or running.
        """
        self._door_submit(job, now)
        if self._requests is not None:
            self._take_new(job, now)
        self._place(job, now, self._join_queue(job, now))

    def release(self, job: Job, now: float) -> tuple[float, float] | None:
        """Forget a finished job and free the rest of its reservation; return that interval, if any.

        Raises:
            ScheduleError: If the job was not running, or ended after its start + estimate.
        """
        return self._release(job, now)

    def compress(
        self, now: float, freed: Sequence[tuple[float, float]] | None = None, *, restart: bool = True
    ) -> bool:
        """Move queued jobs to earlier starts in priority order until none can move; return whether any did.

        ``freed`` lists the intervals :meth:`release` returned since the last compression: only jobs
        that can use them are tried at first (pass every such interval, or jobs that could use the
        left-out ones are taken to have been tried). ``None`` tries every queued job. With ``restart``
        the queue is tried from the head again after every move (PC); without it each job is tried
        once, in order.

        Raises:
            ScheduleError: If the time goes backwards or is not finite (the door's check of a decision).
        """
        self._door_time(now, "compress")
        return self._compress(now, list(self.ordered(now)), freed, restart=restart)

    # -- compression: the plain loop, and the seam to the long-queue one -----------------------------

    def _compress(
        self,
        now: float,
        entries: Sequence[Entry],
        freed: Sequence[tuple[float, float]] | None,
        *,
        restart: bool = True,
        cap: Callable[[], float] | None = None,
    ) -> bool:
        """Compress ``entries`` (queue order): :meth:`_compress_plain`, or the same moves found faster.

        ``freed`` (the intervals freed since the last compression, every queued job being at its
        earliest fit before them) lets the long-queue path try only the jobs that can use them; the
        plain loop tries every job and needs no such hint. ``cap`` is DC's: see
        :meth:`_compress_plain`.
        """
        # The long-queue path searches the processors' arrays alone: with resources PC's compression
        # skips the searches it can prove fail, and the other loops run plain.
        if self.accelerated:
            if self._requests is None:
                return self._compress_long_queue(now, entries, freed, restart=restart, cap=cap)
            if restart:
                return self._compress_vectors(now, entries, cap)
        return self._compress_plain(now, entries, restart=restart, cap=cap)

    def _compress_vectors(
        self, now: float, entries: Sequence[Entry], cap: Callable[[], float] | None = None
    ) -> bool:
        """PC's compression with resources: the moves of :meth:`_compress_plain`, with fewer searches.

        After a move the loop goes back to the head, and every job ahead of the one that moved has
        failed in the plan before the move, which differs from the new plan by that reservation
        alone: its vacated part ``[low, high)`` is the only place with more free. So a job ahead is
        searched again only if a start before its own reaches into that part (its reservation does
        not end by ``low``) and each resource's most free over the part covers its amount. Else it
        still fails: a window starting before its reservation and reaching into the part holds the
        part's first instant it reaches, and if that is before the job's own start some resource is
        short there; if the part begins at or after that start, the job's own reservation counts as
        free for it there in both plans, so the extra room changes nothing for it. At worst O(q)
        profile searches per move, as the plain loop; O(r (log n + k)) more per move for the most
        free.

        DC's ``cap`` depends on the plan alone, so it is asked once per plan (after each move), not
        once per job; a cap that grew lets the jobs ahead reach further, and they are all searched
        again.
        """
        jobs = [entry[2] for entry in entries]
        requests = self._requests
        assert requests is not None
        reserved = self._reserved
        profile = self._profile
        moved = False
        # Jobs before index ``known`` failed in the plan before the last move, which vacated
        # [low, ...) where ``most`` is free at most (nothing vacated: low is inf).
        known = 0
        low = math.inf
        most: Any = None
        bound = math.inf if cap is None else cap()
        i = 0
        while i < len(jobs):
            job = jobs[i]
            start = reserved[job.id]
            if start <= now:
                i += 1
                continue
            width, d = requests[job.id], job.estimate
            if i < known:
                end = start + d
                if end <= low or not width <= most:
                    i += 1
                    continue
            new = profile._earliest_move(now, width, d, start, start if start < bound else bound)
            if new is None:
                i += 1
                continue
            vacated = self._move(job, start, new)
            moved = True
            known = i
            if cap is not None:
                grown = cap()
                if grown > bound:
                    known = 0
                bound = grown
            if vacated is None:
                low = math.inf
            else:
                low = vacated[0]
                most = profile._max_free(*vacated)
            i = 0
        return moved

    def _compress_plain(
        self,
        now: float,
        entries: Sequence[Entry],
        *,
        restart: bool = True,
        cap: Callable[[], float] | None = None,
    ) -> bool:
        """PC's compression as the papers state it (Lindsay et al. 2013, §2.1): one search per job tried.

        Try the queued jobs in priority order and move the first that can start earlier to its
        earliest fit; then go back to the head of the queue (``restart``, PC) or on to the next job
        (``restart=False``: each job tried once); stop when no job can move. With ``cap`` (DC's
        arrivals) a job may only move to a start before ``cap()``, asked again for every job. Return
        whether any job moved. O(q) profile searches per move.

        With resources a job moves to the earliest start where every one of its amounts fits.
        """
        jobs = [entry[2] for entry in entries]
        requests = self._requests
        moved = False
        i = 0
        while i < len(jobs):
            job = jobs[i]
            start = self._reserved[job.id]
            limit = start if cap is None else min(start, cap())
            new = None
            if start > now:
                width = job.processors if requests is None else requests[job.id]
                new = self._profile._earliest_move(now, width, job.estimate, start, limit)
            if new is None:
                i += 1
                continue
            self._move(job, start, new)
            moved = True
            i = 0 if restart else i + 1
        return moved

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its planned end to end at ``end``; re-plan what it overlaps.

        The hook of :class:`~backfill.schedulers.prediction.planning.Replanning`: see
        :mod:`backfill.schedulers._replan` for which guarantees move and where. Moved jobs are
        logged, and the space they left is freed for the next compression (:meth:`_vacated`).
        O(log n + s) when the extra time fits, else O(k (log n + s + log q)) for k moved jobs.

        Raises:
            ScheduleError: If the job is not running or ``end`` is not after its planned end.
        """
        old = self._running.get(job.id)
        super().extend(job, end, now)  # raises if it is not running or not extended
        assert old is not None
        moved = replan(self._profile, self._by_start, max(old[0], now), end, old[2], now, self._requests)
        vacated = []
        for start, new, seq, other in moved:
            jid = other.id
            self._by_start.add((new, seq, other))
            self._reserved[jid] = new
            self._seen[jid] = self._base + len(self._freed)
            self._no_fit_before[jid] = new
            self._no_fit_from[jid] = -math.inf
            if new != start:
                self._changes.append((jid, new))
            if other.estimate > 0:
                self._freed.append((start, start + other.estimate))
                vacated.append((start, start + other.estimate))
        if vacated:
            self._vacated(vacated)

    def _vacated(self, intervals: list[tuple[float, float]]) -> None:
        """Learn that re-planning freed ``intervals``; a subclass compresses into them when it will."""

    def start_due(self, now: float) -> list[Job]:
        """Start every queued job whose guarantee has come, in planned-start order.

        Raises:
            ScheduleError: If the time goes backwards or is not finite (the door's check of a decision).
        """
        self._door_time(now, "start_due")
        return self._start_due(now)

    # -- the profile of guarantees -------------------------------------------------------------------

    def _take_new(self, job: Job, now: float) -> None:
        """With resources: refuse a job submitted twice, then keep its amounts, before anything changes."""
        jid = job.id
        if jid in self._queued or jid in self._running:
            raise self._submitted_twice(job, now)
        if jid in self._unreserved:
            raise ScheduleError(
                f"{self.name}: job {jid} submitted at {now:g} while already queued; "
                "a host submits each job once"
            )
        self._take_request(job)

    def _out_of_reach(self, profile: Profile, job: Job, now: float) -> bool:
        # A job already holding a guarantee, or running, is no new arrival, whatever its fit now.
        if job.id in self._queued or job.id in self._running:
            raise self._submitted_twice(job, now)
        return super()._out_of_reach(profile, job, now)

    def _join_queue(self, job: Job, now: float) -> Entry:
        """Queue a new job and return its entry (keyless for a time-dependent priority)."""
        entry = self._enqueue(job, now)
        return (None, self._seq, job) if entry is None else entry

    def _place(self, job: Job, now: float, entry: Entry) -> None:
        """Give a newly queued job its guarantee: the earliest fit in the current profile."""
        profile = self._profile
        requests = self._requests
        width = job.processors if requests is None else requests[job.id]
        start = profile._earliest_fit(now, width, job.estimate)
        profile._reserve(start, start + job.estimate, width)
        jid = job.id
        self._entry[jid] = entry
        self._by_start.add((start, entry[1], job))
        self._reserved[jid] = start
        self._seen[jid] = self._base + len(self._freed)
        self._no_fit_before[jid] = start
        self._no_fit_from[jid] = -math.inf
        self._changes.append((jid, start))

    def _move(self, job: Job, start: float, new: float) -> tuple[float, float] | None:
        """Move a queued job's reservation from ``start`` to the earlier ``new``.

        Return the part of the old reservation the new one does not cover (now free, and logged), or
        None if the two overlap entirely.
        """
        d = job.estimate
        requests = self._requests
        self._profile._move(start, new, d, job.processors if requests is None else requests[job.id])
        seq = self._entry[job.id][1]
        by_start = self._by_start
        by_start.remove((start, seq, job))
        by_start.add((new, seq, job))
        self._reserved[job.id] = new
        self._changes.append((job.id, new))
        self._moves += 1
        low = new + d if new + d > start else start
        if low < start + d:
            vacated = (low, start + d)
            self._freed.append(vacated)
            return vacated
        return None

    def _release(self, job: Job, now: float) -> tuple[float, float] | None:
        """Forget a finished job; free and log the rest of its reservation, which is returned if any."""
        end, _, procs = self._finish(job, now)
        if self._requests is not None:
            self._drop_request(job)
        if now < end:
            self._profile._release(now, end, procs)
            self._freed.append((now, end))
            return now, end
        return None

    def _start_due(self, now: float) -> list[Job]:
        """Start every queued job whose planned start has come, in planned-start order."""
        self._profile._advance(now)
        by_start = self._by_start
        started: list[Job] = []
        if not by_start or by_start[0][0] > now:
            return started
        taken = []
        requests = self._requests
        reserved, entry_of, seen, no_fit_before, no_fit_from = (
            self._reserved,
            self._entry,
            self._seen,
            self._no_fit_before,
            self._no_fit_from,
        )
        while by_start and by_start[0][0] <= now:
            _, seq, job = by_start.pop(0)
            jid = job.id
            taken.append(entry_of.pop(jid))
            del reserved[jid], seen[jid], no_fit_before[jid], no_fit_from[jid]
            if requests is None:
                self._start(job, now, seq)
            else:
                # The job holds its amounts while it runs (QueueScheduler's record holds processors).
                width = requests[jid]
                self._running[jid] = (now + job.estimate, seq, width)
                if self.nodes is None:
                    self._free -= width
            started.append(job)
        self._dequeue(taken, now)
        if len(self._freed) > 2 * len(seen) + TRIM:
            self._trim()
        return started

    def next_wakeup(self) -> float | None:
        """The earliest planned start: a job must start then even if nothing else happens. O(1).

        With a planning window, also the time an unreserved job comes within reach, if earlier.
        """
        wake = self._by_start[0][0] if self._by_start else None
        if self._unreserved and (reach := self._window_wakeup(self._now)) is not None:
            return reach if wake is None else min(wake, reach)
        return wake

    def queued(self) -> int:
        """Number of queued jobs, reserved or not (a planning window leaves some unreserved). O(1)."""
        return len(self._queued) + len(self._unreserved)

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._profile = self._profile.copy()
        other._by_start = self._by_start.copy()
        other._entry = self._entry.copy()
        other._freed = self._freed.copy()
        other._seen = self._seen.copy()
        other._no_fit_before = self._no_fit_before.copy()
        other._no_fit_from = self._no_fit_from.copy()
        self._copy_window(other)
