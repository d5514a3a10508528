"""Resources besides processors in reading, measures, outputs and sweeps (issue 45, point 5)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from resource_strategies import MEMORY, resource_workloads

from backfill import Conservative, Job, Resource, Workload, simulate, validate_schedule
from backfill.errors import BackfillError, BatsimError, ParameterError
from backfill.experiments.columns import column_label, is_resource_column, measure_column
from backfill.experiments.outputs import JOB_COLUMNS, job_columns, jobs_csv_text
from backfill.experiments.results import SweepResult, row_columns
from backfill.experiments.specs import ResourceSpec, SchedulerSpec, memory_size, memory_text, resource_specs
from backfill.experiments.sweep import Cell, Grid, ModelWorkload, TraceWorkload, run_sweep, summary_row
from backfill.measures.metrics import utilization
from backfill.measures.resource_use import job_amounts, resource_utilization, resource_utilizations
from backfill.workloads._batsim_json import memory_per_processor
from backfill.workloads.batsim import read_batsim_workload, write_batsim_workload
from backfill.workloads.cleaning import memory_note
from backfill.workloads.resources import memory_request
from backfill.workloads.swf import read_swf, write_swf

# -- reading: where each job's memory comes from ----------------------------------------------------


def _raw_fields(path: Path, n: int) -> dict[int, tuple[float, float, int]]:
    """Fields 7, 10 and 16 of the first ``n`` data lines of a log, by job id: an independent parse."""
    out: dict[int, tuple[float, float, int]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.lstrip().startswith(";") or not line.strip():
                continue
            fields = line.split()
            out[int(fields[0])] = (float(fields[6]), float(fields[9]), int(fields[15]))
            if len(out) == n:
                break
    return out


@pytest.mark.parametrize(
    ("name", "fallbacks"), [("RICC-2010-2.swf.gz", False), ("HPC2N-2002-2.1-cln.swf.gz", True)]
)
def test_archive_memory_counts(traces: Path, name: str, fallbacks: bool) -> None:
    workload, report = read_swf(traces / name)
    requested = sum(1 for j in workload if j.requested_memory > 0)
    used = sum(1 for j in workload if j.requested_memory <= 0 and j.memory > 0)
    assert dict(report.memory_from) == {
        "requested": requested,
        "used": used,
        "none": len(workload) - requested - used,
    }
    text = report.summary(resources=["memory"])
    # The note applies to a run that plans memory only: never with processors alone.
    assert "memory" not in report.summary() and not any(n.startswith("memory") for n in report.notes)
    if fallbacks:  # HPC2N: most jobs ask memory, some only record what they used, a few neither
        assert requested > used > 0 and len(workload) - requested - used > 0
        assert text.count("note: memory") == 1 and f"{used} jobs have no requested memory" in text
        assert f"; {len(workload) - requested - used} record neither: they hold none" in text
    else:  # RICC: every job asks memory
        assert requested == len(workload) and report.memory_note == "" and "memory" not in text
    # Fields 7, 10 and 16 are the jobs' memory, requested memory and partition.
    raw = _raw_fields(traces / name, 2000)
    jobs = {j.id: j for j in workload if j.id in raw}
    assert len(jobs) > 1900
    for job_id, job in jobs.items():
        assert (job.memory, job.requested_memory, job.partition) == raw[job_id]
        per = job.requested_memory if job.requested_memory > 0 else job.memory
        assert memory_request(job) == (math.ceil(per * job.processors) if per > 0 else 0)


def test_a_log_without_memory_has_no_memory_note() -> None:
    jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0)]
    text = io.StringIO()
    write_swf(text, Workload.from_jobs(jobs, machine_size=2))
    _, report = read_swf(io.StringIO(text.getvalue()))
    assert dict(report.memory_from) == {"requested": 0, "used": 0, "none": 1}
    assert report.notes == () and report.memory_note == ""


def test_one_fallback_is_a_note_in_the_singular() -> None:
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0, requested_memory=8.0),
        Job(id=2, submit=0.0, processors=1, runtime=5.0, estimate=5.0, memory=3.0),
    ]
    text = io.StringIO()
    write_swf(text, Workload.from_jobs(jobs, machine_size=2))
    _, report = read_swf(io.StringIO(text.getvalue()))
    assert report.notes == ()
    assert report.memory_note == (
        "memory: 1 job has no requested memory (field 10): its used memory (field 7) stands in, "
        "as AccaSim does"
    )


# -- measures --------------------------------------------------------------------------------------


def cores(job: Job) -> int:
    """A resource that is the processors again: its utilization must be the processors'."""
    return job.processors


