"""The sweep cache read back: every damaged file recomputed and counted, never used; unwritable caches."""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

import backfill.experiments.sweep as sweep
from backfill import BackfillError
from backfill.cli import main
from backfill.experiments.cache import content_key
from backfill.experiments.results import SweepResult
from backfill.experiments.sweep import Grid, ModelWorkload, run_sweep
from backfill.kernel import compiled, python_path

A = ModelWorkload(n_jobs=120, machine_size=16, seed=3, estimates="f-model")
GRID = Grid([A], ["EASY", "FCFS"])
MODEL = "model:n=150,machine_size=16,seed=2"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cell_file(cache: Path, index: int, grid: Grid = GRID) -> Path:
    """The cache file of the grid's ``index``-th cell."""
    cell = list(grid.cells())[index]
    return cache / f"{cell.key()}.json"


def edit(path: Path, change: Any, *, reseal: bool) -> None:
    """Change a cell file's JSON; with ``reseal``, recompute its checksum as a faulty writer would."""
    data = json.loads(path.read_text())
    change(data)
    if reseal and "sha256" in data:
        data["sha256"] = content_key({"key": data["key"], "cell": data["cell"], "metrics": data["metrics"]})
    path.write_text(json.dumps(data))


def same_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    strip = [[(k, v) for k, v in row.items() if k != "seconds"] for row in a]
    return repr(strip) == repr([[(k, v) for k, v in row.items() if k != "seconds"] for row in b])


# -- damaged cells -----------------------------------------------------------------------------------


def test_an_edited_number_is_recomputed_and_counted(tmp_path: Path) -> None:
    fresh = run_sweep(GRID, cache=tmp_path, workers=1)
    edit(cell_file(tmp_path, 0), lambda d: d["metrics"].update(mean_wait=1.0), reseal=False)
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert same_rows(again.rows, fresh.rows)
    assert (again.computed, again.cached, again.damaged) == (1, 1, 1)
    # The file was repaired: a third run reads both cells.
    third = run_sweep(GRID, cache=tmp_path, workers=1)
    assert (third.computed, third.cached, third.damaged) == (0, 2, 0)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("mean_wait", float("nan")),
        ("mean_wait", float("inf")),
        ("max_wait", -5.0),
        ("makespan", True),
        ("jobs", True),
        ("jobs", -1),
        ("utilization", "0.5"),
        ("rejected_reasons", 3),
        ("path", ""),
        ("path", "fast"),
    ],
)
def test_a_value_out_of_type_or_range_is_never_used(tmp_path: Path, column: str, value: Any) -> None:
    # Resealed: a checksum that matches does not make a NaN wait or a boolean count a result.
    fresh = run_sweep(GRID, cache=tmp_path, workers=1)
    edit(cell_file(tmp_path, 1), lambda d: d["metrics"].update({column: value}), reseal=True)
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert same_rows(again.rows, fresh.rows)
    assert (again.computed, again.damaged) == (1, 1)


