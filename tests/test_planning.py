"""Planning with predicted runtimes, a resolution and EASY's limits: valid, unchanged if unused, measured."""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import pytest
from checks import trace
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, registered_schedulers, workloads

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    ParameterError,
    RelShare,
    ScheduleError,
    Selective,
    SlackBackfill,
    UserHistory,
    Workload,
    exact_runtime,
    lxf,
    planning,
    simulate,
    sjf,
    user_estimate,
    validate_schedule,
)
from backfill.measures.planning import (
    guarantee_violations,
    never_reserved,
    prediction_mae,
    underprediction_rate,
)
from backfill.measures.validation import check_reservations, same_schedule
from backfill.schedulers.prediction.planning import STEPS, PlanningScheduler
from backfill.simulator import Simulator

SCHEDULERS = registered_schedulers()


def third(job: Job, now: float) -> float:
    """A predictor that always underpredicts inexact and exact estimates alike."""
    return job.estimate / 3


def as_estimate(job: Job, now: float) -> float:
    """The user's estimate, through the planning machinery (not the identity shortcut)."""
    return job.estimate


PREDICTORS: list[Any] = [UserHistory(), UserHistory(1), exact_runtime, third]


# -- every scheduler, every predictor: valid schedules ------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(
    w=workloads(users=3),
    which=st.integers(0, len(SCHEDULERS) - 1),
    predictor=st.sampled_from(PREDICTORS),
    correction=st.sampled_from(["estimate", "steps"]),
    resolution=st.sampled_from([0, 1, 7, 60]),
)
def test_every_scheduler_plans_valid_schedules_with_any_predictor(
    w: Any, which: int, predictor: Any, correction: Any, resolution: float
) -> None:
    scheduler = planning(
        SCHEDULERS[which].copy(), predictor=predictor, correction=correction, resolution=resolution
    )
    schedule = simulate(w, scheduler)
    validate_schedule(schedule)
    # The measure and the validator agree on what a broken guarantee is.
    broken = int(guarantee_violations(schedule).sum())
    if broken:
        with pytest.raises(ScheduleError):
            check_reservations(schedule, while_held=True)
    else:
        check_reservations(schedule, while_held=True)


@settings(max_examples=60, deadline=None)
@given(w=workloads(users=2), which=st.integers(0, len(SCHEDULERS) - 1))
def test_planning_with_the_estimate_changes_nothing(w: Any, which: int) -> None:
    """The wrapper's machinery with plans equal to estimates gives today's schedule, reservations included."""
    plain = simulate(w, SCHEDULERS[which].copy())
    wrapped = simulate(w, planning(SCHEDULERS[which].copy(), predictor=as_estimate))
    same_schedule(plain, wrapped, reservations=True)
    assert wrapped.predicted is not None and plain.predicted is None


def test_defaults_return_the_scheduler_itself() -> None:
    s = Conservative()
    assert planning(s) is s
    assert planning(s, predictor=user_estimate, resolution=0) is s


@settings(max_examples=60, deadline=None)
@given(w=workloads(users=2), which=st.integers(0, len(SCHEDULERS) - 1))
def test_a_resolution_that_every_estimate_is_on_changes_nothing(w: Any, which: int) -> None:
    # The drawn estimates are whole seconds, so rounding them up to 1 s keeps them.
    plain = simulate(w, SCHEDULERS[which].copy())
    same_schedule(plain, simulate(w, planning(SCHEDULERS[which].copy(), resolution=1)), reservations=True)


@settings(max_examples=60, deadline=None)
@given(w=workloads(users=3), which=st.integers(0, len(SCHEDULERS) - 1))
def test_an_oracle_never_extends_and_is_exact(w: Any, which: int) -> None:
    scheduler = planning(SCHEDULERS[which].copy(), predictor=exact_runtime)
    assert isinstance(scheduler, PlanningScheduler)
    schedule = simulate(w, scheduler)
    assert not scheduler.extensions()
    ran = schedule.started & (schedule.runtime >= 1)
    assert (schedule.planned[ran] == schedule.runtime[ran]).all()
    if schedule.started.any():
        assert underprediction_rate(schedule) == 0.0


