"""The compiled whole-run path against the pure-Python path: the same decisions, and only where it may run.

``simulate`` runs FCFS and classic EASY under a built-in static priority whole in the kernel
(``backfill/_wholerun.pyx``, chosen by ``backfill/_compiled_runs.py``). Each test here runs a
configuration as installed and inside :func:`backfill.kernel.pure_python`, and requires the same start
times, start order and reservation log, byte for byte; and that everything else (a subclass, another
priority, a deeper EASY, a stepped simulation) runs the Python path.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import workloads

from backfill import (
    EASY,
    FCFS,
    Job,
    ParameterError,
    Schedule,
    Scheduler,
    Simulator,
    Workload,
    fcfs,
    ljf,
    lublin_feitelson,
    lxf,
    njf,
    read_swf,
    simulate,
    sjf,
    wjf,
)
from backfill.kernel import compiled, pure_python

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
STATIC = [fcfs, sjf, ljf, wjf, njf]
RUNS_COMPILED = (
    [FCFS(p) for p in STATIC]
    + [EASY(p) for p in STATIC]
    + [EASY(backfill_order=sjf), EASY(sjf, backfill_order=wjf), EASY(ljf, backfill_order=fcfs)]
)
needs_kernel = pytest.mark.skipif(
    not compiled(), reason="the kernel is not in use (not built, or BACKFILL_PURE_PYTHON=1)"
)


def assert_same_decisions(fast: Schedule, plain: Schedule) -> None:
    assert np.array_equal(fast.start, plain.start, equal_nan=True)
    assert np.array_equal(fast.end, plain.end, equal_nan=True)
    assert fast.start_order.tobytes() == plain.start_order.tobytes()
    assert fast.reservations.tobytes() == plain.reservations.tobytes()


def assert_identical(fast: Schedule, plain: Schedule) -> None:
    assert_same_decisions(fast, plain)
    assert fast.scheduler == plain.scheduler
    assert dict(fast.rejected) == dict(plain.rejected)
    assert dict(fast.altered) == dict(plain.altered)


def both(w: Workload, scheduler: Scheduler, **options: object) -> tuple[Schedule, Schedule]:
    fast = simulate(w, scheduler.copy(), **options)  # type: ignore[arg-type]
    with pure_python():
        plain = simulate(w, scheduler.copy(), **options)  # type: ignore[arg-type]
    assert plain.path == "python"
    return fast, plain


@needs_kernel
@pytest.mark.parametrize("scheduler", RUNS_COMPILED, ids=str)
@settings(max_examples=60, deadline=None)
@given(
    w=workloads(max_jobs=40, machine_size=8, accurate=False, overruns=True),
    overrun=st.sampled_from(["raise_estimate", "kill"]),
    record=st.booleans(),
)
def test_the_same_decisions_on_random_workloads(
    scheduler: Scheduler, w: Workload, overrun: str, record: bool
) -> None:
    # Ties of every kind: equal submit times, equal keys, zero runtimes (a job that ends in the
    # instant it starts), zero estimates, jobs as wide as the machine, rejected jobs.
    fast, plain = both(w, scheduler, overrun=overrun, record_reservations=record)
    assert fast.path == "compiled"
    assert_identical(fast, plain)


@needs_kernel
@pytest.mark.parametrize("scheduler", RUNS_COMPILED, ids=str)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_same_decisions_at_high_load(scheduler: Scheduler, seed: int) -> None:
    # Twice the model's load on a small machine keeps dozens of jobs queued; f-model estimates end
    # jobs early, so the head's shadow time moves and reservations are withdrawn and remade.
    w = lublin_feitelson(400, machine_size=32, seed=seed, estimates="f-model").scaled(2.0)
    fast, plain = both(w, scheduler)
    assert fast.path == "compiled"
    assert_identical(fast, plain)
    if isinstance(scheduler, EASY):
        assert len(plain.reservations) > 0  # the log is compared, not two empty arrays
        assert np.isnan(plain.reservations["start"]).any() or scheduler.priority is fcfs


@needs_kernel
@pytest.mark.skipif(not TRACES.is_dir(), reason=f"the archive traces are not at {TRACES}")
@pytest.mark.parametrize("trace", ["KTH-SP2-1996-2", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"])
def test_the_same_decisions_on_archive_trace_prefixes(trace: str) -> None:
    workload = read_swf(TRACES / f"{trace}.swf.gz")[0]
    w = Workload.from_records(workload.records[:4000], workload.machine_size).scaled(1.5)
    for scheduler in (EASY(), EASY(sjf), EASY(backfill_order=sjf), FCFS()):
        fast, plain = both(w, scheduler)
        assert fast.path == "compiled"
        assert_identical(fast, plain)


@needs_kernel
def test_progress_reports_the_same_way_and_changes_nothing() -> None:
    w = lublin_feitelson(500, seed=3)
    seen: dict[str, list[int]] = {"compiled": [], "python": []}
    fast = simulate(w, EASY(), progress=seen["compiled"].append)
    with pure_python():
        plain = simulate(w, EASY(), progress=seen["python"].append)
    assert fast.path == "compiled"
    assert_identical(fast, plain)
    assert seen["compiled"] == seen["python"]
    assert seen["compiled"][-1] == len(w)


class MyEASY(EASY):
    """A user's subclass that changes nothing: it still runs the Python path (it could change anything)."""


def by_estimate(job: Job, now: float) -> float:
    """The same keys as sjf, but a user's function: not compiled."""
    return job.estimate


@pytest.mark.parametrize(
    "scheduler",
    [
        MyEASY(),
        EASY(by_estimate),
        EASY(lxf),
        EASY(depth=2),
        EASY(depth=None),
        EASY(backfill_order=lxf),
        EASY(backfill_order=by_estimate),
        EASY(planning_window=3600),
        EASY(max_tested=5),
        FCFS(lxf),
        FCFS(by_estimate),
    ],
    ids=repr,
)
def test_everything_else_runs_the_python_path(scheduler: Scheduler) -> None:
    w = lublin_feitelson(200, machine_size=32, seed=5).scaled(1.5)
    schedule = simulate(w, scheduler)
    assert schedule.path == "python"
    # A user's priority with sjf's keys decides as sjf does, whichever path sjf takes.
    if isinstance(scheduler, EASY) and scheduler.priority is by_estimate and scheduler.depth == 1:
        assert_same_decisions(simulate(w, EASY(sjf)), schedule)


def test_a_simulator_stepped_by_hand_runs_the_python_path() -> None:
    w = lublin_feitelson(200, seed=4)
    sim = Simulator(w, EASY())
    sim.run_before(float(w.column("submit")[100]))
    stepped = sim.run()
    assert stepped.path == "python"
    with pure_python():
        plain = simulate(w, EASY())
    assert_identical(stepped, plain)


def test_pure_python_runs_every_configuration_on_the_python_path() -> None:
    w = lublin_feitelson(100, seed=6)
    with pure_python():
        assert {simulate(w, s.copy()).path for s in RUNS_COMPILED} == {"python"}


@needs_kernel
def test_the_schedule_says_compiled_and_a_schedule_made_by_hand_says_python() -> None:
    w = lublin_feitelson(50, seed=7)
    assert simulate(w, EASY()).path == "compiled"
    made = Schedule.from_starts(w, simulate(w, EASY()).start)
    assert made.path == "python"
    with pytest.raises(ParameterError, match="path must be one of 'python', 'compiled'; got 'fast'"):
        attrs.evolve(made, path="fast")
