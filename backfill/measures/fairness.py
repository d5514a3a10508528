"""Fairness metrics over Fair Start Times: average unfairness, skip unfairness, fair slowdown buckets.

Every function takes a finished :class:`~backfill.schedule.Schedule` and an array of fair start times
aligned with its rows, from :func:`~backfill.experiments.fair_start.fair_start_times` (strict or relaxed,
Sabin and Sadayappan 2005) or :func:`~backfill.experiments.fair_start.srinivasan_fair_starts` (Srinivasan et
al. 2002). Jobs that did not complete, or whose fair start is NaN, are left out. The resource-equality
measures are in :mod:`backfill.measures.fairshare`. See ``docs/fairness.md``.

Examples:
    >>> from backfill import Job, Workload, simulate
    >>> from backfill.experiments.fair_start import fair_start_times
    >>> from backfill.schedulers import EASY
    >>> jobs = [Job(id=1, submit=0.0, processors=5, runtime=10.0, estimate=100.0),
    ...         Job(id=2, submit=1.0, processors=10, runtime=10.0, estimate=10.0),
    ...         Job(id=3, submit=2.0, processors=5, runtime=50.0, estimate=50.0)]
    >>> w = Workload.from_jobs(jobs, machine_size=10)
    >>> s, fst = simulate(w, EASY()), fair_start_times(w, EASY(), workers=1)
    >>> s.start.tolist(), fst.strict.tolist()
    ([0.0, 52.0, 2.0], [0.0, 10.0, 2.0])
    >>> unfairness(s, fst.strict), skip_unfairness(s, fst.strict)
    (14.0, 0.0)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.measures.groups import DEFAULT_RUNTIME_BOUNDARIES, runtime_class_labels
from backfill.measures.metrics import DEFAULT_BOUND
from backfill.schedule import Schedule

__all__ = [
    "BUCKET_EDGES",
    "FairnessBuckets",
    "fair_slowdowns",
    "fairness_buckets",
    "skip_unfairness",
    "slowdown_ratios",
    "unfairness",
]

FloatArray = npt.NDArray[np.float64]

#: Upper edges of Srinivasan et al.'s (2002, Table 9) buckets of slowdown / fair slowdown: <= 1,
#: (1, 1.5], (1.5, 2], (2, 4], > 4.
BUCKET_EDGES: tuple[float, ...] = (1.0, 1.5, 2.0, 4.0)


def _aligned(s: Schedule, fst: npt.ArrayLike) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    fair = np.asarray(fst, dtype=np.float64)
    if fair.shape != s.start.shape:
        raise BackfillError(f"{fair.size} fair start times for a schedule of {len(s)} jobs")
    keep = np.isfinite(s.start) & np.isfinite(s.end) & np.isfinite(fair)
    return s.start, fair, keep


def unfairness(s: Schedule, fst: npt.ArrayLike) -> float:
    """Return the average unfairness: the mean over jobs of max(0, start - fair start).

    With strict or relaxed FSTs this is Sabin and Sadayappan's average strict or relaxed unfairness
    (as Rajbhandary et al. 2013 report it), and it is Jin's (2009, eq. 3) *OverallUnfairness*: starting
    early does not offset anyone's late start, and the sum is divided by every job, not only the late
    ones. NaN if no job counts.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0) for i in range(2)]
        >>> unfairness(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 1.0])
        2.0
    """
    start, fair, keep = _aligned(s, fst)
    return float(np.maximum(start[keep] - fair[keep], 0.0).mean()) if keep.any() else float("nan")


def skip_unfairness(s: Schedule, fst: npt.ArrayLike) -> float:
    """Return Jin's SkipUnfairness: the mean over jobs of max(0, fair start - start).

    Jin (2009, eq. 4) measures preferential treatment, the jobs that started before their fair start
    time, averaged over every job as :func:`unfairness` is. NaN if no job counts.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0) for i in range(2)]
        >>> skip_unfairness(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 9.0])
        2.0
    """
    start, fair, keep = _aligned(s, fst)
    return float(np.maximum(fair[keep] - start[keep], 0.0).mean()) if keep.any() else float("nan")


def fair_slowdowns(s: Schedule, fst: npt.ArrayLike, bound: float = DEFAULT_BOUND) -> FloatArray:
    """Return each job's fair slowdown: (fair start - submit + runtime) / runtime, bounded.

    Srinivasan et al. (2002, §5) define the fair slowdown with the Srinivasan fair start
    (:func:`~backfill.experiments.fair_start.srinivasan_fair_starts`); any fair start works. As in their
    bounded slowdown, the runtime in both places is max(runtime, ``bound``), so a job of zero runtime has a
    finite value. Aligned with the schedule's rows; NaN where a job did not complete or has no fair
    start.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=20.0, estimate=20.0) for i in range(2)]
        >>> fair_slowdowns(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 20.0]).tolist()
        [1.0, 2.0]
    """
    _, fair, keep = _aligned(s, fst)
    b = np.maximum(s.runtime, bound)
    return np.where(keep, (fair - s.submit + b) / b, np.nan)


def slowdown_ratios(s: Schedule, fst: npt.ArrayLike, bound: float = DEFAULT_BOUND) -> FloatArray:
    """Return each job's bounded slowdown divided by its fair slowdown (NaN where either is missing).

    Both use max(runtime, ``bound``), so the ratio is (wait + b) / (fair wait + b), with ``b`` that
    bounded runtime. A ratio above 1 means the job fared worse than its fair start allowed.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=20.0, estimate=20.0) for i in range(2)]
        >>> slowdown_ratios(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 0.0]).tolist()
        [1.0, 2.0]
    """
    start, fair, keep = _aligned(s, fst)
    b = np.maximum(s.runtime, bound)
    submit = s.submit
    return np.where(keep, (start - submit + b) / (fair - submit + b), np.nan)


@attrs.frozen(eq=False)
class FairnessBuckets:
    """Shares of jobs by slowdown / fair slowdown, overall and per runtime class (Srinivasan Table 9).

    Attributes:
        buckets: Column labels, e.g. ``("<=1", "1-1.5", "1.5-2", "2-4", ">4")``.
        groups: Row labels: ``"all"`` then each runtime class.
        shares: Percent of the row's jobs in each bucket, shape (groups, buckets); NaN for an empty row.
        counts: Number of jobs in each row.
    """

    buckets: tuple[str, ...]
    groups: tuple[str, ...]
    shares: FloatArray = attrs.field(repr=False)
    counts: npt.NDArray[np.int64] = attrs.field(repr=False)

    def as_dict(self) -> dict[str, dict[str, float]]:
        """Return ``{group: {bucket: percent}}``."""
        return {
            g: dict(zip(self.buckets, row.tolist(), strict=True))
            for g, row in zip(self.groups, self.shares, strict=True)
        }

    def __str__(self) -> str:
        header = ["jobs", *self.buckets]
        width = max(len(g) for g in self.groups)
        lines = [" " * width + "".join(f"{h:>9}" for h in header)]
        for g, n, row in zip(self.groups, self.counts.tolist(), self.shares.tolist(), strict=True):
            lines.append(f"{g:<{width}}{n:>9}" + "".join(f"{v:>9.2f}" for v in row))
        return "\n".join(lines)


def _edge_label(x: float) -> str:
    return f"{x:g}"


def fairness_buckets(
    s: Schedule,
    fst: npt.ArrayLike,
    *,
    bound: float = DEFAULT_BOUND,
    edges: Sequence[float] = BUCKET_EDGES,
    classes: Sequence[float] = DEFAULT_RUNTIME_BOUNDARIES,
) -> FairnessBuckets:
    """Return the share of jobs whose slowdown is within each multiple of their fair slowdown.

    Srinivasan et al. (2002, Table 9 and Fig. 7): the percent of jobs whose bounded slowdown is <= 1,
    1-1.5, 1.5-2, 2-4 and > 4 times their fair slowdown (:func:`slowdown_ratios`; upper edges
    inclusive), over all jobs and per runtime class (runtime actually run; upper boundaries
    inclusive, as :func:`backfill.measures.groups.runtime_classes`).

    Args:
        s: A simulated schedule.
        fst: Fair start of each row, normally :func:`~backfill.experiments.fair_start.srinivasan_fair_starts`.
        bound: Bounded-slowdown threshold in seconds.
        edges: Increasing upper edges of every bucket but the last.
        classes: Increasing upper boundaries of every runtime class but the last, in seconds.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=20.0, estimate=20.0) for i in range(2)]
        >>> table = fairness_buckets(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 0.0])
        >>> table.as_dict()["all"]
        {'<=1': 50.0, '1-1.5': 0.0, '1.5-2': 50.0, '2-4': 0.0, '>4': 0.0}
    """
    e = np.asarray(edges, dtype=np.float64)
    if e.size == 0 or np.any(np.diff(e) <= 0) or e[0] <= 0:
        raise BackfillError(f"bucket edges must be positive and increasing, got {list(edges)}")
    labels = [f"<={_edge_label(e[0])}"]
    labels += [f"{_edge_label(a)}-{_edge_label(b)}" for a, b in itertools.pairwise(e.tolist())]
    labels.append(f">{_edge_label(e[-1])}")
    class_labels = runtime_class_labels(tuple(classes))
    ratio = slowdown_ratios(s, fst, bound)
    keep = np.isfinite(ratio)
    bucket = np.searchsorted(e, ratio[keep], side="left")
    klass = np.searchsorted(np.asarray(classes, dtype=np.float64), s.runtime[keep], side="left")
    nb, nc = len(labels), len(class_labels)
    counts = np.zeros((nc + 1, nb), dtype=np.int64)
    counts[0] = np.bincount(bucket, minlength=nb)
    np.add.at(counts, (klass + 1, bucket), 1)
    totals = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = 100.0 * counts / totals[:, None]
    return FairnessBuckets(buckets=tuple(labels), groups=("all", *class_labels), shares=shares, counts=totals)
