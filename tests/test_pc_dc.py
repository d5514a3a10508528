"""PC and DC: equal to their naive definitions, the papers' worked examples exactly, DC's hole rule."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from naive import NaiveDC, NaivePC, NaiveProfile
from strategies import make, narrowing_everything, workloads

from backfill import (
    DC,
    PC,
    Conservative,
    Job,
    ParameterError,
    Workload,
    check_reservations,
    simulate,
    validate_schedule,
)
from backfill.profile import Profile
from backfill.schedulers import scheduler_name
from backfill.schedulers.machinery.priorities import PRIORITIES, fcfs, ljf, lxf, sjf, wjf

PRIORITY_NAMES = sorted(PRIORITIES)


def starts(schedule) -> dict[int, float]:  # type: ignore[no-untyped-def]
    validate_schedule(schedule)
    check_reservations(schedule)
    return dict(zip(schedule.workload.column("id").tolist(), schedule.start.tolist(), strict=True))


def log(schedule) -> list[tuple[float, int, float]]:  # type: ignore[no-untyped-def]
    """The reservation log as (time, job id, planned start)."""
    return [tuple(row) for row in schedule.reservations.tolist()]


def assert_same_moves(fast, slow) -> None:  # type: ignore[no-untyped-def]
    """The same starts and the same reservation log, change for change."""
    assert starts(fast) == starts(slow)
    assert log(fast) == log(slow)


def plan_after(schedule, time: float) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """Every queued job's planned start once the decisions at ``time`` are made."""
    plan: dict[int, float] = {}
    for t, job, start in log(schedule):
        if t <= time:
            plan[job] = start
    started = {j for j, s in starts(schedule).items() if s <= time}
    return {j: s for j, s in plan.items() if j not in started}


# -- equal to the naive definitions -------------------------------------------------------------------


@pytest.mark.parametrize("name", PRIORITY_NAMES)
@settings(max_examples=80, deadline=None)
@given(w=workloads(max_jobs=20))
def test_pc_equals_the_naive_definition(name: str, w: Workload) -> None:
    # The freed-interval bounds must not change a single move: same starts, same reservation log.
    fast, naive = simulate(w, PC(PRIORITIES[name])), simulate(w, NaivePC(PRIORITIES[name]))
    assert_same_moves(fast, naive)


@pytest.mark.parametrize("name", PRIORITY_NAMES)
@settings(max_examples=80, deadline=None)
@given(w=workloads(max_jobs=20))
def test_dc_equals_the_naive_definition(name: str, w: Workload) -> None:
    fast, naive = simulate(w, DC(PRIORITIES[name])), simulate(w, NaiveDC(PRIORITIES[name]))
    assert_same_moves(fast, naive)


@pytest.mark.parametrize("priority", [fcfs, ljf], ids=["fcfs", "ljf"])
@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=20))
def test_one_pass_pc_equals_the_naive_definition(priority, w: Workload) -> None:  # type: ignore[no-untyped-def]
    fast = simulate(w, PC(priority, restart=False))
    naive = simulate(w, NaivePC(priority, restart=False))
    assert_same_moves(fast, naive)


@pytest.mark.long
@pytest.mark.parametrize("narrow", [False, True], ids=["as-is", "narrow-all"])
@pytest.mark.parametrize("make_scheduler", [PC, DC], ids=["PC", "DC"])
@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=45, machine_size=6, accurate=False, zero_runtimes=False))
def test_equal_to_the_naive_definition_under_load(make_scheduler, narrow: bool, w: Workload) -> None:  # type: ignore[no-untyped-def]
    # Long queues and many early completions: the log of freed intervals is trimmed and folded.
    naive = NaivePC if make_scheduler is PC else NaiveDC
    for priority in (sjf, wjf, ljf):
        with narrowing_everything() if narrow else contextlib.nullcontext():
            fast = simulate(w, make_scheduler(priority))
        assert_same_moves(fast, simulate(w, naive(priority)))


