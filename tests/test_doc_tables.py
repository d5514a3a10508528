"""Every table of the docs' pages fits the text column of a 1280-pixel window, by a cheap estimate.

The site (Material for MkDocs, with ``docs/stylesheets/tables.css``) lays a table out in the text
column, 688 pixels wide in a window 1280 pixels wide. A browser can narrow a column down to its
longest unbreakable word (a number, a trace's name; code in a cell may break anywhere), so a table
overflows when the sum over its columns of that word's width, plus the cell's padding, exceeds the
column. :func:`estimated_width` adds those up from the markdown, in characters times a width per
character, no browser needed.

Calibrated against headless chromium (``--window-size=1280,900``, every built page's
``.md-typeset table`` ``scrollWidth`` against the text column) on the 180 tables of the pages
below: with the constants here the widest table that fit was estimated at 784, the narrowest that
overflowed at 866 (the results-resources table of thirteen columns, chromium 929 px in 688). The
limit sits between them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: Estimated width of a character in a body cell, of one in a header cell, and a cell's padding.
CHAR, HEADER_CHAR, PADDING = 7.0, 6.5, 24.0
#: The widest estimate a table may have: between 784 (fits) and 866 (overflows), see the docstring.
LIMIT = 825.0


def tables(text: str) -> list[list[str]]:
    """Return the markdown tables of a page (outside fenced code), each as its lines."""
    found: list[list[str]] = []
    lines = text.splitlines()
    fenced, i = False, 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fenced = not fenced
        rule = i + 1 < len(lines) and re.fullmatch(r"\|[-:| ]+\|", lines[i + 1].strip())
        if not fenced and lines[i].startswith("|") and rule:
            end = i + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            found.append([lines[i], *lines[i + 2 : end]])
            i = end
            continue
        i += 1
    return found


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _longest_word(cell: str) -> int:
    """Characters of the longest piece of ``cell`` that a browser cannot break."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell).replace("**", "")  # a link shows its text
    text = re.sub(r"`[^`]*`", "x", text)  # code in a cell may break anywhere (tables.css)
    return max((len(word) for word in re.split(r"\s+|(?<=-)", text)), default=0)


def estimated_width(table: list[str]) -> float:
    """Estimate the narrowest width a browser can give ``table`` (its lines, header first).

    Examples:
        >>> estimated_width(["| a | b |", "| 1 | 22 |"])
        69.0
    """
    header, *rows = (_cells(line) for line in table)
    width = 0.0
    for k, title in enumerate(header):
        column = [_longest_word(title) * HEADER_CHAR]
        column += [_longest_word(row[k]) * CHAR for row in rows if k < len(row)]
        width += max(column) + PADDING
    return width


def _pages() -> list[Path]:
    # reference/ pages are mkdocstrings stubs: their tables come from docstrings, not from markdown.
    return [p for p in sorted(DOCS.rglob("*.md")) if "reference" not in p.relative_to(DOCS).parts]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_table_fits_a_1280_pixel_window(page: Path) -> None:
    wide = [
        f"{page.name}: table of {len(_cells(t[0]))} columns headed {t[0][:60]!r}: {estimated_width(t):.0f}"
        for t in tables(page.read_text("utf-8"))
        if estimated_width(t) > LIMIT
    ]
    assert not wide, f"wider than {LIMIT:.0f} (split it, shorten its headers or drop columns): {wide}"


# The results-resources table before it was narrowed (two of its rows; 968 by the estimate): thirteen
# columns, 929 pixels in chromium for a column of 688.
_TOO_WIDE = """\
| scheduler | mean wait (h), processors alone | + memory | change | mean bounded slowdown, processors alone \
| + memory | change | strict unfairness (h), processors alone | + memory | change | relaxed unfairness (h), \
processors alone | + memory | change |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| EASY | 1.37 | 1.37 | 0 % | 9.62 | 9.62 | 0 % | 0.02 | 0.02 | 0 % | 0.02 | 0.02 | 0 % |
| Conservative | 1.71 | 1.71 | +0.0 % | 70.32 | 70.32 | +0.0 % | 0.10 | 0.10 | +0.0 % | 0.05 | 0.05 | +0.1 % |
"""

# A table that fits (the performance page's whole runs, two of its rows; the whole table is the widest
# that fits, 784 by the estimate): chromium laid it out in the 688 pixels of the column.
_FITS = """\
| trace | configuration | path | pure (s) | installed (s) | pure us/job | installed us/job | ratio | target \
| met | identical |
| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| CTC-SP2-1996-3.1-cln | EASY(fcfs, depth=4) | compiled | 6.73 | 0.216 | 87.1 | 2.80 | 31.2x | 6x | yes \
| yes |
| KTH-SP2-1996-2 | EASY(fcfs) | compiled | 0.53 | 0.019 | 18.7 | 0.68 | 27.6x | 6x | yes | yes |
"""


def test_the_estimate_tells_a_table_known_too_wide_from_one_that_fits() -> None:
    (wide,) = tables(_TOO_WIDE)
    (fits,) = tables(_FITS)
    assert estimated_width(wide) > LIMIT > estimated_width(fits)


def test_the_site_uses_the_stylesheet_the_estimate_assumes() -> None:
    # Without it Material gives every header cell at least 5rem (100 px): seven columns overflow.
    config = (DOCS.parent / "mkdocs.yml").read_text("utf-8")
    assert re.search(r"^extra_css:\n  - stylesheets/tables\.css$", config, flags=re.MULTILINE)
    css = (DOCS / "stylesheets" / "tables.css").read_text("utf-8")
    assert "min-width: 0;" in css and "overflow-wrap: anywhere;" in css
