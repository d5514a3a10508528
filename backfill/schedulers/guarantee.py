"""Shared machinery of PC and DC: a profile of guarantees plus a priority-ordered compression queue.

Both algorithms (Lindsay et al. 2013, §2) keep every queued job's planned start in a
:class:`~backfill.profile.Profile` and only ever move a job earlier. What makes them fast enough for
real traces is knowing which jobs *cannot* move without searching the profile for them:

* Space in the profile is only ever freed in two ways: a job ending before its estimate frees the rest
  of its reservation, and a job moved earlier vacates the part of its old reservation the new one does
  not cover. Every such interval is appended to one log.
* Each queued job remembers where it cannot start: nowhere in ``[now, low)`` nor in ``[high, start)``
  (its planned start), in the profile as it was when it last read the log. Taking space (arrivals,
  moves into free space) never invalidates that. A freed interval ``[a, b)`` can only help a window
  ``[s, min(s + d, start))`` that overlaps it, so ``a - d < s < b``: reading it lowers ``low`` to
  ``a - d`` and raises ``high`` to ``b`` at most, and the search covers ``[low, high)`` only. A job
  whose two ranges meet is skipped without a search.
* On a long queue most candidates cannot use freed space at all, and
  :meth:`~backfill.profile.Profile.earliest_moves` rules them out with one pass over the profile per
  distinct width, where a search each would scan the profile thousands of times.

The shortcuts never change a decision: the tests compare PC and DC with naive implementations that
remove and re-insert every job they try.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
from sortedcontainers import SortedList

from backfill.profile import Profile
from backfill.schedulers.queue import Entry, QueueScheduler
from backfill.workloads.workload import Job

__all__ = ["GuaranteeScheduler"]

#: Trim the freed-interval log once it is this much longer than needed.
_TRIM = 512
#: Narrow a vacated interval down to the jobs it can help only when more than this many might be.
_NARROW = 64
#: Rule jobs out with :meth:`Profile.earliest_moves` only when there are more than this many per
#: distinct width: its pass over the steps for one width costs about as much as that many searches
#: that find nothing (measured on CTC-SP2 and RICC-2010-2).
_PER_WIDTH = 16


def _worth_a_pass(widths: npt.NDArray[np.int64]) -> bool:
    """Whether one pass over the profile per distinct width costs less than a search per job."""
    return widths.size > _NARROW and widths.size > _PER_WIDTH * np.unique(widths).size


_NONE = np.empty(0)


@attrs.define(eq=False)
class _Loop:
    """One compression loop's jobs, by queue position: what :meth:`GuaranteeScheduler._fold` reads.

    Where a vacated interval can help many jobs, what it teaches them goes to ``lows`` and
    ``highs`` (least ``low`` and greatest ``high``, and ``taught`` is set) rather than to each one's
    knowledge. Each of them is a candidate, so its search takes that in before the loop ends.
    """

    jobs: list[Job]
    starts: npt.NDArray[np.float64]
    widths: npt.NDArray[np.int64]
    estimates: npt.NDArray[np.float64]
    queued: bytearray
    heap: list[int]
    lows: npt.NDArray[np.float64] = attrs.field(init=False, default=_NONE)
    highs: npt.NDArray[np.float64] = attrs.field(init=False, default=_NONE)
    taught: bytearray = attrs.field(init=False)
    _shapes: tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]] | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.taught = bytearray(len(self.starts))

    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``lows`` and ``highs``, made at the first long fold (most loops have none)."""
        if self.lows is _NONE:
            self.lows = np.full(len(self.starts), math.inf)
            self.highs = np.full(len(self.starts), -math.inf)
        return self.lows, self.highs

    def shapes(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
        """The distinct widths, ascending, and which of them each job's is (found when first asked).

        A long queue has thousands of jobs but a handful of widths, and the profile is asked about
        each width once per vacated interval.
        """
        if self._shapes is None:
            self._shapes = np.unique(self.widths, return_inverse=True)
        return self._shapes


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class GuaranteeScheduler(QueueScheduler):
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
    *which* jobs are compressed, never the promise. ``examples/subclass_schedulers.py`` compresses
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

    Internals: planned starts live in ``_reserved`` (the guarantees), and in ``_by_start`` ordered by
    time so that due jobs start in O(log q). ``_freed`` is the log of freed intervals, of which the first
    ``_base`` have been dropped; ``_seen[id]`` is how much of the log a job has read, and ``_bound[id]``
    and ``_high[id]`` its ``low`` and ``high`` (see the module docstring).
    """

    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _by_start: SortedList = attrs.field(init=False, factory=SortedList)
    _entry: dict[int, Entry] = attrs.field(init=False, factory=dict)
    _freed: list[tuple[float, float]] = attrs.field(init=False, factory=list)
    _base: int = attrs.field(init=False, default=0)
    _seen: dict[int, int] = attrs.field(init=False, factory=dict)
    _bound: dict[int, float] = attrs.field(init=False, factory=dict)
    _high: dict[int, float] = attrs.field(init=False, factory=dict)
    _moves: int = attrs.field(init=False, default=0)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._profile = Profile(machine_size, origin=now)
        self._by_start = SortedList()
        self._entry = {}
        self._freed = []
        self._base = 0
        self._seen = {}
        self._bound = {}
        self._high = {}
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

    # -- the steps a subclass is made of ------------------------------------------------------------

    def place(self, job: Job, now: float) -> None:
        """Queue a newly arrived job and give it its guarantee: its earliest fit now. O(log n + k + log q)."""
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
        """
        return self._compress(now, list(self._ordered(now)), freed, restart=restart)

    def start_due(self, now: float) -> list[Job]:
        """Start every queued job whose guarantee has come, in planned-start order."""
        return self._start_due(now)

    # -- the profile of guarantees -------------------------------------------------------------------

    def _join_queue(self, job: Job, now: float) -> Entry:
        """Queue a new job and return its entry (keyless for a time-dependent priority)."""
        entry = self._enqueue(job, now)
        return (None, self._seq, job) if entry is None else entry

    def _place(self, job: Job, now: float, entry: Entry) -> None:
        """Give a newly queued job its guarantee: the earliest fit in the current profile."""
        profile = self._profile
        start = profile.earliest_fit(now, job.processors, job.estimate)
        profile.reserve(start, start + job.estimate, job.processors)
        jid = job.id
        self._entry[jid] = entry
        self._by_start.add((start, entry[1], job))
        self._reserved[jid] = start
        self._seen[jid] = self._base + len(self._freed)
        self._bound[jid] = start
        self._high[jid] = -math.inf
        self._changes.append((jid, start))

    def _move(self, job: Job, start: float, new: float) -> tuple[float, float] | None:
        """Move a queued job's reservation from ``start`` to the earlier ``new``.

        Return the part of the old reservation the new one does not cover (now free, and logged), or
        None if the two overlap entirely.
        """
        d = job.estimate
        self._profile.move(start, new, d, job.processors)
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
        if now < end:
            self._profile.release(now, end, procs)
            self._freed.append((now, end))
            return now, end
        return None

    def _read_log(
        self, jid: int, estimate: float, start: float, now: float, top: int | None = None
    ) -> tuple[float, float]:
        """Fold the intervals a job has not read into its knowledge; return its ``(low, high)``.

        The job fits nowhere in ``[now, low)`` nor in ``[high, start)`` in the profile as it is. An
        interval ``[a, b)`` freed since it last read the log can only help a start ``s`` whose window
        ``[s, min(s + estimate, start))`` overlaps it: ``a - estimate < s < b``, with ``a < start``.
        With ``top``, only the log up to that position is read (a caller that has told the job of the
        later intervals itself).
        """
        low = self._bound[jid]
        high = self._high[jid]
        seen = self._seen[jid]
        if top is None:
            top = self._base + len(self._freed)
        if seen < top:
            for a, b in self._freed[seen - self._base : top - self._base]:
                if b > now and a < start:
                    if a - estimate < low:
                        low = a - estimate
                    if b > high:
                        high = b
            self._seen[jid] = top
        return low, high

    def _learn(self, jid: int, start: float, low: float, high: float) -> None:
        """Record that a job fits nowhere in ``[now, low)`` nor in ``[high, start)``."""
        if low >= high:
            low, high = start, -math.inf  # nowhere before its planned start at all
        self._bound[jid] = low
        self._high[jid] = high

    def _search(
        self,
        now: float,
        job: Job,
        start: float,
        limit: float,
        known: tuple[float, float] | None = None,
    ) -> float | None:
        """Return the earliest start before ``limit`` (at most ``start``) where the job fits, or None.

        Searches the profile only where the job's knowledge leaves a start possible, and updates that
        knowledge either way. ``known`` is the job's ``(low, high)`` if the caller has brought it up
        to date; otherwise the job reads the log.
        """
        low, high = self._read_log(job.id, job.estimate, start, now) if known is None else known
        jid = job.id
        origin = low if low > now else now
        end = high if high < limit else limit
        if origin < end:
            new = self._profile.earliest_move(origin, job.processors, job.estimate, start, end)
            if new is not None:
                self._bound[jid] = new
                self._high[jid] = -math.inf
                return new
            origin = end  # it fits nowhere in [now, end) either
        self._learn(jid, start, origin, high)
        return None

    def _trim(self) -> None:
        """Drop the part of the freed-interval log that every queued job has already read.

        A job that has not looked for long (DC skips jobs too wide to start now) would hold the whole
        log back, so stale jobs fold the log into their knowledge first. O(q + log length), amortised
        O(1) per logged interval.
        """
        top = self._base + len(self._freed)
        now = self._profile.origin
        reserved = self._reserved
        entry = self._entry
        for jid, mark in self._seen.items():
            if mark < top:
                start = reserved[jid]
                low, high = self._read_log(jid, entry[jid][2].estimate, start, now)
                self._learn(jid, start, low, high)
        self._freed = []
        self._base = top

    # -- compression loops ---------------------------------------------------------------------------

    def _compress(
        self,
        now: float,
        entries: Sequence[Entry],
        freed: Sequence[tuple[float, float]] | None,
        *,
        restart: bool = True,
        cap: Callable[[], float] | None = None,
    ) -> bool:
        """PC's compression: move the highest-priority job that can start earlier, until none can.

        That is the papers' loop (try jobs in priority order, back to the head after every move) without
        re-walking the queue: after a move only jobs that can use the space it vacated, those planned
        after its start and no wider than the most processors free in it, become candidates again, and
        candidates are tried in priority order from a heap. With ``restart=False`` every job is tried
        once, in order. ``freed`` holds the intervals freed since the last compression; every queued
        job must already be ruled out for all earlier ones. With ``freed=None`` every job is a
        candidate at first. Return whether any job moved.

        ``cap`` (DC's arrivals) bounds every move: a job may only move to a start before ``cap()``,
        which is asked again after each move. When it grows, the jobs a smaller cap kept from a search
        of the profile beyond it become candidates again, if the new stretch has room for them.
        """
        reserved = self._reserved
        search = self._search
        jobs = [e[2] for e in entries]
        n = len(jobs)
        if not restart:
            moved = False
            for job in jobs:
                start = reserved[job.id]
                if start > now and (new := search(now, job, start, start)) is not None:
                    self._move(job, start, new)
                    moved = True
            return moved
        starts = np.fromiter((reserved[job.id] for job in jobs), dtype=np.float64, count=n)
        widths = np.fromiter((job.processors for job in jobs), dtype=np.int64, count=n)
        estimates = np.fromiter((job.estimate for job in jobs), dtype=np.float64, count=n)
        profile = self._profile
        if freed is None:
            mask = starts > now
        else:
            # Candidates: jobs that can use space freed since the last compression (early completions).
            mask = np.zeros(n, dtype=bool)
            for a, b in freed:
                if b > now:
                    mask |= (starts > a) & (widths <= profile.max_free(a if a > now else now, b))
            mask &= starts > now
        first = np.flatnonzero(mask)
        if _worth_a_pass(widths[first]):
            # On a long queue most candidates cannot use the space at all, each for want of a window
            # somewhere: one pass over the profile per distinct width rules them out (it asks whether a
            # job can move at all, cap or not, so it only drops jobs no search would move).
            can = profile.earliest_moves(now, widths[first], estimates[first], starts[first])
            first = first[can < starts[first]]
        heap = first.tolist()  # ascending, hence already a heap
        queued = bytearray(n)
        for i in heap:
            queued[i] = 1
        loop = _Loop(jobs, starts, widths, estimates, queued, heap)
        cut = bytearray(n)  # left with a search not done past the cap
        limit = cap() if cap is not None else math.inf
        # The intervals this loop vacates are not read from the log job by job (that was most of the
        # time on long queues): each is folded at once into the knowledge of the jobs that can use
        # it, which are the jobs it makes candidates. A job that cannot use an interval, too wide
        # for the most processors free anywhere in it, gains no start from it, so its knowledge
        # holds without it. A job still reads the log up to ``top`` (what was freed before this loop)
        # on its first search here.
        top = self._base + len(self._freed)
        read = bytearray(n)
        bound = self._bound
        high = self._high
        taught = loop.taught
        read_log = self._read_log
        moved = False
        while heap:
            i = heapq.heappop(heap)
            queued[i] = 0
            job = jobs[i]
            jid = job.id
            start = reserved[jid]
            until = start if start < limit else limit
            if read[i]:
                low, hi = bound[jid], high[jid]
            else:
                read[i] = 1
                low, hi = read_log(jid, job.estimate, start, now, top)
            if taught[i]:
                # And what the long folds since its last search here taught it.
                taught[i] = 0
                lows, highs = loop.lows, loop.highs
                folded = lows.item(i)
                if folded < low:
                    low = folded
                folded = highs.item(i)
                if folded > hi:
                    hi = folded
                lows[i] = math.inf
                highs[i] = -math.inf
            new = search(now, job, start, until, (low, hi))
            if new is None:
                if until < start and bound[jid] < high[jid]:
                    cut[i] = 1
                continue
            vacated = self._move(job, start, new)
            moved = True
            starts[i] = new
            if cap is not None:
                was, limit = limit, cap()
                if limit > was:
                    # The flags are bytearrays, for one-at-a-time reads in the loop; numpy views of
                    # them for this whole-queue test.
                    flags = np.frombuffer(cut, dtype=np.uint8) > np.frombuffer(queued, dtype=np.uint8)
                    more = np.flatnonzero(flags & (widths <= profile.max_free(was, limit)))
                    for k in more.tolist():
                        cut[k] = 0
                        queued[k] = 1
                        heapq.heappush(heap, k)
            if vacated is not None:
                self._fold(now, vacated, loop)
        # A job a fold teaches is a candidate, searched (and so taught) before the loop ends.
        assert 1 not in taught
        # Every job not searched was ruled out for every interval logged so far.
        top = self._base + len(self._freed)
        seen = self._seen
        for job in jobs:
            seen[job.id] = top
        return moved

    def _fold(self, now: float, vacated: tuple[float, float], loop: _Loop) -> None:
        """Tell the jobs that can use a vacated interval of it, and make them candidates."""
        a, b = vacated
        profile = self._profile
        starts, widths, estimates = loop.starts, loop.widths, loop.estimates
        most = profile.max_free(a, b)
        more = np.flatnonzero((starts > a) & (widths <= most))
        if not more.size:
            return
        if more.size <= _NARROW:
            # Few jobs: searching each costs less than narrowing.
            few = more.tolist()
            jobs = loop.jobs
            self._teach(loop, few, [a - jobs[k].estimate for k in few], b)
            return
        # A start that gains from [a, b) has its window reach a. So it is no earlier than the
        # job's estimate before a, nor than the last step before a too full for the job, which
        # the window would cross. If the job has room all through [a, b), its earliest such
        # start is the best, and if that window runs into a step without room (before the
        # job's own start), [a, b) is of no use to it at all. The profile answers per distinct
        # width: a long queue has thousands of jobs but a handful of widths.
        kinds, kind = loop.shapes()
        fitting = kinds[: int(np.searchsorted(kinds, most, side="right"))]
        which = kind[more]
        earliest = a - estimates[more]
        since = float(earliest.min())
        since = now if now > since else since
        earliest = np.maximum(earliest, profile.free_run_start(a, fitting, since)[which])
        needs = np.minimum(earliest + estimates[more], starts[more])
        ends = profile.free_run_end(a, fitting, float(needs.max()))[which]
        useful = (ends >= needs) | (ends < b)
        # Where the room runs out inside [a, b), a later start in it may still work: a pass over
        # the profile tells, with the job's earliest start, if there are enough such jobs.
        dips = np.flatnonzero(useful & (ends < needs))
        if _worth_a_pass(widths[more[dips]]):
            dip = more[dips]
            can = profile.earliest_moves(now, widths[dip], estimates[dip], starts[dip])
            useful[dips] = can < starts[dip]
            earliest[dips] = can
        ks, earliest = more[useful], earliest[useful]
        if ks.size <= _NARROW:
            self._teach(loop, ks.tolist(), earliest.tolist(), b)
            return
        # Thousands of jobs on a long queue: one numpy step for them all, where a dict update each
        # was most of the time of RICC-2010-2's 19,000-job queue. Their searches take it in.
        lows, highs = loop.arrays()
        lows[ks] = np.minimum(lows[ks], earliest)
        highs[ks] = np.maximum(highs[ks], b)
        np.frombuffer(loop.taught, dtype=np.uint8)[ks] = 1
        flags = np.frombuffer(loop.queued, dtype=np.uint8)
        fresh = ks[flags[ks] == 0]
        flags[fresh] = 1
        heap = loop.heap
        for k in fresh.tolist():
            heapq.heappush(heap, k)

    def _teach(self, loop: _Loop, ks: list[int], lows: list[float], b: float) -> None:
        """Fold ``[low, b)`` into the knowledge of each job ``ks`` (a few), and make it a candidate.

        For a handful of jobs a dict update each costs less than the numpy steps of a long fold.
        """
        jobs, queued, heap = loop.jobs, loop.queued, loop.heap
        bound = self._bound
        high = self._high
        for k, low in zip(ks, lows, strict=True):
            kid = jobs[k].id
            if low < bound[kid]:
                bound[kid] = low
            if b > high[kid]:
                high[kid] = b
            if not queued[k]:
                queued[k] = 1
                heapq.heappush(heap, k)

    def _start_due(self, now: float) -> list[Job]:
        """Start every queued job whose planned start has come, in planned-start order."""
        self._now = now
        self._profile.advance(now)
        by_start = self._by_start
        started: list[Job] = []
        if not by_start or by_start[0][0] > now:
            return started
        taken = []
        reserved, entry_of, seen, bound, high = (
            self._reserved,
            self._entry,
            self._seen,
            self._bound,
            self._high,
        )
        while by_start and by_start[0][0] <= now:
            _, seq, job = by_start.pop(0)
            jid = job.id
            taken.append(entry_of.pop(jid))
            del reserved[jid], seen[jid], bound[jid], high[jid]
            self._start(job, now, seq)
            started.append(job)
        self._dequeue(taken, now)
        if len(self._freed) > 2 * len(seen) + _TRIM:
            self._trim()
        return started

    def next_wakeup(self) -> float | None:
        """The earliest planned start: a job must start then even if nothing else happens. O(1)."""
        return self._by_start[0][0] if self._by_start else None

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._profile = self._profile.copy()
        other._by_start = self._by_start.copy()
        other._entry = self._entry.copy()
        other._freed = self._freed.copy()
        other._seen = self._seen.copy()
        other._bound = self._bound.copy()
        other._high = self._high.copy()
