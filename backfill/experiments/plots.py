"""Figures of the seeds' kinds: percent improvement, per-category bars, fairness stacks, a schedule window.

Each function draws on a :class:`matplotlib.figure.Figure` of its own (no pyplot state, so it works
under any backend, Agg included) or on the ``ax`` it is given, and returns the figure; save it with
``fig.savefig("name.png")``. matplotlib is optional (``pip install 'backfill[plot]'``): this module
imports without it, and each function raises :class:`~backfill.errors.BackfillError` when it is
missing. :func:`processor_lanes`, the packing behind :func:`schedule_window`, needs no matplotlib.
See ``docs/plots.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from backfill.errors import BackfillError
from backfill.measures.fairness import FairnessBuckets
from backfill.measures.metrics import percent_improvement
from backfill.schedule import Schedule

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "require_matplotlib",
    "category_bars",
    "fairness_stacks",
    "improvement_bars",
    "processor_lanes",
    "schedule_window",
]

_MISSING = "plotting needs matplotlib: pip install 'backfill[plot]'"


def require_matplotlib() -> None:
    """Raise :class:`BackfillError` if matplotlib cannot be imported (the command line asks early)."""
    try:
        import matplotlib.figure
        import matplotlib.patches  # noqa: F401
    except ImportError as e:
        raise BackfillError(_MISSING) from e


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    require_matplotlib()
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.add_subplot()
    owner: Any = ax.figure
    # An axes on a subfigure belongs to the root figure, which is what can be saved.
    while not isinstance(owner, Figure):
        owner = owner.figure
    return owner, ax


def _grouped(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[str],
    heights: Mapping[tuple[str, str], float],
) -> None:
    """Draw one bar container per series, its bars at the groups' positions (NaN where missing)."""
    x = np.arange(len(groups), dtype=np.float64)
    width = 0.8 / max(len(series), 1)
    for k, name in enumerate(series):
        values = [heights.get((g, name), math.nan) for g in groups]
        # Infinite percentages (a zero baseline) have no bar; matplotlib cannot scale to them.
        shown = [v if math.isfinite(v) else math.nan for v in values]
        ax.bar(x - 0.4 + width * (k + 0.5), shown, width, label=name)
        for xi, v in zip(x, values, strict=True):
            if math.isinf(v):
                ax.annotate(
                    "+inf" if v > 0 else "-inf",
                    (float(xi) - 0.4 + width * (k + 0.5), 0.0),
                    ha="center",
                    va="bottom" if v > 0 else "top",
                    fontsize="x-small",
                    rotation=90,
                )
    ax.set_xticks(x)
    long = len(groups) > 6 or any(len(g) > 12 for g in groups)
    ax.set_xticklabels(
        groups, rotation=30 if long else 0, ha="right" if long else "center", rotation_mode="anchor"
    )
    if series and any(series):
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _width(n_bars: int) -> float:
    return min(20.0, max(8.0, 4.0 + 0.3 * n_bars))


def _series_label(row: Mapping[str, Any]) -> str:
    label = str(row["scheduler"])
    priority = str(row.get("priority", "fcfs"))
    return label if priority == "fcfs" else f"{label}-{priority.upper()}"


def _group_label(row: Mapping[str, Any], loads: bool, estimates: bool) -> str:
    label = str(row["workload"])
    if loads:
        label += f" x{float(row['load']):g}"
    if estimates:
        label += f" {row['estimates']}"
    return label


