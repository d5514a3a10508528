"""FCFS, EASY and RelShare on several resources: against naive models on vectors, and their promises.

Every scheduler here is compared decision by decision (what started, and the reservations after it)
with an obviously correct model that recomputes everything from the running jobs: NaiveEASY
(``tests/naive.py``) at depth 1, 3 and unlimited, and a one-line FCFS, for one, two and three
resources (``tests/resource_strategies.py``).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import attrs
import numpy as np
import pytest
from checks import Tracing
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import NaiveEASY
from resource_strategies import GPUS, MEMORY, resource_sets, resource_workloads
from test_relshare import Audited

from backfill import (
    EASY,
    FCFS,
    Job,
    QueueScheduler,
    RelShare,
    Resource,
    ScheduleError,
    Workload,
    check_reservations,
    simulate,
    validate_schedule,
)
from backfill.schedule import Schedule
from backfill.schedulers.machinery.priorities import fcfs, lxf, sjf
from backfill.workloads.amounts import Amounts

Decision = tuple[float, list[int], dict[int, float]]


class Recorder(Tracing):
    """checks.Tracing (what started at each decision, and the reservations after it), for models too.

    A naive model keeps no reservation log (the simulator then records none); the comparisons here
    are of the decisions.
    """

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.resources = inner.resources  # the simulator rejects what never fits by them

    def log_reservation_changes(self, on: bool = True) -> None:
        if hasattr(self.inner, "log_reservation_changes"):
            self.inner.log_reservation_changes(on)

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        return (
            self.inner.take_reservation_changes() if hasattr(self.inner, "take_reservation_changes") else []
        )


def decisions(w: Workload, scheduler: Any) -> list[Decision]:
    recorder = Recorder(scheduler)
    simulate(w, recorder)  # type: ignore[arg-type]
    return recorder.trace


class NaiveFCFS(NaiveEASY):
    """FCFS as its definition: queue heads start while every amount fits in what is free."""

    def schedule(self, now: float) -> list[Job]:
        started = []
        for _, job in sorted(self.queue, key=lambda e: (self.priority(e[1], now), e[0])):
            if not self.fits(self.width(job), self.free()):
                break
            self._start(job, now, self.width(job))
            started.append(job)
        ids = {job.id for job in started}
        self.queue = [e for e in self.queue if e[1].id not in ids]
        return started


def starts(schedule: Schedule) -> dict[int, float]:
    ids = schedule.workload.column("id").tolist()
    return {i: s for i, s in zip(ids, schedule.start.tolist(), strict=True) if s == s}


def same_schedule(a: Schedule, b: Schedule) -> bool:
    return (
        np.array_equal(a.start, b.start, equal_nan=True)
        and np.array_equal(a.start_order, b.start_order)
        and a.reservations.tobytes() == b.reservations.tobytes()
    )


class PlainEASY(EASY):
    """EASY deciding every time by a full pass: no arrivals-only shortcut."""

    accelerated = False


def unused(job: Job) -> int:
    return 0


#: A resource nobody asks for.
LICENCES = Resource("licences", 5, unused)

# -- EASY against NaiveEASY on vectors -------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 3, None], ids=str)
@pytest.mark.parametrize("priority", [fcfs, sjf], ids=lambda p: p.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]))
def test_easy_equals_the_naive_definition_on_vectors(
    priority: Any, depth: int | None, data: st.DataObject, n: int
) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    fast = EASY(priority, depth, resources=resources)
    assert decisions(w, fast) == decisions(w, NaiveEASY(priority, resources, depth))
    schedule = simulate(w, EASY(priority, depth, resources=resources))
    validate_schedule(schedule)  # every resource's capacity
    if depth == 1:
        check_reservations(schedule, while_held=True)  # the head's reservation never moves later


@pytest.mark.parametrize(
    ("priority", "order"), [(fcfs, sjf), (sjf, lxf), (lxf, fcfs)], ids=["fcfs-sjf", "sjf-lxf", "lxf-fcfs"]
)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.sampled_from([2, 3]))
def test_a_backfill_order_on_vectors(priority: Any, order: Any, data: st.DataObject, n: int) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    fast = EASY(priority, backfill_order=order, resources=resources)
    assert decisions(w, fast) == decisions(w, NaiveEASY(priority, resources, backfill_order=order))
    check_reservations(
        simulate(w, EASY(priority, backfill_order=order, resources=resources)), while_held=True
    )


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.sampled_from([2, 3]), priority=st.sampled_from([fcfs, sjf]))
def test_depth_1_through_the_profile_is_the_definition_on_vectors(
    data: st.DataObject, n: int, priority: Any
) -> None:
    # The deeper path at depth 1 (what a window or test limit runs) against the profile definition:
    # it starts a job of zero estimate at once, where classic EASY waits for free amounts.
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    fast = EASY(priority, resources=resources)
    fast._always_plan = True
    assert decisions(w, fast) == decisions(w, NaiveEASY(priority, resources, through_profile=True))


@settings(max_examples=50, deadline=None)
@given(data=st.data(), depth=st.integers(2, 5))
def test_easy_equals_the_naive_definition_under_load(data: st.DataObject, depth: int) -> None:
    # Longer queues on a small machine, so that more jobs than the depth wait at once.
    resources = resource_sets[3]
    w = data.draw(resource_workloads(resources, max_jobs=35, machine_size=4))
    assert decisions(w, EASY(fcfs, depth, resources=resources)) == decisions(
        w, NaiveEASY(fcfs, resources, depth)
    )


@pytest.mark.parametrize("depth", [1, 3, None], ids=str)
@settings(max_examples=50, deadline=None)
@given(data=st.data(), n=st.sampled_from([2, 3]), priority=st.sampled_from([fcfs, sjf, lxf]))
def test_the_arrivals_shortcut_is_exact_on_vectors(
    depth: int | None, data: st.DataObject, n: int, priority: Any
) -> None:
    # Free and extra amounts only shrink between completions, in every resource: the shortcut holds.
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    fast = simulate(w, EASY(priority, depth, resources=resources))
    plain = simulate(w, PlainEASY(priority, depth, resources=resources))
    assert same_schedule(fast, plain)


def memory_job(i: int, processors: int, memory: int, estimate: float) -> Job:
    per = memory / processors
    return Job(
        id=i, submit=0.0, processors=processors, runtime=estimate, estimate=estimate, requested_memory=per
    )


def test_the_shadow_time_waits_for_every_resource() -> None:
    # 4 processors and 16 memory. Job 1 (1 processor, 12 memory) runs until 20, job 2 (2 and 2)
    # until 10. The head, job 3 (2 and 10), has its processors at 10 but its memory only at 20.
    s = EASY(resources=[MEMORY])
    s.reset(4, 0.0)
    for job in (memory_job(1, 1, 12, 20.0), memory_job(2, 2, 2, 10.0), memory_job(3, 2, 10, 5.0)):
        s.submit(job, 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1, 2]
    assert dict(s.reservations()) == {3: 20.0} and s._extra == Amounts((2, 6))


def test_the_extra_counts_every_resource() -> None:
    # 4 processors and 16 memory. Job 1 holds 2 processors and 12 memory until 10; the head, job 2,
    # needs 3 processors and 15 memory: shadow time 10, extra then 1 processor and 1 memory. Job 3
    # (1 processor, 2 memory, running past 10) fits now but not in the extra memory: it waits, though
    # on processors alone it would take the extra processor. Job 4 (1 and 1) fits in the extra.
    jobs = [
        memory_job(1, 2, 12, 10.0),
        memory_job(2, 3, 15, 10.0),
        memory_job(3, 1, 2, 30.0),
        memory_job(4, 1, 1, 30.0),
    ]
    started = {}
    for resources in ((MEMORY,), ()):
        s = EASY(resources=resources)
        s.reset(4, 0.0)
        for j in jobs:
            s.submit(j, 0.0)
        started[resources] = [j.id for j in s.schedule(0.0)]
        assert dict(s.reservations()) == {2: 10.0}
        if resources:
            assert s.free == Amounts((1, 3)) and s._extra == Amounts((0, 0))
    assert started == {(MEMORY,): [1, 4], (): [1, 3]}
    schedule = simulate(Workload.from_jobs(jobs, 4), EASY(resources=[MEMORY]))
    assert starts(schedule) == {1: 0.0, 2: 10.0, 3: 20.0, 4: 0.0}
    validate_schedule(schedule)


# -- FCFS and the queue base on vectors ------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]), priority=st.sampled_from([fcfs, sjf]))
def test_fcfs_equals_the_naive_definition_on_vectors(data: st.DataObject, n: int, priority: Any) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    assert decisions(w, FCFS(priority, resources=resources)) == decisions(w, NaiveFCFS(priority, resources))
    validate_schedule(simulate(w, FCFS(priority, resources=resources)))


class FirstFit(QueueScheduler):
    """A user's scheduler through public names only: every queued job that fits starts, in order."""

    def schedule(self, now: float) -> list[Job]:
        chosen, free = [], self.free
        for entry in self.ordered(now):
            need = self.request(entry[2])
            if need <= free:
                chosen.append(entry)
                free -= need
        return self.start(chosen, now)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]))