@settings(max_examples=60, deadline=None)
@given(resource_workloads((MEMORY,)))
def test_resource_utilization_matches_the_processors_and_a_naive_area(workload: Workload) -> None:
    twin = Resource("cores", workload.machine_size, cores)
    schedule = simulate(workload, Conservative(resources=[MEMORY, twin]))
    validate_schedule(schedule)
    assert resource_utilization(schedule, "cores") == pytest.approx(utilization(schedule), abs=1e-12)
    done = [i for i in range(len(schedule)) if math.isfinite(schedule.end[i])]
    area = sum(
        memory_request(job) * float(job.runtime) for i, job in enumerate(schedule.workload) if i in done
    )
    span = (max(schedule.end[done]) - min(schedule.submit[done])) if done else 0.0
    expected = area / (MEMORY.capacity * span) if span > 0 else 0.0
    got = resource_utilizations(schedule)
    assert list(got) == ["utilization_memory", "utilization_cores"]
    assert got["utilization_memory"] == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= got["utilization_memory"] <= 1.0 + 1e-12


def test_resource_utilization_refuses_a_resource_not_planned() -> None:
    schedule = simulate(Workload.from_jobs([Job(1, 0.0, 1, 1.0, 1.0)], machine_size=1), Conservative())
    assert resource_utilizations(schedule) == {}
    with pytest.raises(BackfillError, match="did not plan a resource 'memory'; it planned none"):
        resource_utilization(schedule, "memory")


def test_resource_columns_in_the_vocabulary() -> None:
    assert is_resource_column("utilization_memory") and not is_resource_column("utilization")
    assert not is_resource_column("utilization_processors") and not is_resource_column("utilization_")
    assert measure_column("utilization-memory") == "utilization_memory"
    assert column_label("utilization_gpus") == "gpus utilization (fraction of the gpus)"
    with pytest.raises(BackfillError, match="utilization_<resource>"):
        measure_column("utilisation")


def _memory_workload(n: int = 30) -> Workload:
    jobs = [
        Job(
            id=i,
            submit=float(i),
            processors=1 + i % 3,
            runtime=10.0 + i,
            estimate=20.0 + i,
            requested_memory=float(100 * (1 + i % 4)),
        )
        for i in range(1, n + 1)
    ]
    return Workload.from_jobs(jobs, machine_size=4)


def test_summary_row_has_a_utilization_column_per_planned_resource() -> None:
    workload = _memory_workload()
    plain = summary_row(simulate(workload, Conservative()))
    assert not any(is_resource_column(c) for c in plain)
    with_memory = summary_row(simulate(workload, Conservative(resources=[Resource.memory(1200)])))
    assert 0 < with_memory["utilization_memory"] <= 1
    columns = row_columns([with_memory])
    assert columns.index("utilization_memory") == columns.index("seconds") + 1
    assert row_columns([plain]) == row_columns([{}])


# -- outputs ---------------------------------------------------------------------------------------


def test_job_csv_carries_each_resource_amount() -> None:
    workload = _memory_workload()
    memory = Resource.memory(1200)
    schedule = simulate(workload, Conservative(resources=[memory]))
    rows = list(csv.DictReader(io.StringIO(jobs_csv_text(schedule, {"scheduler": "C"}))))
    assert list(rows[0]) == list(job_columns(schedule))
    assert list(rows[0])[list(rows[0]).index("allocated_resources") + 1] == "memory"
    assert [int(r["memory"]) for r in rows] == [memory_request(j) for j in workload]
    assert job_amounts(schedule, "memory").tolist() == [memory_request(j) for j in workload]
    # Processors alone: exactly the columns of before.
    plain = simulate(workload, Conservative())
    assert job_columns(plain) == JOB_COLUMNS
    assert jobs_csv_text(plain, {}).splitlines()[0] == ",".join(JOB_COLUMNS)


def clash(job: Job) -> int:
    return 0


def test_job_csv_refuses_a_resource_named_as_a_column() -> None:
    schedule = simulate(_memory_workload(3), Conservative(resources=[Resource("stretch", 4, clash)]))
    with pytest.raises(BackfillError, match="'stretch' would repeat a column"):
        job_columns(schedule)


