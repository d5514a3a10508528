"""The claims of Jin's thesis (2009, ch. 5) that our results check, for ``reproduce.py``.

``checks`` reads the cells of ``reproduce_jin.py`` and of the sweeps (``_jin_sweeps.py``), running the
missing ones unless told not to, and returns one :class:`Check` per claim, judged in the thesis's
setting: the model's workloads at its arrival shapes, exact estimates, its 11 seeds. Rows measured
in another setting of ours (W1 scaled to load 0.9, f-model estimates, the traces) carry ``setting``.
Every figure in ``ours`` and every verdict is computed from the kept results; each check function's
docstring states its rule. The §5.3 sweeps' checks are in ``_jin_sweep_checks.py``.
"""

# ruff: noqa: RUF001, RUF002  (the text is typeset for the docs: minus signs, en dashes, alpha, times)

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import DEFAULT_TRACE_DIR, TRACE_STEMS, Check, verdict_of
from _jin_claims import (
    EARLY_JOBS,
    EARLY_MEAN,
    LATE_JOBS,
    LATE_MEAN,
    _fst_count,
    _fst_mean,
    _runtime,
    _table2,
    _table4,
)
from _jin_common import (
    FMODEL,
    GOALS,
    LOAD09,
    MODEL,
    NOT_RUN,
    TRACE_NAMES,
    TRACE_RUNS,
    Cells,
    Found,
    Groups,
    _better,
    _imp,
    _imp_ml,
    _num,
    _pair,
    _rr,
    _seeds,
    _span,
    missing,
)
from _jin_load_claims import load_statements
from _jin_sweep_checks import late_medium, sweep_checks
from _jin_sweeps import Sweeps, collect_sweeps, sweep_tables
from reproduce_jin import (
    DEFAULT_CACHE,
    HLU,
    SCHEDULERS,
    SEEDS,
    THESIS,
    W1_ALPHA,
    _avg,
    _improvement,
    build_parser,
    collect,
    report,
)

PAPER = "Jin (2009), Backfilling with fairness and slack for parallel job scheduling (M.Sc. thesis, Windsor)"
PAGE = "reproduction-jin.md"

#: The thesis's figures of each workload, by our name for it.
FIGURE = {"W1": "§5.2, Fig. 9, 10", "α 10.43": "§5.4, Fig. 17, 18", "α 10.73": "§5.4, Fig. 19, 20"}
FIGURE["W4"] = "§5.4, Fig. 21, 22"
ALPHA = {name: alpha for alpha, name in MODEL.items()}
WHERE = {"W1": "At W1 (α 10.23)", "W4": "At W4 (α 10.05)", "α 10.43": "At α 10.43", "α 10.73": "At α 10.73"}
CLASS = {"all": (0, "all jobs"), "medium": (1, "medium jobs"), "long": (2, "long jobs")}
SCOJO = (
    "The thesis runs inside Scojo-PECT, a time-slicing scheduler whose RR includes the slices' delays, "
    "so only the direction and rough size of an improvement compare."
)


def _short_jobs(g: Groups, names: list[str]) -> str:
    """Why our all-jobs RR is not the thesis's: the short jobs, with their improvement at ``names``."""
    each = ", ".join(f"{_pair(g[n], _rr('rr_short'))} % ({n})" for n in names if g[n])
    return (
        "Short jobs, the largest class (Table 2: 64 % of the jobs), wait hours for minutes of work and so "
        "set the all-jobs RR (their "
        f"RR improves by {each}, G1 / G2). Here they compete with the medium and long jobs on plain "
        "space sharing; in Scojo-PECT they have their own time slice."
    )


ESTIMATES = (
    "Over-estimates raise the gain: the FSTs, computed from estimates, then lie far beyond the real "
    "starts and the slack stops fewer packings."
)


# --- reading the results --------------------------------------------------------------------------


