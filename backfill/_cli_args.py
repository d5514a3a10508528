"""Argument types and errors shared by the ``backfill`` subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from backfill.errors import BackfillError

#: Jobs in the default synthetic workload.
DEFAULT_JOBS = 5_000
#: Processors of the default synthetic machine.
DEFAULT_MACHINE_SIZE = 128


class _Failure(BackfillError):
    """An error of the command line's own (bad combination of options, unreadable file)."""


def _depth(text: str) -> int | None:
    """Parse a reservation depth: a positive whole number, or ``inf`` for unlimited (None)."""
    if text.strip().lower() in ("inf", "unlimited"):
        return None
    return _positive_int(text)


def _whole_number(minimum: int) -> Callable[[str], int]:
    """Return an argparse type accepting whole numbers of at least ``minimum``."""
    words = {0: "non-negative", 1: "positive"}

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a {words[minimum]} number, got {value}")
        return value

    return parse


_positive_int = _whole_number(1)
_non_negative_int = _whole_number(0)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value >= 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {text}")
    return value


_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def _duration(text: str) -> float:
    """Parse a duration: seconds, or a number followed by s, min, h or d (``4h``, ``1d``, ``90min``)."""
    stripped = text.strip().lower()
    for unit in sorted(_UNITS, key=len, reverse=True):
        if stripped.endswith(unit):
            return _positive_float(stripped[: -len(unit)]) * _UNITS[unit]
    return _positive_float(stripped)
