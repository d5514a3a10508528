"""Performance metrics of a finished schedule: wait, response, bounded slowdown, utilization.

Every function reads only a :class:`~backfill.schedule.Schedule`'s arrays and works on whole
numpy arrays. The statistics cover the jobs that *completed*: rejected jobs (see
``Schedule.rejected``) and, in a partial schedule, jobs that have not finished yet are left out of
every statistic; :func:`summarize` counts the rejected ones. Times are in seconds. See
``docs/metrics.md`` for the definitions and their sources.

Examples:
    >>> from backfill import Job, Workload, simulate
    >>> from backfill.schedulers import FCFS
    >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=100.0, estimate=100.0),
    ...         Job(id=2, submit=0.0, processors=2, runtime=20.0, estimate=20.0)]
    >>> s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
    >>> wait_times(s).tolist(), response_times(s).tolist()
    ([0.0, 100.0], [100.0, 120.0])
    >>> summarize(s)["mean_bsld"]
    3.5
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.measures.nodes import NODE_COLUMNS, node_columns
from backfill.measures.resource_use import resource_utilizations
from backfill.schedule import Schedule
from backfill.workloads.conventions import DEFAULT_BOUND

__all__ = [
    "DEFAULT_BOUND",
    "format_metric",
    "DEFAULT_COLUMNS",
    "METRIC_NAMES",
    "SUMMARY_KEYS",
    "bounded_slowdowns",
    "makespan",
    "mean_top_wait",
    "mean_wait_of_widest",
    "metric_label",
    "metrics_table",
    "percent_improvement",
    "relative_response_times",
    "response_times",
    "summarize",
    "to_rows",
    "utilization",
    "wait_times",
]

FloatArray = npt.NDArray[np.float64]

#: The keys of :func:`summarize`, in order.
SUMMARY_KEYS: tuple[str, ...] = (
    "jobs",
    "rejected",
    "mean_wait",
    "median_wait",
    "p90_wait",
    "p99_wait",
    "max_wait",
    "top5_wait",
    "top1_wait",
    "widest10_wait",
    "mean_response",
    "max_response",
    "mean_bsld",
    "max_bsld",
    "mean_rr",
    "utilization",
    "makespan",
)

#: What each metric key means, in words for titles and axis labels, and its unit ("" for none).
METRIC_NAMES: dict[str, tuple[str, str]] = {
    "jobs": ("completed jobs", ""),
    "rejected": ("rejected jobs", ""),
    "mean_wait": ("mean wait", "s"),
    "median_wait": ("median wait", "s"),
    "p90_wait": ("90th-percentile wait", "s"),
    "p99_wait": ("99th-percentile wait", "s"),
    "max_wait": ("maximum wait", "s"),
    "top5_wait": ("mean wait of the longest-waiting 5 %", "s"),
    "top1_wait": ("mean wait of the longest-waiting 1 %", "s"),
    "widest10_wait": ("mean wait of the widest 10 % of jobs", "s"),
    "mean_response": ("mean response time", "s"),
    "max_response": ("maximum response time", "s"),
    "mean_bsld": ("mean bounded slowdown", ""),
    "max_bsld": ("maximum bounded slowdown", ""),
    "mean_rr": ("mean relative response time", ""),
    "fragmentation": ("job-seconds waited while the free amounts held the job", "job-s"),
    "mean_fragmentation": ("mean wait while the free amounts held the job", "s"),
    "utilization": ("utilization", "fraction of the machine"),
    "makespan": ("makespan", "s"),
    "seconds": ("simulation wall time", "s"),
    "prediction_mae": ("mean absolute prediction error", "s"),
    "underpredicted": ("underpredicted jobs", "fraction of the jobs"),
    "violations": ("broken guarantees", ""),
    "violated_jobs": ("jobs with a broken guarantee", ""),
    "never_reserved": ("jobs that waited unreserved", ""),
}


def metric_label(key: str, *, unit: bool = True) -> str:
    """Return a metric's name in words (with its unit), as figures title and label it.

    Examples:
        >>> metric_label("mean_bsld"), metric_label("p90_wait"), metric_label("p90_wait", unit=False)
        ('mean bounded slowdown', '90th-percentile wait (s)', '90th-percentile wait')
        >>> metric_label("my_metric")
        'my_metric'
    """
    name, shown = METRIC_NAMES.get(key, (key, ""))
    return f"{name} ({shown})" if unit and shown else name


#: The columns :func:`metrics_table` shows unless told otherwise.
DEFAULT_COLUMNS: tuple[str, ...] = (
    "jobs",
    "rejected",
    "mean_wait",
    "median_wait",
    "p90_wait",
    "max_wait",
    "mean_response",
    "mean_bsld",
    "max_bsld",
    "utilization",
    "makespan",
)

# The prefix of a resource's utilization in summarize() (resource_use.utilization_column's).
_RESOURCE_COLUMN = "utilization_"
_COUNT_KEYS = frozenset({"jobs", "rejected", "violations", "violated_jobs", "never_reserved"})


def _completed(s: Schedule) -> npt.NDArray[np.bool_]:
    """Return the mask of jobs that started and ended (rejected jobs have NaN times)."""
    return np.isfinite(s.start) & np.isfinite(s.end)


def wait_times(s: Schedule) -> FloatArray:
    """Return the wait time (start - submit) of every completed job, in workload order.

    Rejected and unfinished jobs are left out, so the array can be shorter than the workload; use
    ``Schedule.wait`` for an array aligned with the workload (NaN where a job did not start).

    Args:
        s: A simulated schedule.

    Returns:
        One wait time per completed job, in seconds (never negative in a valid schedule).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0)
        ...         for i in range(3)]
        >>> wait_times(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())).tolist()
        [0.0, 5.0, 10.0]
    """
    done = _completed(s)
    return np.asarray(s.start[done] - s.submit[done], dtype=np.float64)


def response_times(s: Schedule) -> FloatArray:
    """Return the response (turnaround) time, end - submit, of every completed job.

    Args:
        s: A simulated schedule.

    Returns:
        One response time per completed job, in workload order, in seconds.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0)
        ...         for i in range(3)]
        >>> response_times(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())).tolist()
        [5.0, 10.0, 15.0]
    """
    done = _completed(s)
    return np.asarray(s.end[done] - s.submit[done], dtype=np.float64)


def _count(fraction: float, n: int) -> int:
    """Return how many of ``n`` jobs a top ``fraction`` covers: ceil(fraction * n), at least one if n > 0."""
    if not 0 < fraction <= 1:
        raise BackfillError(f"fraction must be in (0, 1], got {fraction}")
    # The epsilon keeps float error from adding a job: 0.05 * 100 is 5.000000000000001.
    return min(n, max(1, int(np.ceil(fraction * n - 1e-9)))) if n else 0


def mean_top_wait(s: Schedule, fraction: float) -> float:
    """Return the mean wait of the ``fraction`` of completed jobs that waited longest.

    Lindsay et al. (2013, Fig. 6 and 7) report it for the top 5 % and 1 %: how the jobs that suffer
    most fare. The top ``ceil(fraction * n)`` waits of the ``n`` completed jobs are averaged; NaN if
    no job completed.

    Args:
        s: A simulated schedule.
        fraction: Share of the jobs, in (0, 1].

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=5.0, estimate=5.0)
        ...         for i in range(4)]
        >>> mean_top_wait(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), 0.5)
        12.5
    """
    wait = wait_times(s)
    k = _count(fraction, wait.size)
    return float(np.sort(wait)[-k:].mean()) if k else float("nan")


def mean_wait_of_widest(s: Schedule, fraction: float) -> float:
    """Return the mean wait of the ``fraction`` of completed jobs that use the most processors.

    Lindsay et al. (2013, Fig. 8) measure how wide jobs fare by the widest 10 %. The paper does not say
    how ties at the cut are broken; here the ``ceil(fraction * n)`` widest completed jobs are taken,
    and among equally wide jobs at the cut the earliest submitted ones, so the set does not depend on
    the scheduler. NaN if no job completed.

    Args:
        s: A simulated schedule.
        fraction: Share of the jobs, in (0, 1].

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=5.0, estimate=5.0)]
        >>> mean_wait_of_widest(simulate(Workload.from_jobs(jobs, machine_size=2), FCFS()), 0.5)
        0.0
    """
    wait = wait_times(s)
    width = s.workload.column("processors")[_completed(s)]
    k = _count(fraction, wait.size)
    if not k:
        return float("nan")
    # A stable sort on -width keeps workload (submit) order among equally wide jobs.
    order = np.argsort(-width, kind="stable")[:k]
    return float(wait[order].mean())


def percent_improvement(baseline: float, other: float) -> float:
    """Return the improvement of ``other`` over ``baseline`` in percent: 100 (baseline - other) / baseline.

    The seeds' formula (Lindsay et al. 2013, Rajbhandary et al. 2013) for a lower-is-better measure:
    positive when ``other`` is better. A zero baseline gives 0 when ``other`` is zero too and
    ``-inf`` otherwise, as Rajbhandary et al. report for LPC-EGEE.

    Examples:
        >>> percent_improvement(200.0, 150.0), percent_improvement(200.0, 250.0)
        (25.0, -25.0)
    """
    if baseline == 0:
        return 0.0 if other == 0 else (-np.inf if other > 0 else np.inf)
    return 100.0 * (baseline - other) / baseline


def bounded_slowdowns(s: Schedule, bound: float = DEFAULT_BOUND) -> FloatArray:
    """Return the bounded slowdown of every completed job: max(1, response / max(runtime, bound)).

    The bound keeps very short jobs from dominating the average (Feitelson, Rudolph, Schwiegelshohn,
    Sevcik and Wong 1997); 10 s is the usual value, 60 s another. The runtime is the one the job ran
    for (``Schedule.runtime``).

    Args:
        s: A simulated schedule.
        bound: The threshold, in seconds; must be positive.

    Returns:
        One bounded slowdown per completed job, in workload order, each at least 1.

    Raises:
        BackfillError: If ``bound`` is not a positive finite number.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=2.0, estimate=2.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())
        >>> bounded_slowdowns(s).tolist(), bounded_slowdowns(s, bound=60.0).tolist()
        ([1.0, 10.2], [1.0, 1.7])
    """
    if not (np.isfinite(bound) and bound > 0):
        raise BackfillError(f"the slowdown bound must be a positive number of seconds, got {bound!r}")
    return np.maximum(1.0, _relative_responses(s, bound))


def _relative_responses(s: Schedule, cutoff: float) -> FloatArray:
    """Response / max(runtime, cutoff) of every completed job, in workload order."""
    done = _completed(s)
    response = s.end[done] - s.submit[done]
    return np.asarray(response / np.maximum(s.runtime[done], cutoff), dtype=np.float64)


def relative_response_times(s: Schedule, cutoff: float = DEFAULT_BOUND) -> FloatArray:
    """Return the relative response time of every completed job: response / max(runtime, cutoff).

    The "relative response time (RR)" of Jin's thesis (2009, §5.1): runtime plus wait, in
    relation to the runtime, with a cut-off for very short jobs. Unlike :func:`bounded_slowdowns`
    there is no floor at 1, so a job shorter than the cut-off that does not wait scores
    ``runtime / cutoff`` < 1; for jobs at least ``cutoff`` long the two coincide. The thesis gives
    no cut-off value, so the default is the usual bounded-slowdown threshold of 10 s. The runtime
    is the one the job ran for (``Schedule.runtime``).

    Args:
        s: A simulated schedule.
        cutoff: The cut-off, in seconds; must be positive.

    Returns:
        One relative response time per completed job, in workload order (rejected and unfinished
        jobs are left out, as in :func:`bounded_slowdowns`).

    Raises:
        BackfillError: If ``cutoff`` is not a positive finite number.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=2.0, estimate=2.0),
        ...         Job(id=2, submit=0.0, processors=1, runtime=100.0, estimate=100.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())
        >>> relative_response_times(s).tolist(), bounded_slowdowns(s).tolist()
        ([0.2, 1.02], [1.0, 1.02])
    """
    if not (np.isfinite(cutoff) and cutoff > 0):
        raise BackfillError(
            f"the relative response time cutoff must be a positive number of seconds, got {cutoff!r}"
        )
    return _relative_responses(s, cutoff)


def _span(s: Schedule, done: npt.NDArray[np.bool_]) -> float:
    if not done.any():
        return 0.0
    return float(np.max(s.end[done]) - np.min(s.submit[done]))


def makespan(s: Schedule) -> float:
    """Return the time from the first submit to the last completion, over completed jobs.

    Args:
        s: A simulated schedule.

    Returns:
        The makespan in seconds; 0.0 when no job completed.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=10.0, processors=1, runtime=5.0, estimate=5.0),
        ...         Job(id=2, submit=12.0, processors=1, runtime=5.0, estimate=5.0)]
        >>> makespan(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()))
        10.0
    """
    return _span(s, _completed(s))


def utilization(s: Schedule) -> float:
    """Return the fraction of the machine's capacity used between the first submit and last end.

    ``sum(processors * runtime) / (machine_size * makespan)`` over completed jobs. A valid schedule
    gives a value in ``[0, 1]``.

    Args:
        s: A simulated schedule.

    Returns:
        The utilization; 0.0 when the makespan is zero.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=4, runtime=5.0, estimate=5.0)]
        >>> utilization(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()))
        0.6666666666666666
    """
    done = _completed(s)
    span = _span(s, done)
    if span <= 0:
        return 0.0
    area = float(np.sum(s.processors[done] * s.runtime[done]))
    return area / (s.workload.machine_size * span)


def summarize(s: Schedule, *, bound: float = DEFAULT_BOUND) -> dict[str, float]:
    """Return the standard statistics of a schedule as a flat dict (:data:`SUMMARY_KEYS`, then per resource).

    ``jobs`` is the number of completed jobs the statistics cover and ``rejected`` the number the
    simulator rejected; the wait, response and bounded-slowdown statistics (mean, median, 90th and
    99th percentile with linear interpolation, maximum) are over the completed jobs, in seconds, and
    are NaN when there are none. The tail of the waits is there too: the mean of the top 5 % and 1 %
    (:func:`mean_top_wait`) and the mean wait of the widest 10 % of jobs (:func:`mean_wait_of_widest`),
    as Lindsay et al. (2013) report them; pass ``bound=60.0`` for the other bounded slowdown in use.
    ``mean_rr`` is the mean :func:`relative_response_times` with ``bound`` as its cut-off.
    ``utilization`` and ``makespan`` are as :func:`utilization` and :func:`makespan` give them.
    A schedule whose run planned resources besides processors (:attr:`Schedule.resources
    <backfill.schedule.Schedule.resources>`) has, after those, one ``utilization_<name>`` per
    resource (:func:`~backfill.measures.resource_use.resource_utilizations`); one of processors
    alone has the :data:`SUMMARY_KEYS` only. A schedule of a node machine (:attr:`Schedule.machine
    <backfill.schedule.Schedule.machine>`) has, last, ``fragmentation`` (job-seconds) and
    ``mean_fragmentation`` (seconds per completed job) of :func:`~backfill.measures.nodes.fragmentation`
    (:data:`~backfill.measures.nodes.NODE_COLUMNS`); one of a pool has none.

    Args:
        s: A simulated schedule.
        bound: The bounded-slowdown threshold in seconds, also the relative response time cut-off.

    Returns:
        A dict of floats (the two counts are whole numbers).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0)
        ...         for i in range(2)]
        >>> jobs.append(Job(id=9, submit=0.0, processors=5, runtime=1.0, estimate=1.0))  # too wide
        >>> summary = summarize(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()))
        >>> summary["jobs"], summary["rejected"], summary["mean_wait"], summary["utilization"]
        (2.0, 1.0, 5.0, 1.0)

        With memory planned (8 kB; the two jobs ask 2 kB each), a column for it:

        >>> from backfill import Resource
        >>> memory = [Resource.memory(8)]
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=2)
        ...         for i in range(2)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS(resources=memory))
        >>> summarize(s)["utilization_memory"]
        0.25
    """
    wait = wait_times(s)
    response = response_times(s)
    bsld = bounded_slowdowns(s, bound)
    rr = relative_response_times(s, bound)
    summary: dict[str, float] = {"jobs": float(wait.size), "rejected": float(len(s.rejected))}
    if wait.size:
        p50, p90, p99 = np.percentile(wait, [50.0, 90.0, 99.0]).tolist()
        summary |= {
            "mean_wait": float(wait.mean()),
            "median_wait": p50,
            "p90_wait": p90,
            "p99_wait": p99,
            "max_wait": float(wait.max()),
            "top5_wait": mean_top_wait(s, 0.05),
            "top1_wait": mean_top_wait(s, 0.01),
            "widest10_wait": mean_wait_of_widest(s, 0.10),
            "mean_response": float(response.mean()),
            "max_response": float(response.max()),
            "mean_bsld": float(bsld.mean()),
            "max_bsld": float(bsld.max()),
            "mean_rr": float(rr.mean()),
        }
    else:
        summary |= {key: float("nan") for key in SUMMARY_KEYS[2:-2]}
    summary["utilization"] = utilization(s)
    summary["makespan"] = makespan(s)
    if s.resources:
        summary |= resource_utilizations(s)
    summary |= node_columns(s)  # none on a pool machine
    return summary


def _named(schedules: Iterable[Schedule] | Mapping[str, Schedule]) -> list[tuple[str, Schedule]]:
    if isinstance(schedules, Mapping):
        return [(str(name), s) for name, s in schedules.items()]
    return [(s.scheduler, s) for s in schedules]


def to_rows(
    schedules: Iterable[Schedule] | Mapping[str, Schedule], *, bound: float = DEFAULT_BOUND
) -> list[dict[str, str | float]]:
    """Return one dict per schedule: ``scheduler`` (its name) then the :func:`summarize` keys.

    The rows need no extra package; ``pandas.DataFrame(to_rows(...))`` turns them into a frame.

    Args:
        schedules: Schedules (named by ``Schedule.scheduler``) or a mapping of name to schedule.
        bound: The bounded-slowdown threshold in seconds.

    Returns:
        A list of flat dicts, in the order given.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> job = Job(id=1, submit=0.0, processors=1, runtime=4.0, estimate=4.0)
        >>> w = Workload.from_jobs([job], machine_size=1)
        >>> row = to_rows({"mine": simulate(w, FCFS())})[0]
        >>> row["scheduler"], row["makespan"]
        ('mine', 4.0)
    """
    return [{"scheduler": name, **summarize(s, bound=bound)} for name, s in _named(schedules)]


def format_metric(key: str, value: float) -> str:
    """Return a metric's value as the tables show it: counts whole, utilization to 3 places, ratios to 2.

    Examples:
        >>> format_metric("mean_wait", 12.345), format_metric("mean_bsld", 1.5), format_metric("jobs", 7.0)
        ('12.3', '1.50', '7')
    """
    if np.isnan(value):
        return "-"
    if key in _COUNT_KEYS:
        return str(round(value))
    if key == "utilization" or key.startswith(_RESOURCE_COLUMN):
        return f"{value:.3f}"
    if key.endswith(("bsld", "_rr")):
        return f"{value:.2f}"
    return f"{value:.1f}"


def metrics_table(
    schedules: Iterable[Schedule] | Mapping[str, Schedule],
    *,
    columns: Sequence[str] = DEFAULT_COLUMNS,
    bound: float = DEFAULT_BOUND,
) -> str:
    """Return a plain text table of :func:`summarize`, one row per schedule.

    The first column holds the scheduler names (left-aligned), the others the chosen statistics
    (right-aligned): counts as integers, utilization with three decimals, bounded slowdowns and
    relative response times with two, times in seconds with one; ``-`` stands for a statistic with
    no job to cover.

    Args:
        schedules: Schedules (named by ``Schedule.scheduler``) or a mapping of name to schedule.
        columns: Keys of :func:`summarize` to show, in order; a resource's ``utilization_<name>``
            shows ``-`` for a schedule that did not plan it, and ``fragmentation`` for one of a
            pool machine.
        bound: The bounded-slowdown threshold in seconds.

    Returns:
        The table, lines joined by newlines, without a trailing newline.

    Raises:
        BackfillError: If a column is not a key of :func:`summarize` of any of the schedules.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import EASY, FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0)
        ...         for i in range(2)]
        >>> w = Workload.from_jobs(jobs, machine_size=1)
        >>> print(metrics_table([simulate(w, FCFS()), simulate(w, EASY())],
        ...                     columns=["jobs", "mean_wait", "utilization"]))
        scheduler   jobs  mean_wait  utilization
        FCFS(fcfs)     2        5.0        1.000
        EASY(fcfs)     2        5.0        1.000
    """
    unknown = [
        c
        for c in columns
        if c not in SUMMARY_KEYS and c not in NODE_COLUMNS and not c.startswith(_RESOURCE_COLUMN)
    ]
    if unknown:
        raise BackfillError(
            f"unknown metrics column(s) {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(SUMMARY_KEYS)}, {_RESOURCE_COLUMN}<resource> or, on a node "
            f"machine, {', '.join(NODE_COLUMNS)}"
        )
    rows = to_rows(schedules, bound=bound)
    unplanned = [c for c in columns if c not in SUMMARY_KEYS and not any(c in row for row in rows)]
    if unplanned:
        names = ", ".join(map(repr, unplanned))
        raise BackfillError(f"no schedule planned the resource or node machine of column(s) {names}")
    header = ["scheduler", *columns]
    cells = [
        [str(row["scheduler"]), *(format_metric(c, float(row.get(c, "nan"))) for c in columns)]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]

    def line(values: list[str]) -> str:
        first = values[0].ljust(widths[0])
        rest = [v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest])

    return "\n".join(line(values) for values in [header, *cells])
