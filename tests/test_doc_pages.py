"""Every docs page and the README run as written.

For each page (``README.md`` and every ``docs/**/*.md``), every fenced block opened with ```python is
executed, in page order, in one namespace per page (a fresh one for each page), with the working
directory set to an empty folder ``project`` beside which ``shared/traces`` leads to the traces, so
``../shared/traces/...`` reads them as it does from a checkout. Shell blocks are not executed.

A block is marked, where a reader sees it (``docs/contributing.md`` says the same):

* ```py instead of ```python: deliberately not run (it needs a cluster, is an excerpt of an example
  run elsewhere, or reads what a shell command wrote); its title or the text before it says why.
* ``<!-- doc-test: slow -->`` on the line before it: it takes more than a second or two; it runs
  only in the slow suite (``python -m pytest -m slow tests/test_doc_pages.py``).
* A block that reads ``../shared/traces`` is slow too (its page's slow test is marked ``trace``), and
  skips with that reason when this checkout has no traces beside it.

A page whose blocks import a package of the integration extra (Dask, pandas, matplotlib, ...) or make a
DataFrame is marked ``integration``: the lean default run leaves it out, and CI runs it with the
extra installed (``python -m pytest -m integration``). While a page that starts a Dask cluster runs,
Dask's default dashboard port is held, as another cluster on the machine may hold it.

The default suite runs each page's blocks up to its first slow one; the slow suite runs every block
of the pages that have one. Pages added later are picked up by the glob.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from pathlib import Path

import pytest
from conftest import INTEGRATION_PACKAGES, TRACES

from backfill.schedulers.registry import SCHEDULERS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# A block may be indented (inside an admonition or a list); its closing fence has the same indent.
# "python" must be the whole language name: ```py, ```pycon and ```python3 are not executed.
BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)```python(?:[ \t][^\n]*)?\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
#: The mark, on the line before a block, of a block that runs only in the slow suite.
SLOW = "<!-- doc-test: slow -->"
#: How a block reads a trace: from the shared folder beside the project.
TRACE = "../shared/traces"


class Block:
    """One ```python block of a page: where it starts, its source, and whether it is slow."""

    def __init__(self, line: int, source: str, marked_slow: bool) -> None:
        self.line = line
        self.source = source
        self.needs_traces = TRACE in source
        self.slow = marked_slow or self.needs_traces


def python_blocks(page: Path) -> list[Block]:
    """Return every ```python block of a page, in page order."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in BLOCK.finditer(text):
        before = text[: match.start()].rstrip().rpartition("\n")[2].strip()
        line = text.count("\n", 0, match.start("body")) + 1
        blocks.append(Block(line, textwrap.dedent(match.group("body")), before == SLOW))
    return blocks


#: What a block does that needs the integration extra: import one of its packages, or make a DataFrame.
INTEGRATION = re.compile(
    r"^\s*(?:import|from) (?:" + "|".join(INTEGRATION_PACKAGES) + r")\b|\.to_dataframe\(", re.MULTILINE
)


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    return [page for page in pages if python_blocks(page)]


PAGES = _pages()
IDS = [str(page.relative_to(ROOT)) for page in PAGES]


def _needs_integration(blocks: list[Block]) -> bool:
    return any(INTEGRATION.search(block.source) for block in blocks)


def _first_part_marks(page: Path) -> list[pytest.MarkDecorator]:
    """The marks of a page's default-run test, which runs its blocks up to the first slow one."""
    blocks = list(itertools.takewhile(lambda block: not block.slow, python_blocks(page)))
    return [pytest.mark.integration] if _needs_integration(blocks) else []


#: The pages with a slow block: the slow suite runs them whole.
SLOW_PAGES = [page for page in PAGES if any(block.slow for block in python_blocks(page))]


def test_the_pattern_finds_only_python_blocks() -> None:
    text = "```py\nskipped = 1\n```\n\n```python\nran = 1\n```\n\n  ```python\n  indented = 1\n  ```\n"
    found = [textwrap.dedent(m.group("body")) for m in BLOCK.finditer(text)]
    assert found == ["ran = 1\n", "indented = 1\n"]


