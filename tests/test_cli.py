"""The command line: `simulate` and `compare` in-process, their errors, and `python -m backfill`."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from backfill.cli import DEFAULT_COMPARE_METRICS, DEFAULT_JOBS, DEFAULT_SCHEDULERS, build_parser, main
from backfill.cli.compare import scheduler_spec, workload_spec
from backfill.cli.options import output_path as _output_path
from backfill.cli.options import scheduler_specs
from backfill.errors import BackfillError
from backfill.experiments.sweep import Grid, ModelWorkload, SchedulerSpec, SweepResult, run_sweep
from backfill.measures.metrics import DEFAULT_COLUMNS
from backfill.schedulers import FCFS
from backfill.simulator import simulate
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.swf import read_swf, write_swf
from backfill.workloads.workload import Job, Workload

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out: str) -> dict[str, dict[str, str]]:
    """Parse the metrics table out of the output: scheduler name -> column -> cell."""
    lines = out.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("scheduler "))
    header = lines[top].split()
    rows = {}
    for line in lines[top + 1 :]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return rows


def sample_swf(tmp_path: Path, n: int = 120) -> Path:
    """A small SWF log with two jobs the reader drops (unknown runtime, no processors)."""
    path = tmp_path / "small.swf"
    write_swf(path, lublin_feitelson(n, machine_size=32, seed=3, estimates="f-model"))
    extra = [
        f"{n + 1} 10 -1 -1 4 -1 -1 4 100 -1 0 1 1 -1 1 -1 -1 -1",
        f"{n + 2} 20 -1 50 0 -1 -1 0 100 -1 1 1 1 -1 1 -1 -1 -1",
    ]
    with path.open("a") as f:
        f.write("\n".join(extra) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# The synthetic default workload
# ---------------------------------------------------------------------------------------------


def test_default_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "simulate")
    assert code == 0 and err == ""
    assert "Lublin-Feitelson model: 5000 batch jobs, 128 processors, seed 0, f-model" in out
    rows = table_rows(out)
    assert list(rows) == ["FCFS(fcfs)", "EASY(fcfs)", "Conservative"]
    assert all(row["jobs"] == str(DEFAULT_JOBS) and row["rejected"] == "0" for row in rows.values())
    # Backfilling pays off on this workload: both backfillers wait far less than FCFS.
    fcfs_wait = float(rows["FCFS(fcfs)"]["mean_wait"])
    assert float(rows["EASY(fcfs)"]["mean_wait"]) < fcfs_wait / 2
    assert float(rows["Conservative"]["mean_wait"]) < fcfs_wait / 2
    assert "jobs: 5000 in = 5000 scheduled + 0 rejected" in out
    assert "3 schedule(s) valid" in out


def test_table_has_the_default_columns(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "simulate", "--jobs", "200")
    header = next(line for line in out.splitlines() if line.startswith("scheduler "))
    assert header.split() == ["scheduler", *DEFAULT_COLUMNS]


def test_scheduler_and_priority(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "simulate", "--jobs", "300", "--scheduler", "easy", "fcfs", "--priority", "sjf"
    )
    assert code == 0
    assert list(table_rows(out)) == ["EASY(sjf)", "FCFS(sjf)"]
    assert "note:" not in out


def test_pc_and_dc_take_the_priority(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "pc", "dc", "--priority", "wjf")
    assert code == 0
    assert list(table_rows(out)) == ["PC(wjf)", "DC(wjf)"]
    assert "note:" not in out


def test_priority_with_conservative_gives_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "100", "--priority", "lxf")
    assert code == 0
    assert "note: conservative takes no priority" in out
    assert list(table_rows(out)) == ["FCFS(lxf)", "EASY(lxf)", "Conservative"]


def test_repeated_scheduler_runs_once(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "simulate", "--jobs", "50", "--scheduler", "easy", "easy")
    assert list(table_rows(out)) == ["EASY(fcfs)"]


def test_model_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--jobs",
        "400",
        "--seed",
        "7",
        "--machine-size",
        "64",
        "--estimates",
        "accurate",
        "--load",
        "1.5",
    )
    assert code == 0
    assert "400 batch jobs, 64 processors, seed 7, f-model (f = 3) estimates, exact estimates" in out
    assert "load x1.5" in out
    w = lublin_feitelson(400, machine_size=64, seed=7).scaled(1.5)
    assert f"offered load {w.offered_load():.3f}" in out
    assert all(row["jobs"] == "400" for row in table_rows(out).values())


def test_same_arguments_same_table(capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run(capsys, "simulate", "--jobs", "300", "--seed", "2")
    _, second, _ = run(capsys, "simulate", "--jobs", "300", "--seed", "2")
    assert table_rows(first) == table_rows(second)


def test_bound_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, ten, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "fcfs")
    _, sixty, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "fcfs", "--bound", "60")
    assert "with a 60 s bound" in sixty
    assert float(table_rows(sixty)["FCFS(fcfs)"]["mean_bsld"]) <= float(
        table_rows(ten)["FCFS(fcfs)"]["mean_bsld"]
    )


# ---------------------------------------------------------------------------------------------
# SWF logs
# ---------------------------------------------------------------------------------------------


def test_swf_input_prints_the_read_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_swf(tmp_path)
    code, out, err = run(capsys, "simulate", str(path))
    assert code == 0 and err == ""
    assert "small.swf: 122 data lines: 120 jobs kept, 2 dropped" in out
    assert "dropped unknown_runtime: 1" in out and "dropped no_processors: 1" in out
    assert "workload: small.swf: 32 processors" in out
    assert "jobs: 120 in = 120 scheduled + 0 rejected" in out
    assert "log: 122 data lines = 120 kept + 2 dropped by the cleaning policy + 0 malformed" in out
    assert len(table_rows(out)) == 3


def test_swf_first_jobs_and_machine_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sample_swf(tmp_path)
    code, out, _ = run(capsys, "simulate", str(path), "--jobs", "50", "--machine-size", "16")
    assert code == 0
    assert "machine size 16 (from argument)" in out
    assert "16 processors, first 50 jobs" in out
    assert "jobs: 50 in = 50 scheduled + 0 rejected" in out


def test_output_swf_one_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.swf"
    code, out, _ = run(
        capsys, "simulate", "--jobs", "200", "--scheduler", "fcfs", "--output-swf", str(target)
    )
    assert code == 0 and f"wrote {target}" in out
    written, _ = read_swf(target)
    expected = simulate(lublin_feitelson(200, seed=0, estimates="f-model"), FCFS())
    assert np.array_equal(written.column("wait"), expected.wait)
    assert float(table_rows(out)["FCFS(fcfs)"]["max_wait"]) == pytest.approx(
        float(written.column("wait").max()), abs=0.05
    )


def test_output_swf_several_schedulers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "run.swf.gz"
    code, out, _ = run(capsys, "simulate", "--jobs", "100", "--output-swf", str(target))
    assert code == 0
    for name in ("fcfs", "easy", "conservative"):
        path = tmp_path / f"run-{name}.swf.gz"
        assert f"wrote {path}" in out
        assert len(read_swf(path)[0]) == 100
    assert not target.exists()


@pytest.mark.parametrize(
    ("base", "expected"),
    [("a/out.swf", "a/out-easy.swf"), ("out.swf.gz", "out-easy.swf.gz"), ("out", "out-easy")],
)
def test_output_path(base: str, expected: str) -> None:
    assert _output_path(Path(base), "easy", several=True) == Path(expected)
    assert _output_path(Path(base), "easy", several=False) == Path(base)


@pytest.mark.trace
@pytest.mark.skipif(not TRACES.is_dir(), reason="the archive traces are absent")
def test_real_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", str(TRACES / "KTH-SP2-1996-2.swf.gz"), "--jobs", "500")
    assert code == 0
    assert "KTH-SP2-1996-2.swf.gz: 28489 data lines: 28489 jobs kept" in out
    assert "jobs: 500 in = 500 scheduled + 0 rejected" in out


# ---------------------------------------------------------------------------------------------
# Accounting of rejected jobs
# ---------------------------------------------------------------------------------------------


def test_accounting_lists_rejection_reasons() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
        Job(id=2, submit=1.0, processors=9, runtime=5.0, estimate=5.0),
        Job(id=3, submit=2.0, processors=8, runtime=5.0, estimate=5.0),
        Job(id=4, submit=3.0, processors=0, runtime=5.0, estimate=5.0),
    ]
    s = simulate(Workload.from_jobs(jobs, 4), FCFS())
    assert s.accounting() == (
        "4 in = 1 scheduled + 3 rejected (no positive processor count: 1; "
        "wider than the machine (4 processors): 2)"
    )


def test_compare_accounts_for_every_job_of_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Six lines: two jobs the cleaning policy drops (unknown runtime; wider than the 4 processors the
    # header gives), four that go in and are scheduled.
    path = tmp_path / "log.swf"
    rows = [(1, 2, 10), (2, 9, 10), (3, 4, 10), (4, 1, -1), (5, 3, 7), (6, 1, 3)]
    lines = [f"{i} {i} -1 {r} {p} -1 -1 {p} 20 -1 1 1 1 -1 1 -1 -1 -1" for i, p, r in rows]
    path.write_text("; MaxProcs: 4\n" + "\n".join(lines) + "\n")
    code, out, _ = run(capsys, "compare", str(path), "--scheduler", "easy", "conservative", "--workers", "1")
    assert code == 0
    _, accounts, _ = markdown_tables(out)
    assert accounts == [
        {
            "workload": "log",
            "scheduler": "all",
            "load": "1",
            "estimates": "user",
            "dropped by the reader": "unknown_runtime: 1; wider_than_machine: 1",
            "jobs in": "4",
            "scheduled": "4",
            "rejected": "0",
            "reasons": "-",
        }
    ]
    rows_ = run_sweep(Grid([path], ["EASY"]), workers=1).rows
    assert [(r["jobs"], r["rejected"], r["rejected_reasons"]) for r in rows_] == [(4, 0, "")]


def test_lenient_simulate_skips_and_counts_malformed_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.swf"
    good = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1"
    wide = "3 5 -1 10 9 -1 -1 9 20 -1 1 1 1 -1 1 -1 -1 -1"
    path.write_text(f"; MaxProcs: 4\n{good}\n2 0 -1 10\n{wide}\n")
    code, out, err = run(capsys, "simulate", str(path))
    assert_clean_error(code, out, err, f"{path}:3:", "18 fields")
    code, out, err = run(capsys, "simulate", str(path), "--lenient", "--scheduler", "easy")
    assert code == 0 and err == ""
    assert "skipped lines: 3" in out
    assert "log: 3 data lines = 1 kept + 1 dropped by the cleaning policy + 1 malformed" in out
    assert "jobs: 1 in = 1 scheduled + 0 rejected" in out
    code, out, err = run(capsys, "simulate", "--lenient")
    assert_clean_error(code, out, err, "--lenient applies only to an SWF log")


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def assert_clean_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("backfill: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.swf"
    code, out, err = run(capsys, "simulate", str(missing))
    assert_clean_error(code, out, err, f"cannot read {missing}", "No such file")


def test_malformed_swf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.swf"
    path.write_text("; MaxProcs: 4\n1 0 -1 10 2\n")
    code, out, err = run(capsys, "simulate", str(path))
    assert_clean_error(code, out, err, f"{path}:2:", "18 fields")


def test_job_class_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--job-class", "all", "--estimates", "accurate")
    assert code == 0
    assert "300 all jobs, 128 processors, seed 0, f-model (f = 3) estimates, exact estimates" in out
    w = lublin_feitelson(300, job_class="all")
    assert f"offered load {w.offered_load():.3f}" in out
    assert f"offered load {lublin_feitelson(300).offered_load():.3f}" not in out


@pytest.mark.parametrize("option", [["--seed", "3"], ["--job-class", "all"]])
def test_model_options_refused_for_a_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    code, out, err = run(capsys, "simulate", str(sample_swf(tmp_path)), *option)
    assert_clean_error(code, out, err, option[0], "only to the synthetic workload")


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_f_model_estimates_are_refused_for_a_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = sample_swf(tmp_path)
    code, out, err = run(capsys, command, str(path), "--scheduler", "easy", "--estimates", "f-model")
    assert_clean_error(code, out, err, "--estimates f-model", "only the synthetic model has f-model")


def test_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "dir" / "out.swf"
    code, _, err = run(capsys, "simulate", "--jobs", "20", "--scheduler", "fcfs", "--output-swf", str(target))
    assert code == 2
    assert f"backfill: error: cannot write {target}: {tmp_path / 'file'} is not a directory" in err


#: The start of each parser's error line.
TOP, SIM, CMP = "backfill: error: ", "backfill simulate: error: ", "backfill compare: error: "
#: A compare command line that runs, to add a bad argument to.
COMPARE = ["compare", "model:n=20", "--scheduler", "easy"]
#: Bad argument lists, each refused by the parser: (argv, the start of the line, a fragment of it).
BAD_ARGUMENTS = [
    ([], TOP, "required: COMMAND"),
    (["frobnicate"], TOP, "invalid choice: 'frobnicate'"),
    (["--frobnicate"], TOP, "required: COMMAND"),
    (["--frobnicate", "simulate"], TOP, "unrecognized arguments: --frobnicate"),
    (["simulate", "--bogus"], TOP, "unrecognized arguments: --bogus"),
    (["simulate", "--jobs"], SIM, "--jobs: expected one argument"),
    (["simulate", "--jobs", "0"], SIM, "--jobs: expected a positive number, got 0"),
    (["simulate", "--jobs", "-5"], SIM, "--jobs: -5 is negative"),
    (["simulate", "--jobs", "many"], SIM, "--jobs: expected a whole number"),
    (["simulate", "--jobs", "1e3"], SIM, "got '1e3'"),
    (["simulate", "--seed", "-4"], SIM, "--seed: -4 is negative"),
    (["simulate", "--depth", "-2"], SIM, "--depth: depth: -2 is negative"),
    (["simulate", "--depth", "-inf"], SIM, "--depth: depth: -inf is negative"),
    (["simulate", "--bound", "-10"], SIM, "--bound: -10 is negative"),
    (["simulate", "--machine-size", "0"], SIM, "--machine-size: expected a positive"),
    (["simulate", "--window", "-4h"], SIM, "--window: window: -4h is negative"),
    (["simulate", "--window", "4x"], SIM, "--window: window: expected a number"),
    (["simulate", "--bf-window", "-5"], SIM, "--bf-window: bf_window: -5 is negative"),
    (["simulate", "--win", "-4h"], SIM, "--window: window: -4h is negative"),  # abbreviated
    (["simulate", "--goal", "-g"], SIM, "--goal: goal must be one of G1, G2, got '-g'"),  # not a number
    (["simulate", "--window", "--csv", "x"], SIM, "--window: expected one argument"),
    (["simulate", "--job-class", "x"], SIM, "invalid choice: 'x'"),
    (["simulate", "--progress=yes"], SIM, "--progress"),
    (["compare", "--scheduler", "easy"], CMP, "no workload: give the workload first"),
    (["compare", "--scheduler", "easy", "model"], CMP, "no workload"),
    (["compare", "model:n=20", "--scheduler"], CMP, "--scheduler: expected at least one"),
    ([*COMPARE, "--workers", "0"], CMP, "--workers"),
    ([*COMPARE, "--workers", "-1"], CMP, "-1 is negative"),
    ([*COMPARE, "--bound", "-1"], CMP, "-1 is negative"),
    ([*COMPARE, "--depth", "-inf"], CMP, "-inf is negative"),
    ([*COMPARE, "--window", "-1d"], CMP, "-1d is negative"),
    ([*COMPARE, "--bogus"], TOP, "unrecognized arguments"),
    ([*COMPARE, "--cache"], CMP, "--cache: expected one"),
]


@pytest.mark.parametrize(("argv", "start", "fragment"), BAD_ARGUMENTS)
def test_argument_errors_are_one_line_and_exit_2(
    argv: list[str], start: str, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(start) and fragment in err, err
    assert "usage:" not in err and err.rstrip().endswith("--help'")


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--scheduler", "--priority", "--load", "--jobs", "--seed", "--machine-size",
                   "--estimates", "--job-class", "--bound", "--output-swf", "SWF_PATH"):  # fmt: skip
        assert option in out


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["simulate"])
    assert args.scheduler is None and args.load is None and args.priority is None  # defaults applied later
    assert args.swf_path is None and args.jobs is None
    assert [s.label for s in scheduler_specs(args, DEFAULT_SCHEDULERS)] == ["FCFS", "EASY", "Conservative"]


# ---------------------------------------------------------------------------------------------
# python -m backfill
# ---------------------------------------------------------------------------------------------


def test_python_dash_m(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", "backfill", "simulate", "--jobs", "300"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert list(table_rows(result.stdout)) == ["FCFS(fcfs)", "EASY(fcfs)", "Conservative"]
    assert "jobs: 300 in = 300 scheduled + 0 rejected" in result.stdout


def test_python_dash_m_error(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", "backfill", "simulate", "missing.swf"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("backfill: error: cannot read missing.swf")
    assert "Traceback" not in result.stderr


def test_easy_depth_and_selective_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--jobs",
        "300",
        "--scheduler",
        "easy",
        "selective",
        "--depth",
        "3",
        "--threshold",
        "4",
    )
    assert code == 0
    assert "EASY(fcfs, depth=3)" in out and "Selective(4)" in out
    code, out, _ = run(
        capsys, "simulate", "--jobs", "200", "--scheduler", "easy", "selective", "--depth", "inf"
    )
    assert code == 0 and "EASY(fcfs, depth=inf)" in out and "Selective(adaptive)" in out


@pytest.mark.parametrize("depth", ["0", "-2", "x", "1.5"])
def test_bad_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str], depth: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--scheduler", "easy", "--depth", depth])
    assert exit_info.value.code == 2
    assert "--depth" in capsys.readouterr().err


def test_relshare_window_and_expected_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--jobs",
        "200",
        "--scheduler",
        "relshare",
        "--window",
        "4h",
        "--no-expected-usage",
    )
    assert code == 0 and "RelShare(4h, w/o expected usage)" in out
    code, out, _ = run(capsys, "simulate", "--jobs", "200", "--scheduler", "relshare", "--window", "90min")
    assert code == 0 and "RelShare(90min)" in out


def test_slack_schedulers_and_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "lookahead", "--goal", "G2")
    assert code == 0 and "LookaheadSlack(G2, 20)" in out
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "lookahead", "--lookahead", "5")
    assert code == 0 and "LookaheadSlack(G1, 5)" in out
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "slack", "--tolerance", "0.5")
    assert code == 0 and "SlackBackfill" in out
    for bad in (["--tolerance", "-1"], ["--lookahead", "-2"], ["--goal", "G3"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["simulate", "--scheduler", "lookahead", *bad])
        assert exit_info.value.code == 2


@pytest.mark.parametrize("window", ["0", "-1d", "xh", "inf"])
def test_bad_window_is_a_usage_error(capsys: pytest.CaptureFixture[str], window: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--scheduler", "relshare", "--window", window])
    assert exit_info.value.code == 2


# ---------------------------------------------------------------------------------------------
# backfill compare
# ---------------------------------------------------------------------------------------------

MODEL = "model:n=80,machine_size=16,seed=1"
OTHER_MODEL = "model:n=60,machine_size=8,seed=2,estimates=accurate,name=small"


def markdown_tables(out: str) -> list[list[dict[str, str]]]:
    """Every markdown table in the output, as rows of column -> cell."""
    tables: list[list[dict[str, str]]] = []
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("| -"):
            header = [c.strip() for c in lines[i].strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("| "):
                cells = [c.strip() for c in lines[i].strip("|").split("|")]
                rows.append(dict(zip(header, cells, strict=True)))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def test_compare_tables_match_run_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", MODEL, OTHER_MODEL, "--scheduler", "easy", "conservative", "pc",
        "--priority", "fcfs", "sjf", "--metric", "mean_wait", "utilization", "jobs", "--workers", "1",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert "note: Conservative takes no priority" in out
    assert "10 cells: 10 simulated, 0 from the cache" in out
    grid = Grid(
        [
            ModelWorkload(n_jobs=80, machine_size=16, seed=1, estimates="f-model", name=MODEL),
            ModelWorkload(n_jobs=60, machine_size=8, seed=2, estimates="accurate", name="small"),
        ],
        ["EASY", "Conservative", "PC"],
        priorities=["fcfs", "sjf"],
    )
    expected = run_sweep(grid, workers=1)
    metrics, accounts, improvements = markdown_tables(out)
    # Every job of each workload accounted for, once per workload: the schedulers agree.
    assert [(r["workload"], r["scheduler"], r["jobs in"], r["rejected"]) for r in accounts] == [
        (MODEL, "all", "80", "0"),
        ("small", "all", "60", "0"),
    ]
    assert [(r["workload"], r["scheduler"], r["priority"]) for r in metrics] == [
        (r["workload"], r["scheduler"], r["priority"]) for r in expected.rows
    ]
    for shown, row in zip(metrics, expected.rows, strict=True):
        assert (shown["load"], shown["estimates"]) == ("1", "user")
        assert float(shown["mean_wait"]) == pytest.approx(row["mean_wait"], abs=0.05)
        assert float(shown["utilization"]) == pytest.approx(row["utilization"], abs=5e-4)
        assert shown["jobs"] == str(row["jobs"])
    # Conservative is in the list, so it is the baseline even though EASY comes first.
    assert "percent improvement over Conservative" in out
    wait = expected.improvement("mean_wait", "Conservative")
    assert [(r["workload"], r["scheduler"], r["priority"]) for r in improvements] == [
        (r["workload"], r["scheduler"], r["priority"]) for r in wait
    ]
    for shown, row in zip(improvements, wait, strict=True):
        assert float(shown["mean_wait"]) == pytest.approx(row["improvement"], abs=0.05)
        assert shown["jobs"] == "+0.0"


def test_compare_an_swf_trace_loads_estimates_and_a_chosen_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny.swf"
    write_swf(path, lublin_feitelson(70, machine_size=16, seed=4, estimates="f-model"))
    code, out, _ = run(
        capsys, "compare", str(path), "--scheduler", "fcfs", "easy:depth=2", "--load", "1", "1.5",
        "--estimates", "user", "exact", "--baseline", "FCFS", "--metric", "max_wait", "--workers", "1",
    )  # fmt: skip
    assert code == 0
    grid = Grid(
        [path],
        [SchedulerSpec("FCFS"), SchedulerSpec.of("EASY", depth=2)],
        loads=[1.0, 1.5],
        estimates=["user", "exact"],
    )
    expected = run_sweep(grid, workers=1)
    metrics, _, improvements = markdown_tables(out)
    assert [(r["workload"], r["scheduler"], r["load"], r["estimates"]) for r in metrics] == [
        ("tiny", r["scheduler"], f"{r['load']:g}", r["estimates"]) for r in expected.rows
    ]
    assert [float(r["max_wait"]) for r in metrics] == pytest.approx(
        [r["max_wait"] for r in expected.rows], abs=0.05
    )
    assert {r["scheduler"] for r in improvements} == {"EASY(depth=2)"} and len(improvements) == 4
    assert "percent improvement over FCFS" in out
    # The baseline may be given in the --scheduler syntax too.
    code, out, _ = run(
        capsys, "compare", str(path), "--scheduler", "fcfs", "easy:depth=2", "--baseline", "easy:depth=2",
        "--workers", "1",
    )  # fmt: skip
    assert code == 0 and "percent improvement over EASY(depth=2)" in out
    assert [r["scheduler"] for r in markdown_tables(out)[-1]] == ["FCFS"]


def test_compare_writes_the_csv_and_figures_and_reuses_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = pytest.importorskip("matplotlib.image")
    argv = [
        "compare", MODEL, "--scheduler", "conservative", "easy", "--priority", "fcfs", "sjf",
        "--workers", "1", "--cache", str(tmp_path / "cache"), "--csv", str(tmp_path / "rows.csv"),
        "--figures", str(tmp_path / "figures" / "new"),
    ]  # fmt: skip
    code, out, _ = run(capsys, *argv)
    assert code == 0
    rows = SweepResult.from_csv(tmp_path / "rows.csv").rows
    expected = run_sweep(
        Grid([ModelWorkload(n_jobs=80, machine_size=16, seed=1, estimates="f-model", name=MODEL)],
             ["Conservative", "EASY"], priorities=["fcfs", "sjf"]),
        workers=1,
    ).rows  # fmt: skip
    # The wall time differs; the command line and its start time are the command's own.
    different = {"seconds", "argv", "utc"}
    assert [{k: v for k, v in r.items() if k not in different} for r in rows] == [
        {k: v for k, v in r.items() if k not in different} for r in expected
    ]
    for metric in DEFAULT_COMPARE_METRICS:
        png = tmp_path / "figures" / "new" / f"improvement_{metric}.png"
        assert f"wrote {png}" in out
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert image.imread(png).ndim == 3
    assert sorted(p.name for p in (tmp_path / "figures" / "new").iterdir()) == [
        "improvement_mean_bsld.png",
        "improvement_mean_wait.png",
    ]
    code, again, _ = run(capsys, *argv)
    assert code == 0 and "3 cells: 0 simulated, 3 from the cache" in again
    assert markdown_tables(again) == markdown_tables(out)


def test_compare_with_one_scheduler_and_a_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    code, out, err = run(capsys, "compare", "model:n=30,machine_size=8", "--scheduler", "easy",
                         "--workers", "1", "--progress")  # fmt: skip
    assert code == 0 and "no scheduler besides the baseline EASY to compare" in out
    assert len(markdown_tables(out)) == 2 and "1/1" in err  # the metrics and the job accounts


@pytest.mark.parametrize(
    ("spec", "value"),
    [("easy:depth=4", 4), ("easy:depth=inf", None), ("selective:threshold=2.5", 2.5),
     ("selective:threshold=Adaptive", "adaptive"), ("pc:restart=False", False),
     ("relshare:window=4h", 14400.0), ("relshare:window=90min", 5400.0), ("relshare:window=60", 60.0),
     ("lookahead:goal=g2", "G2"), ("lookahead:max_nodes=none", None), ("slack:tolerance=0", 0.0)],
)  # fmt: skip
def test_scheduler_parameter_values_are_read_by_their_registered_parameter(spec: str, value: object) -> None:
    ((_, held),) = scheduler_spec(spec).params
    assert held == value and type(held) is type(value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("easy:depth=0", "depth: expected a positive number, got 0"),
     ("lookahead:goal=G3", "goal must be one of G1, G2, got 'G3'"),
     ("easy:deep=2", "EASY takes no parameter 'deep'; it takes depth"),
     ("relshare:window=soon", "expected a number"), ("backfill9", "unknown scheduler 'backfill9'")],
)  # fmt: skip
def test_bad_scheduler_specs_name_the_parameter(spec: str, message: str) -> None:
    with pytest.raises(BackfillError, match=re.escape(message)):
        scheduler_spec(spec)


def test_scheduler_specs_and_aliases() -> None:
    assert scheduler_spec("relshare:window=4h,expected_usage=false") == SchedulerSpec.of(
        "RelShare", window=14400.0, expected_usage=False
    )
    assert scheduler_spec("lookahead:goal=G2").label == "LookaheadSlack(goal='G2')"
    assert scheduler_spec("slack").name == "SlackBackfill"
    assert scheduler_spec(" EASY ").label == "EASY"


def test_model_specs() -> None:
    assert workload_spec("model") == ModelWorkload(
        n_jobs=DEFAULT_JOBS, machine_size=128, seed=0, estimates="f-model", name="model"
    )
    spec = workload_spec("model:n=20,seed=3,job_class=all,arrival_shape=10.2,estimate_factor=2,name=x")
    assert spec == ModelWorkload(
        n_jobs=20,
        seed=3,
        job_class="all",
        arrival_shape=10.2,
        estimates="f-model",
        estimate_factor=2.0,
        name="x",
    )


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["nope.swf"], ["cannot read nope.swf", "No such file"]),
        ([MODEL, "--scheduler", "magic"], ["--scheduler 'magic'", "unknown scheduler 'magic'"]),
        ([MODEL, "--scheduler", "easy:depth"], ["expected KEY=VALUE, got 'depth'"]),
        ([MODEL, "--scheduler", "easy:"], ["expected KEY=VALUE, got ''"]),
        ([MODEL, "--scheduler", "easy:speed=3"], ["EASY takes no parameter 'speed'"]),
        ([MODEL, "--scheduler", "easy:depth=0"], ["depth: expected a positive number, got 0"]),
        ([MODEL, "--scheduler", "easy:depth=1,depth=2"], ["depth given twice"]),
        ([MODEL, "--scheduler", "easy:priority=sjf"], ["priority is not a parameter"]),
        ([MODEL, "--scheduler", "lookahead:goal=G3"], ["goal must be one of G1, G2"]),
        ([MODEL, "--priority", "random"], ["unknown priority 'random'"]),
        ([MODEL, "--metric", "speed"], ["unknown metric 'speed'", "mean_wait"]),
        ([MODEL, "--baseline", "PC"], ["--baseline 'PC' is not among the schedulers: EASY, FCFS"]),
        (["model:n=ten"], ["n='ten' is not a valid int"]),
        (["model:size=3"], ["unknown key 'size'"]),
        (["model:n=5,n_jobs=6"], ["n and n_jobs both given"]),
        (["model:estimates=magic"], ["workload 'model:estimates=magic'"]),
        ([MODEL, "--scheduler", "easy", "--figures", "x"], ["needs a scheduler besides the baseline"]),
        ([MODEL, "--csv", "afile/rows.csv"], ["cannot write afile/rows.csv: afile is not a directory"]),
    ],
)
def test_compare_errors_are_one_line(
    argv: list[str], fragments: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")  # a file where a folder is wanted
    if "--scheduler" not in argv:
        argv = [*argv, "--scheduler", "easy", "fcfs"]
    code, out, err = run(capsys, "compare", *argv, "--workers", "1")
    assert_clean_error(code, out, err, *fragments)


def test_compare_workloads_after_the_options_follow_a_double_dash(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "compare", "--scheduler", "easy", "--workers", "1", "--", "model:n=20,machine_size=8"
    )
    assert code == 0 and markdown_tables(out)[0][0]["workload"] == "model:n=20,machine_size=8"


def test_compare_runs_repeated_arguments_once(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["model:n=20,machine_size=8"] * 2 + ["--scheduler", "easy", "EASY", "--load", "1", "1.0"]
    code, out, _ = run(capsys, "compare", *argv, "--priority", "sjf", "sjf", "--workers", "1")
    assert code == 0 and len(markdown_tables(out)[0]) == 1


def test_compare_a_malformed_trace_names_file_and_line_before_the_sweep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.swf"
    path.write_text("; MaxProcs: 4\n1 0 -1 10 2\n")
    code, out, err = run(capsys, "compare", str(path), "--scheduler", "easy", "--workers", "1")
    assert_clean_error(code, out, err, f"{path}:2:", "18 fields")


def test_compare_figures_without_matplotlib(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")] or [
        "matplotlib"
    ]:
        monkeypatch.setitem(sys.modules, name, None)
    code, out, err = run(capsys, "compare", MODEL, "--scheduler", "easy", "pc", "--figures",
                         str(tmp_path / "figs"), "--workers", "1")  # fmt: skip
    assert_clean_error(code, out, err, "--figures: plotting needs matplotlib: pip install '.[plot]'")
    assert not (tmp_path / "figs").exists()


def test_compare_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("TRACE_OR_MODEL", "--scheduler", "--priority", "--load", "--estimates", "--baseline",
                   "--metric", "--bound", "--workers", "--cache", "--csv", "--figures"):  # fmt: skip
        assert option in out
    assert "--progress" in out
    assert "model:K=V" in out and "easy:depth=4" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    from backfill.experiments.cache import library_version

    assert capsys.readouterr().out.strip() == f"backfill {library_version()}"


@pytest.mark.parametrize(
    "content",
    ["", "; MaxProcs: 4\n", "; MaxProcs: 4\n1 0 -1 -1 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"],
    ids=["empty", "header-only", "all-dropped"],
)
@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_a_log_without_jobs_is_an_error_naming_the_file(
    command: str, content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "nothing.swf"
    log.write_text(content)
    argv = [command, str(log)] + (["--scheduler", "easy", "--workers", "1"] if command == "compare" else [])
    code, out, err = run(capsys, *argv)
    assert_clean_error(code, out, err, str(log), "no jobs to simulate")


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path) -> None:
    # `backfill simulate | head -1` ended in a BrokenPipeError traceback.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "backfill", "simulate", "--jobs", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"workload: ")
    process.stdout.close()  # what `head -1` does once it has its line
    with process.stderr:
        stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert stderr == ""


# -- measures asked for, replications, warm-up and cool-down --------------------------------------

REPLICATED = "model:n=90,machine_size=16"


def test_simulate_metric_shows_the_columns_asked_for(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "m.csv"
    code, out, err = run(
        capsys, "simulate", "--jobs", "80", "--machine-size", "16", "--scheduler", "easy",
        "--metric", "mean_wait", "strict-unfairness", "lw_mean_bsld", "users", "--csv", str(target),
    )  # fmt: skip
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("scheduler "))
    assert header.split() == ["scheduler", "mean_wait", "strict_unfairness", "lw_mean_bsld", "users"]
    assert "strict_unfairness: mean strict fair-start unfairness (s)" in out
    (row,) = SweepResult.from_csv(target).rows
    from backfill.experiments.fair_start import fair_start_times
    from backfill.measures.fairness import unfairness
    from backfill.schedulers import EASY

    w = lublin_feitelson(80, machine_size=16, seed=0, estimates="f-model")
    expected = unfairness(simulate(w, EASY()), fair_start_times(w, EASY(), relaxed=False, workers=1).strict)
    assert row["strict_unfairness"] == pytest.approx(expected)
    assert row["users"] == 1.0 and "relaxed_unfairness" not in row


def test_simulate_without_metric_prints_the_standard_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--jobs", "40", "--scheduler", "easy")
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("scheduler "))
    assert header.split()[1:] == list(DEFAULT_COLUMNS)


def test_compare_replications_report_means_and_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows_csv, summary_csv, rows_json = tmp_path / "rows.csv", tmp_path / "summary.csv", tmp_path / "m.json"
    code, out, err = run(
        capsys, "compare", REPLICATED, "--seeds", "0", "1", "2", "--scheduler", "conservative", "easy",
        "--metric", "mean_wait", "relaxed_unfairness", "--warmup", "10", "--cooldown", "2h",
        "--csv", str(rows_csv), "--summary-csv", str(summary_csv), "--json", str(rows_json), "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "over 3 replications per configuration (seeds 0, 1, 2)" in out
    assert "the first 10 jobs and the last 7200 s of each run left out" in out
    rows = SweepResult.from_csv(rows_csv).rows
    assert (
        len(rows) == 6
        and {r["warmup"] for r in rows} == {"10 jobs"}
        and {r["seed"] for r in rows} == {0, 1, 2}
    )
    with summary_csv.open() as f:
        summary = list(csv.DictReader(f))
    easy = next(
        r for r in summary if r["scheduler"] == "EASY" and r["metric"] == "mean_wait" and r["kind"] == "value"
    )
    values = [r["mean_wait"] for r in rows if r["scheduler"] == "EASY"]
    assert float(easy["mean"]) == pytest.approx(np.mean(values)) and easy["n"] == "3"
    assert float(easy["std"]) == pytest.approx(np.std(values, ddof=1))
    assert (easy["warmup"], easy["cooldown"]) == ("10 jobs", "7200 s")
    shown = f"{np.mean(values):.1f} ± {float(easy['half_width']):.1f}"
    assert shown in out
    # The warm-up and cool-down leave jobs out of the measures, not the simulation.
    w = ModelWorkload(n_jobs=90, machine_size=16, seed=1, estimates="f-model").load()
    from backfill.measures.trim import Trim, trim_schedule
    from backfill.schedulers import EASY

    trimmed = trim_schedule(simulate(w, EASY()), Trim(10, 7200.0))
    row = next(r for r in rows if r["scheduler"] == "EASY" and r["seed"] == 1)
    assert row["mean_wait"] == pytest.approx(float(np.mean(trimmed.wait))) and row["jobs"] == 90
    data = json.loads(rows_json.read_text())
    assert (data["warmup"], data["cooldown"]) == ("10 jobs", "7200 s") and len(data["replications"]) == 6


def test_compare_samples_pool_the_workloads_given(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", "model:n=60,machine_size=8,seed=1", "model:n=60,machine_size=8,seed=2",
        "--samples", "--scheduler", "fcfs", "easy", "--baseline", "fcfs", "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "over 2 replications per configuration (the workloads given as samples)" in out
    assert "| 2 samples " in out


def test_the_metrics_json_loads_whole_with_pandas_one_dtype_per_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pandas = pytest.importorskip("pandas")
    log = sample_swf(tmp_path)
    sim_json, cmp_json = tmp_path / "s.json", tmp_path / "c.json"
    sim_csv, jobs_csv = tmp_path / "s.csv", tmp_path / "jobs.csv"
    assert run(capsys, "simulate", str(log), "--scheduler", "easy", "--json", str(sim_json),
               "--csv", str(sim_csv), "--jobs-csv", str(jobs_csv))[0] == 0  # fmt: skip
    assert run(capsys, "compare", str(log), MODEL, "--scheduler", "easy", "fcfs", "--metric", "users",
               "--json", str(cmp_json), "--workers", "1")[0] == 0  # fmt: skip
    frames = [pandas.read_json(p, orient="table") for p in (sim_json, cmp_json)]
    assert [len(f) for f in frames] == [1, 4]
    for f in frames:
        assert str(f["load"].dtype) == "float64" and str(f["jobs"].dtype) == "Int64"
        assert str(f["mean_wait"].dtype) == "float64" and str(f["seed"].dtype) == "Int64"
    assert frames[1]["seed"].isna().tolist() == [True, True, False, False]
    assert frames[1]["users"].tolist()[2:] == [1.0, 1.0]
    # The load and the times are floats in every CSV, whole or not.
    for path in (sim_csv, jobs_csv):
        table = pandas.read_csv(path)
        assert str(table["load"].dtype) == "float64"
    jobs = pandas.read_csv(jobs_csv)
    assert {str(jobs[c].dtype) for c in ("submission_time", "starting_time", "finish_time")} == {"float64"}


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--seeds", "-1"], "--seeds '-1'"),
        (["--seeds", "x"], "--seeds 'x'"),
        (["--warmup", "-5"], "--warmup '-5': cannot be negative"),
        (["--warmup", "1.5"], "--warmup '1.5': expected a number of jobs or a time such as 1d"),
        (["--cooldown", "xh"], "--cooldown 'xh'"),
        (["--warmup", "\u00b2"], "--warmup '\u00b2': expected a whole number"),
        (["--cooldown=-1d"], "cannot be negative"),
        (["--metric", "wait"], "unknown metric 'wait' (did you mean mean_wait"),
        (["--summary-csv", "s.csv"], "--summary-csv needs replications"),
        (["--samples"], "--samples needs at least two workloads"),
        (["--seeds", "1", "--samples"], "--seeds and --samples: give one"),
        (["--warmup", "10000"], "leave none of the"),
    ],
)
def test_compare_replication_errors_are_one_line(
    argv: list[str],
    fragment: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _out, err = run(capsys, "compare", REPLICATED, "--scheduler", "easy", "--workers", "1", *argv)
    assert code == 2 and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


def test_compare_seeds_refuse_a_model_that_gives_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", MODEL, "--seeds", "1", "2", "--scheduler", "easy", "--workers", "1"
    )
    assert_clean_error(code, out, err, "gives its seed; --seeds gives the seeds")


def test_metric_help_lists_the_vocabulary(capsys: pytest.CaptureFixture[str]) -> None:
    from backfill.experiments.columns import MEASURE_GROUPS

    for command in ("simulate", "compare"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        for column, group in MEASURE_GROUPS.items():
            if group != "category":
                assert column in out, (command, column)
        assert "sn|sw|ln|lw" in out.replace("|ln|lw", "|ln|lw") or "ln|lw" in out


# ---------------------------------------------------------------------------------------------
# usages
# ---------------------------------------------------------------------------------------------
def _usage_parts(usage: str) -> list[str]:
    """The parts of a usage line after the program's name: split at spaces outside brackets."""
    parts, depth, current = [], 0, ""
    for char in " ".join(usage.split()):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if char == " " and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    merged: list[str] = []
    for part in (p for p in [*parts, current] if p):
        # "X [X ...]", one item of one or more values, has a space outside brackets.
        # A required option's values follow it unbracketed: "--scheduler SPEC [SPEC ...]".
        value_of_option = merged and merged[-1].startswith("-") and not part.startswith(("-", "[-"))
        if value_of_option or (merged and part == f"[{merged[-1].split()[-1]} ...]"):
            merged[-1] += " " + part
        else:
            merged.append(part)
    return merged


