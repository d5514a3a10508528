"""The reproduction report: ``benchmarks/reproduction/reproduce.py`` and the checks it gathers."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
__import__("_common")  # which puts every benchmarks folder on sys.path (_common.FOLDERS)

from _common import (  # noqa: E402
    ALLOW_DIRTY,
    EVERY,
    MOST,
    ONE,
    VERDICTS,
    Check,
    judged,
    majority,
    measured_stamp,
    rules_used,
    verdict_of,
    within,
)

from backfill import BackfillError  # noqa: E402

PAPERS = ("lindsay", "rajbhandary", "srinivasan", "vasupongayya", "jin", "tsafrir")


def test_verdict_of_thresholds() -> None:
    assert verdict_of(8, 8) == "holds"
    assert verdict_of(6, 8) == "holds"  # three quarters
    assert verdict_of(5, 8) == "partly"
    assert verdict_of(4, 8) == "partly"  # half
    assert verdict_of(3, 8) == "differs"
    assert verdict_of(0, 0) == "not checkable"
    assert verdict_of(9, 10, most=1.0) == "partly"


def test_each_verdict_is_counted_under_the_rule_that_decided_it() -> None:
    rules_used()
    verdict_of(3, 4)
    verdict_of(3, 4, most=1.0)
    verdict_of(1, 1, most=1.0)
    verdict_of(0, 0)  # no case: nothing was decided
    assert majority(2, 4) == "partly"
    assert within(12.5, 2.0, 10, "percentage points") == "partly"
    assert within(0.9, 0.0, 1, "percentage points") == "holds"
    assert judged("a word", "differs") == "differs"
    used = rules_used()
    assert used[MOST] == used[EVERY] == used[ONE] == 1
    assert sum(used.values()) == 7
    assert "a value: holds within 1 percentage point of the paper's, partly within twice that" in used
    assert not rules_used()


def test_check_rejects_an_unknown_verdict() -> None:
    with pytest.raises(ValueError, match="verdict"):
        Check("Fig. 1", "claim", "ours", "maybe")


def _docs(tmp_path: Path) -> Path:
    """A copy of the reproduction pages, for a run to rewrite."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in (ROOT / "docs").glob("reproduction*.md"):
        shutil.copy(page, docs / page.name)
    return docs


def _run(
    traces: Path, results: Path, docs: Path, *papers: str, cached: bool = True
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "reproduction" / "reproduce.py"),
        *(["--cached"] if cached else []),
    ]
    command += ["--trace-dir", str(traces), "--results", str(results), "--docs", str(docs)]
    if papers:
        command += ["--papers", *papers]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)


def _summary(text: str) -> dict[str, list[int]]:
    """The summary tables' counts per paper: claims, one per verdict, then rows in other settings (the
    table of claims judged on a stand-in trace has the stand-in's name after the paper's)."""
    block = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 + len(VERDICTS) and cells[2].isdigit():
            del cells[1]  # the stand-in trace
        if len(cells) == 3 + len(VERDICTS) and cells[1].isdigit():
            rows[cells[0]] = [int(c) for c in cells[1:]]
    return rows


def test_empty_results_give_every_statement_not_checkable(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    done = _run(tmp_path / "no traces", tmp_path / "results", docs)
    assert done.returncode == 0, done.stderr
    text = (docs / "reproduction.md").read_text()
    summary = _summary(text)
    assert len(summary) == len(PAPERS), text
    for counts in summary.values():
        claims, *by_verdict, _ = counts
        assert claims > 0 and sum(by_verdict) == claims
        assert by_verdict[VERDICTS.index("not checkable")] > 0
    # --cached never simulates nor reads a trace: nothing was written to the results folders.
    assert not any((tmp_path / "results").rglob("*.*"))
    # The trace table: the papers' published counts, ours not measured.
    assert re.search(r"\| KTH-SP2 \| KTH-SP2-1996-2 \| KTH-SP2-1996-2 \| 28,489 \| not measured \|", text)
    assert "| CTC | 45.06 / 11.84 / 30.26 / 12.84 | not measured |" in text
    # One section per paper, each a table with a verdict per row.
    sections = re.findall(
        r"^## (?!Summary|The traces|When and|How the verdicts)(.+)$", text, flags=re.MULTILINE
    )
    assert len(sections) == len(PAPERS)
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.count(" | ") >= 4]
    rows = [line for line in rows if not line.startswith("| paper |")]  # the summary's header
    verdicts = [line.split(" | ")[3] for line in rows if line.split(" | ")[3] in VERDICTS]
    # Every row of a paper's table is a claim or a row in another setting, and the summary counts both.
    assert len(verdicts) == sum(counts[0] + counts[-1] for counts in summary.values())


