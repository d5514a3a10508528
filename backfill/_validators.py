"""attrs validators shared by the library's classes; each raises :class:`~backfill.errors.ParameterError`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs

from backfill.errors import ParameterError


def is_bool(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Refuse anything but True or False (a switch given as 0/1 or "no" is most likely a slip)."""
    if not isinstance(value, bool):
        raise ParameterError(
            f"{type(instance).__name__}.{attribute.name} must be True or False, got {value!r}"
        )


def one_of(*options: str) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """Return a validator that accepts only one of the strings ``options``."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, str) or value not in options:
            choices = ", ".join(repr(o) for o in options)
            raise ParameterError(
                f"{type(instance).__name__}.{attribute.name} must be one of {choices}; got {value!r}"
            )

    return check


def optional_seconds(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Accept None (no limit) or a finite number of seconds >= 0."""
    if value is None:
        return
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
        raise ParameterError(
            f"{type(instance).__name__}.{attribute.name} must be a finite number of seconds >= 0 or None "
            f"(no limit), got {value!r}"
        )


def optional_positive_int(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Accept None (no limit) or a positive int (not a bool)."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ParameterError(
            f"{type(instance).__name__}.{attribute.name} must be a positive int or None (no limit), "
            f"got {value!r}"
        )


def optional_callable(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Accept None or a callable (a priority, a predictor)."""
    if value is not None and not callable(value):
        raise ParameterError(
            f"{type(instance).__name__}.{attribute.name} must be a callable (job, now) -> key or None, "
            f"got {value!r}"
        )
