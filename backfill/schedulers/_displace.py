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

With resources besides processors (``resources=[...]``) the rule reads on vectors: the selected
jobs fit in every amount free now; a shortage is an instant where some resource falls short
(:meth:`ResourceProfile._first_below <backfill.profile.multi.ResourceProfile._first_below>`), and the
reservation that gives way is the latest-arrived one covering it that holds some of a resource short
there (one holding none of them would free nothing useful); the displaced jobs come back where all
their amounts fit. The shortcuts that read the processors' arrays (the certificates of
:meth:`DisplacingConservative._doomed`, the array search for the reservation that gives way) run
without resources only.

Both the start itself and the reservations it displaces are applied to a copy of the profile first,
so a refused set costs nothing but the copy: O(n) for the copy plus O(d (q + log n + k)) for d
displaced jobs among q queued ones.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import Any, cast

import attrs
import numpy as np
import numpy.typing as npt
from sortedcontainers import SortedList

from backfill.errors import ParameterError
from backfill.profile import Profile
from backfill.profile.multi import ResourceProfile
from backfill.schedulers._displace_nodes import try_start_nodes
from backfill.schedulers.conservative import Conservative
from backfill.workloads.workload import Job


@attrs.frozen
class Start:
    """A set of jobs that can start now, and what that does to the plan."""

    jobs: tuple[Job, ...]
    profile: Profile
    #: ``(job, old start, new start)`` of every displaced job, in arrival order.
    moves: tuple[tuple[Job, float, float], ...]


def _vector_add(profile: Profile) -> Callable[[float, float, Any], None]:
    """``Profile._add`` for a ResourceProfile: add signed Amounts over an interval, resource by resource.

    Unchecked, as ``Profile._add`` is: the callers release reservations that are there and take
    room a search found. O(r (log n + k)).
    """
    profiles = cast(ResourceProfile, profile).profiles

    def add(start: float, end: float, delta: Any) -> None:
        for p, a in zip(profiles, delta, strict=True):
            if a:
                p._add(start, end, a)

    return add


#: Up to this many candidate reservations, the one that gives way is found by a scan in Python.
_SCAN = 128


class _Shape:
    """What one anonymous try of a shape (width ``p``, ``estimate``) found in the current plan.

    The reservations that gave way, in the order they did, and the shortage instant each covered
    (nondecreasing): see :meth:`DisplacingConservative._certificate`. ``bounds`` keeps, for each
    number ``k`` of them that a real try of this shape meets, the bound :meth:`DisplacingConservative._bound`
    computed, as it is asked for.
    """

    __slots__ = ("bounds", "displaced", "estimate", "p", "shortages")

    def __init__(self, p: int, estimate: float, shortages: list[float], displaced: list[Job]) -> None:
        self.p = p
        self.estimate = estimate
        self.shortages = shortages
        self.displaced = displaced
        self.bounds: dict[int, float] = {}


#: What :meth:`DisplacingConservative._doomed` knows about the jobs of one shape (width, estimate) in
#: the current plan: the anonymous try's findings, or None where there is nothing to learn from it.
Certificate = _Shape | None

#: The mark of a shape tried once in the current plan: most shapes of a trace's queue appear once,
#: and for those the anonymous try would only add to the real one, so it is made for the second.
_ONCE: Certificate = _Shape(0, 0.0, [], [])


def _latest_release(profile: Profile, now: float, limit: float, p: int, width: int, duration: float) -> float:
    """The latest time from which freeing ``p`` processors lets a job fit in ``profile`` by ``limit``.

    With ``p`` more processors free from a time ``a`` on, the job (``width`` x ``duration``) fits at a
    start ``s`` in ``[now, limit]`` if and only if no step in ``[s, s + duration)`` has fewer than
    ``width - p`` free and the first step there with fewer than ``width`` free, if any, starts at or
    after ``a``. So there is such a start only for ``a`` up to the largest of those first-short
    instants over the starts where the first condition holds: that largest (a supremum, possibly not
    reached) is returned; ``inf`` if the job fits by ``limit`` as the profile stands, ``-inf`` if it
    fits nowhere by then even with ``p`` more free throughout. Freeing ``p`` processors over only
    part of ``[a, inf)`` frees less, so a release that begins after the returned time cannot let the
    job fit by ``limit`` either. O(log n + k), k steps in ``[now, limit + duration)``.
    """
    return float(_latest_releases(profile, now, p, [limit], [width], [duration])[0])


