"""The simulator: event order, wake-ups, forks, protocol violations, overrun policy, and the validator."""

from __future__ import annotations

import io
import pickle
from collections.abc import Mapping

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, workloads

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    BackfillError,
    Conservative,
    Job,
    LookaheadSlack,
    ParameterError,
    RelShare,
    Schedule,
    ScheduleError,
    Scheduler,
    Selective,
    Simulator,
    SlackBackfill,
    Workload,
    read_swf,
    simulate,
    validate_schedule,
)
from backfill.schedulers.registry import SCHEDULERS


def test_completions_come_before_arrivals_at_the_same_time() -> None:
    # Job 1 ends at 10; job 2 arrives at 10 and needs the whole machine: it starts at once.
    result = simulate(make((0, 4, 10, 10), (10, 4, 5, 5), size=4), FCFS())
    assert result.start.tolist() == [0, 10]


def test_zero_runtime_jobs_occupy_nothing() -> None:
    w = make((0, 4, 0, 0), (0, 4, 0, 0), (0, 4, 3, 3), size=4)
    for scheduler in (FCFS(), EASY(), Conservative()):
        result = simulate(w, scheduler)
        validate_schedule(result)
        assert result.start.tolist() == [0, 0, 0]


class Delayed(FCFS):
    """FCFS that starts each job exactly 5 s after it arrives, asking to be woken for it."""

    def schedule(self, now: float) -> list[Job]:
        due, free = [], self.free
        for entry in self.ordered(now):
            if entry[2].submit + 5 <= now and entry[2].processors <= free:
                due.append(entry)
                free -= entry[2].processors
        return self.start(due, now)

    def next_wakeup(self) -> float | None:
        return min((e[2].submit + 5 for e in self.ordered(0.0)), default=None)

    def copy(self) -> Delayed:
        other = Delayed(self.priority)
        self._copy_into(other)
        return other


def test_wakeups_call_the_scheduler_at_the_requested_time() -> None:
    result = simulate(make((0, 1, 1, 1), (2.5, 1, 1, 1), size=2), Delayed())
    assert result.start.tolist() == [5, 7.5]


