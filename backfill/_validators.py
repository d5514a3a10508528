"""attrs validators shared by the library's classes; each raises :class:`~backfill.errors.ParameterError`."""

from __future__ import annotations

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
