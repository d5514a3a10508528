"""Batsim workloads (JSON): reading, writing, round trips, Batsim's own examples, bad input, the CLI."""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from strategies import workloads

from backfill import (
    EASY,
    BatsimError,
    Job,
    Workload,
    batsim_ids,
    read_batsim_workload,
    simulate,
    write_batsim_workload,
    write_swf,
)
from backfill.cli import main
from backfill.errors import ParameterError
from backfill.experiments.specs import TraceWorkload
from backfill.workloads.batsim import BATSIM_POLICY, is_batsim_path
from backfill.workloads.cleaning import CleaningPolicy

# Batsim 4.2.1's workloads/test_delays.json (https://github.com/oar-team/batsim, tag v4.2.1), its
# first three jobs: the delay profile and the job fields of Batsim's own test workloads.
TEST_DELAYS = """{
    "nb_res": 2,
    "jobs": [
        {"id":0, "subtime": 0, "walltime": 100, "res": 1, "profile": "delay10"},
        {"id":1, "subtime": 3, "walltime": 100, "res": 1, "profile": "delay10"},
        {"id":2, "subtime": 6, "walltime": 100, "res": 1, "profile": "delay10"}
    ],

    "profiles": {
        "delay10": {
            "type": "delay",
            "delay": 10
        }
    }
}
"""

# From Batsim 4.2.1's workloads/test_various_profile_types.json (the example docs/input-workload.rst
# shows), three of its jobs and their profiles: string ids, a walltime shorter than the delay
# ("reach_walltime"), and a profile that is not a delay.
VARIOUS_PROFILE_TYPES = """{
    "nb_res": 4,
    "jobs": [
        {"id":"delay", "subtime":0, "walltime": 30,  "res": 1, "profile": "delay"},
        {"id":"homo", "subtime":10, "walltime": 100, "res": 4, "profile": "homogeneous"}
    ],
    "profiles": {
        "homogeneous": {
            "type": "parallel_homogeneous",
            "cpu": 10e6,
            "com": 1e6
        },
        "delay": {
            "type": "delay",
            "delay": 20.20
        }
    }
}
"""

# From Batsim 4.2.1's workloads/test_sequence_delay.json, whose description says: "Jobs 1->4 should
# finish in time, jobs 11->14 should reach walltime. All jobs run for 30s" (a few of its jobs and
# the profiles they use).
SEQUENCE_DELAY = """{
    "nb_res": 4,
    "jobs": [
        {"id": 1, "subtime":   0, "walltime": 50, "res": 1, "profile": "seq_3x10"},
        {"id": 3, "subtime": 200, "walltime": 50, "res": 3, "profile": "seq_20+10"},
        {"id": 5, "subtime": 400, "walltime": 50, "res": 4, "profile": "seq_of_seq"},
        {"id":11, "subtime":1000, "walltime": 20, "res": 1, "profile": "seq_3x10"},
        {"id":15, "subtime":1400, "walltime": 20, "res": 4, "profile": "seq_of_seq"}
    ],
    "profiles": {
        "delay_10": {"type": "delay", "delay": 10},
        "delay_20": {"type": "delay", "delay": 20},
        "delay_5": {"type": "delay", "delay": 5},
        "seq_4x5": {"type": "composed", "repeat" : 4, "seq": ["delay_5"]},
        "seq_3x10": {"type": "composed", "repeat" : 3, "seq": ["delay_10"]},
        "seq_20+10": {"type": "composed", "repeat" : 1, "seq": ["delay_20", "delay_10"]},
        "seq_of_seq": {"type": "composed", "repeat" : 1, "seq": ["seq_4x5", "delay_10"]}
    }
}
"""


def _with_ids(text: str, ids: list[str]) -> str:
    """The example with integer ids in Batsim's 'workload!number' form."""
    doc = json.loads(text)
    for job, new in zip(doc["jobs"], ids, strict=True):
        job["id"] = new
    return json.dumps(doc)