class Cheater(FCFS):
    """Starts one job twice, or more than fits, to check the simulator refuses."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def schedule(self, now: float) -> list[Job]:
        jobs = [e[2] for e in self._queue]
        if self.mode == "unknown":
            return [Job(id=99, submit=0.0, processors=1, runtime=1.0, estimate=1.0)]
        return jobs  # every queued job at once, fitting or not


@pytest.mark.parametrize(
    ("mode", "message"), [("unknown", "has not arrived"), ("overcommit", "processors in use")]
)
def test_protocol_violations_are_refused(mode: str, message: str) -> None:
    w = make((0, 3, 5, 5), (0, 3, 5, 5), size=4)
    with pytest.raises(ScheduleError, match=message):
        simulate(w, Cheater(mode))


class Forgetful(FCFS):
    """Never starts the job with id 2, as a buggy scheduler might drop a job."""

    def schedule(self, now: float) -> list[Job]:
        return [job for job in super().schedule(now) if job.id != 2]


def test_a_job_a_scheduler_never_starts_is_an_error_not_a_silent_loss() -> None:
    w = make((0, 1, 5, 5), (0, 1, 5, 5), (1, 1, 5, 5), size=4)
    with pytest.raises(ScheduleError, match=r"left 1 queued jobs unstarted .*job ids 2\)"):
        simulate(w, Forgetful())
    # A partial run is allowed to end with jobs queued: only a run to the end must account for all.
    sim = Simulator(w, Forgetful())
    assert sim.run(until=1.0).started.tolist() == [True, False, True]


def test_every_run_accounts_for_every_job() -> None:
    w = make((0, 5, 1, 1), (0, 0, 1, 1), (0, 1, 1, 1), (3, 2, 1, 1), size=4)
    schedule = simulate(w, EASY())
    assert schedule.accounting() == (
        "4 in = 2 scheduled + 2 rejected (no positive processor count: 1; "
        "wider than the machine (4 processors): 1)"
    )
    assert schedule.rejection_counts() == {
        "no positive processor count": 1,
        "wider than the machine (4 processors)": 1,
    }


def test_rejected_jobs_are_reported_with_a_reason() -> None:
    w = make((0, 5, 1, 1), (0, 0, 1, 1), (0, 1, -1, 1), (0, 1, 1, 1), size=4)
    result = simulate(w, EASY())
    validate_schedule(result)
    assert dict(result.rejected) == {
        1: "wider than the machine (4 processors)",
        2: "no positive processor count",
        3: "unknown runtime",
    }
    assert result.start.tolist()[3] == 0


def test_overrun_raise_estimate_and_kill() -> None:
    w = make((0, 2, 10, 4), (0, 2, 3, 3), size=2)
    raised = simulate(w, Conservative())
    assert dict(raised.altered) == {"estimate_raised_to_runtime": 1}
    assert raised.end.tolist() == [10, 13] and raised.estimate.tolist() == [10, 3]
    killed = simulate(w, Conservative(), overrun="kill")
    assert dict(killed.altered) == {"killed_at_estimate": 1}
    assert killed.end.tolist() == [4, 7] and killed.runtime.tolist() == [4, 3]
    validate_schedule(killed)
    with pytest.raises(ParameterError):
        Simulator(w, EASY(), overrun="ignore")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=30, accurate=False))
def test_a_fork_continues_exactly_like_the_original(w: Workload) -> None:
    for scheduler in (EASY(), Conservative()):
        full = simulate(w, scheduler.copy())
        sim = Simulator(w, scheduler.copy())
        steps = 0
        while steps < 5 and sim.step():
            steps += 1
        fork = sim.fork().run()
        rest = sim.run()
        done_in_fork = ~np.isnan(fork.start)
        assert np.array_equal(fork.start[done_in_fork], full.start[done_in_fork])
        assert np.array_equal(rest.start, full.start, equal_nan=True)


def every_scheduler() -> list[Scheduler]:
    """Each registered scheduler class with its defaults (RelShare with a window short enough to matter)."""
    listed: list[Scheduler] = [
        FCFS(),
        EASY(),
        Conservative(),
        PC(),
        DC(),
        Selective(),
        RelShare(window=20.0),
        LookaheadSlack(),
        SlackBackfill(),
    ]
    # A registered class none of these is of (a new built-in) runs with its defaults.
    return listed + [e.build() for e in SCHEDULERS if all(type(s) is not e.cls for s in listed)]


@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=30, accurate=False, users=3), steps=st.integers(0, 40))
def test_a_pickled_simulation_resumes_exactly_like_the_original(w: Workload, steps: int) -> None:
    # A checkpoint (as benchmarks/speed/bench_largest.py writes for runs of hours) must change nothing: the
    # simulator and every scheduler pickle with all their state, mid-run.
    for scheduler in every_scheduler():
        full = simulate(w, scheduler.copy())
        sim = Simulator(w, scheduler.copy())
        for _ in range(steps):
            if not sim.step():
                break
        resumed = pickle.loads(pickle.dumps(sim))
        assert resumed.scheduler is not sim.scheduler
        rest = resumed.run()
        assert np.array_equal(rest.start, full.start, equal_nan=True), scheduler
        assert np.array_equal(rest.end, full.end, equal_nan=True), scheduler
        assert rest.start_order.tolist() == full.start_order.tolist(), scheduler


def test_fork_without_later_arrivals_gives_the_start_as_if_none_came() -> None:
    # Job 3 arrives at 2 and, under Conservative, would be pushed back by nobody; job 4 arrives at 3
    # and backfills ahead. A fork at job 3's arrival that drops later arrivals must give job 3's
    # start in the truncated workload.
    w = make((0, 4, 10, 50), (1, 2, 30, 30), (2, 4, 5, 5), (3, 2, 5, 5), size=4)
    sim = Simulator(w, Conservative())
    while (t := sim.next_time()) is not None and t < 2:
        sim.step()
    fork = sim.fork(last_arrival=2)
    assert fork.run_until_started(3) == simulate(Workload.from_jobs(list(w)[:3], 4), Conservative()).start[2]
    with pytest.raises(BackfillError, match="never started"):
        sim.fork(last_arrival=2).run_until_started(4)


def test_partial_run_and_result() -> None:
    w = make((0, 4, 10, 10), (5, 4, 10, 10), size=4)
    partial = Simulator(w, FCFS()).run(until=5)
    assert partial.start.tolist()[0] == 0 and np.isnan(partial.start[1])
    validate_schedule(partial, complete=False)
    with pytest.raises(ScheduleError, match="neither started nor rejected"):
        validate_schedule(partial)


def schedule_with(
    start: list[float], end: list[float], w: Workload, order: list[int] | None = None
) -> Schedule:
    return Schedule(
        workload=w,
        scheduler="hand",
        start=np.array(start, dtype=float),
        end=np.array(end, dtype=float),
        runtime=w.column("runtime").astype(float),
        estimate=w.column("estimate").astype(float),
        start_order=np.array(order if order is not None else range(len(start)), dtype=np.int64),
        rejected={},
        altered={},
        reservations=np.empty(0, dtype=[("time", float), ("job_id", np.int64), ("start", float)]),
    )


@pytest.mark.parametrize(
    ("start", "end", "order", "message"),
    [
        ([0, 5], [10, 15], None, "3 processors in use|processors in use"),
        ([0, 10], [10, 21], None, "completion differs"),
        ([0, -1], [10, 9], None, "before they were submitted"),
        ([0, 10], [10, 20], [0, 0], "more than once"),
    ],
)
def test_validator_catches_broken_schedules(
    start: list[float], end: list[float], order: list[int] | None, message: str
) -> None:
    w = make((0, 2, 10, 10), (0, 1, 10, 10), size=2)
    with pytest.raises(ScheduleError, match=message):
        validate_schedule(schedule_with(start, end, w, order))
    validate_schedule(schedule_with([0, 10], [10, 20], w))


def test_reservation_log_by_diff_matches_the_schedulers_own_log() -> None:
    class DiffOnly:
        """Hides Conservative's change log so the simulator falls back to diffing."""

        def __init__(self) -> None:
            self.inner = Conservative()
            self.name = "diff"

        def __getattr__(self, name: str) -> object:
            if name == "take_reservation_changes":
                raise AttributeError(name)
            return getattr(self.inner, name)

        def reservations(self) -> Mapping[int, float]:
            return self.inner.reservations()

    w = make((0, 4, 10, 100), (1, 4, 20, 20), (2, 4, 5, 5), (40, 4, 5, 5), size=4)
    own, diff = simulate(w, Conservative()), simulate(w, DiffOnly())  # type: ignore[arg-type]
    assert own.start.tolist() == diff.start.tolist()
    visible = [r for r in own.reservations.tolist() if r[0] != r[2]]  # granted and used at once
    assert visible == diff.reservations.tolist()