def _groups(results: dict[tuple[Any, ...], dict[str, dict[str, Any]]]) -> Groups:
    """The complete cells of each workload, by name; a trace's name is "CTC-SP2 user" or "... exact"."""

    def complete(keys: list[tuple[Any, ...]]) -> Cells:
        return [results[k] for k in keys if len(results.get(k, {})) == len(SCHEDULERS)]

    out = {name: complete([("model", a, s, None, "exact") for s in SEEDS]) for a, name in MODEL.items()}
    out[LOAD09] = complete([("model", W1_ALPHA, s, 0.9, "exact") for s in SEEDS])
    out[FMODEL] = complete([("model", W1_ALPHA, s, None, "f-model") for s in SEEDS])
    for est in ("user", "exact"):
        out |= {f"{n} {est}": complete([("trace", TRACE_STEMS[n], est)]) for n in TRACE_NAMES}
    return out


# --- the thesis's improvements, one workload and class at a time ------------------------------------


def _half(ours: float, thesis: float) -> bool:
    """Our improvement agrees with the thesis's when it has its sign and at least half its size."""
    return ours * np.sign(thesis) >= abs(thesis) / 2


def _value(name: str, cls: str) -> Callable[[Groups], Found]:
    """Rule: each goal agrees when our improvement in the class's RR at the workload has the thesis's
    sign and at least half its size."""
    idx, label = CLASS[cls]

    def check(g: Groups) -> Found:
        cells, thesis = g[name], THESIS[ALPHA[name]]
        key = f"rr_{cls}"
        ours = ", ".join(
            f"{s} {_num(_imp(cells, s, key))} % ({_better(cells, s, key)}/{len(cells)} seeds better)"
            for s in GOALS
        )
        ours += f" (offered load {_avg(cells, 'Conservative', 'offered_load'):.2f})"
        agree = [_half(_imp(cells, s, key), thesis[s][idx]) for s in GOALS]
        verdict = verdict_of(sum(agree), len(agree))
        why = ""
        if verdict != "holds":
            why = _short_jobs(g, [name]) if cls == "all" else f"Our {label} gain less than the thesis's."
            if cls == "all":
                why += f" Medium and long jobs together: {_pair(cells, _imp_ml, 1)} %."
            why += " " + SCOJO
        return ours + ".", verdict, why

    return check


def _other_all(names: list[str]) -> Callable[[Groups], Found]:
    """Rule: each (workload, goal) agrees when its all-jobs improvement is at least half W1's in the
    thesis (its sign and half its size)."""

    def check(g: Groups) -> Found:
        runs = [n for n in names if g[n]]
        each = [f"{n.split(' ')[0] if n in TRACE_RUNS else n} {_pair(g[n], _rr('rr_all'))} %" for n in runs]
        if len(runs) == 1 and len(g[runs[0]]) > 1:
            each = [f"{each[0]} ({_seeds(g[runs[0]])} seeds better)"]
        agree = [_half(_imp(g[n], s, "rr_all"), THESIS[W1_ALPHA][s][0]) for n in runs for s in GOALS]
        verdict = verdict_of(sum(agree), len(agree))
        over = any("exact" not in n and n != LOAD09 for n in runs)  # over-estimates: f-model, users'
        why = ESTIMATES if over else _short_jobs(g, runs)
        return "All jobs, G1 / G2: " + "; ".join(each) + ".", verdict, why if verdict != "holds" else ""

    return check


def _medium_long(names: list[str]) -> Callable[[Groups], Found]:
    """Rule: a (workload, goal, class) agrees when the medium or long jobs' RR improves."""

    def check(g: Groups) -> Found:
        runs = [n for n in names if g[n]]
        parts = []
        for key, label in (("rr_medium", "Medium jobs"), ("rr_long", "long jobs")):
            values = [_imp(g[n], s, key) for n in runs for s in GOALS]
            text = f"{label} {_span(values)} %"
            if all(len(g[n]) > 1 for n in runs):
                counts = [(_better(g[n], s, key), len(g[n])) for n in runs for s in GOALS]
                low, high = min(c[0] for c in counts), max(c[0] for c in counts)
                text += f", better in {low if low == high else f'{low}–{high}'} of {counts[0][1]} seeds"
            parts.append(text)
        shown = [n.split(" ")[0] if n in TRACE_RUNS else n for n in runs]
        where = "at every thesis α" if runs == list(MODEL.values()) else "on " + ", ".join(shown)
        agree = [_imp(g[n], s, k) > 0 for n in runs for s in GOALS for k in ("rr_medium", "rr_long")]
        verdict = verdict_of(sum(agree), len(agree))
        return "; ".join(parts) + f" ({where}).", verdict, "" if verdict == "holds" else SCOJO

    return check


