"""The contract with hosts and subclasses: copies keep their type, host mistakes raise, the log is opt-in.

Each test here failed on the code before the contract was made explicit (issue 29): a subclass's
``copy()`` dropped its overrides, a doubly submitted job started twice or raised a bare KeyError, an
unreported overrun overcommitted the machine silently, a scheduler's log grew for a host that never
read it, and a priority with history gave forks a different past than a fresh simulation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CompressAtArrivals, FirstFit, make, workloads

import backfill
from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    LookaheadSlack,
    QueueScheduler,
    RecentUsage,
    RelShare,
    ReservationLog,
    ScheduleError,
    Selective,
    Simulator,
    SlackBackfill,
    Workload,
    fair_start_times,
    guarded,
    lxf,
    simulate,
    sjf,
)
from backfill.schedulers.registry import SCHEDULERS
from backfill.testing import check_scheduler


def every_scheduler() -> list[Any]:
    listed = [
        FCFS(),
        EASY(),
        EASY(lxf, depth=3),
        Conservative(),
        PC(sjf),
        PC(restart=False),
        DC(sjf),
        Selective(2.0),
        Selective(3.0, lxf),
        RelShare(window=20.0),
        LookaheadSlack(),
        SlackBackfill(),
    ]
    # A registered class none of these is of (a new built-in) runs with its defaults.
    return listed + [e.build() for e in SCHEDULERS if all(type(s) is not e.cls for s in listed)]


def named(schedulers: list[Any]) -> list[Any]:
    return [pytest.param(s, id=s.name) for s in schedulers]


def subclass_of(scheduler: Any) -> Any:
    """An instance of a trivial subclass of the scheduler's class, with the same parameters."""
    cls = type(scheduler)
    sub = type(f"My{cls.__name__}", (cls,), {})
    args = {a.alias: getattr(scheduler, a.name) for a in attrs.fields(cls) if a.init}
    return sub(**args)


W = make(
    (0, 2, 10, 30),
    (0, 3, 20, 20),
    (1, 4, 5, 40),
    (2, 1, 3, 3),
    (4, 2, 8, 8),
    (5, 4, 2, 2),
    (9, 1, 30, 30),
    (12, 3, 4, 10),
    size=4,
)


# -- 1. subclassing is safe ---------------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_copy_keeps_the_subclass_and_its_state(scheduler: Any) -> None:
    mine = subclass_of(scheduler)
    assert type(mine.copy()) is type(mine)
    whole = simulate(W, mine.copy())
    sim = Simulator(W, mine.copy())
    sim.run_before(5.0)
    fork = sim.fork()
    assert type(fork.scheduler) is type(mine)
    assert fork.scheduler.name.startswith("My")
    # The fork carries on exactly as the simulation would: the copy has the same state.
    fork.run()
    sim.run()
    merged = np.where(np.isnan(sim.result().start), fork.result().start, sim.result().start)
    assert merged.tolist() == whole.start.tolist()


class StartsEverything(Conservative):
    """A broken subclass: starts every queued job at once, whatever the machine holds."""

    def schedule(self, now: float) -> list[Job]:
        super().schedule(now)
        jobs = [entry[2] for entry in self._order]
        self._order.clear()
        self._planned.clear()
        return jobs


def test_check_scheduler_runs_the_subclass_not_its_base() -> None:
    # Before, copy() built a plain Conservative and this passed every check.
    with pytest.raises(ScheduleError, match="processors in use"):
        check_scheduler(StartsEverything(), W)


def test_check_scheduler_refuses_a_copy_of_another_type() -> None:
    class Forgetful(Conservative):
        def copy(self) -> Any:
            return Conservative()

    with pytest.raises(ScheduleError, match=r"copy\(\) returned a Conservative, not a Forgetful"):
        check_scheduler(Forgetful(), W)


@settings(max_examples=150, deadline=None)
@given(w=workloads(overruns=True))
def test_subclasses_of_the_public_bases_pass_the_checks(w: Workload) -> None:
    check_scheduler(FirstFit(sjf), w, guarantees=False)
    check_scheduler(CompressAtArrivals(lxf), w, guarantees=True)


def test_queue_scheduler_start_refuses_what_does_not_fit() -> None:
    class Greedy(QueueScheduler):
        def schedule(self, now: float) -> list[Job]:
            return self.start(list(self.ordered(now)), now)

    with pytest.raises(ScheduleError, match=r"cannot start jobs \[1, 2\] at 0: they need 6 processors, 4"):
        simulate(make((0, 3, 5, 5), (0, 3, 5, 5), size=4), Greedy())