def test_trimming_the_freed_log_keeps_every_decision() -> None:
    # A long, busy workload trims the log many times; the result must still match the naive run.
    from backfill import lublin_feitelson

    w = lublin_feitelson(300, machine_size=16, seed=3, estimates="f-model").scaled(1.6)
    for scheduler, naive in ((PC(sjf), NaivePC(sjf)), (DC(ljf), NaiveDC(ljf))):
        fast = simulate(w, scheduler)
        assert starts(fast) == starts(simulate(w, naive))
        assert scheduler.moves > 0


def test_narrowing_is_exercised_on_a_busy_workload() -> None:
    # Narrowing every vacated interval, on a workload where that certainly happens, and often. The
    # profile's own free_run_start and earliest_moves are counted (their unchecked twins, which the
    # schedulers call), so this runs the pure-Python narrowing; tests/test_kernel.py compares the
    # kernel's with it.
    from backfill import lublin_feitelson
    from backfill.kernel import pure_python

    w = lublin_feitelson(300, machine_size=16, seed=3, estimates="f-model").scaled(1.6)
    runs, moves = Profile._free_run_start, Profile._earliest_moves
    narrowed = mock.patch.object(Profile, "_free_run_start", autospec=True, side_effect=runs)
    passes = mock.patch.object(Profile, "_earliest_moves", autospec=True, side_effect=moves)
    for scheduler, naive in ((PC(sjf), NaivePC(sjf)), (DC(ljf), NaiveDC(ljf))):
        with pure_python(), narrowing_everything(), narrowed as calls, passes as pass_calls:
            fast = simulate(w, scheduler)
        assert calls.call_count > 50
        assert pass_calls.call_count > 50
        assert starts(fast) == starts(simulate(w, naive))


# -- DC never leaves a processor idle that a queued job could use now ---------------------------------


class _Watch:
    """Drive DC and, after every decision, check that no queued job fits now (independently rebuilt)."""

    def __init__(self, inner: DC) -> None:
        self.inner = inner
        self.name = inner.name
        self.checked = 0

    def reset(self, machine_size: int, now: float) -> None:
        self.size = machine_size
        self.running: dict[int, tuple[float, float, int]] = {}
        self.queued: dict[int, Job] = {}
        self.inner.reset(machine_size, now)

    def submit(self, job: Job, now: float) -> None:
        self.queued[job.id] = job
        self.inner.submit(job, now)

    def complete(self, job: Job, now: float) -> None:
        del self.running[job.id]
        self.inner.complete(job, now)

    def schedule(self, now: float) -> Sequence[Job]:
        out = self.inner.schedule(now)
        for job in out:
            del self.queued[job.id]
            self.running[job.id] = (now, now + job.estimate, job.processors)
        plan = self.inner.reservations()
        for jid, job in self.queued.items():
            prof = NaiveProfile(self.size)
            prof.intervals = list(self.running.values()) + [
                (plan[k], plan[k] + j.estimate, j.processors) for k, j in self.queued.items() if k != jid
            ]
            assert plan[jid] > now
            assert not prof.fits(now, job.processors, job.estimate), (now, jid)
            self.checked += 1
        return out

    def next_wakeup(self) -> float | None:
        return self.inner.next_wakeup()

    def reservations(self) -> Mapping[int, float]:
        return self.inner.reservations()

    def copy(self) -> _Watch:
        raise NotImplementedError


@pytest.mark.parametrize("priority", [fcfs, ljf, lxf], ids=["fcfs", "ljf", "lxf"])
@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=25))
def test_dc_leaves_no_usable_idle_processors(priority, w: Workload) -> None:  # type: ignore[no-untyped-def]
    validate_schedule(simulate(w, _Watch(DC(priority))))


# -- worked examples ----------------------------------------------------------------------------------

# Lindsay et al. (2013) Fig. 1: A ends early; LJF tries E first, but E can only move once C and D have
# moved out of its way. Machine of 4; all arrive at 0; A runs 6 of its estimated 10.
FIG1 = make((0, 4, 6, 10), (0, 2, 3, 3), (0, 2, 2, 2), (0, 4, 6, 6), size=4)  # A, C, D, E = 1, 2, 3, 4


