"""The tutorial and the how-to guides run as written.

For each page, every fenced block opened with ```python is executed, in page order, in one namespace
per page (a fresh one for each page), with the working directory set to a temporary directory.
Blocks opened with ```py (they need a trace, a cluster address, or run long) and shell blocks are
not executed. Pages added to docs/how-to later are picked up by the glob.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from backfill.schedulers.registry import SCHEDULERS

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = [DOCS / "tutorial.md", *sorted((DOCS / "how-to").glob("*.md"))]

# A block may be indented (inside an admonition or a list); its closing fence has the same indent.
# "python" must be the whole language name: ```py, ```pycon and ```python3 are not executed.
BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)```python(?:[ \t][^\n]*)?\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """Return the (first line number, source) of every ```python block of a page, in page order."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("body")) + 1
        blocks.append((line, textwrap.dedent(match.group("body"))))
    return blocks


def test_the_pattern_finds_only_python_blocks() -> None:
    text = "```py\nskipped = 1\n```\n\n```python\nran = 1\n```\n\n  ```python\n  indented = 1\n  ```\n"
    found = [textwrap.dedent(m.group("body")) for m in BLOCK.finditer(text)]
    assert found == ["ran = 1\n", "indented = 1\n"]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert page.is_file(), f"{page.relative_to(DOCS)} is missing"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__main__"}
    registered = list(SCHEDULERS)
    try:
        for line, source in python_blocks(page):
            # Pad with newlines so that a traceback names the line of the page itself.
            code = compile("\n" * (line - 1) + source, str(page), "exec")
            exec(code, namespace)
    finally:  # a page may register a scheduler of its own; the other tests expect the built-in ones
        for entry in SCHEDULERS:
            if entry not in registered:
                SCHEDULERS.unregister(entry.name)
