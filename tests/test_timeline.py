"""Utilization and queue length over time: exact step functions, one figure for several schedules."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg

from backfill import EASY, FCFS, Conservative, Job, lublin_feitelson
from backfill.cli import main
from backfill.errors import BackfillError
from backfill.experiments.timeline import (
    BIN_WIDTHS,
    MAX_BINS,
    bin_edges,
    bin_name,
    binned_means,
    choose_bin,
    utilization_bins,
    utilization_queue,
    utilization_queue_series,
)
from backfill.measures.metrics import METRIC_NAMES, SUMMARY_KEYS, metric_label
from backfill.measures.nodes import NODE_COLUMNS
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


# -- binning a step function ---------------------------------------------------------------------


@st.composite
def step_functions(draw: st.DrawFn) -> tuple[list[int], list[int], list[int]]:
    """A step function of whole-second times and integer values, and whole-second bin edges."""
    times = sorted(draw(st.sets(st.integers(-20, 60), max_size=12)))
    values = draw(st.lists(st.integers(-5, 50), min_size=len(times), max_size=len(times)))
    edges = sorted(draw(st.sets(st.integers(-30, 80), min_size=2, max_size=10)))
    return times, values, edges


def means_by_the_second(times: list[int], values: list[int], edges: list[int]) -> list[float]:
    """Each bin's mean, summed over unit steps (with whole-second times the function is constant on each)."""
    means = []
    for lo, hi in itertools.pairwise(edges):
        area = 0
        for u in range(lo, hi):
            before = [v for t, v in zip(times, values, strict=True) if t <= u]
            area += before[-1] if before else 0
        means.append(area / (hi - lo))
    return means


@settings(max_examples=300, deadline=None)
@given(f=step_functions())
def test_binned_means_match_a_sum_over_unit_steps(f: tuple[list[int], list[int], list[int]]) -> None:
    times, values, edges = f
    # Integer areas are exact in floating point: the means are the same numbers, not just close.
    assert binned_means(times, values, edges).tolist() == means_by_the_second(times, values, edges)


@settings(max_examples=60, deadline=None)
@given(
    w=workloads(max_jobs=15, machine_size=8),
    width=st.integers(1, 25),
    start=st.integers(-5, 10),
    past=st.integers(1, 10),
)
def test_binned_series_match_a_count_by_the_second(w: Workload, width: int, start: int, past: int) -> None:
    s = simulate(w, EASY())
    times, busy, waiting = utilization_queue_series(s)
    end = max(int(times[-1]) if times.size else start, start) + past
    edges = bin_edges(float(start), float(end), float(width))
    assert edges[0] == start and edges[-1] == end and np.all(np.diff(edges)[:-1] == width)
    counts = [naive_counts(s, float(u)) for u in range(start, end)]
    for k, (lo, hi) in enumerate(itertools.pairwise(edges.astype(int).tolist())):
        inside = counts[lo - start : hi - start]
        assert binned_means(times, busy, edges)[k] == sum(b for b, _ in inside) / (hi - lo)
        assert binned_means(times, waiting, edges)[k] == sum(q for _, q in inside) / (hi - lo)


def test_binned_means_at_the_edges() -> None:
    assert binned_means([], [], [0.0, 5.0, 9.0]).tolist() == [0.0, 0.0]  # no events: nothing busy
    # One job on 2 processors from 10 s to 40 s: its processors spread over the bins it overlaps.
    one = simulate(
        Workload.from_jobs([Job(id=1, submit=10.0, processors=2, runtime=30.0, estimate=30.0)], 4), FCFS()
    )
    times, busy, waiting = utilization_queue_series(one)
    assert binned_means(times, busy, [0.0, 20.0, 60.0]).tolist() == [1.0, 1.0]
    assert binned_means(times, waiting, [0.0, 20.0, 60.0]).tolist() == [0.0, 0.0]
    # Events on the edges: each bin holds exactly one level.
    assert binned_means([0, 10, 20], [3, 7, 0], [0, 10, 20, 30]).tolist() == [3.0, 7.0, 0.0]
    # Zero before the first event; the last value holds after the last.
    assert binned_means([10], [4], [0, 10, 20, 100]).tolist() == [0.0, 4.0, 4.0]
    # A span shorter than one bin is one bin, cut at the end.
    edges = bin_edges(0.0, 5.0, 3600.0)
    assert edges.tolist() == [0.0, 5.0]
    assert binned_means([1.0, 3.0], [2.0, 0.0], edges).tolist() == [0.8]
    # A bin boundary that is not a whole number of seconds.
    assert binned_means([0.0, 0.25], [1.0, 3.0], [0.0, 0.5]).tolist() == [2.0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([2, 1], [0, 0], [0, 5]), "strictly increasing"),
        (([1, 1], [0, 0], [0, 5]), "strictly increasing"),
        (([1], [0, 0], [0, 5]), "1 times but 2 values"),
        (([1], [0], [5]), "at least two"),
        (([1], [0], [5, 5]), "at least two, strictly increasing"),
        (([1], [float("nan")], [0, 5]), "values must be a one-dimensional array of finite numbers"),
        (([1], [0], [0, float("inf")]), "edges must be"),
        (([[1]], [[0]], [0, 5]), "times must be"),
        ((["a"], [0], [0, 5]), "times must be a one-dimensional array of finite numbers"),
        (([1], [{}], [0, 5]), "values must be a one-dimensional array of finite numbers"),
        (([1], [1j], [0, 5]), "values must be a one-dimensional array of finite numbers"),
    ],
)
def test_binned_means_refuse_what_is_not_a_step_function(args: tuple[Any, Any, Any], message: str) -> None:
    with pytest.raises(BackfillError, match=message):
        binned_means(*args)