def batsim_accepts(doc: dict[str, Any]) -> None:
    """Assert what Batsim 4.2.1 checks when it loads a workload (src/workload.cpp, jobs.cpp, profiles.cpp)."""
    assert isinstance(doc["nb_res"], int) and doc["nb_res"] > 0
    assert isinstance(doc["jobs"], list) and isinstance(doc["profiles"], dict)
    for name, profile in doc["profiles"].items():
        assert isinstance(name, str) and profile["type"] == "delay"
        assert isinstance(profile["delay"], int | float) and profile["delay"] > 0
    seen = set()
    for job in doc["jobs"]:
        assert isinstance(job["id"], str) and job["id"] not in seen  # documented: a string
        seen.add(job["id"])
        assert isinstance(job["subtime"], int | float)
        walltime = job.get("walltime", -1)
        assert isinstance(walltime, int | float) and (walltime == -1 or walltime > 0)
        assert isinstance(job["res"], int) and job["res"] > 0  # Batsim 5: positive
        assert isinstance(job["profile"], str) and job["profile"] in doc["profiles"]


def written(source: Any, **kwargs: Any) -> tuple[str, dict[str, tuple[int, ...]]]:
    out = io.StringIO()
    left_out = write_batsim_workload(source, out, **kwargs)
    return out.getvalue(), left_out


# -- Batsim's documented examples -----------------------------------------------------------------------


def test_reads_batsims_delay_example(tmp_path: Path) -> None:
    path = tmp_path / "test_delays.json"
    path.write_text(TEST_DELAYS)
    w, report = read_batsim_workload(path)
    assert w.machine_size == 2 and report.machine_size_from == "nb_res"
    assert [(j.id, j.submit, j.processors, j.runtime, j.estimate) for j in w] == [
        (0, 0.0, 1, 10.0, 100.0),
        (1, 3.0, 1, 10.0, 100.0),
        (2, 6.0, 1, 10.0, 100.0),
    ]
    assert report.kept == report.lines == 3 and not report.dropped and not report.altered
    assert w.provenance["source"] == "test_delays.json"
    assert w.provenance["reader"] == "backfill.workloads.batsim.read_batsim_workload"


def test_reads_batsim_5s_profile_type_name() -> None:
    text = TEST_DELAYS.replace('"type": "delay"', '"type": "DelayProfile"')
    w, _ = read_batsim_workload(io.StringIO(text))
    assert w.column("runtime").tolist() == [10.0] * 3


def test_various_profile_types_with_integer_ids() -> None:
    w, report = read_batsim_workload(io.StringIO(_with_ids(VARIOUS_PROFILE_TYPES, ["w0!1", "w0!2"])))
    assert [(j.id, j.submit, j.processors, j.runtime, j.estimate) for j in w] == [(1, 0.0, 1, 20.2, 30.0)]
    assert dict(report.dropped) == {"unknown_runtime": 1} and report.dropped_ids["unknown_runtime"] == (2,)
    assert report.notes == (
        "jobs whose profile is of another type than delay, so their runtime is unknown: 1 "
        "(parallel_homogeneous: 1)",
        "2 job ids are not plain integers ('w0!1' = 1, 'w0!2' = 2): outputs write them back as given "
        "(see batsim_ids)",
    )
    kept, _ = read_batsim_workload(
        io.StringIO(_with_ids(VARIOUS_PROFILE_TYPES, ["1", "2"])), CleaningPolicy(drop_unknown_runtime=False)
    )
    assert [(j.id, j.runtime) for j in kept] == [(1, 20.2), (2, -1.0)]


def test_sequences_of_delays_as_batsim_runs_them() -> None:
    w, report = read_batsim_workload(io.StringIO(SEQUENCE_DELAY))
    # Every job runs for 30 s; those whose walltime is 20 s reach it, and run for 20 s.
    assert [(j.id, j.runtime, j.estimate) for j in w] == [
        (1, 30.0, 50.0),
        (3, 30.0, 50.0),
        (5, 30.0, 50.0),
        (11, 20.0, 20.0),
        (15, 20.0, 20.0),
    ]
    assert dict(report.altered) == {"runtime_truncated_to_estimate": 2}
    v5 = SEQUENCE_DELAY.replace('"composed"', '"SequentialCompositionProfile"').replace(
        '"delay",', '"DelayProfile",'
    )
    assert read_batsim_workload(io.StringIO(v5))[0].column("runtime").tolist() == w.column("runtime").tolist()