@settings(max_examples=40, deadline=None)
@given(w=workloads(users=3, accurate=False), which=st.integers(0, len(SCHEDULERS) - 1))
def test_a_copy_mid_run_finishes_like_the_original(w: Any, which: int) -> None:
    sim = Simulator(w, planning(SCHEDULERS[which].copy(), predictor=UserHistory()))
    half = float(w.column("submit")[len(w) // 2]) if len(w) else 0.0
    sim.run_before(half)
    fork = sim.fork()
    original, forked = sim.run().start, fork.run().start
    after = forked == forked  # the fork records only what starts after it
    assert (original[after] == forked[after]).all()


# -- what planning does -------------------------------------------------------------------------------


def test_extensions_follow_the_steps_then_the_estimate() -> None:
    w = make((0, 1, 1000, 2000), size=1)
    scheduler = planning(FCFS(), predictor=lambda job, now: 10.0, correction="steps")
    assert isinstance(scheduler, PlanningScheduler)
    schedule = simulate(w, scheduler)
    # Planned 10 s; outlived at 10, 70, 310 and 910 s: 10 + 60, 10 + 300, 10 + 900, 10 + 1800.
    assert STEPS[:4] == (60.0, 300.0, 900.0, 1800.0)
    assert scheduler.extensions() == {1: 4}
    assert schedule.end.tolist() == [1000.0]
    by_estimate = planning(FCFS(), predictor=lambda job, now: 10.0)
    simulate(w, by_estimate)
    assert by_estimate.extensions() == {1: 1}  # type: ignore[attr-defined]


def test_steps_skip_what_the_resolution_already_planned() -> None:
    # Planned 10 s, rounded to 3600: at 3600 the steps 1 min to 30 min round to 3600 again, so the
    # first that plans longer is 1 h (10 + 3600 -> 7200), then 2 h (-> 10800); the job ends at 10000.
    w = make((0, 1, 10000, 20000), size=1)
    scheduler = planning(FCFS(), predictor=lambda job, now: 10.0, correction="steps", resolution=3600)
    assert isinstance(scheduler, PlanningScheduler)
    simulate(w, scheduler)
    assert scheduler.extensions() == {1: 2}


def test_an_underprediction_breaks_a_guarantee_and_it_is_counted() -> None:
    # Job 1 is planned to end at 4 but runs 10: job 2's guarantee at 4 moves to 20 (job 1's
    # estimate), and compression brings it back to 10 when job 1 ends: one broken guarantee.
    w = make((0, 2, 10, 20), (1, 2, 5, 5), size=2)
    for scheduler in (Conservative(), PC()):
        s = simulate(w, planning(scheduler, predictor=lambda job, now: 4.0))
        assert s.reservations_of(2).tolist() == [4.0, 20.0, 10.0]
        assert guarantee_violations(s).tolist() == [0, 1]
        assert s.start.tolist() == [0.0, 10.0]
        assert prediction_mae(s) == pytest.approx((6 + 1) / 2)
        assert underprediction_rate(s) == 1.0


def test_predictions_are_capped_at_the_estimate_and_floored_at_a_second() -> None:
    w = make((0, 1, 5, 9), (0, 1, 0, 0), (0, 1, 2, 3), size=3)
    s = simulate(w, planning(EASY(), predictor=lambda job, now: {1: 100.0, 2: 0.0, 3: 0.0}[job.id]))
    assert s.predicted is not None
    assert s.predicted.tolist() == [9.0, 0.0, 1.0]


def test_the_predictor_learns_on_its_own_copy() -> None:
    template = UserHistory()
    jobs = [
        Job(id=i, submit=10.0 * i, processors=1, runtime=5.0, estimate=100.0, user=i % 2) for i in range(6)
    ]
    w = Workload.from_jobs(jobs, 1)
    first = simulate(w, planning(EASY(), predictor=template))
    again = simulate(w, planning(EASY(), predictor=template))
    same_schedule(first, again)
    assert template._recent == {}  # never taught: every scheduler learns on its own copy
    # Unknown users (-1) are never learned from.
    anonymous = Workload.from_jobs(
        [Job(id=j.id, submit=j.submit, processors=1, runtime=5.0, estimate=100.0) for j in jobs], 1
    )
    assert simulate(anonymous, planning(EASY(), predictor=template)).planned.tolist() == [100.0] * 6


def test_user_history_averages_the_users_last_runtimes() -> None:
    specs = [(0, 1, 10, 100), (20, 1, 30, 100), (60, 1, 5, 100), (100, 1, 5, 100)]
    jobs = [
        Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=e, user=7)
        for i, (s, p, r, e) in enumerate(specs)
    ]
    w = Workload.from_jobs(jobs, 1)
    s = simulate(w, planning(EASY(), predictor=UserHistory()))
    assert s.predicted is not None
    assert s.predicted.tolist() == [100.0, 100.0, 20.0, 17.5]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(math.nan, "nan"), (-1.0, "-1.0"), (math.inf, "inf"), ("5", "'5'"), (True, "True"), (None, "None")],
)
def test_a_bad_prediction_is_an_error_naming_the_job(value: Any, shown: str) -> None:
    def bad(job: Job, now: float) -> Any:
        return value

    w = make((0, 1, 5, 9), size=1)
    with pytest.raises(ScheduleError, match=rf"predictor bad gave job 1 the runtime {shown}"):
        simulate(w, planning(EASY(), predictor=bad))


