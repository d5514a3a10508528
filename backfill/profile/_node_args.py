"""The checks of the times a NodeProfile's public methods take: each refusal names the method."""

from __future__ import annotations

import math
from typing import Any

from backfill.profile import ProfileError

__all__ = ["node_duration", "node_interval", "node_time"]


def node_time(method: str, value: Any) -> float:
    """A finite time, else a ProfileError naming ``method``."""
    try:
        if -math.inf < value < math.inf and not isinstance(value, bool):
            return value  # type: ignore[no-any-return]
    except TypeError:
        pass
    raise ProfileError(f"NodeProfile.{method}: a time must be a finite number, got {value!r}")


def node_duration(method: str, value: Any) -> float:
    """A finite duration >= 0, else a ProfileError naming ``method``."""
    try:
        if 0 <= value < math.inf and not isinstance(value, bool):
            return value  # type: ignore[no-any-return]
    except TypeError:
        pass
    raise ProfileError(f"NodeProfile.{method}: duration must be a finite number >= 0, got {value!r}")


def node_interval(method: str, start: Any, end: Any) -> tuple[float, float]:
    """Finite ``start`` and ``end``, not before it, else a ProfileError naming ``method``."""
    start, end = node_time(method, start), node_time(method, end)
    if end < start:
        raise ProfileError(
            f"NodeProfile.{method}: an interval's end must not be before its start, got {end!r}"
        )
    return start, end
