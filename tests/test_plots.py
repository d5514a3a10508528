"""Plots: the artists each function draws, the lane packing, bad inputs and a missing matplotlib."""

from __future__ import annotations

import importlib
import io
import itertools
import math
import re
import sys
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import backfill.experiments
from backfill import (
    EASY,
    FCFS,
    BackfillError,
    Conservative,
    Job,
    Workload,
    fairness_buckets,
    group_summary,
    lublin_feitelson,
    per_category,
    simulate,
    sjf,
    srinivasan_fair_starts,
)
from backfill.experiments.plots import (
    category_bars,
    fairness_stacks,
    improvement_bars,
    processor_lanes,
    schedule_window,
)
from backfill.experiments.sweep import Grid, ModelWorkload, run_sweep

pytestmark = pytest.mark.integration  # matplotlib: the integration extra


@pytest.fixture(scope="module")
def improvement_rows() -> list[dict[str, Any]]:
    grid = Grid(
        [
            ModelWorkload(n_jobs=60, machine_size=16, seed=s, estimates="f-model", name=f"LF{s}")
            for s in (1, 2)
        ],
        ["Conservative", "EASY", "PC"],
        priorities=["fcfs", "sjf"],
    )
    return run_sweep(grid, workers=1).improvement("mean_wait")


@pytest.fixture(scope="module")
def workload() -> Workload:
    return lublin_feitelson(200, machine_size=32, seed=1, estimates="f-model").scaled(1.5)


@pytest.fixture(scope="module")
def schedules(workload: Workload) -> dict[str, Any]:
    return {
        "Conservative": simulate(workload, Conservative()),
        "EASY": simulate(workload, EASY()),
        "EASY-SJF": simulate(workload, EASY(priority=sjf)),
    }


def bars(ax: Any) -> list[BarContainer]:
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def heights(container: BarContainer) -> list[float]:
    return [p.get_height() for p in container.patches]


def same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(
        (math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b, strict=True)
    )


