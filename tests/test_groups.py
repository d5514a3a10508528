"""Per-category, per-runtime-class and per-user metrics: hand schedules, boundaries, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import workloads

from backfill.errors import BackfillError
from backfill.measures.groups import (
    CATEGORIES,
    GROUP_KEYS,
    category_shares,
    group_summary,
    job_categories,
    per_category,
    per_user,
    runtime_class_labels,
    runtime_classes,
)
from backfill.measures.metrics import bounded_slowdowns, response_times, wait_times
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.schedulers import EASY, FCFS, Conservative
from backfill.simulator import simulate
from backfill.workloads.workload import JOB_DTYPE, Job, Workload

# ---------------------------------------------------------------------------------------------
# A hand schedule on 16 processors under FCFS (no backfilling)
# ---------------------------------------------------------------------------------------------

# (id, submit, processors, runtime, user). Job 1 sits exactly on both boundaries (3600 s, and
# 16 > 8 makes it wide); job 2 is 8 wide (narrow) and one second too long; job 6 is wider than
# the machine, so it is rejected and must count nowhere although its user has other jobs.
HAND = [
    (1, 0.0, 16, 3600.0, 1),  # SW: [0, 3600)
    (2, 0.0, 8, 3601.0, 2),  # LN: [3600, 7201)
    (3, 0.0, 8, 10.0, 1),  # SN: [3600, 3610), beside job 2
    (4, 100.0, 9, 7200.0, -1),  # LW: needs 9, only 8 free until 7201
    (5, 200.0, 1, 5.0, 2),  # SN: FCFS keeps it behind job 4, then [7201, 7206)
    (6, 300.0, 17, 1.0, 1),  # SW, rejected
]


def hand_workload() -> Workload:
    jobs = [Job(id=i, submit=t, processors=p, runtime=r, estimate=r, user=u) for i, t, p, r, u in HAND]
    return Workload.from_jobs(jobs, machine_size=16)


@pytest.fixture
def hand() -> Schedule:
    s = simulate(hand_workload(), FCFS())
    assert s.start[:5].tolist() == [0.0, 3600.0, 3600.0, 7201.0, 7201.0]
    assert math.isnan(s.start[5]) and set(s.rejected) == {6}
    return s


def test_job_categories_put_boundary_values_on_the_short_narrow_side(hand: Schedule) -> None:
    assert job_categories(hand).tolist() == ["SW", "LN", "SN", "LW", "SN", "SW"]
    assert job_categories(hand_workload()).tolist() == ["SW", "LN", "SN", "LW", "SN", "SW"]


def test_per_category_hand_values(hand: Schedule) -> None:
    groups = per_category(hand)
    assert list(groups) == list(CATEGORIES)
    assert all(list(stats) == list(GROUP_KEYS) for stats in groups.values())
    assert groups["SN"] == pytest.approx(
        {
            "jobs": 2.0,
            "share": 40.0,
            "mean_wait": (3600 + 7001) / 2,
            "max_wait": 7001.0,
            "mean_response": (3610 + 7006) / 2,
            "max_response": 7006.0,
            "mean_bsld": (361 + 700.6) / 2,  # 3610 / 10 and 7006 / 10: both runtimes below the bound
            "max_bsld": 700.6,
        }
    )
    assert groups["SW"] == pytest.approx(
        {
            "jobs": 1.0,
            "share": 20.0,
            "mean_wait": 0.0,
            "max_wait": 0.0,
            "mean_response": 3600.0,
            "max_response": 3600.0,
            "mean_bsld": 1.0,
            "max_bsld": 1.0,
        }
    )
    assert groups["LN"]["mean_wait"] == 3600.0 and groups["LN"]["max_response"] == 7201.0
    assert groups["LN"]["mean_bsld"] == pytest.approx(7201 / 3601)
    assert groups["LW"]["jobs"] == 1.0 and groups["LW"]["max_wait"] == 7101.0
    assert groups["LW"]["mean_bsld"] == pytest.approx(14301 / 7200)


def test_per_category_bound_is_passed_on(hand: Schedule) -> None:
    # With a 60 s bound the two short SN jobs divide by 60 rather than 10.
    assert per_category(hand, bound=60.0)["SN"]["max_bsld"] == pytest.approx(7006 / 60)


def test_per_user_hand_values(hand: Schedule) -> None:
    users = per_user(hand)
    assert list(users) == [-1, 1, 2]
    assert all(type(user) is int for user in users)
    # User 1's rejected job 6 is not counted.
    assert users[1] == pytest.approx(
        {
            "jobs": 2.0,
            "share": 40.0,
            "mean_wait": 1800.0,
            "max_wait": 3600.0,
            "mean_response": 3605.0,
            "max_response": 3610.0,
            "mean_bsld": 181.0,
            "max_bsld": 361.0,
        }
    )
    assert users[2]["jobs"] == 2.0
    assert users[2]["mean_wait"] == pytest.approx(5300.5) and users[2]["max_wait"] == 7001.0
    assert users[2]["mean_response"] == pytest.approx(7103.5) and users[2]["max_response"] == 7201.0
    assert users[2]["max_bsld"] == pytest.approx(700.6)
    # Jobs of unknown user (SWF's -1) form their own group.
    assert users[-1]["jobs"] == 1.0 and users[-1]["mean_wait"] == 7101.0 and users[-1]["share"] == 20.0


def test_category_shares_count_completed_jobs_of_a_schedule_and_all_rows_of_a_workload(
    hand: Schedule,
) -> None:
    assert category_shares(hand) == pytest.approx({"SN": 40.0, "SW": 20.0, "LN": 20.0, "LW": 20.0})
    shares = category_shares(hand_workload())
    assert list(shares) == list(CATEGORIES)
    # The rejected job 6 (17 processors) counts among the workload's SW rows.
    assert shares == pytest.approx({"SN": 100 / 3, "SW": 100 / 3, "LN": 100 / 6, "LW": 100 / 6})


def test_group_summary_sorts_labels_and_skips_groups_without_completed_jobs(hand: Schedule) -> None:
    groups = group_summary(hand, ["b", "a", "b", "c", "a", "z"])  # "z" holds only the rejected job
    assert list(groups) == ["a", "b", "c"]
    assert groups["a"]["jobs"] == 2.0 and groups["a"]["max_wait"] == 7001.0
    assert groups["b"]["mean_wait"] == 1800.0


def test_missing_categories_have_zero_jobs_and_nan_statistics() -> None:
    w = Workload.from_jobs([Job(id=1, submit=0.0, processors=2, runtime=30.0, estimate=30.0)], 4)
    groups = per_category(simulate(w, FCFS()))
    assert groups["SN"]["jobs"] == 1.0 and groups["SN"]["share"] == 100.0
    for c in ("SW", "LN", "LW"):
        assert groups[c]["jobs"] == 0.0 and groups[c]["share"] == 0.0
        assert all(math.isnan(groups[c][key]) for key in GROUP_KEYS[2:])
    groups["SW"]["jobs"] = 5.0  # each missing category gets its own dict
    assert groups["LN"]["jobs"] == 0.0


def test_no_completed_job() -> None:
    w = Workload.from_jobs([Job(id=1, submit=0.0, processors=9, runtime=30.0, estimate=30.0)], 4)
    s = simulate(w, FCFS())
    assert per_user(s) == {}
    assert group_summary(s, ["x"]) == {}
    groups = per_category(s)
    assert all(groups[c]["jobs"] == 0.0 and math.isnan(groups[c]["share"]) for c in CATEGORIES)
    assert all(math.isnan(v) for v in category_shares(s).values())
    assert all(math.isnan(v) for v in category_shares(Workload.from_jobs([], 4)).values())


# ---------------------------------------------------------------------------------------------
# LANL-style boundary and other boundaries
# ---------------------------------------------------------------------------------------------


def test_lanl_width_boundary_of_64() -> None:
    specs = [(32, 600.0), (64, 3600.0), (65, 60.0), (128, 3601.0), (64, 7200.0)]
    jobs = [Job(id=i, submit=0.0, processors=p, runtime=r, estimate=r) for i, (p, r) in enumerate(specs)]
    w = Workload.from_jobs(jobs, machine_size=1024)
    assert job_categories(w, width_boundary=64).tolist() == ["SN", "SN", "SW", "LW", "LN"]
    assert job_categories(w).tolist() == ["SW", "SW", "SW", "LW", "LW"]  # the CTC/KTH/SDSC 8
    assert category_shares(w, width_boundary=64) == pytest.approx({"SN": 40, "SW": 20, "LN": 20, "LW": 20})
    groups = per_category(simulate(w, FCFS()), width_boundary=64)
    assert [groups[c]["jobs"] for c in CATEGORIES] == [2.0, 1.0, 1.0, 1.0]


def test_runtime_boundary_is_configurable() -> None:
    jobs = [Job(id=i, submit=0.0, processors=1, runtime=r, estimate=r) for i, r in enumerate([60.0, 61.0])]
    w = Workload.from_jobs(jobs, machine_size=1)
    assert job_categories(w, runtime_boundary=60.0).tolist() == ["SN", "LN"]


def test_runtime_classes_include_their_upper_boundary() -> None:
    runtimes = [0.0, 900.0, 900.5, 3600.0, 3601.0, 14400.0, 57600.0, 57601.0]
    jobs = [Job(id=i, submit=0.0, processors=1, runtime=r, estimate=r) for i, r in enumerate(runtimes)]
    w = Workload.from_jobs(jobs, machine_size=1)
    expected = ["<=15m", "<=15m", "15m-1h", "15m-1h", "1h-4h", "1h-4h", "4h-16h", ">16h"]
    assert runtime_classes(w).tolist() == expected
    assert runtime_classes(simulate(w, FCFS())).tolist() == expected


def test_runtime_class_labels() -> None:
    assert runtime_class_labels() == ("<=15m", "15m-1h", "1h-4h", "4h-16h", ">16h")
    assert runtime_class_labels([0, 0.5, 60, 7200, 172800]) == (
        "<=0s",
        "0s-0.5s",
        "0.5s-1m",
        "1m-2h",
        "2h-2d",
        ">2d",
    )
    assert runtime_class_labels([90, 5400, 86400]) == ("<=90s", "90s-90m", "90m-1d", ">1d")
    assert runtime_class_labels((3600.0,)) == ("<=1h", ">1h")


def test_runtime_classes_group_summary_follows_label_order() -> None:
    jobs = [Job(id=i, submit=0.0, processors=1, runtime=r, estimate=r) for i, r in enumerate([10.0, 5000.0])]
    s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
    groups = group_summary(s, runtime_classes(s, boundaries=[60.0]))
    assert list(groups) == list(runtime_class_labels([60.0])) == ["<=1m", ">1m"]


@pytest.mark.parametrize(
    "boundaries", [[], [-1.0], [60.0, 60.0], [3600.0, 900.0], [60.0, math.inf], [math.nan], [[60.0]]]
)
def test_bad_runtime_class_boundaries_raise(boundaries: list[float]) -> None:
    with pytest.raises(BackfillError):
        runtime_class_labels(boundaries)
    with pytest.raises(BackfillError):
        runtime_classes(hand_workload(), boundaries=boundaries)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"runtime_boundary": -1.0},
        {"runtime_boundary": math.nan},
        {"runtime_boundary": math.inf},
        {"width_boundary": -8},
    ],
)
def test_bad_category_boundaries_raise(hand: Schedule, kwargs: dict[str, float]) -> None:
    with pytest.raises(BackfillError):
        job_categories(hand, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(BackfillError):
        category_shares(hand_workload(), **kwargs)  # type: ignore[arg-type]
    with pytest.raises(BackfillError):
        per_category(hand, **kwargs)  # type: ignore[arg-type]


def test_bad_arguments_raise(hand: Schedule) -> None:
    with pytest.raises(BackfillError, match="one label per job"):
        group_summary(hand, ["a", "b"])
    with pytest.raises(BackfillError, match="one label per job"):
        group_summary(hand, np.zeros((6, 1)))
    with pytest.raises(BackfillError, match="bound"):
        per_user(hand, bound=0.0)
    with pytest.raises(BackfillError, match="Schedule or a Workload"):
        job_categories([1, 2, 3])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Properties over random simulations
# ---------------------------------------------------------------------------------------------

SCHEDULERS = st.sampled_from([FCFS, EASY, Conservative])


def label_sets(s: Schedule) -> list[np.ndarray]:
    return [
        job_categories(s, runtime_boundary=10.0, width_boundary=2),
        runtime_classes(s, boundaries=[5.0, 20.0]),
        s.workload.column("user"),
        s.workload.column("id") % 3,
    ]


@settings(max_examples=100, deadline=None)
@given(workloads(too_wide=True), SCHEDULERS, st.sampled_from([10.0, 60.0]))
def test_groups_partition_the_completed_jobs(workload: Workload, scheduler: type, bound: float) -> None:
    s = simulate(workload, scheduler())
    wait, response, bsld = wait_times(s), response_times(s), bounded_slowdowns(s, bound)
    for labels in label_sets(s):
        groups = group_summary(s, labels, bound=bound)
        jobs = np.array([g["jobs"] for g in groups.values()])
        assert jobs.sum() == wait.size
        assert all(n > 0 for n in jobs)
        if not wait.size:
            assert groups == {}
            continue
        assert sum(g["share"] for g in groups.values()) == pytest.approx(100.0)
        for key, overall in (("wait", wait), ("response", response), ("bsld", bsld)):
            weighted = sum(g["jobs"] * g[f"mean_{key}"] for g in groups.values()) / wait.size
            assert weighted == pytest.approx(overall.mean())
            assert max(g[f"max_{key}"] for g in groups.values()) == overall.max()


@settings(max_examples=60, deadline=None)
@given(workloads(too_wide=True, max_jobs=15), SCHEDULERS)
def test_per_category_agrees_with_category_shares_and_per_job_groups(
    workload: Workload, scheduler: type
) -> None:
    s = simulate(workload, scheduler())
    kwargs = {"runtime_boundary": 10.0, "width_boundary": 2}
    groups = per_category(s, **kwargs)  # type: ignore[arg-type]
    shares = category_shares(s, **kwargs)  # type: ignore[arg-type]
    assert list(groups) == list(shares) == list(CATEGORIES)
    for c in CATEGORIES:
        assert groups[c]["share"] == pytest.approx(shares[c], nan_ok=True)
    # Every job its own group: each group's mean and maximum are that job's own value.
    done = np.isfinite(s.start) & np.isfinite(s.end)
    single = group_summary(s, s.workload.column("id"))
    assert list(single) == sorted(s.workload.column("id")[done].tolist())
    ids = s.workload.column("id")[done].tolist()
    for job_id, w, r, b in zip(ids, wait_times(s), response_times(s), bounded_slowdowns(s), strict=True):
        assert single[job_id]["mean_wait"] == single[job_id]["max_wait"] == w
        assert single[job_id]["mean_response"] == r and single[job_id]["max_bsld"] == b


# ---------------------------------------------------------------------------------------------
# Scale
# ---------------------------------------------------------------------------------------------


def test_groups_of_200k_jobs_account_for_every_completed_job() -> None:
    n = 200_000
    rng = np.random.default_rng(1)
    records = np.zeros(n, dtype=JOB_DTYPE)
    records["id"] = np.arange(n)
    records["submit"] = np.sort(rng.uniform(0, 3e7, n))
    records["runtime"] = rng.exponential(5000.0, n)
    records["processors"] = rng.integers(1, 129, n)
    records["user"] = rng.integers(-1, 3000, n)
    w = Workload.from_records(records, 128)
    start = w.column("submit") + rng.exponential(1000.0, n)
    start[::97] = np.nan  # some rejected jobs
    runtime = w.column("runtime").astype(np.float64)
    s = Schedule(
        workload=w,
        scheduler="synthetic",
        start=start,
        end=start + runtime,
        runtime=runtime,
        estimate=runtime,
        start_order=np.flatnonzero(np.isfinite(start)),
        rejected={},
        altered={},
        reservations=np.empty(0, dtype=RESERVATION_DTYPE),
    )
    users = per_user(s)
    categories = per_category(s)
    completed = int(np.isfinite(start).sum())
    assert sum(u["jobs"] for u in users.values()) == completed
    assert sum(c["jobs"] for c in categories.values()) == completed
