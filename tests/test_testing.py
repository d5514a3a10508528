"""The property-test kit catches broken schedulers, passes good ones, and its strategy has every knob."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Self

import attrs
import numpy as np
import pytest
import strategies
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from strategies import make

import backfill.testing
from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    BackfillError,
    Conservative,
    Job,
    QueueScheduler,
    ScheduleError,
    Workload,
    check_reservations,
    fair_start_times,
    lublin_feitelson,
    simulate,
)
from backfill.schedule import RESERVATION_DTYPE
from backfill.testing import check_feasible, check_guarantees, check_holds, check_scheduler, workloads

# Broken schedulers must be found from random workloads too, not only from the hand-made ones below;
# derandomized so that a pass is not luck, and the first failure is enough (shrinking costs seconds).
HUNT = settings(
    phases=[Phase.generate],
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow],
)


# Machine of 3: job 1 holds 2 processors for 10 s, job 2 (2 processors) must wait for it, and job 3
# (1 processor) arrives at 5 and fits at once, so there is an instant at which job 2 is still queued.
WAITING = make((0, 2, 10, 10), (0, 2, 10, 10), (5, 1, 3, 3), size=3)


@attrs.define
class FirstFit:
    """A correct scheduler of the protocol's minimum: start, in arrival order, every queued job that fits."""

    free: int = 0
    now: float = 0.0
    queue: list[Job] = attrs.Factory(list)
    name = "FirstFit"

    def reset(self, machine_size: int, now: float) -> None:
        self.free, self.now, self.queue = machine_size, now, []

    def submit(self, job: Job, now: float) -> None:
        self.queue.append(job)

    def complete(self, job: Job, now: float) -> None:
        self.free += job.processors

    def schedule(self, now: float) -> list[Job]:
        self.now = now
        started = [job for job in self.queue if self.fits(job)]
        self.queue = [job for job in self.queue if job not in started]
        return started

    def fits(self, job: Job) -> bool:
        if job.processors > self.free:
            return False
        self.free -= job.processors
        return True

    def next_wakeup(self) -> float | None:
        return None

    def reservations(self) -> Mapping[int, float]:
        return {}

    def copy(self) -> FirstFit:
        return attrs.evolve(self, queue=list(self.queue))


@attrs.define
class OverCommits(FirstFit):
    """Starts every queued job at once, whatever it needs."""

    name = "OverCommits"

    def fits(self, job: Job) -> bool:
        self.free -= job.processors
        return True


@attrs.define
class LosesJobs(FirstFit):
    """Forgets every job with an even id."""

    name = "LosesJobs"

    def submit(self, job: Job, now: float) -> None:
        if job.id % 2:
            self.queue.append(job)


@attrs.define
class Procrastinates(FirstFit):
    """Promises each queued job a start 100 s from the latest decision, so the promise drifts later."""

    name = "Procrastinates"

    def reservations(self) -> Mapping[int, float]:
        return {job.id: self.now + 100 for job in self.queue}


@attrs.define
class Overpromises(FirstFit):
    """Promises each queued job its submit time, and keeps that promise only if the job fits."""

    name = "Overpromises"

    def reservations(self) -> Mapping[int, float]:
        return {job.id: job.submit for job in self.queue}


@attrs.define
class Withdraws(FirstFit):
    """Promises queued jobs a late start until time 5, then withdraws every promise."""

    name = "Withdraws"

    def reservations(self) -> Mapping[int, float]:
        return {job.id: 1000.0 for job in self.queue} if self.now < 5 else {}


def run_broken(scheduler: FirstFit, **kwargs: object) -> Callable[[], None]:
    """A hypothesis search for a workload on which check_scheduler rejects this scheduler."""

    @HUNT
    @given(w=workloads(overruns=True))
    def search(w: Workload) -> None:
        check_scheduler(scheduler, w, **kwargs)  # type: ignore[arg-type]

    return search


# -- broken schedulers are caught -----------------------------------------------------------------------