def test_the_chosen_bin_is_the_shortest_that_keeps_the_lines_apart() -> None:
    day, week = 86_400.0, 7 * 86_400.0
    cases = [(90.0, "minute"), (3 * 3600.0, "minute"), (day, "10 minutes"), (6 * day, "hour")]
    cases += [(30 * day, "6 hours"), (150 * day, "day"), (113 * week, "week"), (5000 * week, "week")]
    for span, name in cases:
        assert choose_bin(span) == (BIN_WIDTHS[name], name), span
    for span in np.geomspace(1.0, 1e9, 400):
        width, _ = choose_bin(float(span))
        assert math.ceil(span / width) <= MAX_BINS or width == BIN_WIDTHS["week"]
        shorter = [w for w in BIN_WIDTHS.values() if w < width]
        assert all(math.ceil(span / w) > MAX_BINS for w in shorter)
    for bad in (0.0, -5.0, float("nan"), float("inf")):
        with pytest.raises(BackfillError, match="positive number of seconds"):
            choose_bin(bad)


def test_bin_edges_and_names() -> None:
    assert bin_edges(100.0, 400.0, 100.0).tolist() == [100.0, 200.0, 300.0, 400.0]  # no empty last bin
    assert bin_edges(0.0, 250.0, 100.0).tolist() == [0.0, 100.0, 200.0, 250.0]
    with pytest.raises(BackfillError, match="start < end"):
        bin_edges(5.0, 5.0, 1.0)
    with pytest.raises(BackfillError, match="positive number of seconds"):
        bin_edges(0.0, 5.0, 0.0)
    with pytest.raises(BackfillError, match="into 1,000,000,000,000,000,000 bins, too many"):
        bin_edges(0.0, 1e12, 1e-6)
    with pytest.raises(BackfillError, match=r"start, end and width in seconds, got 0\.0, 'a', 1\.0"):
        bin_edges(0.0, "a", 1.0)  # type: ignore[arg-type]
    names = {60.0: "minute", 120.0: "2 minutes", 3600.0: "hour", 5400.0: "90 minutes", 21_600.0: "6 hours"}
    names |= {
        86_400.0: "day",
        604_800.0: "week",
        1_209_600.0: "2 weeks",
        0.5: "0.5 seconds",
        61.0: "61 seconds",
    }
    assert {w: bin_name(w) for w in names} == names
    assert {bin_name(w) for w in BIN_WIDTHS.values()} == set(BIN_WIDTHS)


# -- the figure ----------------------------------------------------------------------------------


def drawn(line: Any) -> tuple[np.ndarray, np.ndarray]:
    """A step line's bin edges and one value per bin (the last point repeats the last bin's)."""
    x, y = (np.asarray(a, dtype=np.float64) for a in line.get_data())
    assert line.get_drawstyle() == "steps-post"
    return x, y[:-1]


