"""``--nodes`` and ``--placement`` on ``backfill simulate`` and ``backfill compare`` (issue 56).

Each run is checked against the library run the options stand for (the same workload, scheduler,
node machine and placement through :func:`~backfill.simulator.simulate`), so that the command
line adds nothing and loses nothing on its way to the schedulers.
"""

from __future__ import annotations

import csv
import gzip
import json
import pickle
from pathlib import Path

import pytest
from test_cli import run

from backfill import EASY, Conservative, simulate
from backfill.admission import rejections
from backfill.errors import ParameterError
from backfill.experiments.specs import ModelWorkload, SchedulerSpec
from backfill.experiments.sweep import Cell
from backfill.measures.metrics import summarize
from backfill.profile.placement import PLACEMENTS
from backfill.workloads.nodes import Machine
from backfill.workloads.swf import read_swf, write_swf
from backfill.workloads.workload import Job, Workload

HETEROGENEOUS = ["64x8,memory=12G", "8x8,memory=12G,gpus=4"]


def _model(n: int) -> Workload:
    """The workload ``simulate --jobs n`` runs without a log."""
    return ModelWorkload(n, machine_size=128, seed=0, job_class="batch", estimates="f-model").load()


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _library_wait(workload: Workload, scheduler: object) -> float:
    return float(summarize(simulate(workload, scheduler))["mean_wait"])  # type: ignore[arg-type]


def test_simulate_on_nodes_runs_what_the_library_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "simulate", "--jobs", "200", "--nodes", "16x8", "--scheduler", "easy", "conservative",
        "--csv", str(tmp_path / "m.csv"), "--json", str(tmp_path / "m.json"),
    )  # fmt: skip
    assert code == 0, err
    assert "nodes: 16x8: 16 nodes, 128 cores, first_fit" in out
    assert "EASY(fcfs, nodes=16x8)" in out and "Conservative(nodes=16x8)" in out
    rows = _csv_rows(tmp_path / "m.csv")
    assert [r["scheduler"] for r in rows] == ["EASY+nodes=16x8", "Conservative+nodes=16x8"]
    assert [json.loads(r["params"]) for r in rows] == [{"nodes": "16x8", "placement": "first_fit"}] * 2
    machine = Machine.parse("16x8")
    expected = [
        _library_wait(_model(200), EASY(nodes=machine)),
        _library_wait(_model(200), Conservative(nodes=machine)),
    ]
    assert [float(r["mean_wait"]) for r in rows] == expected
    # The pool's schedule differs: the run did place jobs on nodes.
    assert expected[0] != _library_wait(_model(200), EASY())
    data = json.loads((tmp_path / "m.json").read_text())["data"]
    assert [d["params"] for d in data] == [{"nodes": "16x8", "placement": "first_fit"}] * 2


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_every_placement_on_a_heterogeneous_machine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, placement: str
) -> None:
    code, out, err = run(
        capsys, "simulate", "--jobs", "150", "--nodes", *HETEROGENEOUS, "--placement", placement,
        "--scheduler", "easy", "--csv", str(tmp_path / "m.csv"),
    )  # fmt: skip
    assert code == 0, err
    [row] = _csv_rows(tmp_path / "m.csv")
    text = " ".join(HETEROGENEOUS)
    assert json.loads(row["params"]) == {"nodes": text, "placement": placement}
    assert row["scheduler"] == f"EASY+nodes={text}" + (
        "" if placement == "first_fit" else f"+placement={placement}"
    )
    assert f"nodes: {text}: 72 nodes, 576 cores (the workload has 128 processors), {placement}" in out
    scheduler = EASY(nodes=Machine.parse(HETEROGENEOUS), placement=PLACEMENTS[placement])
    assert float(row["mean_wait"]) == _library_wait(_model(150), scheduler)


def test_jobs_no_node_holds_are_rejected_and_counted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Some jobs wider than 4x8's 32 cores; of the others, those asking more than 1 MB per task.
    jobs = [
        Job(id=i, submit=10.0 * i, processors=[2, 4, 40, 8][i % 4], runtime=30.0, estimate=60.0,
            requested_memory=[512.0, 4096.0, 100.0, -1.0][i % 3])
        for i in range(1, 61)
    ]  # fmt: skip
    log = tmp_path / "mem.swf"
    write_swf(log, Workload.from_jobs(jobs, machine_size=64))
    code, out, err = run(
        capsys, "simulate", str(log), "--nodes", "4x8,memory=1M", "--scheduler", "easy",
        "--csv", str(tmp_path / "m.csv"),
    )  # fmt: skip
    assert code == 0, err
    workload = read_swf(log)[0]
    reasons, _ = rejections(
        Workload(workload.records, 32, {}, {}), EASY(nodes=Machine.parse("4x8,memory=1M"))
    )
    wide = sum(1 for j in jobs if j.processors > 32)
    big = len(reasons) - wide
    assert wide > 0 and big > 0
    assert f"+ {len(reasons)} rejected (" in out
    assert f"wider than the machine (32 processors): {wide}" in out
    assert f"asks 4096 memory per task; no node has that many: {big}" in out
    [row] = _csv_rows(tmp_path / "m.csv")
    assert int(row["rejected"]) == len(reasons) and int(row["jobs"]) == len(jobs) - len(reasons)
    assert f"no node has that many: {big}" in row["rejected_reasons"]


