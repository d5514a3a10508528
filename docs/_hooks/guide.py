"""The guide pages' figures: what a reader would rather look at than read, drawn at build time.

Loaded by ``figures.py`` (the MkDocs hook), which adds :data:`GUIDE_FIGURES` to its figures. Two
are small runs of the library: the home page's first run (:func:`figure_first_run`, what
``backfill simulate`` prints) and the tutorial's comparison (:func:`figure_tutorial`); the
resources page's (:func:`figure_memory`) is a small synthetic run with memory. The other two read
committed results where the pages keep them, so each number has one place: the performance page's
table of whole runs (:func:`figure_kernel_speed`) and the reproduction report's summary tables
(:func:`figure_verdicts`), which ``benchmarks/reproduction/reproduce.py`` writes from the committed
results.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    Resource,
    Schedule,
    Scheduler,
    Workload,
    lublin_feitelson,
    simulate,
    sjf,
    summarize,
)
from backfill.experiments.timeline import binned_means, utilization_queue_series
from backfill.measures.resource_use import held_back, job_amounts

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "GUIDE_FIGURES",
    "default_runs",
    "figure_first_run",
    "figure_kernel_speed",
    "figure_memory",
    "figure_tutorial",
    "figure_verdicts",
    "markdown_table",
    "memory_workload",
]

#: The pages whose tables two figures read.
DOCS = Path(__file__).resolve().parents[1]
#: Width and resolution of every figure, as in ``figures.py``.
WIDTH, DPI = 8.0, 100
HOUR, DAY = 3600.0, 86_400.0
#: One colour per scheduler, the same on every figure.
COLOURS = {"FCFS": "#7f7f7f", "EASY": "#1f77b4", "Conservative": "#2ca02c", "PC": "#ff7f0e", "DC": "#9467bd"}
#: One colour per verdict of the reproduction report, in the summary's order.
VERDICT_COLOURS = {"holds": "#2ca02c", "partly": "#f0c419", "differs": "#d62728", "not checkable": "#bdbdbd"}


def _figure(
    rows: int, cols: int, height: float, *, sharex: bool = False, sharey: bool = False
) -> tuple[Figure, np.ndarray]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False, sharex=sharex, sharey=sharey)


@cache
def default_runs() -> dict[str, Schedule]:
    """Return the tutorial's runs on ``backfill simulate``'s default workload, by the tutorial's names.

    5,000 Lublin-Feitelson jobs on 128 processors, f-model estimates, seed 0: FCFS, EASY, Conservative,
    PC and DC in arrival order, and EASY, PC and DC shortest-job-first (``EASY-SJF``, ...).

    Returns:
        The schedules.
    """
    w = lublin_feitelson(5_000, estimates="f-model")
    runs: dict[str, Scheduler] = {
        "FCFS": FCFS(),
        "EASY": EASY(),
        "Conservative": Conservative(),
        "PC": PC(),
        "DC": DC(),
    }
    runs |= {"EASY-SJF": EASY(priority=sjf), "PC-SJF": PC(priority=sjf), "DC-SJF": DC(priority=sjf)}
    return {name: simulate(w, scheduler) for name, scheduler in runs.items()}


def _bars(ax: Axes, names: list[str], values: list[float], label: str, fmt: str) -> None:
    """Horizontal bars, one per scheduler in its colour, each with its value at its end."""
    colours = [COLOURS[n.split("-")[0]] for n in names]
    bars = ax.barh(names, values, color=colours)
    ax.bar_label(bars, labels=[fmt.format(v) for v in values], padding=3, fontsize="small")
    ax.set_xlabel(label)
    ax.set_xlim(0, max(values) * 1.25)
    ax.spines[["top", "right"]].set_visible(False)


def figure_first_run() -> Figure:
    """Draw what ``backfill simulate`` prints: mean wait and mean bounded slowdown of its three schedulers.

    Returns:
        The figure.
    """
    fig, axes = _figure(1, 2, 2.4, sharey=True)
    names = ["FCFS", "EASY", "Conservative"]
    rows = [summarize(default_runs()[n]) for n in names]
    _bars(axes[0, 0], names, [r["mean_wait"] / HOUR for r in rows], "mean wait (hours)", "{:.1f} h")
    _bars(axes[0, 1], names, [r["mean_bsld"] for r in rows], "mean bounded slowdown", "{:.0f}")
    axes[0, 0].invert_yaxis()  # shared by both panels: the first scheduler on top
    fig.suptitle("backfill simulate: 5,000 model jobs on 128 processors", fontsize="medium")
    return fig


def figure_tutorial() -> Figure:
    """Draw the tutorial's comparison: mean and maximum wait, arrival order against shortest job first.

    Returns:
        The figure.
    """
    fig, axes = _figure(1, 2, 3.0, sharey=True)
    names = ["Conservative", "EASY", "EASY-SJF", "PC", "PC-SJF", "DC", "DC-SJF"]
    rows = [summarize(default_runs()[n]) for n in names]
    _bars(axes[0, 0], names, [r["mean_wait"] / HOUR for r in rows], "mean wait (hours)", "{:.2f}")
    _bars(axes[0, 1], names, [r["max_wait"] / DAY for r in rows], "maximum wait (days)", "{:.1f}")
    axes[0, 0].invert_yaxis()
    for ax in axes[0]:
        for label in ax.get_yticklabels():
            label.set_fontweight("bold" if label.get_text().endswith("SJF") else "normal")
    fig.suptitle("SJF shortens the mean wait; EASY-SJF lengthens the longest", fontsize="medium")
    return fig


#: Memory per processor the resources figure's jobs ask (kB), and how often.
MEMORY_CHOICES = (256 * 2**10, 512 * 2**10, 2**20, 2 * 2**20, 4 * 2**20)
MEMORY_WEIGHTS = (0.3, 0.3, 0.2, 0.12, 0.08)


def memory_workload() -> tuple[Workload, Resource]:
    """Return the resources figure's workload and memory: 2,000 model jobs at twice the model's load.

    Each job asks 256 MB to 4 GB per processor (seeded draw), at most the whole machine's memory;
    the machine has 128 processors and 1 GB per processor.

    Returns:
        The workload and its memory resource.
    """
    w = lublin_feitelson(2_000, machine_size=128, seed=1, estimates="f-model").scaled(2.0)
    capacity = 128 * 2**20
    rng = np.random.default_rng(7)
    per = rng.choice(MEMORY_CHOICES, size=len(w), p=MEMORY_WEIGHTS)
    jobs = [
        Job(
            id=j.id,
            submit=j.submit,
            processors=j.processors,
            runtime=j.runtime,
            estimate=j.estimate,
            user=j.user,
            requested_memory=int(min(m, capacity // j.processors)),
        )
        for j, m in zip(w, per.tolist(), strict=True)
    ]
    return Workload.from_jobs(jobs, machine_size=128), Resource.memory(capacity)


def _held(schedule: Schedule, amounts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The step function of what the running jobs hold (``amounts`` per job), as ``binned_means`` reads it."""
    ran = ~np.isnan(schedule.start)
    times = np.concatenate([schedule.start[ran], schedule.end[ran]])
    change = np.concatenate([amounts[ran], -amounts[ran]]).astype(np.float64)
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(change[order])
    last = np.r_[times[1:] != times[:-1], True]  # the level after every event at a time
    return times[last], level[last]


