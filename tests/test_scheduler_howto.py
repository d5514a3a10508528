"""Writing a scheduler with resources from the docs alone: the how-to's schedulers, and a user's own.

``docs/how-to/scheduler.md`` is run as written by ``tests/test_doc_pages.py``; here its schedulers
are taken from the page (its blocks executed once) and property-tested with ``backfill.testing``'s
kit, with processors alone and with memory and GPUs, under FCFS and SJF. Then a multi-resource EASY
and a Conservative are written as a researcher would from the page, with public names only, and
checked the same way: the EASY must schedule as the library's ``EASY``, the Conservative must keep
every guarantee. The public pieces the page names (``RunningJob``'s ``request``,
``SchedulerBase.amount``, ``amount_of``, ``summarize``'s ``utilization_<name>``, the host example's
rejections) are checked last.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import io
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from private_names import private_names
from test_doc_pages import python_blocks

import backfill
from backfill import (
    EASY,
    FCFS,
    Amounts,
    Job,
    ParameterError,
    Profile,
    QueueScheduler,
    Resource,
    ResourceProfile,
    RunningJob,
    ScheduleError,
    Workload,
    amount_of,
    fcfs,
    metrics_table,
    same_schedule,
    simulate,
    sjf,
    summarize,
)
from backfill.schedulers.registry import SCHEDULERS
from backfill.testing import check_scheduler, gpu_request, workloads

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "how-to" / "scheduler.md"

MEMORY = Resource.memory(12)
GPUS = Resource("gpus", 2, gpu_request)
#: Processors alone, memory, memory and GPUs.
RESOURCE_SETS: list[tuple[Resource, ...]] = [(), (MEMORY,), (MEMORY, GPUS)]
PRIORITIES = [fcfs, sjf]


@functools.cache
def _page() -> dict[str, Any]:
    """The page's namespace after every block ran (its printing swallowed, its registrations undone)."""
    namespace: dict[str, Any] = {"__name__": "scheduler_howto"}
    registered = list(SCHEDULERS)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for block in python_blocks(PAGE):
                exec(compile(block.source, f"{PAGE}:{block.line}", "exec"), namespace)
    finally:
        for entry in SCHEDULERS:
            if entry not in registered:
                SCHEDULERS.unregister(entry.name)
    return namespace


@pytest.fixture(scope="module", autouse=True)
def page_first() -> None:
    """Run the page before any test: outside every @given, since the page runs @given tests of its own."""
    _page()


def _drawn(resources: tuple[Resource, ...], zero_runtimes: bool = True) -> st.SearchStrategy[Workload]:
    if not resources:
        return workloads(zero_runtimes=zero_runtimes)
    return workloads(max_jobs=14, resources=list(resources), too_wide=True, zero_runtimes=zero_runtimes)


#: (name on the page, how it is built from a priority and resources, the promise it keeps).
PAGE_SCHEDULERS: list[tuple[str, Callable[..., Any], bool | str]] = [
    ("Greedy", lambda cls, p, r: cls(p, resources=r), False),
    ("Cycled", lambda cls, p, r: cls(p, resources=r, period=7.0), False),
    ("CheckedGreedy", lambda cls, p, r: cls(p, resources=r), False),
    ("ReserveTheHead", lambda cls, p, r: cls(p, resources=r), "while_held"),
    ("FirstFit", lambda cls, p, r: cls(p, resources=r), False),
    ("CompressAtArrivals", lambda cls, p, r: cls(p, resources=r), True),
]


@pytest.mark.parametrize("name, build, promise", PAGE_SCHEDULERS, ids=[s[0] for s in PAGE_SCHEDULERS])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_scheduler_of_the_page_runs_with_and_without_resources(
    name: str, build: Callable[..., Any], promise: bool | str, data: st.DataObject
) -> None:
    resources = data.draw(st.sampled_from(RESOURCE_SETS), label="resources")
    priority = data.draw(st.sampled_from(PRIORITIES), label="priority")
    workload = data.draw(_drawn(resources), label="workload")
    scheduler = build(_page()[name], priority, resources)
    check_scheduler(scheduler, workload, guarantees=promise)  # type: ignore[arg-type]


