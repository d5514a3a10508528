"""The claims of Lindsay et al. (2013, §4) that our traces can check, beside what we measure.

``reproduce.py`` imports :func:`checks`, :func:`tables`, :data:`PAPER` and :data:`PAGE` from here to build
docs/reproduction.md and the generated blocks of docs/reproduction-lindsay.md; the figures come from the
results of ``reproduce_lindsay.py`` (kept, or run when missing). Each claim is one row; the functions that
judge them are in ``_lindsay_claims.py`` (Fig. 5-9) and ``_lindsay_s4.py`` (§4.1, §4.3, Fig. 4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import _lindsay_claims as c
import _lindsay_fig4
import _lindsay_s4 as s
from _common import DEFAULT_TRACE_DIR, TRACE_STEMS, Check
from reproduce_lindsay import CTC_430, DEFAULT_CACHE, TRACES, collect, report, trace_facts

PAPER = 'Lindsay et al. (2013), "Backfilling with guarantees granted upon job submission"'
PAGE = "reproduction-lindsay.md"

_SPECS = ["Conservative", "EASY", *s.GUARANTEED]
#: The other setting of some rows: CTC-SP2 on the machine of the paper's version of the log.
SETTING_430 = "CTC-SP2 read with 430 processors"

_Judge = Callable[[c.Results], c.Found]

#: One row per claim: where in the paper, the claim with the paper's value, and the function judging it.
_CLAIMS: tuple[tuple[str, str, _Judge], ...] = (
    ("Fig. 5", "Mean wait, SJF: PC beats Conservative on every trace except DAS2-fs3", c.f5_pc),
    ("Fig. 5", "Mean wait, SJF: DC beats Conservative on every trace except DAS2-fs3", c.f5_dc),
    (
        "Fig. 5",
        "Mean wait, SJF: DAS2-fs3 is the exception, where PC and DC do not beat Conservative",
        s.missing("DAS2-fs3"),
    ),
    ("Fig. 5", "Mean wait, SJF: PC beats EASY in the majority of cases", c.f5_pc_easy),
    ("Fig. 5", "Mean wait, SJF: DC beats EASY in the majority of cases", c.f5_dc_easy),
    (
        "Fig. 5",
        "LLNL-Thunder is the most notable exception: EASY much better than PC and DC there",
        c.f5_thunder,
    ),
    (
        "Fig. 4, §4.1",
        "LLNL-Thunder has the lowest share of jobs with user estimates, 32.47 %",
        s.s41_thunder_estimates,
    ),
    ("Fig. 5", "Mean wait, SJF: DC generally beats PC", c.f5_dc_pc),
    ("§4.1", "DC-SJF beats both Conservative and EASY on 11 of 15 traces (73 %)", c.s41_dc_best),
    ("§4.1", "DC-SJF is worse than both Conservative and EASY on 1 of 15 traces (7 %)", c.s41_dc_worst),
    ("§4.1", "DC-SJF is worse than EASY alone on 3 of 15 traces (20 %)", c.s41_dc_easy_only),
    (
        "Fig. 6",
        "Top 5 % of waits, SJF: PC beats Conservative except on DAS2-fs3, LANL-CM5 and SDSC-SP2",
        c.f6_pc,
    ),
    (
        "Fig. 6",
        "Top 5 % of waits, SJF: DC beats Conservative except on DAS2-fs3, LANL-CM5 and SDSC-SP2",
        c.f6_dc,
    ),
    (
        "Fig. 6",
        "Top 5 % of waits, SJF: DAS2-fs3 is an exception (PC and DC not better)",
        s.missing("DAS2-fs3"),
    ),
    ("Fig. 6", "Top 5 % of waits, SJF: LANL-CM5 is an exception (PC and DC not better)", c.f6_lanl),
    ("Fig. 6", "Top 5 % of waits, SJF: SDSC-SP2 is an exception (PC and DC not better)", c.f6_sdsc),
    ("Fig. 6", "Top 5 % of waits, SJF: against EASY a similar picture, PC ahead in most cases", c.f6_pc_easy),
    ("Fig. 6", "Top 5 % of waits, SJF: against EASY a similar picture, DC ahead in most cases", c.f6_dc_easy),
    ("Fig. 6", "Top 5 % of waits, SJF: LLNL-Thunder again the outlier, where EASY leads", c.f6_thunder),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly better (PC and DC) on DAS2-fs2", s.missing("DAS2-fs2")),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly better (PC and DC) on DAS2-fs4", s.missing("DAS2-fs4")),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly better (PC and DC) on LLNL-Atlas", c.f7_atlas),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly better (PC and DC) on LPC-EGEE", c.f7_lpc),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly worse (PC and DC) on LANL-CM5", c.f7_lanl),
    ("Fig. 7", "Top 1 % of waits, SJF: significantly worse (PC and DC) on SDSC-SP2", c.f7_sdsc),
    ("Fig. 7", "Top 1 % of waits, SJF: comparable (within 10 %) or mixed on the other traces", c.f7_others),
    (
        "Fig. 8",
        "Widest 10 %, WJF: PC beats Conservative on every trace (LPC-EGEE left out) except LLNL-Thunder",
        c.f8_pc,
    ),
    (
        "Fig. 8",
        "Widest 10 %, WJF: DC beats Conservative on every trace (LPC-EGEE left out) except LLNL-Thunder",
        c.f8_dc,
    ),
    ("Fig. 8", "Widest 10 %, WJF: the improvement on DAS2-fs3 is negligible", s.missing("DAS2-fs3")),
    ("Fig. 8", "Widest 10 %, WJF: on LLNL-Thunder PC and DC do not beat Conservative", c.f8_thunder),
    ("Fig. 8", "LPC-EGEE is left out since each of its jobs requests a single processor", c.f8_lpc),
    ("Fig. 8", "Widest 10 %, WJF: it is unclear which of PC and DC is preferable", c.f8_which),
    ("Fig. 8", "Widest 10 %, WJF: PC also beats EASY", c.f8_pc_easy),
    ("Fig. 8", "Widest 10 %, WJF: DC also beats EASY", c.f8_dc_easy),
    ("Fig. 9", "Mean wait of all jobs, WJF: mixed, but not consistently bad", c.f9_mixed),
    ("Fig. 9", "Mean wait of all jobs, WJF: the negative values are of fairly small magnitude", c.f9_small),
    (
        "§4.1",
        "Of 150 combinations of trace, algorithm and priority (FCFS, WJF, LJF, SJF, NJF), 49 (33 %) have a "
        "worse mean wait than Conservative",
        s.s41_share,
    ),
    ("§4.1", "Most of the differences are small: generally under 10 %", s.s41_under10),
    ("§4.1", "Many of the differences are under 2 %", s.s41_under2),
    ("§4.1", "A majority of the big improvements are those of Fig. 5 (SJF)", s.s41_gains),
    ("§4.1", "The significantly negative values come generally with LJF or WJF", s.s41_losses),
    ("§4.1", "The worst single value is -38 %, DC with LJF", s.s41_worst),
    (
        "§4.3",
        "PC examines up to nearly 580 times as many profile events as Conservative (LJF on DAS2-fs0)",
        s.s43_max,
    ),
    (
        "§4.3",
        "On DAS2-fs3 PC examines 72 times as many profile events as Conservative",
        s.missing("DAS2-fs3"),
    ),
    ("§4.3", "On HPC2N PC examines 127 times as many profile events as Conservative", s.s43_hpc2n),
    (
        "§4.3",
        "On every trace but DAS2-fs0, HPC2N and DAS2-fs3, PC examines at most 43 times as many events",
        s.s43_others,
    ),
    ("§4.3", "Even in the worst case, scheduling takes under 0.4 s per job", s.s43_time),
)

#: The claims also judged with CTC-SP2 read with 430 processors: those with SJF over every trace (Fig. 5-7
#: and §4.1's DC-SJF), which CTC-SP2's load bears on most, and §4.1's share of worse combinations.
_ON_430 = (
    c.f5_pc,
    c.f5_dc,
    c.f5_pc_easy,
    c.f5_dc_easy,
    c.f5_thunder,
    c.f5_dc_pc,
    c.s41_dc_best,
    c.s41_dc_worst,
    c.s41_dc_easy_only,
    c.f6_pc,
    c.f6_dc,
    c.f6_thunder,
    c.f7_others,
    s.s41_share,
)


def _results(trace_dir: Path, cache: Path, *, workers: int, run: bool) -> tuple[c.Results, dict[str, Any]]:
    """The kept results (running the missing ones with ``run``), and the cells of the 430 setting."""
    stems = [stem for _, stem in TRACES]
    cells = collect(trace_dir, [*stems, CTC_430], _SPECS, cache, workers, run=run)
    facts = trace_facts(trace_dir, cache, run=run) or {"traces": {}}
    ctc430 = {spec: cell for (stem, spec), cell in cells.items() if stem == CTC_430}
    return c.Results(cells, facts["traces"], ctc430), facts


def _on_430(results: c.Results) -> c.Results | None:
    """The same results with CTC-SP2's cells replaced by those read with 430 processors, if all are kept."""
    if len(results.ctc430) < len(_SPECS):
        return None
    ctc = TRACE_STEMS["CTC-SP2"]
    cells = {key: cell for key, cell in results.cells.items() if key[0] not in (ctc, CTC_430)}
    cells.update({(ctc, spec): cell for spec, cell in results.ctc430.items()})
    return c.Results(cells, results.facts, on_430=True)