def _bracketed(part: str) -> bool:
    """Whether the whole part is one bracketed (optional) item: ``[--x X]``, not ``X [X ...]``."""
    if not part.startswith("["):
        return False
    depth = 0
    for i, char in enumerate(part):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0:
            return i == len(part) - 1
    return False


def _shown_nargs(values: list[str]) -> object:
    """The nargs a usage item's values show: none, one, one or more."""
    if not values:
        return 0
    if len(values) == 3 and values[1] == f"[{values[0]}" and values[2] == "...]":
        return "+"
    if len(values) == 1 and _bracketed(values[0]):
        return "?"  # an optional value: [--x [X]]
    assert len(values) == 1, values
    return None


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_usage_shows_what_is_accepted(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = next(
        choice for a in build_parser()._actions if a.dest == "command" for name, choice in a.choices.items()
        if name == command
    )  # fmt: skip
    usage = parser.format_usage()
    assert usage.startswith(f"usage: backfill {command} ")
    parts = _usage_parts(usage.removeprefix(f"usage: backfill {command} "))
    positionals = [a for a in parser._actions if not a.option_strings]
    # Workloads first, as the commands read them (options of many values take every word after them).
    assert parts[0].split()[0].strip("[]") == positionals[0].metavar
    shown: dict[str, tuple[bool, object]] = {}
    for part in parts:
        optional = _bracketed(part)
        inner = part[1:-1] if optional else part
        if " | " in inner:  # a group of switches
            for switch in inner.split(" | "):
                shown[switch] = (True, 0)
            continue
        words = inner.split()
        name = words[0] if words[0].startswith("-") else words[0].strip("[]")
        values = words[1:] if words[0].startswith("-") else words
        nargs = _shown_nargs(values)
        if not words[0].startswith("-") and optional:
            nargs = "?" if nargs is None else "*"
        shown[name] = (optional, nargs)
    for action in parser._actions:
        name = action.option_strings[0] if action.option_strings else action.metavar
        optional, nargs = shown.pop(name)
        assert optional == (not action.required), name
        accepted = 0 if action.nargs == 0 else action.nargs
        assert nargs == accepted, (name, nargs, accepted)
        for other in action.option_strings[1:]:
            shown.pop(other, None)
    assert not shown, shown
    # And the parser does as the usage says: one --load in simulate, several in compare; without
    # --scheduler both run the same default schedulers.
    given = [command, "model", "--scheduler", "easy"]
    assert build_parser().parse_args([*given, "--load", "1", "--load", "2"]).load == ["1", "2"]
    if command == "compare":
        assert build_parser().parse_args([*given, "--load", "1", "2"]).load == ["1", "2"]
        args = build_parser().parse_args([command, "model"])
        assert [s.label for s in scheduler_specs(args)] == ["FCFS", "EASY", "Conservative"]
    else:
        args = build_parser().parse_args([command, "--load", "1", "trace.swf"])
        assert (args.load, args.swf_path) == (["1"], "trace.swf")


def test_the_metric_table_and_compare_show_a_value_alike() -> None:
    from backfill.cli._tables import chosen_table, metric_cell

    row = {"scheduler": "EASY", "priority": "fcfs", "users": 3.0, "sn_jobs": float("nan"), "seconds": 1.23456}
    row |= {"under_shared": 0.25, "mean_wait": 12.34}
    columns = ["users", "sn_jobs", "seconds", "under_shared", "mean_wait"]
    line = chosen_table([row], columns).splitlines()[1].split()
    assert line == ["EASY(fcfs)", *(metric_cell(c, row[c]) for c in columns)]
    assert line[1:] == ["3", "-", "1.23", "0.250", "12.3"]
