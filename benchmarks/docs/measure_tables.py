"""Measure how far each table of the built site overflows its text column, in headless Chromium.

Usage: python benchmarks/docs/measure_tables.py SITE_DIR [--json PATH]

Each built page (``mkdocs build -d SITE_DIR``) that holds a table is opened at 1280 x 900 pixels, the
window the docs promise to fit (``docs/stylesheets/tables.css``), with a script that reports every
``.md-typeset table``'s scroll width against the width of the page's text column. A table wider than
its column is printed as WIDE. ``tests/test_doc_tables.py`` approximates this measure without a browser;
its limit was calibrated against this script's results (NOTES-tables.md). Needs Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

_SCRIPT = """<script>
window.addEventListener('load', function () {
  var out = [];
  var col = document.querySelector('.md-content__inner');
  var width = col ? col.clientWidth : 0;
  document.querySelectorAll('.md-typeset table').forEach(function (t, i) {
    var head = t.querySelector('tr');
    out.push({i: i, scroll: t.scrollWidth, column: width,
              head: head ? head.innerText.slice(0, 80).replace(/\\s+/g, ' ') : ''});
  });
  var pre = document.createElement('pre');
  pre.textContent = 'TABLES-' + 'BEGIN' + JSON.stringify(out) + 'TABLES-' + 'END';  // split: not this line
  document.body.appendChild(pre);
});
</script></body>"""
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--window-size=1280,900",
    "--virtual-time-budget=3000",
    "--dump-dom",
]


def measure(page: Path) -> list[dict[str, Any]] | None:
    """The tables of one built page, or None where Chromium gave no answer."""
    text = page.read_text()
    if "<table" not in text:
        return []
    probe = page.with_name("__probe__" + page.name)  # beside the page, so its relative links resolve
    probe.write_text(text.replace("</body>", _SCRIPT, 1))
    try:
        done = subprocess.run(
            ["chromium", *_FLAGS, probe.as_uri()], capture_output=True, text=True, timeout=120, check=False
        )
    finally:
        probe.unlink()
    found = re.search(r"TABLES-BEGIN(.*?)TABLES-END", done.stdout, re.S)
    return None if found is None else list(json.loads(html.unescape(found.group(1))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--json", type=Path, help="write every table's measure here")
    args = parser.parse_args()
    copy = Path(tempfile.mkdtemp()) / "site"  # probes are written beside pages: not in the user's site
    shutil.copytree(args.site, copy)
    try:
        pages = sorted(copy.rglob("index.html"))
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(measure, pages))
    finally:
        shutil.rmtree(copy.parent)
    rows, wide, failed = [], 0, 0
    for page, tables in zip(pages, results, strict=True):
        where = str(page.relative_to(copy).parent)
        if tables is None:
            failed += 1
            print(f"FAILED {where}")
            continue
        for t in tables:
            rows.append({"page": where, **t})
            if t["scroll"] > t["column"]:
                wide += 1
                head = t["head"][:70]
                print(f"WIDE {where}#{t['i']}: {t['scroll']} px in a {t['column']} px column: {head}")
    print(f"{len(rows)} tables on {len(pages)} pages: {wide} wider than their column; {failed} unmeasured")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if wide or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