def checks(
    trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE, *, workers: int = 2, run: bool = True
) -> list[Check]:
    """Return the claims of Lindsay et al. (2013, §4) that our traces can check, beside our figures.

    Args:
        trace_dir: Folder of the Parallel Workloads Archive traces.
        cache: Folder of the kept results, one JSON file per trace and scheduler, and ``traces.json``.
        workers: Processes that simulate the missing cells when ``run`` is true.
        run: Simulate the cells missing from ``cache`` (every trace, with all five priorities of §4.1,
            and CTC-SP2 read with 430 processors); when false, use only what is kept.

    Returns:
        One :class:`Check` per claim in the paper's setting, then the claims judged again with CTC-SP2
        read with 430 processors.
    """
    results, _ = _results(trace_dir, cache, workers=workers, run=run)
    missing = (
        "no kept results yet",
        "not checkable",
        "not attempted, because the simulations this needs have not been run.",
    )
    rows = [Check(source, claim, *(judge(results) or missing)) for source, claim, judge in _CLAIMS]
    rows += _lindsay_fig4.checks(trace_dir, cache, results, run=run)
    on_430 = _on_430(results)
    for source, claim, judge in _CLAIMS:
        if judge in _ON_430:
            found = (judge(on_430) if on_430 else None) or missing
            rows.append(Check(source, claim, *found, setting=SETTING_430))
    return rows


def tables(trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE) -> str:
    """Return the page's tables, from the kept results only (``reproduce.py`` puts them in the page)."""
    results, facts = _results(trace_dir, cache, workers=1, run=False)
    return report(results.cells, list(s.PRIORITIES), facts if facts["traces"] else None)
