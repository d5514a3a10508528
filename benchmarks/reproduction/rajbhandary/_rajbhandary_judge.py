"""How the checks of Rajbhandary et al. (2013) compare our cells with the paper's claims.

Shared by ``_checks_rajbhandary.py`` and ``_rajbhandary_share_wait.py``: which traces we have, when two
figures tie, and three kinds of claim, each with its own rule:

* a claim about each trace: the share of our traces on which the scheduler does as the paper says,
  judged by :func:`_common.verdict_of`; where the claim names every trace ("DC beats Conservative on
  all but DAS2-fs3", "on every trace but ...") every one of ours must agree, where it says "most" or
  "nearly every" three quarters suffice;
* a count ("PC is worse than Conservative on 9 of the 14 traces"): at least the paper's share of our
  traces, ``k / 14`` of them, must do so; more is no contradiction (:func:`count_verdict`);
* a value ("+0.16 % on LLNL-Atlas"): ours within a tolerance of the paper's (:func:`value_verdict`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from _common import TRACE_STEMS, Check, verdict_of, within
from reproduce_rajbhandary import SCHEDULERS, TRACES

from backfill.measures.metrics import percent_improvement

#: The paper's traces (Fig. 3) that we have, as (name, file stem): HPC2N, which it dropped, is left out.
PAPER_TRACES = tuple((name, stem) for name, stem in TRACES if name in TRACE_STEMS and name != "HPC2N")
#: The trace the paper dropped because its FSTs took too long, which we run as another setting.
EXTRA = "HPC2N"
#: Every trace we run, the paper's and :data:`EXTRA`, as (name, file stem).
ALL_TRACES = (*PAPER_TRACES, (EXTRA, TRACE_STEMS[EXTRA]))
#: How many traces the paper has (Fig. 3): its counts ("on 9 of the traces") are out of these.
PAPER_COUNT = 14
#: The archive version the paper used (Fig. 3), for the traces where ours is newer.
PAPER_VERSIONS = {
    "CTC-SP2": "2.1",
    "LANL-CM5": "3.1",
    "LLNL-Atlas": "1.1",
    "SDSC-BLUE": "3.1",
    "SDSC-DS": "1",
    "SDSC-SP2": "3.1",
}
#: A value at most this (seconds, or processor-seconds) counts as zero: LPC-EGEE's average unfairness
#: is 0.0 s under Conservative, where any percent improvement is 0 or -inf.
ZERO = 0.01
#: Otherwise two schedulers tie when one's percent improvement over the other is under this in
#: magnitude (the tables show +0.0 or -0.0); the paper counts LLNL-Atlas's +0.16 % as a win, as we do.
FLAT = 0.05
MINUS = "\u2212"

Figures = dict[tuple[str, str], dict[str, float]]


def pct(value: float, digits: int = 1) -> str:
    """Return "+1.0 %" or "-1.0 %" with a true minus sign (U+2212), or "-inf %" likewise."""
    if not abs(value) < float("inf"):
        return f"{'+' if value > 0 else MINUS}inf %"
    return f"{value:+.{digits}f} %".replace("-", MINUS)


def names(items: Iterable[str]) -> str:
    """Return "A, B and C"."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def have(fig: Figures, *specs: str, traces: Iterable[str] | None = None) -> list[str]:
    """Return the traces (the paper's, unless ``traces``) whose Conservative and ``specs`` cells are all
    there, in the report's order."""
    wanted = [name for name, _ in PAPER_TRACES] if traces is None else list(traces)
    return [name for name in wanted if all((name, spec) in fig for spec in ("Conservative", *specs))]


def gaps(fig: Figures, *specs: str, traces: Iterable[str] | None = None) -> str:
    """Return "; not measured yet: LPC-EGEE, SDSC-BLUE (PC)" for the traces whose cells of Conservative
    and ``specs`` are not all there (with the schedulers missing when not all are), or ""."""
    wanted = [name for name, _ in PAPER_TRACES] if traces is None else list(traces)
    needed = list(dict.fromkeys(("Conservative", *specs)))
    parts = []
    for name in wanted:
        missing = [spec for spec in needed if (name, spec) not in fig]
        if missing:
            parts.append(name if len(missing) == len(needed) else f"{name} ({', '.join(missing)})")
    return f"; not measured yet: {', '.join(parts)}" if parts else ""


def unknown(
    source: str, statement: str, fig: Figures, *specs: str, setting: str = "", traces: list[str] | None = None
) -> Check:
    """Return the check of a claim that no trace has the cells for yet (of ``traces``, else the
    paper's, or :data:`EXTRA` in another ``setting``)."""
    wanted = traces or ([EXTRA] if setting else None)
    ours = gaps(fig, *specs, traces=wanted).removeprefix("; ") or "not measured yet"
    why = "not attempted, because the runs it needs have not been made yet."
    return Check(source, statement, ours, "not checkable", why, setting)


def side(base: float, other: float) -> str:
    """Return whether ``other`` is "better", "equal" or "worse" than ``base`` (lower is better)."""
    if abs(base) <= ZERO and abs(other) <= ZERO:
        return "equal"
    value = percent_improvement(base, other)
    if abs(value) < FLAT:
        return "equal"
    return "better" if value > 0 else "worse"


