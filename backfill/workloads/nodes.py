"""Machines made of nodes: groups of identical nodes, what a job asks of them, and where it ran.

Issue 45's resources are machine-wide pools: a job asking 8 processors and 16 GB fits wherever
that much is free in total. Real machines allocate nodes. A :class:`Machine` is one or more
:class:`NodeGroup` of identical nodes (a heterogeneous machine has several), each node with its
cores and, optionally, memory, GPUs and any other named per-node amount. A job asks a
:class:`NodeRequest`, in one of the two forms batch systems state:

* **tasks** packed onto nodes (an SWF job: its processors, one core each, each task with its
  per-processor memory): a node takes as many tasks as all its free amounts hold;
* **nodes** x per-node amounts, as Slurm states them (``--nodes 2 --ntasks-per-node 4 --mem 12G
  --gres gpu:2``): each node of the job gets exactly one such share.

Either form may be **exclusive**: every node the job uses is wholly its own while it runs.

The machine's resources are ``cores`` then ``memory``, ``gpus`` and the other names, each one that
some group states; a group that does not state a resource has none of it, so a job asking it never
goes there. One exception keeps SWF logs usable on machines described by cores alone: if no group
states ``memory``, a job's memory is not planned (as a processors-only machine ignores it). A request
no node group can ever hold is :meth:`Machine.refusal`'s reason; the simulator rejects such a job
with that reason and counts it.

Node ids are 0-based, in the machine's order: the first group's nodes, then the second's, and so on.
An :class:`Allocation` is what a started job holds: its node ids and, per node, its amount of each
resource; :meth:`Allocation.text` writes the node ids as the interval set Batsim and evalys read
(``0-3 7``).

Examples:
    >>> machine = Machine.parse(["2x8,memory=12G", "1x4,gpus=2"])
    >>> machine.resources, machine.node_count, machine.cores
    (('cores', 'memory', 'gpus'), 3, 20)
    >>> machine.refusal(NodeRequest.nodes(1, gpus_per_node=4))
    'asks 4 gpus per node; no node has that many'
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import ParameterError
from backfill.workloads.limits import MAX_AMOUNT
from backfill.workloads.sizes import memory_size, memory_text
from backfill.workloads.workload import Job

__all__ = ["Allocation", "Machine", "NodeGroup", "NodeRequest", "interval_set", "tasks_request"]

_FIRST = ("cores", "memory", "gpus")
_GROUP_RE = re.compile(r"\s*([0-9]+)\s*[xX]\s*([0-9]+)\s*\Z")


def _whole(what: str, value: object, low: int = 0) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not low <= int(value) < MAX_AMOUNT
    ):
        raise ParameterError(f"{what} must be an int >= {low}, below 2**62, got {value!r}")
    return int(value)


def _amounts(instance: object, attribute: attrs.Attribute[Any], value: Mapping[str, int]) -> None:
    for name, amount in value.items():
        if not isinstance(name, str) or not name.isidentifier() or name in ("cores", "processors"):
            raise ParameterError(
                f"{type(instance).__name__}: a resource name must be an identifier, got {name!r}"
            )
        _whole(f"{type(instance).__name__}.{name}", amount)


def _frozen_amounts(value: Mapping[str, int] | Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    pairs = value.items() if isinstance(value, Mapping) else value
    return tuple((name, amount) for name, amount in pairs if not (isinstance(amount, int) and amount == 0))


def _check_pairs(
    instance: object, attribute: attrs.Attribute[Any], value: tuple[tuple[str, int], ...]
) -> None:
    names = [name for name, _ in value]
    if len(set(names)) != len(names):
        raise ParameterError(f"{type(instance).__name__}: a resource is named twice in {names}")
    _amounts(instance, attribute, dict(value))


@attrs.frozen
class NodeGroup:
    """``count`` identical nodes, each with ``cores`` and the per-node ``amounts`` of other resources.

    Args:
        count: Nodes in the group, >= 1.
        cores: Cores of each node, >= 1.
        amounts: Each other resource of a node and its amount: ``memory`` in kB (as SWF counts),
            ``gpus``, or any identifier (licences, burst buffer). Zero amounts are dropped.

    Examples:
        >>> NodeGroup.parse("128x8,memory=12G,gpus=4")
        NodeGroup(count=128, cores=8, amounts=(('memory', 12582912), ('gpus', 4)))
        >>> NodeGroup.parse("128x8,memory=12G,gpus=4").text()
        '128x8,memory=12G,gpus=4'
        >>> NodeGroup(0, 8)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: NodeGroup.count must be an int >= 1, below 2**62, got 0
    """

    count: int = attrs.field(validator=lambda _, __, v: _whole("NodeGroup.count", v, 1))
    cores: int = attrs.field(validator=lambda _, __, v: _whole("NodeGroup.cores", v, 1))
    amounts: tuple[tuple[str, int], ...] = attrs.field(
        default=(), converter=_frozen_amounts, validator=_check_pairs
    )

    @classmethod
    def parse(cls, text: str) -> NodeGroup:
        """Read ``COUNTxCORES[,memory=SIZE][,gpus=N][,NAME=N]...``, the form of ``--nodes``.

        ``memory`` takes a size (``12G``, ``512M``, or kB); the others whole numbers.

        Raises:
            ParameterError: The text does not have that form, naming what is wrong.
        """
        if not isinstance(text, str):
            raise ParameterError(f"a node group is text such as 128x8,memory=12G, got {text!r}")
        head, *rest = text.split(",")
        match = _GROUP_RE.match(head)
        if match is None:
            raise ParameterError(
                f"node group {text!r} must start with COUNTxCORES (such as 128x8), got {head.strip()!r}"
            )
        amounts: dict[str, int] = {}
        for part in rest:
            name, eq, value = part.partition("=")
            name, value = name.strip(), value.strip()
            if not eq or not name or not value:
                raise ParameterError(f"node group {text!r}: {part.strip()!r} is not NAME=AMOUNT")
            if name in amounts:
                raise ParameterError(f"node group {text!r} names {name!r} twice")
            if name == "memory":
                try:
                    amounts[name] = memory_size(value)
                except Exception as e:
                    raise ParameterError(f"node group {text!r}: {e}") from None
            elif value.isascii() and value.isdigit():  # str.isdigit alone takes '²', which int() refuses
                amounts[name] = _digits(text, name, value)
            else:
                raise ParameterError(f"node group {text!r}: {name} must be a whole number, got {value!r}")
        count, cores = _digits(text, "count", match[1]), _digits(text, "cores", match[2])
        try:
            return cls(count, cores, amounts)
        except ParameterError as e:
            raise ParameterError(f"node group {text!r}: {e}") from None

    def text(self) -> str:
        """The group as :meth:`parse` reads it."""
        parts = [f"{self.count}x{self.cores}"]
        parts += [f"{n}={memory_text(a) if n == 'memory' else a}" for n, a in self.amounts]
        return ",".join(parts)

    def amount(self, name: str) -> int:
        """A node's amount of resource ``name`` (``cores`` included); 0 if the group does not state it."""
        return self.cores if name == "cores" else dict(self.amounts).get(name, 0)


