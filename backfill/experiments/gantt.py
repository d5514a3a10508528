"""Gantt charts of a schedule window, and the processor packing behind them.

A schedule says how many processors a job used, not which; :func:`processor_lanes` packs them on
lanes for a picture (and for the per-job CSV's ``allocated_resources``), and :func:`schedule_window`
draws the jobs of a time window with the reservations held at one instant, on a time axis in
readable units. matplotlib is needed for the drawing only (the ``plot`` extra).

Processors only: a schedule that planned resources besides processors (memory) is drawn by its
processors, and the y axis says which resources are not drawn. A schedule of a node machine says
which nodes each job held: it is drawn one lane per node (:func:`node_lanes`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from backfill.errors import BackfillError
from backfill.experiments._figure import (
    figure_axes,
    format_time,
    readable_time_axis,
    require_matplotlib,
    time_unit,
)
from backfill.experiments._gantt_layout import (
    COLOR_BY,
    DEFAULT_WINDOW,
    JOB_COLORS,
    SIZE_CLASSES,
    ColorClasses,
    GanttWindow,
    color_classes,
    gantt_window,
    job_span,
    occupancy,
)
from backfill.schedule import Schedule

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "COLOR_BY",
    "DEFAULT_WINDOW",
    "JOB_COLORS",
    "LANE_LIMIT",
    "NODE_LANE_LIMIT",
    "SIZE_CLASSES",
    "ColorClasses",
    "GanttWindow",
    "color_classes",
    "gantt_window",
    "node_lanes",
    "occupancy",
    "processor_lanes",
    "schedule_window",
]

#: The most processors a Gantt chart draws one lane each by default; a larger machine is drawn as
#: occupancy, the processors in use stacked by class (a lane of 93,312 is thinner than a pixel).
LANE_LIMIT = 2048
#: The most nodes a Gantt chart of a node machine draws one lane each by default; a machine of more
#: is drawn as occupancy, its cores in use stacked by class.
NODE_LANE_LIMIT = 256
#: The color of the class that gathers the users (groups, ...) not given one of their own.
OTHER_COLOR = "#c8c8c8"


def _take(free: np.ndarray[Any, Any], width: int) -> list[tuple[int, int]]:
    """Choose ``width`` lanes among the free ones: the shortest run long enough, else the longest runs."""
    idx = np.flatnonzero(free)
    if idx.size < width:
        raise BackfillError("infeasible packing")  # callers check capacity first
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    starts = np.concatenate(([0], breaks))
    lengths = np.diff(np.concatenate((starts, [idx.size])))
    fits = np.flatnonzero(lengths >= width)
    if fits.size:  # best fit: the large runs stay whole for the wide jobs to come
        best = fits[np.argmin(lengths[fits])]
        return [(int(idx[starts[best]]), width)]
    blocks: list[tuple[int, int]] = []
    left = width
    for k in np.argsort(-lengths, kind="stable").tolist():  # the fewest blocks
        used = min(int(lengths[k]), left)
        blocks.append((int(idx[starts[k]]), used))
        left -= used
        if left == 0:
            break
    return sorted(blocks)


def processor_lanes(
    schedule: Schedule, *, start: float = -math.inf, end: float = math.inf
) -> dict[int, list[tuple[int, int]]]:
    """Give every job that runs in [start, end) processor lanes, a feasible packing of the schedule.

    A schedule says how many processors a job used, not which; this picks lanes 0 to
    ``machine_size - 1`` for a picture. Jobs are taken in order of start time (then row), and each
    gets the lanes free at its start (a lane frees when its job ends, so a job may start on lanes
    freed at that very instant): the shortest contiguous run of free lanes wide enough (the
    lowest of those), which keeps the long runs whole for wide jobs, or, when no run is wide
    enough, the longest runs, in as few blocks as that gives. Since the schedule never uses more
    than the machine, there are always enough. On the first 5,000 jobs of KTH-SP2 and HPC2N under
    EASY, a fifth of the jobs still need several blocks. Jobs that did not start, and jobs of zero
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
    begin, finish = job_span(schedule)
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


