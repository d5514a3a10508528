"""The invariants of a :class:`~backfill.profile.nodes.NodeProfile`, asserted (its ``_check``)."""

from __future__ import annotations

import itertools
import math
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
    held = [np.zeros_like(cap) for _ in times]
    for key, (nodes, amounts, start, end) in profile._placed.items():
        assert end > start and len(nodes) == len(amounts) >= 1, f"job {key}: a placement holds some node"
        assert (np.diff(nodes) > 0).all(), f"job {key}: node ids increase"
        assert end > times[0], f"job {key}: a placement that ended is forgotten by advance"
        for k, t in enumerate(times):
            following = times[k + 1] if k + 1 < len(times) else math.inf
            if start < following and t < end:
                assert max(start, times[0]) <= t and following <= end, f"job {key}: edges are step edges"
                held[k][nodes] += amounts
    for k in range(len(times)):
        assert np.array_equal(held[k], cap - free[k]), f"step {k}: free is capacity less the placements"
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
