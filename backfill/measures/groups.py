"""Metrics of a finished schedule broken down by job category, runtime class or user.

Srinivasan, Kettimuthu, Subramani and Sadayappan (2002, §2.1) sort jobs into four categories, Short
or Long by runtime and Narrow or Wide by width, because averages over a whole trace hide policies
that help one kind of job at the expense of another; §5 (Fig. 7) splits jobs into five runtime
classes. Vasupongayya's per-user analysis reports, for each user, the maximum and mean wait and the
mean bounded slowdown of the user's jobs. :func:`group_summary` computes those statistics for any
grouping; :func:`per_category` and :func:`per_user` are the two groupings of the papers.

As in :mod:`backfill.measures.metrics`, the statistics cover only the jobs that completed (started and
ended); rejected and unfinished jobs belong to no group. Every function works on whole arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.measures.metrics import DEFAULT_BOUND, bounded_slowdowns, response_times, wait_times
from backfill.schedule import Schedule
from backfill.workloads.conventions import CATEGORIES, category_indices
from backfill.workloads.workload import Workload

__all__ = [
    "CATEGORIES",
    "DEFAULT_RUNTIME_BOUNDARIES",
    "GROUP_KEYS",
    "category_shares",
    "group_summary",
    "job_categories",
    "per_category",
    "per_user",
    "runtime_class_labels",
    "runtime_classes",
]

FloatArray = npt.NDArray[np.float64]
StrArray = npt.NDArray[np.str_]

_CATEGORY_ARRAY: StrArray = np.array(CATEGORIES)

#: The keys of each group's statistics in :func:`group_summary`, in order.
GROUP_KEYS: tuple[str, ...] = (
    "jobs",
    "share",
    "mean_wait",
    "max_wait",
    "mean_response",
    "max_response",
    "mean_bsld",
    "max_bsld",
)

#: Srinivasan et al.'s (2002, Fig. 7) runtime classes: 15 minutes, 1, 4 and 16 hours.
DEFAULT_RUNTIME_BOUNDARIES: tuple[float, ...] = (900.0, 3600.0, 14400.0, 57600.0)


def _columns(source: Schedule | Workload) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Return the runtime and width of every row of a schedule (runtime it ran) or a workload."""
    if isinstance(source, Schedule):
        return np.asarray(source.runtime, dtype=np.float64), source.processors
    if isinstance(source, Workload):
        return source.column("runtime").astype(np.float64), source.column("processors")
    raise BackfillError(f"expected a Schedule or a Workload, got {type(source).__name__}")


def _check_boundary(name: str, value: float) -> None:
    if not (np.isfinite(value) and value >= 0):
        raise BackfillError(f"{name} must be a non-negative number, got {value!r}")


def job_categories(
    source: Schedule | Workload, *, runtime_boundary: float = 3600.0, width_boundary: int = 8
) -> StrArray:
    """Return the category, 'SN', 'SW', 'LN' or 'LW', of every job, aligned with the rows.

    A job is Short if its runtime is at most ``runtime_boundary`` (Long otherwise) and Narrow if it
    uses at most ``width_boundary`` processors (Wide otherwise): both boundaries are inclusive on the
    short and narrow side, as the paper's "≤ 1 Hr" and "≤ 8 Processors". Srinivasan et al. (2002)
    use 1 hour and 8 processors for CTC, KTH and SDSC and 1 hour and 64 processors for LANL, where no
    job has fewer than 32. The paper classifies by requested processors; the width here is the
    ``processors`` column the simulators use. A schedule is classified by the runtime its jobs ran
    for (``Schedule.runtime``), a workload by its ``runtime`` column, where SWF's unknown (-1)
    counts as short.

    Args:
        source: A simulated schedule or a workload.
        runtime_boundary: The longest runtime of a short job, in seconds.
        width_boundary: The most processors of a narrow job.

    Raises:
        BackfillError: If a boundary is negative or not finite.

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=1, submit=0.0, processors=8, runtime=3600.0, estimate=3600.0),
        ...         Job(id=2, submit=0.0, processors=9, runtime=3601.0, estimate=3601.0)]
        >>> job_categories(Workload.from_jobs(jobs, machine_size=16)).tolist()
        ['SN', 'LW']
    """
    _check_boundary("runtime_boundary", runtime_boundary)
    _check_boundary("width_boundary", width_boundary)
    runtime, width = _columns(source)
    return _CATEGORY_ARRAY[category_indices(runtime, width, runtime_boundary, width_boundary)]


