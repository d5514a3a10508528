"""Utilization and queue length over time, for one schedule or several side by side.

:func:`utilization_queue_series` gives the two step functions exactly (no sampling, no
matplotlib); :func:`binned_means` reduces a step function to its exact time-weighted mean over each
bin, and :func:`choose_bin` picks a bin fit for a span (minutes for an hour's schedule, weeks for
a trace of years). :func:`utilization_queue` draws those means for one or more schedules on one
figure with a shared, readable time axis: the share of processors busy above, the jobs waiting
below, one line per schedule.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.experiments._figure import readable_time_axis, require_matplotlib, time_unit
from backfill.schedule import Schedule

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "BIN_WIDTHS",
    "MAX_BINS",
    "MAX_DRAWN_BINS",
    "bin_edges",
    "bin_name",
    "binned_means",
    "choose_bin",
    "utilization_bins",
    "utilization_queue",
    "utilization_queue_series",
]

#: The bins :func:`choose_bin` picks from, shortest first: name -> width in seconds.
BIN_WIDTHS: Mapping[str, float] = {
    "minute": 60.0,
    "10 minutes": 600.0,
    "hour": 3600.0,
    "6 hours": 6 * 3600.0,
    "day": 86_400.0,
    "week": 7 * 86_400.0,
}
#: The most bins :func:`choose_bin` makes of a span (unless even weeks make more).
MAX_BINS = 200
#: The most bins :func:`utilization_queue` draws: more than the pixels of a figure's width, many times.
MAX_DRAWN_BINS = 10_000

# The most bins bin_edges makes: their edges fill 800 MB.
_MAX_EDGES = 10**8

#: Units a bin width is written in, longest first: (seconds, singular, plural).
_WORDS = (
    (7 * 86_400.0, "week", "weeks"),
    (86_400.0, "day", "days"),
    (3600.0, "hour", "hours"),
    (60.0, "minute", "minutes"),
    (1.0, "second", "seconds"),
)


def utilization_queue_series(
    schedule: Schedule,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Return the processors busy and the jobs waiting over time, as exact step functions.

    Each value holds from its time up to the next one (after every event at that time: a job that
    ends at ``t`` frees its processors for one that starts at ``t``). A job is waiting from its
    submission until its start and busy from its start until its end; a job the simulator rejected
    is in neither, and a job of zero runtime is never busy.

    Returns:
        ``(times, busy, waiting)``: the sorted distinct event times (seconds), and after each, the
        processors in use and the jobs submitted but not started.

    Raises:
        BackfillError: Not a schedule.

    Examples:
        >>> from backfill import FCFS, Job, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=5.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> times, busy, waiting = utilization_queue_series(simulate(Workload.from_jobs(jobs, 2), FCFS()))
        >>> times.tolist(), busy.tolist(), waiting.tolist()
        ([0.0, 5.0, 10.0, 15.0], [2, 2, 2, 0], [0, 1, 0, 0])
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    ran = schedule.started
    submit, start, end = schedule.submit[ran], schedule.start[ran], schedule.end[ran]
    width = schedule.processors[ran].astype(np.float64)
    finished = np.isfinite(end)  # a partial schedule's running jobs hold their processors to the end
    times = np.concatenate((submit, start, start, end[finished]))
    waiting_step = np.concatenate((np.ones(submit.size), -np.ones(start.size), np.zeros(start.size)))
    busy_step = np.concatenate((np.zeros(submit.size), np.zeros(start.size), width, -width[finished]))
    waiting_step = np.concatenate((waiting_step, np.zeros(int(finished.sum()))))
    distinct, where = np.unique(times, return_inverse=True)
    busy = np.cumsum(np.bincount(where, weights=busy_step, minlength=distinct.size))
    waiting = np.cumsum(np.bincount(where, weights=waiting_step, minlength=distinct.size))
    return distinct, np.rint(busy).astype(np.int64), np.rint(waiting).astype(np.int64)


def choose_bin(span: float) -> tuple[float, str]:
    """Return the bin width (seconds) and its name for a time axis spanning ``span`` seconds.

    The shortest of :data:`BIN_WIDTHS` that cuts the span into at most :data:`MAX_BINS` bins: fine
    enough to show a day's rhythm on a week's schedule, coarse enough that lines of several schedules
    stay apart on a trace of years (weeks, however long the span).

    Raises:
        BackfillError: A span that is not a positive finite number.

    Examples:
        >>> choose_bin(3 * 3600.0), choose_bin(6 * 86_400.0), choose_bin(113 * 7 * 86_400.0)
        ((60.0, 'minute'), (3600.0, 'hour'), (604800.0, 'week'))
    """
    if not (math.isfinite(span) and span > 0):
        raise BackfillError(f"a time span must be a positive number of seconds, got {span!r}")
    for name, width in BIN_WIDTHS.items():
        if math.ceil(span / width) <= MAX_BINS:
            return width, name
    return BIN_WIDTHS["week"], "week"


def bin_name(width: float) -> str:
    """Return a bin width in words, in the longest unit that counts it whole.

    Examples:
        >>> bin_name(3600.0), bin_name(5400.0), bin_name(129_600.0), bin_name(2.5)
        ('hour', '90 minutes', '36 hours', '2.5 seconds')
    """
    for seconds, one, many in _WORDS:
        count = width / seconds
        if count >= 1 and count == round(count):
            return one if count == 1 else f"{count:g} {many}"
    return f"{width:g} seconds"


def bin_edges(start: float, end: float, width: float) -> npt.NDArray[np.float64]:
    """Return the edges of bins of ``width`` seconds from ``start``, the last one cut at ``end``.

    Raises:
        BackfillError: Not finite ``start < end``, or a width that is not a positive finite number.

    Examples:
        >>> bin_edges(0.0, 25.0, 10.0).tolist(), bin_edges(0.0, 5.0, 10.0).tolist()
        ([0.0, 10.0, 20.0, 25.0], [0.0, 5.0])
    """
    if not all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in (start, end, width)):
        raise BackfillError(f"bins need start, end and width in seconds, got {start!r}, {end!r}, {width!r}")
    if not (math.isfinite(start) and math.isfinite(end) and start < end):
        raise BackfillError(f"bins need finite start < end, got [{start!r}, {end!r})")
    if not (math.isfinite(width) and width > 0):
        raise BackfillError(f"a bin width must be a positive number of seconds, got {width!r}")
    count = math.ceil((end - start) / width)
    if count > _MAX_EDGES:
        # Refused here rather than by numpy's allocation (a MemoryError, or the machine's memory).
        raise BackfillError(
            f"a bin width of {width!r} s cuts [{start!r}, {end!r}) into {count:,} bins, too many"
        )
    inner = start + width * np.arange(1, count, dtype=np.float64)
    return np.concatenate(([start], inner[inner < end], [end]))


def binned_means(
    times: npt.ArrayLike, values: npt.ArrayLike, edges: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Return the time-weighted mean of a step function over each bin, exactly.

    The step function is ``values[i]`` from ``times[i]`` until ``times[i + 1]``, the last value from
    the last time on, and 0 before the first time (the layout of :func:`utilization_queue_series`).
    Bin ``k`` is ``[edges[k], edges[k + 1])``; its mean is the integral of the function over it
    divided by its width, summed piece by piece between the events and edges inside it (no
    sampling), so a bin of integer events and values gets the exact integral.

    Args:
        times: Strictly increasing finite times.
        values: The function's value from each time on; as many as times.
        edges: Strictly increasing finite bin edges, at least two.

    Returns:
        One mean per bin.

    Raises:
        BackfillError: Arrays that are not one-dimensional, not finite, not strictly increasing,
            of different lengths, or fewer than two edges.

    Examples:
        >>> binned_means([0.0, 5.0, 10.0], [2.0, 4.0, 0.0], [0.0, 10.0, 20.0]).tolist()
        [3.0, 0.0]
        >>> binned_means([], [], [0.0, 1.0]).tolist()
        [0.0]
    """
    arrays = []
    for name, given in (("times", times), ("values", values), ("edges", edges)):
        try:
            a = np.asarray(given, dtype=np.float64)
        except (TypeError, ValueError):
            a = np.empty((0, 0))  # not numbers at all (strings, objects): refused just below
        if a.ndim != 1 or not np.all(np.isfinite(a)):
            raise BackfillError(f"{name} must be a one-dimensional array of finite numbers")
        arrays.append(a)
    t, v, e = arrays
    if t.size != v.size:
        raise BackfillError(f"{t.size} times but {v.size} values")
    if np.any(np.diff(t) <= 0):
        raise BackfillError("times must be strictly increasing")
    if e.size < 2 or np.any(np.diff(e) <= 0):
        raise BackfillError("edges must be at least two, strictly increasing")
    if t.size == 0:
        return np.zeros(e.size - 1)
    # Pieces between consecutive events and edges: the function is constant on each.
    points = np.union1d(t[(t > e[0]) & (t < e[-1])], e)
    left = points[:-1]
    at = np.searchsorted(t, left, side="right") - 1
    level = np.where(at >= 0, v[np.maximum(at, 0)], 0.0)
    where = np.searchsorted(e, left, side="right") - 1
    area = np.bincount(where, weights=level * np.diff(points), minlength=e.size - 1)
    return area / np.diff(e)


