"""One behaviour for both commands: default schedulers, the measures' trim, honest times, progress."""

from __future__ import annotations

import io
import itertools
import math
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from backfill.cli import DEFAULT_SCHEDULERS, main
from backfill.cli.options import DEFAULT_SCHEDULERS as SHARED_DEFAULT
from backfill.errors import BackfillError
from backfill.experiments import progress
from backfill.experiments.progress import LINES, ProgressLines
from backfill.experiments.results import SweepResult

MODEL = "model:n=90,machine_size=16,seed=1"
ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def markdown_rows(out: str) -> list[dict[str, str]]:
    """The rows of the first markdown table of ``out``."""
    lines = [line for line in out.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        if set(line) <= {"|", "-", " ", ":"}:
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            break
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def test_both_commands_default_to_one_list_of_schedulers(capsys: pytest.CaptureFixture[str]) -> None:
    assert DEFAULT_SCHEDULERS is SHARED_DEFAULT
    code, out, err = run(capsys, "compare", MODEL, "--workers", "1")
    assert code == 0, err
    assert [r["scheduler"] for r in markdown_rows(out)] == ["FCFS", "EASY", "Conservative"]
    assert "percent improvement over Conservative" in out
    code, out, err = run(capsys, "simulate", "--jobs", "90", "--machine-size", "16", "--seed", "1")
    assert code == 0, err
    lines = out.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("scheduler "))
    shown = [line.split()[0] for line in lines[top + 1 : top + 4]]
    assert [label.removesuffix("(fcfs)") for label in shown] == ["FCFS", "EASY", "Conservative"]


