"""Write ``docs/reproduction.md``: every paper's checkable statements beside what we measure.

One command for the whole reproduction report. For each of the five papers it calls the ``checks``
function of that paper's reproduction script, which runs whatever cells are missing from the script's
cache (simulations, fair start times) and turns the results into rows: the paper's statement with its
value or direction, ours, a verdict and why they differ. It adds the traces' published job counts,
shares of jobs with estimates and Srinivasan's category shares beside ours. Usage::

    python benchmarks/reproduce.py                    # run what is missing, then write the report
    python benchmarks/reproduce.py --cached           # write from the caches only, run nothing
    python benchmarks/reproduce.py --papers lindsay jin --output report.md

From empty caches the full run takes many hours on two cores, almost all of it the Rajbhandary fair
start times (docs/reproduction-rajbhandary.md gives the costs); every cell is cached as it finishes,
so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

from _common import DEFAULT_TRACE_DIR, ROOT, TRACE_STEMS, VERDICTS, Check, markdown

from backfill import BackfillError, read_swf

DEFAULT_RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_OUTPUT = ROOT / "docs" / "reproduction.md"

#: Each paper's key (its cache folder under ``--results``) and the module holding its ``checks``.
PAPERS: dict[str, str] = {
    "lindsay": "_checks_lindsay",
    "rajbhandary": "_checks_rajbhandary",
    "srinivasan": "_checks_srinivasan",
    "vasupongayya": "reproduce_vasupongayya",
    "jin": "_checks_jin",
}

#: The traces as Lindsay et al. (2013) Fig. 4 list them: file, jobs after their cleaning, percent of
#: jobs with a user estimate. Rajbhandary et al. (2013) Fig. 3 gives the same files and job counts
#: for the traces the two share. Only the traces we have are listed.
PUBLISHED_TRACES: dict[str, tuple[str, int, float]] = {
    "CTC-SP2": ("CTC-SP2-1996-2.1-cln", 77_222, 99.99),
    "DAS2-fs1": ("DAS2-fs1-2003-1", 39_348, 100.0),
    "HPC2N": ("HPC2N-2002-1.1-cln", 202_876, 100.0),
    "KTH-SP2": ("KTH-SP2-1996-2", 28_489, 100.0),
    "LANL-CM5": ("LANL-CM5-1994-3.1-cln", 122_057, 90.75),
    "LLNL-Atlas": ("LLNL-Atlas-2006-1.1-cln", 38_143, 84.85),
    "LLNL-Thunder": ("LLNL-Thunder-2007-1.1-cln", 118_754, 32.47),
    "LPC-EGEE": ("LPC-EGEE-2004-1.2-cln", 220_679, 100.0),
    "SDSC-BLUE": ("SDSC-BLUE-2000-3.1-cln", 223_669, 100.0),
    "SDSC-DS": ("SDSC-DS-2004-1", 85_006, 100.0),
    "SDSC-SP2": ("SDSC-SP2-1998-3.1-cln", 54_041, 99.94),
}

_INTRO = """\
# Reproduction report

Every statement of the five papers `backfill` implements that our traces (`../shared/traces`) can
check, beside what we measure. This page is written by one command; do not edit it by hand:

```sh
python benchmarks/reproduce.py            # runs the missing cells (hours from scratch), then writes this page
python benchmarks/reproduce.py --cached   # rewrites this page from the cached results, in about a minute
```

Each paper has its own page with the full tables, the set-up and the cost of its runs; this page
gathers the statements. "Ours" is computed from the cached results, and so is the verdict:
**holds** when the statement holds on all cases or at least three quarters of them (traces, months,
seeds), **partly** when it holds on at least half, **differs** otherwise, and **not checkable**
when the cells it needs are not there. Percent improvements are `(baseline - other) / baseline`,
positive is better, unless a row says otherwise.
"""


def _load(key: str) -> ModuleType:
    # The paper modules sit beside this script, already on sys.path (the `_common` import needs it).
    return importlib.import_module(PAPERS[key])


def trace_rows(trace_dir: Path) -> list[list[str]]:
    """One row per trace: the papers' file and job count beside ours, and the share with estimates."""
    rows = []
    for name, (paper_file, jobs, estimated) in PUBLISHED_TRACES.items():
        stem = TRACE_STEMS[name]
        path = trace_dir / f"{stem}.swf.gz"
        if not path.exists():
            rows.append([name, paper_file, stem, f"{jobs:,}", "trace missing", f"{estimated:.2f}", "-"])
            continue
        workload, report = read_swf(path)
        kept = len(workload)
        ours = 100.0 * (1.0 - report.altered.get("estimate_from_runtime", 0) / kept) if kept else 0.0
        count = f"{kept:,}" + ("" if kept == jobs else f" ({kept - jobs:+,})")
        rows.append([name, paper_file, stem, f"{jobs:,}", count, f"{estimated:.2f}", f"{ours:.2f}"])
    return rows