def _labelled(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
) -> list[tuple[str, Schedule]]:
    if isinstance(schedules, Schedule):
        return [(schedules.scheduler, schedules)]
    if isinstance(schedules, Mapping):
        return [(str(label), s) for label, s in schedules.items()]
    # A non-schedule gets a label of its position, for the error that names it.
    return [(s.scheduler if isinstance(s, Schedule) else f"#{k}", s) for k, s in enumerate(schedules)]


def _resolve_bin(bin_width: float | str | None, span: float) -> tuple[float, str]:
    """The bin width asked for (None: chosen from the span) and its name."""
    if bin_width is None:
        return choose_bin(span)
    if isinstance(bin_width, str):
        if bin_width not in BIN_WIDTHS:
            raise BackfillError(f"unknown bin {bin_width!r}; known: {', '.join(BIN_WIDTHS)}, or seconds")
        return BIN_WIDTHS[bin_width], bin_width
    if isinstance(bin_width, bool) or not isinstance(bin_width, numbers.Real):
        raise BackfillError(f"a bin width is seconds or a name, got {type(bin_width).__name__}")
    width = float(bin_width)
    if not (math.isfinite(width) and width > 0):
        raise BackfillError(f"a bin width must be a positive number of seconds, got {bin_width!r}")
    return width, bin_name(width)


