"""Every scheduler that gives guarantees keeps them, on random workloads, through backfill.testing.

The default run tries a modest number of workloads per scheduler; the slow suite
(``python -m pytest -m slow tests/test_guarantees.py``) tries 10,000 per scheduler and adds EASY, whose
head reservation is checked while held. The example counts are set here explicitly, so they override
conftest's hypothesis profiles (``HYPOTHESIS_PROFILE=thorough`` does not lengthen these).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill import DC, EASY, PC, Conservative, Scheduler, Workload
from backfill.priorities import PRIORITIES
from backfill.schedulers import scheduler_name
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
HOLDING = [EASY(priority=PRIORITIES[p]) for p in sorted(PRIORITIES)]


@pytest.mark.parametrize("scheduler", GUARANTEED, ids=scheduler_name)
@settings(max_examples=100, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_guarantees_are_kept(scheduler: Scheduler, w: Workload, overrun: str) -> None:
    check_scheduler(scheduler, w, overrun=overrun)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scheduler", "guarantees"),
    [pytest.param(s, True, id=scheduler_name(s)) for s in GUARANTEED]
    + [pytest.param(s, "while_held", id=scheduler_name(s)) for s in HOLDING],
)
@settings(max_examples=10_000, deadline=None)
@given(w=workloads(overruns=True), overrun=st.sampled_from(OVERRUNS))
def test_guarantees_are_kept_thoroughly(
    scheduler: Scheduler, guarantees: bool | str, w: Workload, overrun: str
) -> None:
    check_scheduler(scheduler, w, guarantees=guarantees, overrun=overrun)  # type: ignore[arg-type]
