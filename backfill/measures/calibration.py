"""Selective's starvation thresholds calibrated from a finished schedule (Srinivasan et al. 2002, §4.2).

The paper calibrates *Selective* with the mean bounded slowdown of a previous run of Conservative
backfilling (:func:`starvation_threshold`) and *Selective-D* with that mean per job category
(:func:`category_thresholds`). Both read a finished schedule, so they live with the measures; what
they return is given to :class:`~backfill.schedulers.selective.Selective`.
"""

from __future__ import annotations

import math

import numpy as np

from backfill.errors import BackfillError
from backfill.measures.groups import job_categories
from backfill.measures.metrics import DEFAULT_BOUND, bounded_slowdowns
from backfill.schedule import Schedule
from backfill.schedulers.machinery.thresholds import CategoryThresholds, is_number
from backfill.workloads.conventions import CATEGORIES

__all__ = ["category_thresholds", "starvation_threshold"]


def _slowdowns(
    schedule: Schedule, well_estimated_within: float | None, bound: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return the bounded slowdown of every row (NaN if not completed) and the mask of rows to use."""
    done = np.isfinite(schedule.start) & np.isfinite(schedule.end)
    bsld = np.full(len(schedule), np.nan)
    bsld[done] = bounded_slowdowns(schedule, bound)
    use = done
    if well_estimated_within is not None:
        k = well_estimated_within
        if not is_number(k) or not 1 <= k < math.inf:
            raise BackfillError(f"well_estimated_within must be a finite number >= 1 or None, got {k!r}")
        with np.errstate(invalid="ignore"):
            use = done & (np.asarray(schedule.estimate) <= k * np.asarray(schedule.runtime))
    return bsld, use


def starvation_threshold(
    schedule: Schedule, *, well_estimated_within: float | None = 2.0, bound: float = DEFAULT_BOUND
) -> float:
    """Return the paper's Selective threshold: the mean bounded slowdown of a previous run.

    Srinivasan et al. (2002, §4.2) take the mean slowdown of a run of Conservative backfilling; with
    inexact estimates (§4.3) only the *well estimated* jobs count, those whose runtime is within a
    factor of two of their estimate, because aborted and badly over-estimated jobs have slowdowns far
    above the rest. Here a completed job counts if ``estimate <= well_estimated_within * runtime``
    (the estimate the scheduler saw, ``Schedule.estimate``); ``None`` counts every completed job.
    With exact estimates every job counts.

    Args:
        schedule: A finished schedule, typically of :class:`~backfill.schedulers.Conservative`.
        well_estimated_within: The largest ratio of estimate to runtime of a job that counts, or None.
        bound: The bounded-slowdown threshold in seconds.

    Raises:
        BackfillError: If no completed job counts, or a parameter is out of range.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=10.0, estimate=1000.0),
        ...         Job(id=3, submit=0.0, processors=1, runtime=50.0, estimate=60.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())
        >>> starvation_threshold(s)  # (1 + 160 / 50) / 2: job 2 is badly estimated
        2.1
    """
    bsld, use = _slowdowns(schedule, well_estimated_within, bound)
    if not use.any():
        raise BackfillError("no completed (well estimated) job to calibrate a threshold from")
    return float(bsld[use].mean())


def category_thresholds(
    schedule: Schedule,
    *,
    well_estimated_within: float | None = 2.0,
    bound: float = DEFAULT_BOUND,
    runtime_boundary: float = 3600.0,
    width_boundary: int = 8,
) -> CategoryThresholds:
    """Return the paper's Selective-D thresholds: the mean bounded slowdown of each job category.

    As :func:`starvation_threshold`, per category of :func:`~backfill.measures.groups.job_categories` (by the
    runtime the jobs ran, the paper's classification; the scheduler classifies waiting jobs by their
    estimate, the same thing with exact estimates). A category with no counted job gets the overall
    mean. The boundaries are carried into the result.

    Args:
        schedule: A finished schedule, typically of :class:`~backfill.schedulers.Conservative`.
        well_estimated_within: The largest ratio of estimate to runtime of a job that counts, or None.
        bound: The bounded-slowdown threshold in seconds.
        runtime_boundary: The longest runtime of a short job, in seconds.
        width_boundary: The most processors of a narrow job (64 for LANL in the paper).

    Raises:
        BackfillError: If no completed job counts, or a parameter is out of range.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0),
        ...         Job(id=2, submit=0.0, processors=16, runtime=50.0, estimate=50.0)]
        >>> t = category_thresholds(simulate(Workload.from_jobs(jobs, machine_size=16), FCFS()))
        >>> t.sn, t.sw, t.ln  # SW: 150 / 50; no long job, so LN gets the overall mean
        (1.0, 3.0, 2.0)
    """
    bsld, use = _slowdowns(schedule, well_estimated_within, bound)
    if not use.any():
        raise BackfillError("no completed (well estimated) job to calibrate thresholds from")
    labels = job_categories(schedule, runtime_boundary=runtime_boundary, width_boundary=width_boundary)
    overall = float(bsld[use].mean())
    values = []
    for c in CATEGORIES:
        mine = use & (labels == c)
        values.append(float(bsld[mine].mean()) if mine.any() else overall)
    sn, sw, ln, lw = values
    return CategoryThresholds(
        sn, sw, ln, lw, runtime_boundary=float(runtime_boundary), width_boundary=int(width_boundary)
    )