def png_bytes(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# improvement_bars
# ---------------------------------------------------------------------------------------------


def test_improvement_bars_one_container_per_scheduler_and_priority(
    improvement_rows: list[dict[str, Any]],
) -> None:
    fig = improvement_bars(improvement_rows)
    assert isinstance(fig, Figure)
    [ax] = fig.axes
    containers = bars(ax)
    assert [c.get_label() for c in containers] == ["EASY", "EASY-SJF", "PC", "PC-SJF"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["EASY", "EASY-SJF", "PC", "PC-SJF"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["LF1", "LF2"]
    for container in containers:
        series = container.get_label()
        expected = [
            r["improvement"]
            for w in ("LF1", "LF2")
            for r in improvement_rows
            if r["workload"] == w and (r["scheduler"] + ("" if r["priority"] == "fcfs" else "-SJF")) == series
        ]
        assert heights(container) == expected
    # The bars of one workload sit side by side around its tick, in series order.
    firsts = [c.patches[0].get_x() for c in containers]
    assert firsts == sorted(firsts)
    assert all(c.patches[0].get_x() + c.patches[0].get_width() <= 0.4 + 1e-9 for c in containers)
    assert any(list(line.get_ydata()) == [0, 0] for line in ax.get_lines())  # the zero line
    assert ax.get_title() == "mean wait: improvement over Conservative"
    assert png_bytes(fig).startswith(b"\x89PNG\r\n\x1a\n")


def test_improvement_bars_value_labels_and_title(improvement_rows: list[dict[str, Any]]) -> None:
    fig = improvement_bars(improvement_rows, values=True, title="waits")
    [ax] = fig.axes
    assert ax.get_title() == "waits"
    assert len(ax.texts) == len(improvement_rows)
    assert {t.get_text() for t in ax.texts} == {f"{r['improvement']:.1f}" for r in improvement_rows}


def row(workload: str, scheduler: str, improvement: float, **more: Any) -> dict[str, Any]:
    return {
        "workload": workload,
        "scheduler": scheduler,
        "priority": "fcfs",
        "improvement": improvement,
    } | more


def test_improvement_bars_several_loads_missing_bars_and_infinities() -> None:
    rows = [
        row("A", "EASY", 10.0, load=1.0),
        row("A", "EASY", -math.inf, load=1.2),
        row("B", "EASY", math.nan, load=1.0),
        row("B", "PC", 5.0, load=1.2),
    ]
    [ax] = improvement_bars(rows).axes
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["A, load 1", "A, load 1.2", "B, load 1", "B, load 1.2"]
    assert ax.get_xlabel() == "workload, load factor (times the arrival rate)"
    easy, pc = bars(ax)
    assert same(heights(easy), [10.0, math.nan, math.nan, math.nan])
    assert same(heights(pc), [math.nan, math.nan, math.nan, 5.0])
    assert [t.get_text() for t in ax.texts] == ["-inf"]
    assert ax.get_ylabel() == "improvement (%)"


def test_improvement_bars_one_huge_improvement_gets_a_log_axis(
    improvement_rows: list[dict[str, Any]],
) -> None:
    # SDSC-SP2's mean wait: FCFS loses thousands of percent, EASY and PC gain tens.
    rows = [
        row("SDSC-SP2", s, v, baseline="Conservative")
        for s, v in (("FCFS", -5788.4), ("EASY", 19.6), ("PC", 12.2))
    ]
    [ax] = improvement_bars(rows, values=True).axes
    assert ax.get_yscale() == "symlog" and ax.yaxis.get_transform().linthresh == 10.0
    assert ax.get_ylabel() == "improvement over Conservative (%, symmetric log scale)"
    assert [heights(c) for c in bars(ax)] == [[-5788.4], [19.6], [12.2]]
    assert {t.get_text() for t in ax.texts} == {"-5788.4", "19.6", "12.2"}
    lo, hi = ax.get_ylim()
    assert lo < -5788.4 and hi > 19.6
    # One group is not slanted, however long its name.
    assert [t.get_rotation() for t in ax.get_xticklabels()] == [0.0]
    # Improvements of one size stay linear; the caller decides otherwise.
    assert improvement_bars(improvement_rows).axes[0].get_yscale() == "linear"
    assert improvement_bars(rows, scale="linear").axes[0].get_yscale() == "linear"
    assert improvement_bars(improvement_rows, scale="log").axes[0].get_yscale() == "symlog"
    with pytest.raises(BackfillError, match="scale must be 'linear', 'log' or None, got 'cubic'"):
        improvement_bars(rows, scale="cubic")


def test_improvement_bars_picks_a_metric_and_draws_on_a_given_axes(
    improvement_rows: list[dict[str, Any]],
) -> None:
    bsld = [r | {"metric": "mean_bsld", "improvement": 1.0} for r in improvement_rows]
    with pytest.raises(BackfillError, match="several metrics"):
        improvement_bars(improvement_rows + bsld)
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert improvement_bars(improvement_rows + bsld, metric="mean_bsld", ax=right) is fig
    assert not bars(left) and all(heights(c) == [1.0, 1.0] for c in bars(right))
    sub = Figure().subfigures(1, 2)[1]
    assert improvement_bars(improvement_rows, ax=sub.add_subplot()) is sub.figure


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([], "no improvement rows"),
        ([{"workload": "A", "improvement": 1.0}], "need workload, scheduler and improvement"),
        (["not a row"], "need workload, scheduler and improvement"),
        ([row("A", "EASY", 1.0), row("A", "EASY", 2.0)], "two rows for workload 'A' and scheduler 'EASY'"),
        ([row("A", "EASY", 1.0, baseline="X"), row("B", "EASY", 1.0, baseline="Y")], "several baselines"),
    ],
)
def test_improvement_bars_bad_rows(rows: list[Any], message: str) -> None:
    with pytest.raises(BackfillError, match=message):
        improvement_bars(rows)


def test_improvement_bars_unknown_metric(improvement_rows: list[dict[str, Any]]) -> None:
    with pytest.raises(BackfillError, match="for metric 'max_wait'"):
        improvement_bars(improvement_rows, metric="max_wait")


# ---------------------------------------------------------------------------------------------
# category_bars
# ---------------------------------------------------------------------------------------------


def test_category_bars_one_series_per_schedule(schedules: dict[str, Any]) -> None:
    tables = {name: per_category(s) for name, s in schedules.items()}
    fig = category_bars(tables, metric="mean_wait")
    [ax] = fig.axes
    containers = bars(ax)
    assert [c.get_label() for c in containers] == list(schedules)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["SN", "SW", "LN", "LW"]
    for container, table in zip(containers, tables.values(), strict=True):
        assert same(heights(container), [table[c]["mean_wait"] for c in ("SN", "SW", "LN", "LW")])
    assert ax.get_yscale() == "linear" and ax.get_ylabel() == "mean wait (s)"


def test_category_bars_single_table_log_scale_and_group_summary(schedules: dict[str, Any]) -> None:
    s = schedules["EASY"]
    [ax] = category_bars(per_category(s), log=True).axes
    [container] = bars(ax)
    assert ax.get_legend() is None and ax.get_yscale() == "log"
    assert same(heights(container), [per_category(s)[c]["mean_bsld"] for c in ("SN", "SW", "LN", "LW")])
    by_width = group_summary(s, np.where(s.processors > 4, "wide", "narrow"))
    [ax] = category_bars(by_width, metric="share").axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["narrow", "wide"]
    assert sum(heights(bars(ax)[0])) == pytest.approx(100.0)


def test_category_bars_improvement_over_a_baseline(schedules: dict[str, Any]) -> None:
    tables = {name: per_category(s) for name, s in schedules.items()}
    [ax] = category_bars(tables, baseline="Conservative").axes
    assert [c.get_label() for c in bars(ax)] == ["EASY", "EASY-SJF"]
    base, easy = tables["Conservative"], tables["EASY"]
    expected = [100 * (base[c]["mean_bsld"] - easy[c]["mean_bsld"]) / base[c]["mean_bsld"] for c in base]
    assert heights(bars(ax)[0]) == pytest.approx(expected, nan_ok=True)
    assert ax.get_ylabel() == "mean bounded slowdown: improvement over Conservative (%)"


@pytest.mark.parametrize(
    ("table", "kwargs", "message"),
    [
        ({}, {}, "non-empty mapping"),
        ({"EASY": {"SN": 3.0}}, {}, "group 'EASY' has no statistic 'mean_bsld'"),
        ({"A": {"SN": {"mean_bsld": 1.0}}, "B": {"mean_bsld": 1.0}}, {}, "category_bars needs"),
        ({"SN": {"jobs": 1.0}}, {}, "no statistic 'mean_bsld'"),
        ({"A": {"SN": {"mean_bsld": 1.0}}}, {"baseline": "B"}, "no table labelled 'B'"),
        ({"A": {"SN": {"mean_bsld": 1.0}}}, {"baseline": "A"}, "needs another table"),
    ],
)
def test_category_bars_bad_input(table: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(BackfillError, match=message):
        category_bars(table, **kwargs)


# ---------------------------------------------------------------------------------------------
# fairness_stacks
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def buckets(schedules: dict[str, Any]) -> dict[str, Any]:
    fst = srinivasan_fair_starts(schedules["Conservative"])
    return {name: fairness_buckets(s, fst) for name, s in schedules.items()}


def test_fairness_stacks_sum_to_one_per_scheduler(buckets: dict[str, Any]) -> None:
    fig = fairness_stacks(buckets)
    [ax] = fig.axes
    containers = bars(ax)
    names = ["<=1", "1-1.5", "1.5-2", "2-4", ">4"]
    assert [c.get_label() for c in containers] == names
    assert [t.get_text() for t in ax.get_legend().get_texts()] == names[::-1]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(buckets)
    stacks = np.array([heights(c) for c in containers])  # bucket x scheduler
    assert stacks.sum(axis=0) == pytest.approx([1.0] * len(buckets))
    for k, b in enumerate(buckets.values()):
        assert stacks[:, k] == pytest.approx(b.shares[0] / 100)
    # Each bucket sits on the ones below it.
    for lower, upper in itertools.pairwise(containers):
        for p, q in zip(lower.patches, upper.patches, strict=True):
            assert q.get_y() == pytest.approx(p.get_y() + p.get_height())
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_fairness_stacks_of_a_runtime_class(buckets: dict[str, Any]) -> None:
    b = next(iter(buckets.values()))
    group = next(g for g, n in zip(b.groups, b.counts, strict=True) if g != "all" and n > 0)
    [ax] = fairness_stacks(buckets, group=group).axes
    stacks = np.array([heights(c) for c in bars(ax)])
    assert stacks.sum(axis=0) == pytest.approx([1.0] * len(buckets))
    assert group in ax.get_title()


def test_fairness_stacks_bad_input(buckets: dict[str, Any], schedules: dict[str, Any]) -> None:
    with pytest.raises(BackfillError, match="non-empty"):
        fairness_stacks({})
    with pytest.raises(BackfillError, match="expected FairnessBuckets"):
        fairness_stacks({"EASY": {"all": 1.0}})  # type: ignore[dict-item]
    with pytest.raises(BackfillError, match="unknown group 'tiny'"):
        fairness_stacks(buckets, group="tiny")
    other = fairness_buckets(
        schedules["EASY"], srinivasan_fair_starts(schedules["Conservative"]), edges=[2.0]
    )
    with pytest.raises(BackfillError, match="different edges"):
        fairness_stacks(buckets | {"other": other})


# ---------------------------------------------------------------------------------------------
# processor_lanes and schedule_window
# ---------------------------------------------------------------------------------------------


def job(i: int, submit: float, width: int, runtime: float, estimate: float | None = None) -> Job:
    return Job(id=i, submit=submit, processors=width, runtime=runtime, estimate=estimate or runtime)


def rects(ax: Any, kind: str) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle) and (p.get_gid() or "").startswith(kind + ":")]


