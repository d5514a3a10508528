"""The markdown tables of ``backfill compare``: cells, padding and alignment.

Private to :mod:`backfill.cli`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from backfill.measures.metrics import format_metric

__all__ = [
    "DESCRIPTION",
    "FRACTIONS",
    "describe",
    "markdown",
    "mean_cell",
    "metric_cell",
    "numeric_columns",
    "percent_cell",
]


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int]) -> str:
    """Return a markdown table, padded to line up, with the columns numbered in ``right`` right-aligned."""
    cells = [[c.replace("|", "\\|") for c in line] for line in (header, *rows)]
    widths = [max(3, *(len(line[i]) for line in cells)) for i in range(len(header))]

    def line(values: Sequence[str]) -> str:
        padded = [
            v.rjust(w) if i in right else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = ["-" * (w - 1) + ":" if i in right else "-" * w for i, w in enumerate(widths)]
    return "\n".join([line(cells[0]), line(rule), *(line(c) for c in cells[1:])])


DESCRIPTION = ("workload", "scheduler", "priority", "load", "estimates")


def numeric_columns(metrics: Sequence[str]) -> set[int]:
    """The right-aligned columns of a table of ``metrics``: the load and the metrics."""
    return {DESCRIPTION.index("load"), *range(len(DESCRIPTION), len(DESCRIPTION) + len(metrics))}


def describe(row: dict[str, Any]) -> list[str]:
    return [
        str(row["workload"]),
        str(row["scheduler"]),
        str(row["priority"]),
        f"{row['load']:g}",
        str(row["estimates"]),
    ]


def metric_cell(metric: str, value: float) -> str:
    if (metric == "users" or metric.endswith("_jobs")) and value == value:
        return str(round(value))
    if metric in ("seconds", *FRACTIONS) and value == value:
        return f"{value:.2f}" if metric == "seconds" else f"{value:.3f}"
    return format_metric(metric, value)


def mean_cell(metric: str, value: float) -> str:
    # A mean of counts is not a count.
    return metric_cell("mean_wait" if metric == "users" or metric.endswith("_jobs") else metric, value)


#: Columns that are fractions: shown to three places, as the utilization is.
FRACTIONS = ("underpredicted", "under_shared", "over_shared")


def percent_cell(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}"  # NaN is the one value unequal to itself
