"""Schedules on node machines: every node's capacity checked, and what placement costs.

A schedule made on a node machine (:attr:`~backfill.schedule.Schedule.machine`) carries each started
job's :class:`~backfill.workloads.nodes.Allocation`. :func:`validate_allocations` checks them
independently of any scheduler: that every started job has one, that it holds the job's request (by
the machine's rule), and that at no instant the jobs on a node hold more of a resource than the
node has. :func:`~backfill.measures.validation.validate_schedule` calls it for every such schedule.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backfill.errors import ScheduleError
from backfill.schedule import Schedule
from backfill.workloads.nodes import Allocation, Machine, NodeRequest
from backfill.workloads.workload import job_from_row

__all__ = ["validate_allocations"]


def validate_allocations(schedule: Schedule) -> None:
    """Raise :class:`ScheduleError` unless every started job holds its request on nodes that have it.

    Checks, for a schedule with a :attr:`~backfill.schedule.Schedule.machine`: each started job has
    an allocation and no other job does; its node ids are the machine's, increasing, each with one
    amount per resource; it holds the request the machine's rule gives (``count`` shares, at most
    ``per_node`` on a node, whole nodes if exclusive); and on every node, at every instant, the jobs
    running there (over ``[start, end)``; a job of zero runtime holds nothing) hold at most the node's
    amount of each resource. A schedule of a pool machine passes. O(a log a) for a node entries.

    Examples:
        >>> from backfill import Conservative, Job, Machine, Workload, simulate
        >>> jobs = [Job(id=i, submit=0.0, processors=3, runtime=5.0, estimate=5.0) for i in range(3)]
        >>> s = simulate(Workload.from_jobs(jobs, 8), Conservative(nodes=Machine.parse("2x4")))
        >>> validate_allocations(s)
        >>> {k: a.text() for k, a in s.allocations.items()}
        {0: '0', 1: '0-1', 2: '0'}
    """
    machine = schedule.machine
    if machine is None:
        if schedule.allocations:
            raise ScheduleError(f"{schedule.scheduler}: allocations on a schedule with no node machine")
        return
    name = schedule.scheduler
    w = schedule.workload
    ids = w.column("id")
    started = np.flatnonzero(~np.isnan(schedule.start))
    allocations = schedule.allocations
    if stray := set(allocations) - {int(ids[i]) for i in started}:
        raise ScheduleError(f"{name}: jobs {sorted(stray)[:5]} have an allocation but did not start")
    capacity = machine.capacities()
    nodes: list[npt.NDArray[np.int64]] = []
    amounts: list[npt.NDArray[np.int64]] = []
    rows: list[int] = []
    for i in started.tolist():
        job_id = int(ids[i])
        allocation = allocations.get(job_id)
        if allocation is None:
            raise ScheduleError(f"{name}: job {job_id} started at {schedule.start[i]:g} with no allocation")
        held, per = _checked(name, job_id, allocation, machine, capacity)
        request = machine.request(job_from_row(w.records[i].tolist()))
        why = _short_of(request, machine, held, per, capacity)
        if why is not None:
            raise ScheduleError(f"{name}: job {job_id}'s allocation {allocation.text()!r} {why}")
        if schedule.end[i] > schedule.start[i]:
            nodes.append(held)
            amounts.append(per)
            rows.extend([i] * len(held))
    if nodes:
        _check_capacity(schedule, np.concatenate(nodes), np.concatenate(amounts), np.array(rows), capacity)


def _checked(
    name: str, job_id: int, allocation: Allocation, machine: Machine, capacity: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """An allocation's node ids and amounts as arrays, after checking their form."""
    held = np.array(allocation.nodes, dtype=np.int64)
    per = np.array(allocation.amounts, dtype=np.int64).reshape(len(held), -1)
    if (
        not len(held)
        or allocation.resources != machine.resources
        or per.shape[1] != capacity.shape[1]
        or (held < 0).any()
        or (held >= len(capacity)).any()
        or (np.diff(held) <= 0).any()
        or (per < 0).any()
    ):
        raise ScheduleError(
            f"{name}: job {job_id}'s allocation {allocation!r} is not increasing node ids of the machine "
            f"{machine.text()} with one amount >= 0 per resource {machine.resources}"
        )
    return held, per


def _short_of(
    request: NodeRequest,
    machine: Machine,
    held: npt.NDArray[np.int64],
    per: npt.NDArray[np.int64],
    capacity: npt.NDArray[np.int64],
) -> str | None:
    """How an allocation falls short of the request, or None if it holds it."""
    share = machine.share(request)
    asked = share > 0
    shares = (per[:, asked] // share[asked]).min(axis=1)
    if request.per_node is not None:
        shares = np.minimum(shares, request.per_node)
    if int(shares.sum()) < request.count:
        return f"holds {int(shares.sum())} of the {request.count} shares of {share.tolist()} asked"
    if request.exclusive and not np.array_equal(per, capacity[held]):
        return "does not hold its nodes whole, as an exclusive request must"
    return None


def _check_capacity(
    schedule: Schedule,
    nodes: npt.NDArray[np.int64],
    amounts: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
    capacity: npt.NDArray[np.int64],
) -> None:
    """Sweep each node's starts and ends (ends first at equal times) and find any over-commit."""
    start, end = schedule.start[rows], schedule.end[rows]
    node = np.concatenate([nodes, nodes])
    t = np.concatenate([start, end])
    kind = np.concatenate([np.ones(len(rows)), np.zeros(len(rows))])
    delta = np.concatenate([amounts, -amounts])
    order = np.lexsort((kind, t, node))
    node, t, delta = node[order], t[order], delta[order]
    used = np.cumsum(delta, axis=0)
    # Each node's own running sum: less what the nodes before it summed to.
    first = np.r_[True, node[1:] != node[:-1]]
    group = np.maximum.accumulate(np.where(first, np.arange(len(node)), 0))
    used -= np.where((group > 0)[:, None], used[group - 1], 0)
    over = (used > capacity[node]).any(axis=1)
    if over.any():
        k = int(np.flatnonzero(over)[0])
        n = int(node[k])
        jobs = sorted(
            int(schedule.workload.column("id")[r])
            for r, a in zip(rows.tolist(), nodes.tolist(), strict=True)
            if a == n and schedule.start[r] <= t[k] < schedule.end[r]
        )
        names = list(schedule.machine.resources) if schedule.machine is not None else []
        raise ScheduleError(
            f"{schedule.scheduler}: node {n} holds {used[k].tolist()} of {names} at time {t[k]:g}, "
            f"more than its {capacity[n].tolist()} (jobs {jobs[:8]})"
        )