def overlap(a: Rectangle, b: Rectangle) -> bool:
    ax0, ay0, aw, ah = a.get_x(), a.get_y(), a.get_width(), a.get_height()
    bx0, by0, bw, bh = b.get_x(), b.get_y(), b.get_width(), b.get_height()
    return ax0 < bx0 + bw and bx0 < ax0 + aw and ay0 < by0 + bh and by0 < ay0 + ah


def assert_packed(boxes: list[Rectangle], start: float, end: float, size: int) -> None:
    for r in boxes:
        assert start <= r.get_x() and r.get_x() + r.get_width() <= end
        assert r.get_y() >= 0 and r.get_y() + r.get_height() <= size and r.get_height() >= 1
    for a, b in itertools.combinations(boxes, 2):
        assert not overlap(a, b), (a.get_gid(), b.get_gid())


def test_lanes_split_a_job_when_the_free_lanes_are_fragmented() -> None:
    jobs = [job(1, 0, 1, 10), job(2, 0, 1, 20), job(3, 0, 1, 10), job(4, 0, 1, 20), job(5, 0, 2, 5)]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    assert processor_lanes(s) == {0: [(0, 1)], 1: [(1, 1)], 2: [(2, 1)], 3: [(3, 1)], 4: [(0, 1), (2, 1)]}
    # A window is packed on its own: only its jobs take lanes.
    assert processor_lanes(s, start=10, end=12) == {1: [(0, 1)], 3: [(1, 1)], 4: [(2, 2)]}
    [ax] = schedule_window(s, start=0, end=30).axes
    assert [r.get_gid() for r in rects(ax, "job")] == ["job:1", "job:2", "job:3", "job:4", "job:5", "job:5"]
    assert_packed(rects(ax, "job"), 0, 30, 4)


