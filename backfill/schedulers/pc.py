"""PC: Conservative backfilling with Prioritized Compression (Lindsay et al. 2013, §2.1)."""

from __future__ import annotations

from typing import Any

import attrs

from backfill._validators import is_bool
from backfill.schedulers.machinery.compiled import PC_RUN, WholeRun, guarantee_run
from backfill.schedulers.machinery.guarantee import GuaranteeScheduler
from backfill.workloads.workload import Job

__all__ = ["PC"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class PC(GuaranteeScheduler):
    """Conservative backfilling whose compression follows a priority order instead of the profile's.

    An arriving job is placed at its earliest fit in the profile exactly as in
    :class:`~backfill.schedulers.Conservative`; that start is its guarantee and never moves later. The
    job also joins a *compression queue* ordered by ``priority``. When a job ends before its estimate,
    PC tries the queued jobs in that order, moving each to its earliest fit if that is earlier, and
    after every successful move returns to the head of the queue, because the space a move vacates may
    let a higher-priority job move (Lindsay et al. 2013, Fig. 1); a job may therefore move several
    times in one compression (Fig. 2). Compression ends when no queued job can move.

    With ``restart=False`` the queue is walked once, each job tried once: with the
    :func:`~backfill.schedulers.machinery.priorities.fcfs` priority this is the arrival-order compression
    Mu'alem and Feitelson suggest, which can leave a needless gap (Rajbhandary et al. 2013, Fig. 1). It is
    here to reproduce that figure and for comparison; PC is ``restart=True``.

    Ties follow the simulator's order: all completions of an instant free their space first, the
    profile is compressed once, then that instant's arrivals are placed.

    The compression reads as the paper states it in
    :meth:`~backfill.schedulers.machinery.guarantee.GuaranteeScheduler._compress_plain`; on long queues the
    same moves are found with fewer searches (``backfill/schedulers/_long_queues.py``, proven
    equal by ``tests/test_compression_paths.py``; ``accelerated = False`` in a subclass runs the
    plain path).

    With ``resources=[...]`` every guarantee and every move is at the earliest time all of a job's
    amounts fit (memory, GPUs, ... as well as processors), by the plain compression loop.

    Args:
        priority: Compression order (smallest key first, ties by arrival); any callable
            ``(job, now) -> key``.
        restart: Return to the head of the compression queue after every successful move.

    Examples:
        >>> from backfill.schedulers.machinery.priorities import ljf
        >>> s = PC(ljf)
        >>> s.reset(4, now=0)
        >>> jobs = [
        ...     Job(id=1, submit=0.0, processors=4, runtime=6.0, estimate=10.0),
        ...     Job(id=2, submit=0.0, processors=2, runtime=3.0, estimate=3.0),
        ...     Job(id=3, submit=0.0, processors=2, runtime=2.0, estimate=2.0),
        ...     Job(id=4, submit=0.0, processors=4, runtime=6.0, estimate=6.0),
        ... ]
        >>> for job in jobs:
        ...     s.submit(job, now=0)
        >>> [j.id for j in s.schedule(now=0)], dict(s.reservations())
        ([1], {2: 10.0, 3: 10.0, 4: 13.0})
        >>> s.complete(jobs[0], now=6)  # four time units early
        >>> [j.id for j in s.schedule(now=6)], dict(s.reservations())  # job 4 tried first, then again
        ([2, 3], {4: 9.0})
    """

    restart: bool = attrs.field(default=True, kw_only=True, validator=is_bool)
    _dirty: bool = attrs.field(init=False, default=False)
    _pending: list[tuple[float, float]] = attrs.field(init=False, factory=list)

    def _extras(self) -> list[str]:
        return (["restart=False"] if not self.restart else []) + super()._extras()

    def _whole_run(self) -> WholeRun | None:
        """The compiled kernel's run of exactly this scheduler (``machinery.compiled``), or None."""
        return guarantee_run(self, PC_RUN) if type(self) is PC else None

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._dirty = False
        self._pending = []

    def submit(self, job: Job, now: float) -> None:
        """Give the job its guarantee at its earliest fit and queue it. O(log n + k + log q)."""
        self._door_submit(job, now)
        if self._requests is not None:
            self._take_new(job, now)
        if self._dirty:
            self._compress_pending(now)
        if self.planning_window is not None and self._out_of_reach(self._profile, job, now):
            return
        self._arrive(job, now)

    def _arrive(self, job: Job, now: float) -> None:
        self._place(job, now, self._join_queue(job, now))

    def complete(self, job: Job, now: float) -> None:
        """Free the rest of a finished job's reservation; compression follows before the next decision."""
        freed = self.release(job, now)
        if freed is not None:
            self._pending.append(freed)
            self._dirty = True

    def schedule(self, now: float) -> list[Job]:
        """Compress if a job ended early, then start every job whose guarantee has come."""
        self._door_time(now)
        if self._dirty:
            self._compress_pending(now)
        if self._unreserved:
            self._reserve_within_reach(self._profile, now)
        return self._start_due(now)

    def _vacated(self, intervals: list[tuple[float, float]]) -> None:
        # Space a re-plan freed is compressed into as space a completion freed.
        self._pending.extend(intervals)
        self._dirty = True

    def _compress_pending(self, now: float) -> None:
        self._dirty = False
        self._compress(now, list(self._ordered(now)), self._pending, restart=self.restart)
        self._pending = []

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._pending = self._pending.copy()
