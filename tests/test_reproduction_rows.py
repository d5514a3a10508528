"""The rows added so that every quantitative claim of Lindsay et al., Rajbhandary et al. and Srinivasan
et al. has a row: their helpers, and the rule that a claim we do not check says whether it was attempted,
and why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
__import__("_common")  # which puts every benchmarks folder on sys.path (_common.FOLDERS)

import _checks_lindsay  # noqa: E402
import _checks_rajbhandary  # noqa: E402
import _checks_srinivasan  # noqa: E402
import reproduce  # noqa: E402
from _common import RESULTS, VERDICTS  # noqa: E402
from _rajbhandary_more import mean_queue_at_arrivals  # noqa: E402
from _srinivasan_more import running_mean_range  # noqa: E402

from backfill import Job, Workload, simulate  # noqa: E402
from backfill.schedulers import FCFS  # noqa: E402

_MODULES = {"lindsay": _checks_lindsay, "rajbhandary": _checks_rajbhandary, "srinivasan": _checks_srinivasan}


def _one_after_another(n: int, *, gap: float, machine_size: int = 1) -> Workload:
    jobs = [Job(id=i, submit=gap * i, processors=1, runtime=10.0, estimate=10.0) for i in range(n)]
    return Workload.from_jobs(jobs, machine_size=machine_size)


def test_mean_queue_at_arrivals_counts_the_jobs_still_waiting() -> None:
    # One processor, a job every second, each running 10 s: job i >= 1 arrives to find i - 1 waiting.
    schedule = simulate(_one_after_another(5, gap=1.0), FCFS())
    assert mean_queue_at_arrivals(schedule) == pytest.approx((0 + 0 + 1 + 2 + 3) / 5)
    # Room for every job at once: nobody ever waits.
    assert mean_queue_at_arrivals(simulate(_one_after_another(5, gap=1.0, machine_size=5), FCFS())) == 0.0


def test_running_mean_range_leaves_out_the_warm_up() -> None:
    # Slowdowns 1, 2, ..., 20 in completion order: running means 1, 1.5, ..., 10.5; the first two left out.
    schedule = simulate(_one_after_another(20, gap=0.0), FCFS())
    spread, final = running_mean_range(schedule)
    assert final == pytest.approx(10.5)
    assert spread == pytest.approx(10.5 - 2.0)
    # A flat schedule does not oscillate at all.
    assert running_mean_range(simulate(_one_after_another(20, gap=10.0), FCFS())) == (0.0, 1.0)


#: How the why of a "not checkable" row begins: either we did not try (no trace, no run, no text of the
#: paper), or we measured and the measure cannot judge the claim (an upper bound met by code that does less).
UNCHECKED = ("not attempted, because ", "not checkable, because ")


@pytest.mark.parametrize("paper", sorted(_MODULES))
def test_every_unchecked_claim_says_whether_it_was_attempted(paper: str) -> None:
    rows = _MODULES[paper].checks(ROOT.parent / "no traces", RESULTS / paper, workers=1, run=False)
    claims = [row for row in rows if not row.setting]
    assert all(row.verdict in VERDICTS for row in claims)
    unchecked = [row for row in claims if row.verdict == "not checkable"]
    assert unchecked, paper
    for row in unchecked:
        assert row.why.startswith(UNCHECKED), (row.source, row.statement, row.why)


def test_an_upper_bound_met_by_code_that_does_less_is_not_checkable_rather_than_not_attempted() -> None:
    rows = _checks_lindsay.checks(ROOT.parent / "no traces", RESULTS / "lindsay", workers=1, run=False)
    bounds = [row for row in rows if row.source == "§4.3" and row.why.startswith(UNCHECKED[1])]
    assert {row.statement[:30] for row in bounds} == {
        "On every trace but DAS2-fs0, H",
        "Even in the worst case, schedu",
    }
    assert all(
        row.verdict == "not checkable" and "upper bound met by code that does less" in row.why
        for row in bounds
    )


@pytest.mark.parametrize("paper", sorted(reproduce.PAPERS))
def test_every_unchecked_row_of_every_paper_says_whether_it_was_attempted(paper: str) -> None:
    module = reproduce._load(paper)
    rows = module.checks(ROOT.parent / "no traces", RESULTS / paper, workers=1, run=False)
    for row in rows:
        if row.verdict == "not checkable":
            assert row.why.startswith(UNCHECKED), (row.source, row.statement, row.setting, row.why)


@pytest.mark.parametrize(
    ("paper", "statement"),
    [
        ("lindsay", "8 jobs of SDSC-DS have running time -1"),
        ("rajbhandary", "reduced the average wait of wide jobs (widest 10 %) by 10-35 %"),
        ("rajbhandary", "reduced the average bounded slowdown relative to Conservative and EASY"),
        ("srinivasan", "Scaling the adaptive threshold by 1.5 reduces the range of its oscillation"),
        ("srinivasan", "SJF-EASY achieves a lower average slowdown than FCFS-EASY"),
    ],
)
def test_the_added_rows_are_judged_from_the_committed_results(paper: str, statement: str) -> None:
    rows = _MODULES[paper].checks(ROOT.parent / "no traces", RESULTS / paper, workers=1, run=False)
    (row,) = [row for row in rows if statement in row.statement]
    assert row.verdict != "not checkable", row
    assert any(ch.isdigit() for ch in row.ours), row