def test_a_sequence_with_another_profile_has_no_runtime() -> None:
    profiles = {
        "d10": {"type": "delay", "delay": 10},
        "cpu": {"type": "parallel_homogeneous", "cpu": 1e6, "com": 0},
        "mixed": {"type": "composed", "seq": ["d10", "cpu"]},
        "outer": {"type": "composed", "repeat": 2, "seq": ["mixed"]},
    }
    w, report = read_batsim_workload(_doc(_job(1, profile="mixed"), _job(2, profile="outer"), **profiles))
    assert len(w) == 0 and report.dropped_ids["unknown_runtime"] == (1, 2)
    assert report.notes[0].endswith(": 2 (composed of parallel_homogeneous: 2)")


def test_sequences_nested_too_deeply_are_refused() -> None:
    chain = {f"s{i}": {"type": "composed", "seq": [f"s{i + 1}"]} for i in range(5000)}
    chain["s5000"] = {"type": "delay", "delay": 1}
    with pytest.raises(BatsimError, match=r"^<string>: profile 's0' nests sequences too deeply to follow$"):
        read_batsim_workload(_doc(_job(1, profile="s0"), **chain))
    short = {f"s{i}": {"type": "composed", "seq": [f"s{i + 1}"]} for i in range(50)}
    short["s50"] = {"type": "delay", "delay": 1}
    assert read_batsim_workload(_doc(_job(1, profile="s0"), **short))[0][0].runtime == 1.0


def test_walltime_shorter_than_the_delay_truncates_by_default() -> None:
    text = TEST_DELAYS.replace('"walltime": 100', '"walltime": 4')
    w, report = read_batsim_workload(io.StringIO(text))
    assert w.column("runtime").tolist() == [4.0] * 3 and w.column("estimate").tolist() == [4.0] * 3
    assert dict(report.altered) == {"runtime_truncated_to_estimate": 3}
    raised, report = read_batsim_workload(io.StringIO(text), CleaningPolicy())
    assert (
        raised.column("runtime").tolist() == [10.0] * 3 and raised.column("estimate").tolist() == [10.0] * 3
    )
    assert CleaningPolicy(overrun="truncate_runtime") == BATSIM_POLICY


def test_string_ids_of_batsims_example_are_numbered_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "various.json"
    path.write_text(VARIOUS_PROFILE_TYPES)
    w, report = read_batsim_workload(path, CleaningPolicy(drop_unknown_runtime=False))
    assert [j.id for j in w] == [1, 2]
    assert batsim_ids(w) == {1: "delay", 2: "homo"}
    assert (
        "2 job ids are not plain integers (2 numbered in file order from 1; 'delay' = 1" in report.notes[-1]
    )


def test_written_file_has_batsims_layout() -> None:
    """What we write of the example's jobs is the example, field for field (ids as documented: strings)."""
    w, _ = read_batsim_workload(io.StringIO(TEST_DELAYS))
    text, left_out = written(w)
    assert left_out == {}
    doc = json.loads(text)
    batsim_accepts(doc)
    expected = json.loads(TEST_DELAYS)
    for job in expected["jobs"]:
        job["id"] = str(job["id"])
    assert doc == expected


# -- round trips ----------------------------------------------------------------------------------------


def _expected(w: Workload) -> dict[str, list[Any]]:
    r = w.records[(w.records["runtime"] > 0) & (w.records["processors"] > 0)]
    return {
        "id": r["id"].tolist(),
        "submit": r["submit"].tolist(),
        "runtime": r["runtime"].tolist(),
        "estimate": np.where(r["estimate"] > 0, r["estimate"], -1.0).tolist(),
        "processors": r["processors"].tolist(),
        "user": r["user"].tolist(),
    }


