"""The compiled whole-run path against the pure-Python path: the same decisions, and only where it may run.

``simulate`` runs FCFS and EASY under a built-in static priority, Conservative, and PC and DC under
a built-in static priority, whole in the kernel (``backfill/kernel/_wholerun.pyx``, chosen by
``backfill/kernel/_runs.py``). Each test here runs a configuration as installed and inside
:func:`backfill.kernel.pure_python`, and requires the same start times, start order and reservation
log, byte for byte, and the same work counts (``events_examined``, PC's and DC's ``moves``); and that
everything else (a subclass, another priority, a deeper EASY, a stepped simulation) runs the Python
path.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import narrowing_everything, workloads

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
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
from backfill.kernel import compiled, pure_python, python_path

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
STATIC = [fcfs, sjf, ljf, wjf, njf]
RUNS_COMPILED = (
    [FCFS(p) for p in STATIC]
    + [EASY(p) for p in STATIC]
    + [EASY(backfill_order=sjf), EASY(sjf, backfill_order=wjf), EASY(ljf, backfill_order=fcfs)]
    + [EASY(depth=2), EASY(sjf, depth=4), EASY(ljf, depth=None)]
    + [Conservative()]
    + [PC(), PC(sjf), PC(ljf), PC(sjf, restart=False)]
    + [DC(), DC(sjf), DC(ljf), DC(wjf)]
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
    fast_scheduler, plain_scheduler = scheduler.copy(), scheduler.copy()  # type: ignore[attr-defined]
    fast = simulate(w, fast_scheduler, **options)  # type: ignore[arg-type]
    with pure_python():
        plain = simulate(w, plain_scheduler, **options)  # type: ignore[arg-type]
    assert plain.path == "python"
    # The work a guarantee scheduler's searches did is the same count either way (Lindsay's measure).
    examined = getattr(plain_scheduler, "events_examined", None)
    assert getattr(fast_scheduler, "events_examined", None) == examined
    # And so is the number of moves PC's and DC's compressions made.
    assert getattr(fast_scheduler, "moves", None) == getattr(plain_scheduler, "moves", None)
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


@pytest.mark.long
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
    assert len(plain.reservations) > 0 or isinstance(scheduler, FCFS)  # logs compared, not two empty ones
    if isinstance(scheduler, EASY):
        assert np.isnan(plain.reservations["start"]).any() or scheduler.priority is fcfs
    if isinstance(scheduler, Conservative | PC | DC):
        # Compression moved reservations (a job logged more than once), and searches were counted.
        assert len(np.unique(plain.reservations["job_id"])) < len(plain.reservations)
    if isinstance(scheduler, PC | DC):
        assert scheduler.moves == 0  # the copies ran, not the template


GUARANTEE_RUNS = [s for s in RUNS_COMPILED if isinstance(s, PC | DC)]


@pytest.mark.long
@needs_kernel
@pytest.mark.parametrize("scheduler", GUARANTEE_RUNS, ids=str)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_pc_and_dc_the_same_with_every_vacated_interval_narrowed(scheduler: Scheduler, seed: int) -> None:
    # Small queues take the long-queue branches too (the spread to many jobs, the passes of
    # earliest_moves per width), whose events examined are counted by other rules than a search's.
    w = lublin_feitelson(300, machine_size=32, seed=seed, estimates="f-model").scaled(2.0)
    with narrowing_everything():
        fast, plain = both(w, scheduler)
    assert fast.path == "compiled"
    assert_identical(fast, plain)


@needs_kernel
def test_pc_and_dc_count_what_their_python_path_counts() -> None:
    # The counts left on the scheduler are the run's, not zero: a compiled run does not drive it.
    w = lublin_feitelson(400, machine_size=32, seed=21, estimates="f-model").scaled(2.0)
    for scheduler in (PC(), PC(sjf, restart=False), DC(), DC(sjf)):
        fast_scheduler, plain_scheduler = scheduler.copy(), scheduler.copy()
        assert simulate(w, fast_scheduler).path == "compiled"
        with pure_python():
            simulate(w, plain_scheduler)
        assert fast_scheduler.events_examined == plain_scheduler.events_examined > 0
        assert fast_scheduler.moves == plain_scheduler.moves > 0


@needs_kernel
@pytest.mark.long
@pytest.mark.skipif(not TRACES.is_dir(), reason=f"the archive traces are not at {TRACES}")
@pytest.mark.parametrize("trace", ["KTH-SP2-1996-2", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"])
def test_the_same_decisions_on_archive_trace_prefixes(trace: str) -> None:
    workload = read_swf(TRACES / f"{trace}.swf.gz")[0]
    w = Workload.from_records(workload.records[:4000], workload.machine_size).scaled(1.5)
    for scheduler in (EASY(), EASY(sjf), EASY(backfill_order=sjf), EASY(depth=4), FCFS(), Conservative()):
        fast, plain = both(w, scheduler)
        assert fast.path == "compiled"
        assert_identical(fast, plain)
    # PC and DC on a shorter prefix: their pure paths are the slow ones here.
    w = Workload.from_records(workload.records[:2000], workload.machine_size).scaled(1.5)
    for scheduler in (PC(), PC(sjf), DC(), DC(sjf)):
        fast, plain = both(w, scheduler)
        assert fast.path == "compiled"
        assert_identical(fast, plain)


@needs_kernel
@pytest.mark.parametrize("depth", [2**62, 2**63, 10**30])
def test_a_depth_past_any_queue_is_no_limit(depth: int) -> None:
    # EASY takes any positive int; a depth past C's long long is no limit, as None is.
    w = lublin_feitelson(300, machine_size=32, seed=4).scaled(2.0)
    fast, plain = both(w, EASY(depth=depth))
    assert fast.path == "compiled"
    assert_identical(fast, plain)
    assert_same_decisions(fast, simulate(w, EASY(depth=None)))


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


class MyConservative(Conservative):
    """The same for Conservative."""


class MyPC(PC):
    """And for PC."""


class MyDC(DC):
    """And for DC."""


def by_estimate(job: Job, now: float) -> float:
    """The same keys as sjf, but a user's function: not compiled."""
    return job.estimate


