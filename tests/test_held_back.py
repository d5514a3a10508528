"""Resources that can bind (issue 53, point 1): the documented default capacity, and ``held_back``.

Before: ``--resources memory`` planned the largest request per processor times the processors, a
capacity no set of jobs could exceed, and nothing said whether memory ever mattered.
"""

from __future__ import annotations

import gzip
import itertools
import random
import re
from pathlib import Path

import numpy as np
import pytest
from test_cli import run

from backfill import (
    EASY,
    FCFS,
    Conservative,
    Job,
    Resource,
    Workload,
    default_capacity,
    lublin_feitelson,
    simulate,
)
from backfill.errors import BackfillError, ParameterError
from backfill.experiments.specs import ResourceSpec
from backfill.experiments.sweep import summary_row
from backfill.measures.resource_use import held_back, held_back_columns
from backfill.schedule import Schedule
from backfill.workloads.resources import _NODE_MEMORY, memory_request
from backfill.workloads.swf import read_swf

DOCS = Path(__file__).resolve().parents[1] / "docs" / "resources.md"


def _gpus(job: Job) -> int:
    return job.group  # the test's second resource: a job holds as many GPUs as its group number


def _job(i: int, submit: float, processors: int, runtime: float, memory: float, group: int = 0) -> Job:
    return Job(
        id=i,
        submit=submit,
        processors=processors,
        runtime=runtime,
        estimate=runtime,
        requested_memory=memory,
        group=group,
    )


# 4 processors, 10 kB of memory. Job 1 holds 8 kB from 0 to 100. Job 2 (1 processor, 4 kB) arrives
# at 10: 3 processors are free, 2 kB of memory; it waits for memory until 100, 90 s. Job 3 (all 4
# processors) arrives at 20 behind job 2: from 20 to 100 the oldest waiting job is still job 2; from
# 100 job 2 runs and job 3 waits for processors, not memory. Memory held the queue back for 90 s.
HAND = [_job(1, 0.0, 1, 100.0, 8.0), _job(2, 10.0, 1, 50.0, 4.0), _job(3, 20.0, 4, 10.0, 0.25)]


@pytest.mark.parametrize("make", [FCFS, EASY, Conservative], ids=lambda m: m.__name__)
def test_memory_that_binds_is_counted_by_hand(make: type) -> None:
    memory = Resource.memory(10)
    s = simulate(Workload.from_jobs(HAND, machine_size=4), make(resources=[memory]))
    assert s.start.tolist() == [0.0, 100.0, 150.0]
    assert held_back(s) == {"memory": 90.0}
    assert held_back_columns(s) == {"held_back_memory": 90.0}
    # Without the resource the same schedule is held back by nothing the measure is asked about.
    assert held_back(s, resources=[Resource.memory(1000)]) == {"memory": 0.0}


def test_memory_that_cannot_bind_holds_nothing_back() -> None:
    w = lublin_feitelson(300, machine_size=32, seed=4)
    records = w.records.copy()
    records["requested_memory"] = 1.0 + records["id"] % 7
    w = Workload.from_records(records, 32)
    total = sum(memory_request(j) for j in w)  # every job at once fits
    for make in (EASY, Conservative):
        plain = simulate(w, make())
        loose = simulate(w, make(resources=[Resource.memory(total)]))
        assert loose.start.tolist() == plain.start.tolist()
        assert held_back(loose) == {"memory": 0.0}
        tight = simulate(w, make(resources=[Resource.memory(3 * 32)]))  # 3 kB per processor: binds
        assert held_back(tight)["memory"] > 0


def test_each_resource_counts_when_it_lacks() -> None:
    # Job 1 holds 8 of 10 kB and 3 of 4 GPUs; job 2 needs 4 kB and 2 GPUs: both lack from 5 to 50.
    jobs = [_job(1, 0.0, 1, 50.0, 8.0, group=3), _job(2, 5.0, 1, 10.0, 4.0, group=2)]
    gpus = Resource("gpus", 4, _gpus)
    s = simulate(Workload.from_jobs(jobs, machine_size=8), EASY(resources=[Resource.memory(10), gpus]))
    assert held_back(s) == {"memory": 45.0, "gpus": 45.0}
    assert held_back(simulate(Workload.from_jobs(jobs, machine_size=8), EASY())) == {}


