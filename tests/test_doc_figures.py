"""The documentation's figures: each draws, and the worked examples behind their captions hold.

The figures are drawn at build time by the MkDocs hook ``docs/_hooks/figures.py``; the captions in
``docs/schedulers.md`` and ``docs/slack-backfilling.md`` state start times and reservations that
these tests check on the hook's own workloads, so a scheduler change that breaks a caption fails here.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    LookaheadSlack,
    RelShare,
    Schedule,
    Selective,
    SlackBackfill,
    SlackFactor,
    Workload,
    check_reservations,
    simulate,
    validate_schedule,
)

pytestmark = pytest.mark.integration  # matplotlib: the integration extra

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_doc_figures_hook", DOCS / "_hooks" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # docs/ is not a package and is the site's source: leave no __pycache__ in it.
    before, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = before
    return module


hook = _load_hook()


def run(w: Workload, scheduler: object) -> Schedule:
    s = simulate(w, scheduler)  # type: ignore[arg-type]
    validate_schedule(s)
    return s


def starts(s: Schedule) -> dict[int, float]:
    return dict(zip(s.workload.column("id").tolist(), s.start.tolist(), strict=True))


def plan_at(s: Schedule, t: float) -> dict[int, float]:
    """The reservation in force at ``t`` of every job queued then (submitted, not started)."""
    plan: dict[int, float] = {}
    for time, job_id, start in s.reservations.tolist():
        if time <= t:
            plan[job_id] = start
    submit = dict(zip(s.workload.column("id").tolist(), s.submit.tolist(), strict=True))
    started = starts(s)
    return {j: p for j, p in plan.items() if submit[j] <= t and not started[j] <= t and not math.isnan(p)}


# -- every figure draws ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(hook.FIGURES))
def test_each_figure_draws(path: str) -> None:
    draw, alt = hook.FIGURES[path]
    assert re.fullmatch(r"figures/[a-z0-9-]+\.png", path)
    assert alt
    fig = draw()
    assert isinstance(fig, Figure)
    assert fig.axes
    png = hook.render(draw)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert hook.render(draw) == png  # deterministic: the site does not change between builds


def test_every_figure_is_embedded_and_every_embed_is_a_figure() -> None:
    embedded: dict[str, str] = {}
    for page in sorted(DOCS.glob("*.md")):
        for alt, path in re.findall(r"!\[([^\]]*)\]\((figures/[^)]+)\)", page.read_text("utf-8")):
            embedded[path] = alt
    assert embedded == {path: alt for path, (_, alt) in hook.FIGURES.items()}


def test_on_files_adds_the_figures_and_drops_the_hook(tmp_path: Path) -> None:
    # As `hooks: [docs/_hooks/figures.py]` in mkdocs.yml does: MkDocs loads the module and calls it.
    pytest.importorskip("mkdocs")
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import File, Files

    config = MkDocsConfig()
    hooks = [str(DOCS / "_hooks" / "figures.py")]
    config.load_dict({"site_name": "t", "docs_dir": str(DOCS), "site_dir": str(tmp_path), "hooks": hooks})
    before, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        errors, _ = config.validate()
    finally:
        sys.dont_write_bytecode = before
    assert not errors
    page = File("schedulers.md", str(DOCS), str(tmp_path), use_directory_urls=True)
    source = File("_hooks/figures.py", str(DOCS), str(tmp_path), use_directory_urls=True)
    files = config.plugins.on_files(Files([page, source]), config=config)
    assert sorted(f.src_uri for f in files) == sorted(["schedulers.md", *hook.FIGURES])
    assert files.get_file_from_path("figures/easy.png").content_bytes == hook.render(hook.figure_easy)


# -- the captions' worked examples -------------------------------------------------------------------


def test_fcfs_caption() -> None:
    # Job 2 waits for job 1 to end at 10, nothing passes it; jobs 4 and 5 start at 20.
    s = run(hook.easy_workload(), FCFS())
    assert starts(s) == {1: 0.0, 2: 10.0, 3: 15.0, 4: 20.0, 5: 20.0}
    assert s.reservations.size == 0


def test_easy_caption() -> None:
    w = hook.easy_workload()
    easy = run(w, EASY())
    check_reservations(easy)
    # One reservation at 4: the head, job 2, at the shadow time 10; jobs 4 and 5 backfilled.
    assert plan_at(easy, 4.0) == {2: 10.0}
    assert starts(easy) == {1: 0.0, 2: 10.0, 3: 23.0, 4: 3.0, 5: 4.0}
    # Job 4 (3 processors) runs past 10 on the extra processors: 8 free at 10, 5 for the head.
    assert easy.end.tolist()[3] == 23.0
    conservative = run(w, Conservative())
    check_reservations(conservative)
    assert plan_at(conservative, 4.0) == {2: 10.0, 3: 15.0, 4: 20.0}
    assert starts(conservative)[3] == 15.0
    assert starts(conservative)[4] == 20.0


def test_conservative_caption() -> None:
    s = run(hook.compression_workload(), Conservative())
    check_reservations(s)
    assert plan_at(s, 0.0) == {3: 8.0, 4: 10.0}
    assert s.end.tolist()[0] == 3.0
    assert plan_at(s, 3.0) == {3: 4.0, 4: 6.0}
    assert starts(s) == {1: 0.0, 2: 0.0, 3: 4.0, 4: 6.0}


def test_pc_dc_caption() -> None:
    w = hook.section_4_1_workload()
    pc, dc = run(w, PC()), run(w, DC())
    check_reservations(pc)
    check_reservations(dc)
    # Before J1 ends early at 100 both plan J4 at 400; at 100 PC moves it to 300, DC leaves it.
    assert plan_at(pc, 99.0)[4] == plan_at(dc, 99.0)[4] == 400.0
    assert plan_at(pc, 100.0) == {4: 300.0, 5: 500.0}
    assert plan_at(dc, 100.0) == {4: 400.0, 5: 600.0}
    assert starts(pc) == {1: 0.0, 2: 100.0, 3: 100.0, 4: 200.0, 5: 300.0}
    assert starts(dc) == {1: 0.0, 2: 100.0, 3: 100.0, 4: 295.0, 5: 195.0}
    assert dc.end.tolist()[2] == 195.0  # J3 ends at 195, when J5 backfills


def test_selective_caption() -> None:
    w = hook.selective_workload()
    s = run(w, Selective(hook.SELECTIVE_THRESHOLD))
    # No reservation before the expansion factor of job 2 reaches 2 at 0 + (2 - 1) * 10 = 10.
    assert plan_at(s, 5.0) == {}
    assert plan_at(s, 9.999) == {}
    assert plan_at(s, 10.0) == {2: 26.0}
    assert plan_at(s, 21.0) == {2: 26.0}
    assert starts(s) == {1: 0.0, 2: 26.0, 3: 1.0, 4: 36.0}
    # Job 4 arrives at 21 with 4 processors free (job 1 ended at 20, job 3 runs to 26).
    assert s.end.tolist()[0] == 20.0 and s.end.tolist()[2] == 26.0
    never = run(w, Selective(math.inf))
    assert never.reservations.size == 0
    assert starts(never) == {1: 0.0, 2: 31.0, 3: 1.0, 4: 21.0}


def test_relshare_caption() -> None:
    w = hook.type_s1_workload()
    easy, share = run(w, EASY()), run(w, RelShare())
    assert plan_at(easy, 3.0) == {2: 100.0}
    assert starts(easy)[2] == 100.0
    assert starts(share)[3] == 2.0
    assert plan_at(share, 3.0) == {4: 100.0}
    assert starts(share)[4] == 100.0
    assert starts(share)[2] == 200.0


def test_slack_backfill_caption() -> None:
    w = hook.slack_workload()
    conservative, slack = run(w, Conservative()), run(w, SlackBackfill(tolerance=1.0))
    assert plan_at(conservative, 12.0) == {3: 30.0, 4: 40.0}
    assert starts(slack)[4] == 12.0
    assert plan_at(slack, 12.0) == {3: 34.0}
    assert starts(slack)[3] == 34.0
    # Job 3's guarantee: its first reservation 30 plus 1 x mean wait (0 + 10) / 2 = 5.
    assert slack.reservations_of(3).tolist()[0] + 5.0 == 35.0


def test_lookahead_slack_caption() -> None:
    # Job 3 arrives at 11 with FST 30 (expected wait 19); at 12 it may be planned up to 32.3.
    assert SlackFactor().factor(19.0) == 1.5
    assert SlackFactor().latest_start(11.0, 19.0, 1.0) == pytest.approx(11 + (1.1 + 0.4 / 19) * 19)
    assert SlackFactor().latest_start(11.0, 19.0, 1.0) == pytest.approx(32.3)
    for estimate, job_3, job_4 in ((20.0, 32.0, 12.0), (21.0, 30.0, 40.0)):
        scheduler = LookaheadSlack()
        s = run(hook.lookahead_workload(estimate), scheduler)
        assert scheduler.fair_starts()[3] == 30.0
        assert starts(s)[3] == job_3
        assert starts(s)[4] == job_4
    conservative = run(hook.lookahead_workload(21.0), Conservative())
    assert starts(conservative)[4] == 40.0