def test_compare_sweeps_node_machines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "compare", "model:n=120", "--scheduler", "easy", "conservative", "--nodes", *HETEROGENEOUS,
        "--placement", "best_fit", "--workers", "2", "--csv", str(tmp_path / "c.csv"),
        "--json", str(tmp_path / "c.json"),
    )  # fmt: skip
    assert code == 0, err
    text = " ".join(HETEROGENEOUS)
    labels = [f"{name}+nodes={text}+placement=best_fit" for name in ("EASY", "Conservative")]
    rows = _csv_rows(tmp_path / "c.csv")
    assert [r["scheduler"] for r in rows] == labels
    assert f"percent improvement over {labels[1]}" in out
    machine = Machine.parse(HETEROGENEOUS)
    workload = _model(120)
    for row, cls in zip(rows, (EASY, Conservative), strict=True):
        assert float(row["mean_wait"]) == _library_wait(
            workload, cls(nodes=machine, placement=PLACEMENTS["best_fit"])
        )
    data = json.loads((tmp_path / "c.json").read_text())["data"]
    assert {d["params"]["placement"] for d in data} == {"best_fit"}


def test_compare_runs_pool_and_node_machines_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # One sweep, three machines: a spec's own nodes (+nodes=) are its own, --nodes the others'.
    cache = tmp_path / "cache"
    argv = [
        "compare", "model:n=150", "--scheduler", "easy", "easy+nodes=16x8+placement=contiguous",
        "--nodes", "16x8", "--workers", "1", "--cache", str(cache), "--csv", str(tmp_path / "c.csv"),
    ]  # fmt: skip
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    rows = _csv_rows(tmp_path / "c.csv")
    assert [r["scheduler"] for r in rows] == ["EASY+nodes=16x8", "EASY+nodes=16x8+placement=contiguous"]
    # The pool beside it, another sweep: its cell is new, the node machine's read back from the cache.
    argv = [*argv[:3], "easy", *argv[4:5], *argv[7:-2], "--csv", str(tmp_path / "d.csv")]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "2 cells: 1 simulated, 1 from the cache" in out
    assert [r["scheduler"] for r in _csv_rows(tmp_path / "d.csv")] == ["EASY", rows[1]["scheduler"]]
    assert [r["mean_wait"] for r in _csv_rows(tmp_path / "d.csv")][1] == rows[1]["mean_wait"]


def test_cells_of_pools_and_node_machines_never_share_a_key() -> None:
    model = ModelWorkload(50, machine_size=32)
    machine = Machine.parse("4x8")
    specs = [
        SchedulerSpec("EASY"),
        SchedulerSpec("EASY", nodes=machine),
        SchedulerSpec("EASY", nodes=machine, placement="best_fit"),
        SchedulerSpec("EASY", nodes=Machine.parse("4x8,memory=12G")),
        SchedulerSpec("EASY", nodes=Machine.parse(["2x8", "2x8"])),
    ]
    keys = [Cell(model, spec).key() for spec in specs]
    assert len(set(keys)) == len(keys)
    # First fit named or not is one spec, one key; a pool's key holds no machine at all.
    assert Cell(model, SchedulerSpec("EASY", nodes=machine, placement="first_fit")).key() == keys[1]
    assert SchedulerSpec("EASY").resource_key() == {} and SchedulerSpec("EASY").row_params() == "{}"
    for spec in specs:
        assert pickle.loads(pickle.dumps(spec)) == spec
        assert SchedulerSpec.parse(str(spec)) == spec


def _own_placement(room: object, count: int) -> object:
    return PLACEMENTS["first_fit"](room, count)  # type: ignore[arg-type]


