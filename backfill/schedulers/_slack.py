"""Jin's slack factor (thesis §4.3.2, eq. 5-7): how late a waiting job may start, by its expected wait."""

from __future__ import annotations

import math
from typing import Any

import attrs

__all__ = ["SlackFactor"]


def _finite(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{attribute.name} must be a finite number, got {value!r}")


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    _finite(instance, attribute, value)
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


@attrs.frozen
class SlackFactor:
    """The slack factor of a waiting job from its expected wait, and the part of it usable now.

    Eq. 5: ``F_slack = min(up, k2 * exp(k1 * T_wait / unit) + down)``, where ``T_wait`` is the job's
    expected wait (its fair start time minus its submit time, both known at submission). A job
    expected to wait long gets a factor near ``down``, one expected to start soon up to ``up``: a
    long wait cannot afford to grow much more.

    Eq. 6-7: only part of it is usable at first, growing linearly with the time already waited,
    ``F_part = minimal + waited * (F_slack - minimal) / T_wait``, so that a job cannot be pushed back
    by its whole slack at the first backfill. We cap ``F_part`` at ``F_slack`` once the job has waited
    its expected wait (the thesis's ratio would go on growing), and a job expected to wait nothing
    (``T_wait = 0``) has ``F_part = F_slack``: its allowed wait, ``F_part * T_wait``, is 0 anyway.

    **Units.** The thesis gives ``k1 = -0.5`` and plots (Fig. 6) the factor against the wait in
    seconds: about 1.50 at 5,000 s, 1.21 at 65,000 s and 1.20 at 125,000 s. With the wait in seconds
    the factor would be 1.2 from the first second, and in hours it would be 1.40 at 5,000 s; with the
    wait in units of 10,000 s, eq. 5 gives 1.50 (1.511 capped), 1.2155 and 1.2008, the plotted
    values. So ``unit`` defaults to 10,000 s.

    A job may then wait ``F_part * T_wait`` in all: the scheduler lets a backfill delay it only
    while its planned start stays at or before ``submit + F_part * T_wait``.

    Args:
        up: ``SLACK_UP``, the largest factor (1.5).
        down: ``SLACK_DOWN``, the factor of a very long expected wait (1.2).
        minimal: ``SLACK_MINIMAL``, the part usable before the job has waited at all (1.1).
        k1: ``K1``, the decay rate per ``unit`` of expected wait (-0.5).
        k2: ``K2``, the factor's excess over ``down`` for a zero expected wait (0.4).
        unit: Seconds per unit of wait in eq. 5 (10,000; see above).

    Example:
        >>> slack = SlackFactor()
        >>> [round(slack.factor(t), 4) for t in (5_000.0, 65_000.0, 125_000.0)]
        [1.5, 1.2155, 1.2008]
        >>> round(slack.usable(65_000.0, waited=0.0), 4), round(slack.usable(65_000.0, waited=32_500.0), 4)
        (1.1, 1.1578)
        >>> round(slack.latest_start(submit=100.0, expected_wait=10_000.0, waited=10_000.0), 1)
        14526.1
    """

    up: float = attrs.field(default=1.5, validator=_positive)
    down: float = attrs.field(default=1.2, validator=_positive)
    minimal: float = attrs.field(default=1.1, validator=_positive)
    k1: float = attrs.field(default=-0.5, validator=_finite)
    k2: float = attrs.field(default=0.4, validator=_finite)
    unit: float = attrs.field(default=10_000.0, validator=_positive)

    def factor(self, expected_wait: float) -> float:
        """Return ``F_slack`` (eq. 5) for a job expected to wait ``expected_wait`` seconds."""
        return min(self.up, self.k2 * math.exp(self.k1 * expected_wait / self.unit) + self.down)

    def usable(self, expected_wait: float, waited: float) -> float:
        """Return ``F_part`` (eq. 7) after ``waited`` seconds, capped at ``F_slack``."""
        full = self.factor(expected_wait)
        if expected_wait <= 0 or waited >= expected_wait:
            return full
        return self.minimal + waited * (full - self.minimal) / expected_wait

    def latest_start(self, submit: float, expected_wait: float, waited: float) -> float:
        """Return the latest start the slack allows now: ``submit + F_part * expected_wait``."""
        return submit + self.usable(expected_wait, waited) * expected_wait
