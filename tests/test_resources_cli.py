"""``--resources`` on ``backfill simulate`` and ``backfill compare`` (issue 45, point 5)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from test_cli import run

from backfill.cli import main
from backfill.workloads.resources import memory_request
from backfill.workloads.swf import read_swf, write_swf
from backfill.workloads.workload import Job, Workload


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """A small log whose jobs ask memory (field 10), record only used memory (field 7), or neither."""
    jobs = []
    for i in range(1, 41):
        requested, used = [(1024.0, -1.0), (-1.0, 300.5), (-1.0, -1.0), (4096.0, -1.0)][i % 4]
        jobs.append(
            Job(
                id=i,
                submit=5.0 * i,
                processors=1 + i % 4,
                runtime=20.0 + 3 * i,
                estimate=40.0 + 3 * i,
                requested_memory=requested,
                memory=used,
                user=1 + i % 3,
            )
        )
    path = tmp_path / "mem.swf"
    write_swf(path, Workload.from_jobs(jobs, machine_size=8))
    return path


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _table_header(out: str) -> list[str]:
    return next(line.split() for line in out.splitlines() if line.startswith("scheduler "))


def test_simulate_with_memory(capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "simulate", str(log), "--scheduler", "conservative", "--resources", "processors,memory=4M",
        "--csv", str(tmp_path / "m.csv"), "--jobs-csv", str(tmp_path / "j.csv"),
        "--output-batsim", str(tmp_path / "b.json"),
    )  # fmt: skip
    assert code == 0, err
    assert "note: memory: 10 jobs have no requested memory (field 10)" in out
    assert "; 10 record neither: they hold none" in out and out.count("note: memory") == 1
    assert _table_header(out)[-2:] == ["utilization_memory", "held_back_memory"]
    assert "Conservative+memory=4M(fcfs)" in out
    [row] = _csv_rows(tmp_path / "m.csv")
    assert row["scheduler"] == "Conservative+memory=4M" and 0 < float(row["utilization_memory"]) <= 1
    workload, _ = read_swf(log)
    jobs = _csv_rows(tmp_path / "j.csv")
    assert [int(j["memory"]) for j in jobs] == [memory_request(j) for j in workload]
    batsim = json.loads((tmp_path / "b.json").read_text())
    assert [j["memory"] for j in batsim["jobs"]] == [memory_request(j) for j in workload]


def test_the_memory_note_only_where_memory_is_planned(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    # HPC2N printed two memory notes for a run of processors alone: none applies to it.
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", "easy")
    assert code == 0, err
    assert "memory" not in out
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", "easy+memory=1G")
    assert code == 0 and out.count("note: memory") == 1, err


def test_memory_with_a_size_rejects_the_jobs_that_cannot_fit(
    capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path
) -> None:
    code, _out, err = run(
        capsys, "simulate", str(log), "--scheduler", "conservative", "--resources", "memory=1M",
        "--csv", str(tmp_path / "m.csv"),
    )  # fmt: skip
    assert code == 0, err
    [row] = _csv_rows(tmp_path / "m.csv")
    # 1 MB per processor, 8 MB in all: the jobs asking 4 MB per processor on 3 or 4 processors do not fit.
    assert row["scheduler"] == "Conservative+memory=1M"
    assert "needs more memory than the machine has (8192)" in row["rejected_reasons"]
    workload, _ = read_swf(log)
    assert int(row["rejected"]) == sum(memory_request(j) > 8192 for j in workload)


def _without_command(path: Path) -> str:
    """An output's text without the command line, its time and the wall time, which differ between runs."""
    text = path.read_text()
    if path.suffix == ".json":
        doc = json.loads(text)
        for row in doc.get("data", ()):
            for key in ("argv", "utc", "seconds"):
                row.pop(key, None)
        return json.dumps(doc)
    if path.suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        return json.dumps([{k: v for k, v in r.items() if k not in ("argv", "utc", "seconds")} for r in rows])
    return text


