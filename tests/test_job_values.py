"""What a job may hold: every value checked where it enters (Job, Workload), ids carried exactly."""

from __future__ import annotations

import io
import math
import re
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from strategies import job_rows

from backfill import Conservative, Job, Workload, simulate, validate_schedule
from backfill.errors import JobError, ParameterError, ScheduleError
from backfill.experiments.outputs import jobs_csv_text
from backfill.schedule import Schedule
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.swf import CleaningPolicy, read_swf
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS

BASE: dict[str, Any] = {"id": 5, "submit": 0.0, "processors": 2, "runtime": 10.0, "estimate": 20.0}


def job(**changes: Any) -> Job:
    return Job(**(BASE | changes))


# ---------------------------------------------------------------------------------------------
# Job
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        # Ints are ints: no fraction (it was truncated), no bool (it became 1), no string.
        ("processors", 2.7, "processors must be an int, got 2.7"),
        ("processors", True, "processors must be an int, got True"),
        ("processors", "4", "processors must be an int, got '4'"),
        ("processors", np.float32(2.5), "processors must be an int, got np.float32(2.5)"),
        ("processors", 4.0, "processors must be an int, got 4.0"),
        ("processors", -2, "processors must be -1 (unknown) or an int from 0 to 2**53 - 1, got -2"),
        ("partition", -7, "partition must be -1 (unknown) or an int from 0 to 2**53 - 1, got -7"),
        ("user", True, "user must be an int, got True"),
        ("status", 1.5, "status must be an int, got 1.5"),
        ("requested_processors", 2**53, "requested_processors must be an int strictly between -2**53"),
        # Times are finite, not negative, and small enough for a float to resolve a millisecond.
        ("submit", math.nan, "submit must be a finite time from 0 to 1e12 s, got nan"),
        ("submit", math.inf, "submit must be a finite time from 0 to 1e12 s, got inf"),
        ("submit", -1.0, "submit must be a finite time from 0 to 1e12 s, got -1.0"),
        ("submit", 1e17, "submit must be a finite time from 0 to 1e12 s, got 1e+17"),
        ("runtime", math.nan, "runtime must be -1 (unknown) or a finite time from 0 to 1e12 s, got nan"),
        ("runtime", -math.inf, "runtime must be -1 (unknown) or a finite time"),
        ("runtime", -2.0, "runtime must be -1 (unknown) or a finite time"),
        ("estimate", math.inf, "estimate must be -1 (unknown) or a finite time"),
        ("estimate", -0.5, "estimate must be -1 (unknown) or a finite time"),
        ("estimate", 2e12, "estimate must be -1 (unknown) or a finite time"),
        ("estimate", True, "estimate must be a number, got True"),
        ("submit", "0", "submit must be a number, got '0'"),
        ("wait", math.nan, "wait must be a finite number, got nan"),
        ("think_time", math.inf, "think_time must be a finite number, got inf"),
        ("memory", 10**400, "memory must be a finite number, got 100000000000000000000000000000...000000"),
        # SWF fields 7 and 10: -5 is no amount (a reader refused the line; a job did not, on 2a59627).
        ("memory", -5.0, "memory must be -1 (unknown) or a finite amount from 0 (kB per processor)"),
        ("requested_memory", -5, "requested_memory must be -1 (unknown) or a finite amount from 0"),
    ],
)
def test_a_job_refuses_a_value_no_job_can_have(field: str, value: Any, expected: str) -> None:
    with pytest.raises(JobError) as caught:
        job(**{field: value})
    assert str(caught.value).startswith(f"job 5: {expected}")
    assert (caught.value.job_id, caught.value.field) == (5, field)


@pytest.mark.parametrize("value", [2**53, 2**53 + 1, -(2**53), 1.0, True, "7", np.float64(7.0)])
def test_a_job_refuses_an_id_that_is_not_an_exact_int(value: Any) -> None:
    with pytest.raises(JobError, match=r"^job: id must be an int") as caught:
        job(id=value)
    assert (caught.value.job_id, caught.value.field) == (None, "id")


def test_numpy_numbers_are_stored_as_python_numbers() -> None:
    j = Job(
        id=np.int64(2**53 - 1),
        submit=np.float64(1.5),
        processors=np.int32(4),
        runtime=np.int64(10),
        estimate=np.float32(20.5),
        user=np.uint8(3),
    )
    assert (j.id, j.submit, j.processors, j.runtime, j.estimate, j.user) == (2**53 - 1, 1.5, 4, 10.0, 20.5, 3)
    assert [type(v) for v in (j.id, j.submit, j.processors, j.runtime, j.estimate, j.user)] == [
        int,
        float,
        int,
        float,
        float,
        int,
    ]
    assert type(job(runtime=7).runtime) is float


