"""What the benchmark and reproduction scripts share: where the traces are, markdown tables, and the
reproduction results as small JSON files that record when and with which code they were measured."""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backfill import BackfillError

ROOT = Path(__file__).resolve().parents[1]

#: Every folder of ``benchmarks/``: the speed benchmarks (``speed/``), the resources page
#: (``resources/``), the node machines' page (``nodes/``), the reproduction summary
#: (``reproduction/``) and each paper's reproduction (``reproduction/<paper>/``). The scripts import
#: each other by their file names, which are unique across the folders: a script run by its path puts
#: ``benchmarks/`` on ``sys.path`` to find this module, and importing it puts the other folders there too.
FOLDERS = [
    ROOT / "benchmarks",
    ROOT / "benchmarks" / "speed",
    ROOT / "benchmarks" / "resources",
    ROOT / "benchmarks" / "nodes",
    ROOT / "benchmarks" / "reproduction",
    *sorted(p for p in (ROOT / "benchmarks" / "reproduction").iterdir() if p.is_dir()),
]
sys.path.extend(str(folder) for folder in FOLDERS if str(folder) not in sys.path)

#: The reproduction results the report is written from, one folder per paper: small JSON files, one per
#: cell (a trace under a scheduler, a month, a seed), committed so that ``reproduce.py --cached``
#: rewrites every reproduction page from a fresh clone without running anything.
RESULTS = ROOT / "benchmarks" / "reproduction"

#: The Parallel Workloads Archive traces, by default in a folder ``shared/traces`` beside the
#: checkout (every script takes ``--trace-dir`` for another place).
DEFAULT_TRACE_DIR = ROOT.parent / "shared" / "traces"

#: The file stem of each trace the reproductions use, by the name the papers give it. Where the
#: archive version differs from a paper's, ours is the newer cleaned version.
TRACE_STEMS: dict[str, str] = {
    "CTC-SP2": "CTC-SP2-1996-3.1-cln",
    "DAS2-fs1": "DAS2-fs1-2003-1",
    "HPC2N": "HPC2N-2002-2.1-cln",
    "KTH-SP2": "KTH-SP2-1996-2",
    "LANL-CM5": "LANL-CM5-1994-4.1-cln",
    "LLNL-Atlas": "LLNL-Atlas-2006-2.1-cln",
    "LLNL-Thunder": "LLNL-Thunder-2007-1.1-cln",
    "LPC-EGEE": "LPC-EGEE-2004-1.2-cln",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln",
    "SDSC-DS": "SDSC-DS-2004-2.1-cln",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln",
}


def write_report(text: str, output: Path | None) -> None:
    """Write a report to ``output``, or print it when there is none."""
    if output:
        output.write_text(text)
    else:
        print(text)


def change_text(before: float, after: float) -> str:
    """A measure's change from ``before`` to ``after`` for a results table: ``+3.7 %``, ``0 %``, ``-``."""
    if before == after:
        return "0 %"
    if before == 0:
        return "-"
    return f"{100 * (after - before) / before:+.1f} %"


