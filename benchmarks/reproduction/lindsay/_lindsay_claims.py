"""The claims of Lindsay et al. (2013) Fig. 5-9 beside what we measure, one function per claim.

Each function takes the :class:`Results` and returns ``(ours, verdict, why)``, or None when no kept
result bears on the claim; ``_checks_lindsay.py`` sets them beside the paper's statements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from _common import ONE, judged, majority, verdict_of, within
from reproduce_lindsay import TRACES

from backfill.measures.metrics import percent_improvement

_Cells = dict[tuple[str, str], dict[str, Any]]
_Table = dict[str, list[float]]
#: What one claim's function finds: (ours, verdict, why), or None when no kept result bears on it.
Found = tuple[str, str, str] | None

#: Percent: the paper's "comparable (within 10%)" and "small (generally < 10%)"; beyond it, significant.
BIG = 10.0
#: Points: a lead smaller than this shows as +0.0 % and counts as a tie.
TIE = 0.05
#: The paper's traces that Fig. 5-8 single out and that we have.
_THUNDER, _CTC = "LLNL-Thunder", "CTC-SP2"


@dataclass(frozen=True)
class Results:
    """The kept results the claims are judged from.

    Attributes:
        cells: The figures of each (trace stem, scheduler) simulation.
        facts: What the traces themselves say (jobs, percent with estimates, widest job), by trace name.
        ctc430: CTC-SP2's cells read with 430 processors, by scheduler, for the notes of the rows that
            keep our version's 338.
        on_430: The cells of CTC-SP2 in ``cells`` are those read with 430 processors (the rows of that
            setting).
    """

    cells: _Cells
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    ctc430: dict[str, dict[str, Any]] = field(default_factory=dict)
    on_430: bool = False

    def table(self, metric: str, specs: list[str], skip: tuple[str, ...] = ()) -> _Table:
        """Percent improvement over Conservative of ``metric`` under each of ``specs``, by trace name, for
        the traces (but ``skip``) whose cells are all present."""
        table = {}
        for name, stem in TRACES:
            keys = [(stem, spec) for spec in ["Conservative", *specs]]
            if name not in skip and all(key in self.cells for key in keys):
                base, *runs = (self.cells[key][metric] for key in keys)
                table[name] = [percent_improvement(base, run) for run in runs]
        return table

    def ctc_note(self, metric: str, specs: list[str]) -> str:
        """Why CTC-SP2 differs, with its figures when read with 430 processors, if kept."""
        if self.on_430:
            return ""
        note = (
            "Our CTC-SP2 log (version 3.1) declares 338 processors where the paper's version declared 430, "
            "so the same jobs load it more heavily"
        )
        if not all(spec in self.ctc430 for spec in ["Conservative", *specs]):
            return note + "."
        base = self.ctc430["Conservative"][metric]
        shown = ", ".join(
            f"{spec} {pct(percent_improvement(base, self.ctc430[spec][metric]))}" for spec in specs
        )
        return f"{note}; read with 430 processors it gives {shown}."


def pct(value: float) -> str:
    return f"{value:+.1f} %"


def so_far(have: int, total: int = len(TRACES)) -> str:
    return "" if have == total else f" ({have} of {total} traces so far)"


def close(ours: float, paper: float, points: float = 10.0) -> str:
    """Verdict on a share in percent: "holds" within ``points`` of the paper's, "partly" within twice that."""
    return within(ours, paper, points, "percentage points")


def _beats(
    r: Results,
    metric: str,
    spec: str,
    rival: str = "Conservative",
    *,
    skip: tuple[str, ...] = (),
    judge: str = "all",
) -> Found:
    """Whether ``spec`` improves ``metric`` more than ``rival`` on each trace (but ``skip``): on all of
    them (``judge="all"``), on three quarters (``"generally"``) or on more than half (``"majority"``)."""
    specs = [spec] if rival == "Conservative" else [rival, spec]
    t = r.table(metric, specs, skip)
    if not t:
        return None
    # A lead that shows as +0.0 (under TIE points) is a tie, not a win.
    if rival == "Conservative":
        fails = {n: pct(row[0]) for n, row in t.items() if row[0] < TIE}
    else:
        fails = {
            n: f"{pct(row[1])} against {rival}'s {pct(row[0])}"
            for n, row in t.items()
            if row[1] - row[0] < TIE
        }
    agree = len(t) - len(fails)
    ours = f"better on {agree} of {len(t)} traces{so_far(len(t), len(TRACES) - len(skip))}"
    ours += "; not on " + ", ".join(f"{n} ({v})" for n, v in fails.items()) if fails else ""
    if judge == "majority":
        verdict = majority(agree, len(t))
    else:
        verdict = verdict_of(agree, len(t), most=1.0 if judge == "all" else 0.75)
    why = r.ctc_note(metric, specs) if _CTC in fails else ""
    return ours, verdict, why