def _got(w: Workload) -> dict[str, list[Any]]:
    return {
        name: w.column(name).tolist()
        for name in ("id", "submit", "runtime", "estimate", "processors", "user")
    }


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=15, overruns=True, users=4))
def test_write_then_read_gives_the_same_jobs(w: Workload) -> None:
    text, left_out = written(w)
    batsim_accepts(json.loads(text))
    back, report = read_batsim_workload(io.StringIO(text), CleaningPolicy.raw())
    assert back.machine_size == w.machine_size and report.kept == report.lines
    assert _got(back) == _expected(w)
    dropped = w.records[w.records["runtime"] <= 0]["id"].tolist()
    assert left_out == ({"no_runtime": tuple(dropped)} if dropped else {})
    profiles = json.loads(text)["profiles"]
    assert len(profiles) == len({r for r in w.column("runtime").tolist() if r > 0})


@settings(max_examples=30, deadline=None)
@given(workloads(max_jobs=12, zero_runtimes=False))
def test_a_schedules_workload_is_written(w: Workload) -> None:
    schedule = simulate(w, EASY())
    assert written(schedule) == written(w)
    # The default policy changes nothing of jobs the simulator could run from the file.
    back, report = read_batsim_workload(io.StringIO(written(schedule)[0]))
    assert _got(back) == _got(w) and not report.dropped


def test_exact_numbers_and_a_path(tmp_path: Path) -> None:
    jobs = [
        Job(id=-3, submit=0.1 + 0.2, processors=3, runtime=1 / 3, estimate=2.5, user=7),
        Job(id=2**53 - 1, submit=1e12, processors=1, runtime=1e12, estimate=-1.0),
    ]
    path = tmp_path / "w.json"
    assert write_batsim_workload(jobs, path, machine_size=3) == {}
    back, _ = read_batsim_workload(path, CleaningPolicy.raw())
    assert list(back) == [attrs.evolve(j, requested_processors=j.processors) for j in jobs]
    assert '"profile": "delay1000000000000"' in path.read_text()


def test_profile_type_for_batsim_5_and_description() -> None:
    jobs = [Job(id=1, submit=0.0, processors=1, runtime=20.25, estimate=30.0)]
    text, _ = written(jobs, machine_size=1, profile_type="DelayProfile", description="made by a test")
    doc = json.loads(text)
    assert doc["profiles"] == {"delay20.25": {"type": "DelayProfile", "delay": 20.25}}
    assert doc["description"] == "made by a test"
    assert read_batsim_workload(io.StringIO(text))[0][0].runtime == 20.25


def test_left_out_jobs_batsim_cannot_run() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=0.0, estimate=5.0),
        Job(id=2, submit=0.0, processors=0, runtime=5.0, estimate=5.0),
        Job(id=3, submit=0.0, processors=-1, runtime=-1.0, estimate=5.0),
        Job(id=4, submit=1.0, processors=2, runtime=5.0, estimate=0.0),
    ]
    text, left_out = written(jobs, machine_size=2)
    assert left_out == {"no_runtime": (1, 3), "no_processors": (2,)}
    doc = json.loads(text)
    assert doc["jobs"] == [
        {"id": "4", "subtime": 1, "res": 2, "profile": "delay5"}
    ]  # no walltime: none known


def test_empty_workload_round_trips() -> None:
    text, _ = written(Workload.from_jobs([], 8))
    assert json.loads(text) == {"nb_res": 8, "jobs": [], "profiles": {}}
    w, report = read_batsim_workload(io.StringIO(text))
    assert len(w) == 0 and w.machine_size == 8 and report.lines == 0


# -- what Batsim has and jobs here lack, or the reverse -------------------------------------------------


def _doc(*jobs: dict[str, Any], nb_res: int = 4, **profiles: Any) -> io.StringIO:
    profiles = profiles or {"d10": {"type": "delay", "delay": 10}}
    return io.StringIO(json.dumps({"nb_res": nb_res, "jobs": list(jobs), "profiles": profiles}))


def _job(job_id: Any = 1, **fields: Any) -> dict[str, Any]:
    return {"id": job_id, "subtime": 0, "walltime": 20, "res": 1, "profile": "d10"} | fields


def test_id_forms() -> None:
    w, _ = read_batsim_workload(_doc(_job(7), _job("8"), _job("w0!9"), _job("-3"), _job("big!+10")))
    assert sorted(w.column("id").tolist()) == [-3, 7, 8, 9, 10]


