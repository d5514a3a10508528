"""High-load phases and their utilization against a second-by-second count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import workloads

from backfill import EASY, BackfillError, Workload, simulate
from backfill.measures.phases import high_load_phases, high_load_utilization, phase_utilization


def by_the_second(s, threshold: int) -> tuple[list[list[float]], float]:  # type: ignore[no-untyped-def]
    """Phases and their utilization from the state in the middle of every whole second."""
    started = np.isfinite(s.start)
    submit, start, end = s.submit[started], s.start[started], s.end[started]
    width = s.processors[started]
    horizon = int(end.max()) + 1 if end.size else 0
    phases: list[list[float]] = []
    used = capacity = 0.0
    for t in range(horizon):
        mid = t + 0.5
        waiting = int(np.sum((submit <= mid) & (start > mid)))
        if waiting >= threshold:
            if phases and phases[-1][1] == t:
                phases[-1][1] = t + 1.0
            else:
                phases.append([float(t), t + 1.0])
            used += float(np.sum(width[(start <= mid) & (end > mid)]))
            capacity += s.workload.machine_size
    return phases, (used / capacity if capacity else float("nan"))


@settings(max_examples=200, deadline=None)
@given(w=workloads(max_jobs=25, machine_size=6), threshold=st.integers(1, 4))
def test_phases_and_utilization_match_a_count_by_the_second(w: Workload, threshold: int) -> None:
    # Every time in the strategy is a whole second, so the state is constant within each second.
    s = simulate(w, EASY())
    phases, utilization = by_the_second(s, threshold)
    assert high_load_phases(s, threshold).tolist() == phases
    if phases:
        assert high_load_utilization(s, threshold) == pytest.approx(utilization, rel=1e-12)
    else:
        assert np.isnan(high_load_utilization(s, threshold))


def test_bad_arguments() -> None:
    s = simulate(Workload.from_jobs([], 4), EASY())
    with pytest.raises(BackfillError):
        high_load_phases(s, 0)
    with pytest.raises(BackfillError):
        phase_utilization(s, np.array([[2.0, 1.0]]))
    assert np.isnan(phase_utilization(s, np.empty((0, 2))))