def test_schedule_to_swf_round_trip() -> None:
    w = make((0, 2, 10, 20), (1, 2, 5, 5), (2, 1, 3, 4), size=3)
    result = simulate(w, EASY())
    buffer = io.StringIO()
    result.to_swf(buffer)
    back, report = read_swf(io.StringIO(buffer.getvalue()))
    assert report.kept == 3
    assert back.column("wait").tolist() == result.wait.tolist()
    assert back.column("runtime").tolist() == w.column("runtime").tolist()


def test_workload_basics() -> None:
    jobs = [Job(id=i, submit=10.0 - i, processors=1, runtime=2.0, estimate=3.0) for i in range(3)]
    w = Workload.from_jobs(jobs, 2)
    assert [j.id for j in w] == [2, 1, 0] and w[0].submit == 8.0 and len(w[0:2]) == 2
    assert w.scaled(2.0).column("submit").tolist() == [4.0, 4.5, 5.0]
    assert w.scaled(2.0).provenance["load_factor"] == 2.0
    with pytest.raises(BackfillError, match="unique"):
        Workload.from_jobs([jobs[0], jobs[0]], 2)
    with pytest.raises(BackfillError, match="load factor"):
        w.scaled(0)
    with pytest.raises(BackfillError, match="18 fields"):
        Job.from_swf_fields([1, 2, 3])
    assert Job.from_swf_fields(jobs[1].swf_fields()) == jobs[1]