def _digits(text: str, what: str, digits: str) -> int:
    """``int(digits)``, refusing in the library's words the thousands of digits int() refuses."""
    if len(digits.lstrip("0")) > 19:  # 2**62 has 19 digits: so many more are out of range anyway
        raise ParameterError(
            f"node group {text[:40]!r}...: {what} must be below 2**62, got {len(digits)} digits"
        )
    return int(digits)


def _check_groups(instance: object, attribute: attrs.Attribute[Any], value: tuple[NodeGroup, ...]) -> None:
    if not value or not all(isinstance(g, NodeGroup) for g in value):
        raise ParameterError(f"Machine.groups must be one or more NodeGroup, got {value!r}")


def _tuple_of_groups(value: Iterable[NodeGroup]) -> tuple[NodeGroup, ...]:
    if isinstance(value, str | NodeGroup) or not isinstance(value, Iterable):
        raise ParameterError(f"Machine.groups must be one or more NodeGroup, got {value!r}")
    return tuple(value)


def _is_rule(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(value):
        raise ParameterError(f"Machine.request must be a callable job -> NodeRequest, got {value!r}")


def _rule_name(rule: Callable[[Job], Any]) -> str:
    return getattr(rule, "__qualname__", None) or repr(rule)


@attrs.frozen
class NodeRequest:
    """What a job asks of a node machine: ``count`` shares of ``share``, placed on nodes.

    Build one with :meth:`tasks` or :meth:`nodes`. A node takes at most ``per_node`` shares (``None``:
    as many as it holds); with ``exclusive`` every node the job uses is wholly the job's.

    Attributes:
        count: Shares asked: tasks, or nodes.
        share: The amount of each resource one share holds: ``cores`` first.
        per_node: The most shares a node takes: 1 for a request of nodes, None for tasks.
        exclusive: Whether the job holds every node it uses whole.

    Examples:
        >>> NodeRequest.tasks(16, memory_per_task=2**20)
        NodeRequest(count=16, share=(('cores', 1), ('memory', 1048576)), per_node=None, exclusive=False)
        >>> NodeRequest.nodes(2, tasks_per_node=4, gpus_per_node=2).processors
        8
    """

    count: int = attrs.field(validator=lambda _, __, v: _whole("NodeRequest.count", v, 1))
    share: tuple[tuple[str, int], ...] = attrs.field(converter=_frozen_amounts)
    per_node: int | None = attrs.field(default=None)
    exclusive: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))

    @share.validator
    def _check_share(self, attribute: attrs.Attribute[Any], value: tuple[tuple[str, int], ...]) -> None:
        names = [n for n, _ in value]
        if not names or names[0] != "cores" or len(set(names)) != len(names):
            raise ParameterError(
                f"NodeRequest.share must name cores first, each resource once, got {value!r}"
            )
        _whole("NodeRequest cores per share", value[0][1], 1)
        _amounts(self, attribute, dict(value[1:]))

    @per_node.validator
    def _check_per_node(self, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            _whole("NodeRequest.per_node", value, 1)

    @classmethod
    def tasks(
        cls,
        tasks: int,
        *,
        cores_per_task: int = 1,
        memory_per_task: int = 0,
        gpus_per_task: int = 0,
        exclusive: bool = False,
        **other_per_task: int,
    ) -> NodeRequest:
        """``tasks`` tasks packed onto nodes, each with its cores, memory (kB), GPUs and other amounts."""
        _whole("NodeRequest.cores_per_task", cores_per_task, 1)  # a zero would be dropped from the share
        share = {"cores": cores_per_task, "memory": memory_per_task, "gpus": gpus_per_task, **other_per_task}
        return cls(tasks, share, None, exclusive)

    @classmethod
    def nodes(
        cls,
        nodes: int,
        *,
        tasks_per_node: int = 1,
        cores_per_task: int = 1,
        memory_per_node: int = 0,
        gpus_per_node: int = 0,
        exclusive: bool = False,
        **other_per_node: int,
    ) -> NodeRequest:
        """``nodes`` nodes, each holding ``tasks_per_node`` tasks and the per-node amounts (Slurm's form)."""
        _whole("NodeRequest.tasks_per_node", tasks_per_node, 1)
        _whole("NodeRequest.cores_per_task", cores_per_task, 1)
        share = {
            "cores": tasks_per_node * cores_per_task,
            "memory": memory_per_node,
            "gpus": gpus_per_node,
            **other_per_node,
        }
        return cls(nodes, share, 1, exclusive)

    @property
    def processors(self) -> int:
        """Cores the job asks (its shares times the cores of one), as the pool model counts it."""
        return self.count * self.share[0][1]

    def amount(self, name: str) -> int:
        """One share's amount of resource ``name``; 0 if it asks none."""
        return dict(self.share).get(name, 0)


def tasks_request(job: Job) -> NodeRequest:
    """An SWF job's request: its processors as one-core tasks, each with its memory per processor.

    The memory per task is the requested memory (field 10, kB per processor) where the log records
    one, else the average used memory (field 7), rounded up to a whole kB, else none, as
    :func:`~backfill.workloads.resources.memory_request` reads it for the pool model.

    Examples:
        >>> job = Job(id=1, submit=0.0, processors=4, runtime=1.0, estimate=1.0, requested_memory=300.5)
        >>> tasks_request(job)
        NodeRequest(count=4, share=(('cores', 1), ('memory', 301)), per_node=None, exclusive=False)
    """
    per = job.requested_memory if job.requested_memory > 0 else job.memory
    memory = math.ceil(per) if per > 0 else 0
    return NodeRequest.tasks(job.processors, memory_per_task=memory)


@attrs.frozen
class Machine:
    """A machine of node groups, and the rule giving each job's :class:`NodeRequest`.

    Args:
        groups: The node groups, in node-id order.
        request: A callable job -> NodeRequest (a module-level function, so that sweeps can send it
            to their workers): by default :func:`tasks_request`, an SWF job's processors as tasks.

    Examples:
        >>> m = Machine.parse("4x8,memory=12G")
        >>> m
        Machine(groups=(NodeGroup(count=4, cores=8, amounts=(('memory', 12582912),)),), request=tasks_request)
        >>> m.text(), m.capacities().tolist()[0]
        ('4x8,memory=12G', [8, 12582912])
    """

    groups: tuple[NodeGroup, ...] = attrs.field(converter=_tuple_of_groups, validator=_check_groups)
    request: Callable[[Job], NodeRequest] = attrs.field(
        default=tasks_request, validator=_is_rule, repr=_rule_name
    )

    @classmethod
    def parse(
        cls, texts: str | Iterable[str], request: Callable[[Job], NodeRequest] = tasks_request
    ) -> Machine:
        """A machine from node groups as ``--nodes`` reads them: ``"128x8,memory=12G"``, one per group.

        Raises:
            ParameterError: A group is not of the form :meth:`NodeGroup.parse` reads, or none is given.
        """
        groups = [texts] if isinstance(texts, str) else list(texts)
        return cls(tuple(NodeGroup.parse(t) for t in groups), request)

    def text(self) -> str:
        """The groups as :meth:`parse` reads them, separated by spaces (labels, file headers)."""
        return " ".join(g.text() for g in self.groups)

    @property
    def resources(self) -> tuple[str, ...]:
        """The resources the machine plans, ``cores`` first. O(g r).

        Then ``memory`` and ``gpus`` if some group states them, then the other names in the order
        the groups first state them.
        """
        named = {n: None for g in self.groups for n, _ in g.amounts}
        first = [n for n in _FIRST if n == "cores" or n in named]
        return (*first, *(n for n in named if n not in _FIRST))

    @property
    def node_count(self) -> int:
        """Nodes of the machine. O(g)."""
        return sum(g.count for g in self.groups)

    @property
    def cores(self) -> int:
        """Cores of the machine: the processors of the pool model (``machine_size``). O(g)."""
        return sum(g.count * g.cores for g in self.groups)

    def totals(self) -> tuple[int, ...]:
        """The machine-wide amount of each of :attr:`resources`: the pool model's capacities. O(g r)."""
        return tuple(sum(g.count * g.amount(n) for g in self.groups) for n in self.resources)

    def capacities(self) -> npt.NDArray[np.int64]:
        """Each node's amount of each resource, a (nodes, resources) array in node-id order. O(N r)."""
        names = self.resources
        rows = [[g.amount(n) for n in names] for g in self.groups]
        return np.repeat(np.array(rows, dtype=np.int64), [g.count for g in self.groups], axis=0)

    def group_of(self, node: int) -> int:
        """The index of the group node ``node`` belongs to. O(g)."""
        rest = node
        for i, g in enumerate(self.groups):
            if 0 <= rest < g.count:
                return i
            rest -= g.count
        raise ParameterError(f"node {node} is not a node of {self.text()}")

    def share(self, request: NodeRequest) -> npt.NDArray[np.int64]:
        """One share of ``request`` as a vector over :attr:`resources` (memory dropped where unplanned).

        Raises:
            ParameterError: If the request asks a resource the machine does not have (memory apart).
        """
        names = self.resources
        missing = [n for n, a in request.share if a and n not in names and n != "memory"]
        if missing:
            raise ParameterError(f"asks {', '.join(missing)}; the machine {self.text()} has none")
        return np.array([request.amount(n) for n in names], dtype=np.int64)

    def refusal(self, request: NodeRequest) -> str | None:
        """Why no placement can ever hold ``request`` on this machine, or None if one can.

        Checked on the empty machine, group by group: a share must fit on some node, and the nodes
        together must hold ``count`` shares. O(g r).
        """
        try:
            share = self.share(request)
        except ParameterError as e:
            return str(e)
        names = self.resources
        held = 0
        for g in self.groups:
            held += g.count * _shares_on(np.array([g.amount(n) for n in names]), share, request)
        if held >= request.count:
            return None
        if held == 0:
            over = [
                f"{a} {n}"
                for n, a in zip(names, share, strict=True)
                if a > max(g.amount(n) for g in self.groups)
            ]
            what = (
                ", ".join(over)
                if over
                else "a share of " + ", ".join(f"{a} {n}" for n, a in zip(names, share, strict=True))
            )
            return f"asks {what} per {'node' if request.per_node == 1 else 'task'}; no node has that many"
        unit = "nodes" if request.per_node == 1 else "tasks"
        return f"asks {request.count} {unit}; the machine holds at most {held} such {unit}"


def _shares_on(capacity: npt.NDArray[np.int64], share: npt.NDArray[np.int64], request: NodeRequest) -> int:
    """How many shares an empty node of ``capacity`` holds."""
    asked = share > 0
    most = int(np.min(capacity[asked] // share[asked]))
    return most if request.per_node is None else min(most, request.per_node)


@attrs.frozen
class Allocation:
    """The nodes a started job holds, and its amount of each resource on each.

    Attributes:
        nodes: Node ids, increasing.
        amounts: Per node, the amount of each of ``resources`` the job holds there.
        resources: The machine's resource names (``cores`` first).

    Examples:
        >>> a = Allocation((0, 1, 2, 5), ((8,), (8,), (8,), (4,)), ("cores",))
        >>> a.text(), a.processors
        ('0-2 5', 28)
    """

    nodes: tuple[int, ...]
    amounts: tuple[tuple[int, ...], ...]
    resources: tuple[str, ...]

    def __attrs_post_init__(self) -> None:
        ids, amounts, names = self.nodes, self.amounts, self.resources
        if (
            not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) and i >= 0 for i in ids)
            or any(a >= b for a, b in itertools.pairwise(ids))
            or len(amounts) != len(ids)
            or not names
            or not all(len(row) == len(names) for row in amounts)
            or not all(
                isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 0
                for r in amounts
                for x in r
            )
        ):
            raise ParameterError(
                f"an Allocation is increasing node ids >= 0, each with one amount >= 0 of each of its "
                f"resources; got nodes {ids!r}, amounts {amounts!r}, resources {names!r}"
            )

    def text(self) -> str:
        """The node ids as an interval set (``0-2 5``), the form Batsim and evalys read."""
        return interval_set(self.nodes)

    @property
    def processors(self) -> int:
        """Cores held over all nodes."""
        return sum(a[0] for a in self.amounts)


def interval_set(ids: Iterable[int]) -> str:
    """Write ids as an interval set, in increasing order: runs ``a-b``, single ids alone, separated by spaces.

    Examples:
        >>> interval_set([0, 1, 2, 4, 7, 8])
        '0-2 4 7-8'
        >>> interval_set([])
        ''
    """
    parts: list[str] = []
    run: list[int] = []
    for i in sorted(set(ids)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [i]
    if run:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return " ".join(parts)
