"""EASY's deeper-reservation path: reservations for the first ``depth`` blocked jobs, through a profile.

:class:`~backfill.schedulers.EASY` takes this path whenever ``depth`` is not 1, or a
``planning_window`` or ``max_tested`` is set (and at depth 1 when ``_always_plan`` is set on an
instance, which the tests use to compare it with the plain path). Each decision goes through the
queue in priority order against a profile of the running jobs, planned by their estimates: a job that
fits now without delaying a reservation made so far in this pass starts; otherwise, while fewer than
``depth`` jobs hold a reservation, it is reserved at its earliest fit and put into the profile; after
that it is skipped. At depth 1 and for jobs of positive estimate this is classic EASY job for job (the
argument is in :meth:`DeepReservations._pass`); a job of zero estimate fits anywhere, so this path
starts it at once where classic EASY waits for free processors.

The running jobs live in ``_profile`` (reserved at start, the unused part released at an early
completion); a full pass plans on ``_plan``, a copy of it with the pass's reservations added. With a
static priority, a decision after arrivals alone goes on from where the last pass stopped, with the
new jobs only (:meth:`DeepReservations._schedule_deep`), unless one sorts before the last reservation
or ``EASY.accelerated`` is False.

``tests/test_easy_depth.py`` compares this path with a naive re-planner that builds the profile from
scratch at every decision, and ``tests/test_easy_paths.py`` with the plain path (depth 1) and with
itself deciding every time by a full pass.
"""

from __future__ import annotations

import math
import sys
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from backfill.profile import Profile
from backfill.profile.nodes import NodeProfile
from backfill.profile.placement import PLACEMENTS
from backfill.schedulers._window import reach_time
from backfill.schedulers.machinery.queue import Entry
from backfill.workloads.workload import Job

__all__ = ["DeepReservations"]