def markdown(header: list[str], rows: list[list[str]], right: int = 1) -> str:
    """Return a markdown table; columns from ``right`` on are right-aligned."""
    align = ["---" if i < right else "---:" for i in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def markdown_split(
    header: list[str], rows: list[list[str]], groups: list[int], keep: int = 1, right: int = 1
) -> str:
    """Return a wide table as several markdown tables, so that each fits the page.

    The first ``keep`` columns (the rows' keys) begin every table; the other columns follow in groups
    of ``groups[i]`` columns, one table each, in order. ``right`` is as for :func:`markdown`.
    """
    if keep + sum(groups) != len(header):
        raise ValueError(f"{keep} key columns and groups {groups} do not make the {len(header)} columns")
    parts, start = [], keep
    for size in groups:
        columns = [*range(keep), *range(start, start + size)]
        table = [[row[c] for c in columns] for row in rows]
        parts.append(markdown([header[c] for c in columns], table, right))
        start += size
    return "\n\n".join(parts)


#: The verdicts a :class:`Check` may carry.
VERDICTS = ("holds", "partly", "differs", "not checkable")


@dataclass(frozen=True)
class Check:
    """One statement of a paper that our traces can check, beside what we measure.

    Every reproduction script has a ``checks(trace_dir, cache, *, workers, run)`` function that returns
    its paper's checks; ``reproduce.py`` gathers them into ``docs/reproduction.md``. ``ours`` and
    ``verdict`` are computed from the results, never typed in; ``why`` is the explanation that goes
    with the verdict (empty when the statement holds and there is nothing to add).

    A check is one claim of the paper judged in the paper's own setting. Where we also measure the
    claim in another setting (other traces, estimates, loads), that is a further check with ``setting``
    naming it: it is shown labelled and counted apart from the paper's claims. Where the paper's own
    trace is not public and a claim is judged on another that stands for it, ``stand_in`` names the
    substitution ("SDSC-SP2 for the paper's NCSA IA-64"): the claim is then counted as one judged on a
    stand-in trace, apart from those judged in the paper's own setting.
    """

    source: str  # where in the paper: "Fig. 4", "Table 7", "§4.1"
    statement: str  # the paper's statement, with its value or direction
    ours: str  # what we measure, with figures
    verdict: str  # one of VERDICTS
    why: str = ""  # why ours differs, where it does (trace versions, missing traces, definitions)
    setting: str = ""  # empty: the paper's setting; else the other setting this row measures
    stand_in: str = ""  # empty: the paper's own trace; else the trace that stands for it

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


#: How many verdicts each rule has decided since :func:`rules_used` last read them: ``reproduce.py``
#: reads them after each paper's checks, so the report states the rules a paper's verdicts come from
#: as the code applied them.
_RULES: Counter[str] = Counter()

#: The rule most claims are judged by, and the one the summary defines.
MOST = "most cases: holds when all or at least three quarters agree, partly when at least half"
#: The rule for a claim made of every case ("on every trace", "always").
EVERY = "every case (the claim says all): holds only when all agree, partly when at least half"
#: The rule for a property the code has by construction, checked by the tests rather than the traces.
BY_CONSTRUCTION = "by construction: holds when the library's checks and tests confirm it"
#: The rule for a claim that is one yes-or-no fact.
ONE = "one case: holds when it agrees, differs when not"
#: Not a rule but the reason no rule decided: a row "not checkable" says in its reason whether we did not
#: try or measured and the measure cannot judge the claim. The report counts these rows beside the rules,
#: so that every row of a paper is counted once.
NOT_JUDGED = 'none: "not checkable", the cells are missing or cannot judge the claim (the row says which)'


def judged(rule: str, verdict: str) -> str:
    """Return ``verdict``, recording that ``rule`` (a sentence saying when a claim holds) decided it.

    >>> judged("a ratio within a factor 2 of the paper's", "holds")
    'holds'
    """
    _RULES[rule] += 1
    return verdict


@contextlib.contextmanager
def discarded() -> Iterator[None]:
    """Forget the rules recorded inside the block: for verdicts computed only to be replaced (a row
    made "not checkable" when its results are missing), which no rule decided in the end.

    >>> with discarded():
    ...     judged("a rule", "holds")
    'holds'
    >>> "a rule" in rules_used()
    False
    """
    saved = Counter(_RULES)
    try:
        yield
    finally:
        _RULES.clear()
        _RULES.update(saved)


def rules_used() -> Counter[str]:
    """Return how many verdicts each rule decided since the last call, and start counting anew."""
    used = Counter(_RULES)
    _RULES.clear()
    return used


def verdict_of(agree: int, total: int, *, most: float = 0.75) -> str:
    """Return "holds" when all ``total`` cases agree or at least ``most`` of them, "partly" when at
    least half do, "differs" otherwise, and "not checkable" when there is no case."""
    if total == 0:
        return "not checkable"
    if agree == total or agree >= most * total:
        verdict = "holds"
    else:
        verdict = "partly" if 2 * agree >= total else "differs"
    if total == 1:
        return judged(ONE, verdict)
    if most == 0.75:
        return judged(MOST, verdict)
    if most == 1.0:
        return judged(EVERY, verdict)
    return judged(f"cases: holds when at least {most:.0%} agree, partly when at least half", verdict)


def majority(agree: int, total: int) -> str:
    """Verdict on "the majority of cases": "holds" above half, "partly" at half, "differs" below."""
    if total == 0:
        return "not checkable"
    verdict = "holds" if 2 * agree > total else "partly" if 2 * agree == total else "differs"
    return judged("a majority claimed: holds when over half the cases agree, partly at exactly half", verdict)


def within(ours: float, paper: float, near: float, unit: str) -> str:
    """Verdict on a value: "holds" within ``near`` (in ``unit``) of the paper's, "partly" within twice.

    >>> within(30.0, 32.7, 10, "points")
    'holds'
    """
    off = abs(ours - paper)
    verdict = "holds" if off <= near else "partly" if off <= 2 * near else "differs"
    unit = unit[:-1] if near == 1 and unit.endswith("s") else unit
    return judged(f"a value: holds within {near:g} {unit} of the paper's, partly within twice that", verdict)


#: The environment variable that, set to anything but empty or ``0``, lets :func:`measured_stamp` stamp
#: results measured from a checkout with uncommitted changes (``reproduce.py --allow-dirty`` sets it).
#: Without it such results are refused: a ``-dirty`` stamp names no code anyone can check out again.
ALLOW_DIRTY = "BACKFILL_ALLOW_DIRTY"


@functools.cache
def _described(root: Path) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=7"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def measured_stamp(root: Path = ROOT) -> dict[str, str]:
    """Return the stamp every new result carries: today's date (UTC) and the code that measured it.

    The code is ``git describe --always --dirty`` of the checkout at ``root`` (a commit), or
    ``unknown`` outside a git checkout.

    Raises:
        BackfillError: The checkout has uncommitted changes to tracked files, and the environment
            variable named by :data:`ALLOW_DIRTY` is not set; a stamp ``<commit>-dirty`` would then
            name code that no one can check out again.
    """
    described = _described(root)
    if described.endswith("-dirty") and os.environ.get(ALLOW_DIRTY, "") in ("", "0"):
        raise BackfillError(
            f"the checkout at {root.name} has uncommitted changes ({described}); commit them so the results "
            f"name their code, or pass --allow-dirty (or set {ALLOW_DIRTY}=1) to stamp them {described!r}"
        )
    return {"date": datetime.datetime.now(datetime.UTC).date().isoformat(), "code": described}


def save_result(path: Path, result: dict[str, Any], *, stamp: bool = True) -> dict[str, Any]:
    """Write one result as JSON (sorted keys, one item per line, so that diffs read well), stamped
    with :func:`measured_stamp` unless it already carries a stamp or ``stamp`` is false (a result
    rewritten with figures derived from what it holds); return what was written."""
    fresh = stamp and "measured" not in result
    stamped = {**result, "measured": measured_stamp()} if fresh else result
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stamped, indent=1, sort_keys=True) + "\n")
    return stamped


def load_result(path: Path) -> dict[str, Any]:
    """Read a result written by :func:`save_result`."""
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def cached_result(path: Path, compute: Callable[[], dict[str, Any]], *, run: bool) -> dict[str, Any] | None:
    """Return the result saved at ``path``; if there is none, compute and save it when ``run`` is true,
    else return None."""
    if path.exists():
        return load_result(path)
    if not run:
        return None
    return save_result(path, compute())


def provenance(results: Iterable[dict[str, Any]]) -> tuple[int, str, str]:
    """Return how many results there are, the span of their dates and the codes that measured them
    (each with its count, most first), for the report's table of when each figure was measured."""
    dates: list[str] = []
    codes: dict[str, int] = {}
    for result in results:
        stamp = result.get("measured", {"date": "unrecorded", "code": "unrecorded"})
        dates.append(stamp["date"])
        codes[stamp["code"]] = codes.get(stamp["code"], 0) + 1
    if not dates:
        return 0, "-", "-"
    span = min(dates) if min(dates) == max(dates) else f"{min(dates)} to {max(dates)}"
    ranked = sorted(codes.items(), key=lambda item: (-item[1], item[0]))
    return len(dates), span, ", ".join(f"`{code}` ({count})" for code, count in ranked)
