"""The invariants of a :class:`~backfill.profile.nodes.NodeProfile`, asserted (its ``_check``)."""

from __future__ import annotations

import itertools
import math
from bisect import bisect_right
from typing import Any

import numpy as np

__all__ = ["check_node_profile"]


def check_node_profile(profile: Any) -> None:
    """Assert every invariant of ``profile``. O(n N r + p k N) for p placements.

    ``profile`` is a NodeProfile, typed Any: its module imports this one.
    """
    times, free, cap = profile._times, profile._free, profile.capacity
    assert len(times) == len(free) >= 1, "parallel lists of equal, non-zero length"
    assert all(a < b for a, b in itertools.pairwise(times)), "times strictly increase"
    assert all(-math.inf < t < math.inf for t in times), "times finite"
    assert all(f.shape == cap.shape and f.dtype == np.int64 for f in free), (
        "one (nodes, resources) array a step"
    )
    assert all(((f >= 0) & (f <= cap)).all() for f in free), "free within [0, capacity]"
    assert np.array_equal(free[-1], cap), "everything is free after the last step"
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(free)), "adjacent steps differ"
    placed = profile._placed.values()
    for key, (nodes, amounts, start, end) in profile._placed.items():
        assert end > start and len(nodes) == len(amounts) >= 1, f"job {key}: a placement holds some node"
        assert (np.diff(nodes) > 0).all(), f"job {key}: node ids increase"
        assert end > times[0], f"job {key}: a placement that ended is forgotten by advance"
    # A placement's edge need not be a step's: two placements meeting on the same amounts make
    # one step. Checked at every edge of both, the step function holds the placements throughout.
    edges = {*times, *(x for _, _, s, e in placed for x in (s, e) if times[0] <= x < math.inf)}
    for x in sorted(edges):
        held = np.zeros_like(cap)
        for nodes, amounts, start, end in placed:
            if start <= x < end:
                held[nodes] += amounts
        k = bisect_right(times, x) - 1
        assert np.array_equal(held, cap - free[k]), f"at {x:g}: free is capacity less the placements"
    profile._totals._check()
    for t, f in zip(times, free, strict=True):
        pool = profile._totals._free_at(t)
        assert list(pool) == f.sum(axis=0)[profile._columns].tolist(), (
            f"at {t}: the pool bound is the nodes' sum"
        )
    ends = set(profile._ends)
    assert all((r[3], key) in ends for key, r in profile._placed.items()), (
        "advance knows every placement's end"
    )
