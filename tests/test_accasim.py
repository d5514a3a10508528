"""AccaSim 1.1.3 drives backfill's schedulers: the schedules equal simulate's where the models agree.

Needs the ``accasim`` extra (``pip install '.[accasim]'``); the real-trace test needs ../shared/traces.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

import backfill
from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    BackfillError,
    Conservative,
    Job,
    ParameterError,
    Resource,
    ScheduleError,
    Selective,
    Workload,
    same_schedule,
    simulate,
    sjf,
    validate_schedule,
)
from backfill.testing import workloads
from backfill.workloads.swf import read_swf

pytestmark = pytest.mark.integration
pytest.importorskip("accasim", reason="needs AccaSim 1.1.3: pip install '.[accasim]'")

from backfill.hosts.accasim import import_accasim, one_core_nodes, run_accasim  # noqa: E402
from backfill.workloads.nodes import Allocation, Machine, NodeRequest  # noqa: E402

TRACE = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"
SCHEDULERS = (FCFS(), EASY(), Conservative(), PC(sjf), DC(sjf))
GB = 2**20  # kB, the SWF's unit of memory


def _name(scheduler: object) -> str:
    return backfill.scheduler_name(scheduler)


@pytest.fixture(scope="module")
def lublin() -> Workload:
    """The embedded Lublin-Feitelson model, scaled down to 300 jobs on 32 processors."""
    return backfill.lublin_feitelson(300, machine_size=32, seed=4, estimates="f-model")


@pytest.mark.parametrize("scheduler", SCHEDULERS, ids=_name)
def test_one_core_nodes_give_simulates_schedule(lublin: Workload, scheduler: Any) -> None:
    ours = run_accasim(lublin, scheduler.copy())
    validate_schedule(ours)
    same_schedule(ours, simulate(lublin, scheduler), reservations=True)
    assert ours.started.all()


@pytest.mark.parametrize("scheduler", SCHEDULERS, ids=_name)
def test_a_real_trace_gives_simulates_schedule(scheduler: Any) -> None:
    if not TRACE.exists():
        pytest.skip(f"no trace at {TRACE} (expected ../shared/traces beside the project)")
    full, _ = read_swf(TRACE)
    head = Workload.from_jobs(full[:2000], machine_size=full.machine_size)
    ours = run_accasim(head, scheduler.copy())
    validate_schedule(ours)
    same_schedule(ours, simulate(head, scheduler), reservations=True)


def _grid(n: int = 120, size: int = 8) -> Workload:
    """Times on a 5-minute grid: many jobs arrive together or as others end, a quarter of zero runtime."""
    jobs = []
    for i in range(n):
        runtime = 300.0 * (i % 4) * (1 + i % 3)
        jobs.append(
            Job(
                id=i + 1,
                submit=300.0 * (i // 3),
                processors=1 + (7 * i) % size,
                runtime=runtime,
                estimate=runtime + 300.0 * (i % 2),
            )
        )
    return Workload.from_jobs(jobs, machine_size=size)


@pytest.mark.parametrize("scheduler", SCHEDULERS, ids=_name)
def test_same_time_events_and_zero_runtimes_keep_the_protocols_order(scheduler: Any) -> None:
    grid = _grid()
    assert sum(job.runtime == 0 for job in grid) == 30
    same_schedule(run_accasim(grid, scheduler.copy()), simulate(grid, scheduler), reservations=True)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(overruns=True))
def test_random_corner_cases_give_simulates_schedule(workload: Workload) -> None:
    # Many jobs at one instant, zero runtimes, estimates below runtimes, empty workloads; Selective
    # asks for wake-ups at times nothing else happens.
    for scheduler in (FCFS(), EASY(sjf), Conservative(), PC(sjf), DC(sjf), Selective()):
        ours = run_accasim(workload, scheduler.copy())
        validate_schedule(ours)
        same_schedule(ours, simulate(workload, scheduler), reservations=True)


def test_jobs_simulate_rejects_are_rejected_with_its_reasons() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        Job(id=2, submit=0.0, processors=9, runtime=10.0, estimate=10.0),
        Job(id=3, submit=1.0, processors=2, runtime=-1.0, estimate=10.0),
        Job(id=4, submit=1.0, processors=4, runtime=30.0, estimate=-1.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    ours = run_accasim(w, EASY())
    assert ours.rejected == {2: "wider than the machine (4 processors)", 3: "unknown runtime"}
    assert ours.estimate.tolist()[3] == 30.0  # an unknown estimate becomes the runtime, as in simulate
    same_schedule(ours, simulate(w, EASY()))


def test_nodes_of_eight_cores_without_memory_are_a_pool(lublin: Workload) -> None:
    # AccaSim reads an SWF job of p processors as p requests of one core, which its allocators pack
    # onto any nodes: with cores only, a job fits whenever p cores are free, as in backfill's pool.
    best_fit = import_accasim().base.allocator_class.BestFit()
    machine = Machine.parse("4x8")
    for scheduler, allocator in ((EASY(), "accasim"), (DC(sjf), best_fit)):
        ours = run_accasim(lublin, scheduler.copy(), machine=machine, allocator=allocator)
        same_schedule(ours, simulate(lublin, scheduler), reservations=True)


def test_memory_on_nodes_is_where_the_models_part() -> None:
    # Two nodes of 8 cores and 16 GB. Job 1 (4 x 3 GB) goes on node 1, which keeps 4 GB; job 2 asks
    # 3 x 6 GB = 18 GB: the pool has 20 GB of 32 free, so a scheduler that plans memory as a pool
    # starts it, but no node holds more than two of its 6 GB processors (node 1: 0, node 2: 2).
    jobs = [
        Job(id=1, submit=0.0, processors=4, runtime=100.0, estimate=100.0, requested_memory=3.0 * GB),
        Job(id=2, submit=10.0, processors=3, runtime=100.0, estimate=100.0, requested_memory=6.0 * GB),
    ]
    w = Workload.from_jobs(jobs, machine_size=16)
    machine = Machine.parse("2x8,memory=16G")
    pool = FCFS(resources=[Resource.memory(capacity=32 * GB)])
    assert simulate(w, pool.copy()).start.tolist() == [0.0, 10.0]
    unplaced = r"FCFS\(fcfs, \+memory\) started job 2 at 10, but AccaSim's FirstFit cannot place it"
    with pytest.raises(ScheduleError, match=unplaced):
        run_accasim(w, pool, machine=machine)
    # With room on the nodes (24 GB each), AccaSim places both and the schedules agree again.
    roomy = Machine.parse("2x8,memory=24G")
    pool = FCFS(resources=[Resource.memory(capacity=48 * GB)])
    same_schedule(run_accasim(w, pool.copy(), machine=roomy), simulate(w, pool))


@attrs.define
class LastNodesFCFS:
    """FCFS that places each job it starts itself, on the free cores of the highest-numbered nodes."""

    cores: tuple[int, ...]
    inner: FCFS = attrs.Factory(FCFS)
    free: list[int] = attrs.Factory(list)
    where: dict[int, Allocation] = attrs.Factory(dict)
    name: str = "LastNodesFCFS"

    def reset(self, machine_size: int, now: float) -> None:
        self.inner.reset(machine_size, now)
        self.free, self.where = list(self.cores), {}

    def submit(self, job: Job, now: float) -> None:
        self.inner.submit(job, now)

    def complete(self, job: Job, now: float) -> None:
        self.inner.complete(job, now)
        placed = self.where.pop(job.id)
        for node, (cores,) in zip(placed.nodes, placed.amounts, strict=True):
            self.free[node] += cores

    def schedule(self, now: float) -> list[Job]:
        started = list(self.inner.schedule(now))
        for job in started:
            nodes, amounts, left = [], [], job.processors if job.runtime > 0 else 0
            for node in reversed(range(len(self.free))):
                take = min(left, self.free[node])
                if take:
                    nodes.append(node)
                    amounts.append((take,))
                    self.free[node] -= take
                    left -= take
            pairs = sorted(zip(nodes, amounts, strict=True))  # an Allocation's node ids increase
            self.where[job.id] = Allocation(
                tuple(n for n, _ in pairs), tuple(a for _, a in pairs), ("cores",)
            )
        return started

    def next_wakeup(self) -> float | None:
        return self.inner.next_wakeup()

    def reservations(self) -> Any:
        return self.inner.reservations()

    def copy(self) -> LastNodesFCFS:
        return copy.deepcopy(self)

    def allocation(self, job_id: int) -> Allocation:
        return self.where[job_id]


def _assigned_nodes(results: Path) -> dict[int, list[int]]:
    """AccaSim's own record of the nodes of each job (1-based node numbers, one per processor)."""
    nodes = {}
    for line in (results / "results" / "sched-workload.swf").read_text().splitlines():
        aid, _, rest = line.partition(";")
        assigned = line.split("__")[1]
        nodes[int(aid)] = [int(unit.split(";")[0]) for unit in assigned.split("#") if unit]
        del rest
    return nodes