def test_users_integers_names_and_null() -> None:
    w, report = read_batsim_workload(
        _doc(
            _job(1, user=5),
            _job(2, user="ann"),
            _job(3, user="bob"),
            _job(4, user="ann"),
            _job(5, user=None),
            _job(6),
        )
    )
    assert w.column("user").tolist() == [5, 6, 7, 6, -1, -1]
    assert report.notes == ("2 user names numbered in order of first appearance ('ann' = 6, 'bob' = 7)",)
    only_names, _ = read_batsim_workload(_doc(_job(1, user="x")))
    assert only_names[0].user == 1


def test_extra_fields_are_ignored() -> None:
    w, _ = read_batsim_workload(_doc(_job(1, extra_data='{"queue": 2}', dependencies=["0"])))
    assert len(w) == 1


def test_counted_drops_res_wider_than_nb_res_and_zero() -> None:
    w, report = read_batsim_workload(_doc(_job(1), _job(2, res=5), _job(3, res=0)))
    assert [j.id for j in w] == [1]
    assert dict(report.dropped) == {"no_processors": 1, "wider_than_machine": 1}
    assert report.dropped_ids["wider_than_machine"] == (2,)
    assert w.provenance["dropped"] == {"no_processors": 1, "wider_than_machine": 1}


def test_machine_size_argument() -> None:
    w, report = read_batsim_workload(_doc(_job(1, res=5)), machine_size=8)
    assert w.machine_size == 8 and report.machine_size_from == "argument" and len(w) == 1
    for bad in (0, -1, 2.0, True, "8", 2**53):
        with pytest.raises(ParameterError, match="machine_size"):
            read_batsim_workload(_doc(_job(1)), machine_size=bad)  # type: ignore[arg-type]


def test_missing_walltime_gives_exact_estimate_by_default() -> None:
    no_walltime = _job(1)
    del no_walltime["walltime"]
    w, report = read_batsim_workload(_doc(no_walltime, _job(2, walltime=-1)))
    assert w.column("estimate").tolist() == [10.0, 10.0]
    assert dict(report.altered) == {"estimate_from_runtime": 2}
    raw, _ = read_batsim_workload(_doc(no_walltime), CleaningPolicy.raw())
    assert raw[0].estimate == -1.0


def test_out_of_order_subtimes_are_sorted_and_counted() -> None:
    w, report = read_batsim_workload(_doc(_job(1, subtime=5), _job(2, subtime=1)))
    assert [j.id for j in w] == [2, 1] and dict(report.altered) == {"reordered_by_submit_time": 1}


# -- bad input ------------------------------------------------------------------------------------------

GOOD = {"nb_res": 4, "jobs": [_job(1)], "profiles": {"d10": {"type": "delay", "delay": 10}}}


def _set(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(GOOD))
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


_DELETE = object()


def _seq(**fields: Any) -> dict[str, Any]:
    """The good document with a sequence profile 's' of d10 (and other profiles), changed by ``fields``."""
    extra = {k: v for k, v in fields.items() if k not in ("seq", "repeat")}
    sequence = {"type": "composed", "seq": ["d10"]} | {
        k: v for k, v in fields.items() if k in ("seq", "repeat")
    }
    return {**GOOD, "profiles": {**GOOD["profiles"], "s": sequence, **extra}}


