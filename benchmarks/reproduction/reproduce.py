"""Write the reproduction report: ``docs/reproduction.md`` and the generated parts of each paper's page.

One command for the whole reproduction report. For each of the seed papers (the five whose
algorithms ``backfill`` implements), and for the one paper beyond them that is reproduced as well
(Tsafrir et al. 2007, EASY++), it calls the ``checks`` function of that paper's reproduction script,
which runs whatever cells are missing from the paper's results (simulations, fair start times) and turns
them into rows: the paper's statement with its value or direction, ours, a verdict and why they differ.
``docs/reproduction.md`` gathers every paper's rows, with the traces' published job counts and
Srinivasan's category shares beside ours, and the day and commit each paper's results were measured
with. Each paper's page (``docs/reproduction-<paper>.md``) is written by hand except two blocks this
command rewrites: the paper's rows (``statements``) and its full tables (``tables``). Usage::

    python benchmarks/reproduction/reproduce.py           # run what is missing, then write the pages
    python benchmarks/reproduction/reproduce.py --cached  # write from the kept results only, run nothing
    python benchmarks/reproduction/reproduce.py --papers lindsay jin --docs ../scratch-docs  # a copy of docs/

The results are small JSON files under ``benchmarks/reproduction/<paper>/``, committed, so ``--cached``
rewrites every page from a fresh clone in about a minute without the traces. From empty results the
full run takes hours on two cores, most of it the Rajbhandary fair start times; every cell is kept as
it finishes, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import (
    ALLOW_DIRTY,
    DEFAULT_TRACE_DIR,
    NOT_JUDGED,
    RESULTS,
    ROOT,
    TRACE_STEMS,
    VERDICTS,
    Check,
    load_result,
    markdown,
    measured_stamp,
    provenance,
    rules_used,
)

from backfill import BackfillError

DEFAULT_DOCS = ROOT / "docs"

#: Each paper's key (its cache folder under ``--results``) and the module holding its ``checks``.
PAPERS: dict[str, str] = {
    "lindsay": "_checks_lindsay",
    "rajbhandary": "_checks_rajbhandary",
    "srinivasan": "_checks_srinivasan",
    "vasupongayya": "reproduce_vasupongayya",
    "jin": "_checks_jin",
    "tsafrir": "reproduce_tsafrir",
}

#: A paper module with ``BEYOND = True`` is not one of the seed papers (the five ``backfill`` implements): the
#: report summarises it in a table of its own and marks its section so.
_BEYOND_TITLE = "Beyond the seed papers"

#: The archive file each trace was in when Lindsay et al. (2013) Fig. 4 listed it (Rajbhandary et al.
#: (2013) Fig. 3 gives the same files); their job counts and shares with estimates are
#: ``reproduce_lindsay.FIG4``. Only the traces we have are listed.
PAPER_FILES: dict[str, str] = {
    "CTC-SP2": "CTC-SP2-1996-2.1-cln",
    "DAS2-fs1": "DAS2-fs1-2003-1",
    "HPC2N": "HPC2N-2002-1.1-cln",
    "KTH-SP2": "KTH-SP2-1996-2",
    "LANL-CM5": "LANL-CM5-1994-3.1-cln",
    "LLNL-Atlas": "LLNL-Atlas-2006-1.1-cln",
    "LLNL-Thunder": "LLNL-Thunder-2007-1.1-cln",
    "LPC-EGEE": "LPC-EGEE-2004-1.2-cln",
    "SDSC-BLUE": "SDSC-BLUE-2000-3.1-cln",
    "SDSC-DS": "SDSC-DS-2004-1",
    "SDSC-SP2": "SDSC-SP2-1998-3.1-cln",
}

#: The alt text of the summary's figure, drawn by ``docs/_hooks/guide.py`` (``GUIDE_FIGURES`` has it too).
VERDICTS_ALT = "Each reproduced paper's claims by verdict, from the report's summary tables"

_INTRO = """\
# Reproduction report