# -- 2. host mistakes, without and with the guard -------------------------------------------------------


def job(i: int, submit: float, procs: int, runtime: float, estimate: float) -> Job:
    return Job(id=i, submit=submit, processors=procs, runtime=runtime, estimate=estimate)


def drive(scheduler: Any, calls: list[tuple[str, Any, float]]) -> list[int]:
    """Make the calls in order: ("submit", job, t), ("complete", job, t) or ("schedule", None, t)."""
    started: list[int] = []
    for what, arg, now in calls:
        if what == "schedule":
            started += [j.id for j in scheduler.schedule(now)]
        else:
            getattr(scheduler, what)(arg, now)
    return started


def fresh(scheduler: Any, calls: list[tuple[str, Any, float]]) -> Any:
    """A copy of the scheduler, reset for 4 processors at 0, after the calls."""
    s = scheduler.copy()
    s.reset(4, 0.0)
    drive(s, calls)
    return s


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_a_job_submitted_twice_is_named(scheduler: Any) -> None:
    # Before: EASY and FCFS started it twice; the Conservative family raised a bare KeyError.
    s = fresh(scheduler, [("submit", job(1, 0, 4, 10, 10), 0.0), ("submit", job(2, 0, 2, 5, 5), 0.0)])
    with pytest.raises(ScheduleError, match=r"job 2 submitted at 0 while already queued"):
        s.submit(job(2, 0, 2, 5, 5), 0.0)


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_a_job_completed_without_starting_is_named(scheduler: Any) -> None:
    waiting = job(2, 0, 4, 5, 5)
    s = fresh(
        scheduler, [("submit", job(1, 0, 4, 10, 10), 0.0), ("submit", waiting, 0.0), ("schedule", None, 0.0)]
    )
    with pytest.raises(ScheduleError, match=r"job 2 completed at 3 but was queued"):
        s.complete(waiting, 3.0)
    with pytest.raises(ScheduleError, match=r"job 9 completed at 3 but was not running"):
        s.complete(job(9, 0, 4, 5, 5), 3.0)


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_an_overrun_the_host_did_not_handle_is_named(scheduler: Any) -> None:
    # Job 1 runs 20 s on an estimate of 10. Before, Conservative and PC started job 2 at 10 on the
    # processors job 1 still held, and nothing was said; now the late completion names the job.
    long = job(1, 0, 4, 20, 10)
    calls = [("submit", long, 0.0), ("schedule", None, 0.0), ("submit", job(2, 1, 4, 5, 5), 1.0)]
    s = fresh(scheduler, [*calls, ("schedule", None, 1.0), ("schedule", None, 10.0)])
    with pytest.raises(ScheduleError, match=r"job 1 completed at 20, after its start \+ estimate \(10\)"):
        s.complete(long, 20.0)


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_time_going_backwards_is_named(scheduler: Any) -> None:
    # Before: Conservative and its family raised "ProfileError: time 5.0 is before the profile
    # origin 10.0" (or "cannot release 80 processors"), naming no job; EASY and FCFS went on.
    first = job(1, 0, 4, 100, 100)
    s = fresh(scheduler, [("submit", first, 0.0), ("schedule", None, 0.0), ("schedule", None, 10.0)])
    with pytest.raises(ScheduleError, match=r"job 1 completed at 5, before a call at 10: a host's time"):
        s.complete(first, 5.0)
    with pytest.raises(ScheduleError, match=r"job 2 submitted at 5, before a call at 10"):
        s.submit(job(2, 0, 2, 5, 5), 5.0)


A, B = job(1, 0, 4, 10, 10), job(2, 0, 2, 5, 5)

