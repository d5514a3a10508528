"""The node machine a sweep's scheduler spec carries: its checks, text, label and identity.

Private to :mod:`backfill.experiments.specs`. A :class:`~backfill.experiments.specs.SchedulerSpec`
with ``nodes`` places every job on that :class:`~backfill.workloads.nodes.Machine` with its
``placement`` (a name of :data:`~backfill.profile.placement.PLACEMENTS`, or a module-level
callable). A spec goes to a sweep's worker processes by pickling, which sends a function by its
module and name: the machine's request rule and a placement of one's own must be module-level
functions, checked here when the spec is made rather than in a worker.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from backfill.errors import ParameterError
from backfill.profile.placement import PLACEMENTS, Placement
from backfill.workloads.nodes import Machine, tasks_request
from backfill.workloads.request_table import RequestTable

__all__ = [
    "NODE_WORDS",
    "check_machine",
    "check_module_level",
    "node_extras",
    "node_identity",
    "node_params",
    "placement_label",
    "placement_of",
    "read_node_extras",
]

#: The words of a spec's text that give its node machine (``easy+nodes=64x8 8x8,gpus=4+placement=best_fit``).
NODE_WORDS = ("nodes", "placement", "request")


def _dotted(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def check_module_level(what: str, function: object) -> None:
    """Refuse a callable a worker process cannot import by its module and name (a lambda, a closure).

    Raises:
        ParameterError: Naming ``what`` and the callable.

    Examples:
        >>> check_module_level("placement", PLACEMENTS["best_fit"])
        >>> check_module_level("placement", lambda room, count: None)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: placement <function <lambda> at ...> is not a module-level ...
    """
    name = getattr(function, "__qualname__", None)
    found: Any = sys.modules.get(getattr(function, "__module__", None) or "")
    for part in (name or "<>").split("."):
        found = getattr(found, part, None)
    if found is not function:
        raise ParameterError(
            f"{what} {function!r} is not a module-level function: a sweep sends it to its worker "
            "processes by its module and name, so define it at the top level of a module"
        )


def placement_of(value: object) -> str | Placement | None:
    """A spec's placement as it keeps it: a built-in policy by its name, another callable as it is.

    Raises:
        ParameterError: An unknown name, or something neither a name nor a callable.

    Examples:
        >>> placement_of(PLACEMENTS["contiguous"]), placement_of("best_fit"), placement_of(None)
        ('contiguous', 'best_fit', None)
    """
    if value is None:
        return None
    if isinstance(value, str):
        if value not in PLACEMENTS:
            raise ParameterError(f"unknown placement {value!r}; known: {', '.join(PLACEMENTS)}")
        return value
    for name, policy in PLACEMENTS.items():
        if value is policy:
            return name
    if not callable(value):
        raise ParameterError(
            f"a placement is a name ({', '.join(PLACEMENTS)}) or a callable (room, count) -> take, "
            f"got {value!r}"
        )
    check_module_level("placement", value)
    return value


def placement_label(placement: str | Placement) -> str:
    """The placement's name: a built-in's (by name or as the function), or a callable's dotted name."""
    if isinstance(placement, str):
        return placement
    return next((name for name, policy in PLACEMENTS.items() if policy is placement), None) or _dotted(
        placement
    )


def _rule_label(rule: Callable[..., Any]) -> str:
    """A request rule's name in labels: a function's dotted name, a table's source and digest."""
    return rule.label if isinstance(rule, RequestTable) else _dotted(rule)


def _rule_identity(rule: Callable[..., Any]) -> str:
    """A request rule in a cache key: a function by its dotted name, a table by its content's digest.

    A table is data: two files' tables share a key only if they hold the same requests.
    """
    return f"RequestTable:{rule.digest}" if isinstance(rule, RequestTable) else _dotted(rule)


def check_machine(machine: object) -> None:
    """Refuse what is not a :class:`Machine`, or one whose request rule a worker cannot import.

    A :class:`~backfill.workloads.request_table.RequestTable` is sent as its data, so it passes.
    """
    if not isinstance(machine, Machine):
        raise ParameterError(f"nodes must be a Machine of node groups or None, got {machine!r}")
    if not isinstance(machine.request, RequestTable):
        check_module_level("the node request rule", machine.request)


def node_extras(machine: Machine, placement: str | Placement) -> list[str]:
    """The words a spec's text and label add for its node machine, each after a ``+``.

    The placement only when it is not first fit (the default), the request rule only when it is not
    :func:`~backfill.workloads.nodes.tasks_request`: as the scheduler's own name shows them.

    Examples:
        >>> node_extras(Machine.parse(["64x8,memory=12G", "8x8,gpus=4"]), "best_fit")
        ['nodes=64x8,memory=12G 8x8,gpus=4', 'placement=best_fit']
    """
    words = [f"nodes={machine.text()}"]
    if placement != "first_fit":
        words.append(f"placement={placement_label(placement)}")
    if machine.request is not tasks_request:
        words.append(f"request={_rule_label(machine.request)}")
    return words


def node_params(machine: Machine, placement: str | Placement) -> dict[str, str]:
    """The machine's entries of a result row's ``params``: its groups' text and the placement.

    Examples:
        >>> node_params(Machine.parse("120x2"), "first_fit")
        {'nodes': '120x2', 'placement': 'first_fit'}
    """
    params = {"nodes": machine.text(), "placement": placement_label(placement)}
    if machine.request is not tasks_request:
        params["request"] = _rule_label(machine.request)
    return params


def node_identity(machine: Machine, placement: str | Placement) -> dict[str, Any]:
    """What a cell's result depends on of the node machine, exact (sizes in kB, not as text)."""
    groups = [[g.count, g.cores, [list(a) for a in g.amounts]] for g in machine.groups]
    placed = placement_label(placement)
    return {"nodes": groups, "placement": placed, "request": _rule_identity(machine.request)}


def read_node_extras(extras: Iterable[str]) -> tuple[Machine | None, str | None, list[str]]:
    """Split a spec text's ``+`` words into its node machine, its placement and the resources' words.

    Raises:
        ParameterError: A bad node group (naming it), a placement without nodes or an unknown one,
            a word given twice, or a request rule given as text.

    Examples:
        >>> read_node_extras(["nodes=4x8,memory=12G 2x8", "placement=best_fit"])[:2]
        (Machine(groups=(...), request=tasks_request), 'best_fit')
    """
    nodes: Machine | None = None
    placement: str | None = None
    rest: list[str] = []
    seen: set[str] = set()
    for word in extras:
        key, eq, value = word.partition("=")
        key = key.strip()
        if key not in NODE_WORDS:
            rest.append(word)
            continue
        if key in seen:
            raise ParameterError(f"+{key} is given twice")
        seen.add(key)
        if key == "request":
            raise ParameterError(
                "a node request rule other than tasks_request is given in Python: "
                "SchedulerSpec(..., nodes=Machine.parse(groups, request=rule))"
            )
        if not eq or not value.strip():
            raise ParameterError(f"+{key}= needs a value, such as +nodes=128x8,memory=12G")
        if key == "nodes":
            nodes = Machine.parse(value.split())
        else:
            placement = str(placement_of(value.strip()))
    if placement is not None and nodes is None:
        raise ParameterError(
            f"+placement={placement} needs +nodes=GROUP...: a placement places jobs on nodes"
        )
    return nodes, placement, rest
