"""MkDocs hook: draw the documentation's figures as PNG files at build time.

Each scheduler page's figure is a small hand-made workload simulated by :func:`backfill.simulate`
and drawn with :func:`backfill.experiments.plots.schedule_window`: filled boxes are the jobs as they
ran, hatched outlines the reservations held at the instant a panel names. The plots page shows what
``backfill simulate --figures`` draws of a synthetic workload (:func:`figure_utilization_queue`).
The home page's, the tutorial's and the guide pages' figures (resources, performance, reproduction)
are drawn by the sibling module ``guide.py``, and the architecture page's by ``layout.py``.
:data:`FIGURES` maps each figure's path in the site (``figures/easy.png``) to its drawing function
and alt text; :func:`on_files` adds the rendered PNGs to the site's files, so nothing is written
into the source tree and pages link to them as if they were in ``docs/figures/``. The workload
functions are public so that ``tests/test_doc_figures.py`` can check the start times the captions
state.

Enable it in ``mkdocs.yml`` with ``hooks: [docs/_hooks/figures.py]``; it needs matplotlib
(``pip install ".[docs]"``).
"""

from __future__ import annotations

import importlib.util
import io
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    LookaheadSlack,
    RelShare,
    Schedule,
    Selective,
    SlackBackfill,
    Workload,
    lublin_feitelson,
    simulate,
)
from backfill.experiments.plots import schedule_window
from backfill.experiments.timeline import utilization_queue

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

__all__ = [
    "FIGURES",
    "compression_workload",
    "easy_workload",
    "figure_conservative",
    "figure_easy",
    "figure_fcfs",
    "figure_lookahead_slack",
    "figure_pc_dc",
    "figure_relshare",
    "figure_selective",
    "figure_slack_backfill",
    "figure_utilization_queue",
    "lookahead_workload",
    "on_files",
    "render",
    "section_4_1_workload",
    "selective_workload",
    "slack_workload",
    "type_s1_workload",
]

#: Width of every figure, in inches; the height depends on the number of rows.
WIDTH = 8.0
#: Height of a figure of one row of panels, in inches.
HEIGHT = 3.5
#: Resolution of the PNGs.
DPI = 100

#: The threshold of the Selective example: a job is promoted when (wait + estimate) / estimate >= 2.
SELECTIVE_THRESHOLD = 2.0


def _workload(
    specs: Sequence[tuple[float, int, float, float]], size: int, users: Sequence[int] | None = None
) -> Workload:
    """Jobs from ``(submit, processors, runtime, estimate)``, with ids 1, 2, ... in order."""
    jobs = [
        Job(
            id=i + 1,
            submit=float(s),
            processors=p,
            runtime=float(r),
            estimate=float(e),
            user=-1 if users is None else users[i],
        )
        for i, (s, p, r, e) in enumerate(specs)
    ]
    return Workload.from_jobs(jobs, machine_size=size)


def easy_workload() -> Workload:
    """Return the FCFS / EASY example: a blocked head, a wide job behind it and two backfill candidates.

    On 8 processors: job 1 (4 processors) runs over [0, 10); job 2 (5 processors, 5 s) arrives at 1;
    job 3 (7 processors, 5 s) at 2; job 4 (3 processors, 20 s) at 3; job 5 (1 processor, 5 s) at 4.
    Estimates are exact.

    Returns:
        The workload.
    """
    return _workload([(0, 4, 10, 10), (1, 5, 5, 5), (2, 7, 5, 5), (3, 3, 20, 20), (4, 1, 5, 5)], size=8)


def compression_workload() -> Workload:
    """Return the compression example of ``docs/schedulers.md``: job 1 ends at 3, five seconds early.

    On 4 processors, all submitted at 0: job 1 (3 processors, estimate 8, runs 3 s), job 2 (1
    processor, 4 s), job 3 (4 processors, 2 s) and job 4 (2 processors, 5 s); the text calls them A,
    B, J and K.

    Returns:
        The workload.
    """
    return _workload([(0, 3, 3, 8), (0, 1, 4, 4), (0, 4, 2, 2), (0, 2, 5, 5)], size=4)


