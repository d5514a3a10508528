"""Outputs and measures of schedules on node machines (issue 56, point 5): the per-job CSV's nodes,
per-node utilization, fragmentation and the columns that report it."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from backfill import (
    EASY,
    FCFS,
    Conservative,
    Job,
    Machine,
    NodeRequest,
    Workload,
    fragmentation,
    lublin_feitelson,
    node_utilization,
    simulate,
    summarize,
    utilization,
    validate_schedule,
)
from backfill.errors import BackfillError
from backfill.experiments.cache import machine_key
from backfill.experiments.columns import column_label, is_machine_column, measure_column
from backfill.experiments.gantt import NODE_LANE_LIMIT, node_lanes, schedule_window
from backfill.experiments.outputs import JOB_COLUMNS, job_columns, jobs_csv_text, write_jobs_csv
from backfill.experiments.results import SweepResult, row_columns
from backfill.experiments.sweep import Cell, Grid, ModelWorkload, SchedulerSpec, Trim, run_sweep, summary_row
from backfill.measures.metrics import metrics_table
from backfill.measures.nodes import NODE_COLUMNS, node_columns
from backfill.measures.trim import trim_schedule
from backfill.profile.placement import best_fit, contiguous, first_fit
from backfill.schedule import Schedule
from backfill.workloads.nodes import interval_set


def one_node(job: Job) -> NodeRequest:
    """Each job on a single node, with its processors as that node's tasks."""
    return NodeRequest.nodes(1, tasks_per_node=job.processors)


def _jobs(*spec: tuple[float, int, float]) -> Workload:
    jobs = [Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=r) for i, (s, p, r) in enumerate(spec)]
    return Workload.from_jobs(jobs, machine_size=sum(p for _, p, _ in spec))


def _fragmented_reference(
    schedule: Schedule, totals: np.ndarray, held: dict[int, np.ndarray], need: dict[int, np.ndarray]
) -> float:
    """Brute force: for every job, every instant between two changes of its wait, all running jobs summed."""
    ids = schedule.workload.column("id").tolist()
    start, end, submit = schedule.start, schedule.end, schedule.submit
    ran = [i for i in range(len(ids)) if not math.isnan(start[i])]
    total = 0.0
    for i in ran:
        if not start[i] > submit[i]:
            continue
        cuts = {submit[i], start[i]} | {
            t for j in ran for t in (start[j], end[j]) if submit[i] < t < start[i]
        }
        points = sorted(cuts)
        for a, b in itertools.pairwise(points):
            used = sum(
                (held[ids[j]] for j in ran if start[j] <= a < end[j] and end[j] > start[j]),
                np.zeros_like(totals),
            )
            if ((totals - used) >= need[ids[i]]).all():
                total += b - a
    return total


# -- the per-job CSV's allocated_resources ----------------------------------------------------------


def test_the_csv_lists_each_jobs_nodes_as_an_interval_set() -> None:
    w = lublin_feitelson(120, machine_size=32, seed=4)
    s = simulate(w, EASY(nodes=Machine.parse("8x4"), placement=contiguous))
    rows = list(csv.DictReader(io.StringIO(jobs_csv_text(s, {"scheduler": s.scheduler}))))
    assert job_columns(s) == JOB_COLUMNS  # nodes add no column, they change what one holds
    assert len(rows) == 120
    spread = 0
    for row, job_id in zip(rows, w.column("id").tolist(), strict=True):
        allocation = s.allocations[job_id]
        assert row["allocated_resources"] == allocation.text() == interval_set(allocation.nodes)
        # Node ids, not processor numbers: every one below the machine's 8 nodes.
        ids = [int(x) for part in row["allocated_resources"].split() for x in part.split("-")]
        assert max(ids) < 8
        spread += len(allocation.nodes) > 1
    assert spread  # some job spans nodes, so the interval form is exercised
    assert rows[0]["scheduler"] == s.scheduler and "nodes=8x4" in rows[0]["scheduler"]