# -- what the page's ReserveTheHead had before, and why each rule is there ----------------------------


class OldReserveTheHead(QueueScheduler):
    """The page's former example: processors compared as ints, no withdrawal when a job passes."""

    def schedule(self, now: float) -> list[Job]:
        chosen: list[Any] = []
        free: Any = self.free
        head = None
        for entry in self.ordered(now):
            if entry[2].processors > free:
                head = entry[2]
                break
            chosen.append(entry)
            free -= entry[2].processors
        started = self.start(chosen, now)
        if head is not None:
            for running in self.running_jobs():
                free += running.request
                if free >= head.processors:
                    self.note_reservation(head.id, running.planned_end)
                    break
        return started


#: A 4-processor machine: job 0 (3 processors) runs to 10, job 1 (the whole machine) waits for it,
#: and at 1 job 2 (1 processor, 20 s) comes ahead of job 1 under SJF, starts, and ends at 21.
PASSING = Workload.from_jobs(
    [
        Job(id=0, submit=0.0, processors=3, runtime=10.0, estimate=10.0, requested_memory=1.0),
        Job(id=1, submit=0.0, processors=4, runtime=100.0, estimate=100.0, requested_memory=1.0),
        Job(id=2, submit=1.0, processors=1, runtime=20.0, estimate=20.0, requested_memory=1.0),
    ],
    machine_size=4,
)


def test_a_head_reservation_kept_when_a_job_passes_breaks_the_promise_under_sjf() -> None:
    with pytest.raises(ScheduleError, match="job 1"):
        check_scheduler(OldReserveTheHead(sjf), PASSING, guarantees="while_held")
    check_scheduler(OldReserveTheHead(fcfs), PASSING, guarantees="while_held")  # nobody passes
    mine = check_scheduler(_page()["ReserveTheHead"](sjf), PASSING, guarantees="while_held")
    log = [(t, j, s) for t, j, s in mine.reservations.tolist() if j == 1]
    assert log[:2] == [(0.0, 1, 10.0), (1.0, 1, log[1][2])] and math.isnan(log[1][2])  # withdrawn
    assert log[2] == (1.0, 1, 21.0)  # and reserved again, later, as the new run of reservations


def test_the_old_example_fails_with_resources_and_the_page_s_runs() -> None:
    with pytest.raises(ScheduleError, match="TypeError"):
        check_scheduler(OldReserveTheHead(resources=[MEMORY]), PASSING, guarantees="while_held")
    check_scheduler(_page()["ReserveTheHead"](resources=[MEMORY]), PASSING, guarantees="while_held")


def test_the_extra_counts_every_job_ending_at_the_shadow_time() -> None:
    s = _page()["ReserveTheHead"]()
    s.reset(8, now=0.0)
    for i, (p, e) in enumerate([(2, 5.0), (2, 5.0), (4, 9.0)]):
        s.submit(Job(id=i, submit=0.0, processors=p, runtime=e, estimate=e), now=0.0)
    s.schedule(0.0)
    # The head needs 2 at 5, when jobs 0 and 1 both end: 4 are free then, 2 beyond the head's.
    assert s.shadow(2) == (5.0, 2)


# -- a researcher's multi-resource EASY and Conservative, from the page ------------------------------


