"""Determinism: the same input and parameters give byte-identical output, run after run.

Across processes (with different hash seeds, so that no set or dict order can leak into a result)
and across the serial and parallel paths: the SWF files and metric tables of ``backfill simulate``,
the tables and CSV of ``backfill compare`` on one worker and on two, and Fair Start Times and the
fairness table computed serially and on a process pool. The only run-dependent output is wall time
(the ``seconds`` column and the line that reports it), which the comparisons leave out.
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backfill import EASY, PC, Conservative, fair_start_times, lublin_feitelson, simulate
from backfill.cli import main
from backfill.measures.fairness import unfairness
from backfill.schedulers.registry import SCHEDULERS as REGISTRY

ROOT = Path(__file__).resolve().parents[1]
SCHEDULERS = [entry.cli_name for entry in REGISTRY]
# The one line of each command's output that reports wall time.
TIMING = re.compile(r"(validated and measured in|cells: .* in) [0-9.]+ s")
SINCE = re.compile(r"[0-9.]+ s since the command started")


def without_timing(text: str) -> str:
    lines = text.splitlines()
    timed = [line for line in lines if TIMING.search(line)]
    assert len(timed) == 1, timed  # the masking must hit exactly the timing line, nothing more
    return "\n".join(SINCE.sub("<t> s since", TIMING.sub(r"\1 <t> s", line)) for line in lines)


def simulate_in_a_process(out: Path, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-m", "backfill", "simulate", "--jobs", "600", "--seed", "3"]
    command += ["--priority", "sjf", "--scheduler", *SCHEDULERS, "--output-swf", str(out / "run.swf.gz")]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=300)
    return without_timing(done.stdout.replace(str(out), "<out>"))


@pytest.mark.long
def test_simulate_is_byte_identical_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    out1 = simulate_in_a_process(first, "1")
    out2 = simulate_in_a_process(second, "4242")
    assert out1 == out2
    assert "mean_wait" in out1 and "600 in = 600 scheduled + 0 rejected" in out1
    files = sorted(p.name for p in first.iterdir())
    assert len(files) == len(SCHEDULERS)  # one SWF file per scheduler
    assert files == sorted(p.name for p in second.iterdir())
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def csv_without_seconds(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        del row["seconds"], row["argv"], row["utc"]  # the wall time, the command line, its start
    return rows


def test_compare_on_one_worker_and_on_two_gives_identical_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for workers in ("1", "2"):
        argv = ["compare", "model:n=400,seed=5", "model:n=300,seed=6,machine_size=32", "--scheduler"]
        argv += ["conservative", "easy", "pc", "dc", "selective", "--priority", "fcfs", "sjf"]
        path = tmp_path / f"w{workers}.csv"
        argv += ["--workers", workers, "--csv", str(path)]
        assert main(argv) == 0
        outputs.append(without_timing(capsys.readouterr().out.replace(str(path), "<csv>")))
    assert outputs[0] == outputs[1]
    assert "percent improvement over Conservative" in outputs[0]
    one, two = csv_without_seconds(tmp_path / "w1.csv"), csv_without_seconds(tmp_path / "w2.csv")
    assert len(one) == 2 * (1 + 4 * 2)  # Conservative takes no priority: one row per workload
    assert one == two


def test_fairness_tables_are_identical_serially_and_on_a_process_pool() -> None:
    workload = lublin_feitelson(150, machine_size=32, seed=8, estimates="f-model")
    tables = []
    for workers in (1, 2):
        out = io.StringIO()
        for scheduler in (Conservative(), EASY(), PC()):
            schedule = simulate(workload, scheduler, record_reservations=False)
            fst = fair_start_times(workload, scheduler, workers=workers)
            out.write(f"{schedule.scheduler} {fst.strict.tobytes().hex()} {fst.relaxed.tobytes().hex()}\n")
            strict, relaxed = unfairness(schedule, fst.strict), unfairness(schedule, fst.relaxed)
            out.write(f"{schedule.scheduler} unfairness: strict {strict!r}, relaxed {relaxed!r}\n")
        tables.append(out.getvalue())
    assert tables[0] == tables[1]
