"""Conservative backfilling that may start jobs over other jobs' reservations, within bounds.

The shared machinery of the slack-based schedulers (:class:`~backfill.schedulers.LookaheadSlack`,
:class:`~backfill.schedulers.SlackBackfill`). They plan like :class:`Conservative`, but at a decision
they may also start a set of queued jobs *now* although that collides with reservations. The rule for
what happens to the reservations in the way is the same for both:

1. The selected jobs give up their own reservations.
2. For each selected job in arrival order, while its processors over ``[now, now + estimate)`` are not
   free, the first instant of shortage is found and the reservation covering it of the job that
   *arrived last* gives way (FCFS: the latest arrival has the weakest claim). Only reservations that
   cover a shortage are removed, so no job is displaced for nothing.
3. The displaced jobs are placed again, in arrival order, at their earliest fit from now.

Every other reservation stays where it was. The start is allowed only if every displaced job's new
start is at or before its *limit*, which each scheduler defines (the slack). Because the selected
jobs fit in the processors free now, there is always a way to make room for them.

Both the start itself and the reservations it displaces are applied to a copy of the profile first,
so a refused set costs nothing but the copy: O(n) for the copy plus O(d (q + log n + k)) for d
displaced jobs among q queued ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs
import numpy as np
import numpy.typing as npt
from sortedcontainers import SortedList

from backfill.profile import Profile
from backfill.schedulers.conservative import Conservative
from backfill.workload import Job


@attrs.frozen
class _Start:
    """A set of jobs that can start now, and what that does to the plan."""

    jobs: tuple[Job, ...]
    profile: Profile
    #: ``(job, old start, new start)`` of every displaced job, in arrival order.
    moves: tuple[tuple[Job, float, float], ...]


#: Up to this many candidate reservations, the one that gives way is found by a scan in Python.
_SCAN = 128


class _Reservations:
    """The reservations of one decision as arrays, for finding the one that must give way. O(q) to build.

    In the order of :attr:`Conservative._order` (planned start, then arrival): ends and arrival
    sequence numbers, with -1 for a job of no width, which holds no processors and so never
    gives way. Valid until the queue changes.
    """

    __slots__ = ("ends", "jobs", "order", "position", "seqs", "size")

    def __init__(self, order: SortedList) -> None:
        # Keeping the queue itself (not its id) makes "the same queue" a reliable test.
        self.order = order
        self.size = len(order)
        self.jobs: list[Job] = [e[2] for e in order]
        self.position: dict[int, int] = {job.id: i for i, job in enumerate(self.jobs)}
        self.ends: npt.NDArray[np.float64] = np.array([e[0] + e[2].estimate for e in order], dtype=np.float64)
        self.seqs: npt.NDArray[np.int64] = np.array(
            [e[1] if e[2].processors > 0 else -1 for e in order], dtype=np.int64
        )

    def valid_for(self, order: SortedList) -> bool:
        return self.order is order and self.size == len(order)


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class _DisplacingConservative(Conservative):
    """Conservative with a FCFS queue view and :meth:`_try_start` / :meth:`_commit`."""

    #: Queued jobs in arrival order (dicts keep insertion order), and each one's arrival sequence.
    _queue: dict[int, Job] = attrs.field(init=False, factory=dict)
    _arrival: dict[int, int] = attrs.field(init=False, factory=dict)
    #: The reservations as arrays for :meth:`_victim`, built when a try first has many candidates.
    _arrays: _Reservations | None = attrs.field(init=False, default=None)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._queue = {}
        self._arrival = {}
        self._arrays = None

    def submit(self, job: Job, now: float) -> None:
        """Reserve the job at its earliest fit, as Conservative does."""
        super().submit(job, now)
        self._queue[job.id] = job
        self._arrival[job.id] = self._seq

    def _start_due(self, now: float) -> list[Job]:
        """Conservative's decision: compress, then start every job whose planned start has come."""
        started = super().schedule(now)
        self._arrays = None
        queue = self._queue
        arrival = self._arrival
        for job in started:
            del queue[job.id]
            del arrival[job.id]
        return started

    def next_wakeup(self) -> float | None:
        """Return the earliest planned start, so that the driver calls :meth:`schedule` then. O(1).

        Conservative needs no wake-ups because every planned start is some completion; once a job is
        displaced, the job planned to start at its old end has no completion to wake it.
        """
        order = self._order
        return order[0][0] if order else None

    def _limit(self, job: Job, now: float) -> float:
        """Latest start a displacement may give ``job`` at ``now``."""
        raise NotImplementedError

    def _try_start(self, jobs: Sequence[Job], now: float) -> _Start | None:
        """Plan starting ``jobs`` (queued, in arrival order) now; None if a displaced job passes its limit.

        The caller makes sure the jobs fit in the processors free now.
        """
        profile = self._profile.copy()
        # Unchecked updates: every release gives back a reservation that is there, and every reserve
        # follows a search that found the room, so Profile's checks would only cost time here.
        add = profile._add
        first_below = profile.first_below
        planned = self._planned
        arrival = self._arrival
        order = self._order
        # The jobs that cannot give way (again): by id, and by position in the arrays once built.
        excluded = {job.id for job in jobs}
        arrays: _Reservations | None = None
        barred: list[int] = []
        for job in jobs:
            if job.estimate > 0:
                start = planned[job.id]
                add(start, start + job.estimate, job.processors)
        displaced: list[Job] = []
        for job in jobs:
            p = job.processors
            end = now + job.estimate
            if not end > now:
                continue
            while (t := first_below(now, end, p)) is not None:
                # The candidates are the k reservations planned to start by t. A few are scanned in
                # Python; many are searched in C over arrays of the queue, which cost O(q) to build
                # but serve every later try of the decision (SlackBackfill tries the whole queue).
                k = order.bisect_right((t, math.inf))
                if k <= _SCAN:
                    victim = self._victim_by_scan(t, k, excluded)
                else:
                    if arrays is None:
                        arrays = self._arrays
                        if arrays is None or not arrays.valid_for(order):
                            arrays = self._arrays = _Reservations(order)
                        barred = [arrays.position[jid] for jid in excluded]
                    victim = self._victim(arrays, t, k, barred)
                if victim is None:  # pragma: no cover - the caller checked the processors free now
                    return None
                start = planned[victim.id]
                add(start, start + victim.estimate, victim.processors)
                displaced.append(victim)
                excluded.add(victim.id)
                if arrays is not None:
                    barred.append(arrays.position[victim.id])
            add(now, end, -p)
        moves = []
        for victim in sorted(displaced, key=lambda j: arrival[j.id]):
            new = profile.earliest_fit(now, victim.processors, victim.estimate)
            if new > self._limit(victim, now):
                return None
            add(new, new + victim.estimate, -victim.processors)
            moves.append((victim, planned[victim.id], new))
        return _Start(tuple(jobs), profile, tuple(moves))

    def _victim_by_scan(self, t: float, k: int, excluded: set[int]) -> Job | None:
        """The latest-arrived of the first ``k`` reservations that covers ``t`` and is not excluded. O(k)."""
        best: Job | None = None
        best_seq = -1
        for start, seq, job in self._order.islice(0, k):
            if seq > best_seq and start + job.estimate > t and job.processors > 0 and job.id not in excluded:
                best, best_seq = job, seq
        return best

    @staticmethod
    def _victim(arrays: _Reservations, t: float, k: int, barred: list[int]) -> Job | None:
        """:meth:`_victim_by_scan` over the arrays, the excluded jobs ``barred`` by position. O(k) in C."""
        seqs = np.where(arrays.ends[:k] > t, arrays.seqs[:k], -1)
        seqs[[i for i in barred if i < k]] = -1
        i = int(seqs.argmax())
        return arrays.jobs[i] if seqs[i] >= 0 else None

    def _commit(self, plan: _Start, now: float) -> None:
        """Apply a plan from :meth:`_try_start`: the jobs run from now, the displaced jobs move."""
        order = self._order
        planned = self._planned
        arrival = self._arrival
        queue = self._queue
        freed = self._freed
        for job in plan.jobs:
            start = planned.pop(job.id)
            order.remove((start, arrival.pop(job.id), job))
            del queue[job.id]
            self._running[job.id] = (now + job.estimate, job.processors)
            if start + job.estimate > now:
                freed.append((max(start, now), start + job.estimate))
        for job, old, new in plan.moves:
            seq = arrival[job.id]
            order.remove((old, seq, job))
            order.add((new, seq, job))
            planned[job.id] = new
            self._changes.append((job.id, new))
            freed.append((old, old + job.estimate))
        self._profile = plan.profile
        self._arrays = None
        # The space the started and displaced jobs left behind may let others move earlier: the next
        # compression looks there, as it does after an early completion.
        self._dirty = bool(freed)

    def _queue_head(self, n: int) -> list[Job]:
        """The first ``n`` queued jobs in arrival order. O(n)."""
        out: list[Job] = []
        if n <= 0:
            return out
        for job in self._queue.values():
            out.append(job)
            if len(out) == n:
                break
        return out

    def _copy_into(self, other: Conservative) -> None:
        """Copy Conservative's state and the queue view into ``other``."""
        super()._copy_into(other)
        assert isinstance(other, _DisplacingConservative)
        other._queue = self._queue.copy()
        other._arrival = self._arrival.copy()