def test_over_committing_scheduler_is_caught_by_the_simulator() -> None:
    with pytest.raises(ScheduleError, match=r"OverCommits started job 2 at 0: 4 processors in use on a 3-"):
        check_scheduler(OverCommits(), WAITING, guarantees=False)
    with pytest.raises(ScheduleError, match=r"OverCommits started job .* processors in use"):
        run_broken(OverCommits(), guarantees=False)()


def test_over_committed_schedule_is_caught_with_the_jobs_running() -> None:
    # A schedule from elsewhere (another simulator, a log) is judged on its arrays alone.
    good = simulate(WAITING, Conservative())
    check_feasible(good)
    bad = attrs.evolve(good, start=[0.0, 0.0, 10.0], end=[10.0, 10.0, 13.0])
    with pytest.raises(
        ScheduleError, match=r"Conservative: 4 processors in use at time 0 .*\(running at 0: job ids 1, 2\)"
    ):
        check_feasible(bad)


def test_lost_job_is_caught() -> None:
    # The simulator itself refuses to end a run with a job never started.
    with pytest.raises(
        ScheduleError, match=r"LosesJobs left 1 queued jobs unstarted .*\(job ids 2\)"
    ) as caught:
        check_scheduler(LosesJobs(), WAITING, guarantees=False)
    # The failing workload is spelled out as a table of its jobs.
    assert caught.value.__notes__ == [
        "workload: 3 jobs on a 3-processor machine\n"
        " id  submit  processors  runtime  estimate  user\n"
        "  1       0           2       10        10    -1\n"
        "  2       0           2       10        10    -1\n"
        "  3       5           1        3         3    -1"
    ]
    with pytest.raises(ScheduleError, match=r"LosesJobs left .* queued jobs unstarted"):
        run_broken(LosesJobs(), guarantees=False)()
    # A schedule from elsewhere with a job neither started nor rejected fails the validator.
    good = simulate(WAITING, Conservative())
    lost = attrs.evolve(good, start=[0.0, np.nan, 10.0], end=[10.0, np.nan, 13.0])
    with pytest.raises(ScheduleError, match=r"Conservative: jobs neither started nor rejected \(job ids 2\)"):
        check_feasible(lost)


def test_rejection_of_a_job_not_in_the_workload_is_caught() -> None:
    bad = attrs.evolve(simulate(WAITING, Conservative()), rejected={99: "made up"})
    with pytest.raises(
        ScheduleError, match=r"3 jobs started and 1 rejected, but the workload has 3 .*: 99\)"
    ):
        check_feasible(bad)


def test_reservation_moved_later_is_caught() -> None:
    with pytest.raises(
        ScheduleError,
        match=r"Procrastinates: job 2's reservation moved later at 5: 100 -> 105 "
        r"\(history: at 0: 100, at 5: 105, at 8: 108\)",
    ):
        check_scheduler(Procrastinates(), WAITING)
    # Holding a reservation does not excuse moving it later either.
    with pytest.raises(
        ScheduleError, match=r"Procrastinates: job 2's reservation moved later at 5: 100 -> 105 \(history"
    ):
        check_scheduler(Procrastinates(), WAITING, guarantees="while_held")
    with pytest.raises(ScheduleError, match=r"Procrastinates: job .* moved later"):
        run_broken(Procrastinates())()


def test_start_after_the_first_guarantee_is_caught() -> None:
    with pytest.raises(ScheduleError, match="Overpromises: job 2 started at 10, after its guarantee 0"):
        check_scheduler(Overpromises(), WAITING)
    with pytest.raises(ScheduleError, match="Overpromises: job 2 started at 10, after 0"):
        check_scheduler(Overpromises(), WAITING, guarantees="while_held")
    with pytest.raises(ScheduleError, match=r"Overpromises: job .* started at .*, after its guarantee"):
        run_broken(Overpromises())()


def test_withdrawn_reservation_breaks_a_guarantee_but_not_a_hold() -> None:
    with pytest.raises(ScheduleError, match="Withdraws: job 2 lost its reservation"):
        check_scheduler(Withdraws(), WAITING)
    schedule = check_scheduler(Withdraws(), WAITING, guarantees="while_held")
    assert np.isnan(schedule.reservations_of(2)).tolist() == [False, True]


