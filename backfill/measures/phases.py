"""High-load phases of a finished schedule and the utilization within them (Jin 2009, §4.2, eq. 1-2).

Jin judges a backfilling policy by the utilization it reaches while many jobs wait, since idle
processors then cost response time, while in quiet periods every policy keeps up with the arrivals.
A *high-load phase* (eq. 1) is a maximal stretch of time during which at least ``threshold`` jobs
wait (submitted, not yet started); the utilization over a set of stretches (eq. 2) is the
processor-time used in them over the machine's capacity in them.

Only jobs that started count: a rejected job never waits in a queue. The queue length and the
processors in use are step functions that change only at submits, starts and ends, so every function
here sorts those events once: O(n log n) for n jobs.

Examples:
    >>> from backfill import Job, Workload, simulate
    >>> from backfill.schedulers import FCFS
    >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=10.0, estimate=10.0) for i in range(4)]
    >>> s = simulate(Workload.from_jobs(jobs, machine_size=3), FCFS())
    >>> high_load_phases(s, threshold=2).tolist()  # one job runs at a time: 3, then 2 wait
    [[0.0, 20.0]]
    >>> round(high_load_utilization(s, threshold=2), 4)  # 2 of 3 processors busy then
    0.6667
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.schedule import Schedule

__all__ = ["high_load_phases", "high_load_utilization", "phase_utilization"]

FloatArray = npt.NDArray[np.float64]


def _steps(s: Schedule) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return the event times and, on each ``[times[k], times[k+1])``, the queue length and busy width."""
    started = np.isfinite(s.start)
    submit, start = s.submit[started], s.start[started]
    end = np.where(np.isfinite(s.end[started]), s.end[started], np.inf)
    width = s.processors[started].astype(np.float64)
    times = np.unique(np.concatenate([submit, start, end[np.isfinite(end)]]))
    n = times.size

    def level(on: FloatArray, off: FloatArray, weight: FloatArray) -> FloatArray:
        # Everything that happens at an instant counts from that instant on: a job submitted and
        # started at t never waits, one ending at t no longer runs at t.
        first = np.searchsorted(times, on)
        last = np.searchsorted(times, off)  # n for an end at infinity
        delta = np.bincount(first, weight, n + 1) - np.bincount(last, weight, n + 1)
        return np.asarray(np.cumsum(delta)[:n], dtype=np.float64)

    waiting = level(submit, start, np.ones_like(width))
    busy = level(start, end, width)
    return times, waiting, busy


def _check_threshold(threshold: float) -> None:
    if not (threshold >= 1):
        raise BackfillError(f"threshold must be a number of waiting jobs >= 1, got {threshold!r}")


def high_load_phases(s: Schedule, threshold: float) -> FloatArray:
    """Return the high-load phases: the maximal stretches with at least ``threshold`` jobs waiting.

    Args:
        s: A simulated schedule.
        threshold: ``N_H``, the queue length from which the load counts as high (>= 1).

    Returns:
        An array of shape (k, 2) of ``[start, end)`` times, in order, not overlapping and not
        touching (a phase that ends where the next begins is one phase).

    Raises:
        BackfillError: If ``threshold`` is below 1.

    Complexity:
        O(n log n) for n jobs.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0),
        ...         Job(id=2, submit=1.0, processors=1, runtime=5.0, estimate=5.0),
        ...         Job(id=3, submit=20.0, processors=1, runtime=5.0, estimate=5.0),
        ...         Job(id=4, submit=21.0, processors=1, runtime=5.0, estimate=5.0)]
        >>> high_load_phases(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), 1).tolist()
        [[1.0, 5.0], [21.0, 25.0]]
    """
    _check_threshold(threshold)
    times, waiting, _ = _steps(s)
    high = np.concatenate([[False], waiting >= threshold, [False]])
    edges = np.flatnonzero(high[1:] != high[:-1])
    # Each phase starts at the time where the count reaches the threshold and ends where it drops.
    bounds = times[np.minimum(edges, times.size - 1)].reshape(-1, 2)
    return np.asarray(bounds, dtype=np.float64)


def phase_utilization(s: Schedule, phases: FloatArray) -> float:
    """Return the utilization within given stretches of time (eq. 2 restricted to them).

    ``sum over the stretches of processor-time used / (machine size * their total length)``.

    Args:
        s: A simulated schedule.
        phases: ``[start, end)`` pairs, shape (k, 2), not overlapping.

    Returns:
        The utilization in [0, 1]; NaN if the stretches have no length.

    Raises:
        BackfillError: If ``phases`` is not of shape (k, 2) with start <= end.

    Complexity:
        O((n + k) log(n + k)) for n jobs and k stretches.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> phase_utilization(s, np.array([[5.0, 15.0]]))  # 2 of 4 processors for 5 of 10 s
        0.25
    """
    phases = np.asarray(phases, dtype=np.float64)
    if phases.size == 0:
        return float("nan")
    if phases.ndim != 2 or phases.shape[1] != 2 or bool(np.any(phases[:, 1] < phases[:, 0])):
        raise BackfillError("phases must be an array of [start, end) pairs with start <= end")
    length = float(np.sum(phases[:, 1] - phases[:, 0]))
    if length <= 0:
        return float("nan")
    times, _, busy = _steps(s)
    if times.size == 0:
        return 0.0
    # Processor-time used up to each event time, then read at the phase bounds by interpolation
    # (the integral of a step function is piecewise linear).
    used = np.concatenate([[0.0], np.cumsum(busy[:-1] * np.diff(times))])
    area_at = np.interp(phases.ravel(), times, used).reshape(-1, 2)
    # Past the last event nothing runs, and before the first nothing has run.
    area = float(np.sum(area_at[:, 1] - area_at[:, 0]))
    return area / (s.workload.machine_size * length)


def high_load_utilization(s: Schedule, threshold: float) -> float:
    """Return the utilization during the high-load phases (Jin eq. 1 and 2).

    Args:
        s: A simulated schedule.
        threshold: ``N_H``, the queue length from which the load counts as high (>= 1).

    Returns:
        The utilization in [0, 1]; NaN if the queue never reaches ``threshold``.

    Raises:
        BackfillError: If ``threshold`` is below 1.

    Complexity:
        O(n log n) for n jobs.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=3, submit=0.0, processors=1, runtime=10.0, estimate=10.0)]
        >>> high_load_utilization(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()), 2)
        0.75
    """
    return phase_utilization(s, high_load_phases(s, threshold))
