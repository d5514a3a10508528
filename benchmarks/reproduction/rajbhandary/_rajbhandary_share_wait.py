"""The checks of Rajbhandary et al. (2013) §4.3 (fair share, Fig. 7) and §4.4 (mean wait, Fig. 8), and
the paper's main directions measured on HPC2N, the trace it dropped (rows in another setting)."""

from __future__ import annotations

from _common import Check, judged, verdict_of
from _rajbhandary_judge import (
    EXTRA,
    MINUS,
    PAPER_COUNT,
    Figures,
    best,
    count_verdict,
    describe,
    gaps,
    have,
    names,
    pct,
    per_trace,
    sides,
    unknown,
    versions,
)
from reproduce_rajbhandary import SCHEDULERS

from backfill.measures.metrics import percent_improvement

_CLAMP = f"Fair share is averaged as max(0, fair share {MINUS} received); the paper does not say how."
#: "Double-digit" gains, and the paper's bounds on PC's losses in mean wait.
_DOUBLE, _BOUND, _MOST_BOUND = 10.0, 3.5, 2.0


def checks(fig: Figures) -> list[Check]:
    """Return the rows of Fig. 7 and Fig. 8, then those in the HPC2N setting."""
    return [
        per_trace(
            fig,
            "Fig. 7, §4.3",
            "Unweighted fair share: DC beats Conservative on all traces but DAS2-fs1, DAS2-fs3 and"
            " LLNL-Thunder",
            "unweighted_share",
            "DC",
            lambda name: {"equal", "worse"} if name in ("DAS2-fs1", "LLNL-Thunder") else {"better"},
            note="DAS2-fs3 is not among our traces. " + _CLAMP,
            every=True,
        ),
        _best_count(fig, "unweighted_share", "DC", 11, "Unweighted fair share: DC beats all the others"),
        _best_count(fig, "weighted_share", "PC", 6, "Weighted fair share: PC beats all the others"),
        _best_count(fig, "weighted_share", "DC", 6, "Weighted fair share: DC beats all the others"),
        _small(fig, "unweighted_share", "unweighted"),
        _small(fig, "weighted_share", "weighted"),
        per_trace(
            fig,
            "Fig. 8, §4.4",
            "Mean wait: DC beats Conservative on all traces but DAS2-fs3",
            "mean_wait",
            "DC",
            lambda name: {"better"},
            note="DAS2-fs3, the paper's one exception, is not among our traces.",
            about={"LLNL-Thunder": _THUNDER_DC},
            every=True,
        ),
        _wait_count(
            fig, "DC", "better", 5, f"Mean wait: DC gains {_DOUBLE:.0f} % or more on 5 of the 14 traces"
        ),
        _wait_count(fig, "PC", "worse", 9, "Mean wait: PC is worse than Conservative on 9 of the 14 traces"),
        _pc_losses(fig, _BOUND, None, "Mean wait: PC's losses are always under 3.5 %"),
        _pc_losses(fig, _MOST_BOUND, 2, "Mean wait: PC's losses are under 2 % on all traces but two"),
        *_extra(fig),
    ]


_THUNDER_DC = (
    "Two thirds of LLNL-Thunder's jobs have no estimate and get exact ones, so few end early and DC's"
    " delayed compression has little to work with there."
)


def _best_count(fig: Figures, metric: str, spec: str, paper: int, statement: str) -> Check:
    """A count claim: ``spec`` alone has the lowest ``metric`` of the four on ``paper`` of 14 traces."""
    source = "Fig. 7, §4.3"
    statement += f" on {paper} of the 14 traces"
    traces = have(fig, *SCHEDULERS)
    if not traces:
        return unknown(source, statement, fig, *SCHEDULERS)
    winners = {name: best(fig, name, metric) for name in traces}
    alone = [name for name, specs in winners.items() if specs == [spec]]
    tied = [name for name, specs in winners.items() if spec in specs and len(specs) > 1]
    others = {
        other: [name for name, specs in winners.items() if specs == [other]]
        for other in SCHEDULERS
        if other != spec
    }
    ours = f"{spec} alone the fairest on {len(alone)} of {len(traces)}" + (
        f" ({names(alone)})" if alone else ""
    )
    if tied:
        ours += f"; tied for the fairest on {names(tied)}"
    ours += "".join(f"; {other} alone on {len(won)}" for other, won in others.items() if won)
    verdict = count_verdict(len(alone), paper, len(traces))
    why = ""
    if verdict != "holds":
        share = paper * len(traces) / PAPER_COUNT
        why = f"The paper's share, {paper} of 14, would be {share:.1f} of our {len(traces)} traces. {_CLAMP}"
    return Check(source, statement, ours + gaps(fig, *SCHEDULERS), verdict, why)