def _similar(g: Groups) -> Found:
    """Rule: each goal agrees when its medium and long jobs' improvements at W1 differ by no more than
    the thesis's largest gap between the two (G1: 7.89 against 10.49 %)."""
    thesis = THESIS[W1_ALPHA]
    limit = max(abs(thesis[s][1] - thesis[s][2]) for s in GOALS)
    gaps = {s: _imp(g["W1"], s, "rr_long") - _imp(g["W1"], s, "rr_medium") for s in GOALS}
    ours = ", ".join(
        f"{s} medium {_num(_imp(g['W1'], s, 'rr_medium'))} %, long {_num(_imp(g['W1'], s, 'rr_long'))} %"
        for s in GOALS
    )
    gap = " / ".join(_num(gaps[s]) for s in GOALS)
    ours += f": long − medium {gap} points, against ≤ {limit:.2f} in the thesis."
    agree = [abs(x) <= limit for x in gaps.values()]
    verdict = verdict_of(sum(agree), len(agree))
    why = "Our long jobs gain more than our medium jobs. " + SCOJO
    return ours, verdict, "" if verdict == "holds" else why


def _g2_vs_g1(names: list[str]) -> Callable[[Groups], Found]:
    """Rule: a run (seed, or trace) agrees when G2's all-jobs RR is below G1's."""

    def check(g: Groups) -> Found:
        runs = [n for n in names if g[n]]
        cases = [c["G2"]["rr_all"] < c["G1"]["rr_all"] for n in runs for c in g[n]]
        if runs == ["W1"]:
            gap = _imp(g["W1"], "G2", "rr_all") - _imp(g["W1"], "G1", "rr_all")
            _, _, low, high = _improvement(g["W1"], "G1", "rr_all")
            ours = (
                f"G2's all-jobs RR is below G1's on {sum(cases)} of {len(cases)} seeds of W1; G2 − G1 of "
                f"the seed-mean improvements {_num(gap)} points, while G1's per-seed improvements range "
                f"from {_num(low, 1)} to {_num(high, 1)} %."
            )
            other = [n for n in MODEL.values() if n != "W1" and g[n]]
            if other:
                ahead = sum(c["G2"]["rr_all"] < c["G1"]["rr_all"] for n in other for c in g[n])
                total = sum(len(g[n]) for n in other)
                ours += f" At the other thesis α: {ahead} of {total} runs."
        else:
            ahead = [n.split(" ")[0] for n in runs if g[n][0]["G2"]["rr_all"] < g[n][0]["G1"]["rr_all"]]
            behind = [n.split(" ")[0] for n in runs if n.split(" ")[0] not in ahead]
            ours = f"G2 ahead on {' and '.join(ahead) or 'none'}, behind on {' and '.join(behind) or 'none'}."
        verdict = verdict_of(sum(cases), len(cases))
        why = (
            f"The thesis's own W4 figures have G1 ahead for all jobs ({THESIS[10.05]['G1'][0]} against "
            f"{THESIS[10.05]['G2'][0]} %). The thesis does not give the goals' ratio criteria: ours are "
            "G1 1.1 / 1.1 / 1.01 and G2 1.1 / 1.0 / 1.0 (overall unfairness, skip unfairness, utilization)."
        )
        return ours, verdict, "" if verdict == "holds" else why

    return check


def _light(g: Groups) -> Found:
    """Rule: at each light α (10.43, 10.73) and goal, ours agrees when the all-jobs improvement is
    smaller than at W1."""
    names = [n for n in ("W1", "α 10.43", "α 10.73") if g[n]]
    ours = "All jobs: " + ", ".join(f"{_pair(g[n], _rr('rr_all'))} % ({n})" for n in names) + "."
    agree = [_imp(g[n], s, "rr_all") < _imp(g["W1"], s, "rr_all") for n in names[1:] for s in GOALS]
    verdict = verdict_of(sum(agree), len(agree))
    return ours, verdict, "" if verdict == "holds" else _short_jobs(g, names)


