"""Node requests in Batsim workloads (issue 56, point 2): the job fields, the request table, the CLI."""

from __future__ import annotations

import csv
import io
import json
import pickle
from pathlib import Path
from typing import Any

import attrs
import pytest
from test_cli import run

from backfill import EASY, Conservative, simulate, validate_schedule
from backfill.errors import BatsimError, ParameterError
from backfill.experiments.cache import machine_key
from backfill.experiments.specs import SchedulerSpec
from backfill.workloads import RequestTable, read_batsim_requests, read_batsim_workload, write_batsim_workload
from backfill.workloads.nodes import Machine, NodeRequest, tasks_request
from backfill.workloads.request_table import request_fields
from backfill.workloads.workload import Job

SHARED = Path(__file__).resolve().parent.parent / ".." / "shared" / "batsim-workloads"
GROUPS = ["2x8,memory=12G", "2x4,memory=8G,gpus=2"]

JOBS: list[dict[str, Any]] = [
    # Two nodes of 4 tasks, 4G and a GPU each: only the GPU nodes hold them.
    {"id": 1, "subtime": 0, "walltime": 40, "res": 8, "profile": "d30",
     "nodes": 2, "tasks_per_node": 4, "memory_per_node": "4G", "gpus_per_node": 1},
    # Two tasks of two cores, on nodes of their own.
    {"id": "two", "subtime": 1, "walltime": 20, "res": 4, "profile": "d10", "cores_per_task": 2,
     "exclusive": True},
    # No request: its processors as one-core tasks, its memory spread over them.
    {"id": 3, "subtime": 2, "walltime": 20, "res": 2, "profile": "d10", "memory": 2048},
    # One whole GPU node: it waits for job 1.
    {"id": 4, "subtime": 3, "walltime": 40, "res": 4, "profile": "d30",
     "nodes": 1, "tasks_per_node": 4, "gpus_per_node": 2, "exclusive": True},
    # Tasks with memory in kB, and GPUs per task.
    {"id": 5, "subtime": 4, "walltime": 20, "res": 3, "profile": "d10",
     "memory_per_task": 1048576, "gpus_per_task": 1},
]  # fmt: skip


def _document(jobs: list[dict[str, Any]]) -> dict[str, Any]:
    profiles = {"d10": {"type": "delay", "delay": 10}, "d30": {"type": "delay", "delay": 30}}
    return {"nb_res": 24, "jobs": jobs, "profiles": profiles}


def _write(tmp_path: Path, jobs: list[dict[str, Any]], name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(_document(jobs)))
    return path


def test_requests_carry_the_workload_readers_ids(tmp_path: Path) -> None:
    path = _write(tmp_path, JOBS)
    table = read_batsim_requests(path)
    workload, _ = read_batsim_workload(path)
    jobs = {job.id: job for job in workload}
    assert repr(table) == "RequestTable(4 jobs from w.json)"
    # "two" holds no integer: numbered 6, one past the largest integer id, as the workload reader does.
    assert set(jobs) == {1, 3, 4, 5, 6}
    assert set(table.requests) == {1, 4, 5, 6}
    assert table.requests[1] == NodeRequest.nodes(
        2, tasks_per_node=4, memory_per_node=4 * 2**20, gpus_per_node=1
    )
    assert table.requests[6] == NodeRequest.tasks(2, cores_per_task=2, exclusive=True)
    assert table.requests[4] == NodeRequest.nodes(1, tasks_per_node=4, gpus_per_node=2, exclusive=True)
    assert table.requests[5] == NodeRequest.tasks(3, memory_per_task=2**20, gpus_per_task=1)
    # Each request's cores are the job's res: the pool and node models count a job alike.
    for job_id, request in table.requests.items():
        assert request.processors == jobs[job_id].processors
    # Job 3 states none: the default rule, with its memory field per processor.
    assert table(jobs[3]) == tasks_request(jobs[3]) == NodeRequest.tasks(2, memory_per_task=1024)


@pytest.mark.parametrize("scheduler", [EASY(), Conservative()], ids=["EASY", "Conservative"])
def test_schedulers_place_the_tables_requests(tmp_path: Path, scheduler: Any) -> None:
    path = _write(tmp_path, JOBS)
    workload, _ = read_batsim_workload(path)
    table = read_batsim_requests(path)
    machine = Machine.parse(GROUPS, request=table)
    on_nodes = attrs.evolve(scheduler, nodes=machine)
    schedule = simulate(workload, on_nodes)
    validate_schedule(schedule)  # every allocation holds its job's request, exclusive ones whole
    assert not schedule.rejected
    alloc = schedule.allocations
    # Job 1: two GPU nodes (ids 2 and 3), 4 cores, 4G and one GPU on each.
    assert alloc[1].nodes == (2, 3)
    assert alloc[1].amounts == ((4, 4 * 2**20, 1), (4, 4 * 2**20, 1))
    # Job 4 wants a GPU node whole, both held by job 1 until 30: it starts then.
    start = dict(zip(workload.column("id").tolist(), schedule.start.tolist(), strict=True))
    assert start[4] == 30.0
    assert len(alloc[4].nodes) == 1 and alloc[4].amounts[0] == (4, 8 * 2**20, 2)
    # Job "two" (6): exclusive, its nodes whole.
    caps = machine.capacities().tolist()
    assert all(list(a) == caps[n] for n, a in zip(alloc[6].nodes, alloc[6].amounts, strict=True))
    # Without the table, job 4 asks 4 one-core tasks and starts at once: the table made the difference.
    plain = simulate(workload, attrs.evolve(scheduler, nodes=Machine.parse(GROUPS)))
    validate_schedule(plain)
    assert dict(zip(workload.column("id").tolist(), plain.start.tolist(), strict=True))[4] == 3.0