MISTAKES: dict[str, tuple[list[tuple[str, Any, float]], str]] = {
    "time backwards": (
        [("submit", A, 10.0), ("schedule", None, 10.0), ("submit", B, 5.0)],
        r"time went backwards: submit\(job 2\) at 5, after a call at 10",
    ),
    "no decision at an instant": (
        [("submit", A, 0.0), ("submit", job(2, 3, 2, 5, 5), 3.0)],
        r"schedule\(\) was not called at 0, an instant with events \(job 1 arrived\)",
    ),
    "completed, never started": (
        [
            ("submit", A, 0.0),
            ("submit", job(2, 0, 4, 5, 5), 0.0),
            ("schedule", None, 0.0),
            ("complete", B, 2.0),
        ],
        r"job 2 completed at 2 but was queued, never started",
    ),
    "submitted twice": (
        [("submit", A, 0.0), ("schedule", None, 0.0), ("submit", A, 1.0)],
        r"job 1 submitted at 1 while already running",
    ),
    "overrun not handled": (
        [("submit", job(1, 0, 4, 20, 10), 0.0), ("schedule", None, 0.0), ("schedule", None, 10.0)],
        r"job 1 is still running at 10 \(schedule\(\)\), past its start \+ estimate \(10\)",
    ),
    "wider than the machine": ([("submit", job(1, 0, 9, 1, 1), 0.0)], r"needs 9 processors on a 4-processor"),
}


@pytest.mark.parametrize("mistake", MISTAKES)
@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_the_guard_names_every_host_mistake(scheduler: Any, mistake: str) -> None:
    calls, message = MISTAKES[mistake]
    s = guarded(scheduler.copy())
    s.reset(4, 0.0)
    with pytest.raises(ScheduleError, match=message):
        drive(s, calls)


@pytest.mark.parametrize(
    ("priority", "message"),
    [
        (lambda job, now: math.nan if job.id == 2 else 1.0, r"gave job 2 the key nan at 0: NaN"),
        (lambda job, now: (1, math.nan), r"gave job 1 the key \(1, nan\)"),
        (lambda job, now: "a" if job.id == 2 else 1, r"the keys of job 1 \(1\) and job 2 \('a'\) cannot be"),
        (lambda job, now: None, r"gave job 1 the key None at 0, which cannot be compared"),
    ],
)
def test_the_guard_names_bad_priority_keys(priority: Callable[[Job, float], Any], message: str) -> None:
    for scheduler in (EASY(priority), PC(priority), Selective(2.0, priority)):
        s = guarded(scheduler)
        s.reset(4, 0.0)
        s.submit(job(1, 0, 4, 10, 10), 0.0)
        s.submit(job(2, 0, 2, 5, 5), 0.0)
        with pytest.raises(ScheduleError, match=r"priority lambda.*" + message):
            s.schedule(0.0)


def test_the_guard_catches_a_priority_that_is_not_pure() -> None:
    calls = [0]

    def counting(job: Job, now: float) -> int:
        calls[0] += 1
        return calls[0]

    s = guarded(EASY(counting))
    s.reset(4, 0.0)
    s.submit(job(1, 0, 4, 10, 10), 0.0)
    with pytest.raises(ScheduleError, match=r"priority counting.* is not a pure function of \(job, now\)"):
        s.schedule(0.0)


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
@settings(max_examples=40, deadline=None)
@given(w=workloads(overruns=True, users=3), overrun=st.sampled_from(["raise_estimate", "kill"]))
def test_the_simulator_keeps_every_duty_the_guard_checks(scheduler: Any, w: Workload, overrun: Any) -> None:
    plain = simulate(w, scheduler.copy(), overrun=overrun)
    checked = simulate(w, guarded(scheduler.copy()), overrun=overrun)
    assert checked.start.tobytes() == plain.start.tobytes()
    assert checked.reservations.tobytes() == plain.reservations.tobytes()
    assert checked.scheduler == plain.scheduler


# -- 3. the reservation log is declared and opt-in -----------------------------------------------------


@pytest.mark.parametrize("scheduler", named(every_scheduler()))
def test_every_builtin_scheduler_declares_the_log(scheduler: Any) -> None:
    assert isinstance(scheduler, ReservationLog)
    assert isinstance(guarded(scheduler), ReservationLog)


@pytest.mark.parametrize(
    "scheduler", named([Conservative(), PC(sjf), DC(sjf), EASY(depth=None), Selective(1.0)])
)
def test_the_log_does_not_grow_for_a_host_that_never_reads_it(scheduler: Any) -> None:
    # A host of the protocol's minimum: it never heard of take_reservation_changes. Before, every
    # reservation change of the run stayed in the scheduler's memory.
    s = scheduler.copy()
    w = backfill.lublin_feitelson(400, machine_size=32, seed=5, estimates="f-model")
    sim = Simulator(w, s, record_reservations=False)
    sim.run()
    assert len(s._core._changes if hasattr(s, "_core") else s._changes) == 0
    with pytest.raises(ScheduleError, match="the reservation log is off"):
        s.take_reservation_changes()
    s.log_reservation_changes()
    s.reset(4, 0.0)
    s.submit(job(1, 0, 4, 10, 10), 0.0)
    s.submit(job(2, 0, 4, 10, 10), 0.0)
    s.schedule(0.0)
    assert (2, 10.0) in s.take_reservation_changes()