def test_a_rejected_job_has_no_nodes() -> None:
    w = _jobs((0.0, 2, 5.0), (0.0, 9, 5.0))
    s = simulate(w, FCFS(nodes=Machine.parse("2x4")))
    rows = list(csv.DictReader(io.StringIO(jobs_csv_text(s, {}))))
    assert [r["final_state"] for r in rows] == ["COMPLETED_SUCCESSFULLY", "REJECTED"]
    assert [r["allocated_resources"] for r in rows] == ["0", ""]


def test_pool_csv_still_packs_processors() -> None:
    # The same run on a pool writes processor numbers (up to 15), not node ids.
    w = _jobs((0.0, 12, 5.0), (0.0, 4, 5.0))
    pool = list(csv.DictReader(io.StringIO(jobs_csv_text(simulate(w, FCFS()), {}))))
    nodes = list(
        csv.DictReader(io.StringIO(jobs_csv_text(simulate(w, FCFS(nodes=Machine.parse("4x4"))), {})))
    )
    assert [r["allocated_resources"] for r in pool] == ["0-11", "12-15"]
    assert [r["allocated_resources"] for r in nodes] == ["0-2", "3"]


def test_evalys_reads_the_node_csv(tmp_path: Path) -> None:
    jobset = pytest.importorskip("evalys.jobset", reason="evalys is the optional 'evalys' extra")
    w = lublin_feitelson(100, machine_size=64, seed=2)
    s = simulate(w, Conservative(nodes=Machine.parse("16x4")))
    target = tmp_path / "jobs.csv"
    write_jobs_csv(s, target, {"scheduler": s.scheduler})
    js = jobset.JobSet.from_csv(str(target))
    assert len(js.df) == 100
    # evalys reads the nodes as its resources: a machine of 16, each job on its nodes.
    assert js.MaxProcs <= 16
    held = [len(s.allocations[j].nodes) for j in w.column("id").tolist()]
    assert js.df["proc_alloc"].tolist() == held
    assert np.allclose(js.df["starting_time"].to_numpy(), s.start)


# -- node_utilization -------------------------------------------------------------------------------


def test_node_utilization_by_hand() -> None:
    # 2 nodes of 4 cores and 8 kB. Job 1 takes node 0 whole for 10 s; job 2 two cores of node 1
    # for 5 s, with 3 kB per task; job 3 one core of node 1 from 10 s to 20 s.
    jobs = [
        Job(id=1, submit=0.0, processors=4, runtime=10.0, estimate=10.0),
        Job(id=2, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=3),
        Job(id=3, submit=10.0, processors=1, runtime=10.0, estimate=10.0),
    ]
    s = simulate(Workload.from_jobs(jobs, 8), FCFS(nodes=Machine.parse("2x4,memory=8")))
    assert [s.allocations[i].text() for i in (1, 2, 3)] == ["0", "1", "0"]
    # Span 0..20: node 0 is busy 4 x 10 + 1 x 10 of 4 x 20; node 1 2 x 5 of 4 x 20.
    assert node_utilization(s).tolist() == [50 / 80, 10 / 80]
    # Memory: 2 tasks x 3 kB for 5 s on node 1, of 8 kB x 20 s; none on node 0.
    assert node_utilization(s, "memory").tolist() == [0.0, 30 / 160]


def test_a_node_without_the_resource_has_no_utilization_of_it() -> None:
    machine = Machine.parse(["1x4", "1x4,gpus=2"])
    s = simulate(_jobs((0.0, 2, 5.0)), FCFS(nodes=machine))
    gpus = node_utilization(s, "gpus")
    assert math.isnan(gpus[0]) and gpus[1] == 0.0