def _series(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
) -> list[tuple[str, Schedule, tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]]]:
    """Each schedule with its label and step functions; refuses no schedules and non-schedules."""
    named = _labelled(schedules)
    if not named:
        raise BackfillError("utilization_queue needs at least one schedule")
    for label, s in named:
        if not isinstance(s, Schedule):
            raise BackfillError(f"{label!r}: expected a Schedule, got {type(s).__name__}")
    return [(label, s, utilization_queue_series(s)) for label, s in named]


def _window(
    series: Sequence[tuple[str, Schedule, tuple[npt.NDArray[np.float64], Any, Any]]],
    start: float | None,
    end: float | None,
) -> tuple[float, float, float]:
    """The time origin (first submission) and the window drawn: [start, end), by default all events."""
    origin = min((float(np.min(s.submit)) for _, s, _ in series if len(s)), default=0.0)
    last = max((float(t[-1]) for _, _, (t, _, _) in series if t.size), default=origin + 1.0)
    for name, bound in (("start", start), ("end", end)):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Real)):
            raise BackfillError(f"the window's {name} must be seconds or None, got {bound!r}")
    lo = origin if start is None else float(start)
    hi = last if end is None else float(end)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise BackfillError(f"the window needs finite start < end, got [{lo!r}, {hi!r})")
    return origin, lo, hi


def _grid(lo: float, hi: float, bin_width: float | str | None) -> tuple[npt.NDArray[np.float64], str]:
    """The bin edges of the window and the bin's name; refuses more bins than a figure can draw."""
    width, name = _resolve_bin(bin_width, hi - lo)
    if (hi - lo) / width > MAX_DRAWN_BINS:
        unit, unit_name = time_unit(hi - lo)
        raise BackfillError(
            f"one bin per {bin_name(width)} cuts the window of {(hi - lo) / unit:.3g} {unit_name} "
            f"into {math.ceil((hi - lo) / width):,} bins; a figure draws at most "
            f"{MAX_DRAWN_BINS:,}: give a wider bin"
        )
    return bin_edges(lo, hi, width), name


def utilization_bins(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
    *,
    start: float | None = None,
    end: float | None = None,
    bin_width: float | str | None = None,
) -> tuple[npt.NDArray[np.float64], str]:
    """Return the bin edges and the bin's name that :func:`utilization_queue` draws schedules in.

    The arguments mean what they mean there; the bins start at the window's start, and the last is
    cut at its end. A caller that will draw the figure later can check its bins first.

    Raises:
        BackfillError: As :func:`utilization_queue` does for these arguments.

    Examples:
        >>> from backfill import FCFS, Job, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=9000.0, estimate=9000.0)]
        >>> edges, name = utilization_bins(simulate(Workload.from_jobs(jobs, 1), FCFS()), bin_width="hour")
        >>> edges.tolist(), name
        ([0.0, 3600.0, 7200.0, 9000.0], 'hour')
    """
    _, lo, hi = _window(_series(schedules), start, end)
    return _grid(lo, hi, bin_width)


def _log_queue(peaks: Sequence[float]) -> bool:
    """Whether the queues of several schedules differ so much that a linear axis flattens some."""
    return len(peaks) > 1 and max(peaks) > 10.0 * max(min(peaks), 1.0)