def test_a_copy_keeps_the_log_setting() -> None:
    s = Conservative()
    s.log_reservation_changes()
    assert s.copy().take_reservation_changes() == []
    with pytest.raises(ScheduleError):
        Conservative().copy().take_reservation_changes()


# -- 5. priorities with history --------------------------------------------------------------------------


def users_workload() -> Workload:
    rng = np.random.default_rng(7)
    jobs = []
    for i in range(60):
        runtime = float(rng.integers(1, 60))
        jobs.append(
            Job(
                id=i + 1,
                submit=float(i * 3),
                processors=int(rng.integers(1, 9)),
                runtime=runtime,
                estimate=runtime + float(rng.integers(0, 30)),
                user=int(rng.integers(0, 4)),
            )
        )
    return Workload.from_jobs(jobs, 8)


@pytest.mark.parametrize(
    "scheduler", named([EASY(RecentUsage(60.0)), PC(RecentUsage(60.0)), Selective(2.0, RecentUsage(60.0))])
)
def test_stateful_priority_fair_starts_equal_a_serial_recomputation(scheduler: Any) -> None:
    # Strict FST of job i = its start when the workload ends with job i. Each fork must see exactly
    # the history a fresh simulation of that prefix sees.
    w = users_workload()
    fst = fair_start_times(w, scheduler, relaxed=False, workers=1)
    serial = [
        simulate(Workload.from_jobs(w[: i + 1], w.machine_size), scheduler).start[i] for i in range(len(w))
    ]
    assert fst.strict.tolist() == serial
    assert fair_start_times(w, scheduler, relaxed=False, workers=2).strict.tolist() == serial


def test_a_stateful_priority_is_a_template_never_changed() -> None:
    usage = RecentUsage(60.0)
    w = users_workload()
    first = simulate(w, EASY(usage))
    assert simulate(w, EASY(usage)).start.tolist() == first.start.tolist()
    assert all(usage(j, 1e3) == 0.0 for j in w)  # the object given has no history of its own
    # It orders the queue: a different order from FCFS on this workload.
    assert simulate(w, EASY()).start.tolist() != first.start.tolist()


# -- 7. top-level names the docs use -----------------------------------------------------------------------


def test_top_level_exports_match_the_docs() -> None:
    assert backfill.PRIORITIES["sjf"] is sjf
    assert backfill.scheduler_name(EASY(sjf)) == "EASY(sjf)"
    for name in ("QueueScheduler", "GuaranteeScheduler", "ReservationLog", "StatefulPriority", "guarded"):
        assert name in backfill.__all__


# -- 4. results from your own simulator -------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", named([EASY(sjf), Conservative(), DC(sjf), Selective(2.0)]))
def test_from_starts_rebuilds_a_simulated_schedule(scheduler: Any) -> None:
    w = backfill.lublin_feitelson(300, machine_size=32, seed=2, estimates="f-model")
    ran = simulate(w, scheduler)
    ids = w.column("id").tolist()
    rebuilt = backfill.Schedule.from_starts(
        w,
        dict(zip(ids, ran.start.tolist(), strict=True)),
        dict(zip(ids, ran.end.tolist(), strict=True)),
        name=ran.scheduler,
        reservations=ran.reservations.tolist(),
    )
    backfill.validate_schedule(rebuilt)
    check_reservations_of = backfill.check_reservations
    check_reservations_of(rebuilt, while_held=isinstance(scheduler, EASY | Selective))
    backfill.same_schedule(rebuilt, ran, reservations=True)
    assert backfill.summarize(rebuilt) == backfill.summarize(ran)


