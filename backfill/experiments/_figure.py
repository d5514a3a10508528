"""What the figure modules share: the matplotlib check, a figure's axes, a readable time axis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from backfill.errors import BackfillError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_MISSING = "plotting needs matplotlib: pip install '.[plot]'"

#: Units of a time axis, by the longest span each is used for (seconds): (span, seconds, name).
_UNITS = (
    (120.0, 1.0, "seconds"),
    (2 * 3600.0, 60.0, "minutes"),
    (3 * 86_400.0, 3600.0, "hours"),
    (8 * 7 * 86_400.0, 86_400.0, "days"),
    (float("inf"), 7 * 86_400.0, "weeks"),
)


def require_matplotlib() -> None:
    """Raise :class:`BackfillError` if matplotlib cannot be imported (the command line asks early)."""
    try:
        import matplotlib.figure
        import matplotlib.patches  # noqa: F401
    except ImportError as e:
        raise BackfillError(_MISSING) from e


def figure_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """Return a new figure and its axes, or the root figure of ``ax`` and ``ax``."""
    require_matplotlib()
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.add_subplot()
    owner: Any = ax.figure
    # An axes on a subfigure belongs to the root figure, which is what can be saved.
    while not isinstance(owner, Figure):
        owner = owner.figure
    return owner, ax


def time_unit(span: float) -> tuple[float, str]:
    """Return the unit (in seconds) and its name for a time axis spanning ``span`` seconds."""
    for longest, seconds, name in _UNITS:
        if span < longest:
            return seconds, name
    return _UNITS[-1][1], _UNITS[-1][2]  # pragma: no cover - the last span is infinite


def readable_time_axis(ax: Axes, start: float, end: float, origin: float) -> tuple[float, str]:
    """Label ``ax``'s x axis, which holds seconds, in a unit fit for [start, end), counted from ``origin``.

    The data stay in seconds: ticks are placed at round numbers of the unit since ``origin`` and
    written in it, and the label says so ("time since the first submission (hours)").

    Returns:
        The unit in seconds and its name.
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    unit, name = time_unit(end - start)
    lo, hi = (start - origin) / unit, (end - origin) / unit
    ticks = np.asarray(MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi), dtype=float)
    ticks = ticks[(ticks >= lo - 1e-9) & (ticks <= hi + 1e-9)]
    ax.xaxis.set_major_locator(FixedLocator((ticks * unit + origin).tolist()))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{(x - origin) / unit:g}"))
    ax.set_xlabel(f"time since the first submission ({name})")
    return unit, name


def format_time(seconds: float, unit: float, name: str) -> str:
    """Return a time since the origin in ``unit``: ``"12.5 hours"``."""
    return f"{seconds / unit:.4g} {name}"
