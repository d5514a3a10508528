"""The Slurm what-if example, its how-to page and the production-settings page.

The example runs three Slurm settings (and optionally predictions) on a trace; its code is checked
here on a small synthetic log, and the page's tables against the script's output on the real trace
(marked ``trace``: it needs ../shared/traces and takes about 20 s). The pages' command lines run
with the trace replaced by the small log, and the production page's Python blocks run.
"""

from __future__ import annotations

import csv
import importlib.util
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from backfill import EASY, planning, planning_summary, simulate, summarize
from backfill.cli import main
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.swf import read_swf, write_swf

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "slurm_what_if.py"
HOW_TO = ROOT / "docs" / "how-to" / "slurm-what-if.md"
SETTINGS_PAGE = ROOT / "docs" / "production-settings.md"
TRACE = "SDSC-SP2-1998-4.2-cln.swf.gz"
OPTIONS = ["--predictions", "--markdown", "what-if.md"]
TABLE = re.compile(r"^<!-- slurm-what-if: begin[^\n]*-->\n(.*?)^<!-- slurm-what-if: end -->$", re.M | re.S)


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slurm_what_if", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # attrs classes look their module up
    spec.loader.exec_module(module)
    return module


what_if = _example()


def _blocks(page: Path, language: str) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [
        textwrap.dedent(m.group(1))
        for m in re.finditer(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    ]


def _command_lines(page: Path, program: str) -> list[list[str]]:
    return [
        shlex.split(line)
        for block in _blocks(page, "sh")
        for line in block.splitlines()
        if line.startswith(program + " ")
    ]


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A busy synthetic log of 400 jobs on 32 processors, as an SWF file."""
    path = tmp_path_factory.mktemp("log") / "small.swf"
    workload = lublin_feitelson(400, machine_size=32, seed=3, estimates="f-model").scaled(1.6)
    write_swf(path, workload)
    return path


def test_each_setting_is_the_easy_it_names(small_log: Path) -> None:
    workload, _ = read_swf(small_log)
    rows = what_if.what_if(workload, predictions=True)
    assert [row.setting for row in rows] == [*what_if.SETTINGS, what_if.PREDICTIONS[0]]
    by_hand = [
        planning(EASY(depth=None, planning_window=86400, max_tested=500), resolution=60),
        planning(EASY(depth=None, planning_window=3600, max_tested=500), resolution=60),
        planning(EASY(depth=None, planning_window=86400, max_tested=50), resolution=60),
    ]
    for row, scheduler in zip(rows, by_hand, strict=False):
        schedule = simulate(workload, scheduler)
        metrics, plan = summarize(schedule), planning_summary(schedule)
        assert (row.mean_wait, row.max_wait, row.mean_bsld, row.utilization) == (
            metrics["mean_wait"],
            metrics["max_wait"],
            metrics["mean_bsld"],
            metrics["utilization"],
        )
        assert (row.never_reserved, row.violated_jobs) == (plan["never_reserved"], plan["violated_jobs"])
    # The log is busy enough that the settings differ, and a short window leaves jobs unreserved.
    assert len({row.mean_wait for row in rows}) > 1
    assert rows[1].never_reserved > rows[0].never_reserved


def test_measures_by_width_and_queue() -> None:
    jobs = lublin_feitelson(200, machine_size=16, seed=5)
    schedule = simulate(jobs, EASY())
    narrow, _, wide = what_if.by_width(schedule)
    wait = schedule.start - jobs.column("submit")
    fraction = jobs.column("processors") / 16
    assert narrow == pytest.approx(wait[fraction <= 1 / 16].mean())
    assert wide == pytest.approx(wait[fraction > 1 / 2].mean())
    # The longest queue, counted naively at every submit and start time.
    submit, start = jobs.column("submit"), schedule.start
    naive = max(int(((submit <= t) & (start > t)).sum()) for t in (*submit, *start))
    assert what_if.longest_queue(schedule) == naive


def test_the_script_prints_and_writes_the_tables(small_log: Path, tmp_path: Path) -> None:
    out = tmp_path / "what-if.md"
    command = [sys.executable, str(SCRIPT), str(small_log), "--jobs", "300", "--markdown", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    workload, _ = read_swf(small_log)
    expected = what_if.markdown_table(what_if.what_if(what_if.first_jobs(workload, 300)))
    assert out.read_text(encoding="utf-8") == expected
    assert "300 jobs on 32 processors" in done.stdout
    for label, parameters in what_if.SETTINGS.items():
        assert re.search(rf"^{re.escape(label)}\s+\d+\.\d\d\s", done.stdout, re.M), done.stdout
        assert f"--scheduler 'easy:{parameters}'" in done.stdout


def test_a_missing_trace_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nope.swf")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "nope.swf: no such file" in done.stderr and done.stdout == ""


def test_the_page_shows_the_scripts_settings() -> None:
    text = HOW_TO.read_text(encoding="utf-8")
    lines = re.findall(r"^\| (.+?) \| `SchedulerParameters=(\S+)` \|$", text, flags=re.MULTILINE)
    assert dict(lines) == what_if.SETTINGS
    block = TABLE.search(text)
    assert block is not None
    headers = [line for line in block.group(1).splitlines() if line.startswith("| setting |")]
    assert headers == [
        "| " + " | ".join(what_if.COLUMNS) + " |",
        "| " + " | ".join(what_if.WIDTH_COLUMNS) + " |",
    ]


def test_the_pages_command_lines_give_the_scripts_schedules(
    small_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workload, _ = read_swf(small_log)
    rows = what_if.what_if(workload, predictions=True)
    simulate_line, compare_line = _command_lines(HOW_TO, "backfill")
    assert simulate_line[:3] == ["backfill", "simulate", TRACE]
    assert compare_line[:3] == ["backfill", "compare", TRACE]
    metrics = tmp_path / "m.csv"
    assert main([simulate_line[1], str(small_log), *simulate_line[3:], "--csv", str(metrics)]) == 0
    with metrics.open(newline="") as f:
        waits = [float(r["mean_wait"]) for r in csv.DictReader(f)]
    assert waits == pytest.approx([row.mean_wait for row in rows[:3]], rel=1e-6)
    workers = compare_line.index("--workers")
    compare_line[workers + 1] = "1"
    metrics = tmp_path / "c.csv"
    assert main([compare_line[1], str(small_log), *compare_line[3:], "--csv", str(metrics)]) == 0
    with metrics.open(newline="") as f:
        waits = [float(r["mean_wait"]) for r in csv.DictReader(f)]
    assert waits == pytest.approx([row.mean_wait for row in rows], rel=1e-6)
    capsys.readouterr()
    (script_line,) = _command_lines(HOW_TO, "python")
    assert script_line == [
        "python",
        "examples/slurm_what_if.py",
        TRACE,
        "--predictions",
        "--markdown",
        "what-if.md",
    ]


def test_the_production_page_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(SETTINGS_PAGE, "python")
    assert len(blocks) == 2
    for source in blocks:
        exec(compile(source, str(SETTINGS_PAGE), "exec"), {"__name__": "__main__"})
    lines = _command_lines(SETTINGS_PAGE, "backfill")
    assert len(lines) == 4
    for line in lines:
        assert main(line[1:]) == 0, line
    out = capsys.readouterr().out
    assert "EASY(fcfs, depth=inf, planning_window=86400, max_tested=500) [resolution=60]" in out
    assert "SweepResult(3 rows, 3 computed, 0 cached)" in out


@pytest.mark.long
@pytest.mark.trace
def test_the_pages_table_is_what_the_script_gives_on_the_trace(traces: Path, tmp_path: Path) -> None:
    (line,) = _command_lines(HOW_TO, "python")
    args = [
        str(traces / TRACE) if a == TRACE else str(tmp_path / a) if a.endswith(".md") else a for a in line[2:]
    ]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    block = TABLE.search(HOW_TO.read_text(encoding="utf-8"))
    assert block is not None
    written = (tmp_path / "what-if.md").read_text(encoding="utf-8")
    assert block.group(1) == written, f"rewrite the page's tables with the script's output:\n{written}"
