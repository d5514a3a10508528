"""EASY with a reservation depth: the general path against classic EASY and a naive re-planner, and
which guarantees hold for which priority and estimates."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from checks import trace
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from naive import NaiveProfile
from strategies import make, workloads

from backfill import EASY, Job, ParameterError, ScheduleError, Scheduler, Workload, simulate
from backfill.schedulers.machinery.priorities import Priority, fcfs, ljf, lxf, njf, sjf, wjf
from backfill.testing import check_holds, check_scheduler

PRIORITIES = [fcfs, sjf, lxf]
DEPTHS = [1, 2, 3, None]


def _general_easy(priority: Priority = fcfs, depth: int | None = 1) -> EASY:
    """An EASY that plans through the profile even at depth 1, so the two paths can be compared."""
    scheduler = EASY(priority, depth)
    scheduler._always_plan = True
    return scheduler


class NaiveDepthEASY:
    """EASY with depth k as the definition states it: a from-scratch profile and full pass every time.

    Running jobs are planned by their estimates; the queue is gone through in priority order; a job
    of zero estimate starts at once (it fits anywhere and holds nothing); a job that fits now starts;
    otherwise it is reserved at its earliest fit while fewer than k jobs hold one, and skipped after
    that. The reservation log is the difference between successive passes, with NaN for a queued job
    that lost its reservation: it has none now, or a job that was not ahead of it is ahead of it now.
    """

    def __init__(self, priority: Callable[[Job, float], Any], depth: int | None) -> None:
        self.priority = priority
        self.depth = depth
        self.name = f"NaiveDepthEASY({depth})"

    def reset(self, machine_size: int, now: float) -> None:
        self.size = machine_size
        self.queue: list[tuple[int, Job]] = []
        self.running: dict[int, tuple[float, float, int]] = {}
        self.seq = 0
        self.res: dict[int, float] = {}
        self.changes: list[tuple[int, float]] = []

    def submit(self, job: Job, now: float) -> None:
        self.seq += 1
        self.queue.append((self.seq, job))

    def complete(self, job: Job, now: float) -> None:
        del self.running[job.id]

    def schedule(self, now: float) -> list[Job]:
        order = sorted(self.queue, key=lambda e: (self.priority(e[1], now), e[0]))
        profile = NaiveProfile(self.size)
        profile.origin = now
        profile.intervals = list(self.running.values())
        free = self.size - sum(p for _, _, p in self.running.values())
        started: list[Job] = []
        res: dict[int, float] = {}
        for _, job in order:
            p, d = job.processors, job.estimate
            if d == 0:
                # Zero length: it fits anywhere, so now, and holds nothing (it ends at once).
                self.running[job.id] = (now, now, 0)
                started.append(job)
            elif p <= free and profile.fits(now, p, d):
                profile.intervals.append((now, now + d, p))
                self.running[job.id] = (now, now + d, p)
                free -= p
                started.append(job)
            elif self.depth is None or len(res) < self.depth:
                s = profile.earliest_fit(now, p, d)
                profile.intervals.append((s, s + d, p))
                res[job.id] = s
        ids = {job.id for job in started}
        # A job reserved last time behind exactly the reserved jobs then ahead of it is overtaken if
        # any other job is ahead of it now: it loses that reservation (NaN), even if it gets one back.
        before = list(self.res)
        place = {job.id: i for i, (_, job) in enumerate(order)}
        lost = {
            j for i, j in enumerate(before) if not {job.id for _, job in order[: place[j]]} <= set(before[:i])
        }
        for j, s in res.items():
            if j in lost:
                self.changes.append((j, math.nan))
            if j in lost or self.res.get(j) != s:
                self.changes.append((j, s))
        self.changes += [(j, math.nan) for j in self.res if j not in res and j not in ids]
        self.res = res
        self.queue = [e for e in self.queue if e[1].id not in ids]
        return started

    def log_reservation_changes(self, on: bool = True) -> None:
        pass  # always kept: a test model

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        out, self.changes = self.changes, []
        return out

    def next_wakeup(self) -> float | None:
        return None

    def reservations(self) -> Mapping[int, float]:
        return self.res

    def copy(self) -> NaiveDepthEASY:
        return copy.deepcopy(self)


def log(schedule: Any) -> list[tuple[float, int, float | None]]:
    """The reservation log with NaN as None, so that logs compare equal."""
    return [(t, j, None if s != s else s) for t, j, s in schedule.reservations.tolist()]


def starts(schedule: Any) -> dict[int, float]:
    return dict(zip(schedule.workload.column("id").tolist(), schedule.start.tolist(), strict=True))


# -- the general path against classic EASY and the naive definition -------------------------------


def positive_estimates(w: Workload) -> bool:
    return bool((w.column("estimate") > 0).all())


@pytest.mark.parametrize("priority", PRIORITIES, ids=lambda p: p.__name__)
@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=25, overruns=True), overrun=st.sampled_from(["raise_estimate", "kill"]))
def test_depth_1_through_the_profile_is_classic_easy(priority: Any, w: Workload, overrun: str) -> None:
    # The argument of DeepReservations._pass (_easy_depth.py), checked decision by decision: same
    # starts, same reservation. Zero runtimes are drawn (with positive estimates they end early, at
    # once); zero estimates are not, as the general path starts those at once and classic EASY does
    # not.
    assume(positive_estimates(w))
    assert trace(w, _general_easy(priority), overrun) == trace(w, EASY(priority), overrun)


@pytest.mark.parametrize("depth", DEPTHS, ids=str)
@pytest.mark.parametrize("priority", PRIORITIES, ids=lambda p: p.__name__)
@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=25, overruns=True))
def test_depth_k_equals_the_naive_definition(priority: Any, depth: int | None, w: Workload) -> None:
    # Decision by decision (so the arrivals-only shortcut and the persistent profile are exact), and
    # the reservation log too (so only real changes are logged, and every one of them).
    fast = EASY(priority, depth) if depth != 1 else _general_easy(priority)
    naive = NaiveDepthEASY(priority, depth)
    assert trace(w, fast) == trace(w, naive)
    assert log(simulate(w, fast)) == log(simulate(w, naive))


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=40, machine_size=8, zero_runtimes=False), depth=st.integers(2, 6))
def test_depth_k_equals_the_naive_definition_under_load(w: Workload, depth: int) -> None:
    # Longer queues on a small machine, so that more jobs than the depth wait at once.
    assert trace(w, EASY(fcfs, depth)) == trace(w, NaiveDepthEASY(fcfs, depth))


@pytest.mark.parametrize("priority", PRIORITIES, ids=lambda p: p.__name__)
@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=25))
def test_a_depth_beyond_the_queue_is_unlimited(priority: Any, w: Workload) -> None:
    # No queue here is longer than 25 jobs, so depth 25 and 10**6 both reserve for every blocked job.
    unlimited = simulate(w, EASY(priority, None))
    for depth in (25, 10**6):
        deep = simulate(w, EASY(priority, depth))
        assert starts(deep) == starts(unlimited)
        assert log(deep) == log(unlimited)


# -- guarantees ----------------------------------------------------------------------------------
# What holds, found with hypothesis and stated in EASY's docstring:
# * depth 1: the head's reservation never moves later while held, under every priority (classic EASY;
#   tests/test_schedulers.py and tests/test_guarantees.py check it).
# * FCFS, exact estimates, any depth: every reservation is kept (never withdrawn nor moved later), and
#   unlimited, every job that waits is reserved on arrival and starts exactly then.
# * a static priority, exact estimates, any depth: while held, a reservation never moves later (a job
#   arriving ahead takes it away, logged as NaN, and it may come back later).
# * LXF, exact estimates: the same at depth 2, not from depth 3 (a reordering among the jobs ahead).
# * inexact estimates, depth >= 2, any priority, FCFS too: a reservation can move later while held.

STATIC = [fcfs, sjf, ljf, wjf, njf]


@pytest.mark.parametrize("depth", [2, 3, None], ids=str)
@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=30, accurate=True))
def test_fcfs_with_exact_estimates_keeps_every_reservation(depth: int | None, w: Workload) -> None:
    # Never withdrawn, never moved later, and kept: a reserved job starts no later than its first
    # reservation. Unlimited, every job that waits has a reservation (require_log).
    check_scheduler(EASY(fcfs, depth), w, guarantees=True, require_log=depth is None)


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=30, accurate=True))
def test_fcfs_unlimited_with_exact_estimates_reserves_on_arrival_and_starts_then(w: Workload) -> None:
    result = simulate(w, EASY(fcfs, None))
    submit = dict(zip(w.column("id").tolist(), w.column("submit").tolist(), strict=True))
    first: dict[int, tuple[float, float]] = {}
    for time, job_id, start in result.reservations.tolist():
        first.setdefault(job_id, (time, start))
    for job_id, start in starts(result).items():
        if start > submit[job_id]:
            assert first[job_id] == (submit[job_id], start)


@pytest.mark.parametrize("depth", [2, 3, None], ids=str)
@pytest.mark.parametrize("priority", STATIC, ids=lambda p: p.__name__)
@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=25, accurate=True))
def test_static_priorities_with_exact_estimates_keep_reservations_while_held(
    priority: Any, depth: int | None, w: Workload
) -> None:
    check_scheduler(EASY(priority, depth), w, guarantees="while_held", require_log=False)


@settings(max_examples=80, deadline=None)
@given(w=workloads(max_jobs=25, accurate=True))
def test_lxf_at_depth_2_with_exact_estimates_keeps_reservations_while_held(w: Workload) -> None:
    check_scheduler(EASY(lxf, 2), w, guarantees="while_held", require_log=False)


def test_lxf_at_depth_3_can_push_a_held_reservation_later() -> None:
    # At 0 job 1 runs; job 2 is reserved at 1, job 3 (the whole machine) at 3, job 4 at 1 beside job
    # 2. At 1, LXF puts jobs 3 and 4 (expansion 2) ahead of job 2 (1.5): job 2 is overtaken (NaN),
    # job 3 starts at once, and job 4, behind job 3 as before, is pushed from 1 to 2.
    w = make((0, 2, 1, 1), (0, 1, 2, 2), (0, 2, 1, 1), (0, 1, 1, 1), size=2)
    result = simulate(w, EASY(lxf, 3))
    assert log(result) == [(0, 2, 1), (0, 3, 3), (0, 4, 1), (1, 4, 2), (1, 2, None), (1, 2, 2)]
    with pytest.raises(ScheduleError, match="job 4's reservation moved later"):
        check_holds(result)
    check_holds(simulate(w, EASY(lxf, 2)))


@pytest.mark.parametrize("depth", [2, None], ids=str)
def test_an_early_completion_can_push_a_held_reservation_later(depth: int | None) -> None:
    # Job 1 is estimated to end at 100 but ends at 5. At 1, job 3 (the whole machine) is reserved at
    # 100 and job 4 at 10, beside job 2. At 5 job 3 moves up to 10, onto job 4's place: job 4, still
    # reserved, moves from 10 to 60. Re-planning in priority order gives no guarantee beyond the head.
    w = make((0, 2, 5, 100), (0, 2, 10, 10), (1, 4, 50, 50), (1, 2, 10, 10), size=4)
    result = simulate(w, EASY(fcfs, depth))
    assert result.reservations_of(3).tolist() == [100, 10]
    assert result.reservations_of(4).tolist() == [10, 60]
    with pytest.raises(ScheduleError, match="job 4's reservation moved later"):
        check_holds(result)
    check_holds(simulate(w, EASY(fcfs)))


def test_a_job_arriving_ahead_takes_a_reservation_away() -> None:
    # SJF, depth 2: job 2 is reserved at 10; job 3, shorter, arrives at 2 and comes ahead of it. Job 2
    # loses its reservation (NaN) and gets a new one behind job 3, as EASY's head does.
    w = make((0, 1, 10, 10), (1, 1, 5, 5), (2, 1, 1, 1), size=1)
    result = simulate(w, EASY(sjf, 2))
    assert log(result) == [(1, 2, 10), (2, 3, 10), (2, 2, None), (2, 2, 11)]
    check_holds(result)
    with pytest.raises(ScheduleError, match="job 2 lost its reservation"):
        check_scheduler(EASY(sjf, 2), w, guarantees=True)


@pytest.mark.parametrize("depth", DEPTHS, ids=str)
@pytest.mark.parametrize("priority", PRIORITIES, ids=lambda p: p.__name__)
@settings(max_examples=30, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(["raise_estimate", "kill"]))
def test_every_schedule_is_feasible(priority: Any, depth: int | None, w: Workload, overrun: str) -> None:
    guarantees = "while_held" if depth == 1 else False
    check_scheduler(EASY(priority, depth), w, guarantees=guarantees, overrun=overrun)  # type: ignore[arg-type]


# -- hand cases ------------------------------------------------------------------------------------


def test_depth_2_protects_the_second_reservation() -> None:
    # Job 2 waits for job 1 (reserved at 10); job 3 needs the whole machine (at 15, after job 2).
    # Job 4 (1 processor, 20 s) fits now and uses only EASY's extra processors at 10, so depth 1
    # backfills it, which pushes job 3 to 20. Depth 2 keeps job 3 at 15 and job 4 waits.
    w = make((0, 3, 10, 10), (0, 2, 5, 5), (0, 4, 5, 5), (0, 1, 20, 20), size=4)
    one, two = simulate(w, EASY(fcfs, 1)), simulate(w, EASY(fcfs, 2))
    assert starts(one) == {1: 0, 2: 10, 3: 20, 4: 0}
    assert starts(two) == {1: 0, 2: 10, 3: 15, 4: 20}
    assert log(one)[:1] == [(0, 2, 10)]
    assert log(two)[:2] == [(0, 2, 10), (0, 3, 15)]
    check_scheduler(EASY(fcfs, 2), w, guarantees=True)


def test_depth_2_reservations_after_one_decision() -> None:
    s = EASY(depth=2)
    s.log_reservation_changes()
    s.reset(4, now=0)
    for job in make((0, 3, 10, 10), (0, 2, 5, 5), (0, 4, 5, 5), (0, 1, 20, 20), size=4):
        s.submit(job, now=0)
    assert [j.id for j in s.schedule(now=0)] == [1]
    assert dict(s.reservations()) == {2: 10, 3: 15}
    assert s.take_reservation_changes() == [(2, 10), (3, 15)]
    assert s.take_reservation_changes() == []


def test_a_job_of_zero_estimate_starts_at_once() -> None:
    # It occupies nothing in the plan (nor in the simulator), so at depth 2 it starts on a full
    # machine; classic EASY keeps it for free processors.
    w = make((0, 2, 10, 10), (0, 2, 0, 0), size=2)
    assert starts(check_scheduler(EASY(fcfs, 2), w)) == {1: 0, 2: 0}
    assert starts(simulate(w, EASY(fcfs, 1))) == {1: 0, 2: 10}


def test_copy_is_independent_and_keeps_depth() -> None:
    jobs = list(make((0, 3, 10, 10), (0, 2, 5, 5), (0, 4, 5, 5), (1, 1, 20, 20), size=4))
    s = EASY(fcfs, depth=3)
    s.reset(4, now=0)
    for job in jobs[:3]:
        s.submit(job, now=0)
    s.schedule(now=0)
    c = s.copy()
    assert (c.depth, c.name, dict(c.reservations())) == (3, s.name, dict(s.reservations()))
    c.submit(jobs[3], now=1)
    assert c.schedule(now=1) == []
    assert dict(c.reservations()) == {2: 10, 3: 15, 4: 20}
    assert dict(s.reservations()) == {2: 10, 3: 15}
    assert c.queued() == 3 and s.queued() == 2
    # Both go on alike from the same state.
    d = s.copy()
    for x in (s, d):
        x.complete(jobs[0], now=4)
    assert [j.id for j in s.schedule(now=4)] == [j.id for j in d.schedule(now=4)] == [2]
    assert dict(s.reservations()) == dict(d.reservations()) == {3: 9}


# -- API -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, -1, 1.5, "x", True, 2.0])
def test_depth_must_be_a_positive_int_or_none(depth: Any) -> None:
    with pytest.raises(ParameterError, match="depth must be a positive int or None"):
        EASY(depth=depth)


def test_names_and_reprs() -> None:
    assert EASY().name == EASY(depth=1).name == "EASY(fcfs)"
    assert repr(EASY(depth=1)) == "EASY(priority=fcfs)"
    assert EASY(sjf, depth=4).name == "EASY(sjf, depth=4)"
    assert EASY(depth=None).name == "EASY(fcfs, depth=inf)"
    assert repr(EASY(lxf, depth=4)) == "EASY(priority=lxf, depth=4)"
    assert repr(EASY(depth=None)) == "EASY(priority=fcfs, depth=None)"
    assert _general_easy().name == "EASY(fcfs)"


@pytest.mark.parametrize("depth", DEPTHS, ids=str)
def test_satisfies_the_protocol(depth: int | None) -> None:
    assert isinstance(EASY(depth=depth), Scheduler)
