"""Every script in examples/ runs and prints what it promises."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backfill.kernel import compiled

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


@pytest.mark.long
def test_custom_priority() -> None:
    out = run("custom_priority.py")
    assert "EASY(fcfs)" in out
    for name in ("EASY", "PC", "DC"):
        assert f"{name}(Blend(wait_weight=2.0, estimate_weight=1.0))" in out


@pytest.mark.long
def test_property_test_scheduler() -> None:
    out = run("property_test_scheduler.py")
    for name, promise in (("FirstFit", "every schedule feasible"), ("Conservative", "every guarantee kept")):
        tried = re.search(rf"^{name}: {promise} on (\d+) random workloads$", out, flags=re.MULTILINE)
        assert tried and int(tried[1]) >= 100, out
    assert "FirstFit: jobs waited without any reservation in the log (job ids 2)" in out


@pytest.mark.long
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
            str(ROOT / "benchmarks" / "speed" / "bench_schedulers.py"),
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


#: The reproduction scripts refuse to stamp results from a checkout with uncommitted changes; these
#: runs write to a temporary cache, so they may.
_THROWAWAY = {**os.environ, "BACKFILL_ALLOW_DIRTY": "1"}


@pytest.mark.slow
def test_lindsay_reproduction_runs_on_one_trace(traces: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "reproduction" / "lindsay" / "reproduce_lindsay.py"),
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
        env=_THROWAWAY,
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
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "reproduction" / "rajbhandary" / "reproduce_rajbhandary.py"),
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, env=_THROWAWAY)
    assert done.returncode == 0, done.stderr
    # Five metric tables, the times and the strict-above-relaxed shares each have Atlas's row.
    rows = [line for line in done.stdout.splitlines() if line.startswith("| LLNL-Atlas |")]
    assert len(rows) == 7, done.stdout
    assert all(re.search(r"\| [+-]\d+\.\d \|", row) for row in rows[:5])
    assert len(list(tmp_path.glob("*.npz"))) == 4  # start times and FSTs: a second run reports from them
    again = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, env=_THROWAWAY)
    assert again.stdout == done.stdout and again.stderr == ""


@pytest.mark.long
@pytest.mark.skipif(not compiled(), reason="the benchmark compares the compiled kernel with pure Python")
def test_queue_growth_benchmark_compares_a_prefix_with_the_whole(traces: Path) -> None:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "speed" / "bench_queue_growth.py"),
        "--trace",
        "KTH-SP2-1996-2",
    ]
    done = subprocess.run(
        [
            *command,
            "--prefix",
            "500",
            "--jobs",
            "2000",
            "--repeat",
            "1",
            "--schedulers",
            "Conservative",
            "DC-sjf",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"^\| (Conservative|DC-sjf) \| (kernel|pure) \| ([\d,]+) \|", done.stdout, re.MULTILINE)
    jobs = {"500", "2,000"}
    assert {(s, m, n) for s, m, n in rows} == {
        (s, m, n) for s in ("Conservative", "DC-sjf") for m in ("kernel", "pure") for n in jobs
    }
    assert re.search(r"whole / prefix \| +\| +\| \d+\.\d\dx", done.stdout), done.stdout


@pytest.mark.slow
def test_fst_benchmark_runs_serial_and_parallel(traces: Path) -> None:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "speed" / "bench_fst.py"),
        "--trace",
        "LLNL-Atlas-2006-2.1-cln",
    ]
    done = subprocess.run([*command, "--workers", "1", "2"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "identical results" in done.stdout


@pytest.mark.integration  # simpy: the integration extra
def test_embed_in_simpy_matches_the_simulator() -> None:
    out = run("embed_in_simpy.py")
    jobs = re.search(
        r"^(\d+) jobs, (\d+) arriving with an earlier one, (\d+) of zero runtime$", out, re.MULTILINE
    )
    assert jobs, out
    n = int(jobs[1])
    # The workload must exercise the order at equal times, or matching would prove little.
    assert n == 300 and int(jobs[2]) > 0 and int(jobs[3]) > 0
    matches = re.findall(
        r"^SimPy run matches backfill.simulate: (\d+) of (\d+) jobs start at the same time$", out, re.M
    )
    assert matches == [(str(n), str(n))] * 3, out
    for name in ("EASY(sjf)", "Conservative", "DC(sjf)"):
        assert re.search(
            rf"^{re.escape(name)}: mean wait \d+\.\d s, \d+ reservation changes, "
            r"same log as simulate: True$",
            out,
            re.M,
        ), out


@pytest.mark.integration  # simpy: the integration extra
def test_embed_in_simpy_deciding_per_event_diverges() -> None:
    # Deciding at every SimPy event instead of once per instant breaks the order at equal times: the
    # schedule stays feasible (the script validates it) but no longer matches.
    out = run("embed_in_simpy.py", "--decide-per-event")
    matches = re.findall(r"^SimPy run matches backfill.simulate: (\d+) of (\d+) jobs", out, re.M)
    assert len(matches) == 3 and all(total == "300" for _, total in matches), out
    assert int(matches[0][0]) < 300  # EASY(sjf): a same-instant arrival no longer goes first by its key
    assert "same log as simulate: False" in out


def test_fairness_of_a_run() -> None:
    out = run("fairness_of_a_run.py")
    assert out.startswith("500 Lublin-Feitelson jobs on 128 processors")
    number = r"\s+(\d+(?:\.\d+)?)"
    rows = {
        m[0]: [float(v) for v in m[1:]]
        for m in re.findall(rf"^(EASY\(fcfs\)|Conservative){number * 5}$", out, re.M)
    }
    assert set(rows) == {"EASY(fcfs)", "Conservative"}, out
    for values in rows.values():
        assert all(math.isfinite(v) and v >= 0 for v in values), out
        mean_wait, strict, relaxed, share, weighted = values
        assert 0 < strict < mean_wait and 0 < relaxed < mean_wait and share > 0 and weighted > 0
    # On this workload EASY is the less fair of the two by every measure of the first table.
    assert all(e > c for e, c in zip(rows["EASY(fcfs)"][1:], rows["Conservative"][1:], strict=True)), out
    buckets = re.findall(rf"^(EASY\(fcfs\)|Conservative)\s+(\d+){number * 5}$", out, re.M)
    assert [b[0] for b in buckets] == ["EASY(fcfs)", "Conservative"], out
    for _, jobs, *shares in buckets:
        assert int(jobs) == 500 and abs(sum(map(float, shares)) - 100.0) < 0.5


@pytest.mark.long
def test_host_simulator_matches_simulate_under_the_guard() -> None:
    out = run("host_simulator.py")
    for name in ("EASY(sjf)", "Conservative", "PC(sjf)", "DC(sjf)"):
        assert re.search(
            rf"^{re.escape(name)}: mean wait \d+ s, \d+ reservation changes, the same schedule and "
            "reservation log as backfill.simulate$",
            out,
            flags=re.MULTILINE,
        ), out


@pytest.mark.long
def test_host_simulator_that_forgets_overruns_is_told_which_job() -> None:
    out = run("host_simulator.py", "--forget-overruns")
    lines = out.splitlines()
    guarded = [line for line in lines if line.startswith("guarded: ")]
    unguarded = [line for line in lines if line.startswith("unguarded: ")]
    assert len(guarded) == len(unguarded) == 4, out
    assert all(
        "job 40 is still running at" in line and "past its start + estimate" in line for line in guarded
    )
    assert all("job 40 completed at" in line and "after its start + estimate" in line for line in unguarded)


@pytest.mark.long
def test_subclass_schedulers() -> None:
    out = run("subclass_schedulers.py")
    assert "FirstFit(sjf)" in out and "LazyPC(3600s)" in out and "PC(sjf)" in out
    assert "LazyPC: every guarantee kept; copies keep their type" in out


@pytest.mark.integration  # accasim: the integration extra
def test_accasim_host_gives_simulates_schedules() -> None:
    pytest.importorskip("accasim", reason="needs AccaSim 1.1.3: pip install '.[accasim]'")
    out = run("accasim_host.py")
    assert out.startswith("300 Lublin-Feitelson jobs, 32 nodes of 1 core(s), AccaSim's FirstFit placing"), out
    same = re.findall(
        r"^(\S+): 300 jobs started, 0 rejected, (\d+) reservation changes; the same schedule as simulate",
        out,
        re.M,
    )
    assert [name for name, _ in same] == ["FCFS(fcfs)", "EASY(fcfs)", "Conservative", "PC(sjf)", "DC(sjf)"], (
        out
    )
    assert all(int(changes) > 0 for name, changes in same if name != "FCFS(fcfs)"), out