def sides(
    fig: Figures, metric: str, spec: str, traces: list[str], base: str = "Conservative"
) -> dict[str, dict[str, float]]:
    """Group ``traces`` by how ``spec`` compares with ``base`` on ``metric``: side -> {trace: percent}."""
    groups: dict[str, dict[str, float]] = {"better": {}, "equal": {}, "worse": {}}
    for name in traces:
        was, now = fig[name, base][metric], fig[name, spec][metric]
        groups[side(was, now)][name] = percent_improvement(was, now)
    return groups


def listing(group: dict[str, float]) -> str:
    """Return "A +3.0 %, B -1.0 %", largest change first."""
    ranked = sorted(group.items(), key=lambda item: -abs(item[1]))
    return ", ".join(f"{name} {pct(value)}" for name, value in ranked)


def describe(groups: dict[str, dict[str, float]], lead: str, total: int) -> str:
    """Return "better on 6 of 8 (A +1.0 %, ...), equal on C, worse on 1 (D -2.0 %)", ``lead`` first."""
    text = f"{lead} on {len(groups[lead])} of {total}"
    parts = [text + (f" ({listing(groups[lead])})" if groups[lead] else "")]
    for other in ("better", "equal", "worse"):
        if other != lead and groups[other]:
            group = groups[other]
            parts.append(
                f"{other} on " + (names(group) if other == "equal" else f"{len(group)} ({listing(group)})")
            )
    return ", ".join(parts)


def versions(traces: Iterable[str]) -> str:
    """Return a sentence on which of ``traces`` are newer archive versions than the paper's, or ""."""
    stems = dict(PAPER_TRACES)
    newer = [name for name in traces if name in PAPER_VERSIONS]
    if not newer:
        return ""
    ours = {name: re.findall(r"-\d{4}-([\d.]+)", stems[name])[0] for name in newer}
    listed = names(f"{name} {ours[name]} (the paper's {PAPER_VERSIONS[name]})" for name in newer)
    text = f" Our archive versions are newer: {listed}."
    if "CTC-SP2" in newer:
        text += " CTC-SP2 3.1 declares 338 processors where the paper's declared 430, so its load differs."
    return text


def count_verdict(ours: int, paper: int, traces: int) -> str:
    """Judge a count claim, "on ``paper`` of the paper's 14 traces", by ``ours`` of our ``traces``: it
    holds when ours reaches three quarters of the paper's share of our traces, partly when half."""
    expected = paper * traces / PAPER_COUNT
    if traces == 0:
        return "not checkable"
    return verdict_of(min(ours, expected), expected) if expected else "holds"  # type: ignore[arg-type]


def value_verdict(ours: float, paper: float, near: float, unit: str = "percentage points") -> str:
    """Judge a value claim: "holds" within ``near`` of the paper's, "partly" within twice that."""
    return within(ours, paper, near, unit)


def per_trace(
    fig: Figures,
    source: str,
    statement: str,
    metric: str,
    spec: str,
    expected: Callable[[str], set[str]],
    *,
    base: str = "Conservative",
    lead: str = "better",
    traces: list[str] | None = None,
    setting: str = "",
    note: str = "",
    about: dict[str, str] | None = None,
    every: bool = False,
) -> Check:
    """Return the check of a claim about each trace: ``spec`` against ``base`` on ``metric`` falls on
    one of the sides ``expected(trace)`` gives ("better", "equal", "worse") on as many traces as
    :func:`_common.verdict_of` asks: every trace when ``every`` (the claim says "every trace but ...",
    "all traces but ..."), else three quarters. ``note`` is added to the reason when some trace
    disagrees, and ``about[trace]`` when that trace does."""
    wanted = traces or [name for name, _ in PAPER_TRACES]
    present = [name for name in wanted if (name, base) in fig and (name, spec) in fig]
    if not present:
        return unknown(source, statement, fig, base, spec, setting=setting, traces=traces)
    groups = sides(fig, metric, spec, present, base)
    off = [name for kind, group in groups.items() for name in group if kind not in expected(name)]
    ours = describe(groups, lead, len(present))
    if base != "Conservative":
        ours = f"{spec} against {base}: {ours}"
    notes = " ".join((about or {})[name] for name in off if name in (about or {}))
    why = f"Not as the paper says on {names(off)}.{versions(off)} {notes} {note}" if off else ""
    why = " ".join(why.split())
    missing = gaps(fig, base, spec, traces=wanted)
    return Check(
        source,
        statement,
        ours + missing,
        verdict_of(len(present) - len(off), len(present), most=1.0 if every else 0.75),
        why,
        setting,
    )


def best(fig: Figures, name: str, metric: str) -> list[str]:
    """Return the schedulers with the lowest ``metric`` on trace ``name``, all those that tie with it."""
    values = {spec: fig[name, spec][metric] for spec in SCHEDULERS}
    low = min(values.values())
    return [spec for spec, value in values.items() if side(low, value) == "equal"]
