"""What a front end reads from text: the readers of parameter values, and :class:`Parameter`.

The registry (:mod:`backfill.schedulers.registry`) re-exports every name here; this module exists
so that the registry's planning options (``_planning_options``) can be built from the same pieces
without importing the registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from backfill.errors import ParameterError

__all__ = [
    "Parameter",
    "bool_from_text",
    "depth_from_text",
    "duration_from_text",
    "finite_float_from_text",
    "named_only",
    "non_negative_float_from_text",
    "non_negative_int_from_text",
    "optional_duration_from_text",
    "optional_int_from_text",
    "positive_float_from_text",
    "positive_int_from_text",
]


# -- reading values from text ------------------------------------------------------------------


def _number(text: str, kind: Callable[[str], Any], what: str) -> Any:
    try:
        return kind(text.strip())
    except ValueError:
        raise ParameterError(f"expected {what}, got {text!r}") from None


def positive_int_from_text(text: str) -> int:
    """Read a whole number >= 1.

    Examples:
        >>> positive_int_from_text("4")
        4
    """
    value: int = _number(text, int, "a whole number")
    if value < 1:
        raise ParameterError(f"expected a positive number, got {value}")
    return value


def non_negative_int_from_text(text: str) -> int:
    """Read a whole number >= 0.

    Examples:
        >>> non_negative_int_from_text("0")
        0
    """
    value: int = _number(text, int, "a whole number")
    if value < 0:
        raise ParameterError(f"expected a non-negative number, got {value}")
    return value


def optional_int_from_text(text: str) -> int | None:
    """Read a whole number >= 1, or ``none`` (no limit).

    Examples:
        >>> optional_int_from_text("none"), optional_int_from_text("500")
        (None, 500)
    """
    return None if text.strip().lower() in ("none", "null") else positive_int_from_text(text)


def positive_float_from_text(text: str) -> float:
    """Read a finite number > 0.

    Examples:
        >>> positive_float_from_text("2.5")
        2.5
    """
    value: float = _number(text, float, "a number")
    if not 0 < value < math.inf:
        raise ParameterError(f"expected a positive number, got {text.strip()}")
    return value


def non_negative_float_from_text(text: str) -> float:
    """Read a finite number >= 0.

    Examples:
        >>> non_negative_float_from_text("0")
        0.0
    """
    value: float = _number(text, float, "a number")
    if not 0 <= value < math.inf:
        raise ParameterError(f"expected a non-negative number, got {text.strip()}")
    return value


def finite_float_from_text(text: str) -> float:
    """Read a finite number.

    Examples:
        >>> finite_float_from_text("-3600")
        -3600.0
    """
    value: float = _number(text, float, "a number")
    if not math.isfinite(value):
        raise ParameterError(f"expected a finite number, got {text.strip()}")
    return value


def depth_from_text(text: str) -> int | None:
    """Read a reservation depth: a whole number >= 1, or ``inf`` (``unlimited``) for no limit (None).

    Examples:
        >>> depth_from_text("4"), depth_from_text("inf")
        (4, None)
    """
    if text.strip().lower() in ("inf", "unlimited", "none"):
        return None
    return positive_int_from_text(text)


_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def duration_from_text(text: str) -> float:
    """Read a duration in seconds: a number, or one followed by s, min, h or d.

    Examples:
        >>> duration_from_text("4h"), duration_from_text("90min"), duration_from_text("30")
        (14400.0, 5400.0, 30.0)
    """
    stripped = text.strip().lower()
    for unit in sorted(_UNITS, key=len, reverse=True):
        if stripped.endswith(unit):
            return positive_float_from_text(stripped[: -len(unit)]) * _UNITS[unit]
    return positive_float_from_text(stripped)


def bool_from_text(text: str) -> bool:
    """Read ``true``/``false`` (also ``yes``/``no``, ``1``/``0``), in any letter case.

    Examples:
        >>> bool_from_text("False"), bool_from_text("yes")
        (False, True)
    """
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ParameterError(f"expected true or false, got {text!r}")


def optional_duration_from_text(text: str) -> float | None:
    """Read a duration as :func:`duration_from_text` does, or ``none`` (``inf``) for no limit (None).

    Examples:
        >>> optional_duration_from_text("1d"), optional_duration_from_text("none")
        (86400.0, None)
    """
    if text.strip().lower() in ("none", "null", "inf", "unlimited"):
        return None
    return duration_from_text(text)


# -- parameters --------------------------------------------------------------------------------


def _is_identifier(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not (isinstance(value, str) and value.isidentifier()):
        raise ParameterError(f"{attribute.name} must be a Python identifier, got {value!r}")


@attrs.frozen
class Parameter:
    """A constructor parameter a front end may set from text.

    Attributes:
        name: The constructor keyword (``depth``); the command line spells it ``--depth``, or
            ``--no-<name>`` for a switch that is on by default.
        parse: Reads a value from text (raising :class:`~backfill.errors.ParameterError`); the
            result is a JSON scalar, so that it can be part of a sweep's cache key.
        help: What the value means, for the command line's help (the default is added to it).
        metavar: The placeholder of the value in the help.
        named_values: Object values by the name a user types (``{"G1": G1, "G2": G2}``): the
            text, and a sweep spec, hold the name; the scheduler gets ``named_values[name]()``.
        samples: Values besides the default that the test suite runs (after :meth:`value`).
    """

    name: str = attrs.field(validator=_is_identifier)
    parse: Callable[[str], Any]
    help: str
    metavar: str = "VALUE"
    named_values: Mapping[str, Callable[[], object]] = attrs.field(factory=dict)
    samples: tuple[Any, ...] = ()

    def from_text(self, text: str) -> Any:
        """Return the value of ``text`` as a spec holds it: a named value's name, else ``parse(text)``."""
        for known in self.named_values:
            if text.strip().lower() == known.lower():
                return known
        if self.parse is named_only:
            raise ParameterError(f"{self.name} must be one of {', '.join(self.named_values)}, got {text!r}")
        try:
            return self.parse(text)
        except ParameterError as e:
            raise ParameterError(f"{self.name}: {e}") from None

    def value(self, held: Any) -> Any:
        """Return the constructor argument of a spec's value ``held``: a named value's object, or itself."""
        if isinstance(held, str) and held in self.named_values:
            return self.named_values[held]()
        if self.named_values and self.parse is named_only:
            raise ParameterError(f"{self.name} must be one of {', '.join(self.named_values)}, got {held!r}")
        return held


def named_only(text: str) -> Any:
    """Refuse any text: the reader of a parameter that has only named values.

    Examples:
        >>> named_only("x")
        Traceback (most recent call last):
        backfill.errors.ParameterError: expected one of the named values, got 'x'
    """
    raise ParameterError(f"expected one of the named values, got {text!r}")