def _latest_releases(
    profile: Profile,
    now: float,
    p: int,
    limits: Sequence[float],
    widths: Sequence[int],
    durations: Sequence[float],
) -> npt.NDArray[np.float64]:
    """:func:`_latest_release` for several jobs at once (one row each), over one read of the steps.

    O(log n + m k) for m jobs, k steps in ``[now, max(limit + duration))``.
    """
    # Profile's steps are read in place, as _try_start updates them in place: both are hot paths of
    # the same class, and a public copy of the steps would cost what this saves.
    times = profile._times
    limit = np.array(limits, dtype=np.float64)[:, None]
    width = np.array(widths, dtype=np.int64)[:, None]
    duration = np.array(durations, dtype=np.float64)[:, None]
    i = max(bisect_right(times, now) - 1, 0)
    # Each row reads the steps in [now, its limit + duration), as if the others were not there.
    stops = [max(bisect_left(times, h, i), i + 1) for h in (limit + duration).ravel().tolist()]
    j = max(stops)
    starts = np.array(times[i:j], dtype=np.float64)
    free = np.array(profile._free[i:j], dtype=np.int64)
    n = len(starts)
    index = np.arange(n)
    inside = index < (np.array(stops) - i)[:, None]
    ends = np.append(starts[1:], math.inf)
    tail = np.append(starts, math.inf)

    def next_short(short: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        # Per step, the start of the first short step after it (inf if none): suffix minima of indices.
        first = np.minimum.accumulate(np.where(short, index, n)[:, ::-1], axis=1)[:, ::-1]
        found: npt.NDArray[np.float64] = tail[np.append(first[:, 1:], np.full((len(first), 1), n), axis=1)]
        return found

    short = (free < width) & inside
    blocked = (free < width - p) & inside
    next_blocked = next_short(blocked)
    next_shortage = next_short(short)
    # The earliest start in each step; the windows from there are the ones that reach least far.
    lowest = np.maximum(starts, now)
    early = (lowest <= limit) & inside
    fits = (early & ~short & (lowest + duration <= next_shortage)).any(axis=1)
    # A step holds a start where the first condition holds if its earliest start is by the limit and
    # its window ends before the next blocked step.
    usable = early & ~blocked & (lowest + duration <= next_blocked)
    # In a short step the first short instant is the start itself, so the latest start counts: the
    # step's end, the limit or the last start whose window clears the next blocked step, whichever
    # is first (one ulp up, so that rounding in the subtraction only ever raises the bound).
    latest = np.minimum(np.minimum(ends, limit), np.nextafter(next_blocked - duration, math.inf))
    first_short = np.where(short, latest, next_shortage)
    found: npt.NDArray[np.float64] = np.where(usable, first_short, -math.inf).max(axis=1)
    return np.where(fits, math.inf, found)


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
class DisplacingConservative(Conservative):
    """Conservative with a FCFS queue view and :meth:`_try_start` / :meth:`_commit`."""

    #: Queued jobs in arrival order (dicts keep insertion order), and each one's arrival sequence.
    _queue: dict[int, Job] = attrs.field(init=False, factory=dict)
    _arrival: dict[int, int] = attrs.field(init=False, factory=dict)
    #: The reservations as arrays for :meth:`_victim`, built when a try first has many candidates.
    _arrays: _Reservations | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        if self.planning_window is not None or self.max_tested is not None:
            raise ParameterError(
                f"{type(self).__name__} takes no planning window or test limit: its slack decides which "
                "reservations may move, and every job holds one"
            )

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

    def _try_start(self, jobs: Sequence[Job], now: float) -> Start | None:
        """Plan starting ``jobs`` (queued, in arrival order) now; None if a displaced job passes its limit.

        The caller makes sure the jobs fit in the processors free now.
        """
        if self._requests is not None and self.nodes is not None:
            placed = try_start_nodes(self, jobs, now)  # the rule node by node
            return None if placed is None else Start(tuple(jobs), cast(Profile, placed[0]), tuple(placed[1]))
        profile = self._profile.copy()
        requests = self._requests
        # Unchecked updates: every release gives back a reservation that is there, and every reserve
        # follows a search that found the room, so Profile's checks would only cost time here.
        add = profile._add if requests is None else _vector_add(profile)
        planned = self._planned
        arrival = self._arrival
        for job in jobs:
            if job.estimate > 0:
                start = planned[job.id]
                add(start, start + job.estimate, job.processors if requests is None else requests[job.id])
        # The jobs that cannot give way (again).
        excluded = {job.id for job in jobs}
        displaced: list[Job] = []
        for job in jobs:
            end = now + job.estimate
            p = job.processors if requests is None else requests[job.id]
            if end > now and self._make_room(profile, now, end, p, excluded, displaced) is None:
                return None  # pragma: no cover - the caller checked the processors free now
        moves = []
        for victim in sorted(displaced, key=lambda j: arrival[j.id]):
            width = victim.processors if requests is None else requests[victim.id]
            new = profile._earliest_fit(now, width, victim.estimate)
            if new > self._limit(victim, now):
                return None
            add(new, new + victim.estimate, -width)
            moves.append((victim, planned[victim.id], new))
        return Start(tuple(jobs), profile, tuple(moves))

    def _make_room(
        self, profile: Profile, now: float, end: float, p: Any, excluded: set[int], displaced: list[Job]
    ) -> list[float] | None:
        """Release reservations in ``profile`` until ``p`` processors are free over ``[now, end)``; take them.

        The rule of the module docstring: at each first instant of shortage, the latest-arrived
        reservation covering it (not in ``excluded``) gives way. Each released job is appended to
        ``displaced`` and to ``excluded``. Returns the shortage instants, one per released job, or
        None if a shortage has no reservation to give way. O(d (q + log n + k)) for d released jobs.
        With resources ``p`` is Amounts, and the reservation that gives way holds some resource
        short at the shortage (:meth:`_vector_victim`).
        """
        if self._requests is not None:
            return self._make_room_vectors(profile, now, end, p, excluded, displaced)
        add = profile._add
        first_below = profile._first_below
        planned = self._planned
        order = self._order
        arrays: _Reservations | None = None
        barred: list[int] = []
        shortages: list[float] = []
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
            if victim is None:  # pragma: no cover - the callers check the processors free now
                return None
            start = planned[victim.id]
            add(start, start + victim.estimate, victim.processors)
            displaced.append(victim)
            shortages.append(t)
            excluded.add(victim.id)
            if arrays is not None:
                barred.append(arrays.position[victim.id])
        add(now, end, -p)
        return shortages

    def _make_room_vectors(
        self, profile: Profile, now: float, end: float, p: Any, excluded: set[int], displaced: list[Job]
    ) -> list[float] | None:
        """:meth:`_make_room` with resources: the candidates at each shortage are scanned.

        O(d (q r + r (log n + k))) for d released jobs.
        """
        add = _vector_add(profile)
        planned = self._planned
        requests = self._requests
        assert requests is not None
        order = self._order
        shortages: list[float] = []
        while (t := profile._first_below(now, end, p)) is not None:
            free: Any = profile._free_at(t)
            short = [i for i, (f, a) in enumerate(zip(free, p, strict=True)) if f < a]
            victim = self._vector_victim(t, order.bisect_right((t, math.inf)), excluded, short, requests)
            if victim is None:  # pragma: no cover - the callers check the amounts free now
                return None
            width = requests[victim.id]
            start = planned[victim.id]
            add(start, start + victim.estimate, width)
            displaced.append(victim)
            shortages.append(t)
            excluded.add(victim.id)
        add(now, end, -p)
        return shortages

    def _vector_victim(
        self, t: float, k: int, excluded: set[int], short: list[int], requests: dict[int, Any]
    ) -> Job | None:
        """The latest-arrived of the first ``k`` reservations covering ``t`` holding a ``short`` resource.

        ``short`` lists the indices of the resources short at ``t``. O(k r).
        """
        best: Job | None = None
        best_seq = -1
        for start, seq, job in self._order.islice(0, k):
            if seq > best_seq and start + job.estimate > t and job.id not in excluded:
                width = requests[job.id]
                if any(width[i] > 0 for i in short):
                    best, best_seq = job, seq
        return best

    def _doomed(self, job: Job, now: float, known: dict[tuple[int, float], Certificate]) -> bool:
        """True if :meth:`_try_start` is certain to refuse ``job`` alone now, without trying it.

        Jobs of the same width and estimate make room the same way up to their own reservation, so
        one anonymous try per shape, kept in ``known`` (which the caller empties whenever the plan
        changes), settles the others: see :meth:`_certificate`. It is made when a shape comes up for
        the second time. False means only "not known": the caller tries the job. O(log d), or one
        try when a shape comes up the second time, or one bound when a job meets a number of
        displaced reservations no earlier job of its shape met. Always False with resources (the
        certificates read the processors' steps): every job is tried.
        """
        if self._requests is not None:
            return False
        key = (job.processors, job.estimate)
        shape = known.get(key)
        if shape is _ONCE:
            shape = known[key] = self._certificate(job.processors, job.estimate, now)
        elif key not in known:
            known[key] = _ONCE
            return False
        if shape is None:
            return False
        planned = self._planned[job.id]
        met = bisect_left(shape.shortages, planned)
        if not met:
            return False
        bound = shape.bounds.get(met)
        if bound is None:
            bound = self._bound(shape, met, now)
        return planned > bound

    def _certificate(self, p: int, estimate: float, now: float) -> Certificate:
        """Make room now for a ``p`` x ``estimate`` job with no reservation of its own; keep what gave way.

        The reservations give way at the shortages ``t1 <= ... <= td`` (each release only adds
        room at or after the shortage it covers). A queued job ``J`` of this shape whose reservation
        starts at ``s`` meets exactly the first ``k`` of them, those before ``s``:

        - Until ``s`` the real try's profile and the anonymous one agree, so each shortage before
          ``s``, the reservations covering it and the one that gives way are the same (``J``'s
          starts at ``s`` and so covers none of them).
        - From ``s`` on there is no shortage: where the new interval ``[now, now + estimate)``
          reaches past ``s`` it overlaps ``J``'s old reservation, and there ``J`` takes back the
          processors it has just given up.

        So the real try displaces the first ``k`` and places them again, in arrival order, in
        ``G_k + p`` over ``[s, s + estimate)``, where ``G_k`` is the profile with those ``k``
        released and ``p`` taken over ``[now, now + estimate)``; each one after the first finds
        that room less what those before it took. :meth:`_bound` turns that into a bound on ``s``.
        With ``k = 0`` nothing gives way and the try passes.

        Returns None if no reservation gives way (every job of the shape fits as it is), else the
        anonymous try's findings. O(n + d (q + log n + k)).
        """
        end = now + estimate
        if not end > now:
            return None
        profile = self._profile.copy()
        displaced: list[Job] = []
        shortages = self._make_room(profile, now, end, p, set(), displaced)
        if not shortages:
            return None
        shape = _Shape(p, estimate, shortages, displaced)
        # The anonymous try's own profile is G_d: the bound for jobs that meet every shortage costs
        # no second profile, and in a busy queue most jobs are planned after them all.
        self._bound_in(shape, len(displaced), profile, now)
        return shape

    def _bound(self, shape: _Shape, met: int, now: float) -> float:
        """From where the reservation of a job of ``shape`` that meets ``met`` shortages must start to fail.

        ``G`` is the profile with the ``met`` reservations that give way released and the job's
        processors taken from now (see :meth:`_certificate`). Each of them is placed again in ``G``
        plus the job's ``p`` processors over its old reservation ``[s, s + estimate)``, less what the
        ones placed before it took: no more room than ``G`` with ``p`` more free over ``[s, inf)``.
        So by :func:`_latest_release`, when ``s`` is after the returned time one of them fits nowhere
        by its limit and the try fails. The bound is the least of theirs: for the first-arrived one,
        placed first, the relaxation is only the ``[s, inf)``; a later one may also be refused
        because those before it took its room, which the bound does not see. Kept in
        ``shape.bounds``. O(n + met (log n + k)).
        """
        profile = self._profile.copy()
        add = profile._add
        planned = self._planned
        for victim in shape.displaced[:met]:
            start = planned[victim.id]
            add(start, start + victim.estimate, victim.processors)
        add(now, now + shape.estimate, -shape.p)
        return self._bound_in(shape, met, profile, now)

    def _bound_in(self, shape: _Shape, met: int, profile: Profile, now: float) -> float:
        """:meth:`_bound`, given the profile ``G`` it describes; kept in ``shape.bounds``.

        O(met (log n + k)).
        """
        victims = shape.displaced[:met]
        bounds = _latest_releases(
            profile,
            now,
            shape.p,
            [self._limit(victim, now) for victim in victims],
            [victim.processors for victim in victims],
            [victim.estimate for victim in victims],
        )
        bound = shape.bounds[met] = float(bounds.min())
        return bound

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

    def _commit(self, plan: Start, now: float) -> None:
        """Apply a plan from :meth:`_try_start`: the jobs run from now, the displaced jobs move."""
        order = self._order
        planned = self._planned
        arrival = self._arrival
        queue = self._queue
        freed = self._freed
        requests = self._requests
        for job in plan.jobs:
            start = planned.pop(job.id)
            order.remove((start, arrival.pop(job.id), job))
            del queue[job.id]
            self._running[job.id] = (
                now + job.estimate,
                job.processors if requests is None else requests[job.id],
            )
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

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._arrays = None
        other._queue = self._queue.copy()
        other._arrival = self._arrival.copy()
