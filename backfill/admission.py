"""Which jobs of a workload a machine can ever run: the jobs a host rejects, each with its reason.

The simulator rejects these jobs before the run and never submits them (a scheduler refuses them at
its door); :attr:`~backfill.schedule.Schedule.rejected` keeps the reasons, so that every input job
ends up scheduled or reported. A host simulator of your own rejects the same jobs by calling
:func:`rejections`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from backfill.errors import ScheduleError
from backfill.profile.nodes import placement_refusal
from backfill.profile.placement import first_fit
from backfill.workloads.nodes import Machine, NodeRequest
from backfill.workloads.workload import Workload, job_from_row

__all__ = ["machine_size", "rejections"]


def machine_size(workload: Workload, scheduler: Any) -> int:
    """The processors a scheduler is reset with: its node machine's cores, else the workload's size.

    Examples:
        >>> from backfill import FCFS, Job, Machine
        >>> w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)], 4)
        >>> machine_size(w, FCFS()), machine_size(w, FCFS(nodes=Machine.parse("3x4")))
        (4, 12)
    """
    machine = getattr(scheduler, "nodes", None)
    return workload.machine_size if machine is None else machine.cores


def rejections(workload: Workload, scheduler: Any) -> tuple[dict[int, str], npt.NDArray[np.bool_]]:
    """The jobs no run of ``scheduler`` can start, by job id with the reason, and their rows' mask.

    In this order (a job gets the first reason that applies): wider than the machine, no positive
    processor count, unknown runtime; then, for each resource the scheduler plans (its
    ``resources``), asking 2**62 or more of it, or more than the machine has; then, on a node
    machine (its ``nodes``), a request no placement can ever hold
    (:func:`~backfill.profile.nodes.placement_refusal`). O(n) for n jobs, plus the request rule's
    cost per job on a node machine.

    Raises:
        ScheduleError: If the node machine's request rule fails on a job or gives no NodeRequest.

    Examples:
        >>> from backfill import FCFS, Job
        >>> jobs = [Job(id=1, submit=0.0, processors=4, runtime=1.0, estimate=1.0),
        ...         Job(id=2, submit=0.0, processors=9, runtime=1.0, estimate=1.0)]
        >>> rejections(Workload.from_jobs(jobs, 8), FCFS())[0]
        {2: 'wider than the machine (8 processors)'}
    """
    r = workload.records
    size = machine_size(workload, scheduler)
    procs = r["processors"]
    reasons: dict[int, str] = {}
    bad = np.zeros(len(r), dtype=bool)
    ids = r["id"]

    def reject(mask: npt.NDArray[np.bool_], reason: str) -> None:
        mask = mask & ~bad
        for job_id in ids[mask].tolist():
            reasons[job_id] = reason
        bad[mask] = True

    reject(procs > size, f"wider than the machine ({size} processors)")
    reject(procs <= 0, "no positive processor count")
    # A Workload has already refused NaN, infinities and negatives other than SWF's -1.
    reject(r["runtime"] < 0, "unknown runtime")
    for resource in getattr(scheduler, "resources", ()):
        # A job asking more of a resource than the machine has never fits: rejected, as too wide;
        # one asking MAX_AMOUNT or more too, with its own reason (no capacity is that large).
        amounts, past = resource.bounded_amounts(workload)
        reject(past, f"asks 2**62 or more {resource.name} (MAX_AMOUNT, more than any capacity)")
        reject(
            amounts > resource.capacity,
            f"needs more {resource.name} than the machine has ({resource.capacity})",
        )
    machine = getattr(scheduler, "nodes", None)
    if machine is not None:
        policy = getattr(scheduler, "placement", first_fit)
        for i in np.flatnonzero(~bad).tolist():
            why = placement_refusal(machine, policy, _node_request(machine, r[i].tolist()))
            if why is not None:
                reasons[int(ids[i])] = why
                bad[i] = True
    return reasons, bad


def _node_request(machine: Machine, row: list[Any]) -> NodeRequest:
    """A row's node request by the machine's rule, checked."""
    job = job_from_row(row)
    try:
        request = machine.request(job)
    except Exception as e:  # a user's rule: its error, named
        raise ScheduleError(f"the node request rule failed on job {job.id}: {e}") from e
    if not isinstance(request, NodeRequest):
        raise ScheduleError(f"the node request rule gave {request!r} for job {job.id}, not a NodeRequest")
    return request