def test_the_schedulers_own_allocation_places_the_jobs(tmp_path: Path) -> None:
    machine = Machine.parse(["2x4", "2x2"])  # nodes 0, 1: 4 cores; 2, 3: 2
    jobs = [
        Job(id=10, submit=0.0, processors=3, runtime=50.0, estimate=50.0),
        Job(id=11, submit=0.0, processors=5, runtime=20.0, estimate=30.0),
        Job(id=12, submit=5.0, processors=6, runtime=10.0, estimate=10.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=machine.cores)
    fake = LastNodesFCFS(cores=(4, 4, 2, 2))
    ours = run_accasim(w, fake.copy(), machine=machine, allocator="backfill", workdir=tmp_path)
    same_schedule(ours, simulate(w, FCFS()))
    # Job 10 takes node 3 (2 cores) and one core of node 2; job 11 the last core of node 2 and all of
    # node 1; job 12 waits for job 11 and gets the core of node 2 again, node 1 and a core of node 0.
    assert _assigned_nodes(tmp_path) == {1: [3, 4, 4], 2: [2, 2, 2, 2, 3], 3: [1, 2, 2, 2, 2, 3]}
    assert ours.start.tolist() == [0.0, 0.0, 20.0]
    # The same run placed by AccaSim's FirstFit starts on node 1 instead: the allocator was ours above.
    run_accasim(w, FCFS(), machine=machine, workdir=tmp_path / "ff")
    assert _assigned_nodes(tmp_path / "ff")[1] == [1, 1, 1]


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(machine_size=12, overruns=True, too_wide=True))
def test_random_workloads_placed_by_the_scheduler_itself(workload: Workload) -> None:
    machine = Machine.parse(["2x4", "2x2"])
    ours = run_accasim(workload, LastNodesFCFS(cores=(4, 4, 2, 2)), machine=machine, allocator="backfill")
    validate_schedule(ours)
    same_schedule(ours, simulate(workload, FCFS()))


