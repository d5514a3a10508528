"""Utilization and queue length over time: exact step functions, one figure for several schedules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

pytest.importorskip("matplotlib")

from backfill import EASY, FCFS, Conservative, lublin_feitelson
from backfill.cli import main
from backfill.errors import BackfillError
from backfill.experiments.timeline import utilization_queue, utilization_queue_series
from backfill.measures.metrics import METRIC_NAMES, SUMMARY_KEYS, metric_label
from backfill.measures.planning import PLANNING_KEYS
from backfill.schedule import Schedule
from backfill.simulator import simulate
from backfill.testing import workloads
from backfill.workloads.workload import Workload

pytestmark = pytest.mark.integration  # matplotlib: the integration extra


def naive_counts(s: Schedule, t: float) -> tuple[int, int]:
    """Processors busy and jobs waiting at instant ``t``, counted job by job."""
    busy = waiting = 0
    for i in range(len(s)):
        if not s.started[i]:
            continue
        if s.start[i] <= t < s.end[i]:
            busy += int(s.processors[i])
        if s.submit[i] <= t < s.start[i]:
            waiting += 1
    return busy, waiting


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=25, machine_size=8))
def test_series_match_a_count_at_every_instant(w: Workload) -> None:
    for scheduler in (FCFS(), EASY(), Conservative()):
        s = simulate(w, scheduler)
        times, busy, waiting = utilization_queue_series(s)
        assert np.all(np.diff(times) > 0)
        for t, b, q in zip(times.tolist(), busy.tolist(), waiting.tolist(), strict=True):
            assert (b, q) == naive_counts(s, t)
            assert 0 <= b <= w.machine_size
        if len(times):  # after the last event nothing runs or waits
            assert busy[-1] == 0 and waiting[-1] == 0


def test_one_figure_shares_the_time_axis_between_schedules() -> None:
    w = lublin_feitelson(400, machine_size=32, seed=3, estimates="f-model")
    runs = {"FCFS": simulate(w, FCFS()), "EASY": simulate(w, EASY()), "Cons": simulate(w, Conservative())}
    fig = utilization_queue(runs)
    top, bottom = fig.axes
    assert top.get_shared_x_axes().joined(top, bottom)
    assert [line.get_label() for line in top.get_lines()] == ["FCFS", "EASY", "Cons"]
    assert [a.get_color() for a in top.get_lines()] == [b.get_color() for b in bottom.get_lines()]
    assert top.get_ylabel() == "processors busy (%)" and bottom.get_ylabel() == "jobs waiting"
    assert bottom.get_xlabel() in {
        f"time since the first submission ({u})" for u in ("minutes", "hours", "days", "weeks")
    }
    assert "400 jobs on 32 processors" in fig.get_suptitle()
    # The drawn steps are the series: the top line is the busy share of the machine.
    times, busy, _ = utilization_queue_series(runs["EASY"])
    x, y = top.get_lines()[1].get_data()
    assert np.array_equal(np.asarray(x)[:-1], times)
    assert np.allclose(np.asarray(y)[:-1], 100 * busy / 32)


def test_time_axis_unit_follows_the_span() -> None:
    w = lublin_feitelson(30, machine_size=16, seed=1)
    s = simulate(w, EASY())
    first = float(s.submit.min())
    for span, unit in ((3000.0, "minutes"), (20_000.0, "hours"), (5 * 86_400.0, "days")):
        fig = utilization_queue(s, start=first, end=first + span)
        assert fig.axes[1].get_xlabel() == f"time since the first submission ({unit})"
        ticks = [t.get_text() for t in fig.axes[1].get_xticklabels()]
        assert ticks and all(len(t) <= 5 for t in ticks)  # round numbers of the unit, not seconds


def test_bad_input_is_refused() -> None:
    with pytest.raises(BackfillError, match="at least one schedule"):
        utilization_queue([])
    with pytest.raises(BackfillError, match="expected a Schedule"):
        utilization_queue({"x": "not a schedule"})  # type: ignore[dict-item]
    s = simulate(lublin_feitelson(10, machine_size=8), FCFS())
    with pytest.raises(BackfillError, match="start < end"):
        utilization_queue(s, start=10.0, end=5.0)


def test_every_summary_metric_has_a_readable_name() -> None:
    assert set(SUMMARY_KEYS) | {"seconds"} | set(PLANNING_KEYS) == set(METRIC_NAMES)
    for key in METRIC_NAMES:
        assert "_" not in metric_label(key, unit=False), key


def test_simulate_writes_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = tmp_path / "figs"
    code = main(
        ["simulate", "--jobs", "300", "--scheduler", "easy", "conservative", "--figures", str(figures)]
    )
    out = capsys.readouterr().out
    assert code == 0
    names = sorted(p.name for p in figures.iterdir())
    assert names == ["gantt-conservative.png", "gantt-easy.png", "utilization_queue.png"]
    for name in names:
        assert f"wrote {figures / name}" in out
        assert (figures / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