def figure_memory() -> Figure:
    """Draw processors and memory in use over time, and the queue, of Conservative with and without memory.

    Returns:
        The figure.
    """
    w, memory = memory_workload()
    alone, both = simulate(w, Conservative()), simulate(w, Conservative(resources=[memory]))
    fig, axes = _figure(2, 1, 4.6, sharex=True)
    top, bottom = axes[0, 0], axes[1, 0]
    span = float(np.nanmax(both.end))
    edges = np.arange(0.0, span + DAY, DAY)
    mid = (edges[:-1] + edges[1:]) / 2 / DAY
    times, busy, _ = utilization_queue_series(both)
    top.plot(mid, binned_means(times, busy, edges) / 128, color=COLOURS["Conservative"], label="processors")
    t, held = _held(both, job_amounts(both, memory).astype(np.float64))
    top.plot(mid, binned_means(t, held, edges) / memory.capacity, color="#8c564b", label="memory")
    top.set_ylabel("share in use")
    top.set_ylim(0, 1.05)
    top.legend(loc="lower right", fontsize="small", ncols=2)
    share = held_back(both)["memory"] / (span - float(w.column("submit").min()))
    top.set_title(
        f"Conservative planning memory: memory alone held the oldest job back {share:.0%} of the time",
        fontsize="medium",
    )
    for schedule, label, style in ((alone, "processors alone", "--"), (both, "+ memory", "-")):
        times, _, waiting = utilization_queue_series(schedule)
        bottom.plot(mid, binned_means(times, waiting, edges), style, color="#444444", label=label)
    bottom.set_ylabel("jobs waiting")
    bottom.set_xlabel("day (daily means)")
    bottom.legend(fontsize="small")
    for ax in (top, bottom):
        ax.spines[["top", "right"]].set_visible(False)
    return fig


