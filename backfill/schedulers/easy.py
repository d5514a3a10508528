"""EASY backfilling (Lifka 1995): one reservation, for the job at the head of the queue."""

from __future__ import annotations

import attrs
from sortedcontainers import SortedList

from backfill.schedulers._queue import QueueScheduler
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
        >>> [j.id for j in s.schedule(now=0)]  # job 2 ends before the shadow time 10, job 3 would not
        [0, 2]
        >>> dict(s.reservations())
        {1: 10.0}
    """

    _ends: SortedList = attrs.field(init=False, factory=SortedList)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._ends = SortedList()

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job. O(log r)."""
        entry = self._running.get(job.id)
        super().complete(job, now)
        self._ends.remove(entry)

    def _start(self, job: Job, now: float, seq: int) -> None:
        super()._start(job, now, seq)
        self._ends.add(self._running[job.id])

    def schedule(self, now: float) -> list[Job]:
        """Start what fits, reserve for the head, backfill the rest. O(q + r) (plus sorting if dynamic)."""
        queue = self._ordered(now)
        started: list[Job] = []
        taken = []
        n = len(queue)
        k = 0
        while k < n and queue[k][2].processors <= self._free:
            entry = queue[k]
            self._start(entry[2], now, entry[1])
            started.append(entry[2])
            taken.append(entry)
            k += 1
        self._reserved = {}
        if k < n:
            head = queue[k][2]
            shadow, extra = self._shadow(head.processors)
            self._reserved[head.id] = shadow
            free = self._free
            for idx in range(k + 1, n):
                if free == 0:
                    break
                entry = queue[idx]
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
        if taken:
            self._dequeue(taken)
        return started

    def _shadow(self, processors: int) -> tuple[float, int]:
        """Return when ``processors`` will be free by running jobs' estimates, and the surplus then."""
        avail = self._free
        for end, _, procs in self._ends:
            avail += procs
            if avail >= processors:
                return end, avail - processors
        raise AssertionError("a job no wider than the machine always fits once all jobs end")

    def copy(self) -> EASY:
        """Return an independent copy. O(q + r)."""
        other = EASY(self.priority)
        self._copy_into(other)
        other._ends = self._ends.copy()
        return other