class MyEASY(QueueScheduler):
    """EASY from the how-to: start in order while jobs fit, reserve the head, backfill (both rules)."""

    def shadow(self, need: Any) -> tuple[float, Any]:
        free, shadow = self.free, math.inf
        for running in self.running_jobs():
            if running.planned_end > shadow:
                break
            free += running.request
            if shadow == math.inf and need <= free:
                shadow = running.planned_end
        return shadow, free - need

    def schedule(self, now: float) -> list[Job]:
        held = next(iter(self.reservations()), None)
        queue = list(self.ordered(now))
        free = self.free
        i = 0
        while i < len(queue) and self.request(queue[i][2]) <= free:
            free -= self.request(queue[i][2])
            i += 1
        started = self.start(queue[:i], now)
        head = queue[i][2] if i < len(queue) else None
        passed = held is not None and held not in {job.id for job in started}
        if passed and (started or head is None or head.id != held):
            self.note_reservation(held, math.nan)
        if head is None:
            return started
        shadow, extra = self.shadow(self.request(head))
        self.note_reservation(head.id, shadow)
        chosen = []
        for entry in queue[i + 1 :]:
            need = self.request(entry[2])
            if not need <= free:
                continue
            if now + entry[2].estimate <= shadow:
                pass
            elif need <= extra:
                extra -= need
            else:
                continue
            chosen.append(entry)
            free -= need
        return started + self.start(chosen, now)


class MyConservative(QueueScheduler):
    """Each job reserved at its earliest fit on arrival; an early end moves jobs earlier by priority."""

    plan: Any = None  # a Profile, or a ResourceProfile with resources, from reset on

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        capacity = self.capacity
        self.plan: Any = (
            ResourceProfile(capacity, origin=now)
            if isinstance(capacity, Amounts)
            else Profile(capacity, origin=now)
        )

    def copy(self) -> MyConservative:
        other = super().copy()
        other.plan = None if self.plan is None else self.plan.copy()
        return other

    def submit(self, job: Job, now: float) -> None:
        super().submit(job, now)
        need = self.request(job)
        start = self.plan.earliest_fit(now, need, job.estimate)
        self.plan.reserve(start, start + job.estimate, need)
        self.note_reservation(job.id, start)

    def complete(self, job: Job, now: float) -> None:
        planned_end = next(r.planned_end for r in self.running_jobs() if r.job_id == job.id)
        super().complete(job, now)
        if now < planned_end:
            self.plan.release(now, planned_end, self.request(job))
            for entry in self.ordered(now):  # compression: only ever earlier
                queued, need = entry[2], self.request(entry[2])
                old = self.reservations()[queued.id]
                self.plan.release(old, old + queued.estimate, need)
                new = self.plan.earliest_fit(now, need, queued.estimate)
                start = new if new < old else old
                self.plan.reserve(start, start + queued.estimate, need)
                self.note_reservation(queued.id, start)

    def schedule(self, now: float) -> list[Job]:
        reserved = self.reservations()
        return self.start([e for e in self.ordered(now) if reserved[e[2].id] <= now], now)

    def next_wakeup(self) -> float | None:
        # After a compression a reservation can fall where no job ends: be woken then.
        return min(self.reservations().values(), default=None)


def test_the_users_schedulers_name_nothing_private() -> None:
    for cls in (MyEASY, MyConservative):
        assert private_names(inspect.getsource(cls)) == []


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_users_multi_resource_easy_is_easy(data: st.DataObject) -> None:
    resources = data.draw(st.sampled_from(RESOURCE_SETS), label="resources")
    priority = data.draw(st.sampled_from(PRIORITIES), label="priority")
    workload = data.draw(_drawn(resources), label="workload")
    mine = check_scheduler(MyEASY(priority, resources=resources), workload, guarantees="while_held")
    same_schedule(mine, simulate(workload, EASY(priority, resources=resources)))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_users_multi_resource_conservative_keeps_every_guarantee(data: st.DataObject) -> None:
    resources = data.draw(st.sampled_from(RESOURCE_SETS), label="resources")
    priority = data.draw(st.sampled_from(PRIORITIES), label="priority")
    # Without jobs of zero estimate: such a job holds nothing in a profile, so a plan made with one
    # promises it a start where its amounts may not be free at that instant (the how-to says so).
    workload = data.draw(_drawn(resources, zero_runtimes=False), label="workload")
    check_scheduler(MyConservative(priority, resources=resources), workload, guarantees=True)


