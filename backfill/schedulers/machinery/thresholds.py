"""Starvation thresholds of Selective reservation.

Srinivasan et al. (2002, §4) promote a job when its expansion factor reaches a starvation threshold:
one number for every job (*Selective*), one per job category (*Selective-D*,
:class:`CategoryThresholds`), both calibrated as the mean bounded slowdown of a previous run of
Conservative backfilling (that calibration reads a finished schedule, so it is a measure:
:mod:`backfill.measures.calibration`); or, needing no previous run, the running mean slowdown of
the jobs completed so far (:class:`AdaptiveThreshold`).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import attrs

from backfill._validators import is_bool
from backfill.errors import ParameterError
from backfill.workloads.conventions import DEFAULT_BOUND
from backfill.workloads.conventions import category_index as _category_index
from backfill.workloads.workload import Job

__all__ = [
    "AdaptiveThreshold",
    "CategoryThresholds",
    "Threshold",
    "as_threshold",
    "is_number",
    "category_index",
]


def is_number(value: object) -> bool:
    """Whether ``value`` is a real number and not a bool (True as a threshold is far more likely a slip)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def _threshold_value(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not is_number(value):
        raise ParameterError(f"{attribute.name} must be a number, got {value!r}")
    if not float(value) >= 0:  # type: ignore[arg-type]  # a Real; NaN fails this test too
        raise ParameterError(f"{attribute.name} must be a non-negative number (inf allowed), got {value!r}")


def _finite_non_negative(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not is_number(value):
        raise ParameterError(f"{attribute.name} must be a number, got {value!r}")
    if not 0 <= float(value) < math.inf:  # type: ignore[arg-type]
        raise ParameterError(f"{attribute.name} must be a finite non-negative number, got {value!r}")


def _positive_bound(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not is_number(value):
        raise ParameterError(f"{attribute.name} must be a number, got {value!r}")
    if not 0 < float(value) < math.inf:  # type: ignore[arg-type]
        raise ParameterError(f"{attribute.name} must be a positive number of seconds, got {value!r}")


def _width_boundary(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, Integral) or isinstance(value, bool):
        raise ParameterError(f"{attribute.name} must be an integer number of processors, got {value!r}")
    if int(value) < 0:
        raise ParameterError(f"{attribute.name} must be non-negative, got {value!r}")


def category_index(job: Job, runtime_boundary: float, width_boundary: int) -> int:
    """Return the index in :data:`~backfill.workloads.conventions.CATEGORIES` of a job, by its *estimate*.

    The scheduler does not know a waiting job's runtime, so it classifies by the estimate; see
    :func:`~backfill.workloads.conventions.category_index`. O(1).
    """
    return _category_index(job.estimate, job.processors, runtime_boundary, width_boundary)


@attrs.frozen
class CategoryThresholds:
    """One starvation threshold per job category, for Selective-D (Srinivasan et al. 2002, §4.1).

    A job is Short if its *estimate* is at most ``runtime_boundary`` and Narrow if it uses at most
    ``width_boundary`` processors. The paper (and :func:`~backfill.measures.groups.job_categories`) classify
    by runtime, which the scheduler does not know while a job waits; with exact estimates the two agree.
    The paper uses 1 hour and 8 processors (64 for LANL). A threshold may be ``inf``: jobs of that
    category are then never promoted.

    Args:
        sn: Threshold of short narrow jobs.
        sw: Threshold of short wide jobs.
        ln: Threshold of long narrow jobs.
        lw: Threshold of long wide jobs.
        runtime_boundary: The longest estimate of a short job, in seconds.
        width_boundary: The most processors of a narrow job.

    Raises:
        ParameterError: If a value is not a number (or the width boundary not an integer), a
            threshold is negative or NaN, or a boundary negative or infinite.

    Examples:
        >>> t = CategoryThresholds(22.30, 72.40, 1.72, 2.59)  # the paper's Table 7 (SDSC)
        >>> t.of(Job(id=1, submit=0.0, processors=16, runtime=60.0, estimate=600.0))
        72.4
        >>> CategoryThresholds(1.0, -2.0, 1.0, 1.0)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: sw must be a non-negative number (inf allowed), got -2.0
    """

    sn: float = attrs.field(validator=_threshold_value)
    sw: float = attrs.field(validator=_threshold_value)
    ln: float = attrs.field(validator=_threshold_value)
    lw: float = attrs.field(validator=_threshold_value)
    runtime_boundary: float = attrs.field(default=3600.0, validator=_finite_non_negative)
    width_boundary: int = attrs.field(default=8, validator=_width_boundary)

    def of(self, job: Job) -> float:
        """Return the threshold of a job's category (by estimate and width). O(1)."""
        values = (self.sn, self.sw, self.ln, self.lw)
        return float(values[category_index(job, self.runtime_boundary, self.width_boundary)])

    def label(self) -> str:
        """Return the four thresholds, SN/SW/LN/LW, for a scheduler name."""
        return "/".join(f"{float(v):g}" for v in (self.sn, self.sw, self.ln, self.lw))


@attrs.frozen
class AdaptiveThreshold:
    """A starvation threshold that follows the slowdowns the scheduler has produced so far.

    The threshold is ``factor`` times the running (cumulative) mean of the bounded slowdowns of the jobs
    completed so far, ``max(1, (end - submit) / max(end - start, bound))`` with the start the scheduler
    gave them; ``initial`` is the threshold itself (not scaled) until a job has completed. No previous
    run is needed, unlike the paper's calibration. ``factor=1.5`` is the *scaled-adaptive* variant.
    With ``per_category``, each job category (by estimate and width, as :class:`CategoryThresholds`;
    completed jobs too, so that a waiting job is compared with jobs that looked like it) keeps its own
    mean, and a category with no completed job uses ``initial``. The threshold changes at every
    completion, so :class:`~backfill.schedulers.selective.Selective` then recomputes the promotion
    time of every waiting job.

    Args:
        factor: Multiplier of the mean slowdown.
        per_category: Keep one mean per job category instead of one overall.
        initial: The threshold before any (relevant) job has completed; may be ``inf``.
        runtime_boundary: The longest estimate of a short job, in seconds (with ``per_category``).
        width_boundary: The most processors of a narrow job (with ``per_category``).
        bound: The bounded-slowdown threshold in seconds.

    Raises:
        ParameterError: If a value has the wrong type, or is negative, NaN, or infinite where it
            must be finite.

    Examples:
        >>> AdaptiveThreshold(factor=1.5).value(mean=4.0), AdaptiveThreshold().value(mean=None)
        (6.0, 1.0)
    """

    factor: float = attrs.field(default=1.0, validator=_finite_non_negative)
    per_category: bool = attrs.field(default=False, validator=is_bool)
    initial: float = attrs.field(default=1.0, validator=_threshold_value)
    runtime_boundary: float = attrs.field(default=3600.0, validator=_finite_non_negative)
    width_boundary: int = attrs.field(default=8, validator=_width_boundary)
    bound: float = attrs.field(default=DEFAULT_BOUND, validator=_positive_bound)

    def value(self, mean: float | None) -> float:
        """Return the threshold for a mean bounded slowdown, or ``initial`` if there is none yet."""
        return float(self.initial) if mean is None else self.factor * mean

    def label(self) -> str:
        """Return a short description for a scheduler name: ``adaptive`` or ``adaptive*1.5``."""
        return "adaptive" if self.factor == 1 else f"adaptive*{float(self.factor):g}"


Threshold = float | CategoryThresholds | AdaptiveThreshold


def as_threshold(value: float | CategoryThresholds | AdaptiveThreshold) -> Threshold:
    """Accept a threshold object, or a plain number as one fixed threshold for every job."""
    if isinstance(value, CategoryThresholds | AdaptiveThreshold):
        return value
    if not is_number(value):
        raise ParameterError(
            f"threshold must be a number, CategoryThresholds or AdaptiveThreshold, got {value!r}"
        )
    if not float(value) >= 0:
        raise ParameterError(f"threshold must be a non-negative number (inf allowed), got {value!r}")
    return float(value)
