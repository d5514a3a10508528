"""AccaSim's import (with its Python 3.11 shim) and the one place where its machine meets ours.

backfill's machine of nodes is a :class:`~backfill.workloads.nodes.Machine`; AccaSim's is a system
configuration of node groups. The mapping, in full:

==============================================  =====================================================
backfill (:mod:`backfill.workloads.nodes`)      AccaSim 1.1.3
==============================================  =====================================================
node id ``i`` (0-based, in the groups' order)   node ``"node_{i+1}"`` (``Resources`` numbers the nodes
                                                in the order of the configuration's groups)
resource ``cores``, ``memory`` (kB), ``gpus``   ``core``, ``mem`` (the SWF's kB), ``gpu``; any other
                                                name is the same in both
``NodeGroup(count, cores, amounts)``            a group of the system configuration, ``count`` nodes
the request of an SWF job, ``tasks_request``:   the request of AccaSim's SWF reader
``p`` one-core tasks with the memory per        (``DefaultTweaker``, equivalence ``processor: {core:
processor (field 10, else 7, rounded up)        1}``): ``p`` units of one core and the memory of a
                                                processor, which its allocators pack onto nodes
==============================================  =====================================================

AccaSim's reader knows only that request form: a :class:`~backfill.workloads.nodes.Machine` whose
``request`` is another rule (whole nodes, exclusive) is not one AccaSim can run.
"""

from __future__ import annotations

import collections
import collections.abc
import importlib
import importlib.metadata
import sys
import warnings
from types import ModuleType
from typing import Any

from backfill.errors import BackfillError, ParameterError
from backfill.workloads.nodes import Machine, NodeGroup, tasks_request

__all__ = [
    "ACCASIM_NAMES",
    "ACCASIM_VERSION",
    "accasim_node",
    "accasim_resource",
    "import_accasim",
    "node_id",
    "one_core_nodes",
    "system_config",
]

#: The AccaSim release this adapter was written and tested against (the ``accasim`` extra pins it).
ACCASIM_VERSION = "1.1.3"
#: The modules of AccaSim the adapter uses, imported together.
_MODULES = (
    "accasim.base.simulator_class",
    "accasim.base.scheduler_class",
    "accasim.base.allocator_class",
    "accasim.base.event_class",
)


def import_accasim() -> ModuleType:
    """Import AccaSim 1.1.3 on this Python and return its package, or say which extra brings it.

    AccaSim 1.1.3's ``accasim.utils.misc`` does ``from collections import Mapping``, an alias Python
    3.10 removed: this function lends ``collections.Mapping`` (``collections.abc.Mapping``) for the
    import and takes it back after, so nothing else sees it. Its regular expressions are written
    with invalid escape sequences, which compile with a DeprecationWarning when its files are
    compiled again: silenced for the import only. No other shim is needed on Python 3.11.

    Returns:
        The ``accasim`` package, with ``accasim.base.simulator_class``, ``scheduler_class``,
        ``allocator_class`` and ``event_class`` imported.

    Raises:
        BackfillError: AccaSim is not installed, or another release than 1.1.3 is; the message
            names the extra.

    Examples:
        >>> import accasim  # the extra: pip install '.[accasim]'
        >>> import_accasim().base.allocator_class.FirstFit.name
        'FF'
    """
    if all(name in sys.modules for name in _MODULES):
        return sys.modules["accasim"]  # the dispatcher asks at every decision
    lent = not hasattr(collections, "Mapping")
    if lent:
        collections.Mapping = collections.abc.Mapping  # type: ignore[attr-defined]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            for name in _MODULES:
                importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] != "accasim":
            raise
        raise BackfillError(
            f"driving a scheduler from AccaSim needs AccaSim {ACCASIM_VERSION}: pip install '.[accasim]'"
        ) from error
    finally:
        if lent:
            del collections.Mapping  # type: ignore[attr-defined]
    _check_version()
    return importlib.import_module("accasim")


def _check_version() -> None:
    """Refuse another AccaSim release: the dispatcher relies on 1.1.3's internals."""
    try:
        installed = importlib.metadata.version("accasim")
    except importlib.metadata.PackageNotFoundError:  # imported from a source tree: no metadata
        return
    if installed != ACCASIM_VERSION:
        raise BackfillError(
            f"the AccaSim adapter was written for AccaSim {ACCASIM_VERSION}, and {installed} is "
            "installed: pip install '.[accasim]'"
        )


#: backfill's resource names whose AccaSim name differs; any other name is the same in both.
ACCASIM_NAMES = {"cores": "core", "memory": "mem", "gpus": "gpu"}


def accasim_resource(name: str) -> str:
    """AccaSim's name of backfill's resource ``name``.

    Examples:
        >>> accasim_resource("cores"), accasim_resource("memory"), accasim_resource("licences")
        ('core', 'mem', 'licences')
    """
    return ACCASIM_NAMES.get(name, name)


def accasim_node(node: int) -> str:
    """AccaSim's name of node id ``node`` (0-based, in the machine's order).

    Examples:
        >>> accasim_node(0), accasim_node(127)
        ('node_1', 'node_128')
    """
    return f"node_{node + 1}"


def node_id(name: str) -> int:
    """The 0-based node id of the node AccaSim calls ``name``.

    Examples:
        >>> node_id("node_3")
        2
        >>> node_id("n3")
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: 'n3' is not an AccaSim node name (node_1, node_2, ...)
    """
    prefix, _, number = name.partition("_")
    if prefix != "node" or not number.isdigit() or int(number) < 1:
        raise ParameterError(f"{name!r} is not an AccaSim node name (node_1, node_2, ...)")
    return int(number) - 1


def one_core_nodes(nodes: int) -> Machine:
    """``nodes`` nodes of one core and nothing else: where AccaSim's machine is backfill's pool.

    Examples:
        >>> one_core_nodes(64).text()
        '64x1'
    """
    return Machine((NodeGroup(nodes, 1),))


def system_config(machine: Machine) -> dict[str, Any]:
    """The machine as AccaSim's system configuration (its JSON), one group per node group.

    Raises:
        ParameterError: The machine's request rule is not ``tasks_request``, the only form AccaSim's
            SWF reader makes.

    Examples:
        >>> config = system_config(Machine.parse(["2x8,memory=16M", "1x4,gpus=2"]))
        >>> config["groups"]
        {'group_0': {'core': 8, 'mem': 16384, 'gpu': 0}, 'group_1': {'core': 4, 'mem': 0, 'gpu': 2}}
        >>> config["resources"]
        {'group_0': 2, 'group_1': 1}
    """
    if not isinstance(machine, Machine):
        raise ParameterError(f"machine must be a backfill.workloads.nodes.Machine, got {machine!r}")
    if machine.request is not tasks_request:
        raise ParameterError(
            f"AccaSim reads an SWF job as one-core tasks (tasks_request); the machine {machine.text()} "
            f"asks jobs {getattr(machine.request, '__name__', machine.request)!r}"
        )
    names = machine.resources
    groups = {
        f"group_{k}": {accasim_resource(n): g.amount(n) for n in names} for k, g in enumerate(machine.groups)
    }
    # AccaSim numbers nodes in the order of "resources"; a dict keeps the groups' order.
    return {"groups": groups, "resources": {f"group_{k}": g.count for k, g in enumerate(machine.groups)}}
