"""Naive reference models: obviously correct, slow versions of the Profile and the schedulers."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from backfill.workloads.resources import Resource
from backfill.workloads.workload import Job


class NaiveProfile:
    """Free processors as capacity minus every reservation covering the instant."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.origin: float = 0
        self.intervals: list[tuple[float, float, int]] = []

    def free_at(self, t: float) -> int:
        return self.capacity - sum(p for s, e, p in self.intervals if s <= t < e)

    def fits(self, s: float, p: int, d: float) -> bool:
        if d <= 0:
            return True  # a zero-length job occupies nothing
        # The free count changes only at reservation boundaries, so these points are exhaustive.
        points = {s} | {x for a, b, _ in self.intervals for x in (a, b) if s < x < s + d}
        return all(self.free_at(x) >= p for x in points)

    def earliest_fit(self, t: float, p: int, d: float) -> float:
        t = max(t, self.origin)
        candidates = sorted({t} | {e for _, e, _ in self.intervals if e > t})
        return next(c for c in candidates if self.fits(c, p, d))


class NaiveResourceProfile:
    """Free amounts per resource as capacity minus every reservation covering the instant."""

    def __init__(self, capacity: tuple[int, ...]) -> None:
        self.capacity = capacity
        self.origin: float = 0
        self.intervals: list[tuple[float, float, tuple[int, ...]]] = []

    def free_at(self, t: float) -> tuple[int, ...]:
        used = [0] * len(self.capacity)
        for s, e, amounts in self.intervals:
            if s <= t < e:
                used = [u + a for u, a in zip(used, amounts, strict=True)]
        return tuple(c - u for c, u in zip(self.capacity, used, strict=True))

    def fits(self, s: float, amounts: tuple[int, ...], d: float) -> bool:
        if d <= 0:
            return True
        points = {s} | {x for a, b, _ in self.intervals for x in (a, b) if s < x < s + d}
        return all(f >= a for x in points for f, a in zip(self.free_at(x), amounts, strict=True))

    def earliest_fit(self, t: float, amounts: tuple[int, ...], d: float) -> float:
        t = max(t, self.origin)
        candidates = sorted({t} | {e for _, e, _ in self.intervals if e > t})
        return next(c for c in candidates if self.fits(c, amounts, d))


class NaiveConservative:
    """Conservative backfilling exactly as the papers describe it, with no shortcut.

    Compression removes each queued job in planned-start order (ties by arrival) and re-inserts it at
    its earliest fit, against a profile rebuilt from a plain list of intervals.
    """

    name = "NaiveConservative"

    def __init__(self, resources: tuple[Resource, ...] = ()) -> None:
        # With resources, every width is a tuple of processors then each resource's amount.
        self.resources = resources

    def width(self, job: Job) -> Any:
        if not self.resources:
            return job.processors
        return (job.processors, *(r.amount(job) for r in self.resources))

    def reset(self, machine_size: int, now: float) -> None:
        self.size = machine_size
        self.running: dict[int, tuple[float, float, int]] = {}
        self.queued: dict[int, tuple[float, int, Job]] = {}
        self.seq = 0
        self.dirty = False
        self.changes: list[tuple[int, float]] = []

    def log_reservation_changes(self, on: bool = True) -> None:
        pass  # always kept: a test model

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        out, self.changes = self.changes, []
        return out

    def _profile(self, exclude: int | None = None) -> Any:
        if self.resources:
            prof: Any = NaiveResourceProfile((self.size, *(r.capacity for r in self.resources)))
        else:
            prof = NaiveProfile(self.size)
        prof.intervals = list(self.running.values()) + [
            (s, s + j.estimate, self.width(j)) for jid, (s, _, j) in self.queued.items() if jid != exclude
        ]
        return prof

    def _compress(self, now: float) -> None:
        for jid in sorted(self.queued, key=lambda k: self.queued[k][:2]):
            s, seq, job = self.queued[jid]
            if s <= now:
                continue
            new = self._profile(exclude=jid).earliest_fit(now, self.width(job), job.estimate)
            assert new <= s
            if new < s:
                self.changes.append((jid, new))
            self.queued[jid] = (new, seq, job)
        self.dirty = False

    def submit(self, job: Job, now: float) -> None:
        if self.dirty:
            self._compress(now)
        self.seq += 1
        s = self._profile().earliest_fit(now, self.width(job), job.estimate)
        self.queued[job.id] = (s, self.seq, job)
        self.changes.append((job.id, s))

    def complete(self, job: Job, now: float) -> None:
        _s, e, _p = self.running.pop(job.id)
        if now < e:
            self.dirty = True

    def schedule(self, now: float) -> list[Job]:
        if self.dirty:
            self._compress(now)
        due = sorted((v for v in self.queued.values() if v[0] <= now), key=lambda v: v[:2])
        for _s, _, job in due:
            del self.queued[job.id]
            self.running[job.id] = (now, now + job.estimate, self.width(job))
        return [job for _, _, job in due]

    def next_wakeup(self) -> float | None:
        return None

    def reservations(self) -> Mapping[int, float]:
        return {jid: v[0] for jid, v in self.queued.items()}

    def copy(self) -> NaiveConservative:
        return copy.deepcopy(self)