def test_a_users_queue_scheduler_plans_every_resource(data: st.DataObject, n: int) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    schedule = simulate(w, FirstFit(resources=resources))
    validate_schedule(schedule)
    # What it holds adds up: running jobs' amounts are the capacity less what is free.
    s = FirstFit(resources=resources)
    s.reset(w.machine_size, 0.0)
    by_id = {job.id: job for job in w}
    for job in w:
        if not s.request(job) > s.capacity:
            s.submit(job, job.submit)
    s.schedule(30.0)
    held = s.capacity - s.free  # type: ignore[operator]
    total: Any = Amounts([0] * (len(resources) + 1)) if resources else 0
    for running in s.running_jobs():
        total += running.request
        assert running.processors == s.amount(by_id[running.job_id]) == by_id[running.job_id].processors
    assert total == held


def test_start_refuseby_id_that_do_not_fit_in_some_resource() -> None:
    class Greedy(QueueScheduler):
        def schedule(self, now: float) -> list[Job]:
            return self.start(self.ordered(now), now)

    s = Greedy(resources=[MEMORY])
    s.reset(4, 0.0)
    for i in (1, 2):
        s.submit(Job(id=i, submit=0.0, processors=1, runtime=1.0, estimate=1.0, requested_memory=10.0), 0.0)
    assert s.capacity == Amounts((4, 16)) and s.request(
        Job(id=9, submit=0.0, processors=2, runtime=1.0, estimate=1.0, requested_memory=3.0)
    ) == Amounts((2, 6))
    with pytest.raises(
        ScheduleError,
        match=r"cannot start jobs \[1, 2\] at 0: they need 2 processors and 20 memory; 4 processors and 16 "
        r"memory are free",
    ):
        s.schedule(0.0)
    assert s.free == Amounts((4, 16)) and s.queued() == 2  # nothing changed


