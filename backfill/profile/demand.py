"""What a job asks of a node machine, and what is free on its nodes, as the schedulers compare them.

A scheduler on a pool compares a width with a free count (``width <= free``). On a node machine the
same sentences hold of a :class:`Demand` (a job's shares, under its id) and a :class:`NodeFree` (the
free amounts of every node): ``demand <= free`` when the node profile's placement policy places the
demand there. The profile itself is :class:`~backfill.profile.nodes.NodeProfile`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from backfill.workloads.nodes import Machine, NodeRequest

if TYPE_CHECKING:
    from backfill.profile.nodes import NodeProfile

__all__ = ["Demand", "NodeFree"]

IntArray = npt.NDArray[np.int64]


class Demand:
    """What one job asks of a node profile: ``count`` shares of ``share``, under ``key``.

    Compares with a :class:`NodeFree` as a width compares with a free count: ``demand <= free``
    when the profile's policy places it there, ``demand > free`` when it does not.

    Args:
        key: The job's id: the profile remembers the job's placement under it.
        share: One share's amount of each of the machine's resources.
        count: Shares asked.
        per_node: The most shares one node takes (None: any).
        exclusive: Whether a node the job uses must be wholly free, and is wholly held.
    """

    __slots__ = ("asked", "count", "exclusive", "key", "per_node", "share")

    def __init__(
        self, key: int, share: IntArray, count: int, per_node: int | None = None, exclusive: bool = False
    ) -> None:
        self.key = key
        self.share = np.asarray(share, dtype=np.int64)
        self.asked = self.share > 0
        self.count = count
        self.per_node = per_node
        self.exclusive = exclusive

    @classmethod
    def of(cls, key: int, machine: Machine, request: NodeRequest) -> Demand:
        """The demand of ``request`` on ``machine``, under ``key`` (the job's id)."""
        return cls(key, machine.share(request), request.count, request.per_node, request.exclusive)

    @property
    def processors(self) -> int:
        """Cores asked over all shares (the pool model's width)."""
        return self.count * int(self.share[0])

    def __repr__(self) -> str:
        extra = (f", per_node={self.per_node}" if self.per_node else "") + (
            ", exclusive" if self.exclusive else ""
        )
        return f"Demand(key={self.key}, {self.count} x {self.share.tolist()}{extra})"

    def __le__(self, other: Any) -> bool:
        return _free(other, "<=").holds(self)

    def __gt__(self, other: Any) -> bool:
        return not _free(other, ">").holds(self)


def _free(other: Any, op: str) -> NodeFree:
    if other.__class__ is not NodeFree:
        raise TypeError(f"'{op}' not supported between instances of 'Demand' and '{type(other).__name__}'")
    return other


class NodeFree:
    """Free amounts per node (a (nodes, resources) array) as a scheduler compares demands with them.

    ``free >= demand`` (and ``demand <= free``) when the profile's policy places the demand on these
    amounts. It cannot be reduced by a demand: a scheduler reserves in the profile and reads again.
    """

    __slots__ = ("_profile", "amounts")

    def __init__(self, amounts: IntArray, profile: NodeProfile) -> None:
        self.amounts = amounts
        self._profile = profile

    def holds(self, demand: Demand) -> bool:
        """Whether the policy places ``demand`` on these amounts. O(N r) and the policy's cost."""
        room = self._profile._room(self.amounts, demand)
        return int(room.sum()) >= demand.count and self._profile._place(room, demand) is not None

    def __ge__(self, other: Any) -> bool:
        return self.holds(_demand(other, ">="))

    def __lt__(self, other: Any) -> bool:
        return not self.holds(_demand(other, "<"))

    def __sub__(self, other: Any) -> NodeFree:
        raise TypeError(
            "the free amounts of a node machine are not reduced by a demand (which nodes it takes is the "
            "profile's choice): reserve it in the NodeProfile and read what is free again"
        )

    def total(self) -> IntArray:
        """The machine-wide free amount of each resource (the pool model's view). O(N r)."""
        return self.amounts.sum(axis=0)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"NodeFree({self.amounts.tolist()})"


def _demand(other: Any, op: str) -> Demand:
    if other.__class__ is not Demand:
        raise TypeError(f"'{op}' not supported between instances of 'NodeFree' and '{type(other).__name__}'")
    return other