def test_a_spec_takes_a_module_level_placement_and_refuses_others() -> None:
    spec = SchedulerSpec("EASY", nodes=Machine.parse("4x8"), placement=_own_placement)
    assert spec.label == "EASY+nodes=4x8+placement=test_cli_nodes._own_placement"
    assert spec.build().placement is _own_placement
    with pytest.raises(ParameterError, match="not a module-level function"):
        SchedulerSpec("EASY", nodes=Machine.parse("4x8"), placement=lambda room, count: None)
    with pytest.raises(ParameterError, match="without nodes"):
        SchedulerSpec("EASY", placement="best_fit")
    with pytest.raises(ParameterError, match="two models of one machine"):
        SchedulerSpec("EASY", nodes=Machine.parse("4x8"), resources="memory=1G")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--nodes", "4x"], "--nodes: node group '4x' must start with COUNTxCORES"),
        (["--nodes", "4x8,memory=12Q"], "node group '4x8,memory=12Q': memory size '12Q' has an unknown unit"),
        (["--nodes", "4x8,gpus=two"], "node group '4x8,gpus=two': gpus must be a whole number"),
        (["--nodes", "0x8"], "node group '0x8': NodeGroup.count must be an int >= 1"),
        (["--placement", "best_fit"], "--placement best_fit applies only with --nodes"),
        (["--nodes", "4x8", "--resources", "memory=1G"], "--nodes and --resources are two models"),
        (["--nodes", "4x8", "--partitions"], "--nodes and --partitions"),
        (["--scheduler", "easy+placement=best_fit"], "needs +nodes=GROUP"),
        (["--scheduler", "easy+nodes=4x8+memory=1G"], "two models of one machine"),
        (
            ["--scheduler", "easy+nodes=2x8", "--nodes", "4x8"],
            "--nodes 4x8 applies to none of the schedulers",
        ),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_bad_values_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], command: str, argv: list[str], said: str
) -> None:
    words = ["simulate", "--jobs", "20"] if command == "simulate" else ["compare", "model:n=20"]
    code, out, err = run(capsys, *words, *argv)
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_an_unknown_placement_is_a_usage_error(capsys: pytest.CaptureFixture[str], command: str) -> None:
    words = ["simulate", "--jobs", "20"] if command == "simulate" else ["compare", "model:n=20"]
    with pytest.raises(SystemExit) as stopped:
        run(capsys, *words, "--nodes", "4x8", "--placement", "worst_fit")
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'worst_fit'" in err and "'best_fit'" in err


def test_a_workload_after_nodes_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "simulate", "--nodes", "4x8", "CTC-SP2.swf")
    assert code == 2
    assert "--nodes 'CTC-SP2.swf' is a workload, not a node group: give the workload first" in err


def _max_procs(path: Path) -> int:
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("; MaxProcs:"):
                return int(line.split(":")[1])
    raise AssertionError(f"{path} has no MaxProcs")


@pytest.mark.trace
def test_hpc2n_on_its_nodes(capsys: pytest.CaptureFixture[str], traces: Path, tmp_path: Path) -> None:
    # HPC2N's Seth: 120 dual-processor nodes, 240 processors in its header.
    log = traces / "HPC2N-2002-2.1-cln.swf.gz"
    assert _max_procs(log) == 240
    code, out, err = run(
        capsys, "simulate", str(log), "--jobs", "1000", "--nodes", "120x2,memory=256M", "--scheduler", "easy",
        "--no-progress", "--csv", str(tmp_path / "m.csv"),
    )  # fmt: skip
    assert code == 0, err
    assert "nodes: 120x2,memory=256M: 120 nodes, 240 cores, first_fit" in out
    assert "(the workload has" not in out  # the same size as the log's machine
    workload = read_swf(log)[0]
    first = Workload(workload.records[:1000], 240, {}, {})
    scheduler = EASY(nodes=Machine.parse("120x2,memory=256M"))
    reasons, _ = rejections(first, scheduler)
    [row] = _csv_rows(tmp_path / "m.csv")
    assert int(row["rejected"]) == len(reasons) and int(row["jobs"]) == 1000 - len(reasons)
    assert float(row["mean_wait"]) == float(summarize(simulate(first, scheduler))["mean_wait"])


@pytest.mark.trace
def test_hpc2n_compare_on_a_heterogeneous_machine(
    capsys: pytest.CaptureFixture[str], traces: Path, tmp_path: Path
) -> None:
    log = traces / "HPC2N-2002-2.1-cln.swf.gz"
    short = tmp_path / "hpc2n-300.swf"
    workload = read_swf(log)[0]
    write_swf(short, Workload(workload.records[:300], workload.machine_size, {}, dict(workload.header)))
    code, _out, err = run(
        capsys, "compare", str(short), "--scheduler", "easy", "conservative", "--nodes", *HETEROGENEOUS,
        "--workers", "1", "--csv", str(tmp_path / "c.csv"),
    )  # fmt: skip
    assert code == 0, err
    rows = _csv_rows(tmp_path / "c.csv")
    assert all(json.loads(r["params"])["nodes"] == " ".join(HETEROGENEOUS) for r in rows)
    assert all(int(r["jobs"]) + int(r["rejected"]) == 300 for r in rows)