def test_lanes_leave_out_zero_runtime_and_unstarted_jobs() -> None:
    jobs = [job(1, 0, 2, 0), job(2, 0, 2, 10), job(3, 0, 9, 10)]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    assert processor_lanes(s) == {1: [(0, 2)]}


def test_window_of_a_real_schedule_is_a_feasible_packing(schedules: dict[str, Any]) -> None:
    for s in schedules.values():
        size = s.workload.machine_size
        start, end = float(np.nanpercentile(s.start, 40)), float(np.nanpercentile(s.start, 60))
        [ax] = schedule_window(s, start=start, end=end, reservations=False).axes
        boxes = rects(ax, "job")
        assert_packed(boxes, start, end, size)
        running = np.flatnonzero((s.start < end) & (s.end > start) & (s.runtime > 0))
        assert {r.get_gid() for r in boxes} == {f"job:{s.workload.column('id')[i]}" for i in running}
        for i in running:
            gid = f"job:{s.workload.column('id')[i]}"
            assert sum(r.get_height() for r in boxes if r.get_gid() == gid) == s.processors[i]
        # At any instant the lanes in use are at most the machine.
        for t in np.linspace(start, end, 50):
            assert sum(r.get_height() for r in boxes if r.get_x() <= t < r.get_x() + r.get_width()) <= size
        assert not rects(ax, "reservation") and ax.get_xlim() == (start, end) and ax.get_ylim() == (0, size)


