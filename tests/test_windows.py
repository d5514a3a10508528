"""A log cut into windows, replications of one configuration: the partition, the cells, the CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill import EASY, BackfillError, Workload, simulate, write_swf
from backfill.cli import main
from backfill.experiments._workload_specs import _window_bounds
from backfill.experiments.results import SweepResult
from backfill.experiments.sweep import Cell, TraceWorkload
from backfill.measures.metrics import summarize
from backfill.workloads.lublin import lublin_feitelson

# The log of these tests: 97 jobs the reader keeps, and two it drops (no runtime; no processors).
JOBS = 97


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("windows") / "small.swf"
    write_swf(path, lublin_feitelson(JOBS, machine_size=16, seed=5, estimates="f-model"))
    with path.open("a") as f:
        f.write(f"{JOBS + 1} 10 -1 -1 4 -1 -1 4 100 -1 0 1 1 -1 1 -1 -1 -1\n")
        f.write(f"{JOBS + 2} 20 -1 50 0 -1 -1 0 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- the partition ---------------------------------------------------------------------------------


# No deadline: a machine under load must not fail a test of arithmetic.
@settings(deadline=None)
@given(st.integers(1, 100_000).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, min(n, 5_000)))))
def test_window_bounds_partition_the_jobs_in_nearly_equal_consecutive_parts(case: tuple[int, int]) -> None:
    n_jobs, n = case
    bounds = _window_bounds(n_jobs, n)
    assert len(bounds) == n and bounds[0][0] == 0 and bounds[-1][1] == n_jobs
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))  # consecutive: every job once
    sizes = [stop - start for start, stop in bounds]
    assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1 and sum(sizes) == n_jobs


@settings(max_examples=25, deadline=None)
@given(st.integers(1, JOBS))
def test_every_job_of_the_cleaned_log_is_in_exactly_one_window(log: Path, n: int) -> None:
    whole = TraceWorkload(log).load()
    parts = [w.load() for w in TraceWorkload(log).windows(n)]
    ids = np.concatenate([p.column("id") for p in parts])
    assert ids.tolist() == whole.column("id").tolist()  # in submit order, none twice, none lost
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    # Each window keeps its jobs' submit times and the log's machine.
    assert all(p.machine_size == whole.machine_size for p in parts)
    assert np.concatenate([p.column("submit") for p in parts]).tolist() == whole.column("submit").tolist()


def test_a_window_is_part_of_the_label_identity_and_cache_key(log: Path) -> None:
    trace = TraceWorkload(log)
    first, second = trace.windows(2)
    assert (first.window, second.window) == ((0, 48), (48, 97))
    assert (first.label, second.label) == ("small jobs 1-48", "small jobs 49-97")
    assert "window" not in trace.identity() and first.identity()["window"] == [0, 48]
    keys = {Cell(w, "EASY").key() for w in (trace, first, second)}
    assert len(keys) == 3
    assert TraceWorkload(log, window=[0, 48]) == first  # a list (from JSON) is the same window
    named = TraceWorkload(log, name="KTH").windows(2)
    assert [w.label for w in named] == ["KTH jobs 1-48", "KTH jobs 49-97"]


def test_a_window_keeps_its_submit_times_and_measures_as_if_shifted_to_zero(log: Path) -> None:
    window = TraceWorkload(log).windows(3)[2].load()
    first = float(window.column("submit")[0])
    assert first > 0 and window.provenance["window"] == [64, 97]
    records = window.records.copy()
    records["submit"] -= first
    shifted = Workload(records, window.machine_size)
    here, there = summarize(simulate(window, EASY())), summarize(simulate(shifted, EASY()))
    for column in ("mean_wait", "mean_bsld", "utilization", "makespan", "jobs"):
        assert here[column] == pytest.approx(there[column]), column


@pytest.mark.parametrize(
    ("n", "fragment"),
    [
        (0, "an integer from 1, got 0"),
        (-3, "an integer from 1, got -3"),
        (2.5, "an integer from 1, got 2.5"),
        (True, "an integer from 1, got True"),
        (JOBS + 1, f"98 windows of small, which has {JOBS} jobs"),
    ],
)
def test_windows_refuse_a_count_that_cannot_cut_the_log(log: Path, n: object, fragment: str) -> None:
    with pytest.raises(BackfillError, match=fragment.replace("(", r"\(")):
        TraceWorkload(log).windows(n)  # type: ignore[arg-type]


@pytest.mark.parametrize("window", [(3, 3), (-1, 4), (5, 2), (0, 1.5), (0,), "0-4"])
def test_a_window_that_is_not_a_slice_of_jobs_is_refused(log: Path, window: object) -> None:
    with pytest.raises(BackfillError, match="window must be None or"):
        TraceWorkload(log, window=window)  # type: ignore[arg-type]


def test_a_window_past_the_log_and_a_window_of_a_window_are_refused(log: Path) -> None:
    with pytest.raises(BackfillError, match="the log has only 97 jobs after cleaning"):
        TraceWorkload(log, window=(90, 120)).load()
    with pytest.raises(BackfillError, match="is already a window of its log"):
        TraceWorkload(log).windows(2)[0].windows(2)


# -- the command line ------------------------------------------------------------------------------


def test_compare_windows_report_each_configuration_over_the_windows_and_cache_them(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows_csv, rows_json, cache = tmp_path / "rows.csv", tmp_path / "m.json", tmp_path / "cache"
    argv = [
        "compare", str(log), "--windows", "4", "--scheduler", "conservative", "easy",
        "--csv", str(rows_csv), "--json", str(rows_json), "--cache", str(cache), "--workers", "1",
    ]  # fmt: skip
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert out.startswith("8 cells: 8 simulated, 0 from the cache")
    assert "over 4 replications per configuration (4 windows of each log)" in out
    lines = [line for line in out.splitlines() if line.startswith("| small (4 windows) ")]
    assert len(lines) == 3  # two schedulers' values, and EASY's paired improvement
    assert all(line.split("|")[6].strip() == "4" and " ± " in line for line in lines)
    rows = SweepResult.from_csv(rows_csv).rows
    assert [r["workload"] for r in rows[::2]] == [
        f"small jobs {w}" for w in ("1-24", "25-48", "49-72", "73-97")
    ]
    assert [r["jobs"] + r["rejected"] for r in rows[::2]] == [24, 24, 24, 25]
    assert len(json.loads(rows_json.read_text())["replications"]) == 2 * 2 + 2
    code, again, err = run(capsys, *argv)
    assert code == 0, err
    assert again.startswith("8 cells: 0 simulated, 8 from the cache")
    strip = [{k: v for k, v in r.items() if k not in ("seconds", "utc")} for r in rows]
    assert strip == [
        {k: v for k, v in r.items() if k not in ("seconds", "utc")}
        for r in SweepResult.from_csv(rows_csv).rows
    ]


def test_compare_windows_refuse_seeds_that_would_replicate_nothing(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A log has no seed: --seeds without a model is refused, with --windows too, as --windows
    # without a log is (it ran, the seeds unused, before issue 53).
    argv = [
        "compare",
        str(log),
        "--windows",
        "2",
        "--seeds",
        "1",
        "2",
        "--scheduler",
        "easy",
        "--workers",
        "1",
    ]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (
        "backfill: error: --seeds replicates the model workload, and no model is given (a log has no "
        "seed; --windows N replicates a log)\n"
    )
    code, out, err = run(capsys, *argv[:4], *argv[7:])
    assert code == 0, err
    assert "over 2 replications per configuration (2 windows of each log)" in out


def test_compare_windows_and_seeds_replicate_the_logs_and_the_models(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "compare", str(log), "model:n=50,machine_size=16", "--windows", "3", "--seeds", "1", "2",
        "--scheduler", "easy", "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "over 2/3 replications per configuration (seeds 1, 2; 3 windows of each log)" in out
    assert "| small (3 windows) " in out and "| model:n=50,machine_size=16 " in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--windows", "1"], "--windows '1': replications need at least 2 windows"),
        (["--windows", "0"], "--windows '0': replications need at least 2 windows"),
        (["--windows", "-4"], "--windows '-4': replications need at least 2 windows"),
        (["--windows", "2.5"], "--windows '2.5': expected a whole number of windows"),
        (["--windows", "x"], "--windows 'x': expected a whole number of windows"),
        (["--windows", "98"], f"--windows 98: 98 windows of small, which has {JOBS} jobs"),
        (["--windows", "2", "--samples"], "--windows and --samples: give one"),
    ],
)
def test_compare_window_errors_are_one_line(
    log: Path, argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "compare", str(log), "model:n=20", "--scheduler", "easy", "--workers", "1", *argv
    )
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


def test_compare_windows_need_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "compare", "model:n=20", "--windows", "2", "--scheduler", "easy")
    assert code == 2 and err.splitlines() == [
        "backfill: error: --windows cuts SWF or Batsim logs, and no log is given"
    ]