def test_from_starts_names_what_is_wrong() -> None:
    w = make((0, 2, 10, 10), (0, 2, 10, 10), size=3)
    over = backfill.Schedule.from_starts(w, {1: 0.0, 2: 5.0}, name="mine")
    with pytest.raises(ScheduleError, match="mine: 4 processors in use at time 5 on a 3-processor machine"):
        backfill.validate_schedule(over)
    with pytest.raises(ScheduleError, match="mine: start names job 9, which is not in the workload"):
        backfill.Schedule.from_starts(w, {9: 0.0}, name="mine")
    with pytest.raises(ScheduleError, match=r"mine: start has shape \(3,\), but the workload has 2 jobs"):
        backfill.Schedule.from_starts(w, [0.0, 1.0, 2.0], name="mine")
    with pytest.raises(ScheduleError, match="the reservation log names job 5"):
        backfill.Schedule.from_starts(w, {1: 0.0}, reservations=[(0.0, 5, 1.0)], name="mine")
    with pytest.raises(ScheduleError, match="mine: start of job 1 is 'soon', not a number"):
        backfill.Schedule.from_starts(w, {1: "soon"}, name="mine")  # type: ignore[dict-item]


def test_same_schedule_reports_the_first_difference_and_why() -> None:
    w = make((0, 2, 10, 10), (0, 2, 5, 5), (1, 1, 5, 5), size=3)
    reference = simulate(w, Conservative())
    assert reference.start.tolist() == [0.0, 10.0, 1.0]
    host = backfill.Schedule.from_starts(
        w, {1: 0.0, 2: 10.0, 3: 10.0}, name="host", reservations=[(1, 3, 10)]
    )
    with pytest.raises(ScheduleError) as info:
        backfill.same_schedule(host, reference)
    assert str(info.value) == (
        "job 3 starts at 10 under host but at 1 under Conservative; at 1, host started jobs [] and "
        "Conservative jobs [3]; job 3's reservations: host: at 1: 10; Conservative: at 1: 1"
    )
    same = backfill.Schedule.from_starts(w, reference.start, name="host", reservations=[])
    backfill.same_schedule(same, reference)
    with pytest.raises(
        ScheduleError, match=r"Conservative logs 3 reservation changes more, from job 1 at 0: 0"
    ):
        backfill.same_schedule(same, reference, reservations=True)


# -- 5 and 6: names and failure reports -------------------------------------------------------------------


def by_weight(weight: float) -> Callable[[Job, float], float]:
    def weighted(job: Job, now: float) -> float:
        return weight * job.estimate

    return weighted


def blend(job: Job, now: float, wait: float = 1.0) -> float:
    return job.estimate - wait * (now - job.submit)


def test_priority_names_are_readable_and_distinct() -> None:
    import functools

    priorities = [
        by_weight(2.0),
        by_weight(3.0),
        functools.partial(blend, wait=2.0),
        functools.partial(blend, wait=3.0),
        lambda job, now: job.estimate,
        lambda job, now: -job.estimate,
    ]
    names = [EASY(p).name for p in priorities]
    assert names[:4] == [
        "EASY(weighted(weight=2.0))",
        "EASY(weighted(weight=3.0))",
        "EASY(blend(wait=2.0))",
        "EASY(blend(wait=3.0))",
    ]
    assert names[4].startswith("EASY(lambda@test_contract.py:")
    assert len(set(names)) == len(names)
    assert not any("0x" in name for name in names)


class TwoWays(QueueScheduler):
    """Broken in two ways: crashes when an even-numbered job waits, else starts every queued job."""

    def schedule(self, now: float) -> list[Job]:
        entries = list(self.ordered(now))
        if any(entry[2].id % 2 == 0 for entry in entries) and now > 0:
            raise KeyError("lost track")
        for entry in entries:
            self._start(entry[2], now, entry[1])
        self._dequeue(entries, now)
        return [entry[2] for entry in entries]


def test_check_scheduler_reports_one_error_not_a_group() -> None:
    from hypothesis import HealthCheck, Phase

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(w=workloads())
    def check(w: Workload) -> None:
        check_scheduler(TwoWays(), w, guarantees=False)

    # Before, the simulator's error and the scheduler's KeyError came out as an ExceptionGroup.
    with pytest.raises(ScheduleError) as info:
        check()
    assert not isinstance(info.value, BaseExceptionGroup)
    assert "workload:" in "".join(getattr(info.value, "__notes__", []))


@pytest.mark.parametrize("scheduler", named([EASY(sjf), PC(sjf), Selective(2.0)]))
def test_guarded_forks_give_the_same_fair_start_times(scheduler: Any) -> None:
    plain = fair_start_times(W, scheduler, workers=1)
    checked = fair_start_times(W, guarded(scheduler), workers=1)
    assert checked.strict.tolist() == plain.strict.tolist()
    assert checked.relaxed.tolist() == plain.relaxed.tolist()
