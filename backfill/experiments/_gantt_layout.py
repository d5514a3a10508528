"""What a Gantt figure shows, computed without matplotlib: its window, its colors' classes, occupancy.

Private to :mod:`backfill.experiments.gantt`, which re-exports every public name here:
:func:`gantt_window` reads the window (``--gantt-window``) and places it on a schedule,
:func:`color_classes` sorts the jobs into the classes a figure colors alike (by user, group, queue,
partition or size) and :func:`occupancy` adds up the processors each class uses over time, which
is what a figure of a machine too large for one lane per processor draws.
"""

from __future__ import annotations

import math
import string
from typing import Any

import attrs
import numpy as np

from backfill._validators import optional_seconds
from backfill.errors import BackfillError, ParameterError
from backfill.schedule import Schedule
from backfill.schedulers.registry import duration_from_text, non_negative_float_from_text

__all__ = [
    "COLOR_BY",
    "DEFAULT_WINDOW",
    "ColorClasses",
    "SIZE_CLASSES",
    "GanttWindow",
    "JOB_COLORS",
    "color_classes",
    "gantt_window",
    "job_span",
    "occupancy",
]

#: What a Gantt figure's colors can tell apart: a workload column, ``size`` (log2 classes of width),
#: or ``job``: the jobs themselves, in colors that cycle by id, without a key.
COLOR_BY = ("user", "group", "queue", "partition", "size", "job")
#: The colors ``job`` cycles through (matplotlib's tab20).
JOB_COLORS = 20
#: The length of a Gantt figure's window when none is given: two days.
DEFAULT_WINDOW = 2 * 86_400.0

#: The most classes of size a Gantt figure's colors tell apart.
SIZE_CLASSES = 8

_PLURAL = {"user": "users", "group": "groups", "queue": "queues", "partition": "partitions"}