@pytest.mark.parametrize("placement", [first_fit, best_fit, contiguous])
@pytest.mark.parametrize("groups", [["8x4"], ["4x8", "6x2"]])
def test_node_utilization_weighted_by_cores_is_the_machine_utilization(placement, groups) -> None:
    machine = Machine.parse(groups)
    w = lublin_feitelson(250, machine_size=machine.cores, seed=7)
    s = simulate(w, EASY(nodes=machine, placement=placement))
    validate_schedule(s)
    cores = machine.capacities()[:, 0]
    per_node = node_utilization(s)
    assert per_node.shape == (machine.node_count,) and (per_node >= 0).all() and (per_node <= 1).all()
    assert float(np.sum(per_node * cores) / cores.sum()) == pytest.approx(utilization(s), rel=1e-12)
    assert per_node.min() < per_node.max()  # a real spread, not one number repeated


def test_node_measures_refuse_a_pool_schedule() -> None:
    s = simulate(_jobs((0.0, 2, 5.0)), EASY())
    with pytest.raises(BackfillError, match=r"node machine.*pool of 2 processors"):
        node_utilization(s)
    with pytest.raises(BackfillError, match="fragmentation measures a schedule of a node machine"):
        fragmentation(s)
    with pytest.raises(BackfillError, match="not 'memory'"):
        node_utilization(simulate(_jobs((0.0, 2, 5.0)), EASY(nodes=Machine.parse("1x2"))), "memory")


# -- fragmentation ----------------------------------------------------------------------------------


def test_fragmentation_by_hand() -> None:
    # Two nodes of 4; jobs 1 and 2 take 3 cores of one node each: job 3 (2 cores on one node) waits
    # 10 s with 2 cores free, one on each node. On a pool it starts at once.
    w = _jobs((0.0, 3, 10.0), (0.0, 3, 10.0), (0.0, 2, 5.0))
    s = simulate(w, FCFS(nodes=Machine.parse("2x4", request=one_node)))
    assert s.start.tolist() == [0.0, 0.0, 10.0]
    assert fragmentation(s) == 10.0
    assert node_columns(s) == {"fragmentation": 10.0, "mean_fragmentation": 10.0 / 3}
    assert simulate(w, FCFS()).start.tolist() == [0.0, 0.0, 0.0]


def test_a_wait_with_too_little_free_is_not_fragmentation() -> None:
    # Job 3 asks 3 cores while 2 are free: it waits for the machine, not for a placement.
    w = _jobs((0.0, 3, 10.0), (0.0, 3, 10.0), (0.0, 3, 5.0))
    s = simulate(w, FCFS(nodes=Machine.parse("2x4", request=one_node)))
    assert s.start.tolist() == [0.0, 0.0, 10.0]
    assert fragmentation(s) == 0.0


def test_fragmentation_counts_only_the_instants_that_fit() -> None:
    # Nodes of 4, 4 and 1 cores. Jobs 1 and 2 take 3 cores of nodes 0 and 1, job 3 the last core of
    # node 0 until 6 s. Job 4 (3 cores on one node) arrives at 2 s and waits until 10 s: with 2
    # cores free (one on node 1, one on node 2) until 6 s, which is not enough, then with 3 free,
    # one per node, which a pool would have run.
    machine = Machine.parse(["2x4", "1x1"], request=one_node)
    w = _jobs((0.0, 3, 10.0), (0.0, 3, 10.0), (0.0, 1, 6.0), (2.0, 3, 5.0))
    s = simulate(w, FCFS(nodes=machine))
    validate_schedule(s)
    assert s.start.tolist() == [0.0, 0.0, 0.0, 10.0]
    assert [s.allocations[i].text() for i in (1, 2, 3)] == ["0", "1", "0"]
    assert fragmentation(s) == 4.0


