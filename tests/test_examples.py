"""Every script in examples/ runs and prints what it promises."""

from __future__ import annotations

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
    assert "EASY(Blend(wait_weight=2.0, estimate_weight=1.0))" in out


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