@attrs.define
class TwiceOnTheLastNode(LastNodesFCFS):
    """Places every job's two processors on the last node, which has one core."""

    def allocation(self, job_id: int) -> Allocation:
        return Allocation((3,), ((2,),), ("cores",))


def test_an_allocation_that_does_not_fit_is_an_error_naming_the_job() -> None:
    machine = one_core_nodes(4)
    jobs = [Job(id=7, submit=0.0, processors=2, runtime=5.0, estimate=5.0)]
    w = Workload.from_jobs(jobs, machine_size=4)
    fake = TwiceOnTheLastNode(cores=(1, 1, 1, 1))
    unplaced = r"started job 7 at 0, but LastNodesFCFS's allocation \(node 3: \{'core': 1\} free\)"
    with pytest.raises(ScheduleError, match=unplaced):
        run_accasim(w, fake, machine=machine, allocator="backfill")


def _whole_nodes(job: Job) -> NodeRequest:
    return NodeRequest.nodes(job.processors)


def test_bad_inputs_are_the_librarys_errors(lublin: Workload, tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="allocator must be one of 'accasim', 'backfill'"):
        run_accasim(lublin, EASY(), allocator="worst-fit")
    with pytest.raises(ParameterError, match="Scheduler protocol, got 'EASY'"):
        run_accasim(lublin, "EASY")  # type: ignore[arg-type]
    with pytest.raises(
        ParameterError,
        match=r'allocator="backfill" needs a scheduler with an allocation\(job_id\) method that places',
    ):
        run_accasim(lublin, EASY(), allocator="backfill")
    with pytest.raises(ParameterError, match="the machine has 16 cores but the workload's machine size is"):
        run_accasim(lublin, EASY(), machine=one_core_nodes(16))
    half = Workload.from_jobs(
        [Job(id=1, submit=0.5, processors=1, runtime=1.0, estimate=1.0)], machine_size=2
    )
    with pytest.raises(ParameterError, match=r"job 1: AccaSim reads whole seconds, but its submit is 0\.5"):
        run_accasim(half, EASY())
    with pytest.raises(ParameterError, match=r"must be a backfill\.workloads\.nodes\.Machine, got '32x1'"):
        run_accasim(lublin, EASY(), machine="32x1")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"AccaSim reads an SWF job as one-core tasks \(tasks_request\)"):
        run_accasim(lublin, EASY(), machine=Machine.parse("32x1", request=_whole_nodes))


