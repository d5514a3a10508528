"""The displacement rule of the slack-based schedulers on a node machine.

:mod:`backfill.schedulers._displace` states the rule on processors and on pools of resources; on
a node machine (``nodes=...``) it reads node by node:

1. The selected jobs give up their own reservations.
2. For each selected job in arrival order, its nodes are chosen *now*: the placement policy places
   it on what is free at this instant (the jobs only start if they fit now). While those nodes
   lack the job's amounts somewhere in ``[now, now + estimate)``, the first instant of shortage is
   found, and the reservation covering it of the job that *arrived last*, among those holding a
   short node, gives way. Only reservations on the job's nodes move.
3. The displaced jobs are placed again, in arrival order, at their earliest placement from now.

As there, a start is allowed only if every displaced job's new start is at or before its limit,
and it is planned on a copy of the profile first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from backfill.profile.nodes import Demand, NodeFree, NodeProfile
from backfill.workloads.workload import Job

__all__ = ["fits_together", "try_start_nodes"]


def try_start_nodes(
    scheduler: Any, jobs: Sequence[Job], now: float
) -> tuple[NodeProfile, list[tuple[Job, float, float]]] | None:
    """Plan starting ``jobs`` now on a copy of the scheduler's node profile, by the rule above.

    Returns the new profile and the moves ``(job, old start, new start)``, or None if a displaced
    job would pass its limit (or the jobs are not placed now). O(n N r) for the copy plus
    O(d (q + k N r)) for d displaced jobs among q queued ones.
    """
    profile: NodeProfile = scheduler._profile.copy()
    requests, planned, arrival = scheduler._requests, scheduler._planned, scheduler._arrival
    for job in jobs:
        if job.estimate > 0:
            start = planned[job.id]
            profile._release(start, start + job.estimate, requests[job.id])
    excluded = {job.id for job in jobs}
    displaced: list[Job] = []
    for job in jobs:
        end = now + job.estimate
        if end > now and not _make_room(scheduler, profile, now, end, requests[job.id], excluded, displaced):
            return None
    moves = []
    for victim in sorted(displaced, key=lambda j: arrival[j.id]):
        demand = requests[victim.id]
        new = profile._earliest_fit(now, demand, victim.estimate)
        if new > scheduler._limit(victim, now):
            return None
        profile._reserve(new, new + victim.estimate, demand)
        moves.append((victim, planned[victim.id], new))
    return profile, moves


def _make_room(
    scheduler: Any,
    profile: NodeProfile,
    now: float,
    end: float,
    demand: Demand,
    excluded: set[int],
    displaced: list[Job],
) -> bool:
    """Choose the job's nodes now, move the reservations in their way, and hold them. O(d (q + k N r))."""
    room = profile._room(profile._free_at(now).amounts, demand)
    take = profile._place(room, demand) if int(room.sum()) >= demand.count else None
    if take is None:
        return False
    nodes = np.flatnonzero(take)
    amounts = profile.capacity[nodes] if demand.exclusive else take[nodes, None] * demand.share
    order, planned, requests = scheduler._order, scheduler._planned, scheduler._requests
    while (shortage := _first_short(profile, now, end, nodes, amounts)) is not None:
        t, short = shortage
        victim = None
        best = -1
        for start, seq, job in order.islice(0, order.bisect_right((t, math.inf))):
            if seq > best and start + job.estimate > t and job.id not in excluded:
                place = profile.placement(job.id)
                if place is not None and not short.isdisjoint(place[0]):
                    victim, best = job, seq
        if victim is None:  # pragma: no cover - only queued reservations can lie on nodes free now
            return False
        start = planned[victim.id]
        profile._release(start, start + victim.estimate, requests[victim.id])
        displaced.append(victim)
        excluded.add(victim.id)
    profile._hold(demand.key, nodes, amounts, now, end)
    return True


def _first_short(
    profile: NodeProfile, now: float, end: float, nodes: npt.NDArray[np.int64], amounts: npt.NDArray[np.int64]
) -> tuple[float, set[int]] | None:
    """The first instant in ``[now, end)`` where ``nodes`` lack ``amounts``, and the nodes short then."""
    i, j = profile._span(now, end)
    for k in range(i, j):
        lacking = (profile._free[k][nodes] < amounts).any(axis=1)
        if lacking.any():
            t = profile._times[k]
            return (t if t > now else now), set(nodes[lacking].tolist())
    return None


def fits_together(free: NodeFree, demands: Sequence[Demand]) -> bool:
    """Whether the policy places ``demands`` one after another on the free amounts. O(m N r)."""
    profile = free._profile
    left = free.amounts.copy()
    for demand in demands:
        room = profile._room(left, demand)
        take = profile._place(room, demand) if int(room.sum()) >= demand.count else None
        if take is None:
            return False
        nodes = np.flatnonzero(take)
        left[nodes] -= profile.capacity[nodes] if demand.exclusive else take[nodes, None] * demand.share
    return True
