"""Schedules on node machines: every node's capacity checked, and what placement costs.

A schedule made on a node machine (:attr:`~backfill.schedule.Schedule.machine`) carries each started
job's :class:`~backfill.workloads.nodes.Allocation`. :func:`validate_allocations` checks them
independently of any scheduler: that every started job has one, that it holds the job's request (by
the machine's rule), and that at no instant the jobs on a node hold more of a resource than the
node has. :func:`~backfill.measures.validation.validate_schedule` calls it for every such schedule.

Two measures read the allocations: :func:`node_utilization`, each node's busy fraction over the
span of :func:`~backfill.measures.metrics.utilization`, and :func:`fragmentation`, the job-seconds
jobs waited while the machine as a pool would have held them. A schedule of a node machine reports
the second in :func:`~backfill.measures.metrics.summarize` (:data:`NODE_COLUMNS`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError, ScheduleError
from backfill.schedule import Schedule
from backfill.workloads.nodes import Allocation, Machine, NodeRequest
from backfill.workloads.workload import job_from_row

__all__ = ["NODE_COLUMNS", "fragmentation", "node_columns", "node_utilization", "validate_allocations"]

#: The columns of :func:`~backfill.measures.metrics.summarize` that a schedule of a node machine
#: has and one of a pool does not (:func:`node_columns`): ``fragmentation``, the job-seconds of
#: :func:`fragmentation`, and ``mean_fragmentation``, that over the completed jobs (seconds per job).
NODE_COLUMNS: tuple[str, ...] = ("fragmentation", "mean_fragmentation")


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


def _machine_of(schedule: Schedule, what: str) -> Machine:
    if not isinstance(schedule, Schedule):
        raise BackfillError(f"{what} measures a Schedule, got {schedule!r}")
    if schedule.machine is None:
        raise BackfillError(
            f"{what} measures a schedule of a node machine; {schedule.scheduler} ran on a pool of "
            f"{schedule.workload.machine_size} processors (build the scheduler with nodes=Machine(...))"
        )
    return schedule.machine


def _completed(schedule: Schedule) -> npt.NDArray[np.bool_]:
    return np.isfinite(schedule.start) & np.isfinite(schedule.end)


def node_utilization(schedule: Schedule, resource: str = "cores") -> npt.NDArray[np.float64]:
    """Return each node's busy fraction of ``resource`` over the schedule's span, in node-id order.

    For node ``n``: ``sum(amount held on n * runtime) / (n's amount * makespan)`` over the completed
    jobs, with the span of :func:`~backfill.measures.metrics.utilization` (first submit to last end of
    the completed jobs), so that the mean over the nodes weighted by their cores is that machine-wide
    utilization whenever each job holds the cores it asks. An exclusive job holds its nodes whole,
    and counts them whole here. A node with none of ``resource`` (a GPU resource on a node group
    without GPUs) has NaN; every node has 0.0 when the span is zero. O(a + N), a allocation entries.

    Args:
        schedule: A schedule of a node machine.
        resource: One of the machine's :attr:`~backfill.workloads.nodes.Machine.resources`.

    Returns:
        A float array with one value per node.

    Raises:
        BackfillError: A schedule with no node machine, or a resource the machine does not plan.

    Examples:
        >>> from backfill import FCFS, Job, Machine, Workload, simulate
        >>> jobs = [Job(id=1, submit=0.0, processors=4, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> s = simulate(Workload.from_jobs(jobs, 8), FCFS(nodes=Machine.parse("2x4")))
        >>> node_utilization(s).tolist()  # node 0: 4 x 10 of 4 x 10; node 1: 2 x 5 of 4 x 10
        [1.0, 0.25]
    """
    machine = _machine_of(schedule, "node_utilization")
    if resource not in machine.resources:
        raise BackfillError(
            f"node_utilization: the machine {machine.text()} plans {', '.join(machine.resources)}, "
            f"not {resource!r}"
        )
    column = machine.resources.index(resource)
    capacity = machine.capacities()[:, column].astype(np.float64)
    busy = np.zeros(len(capacity))
    done = _completed(schedule)
    if not done.any():
        return np.zeros(len(capacity))
    # The makespan of backfill.measures.metrics, which imports this module for summarize().
    span = float(schedule.end[done].max() - schedule.submit[done].min())
    if span <= 0:
        return np.zeros(len(capacity))
    ids = schedule.workload.column("id")
    for i in np.flatnonzero(done).tolist():
        allocation = schedule.allocations.get(int(ids[i]))
        if allocation is None:
            continue  # validate_allocations says why; a measure does not second-guess it
        held = np.array([a[column] for a in allocation.amounts], dtype=np.float64)
        busy[list(allocation.nodes)] += held * float(schedule.runtime[i])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(capacity > 0, busy / (capacity * span), np.nan)


def _free_steps(
    schedule: Schedule, machine: Machine
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The machine-wide free amounts as steps: times, and from each time on the free vector.

    Before the first time everything is free. At equal times ends come first: a job's ``[start,
    end)`` holds nothing at its end.
    """
    ids = schedule.workload.column("id")
    totals = np.array(machine.totals(), dtype=np.int64)
    times: list[float] = []
    kinds: list[int] = []
    deltas: list[npt.NDArray[np.int64]] = []
    for i in np.flatnonzero(_completed(schedule)).tolist():
        start, end = float(schedule.start[i]), float(schedule.end[i])
        allocation = schedule.allocations.get(int(ids[i]))
        if allocation is None or not end > start:
            continue
        held = np.array(allocation.amounts, dtype=np.int64).reshape(len(allocation.nodes), -1).sum(axis=0)
        times += [start, end]
        kinds += [1, 0]
        deltas += [held, -held]
    if not times:
        return np.empty(0), np.empty((0, len(totals)), dtype=np.int64)
    t = np.array(times)
    order = np.lexsort((np.array(kinds), t))
    used = np.cumsum(np.array(deltas)[order], axis=0)
    t = t[order]
    last = np.r_[t[1:] != t[:-1], True]  # the state once every change at a time is made
    return t[last], totals - used[last]


def _fragmented_waits(schedule: Schedule, machine: Machine) -> npt.NDArray[np.float64]:
    """Per row: the seconds of its wait when the free amounts held its whole request; NaN if not started."""
    times, free = _free_steps(schedule, machine)
    totals = np.array(machine.totals(), dtype=np.int64)
    # Segment k is [edges[k], edges[k+1]) with free amounts levels[k]; the first is all free.
    edges = np.r_[-np.inf, times, np.inf]
    levels = np.vstack([totals[None, :], free]) if len(times) else totals[None, :]
    w = schedule.workload
    out = np.full(len(w), np.nan)
    started = np.flatnonzero(np.isfinite(schedule.start))
    out[started] = 0.0
    for i in started.tolist():
        submit, start = float(schedule.submit[i]), float(schedule.start[i])
        if not start > submit:
            continue
        request = machine.request(job_from_row(w.records[i].tolist()))
        need = machine.share(request) * request.count
        lo = int(np.searchsorted(edges, submit, side="right")) - 1
        hi = int(np.searchsorted(edges, start, side="left"))
        fits = (levels[lo:hi] >= need).all(axis=1)
        length = np.minimum(edges[lo + 1 : hi + 1], start) - np.maximum(edges[lo:hi], submit)
        out[i] = float(np.sum(length[fits]))
    return out


def fragmentation(schedule: Schedule) -> float:
    """Return the job-seconds jobs waited while the machine's free amounts would have held them.

    For each job that started, the seconds of its wait (``[submit, start)``) during which every
    resource's machine-wide free amount (its total on the machine less what the running jobs held,
    as a pool would see it) was at least the job's whole request (its shares times their amounts:
    its processors, and its memory where the machine plans memory), summed over the jobs. The test
    is of an instant, not of the job's whole runtime: the free amounts may not have lasted long
    enough for it to run. So it counts waits a pool scheduler may impose too (EASY keeps a job
    that fits now but would delay the head's reservation waiting), and is 0 only when no job ever
    waited with that much free. Compare it with the same measure taken on the pool run's free
    processors: what the node run adds is what placement on nodes cost. On one-core nodes without
    memory every free core holds a task, so the value is exactly the pool's view of the run's own
    waits; the run itself equals the pool run for FCFS, but may differ for the schedulers that
    reserve (EASY, Conservative, ...), since a reservation holds particular nodes.
    O(n log n + S r), n jobs and S the free-amount steps that fall in their waits.

    Args:
        schedule: A schedule of a node machine.

    Returns:
        The job-seconds; 0.0 when no job waited with enough free.

    Raises:
        BackfillError: A schedule with no node machine.

    Examples:
        Two nodes of 4 cores, each job asking 3 (then 2) cores on one node: the third waits 10 s
        while 2 cores are free, one on each node.

        >>> from backfill import FCFS, Job, Machine, NodeRequest, Workload, simulate
        >>> def one_node(job):
        ...     return NodeRequest.nodes(1, tasks_per_node=job.processors)
        >>> machine = Machine.parse("2x4", request=one_node)
        >>> jobs = [Job(id=1, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
        ...         Job(id=3, submit=0.0, processors=2, runtime=5.0, estimate=5.0)]
        >>> s = simulate(Workload.from_jobs(jobs, 8), FCFS(nodes=machine))
        >>> s.start.tolist(), fragmentation(s)
        ([0.0, 0.0, 10.0], 10.0)
    """
    machine = _machine_of(schedule, "fragmentation")
    return float(np.nansum(_fragmented_waits(schedule, machine)))


def node_columns(schedule: Schedule, measured: npt.ArrayLike | None = None) -> dict[str, float]:
    """Return the :data:`NODE_COLUMNS` of a schedule of a node machine; empty for a pool's.

    ``mean_fragmentation`` is :func:`fragmentation` over the completed jobs (NaN if none completed).
    With ``measured``, a mask of the schedule's rows (the jobs a :class:`~backfill.measures.trim.Trim`
    keeps), both cover those jobs only, while the free amounts still count every job running.

    Examples:
        >>> from backfill import FCFS, Job, Machine, Workload, simulate
        >>> w = Workload.from_jobs([Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0)], 4)
        >>> node_columns(simulate(w, FCFS())), node_columns(simulate(w, FCFS(nodes=Machine.parse("2x2"))))
        ({}, {'fragmentation': 0.0, 'mean_fragmentation': 0.0})
    """
    if schedule.machine is None:
        return {}
    waits = _fragmented_waits(schedule, schedule.machine)
    done = _completed(schedule)
    if measured is not None:
        keep = np.asarray(measured, dtype=np.bool_)
        if keep.shape != done.shape:
            raise BackfillError(f"measured has shape {keep.shape}; the schedule has {len(schedule)} jobs")
        waits, done = np.where(keep, waits, np.nan), done & keep
    total = float(np.nansum(waits))
    mean = float(np.sum(waits[done]) / np.count_nonzero(done)) if done.any() else float("nan")
    return {"fragmentation": total, "mean_fragmentation": mean}