def test_fcfs_on_one_core_nodes_is_the_pool_run_and_its_would_fit_waits() -> None:
    # FCFS keeps jobs waiting that the free processors would hold: positive even with nothing
    # to fragment, and the same on a pool of as many processors.
    w = lublin_feitelson(200, machine_size=16, seed=3)
    pool = simulate(w, FCFS())
    node = simulate(w, FCFS(nodes=Machine.parse("16x1")))
    assert np.array_equal(pool.start, node.start)
    ids = w.column("id").tolist()
    held = {j: np.array([p]) for j, p in zip(ids, w.column("processors").tolist(), strict=True)}
    expected = _fragmented_reference(pool, np.array([16]), held, held)
    assert expected > 0
    assert fragmentation(node) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("scheduler", [EASY, Conservative])
def test_one_core_nodes_give_the_pool_view_of_their_own_run(scheduler) -> None:
    # The reserving schedulers may run otherwise on nodes (a reservation holds particular nodes),
    # but on one-core nodes what is measured is still the processors' count of that run.
    w = lublin_feitelson(200, machine_size=16, seed=3)
    node = simulate(w, scheduler(nodes=Machine.parse("16x1")))
    ids = w.column("id").tolist()
    held = {j: np.array([p]) for j, p in zip(ids, w.column("processors").tolist(), strict=True)}
    assert fragmentation(node) == pytest.approx(_fragmented_reference(node, np.array([16]), held, held))


@pytest.mark.parametrize("placement", [first_fit, best_fit])
def test_fragmentation_against_brute_force_with_memory(placement) -> None:
    machine = Machine.parse("4x4,memory=8")
    jobs = [
        Job(
            id=i,
            submit=float(2 * i),
            processors=1 + i % 4,
            runtime=float(7 + 3 * (i % 5)),
            estimate=float(7 + 3 * (i % 5)),
            requested_memory=float(1 + i % 3),
        )
        for i in range(60)
    ]
    w = Workload.from_jobs(jobs, 16)
    s = simulate(w, EASY(nodes=machine, placement=placement))
    validate_schedule(s)
    held = {j: np.array(a.amounts).sum(axis=0) for j, a in s.allocations.items()}
    need = {j.id: np.array([j.processors, j.processors * int(j.requested_memory)]) for j in jobs}
    expected = _fragmented_reference(s, np.array([16, 32]), held, need)
    assert expected > 0
    assert fragmentation(s) == pytest.approx(expected, rel=1e-12)


# -- the summary and the result columns -------------------------------------------------------------


def test_summarize_reports_fragmentation_on_nodes_only() -> None:
    w = _jobs((0.0, 3, 10.0), (0.0, 3, 10.0), (0.0, 2, 5.0))
    pool = simulate(w, FCFS())
    node = simulate(w, FCFS(nodes=Machine.parse("2x4", request=one_node)))
    assert not set(NODE_COLUMNS) & set(summarize(pool))
    summary = summarize(node)
    assert list(summary)[-2:] == list(NODE_COLUMNS)
    assert summary["fragmentation"] == 10.0
    table = metrics_table({"pool": pool, "nodes": node}, columns=["mean_wait", "fragmentation"])
    assert [line.split() for line in table.splitlines()[1:]] == [
        ["pool", "0.0", "-"],
        ["nodes", "3.3", "10.0"],
    ]
    with pytest.raises(BackfillError, match="node machine of column"):
        metrics_table([pool], columns=["fragmentation"])


def test_the_node_columns_are_measures_of_result_rows(tmp_path: Path) -> None:
    assert all(is_machine_column(c) and measure_column(c) == c for c in NODE_COLUMNS)
    assert measure_column("mean-fragmentation") == "mean_fragmentation"
    assert column_label("fragmentation").endswith("(job-s)")
    row = {"scheduler": "EASY", "fragmentation": 12.5, "mean_fragmentation": 0.5}
    columns = row_columns([row])
    assert columns.index("fragmentation") > columns.index("seconds")
    path = tmp_path / "rows.csv"
    base = {c: "" for c in columns} | {"jobs": 1, "rejected": 0, "load": 1.0}
    SweepResult([base | row]).to_csv(path)
    back = SweepResult.from_csv(path).rows[0]
    assert back["fragmentation"] == 12.5 and back["mean_fragmentation"] == 0.5