def test_cells_without_a_completed_job_or_with_one_are_read_back(tmp_path: Path) -> None:
    # Their statistics are NaN (no job completed) or come from one job: both sound, both cached.
    one, none = tmp_path / "one.swf", tmp_path / "none.swf"
    one.write_text("; MaxProcs: 4\n1 0 -1 0 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n")
    none.write_text(
        "; MaxProcs: 4\n1 0 -1 10 8 -1 -1 8 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )  # wider than the machine
    grid = Grid([one, none], ["EASY", "Conservative"], loads=[1.0, 2.0])
    fresh = run_sweep(grid, cache=tmp_path / "cache", workers=1, jobs=True)
    assert {row["jobs"] for row in fresh.rows} == {0, 1}
    again = run_sweep(grid, cache=tmp_path / "cache", workers=1, jobs=True)
    assert (again.cached, again.damaged) == (8, 0) and again.jobs == fresh.jobs
    zero = next(i for i, row in enumerate(fresh.rows) if row["jobs"] == 0)
    edit(cell_file(tmp_path / "cache", zero, grid), lambda d: d["metrics"].update(mean_wait=0.0), reseal=True)
    assert run_sweep(grid, cache=tmp_path / "cache", workers=1).damaged == 1  # no job, yet a mean wait


def test_another_cells_file_copied_under_a_key_is_not_used(tmp_path: Path) -> None:
    fresh = run_sweep(GRID, cache=tmp_path, workers=1)
    shutil.copyfile(cell_file(tmp_path, 1), cell_file(tmp_path, 0))
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert same_rows(again.rows, fresh.rows)
    assert (again.computed, again.damaged) == (1, 1)
    assert again.rows[0]["mean_wait"] != again.rows[1]["mean_wait"]


def test_a_file_that_is_not_json_or_not_whole_is_damaged(tmp_path: Path) -> None:
    run_sweep(GRID, cache=tmp_path, workers=1)
    cell_file(tmp_path, 0).write_text('{"format": 2, "metr')
    cell_file(tmp_path, 1).write_text("[1, 2]")
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert (again.computed, again.damaged) == (2, 2)


def test_a_file_of_an_older_format_is_recomputed_without_being_counted_as_damaged(tmp_path: Path) -> None:
    run_sweep(GRID, cache=tmp_path, workers=1)
    edit(cell_file(tmp_path, 0), lambda d: d.update(format=1), reseal=True)
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert (again.computed, again.cached, again.damaged) == (1, 1, 0)


def test_a_file_written_before_the_path_was_kept_is_recomputed_and_says_its_path(tmp_path: Path) -> None:
    fresh = run_sweep(GRID, cache=tmp_path, workers=1)

    def older(data: dict[str, Any]) -> None:
        del data["metrics"]["path"]
        data["format"] = 2

    edit(cell_file(tmp_path, 0), older, reseal=True)
    again = run_sweep(GRID, cache=tmp_path, workers=1)
    assert (again.computed, again.cached, again.damaged) == (1, 1, 0)
    assert same_rows(again.rows, fresh.rows) and again.rows[0]["path"] in ("compiled", "python")
    # In the current format a file without the path is damaged, not old.
    edit(cell_file(tmp_path, 1), lambda d: d["metrics"].pop("path"), reseal=True)
    assert run_sweep(GRID, cache=tmp_path, workers=1).damaged == 1


@pytest.mark.parametrize("path", ["compiled", "python"])
def test_compare_rows_say_which_code_made_each_schedule_computed_or_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    if path == "compiled" and not compiled():
        pytest.skip("the kernel is not in use (not built, or BACKFILL_PURE_PYTHON=1)")
    rows_csv, rows_json = tmp_path / "rows.csv", tmp_path / "m.json"
    argv = ["compare", MODEL, "--scheduler", "easy", "conservative", "--workers", "1"]
    argv += ["--cache", str(tmp_path / "cache"), "--csv", str(rows_csv), "--json", str(rows_json)]
    with python_path() if path == "python" else contextlib.nullcontext():
        code, out, err = run(capsys, *argv)
    assert code == 0 and "2 simulated" in out, err
    for fresh in (True, False):
        assert [r["path"] for r in SweepResult.from_csv(rows_csv).rows] == [path, path]
        assert [r["path"] for r in json.loads(rows_json.read_text())["data"]] == [path, path]
        if fresh:
            # Read back from the cache (outside python_path): the path of the code that made them.
            code, out, err = run(capsys, *argv)
            assert code == 0 and "2 from the cache" in out, err


def _cut_jobs(path: Path, *, reseal: bool) -> None:
    """Keep the first half of a per-job file's jobs; with ``reseal``, make its checksum match again."""
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
    mark = lines.pop(0) if lines[0].startswith("#") else None
    header, rows = lines[0], lines[1:]
    text = header + "".join(rows[: len(rows) // 2])
    if mark is not None:
        found = json.loads(mark.split(" ", 1)[1])
        if reseal:
            found["sha256"] = hashlib.sha256(text.encode()).hexdigest()
        mark = mark.split(" ", 1)[0] + " " + json.dumps(found) + "\n"
    path.write_bytes(gzip.compress(((mark or "") + text).encode()))


@pytest.mark.parametrize("reseal", [False, True])
def test_a_per_job_file_cut_short_is_recomputed_and_keeps_every_job(tmp_path: Path, reseal: bool) -> None:
    fresh = run_sweep(GRID, cache=tmp_path, workers=1, jobs=True)
    (jobs_file,) = tmp_path.glob(f"{next(iter(GRID.cells())).key()}.jobs.csv.gz")
    _cut_jobs(jobs_file, reseal=reseal)
    again = run_sweep(GRID, cache=tmp_path, workers=1, jobs=True)
    assert again.jobs == fresh.jobs
    assert again.jobs[0].count("\n") == 121  # a header and every job
    assert (again.computed, again.damaged) == (1, 1)


def test_a_truncated_gzip_per_job_file_is_damaged(tmp_path: Path) -> None:
    run_sweep(GRID, cache=tmp_path, workers=1, jobs=True)
    (jobs_file,) = tmp_path.glob(f"{list(GRID.cells())[1].key()}.jobs.csv.gz")
    jobs_file.write_bytes(jobs_file.read_bytes()[:40])
    again = run_sweep(GRID, cache=tmp_path, workers=1, jobs=True)
    assert (again.computed, again.damaged) == (1, 1)


def test_compare_says_what_it_validated_and_what_it_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", MODEL, "--scheduler", "easy", "fcfs", "--workers", "1", "--cache", str(tmp_path)]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "2 cells: 2 simulated, 0 from the cache" in out
    assert "schedules validated: 2 in this run\n" in out
    files = sorted(tmp_path.glob("*.json"))
    for f in files:
        edit(f, lambda d: d["metrics"].update(mean_wait="abc"), reseal=True)  # a string: a traceback once
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert "schedules validated: 2 in this run; 2 damaged cache cells recomputed\n" in out
    code, out, _ = run(capsys, *argv)
    assert "2 cells: 0 simulated, 2 from the cache" in out
    assert "schedules validated: 0 in this run, 2 when they were cached\n" in out
    assert "every schedule validated" not in out


def test_compare_jobs_csv_keeps_every_job_of_a_cut_cache_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache, jobs = tmp_path / "cache", tmp_path / "jobs.csv"
    argv = ["compare", MODEL, "--scheduler", "easy", "--workers", "1", "--cache", str(cache)]
    assert run(capsys, *argv, "--jobs-csv", str(jobs))[0] == 0
    whole = jobs.read_text()
    (jobs_file,) = cache.glob("*.jobs.csv.gz")
    _cut_jobs(jobs_file, reseal=False)
    code, out, _ = run(capsys, *argv, "--jobs-csv", str(jobs))
    assert code == 0 and "1 damaged cache cell recomputed" in out
    # The same jobs; only the run's start time (the utc column) may differ, by a second.
    assert _without_utc(jobs.read_text()) == _without_utc(whole) and whole.count("\n") == 151


def _without_utc(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "", text)


# -- caches that cannot be written ---------------------------------------------------------------------


def _never_simulate(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("simulated before the cache was refused")

    monkeypatch.setattr(sweep, "_measure", never)


def test_a_cache_where_no_file_can_be_created_is_refused_before_any_simulation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a read-only directory behaves for anyone but root (root writes anywhere).
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    _never_simulate(monkeypatch)
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    cache = tmp_path / "cache"
    code, out, err = run(
        capsys, "compare", MODEL, "--scheduler", "easy", "fcfs", "--workers", "1", "--cache", str(cache)
    )
    assert (code, out) == (2, "")
    assert err == f"backfill: error: cannot write in the sweep cache {str(cache)!r}: Permission denied\n"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes in a read-only directory"
)
def test_a_read_only_cache_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _never_simulate(monkeypatch)
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        code, _, err = run(
            capsys, "compare", MODEL, "--scheduler", "easy", "--workers", "1", "--cache", str(cache)
        )
    finally:
        cache.chmod(0o700)
    assert code == 2 and err.count("\n") == 1 and "cannot write in the sweep cache" in err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_directory_that_takes_no_files_even_for_root_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _never_simulate(monkeypatch)
    code, out, err = run(
        capsys, "compare", MODEL, "--scheduler", "easy", "--workers", "1", "--cache", "/proc"
    )
    assert (code, out) == (2, "")
    assert (
        err.startswith("backfill: error: cannot write in the sweep cache '/proc': ") and err.count("\n") == 1
    )


def test_a_cache_path_under_a_regular_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _never_simulate(monkeypatch)
    (tmp_path / "file").write_text("")
    cache = tmp_path / "file" / "cache"
    code, _, err = run(
        capsys, "compare", MODEL, "--scheduler", "easy", "--workers", "1", "--cache", str(cache)
    )
    assert code == 2 and err.count("\n") == 1 and f"cannot use {str(cache)!r} as a sweep cache" in err


def test_a_fully_cached_sweep_reads_a_cache_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_sweep(GRID, cache=tmp_path, workers=1)

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    assert run_sweep(GRID, cache=tmp_path, workers=1).cached == 2
    cell_file(tmp_path, 0).write_text("damaged")
    with pytest.raises(BackfillError, match="cannot write in the sweep cache"):
        run_sweep(GRID, cache=tmp_path, workers=1)


def _disk_fills_after(monkeypatch: pytest.MonkeyPatch, writes: int) -> None:
    """Make every flush to disk after the first ``writes`` fail as a full disk does."""
    fsync, count = os.fsync, [0]

    def full(fd: int) -> None:
        count[0] += 1
        if count[0] > writes:
            raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full)


def test_a_disk_that_fills_mid_sweep_loses_the_cache_not_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = Grid([A], ["EASY", "FCFS", "Conservative", "PC"])
    fresh = run_sweep(grid, workers=1)
    _disk_fills_after(monkeypatch, 2)
    with pytest.warns(RuntimeWarning, match="could not keep 2 of the 4 cells computed"):
        result = run_sweep(grid, cache=tmp_path, workers=1)
    assert same_rows(result.rows, fresh.rows)
    assert (result.computed, result.unsaved) == (4, 2)
    assert (
        result.cache_error.startswith(f"cannot write {tmp_path}")
        and "No space left on device" in result.cache_error
    )
    assert len(list(tmp_path.glob("*.json"))) == 2 and not list(tmp_path.glob(".*"))  # no temporary file left


def test_compare_on_a_disk_that_fills_shows_every_result_and_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _disk_fills_after(monkeypatch, 1)
    argv = ["compare", MODEL, "--scheduler", "easy", "fcfs", "conservative", "--workers", "1"]
    code, out, err = run(capsys, *argv, "--cache", str(tmp_path))
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    start = f"backfill: error: the cache {tmp_path} could not keep 2 of the 3 cells simulated (cannot write "
    assert err.startswith(start + str(tmp_path))
    assert err.endswith(".json: No space left on device); the results above are complete\n")
    assert "the cache could not keep 2 of them" in out
    monkeypatch.undo()
    _, plain, _ = run(capsys, *argv)
    assert _same_tables(plain, out)


def _same_tables(a: str, b: str) -> bool:
    """The metric and accounting tables of two compare runs agree, but for the wall-time column."""

    def tables(text: str) -> list[str]:
        body = text[text.index("metrics per cell") :]
        return [line for line in body.splitlines() if line.startswith("|")]

    return tables(a) == tables(b)
