"""Public state for subclasses: a scheduler written outside the library from public names only."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import shadow_easy
from hypothesis import given, settings
from hypothesis import strategies as st
from private_names import private_names
from shadow_easy import ShadowEASY
from strategies import workloads

from backfill import (
    EASY,
    PC,
    Conservative,
    Job,
    RunningJob,
    Workload,
    fcfs,
    lxf,
    simulate,
    sjf,
    validate_schedule,
)
from backfill.schedulers import QueueScheduler
from backfill.testing import check_scheduler


def test_the_shadow_scheduler_uses_no_private_name() -> None:
    assert private_names(inspect.getsource(shadow_easy)) == []
    # The check itself sees a private name when there is one.
    assert private_names("from backfill.schedulers._replan import replan\nx = s._running") == [
        "_running",
        "backfill.schedulers._replan",
    ]


def _same_log(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(
        len(a) == len(b)
        and (a["time"] == b["time"]).all()
        and (a["job_id"] == b["job_id"]).all()
        and ((a["start"] == b["start"]) | (np.isnan(a["start"]) & np.isnan(b["start"]))).all()
    )


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=25), st.sampled_from([fcfs, sjf, lxf]))
def test_the_shadow_scheduler_schedules_as_easy(workload: Workload, priority: object) -> None:
    mine = check_scheduler(ShadowEASY(priority), workload, guarantees="while_held")
    validate_schedule(mine)
    easy = simulate(workload, EASY(priority))
    np.testing.assert_array_equal(mine.start, easy.start)
    assert _same_log(mine.reservations, easy.reservations)


def test_the_shadow_scheduler_reserves_the_head_at_the_shadow_time() -> None:
    jobs = [
        Job(id=0, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
        Job(id=2, submit=0.0, processors=1, runtime=8.0, estimate=8.0),
    ]
    s = ShadowEASY()
    s.reset(4, now=0.0)
    for job in jobs:
        s.submit(job, now=0.0)
    assert [j.id for j in s.schedule(0.0)] == [0, 2]
    assert dict(s.reservations()) == {1: 10.0}
    assert s.running_jobs() == [RunningJob(2, 8.0, 1), RunningJob(0, 10.0, 3)]
    assert s.free == 0
    schedule = simulate(Workload.from_jobs(jobs, machine_size=4), ShadowEASY())
    assert schedule.start.tolist() == [0.0, 10.0, 0.0]
    assert schedule.reservations_of(1).tolist() == [10.0]


def test_running_jobs_follow_an_extension() -> None:
    s = QueueScheduler()
    s.reset(4, now=0.0)
    job = Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0)
    s.submit(job, now=0.0)
    s.start(s.ordered(0.0), now=0.0)
    s.extend(job, 9.0, now=5.0)
    assert s.running_jobs() == [RunningJob(1, 9.0, 2)]
    s.complete(job, now=7.0)
    assert s.running_jobs() == [] and s.free == 4


def test_the_guarantee_bases_hand_out_a_copy_of_their_profile() -> None:
    for s in (PC(), Conservative()):
        s.reset(4, now=0.0)
        for i in (1, 2):
            s.submit(Job(id=i, submit=0.0, processors=3, runtime=5.0, estimate=5.0), now=0.0)
        assert [j.id for j in s.schedule(0.0)] == [1]
        assert dict(s.reservations()) == {2: 5.0}
        profile = s.profile_copy()
        profile.reserve(5.0, 10.0, 1)  # a what-if plan on the copy
        assert s.profile_copy().free_at(5.0) == 1 and profile.free_at(5.0) == 0
        with pytest.raises(TypeError):
            s.reservations()[2] = 0.0  # type: ignore[index]
        assert s.running_jobs() == [RunningJob(1, 5.0, 3)] and s.free == 1


def test_conservative_lists_its_queue_in_planned_start_order() -> None:
    s = Conservative()
    s.reset(4, now=0.0)
    for i, p in ((1, 4), (2, 4), (3, 1)):
        s.submit(Job(id=i, submit=0.0, processors=p, runtime=5.0, estimate=5.0), now=0.0)
    assert [(start, job.id) for start, _, job in s.ordered(0.0)] == [(0.0, 1), (5.0, 2), (10.0, 3)]
