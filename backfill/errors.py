"""The library's exception types.

Every error the library raises on bad input is a :class:`BackfillError`, so a caller can catch one
type.
"""

from __future__ import annotations

__all__ = ["BackfillError", "ParameterError", "SWFError", "ScheduleError"]


class BackfillError(Exception):
    """Base class of every error raised by ``backfill`` on bad input or misuse."""


class ParameterError(BackfillError, ValueError):
    """A parameter of a scheduler, threshold, cleaning policy or simulation is not valid.

    It is a :class:`ValueError` too, so code written against the built-in type still catches it.

    Examples:
        >>> from backfill import EASY
        >>> EASY(depth=0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: EASY.depth must be a positive int or None (no limit), got 0
    """


class SWFError(BackfillError, ValueError):
    """A Standard Workload Format file could not be read or written.

    Attributes:
        path: The file, or ``"<string>"`` for in-memory text.
        line: The 1-based line number, or ``None`` when the problem is not tied to one line.
        reason: What is wrong, without the location.

    Examples:
        >>> str(SWFError("bad field", path="log.swf", line=12))
        'log.swf:12: bad field'
    """

    def __init__(self, reason: str, *, path: str = "<string>", line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {reason}")


class ScheduleError(BackfillError):
    """A scheduler broke the protocol, or a schedule violates an invariant."""