# -- the door, names, and resources that change nothing --------------------------------------------


def big(job_id: int) -> Job:
    return Job(id=job_id, submit=0.0, processors=2, runtime=1.0, estimate=1.0, requested_memory=9.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda r: FCFS(resources=r),
        lambda r: EASY(resources=r),
        lambda r: EASY(depth=3, resources=r),
        lambda r: EASY(planning_window=100.0, resources=r),
        lambda r: RelShare(resources=r),
    ],
    ids=["FCFS", "EASY", "EASY-depth3", "EASY-window", "RelShare"],
)
def test_the_door_refuses_a_job_larger_than_a_capacity(make: Any) -> None:
    s = make([MEMORY, GPUS])
    s.reset(4, 0.0)
    with pytest.raises(ScheduleError, match=rf"^{re.escape(s.name)}: job 7 .*asks 18 memory of 16"):
        s.submit(big(7), 0.0)
    assert s.queued() == 0
    s.submit(Job(id=7, submit=0.0, processors=2, runtime=1.0, estimate=1.0), 0.0)  # it was never queued
    assert [j.id for j in s.schedule(0.0)] == [7]


def test_names_carry_the_resources() -> None:
    r = [MEMORY, GPUS]
    assert FCFS(resources=r).name == "FCFS(fcfs, +memory, +gpus)"
    assert repr(FCFS(sjf, resources=r)) == "FCFS(priority=sjf, +memory, +gpus)"
    assert EASY(resources=[MEMORY]).name == "EASY(fcfs, +memory)"
    assert repr(EASY(resources=[MEMORY])) == "EASY(priority=fcfs, +memory)"
    assert EASY(sjf, None, resources=[MEMORY]).name == "EASY(sjf, depth=inf, +memory)"
    assert EASY(backfill_order=sjf, resources=[MEMORY]).name == "EASY(fcfs, backfill_order=sjf, +memory)"
    assert RelShare(resources=[MEMORY]).name == "RelShare(1d, +memory)"
    assert repr(RelShare(resources=[MEMORY])).endswith("max_tested=None, +memory)")
    # Without resources, the names are unchanged.
    assert (FCFS().name, EASY().name, RelShare().name) == ("FCFS(fcfs)", "EASY(fcfs)", "RelShare(1d)")
    assert (repr(EASY()), repr(FCFS())) == ("EASY(priority=fcfs)", "FCFS(priority=fcfs)")