def _small(fig: Figures, metric: str, label: str) -> Check:
    """Changes over Conservative are "generally by less than 5 %" (EASY, PC and DC, every trace)."""
    source = "Fig. 7, §4.3"
    statement = f"{label.capitalize()} fair share: the changes over Conservative are generally under 5 %"
    changes = {
        (spec, name): percent_improvement(fig[name, "Conservative"][metric], fig[name, spec][metric])
        for spec in ("EASY", "PC", "DC")
        for name in have(fig, spec)
    }
    if not changes:
        return unknown(source, statement, fig, "EASY", "PC", "DC")
    large = sorted(
        ((key, value) for key, value in changes.items() if abs(value) >= 5), key=lambda x: -abs(x[1])
    )
    ours = f"{len(changes) - len(large)} of {len(changes)} (scheduler, trace) changes under 5 %"
    if large:
        ours += "; not " + ", ".join(f"{spec} on {name} {pct(value)}" for (spec, name), value in large)
    verdict = verdict_of(len(changes) - len(large), len(changes))
    return Check(source, statement, ours + gaps(fig, "EASY", "PC", "DC"), verdict, _CLAMP if large else "")


def _wait_count(fig: Figures, spec: str, lead: str, paper: int, statement: str) -> Check:
    """A count claim on mean wait: ``spec`` is on side ``lead`` of Conservative (and, for "better",
    by at least :data:`_DOUBLE` percent) on ``paper`` of the 14 traces."""
    source = "Fig. 8, §4.4"
    traces = have(fig, spec)
    if not traces:
        return unknown(source, statement, fig, spec)
    groups = sides(fig, "mean_wait", spec, traces)
    if lead == "better":
        hits = {name: value for name, value in groups["better"].items() if value >= _DOUBLE}
        ours = f"{spec} gains {_DOUBLE:.0f} % or more on {len(hits)} of {len(traces)}" + (
            f" ({', '.join(f'{n} {pct(v)}' for n, v in hits.items())})" if hits else ""
        )
    else:
        hits = groups[lead]
        ours = f"{spec} " + describe(groups, lead, len(traces))
    verdict = count_verdict(len(hits), paper, len(traces))
    why = ""
    if verdict != "holds":
        share = paper * len(traces) / PAPER_COUNT
        why = f"The paper's share, {paper} of 14, would be {share:.1f} of our {len(traces)} traces."
        if lead == "worse":
            why += f" PC's mean wait is mostly better than Conservative's here.{versions(groups['better'])}"
    return Check(source, statement, ours + gaps(fig, spec), verdict, why)


def _pc_losses(fig: Figures, bound: float, exceptions: int | None, statement: str) -> Check:
    """PC's losses in mean wait are under ``bound`` percent, on all traces or all but ``exceptions``."""
    source = "Fig. 8, §4.4"
    traces = have(fig, "PC")
    if not traces:
        return unknown(source, statement, fig, "PC")
    losses = sides(fig, "mean_wait", "PC", traces)["worse"]
    over = {name: value for name, value in losses.items() if -value >= bound}
    ours = f"PC loses on {len(losses)} of {len(traces)}; by {bound:g} % or more on {len(over)}"
    ours += f" ({', '.join(f'{n} {pct(v)}' for n, v in over.items())})" if over else ""
    if not losses:
        verdict, why = (
            "not checkable",
            "not checkable, because PC loses on no trace of ours, so its losses cannot be bounded.",
        )
    elif exceptions is None:
        verdict, why = verdict_of(len(losses) - len(over), len(losses)), ""
    else:
        rule = '"all but N": holds when no more cases than the paper\'s exceptions disagree'
        verdict, why = judged(rule, "holds" if len(over) <= exceptions else "differs"), ""
    if over and verdict != "holds":
        why = f"PC loses more on {names(over)}.{versions(over)}"
    return Check(source, statement, ours + gaps(fig, "PC"), verdict, why)


#: The paper's main directions, each measured on HPC2N: (source, statement, metric, scheduler, side).
_DIRECTIONS = (
    (
        "Fig. 4, §4.1",
        "DC is worse than Conservative on average strict unfairness",
        "strict_unfairness",
        "DC",
        "worse",
    ),
    (
        "Fig. 4, §4.1",
        "DC is worse than Conservative on average relaxed unfairness",
        "relaxed_unfairness",
        "DC",
        "worse",
    ),
    (
        "Fig. 6, §4.2",
        "PC beats Conservative on average strict unfairness",
        "strict_unfairness",
        "PC",
        "better",
    ),
    (
        "Fig. 6, §4.2",
        "PC beats Conservative on average relaxed unfairness",
        "relaxed_unfairness",
        "PC",
        "better",
    ),
    ("Fig. 7, §4.3", "DC beats Conservative on unweighted fair share", "unweighted_share", "DC", "better"),
    ("Fig. 8, §4.4", "DC beats Conservative on mean wait", "mean_wait", "DC", "better"),
    ("Fig. 8, §4.4", "PC is worse than Conservative on mean wait", "mean_wait", "PC", "worse"),
)


def _extra(fig: Figures) -> list[Check]:
    """The paper's main directions on HPC2N, which it dropped because its FSTs took too long."""
    setting = f"{EXTRA}, a trace the paper dropped"
    return [
        per_trace(
            fig,
            source,
            statement,
            metric,
            spec,
            lambda _, s=want: {s},
            lead=want,
            traces=[EXTRA],
            setting=setting,
        )
        for source, statement, metric, spec, want in _DIRECTIONS
    ]