@pytest.mark.parametrize(
    "scheduler",
    [
        MyEASY(),
        EASY(by_estimate),
        EASY(lxf),
        EASY(lxf, depth=3),
        EASY(backfill_order=lxf),
        EASY(backfill_order=by_estimate),
        EASY(planning_window=3600),
        EASY(max_tested=5),
        FCFS(lxf),
        FCFS(by_estimate),
        MyConservative(),
        Conservative(planning_window=3600),
        Conservative(planning_window=600, max_tested=5),
        MyPC(),
        PC(lxf),
        PC(by_estimate),
        PC(planning_window=3600),
        PC(sjf, planning_window=600, max_tested=5),
        MyDC(),
        DC(lxf),
        DC(by_estimate),
        DC(planning_window=3600),
        DC(sjf, planning_window=600, max_tested=5),
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


def test_conservative_with_its_plain_compression_runs_the_python_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The plain pass examines other profile events than the accelerated one the kernel ports.
    w = lublin_feitelson(200, machine_size=32, seed=8).scaled(1.5)
    monkeypatch.setattr(Conservative, "accelerated", False)
    assert simulate(w, Conservative()).path == "python"


def test_pc_with_its_plain_compression_runs_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same for PC: the kernel ports the accelerated compression and its counts only.
    w = lublin_feitelson(200, machine_size=32, seed=8).scaled(1.5)
    monkeypatch.setattr(PC, "accelerated", False)
    assert simulate(w, PC()).path == "python"
    assert simulate(w, PC(sjf, restart=False)).path == "python"


def test_dc_with_its_plain_compression_runs_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # And for DC: the kernel ports the accelerated compression and hole filling only.
    w = lublin_feitelson(200, machine_size=32, seed=8).scaled(1.5)
    monkeypatch.setattr(DC, "accelerated", False)
    assert simulate(w, DC()).path == "python"
    assert simulate(w, DC(sjf)).path == "python"


@needs_kernel
def test_pc_without_restart_runs_compiled() -> None:
    # restart=False (each job tried once, in order) is ported too.
    w = lublin_feitelson(200, machine_size=32, seed=8).scaled(1.5)
    assert simulate(w, PC(restart=False)).path == "compiled"


@needs_kernel
def test_a_job_running_past_its_estimate_sends_conservative_pc_and_dc_to_the_python_path() -> None:
    # No overrun policy lets one through simulate; whole_run still refuses to port what Conservative,
    # PC and DC refuse (a completion after the planned end), so that the Python path raises its error.
    from backfill.kernel._runs import whole_run

    w = lublin_feitelson(20, seed=9)
    runtime = w.column("runtime").astype(float)
    args = (w.machine_size, w.records, w.column("submit"), runtime)
    for scheduler in (Conservative(), PC(), DC()):
        estimate = runtime.copy()
        bad = np.zeros(len(w), dtype=bool)
        assert whole_run(scheduler, *args, estimate, bad, True) is not None
        estimate[3] = runtime[3] / 2
        assert whole_run(scheduler, *args, estimate, bad, True) is None
        bad[3] = True  # a rejected job is never submitted
        assert whole_run(scheduler, *args, estimate, bad, True) is not None


@needs_kernel
def test_python_path_keeps_the_kernel_and_leaves_out_whole_runs() -> None:
    w = lublin_feitelson(300, machine_size=32, seed=14).scaled(1.5)
    for scheduler in (EASY(), Conservative(), PC(sjf), DC(sjf)):
        fast = simulate(w, scheduler.copy())
        with python_path():
            assert compiled()  # the profile steps and compression loops stay compiled
            plain = simulate(w, scheduler.copy())
        assert (fast.path, plain.path) == ("compiled", "python")
        assert_identical(fast, plain)
    assert simulate(w, EASY()).path == "compiled"  # and the block's end restores whole runs
