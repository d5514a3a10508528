"""EASY's accelerations against its plain path: the same starts, in the same order, and the same log.

EASY decides on its plain path (``backfill/schedulers/easy.py``: a full pass at every decision, as
the papers state it) unless an acceleration applies: the arrivals-only shortcut
(``_easy_arrivals.py``) or, for any depth but 1, the deeper-reservation path (``_easy_depth.py``),
which has the same shortcut. ``accelerated = False`` in a subclass makes every decision a full pass
on its path. Each acceleration must give the same schedule *and* the same reservation log as the
decisions it stands for: every change, in the same order, to the same start.

Every test here runs the pure-Python path (``simulate`` would otherwise run classic EASY whole in the
compiled kernel, which ``tests/test_wholerun.py`` compares with the plain path).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from checks import trace
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import workloads

from backfill import EASY, Job, Schedule, Scheduler, Workload, lublin_feitelson, planning, read_swf, simulate
from backfill.kernel import pure_python
from backfill.schedulers.machinery.priorities import Priority, fcfs, lxf, sjf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


@pytest.fixture(autouse=True)
def _python_path() -> Iterator[None]:
    with pure_python():
        yield


PRIORITIES = [fcfs, sjf, lxf]  # lxf depends on time: no shortcut, the full pass both ways
DEPTHS = [1, 3, None]


class PlainEASY(EASY):
    accelerated = False


class Counting(EASY):
    """EASY that counts the decisions each of its paths takes."""

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self.counts = {"full": 0, "arrivals": 0}

    def schedule(self, now: float) -> list[Job]:
        self.counts["full" if self._full else "arrivals"] += 1
        return super().schedule(now)


class PlainCounting(Counting):
    accelerated = False


def through_the_profile(scheduler: EASY) -> EASY:
    """The same EASY on the deeper-reservation path even at depth 1."""
    scheduler._always_plan = True
    return scheduler


def assert_same(fast: Schedule, plain: Schedule) -> None:
    assert np.array_equal(fast.start, plain.start, equal_nan=True)
    assert np.array_equal(fast.start_order, plain.start_order)
    # The reservation log, change by change (a NaN start, a withdrawn reservation, equals itself here).
    assert fast.reservations.tobytes() == plain.reservations.tobytes()


def pairs() -> list[tuple[EASY, EASY]]:
    """(accelerated, plain) pairs: every priority at every depth, and SJBF (a backfill order)."""
    out = [(EASY(p, depth), PlainEASY(p, depth)) for p in PRIORITIES for depth in DEPTHS]
    out.append((EASY(backfill_order=sjf), PlainEASY(backfill_order=sjf)))
    out.append((EASY(lxf, backfill_order=sjf), PlainEASY(lxf, backfill_order=sjf)))
    return out


PAIRS = pairs()


def test_the_plain_class_never_takes_the_shortcut() -> None:
    # Job 1 fills the machine; jobs 2 and 3 arrive one after the other while it runs. The second
    # decision sees arrivals alone: EASY goes on from its last pass, the plain path passes again.
    jobs = [
        Job(id=1, submit=0.0, processors=4, runtime=10.0, estimate=10.0),
        Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0),
        Job(id=3, submit=2.0, processors=2, runtime=5.0, estimate=5.0),
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    assert EASY.accelerated and not PlainEASY.accelerated
    for depth in (1, 3):
        fast, plain = Counting(depth=depth), PlainCounting(depth=depth)
        assert_same(simulate(w, fast), simulate(w, plain))
        assert fast.counts["arrivals"] >= 1
        assert plain.counts["arrivals"] == 0


def test_the_plain_class_keeps_the_public_face() -> None:
    # The seam changes nothing a user sees: EASY's name, repr and parameters.
    assert type(EASY()) is EASY
    assert EASY(sjf, 4).name == "EASY(sjf, depth=4)"
    assert repr(EASY(depth=None)) == "EASY(priority=fcfs, depth=None)"
    assert PlainEASY(sjf).name == "PlainEASY(sjf)"
    assert PlainEASY().copy().accelerated is False


@pytest.mark.parametrize(("fast", "plain"), PAIRS, ids=[f.name for f, _ in PAIRS])
@settings(max_examples=25, deadline=None)
@given(
    w=workloads(max_jobs=40, machine_size=8, accurate=False, overruns=True),
    overrun=st.sampled_from(["raise_estimate", "kill"]),
)
def test_the_accelerations_decide_as_the_full_pass(
    fast: EASY, plain: EASY, w: Workload, overrun: str
) -> None:
    assert_same(simulate(w, fast.copy(), overrun=overrun), simulate(w, plain.copy(), overrun=overrun))


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    which=st.sampled_from(range(len(PAIRS))),
    load=st.sampled_from([1.0, 2.0, 4.0]),
)
def test_the_same_decisions_under_high_load(seed: int, which: int, load: float) -> None:
    # The model at up to four times its load on a small machine keeps dozens of jobs queued and
    # many arrivals between completions, so the shortcut runs often; f-model estimates make jobs
    # end early, and every completion forces a full pass.
    w = lublin_feitelson(300, machine_size=32, seed=seed, estimates="f-model").scaled(load)
    fast, plain = PAIRS[which]
    assert_same(simulate(w, fast.copy()), simulate(w, plain.copy()))


def positive_estimates(w: Workload) -> bool:
    return bool((w.column("estimate") > 0).all())


@pytest.mark.parametrize("backfill_plain", [False, True], ids=["accelerated", "plain"])
@pytest.mark.parametrize("priority", PRIORITIES, ids=lambda p: p.__name__)
@settings(max_examples=20, deadline=None)
@given(
    w=workloads(max_jobs=40, machine_size=8, overruns=True),
    overrun=st.sampled_from(["raise_estimate", "kill"]),
)
def test_depth_1_through_the_profile_is_the_plain_path(
    priority: Priority, backfill_plain: bool, w: Workload, overrun: str
) -> None:
    # The deeper-reservation path at depth 1 against the plain path, decision by decision: the same
    # starts and the same reservations after each. Jobs of zero estimate differ by design (the
    # profile starts them at once; classic EASY makes them wait for free processors), so they are
    # left out. The logs may differ within a decision: the deeper path logs a withdrawal after the
    # pass's new reservation, and none for a job overtaken and then backfilled at the same instant.
    assume(positive_estimates(w))
    deep = through_the_profile(PlainEASY(priority) if backfill_plain else EASY(priority))
    assert trace(w, deep, overrun) == trace(w, PlainEASY(priority), overrun)


def _quarter(job: Job, now: float) -> float:
    """Underpredict every job, so that jobs outlive their plans and ``extend`` re-plans them."""
    return job.estimate / 4


@pytest.mark.parametrize("correction", ["estimate", "steps"])
@pytest.mark.parametrize("depth", [1, 3], ids=str)
@settings(max_examples=15, deadline=None)
@given(w=workloads(max_jobs=40, machine_size=8, accurate=False))
def test_the_same_decisions_with_extensions(depth: int, correction: Any, w: Workload) -> None:
    fast = planning(EASY(sjf, depth), predictor=_quarter, correction=correction)
    plain = planning(PlainEASY(sjf, depth), predictor=_quarter, correction=correction)
    assert_same(simulate(w, fast), simulate(w, plain))


@functools.cache
def _ctc_prefix() -> Workload:
    workload = read_swf(TRACES / "CTC-SP2-1996-3.1-cln.swf.gz")[0]
    return Workload.from_records(workload.records[:2000], workload.machine_size).scaled(2.0)


@pytest.mark.skipif(not TRACES.is_dir(), reason=f"the archive traces are not at {TRACES}")
@pytest.mark.parametrize("depth", [1, 4], ids=str)
def test_the_same_decisions_on_an_archive_trace(depth: int) -> None:
    # The first 2,000 jobs of CTC-SP2 at twice their arrival rate: queues of hundreds of jobs, with
    # user estimates, arrivals in bursts between completions.
    w = _ctc_prefix()
    fast: Scheduler = EASY(depth=depth)
    assert_same(simulate(w, fast), simulate(w, PlainEASY(depth=depth)))