def _symlog(ax: Axes) -> None:
    """A logarithmic y axis that also shows an empty queue: linear below one job."""
    from matplotlib.ticker import FuncFormatter

    ax.set_yscale("symlog", linthresh=1.0, linscale=0.5)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))


def utilization_queue(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
    *,
    start: float | None = None,
    end: float | None = None,
    bin_width: float | str | None = None,
    queue_scale: str | None = None,
    title: str | None = None,
) -> Figure:
    """Draw the share of processors busy and the jobs waiting over time, one line per schedule.

    One figure with two axes on a shared time axis, which reads in a unit fit for the span
    (minutes, hours, days or weeks since the first submission): above, the processors in use as a
    percentage of the machine; below, the jobs submitted and not yet started. Each line is the
    exact time-weighted mean of a step function of :func:`utilization_queue_series` over bins of
    one width (:func:`binned_means`), drawn as a step per bin, so that a trace of years reads as
    clearly as an afternoon's schedule; each schedule has one color in both axes, named in a legend
    above them. A line runs from the schedule's first submission to its last end (within the
    window), where its last bin is cut. Schedules of different workloads may be drawn together;
    the machine size of each is its own.

    Args:
        schedules: Label -> schedule, or schedules (labelled by their scheduler), or one schedule.
        start: Left edge of the window and of the first bin, in seconds; default the first submission.
        end: Right edge; default the last end.
        bin_width: Seconds, or a name of :data:`BIN_WIDTHS` (``"hour"``, ``"day"``, ``"week"``);
            None chooses from the window's span (:func:`choose_bin`).
        queue_scale: ``"linear"`` or ``"log"`` (a symmetric log scale, linear below one job);
            None is log when one schedule's queue peaks over ten times as high as another's.
        title: The figure's title; default says what is drawn, per what bin, of how many jobs on
            how many processors.

    Returns:
        The figure.

    Raises:
        BackfillError: No schedules, an object that is not a schedule, an empty window, a bin width
            that is not positive seconds or a known name, more than :data:`MAX_DRAWN_BINS` bins,
            or an unknown queue scale.

    Examples:
        >>> from backfill import EASY, FCFS, lublin_feitelson, simulate
        >>> w = lublin_feitelson(200, machine_size=32, seed=1)
        >>> fig = utilization_queue({"FCFS": simulate(w, FCFS()), "EASY": simulate(w, EASY())})
        >>> [len(ax.get_lines()) for ax in fig.axes]
        [2, 2]
    """
    if queue_scale not in (None, "linear", "log"):
        raise BackfillError(f"queue_scale must be 'linear', 'log' or None, got {queue_scale!r}")
    series = _series(schedules)
    origin, lo, hi = _window(series, start, end)
    grid, name = _grid(lo, hi, bin_width)
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 5.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    peaks = []
    for label, s, (times, busy, waiting) in series:
        # The line spans the schedule's own events: before its first submission and after its
        # last end there is no schedule to show, not an idle machine.
        a, b = (max(lo, float(times[0])), min(hi, float(times[-1]))) if times.size else (hi, lo)
        if a < b:
            edges = np.concatenate(([a], grid[(grid > a) & (grid < b)], [b]))
            share = 100.0 * binned_means(times, busy, edges) / s.workload.machine_size
            queue = binned_means(times, waiting, edges)
            peaks.append(float(queue.max()))
        else:
            edges, share, queue = np.empty(0), np.empty(0), np.empty(0)
        (line,) = top.plot(edges, np.append(share, share[-1:]), drawstyle="steps-post", label=label)
        bottom.plot(edges, np.append(queue, queue[-1:]), drawstyle="steps-post", color=line.get_color())
    for line in (*top.get_lines(), *bottom.get_lines()):
        line.set_linewidth(1.4)
    top.set_ylabel("processors busy (%)")
    top.set_ylim(0, 102)
    bottom.set_ylabel("jobs waiting")
    if queue_scale == "log" or (queue_scale is None and _log_queue(peaks)):
        _symlog(bottom)
        bottom.set_ylabel("jobs waiting (log scale)")
    bottom.set_ylim(bottom=0)
    bottom.set_xlim(lo, hi)
    readable_time_axis(bottom, lo, hi, origin)
    for ax in (top, bottom):
        ax.grid(True, linewidth=0.4, alpha=0.5)
    # Above the data, in rows of at most five: never over a line, however many schedules.
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(len(series), 5), frameon=False)
    if title is None:
        sizes = sorted({(len(s), s.workload.machine_size) for _, s, _ in series})
        shown = "; ".join(f"{n:,} jobs on {m:,} processors" for n, m in sizes)
        title = f"Utilization and queue length, mean per {name} ({shown})"
    fig.suptitle(title)
    return fig
