"""Node machines for property tests: drawn machines of one to three node groups, and a mixed request rule."""

from __future__ import annotations

from hypothesis import strategies as st

from backfill.workloads.nodes import Machine, NodeGroup, NodeRequest
from backfill.workloads.workload import Job

__all__ = ["mixed_request", "node_machines"]


def mixed_request(job: Job) -> NodeRequest:
    """A request rule that mixes both forms, for tests: most jobs ask tasks, some nodes with a GPU.

    By the job's id: every third job asks ``min(processors, 3)`` nodes with one task, one GPU and
    ``id % 4`` kB of memory each; the others ask their processors as tasks with ``id % 3`` kB of
    memory each; every fifth job is exclusive. Memory and GPUs are asked only of machines that have
    them (a machine without memory ignores it; one without GPUs rejects the GPU jobs, with the reason).

    Examples:
        >>> mixed_request(Job(id=3, submit=0.0, processors=5, runtime=1.0, estimate=1.0))
        NodeRequest(count=3, share=(('cores', 1), ('memory', 3), ('gpus', 1)), per_node=1, exclusive=False)
    """
    exclusive = job.id % 5 == 0
    if job.id % 3 == 0:
        return NodeRequest.nodes(
            min(job.processors, 3), memory_per_node=job.id % 4, gpus_per_node=1, exclusive=exclusive
        )
    return NodeRequest.tasks(job.processors, memory_per_task=job.id % 3, exclusive=exclusive)


@st.composite
def _groups(draw: st.DrawFn, memory: bool, gpus: bool) -> NodeGroup:
    amounts = {}
    if memory and draw(st.booleans()):
        amounts["memory"] = draw(st.integers(1, 12))
    if gpus and draw(st.booleans()):
        amounts["gpus"] = draw(st.integers(1, 3))
    return NodeGroup(draw(st.integers(1, 4)), draw(st.integers(1, 6)), amounts)


def node_machines(
    *, max_groups: int = 3, memory: bool = True, gpus: bool = True, mixed: bool = True
) -> st.SearchStrategy[Machine]:
    """Draw small machines of 1 to ``max_groups`` node groups (1-4 nodes of 1-6 cores each).

    Each group may have memory (1-12 kB a node) and GPUs (1-3 a node), so that they bind often;
    with ``mixed`` the request rule is :func:`mixed_request`, else an SWF job's processors as
    tasks (:func:`~backfill.workloads.nodes.tasks_request`).

    Examples:
        >>> from hypothesis import given
        >>> @given(node_machines(max_groups=2))
        ... def test(machine):
        ...     assert 1 <= len(machine.groups) <= 2 and machine.cores >= 1
        >>> test()
    """
    groups = st.lists(_groups(memory, gpus), min_size=1, max_size=max_groups)
    if mixed:
        return groups.map(lambda g: Machine(tuple(g), mixed_request))
    return groups.map(lambda g: Machine(tuple(g)))
