"""EASY backfilling (Lifka 1995): one reservation, for the job at the head of the queue."""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Iterable

import attrs

from backfill.schedulers._queue import Entry, QueueScheduler
from backfill.workload import Job

__all__ = ["EASY"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class EASY(QueueScheduler):
    """EASY backfilling ordered by any priority.

    At each decision, jobs start in queue order while they fit. The first that does not fit (the head)
    gets a reservation at the *shadow time*, the earliest time enough running jobs will have ended by
    their estimates; the processors left over at that time are the *extra* processors. A later job
    backfills if it fits now and either ends (by its estimate) before the shadow time or uses only extra
    processors. Since running jobs can only end earlier than estimated and backfilled jobs never delay
    it, the head's reservation never moves later while it stays the head.

    Args:
        priority: Queue order (smallest key first, ties by arrival). FCFS gives classic EASY,
            :func:`~backfill.priorities.lxf` gives LXF-backfill, :func:`~backfill.priorities.sjf`
            SJF-EASY.

    Example:
        >>> s = EASY()
        >>> s.reset(4, now=0)
        >>> jobs = [Job(id=0, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
        ...         Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=8.0, estimate=8.0),
        ...         Job(id=3, submit=0.0, processors=1, runtime=20.0, estimate=20.0)]
        >>> for job in jobs:
        ...     s.submit(job, now=0)
        >>> [j.id for j in s.schedule(now=0)]  # job 2 backfills on the last free processor
        [0, 2]
        >>> dict(s.reservations())
        {1: 10.0}
    """

    # Running jobs as (estimated end, seq, processors), sorted; a plain list kept with C-level bisect
    # beats a SortedList at the sizes machines have.
    _ends: list[tuple[float, int, int]] = attrs.field(init=False, factory=list)
    # Cache of the last full pass (static priorities only): the head's entry, its shadow time and the
    # extra processors left then, and the jobs that arrived since. While only arrivals happen, the jobs
    # already queued still cannot start (free processors only shrank, the shadow time is unchanged and
    # ``now`` only grew), so a decision needs to look at the new jobs alone.
    _head: Entry | None = attrs.field(init=False, default=None)
    _shadow_time: float = attrs.field(init=False, default=0.0)
    _extra: int = attrs.field(init=False, default=0)
    _fresh: list[Entry] = attrs.field(init=False, factory=list)
    _full: bool = attrs.field(init=False, default=True)
    _changes: list[tuple[int, float]] = attrs.field(init=False, factory=list)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._ends = []
        self._head = None
        self._fresh = []
        self._full = True
        self._changes = []

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job. O(log q)."""
        entry = self._enqueue(job, now)
        if entry is None or self._head is None or entry < self._head:
            self._full = True
        elif not self._full:
            self._fresh.append(entry)

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job. O(log r) plus a C-level memmove."""
        entry = self._running.get(job.id)
        super().complete(job, now)  # raises if it was not running
        assert entry is not None
        ends = self._ends
        del ends[bisect_left(ends, entry)]
        self._full = True

    def _start(self, job: Job, now: float, seq: int) -> None:
        super()._start(job, now, seq)
        insort(self._ends, self._running[job.id])

    def schedule(self, now: float) -> list[Job]:
        """Start what fits, reserve for the head, backfill the rest.

        O(q + r) for a full pass (plus O(q log q) sorting for a time-dependent priority); when only
        arrivals happened since the last pass, O(a log a) for the a new jobs.
        """
        started: list[Job] = []
        taken: list[Entry] = []
        if not self._full:
            fresh = sorted(self._fresh)
            self._fresh = []
            self._backfill(fresh, now, started, taken)
        else:
            queue = iter(self._ordered(now))
            head = None
            # The previous head loses its reservation if a job ahead of it in today's order starts
            # first (a higher-priority arrival, or a time-dependent priority reordering the queue):
            # for that moment the other job was the head.
            previous = next(iter(self._reserved), None)
            overtaken = False
            for entry in queue:
                job = entry[2]
                if job.processors <= self._free:
                    self._start(job, now, entry[1])
                    started.append(job)
                    taken.append(entry)
                    if job.id == previous:
                        previous = None
                    elif previous is not None:
                        overtaken = True
                else:
                    head = entry
                    break
            old = self._reserved
            self._reserved = {}
            self._head = head if self._static else None
            self._fresh = []
            self._full = not self._static or head is None
            if head is not None:
                self._shadow_time, self._extra = self._shadow(head[2].processors)
                self._reserved[head[2].id] = self._shadow_time
            self._log_changes(old, previous, overtaken)
            if head is not None:
                self._backfill(queue, now, started, taken)
        if taken:
            self._dequeue(taken)
        return started

    def _log_changes(self, old: dict[int, float], previous: int | None, overtaken: bool) -> None:
        """Log the head's reservation changes; ``previous`` is the old head if it is still queued."""
        new = self._reserved
        if previous is not None and (overtaken or previous not in new):
            self._changes.append((previous, math.nan))
            old = {}
        for job_id, start in new.items():
            if old.get(job_id) != start:
                self._changes.append((job_id, start))

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        """Return the ``(job_id, start)`` reservation changes since the last call, and forget them.

        A queued job that stops being the head is logged with a NaN start; see the protocol.
        """
        changes = self._changes
        self._changes = []
        return changes

    def _backfill(self, entries: Iterable[Entry], now: float, started: list[Job], taken: list[Entry]) -> None:
        """Start the entries that fit now and do not delay the head's reservation, in order."""
        free = self._free
        shadow = self._shadow_time
        extra = self._extra
        for entry in entries:
            if free == 0:
                break
            job = entry[2]
            p = job.processors
            if p > free:
                continue
            if now + job.estimate <= shadow:
                pass
            elif p <= extra:
                extra -= p
            else:
                continue
            self._start(job, now, entry[1])
            free -= p
            started.append(job)
            taken.append(entry)
        self._extra = extra

    def _shadow(self, processors: int) -> tuple[float, int]:
        """Return when ``processors`` will be free by running jobs' estimates, and the surplus then.

        Every job ending exactly at the shadow time frees its processors then, so all of them count
        towards the extra processors. O(r) in the worst case.
        """
        avail = self._free
        shadow = None
        for end, _, procs in self._ends:
            if shadow is not None and end > shadow:
                break
            avail += procs
            if shadow is None and avail >= processors:
                shadow = end
        if shadow is None:
            raise AssertionError("a job no wider than the machine always fits once all jobs end")
        return shadow, avail - processors

    def copy(self) -> EASY:
        """Return an independent copy. O(q + r)."""
        other = EASY(self.priority)
        self._copy_into(other)
        other._ends = self._ends.copy()
        other._head = self._head
        other._shadow_time = self._shadow_time
        other._extra = self._extra
        other._fresh = self._fresh.copy()
        other._full = self._full
        other._changes = self._changes.copy()
        return other
