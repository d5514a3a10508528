"""The command line as scripts use it: one vocabulary, machine-readable outputs, progress, interruption."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import backfill.cli._simulate_runs as simulate_runs
import backfill.cli.simulate as cli_simulate
from backfill import kernel
from backfill.cli import build_parser, main
from backfill.cli.options import ORDER_HINT
from backfill.experiments.cache import file_digest, library_version
from backfill.experiments.outputs import JOB_COLUMNS, PROVENANCE_COLUMNS
from backfill.experiments.results import COLUMNS, SweepResult
from backfill.schedulers import EASY
from backfill.simulator import simulate
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.swf import read_swf, write_swf

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def small_log(tmp_path: Path, n: int = 150) -> Path:
    """A small SWF log whose header notes, as real ones do, the scheduler of the original system."""
    path = tmp_path / "small.swf"
    workload = lublin_feitelson(n, machine_size=32, seed=5, estimates="f-model")
    write_swf(path, workload, header={"Computer": "Test machine", "Note": "uses the EASY scheduler"})
    return path


def subcommand(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]  # type: ignore[no-any-return]


# -- one vocabulary ----------------------------------------------------------------------------


def test_both_commands_define_the_shared_options_alike() -> None:
    def options(parser: argparse.ArgumentParser) -> dict[str, tuple[object, ...]]:
        return {
            a.option_strings[0]: (a.dest, a.nargs, getattr(a.type, "__name__", a.type), a.metavar, a.choices)
            for a in parser._actions
            if a.option_strings
        }

    sim, cmp = options(subcommand("simulate")), options(subcommand("compare"))
    shared = ["--scheduler", "--priority", "--load", "--estimates", "--bound", "--csv", "--json"]
    shared += ["--jobs-csv", "--figures", "--progress", "--depth", "--window", "--threshold", "--goal"]
    shared += ["--predictor", "--resolution", "--correction", "--planning-window", "--max-tested"]
    shared += ["--backfill-order", "--bf-window", "--bf-resolution", "--bf-max-job-test"]
    shared += ["--bf-job-part-count-reserve", "--warmup", "--cooldown", "--metric"]
    for option in shared:
        assert option in sim and option in cmp, option
        if option in ("--load", "--estimates"):  # simulate takes one value, compare sweeps several
            assert (sim[option][1], cmp[option][1]) == (None, "+"), option
            assert sim[option][2:] == cmp[option][2:], option
            continue
        assert sim[option] == cmp[option], option


@pytest.mark.parametrize("option", ["--scheduler easy", "--priority sjf", "--load 1.2", "--estimates exact"])
@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_a_workload_after_an_option_gets_the_same_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, option: str
) -> None:
    log = str(small_log(tmp_path))
    argv = [command, *option.split(), log]
    if command == "compare":
        argv = [command, "model:n=50", *option.split(), log]
    if "--scheduler" not in option:
        argv += ["--scheduler", "easy"]
    code, out, err = run(capsys, *argv)
    if command == "simulate" and option.startswith(("--load", "--estimates")):
        # Options of one value take one word: the log after it is simulate's log.
        assert code == 0 and "small.swf" in out and err == ""
        return
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    name = option.split()[0]
    assert f"{name} {log!r} is a workload" in err and ORDER_HINT in err


@pytest.mark.parametrize("command", ["simulate", "compare"])
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--scheduler", "magic"], "--scheduler 'magic': unknown scheduler 'magic'"),
        (["--priority", "random"], "--priority 'random': unknown priority 'random'"),
        (["--load", "0"], "--load '0': "),
        (["--load", "nan"], "--load 'nan': "),
        (["--estimates", "guess"], "--estimates 'guess': unknown estimates 'guess'"),
        (["--scheduler", "easy:depth=0"], "depth: expected a positive number, got 0"),
    ],
)
def test_bad_values_get_the_same_one_line_error_in_both_commands(
    capsys: pytest.CaptureFixture[str], command: str, argv: list[str], fragment: str
) -> None:
    workload = ["model:n=50"] if command == "compare" else ["--jobs", "50"]
    if "--scheduler" not in argv:
        argv = [*argv, "--scheduler", "easy"]
    code, out, err = run(capsys, command, *workload, *argv, "--no-progress")
    assert (code, out) == (2, "")
    assert err.startswith("backfill: error: ") and err.count("\n") == 1 and fragment in err, err


@pytest.mark.parametrize("word", ["user", "f-model", "exact", "accurate"])
def test_estimate_words_mean_the_same_in_both_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], word: str
) -> None:
    policy = "exact" if word in ("exact", "accurate") else "user"
    sim_csv, cmp_csv = tmp_path / "sim.csv", tmp_path / "cmp.csv"
    run(
        capsys, "simulate", "--jobs", "200", "--scheduler", "easy", "--estimates", word, "--csv", str(sim_csv)
    )
    model = "model:n=200"
    code, _, err = run(
        capsys,
        "compare",
        model,
        "--scheduler",
        "easy",
        "--estimates",
        word,
        "--csv",
        str(cmp_csv),
        "--workers",
        "1",
    )
    assert code == 0, err
    (sim,), (cmp,) = SweepResult.from_csv(sim_csv).rows, SweepResult.from_csv(cmp_csv).rows
    assert sim["estimates"] == cmp["estimates"] == policy
    for metric in ("jobs", "mean_wait", "mean_bsld", "makespan"):
        assert sim[metric] == cmp[metric], metric  # the same workload, simulated alike


def test_simulate_takes_several_priorities_and_specs_with_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--jobs",
        "200",
        "--scheduler",
        "easy:depth=4",
        "conservative",
        "--priority",
        "sjf",
        "lxf",
    )
    assert code == 0
    assert "EASY(sjf, depth=4)" in out and "EASY(lxf, depth=4)" in out and "Conservative" in out
    assert "note: conservative takes no priority" in out


def test_a_parameter_option_applies_in_compare_as_in_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "compare", "model:n=80", "--scheduler", "easy", "pc", "--depth", "3", "--workers", "1"
    )
    assert code == 0
    assert "EASY(depth=3)" in out and "| PC " in out  # PC takes no depth


def test_simulate_runs_one_load_and_says_where_to_sweep(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "simulate", "--jobs", "50", "--load", "1", "--load", "1.5")
    assert (code, out) == (2, "")
    assert "--load 1.0 1.5: simulate runs one; backfill compare sweeps several" in err
    # A second value after the option is read as the log, and the error says why it may not be one.
    code, out, err = run(capsys, "simulate", "--jobs", "50", "--load", "1", "1.5")
    assert (code, out) == (2, "")
    assert err == (
        "backfill: error: cannot read 1.5: No such file or directory "
        "(simulate takes one --load factor; backfill compare sweeps several)\n"
    )
    code, out, err = run(capsys, "simulate", "--jobs", "50", "--estimates", "user", "exact")
    assert "(simulate takes one --estimates policy; backfill compare sweeps several)" in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"backfill {library_version()}"


# -- machine-readable outputs ------------------------------------------------------------------


def test_simulate_writes_metrics_as_csv_and_json_with_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = small_log(tmp_path)
    rows_csv, rows_json = tmp_path / "m.csv", tmp_path / "m.json"
    code, out, _ = run(
        capsys,
        "simulate",
        str(log),
        "--scheduler",
        "easy:depth=2",
        "conservative",
        "--priority",
        "sjf",
        "--load",
        "1.2",
        "--estimates",
        "exact",
        "--csv",
        str(rows_csv),
        "--json",
        str(rows_json),
    )
    assert code == 0 and f"wrote {rows_csv}" in out and f"wrote {rows_json}" in out
    with rows_csv.open() as f:
        header = next(csv.reader(f))
    assert header == list(COLUMNS)
    rows = SweepResult.from_csv(rows_csv).rows
    data = json.loads(rows_json.read_text())
    assert data["version"] == library_version() and data["command"] == "simulate" and data["bound"] == 10.0
    assert [r["scheduler"] for r in rows] == ["EASY(depth=2)", "Conservative"]
    for row, item in zip(rows, data["data"], strict=True):
        assert row["version"] == item["version"] == library_version()
        assert row["source"] == item["source"] == "small.swf"
        assert row["sha256"] == item["sha256"] == file_digest(log)
        assert row["seed"] == "" and item["seed"] is None
        assert row["load"] == item["load"] == 1.2 and row["estimates"] == item["estimates"] == "exact"
        assert row["mean_wait"] == item["mean_wait"]
    assert [r["priority"] for r in rows] == ["sjf", "fcfs"]
    assert data["data"][0]["params"] == {"depth": 2}
    # The table's numbers are those of a direct simulation.
    workload = read_swf(log)[0].with_exact_estimates().scaled(1.2)
    from backfill.schedulers.machinery.priorities import PRIORITIES

    direct = simulate(workload, EASY(depth=2, priority=PRIORITIES["sjf"]))
    assert rows[0]["mean_wait"] == pytest.approx(float(np.mean(direct.wait)))


def test_model_provenance_has_the_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "m.json"
    run(capsys, "simulate", "--jobs", "60", "--seed", "9", "--scheduler", "fcfs", "--json", str(target))
    (row,) = json.loads(target.read_text())["data"]
    assert (row["source"], row["sha256"], row["seed"]) == ("lublin_feitelson", "", 9)
    assert row["workload"] == "lublin(n_jobs=60, machine_size=128, seed=9, estimates='f-model')"


def test_compare_csv_and_json_carry_the_version_and_checksum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = small_log(tmp_path)
    rows_csv, rows_json = tmp_path / "c.csv", tmp_path / "c.json"
    code, _, err = run(
        capsys,
        "compare",
        str(log),
        "model:n=60,seed=4",
        "--scheduler",
        "easy",
        "fcfs",
        "--csv",
        str(rows_csv),
        "--json",
        str(rows_json),
        "--workers",
        "1",
    )
    assert code == 0, err
    rows = SweepResult.from_csv(rows_csv).rows
    assert {r["version"] for r in rows} == {library_version()}
    assert {(r["source"], r["sha256"], r["seed"]) for r in rows} == {
        ("small.swf", file_digest(log), ""),
        ("lublin_feitelson", "", 4),
    }
    data = json.loads(rows_json.read_text())
    assert data["command"] == "compare" and data["baseline"] == "EASY" and len(data["data"]) == 4


def test_per_job_csv_has_every_job_and_its_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "jobs.csv"
    code, out, _ = run(capsys, "simulate", "--jobs", "300", "--scheduler", "easy", "--jobs-csv", str(target))
    assert code == 0 and f"wrote {target}" in out
    with target.open() as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == JOB_COLUMNS
        rows = list(reader)
    expected = simulate(lublin_feitelson(300, seed=0, estimates="f-model"), EASY())
    assert [int(r["jobID"]) for r in rows] == expected.workload.column("id").tolist()
    assert np.array_equal([float(r["starting_time"]) for r in rows], expected.start)
    assert np.array_equal([float(r["finish_time"]) for r in rows], expected.end)
    assert np.array_equal([float(r["waiting_time"]) for r in rows], expected.wait)
    assert [int(r["requested_number_of_resources"]) for r in rows] == expected.processors.tolist()
    for r in rows:
        lanes = sum(
            (int(b) - int(a) + 1) if "-" in part else 1
            for part in r["allocated_resources"].split()
            for a, _, b in [part.partition("-")]
        )
        assert lanes == int(r["requested_number_of_resources"]) or float(r["execution_time"]) == 0
        assert r["scheduler"] == "EASY" and r["success"] == "1" and r["user"] == r["group"] == "-1"
        assert float(r["bounded_slowdown"]) >= 1.0
    # The provenance once, on the first row; the others leave it empty.
    assert rows[0]["version"] == library_version()
    assert all(r[c] == "" for r in rows[1:] for c in PROVENANCE_COLUMNS)
    assert {k: rows[0][k] for k in PROVENANCE_COLUMNS[1:7]} == {
        "source": "lublin_feitelson",
        "sha256": "",
        "seed": "0",
        "reading": "",  # no log read
        "kernel": "compiled" if kernel.compiled() else "python",
        "path": expected.path,
    }
    assert json.loads(rows[0]["argv"]) == ["backfill", "simulate", "--jobs", "300", "--scheduler", "easy",
                                           "--jobs-csv", str(target)]  # fmt: skip
    assert rows[0]["utc"] != ""


def test_evalys_reads_the_per_job_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobset = pytest.importorskip("evalys.jobset", reason="evalys is the optional 'evalys' extra")
    target = tmp_path / "jobs.csv"
    run(
        capsys, "simulate", str(small_log(tmp_path)), "--scheduler", "conservative", "--jobs-csv", str(target)
    )
    js = jobset.JobSet.from_csv(str(target))
    assert js.MaxProcs <= 32 and len(js.df) == 150
    log = read_swf(small_log(tmp_path))[0]
    assert js.df["user"].tolist() == log.column("user").tolist()
    assert js.df["group"].tolist() == log.column("group").tolist()
    assert js.df["version"].iloc[0] == library_version() and js.df["version"].iloc[1:].isna().all()
    schedule = simulate(
        read_swf(small_log(tmp_path))[0],
        cli_simulate.scheduler_specs(build_parser().parse_args(["simulate", "--scheduler", "conservative"]))[
            0
        ].build(),
    )
    assert np.allclose(js.df["starting_time"].to_numpy(), schedule.start)
    assert np.allclose(js.df["waiting_time"].to_numpy(), schedule.wait)
    assert js.df["proc_alloc"].tolist() == schedule.processors.tolist()
    busy = js.utilisation  # evalys's own sweep over the allocations: never more than the machine
    assert int(busy["load"].max()) <= 32


def test_compare_writes_one_per_job_csv_per_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "jobs.csv"
    cache = tmp_path / "cache"
    argv = [
        "compare",
        "model:n=80",
        "--scheduler",
        "easy",
        "fcfs",
        "--load",
        "1",
        "1.5",
        "--jobs-csv",
        str(target),
        "--workers",
        "1",
        "--cache",
        str(cache),
    ]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    names = sorted(p.name for p in tmp_path.glob("jobs-*.csv"))
    assert names == [
        "jobs-easy-load1.5.csv",
        "jobs-easy-load1.csv",
        "jobs-fcfs-load1.5.csv",
        "jobs-fcfs-load1.csv",
    ]
    first = (tmp_path / "jobs-easy-load1.5.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(first)))
    assert (
        len(rows) == 80
        and {r["load"] for r in rows} == {"1.5"}
        and {r["scheduler"] for r in rows} == {"EASY"}
    )
    for path in tmp_path.glob("jobs-*.csv"):
        path.unlink()
    code, out, _ = run(capsys, *argv)  # from the cache: the same files, but for the start time
    assert "0 simulated, 4 from the cache" in out

    def but_the_time(text: str) -> list[dict[str, str]]:
        return [{k: v for k, v in row.items() if k != "utc"} for row in csv.DictReader(io.StringIO(text))]

    assert but_the_time((tmp_path / "jobs-easy-load1.5.csv").read_text()) == but_the_time(first)


def test_the_swf_header_names_the_scheduler_not_the_input_systems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, target = small_log(tmp_path), tmp_path / "out.swf"
    code, _, _ = run(
        capsys,
        "simulate",
        str(log),
        "--scheduler",
        "conservative",
        "--load",
        "1.1",
        "--output-swf",
        str(target),
    )
    assert code == 0
    notes = [line for line in target.read_text().splitlines() if line.startswith("; Note:")]
    assert notes[0] == (
        f"; Note: schedule simulated by backfill {library_version()} with Conservative; "
        "field 3 (wait) is the simulated wait"
    )
    assert "load factor 1.1, estimates user" in notes[1]
    assert file_digest(log) in notes[2] and "small.swf" in notes[2]
    assert notes[-1] == "; Note: (input log) uses the EASY scheduler"
    assert "; Computer: Test machine" in target.read_text()
    assert read_swf(target)[0].header["Computer"] == "Test machine"


@pytest.mark.parametrize("option", ["--output-swf", "--csv", "--json", "--jobs-csv"])
def test_output_paths_are_checked_before_simulating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("simulated before checking the output path")

    monkeypatch.setattr(simulate_runs, "simulate", never)
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "missing" / "out.txt"
    code, out, err = run(capsys, "simulate", "--jobs", "20", option, str(target))
    assert (code, out) == (2, "")
    assert err == f"backfill: error: cannot write {target}: {tmp_path / 'file'} is not a directory\n"
    assert not (tmp_path / "missing").exists()


def test_an_output_that_is_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "compare", "model:n=20", "--scheduler", "easy", "--csv", str(tmp_path))
    assert code == 2 and f"cannot write {tmp_path}: it is a directory" in err


# -- progress ----------------------------------------------------------------------------------


def test_progress_is_off_when_piped_and_on_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    _, _, quiet = run(capsys, "simulate", "--jobs", "300", "--scheduler", "easy")
    assert quiet == ""
    _, _, shown = run(
        capsys, "simulate", "--jobs", "300", "--scheduler", "easy", "conservative", "--progress"
    )
    assert "simulate" in shown and "600/600" in shown


def test_progress_is_on_by_default_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    _, _, shown = run(capsys, "simulate", "--jobs", "300", "--scheduler", "easy")
    assert "300/300" in shown
    _, _, off = run(capsys, "simulate", "--jobs", "300", "--scheduler", "easy", "--no-progress")
    assert off == ""


def test_stepped_simulation_reports_progress_and_changes_nothing() -> None:
    workload = lublin_feitelson(1000, machine_size=64, seed=4)
    seen: list[int] = []
    stepped = simulate(workload, EASY(), progress=seen.append)
    plain = simulate(workload, EASY())
    assert np.array_equal(stepped.start, plain.start) and np.array_equal(
        stepped.reservations, plain.reservations
    )
    assert seen == sorted(seen) and seen[-1] == 1000 and len(seen) == 100


# -- interruption ------------------------------------------------------------------------------


def _session_processes(session: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            # Fields after the command name (in parentheses): state, ppid, pgrp, session, ...
            if int(stat.rsplit(")", 1)[1].split()[3]) == session:
                pids.append(int(entry))
    return pids


def _as_a_foreground_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc to find the workers")
@pytest.mark.parametrize(("signum", "whole_group"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_compare_stops_on_a_signal_with_one_line(tmp_path: Path, signum: int, whole_group: bool) -> None:
    cache = tmp_path / "cache"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    argv = [
        sys.executable,
        "-m",
        "backfill",
        "compare",
        "model:n=6000",
        "--scheduler",
        "easy",
        "conservative",
        "pc",
        "dc",
        "--load",
        "1",
        "1.1",
        "1.2",
        "1.3",
        "1.4",
        "--workers",
        "2",
        "--cache",
        str(cache),
        "--no-progress",
    ]
    # A session of its own, as a terminal's foreground job: Ctrl-C signals the whole process group.
    # A foreground job takes SIGINT's default action even when the tests run where it is ignored (a
    # shell's background job: `.ci/run &`), in which case Python would never raise KeyboardInterrupt.
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=_as_a_foreground_job,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(cache.glob("*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        assert len(_session_processes(proc.pid)) >= 2  # the workers are running
        sent = time.monotonic()
        if whole_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert took < 10
    assert proc.returncode == 128 + signum
    assert "Traceback" not in err and err.count("\n") == 1, err
    match = re.fullmatch(
        rf"backfill: interrupted \({signal.Signals(signum).name}\): (\d+) of 20 cells finished; "
        rf"--cache {re.escape(str(cache))} keeps them: the same command goes on from there\n",
        err,
    )
    assert match, err
    assert len(list(cache.glob("*.json"))) >= int(match.group(1)) >= 1
    time.sleep(0.5)
    assert _session_processes(proc.pid) == []  # no worker left behind


def test_simulate_interrupted_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(simulate_runs, "simulate", interrupted)
    code, _, err = run(capsys, "simulate", "--jobs", "20")
    assert code == 130
    assert err == "backfill: interrupted (SIGINT): 0 of 3 schedules finished; nothing written\n"


@pytest.fixture
def interactive_sigint() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in a terminal, even where the tests run in the background.

    A shell without job control starts a background command with SIGINT ignored, and Python keeps
    an ignored SIGINT ignored; ``backfill`` then ignores Ctrl-C as every such command does.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_the_second_run(monkeypatch: pytest.MonkeyPatch, signum: int) -> None:
    """Make ``simulate``'s second run receive ``signum`` as it starts."""
    real, calls = simulate_runs.simulate, []

    def signalled_in_the_second_run(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            # As Ctrl-C or kill would, through the command's handlers; raise_signal delivers it to this
            # thread (os.kill may hand it to another thread of the process, and it arrives late).
            signal.raise_signal(signum)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate_runs, "simulate", signalled_in_the_second_run)