def test_a_conservative_that_plans_afresh_is_caught() -> None:
    class Careless(MyConservative):
        """Re-plans every queued job from scratch in priority order at an early end: a job can move later."""

        def complete(self, job: Job, now: float) -> None:
            planned_end = next(r.planned_end for r in self.running_jobs() if r.job_id == job.id)
            QueueScheduler.complete(self, job, now)
            if now < planned_end:
                self.plan.release(now, planned_end, self.request(job))
                queue = [entry[2] for entry in self.ordered(now)]
                for queued in queue:
                    old = self.reservations()[queued.id]
                    self.plan.release(old, old + queued.estimate, self.request(queued))
                for queued in queue:
                    start = self.plan.earliest_fit(now, self.request(queued), queued.estimate)
                    self.plan.reserve(start, start + queued.estimate, self.request(queued))
                    self.note_reservation(queued.id, start)

    # One processor, four jobs at 0: job 1 runs first (estimated 2, ends at 1), job 2 is promised 2;
    # at 1, SJF re-plans jobs 3 and 4 (estimated 1) ahead of it, and job 2 is pushed to 3.
    w = Workload.from_jobs(
        [
            Job(id=i, submit=0.0, processors=1, runtime=1.0, estimate=e)
            for i, e in ((1, 2.0), (2, 2.0), (3, 1.0), (4, 1.0))
        ],
        machine_size=1,
    )
    with pytest.raises(ScheduleError, match=r"job 2's reservation moved later at 1: 2 -> 3"):
        check_scheduler(Careless(sjf), w)
    check_scheduler(MyConservative(sjf), w)  # compressing only earlier keeps every guarantee there


# -- the public pieces the page names ------------------------------------------------------------------


def test_a_running_job_holds_its_request_and_counts_its_processors() -> None:
    assert RunningJob(1, 5.0, 3) == RunningJob(job_id=1, planned_end=5.0, processors=3) == (1, 5.0, 3)
    assert RunningJob(1, 5.0, 3).request == RunningJob(1, 5.0, 3).processors == 3
    held = RunningJob(1, 5.0, Amounts((3, 400)))
    assert held.processors == 3 and held.request == Amounts((3, 400))
    assert RunningJob(1, 5.0, processors=Amounts((3, 400))) == held  # the former name, Amounts and all
    with pytest.raises(TypeError, match="request"):
        RunningJob(1, 5.0)
    with pytest.raises(TypeError, match="request"):
        RunningJob(1, 5.0, 3, processors=3)
    s = FCFS(resources=[MEMORY])
    s.reset(4, now=0.0)
    job = Job(id=7, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=3.0)
    s.submit(job, now=0.0)
    s.schedule(0.0)
    assert s.running_jobs() == [RunningJob(7, 5.0, Amounts((2, 6)))]
    assert s.running_jobs()[0].processors == 2 and s.free == Amounts((2, 6))


def test_amount_reads_one_resource_with_and_without_resources() -> None:
    job = Job(id=7, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=3.0)
    assert EASY().amount(job) == 2 == EASY(resources=[MEMORY, GPUS]).amount(job, "processors")
    assert EASY(resources=[MEMORY, GPUS]).amount(job, "memory") == 6
    assert EASY(resources=[MEMORY, GPUS]).amount(job, "gpus") == gpu_request(job)
    with pytest.raises(
        ParameterError, match=r"EASY\(fcfs\): no resource 'memory' is planned; planned: processors$"
    ):
        EASY().amount(job, "memory")
    with pytest.raises(ParameterError, match=r"'disk'.*planned: processors, memory, gpus"):
        EASY(resources=[MEMORY, GPUS]).amount(job, "disk")
    # A submitted job's amounts are those taken at submission, as request() gives them.
    s = FCFS(resources=[MEMORY])
    s.reset(4, now=0.0)
    s.submit(job, now=0.0)
    assert s.amount(job, "memory") == s.request(job)[1] == 6  # type: ignore[index]