def test_slow_and_trace_blocks_are_recognised(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nfast = 1\n```\n\n<!-- doc-test: slow -->\n```python\nslow = 1\n```\n\n"
        '```python\nread_swf("../shared/traces/X.swf.gz")\n```\n'
    )
    assert [(b.line, b.slow, b.needs_traces) for b in python_blocks(page)] == [
        (2, False, False),
        (7, True, False),
        (11, True, True),
    ]


def test_pages_that_need_the_integration_extra_are_marked(tmp_path: Path) -> None:
    lean, heavy, later = tmp_path / "lean.md", tmp_path / "heavy.md", tmp_path / "later.md"
    lean.write_text("```python\nfrom backfill import simulate\nimport_pandas = 1\n```\n")
    heavy.write_text("```python\nx = 1\n```\n\n```python\nframe = result.to_dataframe()\n```\n")
    later.write_text(
        "```python\nx = 1\n```\n\n<!-- doc-test: slow -->\n```python\nfrom dask import array\n```\n"
    )
    marks = {page.name: [m.name for m in _first_part_marks(page)] for page in (lean, heavy, later)}
    assert marks == {"lean.md": [], "heavy.md": ["integration"], "later.md": []}
    assert _needs_integration(python_blocks(later))


def test_a_trace_block_skips_without_the_traces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text('```python\nran = 1\n```\n\n```python\nopen("../shared/traces/X.swf.gz")\n```\n')
    monkeypatch.setitem(globals(), "TRACES", tmp_path / "absent")
    (tmp_path / "run").mkdir()
    with pytest.raises(pytest.skip.Exception, match=r"page.md:6 reads \.\./shared/traces, and there is no"):
        run_page(page, tmp_path / "run", monkeypatch, slow=True)


def run_page(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, slow: bool) -> None:
    """Execute the page's blocks (up to the first slow one unless ``slow``) as a reader would."""
    project = tmp_path / "project"
    project.mkdir()
    if TRACES.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "traces").symlink_to(TRACES)
    monkeypatch.chdir(project)
    namespace: dict[str, object] = {"__name__": "__main__"}
    registered = list(SCHEDULERS)
    try:
        for block in python_blocks(page):
            if block.slow and not slow:
                break
            if block.needs_traces and not TRACES.is_dir():
                pytest.skip(f"{page.name}:{block.line} reads {TRACE}, and there is no {TRACES}")
            # Pad with newlines so that a traceback names the line of the page itself.
            code = compile("\n" * (block.line - 1) + block.source, str(page), "exec")
            exec(code, namespace)
    finally:  # a page may register a scheduler of its own; the other tests expect the built-in ones
        for entry in SCHEDULERS:
            if entry not in registered:
                SCHEDULERS.unregister(entry.name)


@pytest.fixture
def dask_port(page: Path, request: pytest.FixtureRequest) -> None:
    """Hold Dask's default dashboard port while a page that starts a cluster runs."""
    if any("LocalCluster(" in block.source for block in python_blocks(page)):
        request.getfixturevalue("dask_dashboard_port_taken")


@pytest.mark.usefixtures("dask_port")
@pytest.mark.parametrize(
    "page",
    [pytest.param(page, id=id, marks=_first_part_marks(page)) for page, id in zip(PAGES, IDS, strict=True)],
)
def test_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_page(page, tmp_path, monkeypatch, slow=False)


def _whole(page: Path) -> object:
    """A slow page as a parameter, marked ``trace`` when one of its blocks reads the traces."""
    blocks = python_blocks(page)
    marks = [pytest.mark.trace] if any(block.needs_traces for block in blocks) else []
    marks += [pytest.mark.integration] if _needs_integration(blocks) else []
    return pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


@pytest.mark.slow
@pytest.mark.usefixtures("dask_port")
@pytest.mark.parametrize("page", [_whole(page) for page in SLOW_PAGES])
def test_page_runs_whole(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_page(page, tmp_path, monkeypatch, slow=True)