BAD_DOCS = [
    (_set(("nb_res",), _DELETE), None, "the 'nb_res' field is missing"),
    (_set(("nb_res",), 0), None, "'nb_res' must be a positive integer, got 0"),
    (_set(("nb_res",), "4"), None, "'nb_res' must be a positive integer"),
    (_set(("nb_res",), True), None, "'nb_res' must be a positive integer, got true"),
    (_set(("nb_res",), 4.0), None, "'nb_res' must be a positive integer, got 4.0"),
    (_set(("jobs",), _DELETE), None, "the 'jobs' field is missing"),
    (_set(("jobs",), {"1": 2}), None, "'jobs' must be an array"),
    (_set(("profiles",), _DELETE), None, "the 'profiles' field is missing"),
    (_set(("profiles",), []), None, "'profiles' must be an object"),
    (_set(("profiles", "d10"), "delay"), None, "profile 'd10' is not an object"),
    (_set(("profiles", "d10", "type"), _DELETE), None, "profile 'd10' has no 'type' string"),
    (_set(("profiles", "d10", "delay"), _DELETE), None, "profile 'd10' of type 'delay' must have a 'delay'"),
    (_set(("profiles", "d10", "delay"), 0), None, "must have a 'delay' from 0 (excluded) to 1e12 s, got 0"),
    (_set(("profiles", "d10", "delay"), -5), None, "got -5"),
    (_set(("profiles", "d10", "delay"), "10"), None, 'got "10"'),
    (_set(("profiles", "d10", "delay"), 2e12), None, "2000000000000.0 s is beyond 1e12 s"),
    (
        {**GOOD, "profiles": {**GOOD["profiles"], "s": {"type": "composed"}}},
        None,
        "profile 's' must have a 'seq'",
    ),
    (_seq(seq=[]), None, "profile 's' must have a 'seq' of one or more profile names, got []"),
    (_seq(seq=["d10", 3]), None, "must have a 'seq' of one or more profile names"),
    (_seq(seq="d10"), None, 'got "d10"'),
    (_seq(repeat=0), None, "profile 's' must have a positive integer 'repeat', got 0"),
    (_seq(repeat=1.0), None, "'repeat', got 1.0"),
    (_seq(seq=["d20"]), None, "profile 's' names 'd20' in its 'seq', which is not in the file"),
    (_seq(seq=["s"]), None, "profiles form a cycle: 's' -> 's'"),
    (_seq(seq=["t"], t={"type": "composed", "seq": ["s"]}), None, "profiles form a cycle: 's' -> 't' -> 's'"),
    (_seq(repeat=10**11 + 1), None, "profile 's' runs for 1000000000010.0 s, beyond 1e12 s"),
    (_set(("jobs", 0), [1]), "#1", "is not an object"),
    (_set(("jobs", 0, "id"), _DELETE), "#1", "has no 'id' field"),
    (_set(("jobs", 0, "id"), 1.5), "#1", "id must be a string or an integer, as Batsim reads it, got 1.5"),
    (_set(("jobs", 0, "id"), True), "#1", "id must be a string or an integer, as Batsim reads it, got true"),
    (_set(("jobs", 0, "id"), None), "#1", "got null"),
    (_set(("jobs", 0, "subtime"), _DELETE), "1", "has no 'subtime' field"),
    (_set(("jobs", 0, "subtime"), -1), "1", "subtime must be a number of seconds from 0 to 1e12, got -1"),
    (_set(("jobs", 0, "subtime"), "0"), "1", "subtime must be a number"),
    (_set(("jobs", 0, "walltime"), 0), "1", "walltime must be -1 (none) or a number of seconds"),
    (_set(("jobs", 0, "walltime"), -2), "1", "got -2"),
    (_set(("jobs", 0, "walltime"), None), "1", "got null"),
    (_set(("jobs", 0, "res"), _DELETE), "1", "has no 'res' field"),
    (_set(("jobs", 0, "res"), -1), "1", "res must be an integer from 0 to 2**53 - 1, got -1"),
    (_set(("jobs", 0, "res"), 2.0), "1", "res must be an integer from 0 to 2**53 - 1, got 2.0"),
    (_set(("jobs", 0, "res"), "2"), "1", 'got "2"'),
    (_set(("jobs", 0, "profile"), _DELETE), "1", "has no 'profile' field"),
    (_set(("jobs", 0, "profile"), 10), "1", "profile must be a profile's name (a string), got 10"),
    (_set(("jobs", 0, "profile"), "d20"), "1", "its profile 'd20' is not in the file's profiles"),
    (_set(("jobs", 0, "user"), 1.5), "1", "user must be an integer, a string or null, got 1.5"),
    (_set(("jobs", 0, "user"), [1]), "1", "user must be an integer, a string or null"),
    (_set(("jobs", 0, "user"), 2**60), "1", "user 1152921504606846976 is not strictly between"),
    ({**GOOD, "jobs": [_job(1), _job("1")]}, "#2", "the job id '1' is given to job #1 too"),
    ({**GOOD, "jobs": [_job("a"), _job(2), _job("a")]}, "#3", "the job id 'a' is given to job #1 too"),
]


