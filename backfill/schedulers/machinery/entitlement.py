"""Entitled shares: how a machine is divided among active users by water-filling.

Vasupongayya (§III-C (1)): at any moment, each *active* user (one with a job waiting or running) is
entitled to ``capacity * share / (total share of the active users)`` processors; a user entitled to
more than the processors it currently requests (the widths of its waiting and running jobs) gets
exactly its request, and what is left is divided again, recursively, among the other active users.
That recursion is water-filling: there is a level ``L`` such that every user gets
``min(share * L, request)``, and the entitlements add up to the capacity (or to all the requests,
if they do not fill the machine).

This module is the instant; :class:`backfill.schedulers.RelShare` accumulates it over time online
and :mod:`backfill.measures.usershares` over a finished schedule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from backfill.errors import BackfillError

__all__ = ["entitled_processors"]


def entitled_processors(requests: Sequence[float], shares: Sequence[float], capacity: float) -> list[float]:
    """Return each user's entitled processors by water-filling, in the order given.

    Sorting the users by ``request / share`` (the level at which each becomes capped) finds the
    level in one pass: going from the smallest, a user is capped while the capacity left, divided
    among the shares not yet capped, is at least its cap level.

    Args:
        requests: Processors each active user requests (its waiting and running jobs' widths), >= 0.
        shares: Each user's assigned share, > 0 (equal shares: all 1).
        capacity: Processors to divide, >= 0.

    Returns:
        ``min(share * L, request)`` for every user, where the level ``L`` makes them add up to
        ``min(capacity, sum(requests))``.

    Raises:
        BackfillError: If the lengths differ, a share is not positive, or a request or the capacity
            is negative or not finite.

    Complexity:
        O(u log u) for u users.

    Examples:
        >>> entitled_processors([10, 100, 100], [1, 1, 1], capacity=128)
        [10.0, 59.0, 59.0]
        >>> entitled_processors([10, 100], [1, 3], capacity=40)
        [10.0, 30.0]
        >>> entitled_processors([5, 7], [1, 1], capacity=128)  # the machine is not filled
        [5.0, 7.0]
    """
    n = len(requests)
    if len(shares) != n:
        raise BackfillError(f"{n} requests but {len(shares)} shares")
    if not math.isfinite(capacity) or capacity < 0:
        raise BackfillError(f"capacity must be finite and >= 0, got {capacity!r}")
    for r, s in zip(requests, shares, strict=True):
        if not math.isfinite(r) or r < 0:
            raise BackfillError(f"requests must be finite and >= 0, got {r!r}")
        if not math.isfinite(s) or s <= 0:
            raise BackfillError(f"shares must be finite and > 0, got {s!r}")
    return water_fill(requests, shares, capacity)


def water_fill(requests: Sequence[float], shares: Sequence[float], capacity: float) -> list[float]:
    """:func:`entitled_processors` without the argument checks, for callers that already made them."""
    n = len(requests)
    order = sorted(range(n), key=lambda i: requests[i] / shares[i])
    left = float(capacity)
    share_left = float(sum(shares))
    level = math.inf
    for i in order:
        # Water at ``left / share_left`` reaches user i's cap: it is capped and the rest re-divided.
        r, s = requests[i], shares[i]
        if r * share_left <= left * s:
            left -= r
            share_left -= s
        else:
            level = left / share_left
            break
    return [min(float(requests[i]), shares[i] * level) for i in range(n)]
