"""PC's and DC's compression made fast for long queues: the same moves as the plain loop, fewer searches.

:meth:`~backfill.schedulers.machinery.guarantee.GuaranteeScheduler._compress_plain` is the papers' loop: try
the queued jobs in priority order, move the first that can start earlier, back to the head, until
none can. On a queue of thousands of jobs that is thousands of profile searches per move. This module
makes the same moves in the same order knowing which jobs *cannot* move without searching for them:

* Space in the profile is only ever freed in two ways: a job ending before its estimate frees the rest
  of its reservation, and a job moved earlier vacates the part of its old reservation the new one does
  not cover. Every such interval is appended to one log.
* Each queued job has a search range: it fits nowhere in ``[now, low)`` (``_no_fit_before``) nor in
  ``[high, start)`` (``_no_fit_from``, with ``start`` its planned start), in the profile as it was
  when it last read the log. Taking space (arrivals, moves into free space) never invalidates that. A
  freed interval ``[a, b)`` can only help a window ``[s, min(s + d, start))`` that overlaps it, so
  ``a - d < s < b``: reading it lowers ``low`` to ``a - d`` and raises ``high`` to ``b`` at most,
  and the search covers ``[low, high)`` only. A job whose range is empty is skipped without a search.
* After a move only the jobs that can use the space it vacated become candidates again, and they are
  tried in priority order from a heap, so the queue is not walked from its head after every move.
* On a long queue most candidates cannot use freed space at all, and
  :meth:`~backfill.profile.Profile.earliest_moves` rules them out with one pass over the profile per
  distinct width, where a search each would scan the profile thousands of times.

``tests/test_compression_paths.py`` runs PC and DC both ways (with :data:`NARROW` and
:data:`PER_WIDTH` lowered so that small queues take the numpy paths too) and requires the same
starts and the same reservation log; ``tests/test_pc_dc.py`` also compares them with naive
implementations that remove and re-insert every job they try.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt
from sortedcontainers import SortedList

import backfill.kernel as kernel
from backfill.profile import Profile
from backfill.schedulers.machinery.queue import Entry
from backfill.workloads.workload import Job

__all__ = ["NARROW", "PER_WIDTH", "TRIM", "LongQueueCompression", "LongQueueConservative", "worth_a_pass"]

#: Trim the freed-interval log once it is this much longer than needed.
TRIM = 512
#: Narrow a vacated interval down to the jobs it can help only when more than this many might be.
NARROW = 64
#: Rule jobs out with :meth:`Profile.earliest_moves` only when there are more than this many per
#: distinct width: its pass over the steps for one width costs about as much as that many searches
#: that find nothing (measured on long archive queues).
PER_WIDTH = 16


def worth_a_pass(widths: npt.NDArray[np.int64]) -> bool:
    """Whether one pass over the profile per distinct width costs less than a search per job."""
    return widths.size > NARROW and widths.size > PER_WIDTH * np.unique(widths).size


_NONE = np.empty(0)


@attrs.define(eq=False)
class _Candidates:
    """One compression loop's jobs, by queue position: what ``_spread_vacated`` reads.

    Where a vacated interval can help many jobs, the search ranges it widens go to ``lows`` and
    ``highs`` (least ``low`` and greatest ``high``, and ``widened`` is set) rather than to each
    job's own. Each of them is a candidate, so its search takes that in before the loop ends.
    """

    jobs: list[Job]
    starts: npt.NDArray[np.float64]
    widths: npt.NDArray[np.int64]
    estimates: npt.NDArray[np.float64]
    queued: bytearray
    heap: list[int]
    lows: npt.NDArray[np.float64] = attrs.field(init=False, default=_NONE)
    highs: npt.NDArray[np.float64] = attrs.field(init=False, default=_NONE)
    widened: bytearray = attrs.field(init=False)
    _shapes: tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]] | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.widened = bytearray(len(self.starts))

    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``lows`` and ``highs``, made at the first long spread (most loops have none)."""
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