def test_lindsay_fig1_pc_returns_to_the_head_of_the_queue() -> None:
    s = simulate(FIG1, PC(ljf))
    assert plan_after(s, 0) == {2: 10.0, 3: 10.0, 4: 13.0}
    # E fails, C moves, back to the head: E moves to 12; D moves; back to the head: E moves to 9.
    assert [row for row in log(s) if row[0] == 6] == [(6, 2, 6.0), (6, 4, 12.0), (6, 3, 6.0), (6, 4, 9.0)]
    assert starts(s) == {1: 0.0, 2: 6.0, 3: 6.0, 4: 9.0}


def test_lindsay_fig1_one_pass_leaves_e_needlessly_late() -> None:
    s = simulate(FIG1, PC(ljf, restart=False))
    assert [row for row in log(s) if row[0] == 6] == [(6, 2, 6.0), (6, 3, 6.0)]
    # E keeps 13 although it could have started at 9: processors 0-3 idle over [9, 13).
    assert starts(s) == {1: 0.0, 2: 6.0, 3: 6.0, 4: 13.0}


# Lindsay et al. (2013) Fig. 2: WJF tries D before C. A (2 processors, estimate 10) ends at 2; B runs
# [0, 4); C (2 wide) is planned at 4 and D (4 wide) at 10.
FIG2 = make((0, 2, 2, 10), (0, 2, 4, 4), (0, 2, 3, 3), (0, 4, 2, 2), size=4)  # A, B, C, D = 1..4


def test_lindsay_fig2_pc_moves_d_twice() -> None:
    s = simulate(FIG2, PC(wjf))
    assert plan_after(s, 0) == {3: 4.0, 4: 10.0}
    # D moves to 7 (where C no longer blocks it), C moves to 2, back to the head: D moves again to 5.
    assert [row for row in log(s) if row[0] == 2] == [(2, 4, 7.0), (2, 3, 2.0), (2, 4, 5.0)]
    assert starts(s) == {1: 0.0, 2: 0.0, 3: 2.0, 4: 5.0}
    once = simulate(FIG2, PC(wjf, restart=False))
    assert starts(once)[4] == 7.0


# Lindsay et al. (2013) Fig. 3: A ends early at 2; with LJF, D (longest) can start now and does; E and F
# could move earlier but not to now, so DC leaves the hole after C that PC fills at once.
FIG3 = make((0, 2, 2, 10), (0, 2, 5, 5), (0, 2, 8, 8), (0, 2, 6, 6), (0, 2, 4, 4), size=4)
# A, C, D, E, F = 1, 2, 3, 4, 5


def test_lindsay_fig3_dc_leaves_a_hole_after_c() -> None:
    dc, pc = simulate(FIG3, DC(ljf)), simulate(FIG3, PC(ljf))
    assert plan_after(dc, 0) == plan_after(pc, 0) == {3: 5.0, 4: 10.0, 5: 13.0}
    assert plan_after(pc, 2) == {4: 5.0, 5: 10.0}
    assert plan_after(dc, 2) == {4: 10.0, 5: 13.0}  # the hole [5, 10) after C stays open
    # When C ends at 5 the running system reaches the hole: E starts there; F moves when D ends.
    assert starts(dc) == {1: 0.0, 2: 0.0, 3: 2.0, 4: 5.0, 5: 10.0}
    assert [row for row in log(dc) if row[0] > 0] == [(2, 3, 2.0), (5, 4, 5.0), (10, 5, 10.0)]


def test_lindsay_fig3_dc_closes_the_hole_before_a_low_priority_arrival_takes_it() -> None:
    # G (short, lowest priority under LJF) arrives at 3 and would fit in the hole at 5. DC first moves
    # E (whose new start 5 is before G's estimated completion 7) and then F, so G cannot bypass them.
    w = make(*[(0, 2, 2, 10), (0, 2, 5, 5), (0, 2, 8, 8), (0, 2, 6, 6), (0, 2, 4, 4)], (3, 2, 2, 2), size=4)
    s = simulate(w, DC(ljf))
    assert [row for row in log(s) if row[0] == 3] == [(3, 4, 5.0), (3, 5, 10.0), (3, 6, 11.0)]
    assert starts(s)[6] == 11.0
    # A high-priority arrival, by contrast, takes the hole itself: a job longer than E and F.
    w = make(*[(0, 2, 2, 10), (0, 2, 5, 5), (0, 2, 8, 8), (0, 2, 6, 6), (0, 2, 4, 4)], (3, 2, 7, 7), size=4)
    s = simulate(w, DC(ljf))
    assert [row for row in log(s) if row[0] == 3] == [(3, 6, 5.0)]
    assert starts(s)[6] == 5.0