def share_rows(trace_dir: Path) -> list[list[str]]:
    """Srinivasan et al.'s category shares (Tables 3-6) beside ours."""
    srinivasan = _load("srinivasan")
    ours = srinivasan.category_shares(trace_dir)
    rows = []
    for name, published in srinivasan.PUBLISHED_SHARES.items():
        mine = ours.get(name)
        rows.append(
            [
                name,
                " / ".join(f"{x:.2f}" for x in published),
                " / ".join(f"{x:.2f}" for x in mine) if mine else "trace missing",
            ]
        )
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def paper_section(module: ModuleType, checks: list[Check]) -> str:
    """The section of one paper: a link to its page and its checks as a table."""
    counts = Counter(check.verdict for check in checks)
    tally = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
    rows = [[_cell(c.source), _cell(c.statement), _cell(c.ours), c.verdict, _cell(c.why)] for c in checks]
    return "\n".join(
        [
            f"## {module.PAPER}",
            "",
            f"{len(checks)} statements: {tally}. Full tables and set-up: [{module.PAGE}]({module.PAGE}).",
            "",
            markdown(["where", "the paper", "ours", "verdict", "why they differ"], rows, right=5),
        ]
    )


def report(trace_dir: Path, sections: list[tuple[ModuleType, list[Check]]]) -> str:
    """The whole page."""
    summary = []
    for module, checks in sections:
        counts = Counter(check.verdict for check in checks)
        summary.append([module.PAPER, str(len(checks)), *(str(counts[v]) for v in VERDICTS)])
    parts = [
        _INTRO,
        "## Summary\n",
        markdown(["paper", "statements", *VERDICTS], summary),
        "\n## The traces\n",
        "The papers' trace files and job counts (Lindsay et al. Fig. 4; Rajbhandary et al. Fig. 3 gives",
        "the same counts) beside ours after cleaning with `read_swf`'s default policy, which drops what",
        "the papers drop (partial executions, jobs cancelled before starting, unknown runtimes). Where the",
        "archive now holds a newer version, ours is the newer one; a count in brackets is our difference.",
        "CTC-SP2 3.1 declares 338 processors where the version the papers used declared 430.\n",
        markdown(
            ["trace", "papers' file", "our file", "papers' jobs", "our jobs", "papers' % estimated", "our %"],
            trace_rows(trace_dir),
            right=3,
        ),
        "\nSrinivasan et al.'s job categories (Tables 3-6: SN / SW / LN / LW, percent of jobs; short",
        "means at most 1 h, narrow at most 8 processors, 64 on LANL-CM5) beside ours:\n",
        markdown(["trace", "paper", "ours"], share_rows(trace_dir)),
    ]
    parts.extend("\n" + paper_section(module, checks) for module, checks in sections)
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="one cache folder per paper")
    parser.add_argument("--papers", nargs="+", default=list(PAPERS), choices=list(PAPERS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cached", action="store_true", help="use the cached results only, run nothing")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    if not args.trace_dir.is_dir():
        print(f"reproduce: no trace folder at {args.trace_dir}", file=sys.stderr)
        return 2
    sections = []
    for key in args.papers:
        module = _load(key)
        print(f"reproduce: {key}", file=sys.stderr)
        try:
            checks = module.checks(
                args.trace_dir, args.results / key, workers=args.workers, run=not args.cached
            )
        except BackfillError as error:
            print(f"reproduce: {key}: {error}", file=sys.stderr)
            return 1
        sections.append((module, checks))
    args.output.write_text(report(args.trace_dir, sections))
    print(f"reproduce: wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