def _duration(seconds: float) -> str:
    """Write a duration in the largest unit that divides it: 900 -> '15m', 86400 -> '1d', 1.5 -> '1.5s'."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds > 0 and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{np.format_float_positional(seconds, trim='-')}s"


def _checked_boundaries(boundaries: Sequence[float]) -> FloatArray:
    b = np.asarray(boundaries, dtype=np.float64)
    if b.ndim != 1 or b.size == 0:
        raise BackfillError(f"runtime class boundaries must be a non-empty sequence, got {boundaries!r}")
    if not (np.all(np.isfinite(b)) and np.all(b >= 0)):
        raise BackfillError(f"runtime class boundaries must be non-negative numbers, got {boundaries!r}")
    if np.any(np.diff(b) <= 0):
        raise BackfillError(f"runtime class boundaries must be strictly increasing, got {boundaries!r}")
    return b


def runtime_class_labels(boundaries: Sequence[float] = DEFAULT_RUNTIME_BOUNDARIES) -> tuple[str, ...]:
    """Return the labels of the runtime classes that ``boundaries`` delimit, shortest class first.

    ``n`` boundaries make ``n + 1`` classes: ``'<=b0'``, ``'b0-b1'``, ..., ``'>bn'``, each boundary
    written in the largest of days, hours, minutes or seconds that divides it.

    Args:
        boundaries: Strictly increasing, non-negative runtimes in seconds.

    Raises:
        BackfillError: If the boundaries are empty, negative, not finite or not strictly increasing.

    Examples:
        >>> runtime_class_labels()
        ('<=15m', '15m-1h', '1h-4h', '4h-16h', '>16h')
        >>> runtime_class_labels([30, 5400, 172800])
        ('<=30s', '30s-90m', '90m-2d', '>2d')
    """
    names = [_duration(float(x)) for x in _checked_boundaries(boundaries)]
    middle = [f"{lo}-{hi}" for lo, hi in pairwise(names)]
    return (f"<={names[0]}", *middle, f">{names[-1]}")


def runtime_classes(
    source: Schedule | Workload, *, boundaries: Sequence[float] = DEFAULT_RUNTIME_BOUNDARIES
) -> StrArray:
    """Return the runtime class of every job, aligned with the rows (Srinivasan et al. 2002, Fig. 7).

    The labels are those of :func:`runtime_class_labels`. A class includes its upper boundary: with
    the default boundaries a job of exactly one hour is in ``'15m-1h'``. Runtimes are read as in
    :func:`job_categories`.

    Args:
        source: A simulated schedule or a workload.
        boundaries: Strictly increasing, non-negative runtimes in seconds.

    Raises:
        BackfillError: If the boundaries are invalid (see :func:`runtime_class_labels`).

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=r, estimate=r)
        ...         for i, r in enumerate([900.0, 901.0, 3600.0, 86400.0])]
        >>> runtime_classes(Workload.from_jobs(jobs, machine_size=1)).tolist()
        ['<=15m', '15m-1h', '15m-1h', '>16h']
    """
    labels = np.array(runtime_class_labels(boundaries))
    runtime, _ = _columns(source)
    # side="left" puts a runtime equal to a boundary in the class below it.
    return labels[np.searchsorted(_checked_boundaries(boundaries), runtime, side="left")]


def _completed(s: Schedule) -> npt.NDArray[np.bool_]:
    return np.isfinite(s.start) & np.isfinite(s.end)


def category_shares(
    source: Schedule | Workload, *, runtime_boundary: float = 3600.0, width_boundary: int = 8
) -> dict[str, float]:
    """Return the percentage of jobs in each category, keys in :data:`CATEGORIES` order.

    The job distributions of Srinivasan et al. (2002, Tables 3 to 6). For a schedule the completed
    jobs are counted, for a workload every row. With no job to count every share is NaN.

    Args:
        source: A simulated schedule or a workload.
        runtime_boundary: The longest runtime of a short job, in seconds.
        width_boundary: The most processors of a narrow job.

    Raises:
        BackfillError: If a boundary is negative or not finite.

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=i, submit=0.0, processors=p, runtime=60.0, estimate=60.0)
        ...         for i, p in enumerate([1, 2, 3, 16])]
        >>> category_shares(Workload.from_jobs(jobs, machine_size=16))
        {'SN': 75.0, 'SW': 25.0, 'LN': 0.0, 'LW': 0.0}
    """
    labels = job_categories(source, runtime_boundary=runtime_boundary, width_boundary=width_boundary)
    if isinstance(source, Schedule):
        labels = labels[_completed(source)]
    counts = [int(np.count_nonzero(labels == c)) for c in CATEGORIES]
    total = labels.size
    return {c: 100.0 * n / total if total else float("nan") for c, n in zip(CATEGORIES, counts, strict=True)}


def group_summary(
    s: Schedule, labels: npt.ArrayLike, *, bound: float = DEFAULT_BOUND
) -> dict[Any, dict[str, float]]:
    """Return the wait, response and bounded-slowdown statistics of each group of completed jobs.

    ``labels`` gives each row of the workload its group. Only completed jobs count: a group all of
    whose jobs were rejected or unfinished does not appear. The groups are keyed by their labels as
    Python scalars, in sorted order; each maps to the :data:`GROUP_KEYS`: ``jobs`` (completed jobs in
    the group), ``share`` (their percentage of all completed jobs), then the mean and maximum wait,
    response and bounded slowdown (as :mod:`backfill.measures.metrics` defines them), as floats.

    Args:
        s: A simulated schedule.
        labels: One hashable, sortable label per row of ``s.workload``.
        bound: The bounded-slowdown threshold in seconds.

    Raises:
        BackfillError: If ``labels`` is not one-dimensional with one label per row, or ``bound`` is
            not positive.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0)
        ...         for i in range(3)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())
        >>> groups = group_summary(s, ["b", "a", "b"])
        >>> list(groups), groups["b"]["jobs"], groups["b"]["mean_wait"], groups["b"]["max_bsld"]
        (['a', 'b'], 2.0, 10.0, 3.0)
    """
    label_array = np.asarray(labels)
    if label_array.shape != (len(s),):
        raise BackfillError(
            f"expected one label per job ({len(s)}), got an array of shape {label_array.shape}"
        )
    columns = {"wait": wait_times(s), "response": response_times(s), "bsld": bounded_slowdowns(s, bound)}
    keys, inverse = np.unique(label_array[_completed(s)], return_inverse=True)
    counts = np.bincount(inverse, minlength=keys.size).astype(np.float64)
    stats: dict[str, FloatArray] = {}
    for name, values in columns.items():
        stats[f"mean_{name}"] = np.bincount(inverse, weights=values, minlength=keys.size) / counts
        peak = np.full(keys.size, -np.inf)
        np.maximum.at(peak, inverse, values)
        stats[f"max_{name}"] = peak
    share = 100.0 * counts / inverse.size
    return {
        key: {
            "jobs": float(counts[i]),
            "share": float(share[i]),
            **{name: float(stats[name][i]) for name in GROUP_KEYS[2:]},
        }
        for i, key in enumerate(keys.tolist())
    }


def per_category(
    s: Schedule,
    *,
    runtime_boundary: float = 3600.0,
    width_boundary: int = 8,
    bound: float = DEFAULT_BOUND,
) -> dict[str, dict[str, float]]:
    """Return :func:`group_summary` by :func:`job_categories`, always keyed SN, SW, LN, LW in that order.

    The per-category mean slowdown and turnaround time of Srinivasan et al. (2002, Fig. 1 to 6). A
    category with no completed job has ``jobs`` 0, ``share`` 0 (NaN if no job completed at all) and
    NaN statistics.

    Args:
        s: A simulated schedule.
        runtime_boundary: The longest runtime of a short job, in seconds.
        width_boundary: The most processors of a narrow job (64 for LANL in the paper).
        bound: The bounded-slowdown threshold in seconds.

    Raises:
        BackfillError: If a boundary is negative or not finite, or ``bound`` is not positive.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=64, runtime=7200.0, estimate=7200.0),
        ...         Job(id=2, submit=0.0, processors=64, runtime=600.0, estimate=600.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=64), FCFS())
        >>> groups = per_category(s, width_boundary=64)
        >>> groups["SN"]["mean_response"], groups["LN"]["jobs"], groups["SW"]["jobs"]
        (7800.0, 1.0, 0.0)
    """
    labels = job_categories(s, runtime_boundary=runtime_boundary, width_boundary=width_boundary)
    found = group_summary(s, labels, bound=bound)
    # A missing category has no share of the completed jobs only if there are none at all.
    empty = dict.fromkeys(GROUP_KEYS, float("nan")) | {"jobs": 0.0, "share": 0.0 if found else float("nan")}
    return {c: found.get(c, dict(empty)) for c in CATEGORIES}


def per_user(s: Schedule, *, bound: float = DEFAULT_BOUND) -> dict[int, dict[str, float]]:
    """Return :func:`group_summary` by the workload's ``user`` column, users in increasing order.

    Vasupongayya's per-user measures: each user's maximum wait, mean wait and mean bounded slowdown
    (and more). SWF marks an unknown user -1; those jobs form their own group under key -1, so a
    trace without user information gives a single group.

    Args:
        s: A simulated schedule.
        bound: The bounded-slowdown threshold in seconds.

    Raises:
        BackfillError: If ``bound`` is not positive.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0, user=u)
        ...         for i, u in enumerate([7, 3, 7])]
        >>> users = per_user(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()))
        >>> list(users), users[7]["max_wait"], users[3]["mean_wait"]
        ([3, 7], 20.0, 10.0)
    """
    return group_summary(s, s.workload.column("user"), bound=bound)
