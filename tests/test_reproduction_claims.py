"""Rules of the reproduction rows added for Vasupongayya's Fig. 2 and 3, Jin's §5.1 loads and the
abstract of Tsafrir et al., each on a hand-built case whose answer is worked out by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
__import__("_common")  # which puts every benchmarks folder on sys.path (_common.FOLDERS)

from _jin_load_claims import HIGH_SEEDS, LOW_SEEDS, _seed_load  # noqa: E402
from _vasupongayya_days import day_summaries, unpack_days  # noqa: E402
from reproduce_tsafrir import _accuracy_helps, _body  # noqa: E402

from backfill import Job, Workload, simulate  # noqa: E402
from backfill.schedulers import FCFS  # noqa: E402

DAY = 86400.0


def test_day_figures_follow_the_papers_definitions() -> None:
    # User 1 fills the 4 processors for a day and a half from t = 0; user 2's job of 2 processors
    # (submitted after an hour) and of 1 processor (on day 2) wait for it and start together.
    jobs = [
        Job(id=1, submit=0.0, processors=4, runtime=1.5 * DAY, estimate=1.5 * DAY, user=1),
        Job(id=2, submit=3600.0, processors=2, runtime=7200.0, estimate=7200.0, user=2),
        Job(id=3, submit=1.2 * DAY, processors=1, runtime=3600.0, estimate=3600.0, user=2),
    ]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    assert s.start.tolist() == [0.0, 1.5 * DAY, 1.5 * DAY]
    figures = unpack_days({"p": day_summaries(s, 0.0, 2, [1, 2])})["p"]
    one, two = figures["1"], figures["2"]
    # User 1: busy on day 1 only (its job is new then), one start, never a backlog.
    assert (one["busy"], one["median_starts"], one["max_starts"], one["backlog_run"]) == (1, 1, 1, 0)
    # User 2: busy both days (a new job, then a backlog and a new job), starts 0 then 2.
    assert (two["busy"], two["median_starts"], two["max_starts"], two["backlog_run"]) == (2, 1, 2, 1)
    assert one["four_plus"] == one["over4"] == 0
    # Day 1's demand: user 1's job could use the whole day on 4 processors (345,600 processor-
    # seconds), user 2's the 2 h of its job on 2 (14,400): user 1 asks 1.92 times the average user.
    assert one["peak_demand"] == pytest.approx(345_600 / 180_000, rel=1e-3)
    assert one["demand_days"] == two["demand_days"] == 2
    # User 1 uses more than its entitled share both days (it runs alone on the machine); user 2 less.
    assert one["share_used"] == 1.0
    assert two["share_used"] == 0.0


def _groups(loads: dict[int, float]) -> dict[str, list[dict[str, Any]]]:
    cells = [
        {"Conservative": {"cell": ["model", 10.33, seed, None, "exact"], "offered_load": load}}
        for seed, load in loads.items()
    ]
    return {"W2": cells}


def test_seed_loads_are_judged_against_the_seeds_mean() -> None:
    apart = {**dict.fromkeys(HIGH_SEEDS, 1.1), **dict.fromkeys(LOW_SEEDS, 0.9)}  # +9.0 % and -10.8 %
    ours, verdict, why = _seed_load(HIGH_SEEDS, 5.0, 15.0)(_groups(apart))
    assert verdict == "holds" and why == ""
    assert "within +5.0 to +15.0 % for 6/6" in ours
    assert _seed_load(LOW_SEEDS, -5.0, -22.5)(_groups(apart))[1] == "holds"
    same = dict.fromkeys(apart, 1.0)
    ours, verdict, why = _seed_load(HIGH_SEEDS, 5.0, 15.0)(_groups(same))
    assert verdict == "differs" and "from their mean" in why


def _cells(exact: list[float]) -> dict[tuple[str, str], dict[str, Any]]:
    names = ("CTC-SP2", "KTH-SP2", "SDSC-SP2", "SDSC-BLUE")
    cells = {}
    for name, value in zip(names, exact, strict=True):
        cells[name, "easy"] = {"figures": {"mean_bsld": 10.0}}
        cells[name, "easy_exact"] = {"figures": {"mean_bsld": value}}
    return cells


def test_the_misconception_row_compares_exact_runtimes_with_estimates() -> None:
    holds = _accuracy_helps(_cells([8.0, 9.0, 9.5, 12.0]), "mean_bsld", "mean bounded slowdown")
    assert holds.verdict == "holds"
    assert "lower on 3 of 4 traces" in holds.ours
    differs = _accuracy_helps(_cells([8.0, 11.0, 10.0, 12.0]), "mean_bsld", "mean bounded slowdown")
    assert differs.verdict == "differs"
    assert _accuracy_helps({}, "mean_bsld", "mean bounded slowdown").verdict == "not checkable"


def test_the_papers_body_is_a_not_attempted_row() -> None:
    row = _body()
    assert row.verdict == "not checkable"
    assert row.why.startswith("not attempted, because")