def test_round_trip(tmp_path: Path) -> None:
    path = _write(tmp_path, JOBS)
    workload, _ = read_batsim_workload(path)
    table = read_batsim_requests(path)
    out = tmp_path / "out.json"
    assert write_batsim_workload(workload, out, requests=table) == {}
    again = read_batsim_requests(out)
    assert again == table and again.digest == table.digest
    back, _ = read_batsim_workload(out)
    assert [(j.id, j.processors) for j in back] == [(j.id, j.processors) for j in workload]
    written = {job["id"]: job for job in json.loads(out.read_text())["jobs"]}
    assert written["1"]["nodes"] == 2 and written["1"]["memory_per_node"] == "4G"
    assert written["two"]["exclusive"] is True and written["two"]["cores_per_task"] == 2
    assert not {"nodes", "exclusive", "cores_per_task"} & set(written["3"])  # no request, no fields
    # Without a table, the file is as it was: no request field at all.
    plain = io.StringIO()
    write_batsim_workload(workload, plain)
    assert "nodes" not in plain.getvalue() and "exclusive" not in plain.getvalue()


def test_writing_refuses_requests_without_fields() -> None:
    job = Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=9.0)
    out = io.StringIO()
    with pytest.raises(ParameterError, match="job 1: its node request asks 8 cores, its res is 4"):
        write_batsim_workload([job], out, machine_size=8, requests=RequestTable({1: NodeRequest.nodes(8)}))
    with pytest.raises(ParameterError, match="no field for licences"):
        request_fields(NodeRequest.tasks(4, licences=1), 1, 4)
    with pytest.raises(ParameterError, match="at most 2 shares per node"):
        request_fields(NodeRequest(4, {"cores": 1}, 2), 1, 4)
    with pytest.raises(ParameterError, match="requests must be a RequestTable"):
        write_batsim_workload([job], out, machine_size=8, requests={1: NodeRequest.nodes(4)})  # type: ignore[arg-type]


BAD = [
    ({"nodes": 0}, "nodes must be an integer from 1"),
    ({"nodes": 1.5}, "nodes must be an integer from 1"),
    ({"nodes": True}, "nodes must be an integer from 1"),
    ({"nodes": 3}, r"res 4 differs from nodes x tasks_per_node x cores_per_task = 3 x 1 x 1 = 3"),
    ({"nodes": 2, "tasks_per_node": 2, "memory_per_node": "lots"}, "memory_per_node: memory size 'lots'"),
    (
        {"nodes": 2, "tasks_per_node": 2, "memory_per_node": -1},
        "memory_per_node must be a whole number of kB",
    ),
    (
        {"nodes": 4, "gpus_per_task": 1},
        "gpus_per_task is of a request of tasks; with nodes, give gpus_per_node",
    ),
    ({"tasks_per_node": 4}, "tasks_per_node is of a request of nodes: give nodes too"),
    ({"cores_per_task": 3}, "res 4 is not a whole number .from 1. of tasks of 3 cores"),
    ({"exclusive": "yes"}, "exclusive must be true or false"),
    ({"gpus_per_task": "2"}, "gpus_per_task must be an integer from 0"),
]


@pytest.mark.parametrize(("fields", "message"), BAD, ids=[m[:30] for _, m in BAD])
def test_bad_values_name_the_file_and_job(tmp_path: Path, fields: dict[str, Any], message: str) -> None:
    good = {"id": "ok", "subtime": 0, "res": 2, "profile": "d10"}
    bad = {"id": "w0!7", "subtime": 0, "res": 4, "profile": "d10", **fields}
    with pytest.raises(BatsimError, match=message) as caught:
        read_batsim_requests(_write(tmp_path, [good, bad], "bad.json"))
    assert caught.value.job == "w0!7" and caught.value.path.endswith("bad.json")


def test_a_table_is_validated_and_compared_by_content() -> None:
    with pytest.raises(ParameterError, match="job id must be an int"):
        RequestTable({"1": NodeRequest.nodes(1)})  # type: ignore[dict-item]
    with pytest.raises(ParameterError, match="job 1's request must be a NodeRequest"):
        RequestTable({1: 4})  # type: ignore[dict-item]
    with pytest.raises(ParameterError, match="must be a mapping"):
        RequestTable([(1, NodeRequest.nodes(1))])  # type: ignore[arg-type]
    a = RequestTable({2: NodeRequest.nodes(2), 1: NodeRequest.nodes(1)}, source="a.json")
    b = RequestTable({1: NodeRequest.nodes(1), 2: NodeRequest.nodes(2)}, source="b.json")
    c = RequestTable({1: NodeRequest.nodes(1), 2: NodeRequest.nodes(2, exclusive=True)})
    assert a == b and a.digest == b.digest and hash(a) == hash(b) and list(a.requests) == [1, 2]
    assert a != c and a.digest != c.digest


