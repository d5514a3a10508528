"""Gantt figures: the window, the color classes, occupancy and the packing (no matplotlib), then drawing."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backfill import Job, Workload, simulate
from backfill.cli import main
from backfill.errors import BackfillError, ParameterError
from backfill.experiments.gantt import (
    JOB_COLORS,
    SIZE_CLASSES,
    GanttWindow,
    color_classes,
    gantt_window,
    occupancy,
    processor_lanes,
)
from backfill.schedulers import EASY, FCFS
from backfill.workloads.lublin import lublin_feitelson


def job(i: int, submit: float, width: int, runtime: float, **fields: Any) -> Job:
    return Job(id=i, submit=submit, processors=width, runtime=runtime, estimate=runtime, **fields)


HOUR, DAY = 3600.0, 86_400.0


@pytest.fixture(scope="module")
def week() -> Any:
    """A week of one-hour jobs, one an hour, on a machine of 4."""
    jobs = [job(i, i * HOUR, 1 + i % 4, HOUR, user=i % 3) for i in range(7 * 24)]
    return simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())


# ---------------------------------------------------------------------------------------------
# The window
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2d", GanttWindow(None, None, 2 * DAY)),
        ("36h", GanttWindow(None, None, 36 * HOUR)),
        ("10d:12d", GanttWindow(10 * DAY, 12 * DAY, 2 * DAY)),
        ("0:90min", GanttWindow(0.0, 5400.0, 5400.0)),
        ("0d:0.5h", GanttWindow(0.0, 1800.0, 1800.0)),
        (":1h", GanttWindow(0.0, HOUR, HOUR)),
        ("3d:", GanttWindow(3 * DAY, None, 2 * DAY)),
        (" ALL ", GanttWindow(0.0, None, math.inf)),
    ],
)
def test_window_text(text: str, expected: GanttWindow) -> None:
    assert GanttWindow.from_text(text) == expected


@pytest.mark.parametrize(
    "text", ["", "x", "2x", "0", "-1d", "1d:-2d", "2d:1d", "1d:1d", "1:2:3", "0x:1d", "d:1d", "0:0h"]
)
def test_window_text_refused(text: str) -> None:
    with pytest.raises(ParameterError):
        GanttWindow.from_text(text)


def test_window_on_a_schedule(week: Any) -> None:
    middle = float(week.submit[len(week) // 2])
    assert gantt_window(week) == (middle, middle + 2 * DAY)
    assert gantt_window(week, "6h") == (middle, middle + 6 * HOUR)
    assert gantt_window(week, "1d:2d") == (DAY, 2 * DAY)
    assert gantt_window(week, GanttWindow(DAY, None, 2 * DAY)) == (DAY, 3 * DAY)
    last = float(np.nanmax(week.end))
    assert gantt_window(week, "all") == (0.0, last)
    assert gantt_window(week, "6d:") == (6 * DAY, last)  # a default length stops at the last end
    assert gantt_window(week, "6d:9d") == (6 * DAY, 9 * DAY)  # an end given is kept
    assert gantt_window(week, "30d") == (middle, last)
    with pytest.raises(BackfillError, match="starts 8 days after the first submission, when the schedule"):
        gantt_window(week, "8d:")
    with pytest.raises(BackfillError, match="expected a Schedule"):
        gantt_window("week")  # type: ignore[arg-type]


def test_window_counts_from_the_first_submission() -> None:
    s = simulate(
        Workload.from_jobs([job(1, 5000.0, 1, 100.0), job(2, 9000.0, 1, 100.0)], machine_size=1), FCFS()
    )
    assert gantt_window(s, "0:1h") == (5000.0, 5000.0 + HOUR)


# ---------------------------------------------------------------------------------------------
# Color classes
# ---------------------------------------------------------------------------------------------


def test_classes_by_user_rank_by_area_in_the_window() -> None:
    # User 1 has the most area overall, user 2 the most in [100, 200).
    jobs = [job(1, 0, 4, 100, user=1), job(2, 100, 2, 100, user=2), job(3, 100, 1, 100, user=3)]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    whole = color_classes(s, "user")
    assert whole.labels == ("user 1", "user 2", "user 3") and whole.of_row.tolist() == [0, 1, 2]
    late = color_classes(s, "user", start=100, end=200)
    assert late.labels == ("user 2", "user 3") and late.of_row.tolist() == [-1, 0, 1]
    assert not late.other and late.title == "user"


def test_classes_beyond_top_are_other_and_one_left_over_keeps_its_own() -> None:
    jobs = [job(i, 0, 1, 10 * (5 - i), user=u) for i, u in enumerate([7, 8, 9, -1])]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    c = color_classes(s, "user", top=2)
    assert c.labels == ("user 7", "user 8", "other users") and c.other
    assert c.of_row.tolist() == [0, 1, 2, 2]
    assert color_classes(s, "user", top=3).labels == ("user 7", "user 8", "user 9", "user unknown")
    assert color_classes(s, "queue").labels == ("queue unknown",)
    grouped = color_classes(s, "group", top=1)
    assert grouped.labels == ("group unknown",) and not grouped.other


def test_classes_by_size_are_powers_of_two() -> None:
    widths = [1, 2, 3, 4, 7, 16, 64]
    jobs = [job(i, 0, w, 10) for i, w in enumerate(widths)]
    s = simulate(Workload.from_jobs(jobs, machine_size=128), FCFS())
    c = color_classes(s, "size")
    assert c.labels == ("1", "2-3", "4-7", "16-31", "64-127") and c.title == "processors"
    assert c.of_row.tolist() == [0, 1, 1, 2, 2, 3, 4]


def test_classes_by_size_widen_past_the_limit() -> None:
    widths = [2**k for k in range(17)]  # 1 to 65,536: 17 powers of 2, too many
    jobs = [job(i, 0, w, 10) for i, w in enumerate(widths)]
    s = simulate(Workload.from_jobs(jobs, machine_size=2**17), FCFS())
    c = color_classes(s, "size")
    assert len(c.labels) <= SIZE_CLASSES
    assert c.labels == ("1-7", "8-63", "64-511", "512-4095", "4096-32767", "32768-262143")
    assert np.all(np.diff(c.of_row) >= 0)  # wider jobs, later classes


def test_classes_by_job_cycle_and_cover_every_row(week: Any) -> None:
    c = color_classes(week, "job", start=0, end=HOUR)
    assert len(c.labels) == JOB_COLORS and c.of_row.tolist() == [i % JOB_COLORS for i in range(len(week))]
    # A job queued in the window (its reservation drawn there) has its user's class too.
    users = color_classes(week, "user", start=0, end=3 * HOUR, top=1)  # users 0, 1, 2 on 1, 2, 3
    assert users.labels == ("user 2", "other users") and users.of_row[99:102].tolist() == [1, 1, 0]
    # Without a class for the rest, a value the window lacks has none.
    pair = color_classes(week, "user", start=0, end=2 * HOUR, top=1)
    assert pair.labels == ("user 1", "user 0") and pair.of_row[:3].tolist() == [1, 0, -1]


def test_classes_refuse_bad_arguments(week: Any) -> None:
    with pytest.raises(BackfillError, match="cannot color by 'id'"):
        color_classes(week, "id")
    with pytest.raises(BackfillError, match="top must be an int of at least 1"):
        color_classes(week, "user", top=0)
    with pytest.raises(BackfillError, match="expected a Schedule"):
        color_classes(None, "user")  # type: ignore[arg-type]
    with pytest.raises(BackfillError, match="the window needs start < end"):
        color_classes(week, "user", start=math.nan)


def test_classes_of_a_window_where_no_job_runs_are_none(week: Any) -> None:
    # A window after the last job (or in an idle stretch) has no job to rank: no class, no error.
    idle = color_classes(week, "user", start=30 * DAY, end=31 * DAY)
    assert idle.labels == () and (idle.of_row == -1).all()


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"start": math.nan}, "GanttWindow.start must be a finite number of seconds >= 0"),
        ({"start": -5.0}, "GanttWindow.start must be a finite number of seconds >= 0"),
        ({"end": math.inf}, "GanttWindow.end must be a finite number of seconds >= 0"),
        ({"length": -5.0}, "GanttWindow.length must be seconds > 0"),
        ({"length": math.nan}, "GanttWindow.length must be seconds > 0"),
        ({"length": "2d"}, "GanttWindow.length must be seconds > 0"),
        ({"start": 100.0, "end": 50.0, "length": 1.0}, "GanttWindow.end must come after start"),
    ],
)
def test_window_refuses_bad_values(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(ParameterError, match=words):
        GanttWindow(**fields)


def test_window_of_another_type_is_refused(week: Any) -> None:
    with pytest.raises(BackfillError, match="expected a GanttWindow, its text or None, got int"):
        gantt_window(week, 123)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Occupancy
# ---------------------------------------------------------------------------------------------


def test_occupancy_adds_up_to_the_processors_in_use() -> None:
    s = simulate(lublin_feitelson(300, machine_size=64, seed=3), EASY())
    start, end = float(np.nanpercentile(s.start, 30)), float(np.nanpercentile(s.start, 70))
    classes = color_classes(s, "user", start=start, end=end, top=3)
    times, used = occupancy(s, classes, start=start, end=end)
    assert times[0] == start and times[-1] == end and np.all(np.diff(times) > 0)
    assert used.shape == (len(classes.labels), times.size - 1)
    for k, t in enumerate(times[:-1]):
        running = (s.start <= t) & (s.end > t) & (s.runtime > 0)
        assert used[:, k].sum() == s.processors[running].sum()
        for c in range(len(classes.labels)):
            assert used[c, k] == s.processors[running & (classes.of_row == c)].sum()
    with pytest.raises(BackfillError, match="finite start < end"):
        occupancy(s, classes, start=end, end=start)


# ---------------------------------------------------------------------------------------------
# The packing
# ---------------------------------------------------------------------------------------------


def test_lanes_take_the_best_fitting_run() -> None:
    # At 10, lanes 0 and 3-4 are free: a one-wide job takes lane 0, the run that fits best, and
    # leaves lanes 3-4 whole for the two-wide job after it.
    jobs = [job(1, 0, 1, 10), job(2, 0, 2, 20), job(3, 0, 2, 10), job(4, 10, 1, 10), job(5, 10, 2, 10)]
    s = simulate(Workload.from_jobs(jobs, machine_size=5), FCFS())
    lanes = processor_lanes(s)
    assert lanes[3] == [(0, 1)] and lanes[4] == [(3, 2)]


def test_lanes_split_into_the_fewest_blocks() -> None:
    # At 10 the free lanes are 0, 2 and 4-5: a three-wide job takes 4-5 and then 0, two blocks.
    jobs = [job(1, 0, 1, 10), job(2, 0, 1, 20), job(3, 0, 1, 10), job(4, 0, 1, 20)]
    jobs += [job(5, 0, 2, 10), job(6, 10, 3, 10)]
    s = simulate(Workload.from_jobs(jobs, machine_size=6), FCFS())
    assert processor_lanes(s)[5] == [(0, 1), (4, 2)]


# ---------------------------------------------------------------------------------------------
# Drawing (matplotlib)
# ---------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_a_split_job_is_one_color_joined_across_its_gaps() -> None:
    from matplotlib.lines import Line2D

    from backfill.experiments.gantt import schedule_window

    jobs = [job(1, 0, 1, 10, user=1), job(2, 0, 1, 20, user=2), job(3, 0, 1, 10, user=1)]
    jobs += [job(4, 0, 1, 20, user=2), job(5, 0, 2, 5, user=3)]
    s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
    [ax] = schedule_window(s, start=0, end=30, color="user").axes
    pieces = [p for p in ax.patches if p.get_gid() == "job:5"]
    assert len(pieces) == 2 and len({p.get_facecolor() for p in pieces}) == 1
    [joint] = [line for line in ax.get_lines() if line.get_gid() == "split:5"]
    assert isinstance(joint, Line2D) and joint.get_linestyle() == ":"
    assert list(joint.get_ydata())[:2] == [1, 2]  # across the gap, lane 1, between its pieces
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["user 2", "user 1", "user 3"]  # by area
    assert ax.get_legend().get_title().get_text() == "user"
    # Jobs of one user share a color; the sizes color by processors.
    color = {p.get_gid(): p.get_facecolor() for p in ax.patches}
    assert color["job:1"] == color["job:3"] != color["job:2"]
    [ax] = schedule_window(s, start=0, end=30, color="size").axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["1", "2-3"]


@pytest.mark.integration
def test_a_large_machine_is_drawn_as_occupancy() -> None:
    from matplotlib.collections import PolyCollection

    from backfill.experiments.gantt import LANE_LIMIT, schedule_window

    jobs = [job(i, i * 10.0, 100 * (1 + i % 50), 500.0, user=i % 4) for i in range(200)]
    s = simulate(Workload.from_jobs(jobs, machine_size=100_000), FCFS())
    [ax] = schedule_window(s, start=0, end=2000, color="user").axes
    assert s.workload.machine_size > LANE_LIMIT
    assert not ax.patches and any(isinstance(c, PolyCollection) for c in ax.collections)
    assert ax.get_ylabel() == "processors in use (of 100,000)" and ax.get_ylim() == (0, 100_000)
    assert "processors in use from" in ax.get_title()
    stacked = color_classes(s, "user", start=0, end=2000).labels
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(stacked[::-1])  # as stacked
    [ax] = schedule_window(s, start=0, end=2000, style="lanes", labels=False).axes
    assert ax.patches and ax.get_ylabel() == "processors"
    [ax] = schedule_window(s, start=0, end=2000).axes  # colors by job id: one class when stacked
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["jobs"]
    with pytest.raises(BackfillError, match="style must be"):
        schedule_window(s, start=0, end=2000, style="bands")


@pytest.mark.integration
def test_simulate_draws_the_window_and_colors_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    figures = tmp_path / "figs"
    argv = ["simulate", "--jobs", "80", "--scheduler", "easy", "--figures", str(figures)]
    assert main([*argv, "--gantt-window", "0:6h", "--gantt-colour", "user"]) == 0
    out = capsys.readouterr().out
    assert "note: the workload records no user: the Gantt figures draw every job in one color" in out
    assert (figures / "gantt-easy.png").read_bytes().startswith(b"\x89PNG")
    assert main([*argv, "--gantt-window", "400d:"]) != 0
    assert "--gantt-window: EASY(fcfs): the window starts 400 days" in capsys.readouterr().err
    # Colors by size or by job read no workload column: no note, a figure.
    for by in ("size", "job"):
        (figures / "gantt-easy.png").unlink()
        assert main([*argv, "--gantt-color", by]) == 0
        assert "note: the workload records no" not in capsys.readouterr().out
        assert (figures / "gantt-easy.png").read_bytes().startswith(b"\x89PNG")


def test_gantt_options_need_figures(capsys: pytest.CaptureFixture[str]) -> None:
    for option, value in (("--gantt-window", "2d"), ("--gantt-color", "size")):
        assert main(["simulate", "--jobs", "10", "--scheduler", "easy", option, value]) == 2
        assert f"{option} applies only with --figures" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--jobs", "10", "--gantt-window", "2x", "--figures", "f"])
    assert "--gantt-window: expected LENGTH, START:END" in capsys.readouterr().err
