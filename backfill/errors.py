"""The library's exception types.

Every error the library raises on bad input is a :class:`BackfillError`, so a caller can catch one
type.
"""

from __future__ import annotations

__all__ = ["BackfillError", "BatsimError", "JobError", "ParameterError", "SWFError", "ScheduleError"]


class BackfillError(Exception):
    """Base class of every error raised by ``backfill`` on bad input or misuse."""


class JobError(BackfillError, ValueError):
    """A job's field holds a value no job can have (a fraction of a processor, a NaN time, ...).

    It is a :class:`ValueError` too. The message names the job and the field.

    Attributes:
        job_id: The job's id, or ``None`` when the id itself is what is wrong.
        field: The field at fault (an SWF field name, e.g. ``"processors"``).
        reason: What is wrong, without the job and field.

    Examples:
        >>> str(JobError("must be an int, got 2.7", job_id=5, field="processors"))
        'job 5: processors must be an int, got 2.7'
    """

    def __init__(self, reason: str, *, job_id: int | None = None, field: str | None = None) -> None:
        self.job_id = job_id
        self.field = field
        self.reason = reason
        where = "job" if job_id is None else f"job {job_id}"
        super().__init__(f"{where}: {reason}" if field is None else f"{where}: {field} {reason}")


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


class BatsimError(BackfillError, ValueError):
    """A Batsim workload (JSON) could not be read or written.

    Attributes:
        path: The file, or ``"<string>"`` for an unnamed stream.
        job: The job at fault as the file names it (its ``id``, or ``#k`` for the k-th job when the
            id itself is what is wrong), or ``None`` when the problem is not one job's.
        reason: What is wrong, without the location.

    Examples:
        >>> str(BatsimError("res must be an integer, got 2.5", path="w.json", job="7"))
        "w.json: job '7': res must be an integer, got 2.5"
    """

    def __init__(self, reason: str, *, path: str = "<string>", job: str | None = None) -> None:
        self.path = path
        self.job = job
        self.reason = reason
        where = path if job is None else f"{path}: job {job!r}"
        super().__init__(f"{where}: {reason}")


class ScheduleError(BackfillError):
    """A scheduler broke the protocol, or a schedule violates an invariant."""