def test_misuse_is_refused_with_a_clear_error() -> None:
    class NoHook:
        name = "NoHook"

    with pytest.raises(ParameterError, match="NoHook cannot plan with predictions"):
        planning(NoHook(), predictor=exact_runtime)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="resolution"):
        planning(EASY(), resolution=-1)
    with pytest.raises(ParameterError, match="already plans"):
        planning(planning(EASY(), resolution=60), predictor=exact_runtime)
    with pytest.raises(ParameterError, match="correction"):
        planning(EASY(), predictor=exact_runtime, correction="double")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="predictor"):
        planning(EASY(), predictor=5)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="count"):
        UserHistory(0)
    queued = planning(EASY(), predictor=exact_runtime)
    queued.reset(1, 0.0)
    job = Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)
    queued.submit(job, 0.0)
    with pytest.raises(ScheduleError, match="job 1 completed at 0 but was queued"):
        queued.complete(job, 0.0)
    with pytest.raises(ScheduleError, match="job 9 completed at 0 but was not running"):
        queued.complete(attrs.evolve(job, id=9), 0.0)
    with pytest.raises(ScheduleError, match="job 1 extended at 3 but was not running"):
        EASY().extend(Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0), 9.0, 3.0)


# -- EASY's limits -------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    w=workloads(zero_runtimes=False, users=2),
    depth=st.sampled_from([1, 2, None]),
    priority=st.sampled_from(["fcfs", "sjf"]),
)
def test_limits_that_never_bind_change_nothing(w: Any, depth: int | None, priority: str) -> None:
    key = sjf if priority == "sjf" else EASY().priority
    plain = simulate(w, EASY(key, depth))
    loose = simulate(w, EASY(key, depth, planning_window=1e9, max_tested=10**9))
    same_schedule(plain, loose)


@settings(max_examples=80, deadline=None)
@given(
    w=workloads(users=2),
    depth=st.sampled_from([1, 3, None]),
    window=st.sampled_from([0.0, 5.0, 30.0]),
    tested=st.sampled_from([None, 1, 2, 5]),
)
def test_limited_easy_is_valid_and_reserves_only_within_its_window(
    w: Any, depth: int | None, window: float, tested: int | None
) -> None:
    for scheduler in (
        EASY(depth=depth, planning_window=window, max_tested=tested),
        RelShare(window=20.0, depth=depth, planning_window=window, max_tested=tested),
    ):
        s = simulate(w, scheduler)
        validate_schedule(s)
        r = s.reservations
        held = ~(r["start"] != r["start"])
        assert (r["start"][held] <= r["time"][held] + window).all()
        assert never_reserved(s).sum() <= len(w)


@settings(max_examples=60, deadline=None)
@given(w=workloads(zero_runtimes=False))
def test_testing_one_job_per_decision_is_fcfs(w: Any) -> None:
    """With max_tested=1 nothing backfills: jobs start in arrival order, as under FCFS."""
    same_schedule(simulate(w, FCFS()), simulate(w, EASY(max_tested=1)))


def test_a_job_beyond_the_window_gets_no_reservation_and_others_backfill() -> None:
    # Job 2 needs the whole machine, free only at 100: beyond a 50 s window it is not reserved, so
    # job 3 (1 processor, 200 s) backfills, which classic EASY forbids. Job 2's earliest start is
    # then 202: decisions come when it would be within reach (at 50, and 152), and at 152 it is.
    w = make((0, 1, 100, 100), (1, 2, 10, 10), (2, 1, 200, 200), size=2)
    assert simulate(w, EASY()).start.tolist() == [0.0, 100.0, 110.0]
    s = simulate(w, EASY(planning_window=50.0))
    assert s.start.tolist() == [0.0, 202.0, 2.0]
    assert s.reservations[s.reservations["job_id"] == 2].tolist() == [(152.0, 2, 202.0)]
    assert not never_reserved(s).any()
    s = simulate(w, EASY(planning_window=50.0, max_tested=1))  # job 3 is never tested while 2 waits
    assert s.start.tolist() == [0.0, 100.0, 110.0]
    assert simulate(w, EASY(planning_window=150.0)).start.tolist() == [0.0, 100.0, 110.0]


def test_a_backfill_order_tries_the_shortest_first() -> None:
    # One processor free behind the head until 100: both short jobs fit, but only one at a time.
    w = make((0, 1, 100, 100), (1, 2, 10, 10), (2, 1, 50, 50), (2, 1, 20, 20), size=2)
    assert simulate(w, EASY()).start.tolist()[2:] == [2.0, 52.0]
    assert simulate(w, EASY(backfill_order=sjf)).start.tolist()[2:] == [22.0, 2.0]


