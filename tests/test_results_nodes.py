"""The node machines' results page: ``benchmarks/nodes/results_nodes.py``."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
__import__("_common")  # which puts every benchmarks folder on sys.path (_common.FOLDERS)

import results_nodes as rn  # noqa: E402

from backfill import Job, Machine, NodeRequest, Workload, kernel  # noqa: E402

SCRIPT = ROOT / "benchmarks" / "nodes" / "results_nodes.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_committed_page_is_what_the_committed_results_give(tmp_path: Path) -> None:
    # What a reader gets from a fresh clone: --cached writes the page from the kept cells alone.
    page = tmp_path / "page.md"
    done = _run("--cached", "--trace-dir", tmp_path / "no traces", "--page", page)
    assert done.returncode == 0, done.stderr
    committed = (ROOT / "docs" / "results-nodes.md").read_text()
    assert page.read_text() == committed, (
        "rewrite it with `python benchmarks/nodes/results_nodes.py --cached`"
    )


def test_cached_without_results_runs_nothing_and_says_so(tmp_path: Path) -> None:
    results, page = tmp_path / "results", tmp_path / "page.md"
    done = _run("--cached", "--trace-dir", tmp_path / "no traces", "--results", results, "--page", page)
    assert done.returncode == 0, done.stderr
    assert not results.exists()
    text = page.read_text()
    assert "No cell is kept yet." in text
    assert "not claims of any paper" in text and "--cached" in text
    missing = text.split("## Not measured yet", 1)[1].split("\n## ", 1)[0]
    cells = sum(len(keys) * len(setup.configs) for setup, keys in rn._sections())
    assert missing.count(";") == cells - 1


def test_a_missing_trace_folder_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run("--trace-dir", tmp_path / "nope", "--results", tmp_path / "r", "--page", tmp_path / "p.md")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no trace folder" in done.stderr
    assert not (tmp_path / "p.md").exists()


def test_an_unknown_workload_to_run_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run("--only", "KTH", "--results", tmp_path / "r", "--page", tmp_path / "p.md")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "'KTH' is none of" in done.stderr


def test_a_missing_trace_in_the_folder_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run(
        "--allow-dirty", "--trace-dir", tmp_path, "--results", tmp_path / "r", "--page", tmp_path / "p.md"
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "RICC-2010-2.swf.gz" in done.stderr


def test_the_committed_results_are_small_stamped_json_of_known_cells() -> None:
    files = sorted(rn.DEFAULT_RESULTS.glob("*.json"))  # beside the generator and its notes
    assert files, "no committed results"
    names = {
        rn._path(rn.DEFAULT_RESULTS, s, k, c).name
        for s, keys in rn._sections()
        for k in keys
        for c in s.configs
    }
    for path in files:
        assert path.name in names, path
        assert path.stat().st_size < 10_000, path
        cell = json.loads(path.read_text())
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", cell["measured"]["date"]), path
        assert not cell["measured"]["code"].endswith("-dirty"), f"{path}: measured with uncommitted code"
        kept = {m for m, _, _ in rn.MEASURES}
        if cell["config"] != "pool":
            kept |= {m for m, _, _ in rn.NODE_MEASURES}
            assert "on nodes" in cell["name"] or "nodes" in cell["name"], path
        assert kept <= set(cell["figures"]), path


def test_the_gpu_rule_asks_whole_gpu_nodes_of_every_fourth_job_that_fits_them() -> None:
    def job(i: int, p: int) -> Job:
        return Job(id=i, submit=0.0, processors=p, runtime=1.0, estimate=1.0)

    assert rn.gpu_request(job(4, 48)) == NodeRequest.nodes(2, tasks_per_node=24, gpus_per_node=2)
    assert rn.gpu_request(job(12, 5)) == NodeRequest.nodes(1, tasks_per_node=5, gpus_per_node=4)
    assert rn.gpu_request(job(5, 48)).amount("gpus") == 0  # not a fourth job: tasks
    assert rn.gpu_request(job(4, 513)).amount("gpus") == 0  # wider than the 16 GPU nodes
    assert rn.gpu_amount(job(4, 48)) == 4 and rn.gpu_amount(job(5, 48)) == 0
    machine = rn.machine_of(rn.GPU)
    assert machine.refusal(rn.gpu_request(job(4, 512))) is None
    assert machine.refusal(rn.gpu_request(job(5, 2048))) is None


def test_a_window_leaves_out_jobs_that_either_run_would_reject(tmp_path: Path) -> None:
    rows = [
        "1 0 0 10 2 -1 -1 2 10 100 1 1 1 1 1 1 -1 -1",  # 2 x 100 kB: fits
        "2 1 0 10 1 -1 -1 1 10 900 1 1 1 1 1 1 -1 -1",  # 900 kB: more than a node's 512 kB
        "3 2 0 10 3 -1 -1 3 10 300 1 1 1 1 1 1 -1 -1",  # 3 x 300: fits the pool of 1 MB, two nodes hold 2
        "4 3 0 10 1 -1 -1 1 10 50 1 1 1 1 1 1 -1 -1",  # past the window
    ]
    (tmp_path / "T.swf.gz").write_bytes(gzip.compress(("; MaxProcs: 4\n" + "\n".join(rows) + "\n").encode()))
    setup = rn.NodeSetup("T", "T", 3, "2x2,memory=512", ("pool", "first_fit"), "a test")
    workload, left_out = rn.window(tmp_path, setup)
    assert [job.id for job in workload] == [1] and left_out == 2


def test_a_cell_on_nodes_waits_where_the_pool_does_not() -> None:
    # Two nodes of 2 cores and 1,024 kB: the first two jobs, of one core and 600 kB, take a node each,
    # leaving 848 kB in the pool but 424 on each node; the third, one core and 500 kB, fits the pool's
    # free amounts at once and no node until 100.
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0, requested_memory=600),
        Job(id=2, submit=0.0, processors=1, runtime=100.0, estimate=100.0, requested_memory=600),
        Job(id=3, submit=1.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=500),
    ]
    workload = Workload.from_jobs(jobs, machine_size=4)
    setup = rn.NodeSetup("T", "T", 3, "2x2,memory=1024", ("pool", "first_fit"), "a test")
    with kernel.pure_python():
        pool = rn.run_cell(workload, setup, "easy", "pool", 0)
        nodes = rn.run_cell(workload, setup, "easy", "first_fit", 0)
    assert pool["figures"]["mean_wait"] == 0.0 and "fragmentation" not in pool["figures"]
    assert nodes["figures"]["mean_wait"] == pytest.approx(99.0 / 3)
    assert nodes["figures"]["fragmentation"] == pytest.approx(99.0)
    assert nodes["figures"]["mean_fragmentation"] == pytest.approx(33.0)


def test_node_figures_give_each_group_of_a_gpu_machine() -> None:
    from backfill import FCFS, simulate

    machine = Machine.parse(["1x4,gpus=2", "1x4"], request=rn.gpu_request)
    jobs = [Job(id=4, submit=0.0, processors=4, runtime=10.0, estimate=10.0)]  # one GPU node, 2 GPUs
    figures = rn.node_figures(simulate(Workload.from_jobs(jobs, 8), FCFS(nodes=machine)))
    assert figures["utilization_gpu_nodes"] == 1.0 and figures["utilization_other_nodes"] == 0.0
    assert figures["gpu_utilization"] == 1.0 and figures["utilization_spread"] == 0.5


def test_the_tables_show_the_change_against_the_pool() -> None:
    setup = rn.TRACES[1]
    base = {"jobs": 10, "left_out": 1, "sim_seconds": 1.0, "fst_seconds": 2.0}
    stamp = {"measured": {"date": "2026-01-01", "code": "abc1234"}}
    figures = {m: 3600.0 for m, _, _ in rn.MEASURES}
    cells = {
        (setup.name, "easy", "pool"): {**base, **stamp, "figures": figures},
        (setup.name, "easy", "first_fit"): {
            **base,
            **stamp,
            "figures": {
                **figures,
                "mean_wait": 5400.0,
                "fragmentation": 7200.0,
                "mean_fragmentation": 720.0,
                "utilization_spread": 0.25,
            },
        },
    }
    table = rn.workload_table(cells, setup, ("easy",))
    assert "| EASY | pool | 1.00 | - | 3,600.00 | 1.00 | - | - | - |" in table
    assert "| EASY | first fit | 1.50 | +50.0 % | 3,600.00 | 1.00 | 2.00 | 0.20 | 0.25 |" in table
    assert "| EASY | best fit | - |" in table
    assert f"| {setup.name} | {setup.stem} | first {setup.jobs:,} | 10 | 1 | `{setup.machine}` | 6 |" in (
        rn.runs_table(cells)
    )
    text = rn.page(cells)
    assert "2 cells, measured 2026-01-01 with `abc1234` (2)." in text
    assert f"{setup.name} PC (best fit)" in text and f"{setup.name} EASY (pool)" not in text


def test_the_summary_gives_ranges_over_the_kept_cells() -> None:
    def cell(wait: float, bsld: float, **more: float) -> dict[str, object]:
        return {"figures": {"mean_wait": wait, "mean_bsld": bsld, **more}}

    hpc2n = rn.TRACES[1].name
    cells = {
        (hpc2n, "easy", "pool"): cell(100.0, 10.0),
        (hpc2n, "easy", "first_fit"): cell(110.0, 12.0),
        (hpc2n, "easy", "best_fit"): cell(130.0, 12.0),
    }
    (line,) = rn.summary(cells)
    assert "mean wait changes by +10.0 to +30.0 %" in line and "slowdown by +20.0 %" in line
    assert "(2 node runs)" in line
    gpu = {"mean_wait_gpu_jobs": 36000.0, "mean_wait_other_jobs": 3600.0}
    busy = {"utilization_gpu_nodes": 0.7, "utilization_other_nodes": 0.5, "gpu_utilization": 0.1}
    cells[rn.GPU.name, "easy", "pool"] = cell(1.0, 1.0, **gpu | {"mean_wait_gpu_jobs": 7200.0})
    cells[rn.GPU.name, "easy", "first_fit"] = cell(1.0, 1.0, **gpu, **busy)
    cells[rn.GPU_LAST.name, "easy", "first_fit"] = cell(1.0, 1.0, **gpu | {"mean_wait_gpu_jobs": 18000.0})
    text = rn.summary(cells)[1]
    assert "2.00 h on average in the pool, 10.00 h" in text and "5.00 h with them numbered last" in text
    assert "busy 0.70 of the span, the other nodes' 0.50" in text and "wait less in every run" in text
    cells[rn.GPU_LAST.name, "easy", "first_fit"]["figures"]["mean_wait_gpu_jobs"] = 40000.0  # type: ignore[index]
    assert "wait less in every run" not in rn.summary(cells)[1]
