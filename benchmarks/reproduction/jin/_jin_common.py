"""What the checks of Jin's thesis share: the workloads' names, and how their results are read and
formatted (``_checks_jin.py``, ``_jin_sweep_checks.py``)."""

# ruff: noqa: RUF001, RUF002  (the text is typeset for the docs: minus signs, alpha)

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from _common import TRACE_STEMS
from reproduce_jin import SEEDS, TRACES, _improvement

from backfill.measures.metrics import percent_improvement

Cells = list[dict[str, dict[str, Any]]]
Groups = dict[str, Cells]
Found = tuple[str, str, str]  # ours, verdict, why
GOALS = ("G1", "G2")
#: The model workloads at the thesis's arrival shapes, heaviest first, by the names the page uses.
MODEL = {10.05: "W4", 10.23: "W1", 10.33: "W2", 10.43: "α 10.43", 10.73: "α 10.73"}
LOAD09, FMODEL = "W1 at load 0.9", "W1 with f-model estimates"
TRACE_NAMES = sorted(name for name, stem in TRACE_STEMS.items() if stem in TRACES)
TRACE_RUNS = [f"{n} {e}" for e in ("user", "exact") for n in TRACE_NAMES]
NOT_RUN = "The cells this statement needs are not in the results yet."


def _traces(g: Groups, est: str = "") -> list[str]:
    """The traces run so far, with ``est`` estimates ("user", "exact") or either."""
    return [f"{n} {e}" for e in ("user", "exact") if est in ("", e) for n in TRACE_NAMES if g[f"{n} {e}"]]


def missing(g: Groups, names: list[str]) -> str:
    """A note on the workloads among ``names`` that are not complete yet ("" when all are)."""
    label = {
        n: n.replace(" user", " (users' estimates)").replace(" exact", " (exact estimates)") for n in names
    }
    absent = [label[n] for n in names if not g[n]]
    seeds = [n for n in names if n not in TRACE_RUNS and 0 < len(g[n]) < len(SEEDS)]
    partial = [f"{n} {len(g[n])} of {len(SEEDS)} seeds" for n in seeds]
    parts = []
    if absent:
        parts.append(f"not run: {', '.join(absent)}")
    if partial:
        parts.append(f"partly run: {', '.join(partial)}")
    return f" (so far; {'; '.join(parts)})" if parts else ""


def _imp(cells: Cells, spec: str, key: str) -> float:
    """Percent improvement over Conservative of the seed-mean of ``key``."""
    return _improvement(cells, spec, key)[0]


def _ml(run: dict[str, Any]) -> float:
    """Mean RR of the medium and long jobs taken together, from the per-class means and counts."""
    n = run["n_medium"] + run["n_long"]
    return float((run["rr_medium"] * run["n_medium"] + run["rr_long"] * run["n_long"]) / n)


def _imp_ml(cells: Cells, spec: str) -> float:
    """Percent improvement over Conservative of the seed-mean RR of the medium and long jobs together."""
    base = float(np.mean([_ml(c["Conservative"]) for c in cells]))
    return percent_improvement(base, float(np.mean([_ml(c[spec]) for c in cells])))


def _rr(key: str) -> Callable[[Cells, str], float]:
    return lambda cells, spec: _imp(cells, spec, key)


def _better(cells: Cells, spec: str, key: str) -> int:
    """Seeds on which ``spec`` has a lower ``key`` than Conservative."""
    return sum(1 for c in cells if c[spec][key] < c["Conservative"][key])


def _num(x: float, digits: int = 2, sign: bool = True) -> str:
    return f"{x:{'+' if sign else ''},.{digits}f}".replace("-", "\u2212")


def _pair(cells: Cells, measure: Callable[[Cells, str], float], digits: int = 2) -> str:
    """``measure`` of G1 and G2: "+1.71 / +3.66"."""
    return " / ".join(_num(measure(cells, s), digits) for s in GOALS)


def _seeds(cells: Cells, key: str = "rr_all") -> str:
    """Seeds better for G1 and G2: "9/11", or "4/11 / 5/11" when they differ."""
    counts = [f"{_better(cells, s, key)}/{len(cells)}" for s in GOALS]
    return counts[0] if counts[0] == counts[1] else " / ".join(counts)


def _span(values: list[float], digits: int = 1, sign: bool = True) -> str:
    """Format a range: "+5.8 to +7.9", "0.3–1.0" unsigned, or one value when both ends round alike."""
    low, high = _num(min(values), digits, sign), _num(max(values), digits, sign)
    return low if low == high else f"{low} to {high}" if sign else f"{low}–{high}"
