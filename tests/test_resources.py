"""Resources besides processors: amounts, the resource definitions, and Conservative on vectors."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import NaiveConservative
from resource_strategies import GPUS, MEMORY, gpus, resource_sets, resource_workloads

from backfill import Conservative, Job, ParameterError, ScheduleError, Workload, simulate
from backfill.measures.validation import check_reservations, validate_schedule
from backfill.schedule import Schedule
from backfill.workloads.amounts import Amounts
from backfill.workloads.resources import Resource, capacities, memory_request, requests


def starts(schedule: Schedule) -> dict[int, float]:
    ids = schedule.workload.column("id").tolist()
    return {i: s for i, s in zip(ids, schedule.start.tolist(), strict=True) if s == s}


def log(schedule: Schedule) -> list[tuple[float, int, float]]:
    return [tuple(r) for r in schedule.reservations.tolist()]


# -- Amounts ---------------------------------------------------------------------------------------


@given(
    st.lists(st.integers(0, 9), min_size=1, max_size=4).flatmap(
        lambda a: st.tuples(st.just(a), st.lists(st.integers(0, 9), min_size=len(a), max_size=len(a)))
    )
)
def test_amounts_compare_resource_by_resource(pair: tuple[list[int], list[int]]) -> None:
    a, b = Amounts(pair[0]), Amounts(pair[1])
    fits = all(x <= y for x, y in zip(a, b, strict=True))
    covers = all(x >= y for x, y in zip(a, b, strict=True))
    assert (a <= b, a > b, a >= b, a < b) == (fits, not fits, covers, not covers)
    assert a + b - b == a and tuple(a - b) == tuple(x - y for x, y in zip(a, b, strict=True))
    assert a.meet(b) <= a and a.meet(b) <= b and a <= a.join(b) and b <= a.join(b)


@pytest.mark.parametrize(
    "other", [3, (3, 4), Amounts((1, 2, 3)), [1, 2], None], ids=["int", "tuple", "length", "list", "none"]
)
def test_amounts_refuse_anything_but_amounts_of_their_length(other: Any) -> None:
    a = Amounts((3, 4))
    for op in (lambda: a <= other, lambda: a > other, lambda: a + other, lambda: a - other):
        with pytest.raises(TypeError):
            op()
    assert a != other and not a.__eq__(other)
    with pytest.raises(TypeError):
        a * 2


# -- the definitions -------------------------------------------------------------------------------


def test_memory_requests_fall_back_to_used_memory() -> None:
    def job(used: float, asked: float, processors: int = 4) -> Job:
        return Job(
            id=1,
            submit=0.0,
            processors=processors,
            runtime=1.0,
            estimate=1.0,
            memory=used,
            requested_memory=asked,
        )

    assert memory_request(job(used=100.0, asked=250.0)) == 1000
    assert memory_request(job(used=100.25, asked=-1.0)) == 401
    assert memory_request(job(used=-1.0, asked=-1.0)) == 0
    assert memory_request(job(used=0.0, asked=0.0)) == 0
    assert requests(job(100.0, 250.0), [Resource.memory(10**6)]) == Amounts((4, 1000))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("processors", 4, gpus), "other than 'processors'"),
        (("two words", 4, gpus), "an identifier"),
        ((3, 4, gpus), "an identifier"),
        (("gpus", 0, gpus), "capacity must be an int >= 1"),
        (("gpus", 2.0, gpus), "capacity must be an int >= 1"),
        (("gpus", True, gpus), "capacity must be an int >= 1"),
        (("gpus", 4, 7), "request must be a callable"),
    ],
)
def test_bad_resources_are_refused(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        Resource(*args)


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        (Resource.memory(4), "a sequence of Resource objects"),
        ([Resource.memory(4), Resource.memory(8)], "distinct names"),
        (["memory"], "must be Resource objects"),
        ("memory", "a sequence of Resource objects"),
    ],
)
def test_a_scheduler_takes_a_sequence_of_distinct_resources(resources: Any, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        Conservative(resources=resources)


def bad_request(job: Job) -> int:
    return -3


def test_a_request_that_is_not_an_amount_names_the_job_and_resource() -> None:
    s = Conservative(resources=[Resource("gpus", 4, bad_request)])
    s.reset(4, 0.0)
    with pytest.raises(ScheduleError, match=r"job 9: gpus request must be an int >= 0, got -3"):
        s.submit(Job(id=9, submit=0.0, processors=1, runtime=1.0, estimate=1.0), 0.0)


def test_resources_and_schedules_pickle_with_their_resources() -> None:
    r = Resource.memory(64)
    assert pickle.loads(pickle.dumps(r)) == r
    assert capacities(8, [r, GPUS]) == Amounts((8, 64, 3))
    w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)], 2)
    schedule = simulate(w, Conservative(resources=[r]))
    again = pickle.loads(pickle.dumps(schedule))
    assert again.resources == (r,) and again.start.tolist() == schedule.start.tolist()


# -- the door, the simulator and the validator -----------------------------------------------------


def test_the_door_refuses_a_job_asking_more_than_the_machine_has() -> None:
    s = Conservative(resources=[MEMORY])
    s.reset(4, 0.0)
    job = Job(id=3, submit=0.0, processors=2, runtime=1.0, estimate=1.0, requested_memory=40.0)
    with pytest.raises(ScheduleError, match=r"job 3 .* asks 80 memory of 16: more than the machine has"):
        s.submit(job, 0.0)
    assert s.queued() == 0


def test_the_simulator_rejects_what_never_fits_with_a_reason() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=4.0),
        Job(id=2, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=9.0),
        Job(id=3, submit=0.0, processors=1, runtime=5.0, estimate=5.0, executable=4),
        Job(id=4, submit=0.0, processors=9, runtime=5.0, estimate=5.0),
    ]
    schedule = simulate(Workload.from_jobs(jobs, 8), Conservative(resources=[MEMORY, GPUS]))
    assert dict(schedule.rejected) == {
        2: "needs more memory than the machine has (16)",
        3: "needs more gpus than the machine has (3)",
        4: "wider than the machine (8 processors)",
    }
    assert starts(schedule) == {1: 0.0}


def test_the_validator_checks_every_resource() -> None:
    jobs = [
        Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0, requested_memory=10.0, executable=2)
        for i in (1, 2)
    ]
    w = Workload.from_jobs(jobs, 4)
    together = Schedule.from_starts(w, {1: 0.0, 2: 3.0}, name="mine")
    validate_schedule(together)  # processors alone: 2 of 4
    with pytest.raises(ScheduleError, match=r"mine: 20 memory in use at time 3, more than its capacity 16"):
        validate_schedule(together, resources=[MEMORY])
    with pytest.raises(ScheduleError, match=r"4 gpus in use at time 3, more than its capacity 3"):
        validate_schedule(together, resources=[GPUS])
    validate_schedule(Schedule.from_starts(w, {1: 0.0, 2: 5.0}), resources=[MEMORY, GPUS])
    declared = Schedule.from_starts(w, {1: 0.0, 2: 3.0}, name="mine", resources=[GPUS])
    with pytest.raises(ScheduleError, match=r"4 gpus in use"):
        validate_schedule(declared)  # the resources the host declared are checked by default


# -- Conservative on vectors -----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]))
def test_conservative_equals_the_naive_definition_on_vectors(data: st.DataObject, n: int) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    fast = simulate(w, Conservative(resources=resources))
    naive = simulate(w, NaiveConservative(resources))
    assert starts(fast) == starts(naive)
    assert log(fast) == log(naive)
    validate_schedule(fast)
    check_reservations(fast)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_resource_nobody_asks_for_changes_nothing(data: st.DataObject) -> None:
    w = data.draw(resource_workloads(()))
    plain = simulate(w, Conservative())
    unused = simulate(w, Conservative(resources=[Resource("licences", 5, bad_request_free)]))
    assert starts(plain) == starts(unused) and log(plain) == log(unused)


def bad_request_free(job: Job) -> int:
    return 0


@given(
    st.lists(
        st.tuples(
            st.integers(-1, 64),
            st.one_of(st.just(-1.0), st.floats(0, 1e7, allow_nan=False)),
            st.one_of(st.just(-1.0), st.floats(0, 1e7, allow_nan=False)),
        ),
        max_size=20,
    )
)
def test_memory_amounts_at_once_are_the_jobs_own(rows: list[tuple[int, float, float]]) -> None:
    jobs = [
        Job(id=i, submit=0.0, processors=p, runtime=1.0, estimate=1.0, requested_memory=asked, memory=used)
        for i, (p, asked, used) in enumerate(rows)
    ]
    w = Workload.from_jobs(jobs, machine_size=64)
    memory = Resource.memory(2**40)
    assert memory.amounts(w).tolist() == [memory_request(job) for job in jobs]
    other = Resource("gpus", 3, gpus)
    assert other.amounts(w).tolist() == [gpus(job) for job in jobs]