class NaiveEASY:
    """EASY with a full pass at every decision and no cached state, on processors or on vectors.

    Widths are tuples, processors then each resource's amount (``(p,)`` with processors alone), and
    free amounts are recomputed from the running jobs at every decision. At depth 1 the classic
    rule: jobs start in queue order while they fit; the first that does not (the head) is reserved
    at its shadow time, the first planned end at which all its amounts are free; a later job (in
    ``backfill_order`` if given) backfills if it fits now and ends by the shadow time or fits in the
    extra amounts, which it then takes. At any other depth (or with ``through_profile``), the
    definition through a profile: the queue in order against the running jobs planned by their
    estimates; a job of zero estimate starts at once, a job that fits now starts, the first
    ``depth`` others are reserved at their earliest fit, the rest skipped.
    """

    def __init__(
        self,
        priority: Callable[[Job, float], Any],
        resources: tuple[Resource, ...] = (),
        depth: int | None = 1,
        backfill_order: Callable[[Job, float], Any] | None = None,
        through_profile: bool = False,
    ) -> None:
        self.priority = priority
        self.resources = resources
        self.depth = depth
        self.backfill_order = backfill_order
        self.through_profile = through_profile or depth != 1
        self.name = "NaiveEASY"

    def width(self, job: Job) -> tuple[int, ...]:
        return (job.processors, *(r.amount(job) for r in self.resources))

    def reset(self, machine_size: int, now: float) -> None:
        self.capacity = (machine_size, *(r.capacity for r in self.resources))
        self.queue: list[tuple[int, Job]] = []
        self.running: dict[int, tuple[float, tuple[int, ...]]] = {}
        self.seq = 0
        self.res: dict[int, float] = {}

    def submit(self, job: Job, now: float) -> None:
        self.seq += 1
        self.queue.append((self.seq, job))

    def complete(self, job: Job, now: float) -> None:
        del self.running[job.id]

    def free(self) -> tuple[int, ...]:
        used = [sum(w[i] for _, w in self.running.values()) for i in range(len(self.capacity))]
        return tuple(c - u for c, u in zip(self.capacity, used, strict=True))

    @staticmethod
    def fits(need: tuple[int, ...], room: tuple[int, ...]) -> bool:
        return all(n <= r for n, r in zip(need, room, strict=True))

    def schedule(self, now: float) -> list[Job]:
        order = [job for _, job in sorted(self.queue, key=lambda e: (self.priority(e[1], now), e[0]))]
        started = self._through_profile(order, now) if self.through_profile else self._classic(order, now)
        ids = {j.id for j in started}
        self.queue = [e for e in self.queue if e[1].id not in ids]
        return started

    def _classic(self, order: list[Job], now: float) -> list[Job]:
        started: list[Job] = []
        self.res = {}
        k = 0
        while k < len(order) and self.fits(self.width(order[k]), self.free()):
            self._start(order[k], now, self.width(order[k]))
            started.append(order[k])
            k += 1
        if k == len(order):
            return started
        head = self.width(order[k])
        free = self.free()
        ends = sorted({end for end, _ in self.running.values()})

        def room_at(t: float) -> tuple[int, ...]:
            # What is free once every running job planned to end by t has ended.
            back = [sum(w[i] for e, w in self.running.values() if e <= t) for i in range(len(free))]
            return tuple(f + b for f, b in zip(free, back, strict=True))

        shadow = next(t for t in ends if self.fits(head, room_at(t)))
        extra = [r - h for r, h in zip(room_at(shadow), head, strict=True)]
        self.res[order[k].id] = shadow
        rest = order[k + 1 :]
        if self.backfill_order is not None:
            rest = sorted(rest, key=lambda job: self.backfill_order(job, now))  # type: ignore[misc]
        for job in rest:
            w = self.width(job)
            if not self.fits(w, self.free()):
                continue
            if now + job.estimate > shadow:
                if not self.fits(w, tuple(extra)):
                    continue
                extra = [x - a for x, a in zip(extra, w, strict=True)]
            self._start(job, now, w)
            started.append(job)
        return started

    def _through_profile(self, order: list[Job], now: float) -> list[Job]:
        profile = NaiveResourceProfile(self.capacity)
        profile.origin = now
        profile.intervals = [(now, end, w) for end, w in self.running.values() if end > now]
        started: list[Job] = []
        self.res = {}
        for job in order:
            w, d = self.width(job), job.estimate
            if d == 0:
                self._start(job, now, tuple(0 for _ in w))  # it ends at once, holding nothing
            elif profile.fits(now, w, d):
                profile.intervals.append((now, now + d, w))
                self._start(job, now, w)
            else:
                if self.depth is not None and len(self.res) >= self.depth:
                    continue
                s = profile.earliest_fit(now, w, d)
                profile.intervals.append((s, s + d, w))
                self.res[job.id] = s
                continue
            started.append(job)
        return started

    def _start(self, job: Job, now: float, width: tuple[int, ...]) -> None:
        self.running[job.id] = (now + job.estimate, width)

    def next_wakeup(self) -> float | None:
        return None

    def reservations(self) -> Mapping[int, float]:
        return self.res

    def copy(self) -> NaiveEASY:
        return copy.deepcopy(self)


