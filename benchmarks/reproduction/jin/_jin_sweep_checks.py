"""The claims of Jin's §5.3 (Fig. 11-16 and the other slack parameters) checked on the sweeps of
``_jin_sweeps.py``, for ``_checks_jin.py``. Each check's docstring states its rule."""

# ruff: noqa: RUF001  (the text is typeset for the docs: minus signs, en dashes)

from __future__ import annotations

from collections.abc import Callable

from _common import Check, verdict_of
from _jin_common import GOALS, NOT_RUN, _num
from _jin_sweeps import DEFAULTS, DEPTHS, OTHERS, SLACKS, Sweeps, improvement, seeds_of
from reproduce_jin import SEEDS

#: How close two improvements (points of percent) must be to count as "almost the same": our reading.
SAME = 1.0
NAMES = {"down": "SLACK_DOWN", "minimal": "SLACK_MINIMAL", "k1": "K1", "k2": "K2"}
SHORT_JOBS = (
    "Our all-jobs RR follows the short jobs, which compete with the rest on plain space sharing; in the "
    "thesis's Scojo-PECT they have their own time slice."
)


def _curve(sweeps: Sweeps, workload: str, goal: str, param: str, values: tuple[float, ...]) -> str:
    """ "5: +1.20, 10: +0.40 %" for the values run, with how many seeds when not all."""
    parts = []
    for value in values:
        x = improvement(sweeps, workload, goal, param, value)
        n = seeds_of(sweeps, workload, goal, param, value)
        if n:
            parts.append(
                f"{value:g}: {_num(x)}" + ("" if n == len(SEEDS) else f" ({n} of {len(SEEDS)} seeds)")
            )
    return ", ".join(parts) + " %"


Test = Callable[[float, float], bool]


def _sweep(
    workload: str,
    goal: str,
    param: str,
    pick: tuple[float, ...],
    at: float,
    test: Test,
    rule: str,
    *,
    best: bool = False,
) -> Callable[[Sweeps], tuple[str, str, str]]:
    """A check comparing the improvement at each value of ``pick`` with that at ``at`` by ``test``.

    With ``best`` (the claim is that ``at`` gives the best RR) the check's reason says so when every
    value run is worse than Conservative: the best of them is then the least loss, not a gain."""

    def check(sweeps: Sweeps) -> tuple[str, str, str]:
        ref = improvement(sweeps, workload, goal, param, at)
        done = [v for v in pick if seeds_of(sweeps, workload, goal, param, v)]
        agree = [test(improvement(sweeps, workload, goal, param, v), ref) for v in done]
        values = DEPTHS if param == "lookahead" else SLACKS if param == "up" else OTHERS[param]
        by = "depth" if param == "lookahead" else "value"
        ours = f"All-jobs RR improvement over Conservative, {goal} at {workload}, by {by}: "
        ours += _curve(sweeps, workload, goal, param, values) + f". {rule}: {sum(agree)} of {len(done)}."
        run = [
            improvement(sweeps, workload, goal, param, v)
            for v in values
            if seeds_of(sweeps, workload, goal, param, v)
        ]
        note = ""
        if best and run and max(run) < 0:
            what = "depth" if param == "lookahead" else "slack factor"
            span = f"({_num(max(run))} to {_num(min(run))} %)"
            note = f"Every {what} run is worse than Conservative here {span}: " + (
                f"{what} {at:g} is the best only as the smallest loss, not as a gain over Conservative."
                if max(run) == ref
                else f"none gains over Conservative, {what} {at:g} included."
            )
        return ours, verdict_of(sum(agree), len(agree)), note

    return check


