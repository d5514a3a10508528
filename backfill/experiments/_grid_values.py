"""The values a sweep's :class:`~backfill.experiments.sweep.Grid` and ``Cell`` take: converters and checks.

Private to :mod:`backfill.experiments.sweep`: each converter turns what a user may write (a name, a
path, a lone value, an int load) into the one form a cell keeps, so that equal cells have equal
cache keys; each check names the value it refuses.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from typing import Any

import attrs

from backfill.errors import BackfillError
from backfill.experiments.columns import EXTRA_COLUMNS, measure_column
from backfill.experiments.specs import ModelWorkload, SchedulerSpec, TraceWorkload
from backfill.measures.trim import Trim

#: Estimate policies: ``"user"`` keeps the workload's estimates, ``"exact"`` sets each to the runtime.
ESTIMATES: tuple[str, ...] = ("user", "exact")

__all__ = [
    "as_float",
    "as_floats",
    "as_measures",
    "as_spec",
    "as_specs",
    "as_tuple",
    "as_workloads",
    "check_bound",
    "check_estimates",
    "check_load",
    "check_spec",
    "check_trim",
    "check_workload",
    "is_number",
]


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def as_tuple(value: Any) -> tuple[Any, ...]:
    # A lone name, path, spec or number is one value, not a sequence of characters.
    return (value,) if isinstance(value, str) or not isinstance(value, Iterable) else tuple(value)


def check_workload(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, TraceWorkload | ModelWorkload):
        raise BackfillError(f"a workload must be a TraceWorkload or ModelWorkload, got {value!r}")


def as_spec(value: Any) -> Any:
    # Text is NAME or NAME:K=V,... as on the command line (easy:bf_window=1440).
    return SchedulerSpec.parse(value) if isinstance(value, str) else value


def as_specs(value: Any) -> tuple[Any, ...]:
    return tuple(as_spec(s) for s in as_tuple(value))


def as_workloads(value: Any) -> tuple[Any, ...]:
    return tuple(TraceWorkload(w) if isinstance(w, str | os.PathLike) else w for w in as_tuple(value))


def check_spec(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, SchedulerSpec):
        raise BackfillError(f"a scheduler must be a SchedulerSpec or a name, got {value!r}")


def as_float(value: Any) -> Any:
    # Numbers become floats, so that 1 and 1.0 are one load (and one cache key); anything else is
    # left for the validators to name.
    return float(value) if is_number(value) else value


def as_floats(value: Any) -> tuple[Any, ...]:
    return tuple(as_float(x) for x in as_tuple(value))


def check_load(value: object) -> None:
    if not (isinstance(value, float) and 0 < value < math.inf):
        raise BackfillError(f"load factor must be a positive finite number, got {value!r}")


def check_estimates(value: object) -> None:
    if value not in ESTIMATES:
        raise BackfillError(f"unknown estimate policy {value!r}; known: {', '.join(ESTIMATES)}")


def check_bound(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not (isinstance(value, float) and 0 < value < math.inf):
        raise BackfillError(f"bound must be a positive finite number of seconds, got {value!r}")


def as_measures(value: Any) -> tuple[str, ...]:
    # Any order, any repeats: the vocabulary's order, once each.
    given = as_tuple(value)
    for name in given:
        if not isinstance(name, str):
            raise BackfillError(f"a measure is named by a string, got {name!r}")
        measure_column(name)
    return tuple(c for c in EXTRA_COLUMNS if c in given)


def check_trim(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, Trim):
        raise BackfillError(f"trim must be a Trim, got {value!r}")