def _on_trace(r: Results, metric: str, specs: list[str], trace: str, *, better: bool, bound: float) -> Found:
    """Whether each of ``specs`` is better than Conservative on ``trace`` by more than ``bound`` percent
    (``better``), or worse by more than ``bound`` (not ``better``; bound 0: not better at all)."""
    row = r.table(metric, specs).get(trace)
    if row is None:
        return None
    agree = sum(v > bound if better else (v < -bound if bound else v <= 0) for v in row)
    ours = ", ".join(f"{spec} {pct(v)}" for spec, v in zip(specs, row, strict=True))
    why = ""
    if agree < len(specs) and bound:
        why = f"We count a difference as significant beyond {bound:.0f} %."
    if agree < len(specs) and trace == _CTC:
        why = (why + " " + r.ctc_note(metric, specs)).strip()
    return ours, verdict_of(agree, len(specs), most=1.0), why


def _easy_outlier(r: Results, metric: str) -> Found:
    """Whether LLNL-Thunder is the trace where EASY leads the better of PC-SJF and DC-SJF by most."""
    table = r.table(metric, ["EASY", "PC-sjf", "DC-sjf"])
    if _THUNDER not in table:
        return None
    lead = {name: easy - max(pc, dc) for name, (easy, pc, dc) in table.items()}
    top = max(lead, key=lead.__getitem__)
    easy, pc, dc = table[top]
    ours = f"EASY leads PC and DC by most on {top} ({pct(easy)} against {pct(pc)} and {pct(dc)})"
    if top != _THUNDER:
        easy, pc, dc = table[_THUNDER]
        ours += f"; on LLNL-Thunder EASY {pct(easy)}, PC {pct(pc)}, DC {pct(dc)}"
    ours += so_far(len(table))
    if top == _THUNDER:
        return ours, judged(ONE, "holds"), ""
    return (
        ours,
        judged(ONE, "differs"),
        r.ctc_note(metric, ["EASY", "PC-sjf", "DC-sjf"]) if top == _CTC else "",
    )


# Fig. 5: mean wait with SJF.


def f5_pc(r: Results) -> Found:
    return _beats(r, "mean_wait", "PC-sjf")


def f5_dc(r: Results) -> Found:
    return _beats(r, "mean_wait", "DC-sjf")


def f5_pc_easy(r: Results) -> Found:
    return _beats(r, "mean_wait", "PC-sjf", "EASY", judge="majority")


def f5_dc_easy(r: Results) -> Found:
    return _beats(r, "mean_wait", "DC-sjf", "EASY", judge="majority")


def f5_thunder(r: Results) -> Found:
    return _easy_outlier(r, "mean_wait")


def f5_dc_pc(r: Results) -> Found:
    found = _beats(r, "mean_wait", "DC-sjf", "PC-sjf", judge="generally")
    return None if found is None else (found[0], found[1], "")


def _dc_sjf(r: Results) -> tuple[_Table, str] | None:
    t = r.table("mean_wait", ["EASY", "DC-sjf"])
    return (t, f"We have {len(t)} of the paper's 15 traces.") if t else None


def s41_dc_best(r: Results) -> Found:
    found = _dc_sjf(r)
    if found is None:
        return None
    t, why = found
    best = [n for n, (easy, dc) in t.items() if dc > max(easy, 0)]
    ours = f"{len(best)} of {len(t)} ({100 * len(best) / len(t):.0f} %){so_far(len(t))}"
    missed = [n for n in t if n not in best]
    ours += f"; not on {', '.join(missed)}" if missed else ""
    if _CTC in missed:
        why += " " + r.ctc_note("mean_wait", ["EASY", "DC-sjf"])
    return ours, close(100 * len(best) / len(t), 100 * 11 / 15), why