SCHEDULERS = [
    lambda r: FCFS(resources=r),
    lambda r: FCFS(sjf, resources=r),
    lambda r: EASY(resources=r),
    lambda r: EASY(sjf, backfill_order=lxf, resources=r),
    lambda r: EASY(depth=3, resources=r),
    lambda r: EASY(lxf, depth=None, resources=r),
    lambda r: EASY(max_tested=3, planning_window=20.0, resources=r),
    lambda r: RelShare(window=40.0, resources=r),
    lambda r: RelShare(window=40.0, depth=None, expected_usage=False, resources=r),
]


@pytest.mark.parametrize("make", SCHEDULERS, ids=range(len(SCHEDULERS)))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_resource_nobody_asks_for_changes_nothing(make: Any, data: st.DataObject) -> None:
    # Processors alone run whole in the compiled kernel where it applies; with a resource, the
    # Python path: the same starts, start order and reservation log.
    w = with_users(data.draw(resource_workloads(())), data)
    assert same_schedule(simulate(w, make(())), simulate(w, make((LICENCES,))))


# -- RelShare: usage by dominant share -------------------------------------------------------------


def with_users(w: Workload, data: st.DataObject) -> Workload:
    users = data.draw(st.lists(st.integers(0, 2), min_size=len(w), max_size=len(w)))
    return Workload.from_jobs(
        [attrs.evolve(j, user=u) for j, u in zip(w, users, strict=True)], w.machine_size
    )


def dominant_width(job: Job, size: int, resources: tuple[Resource, ...]) -> float:
    """A job's charged width as the docs state it: its largest share of any resource, times the processors."""
    share = max([job.processors / size, *(r.amount(job) / r.capacity for r in resources)])
    return share * size


class AuditedOnVectors(Audited):
    """test_relshare's from-scratch accounting, charging each job its dominant share."""

    def __init__(self, inner: RelShare) -> None:
        super().__init__(inner)
        self.resources = inner.resources

    def width(self, job: Job) -> float:
        return dominant_width(job, self.size, self.resources)

    def check(self, now: float) -> None:
        if self.jobs:  # a decision comes even when every job was rejected
            super().check(now)


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    n=st.sampled_from([2, 3]),
    window=st.sampled_from([20.0, 1000.0]),
    expected_usage=st.booleans(),
    depth=st.sampled_from([1, None]),
)
def test_relshare_accounts_dominant_shares_incrementally(
    data: st.DataObject, n: int, window: float, expected_usage: bool, depth: int | None
) -> None:
    resources = resource_sets[n]
    w = with_users(data.draw(resource_workloads(resources)), data)
    scheduler = RelShare(window=window, expected_usage=expected_usage, depth=depth, resources=resources)
    audited = AuditedOnVectors(scheduler)
    schedule = simulate(w, audited)  # type: ignore[arg-type]
    assert audited.checks > 0 or not starts(schedule)
    schedule = simulate(
        w, RelShare(window=window, expected_usage=expected_usage, depth=depth, resources=resources)
    )
    validate_schedule(schedule)
    if depth == 1:  # EASY's promise, under any priority: the head's reservation never moves later
        check_reservations(schedule, while_held=True)


