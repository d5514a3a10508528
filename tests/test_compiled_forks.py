"""Fair start times on the compiled path: forks of a kernel run decide as forks of the Python simulator.

``fair_start_times`` forks a :class:`~backfill.kernel._forks.CompiledSimulation` where the kernel runs
the configuration whole (FCFS, EASY, Conservative, PC, DC; ``backfill/kernel/_runs.py``). Each test
computes the same thing on both paths and requires identical values: serially, on a process pool
(the runs are pickled), and from a fork taken in the middle of a run.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, workloads
from test_wholerun import RUNS_COMPILED, assert_same_decisions

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    BackfillError,
    Conservative,
    ScheduleError,
    Scheduler,
    Simulator,
    Workload,
    fair_start_times,
    ljf,
    lublin_feitelson,
    sjf,
)
from backfill.kernel import compiled, pure_python, python_path
from backfill.kernel._forks import CompiledSimulation, compiled_simulation
from backfill.workloads.limits import MAX_TIME

needs_kernel = pytest.mark.skipif(
    not compiled(), reason="the kernel is not in use (not built, or BACKFILL_PURE_PYTHON=1)"
)


def both(w: Workload, scheduler: Scheduler, **options: object) -> tuple[object, object]:
    fast = fair_start_times(w, scheduler, **options)  # type: ignore[arg-type]
    with pure_python():
        plain = fair_start_times(w, scheduler, **options)  # type: ignore[arg-type]
    return fast, plain


def assert_same_fsts(fast: object, plain: object) -> None:
    assert fast.strict.tobytes() == plain.strict.tobytes()  # type: ignore[attr-defined]
    assert fast.relaxed.tobytes() == plain.relaxed.tobytes()  # type: ignore[attr-defined]


def compiled_sim(w: Workload, scheduler: Scheduler) -> CompiledSimulation:
    sim = Simulator(w, scheduler.copy(), record_reservations=False)  # type: ignore[attr-defined]
    fast = compiled_simulation(sim)
    assert fast is not None
    return fast


@needs_kernel
@pytest.mark.parametrize("scheduler", RUNS_COMPILED, ids=str)
@settings(max_examples=25, deadline=None)
@given(w=workloads(max_jobs=30, machine_size=8, accurate=False, overruns=True, too_wide=True))
def test_the_same_fair_start_times_on_random_workloads(scheduler: Scheduler, w: Workload) -> None:
    fast, plain = both(w, scheduler, workers=1)
    assert_same_fsts(fast, plain)


@pytest.mark.long
@needs_kernel
@pytest.mark.parametrize(
    "scheduler",
    [EASY(), EASY(sjf), EASY(depth=3), Conservative(), PC(), PC(sjf, restart=False), DC(), DC(sjf)],
    ids=str,
)
def test_the_same_fair_start_times_on_a_process_pool(scheduler: Scheduler) -> None:
    # The pool's tasks carry pickled kernel runs taken at the first arrival of their range.
    w = lublin_feitelson(600, machine_size=64, seed=11, estimates="f-model").scaled(1.5)
    fast, plain = both(w, scheduler, workers=2, chunks=5)
    assert_same_fsts(fast, plain)
    serial = fair_start_times(w, scheduler, workers=1)
    assert_same_fsts(fast, serial)
    assert np.count_nonzero(fast.relaxed != fast.strict) > 50  # type: ignore[attr-defined]


@needs_kernel
@pytest.mark.parametrize(
    "scheduler",
    [
        FCFS(),
        EASY(),
        EASY(sjf, backfill_order=sjf),
        EASY(sjf, depth=4),
        Conservative(),
        PC(),
        PC(sjf, restart=False),
        DC(),
        DC(ljf),
    ],
    ids=str,
)
def test_a_fork_taken_mid_run_and_a_pickled_one_run_on_as_the_python_fork(scheduler: Scheduler) -> None:
    w = lublin_feitelson(400, machine_size=32, seed=12, estimates="f-model").scaled(2.0)
    middle = float(w.column("submit")[200])
    fast = compiled_sim(w, scheduler)
    fast.run_before(middle)
    plain = Simulator(w, scheduler.copy(), record_reservations=False)  # type: ignore[attr-defined]
    plain.run_before(middle)
    assert fast.now == plain.now and fast._next == plain._next
    assert sorted(fast.queued_jobs) == sorted(plain.queued_jobs) and len(fast.queued_jobs) > 0
    expected = plain.fork().run()
    assert_same_decisions(fast.fork().run(), expected)
    thawed = pickle.loads(pickle.dumps(fast.fork()))
    assert_same_decisions(thawed.run(), expected)
    # The original goes on from where it was, untouched by its forks.
    assert_same_decisions(fast.run(), plain.run())


@needs_kernel
@pytest.mark.parametrize("scheduler", [Conservative(), PC(sjf), DC(sjf)], ids=str)
def test_a_fork_without_later_arrivals_and_a_late_delivery(scheduler: Scheduler) -> None:
    w = lublin_feitelson(300, machine_size=32, seed=13).scaled(2.0)
    row = 150
    fast = compiled_sim(w, scheduler)
    fast.run_before(float(w.column("submit")[row]))
    fork = fast.fork(last_arrival=row - 1)
    while fork.queued_jobs or fork._next < row:
        assert fork.step()
    fork._deliver_late(row)
    with pytest.raises(BackfillError, match=f"row {row} cannot be delivered late"):
        fork._deliver_late(row)
    with pytest.raises(BackfillError, match=f"row {row - 1} cannot be delivered late"):
        fork._deliver_late(row - 1)
    start = fork._run_until_row_started(row)
    assert start == fork.now and start >= float(w.column("submit")[row])
    with pytest.raises(BackfillError, match="never started"):
        fast.fork(last_arrival=row - 1)._run_until_row_started(row)


@needs_kernel
@pytest.mark.parametrize("scheduler", [EASY(), Conservative()], ids=str)
def test_a_clock_past_max_clock_raises_the_python_path_s_error(scheduler: Scheduler) -> None:
    # Nine jobs as wide as the machine, each MAX_TIME long: the last ends at 9e12 s, past MAX_CLOCK.
    # Every fork stops when its job starts (by 8e12), so serial fair start times exist on both paths;
    # the pool's cost estimate runs a whole simulation, which reaches the door's refusal.
    w = make(*[(0.0, 4, MAX_TIME, MAX_TIME)] * 9, size=4)
    fast, plain = both(w, scheduler, workers=1)
    assert_same_fsts(fast, plain)
    assert fast.strict.tolist() == [k * MAX_TIME for k in range(9)]  # type: ignore[attr-defined]
    with pytest.raises(ScheduleError, match=r"completed at 9e\+12, after MAX_CLOCK \(2\*\*43 s\)"):
        fair_start_times(w, scheduler, workers=2)


@needs_kernel
@given(st.integers(0, 10**6))
@settings(max_examples=5, deadline=None)
def test_the_fork_of_a_fresh_simulation_is_its_whole_run(seed: int) -> None:
    # fair_start_times estimates the cost of each row from such a run.
    w = lublin_feitelson(200, machine_size=32, seed=seed).scaled(1.5)
    whole = compiled_sim(w, Conservative()).fork().run()
    with pure_python():
        assert_same_decisions(whole, Simulator(w, Conservative(), record_reservations=False).run())


@needs_kernel
def test_python_path_forks_the_python_simulator_with_the_same_fair_start_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    w = lublin_feitelson(300, machine_size=32, seed=15).scaled(1.5)
    fast = fair_start_times(w, Conservative(), workers=1)
    forked: list[type] = []
    fork = Simulator.fork

    def spy(self: Simulator, **options: object) -> Simulator:
        forked.append(type(self))
        return fork(self, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(Simulator, "fork", spy)
    with python_path():
        plain = fair_start_times(w, Conservative(), workers=1)
    assert len(forked) >= len(w)  # a fork of the Python simulator per job
    assert_same_fsts(fast, plain)