def job_span(s: Schedule) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Each row's time on the machine, ``[begin, finish)``; ``finish <= begin`` for a row that runs nowhere.

    An unstarted job begins at infinity; a started job without an end (a partial schedule) runs to
    infinity; a job of zero runtime finishes at minus infinity.
    """
    begin = np.where(np.isfinite(s.start), s.start, math.inf)
    finish = np.where(np.isfinite(s.start) & np.isnan(s.end), math.inf, s.end)
    finish = np.where(np.isfinite(s.start) & (s.runtime > 0), finish, -math.inf)
    return begin, finish


@attrs.frozen
class GanttWindow:
    """A Gantt figure's window as given, before it meets a schedule (:func:`gantt_window` places it).

    Attributes:
        start: Its left edge in seconds after the first submission; None: the middle job's submission.
        end: Its right edge, likewise; None: ``start + length``, or the schedule's end if that is sooner.
        length: The span when no end is given (seconds; infinite: to the schedule's end).

    Raises:
        ParameterError: A start or end that is not None or finite seconds >= 0, a length that is not
            > 0, or an end not after the start.
    """

    start: float | None = attrs.field(default=None, validator=optional_seconds)
    end: float | None = attrs.field(default=None, validator=optional_seconds)
    length: float = attrs.field(default=DEFAULT_WINDOW)

    @length.validator
    def _check_length(self, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
            raise ParameterError(f"GanttWindow.length must be seconds > 0 (inf: all), got {value!r}")
        if self.start is not None and self.end is not None and not self.end > self.start:
            raise ParameterError(f"GanttWindow.end must come after start, got {self.start!r}:{self.end!r}")

    @classmethod
    def from_text(cls, text: str) -> GanttWindow:
        """Read ``LENGTH``, ``START:END``, ``START:`` (a default length from START) or ``all``.

        Times are durations (a number of seconds, or one followed by s, min, h or d), START and END
        counted from the first submission, as the figure's time axis is.

        Raises:
            ParameterError: Not one of these forms, or an END not after START.

        Examples:
            >>> GanttWindow.from_text("12h")
            GanttWindow(start=None, end=None, length=43200.0)
            >>> GanttWindow.from_text("10d:12d")
            GanttWindow(start=864000.0, end=1036800.0, length=172800.0)
            >>> GanttWindow.from_text("all")
            GanttWindow(start=0.0, end=None, length=inf)
        """
        stripped = text.strip().lower()
        if stripped == "all":
            return cls(0.0, None, math.inf)
        try:
            if ":" not in stripped:
                return cls(None, None, duration_from_text(stripped))
            first, _, second = stripped.partition(":")
            start = _offset(first) if first.strip() else 0.0
            if not second.strip():
                return cls(start, None)
            end = _offset(second)
        except ParameterError:
            raise ParameterError(
                "expected LENGTH, START:END, START: or all, times such as 36h or 2d counted from "
                f"the first submission, got {text!r}"
            ) from None
        if end <= start:
            raise ParameterError(f"the window's end must come after its start, got {text!r}")
        return cls(start, end, end - start)


def _offset(text: str) -> float:
    """A time after the first submission: a duration (:func:`duration_from_text`), or zero in any unit."""
    try:
        return duration_from_text(text)
    except ParameterError:
        stripped = text.strip().lower()
        number = stripped.rstrip(string.ascii_lowercase)
        if number.strip() and non_negative_float_from_text(number) == 0:
            duration_from_text("1" + stripped[len(number) :])  # the unit is one a duration takes
            return 0.0
        raise


def gantt_window(schedule: Schedule, window: GanttWindow | str | None = None) -> tuple[float, float]:
    """Place a Gantt figure's window on a schedule: ``[start, end)`` in seconds of simulated time.

    Without a start, the window begins at the middle job's submission, a busy stretch, and lasts
    ``length`` (two days by default) or to the last job's end if that is sooner; should that leave
    nothing, it is the whole schedule. With a start (counted from the first submission) and no end,
    it lasts ``length`` from there, again at most to the last end; an end given is kept as given.

    Args:
        schedule: The schedule drawn.
        window: The window, or its text (:meth:`GanttWindow.from_text`); None: the default.

    Returns:
        The window's start and end.

    Raises:
        BackfillError: The window starts after the last job ends (the error says when that is).
            Or ``window`` is neither a :class:`GanttWindow`, its text nor None.
        ParameterError: Text that is not a window.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=3600.0 * i, processors=1, runtime=7200.0, estimate=7200.0)
        ...         for i in range(1, 4)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
        >>> gantt_window(s), gantt_window(s, "1h:2h"), gantt_window(s, "30min")
        ((7200.0, 18000.0), (7200.0, 10800.0), (7200.0, 9000.0))
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    if isinstance(window, str):
        window = GanttWindow.from_text(window)
    elif window is None:
        window = GanttWindow()
    elif not isinstance(window, GanttWindow):
        raise BackfillError(f"expected a GanttWindow, its text or None, got {type(window).__name__}")
    submit = schedule.submit
    first = float(submit.min()) if len(submit) else 0.0
    ends = schedule.end[np.isfinite(schedule.end)]
    last = float(ends.max()) if ends.size else first + 1.0
    if window.start is None:
        start = float(submit[len(submit) // 2]) if len(submit) else first
        end = min(last, start + window.length)
        return (start, end) if end > start else (first, max(last, first + 1.0))
    start = first + window.start
    if start >= last:
        unit, name = (86_400.0, "days") if last - first >= 2 * 86_400 else (3600.0, "hours")
        raise BackfillError(
            f"the window starts {window.start / unit:.4g} {name} after the first submission, when the "
            f"schedule is over: its last job ends {(last - first) / unit:.4g} {name} after it"
        )
    end = first + window.end if window.end is not None else min(last, start + window.length)
    return start, end


@attrs.frozen
class ColorClasses:
    """The classes of jobs a Gantt figure colors alike, and each job's class.

    Attributes:
        by: What tells the classes apart: one of :data:`COLOR_BY`.
        labels: Each class's name for a legend, in legend order (sizes from the narrowest).
        of_row: Each row's class, an index into ``labels``, whether or not the job runs in the window
            (a job queued then has its reservation drawn in it); -1 for a job that none fits: of a
            size no job of the window has, or of a value none has when no class gathers the rest.
        other: Whether the last class gathers the jobs of every value not given a class of its own.
    """

    by: str
    labels: tuple[str, ...]
    of_row: np.ndarray[Any, Any] = attrs.field(eq=False, repr=False)
    other: bool = False

    @property
    def title(self) -> str:
        """The legend's title: what the classes are."""
        return "processors" if self.by == "size" else self.by


def color_classes(
    schedule: Schedule,
    by: str = "user",
    *,
    start: float = -math.inf,
    end: float = math.inf,
    top: int = 10,
) -> ColorClasses:
    """Sort the jobs running in [start, end) into the classes a Gantt figure colors alike.

    ``size`` puts a job in the power-of-two class of its processors (1, 2-3, 4-7, ...), or, when
    that would make more than :data:`SIZE_CLASSES` classes up to the widest job of the window, of
    powers of 4 (1-3, 4-15, ...), 8, and so on; classes that no job of the window is in are left
    out. A column (``user``, ``group``, ``queue``,
    ``partition``) gives each of its ``top`` values with the largest area in the window
    (processors times the time run in the window) a class of its own, the largest first, and puts
    the rest in one class, ``other users`` (or groups, ...); when only one value would be left
    over, it keeps its own class instead. -1 (not known) is a value like the others. ``job`` gives
    each job the class of its id modulo :data:`JOB_COLORS`: colors that tell neighbouring jobs
    apart and mean nothing else, for small pictures where every job is labelled.

    Args:
        schedule: A schedule.
        by: One of :data:`COLOR_BY`.
        start: Left edge of the window; jobs ending at or before it have no class.
        end: Right edge; jobs starting at or after it have no class.
        top: The most values of a column given classes of their own (at least 1).

    Returns:
        The classes and each job's class.

    Raises:
        BackfillError: Not a schedule, an unknown ``by``, a ``top`` below 1, or a ``start`` not
            before ``end`` (NaN included).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=p, runtime=10.0, estimate=10.0, user=u)
        ...         for i, (p, u) in enumerate([(1, 7), (2, 7), (4, 3), (1, 5)])]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=8), FCFS())
        >>> c = color_classes(s, "user", top=1)
        >>> c.labels, c.of_row.tolist()
        (('user 3', 'other users'), [1, 1, 0, 1])
        >>> c = color_classes(s, "size")
        >>> c.labels, c.of_row.tolist()
        (('1', '2-3', '4-7'), [0, 1, 2, 0])
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"expected a Schedule, got {type(schedule).__name__}")
    if by not in COLOR_BY:
        raise BackfillError(f"cannot color by {by!r}: choose one of {', '.join(COLOR_BY)}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise BackfillError(f"top must be an int of at least 1, got {top!r}")
    if not start < end:  # NaN too
        raise BackfillError(f"the window needs start < end, got [{start!r}, {end!r})")
    begin, finish = job_span(schedule)
    shown = (begin < end) & (finish > start) & (finish > begin)
    if by == "job":  # the colors cycle: jobs apart, not classes
        of_row = schedule.workload.column("id") % JOB_COLORS
        return ColorClasses(by, tuple(f"id % {JOB_COLORS} = {k}" for k in range(JOB_COLORS)), of_row)
    of_row = np.full(len(schedule), -1, dtype=np.int64)
    if by == "size":
        powers = np.floor(np.log2(np.maximum(schedule.processors, 1))).astype(np.int64)
        # At most SIZE_CLASSES classes: wider ones (powers of 4, 8, ...) past that many powers of 2.
        step = max(1, -(-(int(powers[shown].max()) + 1) // SIZE_CLASSES)) if shown.any() else 1
        present = np.unique(powers[shown] // step)
        has = np.isin(powers // step, present)
        of_row[has] = np.searchsorted(present, powers[has] // step)
        labels = tuple(_size_label(2 ** (c * step), 2 ** ((c + 1) * step) - 1) for c in present.tolist())
        return ColorClasses(by, labels, of_row)
    values = schedule.workload.column(by)
    area = schedule.processors * (np.minimum(finish, end) - np.maximum(begin, start))
    kinds, which = np.unique(values[shown], return_inverse=True)
    totals = np.bincount(which, weights=area[shown], minlength=kinds.size)
    order = np.lexsort((kinds, -totals))  # the largest area first, ties by value
    kept = order if kinds.size <= top + 1 else order[:top]
    other = kept.size < kinds.size
    ranked = kinds[kept]  # each class's value, the largest area first
    if ranked.size:  # else no job runs in the window: every row keeps -1
        sorter = np.argsort(ranked)
        at = sorter[np.minimum(np.searchsorted(ranked, values, sorter=sorter), ranked.size - 1)]
        has = ranked[at] == values
        of_row[has] = at[has]
    else:
        has = np.zeros(len(values), dtype=bool)
    if other:
        of_row[~has] = kept.size
    labels = tuple(f"{by} {v}" if v != -1 else f"{by} unknown" for v in kinds[kept].tolist())
    return ColorClasses(by, (*labels, f"other {_PLURAL[by]}") if other else labels, of_row, other)


def _size_label(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def occupancy(
    schedule: Schedule, classes: ColorClasses, *, start: float, end: float
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Add up the processors each class uses over [start, end), a step function of time.

    Args:
        schedule: A schedule.
        classes: Its jobs' classes (:func:`color_classes`); jobs of class -1 are left out.
        start: Left edge of the window.
        end: Right edge; greater than ``start``.

    Returns:
        The times at which the sums change, from ``start`` to ``end`` (k + 1 of them), and the
        processors each class uses in each of the k steps between them (classes x k).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=5.0, processors=1, runtime=10.0, estimate=10.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> times, used = occupancy(s, color_classes(s, "size"), start=0.0, end=20.0)
        >>> times.tolist(), used.tolist()
        ([0.0, 5.0, 10.0, 15.0, 20.0], [[0.0, 1.0, 1.0, 0.0], [2.0, 2.0, 0.0, 0.0]])
    """
    if not (math.isfinite(start) and math.isfinite(end) and start < end):
        raise BackfillError(f"the window needs finite start < end, got [{start!r}, {end!r})")
    begin, finish = job_span(schedule)
    rows = np.flatnonzero((classes.of_row >= 0) & (begin < end) & (finish > start) & (finish > begin))
    t0, t1 = np.clip(begin[rows], start, end), np.clip(finish[rows], start, end)
    times = np.unique(np.concatenate(([start, end], t0, t1)))
    width = schedule.processors[rows].astype(float)
    change = np.zeros((len(classes.labels), times.size))
    np.add.at(change, (classes.of_row[rows], np.searchsorted(times, t0)), width)
    np.add.at(change, (classes.of_row[rows], np.searchsorted(times, t1)), -width)
    return times, np.cumsum(change, axis=1)[:, :-1]
