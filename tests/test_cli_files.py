"""Outputs never destroy inputs or each other, are written whole, and special files stay special."""

from __future__ import annotations

import csv
import datetime
import errno
import hashlib
import json
import os
import resource
import select
import subprocess
import sys
import threading
from pathlib import Path

import attrs
import pytest

from backfill import kernel
from backfill._files import is_special, open_atomically, same_file, write_atomically
from backfill.cli import main
from backfill.experiments.results import SweepResult
from backfill.schedulers import FCFS, RelShare
from backfill.simulator import simulate
from backfill.workloads.cleaning import CleaningPolicy
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.swf import read_swf, write_swf

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "x.swf"
    write_swf(path, lublin_feitelson(60, machine_size=16, seed=4))
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- an output that is an input, or another output ----------------------------------------------------


@pytest.mark.parametrize("option", ["--output-swf", "--csv", "--json", "--jobs-csv"])
def test_simulate_refuses_to_overwrite_its_input(
    trace: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    before = digest(trace)
    code, out, err = run(capsys, "simulate", str(trace), "--scheduler", "easy", option, str(trace))
    assert (code, out) == (2, "")
    assert err == f"backfill: error: {option} {trace} would overwrite the input {trace}; give another path\n"
    assert digest(trace) == before


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_an_input_reached_through_a_link_is_refused_too(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    other = tmp_path / "other" / "copy.swf"
    other.parent.mkdir()
    (os.symlink if link == "symbolic" else os.link)(trace, other)
    before = digest(trace)
    code, _, err = run(capsys, "simulate", str(trace), "--scheduler", "fcfs", "--output-swf", str(other))
    assert code == 2
    assert err == (
        f"backfill: error: --output-swf {other} would overwrite the input {trace} (the same file); "
        "give another path\n"
    )
    assert digest(trace) == before


def test_a_per_schedule_output_that_lands_on_the_input_is_refused(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # With two schedulers, --jobs-csv j.swf writes j-easy.swf and j-fcfs.swf: the first is the input.
    data = tmp_path / "j-easy.swf"
    trace.rename(data)
    code, _, err = run(
        capsys, "simulate", str(data), "--scheduler", "easy", "fcfs", "--jobs-csv", str(tmp_path / "j.swf")
    )
    assert code == 2 and f"--jobs-csv {data} would overwrite the input {data}" in err


def test_compare_refuses_to_overwrite_a_trace(trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = digest(trace)
    code, out, err = run(capsys, "compare", str(trace), "--scheduler", "easy", "fcfs", "--csv", str(trace))
    assert (code, out) == (2, "")
    assert err == f"backfill: error: --csv {trace} would overwrite the input {trace}; give another path\n"
    assert digest(trace) == before


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_two_outputs_may_not_name_one_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    target = tmp_path / "m.out"
    argv = [command, "model:n=50"] if command == "compare" else [command, "--jobs", "50"]
    code, out, err = run(capsys, *argv, "--scheduler", "easy", "--csv", str(target), "--json", str(target))
    assert (code, out) == (2, "")
    assert err == f"backfill: error: --csv and --json both write {target}; give each output its own path\n"
    assert not target.exists()


def test_outputs_that_meet_only_after_the_per_schedule_names_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs, rows = tmp_path / "j.csv", tmp_path / "j-fcfs.csv"
    code, _, err = run(
        capsys,
        "simulate",
        "--jobs",
        "50",
        "--scheduler",
        "easy",
        "fcfs",
        "--csv",
        str(rows),
        "--jobs-csv",
        str(jobs),
    )
    assert code == 2 and f"--csv and --jobs-csv both write {rows}" in err
    # Without the clash, the same base names are fine.
    other = tmp_path / "rows.csv"
    assert (
        run(
            capsys,
            "simulate",
            "--jobs",
            "50",
            "--scheduler",
            "easy",
            "fcfs",
            "--csv",
            str(other),
            "--jobs-csv",
            str(jobs),
        )[0]
        == 0
    )


def test_two_names_of_one_file_are_one_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target, alias = tmp_path / "m.csv", tmp_path / "alias.csv"
    target.write_text("")
    os.link(target, alias)
    code, _, err = run(
        capsys, "simulate", "--jobs", "50", "--scheduler", "easy", "--csv", str(target), "--json", str(alias)
    )
    assert code == 2 and f"--csv and --json both write {alias} (as {target})" in err


def test_the_same_file_is_seen_through_links_and_spellings(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x")
    os.symlink(a, tmp_path / "s.txt")
    assert same_file(a, tmp_path / "s.txt") and same_file(a, tmp_path / "." / "a.txt")
    assert same_file(tmp_path / "new.txt", tmp_path / "sub" / ".." / "new.txt")  # neither exists yet
    assert not same_file(a, tmp_path / "b.txt")


# -- written whole or not at all ---------------------------------------------------------------------


def test_a_write_that_fails_leaves_the_target_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    target.chmod(0o640)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left on device") as info:
        write_atomically(target, "new\n")
    assert info.value.filename == str(target)
    monkeypatch.undo()
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    write_atomically(target, "new\n")
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640  # the mode is kept


def test_a_symbolic_link_stays_a_link(tmp_path: Path) -> None:
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old")
    link.symlink_to(real)
    write_atomically(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_full_disk_names_the_output_and_leaves_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    csv_path, json_path = tmp_path / "m.csv", tmp_path / "m.json"
    code, out, err = run(
        capsys,
        "simulate",
        "--jobs",
        "50",
        "--scheduler",
        "easy",
        "--csv",
        str(csv_path),
        "--json",
        str(json_path),
    )
    assert code == 2 and "EASY(fcfs)" in out  # the results are on screen
    reason = "No space left on device"
    assert err == f"backfill: error: cannot write {csv_path}: {reason}; not written either: {json_path}\n"
    assert list(tmp_path.iterdir()) == []


def _limit_file_size() -> None:
    # Every write beyond 2,000 bytes of a regular file fails (EFBIG), as on a disk that fills.
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_a_write_cut_short_by_the_system_leaves_no_partial_file(tmp_path: Path) -> None:
    rows, jobs = tmp_path / "rows.csv", tmp_path / "jobs.csv"
    jobs.write_text("old\n")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    argv = [sys.executable, "-m", "backfill", "simulate", "--jobs", "200", "--scheduler", "easy"]
    argv += ["--csv", str(rows), "--jobs-csv", str(jobs), "--no-progress"]
    proc = subprocess.run(
        argv, capture_output=True, text=True, env=env, preexec_fn=_limit_file_size, check=False
    )
    assert proc.returncode == 2 and "EASY(fcfs)" in proc.stdout, proc.stderr
    assert proc.stderr == f"backfill: error: cannot write {jobs}: File too large\n"
    assert f"wrote {rows}" in proc.stdout and rows.read_text().startswith("workload,")
    assert jobs.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.csv", "rows.csv"]


def test_an_interrupt_while_writing_leaves_no_empty_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(csv.DictWriter, "writerows", interrupted)
    target = tmp_path / "m.csv"
    code, _, err = run(capsys, "simulate", "--jobs", "50", "--scheduler", "easy", "--csv", str(target))
    # As documented; before, only "backfill: interrupted (SIGINT)".
    expected = (
        "backfill: interrupted (SIGINT): while writing the outputs: wrote nothing; "
        f"not written (left as they were): {target}\n"
    )
    assert (code, err) == (130, expected)
    assert list(tmp_path.iterdir()) == []


# -- special files -----------------------------------------------------------------------------------


def test_dev_full_with_two_schedulers_makes_no_file_in_dev(capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    before = set(os.listdir("/dev"))
    code, out, err = run(
        capsys, "simulate", "--jobs", "50", "--scheduler", "easy", "fcfs", "--output-swf", "/dev/full"
    )
    made = set(os.listdir("/dev")) - before
    for name in made:  # the old behaviour, cleaned up
        if name.startswith("full-"):
            os.unlink(f"/dev/{name}")
    assert not {name for name in made if name.startswith("full")}
    assert code == 2 and "EASY(fcfs)" in out
    assert err == "backfill: error: cannot write /dev/full (2 outputs): No space left on device\n"


def test_dev_full_names_itself(capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    code, _, err = run(
        capsys, "compare", "model:n=40", "--scheduler", "easy", "--workers", "1", "--csv", "/dev/full"
    )
    assert (code, err) == (2, "backfill: error: cannot write /dev/full: No space left on device\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_several_schedules_to_a_fifo_are_written_one_after_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "schedules.swf"
    os.mkfifo(fifo)
    # This side holds the FIFO open (read-write, so that opening never blocks) for the whole run:
    # a reader that closed it between the two outputs would discard what the second had written.
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    received: list[bytes] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set() or select.select([fd], [], [], 0)[0]:
            if select.select([fd], [], [], 0.05)[0]:
                received.append(os.read(fd, 1 << 16))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        code, out, _ = run(
            capsys, "simulate", "--jobs", "50", "--scheduler", "easy", "fcfs", "--output-swf", str(fifo)
        )
    finally:
        done.set()
        reader.join(timeout=30)
        os.close(fd)
    assert not reader.is_alive()
    assert code == 0 and out.count(f"wrote {fifo}\n") == 2
    text = b"".join(received).decode()
    assert text.count("; MaxProcs:") == 2 and "with EASY(fcfs)" in text and "with FCFS(fcfs)" in text
    assert [p.name for p in tmp_path.iterdir()] == ["schedules.swf"] and is_special(fifo)


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1"])
def test_dev_stdout_redirected_to_a_file_gets_the_output_after_the_table(tmp_path: Path, name: str) -> None:
    if not os.path.exists(name):
        pytest.skip(f"no {name}")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    argv = [sys.executable, "-m", "backfill", "simulate", "--jobs", "50", "--scheduler", "easy"]
    argv += ["--csv", name, "--json", "/dev/null", "--no-progress"]
    log = tmp_path / "log.txt"
    with log.open("w") as f:  # as a shell's `> log.txt` does
        assert subprocess.run(argv, stdout=f, env=env, check=False).returncode == 0
    out = log.read_text()
    table, rows = out.index("EASY(fcfs)"), out.index("workload,scheduler,scheduler_name,")
    assert table < rows < out.index(f"wrote {name}\nwrote /dev/null\n")
    assert [p.name for p in tmp_path.iterdir()] == ["log.txt"]


def test_special_files_are_told_apart() -> None:
    assert is_special("/dev/null") and is_special("/dev/stdout") == os.path.exists("/dev/stdout")
    assert not is_special(__file__) and not is_special("/no/such/file")


def test_open_atomically_takes_text_or_bytes_only(tmp_path: Path) -> None:
    # Refused on entering, before any temporary file exists: nothing is left behind.
    appending = open_atomically(tmp_path / "x", "a")
    with pytest.raises(ValueError, match="mode must be"):
        appending.__enter__()
    assert list(tmp_path.iterdir()) == []


# -- missing folders: every output alike -------------------------------------------------------------


def test_every_output_makes_its_missing_folders(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib", reason="--figures needs the plot extra")
    sim, cmp = tmp_path / "sim", tmp_path / "cmp"
    code, _, err = run(
        capsys, "simulate", str(trace), "--scheduler", "fcfs", "easy",
        "--csv", str(sim / "a" / "m.csv"), "--json", str(sim / "b" / "m.json"),
        "--jobs-csv", str(sim / "c" / "d" / "jobs.csv"), "--output-swf", str(sim / "e" / "s.swf"),
        "--figures", str(sim / "f" / "g"),
    )  # fmt: skip
    assert (code, err) == (0, "")
    made = sorted(p.relative_to(sim).as_posix() for p in sim.rglob("*") if p.is_file())
    assert made == [
        "a/m.csv", "b/m.json", "c/d/jobs-easy.csv", "c/d/jobs-fcfs.csv", "e/s-easy.swf", "e/s-fcfs.swf",
        "f/g/gantt-easy.png", "f/g/gantt-fcfs.png", "f/g/utilization_queue.png",
    ]  # fmt: skip
    code, _, err = run(
        capsys, "compare", str(trace), "--scheduler", "fcfs", "easy", "--workers", "1",
        "--csv", str(cmp / "a" / "m.csv"), "--json", str(cmp / "b" / "m.json"),
        "--jobs-csv", str(cmp / "c" / "jobs.csv"), "--figures", str(cmp / "f" / "g"),
    )  # fmt: skip
    assert (code, err) == (0, "")
    made = sorted(p.relative_to(cmp).as_posix() for p in cmp.rglob("*") if p.is_file())
    assert made == [
        "a/m.csv", "b/m.json", "c/jobs-easy.csv", "c/jobs-fcfs.csv",
        "f/g/improvement_mean_bsld.png", "f/g/improvement_mean_wait.png",
    ]  # fmt: skip


# compare writes no schedules as SWF: it has no --output-swf to refuse.
_OUTPUTS = [
    (command, option)
    for command in ("simulate", "compare")
    for option in ("--csv", "--json", "--jobs-csv", "--output-swf", "--figures")
    if (command, option) != ("compare", "--output-swf")
]


@pytest.mark.parametrize(("command", "option"), _OUTPUTS)
def test_every_output_under_a_file_is_refused_alike(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, option: str
) -> None:
    pytest.importorskip("matplotlib", reason="--figures needs the plot extra")
    blocker = tmp_path / "file"
    blocker.write_text("")
    target = blocker / "sub" / ("figs" if option == "--figures" else "out.txt")
    code, out, err = run(capsys, command, str(trace), "--scheduler", "fcfs", "easy", option, str(target))
    assert (code, out) == (2, "")
    said = f"cannot write in {target}" if option == "--figures" else f"cannot write {target}"
    assert err == f"backfill: error: {said}: {blocker} is not a directory\n"


# -- provenance ---------------------------------------------------------------------------------------


def _recent(utc: str) -> bool:
    """Whether ``utc`` is an ISO 8601 time in UTC (``Z``) of the last ten minutes."""
    when = datetime.datetime.fromisoformat(utc.removesuffix("Z")).replace(tzinfo=datetime.UTC)
    return utc.endswith("Z") and abs((datetime.datetime.now(datetime.UTC) - when).total_seconds()) < 600


def test_simulate_provenance_has_the_command_time_path_and_reading_policy(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", str(trace), "--lenient", "--scheduler", "fcfs", "relshare",
            "--csv", str(tmp_path / "m.csv"), "--json", str(tmp_path / "m.json")]  # fmt: skip
    code, _, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    with (tmp_path / "m.csv").open() as f:
        rows = list(csv.DictReader(f))
    data = json.loads((tmp_path / "m.json").read_text())["data"]
    workload = read_swf(trace)[0]
    paths = {"FCFS": simulate(workload, FCFS()).path, "RelShare": simulate(workload, RelShare()).path}
    assert paths == {"FCFS": "compiled" if kernel.compiled() else "python", "RelShare": "python"}
    reading = attrs.asdict(CleaningPolicy()) | {"lenient": True}
    for row, item in zip(rows, data, strict=True):
        assert json.loads(row["argv"]) == item["argv"] == ["backfill", *argv]
        assert row["utc"] == item["utc"] and _recent(row["utc"])
        assert json.loads(row["reading"]) == item["reading"] == reading
        assert row["kernel"] == item["kernel"] == ("compiled" if kernel.compiled() else "python")
        assert row["path"] == item["path"] == paths[row["scheduler_name"]]


def test_compare_provenance_has_them_too_the_same_for_a_cached_cell(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(trace), "model:n=30,machine_size=8", "--scheduler", "fcfs", "relshare",
            "--workers", "1", "--cache", str(tmp_path / "cache"), "--csv", str(tmp_path / "m.csv"),
            "--jobs-csv", str(tmp_path / "jobs.csv")]  # fmt: skip
    for time_around in ("simulated", "cached"):
        code, _, err = run(capsys, *argv)
        assert (code, err) == (0, ""), time_around
        rows = SweepResult.from_csv(tmp_path / "m.csv").rows
        for row in rows:
            assert json.loads(row["argv"]) == ["backfill", *argv] and _recent(row["utc"])
            log = row["source"] == trace.name
            reading = attrs.asdict(CleaningPolicy()) | {"lenient": False}
            assert (json.loads(row["reading"]) if log else row["reading"]) == (reading if log else "")
            # A sweep's row is the same from the cache: the path of the code that made the schedule
            # (RelShare's runs in Python), and the kernel in use.
            fcfs = "compiled" if kernel.compiled() else "python"
            assert row["path"] == (fcfs if row["scheduler_name"] == "FCFS" else "python")
            assert row["kernel"] == ("compiled" if kernel.compiled() else "python")
        jobs = sorted(tmp_path.glob("jobs-*.csv"))
        assert len(jobs) == 4
        for path in jobs:
            with path.open() as f:
                job_rows = list(csv.DictReader(f))
            # The provenance once, on the first row, stamped there when a cell comes from the cache too.
            first, *others = job_rows
            assert (first["argv"], first["utc"]) == (rows[0]["argv"], rows[0]["utc"])
            assert first["path"] == (fcfs if first["scheduler"] == "FCFS" else "python")
            assert {r[c] for r in others for c in ("argv", "utc", "path")} == {""}
