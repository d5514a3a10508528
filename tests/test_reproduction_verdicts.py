"""Verdicts that follow their rule (issue 53, point 10): a row says what its verdict alone would hide
(a best that is a loss, a high load far heavier than the paper's)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _checks_srinivasan  # noqa: E402
import reproduce  # noqa: E402
from _common import RESULTS, Check  # noqa: E402
from _jin_sweep_checks import _sweep  # noqa: E402

NO_TRACES = ROOT.parent / "no traces"


def _checks(paper: str) -> list[Check]:
    """The paper's rows from the committed results, as ``reproduce.py --cached`` judges them."""
    return reproduce._load(paper).checks(NO_TRACES, RESULTS / paper, workers=1, run=False)


# A "best" that is a loss says so.


def _jin_sweeps(rr: dict[float, float]) -> dict[tuple[str, str, str, float], dict[int, dict[str, float]]]:
    sweeps: dict[tuple[str, str, str, float], dict[int, dict[str, float]]] = {
        ("W2", "", "base", 0.0): {0: {"rr_all": 10.0}}
    }
    for depth, value in rr.items():
        sweeps["W2", "G2", "lookahead", float(depth)] = {0: {"rr_all": value}}
    return sweeps


def test_a_best_depth_worse_than_conservative_says_so() -> None:
    below = lambda x, ref: x < ref  # noqa: E731
    check = _sweep("W2", "G2", "lookahead", (5, 10, 20), 30, below, "below 30", best=True)
    # Every depth worse than Conservative's 10.0 (a higher RR is a loss), 30 the least loss.
    _, verdict, why = check(_jin_sweeps({5: 12.0, 10: 12.0, 20: 11.0, 30: 10.5, 40: 11.0, 50: 12.0}))
    assert verdict == "holds"
    assert "Every depth run is worse than Conservative" in why and "smallest loss" in why
    # One depth gains over Conservative: nothing to add.
    _, verdict, why = check(_jin_sweeps({5: 12.0, 10: 12.0, 20: 11.0, 30: 9.0, 40: 11.0, 50: 12.0}))
    assert verdict == "holds" and why == ""


def test_jins_depth_30_row_says_every_depth_is_worse_than_conservative() -> None:
    rows = [
        row
        for row in _checks("jin")
        if row.statement == "At W2 with G2, looking ahead 30 jobs gives the best RR"
    ]
    (row,) = rows
    assert row.verdict == "holds"
    assert "Every depth run is worse than Conservative" in row.why


# Rows at SDSC's high load say how much heavier our x1.2 is than the paper's.


def test_srinivasans_high_load_rows_say_how_much_heavier_ours_is() -> None:
    rows = _checks_srinivasan.checks(NO_TRACES, RESULTS / "srinivasan", workers=1, run=False)
    high = [
        row
        for row in rows
        if not row.setting
        and (row.statement.startswith("SDSC, high load") or row.source == "Table 9")
        and row.source not in ("Table 7", "Table 8")
    ]
    assert len(high) >= 20
    for row in high:
        assert re.search(r"far heavier than the paper's high load: .* times the paper's", row.why), row
    exact = [row for row in high if row.source == "Fig. 3a"]
    assert exact and all("18.7 times the paper's 26.69" in row.why for row in exact)
    user = [row for row in high if row.source.startswith("Fig. 5")]
    assert user and all("12.4 times the paper's 3.92" in row.why for row in user)