def test_rejected_jobs_never_wait_and_unfinished_ones_wait_to_the_end() -> None:
    jobs = [_job(1, 0.0, 1, 100.0, 8.0), _job(2, 1.0, 1, 5.0, 50.0), _job(3, 10.0, 1, 5.0, 4.0)]
    s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS(resources=[Resource.memory(10)]))
    assert list(s.rejected) == [2]
    assert held_back(s) == {"memory": 90.0}  # job 3 from 10 to 100, not job 2


def _brute_force(s: Schedule, resources: list[Resource]) -> dict[str, float]:
    """The definition, instant by instant and job by job: the oldest waiting job, what is free."""
    w = s.workload
    jobs = list(w)
    rejected = set(s.rejected)
    times = sorted(
        {*s.submit.tolist(), *s.start[~np.isnan(s.start)].tolist(), *s.end[~np.isnan(s.end)].tolist()}
    )
    out = {r.name: 0.0 for r in resources}
    for t, t_next in itertools.pairwise(times):
        running = [k for k in range(len(jobs)) if s.start[k] <= t and not s.end[k] <= t]
        waiting = [
            k
            for k in range(len(jobs))
            if jobs[k].id not in rejected and s.submit[k] <= t and not s.start[k] <= t
        ]
        if not waiting:
            continue
        k = min(waiting, key=lambda k: (s.submit[k], k))
        if jobs[k].processors > w.machine_size - sum(jobs[j].processors for j in running):
            continue
        for r in resources:
            if r.amount(jobs[k]) > r.capacity - sum(r.amount(jobs[j]) for j in running):
                out[r.name] += t_next - t
    return out


@pytest.mark.parametrize("seed", range(6))
def test_it_follows_its_definition(seed: int) -> None:
    rng = random.Random(seed)
    jobs = [
        _job(i, float(rng.randrange(200)), rng.randint(1, 4), float(rng.randint(1, 60)),
             rng.choice([0.5, 1, 2, 3]), group=rng.randint(0, 2))
        for i in range(1, 40)
    ]  # fmt: skip
    resources = [Resource.memory(9), Resource("gpus", 3, _gpus)]
    w = Workload.from_jobs(jobs, machine_size=6)
    for make in (FCFS, EASY, Conservative):
        s = simulate(w, make(resources=resources))
        assert held_back(s) == pytest.approx(_brute_force(s, resources))


def test_result_rows_have_the_column_with_resources_only() -> None:
    w = Workload.from_jobs(HAND, machine_size=4)
    assert summary_row(simulate(w, EASY(resources=[Resource.memory(10)])))["held_back_memory"] == 90.0
    assert "held_back_memory" not in summary_row(simulate(w, EASY()))


# -- the documented node memory ---------------------------------------------------------------------


def _docs_table() -> list[list[str]]:
    text = DOCS.read_text()
    section = text[text.index("### Documented node memory") :]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| log ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[: len(_NODE_MEMORY)]]


def _size(text: str) -> int:
    number, unit = re.fullmatch(r"([0-9.]+) (MB|GB)", text).groups()  # type: ignore[union-attr]
    return int(float(number) * (2**10 if unit == "MB" else 2**20))


def test_the_docs_give_the_library_table() -> None:
    table = _docs_table()
    assert len(table) == len(_NODE_MEMORY)
    for row, machine in zip(table, _NODE_MEMORY, strict=True):
        assert row == [machine.log, machine.installation, machine.computer, row[3], machine.source]
        assert _size(row[3]) == machine.per_processor


@pytest.mark.parametrize("machine", _NODE_MEMORY, ids=lambda m: m.log)
def test_the_default_is_the_documented_memory(machine: object) -> None:
    header = {"Installation": machine.installation, "Computer": machine.computer}  # type: ignore[attr-defined]
    w = Workload.from_jobs([_job(1, 0.0, 1, 1.0, 1.0)], machine_size=96, header=header)
    assert default_capacity("memory", w) == machine.per_processor * 96  # type: ignore[attr-defined]
    trimmed = Workload.from_records(w.records[:1], 48, header=w.header)  # the header stays: so does the size
    assert default_capacity("memory", trimmed) == machine.per_processor * 48  # type: ignore[attr-defined]