def node_lanes(
    schedule: Schedule, *, start: float = -math.inf, end: float = math.inf
) -> dict[int, list[tuple[float, float]]]:
    """Give every job that runs in [start, end) a band on each of its nodes: one lane per node.

    Node ``k`` is the lane from ``k`` to ``k + 1``; a job holding ``c`` of its ``C`` cores gets a
    band ``c / C`` high in it, so jobs sharing a node lie side by side and a job holding the node
    whole fills its lane. Within a node, the cores are packed as :func:`processor_lanes` packs a
    pool's processors: jobs in order of start (then row), each on the cores of the node free at
    its start, in one run where one is wide enough. Jobs that did not start or ran for no time get
    no band. O(a C + n log n) for a allocation entries and C cores per node.

    Args:
        schedule: A schedule of a node machine (:attr:`~backfill.schedule.Schedule.machine`).
        start: Left edge of the window; jobs ending at or before it are left out.
        end: Right edge; jobs starting at or after it are left out.

    Returns:
        Row of each job in the window -> its bands ``(bottom, height)`` in lanes, node by node in
        node-id order (several on a node whose free cores were not contiguous).

    Raises:
        BackfillError: A schedule with no node machine, a started job with no allocation, or jobs
            that overfill a node's cores (an invalid schedule).

    Examples:
        >>> from backfill import FCFS, Job, Machine, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=6, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=8), FCFS(nodes=Machine.parse("2x4")))
        >>> node_lanes(s)  # job 1: node 0 whole and half of node 1; job 2 the other half
        {0: [(0.0, 1.0), (1.0, 0.5)], 1: [(1.5, 0.5)]}
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    machine = schedule.machine
    if machine is None:
        raise BackfillError(f"{schedule.scheduler} ran on a pool of processors: it has no nodes to draw")
    cores = machine.capacities()[:, 0].tolist()
    free_at = [np.full(c, -math.inf) for c in cores]
    begin, finish = job_span(schedule)
    rows = np.flatnonzero((begin < end) & (finish > start) & (finish > begin))
    rows = rows[np.lexsort((rows, begin[rows]))]
    ids = schedule.workload.column("id").tolist()
    bands: dict[int, list[tuple[float, float]]] = {}
    for i in rows.tolist():
        allocation = schedule.allocations.get(int(ids[i]))
        if allocation is None:
            raise BackfillError(f"job {ids[i]} started at {begin[i]:g} with no allocation to draw")
        bands[i] = []
        for node, amounts in zip(allocation.nodes, allocation.amounts, strict=True):
            free = free_at[node] <= begin[i]
            if int(np.count_nonzero(free)) < amounts[0]:
                raise BackfillError(
                    f"job {ids[i]} starts at {begin[i]:g} on {amounts[0]} cores of node {node} but only "
                    f"{int(np.count_nonzero(free))} of its {cores[node]} are free: the schedule is infeasible"
                )
            for first, n in _take(free, amounts[0]) if amounts[0] else []:
                free_at[node][first : first + n] = finish[i]
                bands[i].append((node + first / cores[node], n / cores[node]))
    return bands


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


def _number(x: float) -> str:
    """A time in a title: whole above a thousand (``7,234``, not ``7.234e+03``), else four digits."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


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
    color: str = "job",
    top: int = 10,
    style: str | None = None,
) -> Figure:
    """Draw a Gantt chart of the jobs running in [start, end), with the reservations held at ``at``.

    Each job is a filled rectangle from its start to its end (clipped to the window) over the lanes
    :func:`processor_lanes` gives it; the y axis is the machine's processors. Its color says its
    class (:func:`color_classes`): its user, group, queue or partition, the ``top`` of them by
    area in the window each in a color of their own and the rest in grey, or its size (processors,
    in power-of-two classes, from dark to light), and a legend keys them; or, by default
    (``color="job"``), colors that cycle by job id, which tell the jobs of a small, labelled
    picture apart and mean nothing else (``backfill simulate --figures`` colors by user). A job whose
    lanes are not contiguous is drawn in several rectangles of its color, joined across the gaps
    between them by a dotted line at its start, which makes the pieces one job: re-laning every
    job to be contiguous would need lanes the machine does not have (which lanes a job gets is
    the dynamic storage allocation problem), and the packing already keeps such splits few.
    Only processors: with resources besides them (``schedule.resources``, memory), the jobs are
    still drawn by their processors, and the y axis label names the resources not drawn
    (``processors (memory not drawn)``). With ``reservations`` and a reservation log in the
    schedule (``simulate(..., record_reservations=True)``, the default), every job still queued at
    ``at`` that holds a reservation then is drawn as a hatched, dashed outline from its reserved
    start for its estimate, in the job's color: the plan the scheduler had at that instant. The x
    axis holds seconds of simulated time but reads in a unit fit for the window (minutes, hours,
    days, weeks) counted from the first submission. The reservations are packed like the jobs,
    after the jobs running at ``at``, which are taken to end at their start plus estimate, as the
    scheduler planned; where a plan does not fit that way, a reservation takes the lanes that free
    first, so outlines may then overlap. A dotted line marks ``at``. Rectangles carry a gid,
    ``"job:<id>"`` or ``"reservation:<id>"``, and the lines joining a split job's pieces
    ``"split:<id>"``.

    A machine of more than :data:`LANE_LIMIT` processors has lanes thinner than a pixel, so by
    default (``style=None``) it is drawn as ``"occupancy"``: the processors in use over time,
    stacked by class in the same colors (all in one with ``color="job"``), with neither lanes nor
    reservations; ``style="lanes"`` draws lanes whatever the size, ``"occupancy"`` whatever the size.

    A schedule of a node machine (:attr:`~backfill.schedule.Schedule.machine`) has a lane per node
    instead, node 0 at the bottom, faint lines between them: each job is a rectangle on each of
    the nodes it held, as high as its share of the node's cores (:func:`node_lanes`), so jobs
    sharing a node lie side by side in its lane. Its reservations are not drawn, since the schedule
    does not record which nodes a plan held. A machine of more than :data:`NODE_LANE_LIMIT` nodes
    is drawn as occupancy by default, its cores in use stacked by class.

    Args:
        schedule: The schedule to draw.
        start: Left edge of the window (seconds of simulated time).
        end: Right edge; greater than ``start``.
        reservations: Draw the reservations held at ``at`` (if the schedule recorded any).
        at: The instant of the plan; default ``start``; within [start, end).
        labels: Write job ids on rectangles (only when at most 60 jobs are drawn).
        title: The axes' title; default the scheduler and the window, in the axis's unit.
        ax: Axes to draw on; None draws on a new figure.
        color: What the colors tell apart: one of :data:`COLOR_BY`.
        top: The most users (groups, ...) given a color of their own.
        style: ``"lanes"``, ``"occupancy"``, or None: lanes up to :data:`LANE_LIMIT` processors
            (:data:`NODE_LANE_LIMIT` nodes).

    Returns:
        The figure.

    Raises:
        BackfillError: Not a schedule, a bad window, ``at``, ``color``, ``top`` or ``style``, or an
            infeasible schedule.

    Examples:
        >>> from backfill import EASY, lublin_feitelson, simulate
        >>> s = simulate(lublin_feitelson(60, machine_size=16, seed=2), EASY())
        >>> type(schedule_window(s, start=0.0, end=20_000.0, color="size")).__name__
        'Figure'
    """
    at = _checked_at(schedule, start, end, at)
    if style not in (None, "lanes", "occupancy"):
        raise BackfillError(f"style must be 'lanes', 'occupancy' or None, got {style!r}")
    classes = color_classes(schedule, color, start=start, end=end, top=top)
    size = schedule.workload.machine_size
    machine = schedule.machine
    lane_count, limit = (size, LANE_LIMIT) if machine is None else (machine.node_count, NODE_LANE_LIMIT)
    lanes_drawn = style == "lanes" or (style is None and lane_count <= limit)
    if color == "job" and not lanes_drawn:  # a stack of twenty id classes would mean nothing
        classes = ColorClasses("job", ("jobs",), np.where(classes.of_row >= 0, 0, -1))
    lanes: dict[int, list[tuple[float, float]]] = {}
    if lanes_drawn:
        lanes = _lanes(schedule, start, end)
        if machine is not None:
            reservations = False  # which nodes a plan held is not recorded
    require_matplotlib()
    from matplotlib.patches import Patch

    # A node lane stays some 8 pixels high up to 64 nodes; then the figure stops growing.
    tall = 5.0 if machine is None or not lanes_drawn else min(10.0, max(5.0, 2.0 + 0.12 * lane_count))
    fig, ax = figure_axes(ax, (10.0, tall))
    origin = float(np.min(schedule.submit)) if len(schedule) else 0.0
    unit, unit_name = readable_time_axis(ax, start, end, origin)
    colors = _palette(classes)
    keyed = classes.by != "job" or not lanes_drawn
    handles = [
        Patch(facecolor=c, edgecolor=_edge(c), label=k) for c, k in zip(colors, classes.labels, strict=True)
    ]
    handles = handles if keyed else []
    window = _window_words(start, end, origin, unit, unit_name)
    others = ", ".join(r.name for r in schedule.resources)
    if lanes_drawn:
        handles += _draw_lanes(ax, schedule, lanes, classes, colors, start, end, at, reservations, labels)
        what, ylabel = f"jobs running from {window}", "processors"
    else:
        _draw_occupancy(ax, schedule, classes, colors, start, end)
        handles.reverse()  # the key reads down as the stack does
        what, ylabel = f"processors in use from {window}", f"processors in use (of {size:,})"
    if machine is not None:
        ylabel = _node_axis(ax, machine.node_count, machine.cores, lanes_drawn)
        what = what.replace("processors in use", "cores in use")
    ax.set_xlim(start, end)
    ax.set_ylim(0, lane_count if lanes_drawn else size)
    ax.set_ylabel(f"{ylabel} ({others} not drawn)" if others else ylabel)
    if handles:
        ax.legend(
            handles=handles,
            title=classes.title if keyed else None,
            fontsize="small",
            title_fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
        )
    # A node machine's name is long: the window then goes on a line of its own.
    sep = ":\n" if len(schedule.scheduler) + len(what) > 90 else ": "
    ax.set_title(title if title is not None else f"{schedule.scheduler}{sep}{what}")
    return fig


