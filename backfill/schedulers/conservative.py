"""Conservative backfilling (Mu'alem & Feitelson 2001): every job gets a reservation when it arrives."""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs
from sortedcontainers import SortedList

from backfill.errors import ScheduleError
from backfill.profile import Profile
from backfill.schedulers.base import SchedulerBase
from backfill.workloads.workload import Job

__all__ = ["Conservative"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class Conservative(SchedulerBase):
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

    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _planned: dict[int, float] = attrs.field(init=False, factory=dict)
    _order: SortedList = attrs.field(init=False, factory=SortedList)
    _running: dict[int, tuple[float, int]] = attrs.field(init=False, factory=dict)
    _seq: int = attrs.field(init=False, default=0)
    _dirty: bool = attrs.field(init=False, default=False)
    _freed: list[tuple[float, float]] = attrs.field(init=False, factory=list)

    @property
    def name(self) -> str:
        """Short readable name: the class name (a subclass's own)."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._profile = Profile(machine_size, origin=now)
        self._now = now
        self._planned = {}
        self._order = SortedList()
        self._running = {}
        self._seq = 0
        self._dirty = False
        self._freed = []
        self._clear_log()

    def submit(self, job: Job, now: float) -> None:
        """Reserve the job at its earliest fit. O(log n + k) on the profile, O(log q) on the queue.

        Raises:
            ScheduleError: If the job is already queued or running.
        """
        if now < self._now:
            raise self._time_error(job, now, "submitted")
        self._now = now
        if job.id in self._planned or job.id in self._running:
            state = "queued" if job.id in self._planned else "running"
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already {state}; "
                "a host submits each job once"
            )
        if self._dirty:
            self._compress(now)
        profile = self._profile
        start = profile.earliest_fit(now, job.processors, job.estimate)
        profile.reserve(start, start + job.estimate, job.processors)
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
        if now < self._now:
            raise self._time_error(job, now, "completed")
        self._now = now
        record = self._running.get(job.id)
        if record is None:
            raise self._completion_error(job, now, None, job.id in self._planned)
        if now > record[0]:
            raise self._completion_error(job, now, record[0], False)
        end, procs = self._running.pop(job.id)
        if now < end:
            self._profile.release(now, end, procs)
            self._freed.append((now, end))
            self._dirty = True

    def schedule(self, now: float) -> list[Job]:
        """Compress if a job ended early, then start every job whose planned start has come."""
        self._now = now
        if self._dirty:
            self._compress(now)
        self._profile.advance(now)
        order = self._order
        started: list[Job] = []
        while order and order[0][0] <= now:
            _, _, job = order.pop(0)
            del self._planned[job.id]
            self._running[job.id] = (now + job.estimate, job.processors)
            started.append(job)
        return started

    def _start_unreserved(self, jobs: Iterable[Job], now: float) -> list[Job]:
        """Start, in the given order, every job that fits now without touching any reservation.

        For schedulers built on Conservative whose other jobs hold no reservation (Selective's entry
        queue): a job starts if it fits over ``[now, now + estimate)`` in the profile, and then counts
        as running exactly like a guaranteed job, so its early completion frees space and compresses.
        A job of zero estimate occupies nothing and always fits. O(1) for a job wider than the
        processors free now, else O(log n + k) on the profile.
        """
        profile = self._profile
        running = self._running
        free = profile.free_at(now)
        started: list[Job] = []
        for job in jobs:
            p = job.processors
            end = now + job.estimate
            if end > now:
                if p > free or profile.min_free(now, end) < p:
                    continue
                profile.reserve(now, end, p)
                free -= p
            running[job.id] = (end, p)
            started.append(job)
        return started

    def _compress(self, now: float) -> None:
        """Move every queued job, in planned-start order, to its earliest fit if that is earlier.

        Exactly the remove-and-reinsert pass of the papers, with shortcuts that cannot change its
        result (the tests compare it with a naive implementation):

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

        O(q log f + s (log n + k)) for q queued jobs, f freed intervals and s searches.
        """
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
        earliest_move = profile.earliest_move
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
                profile.move(start, new, est, p)
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

    @property
    def events_examined(self) -> int:
        """Profile events (planned starts and ends) examined by searches since :meth:`reset`.

        The work measure of Lindsay et al. (2013, §4.3); see :attr:`Profile.examined`.
        """
        return self._profile.examined

    def next_wakeup(self) -> float | None:
        """Conservative acts only on arrivals and completions."""
        return None

    def reservations(self) -> Mapping[int, float]:
        """Planned (guaranteed) start of every queued job, by job id. O(1)."""
        return MappingProxyType(self._planned)

    def queued(self) -> int:
        """Number of queued jobs. O(1)."""
        return len(self._order)

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._profile = self._profile.copy()
        other._planned = self._planned.copy()
        other._order = self._order.copy()
        other._running = self._running.copy()
        other._freed = self._freed.copy()