Every claim of the seed papers, the five papers whose algorithms `backfill` implements (Lindsay et
al. 2013; Rajbhandary, Bunde and Leung 2013; Srinivasan et al. 2002; Vasupongayya; Jin 2009), one
row each, beside what we measure on the Parallel Workloads Archive traces. The traces are read from
a folder `shared/traces` beside the checkout, or from the folder `--trace-dir` names. This page is
written by one command; do not edit it by hand:

```sh
python benchmarks/reproduction/reproduce.py           # runs the missing cells (hours), then the pages
python benchmarks/reproduction/reproduce.py --cached  # the pages from the committed results, in a minute
```

Each paper has its own page with the full tables, the set-up and the cost of its runs; this page
gathers the claims. "Ours" is computed from the committed results, and so is the verdict. A claim
made of many cases (traces, months, seeds) **holds** when all cases or at least three quarters of
them agree, is **partly** true when at least half do, and **differs** otherwise; a claim about every
case, one fact, a value or a word such as "many" is judged as its wording reads, by the rules listed
under [How the verdicts are reached](#how-the-verdicts-are-reached), which are the ones the code
applied. **Not checkable** means the cells it needs are not there, our traces cannot test it, or
meeting it would tell nothing, as for an upper bound on time or work that our code meets because
it does less; its row says which, beginning "not attempted, because" where we did not try (a trace
we do not have, a run not made, a text not retrieved) and "not checkable, because" where we
measured and the measure cannot judge the claim. Each claim is judged in the paper's own setting;
where we also measured it in another (other traces, estimates or loads), that row is labelled
"other setting" and counted apart. Where the paper's own trace is not public and another archive
trace stands for it, its claims are judged on that **stand-in trace** and counted in a table of
their own, apart from the claims judged in the paper's own setting. Percent improvements are
`(baseline - other) / baseline`, positive is better, unless a row says otherwise.

One paper **beyond the seed papers** is reproduced as well, in its own summary table and section:
Tsafrir, Etsion and Feitelson (2007), whose EASY++ the library can build from its runtime
predictors. Only that paper's abstract could be retrieved, so its rows judge the abstract's
directions, never its figures.
"""


def _load(key: str) -> ModuleType:
    # The paper modules sit beside this script, already on sys.path (the `_common` import needs it).
    return importlib.import_module(PAPERS[key])


def trace_rows(trace_dir: Path, results: Path, *, run: bool) -> list[list[str]]:
    """One row per trace: the papers' file and job count beside ours, and the share with estimates
    (our figures are the Lindsay reproduction's trace facts, kept with its results)."""
    lindsay = importlib.import_module("reproduce_lindsay")
    facts = lindsay.trace_facts(trace_dir, results / "lindsay", run=run)
    known = {} if facts is None else facts["traces"]
    rows = []
    for name, paper_file in PAPER_FILES.items():
        jobs, estimated = lindsay.FIG4[name]
        stem = TRACE_STEMS[name]
        if name not in known:
            rows.append([name, paper_file, stem, f"{jobs:,}", "not measured", f"{estimated:.2f}", "-"])
            continue
        kept = known[name]["jobs"]
        count = f"{kept:,}" + ("" if kept == jobs else f" ({kept - jobs:+,})")
        ours = known[name]["estimated"]
        rows.append([name, paper_file, stem, f"{jobs:,}", count, f"{estimated:.2f}", f"{ours:.2f}"])
    return rows


def share_rows(trace_dir: Path, results: Path, *, run: bool) -> list[list[str]]:
    """Srinivasan et al.'s category shares (Tables 3-6) beside ours."""
    srinivasan = _load("srinivasan")
    ours = srinivasan.category_shares(trace_dir, results / "srinivasan", run=run) or {}
    rows = []
    for name, published in srinivasan.PUBLISHED_SHARES.items():
        mine = ours.get(name)
        rows.append(
            [
                name,
                " / ".join(f"{x:.2f}" for x in published),
                " / ".join(f"{x:.2f}" for x in mine) if mine else "not measured",
            ]
        )
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _where(check: Check) -> str:
    return _cell(check.source + (f" (other setting: {check.setting})" if check.setting else ""))


def _claims(checks: list[Check]) -> list[Check]:
    """The checks judged in the paper's own setting, on its own traces."""
    return [check for check in checks if not check.setting and not check.stand_in]


def _stand_ins(checks: list[Check]) -> list[Check]:
    """The checks of the paper's claims judged on a trace standing for the paper's own."""
    return [check for check in checks if not check.setting and check.stand_in]


def _stand_in_names(checks: list[Check]) -> str:
    return "; ".join(sorted({check.stand_in for check in checks}))


def _verdicts(checks: list[Check]) -> str:
    counts = Counter(check.verdict for check in checks)
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def statements_table(checks: list[Check]) -> str:
    """A paper's checks as a table: one row per claim, with its verdict; rows in another setting than
    the paper's are labelled so in the first column."""
    rows = [[_where(c), _cell(c.statement), _cell(c.ours), c.verdict, _cell(c.why)] for c in checks]
    return markdown(["where", "the paper", "ours", "verdict", "why they differ"], rows, right=5)


def tally(checks: list[Check]) -> str:
    """How many claims, how many of each verdict, and how many rows in other settings:
    "21 claims: 13 holds, 7 partly, 1 not checkable; 3 rows in other settings". Claims judged on a
    stand-in trace are counted apart: "66 claims on a stand-in trace (SDSC-SP2 for ...): ..."."""
    claims, stand_ins = _claims(checks), _stand_ins(checks)
    parts = []
    if claims or not stand_ins:
        parts.append(f"{len(claims)} claims: " + _verdicts(claims))
    if stand_ins:
        where = _stand_in_names(stand_ins)
        parts.append(f"{len(stand_ins)} claims on a stand-in trace ({where}): " + _verdicts(stand_ins))
    extra = len(checks) - len(claims) - len(stand_ins)
    return "; ".join(parts) + (f"; {extra} rows in other settings" if extra else "")


def _beyond(module: ModuleType) -> bool:
    return bool(getattr(module, "BEYOND", False))


def paper_section(module: ModuleType, checks: list[Check]) -> str:
    """The section of one paper: a link to its page and its checks as a table; a paper beyond the
    seed papers is marked so in its heading."""
    return "\n".join(
        [
            f"## {_BEYOND_TITLE + ': ' if _beyond(module) else ''}{module.PAPER}",
            "",
            f"{tally(checks)}. Full tables and set-up: [{module.PAGE}]({module.PAGE}).",
            "",
            statements_table(checks),
        ]
    )


def provenance_rows(results: Path, papers: list[str]) -> list[list[str]]:
    """For each paper, how many results its figures come from, when they were measured and with
    which code (the commits that wrote them, with how many each)."""
    rows = []
    for key in papers:
        module = _load(key)
        found = [load_result(path) for path in sorted((results / key).glob("*.json"))]
        count, span, codes = provenance(found)
        rows.append([_short(module), span, codes, str(count)])
    return rows


def _short(module: ModuleType) -> str:
    return str(module.PAPER).split(",")[0].split(" (")[0]


def rules_table(rules: dict[str, Counter[str]]) -> str:
    """Which rule decided how many verdicts of each paper (all its rows, other settings included), as
    the checks applied them; the rule most claims use first, and last the rows no rule decided (not
    checkable, counted under :data:`_common.NOT_JUDGED`), so that each paper's column sums to its rows."""
    keys = list(rules)
    total = Counter[str]()
    for used in rules.values():
        total.update({rule: n for rule, n in used.items() if rule != NOT_JUDGED})
    order = [rule for rule, _ in total.most_common()]
    if any(used[NOT_JUDGED] for used in rules.values()):
        order.append(NOT_JUDGED)
    rows = [[_cell(rule), *(str(rules[key][rule] or "") for key in keys)] for rule in order]
    return markdown(["when a claim holds", *(_short(_load(key)) for key in keys)], rows)


def rules_of(checks: list[Check], used: Counter[str]) -> Counter[str]:
    """The rules that decided a paper's verdicts (``used``, as :func:`_common.rules_used` read them after
    its checks), with its rows that no rule decided (not checkable) under :data:`_common.NOT_JUDGED`.

    Raises:
        BackfillError: The count does not add up to the paper's rows: some verdict was decided by no
            rule, or by two, and the table would not say how every row was judged.
    """
    counted = Counter(used)
    unjudged = sum(check.verdict == "not checkable" for check in checks)
    if unjudged:
        counted[NOT_JUDGED] += unjudged
    if sum(counted.values()) != len(checks):
        raise BackfillError(
            f"the rules counted {sum(counted.values())} verdicts ({sum(used.values())} by a rule, {unjudged} "
            f"not checkable) for {len(checks)} rows: each verdict must be decided by exactly one rule"
        )
    return counted


def report(
    trace_dir: Path,
    results: Path,
    sections: list[tuple[str, list[Check]]],
    *,
    run: bool,
    rules: dict[str, Counter[str]] | None = None,
) -> str:
    """The whole page; ``rules`` are the rules each paper's verdicts came from (see :func:`rules_table`)."""
    summary: list[list[str]] = []
    beyond: list[list[str]] = []
    stand_in: list[list[str]] = []
    for key, checks in sections:
        claims, stand_ins = _claims(checks), _stand_ins(checks)
        extra = str(len(checks) - len(claims) - len(stand_ins))
        module = _load(key)
        if claims or not stand_ins:
            counts = Counter(check.verdict for check in claims)
            row = [module.PAPER, str(len(claims)), *(str(counts[v]) for v in VERDICTS), extra]
            (beyond if _beyond(module) else summary).append(row)
            extra = "0"
        if stand_ins:
            counts = Counter(check.verdict for check in stand_ins)
            row = [module.PAPER, _cell(_stand_in_names(stand_ins)), str(len(stand_ins))]
            stand_in.append([*row, *(str(counts[v]) for v in VERDICTS), extra])
    header = ["paper", "claims", *VERDICTS, "rows in other settings"]
    parts = [_INTRO, "## Summary\n", markdown(header, summary)]
    if stand_in:
        parts += [
            "\nJudged on a stand-in trace, the paper's own trace not being public: these claims are not",
            "judged in the paper's own setting and are counted apart:\n",
            markdown(
                ["paper", "stand-in trace", "claims", *VERDICTS, "rows in other settings"], stand_in, right=2
            ),
        ]
    if beyond:
        parts += [
            f"\n{_BEYOND_TITLE}, not one of the papers `backfill` implements, counted apart:\n",
            markdown(header, beyond),
        ]
    parts += [
        "\nThe same counts in a picture, which this site's build draws from the tables above:\n",
        f"![{VERDICTS_ALT}](figures/verdicts.png)",
    ]
    if rules:
        parts += [
            "\n## How the verdicts are reached\n",
            'Most claims are judged by the rule above. A claim about every case ("on all traces",',
            '"always", "all four") holds only when every case agrees; a claim of one fact, or of a value',
            'or a word ("many", "the majority", "slightly", "especially"), is judged as its wording reads.',
            "Every verdict of every row is decided by one of these rules, counted per paper as the checks",
            "applied them; a row not checkable is decided by none and counted in the last line, so each",
            "paper's column adds up to its rows, claims and rows in other settings together:\n",
            rules_table(rules),
        ]
    parts += [
        "\n## When and with which code\n",
        "Every result the figures come from records the day it was measured and the commit of this",
        "repository that measured it (the scripts refuse to record results measured with uncommitted",
        "changes); the results are the JSON files under `benchmarks/reproduction/`.\n",
        markdown(
            ["paper", "measured", "code", "results"],
            provenance_rows(results, [k for k, _ in sections]),
            right=3,
        ),
        "\n## The traces\n",
        "The papers' trace files and job counts (Lindsay et al. Fig. 4; Rajbhandary et al. Fig. 3 gives",
        "the same counts) beside ours after cleaning with `read_swf`'s default policy, which drops what",
        "the papers drop (partial executions, jobs cancelled before starting, unknown runtimes). Where the",
        "archive now holds a newer version, ours is the newer one; a count in brackets is our difference.",
        "CTC-SP2 3.1 declares 338 processors where the version the papers used declared 430.\n",
        markdown(
            ["trace", "papers' file", "our file", "papers' jobs", "our jobs", "papers' % estimated", "our %"],
            trace_rows(trace_dir, results, run=run),
            right=3,
        ),
        "\nSrinivasan et al.'s job categories (Tables 3-6: SN / SW / LN / LW, percent of jobs; short",
        "means at most 1 h, narrow at most 8 processors, 64 on LANL-CM5) beside ours:\n",
        markdown(["trace", "paper", "ours"], share_rows(trace_dir, results, run=run)),
    ]
    parts.extend("\n" + paper_section(_load(key), checks) for key, checks in sections)
    return "\n".join(parts) + "\n"


#: The generated parts of each paper's page lie between these lines; the rest is written by hand.
_BEGIN = "<!-- written by benchmarks/reproduction/reproduce.py from the results: {} -->"
_END = "<!-- end of {} -->"


def fill_page(text: str, page: str, blocks: dict[str, str]) -> str:
    """Return a paper's page with each generated block replaced by its new text.

    Raises:
        BackfillError: A block's opening or closing line is missing, naming the page and the block.
    """
    for name, body in blocks.items():
        begin, end = _BEGIN.format(name), _END.format(name)
        start = text.find(begin)
        stop = text.find(end, start)
        if start < 0 or stop < 0:
            raise BackfillError(f"{page}: no generated block {name!r} (lines {begin!r} ... {end!r})")
        text = text[: start + len(begin)] + "\n\n" + body.strip("\n") + "\n\n" + text[stop:]
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--results", type=Path, default=RESULTS, help="one results folder per paper")
    parser.add_argument("--papers", nargs="+", default=list(PAPERS), choices=list(PAPERS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cached", action="store_true", help="use the kept results only, run nothing")
    parser.add_argument(
        "--docs", type=Path, default=DEFAULT_DOCS, help="the folder of reproduction.md and the papers' pages"
    )
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="stamp new results <commit>-dirty when the checkout has uncommitted changes (else refused)",
    )
    args = parser.parse_args(argv)
    if not args.cached and not args.trace_dir.is_dir():
        print(f"reproduce: no trace folder at {args.trace_dir}", file=sys.stderr)
        return 2
    if args.allow_dirty:
        os.environ[ALLOW_DIRTY] = "1"
    if not args.cached:
        # Refuse before hours of runs, not at the first result they save.
        try:
            measured_stamp()
        except BackfillError as error:
            print(f"reproduce: {error}", file=sys.stderr)
            return 2
    run = not args.cached
    sections = []
    pages = {}
    rules: dict[str, Counter[str]] = {}
    for key in args.papers:
        module = _load(key)
        print(f"reproduce: {key}", file=sys.stderr)
        cache = args.results / key
        try:
            rules_used()
            checks = module.checks(args.trace_dir, cache, workers=args.workers, run=run)
            rules[key] = rules_of(checks, rules_used())
            blocks = {"statements": tally(checks) + ".\n\n" + statements_table(checks)}
            blocks["tables"] = module.tables(args.trace_dir, cache)
            page = args.docs / module.PAGE
            pages[page] = fill_page(page.read_text(), str(page), blocks)
        except (BackfillError, OSError) as error:
            print(f"reproduce: {key}: {error}", file=sys.stderr)
            return 1
        sections.append((key, checks))
    main_page = args.docs / "reproduction.md"
    main_page.write_text(report(args.trace_dir, args.results, sections, run=run, rules=rules))
    for page, text in pages.items():
        page.write_text(text)
    print(f"reproduce: wrote {main_page} and {len(pages)} papers' pages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
