"""``--partitions`` on ``backfill simulate`` and ``backfill compare``."""

from __future__ import annotations

import csv as csv_module
from pathlib import Path

import pytest

from backfill import Conservative, Job, Workload, unfairness
from backfill.cli import main
from backfill.cli._partitions import partition_measures, partitions_from_text
from backfill.errors import ParameterError
from backfill.experiments.partitioned import partition_fair_start_times
from backfill.partitions import log_partitions, simulate_partitions
from backfill.workloads.swf import write_swf


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Jobs in SWF partitions 1, 2 and 3; partition 1 had two 4-processor jobs at once in the log."""
    jobs = []
    for i in range(1, 31):
        part = 1 + i % 3
        width = 4 if part == 1 else 2
        jobs.append(
            Job(
                id=i,
                submit=float(10 * i),
                wait=0.0,
                processors=width,
                runtime=35.0 if part == 1 else 25.0,
                estimate=40.0,
                partition=part,
                user=i % 4,
            )
        )
    path = tmp_path / "parts.swf"
    write_swf(path, Workload.from_jobs(jobs, machine_size=16))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_every_partition_with_default_sizes(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", "easy", "--partitions")
    assert code == 0, err
    assert "EASY(fcfs) on partitions 1, 2, 3" in out
    assert "partition 1: 8 processors, 10 jobs ran" in out
    assert "partition 2: 2 processors, 10 jobs ran" in out
    assert "jobs in no partition: 0" in out
    assert "jobs: 30 in = 30 scheduled + 0 rejected" in out


def test_simulate_chosen_partitions_and_sizes(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", "conservative", "--partitions", "1=3,2")
    assert code == 0, err
    assert "partition 1: 3 processors, 0 jobs ran" in out
    assert "partition 2: 2 processors, 10 jobs ran" in out
    assert "jobs in no partition: 10" in out
    assert "wider than partition 1 (3 processors): 10" in out
    assert "in no partition (SWF partition 3): 10" in out


def test_simulate_fair_start_unfairness_by_partition(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, _, err = run(
        capsys,
        "simulate",
        str(log),
        "--scheduler",
        "conservative",
        "--partitions",
        "--metric",
        "strict_unfairness",
        "relaxed_unfairness",
        "--csv",
        str(log.with_suffix(".csv")),
    )
    assert code == 0, err
    csv = log.with_suffix(".csv").read_text()
    assert "strict_unfairness" in csv


def test_partition_measures_are_each_partitions_fair_starts(log: Path) -> None:
    from backfill.workloads.swf import read_swf

    w, _ = read_swf(log)
    parts = log_partitions(w, sizes={1: 4, 2: 2, 3: 2})
    s = simulate_partitions(w, parts, Conservative())
    fst = partition_fair_start_times(w, parts, Conservative(), workers=1)
    got = partition_measures(
        s, parts, Conservative(), ["strict_unfairness", "relaxed_unfairness", "users"], 10.0
    )
    assert got["strict_unfairness"] == unfairness(s, fst.strict)
    assert got["relaxed_unfairness"] == unfairness(s, fst.relaxed)
    assert got["users"] == 4


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1,x", "'x' in '1,x' is not an SWF partition number"),
        ("1=0", "the size of partition 1 must be an int >= 1"),
        ("1=2.5", "the size of partition 1 must be an int >= 1"),
        ("1,1", "SWF partition 1 is given twice"),
        ("1,,2", "has an empty item"),
        ("=4", "has an empty item"),
        ("7", "SWF partition 7 has no job in the log, so no default size: give its size (7=N)"),
    ],
)
def test_bad_partitions_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], log: Path, value: str, message: str
) -> None:
    for command in ("simulate", "compare"):
        code, _, err = run(capsys, command, str(log), "--scheduler", "easy", "--partitions", value)
        assert code == 2
        assert message in err and "--partitions" in err
        assert len(err.strip().splitlines()) == 1


def test_partitions_refuse_the_synthetic_workload(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "--jobs", "20", "--partitions")
    assert (code, err.strip()) == (
        2,
        "backfill: error: --partitions applies only to a log, not to the synthetic workload",
    )
    code, _, err = run(capsys, "compare", "model", "--scheduler", "easy", "--partitions")
    assert code == 2 and "not to the synthetic workload 'model'" in err


def test_compare_with_partitions(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, out, err = run(
        capsys,
        "compare",
        str(log),
        "--scheduler",
        "easy",
        "conservative",
        "--partitions",
        "1,2",
        "--workers",
        "1",
        "--metric",
        "mean_wait",
        "strict_unfairness",
    )
    assert code == 0, err
    assert "partitions of parts: partition 1: 8 processors, 10 jobs; partition 2: 2 processors" in out
    assert "jobs in no partition: 10" in out
    assert "in no partition (SWF partition 3): 10" in out
    assert "2 cells: 2 simulated" in out


def test_compare_with_partitions_caches_runs_workers_and_writes_jobs(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    # Refused before: --cache, --workers and --jobs-csv with --partitions.
    cache, jobs = log.parent / "cache", log.parent / "jobs.csv"
    argv = ["compare", str(log), "--scheduler", "easy", "fcfs", "--partitions", "1,2"]
    argv += [
        "--cache",
        str(cache),
        "--workers",
        "2",
        "--jobs-csv",
        str(jobs),
        "--csv",
        str(log.parent / "a.csv"),
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "2 cells: 2 simulated, 0 from the cache" in out
    assert "jobs in no partition: 10" in out

    def rows(text: str) -> list[dict[str, str]]:
        data = [x for x in text.splitlines() if x and not x.startswith("#")]
        unstamped = ("seconds", "argv", "utc")  # the run's wall time and command line
        return [{k: v for k, v in r.items() if k not in unstamped} for r in csv_module.DictReader(data)]

    written = {p.name: rows(p.read_text()) for p in log.parent.glob("jobs-*.csv")}
    assert sorted(written) == ["jobs-easy.csv", "jobs-fcfs.csv"]
    assert len(written["jobs-easy.csv"]) == 30  # every job, the 10 of partition 3 rejected
    rejected = [r["rejected_reason"] for r in written["jobs-easy.csv"] if r["rejected_reason"]]
    assert rejected == ["in no partition (SWF partition 3)"] * 10
    first = rows((log.parent / "a.csv").read_text())
    code, out, err = run(capsys, *argv[:-1], str(log.parent / "b.csv"))
    assert code == 0, err
    assert "2 cells: 0 simulated, 2 from the cache" in out
    assert {p.name: rows(p.read_text()) for p in log.parent.glob("jobs-*.csv")} == written
    assert rows((log.parent / "b.csv").read_text()) == first
    # A cell of the whole machine is never the partitioned cell's cache entry.
    code, out, err = run(
        capsys, "compare", str(log), "--scheduler", "easy", "fcfs", "--cache", str(cache), "--workers", "1"
    )
    assert code == 0 and "2 cells: 2 simulated, 0 from the cache" in out


def test_partitions_from_text() -> None:
    assert partitions_from_text("").numbers is None
    assert partitions_from_text(" 10 = 80640 , 4").sizes == ((10, 80640),)
    with pytest.raises(ParameterError):
        partitions_from_text("10=")


def test_partitions_plan_the_resources_at_their_share(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Two partitions of 4 processors on an 8-processor machine, memory 10 kB per processor: each
    # partition plans 40 kB. Jobs 1 and 2 (partition 1) ask 24 kB each: they fit side by side on
    # processors but not in the partition's memory, so job 2 waits for job 1.
    jobs = [
        Job(
            id=1,
            submit=0.0,
            wait=0.0,
            processors=1,
            runtime=10.0,
            estimate=10.0,
            partition=1,
            requested_memory=24.0,
        ),
        Job(
            id=2,
            submit=0.0,
            wait=0.0,
            processors=1,
            runtime=10.0,
            estimate=10.0,
            partition=1,
            requested_memory=24.0,
        ),
        Job(
            id=3,
            submit=0.0,
            wait=0.0,
            processors=4,
            runtime=10.0,
            estimate=10.0,
            partition=2,
            requested_memory=1.0,
        ),
    ]
    path = tmp_path / "mem.swf"
    write_swf(path, Workload.from_jobs(jobs, machine_size=8))
    csv = tmp_path / "jobs.csv"
    code, out, err = run(
        capsys,
        "simulate",
        str(path),
        "--scheduler",
        "conservative",
        "--partitions",
        "1=4,2=4",
        "--resources",
        "memory=10",
        "--jobs-csv",
        str(csv),
    )
    assert code == 0, err
    assert "utilization_memory" in out and "partition 1: 4 processors, 2 jobs ran" in out
    lines = [line for line in csv.read_text().splitlines() if line and not line.startswith("#")]
    rows = {int(r["jobID"]): r for r in csv_module.DictReader(lines)}
    starts = [float(rows[i]["starting_time"]) for i in (1, 2, 3)]
    assert sorted(starts[:2]) == [0.0, 10.0] and starts[2] == 0.0
    assert [rows[i]["memory"] for i in (1, 2, 3)] == ["24", "24", "4"]
    free = simulate_partitions(
        Workload.from_jobs(jobs, machine_size=8),
        log_partitions(Workload.from_jobs(jobs, 8), (1, 2), {1: 4, 2: 4}),
        Conservative(),
    )
    assert free.start.tolist() == [0.0, 0.0, 0.0]  # without memory both start at once