def _heavier(g: Groups) -> Found:
    """Rule: at each light α (10.43, 10.73) and goal, ours agrees when W4 (α 10.05) improves all jobs'
    RR more."""
    names = [n for n in ("W4", "α 10.43", "α 10.73") if g[n]]
    ours = "All jobs: " + ", ".join(f"{_pair(g[n], _rr('rr_all'))} % ({n})" for n in names) + "."
    agree = [_imp(g["W4"], s, "rr_all") > _imp(g[n], s, "rr_all") for n in names[1:] for s in GOALS]
    verdict = verdict_of(sum(agree), len(agree))
    return ours, verdict, "" if verdict == "holds" else _short_jobs(g, names)


def _w2_w4(measure: str) -> Callable[[Groups], Found]:
    """Rule: each goal agrees when W2 gains more than W4 (all jobs; or medium and long jobs together)."""
    f = _rr("rr_all") if measure == "all" else _imp_ml

    def check(g: Groups) -> Found:
        ours = f"W2 {_pair(g['W2'], f)} % against W4 {_pair(g['W4'], f)} % (G1 / G2)"
        if measure != "all" and g[LOAD09]:
            ours += f"; W1 scaled to load 0.9: {_pair(g[LOAD09], f)} %"
        agree = [f(g["W2"], s) > f(g["W4"], s) for s in GOALS]
        verdict = verdict_of(sum(agree), len(agree))
        why = _short_jobs(g, ["W2", "W4"]) if measure == "all" else SCOJO
        return ours + ".", verdict, "" if verdict == "holds" else why

    return check


def _utilization(names: list[str], threshold: float) -> Callable[[Groups], Found]:
    """Rule: a run (seed or trace, goal) agrees when its high-load utilization is above Conservative's."""

    def check(g: Groups) -> Found:
        runs = [n for n in names if g[n]]
        rise = [100 * (_avg(g[n], s, HLU) - _avg(g[n], "Conservative", HLU)) for n in runs for s in GOALS]
        moved = [
            abs(100 * (_avg(g[n], s, "utilization") - _avg(g[n], "Conservative", "utilization")))
            for n in runs
            for s in GOALS
        ]
        agree = [c[s][HLU] > c["Conservative"][HLU] for n in runs for c in g[n] for s in GOALS]
        ours = (
            f"High-load utilization (≥ {threshold:g} waiting jobs) rises by {_span(rise, 1, False)} points, "
            f"higher in {sum(agree)} of {len(agree)} runs (seed or trace × goal); overall utilization "
            f"moves by at most {max(moved):.1f} point."
        )
        why = (
            f"The thesis does not give N_H, the queue length from which load counts as high; ours is "
            f"{threshold:g} waiting jobs."
        )
        return ours, verdict_of(sum(agree), len(agree)), why

    return check


def _ten_percent(g: Groups) -> Found:
    """Rule: a (thesis α, goal) agrees when its all-jobs improvement is between 5 and 15 %."""
    names = [n for n in MODEL.values() if g[n]]
    values = [_imp(g[n], s, "rr_all") for n in names for s in GOALS]
    ours = f"All jobs: {_span(values)} % at the thesis's α (G1 and G2)."
    agree = [5 <= x <= 15 for x in values]
    verdict = verdict_of(sum(agree), len(agree))
    return ours, verdict, "" if verdict == "holds" else _short_jobs(g, names)


# --- the claims -------------------------------------------------------------------------------------

EVERY_MODEL = list(MODEL.values())
USER = [f"{n} user" for n in TRACE_NAMES]
EXACT = [f"{n} exact" for n in TRACE_NAMES]
OTHER = {LOAD09: "W1 scaled to offered load 0.9", FMODEL: "W1 with f-model estimates"}
OTHER |= {"user": "the traces with their users' estimates", "exact": "the traces with exact estimates"}


