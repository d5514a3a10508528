"""The argument checks of :class:`~backfill.profile.Profile`'s public methods, O(1) each.

Each check is one chained comparison on the fast path, which returns its arguments unchanged; only a
value that fails it takes the slow path, which either normalises it (a numpy integer width becomes an
int) or raises :class:`~backfill.profile.ProfileError` naming the method, the argument and the value.
A comparison with something that is not a number raises :class:`TypeError`, which the slow path turns
into the same error.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from backfill.workloads.limits import MAX_AMOUNT

if TYPE_CHECKING:
    from backfill.profile import ProfileError

_INF = math.inf


def _refuse(method: str, what: str, value: object, shown: str | None = None) -> ProfileError:
    from backfill.profile import ProfileError

    return ProfileError(f"Profile.{method}: {what}, got {repr(value) if shown is None else shown}")


def _finite(value: Any) -> bool:
    try:
        return not isinstance(value, bool) and bool(-_INF < value < _INF)
    except TypeError:
        return False


def time(method: str, value: float, name: str = "time") -> float:
    """A time: a finite number."""
    try:
        if -_INF < value < _INF:
            return value
    except TypeError:
        pass
    raise _refuse(method, f"{name} must be a finite number", value)


def bound(method: str, value: float) -> float:
    """A bound on a search: a number, ``inf`` meaning none (NaN is refused)."""
    try:
        if -_INF <= value <= _INF:
            return value
    except TypeError:
        pass
    raise _refuse(method, "before must be a number (inf: no bound) or None", value)


def width(method: str, value: Any) -> int:
    """A processor count: an int (numpy integers too, never bool or float) >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise _refuse(method, "processors must be an int >= 0", value)
    return int(value)


def interval(method: str, start: float, end: float) -> tuple[float, float]:
    """An interval ``[start, end)``: two finite times, ``end`` not before ``start``."""
    try:
        if -_INF < start <= end < _INF:
            return start, end
    except TypeError:
        pass
    time(method, start, "start")
    time(method, end, "end")
    raise _refuse(method, f"end must be at or after start ({start!r})", end)


def interval_width(method: str, start: float, end: float, processors: int) -> tuple[float, float, int]:
    """An interval (see :func:`interval`) and a processor count (see :func:`width`)."""
    try:
        if -_INF < start <= end < _INF and type(processors) is int and processors >= 0:
            return start, end, processors
    except TypeError:
        pass
    start, end = interval(method, start, end)
    return start, end, width(method, processors)


def search(
    method: str, time_: float, processors: int, duration: float, name: str = "time"
) -> tuple[float, int, float]:
    """A time, a processor count and a duration (a finite number >= 0) of a search or a move."""
    try:
        if -_INF < time_ < _INF and type(processors) is int and processors >= 0 and 0 <= duration < _INF:
            return time_, processors, duration
    except TypeError:
        pass
    time(method, time_, name)
    processors = width(method, processors)
    if isinstance(duration, bool) or not _finite(duration) or not duration >= 0:
        raise _refuse(method, "duration must be a finite number >= 0", duration)
    return time_, processors, duration


def capacity(value: Any) -> int:
    """A profile's capacity: an int >= 1 (numpy integers too) below ``MAX_AMOUNT`` (2**62).

    The bound keeps every free amount, and the sum of two, inside the compiled kernel's 64-bit ints.
    """
    if type(value) is int and 1 <= value < MAX_AMOUNT:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= int(value) < MAX_AMOUNT:
        raise _refuse("__init__", "capacity must be an int >= 1, below 2**62 (MAX_AMOUNT)", value)
    return int(value)


def widths(method: str, values: Any) -> npt.NDArray[np.int64]:
    """A one-dimensional array (or sequence) of ints."""
    a = np.asarray(values)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise _refuse(method, "widths must be a one-dimensional array of ints", a, f"{a.dtype} {a.shape}")
    return a


def jobs(
    method: str, widths_: Any, durations: Any, currents: Any
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Jobs as three arrays of one length: widths (ints >= 0), durations (finite, >= 0), starts (finite).

    O(m) for m jobs, a few numpy passes: within what the search over them costs anyway.
    """
    w = widths(method, widths_)
    d, c = np.asarray(durations), np.asarray(currents)
    if d.dtype.kind not in "fiu" or c.dtype.kind not in "fiu":
        raise _refuse(method, "durations and currents must be arrays of numbers", w, f"{d.dtype}, {c.dtype}")
    if not w.shape == d.shape == c.shape:
        shapes = f"{w.shape}, {d.shape} and {c.shape}"
        raise _refuse(method, "widths, durations and currents must be three arrays of one length", w, shapes)
    if w.size and not (
        w.min() >= 0 and d.min() >= 0 and d.max() < _INF and c.min() > -_INF and c.max() < _INF
    ):
        k = int(np.flatnonzero((w < 0) | ~((d >= 0) & (d < _INF)) | ~np.isfinite(c))[0])
        raise _refuse(
            method,
            "each job needs a width >= 0, a finite duration >= 0 and a finite start",
            w,
            f"job {k}: ({w[k]}, {d[k]}, {c[k]})",
        )
    return w, d, c
