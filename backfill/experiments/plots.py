"""Figures of the seeds' kinds: percent improvement, per-category bars, fairness stacks, a schedule window.

Each function draws on a :class:`matplotlib.figure.Figure` of its own (no pyplot state, so it works
under any backend, Agg included) or on the ``ax`` it is given, and returns the figure; save it with
``fig.savefig("name.png")``. matplotlib is optional (``pip install '.[plot]'``): this module
imports without it, and each function raises :class:`~backfill.errors.BackfillError` when it is
missing. :func:`processor_lanes` and :func:`node_lanes`, the packings behind :func:`schedule_window`
(of a pool's processors, of a node machine's nodes), need no matplotlib.
See ``docs/plots.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from backfill.errors import BackfillError
from backfill.experiments._figure import figure_axes as _axes
from backfill.experiments._figure import require_matplotlib
from backfill.experiments.columns import column_label
from backfill.experiments.gantt import node_lanes, processor_lanes, schedule_window
from backfill.measures.fairness import FairnessBuckets
from backfill.measures.metrics import percent_improvement

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "require_matplotlib",
    "category_bars",
    "fairness_stacks",
    "improvement_bars",
    "node_lanes",
    "processor_lanes",
    "schedule_window",
]


def _grouped(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[str],
    heights: Mapping[tuple[str, str], float],
    errors: Mapping[tuple[str, str], float] | None = None,
) -> None:
    """Draw one bar container per series, its bars at the groups' positions (NaN where missing).

    ``errors``: the half-width of each bar's interval, drawn as an error bar (none where NaN).
    """
    x = np.arange(len(groups), dtype=np.float64)
    width = 0.8 / max(len(series), 1)
    for k, name in enumerate(series):
        values = [heights.get((g, name), math.nan) for g in groups]
        # Infinite percentages (a zero baseline) have no bar; matplotlib cannot scale to them.
        shown = [v if math.isfinite(v) else math.nan for v in values]
        bars: dict[str, Any] = {}
        if errors is not None:
            half = [errors.get((g, name), math.nan) for g in groups]
            bars = {"yerr": [h if math.isfinite(h) else math.nan for h in half], "capsize": 4}
            bars["error_kw"] = {"elinewidth": 1.0, "ecolor": "black"}
        ax.bar(x - 0.4 + width * (k + 0.5), shown, width, label=name, **bars)
        for xi, v in zip(x, values, strict=True):
            if math.isinf(v):
                ax.annotate(
                    "+inf" if v > 0 else "-inf",
                    (float(xi) - 0.4 + width * (k + 0.5), 0.0),
                    ha="center",
                    va="bottom" if v > 0 else "top",
                    fontsize="x-small",
                    rotation=90,
                )
    ax.set_xticks(x)
    long = len(groups) > 6 or (len(groups) > 1 and any(len(g) > 12 for g in groups))
    ax.set_xticklabels(
        groups, rotation=30 if long else 0, ha="right" if long else "center", rotation_mode="anchor"
    )
    if series and any(series):
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _symlog(ax: Axes, linear_within: float) -> None:
    """A y axis logarithmic in both directions, linear within ``linear_within`` of zero, in plain numbers."""
    from matplotlib.ticker import FuncFormatter

    ax.set_yscale("symlog", linthresh=linear_within)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}".replace("-", "\N{MINUS SIGN}")))
    ax.margins(y=0.1)  # room for the value labels at the bars' ends


def _width(n_bars: int) -> float:
    return min(20.0, max(8.0, 4.0 + 0.3 * n_bars))


def _series_label(row: Mapping[str, Any]) -> str:
    label = str(row["scheduler"])
    priority = str(row.get("priority", "fcfs"))
    return label if priority == "fcfs" else f"{label}-{priority.upper()}"


def _group_label(row: Mapping[str, Any], loads: bool, estimates: bool) -> str:
    label = str(row["workload"])
    if loads:
        label += f", load {float(row['load']):g}"
    if estimates:
        label += f", {row['estimates']} estimates"
    return label


def improvement_bars(
    rows: Iterable[Mapping[str, Any]],
    *,
    metric: str | None = None,
    title: str | None = None,
    values: bool = False,
    scale: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw the percent improvement over a baseline per workload, one bar per scheduler and priority.

    The seeds' main figure (Lindsay et al. 2013, Fig. 5-8): x groups are the workloads, in the order
    they first appear; each series is a scheduler label, with ``-PRIORITY`` appended when the
    priority is not ``fcfs`` (``PC-SJF``), and is one bar container. When the rows hold several load
    factors or estimate policies, each x group is a workload at one of them (``CTC, load 1.2, exact
    estimates``: the load factor multiplies the arrival rate), and the x axis says so. The title
    names the metric in words (:func:`~backfill.measures.metrics.metric_label`).
    A missing combination, or a NaN or infinite improvement (a zero baseline), has no bar; an
    infinite one is marked ``+inf`` / ``-inf`` at the zero line. When one improvement dwarfs the
    others (FCFS's thousands of percent against EASY's tens), a linear axis would flatten all but
    one bar: the y axis is then a symmetric log scale, linear near zero.

    Replications (``backfill compare --seeds``, ``--windows``, ``--samples``) draw what their
    tables say: given the rows of :func:`~backfill.experiments.replications.replication_summary`,
    each bar is a configuration's mean paired improvement and its error bar the confidence
    interval's half-width (its ``value`` rows are left out); a configuration of one replication has
    no interval, so no error bar. Rows of ``improvement`` with a ``half_width`` are drawn so too.

    Args:
        rows: Rows of :meth:`backfill.experiments.sweep.SweepResult.improvement`: each with ``workload``,
            ``scheduler``, ``priority`` and ``improvement``, and ``load``, ``estimates``, ``metric``,
            ``baseline`` and ``half_width`` when present; or rows of
            :func:`~backfill.experiments.replications.replication_summary` (``kind``, ``mean``,
            ``half_width``, ``n``), with a ``baseline`` key to name it on the axis.
        metric: Plot only the rows of this metric; None requires the rows to have one metric.
        title: The axes' title; default ``"<metric in words>: improvement over <baseline>"``
            (``"mean bounded slowdown: improvement over Conservative"``).
        values: Write each bar's value on it.
        scale: ``"linear"`` or ``"log"`` (symmetric: linear within the median size of the
            improvements, rounded down to a power of ten); None is log when the largest improvement
            is over ten times the median one in size.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: No rows, rows without the needed keys, several metrics or baselines when
            ``metric`` does not choose, two rows for the same bar, a ``half_width`` that is not a
            number >= 0 or NaN, or an unknown scale.

    Examples:
        >>> rows = [{"workload": "CTC", "scheduler": "EASY", "priority": "sjf", "improvement": 12.5,
        ...          "metric": "mean_wait", "baseline": "Conservative"}]
        >>> type(improvement_bars(rows)).__name__
        'Figure'
        >>> summary = [{"workload": "model", "scheduler": "EASY", "priority": "fcfs", "metric": "mean_wait",
        ...             "kind": "improvement", "n": 3.0, "mean": 4.0, "half_width": 7.5}]
        >>> [ax] = improvement_bars(summary).axes
        >>> ax.get_title().splitlines()[1]
        'bars: mean of 3 replications; error bars: 95 % confidence interval of the mean'
    """
    if scale not in (None, "linear", "log"):
        raise BackfillError(f"scale must be 'linear', 'log' or None, got {scale!r}")
    table: list[dict[str, Any]] = []
    for given in rows:
        r = _improvement_row(given) if isinstance(given, Mapping) else given
        if r is None:
            continue  # a summary's value row
        if not isinstance(r, dict) or not {"workload", "scheduler", "improvement"} <= r.keys():
            raise BackfillError(f"improvement rows need workload, scheduler and improvement keys, got {r!r}")
        table.append(r)
    if metric is not None:
        table = [r for r in table if r.get("metric", metric) == metric]
    if not table:
        raise BackfillError("no improvement rows to plot" + (f" for metric {metric!r}" if metric else ""))
    metrics = list(dict.fromkeys(r["metric"] for r in table if "metric" in r))
    baselines = list(dict.fromkeys(r["baseline"] for r in table if "baseline" in r))
    if len(metrics) > 1:
        raise BackfillError(f"rows of several metrics ({', '.join(metrics)}); choose one with metric=")
    if len(baselines) > 1:
        raise BackfillError(f"rows compare with several baselines: {', '.join(map(str, baselines))}")
    loads = len({r.get("load") for r in table}) > 1
    estimates = len({r.get("estimates") for r in table}) > 1
    heights: dict[tuple[str, str], float] = {}
    halves: dict[tuple[str, str], float] = {}
    for r in table:
        key = (_group_label(r, loads, estimates), _series_label(r))
        if key in heights:
            raise BackfillError(f"two rows for workload {key[0]!r} and scheduler {key[1]!r}")
        heights[key] = float(r["improvement"])
        if "half_width" in r:
            halves[key] = _half_width(r)
    groups = list(dict.fromkeys(g for g, _ in heights))
    series = list(dict.fromkeys(s for _, s in heights))
    fig, ax = _axes(ax, (_width(len(heights)), 4.8))
    _grouped(ax, groups, series, heights, halves if halves else None)
    ax.axhline(0.0, color="black", linewidth=0.8)
    name = column_label(metrics[0] if metrics else (metric or "metric"), unit=False)
    against = f" over {baselines[0]}" if baselines else ""
    ax.set_ylabel(f"improvement{against} (%)")
    sizes = sorted(abs(v) for v in heights.values() if math.isfinite(v) and v != 0)
    median = sizes[len(sizes) // 2] if sizes else 1.0
    if scale == "log" or (scale is None and len(sizes) > 1 and sizes[-1] > 10 * median):
        _symlog(ax, 10.0 ** math.floor(math.log10(median)))
        ax.set_ylabel(f"improvement{against} (%, symmetric log scale)")
    if loads or estimates:
        parts = ["load factor (times the arrival rate)"] * loads + ["runtime estimates"] * estimates
        shown = ", ".join(parts)
        ax.set_xlabel(f"workload, {shown}")
    # With intervals, the title says what the bars and their error bars are.
    what = _interval_words(table) if halves else ""
    ax.set_title(title if title is not None else f"{name}: improvement{against}{what}")
    if values and halves:
        _interval_labels(ax, groups, series, heights, halves)
    elif values:
        for container in ax.containers:
            ax.bar_label(container, fmt="%.1f", fontsize="x-small", padding=2)  # type: ignore[arg-type]
    return fig


def _improvement_row(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """An improvement row as drawn; a summary row's mean is its improvement; None for its values."""
    if "kind" not in row:
        return dict(row)
    if row["kind"] != "improvement":
        return None
    mean = {"improvement": row["mean"]} if "mean" in row else {}  # without one, refused as any row
    return {k: v for k, v in row.items() if k not in ("kind", "mean")} | mean


def _half_width(row: Mapping[str, Any]) -> float:
    """A row's ``half_width``: a number >= 0, or NaN (no interval: one replication)."""
    value = row["half_width"]
    half = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -1.0
    if not (half >= 0 or math.isnan(half)):
        raise BackfillError(f"half_width must be a number >= 0 or NaN, got {value!r} in {dict(row)!r}")
    return half


def _interval_words(table: Sequence[Mapping[str, Any]]) -> str:
    """What the bars of replications are, as a second line of the title."""
    counts = [str(n) for n in sorted({int(r["n"]) for r in table if "n" in r and r["n"] == r["n"]})]
    shown = f"{', '.join(counts[:-1])} or {counts[-1]}" if len(counts) > 1 else "".join(counts)
    over = f" of {shown} replications" if counts else ""
    alone = " (none for one)" if "1" in counts and len(counts) > 1 else ""
    return f"\nbars: mean{over}; error bars: 95 % confidence interval of the mean{alone}"


def _interval_labels(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[str],
    heights: Mapping[tuple[str, str], float],
    halves: Mapping[tuple[str, str], float],
) -> None:
    """Write ``mean ± half-width`` beyond each error bar's end (the mean alone without an interval)."""
    ax.margins(y=0.12)  # room for the labels beyond the error bars' ends
    width = 0.8 / max(len(series), 1)
    for k, name in enumerate(series):
        for i, g in enumerate(groups):
            mean, half = heights.get((g, name), math.nan), halves.get((g, name), math.nan)
            if not math.isfinite(mean):
                continue
            reach = half if math.isfinite(half) else 0.0
            end = mean + reach if mean >= 0 else mean - reach
            text = f"{mean:.1f}" + (f" ± {half:.1f}" if math.isfinite(half) else "")
            ax.annotate(
                text.replace("-", "\N{MINUS SIGN}"),
                (i - 0.4 + width * (k + 0.5), end),
                xytext=(0, 2 if mean >= 0 else -2),
                textcoords="offset points",
                ha="center",
                va="bottom" if mean >= 0 else "top",
                fontsize="x-small",
            )


def _is_stats(value: object) -> bool:
    return isinstance(value, Mapping) and not any(isinstance(v, Mapping) for v in value.values())


def category_bars(
    table: Mapping[Any, Any],
    *,
    metric: str = "mean_bsld",
    baseline: str | None = None,
    log: bool = False,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw one statistic per job category (or any group), one bar per scheduler.

    Srinivasan et al.'s (2002, Fig. 1-6) per-category bars. The natural input is a mapping from a
    scheduler label to its :func:`backfill.measures.groups.per_category` table (``{"EASY": per_category(s),
    ...}``); a single table (``per_category`` or :func:`~backfill.measures.groups.group_summary` of one
    schedule) draws one series without a legend. Categories are on the x axis in the order of the
    first table (SN, SW, LN, LW for ``per_category``), then any new ones of the others. An empty
    category (NaN) has no bar.

    Args:
        table: ``{label: {category: {statistic: value}}}``, or one ``{category: {statistic: value}}``.
        metric: The statistic: a key of :data:`backfill.measures.groups.GROUP_KEYS` (``mean_bsld``,
            ``mean_wait``, ``mean_response``, ``share``, ...).
        baseline: A label of ``table``: draw the others' percent improvement over it per category
            (:func:`~backfill.measures.metrics.percent_improvement`) instead of the values.
        log: A logarithmic y axis (slowdowns of short and long jobs differ by orders of magnitude).
        title: The axes' title; default the metric.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: An empty or malformed table, a statistic a group lacks, or an unknown
            baseline.

    Examples:
        >>> from backfill import lublin_feitelson, per_category, simulate
        >>> from backfill.schedulers import EASY, Conservative
        >>> w = lublin_feitelson(100, machine_size=32, seed=1)
        >>> schedules = [simulate(w, EASY()), simulate(w, Conservative())]
        >>> tables = {s.scheduler: per_category(s) for s in schedules}
        >>> type(category_bars(tables, metric="mean_wait")).__name__
        'Figure'
    """
    if not isinstance(table, Mapping) or not table:
        raise BackfillError(f"category_bars needs a non-empty mapping, got {table!r}")
    if all(_is_stats(v) for v in table.values()):
        tables: dict[str, Mapping[Any, Any]] = {"": table}
    elif all(isinstance(v, Mapping) and v and all(_is_stats(g) for g in v.values()) for v in table.values()):
        tables = {str(k): v for k, v in table.items()}
    else:
        raise BackfillError(
            "category_bars needs {category: {statistic: value}} or {label: {category: {statistic: value}}}"
        )
    values: dict[tuple[str, str], float] = {}
    for label, groups in tables.items():
        for category, stats in groups.items():
            if metric not in stats:
                known = ", ".join(map(str, stats))
                raise BackfillError(f"group {category!r} has no statistic {metric!r}; it has {known}")
            values[(str(category), label)] = float(stats[metric])
    series = list(tables)
    ylabel = column_label(metric)
    if baseline is not None:
        if baseline not in tables:
            raise BackfillError(f"no table labelled {baseline!r}; labels: {', '.join(tables)}")
        series.remove(baseline)
        if not series:
            raise BackfillError("category_bars with a baseline needs another table to compare")
        values = {
            (c, s): percent_improvement(values.get((c, baseline), math.nan), v)
            for (c, s), v in values.items()
            if s != baseline
        }
        ylabel = f"{column_label(metric, unit=False)}: improvement over {baseline} (%)"
    categories = list(dict.fromkeys(c for c, _ in values))
    fig, ax = _axes(ax, (_width(len(values)), 4.8))
    _grouped(ax, categories, series, values)
    if baseline is not None:
        ax.axhline(0.0, color="black", linewidth=0.8)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("category")
    ax.set_ylabel(ylabel)
    ax.set_title(title if title is not None else ylabel)
    return fig


def fairness_stacks(
    buckets_by_label: Mapping[str, FairnessBuckets],
    *,
    group: str = "all",
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw each scheduler's fairness buckets as one stacked bar of shares summing to 1.

    Srinivasan et al.'s (2002, Table 9) buckets of slowdown / fair slowdown (<= 1, 1-1.5, 1.5-2,
    2-4, > 4 by default): one bar per label, in the given order; each bucket is one bar container
    (the fairest at the bottom, colored from green to red), so that its bars are the share of that
    bucket, as a fraction of the jobs, under every scheduler. A group without jobs (NaN shares) has
    no bar.

    Args:
        buckets_by_label: Scheduler label -> :func:`backfill.measures.fairness.fairness_buckets` result.
        group: The row to draw: ``"all"`` or one runtime class of the buckets (``"<=15m"``, ...).
        title: The axes' title; default names the group.
        ax: Axes to draw on; None draws on a new figure.

    Returns:
        The figure.

    Raises:
        BackfillError: No buckets, buckets with different edges, or an unknown group.

    Examples:
        >>> from backfill import Job, Workload, fairness_buckets, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=20.0, estimate=20.0) for i in range(2)]
        >>> b = fairness_buckets(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), [0.0, 0.0])
        >>> type(fairness_stacks({"FCFS": b})).__name__
        'Figure'
    """
    if not isinstance(buckets_by_label, Mapping) or not buckets_by_label:
        raise BackfillError("fairness_stacks needs a non-empty mapping of label -> FairnessBuckets")
    for label, b in buckets_by_label.items():
        if not isinstance(b, FairnessBuckets):
            raise BackfillError(f"{label!r}: expected FairnessBuckets, got {type(b).__name__}")
    labels = [str(k) for k in buckets_by_label]
    first = next(iter(buckets_by_label.values()))
    if any(b.buckets != first.buckets for b in buckets_by_label.values()):
        raise BackfillError("fairness buckets with different edges cannot share a figure")
    if group not in first.groups:
        raise BackfillError(f"unknown group {group!r}; known: {', '.join(first.groups)}")
    rows = []
    for label, b in buckets_by_label.items():
        if group not in b.groups:
            raise BackfillError(f"{label!r} has no group {group!r}; it has {', '.join(b.groups)}")
        rows.append(np.asarray(b.shares[b.groups.index(group)], dtype=np.float64) / 100.0)
    shares = np.array(rows).reshape(len(labels), len(first.buckets))
    require_matplotlib()
    from matplotlib import colormaps

    fig, ax = _axes(ax, (max(4.0, 1.6 + 0.8 * len(labels)), 4.8))
    x = np.arange(len(labels), dtype=np.float64)
    bottom = np.zeros(len(labels))
    colors = colormaps["RdYlGn_r"](np.linspace(0.1, 0.9, len(first.buckets)))
    for k, name in enumerate(first.buckets):
        ax.bar(x, shares[:, k], 0.6, bottom=bottom, label=name, color=colors[k])
        bottom = bottom + shares[:, k]
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 5 else 0)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("share of jobs")
    # Reversed so that the legend reads top-down like the stack.
    handles, names = ax.get_legend_handles_labels()
    ax.legend(
        handles[::-1],
        names[::-1],
        title="slowdown / fair",
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    ax.set_title(title if title is not None else f"fairness buckets ({group} jobs)")
    return fig