def s41_dc_worst(r: Results) -> Found:
    found = _dc_sjf(r)
    if found is None:
        return None
    t, why = found
    worst = [n for n, (easy, dc) in t.items() if dc < min(easy, 0)]
    ours = f"{len(worst)} of {len(t)} ({100 * len(worst) / len(t):.0f} %){so_far(len(t))}"
    ours += f": {', '.join(worst)}" if worst else ""
    return ours, close(100 * len(worst) / len(t), 100 * 1 / 15), why


def s41_dc_easy_only(r: Results) -> Found:
    found = _dc_sjf(r)
    if found is None:
        return None
    t, why = found
    only = {n: (easy, dc) for n, (easy, dc) in t.items() if 0 <= dc < easy}
    ours = f"{len(only)} of {len(t)} ({100 * len(only) / len(t):.0f} %){so_far(len(t))}"
    if only:
        ours += ": " + ", ".join(f"{n} ({pct(dc)} against EASY's {pct(e)})" for n, (e, dc) in only.items())
    return ours, close(100 * len(only) / len(t), 100 * 3 / 15), why


# Fig. 6: mean of the top 5 % of waits with SJF.

_F6_EXCEPTIONS = ("LANL-CM5", "SDSC-SP2")


def f6_pc(r: Results) -> Found:
    return _beats(r, "top5_wait", "PC-sjf", skip=_F6_EXCEPTIONS)


def f6_dc(r: Results) -> Found:
    return _beats(r, "top5_wait", "DC-sjf", skip=_F6_EXCEPTIONS)


def f6_lanl(r: Results) -> Found:
    return _on_trace(r, "top5_wait", ["PC-sjf", "DC-sjf"], "LANL-CM5", better=False, bound=0.0)


def f6_sdsc(r: Results) -> Found:
    return _on_trace(r, "top5_wait", ["PC-sjf", "DC-sjf"], "SDSC-SP2", better=False, bound=0.0)


def f6_pc_easy(r: Results) -> Found:
    return _beats(r, "top5_wait", "PC-sjf", "EASY", judge="majority")


def f6_dc_easy(r: Results) -> Found:
    return _beats(r, "top5_wait", "DC-sjf", "EASY", judge="majority")


def f6_thunder(r: Results) -> Found:
    return _easy_outlier(r, "top5_wait")


# Fig. 7: mean of the top 1 % of waits with SJF.

_F7_NAMED = ("LLNL-Atlas", "LPC-EGEE", "LANL-CM5", "SDSC-SP2")


def f7_atlas(r: Results) -> Found:
    return _on_trace(r, "top1_wait", ["PC-sjf", "DC-sjf"], "LLNL-Atlas", better=True, bound=BIG)


def f7_lpc(r: Results) -> Found:
    return _on_trace(r, "top1_wait", ["PC-sjf", "DC-sjf"], "LPC-EGEE", better=True, bound=BIG)


def f7_lanl(r: Results) -> Found:
    return _on_trace(r, "top1_wait", ["PC-sjf", "DC-sjf"], "LANL-CM5", better=False, bound=BIG)


def f7_sdsc(r: Results) -> Found:
    return _on_trace(r, "top1_wait", ["PC-sjf", "DC-sjf"], "SDSC-SP2", better=False, bound=BIG)


def f7_others(r: Results) -> Found:
    t = r.table("top1_wait", ["PC-sjf", "DC-sjf"], skip=_F7_NAMED)
    if not t:
        return None
    # Comparable: both within 10 %; mixed: PC and DC on opposite sides of Conservative.
    fine = [n for n, row in t.items() if max(map(abs, row)) <= BIG or min(row) < 0 < max(row)]
    fails = {n: row for n, row in t.items() if n not in fine}
    ours = f"within 10 % or mixed on {len(fine)} of {len(t)} traces{so_far(len(t), len(TRACES) - 4)}"
    if fails:
        ours += "; not on " + ", ".join(f"{n} (PC {pct(a)}, DC {pct(b)})" for n, (a, b) in fails.items())
    gains = [n for n, row in fails.items() if max(row) > BIG]
    why = [f"On {', '.join(gains)} PC or DC gains more than 10 %: better than comparable."] if gains else []
    losses = [n for n in fails if n not in gains]
    why += [f"On {', '.join(losses)} both lose more than 10 %."] if losses else []
    why += ["We read mixed as PC and DC on opposite sides of Conservative."] if fails else []
    why += [r.ctc_note("top1_wait", ["PC-sjf", "DC-sjf"])] if _CTC in fails else []
    return ours, verdict_of(len(fine), len(t)), " ".join(why)