@pytest.mark.usefixtures("interactive_sigint")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_simulate_keeps_and_writes_what_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    _interrupt_the_second_run(monkeypatch, signum)
    out_dir = tmp_path / "out"
    code, out, err = run(
        capsys, "simulate", "--jobs", "60", "--scheduler", "fcfs", "easy", "conservative",
        "--csv", str(out_dir / "m.csv"), "--json", str(out_dir / "m.json"),
        "--jobs-csv", str(out_dir / "jobs.csv"),
    )  # fmt: skip
    name = signal.Signals(signum).name
    assert code == 128 + signum
    assert err == (
        f"backfill: interrupted ({name}): 1 of 3 schedules finished (FCFS(fcfs)), printed and written; "
        "not finished: EASY(fcfs), Conservative\n"
    )
    assert "FCFS(fcfs)" in out and "EASY(fcfs)" not in out and "1 schedule(s) valid" in out
    rows = SweepResult.from_csv(out_dir / "m.csv").rows
    assert [r["scheduler"] for r in rows] == ["FCFS"]
    assert [r["scheduler"] for r in json.loads((out_dir / "m.json").read_text())["data"]] == ["FCFS"]
    assert sorted(p.name for p in out_dir.iterdir()) == ["jobs-fcfs.csv", "m.csv", "m.json"]


