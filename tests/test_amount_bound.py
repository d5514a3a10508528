"""One bound for resource amounts and capacities, 2**62 (issue 53, point 2).

Before: memory of 1e18 kB in SWF field 7 gave an ``OverflowError`` from the compiled profile, a
64-processor job wrapped to a negative amount and was named a host error, a capacity of 2**63 was
accepted and failed later, and ``validate_schedule`` missed an over-commit past int64.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import run

from backfill import FCFS, Conservative, Job, Resource, Workload, simulate
from backfill.errors import JobError, ParameterError, ScheduleError
from backfill.measures.validation import validate_schedule
from backfill.profile import Profile, ProfileError
from backfill.profile.multi import ResourceProfile
from backfill.schedulers.registry import SCHEDULERS
from backfill.workloads.amounts import Amounts
from backfill.workloads.limits import MAX_AMOUNT
from backfill.workloads.resources import memory_request

BUILT_IN = sorted(entry.cli_name for entry in SCHEDULERS)


def _swf(path: Path, rows: list[tuple[int, float]], *, ricc: bool = False) -> Path:
    """An SWF log of 64 processors: one job per ``(processors, used memory per processor)`` row."""
    header = ["; MaxProcs: 64", "; MaxNodes: 8"]
    if ricc:  # the header of the RICC log: its node memory is documented (1.5 GB per processor)
        header += [
            "; Computer: Fujitsu RX200S5 Cluster",
            "; Installation: RICC: RIKEN Integrated Cluster of Clusters",
        ]
    lines = [
        f"{i} {10 * i} -1 100 {p} -1 {m!r} {p} 200 -1 1 {1 + i % 3} 1 1 1 -1 -1 -1"
        for i, (p, m) in enumerate(rows, start=1)
    ]
    path.write_text("\n".join(header + lines) + "\n")
    return path


# Small jobs fitting 1.5 GB per processor, a job past the capacity, a 64-processor job past 2**62.
ROWS = [(2, 100.0), (4, 1e18), (2, 100.0), (64, 1e18), (8, 2048.0), (1, 100.0)]


def test_the_bound() -> None:
    assert MAX_AMOUNT == 2**62 and 2 * (MAX_AMOUNT - 1) < 2**63


@pytest.mark.parametrize("scheduler", BUILT_IN)
def test_memory_past_the_bound_is_a_counted_rejection(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str
) -> None:
    log = _swf(tmp_path / "big.swf", ROWS, ricc=True)
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", scheduler, "--resources", "memory")
    assert code == 0, err
    assert "jobs: 6 in = 4 scheduled + 2 rejected" in out, out
    assert "asks 2**62 or more memory (MAX_AMOUNT, more than any capacity): 1" in out
    assert "needs more memory than the machine has (100663296): 1" in out


@pytest.mark.parametrize("scheduler", ["easy", "conservative", "pc"])
def test_a_size_does_not_wrap_a_large_request(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str
) -> None:
    log = _swf(tmp_path / "big.swf", ROWS)
    code, out, err = run(capsys, "simulate", str(log), "--scheduler", scheduler, "--resources", "memory=1G")
    assert code == 0, err
    assert "64000000000000000000" not in out + err
    assert "asks 2**62 or more memory (MAX_AMOUNT, more than any capacity): 1" in out


def test_capacities_are_bounded() -> None:
    assert Resource.memory(MAX_AMOUNT - 1).capacity == MAX_AMOUNT - 1
    for bad in (MAX_AMOUNT, 2**63, 10**30):
        with pytest.raises(ParameterError, match=r"below 2\*\*62"):
            Resource.memory(bad)
        with pytest.raises(ProfileError, match=r"below 2\*\*62"):
            Profile(bad)
        with pytest.raises(ProfileError, match=r"below 2\*\*62"):
            ResourceProfile(Amounts((4, bad)))


def _job(i: int, processors: int, memory: float) -> Job:
    return Job(id=i, submit=0.0, processors=processors, runtime=10.0, estimate=10.0, memory=memory)


def test_amounts_past_the_bound_are_refused_at_the_door() -> None:
    memory = Resource.memory(1024)
    big = _job(7, 64, 1e18)
    with pytest.raises(JobError, match=r"job 7.*asks 64000000000000000000 memory, 2\*\*62"):
        memory.amount(big)
    with pytest.raises(JobError, match="job 7"):
        memory.amounts(Workload.from_jobs([_job(1, 1, 5.0), big], machine_size=64))
    huge = _job(8, 2**40, 1e300)  # a product past any float
    with pytest.raises(JobError, match=r"job 8.*too large"):
        memory_request(huge)
    gpus = Resource("gpus", 8, lambda job: 2**70)
    with pytest.raises(JobError, match=r"asks 1180591620717411303424 gpus"):
        gpus.amount(big)
    # Just under the bound is an amount like any other.
    assert memory.amount(_job(9, 1, float(MAX_AMOUNT - 2**10))) == MAX_AMOUNT - 2**10


def _near_bound_workload() -> Workload:
    """Jobs asking about a third of a capacity just under 2**62, one past it, one past any float."""
    third = float(2**60 + 2**59)  # three of them pass 2**62; two fit
    jobs = [
        Job(id=i, submit=float(i), processors=1, runtime=10.0 + i, estimate=20.0 + i, memory=third)
        for i in range(1, 7)
    ]
    jobs.append(Job(id=7, submit=2.0, processors=64, runtime=5.0, estimate=5.0, memory=1e18))
    jobs.append(Job(id=8, submit=3.0, processors=2**20, runtime=5.0, estimate=5.0, memory=1e305))
    return Workload.from_jobs(jobs, machine_size=2**20)


@pytest.mark.parametrize("scheduler", BUILT_IN)
def test_every_scheduler_plans_amounts_near_the_bound(scheduler: str) -> None:
    memory = Resource.memory(MAX_AMOUNT - 1)
    built = SCHEDULERS.entry(scheduler).build(resources=(memory,))
    schedule = simulate(_near_bound_workload(), built)
    validate_schedule(schedule)
    assert set(schedule.rejected) == {7, 8}
    assert all("2**62 or more memory" in reason for reason in schedule.rejected.values())
    # At most two of the six 1.5 * 2**60 jobs run at once: their sum stays under the capacity.
    start, end = schedule.start[:6], schedule.end[:6]
    for t in start:
        assert int(np.sum((start <= t) & (t < end))) <= 2


def test_the_validator_sums_large_amounts_exactly() -> None:
    jobs = [_job(i, 1, float(2**60 + 2**59)) for i in (1, 2, 3)]  # each under 2**62, together past 2**63
    schedule = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())  # processors alone: all start at 0
    memory = Resource.memory(MAX_AMOUNT - 1)
    with pytest.raises(ScheduleError, match=f"{3 * (2**60 + 2**59)} memory in use at time 0"):
        validate_schedule(schedule, resources=[memory])
    validate_schedule(schedule, resources=[])  # the processors fit


def test_the_validator_names_a_started_job_past_the_bound() -> None:
    jobs = [_job(1, 64, 1e18), _job(2, 1, 1e305)]  # past int64, and past any whole-number float product
    schedule = simulate(Workload.from_jobs(jobs, machine_size=2**20), FCFS())
    with pytest.raises(ScheduleError, match=r"more memory than its capacity .* held 64000000000000000000\)"):
        validate_schedule(schedule, resources=[Resource.memory(MAX_AMOUNT - 1)])
    two = simulate(Workload.from_jobs([_job(2, 2**40, 1e300)], machine_size=2**41), FCFS())
    with pytest.raises(ScheduleError, match=rf"held {int(1e300) * 2**40}\)"):
        validate_schedule(two, resources=[Resource.memory(MAX_AMOUNT - 1)])


def test_conservative_still_rejects_only_what_cannot_fit() -> None:
    jobs = [_job(1, 1, 3.0), _job(2, 1, 5.0)]
    s = simulate(Workload.from_jobs(jobs, machine_size=2), Conservative(resources=[Resource.memory(4)]))
    assert s.rejected == {2: "needs more memory than the machine has (4)"}


def test_outputs_write_a_request_past_the_bound_as_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = _swf(tmp_path / "big.swf", ROWS)
    batsim, jobs = tmp_path / "w.json", tmp_path / "jobs.csv"
    code, _out, err = run(
        capsys, "simulate", str(log), "--scheduler", "easy", "--resources", "memory=1G",
        "--output-batsim", str(batsim), "--jobs-csv", str(jobs),
    )  # fmt: skip
    assert code == 0, err
    assert [j["memory"] for j in json.loads(batsim.read_text())["jobs"]][3] == 64 * 10**18
    rows = [line.split(",") for line in jobs.read_text().splitlines() if line and not line.startswith("#")]
    memory = [r[rows[0].index("memory")] for r in rows[1:]]
    assert memory[3] == "-1"  # no int64 holds it: SWF's unknown, with the job's rejection beside it
