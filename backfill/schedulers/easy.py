"""EASY backfilling (Lifka 1995): a reservation for the head of the queue, or for the first ``depth`` jobs.

:class:`EASY` is the public class. Its plain path, in this module, is the algorithm as Mu'alem and
Feitelson (2001) state it, a full pass at every decision: jobs start in queue order while they fit;
the first that does not (the head) is reserved at its shadow time; a later job backfills if it fits
now and ends by the shadow time or uses only the extra processors. Two other paths sit behind a seam,
each in a private module and each kept equal to this one by differential tests
(``tests/test_easy_paths.py``):

* :mod:`backfill.schedulers._easy_arrivals`: after arrivals alone, with a static priority, a decision
  looks at the new jobs only (what a full pass would do, without going through the whole queue);
* :mod:`backfill.schedulers._easy_depth`: reservations for the first ``depth`` blocked jobs through a
  profile, for any depth but 1 and for a planning window or test limit (at depth 1 it is the plain
  path job for job, for jobs of positive estimate).
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Iterable
from operator import le
from typing import Any, ClassVar

import attrs

from backfill._validators import optional_callable, optional_positive_int, optional_seconds
from backfill.errors import ParameterError
from backfill.profile import Profile
from backfill.schedulers._easy_arrivals import ArrivalsShortcut
from backfill.schedulers._easy_depth import DeepReservations
from backfill.schedulers._window import limit_names
from backfill.schedulers.machinery.compiled import (
    EASY_DEPTH_RUN,
    EASY_RUN,
    STATIC_PRIORITIES,
    WholeRun,
    whole_run_settings,
)
from backfill.schedulers.machinery.priorities import Priority, priority_name
from backfill.schedulers.machinery.queue import Entry, QueueScheduler
from backfill.workloads.workload import Job

__all__ = ["EASY"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class EASY(QueueScheduler, DeepReservations, ArrivalsShortcut):
    """EASY backfilling ordered by any priority, with reservations for the first ``depth`` blocked jobs.

    At each decision, jobs start in queue order while they fit. The first that does not fit (the head)
    gets a reservation at the *shadow time*, the earliest time enough running jobs will have ended by
    their estimates; the processors left over at that time are the *extra* processors. A later job
    backfills if it fits now and either ends (by its estimate) before the shadow time or uses only extra
    processors. Since running jobs can only end earlier than estimated and backfilled jobs never delay
    it, the head's reservation never moves later while it stays the head.

    **Two rules a subclass or a rewrite gets wrong** (a scheduler of your own on
    :class:`~backfill.schedulers.QueueScheduler`, as ``docs/how-to/scheduler.md`` writes one):

    1. *A job that passes the head withdraws the head's reservation.* When, at a decision, another
       job comes ahead of the job reserved at the previous one (an arrival with a smaller key, or a
       time-dependent key overtaking it), whether it starts now or becomes the new head, the old
       head loses its reservation, noted ``note_reservation(job_id, math.nan)``, even if it is
       reserved again in the same decision: the job ahead may hold what it was promised, so its
       shadow time can be later, and a reservation kept through that breaks the promise
       (:func:`~backfill.testing.check_holds` catches it under ``sjf``).
    2. *Every job ending at the shadow time counts into the extra.* Running jobs are counted in
       planned-end order up to the shadow time *included*: each job planned to end exactly then
       frees its processors (its amounts, with resources) into the extra, not only those needed to
       reach the head's width.

    **Depth.** With ``depth=k`` (the *reservation depth*), the first k queued jobs that cannot start
    get a reservation, not only the head; ``None`` reserves for every one. Each decision plans afresh,
    and no reservation carries over to the next one: the queue is gone through in priority order
    against a profile of the running jobs (planned by their estimates). A job that fits now, without
    delaying any reservation made so far in this pass, starts. Otherwise, while fewer than k jobs hold
    a reservation, it is reserved at its earliest fit and put into the profile, so that no later job
    can delay it; after the k-th reservation a job that does not fit now is skipped. A job of zero
    estimate occupies nothing in the profile, so it always fits and starts at once. For jobs of
    positive estimate, ``depth=1`` in this form is exactly the classic rule above.

    **Which path runs.** Classic EASY (depth 1, no ``planning_window`` or ``max_tested``) runs the
    plain path of this module, :meth:`schedule`: a full pass as the papers state it, at every
    decision where something other than arrivals happened. After arrivals alone, under a static
    priority, it goes on from its last pass with the new jobs only
    (:mod:`backfill.schedulers._easy_arrivals`), which decides what a full pass would. Any other depth,
    or a window or test limit, runs the deeper-reservation path through a profile
    (:mod:`backfill.schedulers._easy_depth`), with the same arrivals-only shortcut. A subclass that
    sets ``accelerated = False`` makes every decision a full pass on its path, to read or debug the
    plain algorithm; ``tests/test_easy_paths.py`` requires the same starts, in the same order, and the
    same reservation log either way.

    **Resources.** Built with ``resources=[...]`` (:mod:`backfill.workloads.resources`), every
    width is an :class:`~backfill.workloads.amounts.Amounts` and the rule reads resource by
    resource. A job fits now when every amount fits in what is free now. The head's shadow time is
    the earliest planned end (running jobs releasing their amounts in planned-end order) at which
    every amount of the head is free; the extra is what is free then less the head's amounts, per
    resource (every job ending exactly then counts). A later job backfills if it fits now and either
    ends by the shadow time or fits in the extra in every resource, which then decreases by its
    amounts. So the head's reservation is kept in every resource, and it never moves later while
    the job stays the head, as with processors alone. Deeper, the profile is a
    :class:`~backfill.profile.ResourceProfile` and each search the earliest time where every amount
    fits. The arrivals-only shortcut holds resource by resource (free and extra amounts only shrink
    between completions), so it runs with resources too (``tests/test_resources_easy.py`` checks it
    against full passes); a job of zero estimate on the deeper path starts at once, holding nothing.

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

    **Cost.** Classic EASY: O(q + r) for a full pass over q queued and r running jobs (plus O(q log q)
    sorting for a time-dependent priority), O(a log a) after a arrivals alone. Deeper, the running
    jobs are kept in a :class:`~backfill.profile.Profile` (reserved at start, the unused part
    released at an early completion) and each full pass plans on a copy of it: O(n + q + m (log n +
    s)) for a profile of n steps and m <= q searches and updates (one per reservation, one per job
    that fits now but ends after the first reservation), each scanning s steps. Past the last
    reservation, a job wider than the processors free now is skipped without a search, and so is one
    at least as wide and as long as a job that failed to fit. ``depth=None`` makes every blocked job a
    search: O(q s) per pass, s growing with the queue.

    Args:
        priority: Queue order (smallest key first, ties by arrival). FCFS gives classic EASY,
            :func:`~backfill.schedulers.machinery.priorities.lxf` gives LXF-backfill,
            :func:`~backfill.schedulers.machinery.priorities.sjf` SJF-EASY.
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
        resources: Resources planned besides processors (see "Resources" above).

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

    #: Take the accelerations where they apply (True), or make every decision a full pass on the
    #: scheduler's path (False): the same starts and reservation log either way
    #: (``tests/test_easy_paths.py``). A subclass may set it False to read or debug the plain path.
    accelerated: ClassVar[bool] = True

    # The head's shadow time (the first depth jobs' with depth): note_reservation is refused
    # (SchedulerBase._check_note).
    _plans_reservations: ClassVar[str] = "the shadow time of the head, or of the first depth jobs"

    depth: int | None = attrs.field(default=1, validator=optional_positive_int)
    backfill_order: Priority | None = attrs.field(default=None, kw_only=True, validator=optional_callable)
    planning_window: float | None = attrs.field(default=None, kw_only=True, validator=optional_seconds)
    max_tested: int | None = attrs.field(default=None, kw_only=True, validator=optional_positive_int)

    # The plain path. Running jobs as (estimated end, seq, processors), sorted; a plain list kept with
    # C-level bisect beats a SortedList at the sizes machines have. The head's shadow time and the
    # extra processors left then (after the backfilling so far).
    _ends: list[tuple[float, int, int]] = attrs.field(init=False, factory=list)
    _shadow_time: float = attrs.field(init=False, default=0.0)
    _extra: int = attrs.field(init=False, default=0)
    # The arrivals-only shortcut (_easy_arrivals.py): the last full pass's head (on the deeper path,
    # its last reservation), the static entries that arrived since, and whether the next decision
    # must be a full pass. ``_shortcut``: whether the shortcut may run at all (set at reset).
    _head: Entry | None = attrs.field(init=False, default=None)
    _fresh: list[Entry] = attrs.field(init=False, factory=list)
    _full: bool = attrs.field(init=False, default=True)
    _shortcut: bool = attrs.field(init=False, default=False)
    # The deeper-reservation path (_easy_depth.py), taken for any depth but 1, a window or a test
    # limit (and at depth 1 when a test sets ``_always_plan``). The running jobs' profile and the
    # pass's plan, the earliest reserved start, the depth as a number, the reserved entries of the
    # pass in its order, the smallest arrival ahead of the last of them, and when a job the window
    # left unreserved comes within reach.
    _deep: bool = attrs.field(init=False, default=False)
    _always_plan: bool = attrs.field(init=False, default=False)
    _limited: bool = attrs.field(init=False, default=False)
    _limit: int = attrs.field(init=False, default=1)
    _profile: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _plan: Profile = attrs.field(init=False, factory=lambda: Profile(1))
    _first: float = attrs.field(init=False, default=math.inf)
    _held: list[Entry] = attrs.field(init=False, factory=list)
    _overtaker: Entry | None = attrs.field(init=False, default=None)
    _reach: float = attrs.field(init=False, default=math.inf)

    @property
    def name(self) -> str:
        """Short readable name: ``EASY(fcfs)`` at depth 1, else ``EASY(fcfs, depth=4)``, ``depth=inf``.

        Resources planned besides processors follow: ``EASY(fcfs, +memory)``.
        """
        extras = self._extras()
        if not extras:
            return super().name
        return f"{type(self).__name__}({priority_name(self.priority)}, {', '.join(extras)})"

    @property
    def classic(self) -> bool:
        """Whether decisions take the classic path of this module (chosen at :meth:`reset`).

        True for depth 1 with no ``planning_window`` or ``max_tested``; the deeper-reservation
        path decides otherwise (see "Which path runs" above).
        """
        return not self._deep

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
        return extras + limit_names(self.planning_window, self.max_tested) + self._resource_extras()

    # QueueScheduler comes first among the bases, so that ``super()`` in the hot ``_start`` finds it at
    # once; the shortcut's bookkeeping of arrivals is therefore named here.
    submit = ArrivalsShortcut.submit

    def __attrs_post_init__(self) -> None:
        self._check_backfill_order()

    def _check_backfill_order(self) -> None:
        if self.backfill_order is not None and (self.depth != 1 or self._always_plan or self._limited):
            raise ParameterError(
                f"{self.name}: a backfill order is for classic EASY (depth 1, no planning window or "
                "test limit); the general path tries the queue in priority order only"
            )

    def _whole_run(self) -> WholeRun | None:
        """The compiled kernel's run of exactly this scheduler, or None (see ``machinery.compiled``).

        EASY itself on processors alone under a static priority: at a depth other than 1 with no
        planning window or test limit, the deep path's full pass at every decision (what
        :attr:`accelerated`'s shortcut is proven equal to by ``tests/test_easy_paths.py``); at depth
        1, the classic path the scheduler chose at reset, with no backfill order or a static one (a
        test may send depth 1 through the general path, which differs for jobs of zero estimate).
        """
        if type(self) is not EASY or self.resources or self.priority not in STATIC_PRIORITIES:
            return None
        if (
            self.depth != 1
            and self.planning_window is None
            and self.max_tested is None
            and not self._always_plan
        ):
            return whole_run_settings(EASY_DEPTH_RUN, self.priority, depth=self.depth)  # type: ignore[arg-type]
        order = self.backfill_order
        if self.depth == 1 and (order is None or order in STATIC_PRIORITIES) and self.classic:
            return whole_run_settings(EASY_RUN, self.priority, order)
        return None

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._ends = []
        self._head = None
        self._fresh = []
        self._full = True
        self._clear_log()
        self._reset_deep(machine_size, now)  # chooses the path
        self._check_backfill_order()
        self._shortcut = self.accelerated and self._static and not self._limited and self.nodes is None

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job. O(log r) plus a C-level memmove; deeper, O(log n + k)."""
        entry = self._finish(job, now)  # raises if it was not running
        if self._deep:
            # The deeper path's profile gives back what the job would have used after now (inline:
            # a call per completion costs more than the release on a short profile). On nodes the
            # profile is the running jobs' placements, which QueueScheduler released.
            if now < entry[0] and self._running_nodes is None:
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
            self._extend_deep(old, end, now)
        else:
            ends = self._ends
            del ends[bisect_left(ends, old)]
            insort(ends, self._running[job.id])
        self._full = True

    def _start(self, job: Job, now: float, seq: int) -> None:
        super()._start(job, now, seq)
        insort(self._ends, self._running[job.id])

    def schedule(self, now: float) -> list[Job]:
        """Start what fits, reserve for the head, backfill the rest (Lifka 1995; Mu'alem & Feitelson 2001).

        The plain path, a full pass: O(q + r) (plus O(q log q) sorting for a time-dependent
        priority). Where an acceleration applies, it decides instead (see the class docstring): the
        arrivals-only shortcut in O(a log a) for the a new jobs, or the deeper-reservation path.
        """
        if now != self._now:  # a time already checked, or the door's check of a new one
            self._door_time(now)
        if self._deep:
            return self._schedule_deep(now)  # _easy_depth.py
        if not self._full:
            return self._schedule_arrivals(now)  # _easy_arrivals.py
        started: list[Job] = []
        taken: list[Entry] = []
        # 1. Jobs start in queue order while they fit; the first that does not is the head. The
        # previous head loses its reservation if a job ahead of it in today's order starts first (a
        # higher-priority arrival, or a time-dependent priority reordering the queue): for that
        # moment the other job was the head.
        queue = iter(self._ordered(now))
        head = None
        previous = next(iter(self._reserved), None)
        overtaken = False
        requests = self._requests
        for entry in queue:
            job = entry[2]
            if (job.processors if requests is None else requests[job.id]) <= self._free:
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
        # 2. The head's reservation: its shadow time, and the extra processors left then.
        old = self._reserved
        self._reserved = {}
        if head is not None:
            job = head[2]
            self._shadow_time, self._extra = self._shadow(
                job.processors if requests is None else requests[job.id]
            )
            self._reserved[head[2].id] = self._shadow_time
        self._log_changes(old, previous, overtaken)
        # 3. Backfill the jobs behind the head (in ``backfill_order`` if given: a stable sort, ties
        # keep the queue order).
        if head is not None:
            order = self.backfill_order
            rest = queue if order is None else sorted(queue, key=lambda entry: order(entry[2], now))
            self._backfill(rest, now, started, taken)
        # What the arrivals-only shortcut goes on from, while only arrivals come.
        self._head = head
        self._fresh = []
        self._full = head is None or not self._shortcut
        if taken:
            self._dequeue(taken, now)
        return started

    def next_wakeup(self) -> float | None:
        """When a job left unreserved for the planning window comes within it, else None."""
        return self._reach if self._now < self._reach < math.inf else None

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
        """Start the entries that fit now and do not delay the head's reservation, in order.

        A job backfills if it fits in the processors free now and either ends (by its estimate) by the
        shadow time or uses only extra processors, which it then takes. With resources, the same
        rule on every amount (:meth:`_backfill_amounts`).
        """
        if self._requests is not None:
            self._backfill_amounts(entries, now, started, taken)
            return
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

    def _backfill_amounts(
        self, entries: Iterable[Entry], now: float, started: list[Job], taken: list[Entry]
    ) -> None:
        """:meth:`_backfill` with resources: a job's amounts must fit now, and in the extra, in every one.

        The loop of a long queue: most jobs fail on processors, tested first as ints; the others are
        compared resource by resource at C level (``all(map(le, ...))``, which is what
        ``Amounts.__le__`` means, without a Python call per comparison).
        """
        free: Any = self._free
        shadow = self._shadow_time
        extra: Any = self._extra
        requests = self._requests
        assert requests is not None
        for entry in entries:
            if not free[0]:  # every job asks a processor
                break
            job = entry[2]
            p = requests[job.id]
            # Processors first, as ints: the likeliest shortfall, now or in the extra.
            if p[0] > free[0]:
                continue
            within = now + job.estimate <= shadow
            if not within and p[0] > extra[0]:
                continue
            if not all(map(le, p, free)) or not (within or all(map(le, p, extra))):
                continue
            if not within:
                extra -= p
            self._start(job, now, entry[1])
            free -= p
            started.append(job)
            taken.append(entry)
        self._extra = extra

    def _shadow(self, processors: int) -> tuple[float, int]:
        """Return when ``processors`` will be free by running jobs' estimates, and the surplus then.

        Every job ending exactly at the shadow time frees its processors then, so all of them count
        towards the extra processors. With resources, ``processors`` and the surplus are Amounts:
        the shadow time is the first planned end at which every amount is free. O(r) in the worst
        case.
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

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._ends = self._ends.copy()
        other._fresh = self._fresh.copy()
        self._copy_deep(other)
