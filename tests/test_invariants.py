"""The invariant suite: every scheduler under every priority, each workload through all of them.

Each workload drawn by :func:`backfill.testing.workloads` (inaccurate and exact estimates, zero
runtimes, runtimes beyond the estimate under both overrun policies, jobs as wide as the machine and
wider, many arrivals and completions at one instant, three users) is simulated under every
configuration of :data:`CONFIGS`, and each schedule must pass

* the simulator's own checks: no job started twice or while not queued, never more processors than
  the machine, and every job accounted for (jobs in = scheduled + rejected with a reason);
* :func:`backfill.testing.check_feasible`, the independent validator;
* the guarantee the scheduler promises (:data:`CONFIGS` says which).

The configurations are written here for the schedulers whose promises they name; a registered
scheduler without one here (a new built-in) is run as :func:`strategies.registered_schedulers`
builds it (its defaults under every priority it takes, then each parameter sample), held to
feasibility, so the suite covers every entry of the registry without an edit. The default run tries
150 workloads; the slow suite tries 10,000, each through all the configurations
(``python -m pytest -m slow tests/test_invariants.py``; CI runs it too). The example counts are set
here, so they override conftest's hypothesis profiles.

On several resources (memory, then memory and GPUs, drawn by ``workloads(resources=...)`` up to each
capacity and beyond), every guarantee-keeping configuration of :data:`CONFIGS` (Conservative, PC,
DC, Selective, the slack schedulers, under every priority and planning limit) is rebuilt with the
resources and held to the same promise, and the validator checks every resource's capacity: one
test per configuration and resource count (``-k Conservative`` selects some), 40 workloads each by
default and 200 in the slow suite.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import attrs
import numpy as np
import pytest
from checks import check_slack_bound, check_slack_guarantees
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import registered_schedulers

from backfill import (
    DC,
    EASY,
    FCFS,
    G2,
    PC,
    AdaptiveThreshold,
    CategoryThresholds,
    Conservative,
    Job,
    LookaheadSlack,
    RelShare,
    Resource,
    Schedule,
    ScheduleError,
    Scheduler,
    SchedulerBase,
    Selective,
    SlackBackfill,
    UserHistory,
    Workload,
    exact_runtime,
    planning,
    simulate,
    sjf,
)
from backfill.measures.planning import guarantee_violations
from backfill.measures.validation import check_reservations
from backfill.schedulers import scheduler_name
from backfill.schedulers.machinery.priorities import PRIORITIES, depends_on_time, fcfs
from backfill.schedulers.registry import SCHEDULERS as REGISTRY
from backfill.testing import (
    _describe,
    check_feasible,
    check_guarantees,
    check_holds,
    gpu_request,
    workloads,
)

#: What a configuration's schedule must satisfy beyond feasibility: (schedule, the scheduler instance
#: that made it) -> None, raising on a broken promise.
Check = Callable[[Schedule, Scheduler], None]


@dataclass(frozen=True)
class Config:
    """One scheduler configuration of the suite and the promise it is held to."""

    scheduler: Scheduler
    check: Check
    promise: str

    @property
    def name(self) -> str:
        return scheduler_name(self.scheduler)


def kept(schedule: Schedule, scheduler: Scheduler) -> None:
    check_guarantees(schedule)


def kept_for_promoted(schedule: Schedule, scheduler: Scheduler) -> None:
    check_guarantees(schedule, require_log=False)


def held(schedule: Schedule, scheduler: Scheduler) -> None:
    check_holds(schedule)


def exact(schedule: Schedule) -> bool:
    ran = ~np.isnan(schedule.start)
    return bool((schedule.estimate[ran] == schedule.runtime[ran]).all())


def held_if_exact_and_static(schedule: Schedule, scheduler: Scheduler) -> None:
    # EASY's docstring: deeper reservations keep while held only with exact estimates and a static
    # priority (LXF, which depends on time, only to depth 2), so that is all these are held to.
    assert isinstance(scheduler, EASY)
    if exact(schedule) and not depends_on_time(scheduler.priority):
        check_holds(schedule, require_log=False)


def in_priority_order(schedule: Schedule, scheduler: Scheduler) -> None:
    # FCFS without backfilling: no job starts before one that arrived earlier.
    ran = ~np.isnan(schedule.start)
    starts = schedule.start[ran]
    if (np.diff(starts) < 0).any():
        raise ScheduleError(f"{schedule.scheduler} started a job before an earlier arrival")


def feasible_only(schedule: Schedule, scheduler: Scheduler) -> None:
    """Nothing is promised beyond a feasible schedule with every job accounted for."""


def slack_guarantees(schedule: Schedule, scheduler: Scheduler) -> None:
    assert isinstance(scheduler, SlackBackfill)
    check_slack_guarantees(schedule, scheduler.tolerance, scheduler.weight)


def slack_bound(schedule: Schedule, scheduler: Scheduler) -> None:
    assert isinstance(scheduler, LookaheadSlack)
    check_slack_bound(schedule, scheduler)


def by_width(job: Job) -> float:
    """Less slack for wider jobs."""
    return 2.0 / job.processors


def violations_counted(schedule: Schedule, scheduler: Scheduler) -> None:
    """A run planned on predictions may break guarantees; the measure must count exactly those."""
    broken = int(guarantee_violations(schedule).sum())
    try:
        check_reservations(schedule, while_held=True)
    except ScheduleError:
        if not broken:
            raise
        return
    if broken:
        raise ScheduleError(f"{schedule.scheduler}: {broken} broken guarantees counted in a valid log")


def third(job: Job, now: float) -> float:
    """Underpredict every job."""
    return job.estimate / 3


def configurations() -> list[Config]:
    """Every scheduler, every priority it takes, and the variants that change what it promises."""
    out: list[Config] = []
    for name in sorted(PRIORITIES):
        p = PRIORITIES[name]
        out.append(Config(FCFS(p), in_priority_order if p is fcfs else feasible_only, "no backfilling"))
        out.append(Config(EASY(p), held, "head reservation kept while held"))
        for depth in (3, None):
            out.append(Config(EASY(p, depth=depth), held_if_exact_and_static, "kept while held if exact"))
        out.append(Config(PC(p), kept, "reservations kept"))
        out.append(Config(DC(p), kept, "reservations kept"))
        out.append(Config(Selective(2.0, p), kept_for_promoted, "promoted jobs' reservations kept"))
    out.append(Config(Conservative(), kept, "reservations kept"))
    out.append(Config(PC(restart=False), kept, "reservations kept"))
    out.append(Config(Selective(), kept_for_promoted, "promoted jobs' reservations kept"))
    out.append(
        Config(
            Selective(AdaptiveThreshold(factor=1.5, per_category=True)),
            kept_for_promoted,
            "promoted jobs' reservations kept",
        )
    )
    out.append(
        Config(Selective(CategoryThresholds(1.5, 3.0, 1.2, 2.0)), kept_for_promoted, "promoted jobs kept")
    )
    out.append(Config(RelShare(window=20.0), held, "head reservation kept while held"))
    out.append(Config(RelShare(window=30.0, expected_usage=False, depth=2), feasible_only, "feasible"))
    out.append(Config(RelShare(window=20.0, by="group", decay=0.5), held, "head reservation kept"))
    out.append(Config(LookaheadSlack(), slack_bound, "moves later within the slack"))
    out.append(Config(LookaheadSlack(goal=G2(), lookahead=3, prune_on_slack=False), slack_bound, "slack"))
    out.append(Config(SlackBackfill(), slack_guarantees, "start by first reservation + slack"))
    out.append(Config(SlackBackfill(tolerance=0.0), slack_guarantees, "start by first reservation"))
    out.append(Config(SlackBackfill(tolerance=0.5, weight=by_width), slack_guarantees, "weighted slack"))
    # Planning with predictions (issue 34): guarantees made on predictions may break, and the measure
    # counts exactly the breaks; an oracle never underpredicts, so it keeps Conservative's promise.
    for scheduler in (
        EASY(),
        EASY(depth=None),
        Conservative(),
        PC(),
        DC(),
        Selective(2.0),
        RelShare(window=20.0),
    ):
        out.append(Config(planning(scheduler, predictor=UserHistory()), violations_counted, "breaks counted"))
    out.append(
        Config(
            planning(Conservative(), predictor=third, correction="steps", resolution=7),
            violations_counted,
            "breaks counted",
        )
    )
    out.append(
        Config(
            planning(EASY(backfill_order=sjf), predictor=UserHistory(), correction="steps"),
            violations_counted,
            "EASY++",
        )
    )
    out.append(Config(planning(PC(), predictor=exact_runtime), kept_for_promoted, "an oracle keeps them"))
    # Planning limits: a guarantee is given later, never broken.
    out.append(Config(Conservative(planning_window=10.0, max_tested=2), kept_for_promoted, "kept once given"))
    out.append(Config(PC(planning_window=5.0), kept_for_promoted, "kept once given"))
    out.append(Config(DC(planning_window=5.0, max_tested=1), kept_for_promoted, "kept once given"))
    out.append(
        Config(Selective(2.0, planning_window=5.0), kept_for_promoted, "promoted jobs' kept once given")
    )
    out.append(Config(EASY(depth=None, planning_window=10.0, max_tested=3), feasible_only, "feasible"))
    return out + unwritten(out)


def unwritten(written: list[Config]) -> list[Config]:
    """The registered schedulers of the classes no written configuration runs, held to feasibility."""
    kinds = {type(c.scheduler) for c in written}
    return [
        Config(s, feasible_only, "feasible (registered, no promise written here)")
        for s in registered_schedulers()
        if type(s) not in kinds
    ]


CONFIGS = configurations()


def test_every_registered_scheduler_has_a_promise_checked() -> None:
    assert {entry.cls for entry in REGISTRY} <= {type(config.scheduler) for config in CONFIGS}


#: Workloads with rejected jobs (too wide), overruns, zero runtimes and three users.
WORKLOADS = workloads(max_jobs=30, overruns=True, too_wide=True, users=3)
OVERRUNS = st.sampled_from(["raise_estimate", "kill"])


def check_every_configuration(workload: Workload, overrun: str) -> None:
    for config in CONFIGS:
        scheduler = config.scheduler.copy()
        try:
            schedule = simulate(workload, scheduler, overrun=overrun)  # type: ignore[arg-type]
            check_feasible(schedule)
            config.check(schedule, scheduler)
        except (ScheduleError, AssertionError) as error:
            error.add_note(f"configuration {config.name} ({config.promise}), overrun {overrun!r}")
            error.add_note(_describe(workload))
            raise


def test_the_suite_covers_every_scheduler_and_priority() -> None:
    # The kinds and priorities come from the registry: a new entry is covered, a dropped one noticed.
    kinds = {type(c.scheduler).__name__ for c in CONFIGS}
    assert kinds == {entry.name for entry in REGISTRY} | {"PlanningScheduler"}
    for entry in REGISTRY:
        if entry.takes_priority:
            used = {c.scheduler.priority for c in CONFIGS if type(c.scheduler) is entry.cls}  # type: ignore[attr-defined]
            assert used >= set(PRIORITIES.values()), entry.name
    assert len({c.name for c in CONFIGS}) == len(CONFIGS)


def test_the_checks_catch_a_broken_promise() -> None:
    # FCFS gives no reservations: held to Conservative's promise, it fails; so does a schedule
    # whose start order an FCFS check would reject.
    w = Workload.from_jobs(
        [
            Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
            Job(id=2, submit=1.0, processors=2, runtime=10.0, estimate=10.0),
            Job(id=3, submit=2.0, processors=1, runtime=1.0, estimate=1.0),
        ],
        machine_size=2,
    )
    with pytest.raises(ScheduleError):
        kept(simulate(w, FCFS()), FCFS())
    with pytest.raises(ScheduleError, match="before an earlier arrival"):
        in_priority_order(simulate(w, FCFS(PRIORITIES["sjf"])), FCFS())


@settings(max_examples=150, deadline=None)
@given(w=WORKLOADS, overrun=OVERRUNS)
def test_every_scheduler_keeps_its_invariants(w: Workload, overrun: str) -> None:
    check_every_configuration(w, overrun)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None)
@given(w=WORKLOADS, overrun=OVERRUNS)
def test_every_scheduler_keeps_its_invariants_over_10000_workloads(w: Workload, overrun: str) -> None:
    check_every_configuration(w, overrun)


# -- several resources (issue 45) ---------------------------------------------------------------

#: Small capacities, so that memory and GPUs bind often: 2 resources in all (processors and
#: memory), then 3 (and GPUs).
RESOURCE_SETS: dict[int, tuple[Resource, ...]] = {
    2: (Resource.memory(12),),
    3: (Resource.memory(12), Resource("gpus", 3, gpu_request)),
}
#: The promises about reservations: kept, kept once promoted, or kept within a slack.
GUARANTEES = (kept, kept_for_promoted, slack_guarantees, slack_bound)


def resource_configurations(resources: tuple[Resource, ...]) -> list[Config]:
    """Every guarantee-keeping configuration of :data:`CONFIGS`, rebuilt planning ``resources``."""
    return [
        Config(attrs.evolve(c.scheduler, resources=resources), c.check, c.promise)
        for c in CONFIGS
        if c.check in GUARANTEES and isinstance(c.scheduler, SchedulerBase)
    ]


RESOURCE_CASES = [
    pytest.param(count, original, config, id=f"{count}-{original.name}")
    for count, resources in RESOURCE_SETS.items()
    for original, config in zip(
        [c for c in CONFIGS if c.check in GUARANTEES and isinstance(c.scheduler, SchedulerBase)],
        resource_configurations(resources),
        strict=True,
    )
]


def test_every_guarantee_keeping_scheduler_runs_on_several_resources() -> None:
    classes = {type(config.scheduler) for _, _, config in (case.values for case in RESOURCE_CASES)}
    registered = {entry.cls for entry in REGISTRY}
    promised = {type(c.scheduler) for c in CONFIGS if c.check in GUARANTEES} & registered
    assert classes == promised == {Conservative, PC, DC, Selective, SlackBackfill, LookaheadSlack}
    for count, _, config in (case.values for case in RESOURCE_CASES):
        assert config.scheduler.resources == RESOURCE_SETS[count]  # type: ignore[attr-defined]


def check_on_resources(count: int, config: Config, workload: Workload, overrun: str) -> None:
    scheduler = config.scheduler.copy()
    try:
        schedule = simulate(workload, scheduler, overrun=overrun)  # type: ignore[arg-type]
        assert schedule.resources == RESOURCE_SETS[count]
        check_feasible(schedule)
        config.check(schedule, scheduler)
    except (ScheduleError, AssertionError) as error:
        error.add_note(
            f"configuration {config.name} ({config.promise}) on {count} resources, overrun {overrun!r}"
        )
        error.add_note(_describe(workload))
        raise


def resource_workloads(count: int) -> st.SearchStrategy[Workload]:
    return workloads(max_jobs=25, overruns=True, too_wide=True, users=3, resources=RESOURCE_SETS[count])


@pytest.mark.parametrize(("count", "original", "config"), RESOURCE_CASES)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), overrun=OVERRUNS)
def test_guarantees_and_capacity_hold_on_several_resources(
    count: int, original: Config, config: Config, data: st.DataObject, overrun: str
) -> None:
    check_on_resources(count, config, data.draw(resource_workloads(count)), overrun)


@pytest.mark.slow
@pytest.mark.parametrize(("count", "original", "config"), RESOURCE_CASES)
@settings(max_examples=200, deadline=None)
@given(data=st.data(), overrun=OVERRUNS)
def test_guarantees_and_capacity_hold_on_several_resources_over_200_workloads(
    count: int, original: Config, config: Config, data: st.DataObject, overrun: str
) -> None:
    check_on_resources(count, config, data.draw(resource_workloads(count)), overrun)


def test_the_resource_checks_catch_an_overfilled_resource() -> None:
    # Conservative planning processors alone, judged on memory: the validator names the resource.
    jobs = [
        Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0, requested_memory=8.0) for i in (1, 2)
    ]
    w = Workload.from_jobs(jobs, machine_size=2)
    schedule = simulate(w, Conservative())
    with pytest.raises(ScheduleError, match="16 memory in use at time 0, more than its capacity 12"):
        check_feasible(schedule, resources=RESOURCE_SETS[2])