def improvement_bars(
    rows: Iterable[Mapping[str, Any]],
    *,
    metric: str | None = None,
    title: str | None = None,
    values: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """Draw the percent improvement over a baseline per workload, one bar per scheduler and priority.

    The seeds' main figure (Lindsay et al. 2013, Fig. 5-8): x groups are the workloads, in the order
    they first appear; each series is a scheduler label, with ``-PRIORITY`` appended when the
    priority is not ``fcfs`` (``PC-SJF``), and is one bar container. When the rows hold several load
    factors or estimate policies, each x group is a workload at one of them (``CTC x1.2 exact``).
    A missing combination, or a NaN or infinite improvement (a zero baseline), has no bar; an
    infinite one is marked ``+inf`` / ``-inf`` at the zero line.

    Args:
        rows: Rows of :meth:`backfill.experiments.sweep.SweepResult.improvement`: each with ``workload``,
            ``scheduler``, ``priority`` and ``improvement``, and ``load``, ``estimates``, ``metric``
            and ``baseline`` when present.
        metric: Plot only the rows of this metric; None requires the rows to have one metric.
        title: The axes' title; default ``"<metric>: improvement over <baseline>"``.
        values: Write each bar's value on it.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: No rows, rows without the needed keys, several metrics or baselines when
            ``metric`` does not choose, or two rows for the same bar.

    Examples:
        >>> rows = [{"workload": "CTC", "scheduler": "EASY", "priority": "sjf", "improvement": 12.5,
        ...          "metric": "mean_wait", "baseline": "Conservative"}]
        >>> type(improvement_bars(rows)).__name__
        'Figure'
    """
    table = [dict(r) if isinstance(r, Mapping) else r for r in rows]
    for r in table:
        if not isinstance(r, dict) or not {"workload", "scheduler", "improvement"} <= r.keys():
            raise BackfillError(f"improvement rows need workload, scheduler and improvement keys, got {r!r}")
    if metric is not None:
        table = [r for r in table if r.get("metric", metric) == metric]
    if not table:
        raise BackfillError("no improvement rows to plot" + (f" for metric {metric!r}" if metric else ""))
    metrics = list(dict.fromkeys(r["metric"] for r in table if "metric" in r))
    baselines = list(dict.fromkeys(r["baseline"] for r in table if "baseline" in r))
    if len(metrics) > 1:
        raise BackfillError(f"rows of several metrics ({', '.join(metrics)}); choose one with metric=")
    if len(baselines) > 1:
        raise BackfillError(f"rows compare with several baselines: {', '.join(map(str, baselines))}")
    loads = len({r.get("load") for r in table}) > 1
    estimates = len({r.get("estimates") for r in table}) > 1
    heights: dict[tuple[str, str], float] = {}
    for r in table:
        key = (_group_label(r, loads, estimates), _series_label(r))
        if key in heights:
            raise BackfillError(f"two rows for workload {key[0]!r} and scheduler {key[1]!r}")
        heights[key] = float(r["improvement"])
    groups = list(dict.fromkeys(g for g, _ in heights))
    series = list(dict.fromkeys(s for _, s in heights))
    fig, ax = _axes(ax, (_width(len(heights)), 4.8))
    _grouped(ax, groups, series, heights)
    ax.axhline(0.0, color="black", linewidth=0.8)
    name = metrics[0] if metrics else (metric or "metric")
    against = f" over {baselines[0]}" if baselines else ""
    ax.set_ylabel(f"improvement{against} (%)")
    ax.set_title(title if title is not None else f"{name}: improvement{against}")
    if values:
        for container in ax.containers:
            ax.bar_label(container, fmt="%.1f", fontsize="x-small", padding=2)  # type: ignore[arg-type]
    return fig


def _is_stats(value: object) -> bool:
    return isinstance(value, Mapping) and not any(isinstance(v, Mapping) for v in value.values())


def category_bars(
    table: Mapping[Any, Any],
    *,
    metric: str = "mean_bsld",
    baseline: str | None = None,
    log: bool = False,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw one statistic per job category (or any group), one bar per scheduler.

    Srinivasan et al.'s (2002, Fig. 1-6) per-category bars. The natural input is a mapping from a
    scheduler label to its :func:`backfill.measures.groups.per_category` table (``{"EASY": per_category(s),
    ...}``); a single table (``per_category`` or :func:`~backfill.measures.groups.group_summary` of one
    schedule) draws one series without a legend. Categories are on the x axis in the order of the
    first table (SN, SW, LN, LW for ``per_category``), then any new ones of the others. An empty
    category (NaN) has no bar.

    Args:
        table: ``{label: {category: {statistic: value}}}``, or one ``{category: {statistic: value}}``.
        metric: The statistic: a key of :data:`backfill.measures.groups.GROUP_KEYS` (``mean_bsld``,
            ``mean_wait``, ``mean_response``, ``share``, ...).
        baseline: A label of ``table``: draw the others' percent improvement over it per category
            (:func:`~backfill.measures.metrics.percent_improvement`) instead of the values.
        log: A logarithmic y axis (slowdowns of short and long jobs differ by orders of magnitude).
        title: The axes' title; default the metric.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: An empty or malformed table, a statistic a group lacks, or an unknown
            baseline.

    Examples:
        >>> from backfill import lublin_feitelson, per_category, simulate
        >>> from backfill.schedulers import EASY, Conservative
        >>> w = lublin_feitelson(100, machine_size=32, seed=1)
        >>> schedules = [simulate(w, EASY()), simulate(w, Conservative())]
        >>> tables = {s.scheduler: per_category(s) for s in schedules}
        >>> type(category_bars(tables, metric="mean_wait")).__name__
        'Figure'
    """
    if not isinstance(table, Mapping) or not table:
        raise BackfillError(f"category_bars needs a non-empty mapping, got {table!r}")
    if all(_is_stats(v) for v in table.values()):
        tables: dict[str, Mapping[Any, Any]] = {"": table}
    elif all(isinstance(v, Mapping) and v and all(_is_stats(g) for g in v.values()) for v in table.values()):
        tables = {str(k): v for k, v in table.items()}
    else:
        raise BackfillError(
            "category_bars needs {category: {statistic: value}} or {label: {category: {statistic: value}}}"
        )
    values: dict[tuple[str, str], float] = {}
    for label, groups in tables.items():
        for category, stats in groups.items():
            if metric not in stats:
                known = ", ".join(map(str, stats))
                raise BackfillError(f"group {category!r} has no statistic {metric!r}; it has {known}")
            values[(str(category), label)] = float(stats[metric])
    series = list(tables)
    ylabel = metric
    if baseline is not None:
        if baseline not in tables:
            raise BackfillError(f"no table labelled {baseline!r}; labels: {', '.join(tables)}")
        series.remove(baseline)
        if not series:
            raise BackfillError("category_bars with a baseline needs another table to compare")
        values = {
            (c, s): percent_improvement(values.get((c, baseline), math.nan), v)
            for (c, s), v in values.items()
            if s != baseline
        }
        ylabel = f"{metric} improvement over {baseline} (%)"
    categories = list(dict.fromkeys(c for c, _ in values))
    fig, ax = _axes(ax, (_width(len(values)), 4.8))
    _grouped(ax, categories, series, values)
    if baseline is not None:
        ax.axhline(0.0, color="black", linewidth=0.8)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("category")
    ax.set_ylabel(ylabel)
    ax.set_title(title if title is not None else ylabel)
    return fig


def fairness_stacks(
    buckets_by_label: Mapping[str, FairnessBuckets],
    *,
    group: str = "all",
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw each scheduler's fairness buckets as one stacked bar of shares summing to 1.

    Srinivasan et al.'s (2002, Table 9) buckets of slowdown / fair slowdown (<= 1, 1-1.5, 1.5-2,
    2-4, > 4 by default): one bar per label, in the given order; each bucket is one bar container
    (the fairest at the bottom, colored from green to red), so that its bars are the share of that
    bucket, as a fraction of the jobs, under every scheduler. A group without jobs (NaN shares) has
    no bar.

    Args:
        buckets_by_label: Scheduler label -> :func:`backfill.measures.fairness.fairness_buckets` result.
        group: The row to draw: ``"all"`` or one runtime class of the buckets (``"<=15m"``, ...).
        title: The axes' title; default names the group.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: No buckets, buckets with different edges, or an unknown group.

    Examples:
        >>> from backfill import Job, Workload, fairness_buckets, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=20.0, estimate=20.0) for i in range(2)]
        >>> b = fairness_buckets(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 0.0])
        >>> type(fairness_stacks({"FCFS": b})).__name__
        'Figure'
    """
    if not isinstance(buckets_by_label, Mapping) or not buckets_by_label:
        raise BackfillError("fairness_stacks needs a non-empty mapping of label -> FairnessBuckets")
    for label, b in buckets_by_label.items():
        if not isinstance(b, FairnessBuckets):
            raise BackfillError(f"{label!r}: expected FairnessBuckets, got {type(b).__name__}")
    labels = [str(k) for k in buckets_by_label]
    first = next(iter(buckets_by_label.values()))
    if any(b.buckets != first.buckets for b in buckets_by_label.values()):
        raise BackfillError("fairness buckets with different edges cannot share a figure")
    if group not in first.groups:
        raise BackfillError(f"unknown group {group!r}; known: {', '.join(first.groups)}")
    rows = []
    for label, b in buckets_by_label.items():
        if group not in b.groups:
            raise BackfillError(f"{label!r} has no group {group!r}; it has {', '.join(b.groups)}")
        rows.append(np.asarray(b.shares[b.groups.index(group)], dtype=np.float64) / 100.0)
    shares = np.array(rows).reshape(len(labels), len(first.buckets))
    require_matplotlib()
    from matplotlib import colormaps

    fig, ax = _axes(ax, (max(4.0, 1.6 + 0.8 * len(labels)), 4.8))
    x = np.arange(len(labels), dtype=np.float64)
    bottom = np.zeros(len(labels))
    colors = colormaps["RdYlGn_r"](np.linspace(0.1, 0.9, len(first.buckets)))
    for k, name in enumerate(first.buckets):
        ax.bar(x, shares[:, k], 0.6, bottom=bottom, label=name, color=colors[k])
        bottom = bottom + shares[:, k]
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 5 else 0)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("share of jobs")
    # Reversed so that the legend reads top-down like the stack.
    handles, names = ax.get_legend_handles_labels()
    ax.legend(
        handles[::-1],
        names[::-1],
        title="slowdown / fair",
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    ax.set_title(title if title is not None else f"fairness buckets ({group} jobs)")
    return fig


def _take(free: np.ndarray[Any, Any], width: int) -> list[tuple[int, int]]:
    """Choose ``width`` lanes among the free ones: the lowest run long enough, else the lowest lanes."""
    idx = np.flatnonzero(free)
    if idx.size < width:
        raise BackfillError("infeasible packing")  # callers check capacity first
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    starts = np.concatenate(([0], breaks))
    lengths = np.diff(np.concatenate((starts, [idx.size])))
    fits = np.flatnonzero(lengths >= width)
    if fits.size:
        return [(int(idx[starts[fits[0]]]), width)]
    blocks: list[tuple[int, int]] = []
    left = width
    for s, n in zip(starts.tolist(), lengths.tolist(), strict=True):
        used = min(n, left)
        blocks.append((int(idx[s]), used))
        left -= used
        if left == 0:
            break
    return blocks


def processor_lanes(
    schedule: Schedule, *, start: float = -math.inf, end: float = math.inf
) -> dict[int, list[tuple[int, int]]]:
    """Give every job that runs in [start, end) processor lanes, a feasible packing of the schedule.

    A schedule says how many processors a job used, not which; this picks lanes 0 to
    ``machine_size - 1`` for a picture. Jobs are taken in order of start time (then row), and each
    gets the lanes free at its start (a lane frees when its job ends, so a job may start on lanes
    freed at that very instant): the lowest contiguous run of free lanes wide enough, or, when the
    free lanes are fragmented, the lowest free lanes, in several blocks. Since the schedule never
    uses more than the machine, there are always enough. Jobs that did not start, and jobs of zero
    runtime (which occupy nothing), get no lanes; a started job without an end (a partial
    schedule) holds its lanes to the end.

    Args:
        schedule: A schedule.
        start: Left edge of the window; jobs ending at or before it are left out.
        end: Right edge; jobs starting at or after it are left out.

    Returns:
        Row of each job in the window -> its blocks of lanes, ``(first lane, number of lanes)``.

    Raises:
        BackfillError: The jobs overfill the machine (an invalid schedule).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=5.0, estimate=5.0),
        ...         Job(id=3, submit=1.0, processors=3, runtime=5.0, estimate=5.0)]
        >>> processor_lanes(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()))
        {0: [(0, 2)], 1: [(2, 1)], 2: [(0, 3)]}
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    begin, finish = _job_span(schedule)
    width = schedule.processors
    rows = np.flatnonzero((begin < end) & (finish > start) & (finish > begin))
    rows = rows[np.lexsort((rows, begin[rows]))]
    size = schedule.workload.machine_size
    free_at = np.full(size, -math.inf)
    lanes: dict[int, list[tuple[int, int]]] = {}
    for i in rows.tolist():
        free = free_at <= begin[i]
        if int(np.count_nonzero(free)) < width[i]:
            raise BackfillError(
                f"job in row {i} starts at {begin[i]:g} on {width[i]} processors but only "
                f"{int(np.count_nonzero(free))} of {size} are free: the schedule is infeasible"
            )
        lanes[i] = _take(free, int(width[i]))
        for first, n in lanes[i]:
            free_at[first : first + n] = finish[i]
    return lanes


def _job_span(s: Schedule) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    begin = np.where(np.isfinite(s.start), s.start, math.inf)
    finish = np.where(np.isfinite(s.start) & np.isnan(s.end), math.inf, s.end)
    finish = np.where(np.isfinite(s.start) & (s.runtime > 0), finish, -math.inf)
    return begin, finish


def _held_reservations(s: Schedule, at: float) -> list[tuple[float, int]]:
    """Return (reserved start, row) of each job queued at ``at`` that holds a reservation then."""
    log = s.reservations
    if log.size == 0:
        return []
    upto = log[log["time"] <= at]
    last: dict[int, float] = {}
    for job_id, start in zip(upto["job_id"].tolist(), upto["start"].tolist(), strict=True):
        last[job_id] = start
    ids = s.workload.column("id")
    row_of = {int(j): i for i, j in enumerate(ids.tolist())}
    held = []
    for job_id, start in last.items():
        i = row_of.get(job_id)
        if i is None or not math.isfinite(start):
            continue
        queued = s.submit[i] <= at and not (s.start[i] <= at)  # NaN start: still queued
        if queued:
            held.append((start, i))
    return sorted(held)


def schedule_window(
    schedule: Schedule,
    *,
    start: float,
    end: float,
    reservations: bool = True,
    at: float | None = None,
    labels: bool = True,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw a Gantt chart of the jobs running in [start, end), with the reservations held at ``at``.

    Each job is a filled rectangle from its start to its end (clipped to the window) over the lanes
    :func:`processor_lanes` gives it, in several rectangles when its lanes are not contiguous; the
    y axis is the machine's processors. With ``reservations`` and a reservation log in the schedule
    (``simulate(..., record_reservations=True)``, the default), every job still queued at ``at``
    that holds a reservation then is drawn as a hatched, dashed outline from its reserved start for
    its estimate, in the job's color: the plan the scheduler had at that instant. The reservations
    are packed like the jobs, after the jobs running at ``at``, which are taken to end at their
    start plus estimate, as the scheduler planned; where a plan does not fit that way, a
    reservation takes the lanes that free first, so outlines may then overlap. A dotted line marks
    ``at``. Rectangles carry a gid, ``"job:<id>"`` or ``"reservation:<id>"``.

    Args:
        schedule: The schedule to draw.
        start: Left edge of the window (seconds of simulated time).
        end: Right edge; greater than ``start``.
        reservations: Draw the reservations held at ``at`` (if the schedule recorded any).
        at: The instant of the plan; default ``start``; within [start, end).
        labels: Write job ids on rectangles (only when at most 60 jobs are drawn).
        title: The axes' title; default the scheduler and the window.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: Not a schedule, a bad window or ``at``, or an infeasible schedule.

    Examples:
        >>> from backfill import EASY, lublin_feitelson, simulate
        >>> s = simulate(lublin_feitelson(60, machine_size=16, seed=2), EASY())
        >>> type(schedule_window(s, start=0.0, end=20_000.0)).__name__
        'Figure'
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    if not (math.isfinite(start) and math.isfinite(end) and start < end):
        raise BackfillError(f"the window needs finite start < end, got [{start!r}, {end!r})")
    at = start if at is None else at
    if not (start <= at < end):
        raise BackfillError(f"at={at!r} must lie in the window [{start:g}, {end:g})")
    lanes = processor_lanes(schedule, start=start, end=end)
    require_matplotlib()
    from matplotlib import colormaps
    from matplotlib.patches import Patch, Rectangle

    fig, ax = _axes(ax, (10.0, 5.0))
    size = schedule.workload.machine_size
    ids = schedule.workload.column("id").tolist()
    palette = colormaps["tab20"]
    begin, finish = _job_span(schedule)

    held = _held_reservations(schedule, at) if reservations else []
    shown = len(lanes) + len(held)

    def box(i: int, t0: float, t1: float, blocks: list[tuple[int, int]], kind: str) -> None:
        lo, hi = max(t0, start), min(t1, end)
        if hi <= lo:
            return
        color = palette(ids[i] % 20)
        for first, n in blocks:
            if kind == "reservation":
                patch = Rectangle(
                    (lo, first), hi - lo, n, fill=False, hatch="//", linestyle="--", edgecolor=color
                )
            else:
                # With a plan drawn, what started after it is faded so that the plan stands out.
                alpha = 0.35 if kind == "later" else 1.0
                patch = Rectangle(
                    (lo, first), hi - lo, n, facecolor=color, edgecolor="black", lw=0.4, alpha=alpha
                )
            patch.set_gid(f"{'reservation' if kind == 'reservation' else 'job'}:{ids[i]}")
            ax.add_patch(patch)
        first, n = max(blocks, key=lambda b: b[1])
        if not (labels and shown <= 60 and hi - lo >= 0.03 * (end - start)):
            return
        if kind == "reservation":  # in a corner, not over the job's own label when it ran as planned
            ax.text(lo, first + n, f" {ids[i]}", ha="left", va="top", fontsize="x-small", style="italic")
        else:
            ax.text((lo + hi) / 2, first + n / 2, str(ids[i]), ha="center", va="center", fontsize="x-small")

    for i, blocks in lanes.items():
        box(i, float(begin[i]), float(finish[i]), blocks, "later" if held and begin[i] > at else "job")
    handles = [Patch(facecolor="lightgray", edgecolor="black", label="job as run")]
    if held:
        handles.append(
            Patch(facecolor="lightgray", edgecolor="black", alpha=0.35, label=f"started after {at:g}")
        )
        free_at = np.full(size, at)
        for i, blocks in lanes.items():
            if begin[i] <= at < finish[i]:
                planned_end = max(at, float(begin[i] + schedule.estimate[i]))
                for first, n in blocks:
                    free_at[first : first + n] = planned_end
        for reserved, i in held:
            width = int(schedule.processors[i])
            free = free_at <= reserved
            if int(np.count_nonzero(free)) < width:
                # The plan does not fit this packing: take the lanes that free first.
                free = np.zeros(size, dtype=bool)
                free[np.argsort(free_at, kind="stable")[:width]] = True
            blocks = _take(free, width)
            stop = reserved + float(schedule.estimate[i])
            for first, n in blocks:
                free_at[first : first + n] = stop
            box(i, reserved, stop, blocks, "reservation")
        handles.append(Patch(fill=False, hatch="//", linestyle="--", label=f"reservation held at {at:g}"))
        ax.axvline(at, color="black", linestyle=":", linewidth=1.0)
    ax.set_xlim(start, end)
    ax.set_ylim(0, size)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processors")
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title if title is not None else f"{schedule.scheduler}: [{start:g}, {end:g})")
    return fig