def section_4_1_workload() -> Workload:
    """Return the five-job instance of Rajbhandary et al. (2013, §4.1) on 100 processors.

    Jobs (submit, width, runtime): (0, 90, 100), (1, 45, 100), (2, 40, 95), (3, 90, 100),
    (4, 45, 100), every estimate 200.

    Returns:
        The workload.
    """
    specs = [(0, 90, 100), (1, 45, 100), (2, 40, 95), (3, 90, 100), (4, 45, 100)]
    return _workload([(s, p, r, 200) for s, p, r in specs], size=100)


def selective_workload() -> Workload:
    """Return the Selective example: a wide job is passed until its expansion factor reaches 2.

    On 8 processors: job 1 (4 processors) runs over [0, 20); job 2 (8 processors, 10 s) arrives at 0;
    job 3 (4 processors, 25 s) at 1; job 4 (4 processors, 10 s) at 21. Estimates are exact.

    Returns:
        The workload.
    """
    return _workload([(0, 4, 20, 20), (0, 8, 10, 10), (1, 4, 25, 25), (21, 4, 10, 10)], size=8)


def type_s1_workload() -> Workload:
    """Return Vasupongayya's Type-S1 instance (§V-B) as ``tests/test_relshare.py`` builds it.

    On 10 processors: job 1 (user 3, 8 processors, 100 s) at 0; user 1's large job 2 (10
    processors, 100 s) at 1 and small job 3 (2 processors, 50 s) at 2; user 2's job 4 (10 processors,
    100 s) at 3. Estimates are exact.

    Returns:
        The workload.
    """
    specs = [(0, 8, 100, 100), (1, 10, 100, 100), (2, 2, 50, 50), (3, 10, 100, 100)]
    return _workload(specs, size=10, users=[3, 1, 1, 2])


def slack_workload() -> Workload:
    """Return the ``SlackBackfill`` example of ``docs/slack-backfilling.md``.

    On 4 processors: job 1 (4 processors, 10 s) and job 2 (2 processors, 20 s) at 0; job 3 (4
    processors, 10 s) at 11; job 4 (2 processors, 22 s) at 12. Estimates are exact.

    Returns:
        The workload.
    """
    return _workload([(0, 4, 10, 10), (0, 2, 20, 20), (11, 4, 10, 10), (12, 2, 22, 22)], size=4)


def lookahead_workload(estimate: float) -> Workload:
    """Return the ``LookaheadSlack`` example: the slack example with job 4 running ``estimate`` seconds.

    Args:
        estimate: Runtime and estimate of job 4 (2 processors, arriving at 12).

    Returns:
        The workload.
    """
    return _workload([(0, 4, 10, 10), (0, 2, 20, 20), (11, 4, 10, 10), (12, 2, estimate, estimate)], size=4)


def _figure(panels: int) -> tuple[Figure, list[Axes]]:
    """A figure of ``panels`` side by side, sharing the figure's width."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, list(fig.subplots(1, panels, squeeze=False)[0])


def _panel(ax: Axes, schedule: Schedule, end: float, at: float | None, title: str) -> None:
    """Draw ``schedule`` over [0, end) on ``ax``, with the plan held at ``at`` (none if None)."""
    schedule_window(
        schedule,
        start=0.0,
        end=end,
        at=0.0 if at is None else at,
        reservations=at is not None,
        title=title,
        ax=ax,
    )
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    ax.title.set_fontsize("medium")
    if at is None:
        return
    ax.axvline(at, color="black", linestyle=":", linewidth=1.0)
    # schedule_window fades the jobs started after ``at`` only when a reservation is held then.
    started = dict(zip(schedule.workload.column("id").tolist(), schedule.start.tolist(), strict=True))
    for patch in ax.patches:
        kind, _, job_id = (patch.get_gid() or "").partition(":")
        if kind == "job" and started[int(job_id)] > at:
            patch.set_alpha(0.35)


def _legend(fig: Figure, *, plan: bool = True) -> None:
    """One legend for all panels, below them."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor="lightgray", edgecolor="black", label="job as run")]
    if plan:
        handles += [
            Patch(
                facecolor="lightgray", edgecolor="black", alpha=0.35, label="started after the dotted line"
            ),
            Patch(fill=False, hatch="//", linestyle="--", label="reservation held at the dotted line"),
        ]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize="small")