@pytest.mark.parametrize(("doc", "job", "message"), BAD_DOCS)
def test_bad_documents_name_the_file_and_the_job(
    tmp_path: Path, doc: Any, job: str | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BatsimError) as caught:
        read_batsim_workload(path)
    text = str(caught.value)
    assert "\n" not in text and message in text, text
    where = str(path) if job is None else f"{path}: job {job!r}"
    assert text.startswith(f"{where}: "), text
    assert caught.value.job == job and isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a JSON document: Expecting value (line 1, column 1)"),
        ("1 0 -1 50 2 -1 -1 2 40 -1 1 1 1 -1 1 -1 -1 -1\n", "not a JSON document: Extra data"),
        ('{"nb_res": 4, "jobs": [], "profiles": {}', "not a JSON document: Expecting ',' delimiter"),
        ('{"nb_res": NaN, "jobs": [], "profiles": {}}', "not a Batsim workload: NaN is not a JSON number"),
        (
            '{"nb_res": 4, "nb_res": 5, "jobs": [], "profiles": {}}',
            "the key 'nb_res' appears twice in one object",
        ),
        ("[1, 2]", "a Batsim workload is a JSON object, got list"),
    ],
)
def test_not_a_batsim_workload(text: str, message: str) -> None:
    with pytest.raises(BatsimError, match=r"^<string>: ") as caught:
        read_batsim_workload(io.StringIO(text))
    assert message in str(caught.value)


def test_binary_files_and_paths_that_are_not_files(tmp_path: Path) -> None:
    w, _ = read_batsim_workload(io.BytesIO(TEST_DELAYS.encode()))
    assert len(w) == 3
    with pytest.raises(BatsimError, match="not UTF-8"):
        read_batsim_workload(io.BytesIO(b'{"nb_res": "\xff"}'))
    compressed = tmp_path / "w.json.gz"
    compressed.write_bytes(gzip.compress(TEST_DELAYS.encode()))
    with pytest.raises(
        BatsimError, match=r"w\.json\.gz: not a JSON document: the file is compressed \(gzip\)"
    ):
        read_batsim_workload(compressed)
    with pytest.raises(BatsimError, match="not a regular file"):
        read_batsim_workload(tmp_path)
    for source in (None, 5, b"{}"):
        with pytest.raises(ParameterError, match="source must be a path or an open file, got"):
            read_batsim_workload(source)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="policy must be a CleaningPolicy, got str"):
        read_batsim_workload(io.StringIO(TEST_DELAYS), "truncate_runtime")  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        read_batsim_workload(tmp_path / "missing.json")


def test_bad_arguments_of_the_writer(tmp_path: Path) -> None:
    job = Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0)
    with pytest.raises(ParameterError, match="machine_size is needed"):
        write_batsim_workload([job], io.StringIO())
    with pytest.raises(ParameterError, match=r"expected jobs \(backfill.Job\), got tuple"):
        write_batsim_workload([(1, 0.0)], io.StringIO(), machine_size=1)  # type: ignore[list-item]
    for source in ("w.json", {"jobs": []}, 5):
        with pytest.raises(ParameterError, match="expected a Workload, a Schedule or jobs"):
            write_batsim_workload(source, io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="profile_type must be one of 'delay', 'DelayProfile'"):
        write_batsim_workload([job], io.StringIO(), machine_size=1, profile_type="Delay")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="description must be a string"):
        write_batsim_workload([job], io.StringIO(), machine_size=1, description=3)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="machine_size"):
        write_batsim_workload([job], io.StringIO(), machine_size=0)
    for target in (None, 5, b"w.json"):
        with pytest.raises(ParameterError, match="target must be a path or an open text file, got"):
            write_batsim_workload([job], target, machine_size=1)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        write_batsim_workload([job], tmp_path / "missing" / "w.json", machine_size=1)
    target = tmp_path / "kept.json"
    target.write_text("before")
    with pytest.raises(ParameterError):
        write_batsim_workload([job], target, machine_size=1.5)  # type: ignore[arg-type]
    assert target.read_text() == "before"