def test_a_backfill_order_is_refused_where_it_does_not_apply() -> None:
    with pytest.raises(ParameterError, match="backfill order is for classic EASY"):
        EASY(depth=2, backfill_order=sjf)
    with pytest.raises(ParameterError, match="max_tested"):
        EASY(max_tested=0)
    with pytest.raises(ParameterError, match="planning_window"):
        EASY(planning_window=-1.0)


# -- the planning window of the schedulers that reserve at arrival ------------------------------------


def _reserving(window: float | None, tested: int | None) -> list[Any]:
    return [
        Conservative(planning_window=window, max_tested=tested),
        PC(planning_window=window, max_tested=tested),
        PC(restart=False, planning_window=window, max_tested=tested),
        DC(planning_window=window, max_tested=tested),
        DC(lxf, planning_window=window, max_tested=tested),
        Selective(3.0, planning_window=window, max_tested=tested),
    ]


@settings(max_examples=80, deadline=None)
@given(w=workloads(users=2), window=st.sampled_from([0.0, 5.0, 30.0]), tested=st.sampled_from([None, 1, 3]))
def test_reserving_schedulers_with_a_window_are_valid_and_keep_their_guarantees(
    w: Any, window: float, tested: int | None
) -> None:
    for scheduler in _reserving(window, tested):
        s = simulate(w, scheduler)
        validate_schedule(s)
        # A guarantee, once given, still never moves later; it is only given later.
        check_reservations(s, while_held=False)
        if isinstance(scheduler, DC):
            continue  # its admission may move jobs ahead into the place the window was judged on
        r = s.reservations
        first = np.unique(r["job_id"], return_index=True)[1]
        assert (r["start"][first] <= r["time"][first] + window).all(), scheduler.name


@settings(max_examples=60, deadline=None)
@given(w=workloads(users=2))
def test_a_window_that_never_binds_changes_nothing(w: Any) -> None:
    for plain, windowed in zip(_reserving(None, None), _reserving(1e9, 10**9), strict=True):
        same_schedule(simulate(w, plain), simulate(w, windowed), reservations=True)


@pytest.mark.parametrize("scheduler", _reserving(50.0, None), ids=lambda s: s.name)
def test_a_job_out_of_reach_is_reserved_when_it_comes_within_the_window(scheduler: Any) -> None:
    # Job 2 can start at 100 only: beyond the 50 s window at its arrival, it waits unreserved; job 3
    # (1 processor, 20 s) then fits now and starts. At 50 job 2 comes within reach (a wake-up, with
    # nothing else happening) and is reserved at 100.
    w = make((0, 1, 100, 100), (1, 2, 10, 10), (2, 1, 20, 20), size=2)
    s = simulate(w, scheduler)
    assert s.start.tolist() == [0.0, 100.0, 2.0]
    assert s.reservations[s.reservations["job_id"] == 2].tolist() == [(50.0, 2, 100.0)]


def test_max_tested_needs_a_window_and_displacing_schedulers_take_neither() -> None:
    for make_one in (Conservative, PC, DC, Selective):
        with pytest.raises(ParameterError, match="max_tested limits the unreserved jobs"):
            make_one(max_tested=3)
    with pytest.raises(ParameterError, match="takes no planning window"):
        SlackBackfill(planning_window=60.0)
    assert (
        Conservative(planning_window=60.0, max_tested=2).name
        == "Conservative(planning_window=60, max_tested=2)"
    )
    assert DC(planning_window=60.0).name == "DC(fcfs, planning_window=60)"
    assert Selective(3.0, planning_window=60.0).name == "Selective(3, planning_window=60)"


@settings(max_examples=80, deadline=None)
@given(
    w=workloads(zero_runtimes=False, users=3, accurate=False),
    priority=st.sampled_from([EASY().priority, sjf, lxf]),
    predictor=st.sampled_from([third, UserHistory()]),
)
def test_easys_two_paths_extend_alike(w: Any, priority: Any, predictor: Any) -> None:
    """Classic EASY's own path and the general path decide alike when jobs are extended.

    Decision by decision: the jobs started and the reservations held after each (the two paths log
    an overtaken head in their own ways, as without predictions; ``tests/test_easy_depth.py``).
    """
    general = EASY(priority)
    general._always_plan = True
    fast = trace(w, planning(EASY(priority), predictor=predictor, correction="steps"))
    assert fast == trace(w, planning(general, predictor=predictor, correction="steps"))