def test_missing_trace_folder_is_a_clear_error_when_cells_would_run(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    before = (docs / "reproduction.md").read_text()
    done = _run(tmp_path / "nope", tmp_path, docs, "lindsay", cached=False)
    assert done.returncode == 2
    assert "no trace folder" in done.stderr
    assert (docs / "reproduction.md").read_text() == before


def test_a_page_without_its_generated_blocks_is_a_clear_error(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    page = docs / "reproduction-lindsay.md"
    page.write_text("# Lindsay, written by hand only\n")
    done = _run(tmp_path / "no traces", tmp_path / "results", docs, "lindsay")
    assert done.returncode == 1
    assert "reproduction-lindsay.md: no generated block 'statements'" in done.stderr
    assert page.read_text() == "# Lindsay, written by hand only\n"


@pytest.mark.slow
def test_a_cached_paper_gives_computed_verdicts(traces: Path, tmp_path: Path) -> None:
    # Fill Lindsay's cache for one trace (12 simulations), then report from it: the statements
    # about that trace are now checked, with figures, and the rest say which traces are missing.
    cache = tmp_path / "results" / "lindsay"
    fill = [
        sys.executable,
        str(ROOT / "benchmarks" / "reproduction" / "lindsay" / "reproduce_lindsay.py"),
        "--traces",
        "KTH-SP2-1996-2",
    ]
    fill += ["--priorities", "fcfs", "sjf", "wjf", "ljf", "njf", "--cache", str(cache), "--workers", "2"]
    env = {**os.environ, ALLOW_DIRTY: "1"}  # a throwaway cache: a checkout being edited may fill it
    done = subprocess.run(fill, capture_output=True, text=True, timeout=900, check=False, env=env)
    assert done.returncode == 0, done.stderr
    docs = _docs(tmp_path)
    done = _run(traces, tmp_path / "results", docs, "lindsay")
    assert done.returncode == 0, done.stderr
    text = (docs / "reproduction.md").read_text()
    (counts,) = _summary(text).values()
    assert counts[0] > counts[1 + VERDICTS.index("not checkable")]
    assert "KTH-SP2" in text.split("## Lindsay", 1)[1]
    assert re.search(r"[+-]\d+\.\d %", text.split("## Lindsay", 1)[1])


def test_the_committed_pages_are_what_the_committed_results_give(tmp_path: Path) -> None:
    # What a reader gets from a fresh clone: --cached rewrites every reproduction page from the
    # committed results alone (no trace is read), and the pages in the repository are exactly that.
    docs = _docs(tmp_path)
    done = _run(tmp_path / "no traces", ROOT / "benchmarks" / "reproduction", docs)
    assert done.returncode == 0, done.stderr
    pages = sorted(page.name for page in docs.glob("reproduction*.md"))
    assert len(pages) == 1 + len(PAPERS)
    stale = [name for name in pages if (docs / name).read_text() != (ROOT / "docs" / name).read_text()]
    assert not stale, f"rewrite them with `python benchmarks/reproduction/reproduce.py --cached`: {stale}"


@pytest.mark.parametrize("paper", PAPERS)
def test_every_verdict_comes_from_a_stated_rule(paper: str) -> None:
    # The summary's table of rules is the record of the rules the checks applied; a verdict typed in
    # or decided by a rule that records nothing would be missing from it.
    reproduce = importlib.import_module("reproduce")
    module = reproduce._load(paper)
    rules_used()
    checks = module.checks(
        ROOT / "no traces", ROOT / "benchmarks" / "reproduction" / paper, workers=1, run=False
    )
    decided = [check for check in checks if check.verdict != "not checkable"]
    assert sum(rules_used().values()) == len(decided)


def test_the_summary_states_the_rules_per_paper() -> None:
    text = (ROOT / "docs" / "reproduction.md").read_text()
    block = text.split("## How the verdicts are reached", 1)[1].split("\n## ", 1)[0]
    assert MOST in block and EVERY in block
    summary = _summary(text)
    header = next(line for line in block.splitlines() if line.startswith("| when a claim holds"))
    assert header.count("|") - 2 == len(summary)


def test_the_committed_results_are_small_stamped_json() -> None:
    results = ROOT / "benchmarks" / "reproduction"
    files = sorted(results.rglob("*.json"))
    assert files, "no committed reproduction results"
    # Beside the results are the scripts and their notes, and after a full local run per-job arrays
    # (.npz, ignored by git).
    others = {p.suffix for p in results.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert others - {".json"} <= {".py", ".md", ".npz"}
    assert {path.relative_to(results).parts[0] for path in files} == set(PAPERS)
    for path in files:
        assert path.stat().st_size < 100_000, path
        stamp = json.loads(path.read_text())["measured"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", stamp["date"]), path
        assert stamp["code"], path
        assert not stamp["code"].endswith("-dirty"), f"{path}: measured with uncommitted code"


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git checkout with one commit of one tracked file, and no permission to stamp dirty results."""
    monkeypatch.delenv(ALLOW_DIRTY, raising=False)
    repo = tmp_path / "checkout"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "code.py").write_text("x = 1\n")
    _git(repo, "add", "code.py")
    _git(repo, "commit", "-q", "-m", "one")
    return repo


def test_a_clean_checkout_is_stamped_with_its_commit(checkout: Path) -> None:
    (checkout / "new result.json").write_text("{}")  # untracked files leave the checkout clean
    stamp = measured_stamp(checkout)
    assert stamp["code"] == _git(checkout, "rev-parse", "--short=7", "HEAD")


def test_a_dirty_checkout_is_refused_unless_allowed(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (checkout / "code.py").write_text("x = 2\n")
    with pytest.raises(BackfillError, match=r"uncommitted changes.*--allow-dirty"):
        measured_stamp(checkout)
    monkeypatch.setenv(ALLOW_DIRTY, "0")
    with pytest.raises(BackfillError, match="uncommitted changes"):
        measured_stamp(checkout)
    monkeypatch.setenv(ALLOW_DIRTY, "1")
    assert measured_stamp(checkout)["code"].endswith("-dirty")


def test_outside_a_checkout_the_code_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_DIRTY, raising=False)
    assert measured_stamp(tmp_path)["code"] == "unknown"


def test_lindsays_upper_bounds_met_by_doing_less_are_not_checkable() -> None:
    # §4.3 bounds the events PC examines and its time per job; our PC skips searches, so it meets
    # both whatever a literal PC would do.
    rows = [
        line for line in (ROOT / "docs" / "reproduction.md").read_text().splitlines() if "| §4.3 |" in line
    ]
    bounds = [row for row in rows if "at most 43 times" in row or "under 0.4 s per job" in row]
    assert len(bounds) == 2
    assert all(row.split(" | ")[3] == "not checkable" for row in bounds)


def test_reproduce_refuses_to_run_from_a_dirty_checkout(tmp_path: Path) -> None:
    # The script checks before any cell runs; this checkout is dirty only when someone is editing it,
    # so the check is made on a copy of the scripts inside a throwaway checkout.
    repo = tmp_path / "repo"
    shutil.copytree(
        ROOT / "benchmarks", repo / "benchmarks", ignore=shutil.ignore_patterns("*.json", "*.npz")
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "benchmarks")
    _git(repo, "commit", "-q", "-m", "scripts")
    (repo / "benchmarks" / "reproduction" / "reproduce.py").write_text(
        (repo / "benchmarks" / "reproduction" / "reproduce.py").read_text() + "\n"
    )
    docs = _docs(tmp_path)
    command = [
        sys.executable,
        str(repo / "benchmarks" / "reproduction" / "reproduce.py"),
        "--trace-dir",
        str(tmp_path),
    ]
    command += ["--results", str(tmp_path / "results"), "--docs", str(docs), "--papers", "tsafrir"]
    env = {key: value for key, value in os.environ.items() if key != ALLOW_DIRTY}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, env=env)
    assert done.returncode == 2, done.stderr
    assert "uncommitted changes" in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "results").exists()