class DeepReservations:
    """EASY's path for any depth but 1 (and for a planning window or test limit); mixed into EASY.

    Its state lives in the scheduler (declared there): ``_profile``, ``_plan``, ``_first`` (the
    earliest reserved start of the pass), ``_held`` (the reserved entries in pass order),
    ``_overtaker`` (the smallest static entry that arrived ahead of the last reservation since),
    ``_limit`` (the depth as a number), ``_limited`` and ``_reach`` (the window's and test limit's).
    """

    # No slots of its own, so that EASY's instances keep their layout (slots, no __dict__); hidden
    # from mypy, which would otherwise refuse the assignments to the scheduler's slots below.
    if not TYPE_CHECKING:
        __slots__ = ()

    depth: int | None
    planning_window: float | None
    max_tested: int | None
    _always_plan: bool
    _deep: bool
    _limited: bool
    _limit: int
    _reach: float
    _profile: Profile
    _plan: Profile
    _first: float
    _held: list[Entry]
    _overtaker: Entry | None
    _head: Entry | None
    _fresh: list[Entry]
    _full: bool
    _shortcut: bool
    _free: int
    _static: bool
    _key: Any
    _running: dict[int, tuple[float, int, int]]
    _reserved: dict[int, float]
    _changes: Any
    _requests: dict[int, Any] | None
    _running_nodes: NodeProfile | None
    nodes: Any
    placement: Any

    if TYPE_CHECKING:  # the scheduler's own, which this mixin calls

        def _ordered(self, now: float) -> Sequence[Entry]: ...

        def _new_profile(self, now: float) -> Profile: ...

        def _nothing(self) -> Any: ...

        def _dequeue(self, entries: list[Entry], now: float) -> None: ...

    def _reset_deep(self, machine_size: int, now: float) -> None:
        """Choose the path for the parameters, and give the deep path an empty profile if it runs."""
        self._limited = self.planning_window is not None or self.max_tested is not None
        self._deep = self.depth != 1 or self._always_plan or self._limited or self.nodes is not None
        self._limit = sys.maxsize if self.depth is None else self.depth
        if self._running_nodes is not None:
            self._profile = self._running_nodes  # type: ignore[assignment]  # one record of placements
            self._plan = self._profile.copy()
        elif self._deep:
            self._profile = self._new_profile(now)  # a ResourceProfile with resources
            self._plan = self._profile.copy()
        self._first = self._reach = math.inf
        self._held = []
        self._overtaker = None

    def _extend_deep(self, old: tuple[float, int, int], end: float, now: float) -> None:
        """Hold a running job's processors from its old planned end (or now) to ``end``. O(log n + k)."""
        low = max(old[0], now)
        if end > low and old[2] and self._running_nodes is None:  # (QueueScheduler extends a placement)
            self._profile._reserve(low, end, old[2])

    def _schedule_deep(self, now: float) -> list[Job]:
        """Decide on the general path: re-plan the whole queue, or only the new jobs when that is exact."""
        self._profile._advance(now)
        started: list[Job] = []
        taken: list[Entry] = []
        if not self._full:
            # Only arrivals since the last pass, and all of them sort after its last reservation. The
            # jobs queued then would be decided exactly as before: nothing ended, so no step of the
            # profile lies between the last pass and now (a running job ends at or before its
            # estimate, and that completion forces a full pass), free processors only shrank, and no
            # reservation starts before now. So the pass goes on where it stopped, with the new jobs.
            fresh = sorted(self._fresh)
            self._fresh = []
            self._plan.advance(now)
            self._pass(fresh, now, started, taken, {}, set())
        else:
            # Copying the running jobs' profile is cheaper than taking the last pass's reservations
            # out of it one by one: a copy is one pass over the profile's breakpoints, the removals as
            # many searches as there were reservations.
            self._plan = self._profile.copy()
            self._first = math.inf
            order = self._ordered(now)
            old = self._reserved
            lost = self._overtaken(order, now)
            self._reserved = {}
            self._held = []
            self._head = None
            self._overtaker = None
            self._fresh = []
            kept = {job_id: start for job_id, start in old.items() if job_id not in lost} if lost else old
            self._pass(order, now, started, taken, kept, lost)
            # A job reserved in the last pass that neither holds a reservation now nor started lost it.
            new = self._reserved
            running = self._running
            for job_id in old:
                if job_id not in new and job_id not in running:
                    self._changes.append((job_id, math.nan))
            # The next decision goes on from this pass if only arrivals come (and the shortcut
            # applies: a static priority, no window or test limit, EASY.accelerated).
            self._full = self._head is None or not self._shortcut
        if taken:
            self._dequeue(taken, now)
        return started

    def _overtaken(self, order: Sequence[Entry], now: float) -> set[int]:
        """Return the ids of the jobs reserved in the last pass that another job has come ahead of.

        As for EASY's head, a reservation belongs to a place in the queue: the last pass planned the
        job behind exactly the reserved jobs ahead of it (every other job ahead had started). A job
        that is ahead of it now and was not then (an arrival with a smaller key, or a time-dependent
        key overtaking) re-plans it, so it loses its reservation and is logged with NaN, even if it
        gets one back in this pass.

        With a static priority only arrivals can come ahead, and the smallest of them was noted on
        submission: O(k) for k reservations. Otherwise each reserved job is looked up in the new
        order: O(k log q).
        """
        held = self._held
        if not held:
            return set()
        if self._static:
            overtaker = self._overtaker
            if overtaker is None:
                return set()
            return {entry[2].id for entry in held[bisect_right(held, overtaker) :]}
        # The last pass reserved held[i] behind held[:i] and nothing else still queued; it is
        # overtaken if it has any other job ahead of it now, that is, if fewer than its place in the
        # new order of the jobs ahead of it now are among held[:i].
        priority = self._key
        ahead: list[int] = []
        lost: set[int] = set()
        for entry in held:
            job = entry[2]
            place = bisect_left(order, (priority(job, now), entry[1]))
            if bisect_left(ahead, place) != place:
                lost.add(job.id)
            insort(ahead, place)
        return lost

    # Kept one loop: EASY's hot path with a depth, where named steps would add function calls per job
    # per pass to the Python path; the charter exempts speed-ups from the size of a function.
    def _pass(
        self,
        entries: Iterable[Entry],
        now: float,
        started: list[Job],
        taken: list[Entry],
        old: dict[int, float],
        lost: set[int],
    ) -> None:
        """Start or reserve ``entries`` in order, against the plan, and log reservations.

        A reservation is logged if it differs from ``old``; for a job in ``lost`` (overtaken, see
        :meth:`_overtaken`) a NaN comes first.

        A job starts if it fits now in the plan (running jobs, the jobs started in this pass, and the
        reservations made so far). Otherwise it is reserved at its earliest fit while fewer than
        ``depth`` jobs hold one, and skipped after that. A job of zero estimate occupies nothing in the
        plan, so it fits now and starts at once, counted as using no processors (it ends in the same
        instant; the simulator and the validator count it so too).

        Why this is classic EASY at depth 1 (for jobs of positive estimate; classic EASY makes a job of
        zero estimate wait for free processors): with only running jobs in the plan, the free
        processors never decrease over time, so a job fits in ``[now, now + estimate)`` exactly when
        it fits now; the first job that does not is the head, and its earliest fit is the shadow time.
        With the head reserved there, the free processors over ``[now, shadow)`` are still at least
        those free now, and from the shadow time on at least the extra processors, with exactly that
        many at the shadow time itself. So a later job fits over ``[now, now + estimate)`` exactly
        when it fits now and either ends by the shadow time or uses only extra processors, and starting
        it takes from the extra processors exactly when it runs past the shadow time: EASY's rule, job
        for job. ``tests/test_easy_paths.py`` checks the two paths against each other.
        """
        if self._running_nodes is not None:
            self._pass_nodes(entries, now, started, taken, old, lost)
            return
        plan = self._plan
        requests = self._requests
        if requests is None:
            earliest_fit = plan.earliest_fit
            min_free = plan.min_free
            # Unchecked updates: the checked reserve() would only re-verify the fit just established,
            # at a third of the cost of a deep pass.
            add: Callable[[float, float, Any], None] = plan._add
            hold: Callable[[float, float, Any], None] = self._profile._add
            nothing = 0
        else:
            # A ResourceProfile (typed a Profile, see SchedulerBase._new_profile): amounts, and
            # updates through _reserve, which takes what ``-delta`` asks.
            earliest_fit = plan._earliest_fit
            min_free = plan._min_free
            add = _taking(plan)
            hold = _taking(self._profile)
            nothing = self._nothing()
        running = self._running
        reserved = self._reserved
        held = self._held
        changes = self._changes
        limit = self._limit
        tests = sys.maxsize if self.max_tested is None else self.max_tested - 1
        window = self.planning_window or 0.0
        horizon = math.inf if self.planning_window is None else now + window
        reach = math.inf  # when the first job skipped for the window comes within it
        count = len(reserved)
        first = self._first
        free = self._free  # equals the plan's free processors now: nothing of zero estimate counts
        head = self._head
        # Jobs that did not fit now after the last reservation, as (processors, estimate). From then
        # on the plan only fills up, so a job at least as wide and as long cannot fit either and needs
        # no search. Kept short, newest last.
        failed: list[tuple[int, float]] = []
        counting = self.max_tested is not None
        blocked = False
        n = -1
        for entry in entries:
            if counting:
                # The test limit counts from the first job that did not start (the previous, if none did).
                if blocked or len(started) == n:
                    blocked = True
                    tests -= 1
                    if tests < 0:
                        break
                n = len(started)
            job = entry[2]
            p = job.processors if requests is None else requests[job.id]
            estimate = job.estimate
            if p <= free or not estimate > 0:
                end = now + estimate
                if end <= first:
                    # Before the first reservation the plan holds only running jobs and jobs started
                    # now, whose free processors never decrease over time: fitting now is enough.
                    fits = True
                elif count < limit:
                    fits = False
                else:
                    fits = True
                    for fp, fe in failed:
                        if fp <= p and fe <= estimate:
                            fits = False
                            break
                    else:
                        if min_free(now, end) < p:
                            fits = False
                            if len(failed) == 4:
                                del failed[0]
                            failed.append((p, estimate))
                    if not fits:
                        continue
                if fits:
                    if estimate > 0:
                        add(now, end, -p)
                        hold(now, end, -p)
                        free -= p
                        running[job.id] = (end, entry[1], p)
                    else:
                        running[job.id] = (end, entry[1], nothing)
                    started.append(job)
                    taken.append(entry)
                    continue
                # It may still fit now (the search finds that), or it is the next to be reserved.
            elif count >= limit:
                # Wider than the processors free now, past the last reservation: skipped unsearched.
                continue
            start = earliest_fit(now, p, estimate)
            if start > horizon:
                if (at := reach_time(start, window)) < reach:
                    reach = at
                continue
            end = start + estimate
            add(start, end, -p)
            if start == now:
                hold(now, end, -p)
                free -= p
                running[job.id] = (end, entry[1], p)
                started.append(job)
                taken.append(entry)
                continue
            reserved[job.id] = start
            held.append(entry)
            if old.get(job.id) != start:  # (inline, not _log_reserved: the pool's hot loop)
                if job.id in lost:
                    changes.append((job.id, math.nan))
                changes.append((job.id, start))
            count += 1
            head = entry
            if start < first:
                first = start
        self._free = free
        self._first = first
        self._head = head
        self._reach = reach

    def _pass_nodes(
        self,
        entries: Iterable[Entry],
        now: float,
        started: list[Job],
        taken: list[Entry],
        old: dict[int, float],
        lost: set[int],
    ) -> None:
        """:meth:`_pass` on a node machine: the same rule, every job placed on nodes.

        In queue order, a job starts if the policy places it over ``[now, now + estimate)`` in the
        plan (the running jobs, the jobs started in this pass and the reservations made so far, each
        on its nodes); it runs on the nodes the plan gave it. Otherwise, while fewer than ``depth``
        jobs hold a reservation, it is reserved at its earliest placement, on the nodes found there,
        so that later jobs backfill around those nodes; after that it is skipped. The argument of
        :meth:`_pass` that this is EASY at depth 1 holds node by node: a job fits over its whole
        interval exactly when it fits now on nodes the reservations leave alone until it ends. A job
        of zero estimate holds nothing and starts at once. O(q) searches of the plan.
        """
        plan = cast(NodeProfile, self._plan)
        running_nodes = cast(NodeProfile, self._profile)
        requests = self._requests
        assert requests is not None
        running, reserved, held, changes = self._running, self._reserved, self._held, self._changes
        limit = self._limit
        tests = sys.maxsize if self.max_tested is None else self.max_tested - 1
        window = self.planning_window or 0.0
        horizon = math.inf if self.planning_window is None else now + window
        reach = math.inf
        count = len(reserved)
        first, head = self._first, self._head
        counting = self.max_tested is not None
        blocked = False
        n = -1
        # Shapes that did not fit now, with the (shares, estimate) that failed: the plan only fills
        # up during a pass, so a job of that shape asking as much for as long fails too.
        failed: dict[Any, list[tuple[int, float]]] | None = (
            {} if self.placement in PLACEMENTS.values() else None
        )
        for entry in entries:
            if counting:
                if blocked or len(started) == n:
                    blocked = True
                    tests -= 1
                    if tests < 0:
                        break
                n = len(started)
            job = entry[2]
            demand = requests[job.id]
            estimate = job.estimate
            if not estimate > 0 or self._fits_now(plan, now, demand, estimate, failed):
                if estimate > 0:
                    plan._reserve(now, now + estimate, demand)
                    nodes, amounts = plan._placed[job.id][:2]
                    running_nodes._hold(job.id, nodes, amounts, now, now + estimate)
                running[job.id] = (now + estimate, entry[1], demand)
                started.append(job)
                taken.append(entry)
                continue
            if count >= limit:
                continue
            start = plan._earliest_fit(now, demand, estimate)
            if start > horizon:
                if (at := reach_time(start, window)) < reach:
                    reach = at
                continue
            plan._reserve(start, start + estimate, demand)
            reserved[job.id] = start
            held.append(entry)
            if old.get(job.id) != start:
                _log_reserved(changes, job.id, start, job.id in lost)
            count += 1
            head = entry
            if start < first:
                first = start
        self._first, self._head, self._reach = first, head, reach

    @staticmethod
    def _fits_now(
        plan: NodeProfile,
        now: float,
        demand: Any,
        estimate: float,
        failed: dict[Any, list[tuple[int, float]]] | None,
    ) -> bool:
        """Whether a job is placed over ``[now, now + estimate)`` in the plan.

        Ruled out unsearched if a job of its shape asking no more for no longer failed in this pass
        (``failed``, kept for the built-in policies, under which asking more never helps; None for
        a policy of a user's).
        """
        if failed is None:
            return plan._fits(now, demand, estimate)
        shape = demand.shape
        seen = failed.get(shape)
        if seen is not None and any(c <= demand.count and e <= estimate for c, e in seen):
            return False
        if plan._fits(now, demand, estimate):
            return True
        if seen is None:
            failed[shape] = [(demand.count, estimate)]
        else:
            if len(seen) == 4:
                del seen[0]
            seen.append((demand.count, estimate))
        return False

    def _copy_deep(self, other: Any) -> None:
        """Give a copy its own profiles and reserved entries."""
        if self._running_nodes is not None:
            other._profile = other._running_nodes  # QueueScheduler copied it
            other._plan = self._plan.copy()
            other._held = self._held.copy()
            return
        other._profile = self._profile.copy()
        other._plan = self._plan.copy()
        other._held = self._held.copy()


def _log_reserved(changes: Any, job_id: int, start: float, lost: bool) -> None:
    """Log a reservation that differs from the last pass's: after a NaN if the job was overtaken."""
    if lost:
        changes.append((job_id, math.nan))
    changes.append((job_id, start))


def _taking(profile: Profile) -> Callable[[float, float, Any], None]:
    """``profile._add`` for a ResourceProfile: take ``-delta`` (Amounts) over ``[start, end)``."""
    reserve = profile._reserve

    def add(start: float, end: float, delta: Any) -> None:
        reserve(start, end, -delta)

    return add
