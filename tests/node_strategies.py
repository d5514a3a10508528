"""Hypothesis strategies of the node-model tests: small machines, requests on them, placement policies."""

from __future__ import annotations

from hypothesis import strategies as st

from backfill.profile.placement import PLACEMENTS, Placement
from backfill.workloads.nodes import Machine, NodeGroup, NodeRequest

__all__ = ["GIB", "groups", "holds", "machines", "policies", "requests"]

#: One GiB in kB: group memories are either a few kB (so that memory binds) or whole GiB (for texts).
GIB = 2**20

#: A resource no drawn machine has, so that a request can ask what the machine lacks.
_LACKED = "licences"


@st.composite
def groups(draw: st.DrawFn, max_count: int = 4, max_cores: int = 8) -> NodeGroup:
    """A group of 1..max_count nodes of 1..max_cores cores, sometimes with memory, GPUs or both."""
    amounts: dict[str, int] = {}
    if draw(st.booleans()):
        amounts["memory"] = draw(st.integers(1, 16) | st.integers(1, 16).map(lambda g: g * GIB))
    if draw(st.booleans()):
        amounts["gpus"] = draw(st.integers(1, 4))
    return NodeGroup(draw(st.integers(1, max_count)), draw(st.integers(1, max_cores)), amounts)


def machines(max_groups: int = 3) -> st.SearchStrategy[Machine]:
    """A machine of one to ``max_groups`` small node groups (1-4 nodes of 1-8 cores each)."""
    return st.lists(groups(), min_size=1, max_size=max_groups).map(Machine)


def holds(machine: Machine, request: NodeRequest) -> int:
    """The shares of ``request`` the empty machine holds, counted node by node (0 if it lacks a resource).

    Written here from the definitions, not with the library's code, so that :meth:`Machine.refusal`
    is checked against it: a node holds as many shares as each asked amount allows, at most
    ``per_node``; memory counts only where some group states it.
    """
    planned = set(machine.resources)
    asked = {n: a for n, a in request.share if a and (n in planned or n != "memory")}
    if any(n not in planned for n in asked):
        return 0
    total = 0
    for g in machine.groups:
        on_node = min(g.amount(n) // a for n, a in asked.items())
        if request.per_node is not None:
            on_node = min(on_node, request.per_node)
        total += g.count * on_node
    return total


@st.composite
def requests(draw: st.DrawFn, machine: Machine, holdable: bool | None = True) -> NodeRequest:
    """A request of tasks or of nodes x per-node amounts, sometimes exclusive.

    Args:
        machine: The machine the amounts are drawn for (each share fits one of its groups, mostly).
        holdable: True: only requests the machine can hold; False: only ones it cannot (too many
            shares, a share too big for every node, or a resource it lacks); None: either, mostly
            holdable.
    """
    if holdable is None:
        holdable = draw(st.integers(0, 3)) > 0
    group = draw(st.sampled_from(machine.groups))
    memory, gpus = group.amount("memory"), group.amount("gpus")
    exclusive = draw(st.integers(0, 3)) == 0
    # Each amount up to what the chosen group's node has, so that the share fits somewhere.
    if draw(st.booleans()):
        cores = draw(st.integers(1, group.cores))
        request = NodeRequest.tasks(
            1,
            cores_per_task=cores,
            memory_per_task=draw(st.integers(0, memory)),
            gpus_per_task=draw(st.integers(0, gpus)),
            exclusive=exclusive,
        )
    else:
        per_task = draw(st.integers(1, group.cores))
        request = NodeRequest.nodes(
            1,
            tasks_per_node=draw(st.integers(1, group.cores // per_task)),
            cores_per_task=per_task,
            memory_per_node=draw(st.integers(0, memory)),
            gpus_per_node=draw(st.integers(0, gpus)),
            exclusive=exclusive,
        )
    held = holds(machine, request)
    assert held >= 1, (machine, request)
    if holdable:
        return _with_count(request, draw(st.integers(1, held)))
    how = draw(st.sampled_from(["too many", "too big", "lacked"]))
    if how == "too many":
        return _with_count(request, draw(st.integers(held + 1, held + 3)))
    if how == "too big":
        most = max(g.cores for g in machine.groups)
        cores = draw(st.integers(most + 1, most + 3))
        return NodeRequest(request.count, (("cores", cores), *request.share[1:]), request.per_node, exclusive)
    return NodeRequest(request.count, (*request.share, (_LACKED, 1)), request.per_node, exclusive)


def _with_count(request: NodeRequest, count: int) -> NodeRequest:
    return NodeRequest(count, request.share, request.per_node, request.exclusive)


def policies() -> st.SearchStrategy[Placement]:
    """One of the built-in placement policies."""
    return st.sampled_from(sorted(PLACEMENTS.values(), key=lambda p: p.__name__))