def test_jobs_that_waited_without_a_guarantee() -> None:
    # Machine of 4, full until 10: EASY reserves for its head, job 2, and job 3 waits behind it with
    # no reservation of its own, then both start at 10.
    w = make((0, 4, 10, 10), (1, 2, 5, 5), (2, 2, 5, 5), size=4)
    easy = simulate(w, EASY())
    assert easy.start.tolist() == [0, 10, 10]
    with pytest.raises(ScheduleError, match=r"EASY\(fcfs\): jobs waited without a reservation \(job ids 3\)"):
        check_guarantees(easy)
    check_guarantees(easy, require_log=False)
    with pytest.raises(ScheduleError, match=r"FCFS\(fcfs\): jobs waited without any reservation in the log"):
        check_scheduler(FCFS(), w)


def test_unrecorded_reservations_are_not_a_vacuous_pass() -> None:
    unrecorded = simulate(WAITING, Conservative(), record_reservations=False)
    with pytest.raises(ScheduleError, match=r"job ids 2\): .* simulated with record_reservations=False"):
        check_guarantees(unrecorded)
    check_guarantees(unrecorded, require_log=False)
    unrecorded = simulate(WAITING, EASY(), record_reservations=False)
    with pytest.raises(ScheduleError, match=r"EASY\(fcfs\): jobs waited but the reservation log is empty"):
        check_holds(unrecorded)
    check_holds(unrecorded, require_log=False)


def test_reservation_log_naming_a_stranger_is_caught() -> None:
    good = simulate(WAITING, Conservative())
    bad = attrs.evolve(good, reservations=np.array([(0.0, 99, 5.0)], dtype=RESERVATION_DTYPE))
    for check in (check_guarantees, check_holds):
        with pytest.raises(ScheduleError, match=r"names jobs not in the workload \(job ids 99\)"):
            check(bad)


def test_check_scheduler_refuses_what_is_not_a_scheduler() -> None:
    with pytest.raises(
        ScheduleError, match="object does not satisfy the Scheduler protocol: no reset, submit"
    ):
        check_scheduler(object(), WAITING)  # type: ignore[arg-type]
    with pytest.raises(BackfillError, match="guarantees must be True, False or 'while_held', got 'yes'"):
        check_scheduler(Conservative(), WAITING, guarantees="yes")  # type: ignore[arg-type]


def test_a_failing_workload_is_shown_as_a_table() -> None:
    # Hypothesis prints the drawn workload as a table of its jobs, not as its record array.
    with pytest.raises(ScheduleError) as caught:
        run_broken(LosesJobs(), guarantees=False)()
    shown = "\n".join(caught.value.__notes__)
    assert "array(" not in shown and "dtype" not in shown
    assert re.search(
        r"\n {4}w=workload: \d+ jobs on a \d+-processor machine\n {5}id  submit  processors  runtime  "
        r"estimate  user\n {6}1  ",
        shown,
    ), shown


def test_the_table_shows_at_most_30_jobs() -> None:
    w = has(lambda w: len(w) >= 33, max_jobs=40)
    lines = repr(w).splitlines()
    assert lines[0] == f"workload: {len(w)} jobs on a {w.machine_size}-processor machine"
    assert lines[1].split() == ["id", "submit", "processors", "runtime", "estimate", "user"]
    assert [int(line.split()[0]) for line in lines[2:-1]] == list(range(1, 31))
    assert lines[-1] == f"... and {len(w) - 30} more"
    # Still a Workload in every other way, and a plain one once pickled.
    assert isinstance(w, Workload) and len(w) == len(w.records)
    again = pickle.loads(pickle.dumps(w))
    assert type(again) is Workload and (again.records == w.records).all()
    one = Workload.from_jobs([Job(id=7, submit=1.5, processors=3, runtime=2.0, estimate=4.0, user=2)], 4)
    assert backfill.testing._describe(one) == (
        "workload: 1 job on a 4-processor machine\n"
        " id  submit  processors  runtime  estimate  user\n"
        "  7     1.5           3        2         4     2"
    )


