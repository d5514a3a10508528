"""The new results page (memory as a second resource): ``benchmarks/resources/results_resources.py``."""

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

import results_resources as rr  # noqa: E402

from backfill import EASY, Conservative, Job, Resource, Workload, simulate  # noqa: E402

SCRIPT = ROOT / "benchmarks" / "resources" / "results_resources.py"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_committed_page_is_what_the_committed_results_give(tmp_path: Path) -> None:
    # What a reader gets from a fresh clone: --cached writes the page from the kept cells alone.
    page = tmp_path / "page.md"
    done = _run("--cached", "--trace-dir", tmp_path / "no traces", "--page", page)
    assert done.returncode == 0, done.stderr
    committed = (ROOT / "docs" / "results-resources.md").read_text()
    assert page.read_text() == committed, (
        "rewrite it with `python benchmarks/resources/results_resources.py --cached`"
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
    cells = (len(rr.TRACES) * len(rr.CONFIGS) + len(rr.CURIE_CONFIGS)) * len(rr.SCHEDULERS)
    assert missing.count(";") == cells - 1


def test_a_missing_trace_folder_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run("--trace-dir", tmp_path / "nope", "--results", tmp_path / "r", "--page", tmp_path / "p.md")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no trace folder" in done.stderr
    assert not (tmp_path / "p.md").exists()


def test_a_page_that_cannot_be_written_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run("--cached", "--page", tmp_path / "no folder" / "page.md")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no folder" in done.stderr


def test_a_missing_trace_in_the_folder_is_a_one_line_error(tmp_path: Path) -> None:
    done = _run(
        "--allow-dirty", "--trace-dir", tmp_path, "--results", tmp_path / "r", "--page", tmp_path / "p.md"
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "RICC-2010-2.swf.gz" in done.stderr


def test_the_committed_results_are_small_stamped_json_of_known_cells() -> None:
    files = sorted(rr.DEFAULT_RESULTS.glob("*.json"))  # beside the generator and its notes
    assert files, "no committed results"
    sections = [*((s, rr.CONFIGS) for s in rr.TRACES), (rr.CURIE, rr.CURIE_CONFIGS)]
    names = {
        rr._path(rr.DEFAULT_RESULTS, s, k, c).name for s, cs in sections for k in rr.SCHEDULERS for c in cs
    }
    for path in files:
        assert path.name in names, path
        assert path.stat().st_size < 10_000, path
        cell = json.loads(path.read_text())
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", cell["measured"]["date"]), path
        assert not cell["measured"]["code"].endswith("-dirty"), f"{path}: measured with uncommitted code"
        binds = "partition_binds" if cell["config"] in rr.CURIE_CONFIGS else "memory_binds"
        assert set(cell["figures"]) == {m for m, _, _ in rr.MEASURES} | {binds}
        assert ("+memory" in cell["name"]) == (cell["config"] == "memory"), path
        assert ("on partitions" in cell["name"]) == (cell["config"] == "partitions"), path


def test_the_probe_tells_a_scheduler_that_plans_memory_from_one_that_does_not() -> None:
    assert rr.plans_memory(Conservative)
    assert not rr.plans_memory(lambda resources: EASY())  # drops the resources it is given


def _two(memory: int, processors: int = 1, machine: int = 2) -> Workload:
    jobs = [
        Job(
            id=i, submit=float(i), processors=processors, runtime=10.0, estimate=10.0, requested_memory=memory
        )
        for i in (1, 2)
    ]
    return Workload.from_jobs(jobs, machine_size=machine)


def test_memory_binds_when_the_oldest_waiting_job_lacks_memory_only() -> None:
    # Job 2 arrives at 2 and waits until 10 for memory: the whole time a job waits, memory holds it.
    s = simulate(_two(6), Conservative(resources=[Resource.memory(10)]))
    assert s.start.tolist() == [1.0, 11.0]
    assert rr.memory_binds(s, 10) == 1.0
    # With processors short instead (each job takes the whole machine), memory never binds.
    s = simulate(_two(1, processors=2), Conservative(resources=[Resource.memory(10)]))
    assert s.start.tolist() == [1.0, 11.0]
    assert rr.memory_binds(s, 10) == 0.0
    # No job waits: nothing to share out.
    s = simulate(_two(1), Conservative(resources=[Resource.memory(10)]))
    assert rr.memory_binds(s, 10) == 0.0


def test_a_partition_binds_when_the_oldest_waiting_job_finds_its_own_partition_full() -> None:
    # Job 2 waits from 2 to 11 while a processor of the machine is free: in partitions of one
    # processor each, both jobs in the first, its partition held it back all that time.
    s = simulate(_two(6), Conservative(resources=[Resource.memory(10)]))
    assert s.start.tolist() == [1.0, 11.0]
    assert rr.held_back(s, [1, 1], [0, 0], [1, 1]) == 1.0
    assert rr.held_back(s, [1, 1], [0, 1], [1, 1]) == 0.0  # job 2 alone in its partition


def test_a_curie_cell_runs_on_the_librarys_partitions(tmp_path: Path) -> None:
    pytest.importorskip("backfill.partitions", reason="partitions (issue 45, point 4) are not in this build")
    # As logged (field 3, the wait) no two jobs of a partition overlapped: each partition has 4
    # processors. Replayed from their submit times, seven jobs of partition 1 queue behind each other.
    rows = [f"{i} {i} {200 * i} 100 4 -1 -1 4 100 -1 1 1 1 1 1 {1 + i // 8} -1 -1" for i in range(1, 9)]
    swf = "; MaxProcs: 8\n" + "\n".join(rows) + "\n"
    (tmp_path / "C.swf.gz").write_bytes(gzip.compress(swf.encode()))
    setup = rr.TraceSetup("C", "C", 8, 0, "a test")
    workload, parts, left_out = rr.curie_window(tmp_path, setup)
    assert [(p.name, p.processors) for p in parts] == [("1", 4), ("2", 4)] and left_out == 0
    pool = rr.run_curie_cell(workload, parts, "conservative", "pool", setup, left_out)
    split = rr.run_curie_cell(workload, parts, "conservative", "partitions", setup, left_out)
    assert pool["figures"]["mean_wait"] < split["figures"]["mean_wait"]
    assert split["figures"]["partition_binds"] > 0 and "on partitions 1, 2" in split["name"]


def _cell(key: str, config: str, wait: float) -> dict[str, object]:
    figures = {m: wait for m, _, _ in rr.MEASURES} | {"memory_binds": 0.25}
    return {
        "scheduler": key,
        "config": config,
        "jobs": 10,
        "left_out": 1,
        "machine_size": 8,
        "memory_per_processor": rr.GB,
        "sim_seconds": 1.0,
        "fst_seconds": 2.0,
        "figures": figures,
        "measured": {"date": "2026-01-01", "code": "abc1234"},
    }


def test_the_tables_show_both_runs_and_the_change() -> None:
    setup = rr.TRACES[0]
    cells = {
        (setup.name, "conservative", "processors"): _cell("conservative", "processors", 7200.0),
        (setup.name, "conservative", "memory"): _cell("conservative", "memory", 9000.0),
        (setup.name, "easy", "processors"): _cell("easy", "processors", 0.0),
        (setup.name, "easy", "memory"): _cell("easy", "memory", 0.0),
    }
    table = rr.trace_table(cells, setup)
    assert table.startswith("Each cell: processors alone → + memory (change).")
    assert "| Conservative | 2.00 → 2.50 (+25.0 %) | 7,200.00 → 9,000.00 (+25.0 %) |" in table
    assert "| EASY | 0.00 → 0.00 (0 %) |" in table
    assert re.search(r"\| PC \|( +\|){4}$", table, flags=re.MULTILINE)
    runs = rr.runs_table(cells)
    assert (
        f"| {setup.name} | {setup.stem} | first {setup.jobs:,} | 10 | 1 | 8 processors, 1.00 GB each |"
        in runs
    )
    assert "EASY 25.0 %, Conservative 25.0 % | 12 |" in runs
    text = rr.page(cells)
    assert "4 cells, measured 2026-01-01 with `abc1234` (4)." in text
    assert f"{setup.name} PC (+ memory)" in text and f"{setup.name} EASY (+ memory)" not in text
    assert f"{rr.CURIE.name} EASY (partitions)" in text


def test_a_window_leaves_out_the_jobs_too_large_for_the_memory(tmp_path: Path) -> None:
    rows = [
        "1 0 0 10 2 -1 -1 2 10 100 1 1 1 1 1 1 -1 -1",  # 2 x 100 kB
        "2 1 0 10 1 -1 -1 1 10 900 1 1 1 1 1 1 -1 -1",  # 900 kB: more than 4 x 200
        "3 2 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1",  # no request: 0
        "4 3 0 10 1 -1 -1 1 10 50 1 1 1 1 1 1 -1 -1",  # past the window
    ]
    (tmp_path / "T.swf.gz").write_bytes(gzip.compress(("; MaxProcs: 4\n" + "\n".join(rows) + "\n").encode()))
    workload, left_out = rr.window(tmp_path, rr.TraceSetup("T", "T", 3, 200, "a test"))
    assert [job.id for job in workload] == [1, 3] and left_out == 1


@pytest.mark.parametrize("bad", [["--jobs", "0"], ["--repeats", "0"], ["--per-processor", "-5"]])
def test_the_speed_benchmark_refuses_bad_values_in_one_line(bad: list[str], tmp_path: Path) -> None:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "speed" / "bench_resources.py"),
        "--trace-dir",
        str(tmp_path),
        *bad,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "must be at least 1" in done.stderr.splitlines()[-1]
