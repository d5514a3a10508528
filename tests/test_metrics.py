"""Metrics: hand-computed small schedules, edge cases, and properties over random simulations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import workloads

import backfill
from backfill.errors import BackfillError
from backfill.measures.metrics import (
    DEFAULT_COLUMNS,
    SUMMARY_KEYS,
    bounded_slowdowns,
    makespan,
    mean_wait_of_widest,
    metrics_table,
    relative_response_times,
    response_times,
    summarize,
    to_rows,
    utilization,
    wait_times,
)
from backfill.measures.validation import validate_schedule
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.schedulers import EASY, FCFS, Conservative
from backfill.simulator import simulate
from backfill.workloads.workload import Job, Workload

# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def job(id: int, submit: float, processors: int, runtime: float, estimate: float = -1) -> Job:
    return Job(
        id=id,
        submit=submit,
        processors=processors,
        runtime=runtime,
        estimate=runtime if estimate < 0 else estimate,
    )


def schedule_of(
    jobs: list[Job],
    machine_size: int,
    start: list[float],
    rejected: dict[int, str] | None = None,
    name: str = "hand",
) -> Schedule:
    """A Schedule built directly: jobs given in submit order, start NaN for rejected jobs."""
    w = Workload.from_jobs(jobs, machine_size)
    s = np.array(start, dtype=np.float64)
    runtime = w.column("runtime").astype(np.float64)
    started = np.flatnonzero(~np.isnan(s))
    return Schedule(
        workload=w,
        scheduler=name,
        start=s,
        end=s + runtime,
        runtime=runtime,
        estimate=w.column("estimate").astype(np.float64),
        start_order=started[np.argsort(s[started], kind="stable")],
        rejected=rejected or {},
        altered={},
        reservations=np.empty(0, dtype=RESERVATION_DTYPE),
    )


# Machine of 4 processors; job 5 is wider than the machine and is rejected.
JOBS = [
    job(1, 0.0, 2, 100.0),
    job(2, 10.0, 4, 50.0),
    job(3, 20.0, 2, 5.0),
    job(4, 30.0, 1, 2.0),
    job(5, 40.0, 8, 7.0),
]
AREA = 2 * 100 + 4 * 50 + 2 * 5 + 1 * 2  # 412 processor-seconds, job 5 excluded


@pytest.fixture
def hand() -> Schedule:
    # 1: [0, 100); 2: [100, 150); 3: [20, 25) next to 1; 4: [150, 152); 5 rejected.
    s = schedule_of(JOBS, 4, [0.0, 100.0, 20.0, 150.0, math.nan], {5: "too wide"})
    validate_schedule(s)
    return s


# ---------------------------------------------------------------------------------------------
# Hand-computed values
# ---------------------------------------------------------------------------------------------


def test_hand_schedule_per_job_metrics(hand: Schedule) -> None:
    assert wait_times(hand).tolist() == [0.0, 90.0, 0.0, 120.0]
    assert response_times(hand).tolist() == [100.0, 140.0, 5.0, 122.0]
    # 140 / 50; 5 s is bounded by 10 s; 122 / 10
    assert bounded_slowdowns(hand).tolist() == pytest.approx([1.0, 2.8, 1.0, 12.2])
    assert bounded_slowdowns(hand, bound=60.0).tolist() == pytest.approx([1.0, 140 / 60, 1.0, 122 / 60])


def test_hand_schedule_relative_response_times(hand: Schedule) -> None:
    # 100 / 100; 140 / 50; job 3 ran 5 s without waiting: 5 / 10 = 0.5, below the 1 that bounded
    # slowdown would floor it at; 122 / 10. Job 5 was rejected and is left out.
    assert relative_response_times(hand).tolist() == pytest.approx([1.0, 2.8, 0.5, 12.2])
    assert bounded_slowdowns(hand).tolist()[2] == 1.0
    assert relative_response_times(hand, cutoff=60.0).tolist() == pytest.approx(
        [1.0, 140 / 60, 5 / 60, 122 / 60]
    )
    assert backfill.relative_response_times is relative_response_times


def test_relative_response_times_leave_out_unfinished_jobs() -> None:
    w = Workload.from_jobs([job(1, 0.0, 1, 4.0), job(2, 0.0, 1, 10.0)], 1)
    s = backfill.Simulator(w, FCFS()).run(until=10.0)  # job 2 started at 4, not yet ended
    assert relative_response_times(s).tolist() == [0.4]


def test_hand_schedule_machine_metrics(hand: Schedule) -> None:
    assert makespan(hand) == 152.0
    assert utilization(hand) == pytest.approx(AREA / (4 * 152))


def test_hand_schedule_summary(hand: Schedule) -> None:
    s = summarize(hand)
    assert list(s) == list(SUMMARY_KEYS)
    assert s["jobs"] == 4 and s["rejected"] == 1
    assert s["mean_wait"] == 52.5
    assert s["median_wait"] == 45.0
    # sorted waits 0, 0, 90, 120: linear interpolation at 0.9 * 3 = 2.7 and 0.99 * 3 = 2.97
    assert s["p90_wait"] == pytest.approx(90 + 0.7 * 30)
    assert s["p99_wait"] == pytest.approx(90 + 0.97 * 30)
    assert s["max_wait"] == 120.0
    # 4 jobs: the top 5 % and 1 % are both the one longest wait; the widest 10 % is one job too.
    assert s["top5_wait"] == s["top1_wait"] == 120.0
    assert s["widest10_wait"] == mean_wait_of_widest(hand, 0.10)
    assert s["mean_response"] == pytest.approx(367 / 4)
    assert s["max_response"] == 140.0
    assert s["mean_bsld"] == pytest.approx(17 / 4)
    assert s["max_bsld"] == pytest.approx(12.2)
    assert s["mean_rr"] == pytest.approx(16.5 / 4)
    assert s["utilization"] == pytest.approx(412 / 608)
    assert s["makespan"] == 152.0
    assert summarize(hand, bound=60.0)["mean_bsld"] == pytest.approx((1 + 140 / 60 + 1 + 122 / 60) / 4)
    assert summarize(hand, bound=60.0)["mean_rr"] == pytest.approx((1 + 140 / 60 + 5 / 60 + 122 / 60) / 4)


def test_fcfs_simulation_by_hand() -> None:
    s = simulate(Workload.from_jobs(JOBS, 4), FCFS())
    # 1: [0, 100); 2: [100, 150); 3 and 4 may not pass 2, so both start at 150.
    assert wait_times(s).tolist() == [0.0, 90.0, 130.0, 120.0]
    assert response_times(s).tolist() == [100.0, 140.0, 135.0, 122.0]
    assert bounded_slowdowns(s).tolist() == pytest.approx([1.0, 2.8, 13.5, 12.2])
    assert makespan(s) == 155.0
    assert utilization(s) == pytest.approx(AREA / (4 * 155))
    summary = summarize(s)
    assert (summary["jobs"], summary["rejected"]) == (4, 1)
    assert summary["mean_wait"] == 85.0


def test_easy_simulation_by_hand() -> None:
    s = simulate(Workload.from_jobs(JOBS, 4), EASY())
    # 2 holds a reservation at 100; 3 (ends 25) and 4 (ends 32) backfill before it.
    assert wait_times(s).tolist() == [0.0, 90.0, 0.0, 0.0]
    assert makespan(s) == 150.0
    assert utilization(s) == pytest.approx(AREA / (4 * 150))
    assert summarize(s)["mean_bsld"] == pytest.approx((1 + 2.8 + 1 + 1) / 4)


def test_metrics_use_the_runtime_the_job_ran_for() -> None:
    # Killed at its estimate of 20 s: response 20, slowdown by the 20 s it ran.
    w = Workload.from_jobs([job(1, 0.0, 1, 100.0, estimate=20.0)], 1)
    s = simulate(w, FCFS(), overrun="kill")
    assert response_times(s).tolist() == [20.0]
    assert utilization(s) == 1.0
    assert makespan(s) == 20.0


# ---------------------------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------------------------


def test_empty_workload() -> None:
    s = simulate(Workload.from_jobs([], 4), FCFS())
    assert wait_times(s).size == 0
    assert makespan(s) == 0.0 and utilization(s) == 0.0
    summary = summarize(s)
    assert summary["jobs"] == 0 and summary["rejected"] == 0
    assert math.isnan(summary["mean_wait"]) and math.isnan(summary["max_bsld"])


def test_everything_rejected() -> None:
    s = simulate(Workload.from_jobs([job(1, 5.0, 9, 10.0), job(2, 6.0, 0, 1.0)], 4), EASY())
    summary = summarize(s)
    assert (summary["jobs"], summary["rejected"]) == (0, 2)
    assert summary["utilization"] == 0.0 and summary["makespan"] == 0.0
    table = metrics_table([s], columns=["jobs", "rejected", "mean_wait", "utilization"])
    assert table.splitlines()[1].split() == ["EASY(fcfs)", "0", "2", "-", "0.000"]


@pytest.mark.parametrize("scheduler", [FCFS, EASY])
def test_zero_runtime_jobs(scheduler: type) -> None:
    w = Workload.from_jobs([job(1, 3.0, 1, 0.0), job(2, 3.0, 1, 0.0)], 1)
    s = simulate(w, scheduler())
    assert wait_times(s).tolist() == [0.0, 0.0]
    assert bounded_slowdowns(s).tolist() == [1.0, 1.0]
    assert makespan(s) == 0.0 and utilization(s) == 0.0


def test_partial_schedule_covers_finished_jobs_only() -> None:
    w = Workload.from_jobs([job(1, 0.0, 1, 10.0), job(2, 0.0, 1, 10.0)], 1)
    s = backfill.Simulator(w, FCFS()).run(until=5.0)
    assert wait_times(s).size == 0
    s = backfill.Simulator(w, FCFS()).run(until=10.0)  # job 2 started at 10, not yet ended
    assert wait_times(s).tolist() == [0.0] and makespan(s) == 10.0


@pytest.mark.parametrize("bound", [0.0, -1.0, math.nan, math.inf])
def test_bad_bound(hand: Schedule, bound: float) -> None:
    with pytest.raises(BackfillError, match="bound"):
        bounded_slowdowns(hand, bound)


@pytest.mark.parametrize("cutoff", [0.0, -1.0, math.nan, math.inf])
def test_bad_relative_response_cutoff(hand: Schedule, cutoff: float) -> None:
    with pytest.raises(BackfillError, match="cutoff"):
        relative_response_times(hand, cutoff)


def test_metrics_do_not_modify_the_schedule(hand: Schedule) -> None:
    before = hand.start.copy()
    summarize(hand)
    assert np.array_equal(before, hand.start, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# Table and rows
# ---------------------------------------------------------------------------------------------


def test_table_default_columns_and_alignment(hand: Schedule) -> None:
    fcfs = simulate(Workload.from_jobs(JOBS, 4), FCFS())
    table = metrics_table([hand, fcfs])
    lines = table.splitlines()
    assert lines[0].split() == ["scheduler", *DEFAULT_COLUMNS]
    assert [line.split()[0] for line in lines[1:]] == ["hand", "FCFS(fcfs)"]
    assert len({len(line) for line in lines}) == 1  # every line padded to the same width
    cells = dict(zip(lines[0].split(), lines[2].split(), strict=True))
    assert cells["jobs"] == "4" and cells["rejected"] == "1"
    assert cells["mean_wait"] == "85.0" and cells["utilization"] == "0.665"
    assert cells["mean_bsld"] == "7.38" and cells["makespan"] == "155.0"
    # Right-aligned numbers: each header ends where its column's values end.
    for name in DEFAULT_COLUMNS:
        end = lines[0].index(name) + len(name)
        assert all(line[end - 1] != " " and (end == len(line) or line[end] == " ") for line in lines)


def test_table_names_from_a_mapping_and_chosen_columns(hand: Schedule) -> None:
    table = metrics_table({"first": hand, "second one": hand}, columns=["max_wait", "p99_wait"])
    assert table.splitlines() == [
        "scheduler   max_wait  p99_wait",
        "first          120.0     119.1",
        "second one     120.0     119.1",
    ]


def test_table_rejects_unknown_columns(hand: Schedule) -> None:
    with pytest.raises(BackfillError, match="'slowness'"):
        metrics_table([hand], columns=["jobs", "slowness"])


def test_table_with_no_schedules() -> None:
    assert metrics_table([], columns=["jobs"]) == "scheduler  jobs"


def test_table_shows_relative_response_with_two_decimals(hand: Schedule) -> None:
    table = metrics_table([hand], columns=["mean_bsld", "mean_rr"])
    assert table.splitlines()[1].split() == ["hand", "4.25", "4.12"]  # 17 / 4 and 16.5 / 4


def test_to_rows(hand: Schedule) -> None:
    rows = to_rows([hand], bound=60.0)
    assert rows == [{"scheduler": "hand", **summarize(hand, bound=60.0)}]
    assert list(rows[0]) == ["scheduler", *SUMMARY_KEYS]


# ---------------------------------------------------------------------------------------------
# Properties over random simulations
# ---------------------------------------------------------------------------------------------

MACHINE = 8


SCHEDULERS = st.sampled_from([FCFS, EASY, Conservative])


def reference_summary(s: Schedule, bound: float) -> dict[str, float]:
    """The same statistics computed job by job in plain Python."""
    waits, responses, slowdowns, relative = [], [], [], []
    area, first, last = 0.0, math.inf, -math.inf
    for i in range(len(s)):
        if math.isnan(s.start[i]):
            continue
        submit, start, end = float(s.submit[i]), float(s.start[i]), float(s.end[i])
        runtime = float(s.runtime[i])
        waits.append(start - submit)
        responses.append(end - submit)
        slowdowns.append(max(1.0, (end - submit) / max(runtime, bound)))
        relative.append((end - submit) / max(runtime, bound))
        area += int(s.processors[i]) * runtime
        first, last = min(first, submit), max(last, end)
    span = last - first if waits else 0.0
    return {
        "jobs": len(waits),
        "mean_wait": sum(waits) / len(waits) if waits else math.nan,
        "max_wait": max(waits, default=math.nan),
        "mean_response": sum(responses) / len(responses) if responses else math.nan,
        "mean_bsld": sum(slowdowns) / len(slowdowns) if slowdowns else math.nan,
        "max_bsld": max(slowdowns, default=math.nan),
        "mean_rr": sum(relative) / len(relative) if relative else math.nan,
        "utilization": area / (MACHINE * span) if span > 0 else 0.0,
        "makespan": span,
    }


@settings(max_examples=150, deadline=None)
@given(workloads(machine_size=MACHINE, too_wide=True), SCHEDULERS, st.sampled_from([10.0, 60.0]))
def test_properties_of_simulated_schedules(w: Workload, scheduler: type, bound: float) -> None:
    s = simulate(w, scheduler())
    validate_schedule(s)
    wait, response, bsld = wait_times(s), response_times(s), bounded_slowdowns(s, bound)
    assert wait.size == response.size == bsld.size == len(w) - len(s.rejected)
    assert bool(np.all(wait >= 0))
    assert bool(np.all(bsld >= 1))
    assert bool(np.all(response >= wait))
    assert 0.0 <= utilization(s) <= 1.0
    assert makespan(s) >= (float(response.max()) if response.size else 0.0)
    summary = summarize(s, bound=bound)
    assert summary["rejected"] == len(s.rejected)
    if wait.size:
        assert summary["median_wait"] <= summary["p90_wait"] <= summary["p99_wait"]
        assert summary["p99_wait"] <= summary["max_wait"]
    expected = reference_summary(s, bound)
    for key, value in expected.items():
        assert summary[key] == pytest.approx(value, rel=1e-12, nan_ok=True), key


@settings(max_examples=100, deadline=None)
@given(
    workloads(machine_size=MACHINE, too_wide=True, zero_runtimes=False),
    SCHEDULERS,
    st.floats(0.5, 40.0),
)
def test_relative_response_is_bounded_slowdown_without_its_floor(
    w: Workload, scheduler: type, cutoff: float
) -> None:
    s = simulate(w, scheduler())
    rr, bsld = relative_response_times(s, cutoff), bounded_slowdowns(s, cutoff)
    assert rr.size == bsld.size == len(w) - len(s.rejected)
    # The floor at 1 is the only difference, and it can only act on jobs shorter than the cut-off.
    assert np.array_equal(bsld, np.maximum(1.0, rr))
    long_enough = s.runtime[np.isfinite(s.start) & np.isfinite(s.end)] >= cutoff
    assert np.array_equal(rr[long_enough], bsld[long_enough])
    if bool(np.all(long_enough)):
        assert np.array_equal(rr, bsld)


@settings(max_examples=60, deadline=None)
@given(workloads())
def test_area_used_does_not_depend_on_the_scheduler(w: Workload) -> None:
    # Processor-seconds used are the same under every scheduler; only the makespan differs.
    schedules = [simulate(w, cls()) for cls in (FCFS, EASY, Conservative)]
    areas = {round(utilization(s) * makespan(s) * MACHINE, 6) for s in schedules}
    assert len(areas) == 1
    assert len({summarize(s)["jobs"] for s in schedules}) == 1