def test_batsim_round_trip_with_memory() -> None:
    workload = _memory_workload()
    memory = Resource.memory(1200)
    schedule = simulate(workload, Conservative(resources=[memory]))
    out = io.StringIO()
    write_batsim_workload(schedule, out)
    doc = json.loads(out.getvalue())
    assert [job["memory"] for job in doc["jobs"]] == [memory_request(j) for j in schedule.workload]
    back, report = read_batsim_workload(io.StringIO(out.getvalue()))
    assert [memory_request(j) for j in back] == [memory_request(j) for j in schedule.workload]
    assert any(n.startswith(f"memory: {len(workload)} of {len(workload)} jobs") for n in report.notes)
    again = simulate(back, Conservative(resources=[memory]))
    assert again.start.tolist() == schedule.start.tolist()


def test_batsim_without_resources_is_unchanged() -> None:
    workload = _memory_workload(5)
    plain, explicit = io.StringIO(), io.StringIO()
    write_batsim_workload(simulate(workload, Conservative()), plain)
    write_batsim_workload(workload, explicit, resources=())
    assert plain.getvalue() == explicit.getvalue() and '"memory"' not in plain.getvalue()
    read, _ = read_batsim_workload(io.StringIO(plain.getvalue()))
    assert all(j.requested_memory == -1 for j in read)


def test_batsim_writer_and_reader_refuse_bad_memory() -> None:
    with pytest.raises(ParameterError, match="'user' would overwrite"):
        write_batsim_workload(_memory_workload(2), io.StringIO(), resources=[Resource("user", 4, clash)])
    for bad in ("-1", '"4G"', "true"):
        text = (
            '{"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "d", "memory": '
            + bad
            + '}], "profiles": {"d": {"type": "delay", "delay": 5}}}'
        )
        with pytest.raises(BatsimError, match="memory must be a number of kB"):
            read_batsim_workload(io.StringIO(text))


@example(3, 187)  # 3 / 187 * 187 rounds above 3: the quotient must come down one unit
@example(1718182598866735, 648978)
@given(st.integers(0, 2**52) | st.integers(0, 5000), st.integers(1, 2**20) | st.integers(1, 300))
def test_memory_per_processor_gives_back_the_amount(amount: int, processors: int) -> None:
    per = memory_per_processor(amount, processors)
    job = Job(id=1, submit=0.0, processors=processors, runtime=1.0, estimate=1.0, requested_memory=per)
    assert memory_request(job) == amount


# -- specs, sweeps and the cache -------------------------------------------------------------------


def test_memory_sizes() -> None:
    assert memory_size("1.5G") == 1572864 and memory_size("512M") == 524288 and memory_size("64") == 64
    assert memory_size("2k") == 2 and memory_size("1T") == 2**30 and memory_size("3 MB") == 3072
    for bad, words in [
        ("0", "at least 1 kB"),
        ("0.5", "at least 1 kB"),
        ("-1G", "not a positive number"),
        ("1.5X", "unknown unit 'X'"),
        ("1B", "unknown unit 'B'"),
        ("G", "not a positive number"),
        ("nan", "not a positive number"),
        ("1e400", "at least 1 kB"),
    ]:
        with pytest.raises(BackfillError, match=words):
            memory_size(bad)


# Sizes as a user writes them (a whole or a few decimals of a unit) and any whole kB, however large.
def _written(whole: int, thousandths: int, shift: int) -> int:
    return (whole * 1000 + thousandths) * 2**shift // 1000  # whole.thousandths of M, G or T, in kB


_SIZES = st.one_of(
    st.integers(1, 2**80),
    st.builds(_written, st.integers(1, 4096), st.integers(0, 999), st.sampled_from([10, 20, 30])),
)


@given(_SIZES)
@example(2**20)
@example(3 * 2**19)
@example(2**53 + 1)
def test_a_size_is_written_in_the_user_s_units_and_read_back_exactly(kb: int) -> None:
    text = memory_text(kb)
    assert memory_size(text) == kb
    spec = ResourceSpec("memory", kb)
    assert ResourceSpec.parse(spec.label) == spec and spec.label == f"memory={text}"
    scheduler = SchedulerSpec("EASY", (("depth", 2),), resources=[spec])
    assert SchedulerSpec.parse(str(scheduler)) == scheduler
    if kb % 1024 == 0:  # a whole number of M is never written as kB
        assert text[-1] in "TGM"


@pytest.mark.parametrize("kb", [0, -5, 1.5, True, "1G", None])
def test_a_size_to_write_is_a_whole_number_of_kb(kb: object) -> None:
    with pytest.raises(BackfillError, match="a memory size is a whole number of kB >= 1"):
        memory_text(kb)  # type: ignore[arg-type]