def test_tables_pickle_and_key_cells_by_content(tmp_path: Path) -> None:
    table = read_batsim_requests(_write(tmp_path, JOBS))
    machine = Machine.parse(GROUPS, request=table)
    spec = SchedulerSpec("EASY", nodes=machine)
    copy = pickle.loads(pickle.dumps(spec))
    assert copy == spec and copy.nodes is not None and copy.nodes.request == table
    assert copy.nodes.request.source == "w.json"
    assert copy.resource_key() == spec.resource_key()
    assert f"request=w.json@{table.digest[:8]}" in spec.label
    # Another table (one job's request changed) is another cell; the same content, the same cell.
    other = read_batsim_requests(_write(tmp_path, [{**JOBS[0], "gpus_per_node": 2}, *JOBS[1:]], "v.json"))
    same = read_batsim_requests(_write(tmp_path, JOBS, "copy.json"))
    key = spec.resource_key()
    assert SchedulerSpec("EASY", nodes=Machine.parse(GROUPS, request=other)).resource_key() != key
    assert SchedulerSpec("EASY", nodes=Machine.parse(GROUPS, request=same)).resource_key() == key
    assert SchedulerSpec("EASY", nodes=Machine.parse(GROUPS)).resource_key() != key
    built = EASY(nodes=machine)
    assert machine_key(built)["request"] == f"RequestTable:{table.digest}"
    workload, _ = read_batsim_workload(tmp_path / "w.json")
    a = simulate(workload, pickle.loads(pickle.dumps(built)))
    b = simulate(workload, EASY(nodes=machine))
    assert a.start.tolist() == b.start.tolist()


def test_simulate_uses_the_files_requests(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, JOBS)
    jobs_csv = tmp_path / "jobs.csv"
    code, out, err = run(
        capsys, "simulate", str(path), "--nodes", *GROUPS, "--scheduler", "conservative",
        "--jobs-csv", str(jobs_csv),
    )  # fmt: skip
    assert code == 0, err
    assert "4 nodes, 24 cores, first_fit, the node requests of w.json (4 jobs)" in out
    with jobs_csv.open(newline="") as f:
        rows = {r["jobID"]: r for r in csv.DictReader(f)}
    table = read_batsim_requests(path)
    assert rows["4"]["scheduler"].endswith(f"+request=w.json@{table.digest[:8]}")
    assert float(rows["4"]["starting_time"]) == 30.0  # as the library run with the table
    assert rows["1"]["allocated_resources"] == "2-3"
    workload, _ = read_batsim_workload(path)
    library = simulate(workload, Conservative(nodes=Machine.parse(GROUPS, request=table)))
    starts = dict(zip(workload.column("id").tolist(), library.start.tolist(), strict=True))
    assert {k: float(r["starting_time"]) for k, r in rows.items()} == {
        ("two" if k == 6 else str(k)): v for k, v in starts.items()
    }


def test_compare_refuses_one_files_requests_among_several(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, JOBS)
    plain = _write(tmp_path, [{k: v for k, v in j.items() if k in ("id", "subtime", "res", "profile")}
                              for j in JOBS], "plain.json")  # fmt: skip
    code, _, err = run(capsys, "compare", str(path), str(plain), "--nodes", *GROUPS)
    assert code != 0
    assert "w.json states node requests for 4 jobs, which apply to that workload alone" in err


def test_a_shared_batsim_workload_with_requests_added(tmp_path: Path) -> None:
    source = SHARED / "example_workload_hpc_seed1_jobs250.json"
    if not source.is_file():
        pytest.skip("../shared/batsim-workloads is absent")
    assert len(read_batsim_requests(source)) == 0  # Batsim's own files state no node requests
    doc = json.loads(source.read_text())
    for k, job in enumerate(doc["jobs"]):  # every res there is a multiple of 4
        job |= {"nodes": job["res"] // 4, "tasks_per_node": 4} if k % 2 else {"cores_per_task": 2}
        if k % 5 == 0:
            job["exclusive"] = True
    path = tmp_path / "hpc.json"
    path.write_text(json.dumps(doc))
    workload, _ = read_batsim_workload(path)
    table = read_batsim_requests(path)
    assert len(table) == len(workload) == 250
    machine = Machine.parse(["16x4", "16x4,gpus=1"], request=table)
    for scheduler in (EASY(nodes=machine), Conservative(nodes=machine)):
        schedule = simulate(workload, scheduler)
        validate_schedule(schedule)
        assert not schedule.rejected
        widths = {len(schedule.allocations[j].nodes) for j in (1, 3, 5)}
        assert widths == {table.requests[j].count for j in (1, 3, 5)}
