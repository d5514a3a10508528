"""Batsim files as Batsim writes them: string ids, far submit times, jobs without a runtime, Batsim 5.

Each hostile or unusual file is generated here, small, in ``tmp_path``; the last tests read every
workload of Batsim's own repository from ``../shared/batsim-workloads`` beside the project.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from backfill import BatsimError, Job, Workload, batsim_ids, read_batsim_workload, write_batsim_workload
from backfill.cli import main
from backfill.workloads.batsim import BATSIM_PROFILE_TYPES

BATSIM_WORKLOADS = Path(__file__).resolve().parents[1].parent / "shared" / "batsim-workloads"

PROFILES = {
    "d10": {"type": "delay", "delay": 10},
    "d20": {"type": "DelayProfile", "delay": 20},
    "cpu": {"type": "ptask_homogeneous", "cpu": 1e6, "com": 0},
    "seq": {"type": "SequentialCompositionProfile", "seq": ["d10", "cpu"]},
}


def _job(job_id: Any, subtime: float = 0, profile: str = "d10", **fields: Any) -> dict[str, Any]:
    return {"id": job_id, "subtime": subtime, "walltime": 100, "res": 1, "profile": profile} | fields


def _file(tmp_path: Path, *jobs: dict[str, Any], name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"nb_res": 4, "jobs": list(jobs), "profiles": PROFILES}))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line_error(code: int, err: str, *fragments: str) -> str:
    assert code == 2 and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("backfill: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# -- string ids -----------------------------------------------------------------------------------------

STRING_IDS = [
    _job("late-ok", subtime=9),
    _job(7, subtime=1),
    _job("w0!3", subtime=2),
    _job(" 1", subtime=3, profile="d20"),
    _job("delay", subtime=4),
]


def test_string_ids_are_kept_integers_stay_and_others_are_numbered_in_file_order(tmp_path: Path) -> None:
    w, report = read_batsim_workload(_file(tmp_path, *STRING_IDS))
    # Integers (7, "w0!3" = 3) stay; "late-ok", " 1", "delay" are numbered 8, 9, 10 in file order.
    assert [(j.id, j.submit) for j in w] == [(7, 1.0), (3, 2.0), (9, 3.0), (10, 4.0), (8, 9.0)]
    assert batsim_ids(w) == {8: "late-ok", 3: "w0!3", 9: " 1", 10: "delay"}
    assert report.notes[-1] == (
        "4 job ids are not plain integers (3 numbered in file order from 8; 'late-ok' = 8, 'w0!3' = 3, "
        "' 1' = 9, ...): outputs write them back as given (see batsim_ids)"
    )
    # The same file read twice numbers the same way, and the names follow the jobs into a schedule.
    assert batsim_ids(read_batsim_workload(_file(tmp_path, *STRING_IDS, name="again.json"))[0]) == batsim_ids(
        w
    )
    assert batsim_ids(w.scaled(2.0)) == batsim_ids(w)


def test_integer_ids_taken_twice_are_numbered_and_only_a_repeated_id_is_refused(tmp_path: Path) -> None:
    w, _ = read_batsim_workload(_file(tmp_path, _job("w0!1"), _job("w1!1"), _job(-5)))
    assert w.column("id").tolist() == [1, 2, -5] and batsim_ids(w) == {1: "w0!1", 2: "w1!1"}
    big, _ = read_batsim_workload(_file(tmp_path, _job(2**60), _job("x"), name="big.json"))
    assert big.column("id").tolist() == [1, 2] and batsim_ids(big) == {1: str(2**60), 2: "x"}
    with pytest.raises(BatsimError, match=r"job '#3': the job id 'a' is given to job #1 too"):
        read_batsim_workload(_file(tmp_path, _job("a"), _job(1), _job("a"), name="twice.json"))


def test_the_writer_writes_ids_back_as_given(tmp_path: Path) -> None:
    w, _ = read_batsim_workload(_file(tmp_path, *STRING_IDS))
    out = io.StringIO()
    assert write_batsim_workload(w, out) == {}
    doc = json.loads(out.getvalue())
    assert [job["id"] for job in doc["jobs"]] == ["7", "w0!3", " 1", "delay", "late-ok"]
    back, _ = read_batsim_workload(io.StringIO(out.getvalue()))
    assert sorted(batsim_ids(back).values()) == sorted(batsim_ids(w).values())
    # Jobs made here have no given ids: their integers are written, as before.
    jobs = [Job(id=4, submit=0.0, processors=1, runtime=5.0, estimate=5.0)]
    out = io.StringIO()
    write_batsim_workload(jobs, out, machine_size=1)
    assert json.loads(out.getvalue())["jobs"][0]["id"] == "4"
    assert batsim_ids(Workload.from_jobs(jobs, 1)) == {}


def test_simulate_writes_given_ids_to_batsim_and_the_jobs_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, *STRING_IDS)
    batsim, jobs_csv = tmp_path / "out.json", tmp_path / "jobs.csv"
    argv = ["simulate", str(source), "--scheduler", "easy", "--output-batsim", str(batsim)]
    code, out, _ = _run(capsys, *argv, "--jobs-csv", str(jobs_csv))
    assert code == 0 and "4 job ids are not plain integers" in out
    assert [job["id"] for job in json.loads(batsim.read_text())["jobs"]] == [
        "7",
        "w0!3",
        " 1",
        "delay",
        "late-ok",
    ]
    with jobs_csv.open() as f:
        assert [row["jobID"] for row in csv.DictReader(f)] == ["7", "w0!3", " 1", "delay", "late-ok"]


def test_compare_writes_given_ids_to_the_jobs_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _file(tmp_path, *STRING_IDS)
    jobs_csv = tmp_path / "jobs.csv"
    argv = ["compare", str(source), "--scheduler", "fcfs", "--workers", "1", "--no-progress"]
    code, _, err = _run(capsys, *argv, "--jobs-csv", str(jobs_csv))
    assert code == 0, err
    with jobs_csv.open() as f:
        assert sorted(row["jobID"] for row in csv.DictReader(f)) == sorted(
            ["7", "w0!3", " 1", "delay", "late-ok"]
        )


# -- times beyond 1e12 s --------------------------------------------------------------------------------


def test_a_submit_time_of_1e13_is_refused_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, _job("1"), _job("far", subtime=1e13))
    with pytest.raises(BatsimError) as caught:
        read_batsim_workload(source)
    text = str(caught.value)
    assert text.startswith(f"{source}: job 'far': subtime 10000000000000.0 s is beyond 1e12 s")
    assert "2**43 s" in text and "resolves a millisecond" in text
    code, _, err = _run(capsys, "simulate", str(source))
    _one_line_error(code, err, str(source), "job 'far'", "beyond 1e12 s", "resolves a millisecond")


# -- files whose jobs have no runtime -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_no_jobs_says_why_naming_the_file_and_the_counted_reasons(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, _job("a", profile="cpu"), _job("b", profile="seq"), _job("c", profile="cpu"))
    argv = [command, str(source)] + (
        ["--scheduler", "easy", "--workers", "1"] if command == "compare" else []
    )
    code, _, err = _run(capsys, *argv)
    _one_line_error(
        code,
        err,
        f"{source}: no jobs to simulate: the reader dropped all 3 of the file's jobs (unknown_runtime: 3)",
        "(ptask_homogeneous: 2, SequentialCompositionProfile of ptask_homogeneous: 1)",
        "Batsim computes such a job's time on a platform",
    )


def test_no_jobs_in_a_file_without_any(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "simulate", str(_file(tmp_path)))
    _one_line_error(code, err, "no jobs to simulate: the file has no job")


# -- Batsim 5's profile type ----------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "kind"), [(None, "delay"), ("4", "delay"), ("5", "DelayProfile")])
def test_batsim_version_chooses_the_profile_type(
    version: str | None, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = _file(tmp_path, _job(1), _job(2, profile="d20")), tmp_path / "out.json"
    argv = ["simulate", str(source), "--scheduler", "fcfs", "--output-batsim", str(target)]
    code, _, err = _run(capsys, *argv, *(["--batsim-version", version] if version else []))
    assert code == 0, err
    profiles = json.loads(target.read_text())["profiles"]
    assert {p["type"] for p in profiles.values()} == {kind}
    # What was written reads back to the same runtimes.
    assert read_batsim_workload(target)[0].column("runtime").tolist() == [10.0, 20.0]


def test_batsim_version_is_refused_alone_or_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _file(tmp_path, _job(1))
    code, _, err = _run(capsys, "simulate", str(source), "--batsim-version", "5")
    _one_line_error(code, err, "--batsim-version applies only with --output-batsim")
    with pytest.raises(SystemExit):
        main(["simulate", str(source), "--output-batsim", str(tmp_path / "o.json"), "--batsim-version", "6"])
    assert "invalid choice: 6" in capsys.readouterr().err
    assert dict(BATSIM_PROFILE_TYPES) == {4: "delay", 5: "DelayProfile"}


# -- nesting ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["top", "in a job"])
def test_deeply_nested_json_is_a_batsim_error_naming_the_file(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.json"
    if where == "top":
        path.write_text(deep)
    else:
        path.write_text(
            json.dumps({"nb_res": 4, "jobs": [_job(1, extra="X")], "profiles": PROFILES}).replace('"X"', deep)
        )
    with pytest.raises(BatsimError, match=r"nested too deeply to read") as caught:
        read_batsim_workload(path)
    assert caught.value.path == str(path)
    code, _, err = _run(capsys, "simulate", str(path))
    _one_line_error(code, err, f"{path}: not a Batsim workload: its arrays or objects are nested too deeply")
    code, _, err = _run(capsys, "compare", str(path), "--scheduler", "easy", "--workers", "1")
    _one_line_error(code, err, f"{path}: not a Batsim workload: its arrays or objects are nested too deeply")


# -- Batsim's own workloads -------------------------------------------------------------------------------

#: What each workload of Batsim's repository (tag v5.0.0-rc2) gives: the jobs kept, or why none.
#: "1e12": refused, a submit time of 1e13 s; "no runtime": read, but no profile gives a runtime.
EXPECTED = {
    "example_workload_hpc_seed1_jobs250.json": 250,
    "example_workload_hpc_seed2_jobs250.json": 250,
    "example_workload_hpc_seed3_jobs250.json": 250,
    "example_workload_hpc_seed4_jobs250.json": 250,
    "example_workload_hpc_seed5_jobs250.json": 250,
    "test_batsim_paper_workload_seed1.json": 800,
    "test_case_study1.json": 3,
    "test_compo_sequence_delay.json": 23,
    "test_compo_sequence_ptaskcomp.json": "no runtime",
    "test_delays.json": 10,
    "test_energy_minimal_load0.json": 2,
    "test_energy_minimal_load100.json": "no runtime",
    "test_energy_minimal_load50.json": "no runtime",
    "test_extra_data_desired_allocation.json": 10,
    "test_extra_data_desired_allocation_object.json": 10,
    "test_homo_ptasks.json": "no runtime",
    "test_long_workload.json": "1e12",
    "test_one_computation_job.json": "no runtime",
    "test_one_computation_job_tot.json": "no runtime",
    "test_one_delay_job.json": 1,
    "test_ptasks.json": "no runtime",
    "test_same_submit_time.json": 18,
    "test_smpi_collectives.json": "no runtime",
    "test_smpi_compute_only.json": "no runtime",
    "test_smpi_mapping.json": "1e12",
    "test_smpi_mixed_comp_comm.json": "no runtime",
    "test_tuto_stencil.json": "no runtime",
    "test_usage_trace.json": 2,
    "test_various_profile_types.json": 1,
    "test_walltime.json": 22,
    "test_walltime_smpi.json": "no runtime",
    "untested/test_composed_bda.json": "no runtime",
    "untested/test_one_spark_job_bda.json": "no runtime",
    "untested/test_workload_pfs0.json": 1,
}


@pytest.fixture(scope="module")
def batsim_workloads() -> Path:
    """Batsim's own workloads, or skip if this checkout has none beside it."""
    if not BATSIM_WORKLOADS.is_dir():
        pytest.skip(f"no Batsim workloads at {BATSIM_WORKLOADS} (expected ../shared/batsim-workloads)")
    return BATSIM_WORKLOADS


