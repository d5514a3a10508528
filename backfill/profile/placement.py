"""Placement policies: which nodes a job gets, given how many of its shares each node can take.

A policy is a plain callable ``policy(room, count)``: ``room`` is an int array with one entry per
node (node-id order), the shares of the job that node can hold over the whole of the job's planned
interval (0 where none fits, or where the node is not free whole for an exclusive job); ``count``
is the shares the job asks. It returns an int array of the same length, the shares taken on each
node (``0 <= take <= room``, summing to ``count``), or None when it will not place the job there
(``contiguous`` when no run of consecutive nodes is wide enough). The node-time profile calls it
where a search has found room enough in total, and checks its answer
(:class:`~backfill.profile.nodes.NodeProfile`), so a user's policy that breaks these rules gets
a :class:`~backfill.profile.ProfileError` naming it, never a wrong plan.

Policies must be deterministic functions of their arguments: a scheduler calls them at planning and
again when its plan is re-made, and the two must agree.

Examples:
    >>> import numpy as np
    >>> room = np.array([3, 0, 8, 2, 8])
    >>> first_fit(room, 10).tolist(), best_fit(room, 4).tolist(), contiguous(room, 10).tolist()
    ([3, 0, 7, 0, 0], [0, 0, 4, 0, 0], [0, 0, 8, 2, 0])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = ["PLACEMENTS", "Placement", "best_fit", "contiguous", "first_fit"]

IntArray = npt.NDArray[np.int64]

#: What a placement policy is: ``policy(room, count) -> take or None`` (see the module).
Placement = Callable[[IntArray, int], IntArray | None]


def _fill(room: IntArray, order: IntArray, count: int) -> IntArray | None:
    """Take shares node by node in ``order`` until ``count`` are placed."""
    ordered = room[order]
    total = np.cumsum(ordered)
    if not len(total) or total[-1] < count:
        return None
    last = int(np.searchsorted(total, count))  # first position where the running total reaches count
    take = np.zeros_like(room)
    take[order[:last]] = ordered[:last]
    take[order[last]] = count - (int(total[last - 1]) if last else 0)
    return take


def first_fit(room: IntArray, count: int) -> IntArray | None:
    """Fill nodes in node-id order, each as far as it holds (Slurm's default with no topology).

    O(N) for N nodes.

    Examples:
        >>> import numpy as np
        >>> first_fit(np.array([2, 0, 4]), 3).tolist()
        [2, 0, 1]
    """
    return _fill(room, np.arange(len(room)), count)


def best_fit(room: IntArray, count: int) -> IntArray | None:
    """Bin packing's best fit on nodes: the tightest single node that holds the job, else few nodes.

    If some node holds every share, the one with the least room (ties by node id) takes them all,
    leaving roomier nodes whole for wider jobs. Otherwise the nodes with the most room are filled
    first (ties by node id), so the job spans few nodes, and the last shares go to the tightest
    node that holds them. O(N log N + m N) for a job spanning m nodes.

    Examples:
        >>> import numpy as np
        >>> best_fit(np.array([8, 3, 0, 5]), 4).tolist()  # node 3 holds 4 most tightly
        [0, 0, 0, 4]
        >>> best_fit(np.array([3, 0, 8, 2, 8]), 10).tolist()  # 8 on node 2, the last 2 on node 3
        [0, 0, 8, 2, 0]
    """
    if int(room.sum()) < count:
        return None
    take = np.zeros_like(room)
    left = room.copy()
    need = count
    for node in np.lexsort((np.arange(len(room)), -room)).tolist():
        holding = np.flatnonzero(left >= need)
        if holding.size:
            tightest = int(holding[np.argmin(left[holding])])  # argmin: the first, lowest id, of ties
            take[tightest] += need
            return take
        take[node] = left[node]
        need -= int(left[node])
        left[node] = 0
    return None  # pragma: no cover - the total holds count, so some node holds the last shares


def contiguous(room: IntArray, count: int) -> IntArray | None:
    """Fill consecutive nodes: the lowest-numbered run of nodes, each with room, that holds ``count``.

    Slurm's linear selection with contiguous nodes. None when no such run exists, even if the
    nodes hold ``count`` in total. O(N).

    Examples:
        >>> import numpy as np
        >>> contiguous(np.array([4, 0, 2, 2, 4]), 6).tolist()
        [0, 0, 2, 2, 2]
        >>> contiguous(np.array([4, 0, 4]), 6) is None
        True
    """
    n = len(room)
    start = 0
    while start < n:
        while start < n and room[start] == 0:
            start += 1
        end = start
        while end < n and room[end] > 0:
            end += 1
        if int(room[start:end].sum()) >= count:
            return _fill(room, np.arange(start, end), count)
        start = end
    return None


#: The built-in policies by name (the command line's ``--placement``).
PLACEMENTS: dict[str, Placement] = {"first_fit": first_fit, "best_fit": best_fit, "contiguous": contiguous}
