"""Selective reservation: exact promotions, Conservative as its T <= 1 case, kept guarantees, the bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, workloads

from backfill import BackfillError, Conservative, Job, ParameterError, Schedule, Scheduler, Workload, simulate
from backfill.measures.calibration import category_thresholds, starvation_threshold
from backfill.schedulers.machinery.priorities import fcfs, lxf, sjf
from backfill.schedulers.selective import AdaptiveThreshold, CategoryThresholds, Selective
from backfill.testing import check_scheduler

OVERRUNS = ["raise_estimate", "kill"]
INF = math.inf


def starts(schedule: Schedule) -> dict[int, float]:
    return dict(zip(schedule.workload.column("id").tolist(), schedule.start.tolist(), strict=True))


def log(schedule: Schedule) -> list[tuple[float, int, float]]:
    return [tuple(row) for row in schedule.reservations.tolist()]


def first_promotions(schedule: Schedule) -> dict[int, float]:
    """When each job got its first reservation, i.e. when it was promoted."""
    first: dict[int, float] = {}
    for t, job_id, _ in log(schedule):
        first.setdefault(job_id, t)
    return first


# -- promotion exactly when the XFactor reaches the threshold ------------------------------------------


def test_promotion_happens_at_the_exact_second() -> None:
    # Job 2 (the whole machine, estimate 100) waits behind job 1; with T = 2 its XFactor reaches 2 at
    # 5 + 100 = 105, when it is reserved where job 1 ends. Job 3 arrives earlier and backfills freely.
    w = make((0, 2, 1000, 1000), (5, 4, 100, 100), (10, 2, 50, 50), size=4)
    result = check_scheduler(Selective(2.0), w, require_log=False)
    assert log(result) == [(105.0, 2, 1000.0)]
    assert starts(result) == {1: 0.0, 2: 1000.0, 3: 10.0}


def test_next_wakeup_names_the_promotion_time() -> None:
    s = Selective(2.0)
    s.log_reservation_changes()
    s.reset(4, now=0)
    long = Job(id=1, submit=0.0, processors=2, runtime=1000.0, estimate=1000.0)
    wide = Job(id=2, submit=5.0, processors=4, runtime=100.0, estimate=100.0)
    s.submit(long, 0)
    assert [j.id for j in s.schedule(0)] == [1]
    assert s.next_wakeup() is None
    s.submit(wide, 5)
    assert s.schedule(5) == [] and s.next_wakeup() == 105.0
    assert s.schedule(104.999) == [] and dict(s.reservations()) == {}
    assert s.schedule(105) == [] and dict(s.reservations()) == {2: 1000.0}
    assert s.next_wakeup() is None
    assert s.queued() == 1 and s.promoted == 1
    assert s.take_reservation_changes() == [(2, 1000.0)]


def test_promotion_time_formula() -> None:
    job = Job(id=1, submit=10.0, processors=1, runtime=5.0, estimate=40.0)
    zero = Job(id=2, submit=10.0, processors=1, runtime=0.0, estimate=0.0)
    assert Selective(2.5).promotion_time(job) == 10.0 + 1.5 * 40.0
    assert Selective(1.0).promotion_time(job) == Selective(0.3).promotion_time(job) == 10.0
    assert Selective(7.0).promotion_time(zero) == 10.0
    assert Selective(INF).promotion_time(job) == Selective(INF).promotion_time(zero) == INF


def test_an_entry_job_that_would_delay_a_promoted_job_waits() -> None:
    # Job 3 fits now on the two free processors until 1110, but job 2 was promoted at 105 and holds
    # [1000, 1100) on the whole machine: job 3 must wait until job 2 is done.
    w = make((0, 2, 1000, 1000), (5, 4, 100, 100), (110, 2, 1000, 1000), size=4)
    result = check_scheduler(Selective(2.0), w, require_log=False)
    assert starts(result) == {1: 0.0, 2: 1000.0, 3: 1100.0}
    # Arriving before the promotion, the same job starts at once and job 2 gets a later reservation.
    w = make((0, 2, 1000, 1000), (5, 4, 100, 100), (100, 2, 1000, 1000), size=4)
    result = check_scheduler(Selective(2.0), w, require_log=False)
    assert starts(result) == {1: 0.0, 2: 1100.0, 3: 100.0}
    assert log(result) == [(105.0, 2, 1100.0)]


def test_promotions_due_together_go_by_time_then_priority() -> None:
    # Jobs 2 and 3 are both due at 30 (T = 2); under SJF the shorter job 3 is placed first, under
    # FCFS job 2. Job 4 is due earlier (at 22) and placed before both.
    w = make((0, 4, 100, 100), (10, 4, 20, 20), (20, 4, 10, 10), (21, 4, 1, 1), size=4)
    by_fcfs = first_promotions(check_scheduler(Selective(2.0), w, require_log=False))
    assert by_fcfs == {4: 22.0, 2: 30.0, 3: 30.0}
    assert [j for _, j, _ in log(simulate(w, Selective(2.0)))] == [4, 2, 3]
    assert [j for _, j, _ in log(simulate(w, Selective(2.0, sjf)))] == [4, 3, 2]
    assert starts(simulate(w, Selective(2.0, sjf))) == {1: 0.0, 2: 111.0, 3: 101.0, 4: 100.0}


def test_the_entry_queue_follows_its_priority() -> None:
    w = make((0, 4, 10, 10), (1, 4, 50, 50), (2, 4, 20, 20), size=4)
    assert starts(simulate(w, Selective(INF))) == {1: 0.0, 2: 10.0, 3: 60.0}
    assert starts(simulate(w, Selective(INF, sjf))) == {1: 0.0, 2: 30.0, 3: 10.0}


# -- Conservative and the no-reservation extreme -------------------------------------------------------


@pytest.mark.parametrize(
    "threshold",
    [1.0, 0.0, 0.5, CategoryThresholds(1.0, 0.2, 0.0, 1.0), AdaptiveThreshold(factor=0.0)],
    ids=repr,
)
@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=20, overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_threshold_one_is_conservative(threshold: object, w: Workload, overrun: str) -> None:
    # Every job is promoted on arrival, in arrival order, so every decision must be Conservative's:
    # the same start for every job and the same reservation log.
    selective = simulate(w, Selective(threshold), overrun=overrun)  # type: ignore[arg-type]
    conservative = simulate(w, Conservative(), overrun=overrun)  # type: ignore[arg-type]
    assert starts(selective) == starts(conservative)
    assert log(selective) == log(conservative)


@settings(max_examples=60, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_an_infinite_threshold_never_reserves(w: Workload, overrun: str) -> None:
    result = check_scheduler(Selective(INF), w, overrun=overrun, require_log=False)  # type: ignore[arg-type]
    assert result.reservations.size == 0


# -- guarantees kept and the starvation bound ------------------------------------------------------------


def fixed_thresholds() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from([1.0, 1.5, 2.0, 3.0, INF]), st.floats(0.0, 6.0))


def category_threshold_sets() -> st.SearchStrategy[CategoryThresholds]:
    value = st.sampled_from([0.5, 1.0, 1.25, 2.0, 3.0, 10.0, INF])
    return st.builds(
        CategoryThresholds,
        value,
        value,
        value,
        value,
        runtime_boundary=st.sampled_from([0.0, 10.0, 20.0, 3600.0]),
        width_boundary=st.integers(0, 8),
    )


def adaptive_thresholds() -> st.SearchStrategy[AdaptiveThreshold]:
    return st.builds(
        AdaptiveThreshold,
        factor=st.sampled_from([0.5, 1.0, 1.5, 3.0]),
        per_category=st.booleans(),
        initial=st.sampled_from([1.0, 2.0, INF]),
        runtime_boundary=st.sampled_from([10.0, 20.0]),
        width_boundary=st.integers(1, 8),
    )


def thresholds() -> st.SearchStrategy[object]:
    return st.one_of(fixed_thresholds(), category_threshold_sets(), adaptive_thresholds())


@settings(max_examples=150, deadline=None)
@given(
    w=workloads(overruns=True),
    threshold=thresholds(),
    priority=st.sampled_from([fcfs, sjf, lxf]),
    overrun=st.sampled_from(OVERRUNS),
)
def test_schedules_are_valid_and_promoted_jobs_keep_their_guarantee(
    w: Workload, threshold: object, priority: object, overrun: str
) -> None:
    scheduler = Selective(threshold, priority)  # type: ignore[arg-type]
    check_scheduler(scheduler, w, guarantees=True, overrun=overrun, require_log=False)  # type: ignore[arg-type]


def expected_threshold(threshold: float | CategoryThresholds, job: Job) -> float:
    if isinstance(threshold, CategoryThresholds):
        short = job.estimate <= threshold.runtime_boundary
        narrow = job.processors <= threshold.width_boundary
        return {(True, True): threshold.sn, (True, False): threshold.sw, (False, True): threshold.ln}.get(
            (short, narrow), threshold.lw
        )
    return threshold


def check_starvation_bound(result: Schedule, threshold: float | CategoryThresholds | None) -> None:
    """A job promoted at t starts by t + the estimates of the jobs j with submit_j <= t < end_j.

    With a fixed or category threshold, also: a job is promoted exactly at submit + (T - 1) * estimate
    (submit if T <= 1 or the estimate is 0, never if T is inf), unless it started before then.
    """
    ids = result.workload.column("id").tolist()
    submit, start, end, estimate = result.submit, result.start, result.end, result.estimate
    promoted = first_promotions(result)
    for i, job_id in enumerate(ids):
        if math.isnan(start[i]):
            continue  # rejected
        if threshold is not None:
            job = Job(
                id=job_id,
                submit=submit[i],
                processors=int(result.processors[i]),
                runtime=0.0,
                estimate=estimate[i],
            )
            t = expected_threshold(threshold, job)
            due = (
                INF
                if t == INF
                else submit[i]
                if t <= 1 or estimate[i] == 0
                else submit[i] + (t - 1) * estimate[i]
            )
            if job_id in promoted:
                assert promoted[job_id] == due, (job_id, promoted[job_id], due)
            else:
                assert start[i] < due, (job_id, start[i], due)
        if job_id in promoted:
            t = promoted[job_id]
            others = (submit <= t) & (t < end)
            others[i] = False
            bound = t + float(estimate[others].sum())
            assert start[i] <= bound, f"job {job_id} promoted at {t:g} started at {start[i]:g} > {bound:g}"


@settings(max_examples=200, deadline=None)
@given(w=workloads(overruns=True), threshold=fixed_thresholds(), overrun=st.sampled_from(OVERRUNS))
def test_starvation_bound_with_a_fixed_threshold(w: Workload, threshold: float, overrun: str) -> None:
    check_starvation_bound(simulate(w, Selective(threshold), overrun=overrun), threshold)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(w=workloads(overruns=True), threshold=category_threshold_sets(), overrun=st.sampled_from(OVERRUNS))
def test_starvation_bound_with_category_thresholds(
    w: Workload, threshold: CategoryThresholds, overrun: str
) -> None:
    check_starvation_bound(simulate(w, Selective(threshold), overrun=overrun), threshold)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(w=workloads(overruns=True), threshold=adaptive_thresholds(), overrun=st.sampled_from(OVERRUNS))
def test_starvation_bound_with_an_adaptive_threshold(
    w: Workload, threshold: AdaptiveThreshold, overrun: str
) -> None:
    # The promotion instant is read from the log; the bound itself holds for any threshold.
    check_starvation_bound(simulate(w, Selective(threshold), overrun=overrun), None)  # type: ignore[arg-type]


# -- the adaptive threshold -----------------------------------------------------------------------------

ADAPTIVE_CASE = ((0, 2, 10, 10), (0, 2, 500, 500), (1, 4, 100, 100))


def test_an_adaptive_threshold_moves_the_promotion_when_a_job_completes() -> None:
    # Jobs 1 and 2 start at once. Job 3 (the whole machine) is due at 1 + (3 - 1) * 100 = 201 under the
    # initial threshold 3; when job 1 completes at 10 with bounded slowdown 1, the threshold becomes
    # 2 * 1 and job 3 is due at 1 + 100 = 101 instead. It is reserved where job 2 ends.
    w = make(*ADAPTIVE_CASE, size=4)
    adaptive = simulate(w, Selective(AdaptiveThreshold(factor=2.0, initial=3.0)))
    assert log(adaptive) == [(101.0, 3, 500.0)]
    assert log(simulate(w, Selective(3.0))) == [(201.0, 3, 500.0)]


def adaptive_scheduler_at_one() -> tuple[Selective, list[Job]]:
    jobs = [make(*ADAPTIVE_CASE, size=4)[i] for i in range(3)]
    s = Selective(AdaptiveThreshold(factor=2.0, initial=3.0))
    s.reset(4, now=0)
    s.submit(jobs[0], 0)
    s.submit(jobs[1], 0)
    assert [j.id for j in s.schedule(0)] == [1, 2]
    s.submit(jobs[2], 1)
    assert s.schedule(1) == []
    return s, jobs


def test_adaptive_next_wakeup_follows_the_threshold_and_copies_are_independent() -> None:
    s, jobs = adaptive_scheduler_at_one()
    assert s.next_wakeup() == 201.0
    c = s.copy()
    s.complete(jobs[0], 10)
    assert s.schedule(10) == [] and s.next_wakeup() == 101.0
    assert c.next_wakeup() == 201.0  # the copy has seen no completion
    assert s.schedule(101) == [] and dict(s.reservations()) == {3: 500.0}
    assert dict(c.reservations()) == {} and c.queued() == 1
    c.complete(jobs[0], 10)
    assert c.schedule(10) == [] and c.next_wakeup() == 101.0


def test_a_per_category_adaptive_threshold_uses_the_jobs_category() -> None:
    # Job 1 (narrow, short) completes with slowdown 1; only narrow short jobs learn from it. Job 3 is
    # wide, so it keeps the initial threshold 3: due at 201, not at 101.
    w = make(*ADAPTIVE_CASE, size=4)
    per_category = AdaptiveThreshold(factor=2.0, initial=3.0, per_category=True, width_boundary=2)
    assert log(simulate(w, Selective(per_category))) == [(201.0, 3, 500.0)]
    wide_is_narrow = AdaptiveThreshold(factor=2.0, initial=3.0, per_category=True, width_boundary=4)
    assert log(simulate(w, Selective(wide_is_narrow))) == [(101.0, 3, 500.0)]


# -- calibration from a previous run ---------------------------------------------------------------------


@pytest.fixture
def previous_run() -> Schedule:
    # FCFS on 16 processors: job 1 (SN) bsld 1; job 2 (SW, estimate 100 x its runtime) 110 / 10 = 11;
    # job 3 (SN) 160 / 50 = 3.2; job 4 (LW) 4160 / 4000 = 1.04.
    from backfill.schedulers import FCFS

    w = make((0, 1, 100, 100), (0, 16, 10, 1000), (0, 1, 50, 60), (0, 16, 4000, 4000), size=16)
    return simulate(w, FCFS())


def test_starvation_threshold_counts_only_well_estimated_jobs(previous_run: Schedule) -> None:
    assert starvation_threshold(previous_run) == pytest.approx((1 + 3.2 + 1.04) / 3)
    assert starvation_threshold(previous_run, well_estimated_within=None) == pytest.approx(16.24 / 4)
    assert starvation_threshold(previous_run, well_estimated_within=100) == pytest.approx(16.24 / 4)
    assert starvation_threshold(previous_run, bound=60.0) == pytest.approx((1 + 160 / 60 + 1.04) / 3)


def test_category_thresholds_fall_back_to_the_overall_mean(previous_run: Schedule) -> None:
    overall = (1 + 3.2 + 1.04) / 3
    t = category_thresholds(previous_run)
    assert (t.sn, t.sw, t.ln, t.lw) == pytest.approx((2.1, overall, overall, 1.04))
    assert (t.runtime_boundary, t.width_boundary) == (3600.0, 8)
    t = category_thresholds(previous_run, well_estimated_within=None)
    assert (t.sn, t.sw, t.ln, t.lw) == pytest.approx((2.1, 11.0, 16.24 / 4, 1.04))
    t = category_thresholds(previous_run, width_boundary=16, runtime_boundary=10_000.0)
    assert (t.sn, t.sw, t.ln, t.lw) == pytest.approx((overall,) * 4)
    assert (t.runtime_boundary, t.width_boundary) == (10_000.0, 16)
    assert Selective(t).name.startswith("Selective-D(")


def test_calibration_needs_a_counted_job(previous_run: Schedule) -> None:
    empty = simulate(make(size=4), Conservative())
    with pytest.raises(BackfillError, match="no completed"):
        starvation_threshold(empty)
    with pytest.raises(BackfillError, match="no completed"):
        category_thresholds(empty)
    with pytest.raises(BackfillError, match="well_estimated_within"):
        starvation_threshold(previous_run, well_estimated_within=0.5)
    with pytest.raises(BackfillError, match="bound"):
        starvation_threshold(previous_run, bound=0.0)


def test_a_calibrated_threshold_runs(previous_run: Schedule) -> None:
    # The paper's procedure: calibrate on Conservative, then run Selective and Selective-D.
    w = previous_run.workload
    base = simulate(w, Conservative())
    for threshold in (starvation_threshold(base), category_thresholds(base)):
        check_scheduler(Selective(threshold), w, require_log=False)


# -- names, protocol, validation --------------------------------------------------------------------------


def test_names_and_reprs() -> None:
    assert Selective(26.69).name == "Selective(26.69)"
    assert Selective(CategoryThresholds(22.3, 72.4, 1.72, 2.59)).name == "Selective-D(22.3/72.4/1.72/2.59)"
    assert Selective().name == "Selective(adaptive)"
    assert (
        Selective(AdaptiveThreshold(factor=1.5, per_category=True), sjf).name
        == "Selective-D(adaptive*1.5, sjf)"
    )
    assert Selective(INF).name == "Selective(inf)"
    assert repr(Selective(2)) == "Selective(threshold=2.0, priority=fcfs)"
    assert repr(CategoryThresholds(1, 2, 3, 4)).startswith("CategoryThresholds(sn=1, sw=2, ln=3, lw=4,")
    assert isinstance(Selective(), Scheduler)


@pytest.mark.parametrize(
    ("make_it", "message"),
    [
        (lambda: Selective(-1.0), "threshold must be a non-negative"),
        (lambda: Selective(math.nan), "threshold must be a non-negative"),
        (lambda: Selective("2"), "threshold must be a number"),  # type: ignore[arg-type]
        (lambda: Selective(True), "threshold must be a number"),
        (lambda: Selective(2.0, priority=3), "priority must be a callable"),  # type: ignore[arg-type]
        (lambda: CategoryThresholds(1, math.nan, 1, 1), "sw must be a non-negative"),
        (lambda: CategoryThresholds(1, 1, 1, -0.5), "lw must be a non-negative"),
        (lambda: CategoryThresholds(1, 1, None, 1), "ln must be a number"),  # type: ignore[arg-type]
        (lambda: CategoryThresholds(1, 1, 1, 1, runtime_boundary=INF), "runtime_boundary"),
        (lambda: CategoryThresholds(1, 1, 1, 1, width_boundary=-1), "width_boundary"),
        (lambda: CategoryThresholds(1, 1, 1, 1, width_boundary=8.5), "width_boundary"),  # type: ignore[arg-type]
        (lambda: AdaptiveThreshold(factor=-1.0), "factor must be a finite non-negative"),
        (lambda: AdaptiveThreshold(factor=math.nan), "factor"),
        (lambda: AdaptiveThreshold(initial=math.nan), "initial must be a non-negative"),
        (lambda: AdaptiveThreshold(bound=0.0), "bound must be a positive"),
        (lambda: AdaptiveThreshold(per_category=1), "per_category"),  # type: ignore[arg-type]
    ],
)
def test_bad_thresholds_are_rejected(make_it, message: str) -> None:  # type: ignore[no-untyped-def]
    # The library's own error type, which is a ValueError too.
    with pytest.raises(ParameterError, match=message):
        make_it()


def test_infinite_and_numpy_thresholds_are_accepted() -> None:
    assert Selective(np.float64(2.5)).threshold == 2.5
    assert CategoryThresholds(INF, 1, 1, 1, width_boundary=np.int64(64)).width_boundary == 64  # type: ignore[arg-type]
    assert AdaptiveThreshold(initial=INF).value(None) == INF


def test_completing_a_job_that_is_not_running_is_an_error() -> None:
    s = Selective(2.0)
    s.reset(4, now=0)
    with pytest.raises(BackfillError, match="not running"):
        s.complete(Job(id=9, submit=0.0, processors=1, runtime=1.0, estimate=1.0), 0)


def test_the_calibration_moved_to_the_measures_and_old_imports_say_where() -> None:
    import backfill.schedulers

    with pytest.warns(DeprecationWarning, match=r"moved to backfill\.measures\.calibration"):
        old = backfill.schedulers.starvation_threshold
    assert old is starvation_threshold
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        backfill.schedulers.no_such_name  # noqa: B018