def test_conservative_reservations_at_a_busy_instant(schedules: dict[str, Any]) -> None:
    s = schedules["Conservative"]
    submit = s.submit
    queued = [((submit <= t) & ~(s.start <= t)).sum() for t in submit]
    at = float(submit[int(np.argmax(queued))])
    start, end = at - 1000.0, at + 1e6
    [ax] = schedule_window(s, start=start, end=end, at=at).axes
    held = rects(ax, "reservation")
    ids = s.workload.column("id")
    waiting = {f"reservation:{ids[i]}" for i in np.flatnonzero((submit <= at) & ~(s.start <= at))}
    assert len(waiting) >= 3 and {r.get_gid() for r in held} == waiting  # every queued job holds one
    assert_packed(held, start, end, s.workload.machine_size)
    assert any(list(line.get_xdata()) == [at, at] for line in ax.get_lines())
    # The instant reads in the axis's unit, counted from the first submission.
    unit = {"minutes": 60, "hours": 3600, "days": 86_400}[ax.get_xlabel().split("(")[1].rstrip(")")]
    shown = f"{(at - float(s.submit.min())) / unit:.4g}"
    assert [t.get_text() for t in ax.get_legend().get_texts()][-1].startswith(f"reservation held at {shown} ")


def test_reservations_by_hand() -> None:
    # A runs on 3 of 4 processors; B (2 wide) is reserved at A's planned end, 100; C backfills on the
    # free lane. At 5 the plan is B at [100, 150) on lanes 0-1, the lowest free then.
    jobs = [job(1, 0, 3, 60, 100), job(2, 1, 2, 50), job(3, 2, 1, 10)]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), Conservative())
    assert s.start.tolist() == [0.0, 60.0, 2.0]
    [ax] = schedule_window(s, start=0, end=200, at=5).axes
    [planned] = rects(ax, "reservation")
    assert planned.get_gid() == "reservation:2"
    assert (planned.get_x(), planned.get_width(), planned.get_y(), planned.get_height()) == (100, 50, 0, 2)
    assert not planned.get_fill() and planned.get_hatch() == "//"
    [b] = [r for r in rects(ax, "job") if r.get_gid() == "job:2"]
    assert (b.get_x(), b.get_width(), b.get_height()) == (60, 50, 2) and b.get_alpha() == pytest.approx(0.35)
    assert [t.get_text() for t in ax.texts] == ["1", "3", "2", " 2"]
    # After B started there is nothing left to plan; without a log there is nothing to draw.
    assert not rects(schedule_window(s, start=0, end=200, at=60).axes[0], "reservation")
    plain = simulate(Workload.from_jobs(jobs, machine_size=4), Conservative(), record_reservations=False)
    assert not rects(schedule_window(plain, start=0, end=200, at=5).axes[0], "reservation")
    assert not rects(schedule_window(s, start=0, end=200, at=5, reservations=False).axes[0], "reservation")
    assert not schedule_window(s, start=0, end=200, labels=False).axes[0].texts


def test_window_bad_input(schedules: dict[str, Any]) -> None:
    s = schedules["EASY"]
    with pytest.raises(BackfillError, match="finite start < end"):
        schedule_window(s, start=10, end=10)
    with pytest.raises(BackfillError, match="finite start < end"):
        schedule_window(s, start=0, end=math.inf)
    with pytest.raises(BackfillError, match="must lie in the window"):
        schedule_window(s, start=0, end=10, at=10)
    with pytest.raises(BackfillError, match="expected a Schedule"):
        schedule_window("schedule", start=0, end=10)  # type: ignore[arg-type]
    with pytest.raises(BackfillError, match="expected a Schedule"):
        processor_lanes(None)  # type: ignore[arg-type]


def test_an_infeasible_schedule_is_refused() -> None:
    s = simulate(Workload.from_jobs([job(1, 0, 3, 10), job(2, 0, 3, 10)], machine_size=4), FCFS())
    overlapping = attrs.evolve(s, start=np.array([0.0, 5.0]), end=np.array([10.0, 15.0]))
    with pytest.raises(BackfillError, match="only 1 of 4 are free: the schedule is infeasible"):
        processor_lanes(overlapping)


# ---------------------------------------------------------------------------------------------
# Without matplotlib
# ---------------------------------------------------------------------------------------------


def test_without_matplotlib(monkeypatch: pytest.MonkeyPatch, improvement_rows: list[dict[str, Any]]) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    # Both are restored afterwards, so that other tests keep the module imported with matplotlib.
    monkeypatch.setattr(backfill.experiments, "plots", sys.modules["backfill.experiments.plots"])
    monkeypatch.delitem(sys.modules, "backfill.experiments.plots")
    plots = importlib.import_module("backfill.experiments.plots")  # importing needs no matplotlib
    s = simulate(Workload.from_jobs([job(1, 0, 1, 10)], machine_size=2), FCFS())
    calls = [
        lambda: plots.improvement_bars(improvement_rows),
        lambda: plots.category_bars({"SN": {"mean_bsld": 1.0}}),
        lambda: plots.fairness_stacks({"FCFS": fairness_buckets(s, [0.0])}),
        lambda: plots.schedule_window(s, start=0, end=10),
    ]
    for call in calls:
        with pytest.raises(BackfillError, match=r"pip install '\.\[plot\]'"):
            call()
    assert plots.processor_lanes(s) == {0: [(0, 1)]}