def test_machine_size_overrides_a_workloads() -> None:
    w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0)], 4)
    assert json.loads(written(w, machine_size=16)[0])["nb_res"] == 16


# -- sweeps and the command line --------------------------------------------------------------------------


def test_trace_workload_reads_a_batsim_file(tmp_path: Path) -> None:
    path = tmp_path / "test_delays.json"
    path.write_text(TEST_DELAYS)
    trace = TraceWorkload(path)
    assert trace.label == "test_delays" and trace.identity()["kind"] == "batsim"
    assert trace.identity()["cleaning"]["overrun"] == "truncate_runtime"
    assert len(trace.load()) == 3
    assert is_batsim_path(path) and is_batsim_path("W.JSON") and not is_batsim_path("w.swf")


def test_simulate_reads_and_writes_batsim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "test_delays.json"
    source.write_text(TEST_DELAYS)
    target = tmp_path / "out.json"
    code = main(["simulate", str(source), "--scheduler", "fcfs", "easy", "--output-batsim", str(target)])
    out = capsys.readouterr().out
    assert code == 0 and "machine size 2 (from nb_res)" in out
    for name in ("fcfs", "easy"):
        path = tmp_path / f"out-{name}.json"
        assert f"wrote {path}" in out
        doc = json.loads(path.read_text())
        batsim_accepts(doc)
        assert "simulated by backfill" in doc["description"] and "test_delays.json" in doc["description"]
        assert {k: v for k, v in doc.items() if k != "description"} == {
            **json.loads(TEST_DELAYS),
            "jobs": [{**j, "id": str(j["id"])} for j in json.loads(TEST_DELAYS)["jobs"]],
        }
    assert not target.exists()


def test_simulate_notes_jobs_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A job of no runtime cannot be in a Batsim file: simulate it from SWF, write the schedule as Batsim.
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=0.0, estimate=5.0),
        Job(id=2, submit=0.0, processors=1, runtime=3.0, estimate=5.0),
    ]
    swf = tmp_path / "zero.swf"
    write_swf(swf, Workload.from_jobs(jobs, 2))
    target = tmp_path / "out.json"
    code = main(["simulate", str(swf), "--scheduler", "fcfs", "--output-batsim", str(target)])
    out = capsys.readouterr().out
    assert code == 0 and f"note: {target}: 1 job left out, which Batsim cannot run (no runtime)" in out
    assert [j["id"] for j in json.loads(target.read_text())["jobs"]] == ["2"]


def test_simulate_refuses_bad_batsim_input_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(_set(("jobs", 0, "res"), -1)))
    assert main(["simulate", str(source), "--scheduler", "fcfs"]) == 2
    err = capsys.readouterr().err
    assert err == f"backfill: error: {source}: job '1': res must be an integer from 0 to 2**53 - 1, got -1\n"
    good = tmp_path / "good.json"
    good.write_text(TEST_DELAYS)
    assert main(["simulate", str(good), "--lenient"]) == 2
    err = capsys.readouterr().err
    assert err == "backfill: error: --lenient applies only to an SWF log, not to a Batsim workload\n"
    assert main(["simulate", str(good), "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert err == "backfill: error: --seed applies only to the synthetic workload, not to a Batsim workload\n"
    assert main(["simulate", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith(f"backfill: error: cannot read {tmp_path / 'missing.json'}: ")


def test_output_batsim_refuses_the_input_and_missing_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "w.json"
    source.write_text(TEST_DELAYS)
    assert main(["simulate", str(source), "--scheduler", "fcfs", "--output-batsim", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--output-batsim" in err
    assert source.read_text() == TEST_DELAYS


def test_compare_takes_a_batsim_workload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "test_delays.json"
    source.write_text(TEST_DELAYS)
    code = main(["compare", str(source), "--scheduler", "fcfs", "easy", "--workers", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| test_delays | EASY" in out
    assert not os.path.exists(tmp_path / "test_delays")