def figure_fcfs() -> Figure:
    """Draw FCFS on :func:`easy_workload`: the blocked head stops the queue, nothing backfills.

    Returns:
        The figure.
    """
    fig, (ax,) = _figure(1)
    s = simulate(easy_workload(), FCFS())
    _panel(ax, s, 42.0, None, "FCFS: no job passes the head")
    _legend(fig, plan=False)
    return fig


def figure_easy() -> Figure:
    """Draw EASY and Conservative on :func:`easy_workload`, each with its plan at 4.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    w = easy_workload()
    _panel(left, simulate(w, EASY()), 42.0, 4.0, "EASY: plan at 4")
    _panel(right, simulate(w, Conservative()), 42.0, 4.0, "Conservative: plan at 4")
    _legend(fig)
    return fig


def figure_conservative() -> Figure:
    """Draw Conservative on :func:`compression_workload`: the plan at 0, and at 3 after compression.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    s = simulate(compression_workload(), Conservative())
    _panel(left, s, 16.0, 0.0, "Conservative: plan at 0")
    _panel(right, s, 16.0, 3.0, "plan at 3, compressed after job 1 ends")
    _legend(fig)
    return fig


def figure_pc_dc() -> Figure:
    """Draw PC and DC on :func:`section_4_1_workload`, each with its plan at 100, when J1 ends early.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    w = section_4_1_workload()
    _panel(left, simulate(w, PC()), 800.0, 100.0, "PC: plan at 100")
    _panel(right, simulate(w, DC()), 800.0, 100.0, "DC: plan at 100")
    _legend(fig)
    return fig


def figure_selective() -> Figure:
    """Draw Selective (threshold 2) on :func:`selective_workload`, its plan at 5 and at 21.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    s = simulate(selective_workload(), Selective(SELECTIVE_THRESHOLD))
    _panel(left, s, 48.0, 5.0, "Selective(2): plan at 5, none held")
    _panel(right, s, 48.0, 21.0, "plan at 21: job 2 promoted at 10")
    _legend(fig)
    return fig


