"""The plain compression paths of Conservative, PC and DC against the long-queue ones: the same moves.

Each algorithm has a plain path that reads like its paper (``_compress_plain``, DC's
``_fill_plain``) and a long-queue path (``backfill.schedulers._long_queues``) chosen by the class
attribute ``accelerated``. They must give the same schedule *and* the same reservation log: every
move, in the same order, to the same start.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import narrowing_everything, workloads

from backfill import (
    DC,
    PC,
    Conservative,
    Job,
    Schedule,
    Scheduler,
    UserHistory,
    Workload,
    lublin_feitelson,
    planning,
    read_swf,
    simulate,
)
from backfill.schedulers.machinery.priorities import PRIORITIES

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


class PlainConservative(Conservative):
    accelerated = False


class PlainPC(PC):
    accelerated = False


class PlainDC(DC):
    accelerated = False


def pairs() -> list[tuple[Scheduler, Scheduler]]:
    """(long-queue, plain) pairs: Conservative, PC both ways of restarting, DC, under every priority."""
    out: list[tuple[Scheduler, Scheduler]] = [(Conservative(), PlainConservative())]
    for name in sorted(PRIORITIES):
        p = PRIORITIES[name]
        out += [(PC(p), PlainPC(p)), (DC(p), PlainDC(p))]
    out.append((PC(restart=False), PlainPC(restart=False)))
    return out


PAIRS = pairs()


def assert_same(fast: Schedule, plain: Schedule) -> None:
    assert np.array_equal(fast.start, plain.start, equal_nan=True)
    assert np.array_equal(fast.start_order, plain.start_order)
    # The reservation log, move by move (a NaN start, a withdrawn reservation, equals itself here).
    assert fast.reservations.tobytes() == plain.reservations.tobytes()


def test_the_plain_classes_take_the_plain_path() -> None:
    assert Conservative.accelerated and PC.accelerated and DC.accelerated
    assert not (PlainConservative.accelerated or PlainPC.accelerated or PlainDC.accelerated)


@pytest.mark.parametrize("narrow", [False, True], ids=["as-is", "narrow-all"])
@pytest.mark.parametrize(("fast", "plain"), PAIRS, ids=[f.name for f, _ in PAIRS])
@settings(max_examples=40, deadline=None)
@given(w=workloads(max_jobs=40, machine_size=8, accurate=False, overruns=True))
def test_plain_and_long_queue_paths_make_the_same_moves(
    fast: Scheduler, plain: Scheduler, narrow: bool, w: Workload
) -> None:
    with narrowing_everything() if narrow else contextlib.nullcontext():
        assert_same(simulate(w, fast.copy()), simulate(w, plain.copy()))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), which=st.sampled_from(range(len(PAIRS))), narrow=st.booleans())
def test_the_same_moves_on_longer_queues(seed: int, which: int, narrow: bool) -> None:
    # The model at twice its load on a small machine keeps dozens of jobs queued, so a vacated
    # interval reaches many jobs at once; f-model estimates make jobs end early and compress.
    w = lublin_feitelson(300, machine_size=32, seed=seed, estimates="f-model").scaled(2.0)
    fast, plain = PAIRS[which]
    with narrowing_everything() if narrow else contextlib.nullcontext():
        assert_same(simulate(w, fast.copy()), simulate(w, plain.copy()))


@pytest.mark.long
@pytest.mark.skipif(not TRACES.is_dir(), reason=f"the archive traces are not at {TRACES}")
@pytest.mark.parametrize(("fast", "plain"), [PAIRS[0], PAIRS[1], PAIRS[2]], ids=["Conservative", "PC", "DC"])
def test_the_same_moves_on_an_archive_trace(fast: Scheduler, plain: Scheduler) -> None:
    # The first 2,000 jobs of KTH-SP2 at twice their arrival rate: queues of hundreds of jobs, with
    # user estimates, so early completions set off compressions that move many jobs.
    workload = read_swf(TRACES / "KTH-SP2-1996-2.swf.gz")[0]
    w = Workload.from_records(workload.records[:2000], workload.machine_size).scaled(2.0)
    assert_same(simulate(w, fast.copy()), simulate(w, plain.copy()))


def _quarter(job: Job, now: float) -> float:
    """Underpredict every job, so that jobs outlive their plans and re-planning moves guarantees."""
    return job.estimate / 4


@pytest.mark.parametrize("narrow", [False, True], ids=["as-is", "narrow-all"])
@pytest.mark.parametrize(("fast", "plain"), PAIRS, ids=[f.name for f, _ in PAIRS])
@settings(max_examples=25, deadline=None)
@given(
    w=workloads(max_jobs=40, machine_size=8, accurate=False, users=3),
    window=st.sampled_from([None, 10.0]),
    predictor=st.sampled_from([_quarter, UserHistory()]),
)
def test_the_same_moves_when_planning_with_predictions_and_a_window(
    fast: Scheduler, plain: Scheduler, narrow: bool, w: Workload, window: float | None, predictor: Any
) -> None:
    # Extensions re-place guarantees and hand the space they left to the next compression as freed
    # intervals; the long-queue path must make the same moves from them as the plain one.
    fast, plain = attrs.evolve(fast, planning_window=window), attrs.evolve(plain, planning_window=window)  # type: ignore[misc]
    with narrowing_everything() if narrow else contextlib.nullcontext():
        assert_same(
            simulate(w, planning(fast, predictor=predictor, correction="steps")),
            simulate(w, planning(plain, predictor=predictor, correction="steps")),
        )
