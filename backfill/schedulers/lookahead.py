"""Backfilling with fairness and slack, with lookahead (Jin 2009, thesis chapter 4).

Conservative backfilling in FCFS order, plus a second look at every decision: among the first
``lookahead`` waiting jobs, a branch and bound finds the sets of jobs that could start now in the free
processors, letting them push other jobs' reservations back, but never past each pushed job's
*slack* (:class:`SlackFactor`). Of the sets found, goal :class:`G1` picks one close to FCFS that keeps
utilization high, goal :class:`G2` one that raises utilization most while staying reasonably close to
FCFS, by the thesis's ratio criteria (steps 9-11). With no set found it is plain Conservative.

The thesis runs this inside Scojo-PECT, a coarse-grain time-slicing scheduler with three job classes;
that preemptive host is out of scope here: the algorithm is applied to plain space sharing, on one
machine, with one queue. With ``resources=[...]`` a set is tried if all its amounts fit now (step 4,
per resource), reservations give way as :mod:`backfill.schedulers._displace` states for several
resources, and a set's utilization (the goals' third score) is that of the processors, the
thesis's measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import attrs

from backfill.errors import BackfillError, ScheduleError
from backfill.schedulers._displace import DisplacingConservative, Start
from backfill.schedulers._displace_nodes import fits_together
from backfill.workloads.workload import Job

__all__ = ["G1", "G2", "LookaheadSlack", "PackingScores", "SlackFactor"]


def _finite(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BackfillError(f"{attribute.name} must be a finite number, got {value!r}")


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    _finite(instance, attribute, value)
    if value <= 0:
        raise BackfillError(f"{attribute.name} must be positive, got {value!r}")


@attrs.frozen
class SlackFactor:
    """The slack factor of a waiting job from its expected wait, and the part of it usable now.

    Eq. 5: ``F_slack = min(up, k2 * exp(k1 * T_wait / unit) + down)``, where ``T_wait`` is the job's
    expected wait (its fair start time minus its submit time, both known at submission). A job
    expected to wait long gets a factor near ``down``, one expected to start soon up to ``up``: a
    long wait cannot afford to grow much more.

    Eq. 6-7: only part of it is usable at first, growing linearly with the time already waited,
    ``F_part = minimal + waited * (F_slack - minimal) / T_wait``, so that a job cannot be pushed back
    by its whole slack at the first backfill. We cap ``F_part`` at ``F_slack`` once the job has waited
    its expected wait (the thesis's ratio would go on growing), and a job expected to wait nothing
    (``T_wait = 0``) has ``F_part = F_slack``: its allowed wait, ``F_part * T_wait``, is 0 anyway.

    **Units.** The thesis gives ``k1 = -0.5`` and plots (Fig. 6) the factor against the wait in
    seconds: about 1.50 at 5,000 s, 1.21 at 65,000 s and 1.20 at 125,000 s. With the wait in seconds
    the factor would be 1.2 from the first second, and in hours it would be 1.40 at 5,000 s; with the
    wait in units of 10,000 s, eq. 5 gives 1.50 (1.511 capped), 1.2155 and 1.2008, the plotted
    values. So ``unit`` defaults to 10,000 s.

    A job may then wait ``F_part * T_wait`` in all: the scheduler lets a backfill delay it only
    while its planned start stays at or before ``submit + F_part * T_wait``.

    Args:
        up: ``SLACK_UP``, the largest factor (1.5).
        down: ``SLACK_DOWN``, the factor of a very long expected wait (1.2).
        minimal: ``SLACK_MINIMAL``, the part usable before the job has waited at all (1.1).
        k1: ``K1``, the decay rate per ``unit`` of expected wait (-0.5).
        k2: ``K2``, the factor's excess over ``down`` for a zero expected wait (0.4).
        unit: Seconds per unit of wait in eq. 5 (10,000; see above).

    Examples:
        >>> slack = SlackFactor()
        >>> [round(slack.factor(t), 4) for t in (5_000.0, 65_000.0, 125_000.0)]
        [1.5, 1.2155, 1.2008]
        >>> round(slack.usable(65_000.0, waited=0.0), 4), round(slack.usable(65_000.0, waited=32_500.0), 4)
        (1.1, 1.1578)
        >>> round(slack.latest_start(submit=100.0, expected_wait=10_000.0, waited=10_000.0), 1)
        14526.1
    """

    up: float = attrs.field(default=1.5, validator=_positive)
    down: float = attrs.field(default=1.2, validator=_positive)
    minimal: float = attrs.field(default=1.1, validator=_positive)
    k1: float = attrs.field(default=-0.5, validator=_finite)
    k2: float = attrs.field(default=0.4, validator=_finite)
    unit: float = attrs.field(default=10_000.0, validator=_positive)

    def factor(self, expected_wait: float) -> float:
        """Return ``F_slack`` (eq. 5) for a job expected to wait ``expected_wait`` seconds."""
        return min(self.up, self.k2 * math.exp(self.k1 * expected_wait / self.unit) + self.down)

    def usable(self, expected_wait: float, waited: float) -> float:
        """Return ``F_part`` (eq. 7) after ``waited`` seconds, capped at ``F_slack``."""
        full = self.factor(expected_wait)
        if expected_wait <= 0 or waited >= expected_wait:
            return full
        return self.minimal + waited * (full - self.minimal) / expected_wait

    def latest_start(self, submit: float, expected_wait: float, waited: float) -> float:
        """Return the latest start the slack allows now: ``submit + F_part * expected_wait``."""
        return submit + self.usable(expected_wait, waited) * expected_wait


@attrs.frozen
class PackingScores:
    """What the goals compare: a set of jobs that could start now, scored as the thesis does (§4.2-4.3).

    The unfairness terms are over every queued job, with each job's planned start (now for the set,
    the new place for displaced jobs) as its start: ``overall`` is the mean of ``max(start - FST, 0)``
    (Jin eq. 3), ``skip`` the mean of ``max(FST - start, 0)`` (eq. 4), where FST is the job's fair
    start time (see :class:`LookaheadSlack`). ``utilization`` is the fraction of the machine busy now
    once the set has started.
    """

    overall: float
    skip: float
    utilization: float


class Goal(Protocol):
    """Chooses among the packings the branch and bound found, in the order it found them."""

    name: str

    def choose(self, scores: Sequence[PackingScores]) -> int:
        """Return the index of the packing to start."""
        ...


def _ratio(a: float, b: float) -> float:
    """``a / b``, with ``0 / 0 = 1`` (equal) and ``a / 0 = inf`` for ``a > 0``."""
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


@attrs.frozen
class G1:
    """Goal 1: as close to FCFS as possible while keeping utilization high (thesis steps 9-11).

    The reference is the packing with the smallest overall unfairness (the first such). Going through
    the packings in the order found, a packing replaces the saved one (initially the reference) when

    * its overall unfairness is at most ``unfairness`` times the reference's,
    * its skip unfairness at most ``skip`` times the saved packing's, and
    * its utilization at least ``utilization`` times the saved packing's.

    The thesis gives the three criteria but not their values; ours, 1.1, 1.1 and 1.01, let a packing
    at most 10 % less fair than the fairest one win if it puts at least 1 % more of the machine to
    work. A ratio with a zero denominator is 1 if the numerator is also 0, else infinite.

    Examples:
        >>> G1().choose([PackingScores(10.0, 0.0, 0.5), PackingScores(10.5, 0.0, 0.7)])
        1
        >>> G1().choose([PackingScores(10.0, 0.0, 0.5), PackingScores(12.0, 0.0, 0.9)])
        0
    """

    unfairness: float = attrs.field(default=1.1, validator=_positive)
    skip: float = attrs.field(default=1.1, validator=_positive)
    utilization: float = attrs.field(default=1.01, validator=_positive)

    name = "G1"

    def choose(self, scores: Sequence[PackingScores]) -> int:
        """Return the index of the chosen packing among ``scores`` (non-empty)."""
        ref = min(range(len(scores)), key=lambda i: scores[i].overall)
        best = scores[ref].overall
        saved = ref
        for i, s in enumerate(scores):
            kept = scores[saved]
            if (
                _ratio(s.overall, best) <= self.unfairness
                and _ratio(s.skip, kept.skip) <= self.skip
                and _ratio(s.utilization, kept.utilization) >= self.utilization
            ):
                saved = i
        return saved


@attrs.frozen
class G2:
    """Goal 2: the highest utilization while staying reasonably close to FCFS (thesis steps 9-11).

    The reference is the packing with the highest utilization (the first such). Going through the
    packings in the order found, a packing replaces the saved one (initially the reference) when

    * the reference's utilization is at most ``utilization`` times its own,
    * the saved packing's overall unfairness is at least ``unfairness`` times its own, and
    * the saved packing's skip unfairness is at least ``skip`` times its own.

    The thesis gives the criteria but not their values; ours, 1.1, 1.0 and 1.0, let a packing within
    10 % of the best utilization win if it is at least as fair on both counts. A ratio with a zero
    denominator is 1 if the numerator is also 0, else infinite.

    Examples:
        >>> G2().choose([PackingScores(10.0, 0.0, 0.9), PackingScores(5.0, 0.0, 0.85)])
        1
        >>> G2().choose([PackingScores(10.0, 0.0, 0.9), PackingScores(5.0, 0.0, 0.7)])
        0
    """

    utilization: float = attrs.field(default=1.1, validator=_positive)
    unfairness: float = attrs.field(default=1.0, validator=_positive)
    skip: float = attrs.field(default=1.0, validator=_positive)

    name = "G2"

    def choose(self, scores: Sequence[PackingScores]) -> int:
        """Return the index of the chosen packing among ``scores`` (non-empty)."""
        ref = max(range(len(scores)), key=lambda i: scores[i].utilization)
        top = scores[ref].utilization
        saved = ref
        for i, s in enumerate(scores):
            kept = scores[saved]
            if (
                _ratio(top, s.utilization) <= self.utilization
                and _ratio(kept.overall, s.overall) >= self.unfairness
                and _ratio(kept.skip, s.skip) >= self.skip
            ):
                saved = i
        return saved


def _goal_validator(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(getattr(value, "choose", None)) or not isinstance(getattr(value, "name", None), str):
        raise BackfillError(
            f"goal must have a name and a choose(scores) method, like G1() or G2(); got {value!r}"
        )


def _count_validator(instance: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BackfillError(f"{attribute.name} must be a non-negative integer, got {value!r}")


def _bool_validator(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise BackfillError(f"{attribute.name} must be True or False, got {value!r}")


def _slack_validator(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, SlackFactor):
        raise BackfillError(f"slack must be a SlackFactor, got {value!r}")


def _nodes_validator(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None:
        _count_validator(instance, attribute, value)


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class LookaheadSlack(DisplacingConservative):
    """Jin's backfilling with fairness and slack: Conservative plus a slack-bounded lookahead.

    **Fair start time and slack.** When a job arrives, its fair start time (FST, thesis §4.3.1) is
    where it would start in FCFS order: its earliest fit in the current plan no earlier than the
    latest planned start of the jobs queued before it (which stay conservatively backfilled). Its
    expected wait is ``T_wait = FST - arrival``, and at a later time it may be pushed back to
    ``arrival + F_part * T_wait`` (:class:`SlackFactor`, eq. 5-7), or stay where it is planned if that
    is later. The job's own reservation is Conservative's, which is never later than its FST.

    **A decision** (every arrival and completion) first does what :class:`Conservative` does:
    compress, start the jobs whose reservation has come. Then, if processors are free, it looks at
    the first ``lookahead`` waiting jobs in arrival order (thesis steps 1-7): a depth-first branch and
    bound over include/exclude decisions, taking a job only if the set still fits in the free
    processors (step 4) and if starting the set now, with the reservations in its way displaced as
    described in :mod:`backfill.schedulers._displace`, leaves every displaced job within its slack
    (step 5). A set that fails is pruned with its whole branch (the thesis's rule, although a larger
    set is not always worse), so the sets found are those whose every prefix, in queue order, passes.
    Each set found is scored (:class:`PackingScores`) and the ``goal`` chooses one (steps 8-11),
    which starts now; the space it leaves behind is compressed at once. If no set passes, the
    decision is Conservative's (step 7).

    ``max_nodes`` caps the sets tried per decision (``None``: no cap), because with many narrow jobs
    and many free processors nearly all ``2 ** lookahead`` sets fit: the search then chooses among the
    sets found so far, in the same depth-first order.

    Every job's FST is kept; :meth:`fair_starts` returns them, for the unfairness metrics
    (:func:`backfill.measures.fairness.unfairness`, :func:`backfill.measures.fairness.skip_unfairness`).

    Args:
        goal: :class:`G1` (default) or :class:`G2`, or any object with a ``name`` and a
            ``choose(scores)`` method.
        lookahead: How many waiting jobs to look at (the thesis's ``SELECT_WAITINGJOB_NUM``, 20);
            0 gives plain Conservative (with FSTs recorded).
        slack: The slack factor's parameters (the thesis's defaults).
        max_nodes: Most sets tried per decision, or None for no cap.
        prune_on_slack: Prune a set's branch when the set fails the slack (the thesis), or only when
            it does not fit (exact, slower).

    Examples:
        >>> s = LookaheadSlack()
        >>> s.reset(4, now=0)
        >>> s.submit(Job(id=1, submit=0.0, processors=2, runtime=100.0, estimate=100.0), now=0)
        >>> s.submit(Job(id=2, submit=0.0, processors=4, runtime=100.0, estimate=100.0), now=0)
        >>> s.submit(Job(id=3, submit=0.0, processors=2, runtime=10.0, estimate=10.0), now=0)
        >>> [j.id for j in s.schedule(now=0)], dict(s.reservations())  # Conservative: 3 fits now
        ([1, 3], {2: 100.0})
        >>> s.submit(Job(id=4, submit=0.0, processors=2, runtime=104.0, estimate=104.0), now=0)
        >>> dict(s.reservations()), s.fair_starts()[4]  # planned after job 2, as FCFS would
        ({2: 100.0, 4: 200.0}, 200.0)

        When job 3 ends, 2 processors are free until job 2's reservation at 100. Job 4 does not fit
        there, but starting it now only pushes job 2 back to 114, within its slack: job 2 expected to
        wait 100 s, may use ``F_part = 1.1 + 10 * (1.5 - 1.1) / 100 = 1.14`` of that after waiting
        10 s, so it may start up to 114.

        >>> s.complete(Job(id=3, submit=0.0, processors=2, runtime=10.0, estimate=10.0), now=10)
        >>> [j.id for j in s.schedule(now=10)], dict(s.reservations())
        ([4], {2: 114.0})
    """

    goal: Goal = attrs.field(factory=G1, validator=_goal_validator)
    lookahead: int = attrs.field(default=20, validator=_count_validator)
    slack: SlackFactor = attrs.field(factory=SlackFactor, validator=_slack_validator)
    max_nodes: int | None = attrs.field(default=2000, validator=_nodes_validator)
    prune_on_slack: bool = attrs.field(default=True, validator=_bool_validator)

    #: Per queued job: (arrival time, FST).
    _fst: dict[int, tuple[float, float]] = attrs.field(init=False, factory=dict)
    _fst_log: list[tuple[int, float]] = attrs.field(init=False, factory=list)
    _stats: list[int] = attrs.field(init=False, factory=lambda: [0, 0, 0, 0])

    @property
    def name(self) -> str:
        """Short name for tables, e.g. ``LookaheadSlack(G1, 20)``."""
        extras = "".join(f", {e}" for e in self._resource_extras())
        return f"{type(self).__name__}({self.goal.name}, {self.lookahead}{extras})"

    def __repr__(self) -> str:
        extras = "".join(f", {e}" for e in self._resource_extras())
        return (
            f"LookaheadSlack(goal={self.goal!r}, lookahead={self.lookahead}, slack={self.slack!r}, "
            f"max_nodes={self.max_nodes}, prune_on_slack={self.prune_on_slack}{extras})"
        )

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._fst = {}
        self._fst_log = []
        self._stats = [0, 0, 0, 0]

    def submit(self, job: Job, now: float) -> None:
        """Record the job's FST, then reserve it as Conservative does. O(log n + k)."""
        self._door_submit(job, now)
        if job.id in self._fst or job.id in self._running:
            # Before the FST record changes: Conservative's own check comes after it.
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already "
                f"{'running' if job.id in self._running else 'queued'}; a host submits each job once"
            )
        requests = self._requests
        if requests is not None:
            self._take_request(job)  # refuses a job larger than the machine before the FST search
        if self._dirty:
            self._compress(now)
        order = self._order
        after = order[-1][0] if order else now
        width = job.processors if requests is None else requests[job.id]
        fst = self._profile._earliest_fit(after if after > now else now, width, job.estimate)
        fst = float(fst)
        self._fst[job.id] = (now, fst)
        self._fst_log.append((job.id, fst))
        super().submit(job, now)

    def schedule(self, now: float) -> list[Job]:
        """Conservative's decision, then the lookahead over the first ``lookahead`` waiting jobs."""
        started = self._start_due(now)
        if self.lookahead and self._queue:
            plan = self._search(now)
            if plan is not None:
                self._commit(plan, now)
                started.extend(plan.jobs)
                started.extend(self._start_due(now))
        fst = self._fst
        for job in started:
            fst.pop(job.id, None)
        return started

    def _limit(self, job: Job, now: float) -> float:
        arrived, fst = self._fst[job.id]
        latest = self.slack.latest_start(arrived, fst - arrived, now - arrived)
        planned = self._planned[job.id]
        return planned if planned > latest else latest

    def _candidates(self, free: Any, placing: bool) -> tuple[list[Job], list[Any], Any, int, int]:
        """Step 4's candidates among the first waiting jobs: those that fit now, with their widths.

        Also the empty width to add them to, and the capacity and busy processors the goals'
        utilization reads. O(lookahead).
        """
        requests = self._requests
        window = self._queue_head(self.lookahead)
        if placing:
            # A set fits if the policy places its jobs one after another on the nodes free now; its
            # utilization is the processors'.
            assert requests is not None
            candidates = [job for job in window if requests[job.id] <= free]
            widths = [requests[job.id] for job in candidates]
            zero: Any = ()
            capacity = self._size
            busy = capacity - int(free.total()[0])
        elif requests is None:
            candidates = [job for job in window if 0 < job.processors <= free]
            widths = [job.processors for job in candidates]
            zero = 0
            capacity = self._profile.capacity
            busy = capacity - free
        else:
            candidates = [job for job in window if requests[job.id] <= free]
            widths = [requests[job.id] for job in candidates]
            zero = free - free
            # A set fits if every amount does; its utilization is the processors' (the thesis's).
            capacity = self._size
            busy = capacity - free[0]
        return candidates, widths, zero, capacity, busy

    def _search(self, now: float) -> Start | None:
        """Steps 1-11: the branch and bound over the first jobs, then the goal's choice."""
        free: Any = self._profile._free_at(now)
        requests = self._requests
        placing = self.nodes is not None
        # Every job asks a processor at least: with resources too, none starts without one free.
        if (free if requests is None else int(free.total()[0]) if placing else free[0]) <= 0:
            return None
        candidates, widths, zero, capacity, busy = self._candidates(free, placing)
        if not candidates:
            return None
        stats = self._stats
        stats[0] += 1
        plans: list[tuple[Start, Any]] = []
        budget = [math.inf if self.max_nodes is None else self.max_nodes]
        n = len(candidates)
        prune = self.prune_on_slack

        def visit(first: int, chosen: list[Job], width: Any) -> None:
            for m in range(first, n):
                job = candidates[m]
                w = width + widths[m]
                if w > free:
                    continue  # step 4
                if budget[0] <= 0:
                    return
                budget[0] -= 1
                stats[1] += 1
                trial = [*chosen, job]
                plan = self._try_start(trial, now)
                if plan is not None:
                    plans.append((plan, w if requests is None else w[0]))
                elif prune:
                    continue  # step 5: the whole branch goes
                visit(m + 1, trial, w)

        def visit_nodes(first: int, chosen: list[Job], width: Any) -> None:
            # visit on a node machine: a set fits if its jobs are placed one after another.
            for m in range(first, n):
                w = (*width, widths[m])
                if not fits_together(free, w):
                    continue  # step 4, node by node
                if budget[0] <= 0:
                    return
                budget[0] -= 1
                stats[1] += 1
                trial = [*chosen, candidates[m]]
                plan = self._try_start(trial, now)
                if plan is not None:
                    plans.append((plan, _processors(w)))
                elif prune:
                    continue
                visit_nodes(m + 1, trial, w)

        (visit_nodes if placing else visit)(0, [], zero)
        if not plans:
            return None
        return self._choose(plans, now, busy, capacity)

    def _choose(self, plans: list[tuple[Start, Any]], now: float, busy: int, capacity: int) -> Start:
        """Steps 9-11: score each plan found (unfairness over and skipped, utilization), the goal picks."""
        planned, fst, stats = self._planned, self._fst, self._stats

        def score(plan: Start, width: int, over: float, skip: float, q: int) -> PackingScores:
            o, k = over, skip
            for job in plan.jobs:
                f = fst[job.id][1]
                o += max(now - f, 0.0) - max(planned[job.id] - f, 0.0)
                k += max(f - now, 0.0) - max(f - planned[job.id], 0.0)
            for job, old, new in plan.moves:
                f = fst[job.id][1]
                o += max(new - f, 0.0) - max(old - f, 0.0)
                k += max(f - new, 0.0) - max(f - old, 0.0)
            return PackingScores(o / q, k / q, (busy + width) / capacity)

        # Most searches find nothing, so the unfairness of the current plan, a pass over the whole
        # queue, is summed only once some set has passed.
        over = skip = 0.0
        for jid, start in planned.items():
            d = start - fst[jid][1]
            if d > 0:
                over += d
            else:
                skip -= d
        q = len(planned)
        scores = [score(p, w, over, skip, q) for p, w in plans]
        plan = plans[self.goal.choose(scores)][0]
        stats[2] += 1
        stats[3] += len(plan.jobs)
        return plan

    def fair_starts(self) -> dict[int, float]:
        """FST of every job submitted since :meth:`reset`, by job id. O(n).

        Examples:
            >>> s = LookaheadSlack()
            >>> s.reset(4, now=0)
            >>> s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), now=0)
            >>> s.submit(Job(id=2, submit=0.0, processors=1, runtime=1.0, estimate=1.0), now=0)
            >>> s.fair_starts()  # job 2 may not start before job 1 in FCFS order
            {1: 0.0, 2: 5.0}
        """
        return dict(self._fst_log)

    def lookahead_stats(self) -> dict[str, int]:
        """Counts since :meth:`reset`: decisions searched, sets tried, decisions and jobs started by it.

        Examples:
            >>> LookaheadSlack().lookahead_stats()
            {'searches': 0, 'sets_tried': 0, 'packings_started': 0, 'jobs_started': 0}
        """
        keys = ("searches", "sets_tried", "packings_started", "jobs_started")
        return dict(zip(keys, self._stats, strict=True))

    def _copy_into(self, other: Any) -> None:
        # O(n): the FST record grows with the jobs seen.
        super()._copy_into(other)
        other._fst = self._fst.copy()
        other._fst_log = self._fst_log.copy()
        other._stats = self._stats.copy()


def _processors(demands: Any) -> int:
    """The cores a set of node demands asks."""
    return sum(d.processors for d in demands)