def test_processors_alone_is_byte_identical(
    capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path
) -> None:
    outputs = {}
    for name, extra in (("plain", []), ("processors", ["--resources", "processors"])):
        d = tmp_path / name
        d.mkdir()
        code, out, err = run(
            capsys, "simulate", str(log), "--scheduler", "conservative", "easy", *extra,
            "--csv", str(d / "m.csv"), "--json", str(d / "m.json"), "--jobs-csv", str(d / "j.csv"),
            "--output-batsim", str(d / "b.json"), "--output-swf", str(d / "s.swf"),
        )  # fmt: skip
        assert code == 0, err
        files = sorted(p.name for p in d.iterdir())
        out = re.sub(r"[0-9.]+ s", "T s", out.replace(str(d), "DIR"))  # the times
        outputs[name] = (out, {f: _without_command(d / f) for f in files})
    assert outputs["plain"] == outputs["processors"]
    header = (tmp_path / "plain" / "j-conservative.csv").read_text().splitlines()[0]
    assert "memory" not in header.split(",")


def test_compare_with_memory(capsys: pytest.CaptureFixture[str], log: Path, tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "compare", str(log), "--scheduler", "conservative", "conservative:bf_window=1",
        "--resources", "memory=2M",
        "--metric", "mean_wait", "utilization_memory", "--workers", "1", "--baseline", "conservative",
        "--csv", str(tmp_path / "c.csv"), "--cache", str(tmp_path / "cache"),
    )  # fmt: skip
    assert code == 0, err
    assert "percent improvement over Conservative+memory=2M" in out
    assert "| Conservative(planning_window=60.0)+memory=2M " in out
    rows = _csv_rows(tmp_path / "c.csv")
    assert [r["scheduler"] for r in rows] == [
        "Conservative+memory=2M",
        "Conservative(planning_window=60.0)+memory=2M",
    ]
    assert all(0 < float(r["utilization_memory"]) <= 1 for r in rows)
    # The same sweep without memory shares no cell with it.
    code, out, err = run(
        capsys, "compare", str(log), "--scheduler", "conservative", "conservative:bf_window=1",
        "--workers", "1", "--cache", str(tmp_path / "cache"),
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("2 cells: 2 simulated, 0 from the cache")
    assert "utilization_memory" not in out


def test_compare_shows_the_utilization_of_memory_by_default(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    code, out, err = run(
        capsys,
        "compare",
        str(log),
        "--scheduler",
        "conservative",
        "--resources",
        "memory=4M",
        "--workers",
        "1",
    )
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("| workload"))
    assert [c.strip() for c in header.split("|")[-3:-1]] == ["utilization_memory", "held_back_memory"]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("gpus", "unknown resource 'gpus'; known: processors, memory"),
        ("memory=0", "at least 1 kB"),
        ("memory=-2G", "not a positive number"),
        ("memory=3Q", "unknown unit 'Q'"),
        ("memory=", "needs a size"),
        ("memory,memory", "given twice"),
        ("processors=4", "always planned"),
        ("memory,", "empty resource name"),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_bad_resources_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], log: Path, command: str, value: str, words: str
) -> None:
    code, _out, err = run(capsys, command, str(log), "--scheduler", "conservative", "--resources", value)
    assert code == 2
    assert err.count("\n") == 1 and f"--resources {value}: " in err and words in err


def test_memory_without_a_default_capacity_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("simulate", "compare"):
        workload = [] if command == "simulate" else ["model:n_jobs=20"]
        code, _, err = run(
            capsys, command, *workload, "--jobs", "20", "--scheduler", "conservative", "--resources", "memory"
        )
        assert code == 2 and err.count("\n") == 1
        assert "no documented memory for the workload" in err and "memory=1.5G" in err


def test_a_resource_metric_needs_the_resource(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, _, err = run(capsys, "simulate", str(log), "--metric", "utilization_memory")
    assert code == 2 and "--metric utilization_memory: the runs do not plan memory" in err


def test_help_documents_resources(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("simulate", "compare"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "--resources LIST" in out and "memory=SIZE" in out and "1.5G" in out


def test_simulate_mixes_a_pool_with_memory_and_one_without(capsys: pytest.CaptureFixture[str]) -> None:
    # The memory columns are the planning run's alone: "-" in the other's row, not a KeyError.
    code, out, err = run(capsys, "simulate", "--jobs", "60", "--scheduler", "easy", "easy+memory=1G")
    assert code == 0, err
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("EASY")}
    assert rows["EASY(fcfs)"][-2:] == ["-", "-"]
    assert rows["EASY+memory=1G(fcfs)"][-2] == "0.000"