def figure_relshare() -> Figure:
    """Draw EASY and RelShare on :func:`type_s1_workload`, each with its plan at 3.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    w = type_s1_workload()
    _panel(left, simulate(w, EASY()), 310.0, 3.0, "EASY: plan at 3")
    _panel(right, simulate(w, RelShare()), 310.0, 3.0, "RelShare: plan at 3")
    _legend(fig)
    return fig


def figure_slack_backfill() -> Figure:
    """Draw Conservative and ``SlackBackfill(tolerance=1)`` on :func:`slack_workload`, plans at 12.

    Returns:
        The figure.
    """
    fig, (left, right) = _figure(2)
    w = slack_workload()
    _panel(left, simulate(w, Conservative()), 64.0, 12.0, "Conservative: plan at 12")
    _panel(right, simulate(w, SlackBackfill(tolerance=1.0)), 64.0, 12.0, "SlackBackfill(1): plan at 12")
    _legend(fig)
    return fig


def figure_lookahead_slack() -> Figure:
    """Draw ``LookaheadSlack`` on :func:`lookahead_workload` with job 4 of 20 s and of 21 s, plans at 12.

    Returns:
        The figure.
    """
    fig, axes = _figure(2)
    for ax, estimate in zip(axes, (20.0, 21.0), strict=True):
        s = simulate(lookahead_workload(estimate), LookaheadSlack())
        _panel(ax, s, 64.0, 12.0, f"LookaheadSlack, 4 runs {estimate:g} s: plan at 12")
    _legend(fig)
    return fig


def figure_utilization_queue() -> Figure:
    """Draw the utilization and queue length of FCFS, EASY and Conservative on 2,000 model jobs.

    The Lublin-Feitelson model (seed 1, 128 processors, f-model estimates) spans ten weeks, so the
    lines are means per day.

    Returns:
        The figure.
    """
    w = lublin_feitelson(2000, machine_size=128, seed=1, estimates="f-model")
    return utilization_queue(
        {
            "FCFS": simulate(w, FCFS()),
            "EASY": simulate(w, EASY()),
            "Conservative": simulate(w, Conservative()),
        }
    )


def _sibling(name: str) -> ModuleType:
    """The sibling module ``<name>.py`` of this hook (``layout``, ``guide``), loaded once."""
    key = f"_doc_{name}_hook"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # its dataclass looks it up
    before, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # leave no __pycache__ in docs/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = before
    return module


def _layout_figure() -> Callable[[], Figure]:
    """The layout figure of ``docs/architecture.md``, drawn by the sibling module ``layout.py``."""
    draw: Callable[[], Figure] = _sibling("layout").figure_layout
    return draw


def _guide_figures() -> dict[str, tuple[Callable[[], Figure], str]]:
    """The figures of the home page, the tutorial and the guide pages, from the sibling ``guide.py``."""
    figures: dict[str, tuple[Callable[[], Figure], str]] = _sibling("guide").GUIDE_FIGURES
    return figures


#: Path of each figure in the site -> (function drawing it, alt text).
FIGURES: dict[str, tuple[Callable[[], Figure], str]] = {
    "figures/fcfs.png": (figure_fcfs, "FCFS: processors idle while the head job waits"),
    "figures/easy.png": (figure_easy, "EASY and Conservative plans at time 4 on the same five jobs"),
    "figures/conservative.png": (figure_conservative, "Conservative plan before and after compression"),
    "figures/pc-dc.png": (figure_pc_dc, "PC and DC plans after J1 ends early in Rajbhandary's instance"),
    "figures/selective.png": (figure_selective, "Selective plan before and after job 2 is promoted"),
    "figures/relshare.png": (figure_relshare, "EASY and RelShare plans at time 3 in the Type-S1 instance"),
    "figures/slack-backfill.png": (figure_slack_backfill, "Conservative and SlackBackfill plans at time 12"),
    "figures/lookahead-slack.png": (figure_lookahead_slack, "LookaheadSlack plans at 12 for two job lengths"),
    "figures/utilization-queue.png": (
        figure_utilization_queue,
        "Daily mean utilization and queue length of FCFS, EASY and Conservative over ten weeks",
    ),
    "figures/layout.png": (
        _layout_figure(),
        "The package's rooms by layer, their largest modules, and the arrows of their imports",
    ),
    **_guide_figures(),
}


def render(draw: Callable[[], Figure]) -> bytes:
    """Draw a figure and return it as PNG bytes, the same bytes on every run.

    Args:
        draw: A function of :data:`FIGURES`.

    Returns:
        The PNG file's content.
    """
    fig = draw()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add every figure of :data:`FIGURES` to the site, and drop this hook's folder from it.

    Args:
        files: The site's files.
        config: The MkDocs configuration.

    Returns:
        The files, with the figures.
    """
    from mkdocs.structure.files import File

    for file in [f for f in files if f.src_uri.startswith("_hooks/")]:
        files.remove(file)
    for src_uri, (draw, _alt) in FIGURES.items():
        old = files.get_file_from_path(src_uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, src_uri, content=render(draw)))
    return files
