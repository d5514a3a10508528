"""How much of each resource besides processors a schedule used: amounts per job, utilization.

A schedule made by a scheduler with ``resources`` (:mod:`backfill.workloads.resources`) records
them in :attr:`~backfill.schedule.Schedule.resources`; each job held its amount of every one from
its start to its end. :func:`resource_utilization` is :func:`~backfill.measures.metrics.utilization`
for one of them, over the same jobs (the completed ones) and the same span (first submit to last
end), so that the two read side by side: ``sum(amount * runtime) / (capacity * makespan)``.
:func:`resource_utilizations` gives the ``utilization_<name>`` columns of a result row, one per
resource the schedule planned, and none for a schedule of processors alone.

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

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.measures.metrics import makespan
from backfill.schedule import Schedule
from backfill.workloads.resources import Resource, _bounded_amounts

__all__ = ["job_amounts", "resource_utilization", "resource_utilizations", "utilization_column"]


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
    amounts, past = _bounded_amounts(chosen, schedule.workload)
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
    span = makespan(schedule)
    if span <= 0:
        return 0.0
    done = np.isfinite(schedule.start) & np.isfinite(schedule.end)
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
