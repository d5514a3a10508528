"""Queue-order scheduling without backfilling."""

from __future__ import annotations

import attrs

from backfill.schedulers.machinery.compiled import FCFS_RUN, STATIC_PRIORITIES, WholeRun, whole_run_settings
from backfill.schedulers.machinery.queue import QueueScheduler
from backfill.workloads.workload import Job

__all__ = ["FCFS"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class FCFS(QueueScheduler):
    """Start jobs strictly in queue order: the head starts as soon as it fits, nothing passes it.

    With the default :func:`~backfill.schedulers.machinery.priorities.fcfs` priority this is first come,
    first served; any other priority gives list scheduling in that order, still without backfilling.
    It gives no reservations. With ``resources=[...]`` the head starts once every one of its amounts
    fits (it waits while any resource is short, however many processors are free).

    Args:
        priority: Queue order (smallest key first, ties by arrival).
        resources: Resources planned besides processors (:mod:`backfill.workloads.resources`).

    Examples:
        >>> s = FCFS()
        >>> s.reset(4, now=0)
        >>> for i, p in enumerate([3, 2, 1]):
        ...     s.submit(Job(id=i, submit=0.0, processors=p, runtime=5.0, estimate=5.0), now=0)
        >>> [j.id for j in s.schedule(now=0)]  # job 2 would fit, but may not pass job 1
        [0]
    """

    def schedule(self, now: float) -> list[Job]:
        """Start queue heads while they fit. O(q) for a static priority, O(q log q) otherwise."""
        if now != self._now:  # a time already checked, or the door's check of a new one
            self._door_time(now)
        started: list[Job] = []
        taken = []
        requests = self._requests
        placing = self.nodes is not None
        for entry in self._ordered(now):
            job = entry[2]
            if placing:
                if requests[job.id] > self.free:  # type: ignore[index]
                    break
            elif (job.processors if requests is None else requests[job.id]) > self._free:
                break
            self._start(job, now, entry[1])
            started.append(job)
            taken.append(entry)
        if taken:
            self._dequeue(taken, now)
        return started

    def _whole_run(self) -> WholeRun | None:
        """The compiled kernel's run of exactly this scheduler: FCFS itself, processors, a static priority."""
        if type(self) is FCFS and not self.resources and self.priority in STATIC_PRIORITIES:
            return whole_run_settings(FCFS_RUN, self.priority)
        return None