def test_no_documented_memory_is_refused_naming_the_log(tmp_path: Path) -> None:
    path = tmp_path / "mine.swf"
    path.write_text(
        "; Computer: IBM SP2\n; Installation: SDSC\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n"
    )
    w, _ = read_swf(path, machine_size=4)
    with pytest.raises(
        ParameterError, match=r"no documented memory for the log mine\.swf \(Installation 'SDSC'"
    ):
        default_capacity("memory", w)
    with pytest.raises(ParameterError, match="no documented capacity of a resource 'gpus'"):
        default_capacity("gpus", w)
    with pytest.raises(ParameterError, match="needs a Workload"):
        default_capacity("memory", "mine.swf")  # type: ignore[arg-type]


def test_a_capacity_past_the_bound_is_refused() -> None:
    ricc = _NODE_MEMORY[0]
    header = {"Installation": ricc.installation, "Computer": ricc.computer}
    w = Workload.from_jobs([_job(1, 0.0, 1, 1.0, 1.0)], machine_size=2**50, header=header)
    with pytest.raises(ParameterError, match=r"passes 2\*\*62"):
        default_capacity("memory", w)


@pytest.mark.parametrize("machine", _NODE_MEMORY, ids=lambda m: m.log)
def test_the_archive_headers_carry_the_keys(traces: Path, machine: object) -> None:
    [path] = traces.glob(f"{machine.log}*.swf.gz")  # type: ignore[attr-defined]
    with gzip.open(path, "rt") as f:
        head = [next(f) for _ in range(60)]
    fields = {m[1]: m[2].strip() for line in head if (m := re.match(r";\s*(\w+):(.*)", line))}
    assert (fields["Installation"], fields["Computer"]) == (machine.installation, machine.computer)  # type: ignore[attr-defined]


def test_a_partitioned_run_is_held_back_partition_by_partition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Both jobs in partition 1 (2 processors, 10 kB: its share of 5 kB per processor). Job 1 holds
    # 6 kB from 1 to 11; job 2 arrives at 2 with a processor free and waits for memory until 11: 9 s.
    # The merged pools (4 processors, 20 kB) would hold nothing back.
    path = tmp_path / "parts.swf"
    lines = ["; MaxProcs: 4"] + [f"{i} {i} -1 10 1 -1 -1 1 10 6 1 1 1 1 1 1 -1 -1" for i in (1, 2)]
    path.write_text("\n".join(lines) + "\n")
    out_csv = tmp_path / "out.csv"
    code, _out, err = run(
        capsys, "simulate", str(path), "--scheduler", "easy", "--partitions", "1=2,2=2",
        "--resources", "memory=5", "--csv", str(out_csv),
    )  # fmt: skip
    assert code == 0, err
    row = out_csv.read_text().splitlines()
    header, values = row[0].split(","), row[1].split(",")
    assert float(values[header.index("held_back_memory")]) == 9.0
    code, out, err = run(
        capsys, "compare", str(path), "--scheduler", "easy", "--partitions", "1=2,2=2",
        "--resources", "memory=5", "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    header_line = next(line for line in out.splitlines() if line.startswith("| workload"))
    cells = [c.strip() for c in header_line.split("|")]
    row_line = next(line for line in out.splitlines() if line.startswith("| parts "))
    assert [c.strip() for c in row_line.split("|")][cells.index("held_back_memory")] == "9.0"


def test_cells_of_the_documented_default_do_not_read_cells_of_the_old_default() -> None:
    assert ResourceSpec("memory").identity() == ["memory", "documented"]
    assert ResourceSpec("memory", 1024).identity() == ["memory", 1024]


def test_held_back_refuses_what_is_not_a_schedule_or_resources() -> None:
    s = simulate(lublin_feitelson(20, machine_size=8), FCFS())
    with pytest.raises(BackfillError, match="held_back needs a Schedule, got str"):
        held_back("schedule.csv")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="resources must be Resource objects"):
        held_back(s, resources=[1])  # type: ignore[list-item]
    with pytest.raises(ParameterError, match="resources must be a sequence"):
        held_back(s, resources=-1)  # type: ignore[arg-type]