class LongQueueCompression:
    """PC's and DC's compression made fast for long queues; mixed into :class:`GuaranteeScheduler`.

    It computes what :meth:`GuaranteeScheduler._compress_plain` computes, with the same moves in the
    same order (tests/test_compression_paths.py compares the two on random and long queues), by
    knowing which jobs *cannot* move without searching the profile for them (see the module
    docstring). Its state lives in the scheduler: ``_freed`` and ``_base`` (the log of freed
    intervals), and per queued job ``_seen`` (how much of the log it has read), ``_no_fit_before``
    and ``_no_fit_from`` (its search range).
    """

    _profile: Profile
    _reserved: dict[int, float]
    _freed: list[tuple[float, float]]
    _base: int
    _seen: dict[int, int]
    _no_fit_before: dict[int, float]
    _no_fit_from: dict[int, float]
    _entry: dict[int, Entry]

    if TYPE_CHECKING:  # the scheduler's own, which this mixin calls

        def _move(self, job: Job, start: float, new: float) -> tuple[float, float] | None: ...

        def _ordered(self, now: float) -> Sequence[Entry]: ...

    def _search_range(
        self, jid: int, estimate: float, start: float, now: float, top: int | None = None
    ) -> tuple[float, float]:
        """Widen a job's search range by the intervals freed since it last looked; return ``(low, high)``.

        The job fits nowhere in ``[now, low)`` nor in ``[high, start)`` in the profile as it is. An
        interval ``[a, b)`` freed since it last read the log can only help a start ``s`` whose window
        ``[s, min(s + estimate, start))`` overlaps it: ``a - estimate < s < b``, with ``a < start``.
        With ``top``, only the log up to that position is read (a caller that has told the job of the
        later intervals itself).
        """
        low = self._no_fit_before[jid]
        high = self._no_fit_from[jid]
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

    def _record_no_fit(self, jid: int, start: float, low: float, high: float) -> None:
        """Record that a job fits nowhere in ``[now, low)`` nor in ``[high, start)``."""
        if low >= high:
            low, high = start, -math.inf  # nowhere before its planned start at all
        self._no_fit_before[jid] = low
        self._no_fit_from[jid] = high

    def _search_range_then_profile(
        self,
        now: float,
        job: Job,
        start: float,
        limit: float,
        known: tuple[float, float] | None = None,
    ) -> float | None:
        """Return the earliest start before ``limit`` (at most ``start``) where the job fits, or None.

        Searches the profile only where the job's search range leaves a start possible, and updates
        that range either way. ``known`` is the job's ``(low, high)`` if the caller has brought it up
        to date; otherwise the job reads the log.
        """
        low, high = self._search_range(job.id, job.estimate, start, now) if known is None else known
        jid = job.id
        origin = low if low > now else now
        end = high if high < limit else limit
        if origin < end:
            new = self._profile._earliest_move(origin, job.processors, job.estimate, start, end)
            if new is not None:
                self._no_fit_before[jid] = new
                self._no_fit_from[jid] = -math.inf
                return new
            origin = end  # it fits nowhere in [now, end) either
        self._record_no_fit(jid, start, origin, high)
        return None

    def _trim(self) -> None:
        """Drop the part of the freed-interval log that every queued job has already read.

        A job that has not looked for long (DC skips jobs too wide to start now) would hold the whole
        log back, so stale jobs widen their ranges by the log first. O(q + log length), amortised
        O(1) per logged interval. Where the compiled kernel is in use, its port of this method runs
        instead.
        """
        if (compiled := kernel.KERNEL) is not None:
            compiled.trim(self)
            return
        top = self._base + len(self._freed)
        now = self._profile.origin
        reserved = self._reserved
        entry = self._entry
        for jid, mark in self._seen.items():
            if mark < top:
                start = reserved[jid]
                low, high = self._search_range(jid, entry[jid][2].estimate, start, now)
                self._record_no_fit(jid, start, low, high)
        self._freed = []
        self._base = top

    # -- compression loops (kept one loop each: the hot path, exempt from the size of a function) -----

    def _compress_long_queue(
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
        search = self._search_range_then_profile
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
        compiled = kernel.KERNEL
        if compiled is not None:
            starts, widths, estimates = compiled.queue_arrays(jobs, reserved)
        else:
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
                    mask |= (starts > a) & (widths <= profile._max_free(a if a > now else now, b))
            mask &= starts > now
        first = np.flatnonzero(mask)
        if worth_a_pass(widths[first]):
            # On a long queue most candidates cannot use the space at all, each for want of a window
            # somewhere: one pass over the profile per distinct width rules them out (it asks whether a
            # job can move at all, cap or not, so it only drops jobs no search would move).
            can = profile._earliest_moves(now, widths[first], estimates[first], starts[first])
            first = first[can < starts[first]]
        heap = first.tolist()  # ascending, hence already a heap
        queued = bytearray(n)
        for i in heap:
            queued[i] = 1
        loop = _Candidates(jobs, starts, widths, estimates, queued, heap)
        cut = bytearray(n)  # left with a search not done past the cap
        # The intervals this loop vacates are not read from the log job by job (that was most of the
        # time on long queues): each widens at once the search ranges of the jobs that can use
        # it, which are the jobs it makes candidates. A job that cannot use an interval, too wide
        # for the most processors free anywhere in it, gains no start from it, so its range
        # holds without it. A job still reads the log up to ``top`` (what was freed before this loop)
        # on its first search here.
        top = self._base + len(self._freed)
        if compiled is not None:
            moved = compiled.guarantee_loop(self, now, loop, cut, top, cap, NARROW, PER_WIDTH)
        else:
            moved = self._candidate_loop(now, loop, cut, top, cap)
        # A job whose range a spread widens is a candidate, searched before the loop ends.
        assert 1 not in loop.widened
        # Every job not searched was ruled out for every interval logged so far.
        top = self._base + len(self._freed)
        if compiled is not None:
            compiled.mark_seen(jobs, self._seen, top)
        else:
            seen = self._seen
            for job in jobs:
                seen[job.id] = top
        return moved

    def _candidate_loop(
        self, now: float, loop: _Candidates, cut: bytearray, top: int, cap: Callable[[], float] | None
    ) -> bool:
        """The loop of :meth:`_compress_long_queue`: search candidates in priority order until none is left.

        Where the compiled kernel is in use, its port of this method runs instead.
        """
        jobs, starts, widths, queued, heap = loop.jobs, loop.starts, loop.widths, loop.queued, loop.heap
        n = len(jobs)
        reserved = self._reserved
        profile = self._profile
        search = self._search_range_then_profile
        limit = cap() if cap is not None else math.inf
        read = bytearray(n)
        no_fit_before = self._no_fit_before
        no_fit_from = self._no_fit_from
        widened = loop.widened
        search_range = self._search_range
        moved = False
        while heap:
            i = heapq.heappop(heap)
            queued[i] = 0
            job = jobs[i]
            jid = job.id
            start = reserved[jid]
            until = start if start < limit else limit
            if read[i]:
                low, hi = no_fit_before[jid], no_fit_from[jid]
            else:
                read[i] = 1
                low, hi = search_range(jid, job.estimate, start, now, top)
            if widened[i]:
                # And what long spreads since its last search here widened it to.
                widened[i] = 0
                lows, highs = loop.lows, loop.highs
                spread = lows.item(i)
                if spread < low:
                    low = spread
                spread = highs.item(i)
                if spread > hi:
                    hi = spread
                lows[i] = math.inf
                highs[i] = -math.inf
            new = search(now, job, start, until, (low, hi))
            if new is None:
                if until < start and no_fit_before[jid] < no_fit_from[jid]:
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
                    more = np.flatnonzero(flags & (widths <= profile._max_free(was, limit)))
                    for k in more.tolist():
                        cut[k] = 0
                        queued[k] = 1
                        heapq.heappush(heap, k)
            if vacated is not None:
                self._spread_vacated(now, vacated, loop)
        return moved

    def _spread_vacated(self, now: float, vacated: tuple[float, float], loop: _Candidates) -> None:
        """Tell the jobs that can use a vacated interval of it, and make them candidates."""
        a, b = vacated
        profile = self._profile
        starts, widths, estimates = loop.starts, loop.widths, loop.estimates
        most = profile._max_free(a, b)
        more = np.flatnonzero((starts > a) & (widths <= most))
        if not more.size:
            return
        if more.size <= NARROW:
            # Few jobs: searching each costs less than narrowing.
            few = more.tolist()
            jobs = loop.jobs
            self._widen_ranges(loop, few, [a - jobs[k].estimate for k in few], b)
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
        earliest = np.maximum(earliest, profile._free_run_start(a, fitting, since)[which])
        needs = np.minimum(earliest + estimates[more], starts[more])
        ends = profile._free_run_end(a, fitting, float(needs.max()))[which]
        useful = (ends >= needs) | (ends < b)
        # Where the room runs out inside [a, b), a later start in it may still work: a pass over
        # the profile tells, with the job's earliest start, if there are enough such jobs.
        dips = np.flatnonzero(useful & (ends < needs))
        if worth_a_pass(widths[more[dips]]):
            dip = more[dips]
            can = profile._earliest_moves(now, widths[dip], estimates[dip], starts[dip])
            useful[dips] = can < starts[dip]
            earliest[dips] = can
        ks, earliest = more[useful], earliest[useful]
        if ks.size <= NARROW:
            self._widen_ranges(loop, ks.tolist(), earliest.tolist(), b)
            return
        # Thousands of jobs on a long queue: one numpy step for them all, where a dict update each
        # was most of the time on queues of tens of thousands of jobs. Their searches take it in.
        lows, highs = loop.arrays()
        lows[ks] = np.minimum(lows[ks], earliest)
        highs[ks] = np.maximum(highs[ks], b)
        np.frombuffer(loop.widened, dtype=np.uint8)[ks] = 1
        flags = np.frombuffer(loop.queued, dtype=np.uint8)
        fresh = ks[flags[ks] == 0]
        flags[fresh] = 1
        heap = loop.heap
        for k in fresh.tolist():
            heapq.heappush(heap, k)

    def _widen_ranges(self, loop: _Candidates, ks: list[int], lows: list[float], b: float) -> None:
        """Widen the search range of each job ``ks`` (a few) by ``[low, b)``, and make it a candidate.

        For a handful of jobs a dict update each costs less than the numpy steps of a long spread.
        """
        jobs, queued, heap = loop.jobs, loop.queued, loop.heap
        no_fit_before = self._no_fit_before
        no_fit_from = self._no_fit_from
        for k, low in zip(ks, lows, strict=True):
            kid = jobs[k].id
            if low < no_fit_before[kid]:
                no_fit_before[kid] = low
            if b > no_fit_from[kid]:
                no_fit_from[kid] = b
            if not queued[k]:
                queued[k] = 1
                heapq.heappush(heap, k)

    def _fill_long_queue(self, now: float) -> None:
        """DC's hole filling (:meth:`~backfill.schedulers.dc.DC._fill_plain`) with one pass per move.

        Moves the same jobs in the same order: the first queued job in priority order that fits now.
        """
        profile = self._profile
        idle = profile._free_at(now)
        if idle <= 0:
            return
        reserved = self._reserved
        jobs = [e[2] for e in self._ordered(now)]
        if (compiled := kernel.KERNEL) is not None:
            starts, widths, estimates = compiled.queue_arrays(jobs, reserved)
        else:
            n = len(jobs)
            starts = np.fromiter((reserved[job.id] for job in jobs), dtype=np.float64, count=n)
            widths = np.fromiter((job.processors for job in jobs), dtype=np.int64, count=n)
            estimates = np.fromiter((job.estimate for job in jobs), np.float64, n)
        # A job fits now if its window up to its own reservation has room all the way: one pass over
        # the profile tells that for the whole queue, where a search per job took most of DC's time
        # on long queues (every move sends the loop back to the head).
        needs = np.minimum(now + estimates, starts)
        while idle > 0:
            candidates = np.flatnonzero((starts > now) & (widths <= idle))
            if not candidates.size:
                return
            room = profile._free_run_end(now, widths[candidates], float(needs[candidates].max()))
            fits = candidates[room >= needs[candidates]]
            if not fits.size:
                return
            k = int(fits[0])
            job = jobs[k]
            # No search will look at the job again: it starts at this instant.
            self._move(job, float(starts[k]), now)
            starts[k] = now
            idle -= job.processors


class LongQueueConservative:
    """Conservative's compression made fast for long queues; mixed into ``Conservative``."""

    _profile: Profile
    _planned: dict[int, float]
    _order: SortedList
    _freed: list[tuple[float, float]]
    _dirty: bool
    _changes: Any

    # Kept one loop: Conservative's hot path on long queues, exempt from the size of a function.
    def _compress_long_queue(self, now: float) -> None:
        """Conservative's compression pass with fewer searches: the moves of ``_compress_plain``.

        The same moves in the same order, with shortcuts that cannot change them:

        * A pass leaves every job at its earliest fit: space a later job vacates lies inside the earlier
          job's own old reservation or after it, where that job already had room. So between passes a
          job can only gain from arrivals (which take space, never give it) and early completions.
        * Hence in a pass a job can start earlier only in a window overlapping a freed interval
          ``[a, b)`` (an early completion's unused time, or space vacated by a job moved earlier in
          this pass) with ``a`` before its planned start: it must start before ``b``. Jobs with no such
          interval are skipped; the others search only up to the latest such ``b``.
        * If a job of width p and estimate e fits nowhere before its frontier, no later job at least
          as wide and as long fits there either while nothing has moved, so its search starts at the
          frontier; a run of such jobs planned no later than the frontier is skipped at once.

        O(q log f + s (log n + k)) for q queued jobs, f freed intervals and s searches. Where the
        compiled kernel is in use (:mod:`backfill.kernel`), its port of this method runs instead.
        """
        compiled = kernel.KERNEL
        if compiled is not None:
            entries = list(self._order)
            if compiled.compress_conservative(
                self._profile, entries, self._freed, now, self._planned, self._changes
            ):
                self._order = SortedList(entries)
            self._freed = []
            self._dirty = False
            return
        profile = self._profile
        planned = self._planned
        # Freed intervals by their start: jobs come in planned-start order, so once an interval starts
        # before one job's planned start it does for every later job, and a running max of the ends
        # gives each job its bound in O(1) amortised.
        pending = [(a, b) for a, b in self._freed if b > now]
        heapq.heapify(pending)
        reach = now
        entries = list(self._order)
        n = len(entries)
        starts = [e[0] for e in entries]
        widths = [e[2].processors for e in entries]
        lengths = [e[2].estimate for e in entries]
        moved = False
        # Failures since the last move, as (processors, estimate, frontier): that job fits nowhere in
        # [now, frontier), so neither does any later job at least as wide and as long, whose window
        # from the same start covers the failing one's. Newer failures have later frontiers.
        failed: list[tuple[int, float, float]] = []
        earliest_move = profile._earliest_move
        heappop = heapq.heappop
        i = 0
        while i < n:
            start, seq, job = entries[i]
            while pending and pending[0][0] < start:
                b = heappop(pending)[1]
                if b > reach:
                    reach = b
            if reach <= now or start <= now:
                i += 1
                continue
            if failed and start <= failed[-1][2]:
                # Jobs planned no later than the last failure's frontier fail at once if it dominates
                # them all; such runs are common (jobs queued behind the same wide job), so test the
                # whole run with C-level minima rather than job by job.
                fp, fe, ff = failed[-1]
                j = bisect_right(starts, ff, i + 1)
                if j - i > 1 and fp <= min(widths[i:j]) and fe <= min(lengths[i:j]):
                    i = j
                    continue
            p = job.processors
            est = job.estimate
            frontier = reach if reach < start else start
            origin = now
            for fp, fe, ff in reversed(failed):
                if fp <= p and fe <= est:
                    origin = ff
                    break
            new = earliest_move(origin, p, est, start, reach) if origin < frontier else None
            if new is None:
                # Drop the newest failures this one supersedes (as broad, earlier frontier); older
                # dominated ones are harmless, only slower to pass over, so the list is capped.
                while failed and failed[-1][0] >= p and failed[-1][1] >= est:
                    failed.pop()
                if len(failed) == 4:
                    del failed[0]
                failed.append((p, est, frontier))
            else:
                failed.clear()
                profile._move(start, new, est, p)
                planned[job.id] = new
                self._changes.append((job.id, new))
                entries[i] = (new, seq, job)
                moved = True
                # The part of the old reservation the new one does not cover is free space now, for
                # the later jobs of this pass.
                vacated = (max(start, new + est), start + est)
                if vacated[0] < vacated[1]:
                    heapq.heappush(pending, vacated)
            i += 1
        if moved:
            self._order = SortedList(entries)
        self._freed = []
        self._dirty = False
