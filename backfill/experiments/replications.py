"""Replications: one configuration over several seeds or samples, as mean, deviation and interval.

A sweep whose workloads are replications of one another (the same model under several seeds,
say) has one row per replication of each configuration (scheduler, priority, load, estimates).
:func:`replication_summary` groups them and gives, per configuration and measure, the number of
replications ``n``, the ``mean``, the sample standard deviation ``std`` (``n - 1`` in the
denominator) and the 95 % confidence interval of the mean, ``mean ± t * std / sqrt(n)`` with ``t``
the 97.5 % quantile of Student's t distribution with ``n - 1`` degrees of freedom
(:func:`t_quantile`). With a baseline it does the same for the percent improvement over it,
computed within each replication first (paired: the baseline and the other scheduler saw the same
jobs) and then summarized.

Examples:
    >>> round(t_quantile(0.975, 4), 3)
    2.776
    >>> s = interval([1.0, 2.0, 3.0])
    >>> s["mean"], s["std"], round(s["low"], 3), round(s["high"], 3)
    (2.0, 1.0, -0.484, 4.484)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from backfill.errors import BackfillError
from backfill.experiments.columns import is_resource_column
from backfill.experiments.results import SweepResult

__all__ = ["CONFIGURATION_COLUMNS", "interval", "replication_summary", "t_quantile"]

#: The columns that name a configuration of a replicated sweep: rows that agree on them are its
#: replications.
CONFIGURATION_COLUMNS: tuple[str, ...] = ("workload", "scheduler", "priority", "load", "estimates")


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        even = m * (b - m) * x / ((qam + m2) * (a + m2))
        odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        for aa in (even, odd):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
            last = d * c
        if abs(last - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The fraction converges fast on the side of the mean; the other side is its mirror image.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def t_quantile(p: float, df: float) -> float:
    """Return the ``p`` quantile of Student's t distribution with ``df`` degrees of freedom.

    The distribution function is computed from the regularized incomplete beta function (its
    continued fraction) and inverted by bisection, to about 1e-12; scipy is not needed.

    Raises:
        BackfillError: ``p`` outside (0, 1) or ``df`` not positive.

    Examples:
        >>> [round(t_quantile(0.975, df), 3) for df in (1, 2, 9, 30)]
        [12.706, 4.303, 2.262, 2.042]
    """
    if not (_is_number(p) and 0.0 < p < 1.0):
        raise BackfillError(f"a quantile needs p in (0, 1), got {p!r}")
    if not (_is_number(df) and df > 0 and math.isfinite(df)):
        raise BackfillError(f"degrees of freedom must be positive, got {df!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return 0.5 * (low + high)


def interval(values: Iterable[float], confidence: float = 0.95) -> dict[str, float]:
    """Return ``n``, ``mean``, ``std``, ``half_width``, ``low`` and ``high`` of a sample's mean.

    The interval is Student's: ``mean ± t_{(1 + confidence) / 2, n - 1} * std / sqrt(n)``, with the
    sample standard deviation. NaN and infinite values are left out (an infinite value has no mean
    to speak of); with fewer than two values the deviation and the interval are NaN.

    Raises:
        BackfillError: A value that is not a number, or ``confidence`` outside (0, 1).

    Examples:
        >>> interval([4.0, 4.0])["half_width"], interval([7.0])["std"]
        (0.0, nan)
    """
    if not (_is_number(confidence) and 0.0 < confidence < 1.0):
        raise BackfillError(f"confidence must be in (0, 1), got {confidence!r}")
    try:
        array = np.fromiter(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise BackfillError(f"an interval needs numbers: {e}") from None
    array = array[np.isfinite(array)]
    n = int(array.size)
    mean = float(array.mean()) if n else math.nan
    if n < 2:
        std = half = math.nan
    else:
        std = float(array.std(ddof=1))
        half = t_quantile((1.0 + confidence) / 2.0, n - 1) * std / math.sqrt(n) if std else 0.0
    return {
        "n": float(n),
        "mean": mean,
        "std": std,
        "half_width": half,
        "low": mean - half,
        "high": mean + half,
    }


def replication_summary(
    result: SweepResult,
    metrics: Sequence[str],
    configuration_of: Mapping[str, str],
    *,
    baseline: str | None = None,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """Return the mean, deviation and confidence interval of each measure, per configuration.

    Args:
        result: A sweep whose rows are replications.
        metrics: Columns to summarize.
        configuration_of: The label of each row's workload to the label of the workload it
            replicates (its configuration's ``workload``); a label it lacks is its own.
        baseline: If given, also summarize the percent improvement over this scheduler, paired:
            computed within each replication (:meth:`SweepResult.improvement`), then summarized.
        confidence: Of the interval.

    Raises:
        BackfillError: A metric the rows lack, a bad ``confidence``, or a baseline without rows.

    Returns:
        One row per configuration, measure and kind, in grid order: the configuration's
        :data:`CONFIGURATION_COLUMNS`, ``metric``, ``kind`` (``"value"`` or ``"improvement"``,
        in percent) and the keys of :func:`interval`.

    Examples:
        >>> from backfill.experiments.sweep import Grid, ModelWorkload, run_sweep
        >>> models = [ModelWorkload(n_jobs=40, machine_size=8, seed=s, name=f"m/{s}") for s in (1, 2, 3)]
        >>> result = run_sweep(Grid(models, ["Conservative", "EASY"]), workers=1)
        >>> rows = replication_summary(result, ["mean_wait"], {f"m/{s}": "m" for s in (1, 2, 3)},
        ...                            baseline="Conservative")
        >>> [(r["scheduler"], r["kind"], r["n"]) for r in rows]
        [('Conservative', 'value', 3.0), ('EASY', 'value', 3.0), ('EASY', 'improvement', 3.0)]
    """
    # A resource's utilization is in the rows of the schedulers that plan it only.
    missing = [m for m in metrics if result.rows and not any(m in row for row in result.rows)]
    if missing:
        raise BackfillError(f"the rows have no column {', '.join(map(repr, missing))} to summarize")
    groups: dict[tuple[Any, ...], dict[str, list[float]]] = {}

    def add(row: Mapping[str, Any], kind: str, metric: str, value: float) -> None:
        config = {c: row[c] for c in CONFIGURATION_COLUMNS}
        config["workload"] = configuration_of.get(str(row["workload"]), row["workload"])
        key = tuple(config[c] for c in CONFIGURATION_COLUMNS)
        groups.setdefault(key, {}).setdefault(f"{kind}\0{metric}", []).append(value)

    for row in result.rows:
        for m in metrics:
            if m in row:
                add(row, "value", m, float(row[m]))
    if baseline is not None:
        for m in metrics:
            for row in result.improvement(m, baseline):
                # NaN: one side did not measure it (a resource only some schedulers plan).
                unmeasured = math.isnan(row["value"]) or math.isnan(row["baseline_value"])
                if not (is_resource_column(m) and unmeasured):
                    add(row, "improvement", m, float(row["improvement"]))
    out = []
    for key, measures in groups.items():
        config = dict(zip(CONFIGURATION_COLUMNS, key, strict=True))
        for kind in ("value", "improvement"):
            for m in metrics:
                values = measures.get(f"{kind}\0{m}")
                if values is not None:
                    out.append(config | {"metric": m, "kind": kind} | interval(values, confidence))
    return out