def test_one_figure_shares_the_time_axis_between_schedules() -> None:
    w = lublin_feitelson(400, machine_size=32, seed=3, estimates="f-model")
    runs = {"FCFS": simulate(w, FCFS()), "EASY": simulate(w, EASY()), "Cons": simulate(w, Conservative())}
    fig = utilization_queue(runs)
    top, bottom = fig.axes
    assert top.get_shared_x_axes().joined(top, bottom)
    assert [line.get_label() for line in top.get_lines()] == ["FCFS", "EASY", "Cons"]
    assert len(bottom.get_lines()) == 3
    assert [a.get_color() for a in top.get_lines()] == [b.get_color() for b in bottom.get_lines()]
    assert len({a.get_color() for a in top.get_lines()}) == 3
    assert top.get_ylabel() == "processors busy (%)" and bottom.get_ylabel() == "jobs waiting"
    assert bottom.get_xlabel() in {
        f"time since the first submission ({u})" for u in ("minutes", "hours", "days", "weeks")
    }
    assert "400 jobs on 32 processors" in fig.get_suptitle()
    # The drawn steps are the exact means of the series over the chosen bins.
    edges, name = utilization_bins(runs)
    assert f"mean per {name}" in fig.get_suptitle()
    times, busy, waiting = utilization_queue_series(runs["EASY"])
    x, y = drawn(top.get_lines()[1])
    assert x[0] == edges[0] and x[-1] == times[-1]
    assert set(np.diff(x[:-1]).tolist()) <= {edges[1] - edges[0]}
    assert np.allclose(y, 100 * binned_means(times, busy, x) / 32)
    assert np.allclose(drawn(bottom.get_lines()[1])[1], binned_means(times, waiting, x))


def test_the_bin_follows_the_span_or_the_caller() -> None:
    w = lublin_feitelson(200, machine_size=32, seed=1, estimates="f-model")
    s = simulate(w, EASY())
    span = float(utilization_queue_series(s)[0][-1] - s.submit.min())
    width, name = choose_bin(span)
    for bin_width, expected, label in (
        (None, width, name),
        ("day", 86_400.0, "day"),
        (5400, 5400.0, "90 minutes"),
        (np.int64(7200), 7200.0, "2 hours"),
    ):
        fig = utilization_queue(s, bin_width=bin_width)
        x, _ = drawn(fig.axes[0].get_lines()[0])
        assert np.diff(x)[:-1].tolist() == [expected] * (x.size - 2)
        assert 0 < x[-1] - x[-2] <= expected  # the last bin is cut at the schedule's end
        assert f"mean per {label} (200 jobs on 32 processors)" in fig.get_suptitle()
    # A window shorter than one bin is one bin.
    fig = utilization_queue(s, start=float(s.submit[10]), end=float(s.submit[10]) + 100.0, bin_width="hour")
    assert drawn(fig.axes[0].get_lines()[0])[0].tolist() == [s.submit[10], s.submit[10] + 100.0]


def test_each_line_spans_its_own_schedule() -> None:
    w = lublin_feitelson(150, machine_size=16, seed=2)
    short = simulate(Workload.from_jobs(w[:50], 16), EASY())  # the first 50 jobs of the long one
    long = simulate(w, EASY())
    fig = utilization_queue({"short": short, "long": long}, bin_width="hour")
    (x_short, _), (x_long, _) = (drawn(line) for line in fig.axes[0].get_lines())
    assert x_short[-1] == utilization_queue_series(short)[0][-1]
    assert x_long[-1] == utilization_queue_series(long)[0][-1] > x_short[-1]
    assert fig.axes[1].get_xlim()[1] == x_long[-1]
    # An empty schedule keeps its legend entry, with nothing to draw.
    empty = simulate(Workload.from_jobs([], 4), FCFS())
    fig = utilization_queue({"empty": empty, "short": short})
    empty_line, short_line = fig.axes[0].get_lines()
    assert len(empty_line.get_xdata()) == 0 and len(short_line.get_xdata()) > 1
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["empty", "short"]


def test_the_legend_sits_above_the_data() -> None:
    w = lublin_feitelson(200, machine_size=32, seed=1)
    runs = [simulate(w, s) for s in (FCFS(), EASY(), Conservative(), FCFS(), EASY(), Conservative())]
    fig = utilization_queue({f"s{k}": s for k, s in enumerate(runs)})
    FigureCanvasAgg(fig).draw()
    top, bottom = fig.axes
    legend = top.get_legend()
    assert legend is not None and len(legend.get_texts()) == 6
    box = legend.get_window_extent()
    assert box.y0 >= top.get_window_extent().y1 - 1  # above the axes, over no line
    assert box.y1 <= fig.bbox.y1  # and inside the figure, under its title
    assert all(line.get_linewidth() >= 1.2 for line in (*top.get_lines(), *bottom.get_lines()))


