"""AccaSim's import (with its Python 3.11 shim) and the one place where its machine meets ours.

The mapping, in full:

============================  =====================================  ==================================
backfill                      AccaSim 1.1.3                          where AccaSim reads it
============================  =====================================  ==================================
node index ``i`` (0-based,    node name ``"node_{i+1}"``             ``Resources.__init__`` names nodes
in machine order)                                                    in the order of the config's groups
resource ``"core"``           resource ``"core"``                    system config ``groups``
resource ``"mem"`` (kB)       resource ``"mem"`` (the SWF's kB)      SWF field 10 (else 7), per processor
resource ``"gpu"``            resource ``"gpu"``                     no SWF field: jobs ask none
machine size (processors)     the nodes' cores, summed               ``Resources.SYSTEM_CAPACITY_TOTAL``
a job of ``p`` processors     ``p`` requests of one core (and its    ``DefaultTweaker`` (equivalence
                              memory per processor), packed several  ``processor: {core: 1}``)
                              to a node when they fit
============================  =====================================  ==================================

So on one-core nodes a job of ``p`` processors takes ``p`` nodes, and on nodes of ``c`` cores
AccaSim may put up to ``c`` of its processors on one node: without memory, a job fits whenever
``p`` cores are free anywhere, as in backfill's pool of processors.
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

import attrs

from backfill.errors import BackfillError, ParameterError

__all__ = ["ACCASIM_VERSION", "AccaSimMachine", "NodeGroup", "import_accasim"]

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


def _count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    least = 1 if attribute.name in ("count", "core") else 0
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ParameterError(f"NodeGroup.{attribute.name} must be an int of at least {least}, got {value!r}")


@attrs.frozen
class NodeGroup:
    """``count`` identical nodes, each with ``core`` cores, ``mem`` kB of memory and ``gpu`` GPUs.

    Examples:
        >>> NodeGroup(4, core=8, mem=16 * 2**20)
        NodeGroup(count=4, core=8, mem=16777216, gpu=0)
        >>> NodeGroup(0)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: NodeGroup.count must be an int of at least 1, got 0
    """

    count: int = attrs.field(validator=_count)
    core: int = attrs.field(default=1, validator=_count)
    mem: int = attrs.field(default=0, validator=_count)
    gpu: int = attrs.field(default=0, validator=_count)


def _groups(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, tuple) or not value or not all(isinstance(g, NodeGroup) for g in value):
        raise ParameterError(f"AccaSimMachine.groups must be a non-empty tuple of NodeGroup, got {value!r}")


@attrs.frozen
class AccaSimMachine:
    """A machine of nodes as AccaSim models it: groups of identical nodes, numbered in group order.

    Node ``i`` (0-based, ours) is AccaSim's ``"node_{i+1}"``; :meth:`node_name` and
    :meth:`node_index` are the only translation between the two.

    Examples:
        >>> m = AccaSimMachine((NodeGroup(2, core=8), NodeGroup(1, core=4, gpu=2)))
        >>> m.nodes, m.cores, m.resource_names, m.node_name(2), m.node_index("node_3")
        (3, 20, ('core', 'gpu'), 'node_3', 2)
        >>> m.system_config()["groups"]["group_1"]
        {'core': 4, 'gpu': 2}
    """

    groups: tuple[NodeGroup, ...] = attrs.field(validator=_groups)

    @classmethod
    def one_core(cls, nodes: int) -> AccaSimMachine:
        """``nodes`` nodes of one core and no memory: the machine where AccaSim's model is backfill's.

        Examples:
            >>> AccaSimMachine.one_core(64).cores
            64
        """
        return cls((NodeGroup(nodes),))

    @property
    def nodes(self) -> int:
        """How many nodes the machine has."""
        return sum(g.count for g in self.groups)

    @property
    def cores(self) -> int:
        """The cores of all nodes: the machine size a backfill scheduler plans."""
        return sum(g.count * g.core for g in self.groups)

    @property
    def resource_names(self) -> tuple[str, ...]:
        """The resources of the nodes, in the order of an allocation's amounts: core, mem, gpu."""
        names = ["core"]
        names += [name for name in ("mem", "gpu") if any(getattr(g, name) for g in self.groups)]
        return tuple(names)

    def node_name(self, index: int) -> str:
        """AccaSim's name of node ``index`` (0-based, in machine order)."""
        if not 0 <= index < self.nodes:
            raise ParameterError(f"node index {index} is not one of the machine's {self.nodes} nodes")
        return f"node_{index + 1}"

    def node_index(self, name: str) -> int:
        """The 0-based index of the node AccaSim calls ``name``."""
        prefix, _, number = name.partition("_")
        if prefix != "node" or not number.isdigit() or not 1 <= int(number) <= self.nodes:
            raise ParameterError(f"{name!r} is not the name of one of the machine's {self.nodes} nodes")
        return int(number) - 1

    def system_config(self) -> dict[str, Any]:
        """The machine as AccaSim's system configuration (its JSON), one group per :class:`NodeGroup`."""
        names = self.resource_names
        groups = {f"group_{k}": {r: getattr(g, r) for r in names} for k, g in enumerate(self.groups)}
        # AccaSim numbers nodes in the order of "resources"; a dict keeps the groups' order.
        return {"groups": groups, "resources": {f"group_{k}": g.count for k, g in enumerate(self.groups)}}