class NaivePC(NaiveConservative):
    """PC as Lindsay et al. (2013, §2.1) state it: remove and re-insert jobs in priority order.

    After every successful move the pass starts again at the head of the compression queue (unless
    ``restart`` is False, the one-pass arrival-order variant).
    """

    def __init__(
        self,
        priority: Callable[[Job, float], Any],
        restart: bool = True,
        resources: tuple[Resource, ...] = (),
    ) -> None:
        super().__init__(resources)
        self.priority = priority
        self.restart = restart
        self.name = "NaivePC"

    def _order(self, now: float) -> list[int]:
        return sorted(self.queued, key=lambda k: (self.priority(self.queued[k][2], now), self.queued[k][1]))

    def _try_move(self, jid: int, now: float, limit: float = float("inf"), only_now: bool = False) -> bool:
        s, seq, job = self.queued[jid]
        if s <= now:
            return False
        prof = self._profile(exclude=jid)
        if only_now:
            new = now if prof.fits(now, self.width(job), job.estimate) else s
        else:
            new = prof.earliest_fit(now, self.width(job), job.estimate)
        assert new <= s
        if new < s and new < limit:
            self.queued[jid] = (new, seq, job)
            self.changes.append((jid, new))
            return True
        return False

    def _compress(self, now: float) -> None:
        order = self._order(now)
        i = 0
        while i < len(order):
            if self._try_move(order[i], now) and self.restart:
                i = 0
                continue
            i += 1
        self.dirty = False

    def next_wakeup(self) -> float | None:
        return min((v[0] for v in self.queued.values()), default=None)