def queued(n: int) -> Schedule:
    """``n`` jobs of the whole machine submitted at once: the queue falls from n - 1 to 0."""
    jobs = [Job(id=k + 1, submit=0.0, processors=2, runtime=600.0, estimate=600.0) for k in range(n)]
    return simulate(Workload.from_jobs(jobs, 2), FCFS())


def test_queues_far_apart_get_a_log_axis() -> None:
    long, short, close = queued(60), queued(2), queued(12)
    # The busiest hour's mean queues: 56.5 jobs against 0.5 (counted as 1) and 9.5.
    assert utilization_queue({"long": long, "short": short}).axes[1].get_yscale() == "symlog"
    assert (
        utilization_queue({"long": long, "short": short}).axes[1].get_ylabel() == "jobs waiting (log scale)"
    )
    assert utilization_queue({"long": long, "close": close}).axes[1].get_yscale() == "linear"
    assert utilization_queue(long).axes[1].get_yscale() == "linear"
    assert utilization_queue([long, short], queue_scale="linear").axes[1].get_yscale() == "linear"
    fig = utilization_queue(short, queue_scale="log")
    assert fig.axes[1].get_yscale() == "symlog"
    FigureCanvasAgg(fig).draw()
    assert "0" in [t.get_text() for t in fig.axes[1].get_yticklabels()]  # an empty queue is on the axis


def test_time_axis_unit_follows_the_span() -> None:
    w = lublin_feitelson(30, machine_size=16, seed=1)
    s = simulate(w, EASY())
    first = float(s.submit.min())
    for span, unit in ((3000.0, "minutes"), (20_000.0, "hours"), (5 * 86_400.0, "days")):
        fig = utilization_queue(s, start=first, end=first + span)
        assert fig.axes[1].get_xlabel() == f"time since the first submission ({unit})"
        ticks = [t.get_text() for t in fig.axes[1].get_xticklabels()]
        assert ticks and all(len(t) <= 5 for t in ticks)  # round numbers of the unit, not seconds


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start": 10.0, "end": 5.0}, "start < end"),
        ({"bin_width": 0}, "positive number of seconds"),
        ({"bin_width": -60.0}, "positive number of seconds"),
        ({"bin_width": float("nan")}, "positive number of seconds"),
        ({"bin_width": float("inf")}, "positive number of seconds"),
        ({"bin_width": "fortnight"}, "unknown bin 'fortnight'; known: minute, 10 minutes, hour"),
        ({"bin_width": True}, "seconds or a name"),
        ({"bin_width": 1.0}, "cuts the window of .* into .* bins; a figure draws at most 10,000"),
        ({"queue_scale": "cubic"}, "queue_scale must be"),
        ({"start": "noon"}, "the window's start must be seconds or None, got 'noon'"),
        ({"end": True}, "the window's end must be seconds or None, got True"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    s = simulate(lublin_feitelson(10, machine_size=8), FCFS())
    with pytest.raises(BackfillError, match=message):
        utilization_queue(s, **kwargs)


def test_bad_input_is_refused() -> None:
    with pytest.raises(BackfillError, match="at least one schedule"):
        utilization_queue([])
    with pytest.raises(BackfillError, match="expected a Schedule"):
        utilization_queue({"x": "not a schedule"})  # type: ignore[dict-item]
    with pytest.raises(BackfillError, match="expected a Schedule"):
        utilization_bins(["not a schedule"])  # type: ignore[list-item]


def test_every_summary_metric_has_a_readable_name() -> None:
    # (the node machines' columns are summarize's too, on a node run)
    assert set(SUMMARY_KEYS) | {"seconds"} | set(PLANNING_KEYS) | set(NODE_COLUMNS) == set(METRIC_NAMES)
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


def test_simulate_bins_the_figure_as_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = tmp_path / "figs"
    code = main(
        ["simulate", "--jobs", "100", "--scheduler", "easy", "--figures", str(figures), "--figure-bin", "6h"]
    )
    assert code == 0 and f"wrote {figures / 'utilization_queue.png'}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--figure-bin", "1d"], "backfill: error: --figure-bin applies only with --figures\n"),
        (
            ["--figure-bin", "1", "--figures", "FIGS", "--csv", "FIGS/m.csv"],
            "bins; a figure draws at most 10,000: give a wider bin\n",
        ),
    ],
)
def test_simulate_refuses_a_figure_bin_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    (tmp_path / "figs").mkdir()
    argv = ["simulate", "--jobs", "30", "--scheduler", "easy"]
    code = main(argv + [a.replace("FIGS", str(tmp_path / "figs")) for a in extra])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err
    assert list((tmp_path / "figs").iterdir()) == []  # nothing written, not even the CSV