def test_the_limits_themselves_are_accepted() -> None:
    j = job(id=-(2**53) + 1, submit=MAX_TIME, processors=-1, runtime=-1, estimate=MAX_TIME, wait=-1e300)
    assert (j.submit, j.processors, j.runtime, j.estimate) == (MAX_TIME, -1, -1.0, MAX_TIME)
    assert job(processors=0, runtime=0.0, estimate=0.0).processors == 0
    assert job(wait=1e308, memory=1e308).memory == 1e308  # their sum overflows: each is still finite


def test_evolve_checks_as_the_constructor_does() -> None:
    j = job()
    assert attrs.evolve(j, processors=np.int64(3)).processors == 3
    with pytest.raises(JobError, match=r"job 5: processors must be an int, got 2\.5"):
        attrs.evolve(j, processors=2.5)
    with pytest.raises(JobError, match="job 5: estimate must be"):
        attrs.evolve(j, estimate=math.nan)


def test_a_job_keeps_a_readable_repr_and_its_equality() -> None:
    assert repr(job()).startswith("Job(id=5, submit=0.0, processors=2, runtime=10.0, estimate=20.0, user=-1")
    assert job() == job(id=np.int64(5)) and hash(job()) == hash(job(processors=np.int16(2)))


def swf_fields(**changes: float) -> list[float]:
    values = dict.fromkeys(SWF_FIELDS, -1.0) | {"id": 7.0, "submit": 10.0, "runtime": 30.0}
    values |= {"processors": 2.0, "estimate": 60.0, "status": 1.0}
    return [(values | changes)[name] for name in SWF_FIELDS]


def test_from_swf_fields_takes_whole_floats_and_refuses_fractions() -> None:
    j = Job.from_swf_fields(swf_fields())
    assert (j.id, j.processors, j.status) == (7, 2, 1) and type(j.processors) is int
    with pytest.raises(JobError, match=r"job 7: processors must be a whole number, got 2\.7"):
        Job.from_swf_fields(swf_fields(processors=2.7))
    with pytest.raises(JobError, match="job 7: user must be a whole number, got nan"):
        Job.from_swf_fields(swf_fields(user=math.nan))
    with pytest.raises(JobError, match=r"^job: id must be a whole number, got 7\.5"):
        Job.from_swf_fields(swf_fields(id=7.5))
    with pytest.raises(JobError, match="job 7: runtime must be"):
        Job.from_swf_fields(swf_fields(runtime=-3.0))


# ---------------------------------------------------------------------------------------------
# Workload
# ---------------------------------------------------------------------------------------------


def records(n: int = 4) -> np.ndarray:
    r = np.zeros(n, dtype=JOB_DTYPE)
    r["id"] = np.arange(1, n + 1)
    r["submit"] = np.arange(n, dtype=np.float64)
    r["processors"] = 1
    r["runtime"] = r["estimate"] = 5.0
    return r


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        (
            "runtime",
            math.nan,
            "job 3: runtime must be -1 (unknown) or a finite time from 0 to 1e12 s, got nan",
        ),
        ("estimate", -2.0, "job 3: estimate must be -1 (unknown) or a finite time"),
        ("submit", 1e17, "job 3: submit must be a finite time from 0 to 1e12 s, got 1e+17"),
        ("processors", -2, "job 3: processors must be -1 (unknown) or an int from 0 to 2**53 - 1, got -2"),
        ("id", 2**53 + 1, "job: id must be an int strictly between -2**53 and 2**53, got 9007199254740993"),
        ("user", -(2**60), "job 3: user must be an int strictly between -2**53 and 2**53"),
        ("memory", math.inf, "job 3: memory must be -1 (unknown) or a finite amount from 0"),
        ("requested_memory", -5.0, "job 3: requested_memory must be -1 (unknown) or a finite amount from 0"),
    ],
)
def test_a_workload_refuses_a_row_no_job_can_have(field: str, value: float, expected: str) -> None:
    r = records()
    r[field][2] = value
    with pytest.raises(JobError, match="^" + re.escape(expected)):
        Workload.from_records(r, 4)
    with pytest.raises(JobError):
        Workload(r, 4)


def test_a_workload_names_the_first_bad_row_and_its_first_bad_field() -> None:
    r = records(6)
    r["estimate"][4] = math.nan
    r["wait"][1] = math.inf
    r["processors"][1] = -5
    with pytest.raises(JobError, match=r"^job 2: processors") as caught:
        Workload.from_records(r, 4)
    assert (caught.value.job_id, caught.value.field) == (2, "processors")