def test_the_example_of_docs_plots_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "plots.md").read_text(encoding="utf-8")
    examples = re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    assert len(examples) == 2
    monkeypatch.chdir(tmp_path)
    for example in examples:
        exec(compile(example, "docs/plots.md", "exec"), {})
    for name in ("improvement", "categories", "fairness", "window", "utilization_queue", "weekly"):
        assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_window_far_into_a_trace_says_where_and_keys_only_a_plan() -> None:
    # Two jobs a fortnight apart: a two-hour window at the second reads in hours, and the
    # title says how far in it is in days; with only jobs as run there is nothing to key.
    jobs = [job(1, 0, 1, 60), job(2, 14 * 86_400, 1, 3600)]
    s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
    [ax] = schedule_window(s, start=14 * 86_400, end=14 * 86_400 + 7200, reservations=False).axes
    assert ax.get_title() == "FCFS(fcfs): jobs running from 336 to 338 hours (14 days in)"
    assert ax.get_legend() is None
    [ax] = schedule_window(s, start=0, end=7200, reservations=False).axes
    assert ax.get_title() == "FCFS(fcfs): jobs running from 0 to 2 hours"


def test_improvement_bars_of_replications_draw_the_mean_and_its_interval(
    improvement_rows: list[dict[str, Any]],
) -> None:
    from backfill.experiments.replications import replication_summary

    grid = Grid(
        [ModelWorkload(n_jobs=60, machine_size=16, seed=s, name=f"LF seed={s}") for s in (1, 2, 3)],
        ["Conservative", "EASY", "FCFS"],
    )
    result = run_sweep(grid, workers=1)
    summary = replication_summary(
        result, ["mean_wait"], {f"LF seed={s}": "LF" for s in (1, 2, 3)}, baseline="Conservative"
    )
    fig = improvement_bars([r | {"baseline": "Conservative"} for r in summary], values=True)
    [ax] = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["LF"]  # one group: the configuration
    drawn = {c.get_label(): heights(c) for c in bars(ax)}
    means = {r["scheduler"]: r for r in summary if r["kind"] == "improvement"}
    assert drawn == {s: [means[s]["mean"]] for s in ("EASY", "FCFS")}
    # Each bar's error bar spans the table's interval, low to high.
    segments = [s for c in bars(ax) if c.errorbar for s in c.errorbar.lines[2][0].get_segments()]
    spans = sorted(y for s in segments for y in s[:, 1].tolist())
    assert spans == pytest.approx(sorted(means[s][e] for s in ("EASY", "FCFS") for e in ("low", "high")))
    assert ax.get_title().splitlines() == [
        "mean wait: improvement over Conservative",
        "bars: mean of 3 replications; error bars: 95 % confidence interval of the mean",
    ]
    shown = {t.get_text() for t in ax.texts}
    easy = means["EASY"]
    assert f"{easy['mean']:.1f} ± {easy['half_width']:.1f}".replace("-", "\N{MINUS SIGN}") in shown


@pytest.mark.parametrize("half", [-1.0, "7.5", None, True])
def test_improvement_bars_refuse_a_half_width_that_is_no_interval(half: object) -> None:
    rows = [{"workload": "w", "scheduler": "EASY", "metric": "mean_wait", "kind": "improvement", "n": 3.0,
             "mean": 5.0, "half_width": half}]  # fmt: skip
    with pytest.raises(BackfillError, match="half_width must be a number >= 0 or NaN"):
        improvement_bars(rows)


def test_improvement_bars_without_an_interval_draw_no_error_bar() -> None:
    rows = [
        {"workload": "w", "scheduler": "EASY", "metric": "mean_wait", "kind": "improvement", "n": 1.0,
         "mean": 5.0, "half_width": math.nan},
        {"workload": "w", "scheduler": "EASY", "metric": "mean_wait", "kind": "value", "n": 1.0,
         "mean": 100.0, "half_width": math.nan},
    ]  # fmt: skip
    [ax] = improvement_bars(rows, values=True).axes
    [container] = bars(ax)
    assert heights(container) == [5.0]
    assert [t.get_text() for t in ax.texts] == ["5.0"]