# -- copies taken mid-run ------------------------------------------------------------------------------


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class BoundedBypass(QueueScheduler):
    """First fit in queue order, until a waiting job has been passed over ``limit`` times: then all wait.

    Its own state, a list, is not in ``copy()``: the copy inherited from SchedulerBase shares it.
    """

    limit: int = 2
    passed: list[int] = attrs.field(factory=list)  # a job's id once for each job started past it

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self.passed = []

    def schedule(self, now: float) -> list[Job]:
        chosen, free, waiting = [], self.free, []
        for entry in self.ordered(now):
            job = entry[2]
            if job.processors <= free:
                chosen.append(entry)
                free -= job.processors
                self.passed.extend(w.id for w in waiting)
            else:
                waiting.append(job)
                if self.passed.count(job.id) >= self.limit:
                    break
        return self.start(chosen, now)


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class ForgetsBypasses(BoundedBypass):
    """Its copy starts with no job passed over."""

    def copy(self) -> Self:
        other = super().copy()
        other.passed = []
        return other


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class CopiesBypasses(BoundedBypass):
    """The correct copy: a list of its own with the same entries."""

    def copy(self) -> Self:
        other = super().copy()
        other.passed = list(self.passed)
        return other


# Machine of 2: job 1 holds one processor until 10 and job 2 needs both, so jobs 3 and 4 pass it; by
# then it has been passed over twice, and job 5 waits behind it until 15.
BYPASSED = make((0, 1, 10, 10), (0, 2, 5, 5), (1, 1, 1, 1), (2, 1, 1, 1), (3, 1, 1, 1), size=2)


def test_fair_start_times_are_wrong_when_a_copy_shares_its_state() -> None:
    # fair_start_times forks the simulation at every arrival; a copy sharing the list with the
    # original feeds the forks' passes into the run and into each other.
    w = lublin_feitelson(200, machine_size=64, seed=1)
    assert simulate(w, BoundedBypass()).start.tolist() == simulate(w, CopiesBypasses()).start.tolist()
    shared = fair_start_times(w, BoundedBypass(), workers=1)
    right = fair_start_times(w, CopiesBypasses(), workers=1)
    assert int((shared.strict != right.strict).sum()) == 109
    assert int((fair_start_times(w, ForgetsBypasses(), workers=1).strict != right.strict).sum()) > 50


def test_a_copy_that_shares_or_forgets_its_state_is_caught() -> None:
    assert simulate(BYPASSED, CopiesBypasses()).start.tolist() == [0, 10, 1, 2, 15]
    # The fork after 0 runs after the original, whose later passes it then sees as its own.
    with pytest.raises(
        ScheduleError,
        match=r"^BoundedBypass\(fcfs\): a copy of the scheduler taken after 0 \(as Simulator.fork and "
        r"fair_start_times take one\) did not continue as the original: job 3 started at 15 in the copy "
        r"and at 1 in the original; copy\(\) must carry all of the scheduler's state and share no "
        r"mutable part of it with the original \(see SchedulerBase.copy\)\n",
    ):
        check_scheduler(BoundedBypass(), BYPASSED, guarantees=False)
    with pytest.raises(
        ScheduleError,
        match=r"ForgetsBypasses\(fcfs\): a copy .* taken after 1 .*: job 5 started at 3 in the copy and at "
        r"15 in the original",
    ):
        check_scheduler(ForgetsBypasses(), BYPASSED, guarantees=False)
    for broken in (BoundedBypass(), ForgetsBypasses()):
        with pytest.raises(ScheduleError, match=r"a copy .* not continue as the original: job \d+ started"):
            run_broken(broken, guarantees=False)()  # type: ignore[arg-type]
    # Without forks the kit cannot tell.
    check_scheduler(BoundedBypass(), BYPASSED, guarantees=False, forks=0)


@settings(max_examples=60, deadline=None)
@given(w=workloads(), forks=st.integers(1, 4))
def test_a_copy_that_carries_its_state_passes(w: Workload, forks: int) -> None:
    check_scheduler(CopiesBypasses(), w, guarantees=False, forks=forks)


