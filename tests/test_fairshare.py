"""Resource-equality fairness (Rajbhandary et al. 2013, §3.2): hand cases, the paper's remarks, an oracle."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, workloads

from backfill import Workload, lublin_feitelson, simulate
from backfill.measures.fairshare import fair_share_unfairness, fair_shares, resources_received
from backfill.schedule import Schedule
from backfill.schedulers import DC, EASY, FCFS, PC, Conservative, Scheduler

SCHEDULERS: list[Scheduler] = [FCFS(), EASY(), Conservative(), PC(), DC()]


def naive_fair_shares(s: Schedule, weighted: bool) -> np.ndarray:
    """Eq. 1 / 2 straight from the definition: every elementary interval, every job, at its midpoint."""
    done = np.isfinite(s.start) & np.isfinite(s.end)
    submit, start, end = s.submit, s.start, s.end
    width = s.processors.astype(float)
    times = sorted({float(t) for t in np.concatenate([submit[done], start[done], end[done]])})
    out = np.where(done, 0.0, np.nan)
    for t0, t1 in itertools.pairwise(times):
        mid = (t0 + t1) / 2
        running = [j for j in range(len(s)) if done[j] and start[j] <= mid < end[j]]
        active = [j for j in range(len(s)) if done[j] and submit[j] <= mid < end[j]]
        util = sum(width[j] for j in running)
        demand = sum(width[j] for j in active)
        for i in active:
            share = width[i] / demand * util if weighted else util / len(active)
            out[i] += (t1 - t0) * min(share, width[i])
    return out


# ---------------------------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------------------------


def three_jobs() -> Schedule:
    # FCFS on 4 processors: job 1 (2 procs) runs 0-10; job 2 (4 procs) waits until 10 and runs
    # 10-20; job 3 (1 proc, submitted at 5) waits behind job 2 and runs 20-30.
    s = simulate(make((0, 2, 10, 10), (0, 4, 10, 10), (5, 1, 10, 10), size=4), FCFS())
    assert s.start.tolist() == [0.0, 10.0, 20.0]
    return s


def test_three_jobs_unweighted() -> None:
    # interval   util  active  util/active
    # [0, 5)     2     2       1
    # [5, 10)    2     3       2/3
    # [10, 20)   4     2       2     <- job 3 (1 proc) is capped at 1 here
    # [20, 30)   1     1       1
    # F1 = 5*1 + 5*(2/3)             = 25/3   received 2*10 = 20
    # F2 = 5*1 + 5*(2/3) + 10*2      = 85/3   received 4*10 = 40
    # F3 = 5*(2/3) + 10*1 + 10*1     = 70/3   received 1*10 = 10   shortfall 40/3
    s = three_jobs()
    assert fair_shares(s).tolist() == pytest.approx([25 / 3, 85 / 3, 70 / 3], rel=1e-12)
    assert resources_received(s).tolist() == [20.0, 40.0, 10.0]
    assert fair_share_unfairness(s) == pytest.approx(40 / 9, rel=1e-12)


def test_three_jobs_weighted() -> None:
    # interval   util  P (active widths)  util/P
    # [0, 5)     2     2+4   = 6          1/3
    # [5, 10)    2     2+4+1 = 7          2/7
    # [10, 20)   4     4+1   = 5          4/5
    # [20, 30)   1     1                  1
    # W1 = 2 * (5/3 + 10/7)              = 130/21   shortfall 0
    # W2 = 4 * (5/3 + 10/7 + 8)          = 932/21   shortfall 92/21
    # W3 = 1 * (10/7 + 8 + 10)           = 408/21   shortfall 198/21
    # The weighted shares add up to the 70 processor-seconds used.
    s = three_jobs()
    assert fair_shares(s, weighted=True).tolist() == pytest.approx([130 / 21, 932 / 21, 408 / 21], rel=1e-12)
    assert fair_share_unfairness(s, weighted=True) == pytest.approx(290 / 63, rel=1e-12)


def test_paper_remark_share_capped_at_width() -> None:
    # 30 processors, a 10- and a 20-processor job active: the small job's share is 10, not 30/2 = 15.
    s = simulate(make((0, 10, 10, 10), (0, 20, 10, 10), size=30), FCFS())
    assert fair_shares(s).tolist() == [100.0, 150.0]
    assert fair_shares(s, weighted=True).tolist() == [100.0, 200.0]
    assert fair_share_unfairness(s) == 0.0
    assert fair_share_unfairness(s, weighted=True) == 0.0


def test_paper_remark_share_of_processors_in_use() -> None:
    # 100 processors, 5 active jobs, 90 in use (the fifth, 20 wide, waits): each share is 90/5 = 18.
    s = simulate(make(*[(0, w, 10, 10) for w in (20, 20, 20, 30, 20)], size=100), FCFS())
    assert s.start.tolist() == [0.0, 0.0, 0.0, 0.0, 10.0]
    # The fifth job then runs alone on [10, 20) and gets its whole width.
    assert fair_shares(s).tolist() == [180.0, 180.0, 180.0, 180.0, 180.0 + 200.0]
    assert fair_share_unfairness(s) == pytest.approx((0 + 0 + 0 + 0 + 180) / 5)


def test_zero_runtime_job_occupies_nothing() -> None:
    # Job 2 starts and ends at 5: it is never running nor active, and gets and deserves nothing.
    s = simulate(make((0, 1, 10, 10), (5, 1, 0, 0), size=2), FCFS())
    assert fair_shares(s).tolist() == [10.0, 0.0]
    assert fair_shares(s, weighted=True).tolist() == [10.0, 0.0]
    assert resources_received(s).tolist() == [10.0, 0.0]


def test_rejected_jobs_are_nan_and_do_not_count() -> None:
    # Job 2 is wider than the machine: were it counted as active, job 1's share would halve.
    s = simulate(make((0, 2, 10, 10), (0, 6, 10, 10), (0, 2, 10, 10), size=4), FCFS())
    assert s.rejected
    for weighted in (False, True):
        shares = fair_shares(s, weighted=weighted)
        assert math.isnan(shares[1])
        assert shares[[0, 2]].tolist() == [20.0, 20.0]
        assert fair_share_unfairness(s, weighted=weighted) == 0.0
    assert math.isnan(resources_received(s)[1])


def test_no_completed_job_gives_nan() -> None:
    s = simulate(make((0, 9, 10, 10), size=4), FCFS())
    assert np.isnan(fair_shares(s)).all() and np.isnan(resources_received(s)).all()
    assert math.isnan(fair_share_unfairness(s))
    assert math.isnan(fair_share_unfairness(simulate(make(size=4), FCFS()), weighted=True))


# ---------------------------------------------------------------------------------------------
# Properties over random simulations
# ---------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(w=workloads(too_wide=True), scheduler=st.sampled_from(SCHEDULERS), weighted=st.booleans())
def test_matches_the_naive_definition(w: Workload, scheduler: Scheduler, weighted: bool) -> None:
    s = simulate(w, scheduler.copy())
    np.testing.assert_allclose(
        fair_shares(s, weighted=weighted), naive_fair_shares(s, weighted), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("scheduler", [EASY(), Conservative()], ids=lambda s: s.name)
def test_matches_the_naive_definition_on_a_longer_workload(scheduler: Scheduler) -> None:
    # Some 600 intervals: ten levels of the wavelet matrix, where hypothesis's workloads reach seven.
    s = simulate(lublin_feitelson(300, machine_size=64, seed=3), scheduler)
    for weighted in (False, True):
        np.testing.assert_allclose(
            fair_shares(s, weighted=weighted), naive_fair_shares(s, weighted), rtol=1e-9
        )


@settings(max_examples=100, deadline=None)
@given(w=workloads(too_wide=True), scheduler=st.sampled_from(SCHEDULERS))
def test_shares_add_up_to_the_resources_used(w: Workload, scheduler: Scheduler) -> None:
    s = simulate(w, scheduler.copy())
    done = np.isfinite(s.end)
    received = resources_received(s)[done]
    weighted = fair_shares(s, weighted=True)[done]
    unweighted = fair_shares(s)[done]
    # Eq. 2 hands out exactly the processor-time used, so unclamped unfairness always averages 0;
    # eq. 1's cap can only withhold some.
    assert weighted.sum() == pytest.approx(received.sum(), rel=1e-9, abs=1e-9)
    assert unweighted.sum() <= received.sum() + 1e-9
    assert (unweighted <= s.processors[done] * (s.end - s.submit)[done] + 1e-9).all()
    if done.any():
        assert fair_share_unfairness(s) >= 0.0
        assert fair_share_unfairness(s, weighted=True) >= 0.0
        signed = weighted - received
        assert fair_share_unfairness(s, weighted=True) == pytest.approx(
            np.maximum(signed, 0).mean(), abs=1e-9
        )


@settings(max_examples=100, deadline=None)
@given(w=workloads(), scheduler=st.sampled_from(SCHEDULERS))
def test_weighted_cap_never_binds(w: Workload, scheduler: Scheduler) -> None:
    # Running jobs are active, so util <= the active widths and eq. 2 is p_i times ∫ util / P dt:
    # the uncapped integral (computed here without the min) equals the capped one.
    s = simulate(w, scheduler.copy())
    times = np.unique(np.concatenate([s.submit, s.start, s.end]))
    p = s.processors.astype(float)
    uncapped = np.zeros(len(s))
    for t0, t1 in itertools.pairwise(times):
        mid = (t0 + t1) / 2
        running = (s.start <= mid) & (mid < s.end)
        active = (s.submit <= mid) & (mid < s.end)
        if active.any():
            assert p[running].sum() <= p[active].sum()
            uncapped[active] += (t1 - t0) * p[active] * p[running].sum() / p[active].sum()
    np.testing.assert_allclose(fair_shares(s, weighted=True), uncapped, rtol=1e-9, atol=1e-9)