# -- Gantt by node ----------------------------------------------------------------------------------


@pytest.mark.parametrize("placement", [first_fit, best_fit, contiguous])
def test_node_lanes_put_each_job_on_its_nodes_without_overlap(placement) -> None:
    machine = Machine.parse(["6x4", "2x8"])
    w = lublin_feitelson(150, machine_size=machine.cores, seed=9)
    s = simulate(w, EASY(nodes=machine, placement=placement))
    bands = node_lanes(s)
    ids = w.column("id").tolist()
    cores = machine.capacities()[:, 0]
    ran = [i for i in range(len(w)) if s.end[i] > s.start[i]]
    assert sorted(bands) == ran
    per_node: dict[int, list[tuple[float, float, int]]] = {}
    for i, pieces in bands.items():
        allocation = s.allocations[ids[i]]
        nodes = [int(bottom) for bottom, _ in pieces]
        assert sorted(set(nodes)) == list(allocation.nodes)  # a lane per node, the job's own
        for node, amounts in zip(allocation.nodes, allocation.amounts, strict=True):
            mine = [(b, h) for b, h in pieces if int(b) == node]
            assert sum(h for _, h in mine) == pytest.approx(amounts[0] / cores[node])
            assert all(node <= b and b + h <= node + 1 + 1e-12 for b, h in mine)
            per_node.setdefault(node, []).extend((b, h, i) for b, h in mine)
    # Two jobs running at once never share a piece of a lane.
    for pieces in per_node.values():
        for (b1, h1, i), (b2, h2, j) in itertools.combinations(pieces, 2):
            if i != j and s.start[i] < s.end[j] and s.start[j] < s.end[i]:
                assert b1 + h1 <= b2 + 1e-9 or b2 + h2 <= b1 + 1e-9


def test_node_lanes_of_a_window_and_of_a_pool() -> None:
    w = _jobs((0.0, 4, 10.0), (0.0, 2, 5.0), (20.0, 2, 5.0))
    s = simulate(w, FCFS(nodes=Machine.parse("2x4")))
    assert node_lanes(s) == {0: [(0.0, 1.0)], 1: [(1.0, 0.5)], 2: [(0.0, 0.5)]}
    assert node_lanes(s, start=6.0, end=30.0) == {0: [(0.0, 1.0)], 2: [(0.0, 0.5)]}
    with pytest.raises(BackfillError, match="no nodes to draw"):
        node_lanes(simulate(w, FCFS()))


def test_schedule_window_draws_a_lane_per_node() -> None:
    pytest.importorskip("matplotlib")
    machine = Machine.parse("16x4")
    w = lublin_feitelson(120, machine_size=machine.cores, seed=5)
    s = simulate(w, EASY(nodes=machine))
    start, end = float(s.start[40]), float(s.start[40]) + 20_000.0
    ax = schedule_window(s, start=start, end=end).axes[0]
    assert ax.get_ylim() == (0.0, 16.0)
    assert "node" in ax.get_ylabel()
    drawn = 0
    for patch in ax.patches:
        kind, job_id = patch.get_gid().split(":")
        assert kind == "job"  # no reservation: which nodes a plan held is not recorded
        nodes = s.allocations[int(job_id)].nodes
        bottom, top = patch.get_y(), patch.get_y() + patch.get_height()
        covered = range(math.floor(bottom + 1e-9), math.ceil(top - 1e-9))
        assert covered and set(covered) <= set(nodes)  # on the job's nodes only
        drawn += 1
    assert drawn >= len(node_lanes(s, start=start, end=end))
    # A pool schedule keeps its processors' lanes.
    pool = schedule_window(simulate(w, EASY()), start=start, end=end).axes[0]
    assert pool.get_ylim() == (0.0, 64.0) and pool.get_ylabel() == "processors"