@attrs.define
class ForgetsPromises(FirstFit):
    """Promises each job a start 100 s after its arrival; its copy forgets the promises it made."""

    promised: dict[int, float] = attrs.Factory(dict)
    name = "ForgetsPromises"

    def submit(self, job: Job, now: float) -> None:
        super().submit(job, now)
        self.promised[job.id] = now + 100

    def reservations(self) -> Mapping[int, float]:
        return {job.id: self.promised.get(job.id, self.now + 100) for job in self.queue}

    def copy(self) -> ForgetsPromises:
        return attrs.evolve(self, queue=list(self.queue), promised={})


@attrs.define
class ForgetsQueue(FirstFit):
    """Its copy has an empty queue."""

    name = "ForgetsQueue"

    def copy(self) -> ForgetsQueue:
        return attrs.evolve(self, queue=[])


def test_a_copy_that_reserves_otherwise_or_fails_is_caught() -> None:
    # The same starts, but job 2's reservation changes in the copy at the next instant.
    with pytest.raises(
        ScheduleError,
        match=r"ForgetsPromises: a copy .* taken after 0 .*: at 5 the copy reserved 105 for job 2 and the "
        r"original left job 2's reservation as it was; copy\(\) must",
    ):
        check_scheduler(ForgetsPromises(), WAITING, guarantees=False)
    with pytest.raises(
        ScheduleError,
        match=r"ForgetsQueue: a copy .* taken after 0 .*: the copy failed: ForgetsQueue left 1 queued jobs "
        r"unstarted when nothing was left to happen \(job ids 2\)",
    ):
        check_scheduler(ForgetsQueue(), WAITING, guarantees=False)
    with pytest.raises(BackfillError, match="forks must be an int >= 0, got -1"):
        check_scheduler(FirstFit(), WAITING, forks=-1)


# -- good schedulers pass -------------------------------------------------------------------------------


def test_check_scheduler_simulates_a_copy_and_records_reservations() -> None:
    scheduler = Conservative()
    scheduler.reset(4, 0.0)
    scheduler.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), 0.0)
    schedule = check_scheduler(scheduler, WAITING)
    assert dict(scheduler.reservations()) == {1: 0.0}
    assert schedule.scheduler == "Conservative"
    assert schedule.start.tolist() == [0, 10, 5]
    assert schedule.reservations_of(2).tolist() == [10.0]


@settings(max_examples=60, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(["raise_estimate", "kill"]))
def test_good_schedulers_pass(w: Workload, overrun: str) -> None:
    schedules = [
        check_scheduler(Conservative(), w, overrun=overrun),  # type: ignore[arg-type]
        check_scheduler(EASY(), w, guarantees="while_held", overrun=overrun),  # type: ignore[arg-type]
        check_scheduler(FCFS(), w, guarantees=False, overrun=overrun),  # type: ignore[arg-type]
        check_scheduler(FirstFit(), w, guarantees=False, overrun=overrun),  # type: ignore[arg-type]
    ]
    assert [s.scheduler for s in schedules] == ["Conservative", "EASY(fcfs)", "FCFS(fcfs)", "FirstFit"]
    assert all(s.workload is w for s in schedules)
    # Schedulers that promise nothing leave nothing in the log they were checked with.
    assert schedules[2].reservations.size == schedules[3].reservations.size == 0


# -- the strategy -----------------------------------------------------------------------------------------


def test_tests_import_the_strategy_from_the_kit() -> None:
    assert strategies.workloads is backfill.testing.workloads


def test_importing_backfill_does_not_import_hypothesis() -> None:
    code = "import sys, backfill; assert not {'hypothesis', 'backfill.testing'} & set(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=100, deadline=None)