class NaiveDC(NaivePC):
    """DC as Lindsay et al. (2013, §2.2) state it, with this library's reading of "reaching a hole".

    At every completion, and after an arrival that moved a job, jobs that fit now move to now in
    priority order; an arrival first moves every higher-priority job whose earliest start is before
    the new job's estimated completion, then takes its earliest fit.
    """

    def __init__(self, priority: Callable[[Job, float], Any], resources: tuple[Resource, ...] = ()) -> None:
        super().__init__(priority, resources=resources)
        self.name = "NaiveDC"

    def complete(self, job: Job, now: float) -> None:
        self.running.pop(job.id)
        self.dirty = True

    def _compress(self, now: float) -> None:
        # Fill idle processors now: only moves to the current time.
        self.dirty = False
        free = self._profile().free_at(now)
        # Every job asks a processor at least: none fits now without one (with resources too).
        if (free if not self.resources else free[0]) <= 0:
            return
        order = self._order(now)
        i = 0
        while i < len(order):
            if self._try_move(order[i], now, only_now=True):
                i = 0
                continue
            i += 1

    def submit(self, job: Job, now: float) -> None:
        if self.dirty:
            self._compress(now)
        self.seq += 1
        key = (self.priority(job, now), self.seq)
        ahead = [
            k for k in self._order(now) if (self.priority(self.queued[k][2], now), self.queued[k][1]) < key
        ]
        i = 0
        while i < len(ahead):
            end = self._profile().earliest_fit(now, self.width(job), job.estimate) + job.estimate
            if self._try_move(ahead[i], now, limit=end):
                self.dirty = True
                i = 0
                continue
            i += 1
        s = self._profile().earliest_fit(now, self.width(job), job.estimate)
        self.queued[job.id] = (s, self.seq, job)
        self.changes.append((job.id, s))


def naive_start_over_reservations(
    capacity: Any,
    now: float,
    running: list[tuple[float, Any]],
    queued: list[tuple[Job, int, float]],
    chosen: list[Job],
    limit: Callable[[Job], float],
    width: Callable[[Job], Any] | None = None,
) -> list[tuple[int, float, float]] | None:
    """The displacement rule of the slack schedulers, on a plain list of intervals.

    ``running`` holds (end, width) of running jobs, ``queued`` (job, arrival seq, planned start)
    of every queued job. Returns the ``(job id, old, new)`` moves, or None if one passes its limit.
    With ``width`` (job -> tuple of amounts) and a tuple ``capacity``, on vectors: a shortage is an
    instant where some resource falls short, and the reservation that gives way is the latest-arrived
    one covering it that holds some resource short there.
    """
    vectors = width is not None
    size = (lambda job: job.processors) if width is None else width
    chosen_ids = {j.id for j in chosen}
    prof: Any = NaiveResourceProfile(tuple(capacity)) if vectors else NaiveProfile(capacity)
    prof.origin = now
    prof.intervals = [(now, end, p) for end, p in running if end > now]
    held: dict[int, tuple[float, float, Any]] = {}
    for job, _, start in queued:
        if job.id not in chosen_ids and job.estimate > 0:
            held[job.id] = (start, start + job.estimate, size(job))
    seq = {job.id: s for job, s, _ in queued}
    planned = {job.id: start for job, _, start in queued}
    jobs = {job.id: job for job, _, _ in queued}
    displaced: list[int] = []

    def free_at(t: float) -> Any:
        if not vectors:
            return prof.free_at(t) - sum(p for a, b, p in held.values() if a <= t < b)
        free = list(prof.free_at(t))
        for a, b, amounts in held.values():
            if a <= t < b:
                free = [f - x for f, x in zip(free, amounts, strict=True)]
        return free

    def short(t: float, need: Any) -> list[int]:
        if not vectors:
            return [0] if free_at(t) < need else []
        return [i for i, (f, x) in enumerate(zip(free_at(t), need, strict=True)) if f < x]

    def holds(amounts: Any, resources: list[int]) -> bool:
        return amounts > 0 if not vectors else any(amounts[i] > 0 for i in resources)

    for job in chosen:
        end = now + job.estimate
        need = size(job)
        while True:
            bounds = {x for a, b, _ in [*prof.intervals, *held.values()] for x in (a, b) if now < x < end}
            points = sorted({now} | bounds) if end > now else []
            t = next((x for x in points if short(x, need)), None)
            if t is None:
                break
            lacking = short(t, need)
            covering = [i for i, (a, b, p) in held.items() if a <= t < b and holds(p, lacking)]
            victim = max(covering, key=lambda i: seq[i])
            del held[victim]
            displaced.append(victim)
        if end > now:
            prof.intervals.append((now, end, need))
    prof.intervals += list(held.values())
    moves = []
    for i in sorted(displaced, key=lambda i: seq[i]):
        job = jobs[i]
        new = prof.earliest_fit(now, size(job), job.estimate)
        if new > limit(job):
            return None
        if job.estimate > 0:
            prof.intervals.append((new, new + job.estimate, size(job)))
        moves.append((i, planned[i], new))
    return moves