def test_an_interrupted_simulate_draws_the_figures_of_what_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    _interrupt_the_second_run(monkeypatch, signal.SIGTERM)
    figures = tmp_path / "figs"
    code, _, _ = run(
        capsys, "simulate", "--jobs", "60", "--scheduler", "fcfs", "easy", "--figures", str(figures)
    )
    assert code == 128 + signal.SIGTERM
    assert sorted(p.name for p in figures.iterdir()) == ["gantt-fcfs.png", "utilization_queue.png"]


def _interrupted_before_any_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(simulate_runs, "simulate", interrupted)


def test_a_simulate_interrupted_before_any_schedule_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _interrupted_before_any_schedule(monkeypatch)
    argv = ["simulate", "--jobs", "20", "--scheduler", "easy", "--csv", str(tmp_path / "new" / "m.csv")]
    code, out, err = run(capsys, *argv)
    assert code == 130 and "wrote" not in out
    assert err == "backfill: interrupted (SIGINT): 0 of 1 schedules finished; nothing written\n"
    assert sorted(tmp_path.iterdir()) == []


def test_a_simulate_interrupted_before_any_schedule_leaves_no_figures_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    _interrupted_before_any_schedule(monkeypatch)
    code, _, _ = run(
        capsys, "simulate", "--jobs", "20", "--scheduler", "easy", "--figures", str(tmp_path / "f")
    )
    assert code == 130
    assert sorted(tmp_path.iterdir()) == []


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc to find the workers")
def test_compare_workers_exit_when_the_parent_is_killed(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    argv = [sys.executable, "-m", "backfill", "compare", "model:n=6000", "--scheduler", "easy"]
    argv += ["conservative", "pc", "--load", "1", "1.2", "1.4", "--workers", "2", "--cache", str(cache)]
    argv += ["--no-progress"]
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [pid for pid in _session_processes(proc.pid) if pid != proc.pid]
            if len(workers) >= 2 and list(cache.glob("*.json")):
                break
            time.sleep(0.05)
        assert proc.poll() is None and len(workers) >= 2, "the sweep ended before its workers could be seen"
        proc.kill()  # kill -9: the parent can clean nothing up
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "a pool worker outlived its parent"
    finally:
        for pid in _session_processes(proc.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_pool_workers_ask_to_die_with_their_parent() -> None:
    import concurrent.futures as cf

    import backfill.experiments.fair_start as fair_start
    from backfill.experiments._parallel import worker_init

    with cf.ProcessPoolExecutor(1, initializer=worker_init) as pool:
        assert pool.submit(_death_signal_of_this_process).result() == signal.SIGKILL
    with cf.ProcessPoolExecutor(1, initializer=fair_start.exit_with_parent) as pool:
        assert pool.submit(_death_signal_of_this_process).result() == signal.SIGKILL


def _death_signal_of_this_process() -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    value = ctypes.c_int(0)
    libc.prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
    return value.value


def test_without_the_death_signal_a_thread_ends_the_orphan(tmp_path: Path) -> None:
    # The portable fallback: a worker whose system cannot send it a signal watches its parent.
    script = """
import os, sys, time
import backfill.experiments._pool as pool
pool._death_signal = lambda: False
pool.POLL_SECONDS = 0.05
if os.fork() == 0:                 # the worker
    pool.exit_with_parent()
    time.sleep(30)
    os._exit(0)
time.sleep(0.3)
os._exit(0)                        # the parent dies first, as kill -9 would leave it
"""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 5
    while _session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in _session_processes(proc.pid) if _alive(pid)] == []


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_workers_started_otherwise_than_by_fork_live_while_their_parent_does(method: str) -> None:
    # Under forkserver a worker's parent is the server, not the process that made the pool.
    import concurrent.futures as cf
    import multiprocessing

    from backfill.experiments._pool import exit_with_parent

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    context = multiprocessing.get_context(method)
    with cf.ProcessPoolExecutor(2, mp_context=context, initializer=exit_with_parent) as pool:
        assert sum(pool.map(abs, [-1, -2, -3, -4])) == 10