def test_a_memory_heavy_user_is_charged_by_memory() -> None:
    # On 4 processors and 16 memory, user 1 runs 1 processor with all 16 memory for 10 s: charged
    # the whole machine, 4 x 10. User 2 runs 2 processors with 2 memory: charged its processors.
    memory = Resource.memory(16)
    s = RelShare(window=1000.0, expected_usage=False, resources=[memory])
    s.reset(4, 0.0)
    s.submit(
        Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, user=1, requested_memory=16.0), 0.0
    )
    s.submit(
        Job(id=2, submit=0.0, processors=2, runtime=10.0, estimate=10.0, user=2, requested_memory=1.0), 0.0
    )
    s.submit(
        Job(id=3, submit=0.0, processors=1, runtime=10.0, estimate=10.0, user=3, requested_memory=6.0), 0.0
    )
    assert [j.id for j in s.schedule(0.0)] == [1]  # job 2 needs memory job 1 holds
    s.complete(
        Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, user=1, requested_memory=16.0), 10.0
    )
    assert s.usage(1, 10.0) == 40.0
    assert [j.id for j in s.schedule(10.0)] == [2, 3]
    assert s._charged(Job(id=3, submit=0.0, processors=1, runtime=1.0, estimate=1.0)) == Fraction(3, 2)
    assert s.usage(2, 15.0) == 2 * 5.0 and s.usage(3, 15.0) == 1.5 * 5.0
    plain = RelShare(window=1000.0, expected_usage=False)
    plain.reset(4, 0.0)
    plain.submit(Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, user=1), 0.0)
    plain.schedule(0.0)
    assert plain.usage(1, 10.0) == 10.0  # processors alone: processor-seconds


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_relshare_usage_is_processor_seconds_when_processors_dominate(data: st.DataObject) -> None:
    # A resource every job asks at most its processor share of: the same widths, so the same usage
    # and schedule as processors alone, at every decision.
    w = with_users(data.draw(resource_workloads(())), data)
    fair = Resource("share", 8 * w.machine_size, share_of_processors)
    recorded = [RelShare(window=30.0), RelShare(window=30.0, resources=[fair])]
    usage: list[list[float]] = [[], []]
    for k, scheduler in enumerate(recorded):
        simulate(w, UsageProbe(scheduler, usage[k]))  # type: ignore[arg-type]
    assert usage[0] == usage[1]
    assert usage[0] or len(w) == 0


def share_of_processors(job: Job) -> int:
    return 8 * job.processors - job.id % 2  # at most the processors' share of the capacity


class UsageProbe(Recorder):
    """Records every owner's usage after each decision."""

    def __init__(self, inner: RelShare, out: list[float]) -> None:
        super().__init__(inner)
        self.out = out

    def schedule(self, now: float) -> list[Job]:
        started = super().schedule(now)
        self.out += [self.inner.usage(owner, now) for owner in range(3)]
        self.out += [float(j.id) for j in started]
        return started


def test_charged_widths_are_exact() -> None:
    # Thirds of a machine add up and come back to exactly nothing (Fractions, not floats).
    thirds = Resource("licences", 3, lambda job: 1)
    s = RelShare(resources=[thirds])
    s.reset(1000, 0.0)
    jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0, user=1) for i in range(3)]
    for job in jobs:
        s.submit(job, 0.0)
    assert len(s.schedule(0.0)) == 3 and s._width[1] == 1000 and s._request[1] == 1000
    for job in jobs:
        s.complete(job, 5.0)
    assert 1 not in s._request and s._width[1] == 0 and math.isclose(s.usage(1, 5.0), 5000.0)


@pytest.mark.parametrize("make", SCHEDULERS, ids=range(len(SCHEDULERS)))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_every_schedule_fits_and_nothing_is_kept_of_finished_jobs(make: Any, data: st.DataObject) -> None:
    # Windows and test limits too (on the deeper path), whose rule no naive model here restates.
    resources = resource_sets[3]
    scheduler = make(resources)
    validate_schedule(simulate(with_users(data.draw(resource_workloads(resources)), data), scheduler))
    assert scheduler._requests == {}  # every job ended: no amounts left behind
    assert getattr(scheduler, "_core", scheduler)._requests == {}


def negative(job: Job) -> int:
    return -3


@pytest.mark.parametrize("cls", [FCFS, EASY, RelShare], ids=lambda c: c.__name__)
def test_a_request_that_is_not_an_amount_is_refused_naming_the_job(cls: Any) -> None:
    s = cls(resources=[Resource("gpus", 4, negative)])
    s.reset(4, 0.0)
    with pytest.raises(ScheduleError, match=r"\+gpus\): job 9: gpus request must be an int >= 0, got -3$"):
        s.submit(Job(id=9, submit=0.0, processors=1, runtime=1.0, estimate=1.0), 0.0)
    assert s.queued() == 0
