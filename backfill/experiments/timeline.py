"""Utilization and queue length over time, for one schedule or several side by side.

:func:`utilization_queue_series` gives the two step functions exactly (no sampling, no
matplotlib); :func:`utilization_queue` draws them for one or more schedules on one figure with a
shared, readable time axis: the share of processors busy above, the jobs waiting below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.experiments._figure import readable_time_axis, require_matplotlib
from backfill.schedule import Schedule

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["utilization_queue", "utilization_queue_series"]


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


def _labelled(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
) -> list[tuple[str, Schedule]]:
    if isinstance(schedules, Schedule):
        return [(schedules.scheduler, schedules)]
    if isinstance(schedules, Mapping):
        return [(str(label), s) for label, s in schedules.items()]
    return [(s.scheduler, s) for s in schedules]


def utilization_queue(
    schedules: Mapping[str, Schedule] | Sequence[Schedule] | Schedule,
    *,
    start: float | None = None,
    end: float | None = None,
    title: str | None = None,
) -> Figure:
    """Draw the share of processors busy and the jobs waiting over time, one line per schedule.

    One figure with two axes on a shared time axis, which reads in a unit fit for the span
    (minutes, hours, days or weeks since the first submission): above, the processors in use as a
    percentage of the machine; below, the jobs submitted and not yet started. Each schedule is a
    step line of the same color in both (from :func:`utilization_queue_series`), named in one
    legend. Schedules of different workloads may be drawn together; the machine size of each is its
    own.

    Args:
        schedules: Label -> schedule, or schedules (labelled by their scheduler), or one schedule.
        start: Left edge of the window, in seconds; default the first submission.
        end: Right edge; default the last end.
        title: The figure's title; default says what is drawn, of how many jobs on how many
            processors.

    Returns:
        The figure.

    Raises:
        BackfillError: No schedules, an object that is not a schedule, or an empty window.

    Examples:
        >>> from backfill import EASY, FCFS, lublin_feitelson, simulate
        >>> w = lublin_feitelson(200, machine_size=32, seed=1)
        >>> fig = utilization_queue({"FCFS": simulate(w, FCFS()), "EASY": simulate(w, EASY())})
        >>> [len(ax.get_lines()) for ax in fig.axes]
        [2, 2]
    """
    named = _labelled(schedules)
    if not named:
        raise BackfillError("utilization_queue needs at least one schedule")
    for label, s in named:
        if not isinstance(s, Schedule):
            raise BackfillError(f"{label!r}: expected a Schedule, got {type(s).__name__}")
    series = [(label, s, utilization_queue_series(s)) for label, s in named]
    origin = min((float(np.min(s.submit)) for _, s, _ in series if len(s)), default=0.0)
    last = max((float(t[-1]) for _, _, (t, _, _) in series if t.size), default=origin + 1.0)
    lo = origin if start is None else float(start)
    hi = last if end is None else float(end)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise BackfillError(f"the window needs finite start < end, got [{lo!r}, {hi!r})")
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 5.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    for label, s, (times, busy, waiting) in series:
        # Each step holds until the next event; the last holds to the window's end.
        x = np.append(times, hi)
        share = 100.0 * np.append(busy, busy[-1] if busy.size else 0) / s.workload.machine_size
        (line,) = top.step(x, share, where="post", label=label, linewidth=0.9)
        queue = np.append(waiting, waiting[-1] if waiting.size else 0)
        bottom.step(x, queue, where="post", color=line.get_color(), linewidth=0.9)
    top.set_ylabel("processors busy (%)")
    top.set_ylim(0, 105)
    bottom.set_ylabel("jobs waiting")
    bottom.set_ylim(bottom=0)
    bottom.set_xlim(lo, hi)
    readable_time_axis(bottom, lo, hi, origin)
    for ax in (top, bottom):
        ax.grid(True, linewidth=0.3, alpha=0.6)
    top.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if title is None:
        sizes = sorted({(len(s), s.workload.machine_size) for _, s, _ in series})
        shown = "; ".join(f"{n} jobs on {m} processors" for n, m in sizes)
        title = f"Utilization and queue length over time ({shown})"
    fig.suptitle(title)
    return fig
