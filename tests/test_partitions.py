"""Partitions: disjoint parts of a machine, each simulated on its own jobs and merged exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from resource_strategies import GPUS, MEMORY

from backfill import (
    EASY,
    Conservative,
    Job,
    ParameterError,
    Schedule,
    ScheduleError,
    Workload,
    exact_runtime,
    fair_start_times,
    planning,
    simulate,
    unfairness,
    validate_schedule,
)
from backfill.experiments.partitioned import partition_fair_start_times
from backfill.measures.partitions import validate_partitions
from backfill.partitions import (
    Partition,
    check_partitions,
    jobs_per_partition,
    log_partitions,
    partition_runs,
    partition_sizes,
    simulate_partitions,
)
from backfill.testing import workloads
from backfill.workloads.resources import Resource


def job(i: int, submit: float, processors: int, runtime: float, partition: int, **more: float) -> Job:
    estimate = more.pop("estimate", runtime)
    return Job(
        id=i,
        submit=submit,
        processors=processors,
        runtime=runtime,
        estimate=estimate,
        partition=partition,
        **more,  # type: ignore[arg-type]
    )


@st.composite
def partitioned(draw: st.DrawFn, parts: int = 3) -> Workload:
    """A drawn workload whose jobs name SWF partitions 0..parts (``parts`` is served by none)."""
    w = draw(workloads(max_jobs=20, too_wide=True))
    records = w.records.copy()
    records["partition"] = draw(st.lists(st.integers(0, parts), min_size=len(w), max_size=len(w)))
    return Workload.from_records(records, w.machine_size)


SIZES = st.lists(st.integers(1, 12), min_size=3, max_size=3)


# -- the merged schedule ------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(w=partitioned(), sizes=SIZES)
def test_each_partition_runs_as_it_would_alone_and_the_merge_is_valid(w: Workload, sizes: list[int]) -> None:
    parts = [Partition(f"p{k}", numbers=(k,), processors=sizes[k]) for k in range(3)]
    s = simulate_partitions(w, parts, Conservative())
    validate_partitions(s, parts)
    assert s.workload.machine_size == sum(sizes)
    column = w.column("partition")
    for p in parts:
        rows = np.flatnonzero(column == p.numbers[0])
        alone = simulate(Workload.from_records(w.records[rows], p.processors), Conservative())
        assert np.array_equal(s.start[rows], alone.start, equal_nan=True)
        assert np.array_equal(s.end[rows], alone.end, equal_nan=True)
        mine = np.isin(s.reservations["job_id"], w.column("id")[rows])
        assert s.reservations[mine].tolist() == alone.reservations.tolist()
        for job_id, reason in alone.rejected.items():
            expected = reason.replace("the machine", f"partition {p.name}")
            assert s.rejected[job_id] == expected
    outside = w.column("id")[column == 3].tolist()
    assert all(s.rejected[i] == "in no partition (SWF partition 3)" for i in outside)
    # Start order: by start time, then partition order, then each partition's own order.
    order = s.start_order
    keys = list(zip(s.start[order].tolist(), column[order].tolist(), strict=True))
    assert keys == sorted(keys)
    assert (np.diff(s.reservations["time"]) >= 0).all()
    assert sum(jobs_per_partition(s, parts).values()) == int(s.started.sum())


@settings(max_examples=60, deadline=None)
@given(w=partitioned(parts=2))
def test_one_partition_of_every_number_is_the_whole_machine(w: Workload) -> None:
    whole = Partition("all", numbers=(0, 1, 2), processors=w.machine_size)
    for scheduler in (Conservative(), EASY()):
        s = simulate_partitions(w, [whole], scheduler)
        plain = simulate(w, scheduler)
        assert np.array_equal(s.start, plain.start, equal_nan=True)
        assert s.start_order.tolist() == plain.start_order.tolist()
        assert s.reservations.tolist() == plain.reservations.tolist()
        assert s.altered == plain.altered
        assert s.path == plain.path or not len(w)  # no partition ran: no compiled run to speak of
        assert {i: r.replace("partition all", "the machine") for i, r in s.rejected.items()} == dict(
            plain.rejected
        )
        assert s.scheduler == f"{plain.scheduler} on partitions all"


def test_ties_start_in_partition_order_then_each_partitions_own() -> None:
    jobs = [job(1, 0.0, 1, 5.0, 2), job(2, 0.0, 1, 5.0, 1), job(3, 0.0, 1, 5.0, 2), job(4, 0.0, 1, 5.0, 1)]
    w = Workload.from_jobs(jobs, machine_size=4)
    parts = [Partition("one", 1, 2), Partition("two", 2, 2)]
    s = simulate_partitions(w, parts, EASY())
    assert w.column("id")[s.start_order].tolist() == [2, 4, 1, 3]
    reversed_parts = parts[::-1]
    s = simulate_partitions(w, reversed_parts, EASY())
    assert w.column("id")[s.start_order].tolist() == [1, 3, 2, 4]


def test_every_job_is_scheduled_or_rejected_with_a_counted_reason() -> None:
    memory = Resource.memory(16)
    jobs = [
        job(1, 0.0, 2, 5.0, 10, requested_memory=1.0),
        job(2, 0.0, 5, 5.0, 10),  # wider than partition 10
        job(3, 0.0, 2, 5.0, 10, requested_memory=9.0),  # 18 kB > 16
        job(4, 0.0, 1, 5.0, 7),  # in no partition
        job(5, 0.0, 1, 5.0, -1),  # unknown partition: in none
        job(6, 1.0, 4, 5.0, 4),
        Job(id=7, submit=1.0, processors=1, runtime=-1.0, estimate=3.0, partition=4),
    ]
    w = Workload.from_jobs(jobs, machine_size=8)
    parts = [Partition("10", 10, 4, resources=(memory,)), Partition("4", 4, 4)]
    s = simulate_partitions(w, parts, Conservative())
    validate_partitions(s, parts)
    assert s.rejection_counts() == {
        "in no partition (SWF partition -1)": 1,
        "in no partition (SWF partition 7)": 1,
        "needs more memory than partition 10 has (16)": 1,
        "unknown runtime": 1,
        "wider than partition 10 (4 processors)": 1,
    }
    assert jobs_per_partition(s, parts) == {"10": 1, "4": 1}
    assert s.accounting().startswith("7 in = 2 scheduled + 5 rejected")
    # The whole schedule's resources: those every partition has; here only partition 10 has memory.
    assert s.resources == ()


def test_each_partition_plans_its_own_resources() -> None:
    small, large = Resource.memory(8), Resource.memory(32)
    jobs = [job(i, 0.0, 1, 10.0, i % 2, requested_memory=8.0) for i in range(1, 7)]
    w = Workload.from_jobs(jobs, machine_size=8)
    parts = [Partition("a", 0, 4, resources=(small,)), Partition("b", 1, 4, resources=(large,))]
    runs = partition_runs(w, parts, Conservative())
    assert [r.scheduler.resources for r in runs] == [(small,), (large,)]  # type: ignore[attr-defined]
    s = simulate_partitions(w, parts, Conservative())
    validate_partitions(s, parts)
    a, b = w.column("partition") == 0, w.column("partition") == 1
    assert sorted(s.start[a].tolist()) == [0.0, 10.0, 20.0]  # one 8 kB job at a time in 8 kB
    assert sorted(s.start[b].tolist()) == [0.0, 0.0, 0.0]
    assert s.resources == (Resource.memory(40),)  # both have memory: capacities summed
    assert s.scheduler == "Conservative(+memory) on partitions a, b"
    # A scheduler per partition must plan its partition's resources.
    with pytest.raises(ParameterError, match="partition 'b' has resources"):
        partition_runs(w, parts, {"a": Conservative(resources=[small]), "b": Conservative()})
    plain_b = [parts[0], Partition("b", 1, 4)]
    mixed = simulate_partitions(w, plain_b, {"a": Conservative(resources=[small]), "b": EASY()})
    assert mixed.scheduler == "a: Conservative(+memory); b: EASY(fcfs) by partition"
    assert mixed.resources == ()  # memory in partition a alone: checked per partition
    validate_partitions(mixed, plain_b)


def test_validate_partitions_catches_an_overfilled_partition_the_whole_machine_allows() -> None:
    jobs = [job(1, 0.0, 2, 5.0, 1), job(2, 0.0, 2, 5.0, 1), job(3, 0.0, 1, 5.0, 2)]
    w = Workload.from_jobs(jobs, machine_size=4)
    parts = [Partition("a", 1, 2), Partition("b", 2, 2)]
    over = Schedule.from_starts(w, {1: 0.0, 2: 0.0, 3: 5.0}, name="mine")
    validate_schedule(over)  # 4 processors on a 4-processor machine
    with pytest.raises(ScheduleError, match="mine, partition a: 4 processors in use at time 0"):
        validate_partitions(over, parts)
    stray = Schedule.from_starts(w, {1: 0.0, 2: 5.0, 3: 0.0}, name="mine")
    with pytest.raises(ScheduleError, match="job 3 started, but its SWF partition 2 is in no partition"):
        validate_partitions(stray, parts[:1])
    gpus = Partition("g", 1, 4, resources=(GPUS,))
    jobs = [job(1, 0.0, 1, 5.0, 1, executable=2), job(2, 0.0, 1, 5.0, 1, executable=2)]
    both = Schedule.from_starts(Workload.from_jobs(jobs, 4), {1: 0.0, 2: 0.0}, name="mine")
    with pytest.raises(ScheduleError, match="4 gpus in use at time 0, more than its capacity 3"):
        validate_partitions(both, [gpus])


# -- sizes ----------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 20), st.integers(-1, 10), st.integers(1, 6), st.integers(-1, 10), st.integers(0, 2)
        ),
        max_size=12,
    )
)
def test_default_sizes_are_the_most_processors_held_at_once_in_the_log(
    rows: list[tuple[int, int, int, int, int]],
) -> None:
    jobs = [
        Job(
            id=i + 1,
            submit=float(s),
            wait=float(wt),
            processors=p,
            runtime=float(r),
            estimate=1.0,
            partition=q,
        )
        for i, (s, wt, p, r, q) in enumerate(rows)
    ]
    sizes = partition_sizes(Workload.from_jobs(jobs, machine_size=6))
    assert set(sizes) == {j.partition for j in jobs}
    for n, size in sizes.items():
        mine = [j for j in jobs if j.partition == n]
        ran = [
            (j.submit + j.wait, j.submit + j.wait + j.runtime, j.processors)
            for j in mine
            if j.wait >= 0 < j.runtime
        ]
        # Usage peaks at some job's start; a job [a, b) runs at t if a <= t < b.
        peak = max((sum(p for a, b, p in ran if a <= t < b) for t, _, _ in ran), default=0)
        assert size == max(peak, max(j.processors for j in mine))


def test_log_partitions_take_numbers_sizes_and_refuse_what_they_cannot_size() -> None:
    jobs = [
        Job(id=1, submit=0.0, wait=0.0, processors=3, runtime=9.0, estimate=9.0, partition=10),
        Job(id=2, submit=1.0, wait=0.0, processors=2, runtime=9.0, estimate=9.0, partition=10),
        Job(id=3, submit=1.0, wait=0.0, processors=2, runtime=9.0, estimate=9.0, partition=4),
    ]
    w = Workload.from_jobs(jobs, machine_size=8)
    assert [(p.name, p.processors) for p in log_partitions(w)] == [("4", 2), ("10", 5)]
    assert [(p.name, p.processors) for p in log_partitions(w, numbers=[10])] == [("10", 5)]
    assert [(p.name, p.processors) for p in log_partitions(w, sizes={10: 80, 4: 11})] == [
        ("10", 80),
        ("4", 11),
    ]
    assert log_partitions(w, resources=[MEMORY])[0].resources == (MEMORY,)
    with pytest.raises(ParameterError, match="SWF partition 7 has no job in the log, so no default size"):
        log_partitions(w, numbers=[10, 7])
    assert log_partitions(w, numbers=[7], sizes={7: 3})[0].processors == 3
    with pytest.raises(ParameterError, match="distinct"):
        log_partitions(w, numbers=[4, 4])
    with pytest.raises(ParameterError, match="processors must be an int >= 1"):
        log_partitions(w, sizes={4: 0})
    s = simulate_partitions(w, log_partitions(w, numbers=[10]), Conservative())
    assert s.rejection_counts() == {"in no partition (SWF partition 4)": 1}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Partition("", 1, 4), "non-empty name"),
        (lambda: Partition("a,b", 1, 4), "without commas"),
        (lambda: Partition("a", "1", 4), "SWF partition numbers"),
        (lambda: Partition("a", (1, 1), 4), "distinct ints"),
        (lambda: Partition("a", (1.5,), 4), "distinct ints"),
        (lambda: Partition("a", 1, 0), "int >= 1"),
        (lambda: Partition("a", 1, True), "int >= 1"),
        (lambda: Partition("a", 1, 4, resources=MEMORY), "sequence of Resource"),
        (lambda: check_partitions([]), "at least one"),
        (lambda: check_partitions(Partition("a", 1, 4)), "sequence of Partition"),
        (lambda: check_partitions([Partition("a", 1, 4), Partition("a", 2, 4)]), "two partitions are named"),
        (lambda: check_partitions([Partition("a", (1, 2), 4), Partition("b", 2, 4)]), "must be disjoint"),
        (lambda: check_partitions([Partition("a", 1, 4), "b"]), "Partition objects"),
    ],
)
def test_bad_partitions_are_one_line_errors(make: object, message: str) -> None:
    with pytest.raises(ParameterError, match=message) as caught:
        make()  # type: ignore[operator]
    assert "\n" not in str(caught.value)


def test_bad_schedulers_are_refused() -> None:
    w = Workload.from_jobs([job(1, 0.0, 1, 1.0, 1)], machine_size=2)
    parts = [Partition("a", 1, 2), Partition("b", 2, 2, resources=(MEMORY,))]
    with pytest.raises(ParameterError, match=r"exactly the partitions \['a', 'b'\], got \['a'\]"):
        simulate_partitions(w, parts, {"a": EASY()})
    with pytest.raises(ParameterError, match="plans none and cannot be given them"):
        simulate_partitions(w, parts, {"a": EASY(), "b": planning(EASY(), predictor=exact_runtime)})
    # One prototype, wrapped by planning() or not, is given each partition's resources.
    simulate_partitions(w, parts, planning(EASY(), predictor=exact_runtime))


# -- fair start times ----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(w=partitioned(parts=2), sizes=SIZES)
def test_fair_start_times_by_partition_are_each_partitions_alone(w: Workload, sizes: list[int]) -> None:
    parts = [Partition(f"p{k}", numbers=(k,), processors=sizes[k]) for k in range(2)]
    fst = partition_fair_start_times(w, parts, Conservative(), workers=1)
    s = simulate_partitions(w, parts, Conservative())
    assert fst.scheduler == s.scheduler and fst.workload.machine_size == s.workload.machine_size
    column = w.column("partition")
    for p in parts:
        rows = np.flatnonzero(column == p.numbers[0])
        alone = fair_start_times(
            Workload.from_records(w.records[rows], p.processors), Conservative(), workers=1
        )
        assert np.array_equal(fst.strict[rows], alone.strict, equal_nan=True)
        assert np.array_equal(fst.relaxed[rows], alone.relaxed, equal_nan=True)
    assert np.isnan(fst.strict[column == 2]).all() and np.isnan(fst.relaxed[column == 2]).all()
    for kind in (fst.strict, fst.relaxed):
        assert math.isnan(unfairness(s, kind)) == (not s.started.any()) or unfairness(s, kind) >= 0


def test_fair_start_times_of_one_whole_partition_are_the_plain_ones() -> None:
    jobs = [
        job(1, 0.0, 5, 10.0, 1, estimate=100.0),
        job(2, 1.0, 10, 10.0, 1),
        job(3, 2.0, 5, 50.0, 1),
    ]
    w = Workload.from_jobs(jobs, machine_size=10)
    fst = partition_fair_start_times(w, [Partition("all", 1, 10)], Conservative(), workers=1)
    plain = fair_start_times(w, Conservative(), workers=1)
    assert fst.strict.tolist() == plain.strict.tolist() == [0.0, 10.0, 2.0]
    assert fst.relaxed.tolist() == plain.relaxed.tolist() == [0.0, 10.0, 20.0]
    with pytest.raises(Exception, match="takes no checkpoint"):
        partition_fair_start_times(w, [Partition("all", 1, 10)], Conservative(), checkpoint="x.npz")


def test_a_partition_planning_on_predictions_keeps_the_others_estimates() -> None:
    jobs = [job(i, 0.0, 1, 5.0, i % 2, estimate=9.0) for i in range(1, 5)]
    w = Workload.from_jobs(jobs, machine_size=2)
    parts = [Partition("a", 0, 1), Partition("b", 1, 1)]
    s = simulate_partitions(w, parts, {"a": planning(EASY(), predictor=exact_runtime), "b": EASY()})
    assert s.planned.tolist() == [9.0, 5.0, 9.0, 5.0]  # jobs 2 and 4 are partition a's
    assert simulate_partitions(w, parts, EASY()).predicted is None
