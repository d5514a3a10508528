"""The claims of Lindsay et al. (2013) §4 about the traces themselves (Fig. 4 and the text around it) and
the time of §4.3's worst case, beside what we measure.

The trace figures come from ``cleaning.json``: for each trace of :data:`TRACES` we have, what
:func:`~backfill.read_swf` kept and dropped by reason, and how many of the kept jobs end before their
estimate. It is read once (a few seconds a trace) and kept with the paper's other results.
Rajbhandary et al. (2013) use the same traces and cleaning, and their checks read it as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _common import ONE, TRACE_STEMS, Check, cached_result, judged, verdict_of
from _lindsay_claims import Results
from _lindsay_s4 import missing as missing_trace
from reproduce import PAPER_FILES
from reproduce_lindsay import FIG4, TRACES

from backfill import read_swf

#: The file the cleaning facts are kept in, in the paper's results folder.
CLEANING = "cleaning.json"
#: Fig. 4's traces that we do not have, with its job counts.
_FIG4_MISSING = {"DAS2-fs0": 219_571, "DAS2-fs2": 65_380, "DAS2-fs3": 66_099, "DAS2-fs4": 32_952}


def cleaning_facts(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, Any] | None:
    """Return, by trace name, the data lines of each trace we have, the jobs kept, the jobs dropped by
    reason and the kept jobs that end before their user's estimate (None without ``run`` when not kept).

    Examples:
        >>> cleaning_facts(Path("no-traces"), Path("no-results"), run=False) is None
        True
    """

    def compute() -> dict[str, Any]:
        facts = {}
        for name, stem in TRACES:
            path = trace_dir / f"{stem}.swf.gz"
            if not path.exists():
                continue
            workload, read = read_swf(path)
            records = workload.records
            facts[name] = {
                "lines": read.lines,
                "kept": read.kept,
                "dropped": dict(read.dropped),
                "altered": dict(read.altered),
                "early": int((records["runtime"] < records["estimate"]).sum()),
            }
        return {"traces": facts}

    return cached_result(cache / CLEANING, compute, run=run)


def _same_file(name: str) -> bool:
    """Whether our file of a trace is the very archive file the paper lists."""
    return PAPER_FILES.get(name) == TRACE_STEMS[name]


def _versions(names: list[str]) -> str:
    return ", ".join(f"{n} (ours {TRACE_STEMS[n]}, the paper's {PAPER_FILES[n]})" for n in names)


def fig4_jobs(
    r: Results, figure: str = "Fig. 4", absent: tuple[str, ...] = tuple(_FIG4_MISSING)
) -> tuple[str, str, str] | None:
    """Fig. 4: the job counts after dropping partial executions and jobs cancelled before starting
    (``figure`` and ``absent``: the figure's name and those of its traces we do not have)."""
    if not r.facts:
        return None
    same = [n for n in r.facts if _same_file(n)]
    equal = [n for n in same if r.facts[n]["jobs"] == FIG4[n][0]]
    others = [n for n in r.facts if not _same_file(n)]
    newer_equal = [n for n in others if r.facts[n]["jobs"] == FIG4[n][0]]
    diffs = ", ".join(f"{n} {r.facts[n]['jobs'] - FIG4[n][0]:+,}" for n in others if n not in newer_equal)
    ours = f"equal on {len(equal)} of the {len(same)} traces whose file is the paper's ({', '.join(same)})"
    if others:
        ours += f"; of the {len(others)} newer versions we have, equal on {', '.join(newer_equal) or 'none'}"
        ours += f", not on {diffs}" if diffs else ""
    why = f"{len(absent)} of {figure}'s traces ({', '.join(absent)}) are not among ours. We judge the counts "
    why += (
        "on the paper's own files; the archive has cleaned the others again since: " + _versions(others) + "."
    )
    return ours, verdict_of(len(equal), len(same), most=1.0), why


def fig4_estimates(r: Results) -> tuple[str, str, str] | None:
    """Fig. 4: the percent of each trace's jobs with a user estimate, to the paper's two decimals."""
    if not r.facts:
        return None
    near = {n: abs(fact["estimated"] - FIG4[n][1]) < 0.01 for n, fact in r.facts.items()}
    off = [n for n, ok in near.items() if not ok]
    ours = f"the same to two decimals on {sum(near.values())} of {len(near)} traces"
    ours += "".join(f"; {n} {r.facts[n]['estimated']:.2f} % (paper {FIG4[n][1]:.2f} %)" for n in off)
    newer = [n for n in off if not _same_file(n)]
    why = f"Our files of {', '.join(newer)} are newer versions than the paper's." if newer else ""
    return ours, verdict_of(sum(near.values()), len(near)), why


def sdsc_ds_unknown(facts: dict[str, Any] | None) -> tuple[str, str, str] | None:
    """§4: 8 jobs of SDSC-DS have running time -1 (unknown) and are ignored."""
    if not facts or "SDSC-DS" not in facts["traces"]:
        return None
    unknown = facts["traces"]["SDSC-DS"]["dropped"].get("unknown_runtime", 0)
    ours = f"{unknown} jobs of our SDSC-DS have an unknown runtime; read_swf drops them"
    why = "" if unknown == 8 else f"Our file is a newer version: {_versions(['SDSC-DS'])}."
    return ours, judged(ONE, "holds" if unknown == 8 else "differs"), why


def checks(trace_dir: Path, cache: Path, results: Results, *, run: bool) -> list[Check]:
    """The rows of Fig. 4 and §4's text about the traces, and §4.3's total simulation time."""
    missing = (
        "no kept results yet",
        "not checkable",
        "not attempted, because the trace facts this needs have not been read.",
    )
    facts = cleaning_facts(trace_dir, cache, run=run)
    rows = [
        Check(
            "Fig. 4",
            "Job counts after dropping partial executions (status 2-4) and jobs cancelled before starting, "
            "e.g. CTC-SP2 77,222, KTH-SP2 28,489, LPC-EGEE 220,679",
            *(fig4_jobs(results) or missing),
        ),
        Check(
            "Fig. 4",
            "Percent of jobs with a user estimate, e.g. LANL-CM5 90.75, LLNL-Atlas 84.85, SDSC-SP2 99.94",
            *(fig4_estimates(results) or missing),
        ),
        Check(
            "§4",
            "8 jobs of SDSC-DS have running time -1 (unknown) and are ignored",
            *(sdsc_ds_unknown(facts) or missing),
        ),
        Check(
            "§4",
            "LLNL-uBGL is left out because its waiting time shows almost no variation for any algorithm",
            *(missing_trace("LLNL-uBGL")(results) or missing),
        ),
        Check(
            "§4.3",
            "The worst case (PC, LJF, DAS2-fs0) took under 24 hours of simulation on a laptop",
            *_longest(results),
        ),
    ]
    return rows


def _longest(r: Results) -> tuple[str, str, str]:
    """Our longest PC simulation, beside the paper's day on DAS2-fs0 (a trace we do not have)."""
    runs = [(cell["seconds"], spec, stem) for (stem, spec), cell in r.cells.items() if spec.startswith("PC")]
    why = (
        "not attempted, because DAS2-fs0, the trace of the paper's worst case, is not among our traces; "
        "our longest PC run is shown for scale."
    )
    if not runs:
        return "no kept results yet", "not checkable", why
    seconds, spec, stem = max(runs)
    return f"our longest PC simulation: {seconds:,.1f} s ({spec} on {stem})", "not checkable", why