def test_nothing_is_left_behind_in_the_working_directory(
    lublin: Workload, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_accasim(lublin, EASY())
    assert list(tmp_path.iterdir()) == []
    run_accasim(lublin, EASY(), workdir=tmp_path / "kept")
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["results", "system.json", "workload.swf"]


def test_the_import_shim_leaves_collections_as_it_was() -> None:
    import collections

    import_accasim()
    assert not hasattr(collections, "Mapping")


def test_a_missing_accasim_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for name in [m for m in sys.modules if m == "accasim" or m.startswith("accasim.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "accasim", None)  # what an absent package looks like to import
    with pytest.raises(BackfillError, match=r"needs AccaSim 1\.1\.3: pip install '\.\[accasim\]'"):
        import_accasim()


def test_the_swf_accasim_reads_is_one_line_per_job(tmp_path: Path) -> None:
    w = _grid(9)
    run_accasim(w, EASY(), workdir=tmp_path)
    text = (tmp_path / "workload.swf").read_text()
    again, _ = read_swf(io.StringIO(text), machine_size=8)
    assert len(again) == 9
    assert [job.submit - 2 for job in again] == [job.submit for job in w]  # AccaSim's clock starts at 2


def test_a_job_no_node_can_hold_is_rejected_with_the_machines_reason() -> None:
    # Job 2 asks 20 GB a processor and nodes have 16: left out with Machine.refusal's reason, as
    # AccaSim's own check (JobVerification.CHECK_REQUEST) would reject it; simulate, planning no
    # memory, would run it.
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0, requested_memory=1.0 * GB),
        Job(id=2, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=20.0 * GB),
        Job(id=3, submit=5.0, processors=4, runtime=10.0, estimate=10.0, requested_memory=1.0 * GB),
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    ours = run_accasim(w, EASY(), machine=Machine.parse("4x1,memory=16G"))
    assert ours.rejected == {2: "asks 20971520 memory per task; no node has that many"}
    assert ours.start.tolist()[::2] == [0.0, 10.0]
    validate_schedule(ours)


@attrs.define
class NeverStarts(LastNodesFCFS):
    """Takes jobs and never starts one."""

    def schedule(self, now: float) -> list[Job]:
        return []


def test_a_scheduler_that_never_starts_a_job_is_an_error_not_an_endless_run() -> None:
    # AccaSim, with queued jobs and no time point left, adds one second to its clock and asks again,
    # forever: the dispatcher stops it when nothing is left to happen.
    w = Workload.from_jobs([Job(id=3, submit=0.0, processors=1, runtime=5.0, estimate=5.0)], machine_size=1)
    with pytest.raises(ScheduleError, match=r"NeverStarts left jobs \[3\] queued at 0 with nothing left"):
        run_accasim(w, NeverStarts(cores=(1,), name="NeverStarts"))


def test_another_accasim_release_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata
    import sys

    for name in [m for m in sys.modules if m == "accasim" or m.startswith("accasim.")]:
        monkeypatch.delitem(sys.modules, name)  # so that the import, and its check, run again
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.2.0")
    with pytest.raises(BackfillError, match=r"written for AccaSim 1\.1\.3, and 1\.2\.0 is installed"):
        import_accasim()


NODE_SCHEDULERS = (EASY, Conservative, PC, DC)


@pytest.mark.parametrize("cls", NODE_SCHEDULERS, ids=lambda c: c.__name__)
def test_our_node_schedulers_place_for_accasim_as_simulate_places(cls: Any, tmp_path: Path) -> None:
    # Each scheduler places its own jobs on 4-core nodes (allocator="backfill"); AccaSim runs them
    # there: the same starts and reservations as simulate's run of the same scheduler, on the nodes
    # simulate's allocations name.
    if not TRACE.exists():
        pytest.skip(f"no trace at {TRACE} (expected ../shared/traces beside the project)")
    full, _ = read_swf(TRACE)
    machine = Machine.parse("25x4")
    head = Workload.from_jobs(full[:600], machine_size=machine.cores)
    ours = run_accasim(head, cls(nodes=machine), machine=machine, allocator="backfill", workdir=tmp_path)
    theirs = simulate(head, cls(nodes=machine))
    validate_schedule(theirs)
    same_schedule(ours, theirs, reservations=True)
    assigned = _assigned_nodes(tmp_path)  # AccaSim's job numbers count from 1 in workload order
    ids = [int(i) for i in head.column("id")]
    placed = {ids[k - 1]: tuple(sorted({n - 1 for n in nodes})) for k, nodes in assigned.items()}
    assert placed == {i: a.nodes for i, a in theirs.allocations.items()}
