"""EASY backfilling (Lifka 1995): a reservation for the head of the queue, or for the first ``depth`` jobs."""

from __future__ import annotations

import math
import sys
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from backfill._validators import optional_callable, optional_positive_int, optional_seconds
from backfill.errors import ParameterError
from backfill.profile import Profile
from backfill.schedulers._window import limit_names, reach_time
from backfill.schedulers.priorities import Priority, priority_name
from backfill.schedulers.queue import Entry, QueueScheduler
from backfill.workloads.workload import Job

__all__ = ["EASY"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class EASY(QueueScheduler):
    """EASY backfilling ordered by any priority, with reservations for the first ``depth`` blocked jobs.

    At each decision, jobs start in queue order while they fit. The first that does not fit (the head)
    gets a reservation at the *shadow time*, the earliest time enough running jobs will have ended by
    their estimates; the processors left over at that time are the *extra* processors. A later job
    backfills if it fits now and either ends (by its estimate) before the shadow time or uses only extra
    processors. Since running jobs can only end earlier than estimated and backfilled jobs never delay
    it, the head's reservation never moves later while it stays the head.

    **Depth.** With ``depth=k`` (the *reservation depth*), the first k queued jobs that cannot start
    get a reservation, not only the head; ``None`` reserves for every one. Each decision plans afresh,
    and no reservation carries over to the next one: the queue is gone through in priority order
    against a profile of the running jobs (planned by their estimates). A job that fits now, without
    delaying any reservation made so far in this pass, starts. Otherwise, while fewer than k jobs hold
    a reservation, it is reserved at its earliest fit and put into the profile, so that no later job
    can delay it; after the k-th reservation a job that does not fit now is skipped. A job of zero
    estimate occupies nothing in the profile, so it always fits and starts at once. For jobs of
    positive estimate, ``depth=1`` in this form is exactly the classic rule above (see ``_pass``),
    which stays its implementation, being faster.

    **Guarantees** (``tests/test_easy_depth.py`` checks each with hypothesis and keeps the
    counterexamples). ``depth=1`` keeps EASY's: the head's reservation never moves later while it is
    the head, under any priority. Deeper reservations are weaker, because each pass re-plans in
    priority order rather than in the order of the planned starts (as Conservative's compression
    does). When a running job ends early, a job reserved ahead can move earlier onto the place of one
    reserved behind it, which then moves later: with inexact estimates and ``depth >= 2`` a
    reservation can move later while it is held, even under FCFS. With FCFS and exact estimates that
    cannot happen: no reservation is ever withdrawn or moved, a reserved job starts exactly at its
    reservation, and with ``depth=None`` every job that waits is reserved on arrival, so its start is
    known then, as under Conservative. Under another priority a job that comes ahead of a reserved
    one (an arrival with a smaller key, or a time-dependent key overtaking it) takes its reservation
    away, logged as NaN as for EASY's head, even if it gets one back in the same pass. With exact
    estimates a reservation then never moves later while held under a static priority, at any depth;
    under LXF that holds at depth 2 but not from depth 3, where a reordering among the jobs ahead can
    move one of them earlier.

    **Cost.** ``depth=1`` costs what classic EASY does (see :meth:`schedule`). Deeper, the running
    jobs are kept in a :class:`~backfill.profile.Profile` (reserved at start, the unused part
    released at an early completion) and each full pass plans on a copy of it: O(n + q + m (log n +
    s)) for q queued jobs, a profile of n steps, and m <= q searches and updates (one per reservation,
    one per job that fits now but ends after the first reservation), each scanning s steps. Past the
    last reservation, a job wider than the processors free now is skipped without a search, and so is
    one at least as wide and as long as a job that failed to fit. With a static priority, a decision
    after arrivals alone looks only at the new jobs, unless one sorts before the last reservation.
    ``depth=None`` makes every blocked job a search: O(q s) per pass, s growing with the queue.

    Args:
        priority: Queue order (smallest key first, ties by arrival). FCFS gives classic EASY,
            :func:`~backfill.schedulers.priorities.lxf` gives LXF-backfill,
            :func:`~backfill.schedulers.priorities.sjf` SJF-EASY.
        depth: How many blocked jobs get a reservation at each decision: a positive int, or None for
            all of them. 1 (the default) is classic EASY.
        backfill_order: The order in which the jobs behind the head are tried for backfilling (a
            priority; ties keep the queue order); None tries them in queue order. ``sjf`` gives
            Tsafrir et al. (2007)'s SJBF, "shortest job backfilled first". Classic EASY only.
        planning_window: Slurm's ``bf_window``, in seconds: a job whose earliest fit lies more than
            this after now gets no reservation in this pass (nor counts towards ``depth``), so later
            jobs may backfill over its place; a decision comes when it would be within reach. None
            plans without a horizon.
        max_tested: Slurm's ``bf_max_job_test``: each decision starts jobs in priority order while they
            fit (as Slurm's main scheduler does), then goes through at most N jobs from the first
            that does not start (included); the rest wait for a later decision. None tests them all.

    With either limit set, every decision is a full pass of the general path (depth 1 included).

    Raises:
        ParameterError: If ``depth`` or ``max_tested`` is neither an int nor None, or is below 1, or
            ``planning_window`` is neither None nor a finite number >= 0.

    Examples:
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

        With depth 2 the second blocked job is reserved too, and a job that would delay it waits. Job
        3 (1 processor, 20 s) fits now and uses only extra processors at the head's reservation, so
        classic EASY starts it; but it would still run when job 2 needs the whole machine at 15:

        >>> jobs[2] = Job(id=2, submit=0.0, processors=4, runtime=5.0, estimate=5.0)
        >>> for s in (EASY(), EASY(depth=2)):
        ...     s.reset(4, now=0)
        ...     for job in jobs:
        ...         s.submit(job, now=0)
        ...     print(s.name, [j.id for j in s.schedule(now=0)], dict(s.reservations()))
        EASY(fcfs) [0, 3] {1: 10.0}
        EASY(fcfs, depth=2) [0] {1: 10.0, 2: 15.0}
    """

    depth: int | None = attrs.field(default=1, validator=optional_positive_int)
    backfill_order: Priority | None = attrs.field(default=None, kw_only=True, validator=optional_callable)
    planning_window: float | None = attrs.field(default=None, kw_only=True, validator=optional_seconds)
    max_tested: int | None = attrs.field(default=None, kw_only=True, validator=optional_positive_int)

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
    # The general path, taken for any depth but 1 (and at depth 1 when a test asks for it). The running
    # jobs live in ``_profile`` (reserved at start, the unused part released at completion); a full
    # pass plans on ``_plan``, a copy with the pass's reservations added, which the arrivals-only
    # shortcut goes on using. ``_first`` is the earliest reserved start. The cache fields above serve
    # here too, with ``_head`` the last reserved entry of the pass.
    _deep: bool = attrs.field(init=False, default=False)
    _always_plan: bool = attrs.field(init=False, default=False)
    _limit: int = attrs.field(init=False, default=1)
    # A window or a test limit makes every decision a full pass (the arrivals' shortcut assumes the
    # last pass decided every job); ``_reach``: when a job it left unreserved comes within reach.
    _limited: bool = attrs.field(init=False, default=False)
    _reach: float = attrs.field(init=False, default=math.inf)
    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _plan: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _first: float = attrs.field(init=False, default=math.inf)
    # The reserved entries of the latest pass in its order, and (static priority) the smallest entry
    # that arrived ahead of the last of them since, to tell which reservations were overtaken.
    _held: list[Entry] = attrs.field(init=False, factory=list)
    _overtaker: Entry | None = attrs.field(init=False, default=None)

    @property
    def name(self) -> str:
        """Short readable name: ``EASY(fcfs)`` at depth 1, else ``EASY(fcfs, depth=4)``, ``depth=inf``."""
        extras = self._extras()
        if not extras:
            return super().name
        return f"{type(self).__name__}({priority_name(self.priority)}, {', '.join(extras)})"

    def __repr__(self) -> str:
        extras = self._extras(repr=True)
        if not extras:
            return super().__repr__()
        return f"{type(self).__name__}(priority={priority_name(self.priority)}, {', '.join(extras)})"

    def _extras(self, repr: bool = False) -> list[str]:
        """The parameters that differ from classic EASY's, as ``name=value`` for the name or repr."""
        extras = []
        if self.depth != 1:
            extras.append(f"depth={self.depth if repr or self.depth is not None else 'inf'}")
        if self.backfill_order is not None:
            extras.append(f"backfill_order={priority_name(self.backfill_order)}")
        return extras + limit_names(self.planning_window, self.max_tested)

    def __attrs_post_init__(self) -> None:
        self._check_backfill_order()

    def _check_backfill_order(self) -> None:
        if self.backfill_order is not None and (self.depth != 1 or self._always_plan or self._limited):
            raise ParameterError(
                f"{self.name}: a backfill order is for classic EASY (depth 1, no planning window or "
                "test limit); the general path tries the queue in priority order only"
            )

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._ends = []
        self._head = None
        self._fresh = []
        self._full = True
        self._clear_log()
        self._limited = self.planning_window is not None or self.max_tested is not None
        self._deep = self.depth != 1 or self._always_plan or self._limited
        self._check_backfill_order()
        self._limit = sys.maxsize if self.depth is None else self.depth
        if self._deep:
            self._profile = Profile(machine_size, origin=now)
            self._plan = self._profile.copy()
        self._first = self._reach = math.inf
        self._held = []
        self._overtaker = None

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job. O(log q)."""
        entry = self._enqueue(job, now)
        if entry is None or self._head is None or entry < self._head:
            self._full = True
            # A static entry sorting before the last reservation comes ahead of it; see _overtaken.
            if (
                self._deep
                and entry is not None
                and self._head is not None
                and (self._overtaker is None or entry < self._overtaker)
            ):
                self._overtaker = entry
        elif not self._full:
            self._fresh.append(entry)

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job. O(log r) plus a C-level memmove; deeper, O(log n + k)."""
        entry = self._finish(job, now)  # raises if it was not running
        if self._deep:
            # Give back what the job would have used after now; its planned end is entry[0].
            if now < entry[0]:
                self._profile._release(now, entry[0], entry[2])
        else:
            ends = self._ends
            del ends[bisect_left(ends, entry)]
        self._full = True

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its plan to end at ``end``: O(log r), deeper O(log n + k)."""
        old = self._running.get(job.id)
        super().extend(job, end, now)  # raises if it is not running or not extended
        assert old is not None
        if self._deep:
            low = max(old[0], now)
            if end > low and old[2]:
                self._profile._reserve(low, end, old[2])
        else:
            ends = self._ends
            del ends[bisect_left(ends, old)]
            insort(ends, self._running[job.id])
        self._full = True

    def _start(self, job: Job, now: float, seq: int) -> None:
        super()._start(job, now, seq)
        insort(self._ends, self._running[job.id])

    def schedule(self, now: float) -> list[Job]:
        """Start what fits, reserve for the head, backfill the rest.

        O(q + r) for a full pass (plus O(q log q) sorting for a time-dependent priority); when only
        arrivals happened since the last pass, O(a log a) for the a new jobs. For a depth other than 1,
        see the class docstring.
        """
        if now != self._now:  # a time already checked, or the door's check of a new one
            self._door_time(now)
        if self._deep:
            return self._schedule_deep(now)
        started: list[Job] = []
        taken: list[Entry] = []
        if not self._full:
            fresh = self._in_backfill_order(sorted(self._fresh), now)
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
                self._backfill(self._in_backfill_order(queue, now), now, started, taken)
        if taken:
            self._dequeue(taken, now)
        return started

    def next_wakeup(self) -> float | None:
        """When a job left unreserved for the planning window comes within it, else None."""
        return self._reach if self._now < self._reach < math.inf else None

    def _in_backfill_order(self, entries: Iterable[Entry], now: float) -> Iterable[Entry]:
        """The entries behind the head in ``backfill_order`` (a stable sort: ties keep the queue order).

        The arrivals-only shortcut stays exact: the jobs queued at the last pass still cannot start.
        """
        order = self.backfill_order
        if order is None:
            return entries
        return sorted(entries, key=lambda entry: order(entry[2], now))

    def _log_changes(self, old: dict[int, float], previous: int | None, overtaken: bool) -> None:
        """Log the head's reservation changes; ``previous`` is the old head if it is still queued."""
        new = self._reserved
        if previous is not None and (overtaken or previous not in new):
            self._changes.append((previous, math.nan))
            old = {}
        for job_id, start in new.items():
            if old.get(job_id) != start:
                self._changes.append((job_id, start))

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
            if not self._static:
                self._head = None
            self._full = self._head is None or self._limited
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
        for job. ``tests/test_easy_depth.py`` checks the two paths against each other.
        """
        plan = self._plan
        earliest_fit = plan.earliest_fit
        min_free = plan.min_free
        # Unchecked updates: the checked reserve() would only re-verify the fit just established, at
        # a third of the cost of a deep pass.
        add = plan._add
        hold = self._profile._add
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
            p = job.processors
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
                        running[job.id] = (end, entry[1], 0)
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
            if old.get(job.id) != start:
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

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._ends = self._ends.copy()
        other._fresh = self._fresh.copy()
        other._profile = self._profile.copy()
        other._plan = self._plan.copy()
        other._held = self._held.copy()
