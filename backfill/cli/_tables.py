"""The command line's tables: ``compare``'s markdown, ``simulate``'s ``--metric`` and planning tables.

Private to :mod:`backfill.cli`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from backfill.experiments.columns import column_label, is_resource_column
from backfill.measures.metrics import METRIC_NAMES, format_metric
from backfill.measures.planning import PLANNING_KEYS, planning_summary
from backfill.schedule import Schedule

__all__ = [
    "DESCRIPTION",
    "FRACTIONS",
    "chosen_table",
    "describe",
    "markdown",
    "mean_cell",
    "metric_cell",
    "numeric_columns",
    "percent_cell",
    "planning_measures",
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
    """A value of any column of the vocabulary as the tables show it; NaN (nothing to measure) is ``-``."""
    if value != value:
        return "-"
    if metric == "users" or metric.endswith("_jobs"):
        return str(round(value))
    if metric == "seconds":
        return f"{value:.2f}"
    if metric in FRACTIONS or (is_resource_column(metric) and metric.startswith("utilization_")):
        return f"{value:.3f}"
    return format_metric(metric, value)


def mean_cell(metric: str, value: float) -> str:
    # A mean of counts is not a count.
    return metric_cell("mean_wait" if metric == "users" or metric.endswith("_jobs") else metric, value)


#: Columns that are fractions: shown to three places, as the utilization is.
FRACTIONS = ("underpredicted", "under_shared", "over_shared")


def percent_cell(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}"  # NaN is the one value unequal to itself


def chosen_table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """The ``--metric`` table: one line per schedule, the chosen columns, then what each one means."""
    header = ["scheduler", *columns]
    # A resource's columns are in the rows of the schedulers that plan it only: "-" in the others.
    cells = [
        [
            f"{row['scheduler']}({row['priority']})",
            *(metric_cell(c, float(row.get(c, math.nan))) for c in columns),
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    lines = [
        "  ".join(
            [values[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True))]
        )
        for values in [header, *cells]
    ]
    lines.append("")
    lines += [f"{c}: {column_label(c)}" for c in columns]
    return "\n".join(lines)


def planning_measures(schedules: list[Schedule]) -> str:
    """The planning measures of each schedule, one per line under its scheduler, labelled in words."""
    width = max(len(METRIC_NAMES[key][0]) for key in PLANNING_KEYS)
    lines = ["planning measures (runs with a predictor, a resolution, a planning window or a test limit):"]
    for schedule in schedules:
        lines.append(schedule.scheduler)
        for key, value in planning_summary(schedule).items():
            name, unit = METRIC_NAMES[key]
            if value != value:  # NaN: no job ran
                shown = "-"
            elif unit == "s":
                shown = f"{value:.1f} s"
            elif unit:
                shown = f"{value:.3f} ({unit})"
            else:
                shown = str(round(value))
            lines.append(f"  {name:<{width}}  {shown}")
    return "\n".join(lines)


# -- backfill compare --------------------------------------------------------------------------