@pytest.mark.parametrize("counts", [{"requested": 1, "used": -2}, {"requested": "1"}, {"none": 1.0}])
def test_a_memory_note_needs_counts(counts: dict[str, object]) -> None:
    with pytest.raises(BackfillError, match="memory_note: the count of"):
        memory_note(counts)  # type: ignore[arg-type]


def test_sizes_are_labelled_as_written() -> None:
    given = ("1G", "1.5G", "512M", "1536M", "150")
    labels = {t: SchedulerSpec.parse(f"easy+memory={t}").label for t in given}
    assert labels == {
        "1G": "EASY+memory=1G",
        "1.5G": "EASY+memory=1.5G",
        "512M": "EASY+memory=512M",
        "1536M": "EASY+memory=1.5G",  # one size, one label
        "150": "EASY+memory=150",  # kB, as SWF counts
    }


def test_resource_specs() -> None:
    assert resource_specs("processors") == ()
    assert resource_specs("processors, memory") == (ResourceSpec("memory"),)
    assert resource_specs(["memory=1G"]) == (ResourceSpec("memory", 2**20),)
    for bad, words in [
        ("gpus", "unknown resource 'gpus'; known: processors, memory"),
        ("memory,memory=1G", "given twice"),
        ("processors=8", "always planned"),
        ("memory=", "needs a size"),
        ("memory,,", "empty resource name"),
    ]:
        with pytest.raises(BackfillError, match=words):
            resource_specs(bad)
    with pytest.raises(BackfillError, match="int >= 1 or None"):
        ResourceSpec("memory", 0)


def test_the_default_memory_capacity_is_the_documented_one() -> None:
    workload = _memory_workload()
    with pytest.raises(BackfillError, match="no documented memory for the workload"):
        ResourceSpec("memory").resource(workload)
    assert ResourceSpec("memory", 50).resource(workload).capacity == 200
    header = {
        "Installation": "HPC2N - High Performance Computing Center North, Sweden",
        "Computer": "Linux cluster (Seth)",
    }
    seth = Workload.from_records(workload.records, workload.machine_size, header=header)
    assert ResourceSpec("memory").resource(seth).capacity == 512 * 1024 * workload.machine_size


def test_scheduler_spec_with_resources() -> None:
    spec = SchedulerSpec("EASY", resources="memory")
    assert spec.label == "EASY+memory" and spec != SchedulerSpec("EASY")
    assert repr(SchedulerSpec("EASY")) == "SchedulerSpec(name='EASY', params=())"
    assert "resources=(ResourceSpec(name='memory'" in repr(spec)
    with pytest.raises(BackfillError, match="built for a workload"):
        spec.build("fcfs")
    built = SchedulerSpec("Conservative", resources="memory=1K").build("fcfs", _memory_workload())
    assert built.resources == (Resource.memory(4),)  # type: ignore[attr-defined]
    assert SchedulerSpec("Conservative").resource_key() == {}


def test_cache_keys_differ_with_resources() -> None:
    model = ModelWorkload(n_jobs=10, machine_size=8)
    keys = {
        Cell(model, SchedulerSpec("Conservative", resources=given)).key()
        for given in ((), "memory", "memory=1G", "memory=2G")
    }
    assert len(keys) == 4
    plain = Cell(model, SchedulerSpec("Conservative"))
    assert "resources" not in plain._key_data(model.identity())  # old cells keep their keys


def test_sweep_with_memory_has_its_column_and_reads_its_cache(tmp_path: Path) -> None:
    path = tmp_path / "mem.swf"
    write_swf(path, _memory_workload(40))
    trace = TraceWorkload(path)
    grid = Grid(
        [trace], [SchedulerSpec("Conservative"), SchedulerSpec("Conservative", resources="memory=150")]
    )
    first = run_sweep(grid, workers=1, cache=tmp_path / "cache")
    plain, memory = first.rows
    assert "utilization_memory" not in plain and 0 < memory["utilization_memory"] <= 1
    assert memory["scheduler"] == "Conservative+memory=150"
    # 600 kB in all: the jobs asking more are rejected, and memory changes the schedule.
    assert plain["rejected"] == 0 and memory["rejected"] > 0
    assert "needs more memory than the machine has (600)" in memory["rejected_reasons"]
    second = run_sweep(grid, workers=1, cache=tmp_path / "cache")
    assert (second.computed, second.cached) == (0, 2) and second.rows == first.rows
    first.to_csv(tmp_path / "rows.csv")
    back = SweepResult.from_csv(tmp_path / "rows.csv")
    assert back.rows[1]["utilization_memory"] == memory["utilization_memory"]
    assert math.isnan(back.rows[0]["utilization_memory"])
