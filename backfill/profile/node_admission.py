"""What a node machine can ever hold: requests no placement holds, and where a job of no length runs.

The simulator rejects a job whose request no placement can ever hold (:func:`placement_refusal`,
through :func:`~backfill.admission.rejections`), and a scheduler refuses one at its door. A job of
zero estimate holds nothing over time, so no reservation records its nodes; a host that places
jobs still needs some to name (:func:`zero_length_allocation`).
"""

from __future__ import annotations

import functools

import numpy as np

from backfill.profile import ProfileError
from backfill.profile.demand import Demand
from backfill.profile.nodes import NodeProfile
from backfill.profile.placement import Placement
from backfill.workloads.nodes import Allocation, Machine, NodeRequest

__all__ = ["placement_refusal", "zero_length_allocation"]


@functools.lru_cache(maxsize=4096)
def placement_refusal(machine: Machine, policy: Placement, request: NodeRequest) -> str | None:
    """Why ``request`` can never be placed on ``machine`` by ``policy``, or None if it can.

    :meth:`Machine.refusal`'s reasons, and a policy that does not place the request even on the
    empty machine (``contiguous`` on a machine whose groups hold it only together). Cached: O(N r)
    for the first call of a request, O(1) after.

    Examples:
        >>> from backfill.profile.placement import contiguous
        >>> machine = Machine.parse(["1x4", "1x4,gpus=1"])
        >>> placement_refusal(machine, contiguous, NodeRequest.tasks(8)) is None
        True
        >>> placement_refusal(machine, contiguous, NodeRequest.nodes(2, gpus_per_node=1))
        'asks 2 nodes; the machine holds at most 1 such nodes'
    """
    why = machine.refusal(request)
    if why is not None:
        return why
    profile = NodeProfile(machine.capacities(), 0, policy)
    if not profile._free_at(0).holds(Demand.of(0, machine, request)):
        name = getattr(policy, "__qualname__", repr(policy))
        return f"is never placed by {name}, even on the empty machine"
    return None


def zero_length_allocation(profile: NodeProfile, demand: Demand, now: float, machine: Machine) -> Allocation:
    """Where a job of zero estimate runs: placed on what is free at ``now``, else on the empty machine.

    Such a job holds nothing over time (it starts and ends in one instant), so no reservation
    records it; a host that places jobs still needs nodes to name. O(N r).
    """
    for free in (profile._free_at(now).amounts, profile.capacity):
        room = profile._room(free, demand)
        take = profile._place(room, demand) if int(room.sum()) >= demand.count else None
        if take is not None:
            nodes = np.flatnonzero(take)
            amounts = profile.capacity[nodes] if demand.exclusive else take[nodes, None] * demand.share
            return Allocation(tuple(nodes.tolist()), tuple(map(tuple, amounts.tolist())), machine.resources)
    raise ProfileError(f"NodeProfile: {demand!r} is never placed, even on the empty machine")