# Fig. 8: mean wait of the widest 10 % with WJF; LPC-EGEE is left out.


def f8_pc(r: Results) -> Found:
    return _beats(r, "widest10_wait", "PC-wjf", skip=("LPC-EGEE", _THUNDER))


def f8_dc(r: Results) -> Found:
    return _beats(r, "widest10_wait", "DC-wjf", skip=("LPC-EGEE", _THUNDER))


def f8_thunder(r: Results) -> Found:
    return _on_trace(r, "widest10_wait", ["PC-wjf", "DC-wjf"], _THUNDER, better=False, bound=0.0)


def f8_lpc(r: Results) -> Found:
    fact = r.facts.get("LPC-EGEE")
    if fact is None:
        return None
    if fact["widest"] == 1:
        ours = f"each of its {fact['jobs']:,} jobs uses one processor"
    else:
        ours = f"its widest job of {fact['jobs']:,} uses {fact['widest']:,} processors"
    return ours, judged(ONE, "holds" if fact["widest"] == 1 else "differs"), ""


def f8_which(r: Results) -> Found:
    t = r.table("widest10_wait", ["PC-wjf", "DC-wjf"], skip=("LPC-EGEE",))
    if not t:
        return None
    pc = sum(a > b for a, b in t.values())
    dc = sum(b > a for a, b in t.values())
    ours = f"PC ahead on {pc} of {len(t)} traces, DC on {dc}{so_far(len(t), len(TRACES) - 1)}"
    # Unclear: neither is ahead on more than three quarters of the traces.
    unclear = 4 * max(pc, dc) <= 3 * len(t)
    return (
        ours,
        judged(
            '"unclear which": holds when neither leads on over three quarters',
            "holds" if unclear else "differs",
        ),
        "",
    )


def f8_pc_easy(r: Results) -> Found:
    return _beats(r, "widest10_wait", "PC-wjf", "EASY", skip=("LPC-EGEE",))


def f8_dc_easy(r: Results) -> Found:
    return _beats(r, "widest10_wait", "DC-wjf", "EASY", skip=("LPC-EGEE",))


# Fig. 9: mean wait of all jobs with WJF.


#: The rule of Fig. 9's "mixed, but not consistently bad".
_GAINS_AGAINST_LOSSES = (
    "gains against losses: differs when all runs that differ go one way, else holds when no more losses "
    "than gains, partly otherwise"
)


def _f9_runs(r: Results) -> list[tuple[float, str]]:
    t = r.table("mean_wait", ["PC-wjf", "DC-wjf"])
    return [(v, f"{alg} on {n}") for n, row in t.items() for alg, v in zip(("PC", "DC"), row, strict=True)]


def f9_mixed(r: Results) -> Found:
    runs = _f9_runs(r)
    if not runs:
        return None
    gains, losses = sum(v > 0 for v, _ in runs), sum(v < 0 for v, _ in runs)
    best = max(runs)
    ours = f"{gains} of {len(runs)} runs better than Conservative, {losses} worse{so_far(len(runs) // 2)}"
    ours += f"; best {pct(best[0])} ({best[1]})"
    # Mixed: some gains and some losses; not consistently bad: no more losses than gains. One rule decides
    # all three verdicts, so that the report counts this row's verdict whichever it is.
    if not gains or not losses:
        verdict, why = "differs", "Not mixed: every run that differs goes the same way."
    else:
        verdict = "holds" if losses <= gains else "partly"
        why = "" if losses <= gains else "More losses than gains."
    return ours, judged(_GAINS_AGAINST_LOSSES, verdict), why


def f9_small(r: Results) -> Found:
    losses = sorted((v, w) for v, w in _f9_runs(r) if v < 0)
    if not losses:
        return None
    big = [(v, w) for v, w in losses if v <= -BIG]
    ours = f"{len(losses) - len(big)} of the {len(losses)} losses under 10 %; worst {pct(losses[0][0])} "
    ours += f"({losses[0][1]})"
    why = "We read fairly small as under 10 %."
    if big:
        why += " The losses of " + ", ".join(f"{w} ({pct(v)})" for v, w in big) + " are larger."
    return ours, verdict_of(len(losses) - len(big), len(losses)), why