def _runs(key: str) -> list[str]:
    return {"user": USER, "exact": EXACT}.get(key, [key])


Row = tuple[str, str, list[str], Callable[[Groups], Found], str]


def statements(threshold: float, sweeps: Sweeps) -> list[Row]:
    """(source, the thesis's claim, the workloads it needs, the check, the other setting or "")."""
    rows: list[Row] = []
    for name in ("W1", "α 10.43", "α 10.73", "W4"):
        thesis = THESIS[ALPHA[name]]
        for cls, (idx, label) in CLASS.items():
            claim = (
                f"{WHERE[name]} the lookahead improves the "
                f"average RR of {label} by {thesis['G1'][idx]} % (G1) and {thesis['G2'][idx]} % (G2)"
            )
            rows.append((FIGURE[name], claim, [name], _value(name, cls), ""))
        if name == "W1":
            claim = "Lookahead with slack improves the average RR of all jobs (W1: G1 6.92 %, G2 8.13 %)"
            for other in OTHER:
                rows.append((FIGURE[name], claim, _runs(other), _other_all(_runs(other)), OTHER[other]))
            benefit = "It benefits both medium and long jobs"
            rows.append(("§5.2", benefit, EVERY_MODEL, _medium_long(EVERY_MODEL), ""))
            for other in OTHER:
                rows.append(("§5.2", benefit, _runs(other), _medium_long(_runs(other)), OTHER[other]))
            rows.append(("§5.2", "Medium and long jobs gain similarly (W1)", ["W1"], _similar, ""))
            rows.append(("§5.2", "G2 performs a little better than G1 (W1)", ["W1"], _g2_vs_g1(["W1"]), ""))
            for other in ("user", "exact"):
                rows.append(
                    (
                        "§5.2",
                        "G2 performs a little better than G1",
                        _runs(other),
                        _g2_vs_g1(_runs(other)),
                        OTHER[other],
                    )
                )
            rows.append(
                (
                    "§5.2",
                    "The lookahead costs ≈ 40 % more run time (10 against 7 minutes)",
                    ["W1"],
                    _runtime,
                    "",
                )
            )
    rows += [
        (
            "§5.4, Fig. 17–20",
            "At light load (α 10.43, 10.73) the improvement is smaller than at W1",
            ["W1", "α 10.43", "α 10.73"],
            _light,
            "",
        ),
        (
            "§5.4, Fig. 17–22",
            "The improvement is higher at α 10.05 (W4) than at α 10.43 or 10.73",
            ["W4", "α 10.43", "α 10.73"],
            _heavier,
            "",
        ),
        (
            "§5.4, Fig. 23, 24",
            "The heaviest load is not the best: W2 gains more than W4 (all jobs)",
            ["W2", "W4"],
            _w2_w4("all"),
            "",
        ),
        ("§5.4, Fig. 23, 24", "W2 gains more than W4 (medium and long jobs)", ["W2", "W4"], _w2_w4("ml"), ""),
        (
            "§4.2",
            "The lookahead raises utilization while many jobs wait (its aim)",
            EVERY_MODEL,
            _utilization(EVERY_MODEL, threshold),
            "",
        ),
    ]
    for other in (LOAD09, FMODEL, "user", "exact"):
        rows.append(
            (
                "§4.2",
                "The lookahead raises utilization while many jobs wait",
                _runs(other),
                _utilization(_runs(other), threshold),
                OTHER[other],
            )
        )
    rows += [
        (
            "§5.4",
            f"About {LATE_JOBS} of 10,000 jobs start after their fair start time (FST)",
            EVERY_MODEL,
            _fst_count("late_jobs", LATE_JOBS, "late"),
            "",
        ),
        (
            "§5.4",
            f"The late jobs start ≈ {LATE_MEAN:.0f} s after their FST on average",
            EVERY_MODEL,
            _fst_mean("late_mean", LATE_MEAN, "late"),
            "",
        ),
        (
            "§5.4",
            "About 500 of the ≈ 800 late jobs are medium jobs",
            ["W1"],
            lambda g: late_medium(sweeps),
            "",
        ),
        (
            "§5.4",
            f"About {EARLY_JOBS} of 10,000 jobs start before their FST",
            EVERY_MODEL,
            _fst_count("early_jobs", EARLY_JOBS, "early"),
            "",
        ),
        (
            "§5.4",
            f"The early jobs start ≈ {EARLY_MEAN:,.0f} s before their FST on average",
            EVERY_MODEL,
            _fst_mean("early_mean", EARLY_MEAN, "early"),
            "",
        ),
        (
            "Ch. 6",
            "The scheduler improves average response times by about 10 % over Conservative",
            EVERY_MODEL,
            _ten_percent,
            "",
        ),
        (
            "Table 2",
            "64 / 19.5 / 16.5 % of the jobs are short / medium / long",
            ["W1"],
            _table2(
                ["jobs_share_short", "jobs_share_medium", "jobs_share_long"], "short / medium / long jobs"
            ),
            "",
        ),
        (
            "Table 2",
            "Short / medium / long jobs carry 0.5 / 26.0 / 73.5 % of the work",
            ["W1"],
            _table2(["work_share_short", "work_share_medium", "work_share_long"], "of the work"),
            "",
        ),
        ("Table 2", "24 % of the jobs are serial", ["W1"], _table2(["serial_share"], "serial jobs"), ""),
        (
            "Table 2",
            "75 % of the parallel jobs have a power-of-two size",
            ["W1"],
            _table2(["pow2_share"], "powers of two among parallel jobs"),
            "",
        ),
        (
            "Table 4",
            "Utilization is 85.29 / 76.43 / 71.90 / 63.29 % at α 10.05 / 10.33 / 10.43 / 10.73",
            ["W4", "W2", "α 10.43", "α 10.73"],
            _table4,
            "",
        ),
    ]
    return rows + load_statements(sweeps)


