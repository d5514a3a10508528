"""What planning with predictions and limits costs: prediction accuracy, broken guarantees, unreserved jobs.

Pure functions of a finished :class:`~backfill.schedule.Schedule`. A schedule planned by a predictor
(:func:`~backfill.schedulers.prediction.planning.planning`) carries each job's first planned runtime
(:attr:`~backfill.schedule.Schedule.predicted`); any other schedule was planned with the estimates,
and is measured so (its "predictions" are the user's estimates).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backfill.schedule import Schedule

__all__ = [
    "PLANNING_KEYS",
    "guarantee_violations",
    "never_reserved",
    "planning_summary",
    "prediction_mae",
    "underprediction_rate",
]

#: The keys of :func:`planning_summary`, in order.
PLANNING_KEYS: tuple[str, ...] = (
    "prediction_mae",
    "underpredicted",
    "violations",
    "violated_jobs",
    "never_reserved",
)


def _ran(schedule: Schedule) -> npt.NDArray[np.bool_]:
    return np.isfinite(schedule.start) & np.isfinite(schedule.end)


def prediction_mae(schedule: Schedule) -> float:
    """Return the mean absolute difference, in seconds, between planned and actual runtimes.

    Over the jobs that ran; NaN if none did. The planned runtime is the first one
    (:attr:`~backfill.schedule.Schedule.planned`), before any extension.

    Examples:
        >>> from backfill import EASY, Job, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=9.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=3.0, estimate=3.0)]
        >>> prediction_mae(simulate(Workload.from_jobs(jobs, 2), EASY()))
        2.0
    """
    ran = _ran(schedule)
    if not ran.any():
        return float("nan")
    return float(np.abs(schedule.planned[ran] - schedule.runtime[ran]).mean())


def underprediction_rate(schedule: Schedule) -> float:
    """Return the fraction of the jobs that ran whose first planned runtime was shorter than their runtime.

    Those are the jobs the scheduler had to extend. NaN if no job ran.

    Examples:
        >>> from backfill import EASY, Job, Workload, planning, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=12.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=3.0, estimate=3.0)]
        >>> half = lambda job, now: job.estimate / 2
        >>> underprediction_rate(simulate(Workload.from_jobs(jobs, 2), planning(EASY(), predictor=half)))
        0.5
    """
    ran = _ran(schedule)
    if not ran.any():
        return float("nan")
    return float(np.count_nonzero(schedule.planned[ran] < schedule.runtime[ran]) / np.count_nonzero(ran))


def guarantee_violations(schedule: Schedule) -> npt.NDArray[np.int64]:
    """Return, for each job (row), how many times a guarantee it held was broken.

    A guarantee is broken when a job's reservation is replaced by a later one while held (no
    withdrawal, logged as NaN, in between: EASY withdraws a head's reservation when another job
    comes ahead, by design), and once more if the job starts after the last reservation it held.
    This is what :func:`~backfill.measures.validation.check_reservations` with ``while_held=True``
    rejects, counted instead: a scheduler planning with predictions breaks guarantees whenever an
    underpredicted job outlives its plan and pushes a reservation later. O(c log c) for c changes.

    Examples:
        >>> from backfill import Conservative, Job, Workload, planning, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=20.0),
        ...         Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> w = Workload.from_jobs(jobs, 2)
        >>> guarantee_violations(simulate(w, Conservative())).tolist()
        [0, 0]
        >>> quick = planning(Conservative(), predictor=lambda job, now: 4.0)
        >>> s = simulate(w, quick)
        >>> s.reservations_of(2).tolist(), s.start.tolist(), guarantee_violations(s).tolist()
        ([4.0, 20.0, 10.0], [0.0, 10.0], [0, 1])
    """
    n = len(schedule.workload)
    out = np.zeros(n, dtype=np.int64)
    r = schedule.reservations
    if r.size == 0:
        return out
    # lexsort is stable: one job's changes keep the order they were made in.
    r = r[np.lexsort((np.arange(r.size), r["job_id"]))]
    ids = schedule.workload.column("id")
    order = np.argsort(ids, kind="stable")
    rows = order[np.searchsorted(ids, r["job_id"], sorter=order)]
    starts = r["start"]
    same = rows[1:] == rows[:-1]
    later = same & (starts[1:] > starts[:-1])  # False when either is NaN
    np.add.at(out, rows[1:][later], 1)
    last = np.ones(r.size, dtype=bool)
    last[:-1] = ~same
    held = starts[last]
    actual = schedule.start[rows[last]]
    late = ~np.isnan(held) & (actual > held)
    np.add.at(out, rows[last][late], 1)
    return out


def never_reserved(schedule: Schedule) -> npt.NDArray[np.bool_]:
    """Return, for each job (row), whether it waited to start without ever holding a reservation.

    Jobs that started on arrival need none; planning limits (reservation depth, a planning window)
    leave others without one. Count them with ``.sum()``. O(n + c).

    Examples:
        >>> from backfill import EASY, Job, Workload, simulate
        >>> jobs = [Job(id=i, submit=0.0, processors=2 - min(i, 1), runtime=5.0, estimate=5.0)
        ...         for i in range(3)]
        >>> never_reserved(simulate(Workload.from_jobs(jobs, 2), EASY())).tolist()  # 1 was the head
        [False, False, True]
    """
    waited = np.isfinite(schedule.start) & (schedule.start > schedule.workload.column("submit"))
    r = schedule.reservations
    reserved = np.isin(schedule.workload.column("id"), r["job_id"][~np.isnan(r["start"])])
    return waited & ~reserved


def planning_summary(schedule: Schedule) -> dict[str, float]:
    """Return the planning measures as a flat dict (keys in :data:`PLANNING_KEYS`).

    ``prediction_mae`` (seconds) and ``underpredicted`` (a fraction) as :func:`prediction_mae` and
    :func:`underprediction_rate` give them; ``violations`` is the total of
    :func:`guarantee_violations` and ``violated_jobs`` the number of jobs with at least one;
    ``never_reserved`` counts :func:`never_reserved`.

    Examples:
        >>> from backfill import EASY, Job, Workload, simulate
        >>> jobs = [Job(id=i, submit=0.0, processors=2 - min(i, 1), runtime=5.0, estimate=5.0)
        ...         for i in range(3)]
        >>> summary = planning_summary(simulate(Workload.from_jobs(jobs, 2), EASY()))
        >>> summary["prediction_mae"], summary["violations"], summary["never_reserved"]
        (0.0, 0.0, 1.0)
    """
    violations = guarantee_violations(schedule)
    return {
        "prediction_mae": prediction_mae(schedule),
        "underpredicted": underprediction_rate(schedule),
        "violations": float(violations.sum()),
        "violated_jobs": float(np.count_nonzero(violations)),
        "never_reserved": float(never_reserved(schedule).sum()),
    }
