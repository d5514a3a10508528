"""The public test kit on several resources: drawn amounts, capacity per resource, guarantees."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from backfill import Conservative, Job, ParameterError, Resource, ScheduleError, Workload, simulate
from backfill.testing import check_feasible, check_scheduler, gpu_request, workloads
from backfill.workloads.resources import memory_request

MEMORY = Resource.memory(12)
GPUS = Resource("gpus", 2, gpu_request)
SETS = {2: (MEMORY,), 3: (MEMORY, GPUS)}


def other_request(job: Job) -> int:
    return 1


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_drawn_amounts_fit_each_capacity_unless_too_wide(data: st.DataObject) -> None:
    too_wide = data.draw(st.booleans())
    w = data.draw(workloads(max_jobs=12, resources=[MEMORY, GPUS], too_wide=too_wide))
    for job in w:
        fits = MEMORY.amount(job) <= MEMORY.capacity and GPUS.amount(job) <= GPUS.capacity
        assert fits or too_wide
        assert GPUS.amount(job) <= GPUS.capacity + 1
        assert job.requested_memory <= MEMORY.capacity // job.processors + 1


def test_drawn_amounts_reach_the_whole_capacity_and_beyond() -> None:
    full = find(
        workloads(max_jobs=4, resources=[MEMORY, GPUS]), lambda w: any(GPUS.amount(j) == 2 for j in w)
    )
    assert any(GPUS.amount(j) == 2 for j in full)
    over = find(
        workloads(max_jobs=4, resources=[MEMORY], too_wide=True),
        lambda w: any(MEMORY.amount(j) > MEMORY.capacity and j.processors <= w.machine_size for j in w),
    )
    rejected = simulate(over, Conservative(resources=[MEMORY])).rejection_counts()
    assert "needs more memory than the machine has (12)" in rejected


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        ([Resource("licences", 3, other_request)], "requests other_request"),
        ([MEMORY, Resource("more", 9, memory_request)], "one resource per request function"),
        (MEMORY, "sequence of Resource"),
    ],
)
def test_workloads_refuse_resources_it_cannot_draw(resources: object, message: str) -> None:
    @given(workloads(resources=resources))  # type: ignore[arg-type]
    def draw(w: Workload) -> None:
        pass

    with pytest.raises(ParameterError, match=message):
        draw()


@pytest.mark.parametrize("count", [2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_conservative_passes_the_kit_on_several_resources(count: int, data: st.DataObject) -> None:
    w = data.draw(workloads(max_jobs=15, resources=SETS[count], too_wide=True))
    schedule = check_scheduler(Conservative(resources=SETS[count]), w)
    assert schedule.resources == SETS[count]


def test_the_kit_catches_a_resource_overfilled_and_names_the_jobs() -> None:
    jobs = [
        Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0, requested_memory=8.0, executable=1)
        for i in (1, 2)
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    # Conservative planning processors alone runs both at once: 16 kB of 12.
    with pytest.raises(ScheduleError, match=r"16 memory in use at time 0.*job ids 1, 2"):
        check_scheduler(Conservative(), w, resources=[MEMORY])
    with pytest.raises(ScheduleError, match=r"2 gpus in use at time 0, more than its capacity 1"):
        check_feasible(simulate(w, Conservative()), resources=[Resource("gpus", 1, gpu_request)])
    check_scheduler(Conservative(resources=[MEMORY, GPUS]), w)


def test_a_drawn_workload_shows_its_amounts() -> None:
    import backfill.testing

    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=3.0, executable=1)
    ]
    assert backfill.testing._describe(Workload.from_jobs(jobs, 4)).splitlines()[1:] == [
        " id  submit  processors  runtime  estimate  user  requested_memory  executable",
        "  1       0           2        5         5    -1                 3           1",
    ]
    plain = [Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0)]
    assert "executable" not in backfill.testing._describe(Workload.from_jobs(plain, 4))