def markdown_table(text: str, first_header: str, after: str = "") -> list[dict[str, str]]:
    """Return the rows of the first markdown table of ``text`` whose header starts ``| first_header |``.

    Args:
        text: A page's markdown.
        first_header: The table's first column header.
        after: Look only after the first occurrence of this text.

    Returns:
        One dict per row, by header.

    Raises:
        ValueError: No such table.
    """
    text = text.split(after, 1)[1] if after else text
    match = re.search(
        rf"^\| {re.escape(first_header)} \|.*\n\|[- :|]+\|\n((?:\|.*\|\n?)*)", text, re.MULTILINE
    )
    if match is None:
        raise ValueError(f"no table starting | {first_header} |")

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    header = cells(match.group(0).splitlines()[0])
    return [dict(zip(header, cells(line), strict=True)) for line in match.group(1).splitlines()]


def figure_kernel_speed() -> Figure:
    """Draw the performance page's table of whole runs: microseconds per job, pure Python and installed.

    Returns:
        The figure.
    """
    rows = markdown_table((DOCS / "performance.md").read_text("utf-8"), "trace", after="**Whole runs.**")
    traces = ["KTH-SP2-1996-2", "CTC-SP2-1996-3.1-cln"]
    fig, axes = _figure(1, 2, 3.6, sharey=True)
    for ax, trace in zip(axes[0], traces, strict=True):
        mine = [r for r in rows if r["trace"] == trace]
        names = [r["configuration"] for r in mine]
        y = np.arange(len(mine))
        pure = [float(r["pure us/job"]) for r in mine]
        installed = [float(r["installed us/job"]) for r in mine]
        ax.barh(y - 0.2, pure, height=0.4, color="#bdbdbd", label="pure Python")
        ax.barh(y + 0.2, installed, height=0.4, color="#1f77b4", label="compiled kernel")
        for k, r in enumerate(mine):
            ax.annotate(
                r["ratio"],
                (pure[k], k - 0.2),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize="x-small",
            )
        ax.set_yticks(y, names, fontsize="small")
        ax.set_xscale("log")
        ax.set_xlim(0.3, 5000)
        ax.set_xlabel("microseconds per job (log scale)")
        ax.set_title(trace, fontsize="medium")
        ax.spines[["top", "right"]].set_visible(False)
    axes[0, 0].invert_yaxis()
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize="small")
    return fig


def _paper_label(paper: str, stand_in: str | None) -> str:
    """``Lindsay 2013`` from the report's ``Lindsay et al. (2013), "..."``."""
    year = re.search(r"\((\d{4})\)", paper)
    label = paper.split(",")[0].split(" ")[0] + (f" {year.group(1)}" if year else "")
    return f"{label}\n(on {stand_in.split(' for ')[0]})" if stand_in else label


def figure_verdicts() -> Figure:
    """Draw the reproduction report's summary: each paper's claims by verdict.

    Returns:
        The figure.
    """
    text = (DOCS / "reproduction.md").read_text("utf-8").split("## Summary", 1)[1].split("\n## ", 1)[0]
    rows = markdown_table(text, "paper")
    rows += [
        r | {"paper": _paper_label(r["paper"], r["stand-in trace"])}
        for r in markdown_table(text, "paper", "stand-in")
    ]
    rows += markdown_table(text, "paper", "Beyond the seed papers")
    labels = [r["paper"] if "\n" in r["paper"] else _paper_label(r["paper"], None) for r in rows]
    labels[-1] += "\n(beyond the seed papers)"
    fig, axes = _figure(1, 1, 3.4)
    ax = axes[0, 0]
    left = np.zeros(len(rows))
    for verdict, colour in VERDICT_COLOURS.items():
        counts = np.array([float(r[verdict]) for r in rows])
        bars = ax.barh(labels, counts, left=left, color=colour, label=verdict)
        ax.bar_label(
            bars, labels=[f"{c:.0f}" if c >= 3 else "" for c in counts], label_type="center", fontsize="small"
        )
        left += counts
    ax.invert_yaxis()
    ax.set_xlabel("claims")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=4, fontsize="small", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(axis="y", labelsize="small")
    return fig


#: Path of each guide figure in the site -> (function drawing it, alt text).
GUIDE_FIGURES: dict[str, tuple[Callable[[], Figure], str]] = {
    "figures/first-run.png": (
        figure_first_run,
        "Mean wait and mean bounded slowdown of FCFS, EASY and Conservative on the default workload",
    ),
    "figures/tutorial-sjf.png": (
        figure_tutorial,
        "Mean and maximum wait of Conservative, EASY, PC and DC in arrival order and shortest job first",
    ),
    "figures/memory.png": (
        figure_memory,
        "Processors and memory in use over time, and the jobs waiting, with and without memory planned",
    ),
    "figures/kernel-speed.png": (
        figure_kernel_speed,
        "Microseconds per job of whole runs, pure Python against the compiled kernel, on KTH-SP2 and CTC-SP2",
    ),
    "figures/verdicts.png": (
        figure_verdicts,
        "Each reproduced paper's claims by verdict, from the report's summary tables",
    ),
}
