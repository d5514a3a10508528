"""Issue 53, point 8: --seeds without a model, negative list values, outputs cut by SIGTERM, a guard
called before reset(), and negative memory in an SWF log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import backfill.cli.compare as cli_compare
from backfill import EASY, Job, JobError, SWFError
from backfill.cli import main
from backfill.cli._parser import Parser
from backfill.schedulers import guarded
from backfill.workloads.swf import read_swf

ROOT = Path(__file__).resolve().parents[1]
MODEL = "model:n=40,machine_size=8"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def swf_log(path: Path, bad: tuple[int, float] | None = None) -> Path:
    """Three jobs on 4 processors; ``bad`` = (field, value) puts a value in job 2's line (line 3)."""
    lines = ["; MaxProcs: 4"]
    for i in (1, 2, 3):
        fields: list[float] = [i, 10 * i, -1, 100, 2, -1, 1000, 2, 200, 2000, 1, 1, 1, -1, 1, -1, -1, -1]
        if bad is not None and i == 2:
            fields[bad[0] - 1] = bad[1]
        lines.append(" ".join(f"{v:g}" for v in fields))
    path.write_text("\n".join(lines) + "\n")
    return path


# -- compare LOG --seeds: a log has no seed --------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--summary-csv", "s.csv"]])
def test_seeds_without_a_model_are_refused(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: without --summary-csv the seeds were ignored silently (one run of the log, no
    # replications); with it, "--summary-csv needs replications: give --seeds, ..." although given.
    monkeypatch.chdir(tmp_path)
    log = swf_log(tmp_path / "log.swf")
    argv = ["compare", str(log), "--scheduler", "easy", "--workers", "1", "--seeds", "1", "2", "3", *extra]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err == (
        "backfill: error: --seeds replicates the model workload, and no model is given (a log has no "
        "seed; --windows N replicates a log)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.swf"]


def test_seeds_with_a_log_and_a_model_replicate_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    log = swf_log(tmp_path / "log.swf")
    argv = ["compare", str(log), MODEL, "--scheduler", "easy", "--workers", "1", "--seeds", "1", "2"]
    code, out, err = run(capsys, *argv, "--summary-csv", "s.csv")
    assert code == 0, err
    assert "(seeds 1, 2)" in out and (tmp_path / "s.csv").exists()


# -- a list option's values that start with "-" ------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        (["--seeds", "-1", "2"], "--seeds '-1': -1 is negative"),
        (["--load", "-1", "2"], "--load '-1': -1 is negative"),
        (["--load", "2", "-x", "3"], "--load '-x'"),
        (["--metric", "-x", "mean_wait"], "--metric '-x': unknown metric '-x'"),
        (["--estimates", "-u", "user"], "--estimates '-u': unknown estimates '-u'"),
        (["--priority", "-sjf", "fcfs"], "--priority '-sjf': unknown priority '-sjf'"),
    ],
)
def test_a_negative_first_value_of_a_list_option_reaches_its_reader(
    option: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "backfill: error: unrecognized arguments: 2" (the first value was joined to its option
    # as --seeds=-1, which gives an option one value and leaves the others over).
    code, _, err = run(capsys, "compare", MODEL, "--scheduler", "easy", "--workers", "1", *option)
    assert code == 2 and "unrecognized" not in err and err.count("\n") == 1, err
    assert fragment in err


def test_a_negative_first_scheduler_reaches_its_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = swf_log(tmp_path / "log.swf")
    code, _, err = run(capsys, "simulate", str(log), "--scheduler", "-easy", "fcfs")
    assert code == 2 and "unrecognized" not in err
    assert "--scheduler '-easy': unknown scheduler '-easy'" in err


def test_the_values_of_a_list_option_keep_their_order() -> None:
    parser = Parser(prog="demo")
    parser.add_argument("--seeds", nargs="+", action="extend")
    parser.add_argument("--window")
    args = parser.parse_args(["--seeds", "-1", "2", "-3", "-4", "5", "--window", "-4h"])
    assert args.seeds == ["-1", "2", "-3", "-4", "5"] and args.window == "-4h"
    assert parser.parse_args(["--seeds", "1", "2"]).seeds == ["1", "2"]


# -- SIGTERM while the outputs are written -----------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_sigterm_while_writing_says_what_was_written_and_what_was_not(tmp_path: Path) -> None:
    # --json is a FIFO nobody reads: opening it blocks, after --csv is written and before
    # --jobs-csv is. Before, the line was only "backfill: interrupted (SIGTERM)" and m.csv was not
    # even said to be written.
    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    csv_path, jobs = tmp_path / "m.csv", tmp_path / "jobs.csv"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    argv = [sys.executable, "-m", "backfill", "simulate", "--jobs", "30", "--scheduler", "easy"]
    argv += ["--csv", str(csv_path), "--json", str(fifo), "--jobs-csv", str(jobs), "--no-progress"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not csv_path.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(0.3)  # into the blocking open of the FIFO
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM
    assert err == (
        f"backfill: interrupted (SIGTERM): while writing the outputs: wrote {csv_path}; "
        f"not written (left as they were): {fifo}, {jobs}\n"
    )
    assert out.endswith(f"wrote {csv_path}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv", "m.json"]


def test_sigterm_in_a_writer_of_compare_says_what_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def terminated(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # the command line's handler raises at the next step
        time.sleep(5)
        raise AssertionError("SIGTERM did not interrupt")

    monkeypatch.setattr(cli_compare, "write_metrics_json", terminated)
    m_csv, m_json, summary = tmp_path / "m.csv", tmp_path / "m.json", tmp_path / "s.csv"
    code, out, err = run(
        capsys, "compare", MODEL, "--scheduler", "easy", "--workers", "1", "--seeds", "1", "2",
        "--csv", str(m_csv), "--json", str(m_json), "--summary-csv", str(summary),
    )  # fmt: skip
    assert code == 128 + signal.SIGTERM
    assert err == (
        f"backfill: interrupted (SIGTERM): while writing the outputs: wrote {m_csv}; "
        f"not written (left as they were): {m_json}, {summary}\n"
    )
    assert f"wrote {m_csv}\n" in out and sorted(p.name for p in tmp_path.iterdir()) == ["m.csv"]


# -- guarded(): a call before reset() -------------------------------------------------------------------


JOB = Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda g: g.submit(JOB, 0.0), "submit(job 1)"),
        (lambda g: g.complete(JOB, 0.0), "complete(job 1)"),
        (lambda g: g.schedule(0.0), "schedule()"),
    ],
)
def test_a_guarded_call_before_reset_says_reset_was_not_called(call: object, what: str) -> None:
    # Before: submit said "needs 1 processors on a 0-processor machine", complete "was not started".
    with pytest.raises(Exception) as caught:
        call(guarded(EASY()))  # type: ignore[operator]
    assert type(caught.value).__name__ == "ScheduleError"
    assert str(caught.value) == (
        f"EASY(fcfs) (guarded): {what} at 0.0: reset() not called; a host calls "
        "reset(machine_size, now) before any other call"
    )


# -- SWF fields 7 and 10 (memory) negative other than -1 ----------------------------------------------


@pytest.mark.parametrize(("field", "name"), [(10, "requested_memory"), (7, "memory")])
def test_a_negative_memory_is_a_bad_line_as_a_negative_estimate_is(
    field: int, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: -5 was read as it stood (field 10 then counted as "no requested memory", field 7 as none).
    log = swf_log(tmp_path / "log.swf", (field, -5))
    expected = (
        f"{log}:3: field {field} ({name}) is negative: -5.0 (-1, unknown, is the only negative value allowed)"
    )
    with pytest.raises(SWFError) as caught:
        read_swf(log)
    assert str(caught.value) == expected
    workload, report = read_swf(log, lenient=True)
    assert [j.id for j in workload] == [1, 3] and report.skipped_lines == (3,)
    # The same as field 9's -5, strictly and leniently.
    with pytest.raises(SWFError, match=r":3: field 9 \(estimate\) is negative: -5.0"):
        read_swf(swf_log(tmp_path / "estimate.swf", (9, -5)))
    code, _, err = run(capsys, "simulate", str(log), "--scheduler", "easy")
    assert code == 2 and err == f"backfill: error: {expected}\n"
    code, out, _ = run(capsys, "simulate", str(log), "--scheduler", "easy", "--lenient")
    assert code == 0 and "2 kept + 0 dropped by the cleaning policy + 1 malformed" in out
    with pytest.raises(JobError, match=f"job 2: {name} must be -1 \\(unknown\\) or a finite amount from 0"):
        Job(id=2, submit=0.0, processors=1, runtime=1.0, estimate=1.0, **{name: -5.0})