def _lanes(schedule: Schedule, start: float, end: float) -> dict[int, list[tuple[float, float]]]:
    """Each job's blocks of lanes: its nodes' on a node machine, else its packed processors."""
    if schedule.machine is not None:
        return {i: _merged(bands) for i, bands in node_lanes(schedule, start=start, end=end).items()}
    packed = processor_lanes(schedule, start=start, end=end)
    return {i: [(float(a), float(n)) for a, n in blocks] for i, blocks in packed.items()}


def _merged(bands: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A job's bands with those that touch (whole neighbouring nodes) made one: no edges inside a job."""
    out: list[tuple[float, float]] = []
    for bottom, height in bands:
        if out and math.isclose(out[-1][0] + out[-1][1], bottom):
            out[-1] = (out[-1][0], out[-1][1] + height)
        else:
            out.append((bottom, height))
    return out


def _node_axis(ax: Axes, nodes: int, cores: int, lanes_drawn: bool) -> str:
    """Mark the nodes on the y axis (ticks at their middles, faint lines between); return its label."""
    if not lanes_drawn:
        return f"cores in use (of {cores:,}, on {nodes:,} nodes)"
    step = max(1, math.ceil(nodes / 16))
    ax.set_yticks([k + 0.5 for k in range(0, nodes, step)], [str(k) for k in range(0, nodes, step)])
    ax.tick_params(axis="y", length=0)
    if nodes <= 128:  # finer lines would grey the whole picture
        ax.hlines(range(1, nodes), 0, 1, transform=ax.get_yaxis_transform(), colors="0.85", lw=0.5, zorder=0)
    return "node (a job's height: its share of the node's cores)"


def _draw_lanes(
    ax: Axes,
    schedule: Schedule,
    lanes: dict[int, list[tuple[float, float]]],
    classes: ColorClasses,
    colors: list[Any],
    start: float,
    end: float,
    at: float,
    reservations: bool,
    labels: bool,
) -> list[Any]:
    """Draw the jobs on their lanes and the plan held at ``at``; return the legend's entries for the kinds."""
    from matplotlib.patches import Patch

    begin, finish = job_span(schedule)
    held = _held_reservations(schedule, at) if reservations else []
    boxes = _Boxes(ax, schedule, classes, colors, start, end, labels=labels and len(lanes) + len(held) <= 60)
    for i, blocks in lanes.items():
        boxes.draw(i, float(begin[i]), float(finish[i]), blocks, "later" if held and begin[i] > at else "job")
    if not held:  # one kind of box needs no key
        return []
    at_text = format_time(at - float(np.min(schedule.submit)), *time_unit(end - start))
    _draw_plan(boxes, schedule, lanes, held, at, begin, finish)
    ax.axvline(at, color="black", linestyle=":", linewidth=1.0)
    return [
        Patch(facecolor="lightgray", edgecolor="black", label="job as run"),
        Patch(facecolor="lightgray", edgecolor="black", alpha=0.35, label=f"started after {at_text}"),
        Patch(fill=False, hatch="//", linestyle="--", label=f"reservation held at {at_text}"),
    ]


def _draw_occupancy(
    ax: Axes, schedule: Schedule, classes: ColorClasses, colors: list[Any], start: float, end: float
) -> None:
    """Draw the processors in use over the window, stacked by class."""
    times, used = occupancy(schedule, classes, start=start, end=end)
    if used.size:
        steps = np.concatenate((used, used[:, -1:]), axis=1)  # the last step lasts to the end
        ax.stackplot(times, steps, colors=colors, step="post", linewidth=0)


def _palette(classes: ColorClasses) -> list[Any]:
    """One color per class: a sequence from dark to light for sizes, distinct hues and grey otherwise."""
    from matplotlib import colormaps

    n = len(classes.labels)
    if classes.by == "job":
        return [colormaps["tab20"](k) for k in range(n)] if n > 1 else ["#4c72b0"]
    if classes.by == "size":
        return [colormaps["viridis"](x) for x in np.linspace(0.05, 0.95, n)] if n > 1 else ["#3b528b"]
    named = n - 1 if classes.other else n
    if named <= 10:  # tab10 with its grey, which would read as the rest's, made a dark indigo
        hues: list[Any] = [colormaps["tab10"](k) for k in range(10)]
        hues[7] = "#393b79"
    else:
        hues = [colormaps["tab20"](k) for k in range(20)]
    return [hues[k % len(hues)] for k in range(named)] + ([OTHER_COLOR] if classes.other else [])


def _edge(color: Any) -> tuple[float, float, float]:
    """A darker shade of ``color``: the outline that tells touching jobs of one class apart."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(color)
    return (0.55 * r, 0.55 * g, 0.55 * b)


def _checked_at(schedule: Schedule, start: float, end: float, at: float | None) -> float:
    """The instant of the plan (default ``start``), once the schedule, window and instant are checked."""
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    if not (math.isfinite(start) and math.isfinite(end) and start < end):
        raise BackfillError(f"the window needs finite start < end, got [{start!r}, {end!r})")
    at = start if at is None else at
    if not (start <= at < end):
        raise BackfillError(f"at={at!r} must lie in the window [{start:g}, {end:g})")
    return at


class _Boxes:
    """Draws a job's or a reservation's rectangles, clipped to the window, with its id as label."""

    def __init__(
        self,
        ax: Axes,
        schedule: Schedule,
        classes: ColorClasses,
        colors: list[Any],
        start: float,
        end: float,
        *,
        labels: bool,
    ) -> None:
        self.ax, self.start, self.end, self.labels = ax, start, end, labels
        self.ids = schedule.workload.column("id").tolist()
        self.of_row, self.colors = classes.of_row, colors

    def draw(self, i: int, t0: float, t1: float, blocks: Sequence[tuple[float, float]], kind: str) -> None:
        """Draw job ``i`` from ``t0`` to ``t1`` on ``blocks`` of lanes, as a job, later or a reservation."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle

        ax, start, end, ids = self.ax, self.start, self.end, self.ids
        lo, hi = max(t0, start), min(t1, end)
        if hi <= lo:
            return
        k = int(self.of_row[i])
        color = self.colors[k] if k >= 0 else "lightgray"  # a reservation of a job outside the window
        edge = _edge(color)
        # With a plan drawn, what started after it is faded so that the plan stands out.
        alpha = 0.35 if kind == "later" else 1.0
        for first, n in blocks:
            if kind == "reservation":
                patch = Rectangle(
                    (lo, first), hi - lo, n, fill=False, hatch="//", linestyle="--", edgecolor=edge
                )
            else:
                patch = Rectangle(
                    (lo, first), hi - lo, n, facecolor=color, edgecolor=edge, lw=0.4, alpha=alpha
                )
            patch.set_gid(f"{'reservation' if kind == 'reservation' else 'job'}:{ids[i]}")
            ax.add_patch(patch)
        if len(blocks) > 1:  # dotted across the gaps between the pieces: they are one job
            xs: list[float] = []
            ys: list[float] = []
            for (a, m), (b, _) in itertools.pairwise(blocks):
                xs += [lo, lo, math.nan]
                ys += [a + m, b, math.nan]
            line = Line2D(xs, ys, color=edge, lw=1.0, linestyle=":", alpha=alpha)
            line.set_gid(f"split:{ids[i]}")
            ax.add_line(line)
        first, n = max(blocks, key=lambda b: b[1])
        if not (self.labels and hi - lo >= 0.03 * (end - start)):
            return
        if kind == "reservation":  # in a corner, not over the job's own label when it ran as planned
            ax.text(lo, first + n, f" {ids[i]}", ha="left", va="top", fontsize="x-small", style="italic")
        else:
            ax.text((lo + hi) / 2, first + n / 2, str(ids[i]), ha="center", va="center", fontsize="x-small")


def _draw_plan(
    boxes: _Boxes,
    schedule: Schedule,
    lanes: dict[int, list[tuple[float, float]]],
    held: list[tuple[float, int]],
    at: float,
    begin: np.ndarray[Any, Any],
    finish: np.ndarray[Any, Any],
) -> None:
    """Draw the reservations held at ``at``, packed after the jobs running then as planned."""
    size = schedule.workload.machine_size
    free_at = np.full(size, at)
    for i, blocks in lanes.items():
        if begin[i] <= at < finish[i]:
            planned_end = max(at, float(begin[i] + schedule.estimate[i]))
            for first, n in blocks:
                free_at[int(first) : int(first + n)] = planned_end
    for reserved, i in held:
        width = int(schedule.processors[i])
        free = free_at <= reserved
        if int(np.count_nonzero(free)) < width:
            # The plan does not fit this packing: take the lanes that free first.
            free = np.zeros(size, dtype=bool)
            free[np.argsort(free_at, kind="stable")[:width]] = True
        taken = _take(free, width)
        stop = reserved + float(schedule.estimate[i])
        for first, n in taken:
            free_at[first : first + n] = stop
        boxes.draw(i, reserved, stop, taken, "reservation")


def _window_words(start: float, end: float, origin: float, unit: float, unit_name: str) -> str:
    """The window in the title: in the axis's unit, and far into a trace where it falls in a coarser one."""
    window = f"{_number((start - origin) / unit)} to {_number((end - origin) / unit)} {unit_name}"
    if start - origin >= 10 * (end - start):
        # Far into a trace, thousands of hours say less than where they fall in a coarser unit.
        coarse, coarse_name = time_unit(start - origin)
        if coarse > unit:
            window += f" ({format_time(start - origin, coarse, coarse_name)} in)"
    return window