def checks(
    trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE, *, workers: int = 2, run: bool = True
) -> list[Check]:
    """Return the thesis's claims that our results check, beside ours.

    Args:
        trace_dir: Where the archive traces are.
        cache: ``reproduce_jin.py``'s cache of cells (the sweeps' cells are kept there too).
        workers: Processes for the grid's cells still to simulate (the sweeps run one at a time).
        run: Simulate and cache the missing cells first; when False, use only what is kept.

    Returns:
        One check per claim in the thesis's setting, and further checks in other settings of ours
        (``setting``). A claim whose workloads are not all kept is "not checkable"; the traces a
        row needs are read as far as they are kept, the row saying which are missing.
    """
    args = build_parser().parse_args([])
    args.trace_dir, args.cache = Path(trace_dir), Path(cache)
    args.workers, args.report_only = workers, not run
    if run:
        args.cache.mkdir(parents=True, exist_ok=True)
    g = _groups(collect(args))
    sweeps = collect_sweeps(Path(cache), run=run)
    out = []
    for source, statement, names, check, setting in statements(args.threshold, sweeps):
        traces = all(n in TRACE_RUNS for n in names)
        ready = any(g[n] for n in names) if traces else all(g[n] for n in names)
        if not ready:
            out.append(
                Check(source, statement, "not run yet" + missing(g, names), "not checkable", NOT_RUN, setting)
            )
            continue
        ours, verdict, why = check(g)
        out.append(Check(source, statement, ours + missing(g, names), verdict, why, setting))
    # The §5.3 claims after §5.2's, in the thesis's order.
    at = next(i for i, c in enumerate(out) if c.source.startswith("§5.4"))
    return out[:at] + sweep_checks(sweeps) + out[at:]


def tables(trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE) -> str:
    """Return the page's tables, from the kept results only (``reproduce.py`` puts them in the page)."""
    args = build_parser().parse_args([])
    args.trace_dir, args.cache, args.report_only = Path(trace_dir), Path(cache), True
    main = report(collect(args), args).replace("\n## ", "\n### ")
    return main + "\n### The §5.3 sweeps\n\n" + sweep_tables(Path(cache)).replace("\n### ", "\n#### ") + "\n"