def test_every_batsim_repository_workload_is_read_or_refused_with_its_reason(batsim_workloads: Path) -> None:
    found = sorted(str(p.relative_to(batsim_workloads)) for p in batsim_workloads.rglob("*.json"))
    assert found == sorted(EXPECTED)
    for name, expected in EXPECTED.items():
        path = batsim_workloads / name
        if expected == "1e12":
            with pytest.raises(BatsimError, match=r"subtime 10000000000000\.0 s is beyond 1e12 s"):
                read_batsim_workload(path)
            continue
        w, report = read_batsim_workload(path)
        if expected == "no runtime":
            assert len(w) == 0 and dict(report.dropped) == {"unknown_runtime": report.lines}, name
            assert sum(w.provenance["profiles_without_runtime"].values()) == report.lines, name
        else:
            assert len(w) == expected, (name, len(w))
        # Every id not written as a plain integer is kept (of every job, dropped or not), as given.
        given = [job["id"] for job in json.loads(path.read_text())["jobs"]]
        plain = re.compile(r"0|[1-9][0-9]*")
        assert sorted(batsim_ids(w).values()) == sorted(
            g for g in given if isinstance(g, str) and not plain.fullmatch(g)
        ), name


@pytest.mark.parametrize("name", ["test_various_profile_types.json", "test_usage_trace.json"])
def test_batsim_repository_string_ids_come_back_from_the_command_line(
    name: str, batsim_workloads: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = batsim_workloads / name
    target = tmp_path / "out.json"
    argv = [
        "simulate",
        str(source),
        "--scheduler",
        "easy",
        "--output-batsim",
        str(target),
        "--batsim-version",
        "5",
    ]
    code, _, err = _run(capsys, *argv)
    assert code == 0, err
    given = {job["id"] for job in json.loads(source.read_text())["jobs"]}
    written = json.loads(target.read_text())
    assert written["jobs"] and {job["id"] for job in written["jobs"]} <= given
    assert {p["type"] for p in written["profiles"].values()} == {"DelayProfile"}


def test_a_value_too_deep_to_show_is_named_not_raised() -> None:
    # A message quotes the value it refuses; one too deep for json.dumps is named instead.
    from backfill.workloads._batsim_json import shown

    deep: list[Any] = []
    for _ in range(5_000):
        deep = [deep]
    assert shown(deep) == "a list nested too deeply to show"
    assert shown([1, 2]) == "[1, 2]" and shown(2.5) == "2.5"
