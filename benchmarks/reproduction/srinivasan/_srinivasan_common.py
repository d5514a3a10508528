"""What the checks of Srinivasan et al. (2002) share: the settings, the cached groups, the figures.

Percentages are the change of an average over Conservative, ``(other - Conservative) / Conservative``:
negative is better, as the paper's bars.
"""

from __future__ import annotations

from typing import Any

from _common import Check
from reproduce_srinivasan import DEFAULT_LOADS, TRACES, _key

from backfill.measures.metrics import percent_improvement

_Group = dict[str, Any]

NAMES = tuple(t[0] for t in TRACES)  # CTC, SDSC, KTH, LANL: the order of our tables
USER = tuple(t[0] for t in TRACES if t[4])  # the traces the paper had user estimates for
STEM = {t[0]: t[1] for t in TRACES}
NORMAL, HIGH = min(DEFAULT_LOADS), max(DEFAULT_LOADS)
PAPER_TRACE = "SDSC"  # the trace of Fig. 3, 5 and 7, Tables 7 to 9
CTC_SIZES = "CTC-SP2 3.1 has 338 processors where the paper's CTC had 430"
CTC_LOAD = f"{CTC_SIZES}, so our CTC runs at about 1.27 times the paper's load"


def f(x: float, digits: int = 1) -> str:
    """A signed figure with a true minus sign, as the docs page prints its prose."""
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def fs(xs: list[float], digits: int = 1) -> str:
    return " / ".join(f(x, digits) for x in xs)


def and_(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def cells(
    groups: dict[str, _Group], load: float, estimates: str, names: tuple[str, ...]
) -> dict[str, _Group]:
    """The cached groups at this load and estimates, by paper trace name."""
    keys = {n: _key(STEM[n], load, estimates) for n in names}
    return {n: groups[k] for n, k in keys.items() if k in groups}


def so_far(have: int, want: int) -> str:
    return "" if have == want else f" ({have} of {want} traces so far)"


def missing(source: str, statement: str, setting: str = "") -> Check:
    why = (
        "not attempted, because the runs it needs are not in the results yet; run the script to simulate "
        "them."
    )
    return Check(source, statement, "no results yet", "not checkable", why, setting)


def chg(g: _Group, scheme: str, metric: str = "mean_bsld", cat: str | None = None) -> float:
    """Change (%) of a scheme's average (of a category, or overall) over Conservative's."""
    base, other = g["figures"]["Conservative"], g["figures"][scheme]
    if cat is None:
        return -percent_improvement(base["overall"][metric], other["overall"][metric])
    return -percent_improvement(base["categories"][cat][metric], other["categories"][cat][metric])


def vs(g: _Group, scheme: str, reference: str, metric: str = "mean_bsld", cat: str | None = None) -> float:
    """Change (%) of a scheme's average (of a category, or overall) over another scheme's."""
    figures = g["figures"]
    if cat is None:
        return -percent_improvement(figures[reference]["overall"][metric], figures[scheme]["overall"][metric])
    return -percent_improvement(
        figures[reference]["categories"][cat][metric], figures[scheme]["categories"][cat][metric]
    )


def beats(g: _Group, scheme: str, metric: str = "mean_bsld", cat: str | None = None) -> list[bool]:
    """Whether a scheme's average is below Conservative's and below EASY's."""
    mine = chg(g, scheme, metric, cat)
    return [mine < 0, mine < chg(g, "EASY", metric, cat)]
