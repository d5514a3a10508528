"""Conservative backfilling (Mu'alem & Feitelson 2001): every job gets a reservation when it arrives."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs
from sortedcontainers import SortedList

from backfill.errors import ScheduleError
from backfill.profile import Profile
from backfill.workload import Job

__all__ = ["Conservative"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class Conservative:
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

    Example:
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

    name = "Conservative"

    def __repr__(self) -> str:
        return "Conservative()"

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._profile = Profile(machine_size, origin=now)
        self._planned = {}
        self._order = SortedList()
        self._running = {}
        self._seq = 0
        self._dirty = False
        self._freed = []

    def submit(self, job: Job, now: float) -> None:
        """Reserve the job at its earliest fit. O(log n + k) on the profile, O(log q) on the queue."""
        if self._dirty:
            self._compress(now)
        profile = self._profile
        start = profile.earliest_fit(now, job.processors, job.estimate)
        profile.reserve(start, start + job.estimate, job.processors)
        self._seq += 1
        self._order.add((start, self._seq, job))
        self._planned[job.id] = start

    def complete(self, job: Job, now: float) -> None:
        """Release the unused part of a job's reservation; compression follows before the next decision."""
        try:
            end, procs = self._running.pop(job.id)
        except KeyError:
            raise ScheduleError(f"job {job.id} completed but was not running") from None
        if now < end:
            self._profile.release(now, end, procs)
            self._freed.append((now, end))
            self._dirty = True

    def schedule(self, now: float) -> list[Job]:
        """Compress if a job ended early, then start every job whose planned start has come."""
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

    def _compress(self, now: float) -> None:
        """Move every queued job, in planned-start order, to its earliest fit if that is earlier.

        Exactly the remove-and-reinsert pass of the papers, with one shortcut that cannot change its
        result: a job sits at its earliest fit when it is placed or examined, and afterwards only
        arrivals (which take space) and ``_freed`` intervals (early completions, space vacated by moved
        jobs) change the profile. So a job can now start earlier only inside a window that overlaps a
        freed interval ``[a, b)`` with ``a`` before its planned start, which means starting before
        ``b``; jobs with no such interval are skipped, and the others search only up to the latest
        such ``b``. O(q f + moved (log n + k)), f = freed intervals.
        """
        profile = self._profile
        planned = self._planned
        freed = [(a, b) for a, b in self._freed if b > now]
        carried: list[tuple[float, float]] = []
        entries = list(self._order)
        moved = False
        for i, (start, seq, job) in enumerate(entries):
            if start <= now:
                continue
            bound = now
            for a, b in freed:
                if a < start and b > bound:
                    bound = b
            if bound <= now:
                continue
            new = profile.earliest_move(now, job.processors, job.estimate, start, before=bound)
            if new is not None:
                est = job.estimate
                profile.release(start, start + est, job.processors)
                profile.reserve(new, new + est, job.processors)
                planned[job.id] = new
                entries[i] = (new, seq, job)
                moved = True
                # The part of the old reservation the new one does not cover is free space now, for
                # every later job of this pass and for the jobs before it in the next pass.
                vacated = (max(start, new + est), start + est)
                if vacated[0] < vacated[1]:
                    freed.append(vacated)
                    carried.append(vacated)
        if moved:
            self._order = SortedList(entries)
        self._freed = carried
        self._dirty = False

    def next_wakeup(self) -> float | None:
        """Conservative acts only on arrivals and completions."""
        return None

    def reservations(self) -> Mapping[int, float]:
        """Planned (guaranteed) start of every queued job, by job id. O(1)."""
        return MappingProxyType(self._planned)

    def queued(self) -> int:
        """Number of queued jobs. O(1)."""
        return len(self._order)

    def copy(self) -> Conservative:
        """Return an independent copy. O(n + q)."""
        other = Conservative()
        other._profile = self._profile.copy()
        other._planned = self._planned.copy()
        other._order = self._order.copy()
        other._running = self._running.copy()
        other._seq = self._seq
        other._dirty = self._dirty
        other._freed = self._freed.copy()
        return other