# Rajbhandary et al. (2013) Fig. 1: jobs arrive in order 1-4 and 4 backfills ahead of 3; when 2 ends
# early, compressing in arrival order moves 3 a little and then 4, leaving a gap 3 could have used.
RAJ_FIG1 = make((0, 2, 4, 4), (0, 2, 1, 10), (0, 4, 5, 5), (0, 2, 4, 4), size=4)


def test_rajbhandary_fig1_arrival_order_compression_leaves_a_gap() -> None:
    once = simulate(RAJ_FIG1, PC(fcfs, restart=False))
    assert plan_after(once, 0) == {3: 10.0, 4: 4.0}  # 4 backfilled ahead of 3
    assert [row for row in log(once) if row[0] == 1] == [(1, 3, 8.0), (1, 4, 1.0)]
    assert starts(once) == {1: 0.0, 2: 0.0, 3: 8.0, 4: 1.0}  # gap [5, 8) on all four processors
    for scheduler in (PC(fcfs), Conservative()):
        assert starts(simulate(RAJ_FIG1, scheduler))[3] == 5.0, scheduler_name(scheduler)


# Rajbhandary et al. (2013) §4.1: a 100-processor machine, every estimate 200.
RAJ_41 = make(
    (0, 90, 100, 200), (1, 45, 100, 200), (2, 40, 95, 200), (3, 90, 100, 200), (4, 45, 100, 200), size=100
)


def test_rajbhandary_41_conservative_starts_j4_at_200() -> None:
    for scheduler in (Conservative(), PC(fcfs)):
        assert starts(simulate(RAJ_41, scheduler)) == {1: 0.0, 2: 100.0, 3: 100.0, 4: 200.0, 5: 300.0}


def test_rajbhandary_41_dc_backfills_j5_at_195_and_starts_j4_at_295() -> None:
    s = simulate(RAJ_41, DC(fcfs))
    assert starts(s) == {1: 0.0, 2: 100.0, 3: 100.0, 4: 295.0, 5: 195.0}
    # J4 kept its guarantee from arrival (400) and never moved before J5 ended.
    assert [row for row in log(s) if row[1] == 4] == [(3, 4, 400.0), (295, 4, 295.0)]


# -- instrumentation ------------------------------------------------------------------------------


def test_events_examined_counts_profile_searches() -> None:
    w = make((0, 4, 6, 10), (0, 2, 3, 3), (0, 2, 2, 2), (0, 4, 6, 6), size=4)
    schedulers = [Conservative(), PC(ljf), DC(ljf)]
    for s in schedulers:
        simulate(w, s)
        assert s.events_examined > 0
    # PC tries E three times where Conservative's profile order needs no retry.
    assert schedulers[1].events_examined > schedulers[0].events_examined
    fresh = PC(ljf)
    simulate(make((0, 1, 1, 1), size=4), fresh)
    assert fresh.events_examined < schedulers[1].events_examined  # reset starts the count again


def test_names_and_reprs() -> None:
    assert PC(sjf).name == "PC(sjf)" and DC().name == "DC(fcfs)"
    assert PC(restart=False).name == "PC(fcfs, restart=False)"
    assert repr(DC(wjf)) == "DC(priority=wjf)"
    with pytest.raises(ParameterError):
        PC(priority=3)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        PC(restart="yes")  # type: ignore[arg-type]


def test_copies_are_independent_and_continue_identically() -> None:
    from backfill import Simulator, lublin_feitelson

    w = lublin_feitelson(200, machine_size=32, seed=5, estimates="f-model")
    for scheduler in (PC(sjf), DC(wjf)):
        sim = Simulator(w, scheduler, record_reservations=True)
        for _ in range(150):
            sim.step()
        fork = sim.fork()
        sim.run()
        fork.run()
        a, b = sim.result(), fork.result()
        after = ~np.isnan(b.start)  # a fork records only what happens after it
        assert after.sum() > 20
        assert a.start[after].tolist() == b.start[after].tolist()
        assert not np.isnan(a.start).any()
