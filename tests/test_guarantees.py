"""Every scheduler that gives guarantees keeps them, on random workloads, through backfill.testing.

Selective's promoted jobs keep theirs too (its other jobs never had one).

The default run tries a modest number of workloads per scheduler; the invariant suite
(``tests/test_invariants.py``, slow part ``python -m pytest -m slow tests/test_invariants.py``) puts
10,000 workloads through every scheduler and priority with the same checks, EASY's head reservation
checked while held. The example counts are set here explicitly, so they override conftest's
hypothesis profiles (``HYPOTHESIS_PROFILE=thorough`` does not lengthen these).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill import (
    DC,
    PC,
    AdaptiveThreshold,
    CategoryThresholds,
    Conservative,
    Scheduler,
    Selective,
    Workload,
)
from backfill.schedulers import scheduler_name
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.testing import check_scheduler, workloads

OVERRUNS = ["raise_estimate", "kill"]


def guaranteed() -> list[Scheduler]:
    """Conservative, PC and DC under every priority, and PC's one-pass variant."""
    out: list[Scheduler] = [Conservative()]
    for cls in (PC, DC):
        out += [cls(priority=PRIORITIES[p]) for p in sorted(PRIORITIES)]
    out.append(PC(restart=False))
    return out


GUARANTEED = guaranteed()
#: Selective guarantees only its promoted jobs, so its log need not cover every job that waited.
SELECTIVE = [
    Selective(2.0),
    Selective(CategoryThresholds(1.5, 3.0, 1.2, 2.0)),
    Selective(AdaptiveThreshold(factor=1.5, per_category=True)),
    Selective(2.0, PRIORITIES["lxf"]),
]


@pytest.mark.parametrize("scheduler", GUARANTEED, ids=scheduler_name)
@settings(max_examples=100, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_guarantees_are_kept(scheduler: Scheduler, w: Workload, overrun: str) -> None:
    check_scheduler(scheduler, w, overrun=overrun)  # type: ignore[arg-type]


@pytest.mark.parametrize("scheduler", SELECTIVE, ids=scheduler_name)
@settings(max_examples=100, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_promoted_jobs_keep_their_guarantees(scheduler: Scheduler, w: Workload, overrun: str) -> None:
    check_scheduler(scheduler, w, overrun=overrun, require_log=False)  # type: ignore[arg-type]
