"""Conventions of the field that schedulers and measures share: the slowdown bound, the job categories.

Both sides need them: Selective promotes a waiting job by its category and a slowdown threshold,
and the measures report slowdowns and per-category statistics of a finished schedule. Defined here,
below both, they are one fact each.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["CATEGORIES", "DEFAULT_BOUND", "category_index", "category_indices"]

#: The threshold of bounded slowdown, in seconds, used unless another is given (Feitelson et al.
#: 1997 use 10 s; some studies use 60 s).
DEFAULT_BOUND = 10.0

#: The four job categories of Srinivasan et al. (2002, Tables 1 and 2), in the paper's order: Short
#: or Long by runtime, Narrow or Wide by width.
CATEGORIES: tuple[str, ...] = ("SN", "SW", "LN", "LW")


def category_index(length: float, processors: int, runtime_boundary: float, width_boundary: int) -> int:
    """Return the index in :data:`CATEGORIES` of a job of this length (runtime or estimate) and width.

    Short means ``length <= runtime_boundary`` and Narrow ``processors <= width_boundary``: both
    boundaries are inclusive on the short and narrow side, as the paper's "≤ 1 Hr" and
    "≤ 8 Processors". A NaN length counts as long. O(1).

    Examples:
        >>> CATEGORIES[category_index(3600.0, 8, 3600.0, 8)], CATEGORIES[category_index(3601.0, 9, 3600.0, 8)]
        ('SN', 'LW')
    """
    return (0 if length <= runtime_boundary else 2) + (processors > width_boundary)


def category_indices(
    lengths: npt.ArrayLike, processors: npt.ArrayLike, runtime_boundary: float, width_boundary: int
) -> npt.NDArray[np.intp]:
    """Return :func:`category_index` of every job, over whole arrays. O(n).

    Examples:
        >>> category_indices([60.0, 7200.0, float("nan")], [1, 16, 1], 3600.0, 8).tolist()
        [0, 3, 2]
    """
    # NaN lengths compare False, so they fall on the long side rather than passing for short jobs.
    short = np.asarray(lengths, dtype=np.float64) <= runtime_boundary
    wide = np.asarray(processors) > width_boundary
    index: npt.NDArray[np.intp] = np.where(short, 0, 2) + wide
    return index
