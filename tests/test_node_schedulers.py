"""Every scheduler on machines of nodes (issue 56): against the pool where the models agree, and
every promise and every node's capacity where they do not."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_invariants import CONFIGS, OVERRUNS, Config

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    Machine,
    NodeGroup,
    NodeRequest,
    Schedule,
    ScheduleError,
    Workload,
    best_fit,
    contiguous,
    fair_start_times,
    first_fit,
    same_schedule,
    simulate,
    validate_schedule,
)
from backfill.schedulers.machinery.base import SchedulerBase
from backfill.testing import (
    _describe,  # type: ignore[attr-defined]
    check_feasible,
    node_machines,
    workloads,
)

POLICIES = st.sampled_from([first_fit, best_fit, contiguous])


def pool_twin(config: Config) -> SchedulerBase:
    """A configuration's scheduler on the pool, on the path its node twin follows.

    EASY's node path is its general (profile) path, which differs from its classic depth-1 path
    for jobs of zero estimate only (tests/test_easy_paths.py): the pool twin takes it too.
    """
    pool = config.scheduler.copy()
    assert isinstance(pool, SchedulerBase)
    if isinstance(pool, EASY):
        pool._always_plan = True
    for inner in (getattr(pool, "_core", None),):
        if isinstance(inner, EASY):
            inner._always_plan = True
    return pool


TWINS = [c for c in CONFIGS if isinstance(c.scheduler, SchedulerBase)]


@pytest.mark.parametrize("config", TWINS, ids=lambda c: c.name)
@settings(max_examples=30, deadline=None)
@given(w=workloads(max_jobs=25, overruns=True, too_wide=True, users=3), overrun=OVERRUNS)
def test_one_node_schedules_as_the_pool(config: Config, w: Workload, overrun: str) -> None:
    """One node of C cores is a pool of C processors: every placement is that node.

    (Not so for several nodes, even of one core each: a reservation holds the same nodes over its
    whole interval, where a pool lets it count any processor free at each instant; a job may
    then find no node free over its interval while the pool counts enough processors.)
    """
    pool = pool_twin(config)
    nodes = attrs.evolve(pool, nodes=Machine((NodeGroup(1, w.machine_size),)))
    if isinstance(pool, EASY):
        nodes._always_plan = True
    a = simulate(w, pool, overrun=overrun)  # type: ignore[arg-type]
    b = simulate(w, nodes, overrun=overrun)  # type: ignore[arg-type]
    same_schedule(a, b, reservations=True)
    assert b.machine is not None and a.machine is None
    assert {a.nodes for a in b.allocations.values()} <= {(0,)}
    validate_schedule(b)


def test_several_one_core_nodes_are_not_a_pool() -> None:
    # Job 4's reservation at 38 takes nodes 0-6 (first fit): job 5 finds no node free over
    # [37, 39), where the pool counts 6 processors free at 37 and 5 at 38.
    specs = [(1, 6, 37.0, 37.0), (2, 1, 0.0, 0.0), (3, 6, 0.0, 38.0), (4, 7, 0.0, 1.0), (5, 1, 2.0, 2.0)]
    w = Workload.from_jobs(
        [Job(id=i, submit=0.0, processors=p, runtime=r, estimate=e) for i, p, r, e in specs], machine_size=12
    )
    pool = simulate(w, PC())
    nodes = simulate(w, PC(nodes=Machine.parse("12x1")))
    first = [s.reservations[s.reservations["job_id"] == 5]["start"][0] for s in (pool, nodes)]
    assert first == [37.0, 38.0]
    validate_schedule(nodes)


def node_configurations(machine: Machine, policy: object) -> list[Config]:
    """Every configuration of the invariants suite that is a SchedulerBase, rebuilt on ``machine``."""
    return [
        Config(attrs.evolve(c.scheduler, nodes=machine, placement=policy), c.check, c.promise)
        for c in CONFIGS
        if isinstance(c.scheduler, SchedulerBase)
    ]


def check_on_nodes(machine: Machine, policy: object, w: Workload, overrun: str) -> None:
    for config in node_configurations(machine, policy):
        scheduler = config.scheduler
        try:
            schedule = simulate(w, scheduler, overrun=overrun)  # type: ignore[arg-type]
            assert schedule.machine == machine and schedule.workload.machine_size == machine.cores
            validate_schedule(schedule)  # every node's capacity, every allocation
            check_feasible(schedule)
            config.check(schedule, scheduler)
        except (ScheduleError, AssertionError) as error:
            error.add_note(f"configuration {config.name} ({config.promise}), overrun {overrun!r}")
            error.add_note(f"machine {machine.text()}, placement {getattr(policy, '__name__', policy)}")
            error.add_note(_describe(w))
            raise


@st.composite
def machine_and_workload(draw: st.DrawFn, max_groups: int) -> tuple[Machine, Workload]:
    machine = draw(node_machines(max_groups=max_groups))
    w = draw(workloads(max_jobs=20, overruns=True, too_wide=True, users=3, machine_size=machine.cores))
    return machine, w


@pytest.mark.parametrize("groups", [1, 2, 3])
@settings(max_examples=25, deadline=None)
@given(data=st.data(), policy=POLICIES, overrun=OVERRUNS)
def test_every_promise_and_every_node_hold(
    groups: int, data: st.DataObject, policy: object, overrun: str
) -> None:
    machine, w = data.draw(machine_and_workload(groups))
    check_on_nodes(machine, policy, w, overrun)


@pytest.mark.slow
@pytest.mark.parametrize("groups", [1, 2, 3])
@settings(max_examples=400, deadline=None)
@given(data=st.data(), policy=POLICIES, overrun=OVERRUNS)
def test_every_promise_and_every_node_hold_over_400_workloads(
    groups: int, data: st.DataObject, policy: object, overrun: str
) -> None:
    machine, w = data.draw(machine_and_workload(groups))
    check_on_nodes(machine, policy, w, overrun)


def test_the_node_check_catches_an_overfilled_node() -> None:
    jobs = [Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=5.0) for i in (1, 2)]
    w = Workload.from_jobs(jobs, machine_size=4)
    good = simulate(w, FCFS(nodes=Machine.parse("2x2")))
    validate_schedule(good)
    bad = attrs.evolve(good, allocations={1: good.allocations[1], 2: good.allocations[1]})
    with pytest.raises(
        ScheduleError, match=r"node 0 holds \[4\] of \['cores'\] at time 0, more than its \[2\]"
    ):
        validate_schedule(bad)
    short = attrs.evolve(
        good, allocations={1: good.allocations[1], 2: attrs.evolve(good.allocations[2], amounts=((1,),))}
    )
    with pytest.raises(ScheduleError, match="holds 1 of the 2 shares"):
        validate_schedule(short)
    with pytest.raises(ScheduleError, match="job 2 started at 0 with no allocation"):
        validate_schedule(attrs.evolve(good, allocations={1: good.allocations[1]}))


def test_a_request_no_node_holds_is_rejected_with_its_reason() -> None:
    machine = Machine.parse(["2x4,memory=8", "1x4,gpus=2"], request=_gpu_rule)
    jobs = [
        Job(id=i, submit=0.0, processors=p, runtime=5.0, estimate=5.0) for i, p in ((1, 4), (2, 2), (3, 4))
    ]
    s = simulate(Workload.from_jobs(jobs, machine_size=12), EASY(nodes=machine))
    assert dict(s.rejected) == {3: "asks 3 gpus per node; no node has that many"}
    validate_schedule(s)
    assert s.allocations[2].nodes == (2,)  # the GPU job on the GPU node


def _gpu_rule(job: Job) -> NodeRequest:
    return NodeRequest.nodes(1, tasks_per_node=job.processors, gpus_per_node={1: 0, 2: 1, 3: 3}[job.id])


def test_placement_policies_choose_different_nodes() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=3, runtime=9.0, estimate=9.0),
        Job(id=2, submit=0.0, processors=4, runtime=9.0, estimate=9.0),
        Job(id=3, submit=1.0, processors=1, runtime=9.0, estimate=9.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=12)
    placed = {
        policy.__name__: {
            k: a.text()
            for k, a in simulate(w, FCFS(nodes=Machine.parse("3x4"), placement=policy)).allocations.items()
        }
        for policy in (first_fit, best_fit, contiguous)
    }
    # Job 1 takes 3 of node 0; job 2 a whole node; job 3 fills node 0 under best fit, the first
    # node with room under first fit (node 0 too), and under contiguous the first run (node 0).
    assert placed["first_fit"] == {1: "0", 2: "0-1", 3: "1"}
    assert placed["best_fit"] == {1: "0", 2: "1", 3: "0"}


def test_nodes_and_resources_are_two_models() -> None:
    from backfill import ParameterError, Resource

    with pytest.raises(ParameterError, match="nodes and resources are two models"):
        Conservative(nodes=Machine.parse("2x2"), resources=[Resource.memory(8)])
    with pytest.raises(ParameterError, match="must be a Machine"):
        Conservative(nodes="2x2")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="placement must be a callable"):
        Conservative(nodes=Machine.parse("2x2"), placement="first_fit")  # type: ignore[arg-type]


def test_a_scheduler_reset_for_another_size_is_refused() -> None:
    s = FCFS(nodes=Machine.parse("2x4"))
    with pytest.raises(ScheduleError, match="reset for 4 processors, but its node machine 2x4 has 8 cores"):
        s.reset(4, 0.0)


def test_a_pool_schedule_has_no_machine() -> None:
    w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)], 2)
    s: Schedule = simulate(w, FCFS())
    assert s.machine is None and dict(s.allocations) == {} and FCFS().allocation(1) is None


@pytest.mark.parametrize("make", [EASY, Conservative, PC, DC], ids=lambda c: c.__name__)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_fair_start_times_on_nodes_are_runs_without_later_arrivals(make: type, data: st.DataObject) -> None:
    # Strict fair start times fork the run at each arrival; on nodes each fork copies the node
    # profile and its placements: each must equal a whole run of the jobs up to that one.
    machine = data.draw(node_machines(max_groups=2))
    w = data.draw(workloads(max_jobs=10, users=2, machine_size=machine.cores))
    scheduler = make(nodes=machine)
    fair = fair_start_times(w, scheduler)
    rows = w.records
    for i in range(len(w)):
        alone = simulate(Workload.from_records(rows[: i + 1], w.machine_size), make(nodes=machine))
        assert fair.strict[i] == alone.start[i] or (
            fair.strict[i] != fair.strict[i] and alone.start[i] != alone.start[i]
        )


def test_a_host_builds_a_node_schedule_the_validator_checks() -> None:
    machine = Machine.parse("2x2")
    jobs = [Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=5.0) for i in (1, 2)]
    w = Workload.from_jobs(jobs, machine_size=4)
    ours = simulate(w, FCFS(nodes=machine))
    host = Schedule.from_starts(w, {1: 0.0, 2: 0.0}, machine=machine, allocations=dict(ours.allocations))
    validate_schedule(host)
    same = dict(ours.allocations)
    same[2] = same[1]  # both jobs on node 0
    with pytest.raises(ScheduleError, match="node 0 holds"):
        validate_schedule(Schedule.from_starts(w, {1: 0.0, 2: 0.0}, machine=machine, allocations=same))


@pytest.mark.parametrize(
    ("nodes", "amounts", "resources"),
    [
        ((1, 0), ((1,), (1,)), ("cores",)),
        ((0,), ((1,), (1,)), ("cores",)),
        ((-1,), ((1,),), ("cores",)),
        ((0,), ((1, 2),), ("cores",)),
        ((0,), ((-1,),), ("cores",)),
        ((0,), ((1,),), ()),
    ],
)
def test_an_allocation_is_increasing_nodes_with_their_amounts(
    nodes: tuple, amounts: tuple, resources: tuple
) -> None:
    from backfill import Allocation, ParameterError

    with pytest.raises(ParameterError, match="an Allocation is increasing node ids"):
        Allocation(nodes, amounts, resources)