def test_simulate_trims_the_measures_as_compare_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trim = ["--warmup", "10", "--cooldown", "2h"]
    sim_csv, cmp_csv = tmp_path / "s.csv", tmp_path / "c.csv"
    code, out, err = run(
        capsys, "simulate", "--jobs", "90", "--machine-size", "16", "--seed", "1", "--scheduler", "easy",
        "conservative", *trim, "--csv", str(sim_csv),
    )  # fmt: skip
    assert code == 0, err
    assert "the first 10 jobs and the last 7200 s of each run left out of the measures" in out
    code, _, err = run(
        capsys, "compare", MODEL, "--scheduler", "easy", "conservative", *trim, "--csv", str(cmp_csv),
        "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    simulated = {r["scheduler"]: r for r in SweepResult.from_csv(sim_csv).rows}
    compared = {r["scheduler"]: r for r in SweepResult.from_csv(cmp_csv).rows}
    for label in ("EASY", "Conservative"):
        s, c = simulated[label], compared[label]
        assert (s["warmup"], s["cooldown"]) == (c["warmup"], c["cooldown"]) == ("10 jobs", "7200 s")
        for column in ("mean_wait", "mean_bsld", "utilization", "jobs", "rejected"):
            assert s[column] == pytest.approx(c[column]), column
    assert simulated["EASY"]["jobs"] == 90  # the counts still account for every job
    # Without a trim the rows say so, in both.
    code, _, _ = run(capsys, "simulate", "--jobs", "30", "--scheduler", "easy", "--csv", str(sim_csv))
    assert code == 0 and SweepResult.from_csv(sim_csv).rows[0]["warmup"] in ("", None)


@pytest.mark.parametrize("command", [["simulate"], ["compare", MODEL]])
def test_a_bad_trim_gets_the_same_message_in_both(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, out, err = run(capsys, *command, "--warmup", "soon")
    assert code == 2 and not out
    assert "--warmup 'soon': expected a number of jobs or a time such as 1d" in err


def _seconds(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return float(found.group(1))


def test_the_times_say_what_they_measured(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "60", "--scheduler", "easy", "--no-progress")
    last = out.splitlines()[-1]
    assert code == 0 and "1 schedule(s) valid, simulated (" in last
    runs = _seconds(r"validated and measured in ([0-9.]+) s", last)
    whole = _seconds(r"; ([0-9.]+) s since the command started", last)
    assert 0 <= runs <= whole
    assert re.search(r"simulated \((compiled kernel|pure Python)\)", last)
    code, out, _ = run(capsys, "compare", MODEL, "--workers", "1", "--no-progress")
    first = out.splitlines()[0]
    sweep = _seconds(r"from the cache, in ([0-9.]+) s \(the sweep: simulating", first)
    assert code == 0 and 0 <= sweep <= _seconds(r"; ([0-9.]+) s since the command started", first)


def test_the_whole_time_of_a_command_counts_the_imports() -> None:
    # Run as a command, the time since the start includes the interpreter and the imports: most
    # of what the process took as seen from outside, not the part after main started.
    command = [sys.executable, "-m", "backfill", "simulate", "--jobs", "50", "--scheduler", "easy"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True, timeout=300)
    outside = time.perf_counter() - started
    whole = _seconds(r"; ([0-9.]+) s since the command started", done.stdout.splitlines()[-1])
    assert 0.5 * outside <= whole <= outside


def test_the_whole_time_does_not_count_work_before_an_exec() -> None:
    # A shell that runs the command by exec after other work (bash -c 'pip install . && backfill
    # simulate' does) keeps its process: the process's start would date the command to before
    # that work, so the time counts from the library's import instead.
    pause = 5.0
    command = f"sleep {pause}; exec '{sys.executable}' -m backfill simulate --jobs 50 --scheduler easy"
    done = subprocess.run(
        ["sh", "-c", command], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
    )
    whole = _seconds(r"; ([0-9.]+) s since the command started", done.stdout.splitlines()[-1])
    assert 0 < whole < pause


def test_progress_is_a_bar_on_a_terminal_and_lines_in_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    from backfill.cli import build_parser
    from backfill.cli.options import progress_wanted

    def wanted(*words: str, tty: bool) -> object:
        monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
        return progress_wanted(build_parser().parse_args(["simulate", *words]))

    pytest.importorskip("tqdm")
    assert wanted(tty=True) is True and wanted(tty=False) == LINES
    assert wanted("--progress", tty=False) is True
    assert wanted("--no-progress", tty=True) is False and wanted("--no-progress", tty=False) is False


@pytest.mark.parametrize(
    ("argv", "label", "unit"),
    [
        (["simulate", "--jobs", "200", "--scheduler", "easy", "fcfs"], "simulate", "jobs"),
        (["compare", MODEL, "--workers", "1"], "sweep", "cells"),
    ],
)
def test_a_log_gets_a_line_now_and_then(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    label: str,
    unit: str,
) -> None:
    monkeypatch.setattr(progress, "_EVERY", 0.0)  # a line at every step, not every ten seconds
    code, out, err = run(capsys, *argv)
    assert code == 0
    lines = err.splitlines()
    assert lines and all(
        re.fullmatch(rf"{label}: \d+/\d+ {unit} \(\d+ %\), \d+ s(, .*)?", x) for x in lines
    ), err
    total = lines[-1].split()[1].split("/")[1]
    assert lines[-1].startswith(f"{label}: {total}/{total} {unit} (100 %)") and lines[-1].endswith(", done")
    assert "\r" not in err  # lines, no bar redrawn
    assert not any(line.startswith(f"{label}: ") for line in out.splitlines())  # on standard error
    # --no-progress: nothing.
    code, _, err = run(capsys, *argv, "--no-progress")
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"total": -1}, "ProgressLines total must be an int >= 0"),
        ({"total": 2.5}, "ProgressLines total must be an int >= 0"),
        ({"initial": -1}, "ProgressLines initial must be an int >= 0"),
        ({"every": math.nan}, "ProgressLines every must be a finite number of seconds >= 0"),
        ({"every": -1.0}, "ProgressLines every must be a finite number of seconds >= 0"),
    ],
)
def test_progress_lines_refuse_bad_values(arguments: dict[str, Any], words: str) -> None:
    given = {"total": 10, "label": "demo", "unit": "step"} | arguments
    with pytest.raises(BackfillError, match=words):
        ProgressLines(**given)


def test_progress_lines_come_further_apart_as_the_run_goes() -> None:
    clock = iter(float(t) for t in range(0, 1000, 5))
    stream = io.StringIO()
    lines = ProgressLines(199, "demo", "step", every=10.0, stream=stream, clock=lambda: next(clock))
    for _ in range(198):
        lines.update()
    lines.close()
    times = [int(x.split(", ")[1].removesuffix(" s")) for x in stream.getvalue().splitlines()]
    gaps = [b - a for a, b in itertools.pairwise(times[:-1])]
    assert gaps[0] == 10 and gaps[-1] >= times[-2] // 10 and gaps == sorted(gaps)
    assert len(times) < 40  # for 199 steps of 5 s: a line now and then, not one per step
    assert stream.getvalue().splitlines()[-1].startswith("demo: 198/199 steps (99 %)")