def test_amount_of_reads_free_and_capacity_values_and_refuses_a_mismatch() -> None:
    s = FCFS(resources=[MEMORY])
    s.reset(4, now=0.0)
    assert amount_of(s.capacity, "memory", s.resources) == 12
    assert amount_of(s.free, resources=s.resources) == 4
    assert amount_of(4) == 4 and amount_of(Amounts((4,))) == 4
    with pytest.raises(ParameterError, match="does not hold processors, memory"):
        amount_of(4, "processors", ["memory"])
    with pytest.raises(ParameterError, match="does not hold processors, memory"):
        amount_of(Amounts((4, 1, 2)), "memory", ["memory"])
    with pytest.raises(ParameterError, match="no resource 'gpus' is planned; planned: processors"):
        amount_of(4, "gpus")
    assert "amount_of" in backfill.__all__


def test_summarize_has_a_utilization_per_planned_resource() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=6.0),
        Job(id=2, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=4.0),
        Job(id=3, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=40.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=2)
    with_memory = simulate(w, EASY(resources=[Resource.memory(8)]))
    summary = summarize(with_memory)
    # 6 + 4 > 8: the second waits for memory; the third can never fit and is rejected.
    assert summary["utilization_memory"] == pytest.approx((6 + 4) * 10 / (8 * 20))
    assert summary["rejected"] == 1.0 and list(summary)[-1] == "utilization_memory"
    assert "utilization_memory" not in summarize(simulate(w, EASY()))
    table = metrics_table([with_memory, simulate(w, EASY())], columns=["jobs", "utilization_memory"])
    assert table.splitlines()[1:] == [
        "EASY(fcfs, +memory)     2               0.625",
        "EASY(fcfs)              3                   -",
    ]
    with pytest.raises(backfill.BackfillError, match="'utilization_gpus'"):
        metrics_table([with_memory], columns=["utilization_gpus"])
    with pytest.raises(backfill.BackfillError, match="'wait'"):
        metrics_table([with_memory], columns=["wait"])


def _host_module() -> Any:
    spec = importlib.util.spec_from_file_location("host_simulator", ROOT / "examples" / "host_simulator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["host_simulator"] = module
    spec.loader.exec_module(module)
    return module


def test_the_host_example_rejects_and_reports_a_request_above_a_capacity() -> None:
    host_simulator = _host_module()
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=2.0),
        Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=9.0),  # 18 > 16
        Job(id=3, submit=1.0, processors=9, runtime=5.0, estimate=5.0),  # wider than the machine
        Job(id=4, submit=2.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=7.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    memory = Resource.memory(16)
    host = host_simulator.Host(backfill.guarded(EASY(resources=[memory])), 4)
    host.run(list(w))
    assert host.rejected == {
        2: "needs more memory than the machine has (16)",
        3: "wider than the machine (4 processors)",
    }
    ours = host.schedule_of(w)
    same_schedule(ours, simulate(w, EASY(resources=[memory])))
    assert ours.rejection_counts() == simulate(w, EASY(resources=[memory])).rejection_counts()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        host_simulator.main(["--memory"])
    lines = out.getvalue().splitlines()
    assert (
        sum(
            line.startswith("  rejected 8 jobs: needs more memory than the machine has (67108864)")
            for line in lines
        )
        == 4
    )
    assert np.all(
        ["the same schedule and reservation log as backfill.simulate" in line for line in lines[1::2]]
    )


def test_the_page_plans_a_workload_with_memory_as_it_says() -> None:
    heavy, memory = _page()["heavy"], _page()["memory"]
    assert memory.capacity == heavy.machine_size * 2**20
    too_large = sum(memory.amount(job) > memory.capacity for job in heavy)
    assert too_large == 53  # as the page says
    for run in _page()["with_memory_runs"]:
        assert len(run.rejected) == too_large and [r.name for r in run.resources] == ["memory"]


def test_reading_one_resource_refuses_a_value_it_cannot_hold() -> None:
    from backfill.errors import ParameterError

    with pytest.raises(ParameterError, match="-3 does not hold processors"):
        amount_of(-3)  # a count of processors is never negative
    with pytest.raises(ParameterError, match=r"EASY\(fcfs\): amount\(\) takes a Job, got 'job 7'"):
        EASY().amount("job 7")  # type: ignore[arg-type]