def test_scaling_cannot_push_submit_times_past_the_limit() -> None:
    w = Workload.from_records(records(), 4)
    message = "job 3: submit must be a finite time from 0 to 1e12 s, got 2000000000000.0"
    with pytest.raises(JobError, match=re.escape(message)):
        w.scaled(1e-12)
    assert w.scaled(2.0).column("submit").tolist() == [0.0, 0.5, 1.0, 1.5]
    assert w.with_exact_estimates().column("estimate").tolist() == [5.0] * 4


@pytest.mark.parametrize("size", [2.9, 2.0, True, "4", 0, -3, 2**53, None])
def test_a_machine_size_must_be_a_positive_int(size: Any) -> None:
    with pytest.raises(ParameterError, match="machine_size must be"):
        Workload.from_jobs([job()], size)
    with pytest.raises(ParameterError, match="machine_size must be"):
        Workload(records(), size)


def test_a_numpy_machine_size_is_stored_as_an_int() -> None:
    w = Workload.from_jobs([job()], np.int64(4))
    assert w.machine_size == 4 and type(w.machine_size) is int


@settings(max_examples=200, deadline=None)
@given(job_rows())
def test_a_workload_says_what_the_first_bad_job_would_say(rows: list[tuple[Any, ...]]) -> None:
    # The bulk check and the one-job check agree: same job, same field, same words.
    r = np.array(rows, dtype=JOB_DTYPE)
    r = r[np.argsort(r["submit"], kind="stable")]
    expected = None
    for row in r.tolist():
        try:
            Job.from_swf_fields(row)
        except JobError as e:
            expected = str(e)
            break
    if expected is None:
        assert len(Workload.from_records(r, 8)) == len(rows)
    else:
        with pytest.raises(JobError) as caught:
            Workload.from_records(r, 8)
        assert str(caught.value) == expected


# ---------------------------------------------------------------------------------------------
# What a schedule may claim, and ids at the edge of a float
# ---------------------------------------------------------------------------------------------


def test_a_job_that_ran_for_no_time_is_never_valid() -> None:
    # At 1e17 s, 1e17 + 5 == 1e17: a host that starts a job there gets end == start + runtime.
    w = Workload.from_jobs([job(id=1), job(id=2, processors=1)], 4)
    far = Schedule.from_starts(w, {1: 1e17, 2: 0.0})
    assert far.end[0] == far.start[0] + far.runtime[0]
    with pytest.raises(
        ScheduleError, match=r"differs from their runtime by more than a millisecond.*\(job ids 1\)"
    ):
        validate_schedule(far)
    validate_schedule(Schedule.from_starts(w, {1: MAX_TIME, 2: 0.0}))


def test_ids_next_to_the_limit_are_carried_exactly() -> None:
    top = MAX_INT - 1
    jobs = [job(id=top, processors=4), job(id=-top, submit=1.0, processors=4), job(id=3, submit=1.0)]
    w = Workload.from_jobs(jobs, 4)
    s = simulate(w, Conservative(), record_reservations=True)
    validate_schedule(s)
    assert s.workload.column("id").tolist() == [top, -top, 3]
    assert set(s.reservations["job_id"].tolist()) <= {top, -top, 3}
    assert s.reservations_of(-top).tolist() == [20.0, 10.0]
    csv = jobs_csv_text(s, {"scheduler": "Conservative"}).splitlines()
    assert [line.split(",")[0] for line in csv[1:]] == [str(top), str(-top), "3"]
    out = io.StringIO()
    s.to_swf(out)
    back, _ = read_swf(io.StringIO(out.getvalue()), CleaningPolicy.raw())
    assert back.column("id").tolist() == [top, -top, 3]


def test_the_simulator_builds_jobs_with_their_changed_values() -> None:
    # Jobs are built from checked rows without a check; a raised estimate still reaches the scheduler.
    seen: list[Job] = []

    class Watch(Conservative):
        def submit(self, job: Job, now: float) -> None:
            seen.append(job)
            super().submit(job, now)

    w = Workload.from_jobs([job(id=1, runtime=30.0, estimate=20.0), job(id=2, runtime=5.0, estimate=-1)], 4)
    simulate(w, Watch())
    assert [(j.id, j.runtime, j.estimate) for j in seen] == [(1, 30.0, 30.0), (2, 5.0, 5.0)]
    assert all(type(j.estimate) is float and type(j.processors) is int for j in seen)


def test_a_checked_row_becomes_the_job_it_describes() -> None:
    # The trusted path (no checks) puts every SWF field where the checked constructor does.
    row = (7, 10.0, 3.0, 30.0, 2, 4.0, 5.0, 6, 60.0, 8.0, 1, 9, 10, 11, 12, 13, 14, 15.0)
    w = Workload.from_records(np.array([row], dtype=JOB_DTYPE), 4)
    assert w[0] == next(iter(w)) == w[:1][0] == Job.from_swf_fields(row)
    assert w[0].swf_fields() == row