@given(
    w=workloads(max_jobs=8, machine_size=5, accurate=True, zero_runtimes=False),
    v=workloads(max_jobs=8, accurate=False),
)
def test_knobs_bound_what_is_drawn(w: Workload, v: Workload) -> None:
    for x in (w, v):
        assert x.column("id").tolist() == list(range(1, len(x) + 1))
        assert (x.column("processors") >= 1).all() and (x.column("processors") <= x.machine_size).all()
        assert ((x.column("submit") >= 0) & (x.column("submit") <= 60)).all()
    assert len(w) <= 8 and w.machine_size == 5
    assert (w.column("estimate") == w.column("runtime")).all() and (w.column("runtime") >= 1).all()
    assert 1 <= v.machine_size <= 16
    assert (v.column("estimate") >= v.column("runtime")).all()


# The usage of the docs, as a user's own test file: hypothesis's default settings (no conftest, no
# profile), a fresh example database, a scheduler that takes its time over each decision and a test
# that refuses the workloads its scheduler does not support.
FIRST_RUN = """
import time

import attrs
from hypothesis import assume, given

from backfill import Conservative, QueueScheduler
from backfill.testing import check_scheduler, workloads


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class SlowFit(QueueScheduler):
    def schedule(self, now):
        time.sleep(0.0001)
        chosen, free = [], self.free
        for entry in self.ordered(now):
            if entry[2].processors <= free:
                chosen.append(entry)
                free -= entry[2].processors
        return self.start(chosen, now)


@given(workloads())
def test_slow_scheduler(w):
    check_scheduler(SlowFit(), w, guarantees=False)


@given(workloads())
def test_strict_user(w):
    assume(w.machine_size >= 4 and len(w) >= 3)
    assume((w.column("runtime") > 0).all())
    check_scheduler(Conservative(), w)


@given(workloads(max_jobs=100, users=4, overruns=True))
def test_bigger_workloads(w):
    check_scheduler(Conservative(), w, forks=0)
"""


@pytest.mark.long
def test_a_first_run_with_default_settings_passes(tmp_path: Path) -> None:
    (tmp_path / "test_first_run.py").write_text(FIRST_RUN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_first_run.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "HYPOTHESIS_PROFILE": "default"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


def has(predicate: Callable[[Workload], bool], **knobs: object) -> Workload:
    """A workload the strategy draws that satisfies the predicate; hypothesis.find fails if it finds none."""
    quick = settings(database=None, max_examples=2000, phases=[Phase.generate])
    return find(workloads(**knobs), predicate, settings=quick)  # type: ignore[arg-type]


def test_strategy_reaches_the_corner_cases() -> None:
    def column(name: str) -> Callable[[Workload], np.ndarray]:
        return lambda w: w.column(name)

    submit, procs, runtime, estimate = (column(c) for c in ("submit", "processors", "runtime", "estimate"))
    # Many simultaneous arrivals: five jobs at one instant.
    has(lambda w: len(w) > 0 and np.unique(submit(w), return_counts=True)[1].max() >= 5)
    # A job as wide as the machine, next to narrower ones.
    has(lambda w: (procs(w) == w.machine_size).any() and (procs(w) < w.machine_size).any())
    # An estimate much longer than the runtime.
    has(lambda w: (estimate(w) >= runtime(w) + 30).any())
    has(lambda w: (runtime(w) == 0).any())
    has(lambda w: (estimate(w) < runtime(w)).any(), overruns=True)
    has(lambda w: (procs(w) > w.machine_size).any(), too_wide=True)


def test_a_valid_schedule_is_checked_without_wording_any_history(monkeypatch: pytest.MonkeyPatch) -> None:
    # Finding a job's history scans every reservation; doing it for each job of a valid schedule made
    # check_reservations quadratic (minutes on a whole archive trace). Only an error words one.
    import backfill.measures.validation as validation

    def no_history(*_: object) -> str:
        raise AssertionError("a history was worded for a valid schedule")

    monkeypatch.setattr(validation, "_history", no_history)
    workload = lublin_feitelson(300, machine_size=64, seed=3)
    for scheduler in (Conservative(), PC(), DC()):
        check_reservations(simulate(workload, scheduler, record_reservations=True))
    check_reservations(simulate(workload, EASY(), record_reservations=True), while_held=True)