def _rows() -> list[
    tuple[str, str, str, tuple[str, str, str, float], Callable[[Sweeps], tuple[str, str, str]]]
]:
    """(source, the thesis's claim, why it might differ, the cell that must be there, the check)."""
    rows = []
    below = lambda x, ref: x < ref  # noqa: E731
    same = lambda x, ref: abs(x - ref) <= SAME  # noqa: E731
    not_better = lambda x, ref: x <= ref + SAME  # noqa: E731
    for workload, best, figs in (("W1", 20, (11, 12)), ("W2", 30, (13, 14))):
        smaller = tuple(d for d in DEPTHS if d < best)
        larger = tuple(d for d in DEPTHS if d > best)
        for goal, fig in zip(GOALS, figs, strict=True):
            src = f"§5.3, Fig. {fig}"
            rows.append(
                (
                    src,
                    f"At {workload} with {goal}, looking ahead {best} jobs gives the best RR",
                    "",
                    (workload, goal, "lookahead", best),
                    _sweep(
                        workload,
                        goal,
                        "lookahead",
                        smaller,
                        best,
                        below,
                        f"Depths below {best} improving less than {best}",
                        best=True,
                    ),
                )
            )
            rows.append(
                (
                    src,
                    f"At {workload} with {goal}, looking further than {best} jobs leaves the RR "
                    "almost the same",
                    "",
                    (workload, goal, "lookahead", larger[0]),
                    _sweep(
                        workload,
                        goal,
                        "lookahead",
                        larger,
                        best,
                        same,
                        f"Deeper lookaheads within {SAME:g} point of {best}'s",
                    ),
                )
            )
    for goal, fig in zip(GOALS, (15, 16), strict=True):
        src = f"§5.3, Fig. {fig}"
        rows.append(
            (
                src,
                f"At W1 with {goal}, a smaller slack factor gives a higher RR; the best is at 1.5",
                "",
                ("W1", goal, "up", 1.0),
                _sweep(
                    "W1",
                    goal,
                    "up",
                    tuple(v for v in SLACKS if v < 1.5),
                    1.5,
                    below,
                    "Factors below 1.5 improving less than 1.5",
                    best=True,
                ),
            )
        )
        rows.append(
            (
                src,
                f"At W1 with {goal}, a slack factor above 1.5 gives about the same RR or a worse one",
                ABOVE,
                ("W1", goal, "up", 2.0),
                _sweep(
                    "W1",
                    goal,
                    "up",
                    tuple(v for v in SLACKS if v > 1.5),
                    1.5,
                    not_better,
                    f"Factors above 1.5 not better than 1.5 by more than {SAME:g} point",
                ),
            )
        )
    for param, name in NAMES.items():
        for goal in GOALS:
            others = tuple(v for v in OTHERS[param] if v != DEFAULTS[param])
            rows.append(
                (
                    "§5.3",
                    f"Changing {name} (Table 3: {DEFAULTS[param]:g}) does not change the "
                    f"performance significantly ({goal})",
                    "",
                    ("W1", goal, param, others[0]),
                    _sweep(
                        "W1",
                        goal,
                        param,
                        others,
                        DEFAULTS[param],
                        same,
                        f"Values within {SAME:g} point of Table 3's",
                    ),
                )
            )
    return rows


WHY = {
    "lookahead": "The thesis's figures are bar charts whose values the text does not give, nor the "
    "depths plotted besides 20 and 30 (ours are 5 to 50), nor which jobs' RR they plot: we judge all "
    "jobs', the thesis's headline measure, and give the medium and long jobs' in the sweep tables. "
    + SHORT_JOBS,
    "up": "The thesis names the factors 1 and 1.5 only (ours are 1 to 2), not which jobs' RR its figures "
    "plot: we judge all jobs', and give the medium and long jobs' in the sweep tables. " + SHORT_JOBS,
}
#: Said of the factors above 1.5 whatever the verdict: the row tests little.
ABOVE = (
    "Above 1.5 the factor applies, as §5.3 says, only to medium jobs shorter than an hour expected to wait "
    "under two hours (their K2 raised to the factor − 1.2, since Table 3's K2 caps eq. 5 at 1.6). Such "
    "jobs are seldom the ones a packing pushes back, so the RR hardly moves and the row tests little."
)


def late_medium(sweeps: Sweeps) -> tuple[str, str, str]:
    """Rule: each goal agrees when the medium jobs' share of its late jobs at W1 (Table 3's settings) is
    within 10 points of the thesis's 500 of 800 (62.5 %)."""
    cells = {goal: sweeps.get(("W1", goal, "classes", 20.0), {}) for goal in GOALS}
    if not all(cells.values()):
        return "not run yet", "not checkable", NOT_RUN
    share: dict[str, dict[str, float]] = {}
    for goal, runs in cells.items():
        late = sum(c["late_jobs"] for c in runs.values())
        share[goal] = {
            cls: 100 * sum(c[f"late_{cls}"] for c in runs.values()) / late if late else float("nan")
            for cls in ("short", "medium", "long")
        }
    n = min(len(runs) for runs in cells.values())
    ours = "Of the late jobs at W1, " + "; ".join(
        f"{goal}: " + " / ".join(f"{share[goal][c]:.0f}" for c in ("short", "medium", "long")) + " %"
        for goal in GOALS
    )
    ours += f" are short / medium / long ({n} seeds" + ("" if n == len(SEEDS) else f" of {len(SEEDS)}") + ")."
    agree = [abs(share[g]["medium"] - 62.5) <= 10 for g in GOALS]
    verdict = verdict_of(sum(agree), len(agree))
    why = (
        "In Scojo-PECT each class has its own time slice, and its FSTs and delays are of that schedule; "
        "here the classes share one queue."
    )
    return ours, verdict, "" if verdict == "holds" else why


def sweep_checks(sweeps: Sweeps) -> list[Check]:
    """The §5.3 claims, one check per figure and claim, from the sweeps."""
    out = []
    for source, statement, note, (workload, goal, param, value), check in _rows():
        if not seeds_of(sweeps, workload, goal, param, value) or not seeds_of(
            sweeps, workload, goal, param, DEFAULTS[param]
        ):
            out.append(Check(source, statement, "not run yet", "not checkable", NOT_RUN))
            continue
        ours, verdict, loss = check(sweeps)
        if param in WHY:
            why = " ".join(x for x in (loss, note, WHY[param] if verdict != "holds" else "") if x)
        else:
            tried = ", ".join(f"{v:g}" for v in OTHERS[param])
            why = f"The thesis gives none of the values it tried; ours are {tried}. 'Significantly' is read "
            why += f"as more than {SAME:g} point of improvement over Conservative."
        out.append(Check(source, statement, ours, verdict, why))
    return out