def test_a_machine_of_many_nodes_is_drawn_as_occupancy() -> None:
    pytest.importorskip("matplotlib")
    machine = Machine.parse(f"{NODE_LANE_LIMIT + 1}x2")
    s = simulate(lublin_feitelson(60, machine_size=machine.cores, seed=1), EASY(nodes=machine))
    ax = schedule_window(s, start=0.0, end=float(np.nanmax(s.end))).axes[0]
    assert not ax.patches and ax.get_ylabel().startswith("cores in use")
    assert ax.get_ylim() == (0.0, float(machine.cores))


# -- the sweep cache --------------------------------------------------------------------------------


def test_machine_key_tells_machines_and_placements_apart() -> None:
    assert machine_key(EASY()) == {}
    keys = [
        machine_key(EASY(nodes=Machine.parse("8x2"))),
        machine_key(EASY(nodes=Machine.parse("8x2"), placement=best_fit)),
        machine_key(EASY(nodes=Machine.parse("4x4"))),
        machine_key(EASY(nodes=Machine.parse("8x2", request=one_node))),
    ]
    assert len({json.dumps(k, sort_keys=True) for k in keys}) == 4
    assert keys[0] == machine_key(Conservative(nodes=Machine.parse("8x2")))  # the scheduler is keyed apart


def test_a_node_cell_is_cached_whole_and_apart_from_the_pool_cell(tmp_path: Path) -> None:
    model = ModelWorkload(n_jobs=80, machine_size=16, seed=2)
    machine = Machine.parse("8x2")
    on_nodes = SchedulerSpec("EASY", nodes=machine, placement="best_fit")
    pool_key = Cell(model, SchedulerSpec("EASY")).key()
    node_cell = Cell(model, on_nodes)
    assert node_cell._key_data(model.identity())["nodes"] == [[8, 2, []]]
    assert node_cell.key() != pool_key  # EASY on the pool has that key
    grid = Grid([model], [on_nodes, SchedulerSpec("FCFS")])
    first = run_sweep(grid, workers=1, cache=tmp_path, jobs=True)
    again = run_sweep(grid, workers=1, cache=tmp_path, jobs=True)
    assert (first.computed, first.cached, again.computed, again.cached) == (2, 0, 0, 2)
    node_row, pool_row = first.rows
    assert node_row["fragmentation"] >= 0 and "fragmentation" not in pool_row
    assert again.rows == first.rows and again.jobs == first.jobs
    # The cached per-job file keeps each job's nodes: the node run's own allocations.
    schedule = simulate(model.load(), EASY(nodes=machine, placement=best_fit))
    rows = list(csv.DictReader(io.StringIO(again.jobs[0])))
    assert [r["allocated_resources"] for r in rows] == [
        schedule.allocations[j].text() for j in model.load().column("id").tolist()
    ]
    assert node_row["fragmentation"] == fragmentation(schedule)
    assert machine_key(EASY(nodes=machine, placement=best_fit)) == on_nodes.resource_key()


def test_a_trimmed_node_run_measures_its_kept_jobs_against_every_running_job() -> None:
    w = _jobs((0.0, 3, 10.0), (0.0, 3, 10.0), (0.0, 3, 5.0), (1.0, 2, 5.0))
    s = simulate(w, FCFS(nodes=Machine.parse("2x4", request=one_node)))
    assert s.start.tolist() == [0.0, 0.0, 10.0, 10.0]
    # Job 3 (3 cores) never had 3 free; job 4 (2 cores) waited 9 s with 2 free, one on each node.
    assert fragmentation(s) == 9.0
    # Leaving job 1 out of the measures must not free its cores, which would count job 3's 10 s.
    row = summary_row(s, trim=Trim(warmup=1))
    assert row["fragmentation"] == 9.0 and row["mean_fragmentation"] == 3.0
    assert set(trim_schedule(s, Trim(warmup=1)).allocations) == {2, 3, 4}
