"""Every script in examples/ runs and prints what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_custom_priority() -> None:
    out = run("custom_priority.py")
    assert "EASY(fcfs)" in out
    for name in ("EASY", "PC", "DC"):
        assert f"{name}(Blend(wait_weight=2.0, estimate_weight=1.0))" in out


def test_property_test_scheduler() -> None:
    out = run("property_test_scheduler.py")
    for name, promise in (("FirstFit", "every schedule feasible"), ("Conservative", "every guarantee kept")):
        tried = re.search(rf"^{name}: {promise} on (\d+) random workloads$", out, flags=re.MULTILINE)
        assert tried and int(tried[1]) >= 100, out
    assert "FirstFit: jobs waited without any reservation in the log (job ids 2)" in out


def test_compare_schedulers(traces: Path) -> None:
    out = run("compare_schedulers.py", str(traces / "KTH-SP2-1996-2.swf.gz"))
    for name in ("FCFS(fcfs)", "EASY(fcfs)", "Conservative"):
        assert name in out
    assert "28489" in out.replace(",", "")


def test_compare_schedulers_missing_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "compare_schedulers.py"), str(tmp_path / "nope.swf")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2


@pytest.mark.slow
def test_benchmark_script_runs_on_one_trace(traces: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_schedulers.py"),
            "--traces",
            "KTH-SP2-1996-2",
            "--memory-jobs",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert "KTH-SP2-1996-2" in done.stdout, done.stderr


@pytest.mark.slow
def test_lindsay_reproduction_runs_on_one_trace(traces: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "reproduce_lindsay.py"),
            "--traces",
            "KTH-SP2-1996-2",
            "--workers",
            "1",
            "--cache",
            str(tmp_path),
            "--trace-dir",
            str(traces),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # Every table has KTH's row, with a signed percentage per scheduler.
    rows = [line for line in done.stdout.splitlines() if line.startswith("| KTH-SP2 |")]
    assert len(rows) == 7, done.stdout
    assert all(re.search(r"\| [+-]\d+\.\d \|", row) or "x |" in row for row in rows)
    assert len(list(tmp_path.glob("*.json"))) == 6  # cached cells: a second run resumes from them


@pytest.mark.slow
def test_rajbhandary_reproduction_runs_on_one_trace(traces: Path, tmp_path: Path) -> None:
    args = ["--traces", "LLNL-Atlas-2006-2.1-cln", "--workers", "2", "--cache", str(tmp_path)]
    command = [sys.executable, str(ROOT / "benchmarks" / "reproduce_rajbhandary.py"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    # Five metric tables, the times and the strict-above-relaxed shares each have Atlas's row.
    rows = [line for line in done.stdout.splitlines() if line.startswith("| LLNL-Atlas |")]
    assert len(rows) == 7, done.stdout
    assert all(re.search(r"\| [+-]\d+\.\d \|", row) for row in rows[:5])
    assert len(list(tmp_path.glob("*.npz"))) == 4  # start times and FSTs: a second run reports from them
    again = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert again.stdout == done.stdout and again.stderr == ""


@pytest.mark.slow
def test_fst_benchmark_runs_serial_and_parallel(traces: Path) -> None:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "bench_fst.py"),
        "--trace",
        "LLNL-Atlas-2006-2.1-cln",
    ]
    done = subprocess.run([*command, "--workers", "1", "2"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "identical results" in done.stdout
