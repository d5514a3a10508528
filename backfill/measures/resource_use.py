"""How much of each resource besides processors a schedule used: amounts per job, utilization.

A schedule made by a scheduler with ``resources`` (:mod:`backfill.workloads.resources`) records
them in :attr:`~backfill.schedule.Schedule.resources`; each job held its amount of every one from
its start to its end. :func:`resource_utilization` is :func:`~backfill.measures.metrics.utilization`
for one of them, over the same jobs (the completed ones) and the same span (first submit to last
end), so that the two read side by side: ``sum(amount * runtime) / (capacity * makespan)``.
:func:`resource_utilizations` gives the ``utilization_<name>`` columns of a result row, one per
resource the schedule planned, and none for a schedule of processors alone. :func:`held_back` says
whether a resource mattered at all: the seconds during which it alone stood between the oldest
waiting job and processors that were free (``held_back_<name>`` columns, :func:`held_back_columns`).

Examples:
    >>> from backfill import Conservative, Job, Resource, Workload, simulate
    >>> memory = Resource.memory(capacity=8)
    >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=6),
    ...         Job(id=2, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=4)]
    >>> s = simulate(Workload.from_jobs(jobs, machine_size=2), Conservative(resources=[memory]))
    >>> s.start.tolist(), resource_utilizations(s)  # 6 + 4 > 8: the second waits for memory
    ([0.0, 10.0], {'utilization_memory': 0.625})
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.schedule import Schedule
from backfill.workloads.resources import Resource, check_resources

__all__ = [
    "held_back",
    "held_back_column",
    "held_back_columns",
    "job_amounts",
    "resource_utilization",
    "resource_utilizations",
    "utilization_column",
]


def utilization_column(name: str) -> str:
    """The result column of a resource's utilization: ``utilization_<name>``.

    Examples:
        >>> utilization_column("memory")
        'utilization_memory'
    """
    return f"utilization_{name}"


def _resource(schedule: Schedule, resource: Resource | str) -> Resource:
    if isinstance(resource, Resource):
        return resource
    for r in schedule.resources:
        if r.name == resource:
            return r
    planned = ", ".join(r.name for r in schedule.resources) or "none besides processors"
    raise BackfillError(f"the schedule did not plan a resource {resource!r}; it planned {planned}")


def job_amounts(schedule: Schedule, resource: Resource | str) -> npt.NDArray[np.int64]:
    """What each job of the schedule (workload order) holds of ``resource`` while it runs.

    Args:
        schedule: A schedule; its jobs as simulated (after load scaling and estimates).
        resource: A :class:`Resource`, or the name of one the schedule planned.

    A job asking 2**62 or more (:data:`~backfill.workloads.limits.MAX_AMOUNT`, which the simulator
    rejects: no capacity is that large) has no such amount: -1 stands for it, as SWF writes unknowns.

    Raises:
        BackfillError: A name the schedule did not plan.
        JobError: A job's request is not an int >= 0.

    Examples:
        >>> from backfill import FCFS, Job, Resource, Workload, simulate
        >>> job = Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=1.0, memory=3.5)
        >>> s = simulate(Workload.from_jobs([job], machine_size=2), FCFS())
        >>> job_amounts(s, Resource.memory(16)).tolist()  # 2 processors x 3.5 kB used, rounded up
        [7]
    """
    chosen = _resource(schedule, resource)
    amounts, past = chosen.bounded_amounts(schedule.workload)
    return np.where(past, -1, amounts)


def resource_utilization(schedule: Schedule, resource: Resource | str) -> float:
    """Return the fraction of a resource's capacity used between the first submit and the last end.

    ``sum(amount * runtime) / (capacity * makespan)`` over completed jobs, with the span of
    :func:`~backfill.measures.metrics.utilization`; a valid schedule gives a value in ``[0, 1]``.

    Args:
        schedule: A simulated schedule.
        resource: A :class:`Resource` (its capacity is the denominator's), or the name of one the
            schedule planned.

    Returns:
        The utilization; 0.0 when the makespan is zero.

    Raises:
        BackfillError: A name the schedule did not plan.

    Examples:
        >>> from backfill import FCFS, Job, Resource, Workload, simulate
        >>> job = Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=4)
        >>> s = simulate(Workload.from_jobs([job], machine_size=1), FCFS())
        >>> resource_utilization(s, Resource.memory(16))
        0.25
    """
    chosen = _resource(schedule, resource)
    done = np.isfinite(schedule.start) & np.isfinite(schedule.end)
    # The makespan of backfill.measures.metrics (first submit to last end, completed jobs), which
    # imports this module for summarize(): computed here rather than imported back.
    span = float(schedule.end[done].max() - schedule.submit[done].min()) if done.any() else 0.0
    if span <= 0:
        return 0.0
    amounts = job_amounts(schedule, chosen)
    area = float(np.sum(amounts[done] * schedule.runtime[done]))
    return area / (chosen.capacity * span)


def resource_utilizations(schedule: Schedule) -> dict[str, float]:
    """Return ``utilization_<name>`` for each resource the schedule planned; empty with processors alone.

    Examples:
        >>> from backfill import FCFS, lublin_feitelson, simulate
        >>> resource_utilizations(simulate(lublin_feitelson(5, machine_size=4), FCFS()))
        {}
    """
    return {utilization_column(r.name): resource_utilization(schedule, r) for r in schedule.resources}


def held_back_column(name: str) -> str:
    """The result column of the time a resource held the oldest waiting job back: ``held_back_<name>``.

    Examples:
        >>> held_back_column("memory")
        'held_back_memory'
    """
    return f"held_back_{name}"


def held_back(schedule: Schedule, resources: Sequence[Resource] | None = None) -> dict[str, float]:
    """Return, per resource, the seconds it held the oldest waiting job back while its processors were free.

    Between two consecutive instants of the run (submits, starts and ends), the *oldest waiting
    job* is the earliest submitted job (ties in workload order) that has arrived and not started;
    rejected jobs never wait. That job is *held back by* a resource when the processors free then
    would hold it but what is free of the resource would not: it waits for the resource, not for
    processors. A resource's figure sums the lengths of those intervals. One job counts at a time,
    so the figure is in seconds of the queue's oldest job, at most the time during which some job
    waits; several resources lacking at once each count the interval. The oldest job is taken in
    submit order, whatever order the scheduler serves, so that runs of different schedulers
    compare; a job further back may be held too, and is not counted (that would cost a search per
    waiting job and instant). A figure of 0 means the resource never stood alone in the way of the
    queue's oldest job: the run's numbers would be those of processors alone as far as that job is
    concerned. A valid schedule is assumed (each resource within its capacity).

    O((n + e) log n) for n jobs and e instants, all in numpy: the oldest waiting job at each instant
    is found with a running maximum of the start times in submit order (jobs before it have all
    started, so it only moves forward).

    Args:
        schedule: A finished or partial schedule (a job never started waits to the last instant).
        resources: The resources to measure; by default those the schedule planned.

    Returns:
        ``{name: seconds}`` for each resource, in order; empty with processors alone.

    Raises:
        BackfillError: If ``schedule`` is not a Schedule (``ParameterError``: if ``resources`` are
            not Resource objects of distinct names).

    Examples:
        >>> from backfill import FCFS, Job, Resource, Workload, simulate
        >>> memory = Resource.memory(capacity=10)
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=30.0, estimate=30.0, requested_memory=6),
        ...         Job(id=2, submit=5.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=6)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS(resources=[memory]))
        >>> s.start.tolist(), held_back(s)  # job 2 waits from 5 to 30 with 3 processors free
        ([0.0, 30.0], {'memory': 25.0})
    """
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"held_back needs a Schedule, got {type(schedule).__name__}")
    planned = schedule.resources if resources is None else check_resources(resources)
    if not planned:
        return {}
    w = schedule.workload
    n = len(w)
    if n == 0:
        return {r.name: 0.0 for r in planned}
    submit = w.column("submit").astype(np.float64)
    start, end = schedule.start, schedule.end
    started = ~np.isnan(start)
    ended = started & ~np.isnan(end)
    rejected = np.isin(w.column("id"), np.fromiter(schedule.rejected.keys(), dtype=np.int64))
    # The instant a job stops waiting: its start; never for a job not started; at once if rejected.
    until = np.where(started, start, np.where(rejected, submit, np.inf))
    times = np.unique(np.concatenate([submit, start[started], end[ended]]))
    if times.size < 2:
        return {r.name: 0.0 for r in planned}
    at_start = np.searchsorted(times, start[started])
    at_end = np.searchsorted(times, end[ended])

    def free(capacity: int, amounts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        # Free on [times[k], times[k + 1]): the capacity less what the jobs running then hold.
        delta = np.zeros(times.size, dtype=np.int64)
        np.add.at(delta, at_start, -amounts[started])
        np.add.at(delta, at_end, amounts[ended])
        return (capacity + np.cumsum(delta))[:-1]

    processors = w.column("processors").astype(np.int64)
    order = np.lexsort((np.arange(n), submit))
    reach = np.maximum.accumulate(until[order])
    instants = times[:-1]
    first = np.searchsorted(reach, instants, side="right")  # jobs before it have stopped waiting
    oldest = order[np.minimum(first, n - 1)]
    waiting = (first < n) & (submit[oldest] <= instants)
    fits = waiting & (processors[oldest] <= free(w.machine_size, processors))
    span = np.diff(times)
    out: dict[str, float] = {}
    for r in planned:
        amounts, _ = r.bounded_amounts(w)
        lacks = fits & (amounts[oldest] > free(r.capacity, amounts))
        out[r.name] = float(np.sum(span[lacks]))
    return out


def held_back_columns(schedule: Schedule) -> dict[str, float]:
    """Return ``held_back_<name>`` for each resource the schedule planned (:func:`held_back`); empty without.

    Examples:
        >>> from backfill import FCFS, lublin_feitelson, simulate
        >>> held_back_columns(simulate(lublin_feitelson(5, machine_size=4), FCFS()))
        {}
    """
    return {held_back_column(name): seconds for name, seconds in held_back(schedule).items()}
