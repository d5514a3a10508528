"""Metrics over fair start times: unfairness, skip unfairness, fair slowdown, Srinivasan's buckets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make, workloads

from backfill import EASY, Conservative, simulate
from backfill.errors import BackfillError
from backfill.experiments.fair_start import fair_start_times, srinivasan_fair_starts
from backfill.measures.fairness import (
    fair_slowdowns,
    fairness_buckets,
    skip_unfairness,
    slowdown_ratios,
    unfairness,
)
from backfill.workloads.workload import Workload

# Four serial jobs on one processor, FCFS order: starts 0, 10, 20, 30 (runtimes 10, 10, 10, 2000).
QUEUE = make((0, 1, 10, 10), (0, 1, 10, 10), (0, 1, 10, 10), (0, 1, 2000, 2000), size=1)


def test_unfairness_counts_only_late_starts_over_every_job() -> None:
    s = simulate(QUEUE, Conservative())
    assert s.start.tolist() == [0, 10, 20, 30]
    fst = [0.0, 15.0, 5.0, 40.0]  # on time, 5 early, 15 late, 10 early
    assert unfairness(s, fst) == 15 / 4
    assert skip_unfairness(s, fst) == (5 + 10) / 4


def test_jobs_without_a_fair_start_or_a_start_are_left_out() -> None:
    w = make((0, 1, 10, 10), (0, 5, 10, 10), (0, 1, 10, 10), size=1)  # the second is too wide
    s = simulate(w, Conservative())
    assert unfairness(s, [0.0, 0.0, 0.0]) == 10 / 2
    assert unfairness(s, [np.nan, 0.0, 0.0]) == 10
    assert np.isnan(unfairness(s, [np.nan, 0.0, np.nan]))
    with pytest.raises(BackfillError, match="2 fair start times for a schedule of 3 jobs"):
        unfairness(s, [0.0, 0.0])


def test_fair_slowdown_and_the_ratio_use_the_bounded_runtime() -> None:
    s = simulate(QUEUE, Conservative())
    fst = [0.0, 0.0, 40.0, 30.0]
    # Runtime 10 is at the 10 s bound; with a 60 s bound the short jobs count as 60 s long.
    np.testing.assert_allclose(fair_slowdowns(s, fst), [1.0, 1.0, 5.0, 1.015])
    np.testing.assert_allclose(fair_slowdowns(s, fst, bound=60.0), [1.0, 1.0, 100 / 60, 1.015])
    np.testing.assert_allclose(slowdown_ratios(s, fst), [1.0, 2.0, 30 / 50, 1.0])


def test_buckets_by_hand() -> None:
    # Ratios 1, 2, 0.6, 1, and the 2000 s job falls in the 15 min - 1 h class.
    table = fairness_buckets(simulate(QUEUE, Conservative()), [0.0, 0.0, 40.0, 30.0])
    assert table.buckets == ("<=1", "1-1.5", "1.5-2", "2-4", ">4")
    assert table.groups == ("all", "<=15m", "15m-1h", "1h-4h", "4h-16h", ">16h")
    assert table.counts.tolist() == [4, 3, 1, 0, 0, 0]
    rows = table.as_dict()
    assert rows["all"] == {"<=1": 75.0, "1-1.5": 0.0, "1.5-2": 25.0, "2-4": 0.0, ">4": 0.0}
    assert rows["<=15m"]["<=1"] == pytest.approx(200 / 3)
    assert rows["15m-1h"]["<=1"] == 100.0
    assert np.isnan(rows[">16h"]["<=1"])
    assert "all" in str(table) and "75.00" in str(table)


def test_bucket_edges_are_configurable_and_checked() -> None:
    s = simulate(QUEUE, Conservative())
    table = fairness_buckets(s, [0.0, 0.0, 40.0, 30.0], edges=(1.0, 3.0), classes=(100.0,))
    assert table.buckets == ("<=1", "1-3", ">3")
    assert table.groups == ("all", "<=100s", ">100s")
    with pytest.raises(BackfillError, match="increasing"):
        fairness_buckets(s, [0.0] * 4, edges=(2.0, 1.0))


@settings(max_examples=60, deadline=None)
@given(workloads(max_jobs=15, too_wide=True), st.sampled_from([10.0, 60.0]))
def test_buckets_partition_the_jobs_with_a_fair_start(w: Workload, bound: float) -> None:
    s = simulate(w, EASY())
    fair = srinivasan_fair_starts(simulate(w, Conservative()))
    table = fairness_buckets(s, fair, bound=bound)
    ratios = slowdown_ratios(s, fair, bound)
    counted = int(np.isfinite(ratios).sum())
    assert table.counts[0] == counted == table.counts[1:].sum()
    if counted:
        np.testing.assert_allclose(table.shares[0].sum(), 100.0)
        assert table.shares[0][0] == pytest.approx(100.0 * np.mean(ratios[np.isfinite(ratios)] <= 1))


@settings(max_examples=40, deadline=None)
@given(workloads(max_jobs=12))
def test_late_minus_early_is_the_mean_start_minus_fst(w: Workload) -> None:
    s = simulate(w, EASY())
    fst = fair_start_times(w, Conservative(), workers=1, relaxed=False).strict
    if len(w):
        assert unfairness(s, fst) - skip_unfairness(s, fst) == pytest.approx(float(np.mean(s.start - fst)))
