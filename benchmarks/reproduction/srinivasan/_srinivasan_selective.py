"""Srinivasan et al. (2002) §4: the checks of Fig. 3 to 6, the Selective schemes against Conservative and
EASY, one :class:`~_common.Check` per claim. The paper's Fig. 3 and 5 are SDSC at high load (our x1.2),
with exact and with user estimates; its Fig. 4 and 6 are its traces at several loads (ours x1, x1.1,
x1.2)."""

from __future__ import annotations

from typing import Any

from _common import ONE, Check, judged, verdict_of
from _srinivasan_common import (
    CTC_LOAD,
    HIGH,
    NAMES,
    NORMAL,
    PAPER_TRACE,
    USER,
    and_,
    beats,
    cells,
    chg,
    f,
    fs,
    missing,
    so_far,
    vs,
)
from reproduce_srinivasan import DEFAULT_LOADS

from backfill.measures.groups import CATEGORIES

_Group = dict[str, Any]
_SLIGHT = 25.0  # a "slight" degradation: a change of at most this many percent
_SIGN_AND_SIZE = (
    f'"a slight degradation": holds for a change above 0 and at most {_SLIGHT:g} %, partly when larger'
)
_OTHERS = "the other traces (CTC, KTH, LANL), high load, exact estimates"
#: Fig. 4 and 6's captions: the Selective schemes "outperform conservative and EASY backfilling
#: especially under high load". Not a claim about every case, and not a plain majority either: the
#: high load is where the paper stresses it.
ESPECIALLY = (
    '"outperform, especially under high load": holds when at least three quarters of all cases agree '
    "and every high-load case does, partly when at least half of all cases agree"
)


def especially(agree: int, total: int, high_agree: int, high_total: int) -> str:
    """Verdict on "outperform ... especially under high load" (:data:`ESPECIALLY`): most of the
    ``total`` cases at every load, and every one of the ``high_total`` cases at high load.

    >>> especially(32, 36, 10, 12)
    'partly'
    >>> especially(35, 36, 12, 12)
    'holds'
    """
    if 4 * agree >= 3 * total and high_agree == high_total:
        verdict = "holds"
    else:
        verdict = "partly" if 2 * agree >= total else "differs"
    return judged(ESPECIALLY, verdict)


def _sdsc(groups: dict[str, _Group], estimates: str) -> _Group | None:
    return cells(groups, HIGH, estimates, NAMES).get(PAPER_TRACE)


def _where(estimates: str) -> str:
    return f"SDSC x{HIGH:g}, {estimates} estimates"


def fig3_overall(groups: dict[str, _Group]) -> list[Check]:
    source = "Fig. 3a"
    statement = (
        "SDSC, high load, exact estimates: Sel cuts the overall slowdown by at least 45 % against "
        "Conservative and against EASY"
    )
    all_cells = cells(groups, HIGH, "exact", NAMES)
    if PAPER_TRACE not in all_cells:
        return [missing(source, statement)]
    cut = {n: (chg(g, "Sel"), vs(g, "Sel", "EASY")) for n, g in all_cells.items()}
    c, e = cut[PAPER_TRACE]
    easy = chg(all_cells[PAPER_TRACE], "EASY")
    text = f"{_where('exact')}: Sel {f(c)} % against Conservative, {f(e)} % against EASY (EASY {f(easy)} %)"
    out = [Check(source, statement, text, verdict_of((c <= -45) + (e <= -45), 2, most=1.0))]
    others = {n: ce for n, ce in cut.items() if n != PAPER_TRACE}
    if others:
        agree = [n for n, (c, e) in others.items() if c <= -45 and e <= -45]
        text = "; ".join(f"{n} {f(c)} / {f(e)} %" for n, (c, e) in others.items())
        text += f" (against Conservative / EASY); at least 45 % against both on {len(agree)} of {len(others)}"
        statement = "Sel cuts the overall slowdown by at least 45 % against Conservative and EASY"
        out.append(Check(source, statement, text, verdict_of(len(agree), len(others)), "", _OTHERS))
    return out


def _categories_beaten(g: _Group, scheme: str, cats: tuple[str, ...], metric: str) -> tuple[int, list[str]]:
    agree, off = 0, []
    for cat in cats:
        ok = beats(g, scheme, metric, cat)
        agree += sum(ok)
        off += [f"{cat} {f(chg(g, scheme, metric, cat))} % ({'EASY' if ok[0] else 'Conservative'})"] * (
            not all(ok)
        )
    return agree, off


def fig3_categories(groups: dict[str, _Group]) -> list[Check]:
    """Fig. 3a's four claims on SDSC: Sel improves SN, SW and LN; its LW degrades slightly; Sel-D
    improves all four; Sel-D's gains in the other categories are slightly smaller than Sel's."""
    all_cells = cells(groups, HIGH, "exact", NAMES)
    g = all_cells.get(PAPER_TRACE)
    statements = [
        "SDSC, high load, exact estimates: Sel improves the SN, SW and LN slowdowns against Conservative "
        "and EASY",
        "SDSC, high load, exact estimates: Sel degrades the LW slowdown slightly",
        "SDSC, high load, exact estimates: Sel-D improves the slowdown of all four categories, LW included, "
        "against Conservative and EASY",
        "SDSC, high load, exact estimates: Sel-D's gains in SN, SW and LN are slightly smaller than Sel's",
    ]
    if g is None:
        return [missing("Fig. 3a", s) for s in statements]
    out = []
    sel = [chg(g, "Sel", cat=c) for c in CATEGORIES]
    sel_d = [chg(g, "Sel-D", cat=c) for c in CATEGORIES]
    easy = [chg(g, "EASY", cat=c) for c in CATEGORIES]
    head = f"{_where('exact')}, SN / SW / LN / LW against Conservative: "
    agree, off = _categories_beaten(g, "Sel", ("SN", "SW", "LN"), "mean_bsld")
    text = head + f"Sel {fs(sel)} %, EASY {fs(easy)} %; below both in {agree} of 6 cases"
    why = f"Not below: {', '.join(off)}." if off else ""
    out.append(Check("Fig. 3a", statements[0], text, verdict_of(agree, 6, most=1.0), why))
    lw = sel[3]
    ok = 0 < lw <= _SLIGHT
    text = f"{_where('exact')}: Sel's LW slowdown {f(lw)} % against Conservative"
    why = ""
    if lw > 0 and not ok:
        why = f"A degradation, but more than slight (over {_SLIGHT:g} %)."
    elif not ok:
        worse = [n for n, c in all_cells.items() if chg(c, "Sel", cat="LW") > 0]
        why = (
            f"Our Sel improves the LW jobs on SDSC; at x{HIGH:g} it degrades them on {and_(worse)} ("
            + ", ".join(f"{n} {f(chg(all_cells[n], 'Sel', cat='LW'))} %" for n in worse)
            + ")."
            if worse
            else "Our Sel improves the LW jobs on every trace."
        )
    verdict = judged(_SIGN_AND_SIZE, "holds" if ok else ("partly" if lw > 0 else "differs"))
    out.append(Check("Fig. 3a", statements[1], text, verdict, why))
    agree, off = _categories_beaten(g, "Sel-D", CATEGORIES, "mean_bsld")
    text = head + f"Sel-D {fs(sel_d)} %; below Conservative and EASY in {agree} of 8 cases"
    why = f"Not below: {', '.join(off)}." if off else ""
    out.append(Check("Fig. 3a", statements[2], text, verdict_of(agree, 8, most=1.0), why))
    smaller = [c for c, s, d in zip(CATEGORIES[:3], sel, sel_d, strict=False) if s < d < 0]
    text = (
        f"{_where('exact')}, SN / SW / LN: Sel {fs(sel[:3])} %, Sel-D {fs(sel_d[:3])} %; Sel-D's gain "
        f"smaller in {len(smaller)} of 3"
    )
    out.append(Check("Fig. 3a", statements[3], text, verdict_of(len(smaller), 3, most=1.0)))
    others = {n: c for n, c in all_cells.items() if n != PAPER_TRACE}
    if others:
        parts, agree, total, off = [], 0, 0, []
        for n, c in others.items():
            s = [chg(c, "Sel", cat=k) for k in CATEGORIES]
            d = [chg(c, "Sel-D", cat=k) for k in CATEGORIES]
            signs = {f"Sel {k}": x < 0 for k, x in zip(CATEGORIES[:3], s, strict=False)}
            signs |= {"Sel LW": s[3] > 0} | {f"Sel-D {k}": x < 0 for k, x in zip(CATEGORIES, d, strict=True)}
            off += [f"{name} on {n}" for name, ok in signs.items() if not ok]
            agree, total = agree + sum(signs.values()), total + len(signs)
            parts.append(f"{n}: Sel {fs(s)}, Sel-D {fs(d)} %")
        statement = (
            "Sel improves SN, SW and LN and degrades LW; Sel-D improves all four (against Conservative)"
        )
        text = "; ".join(parts) + f"; {agree} of {total} signs as stated"
        why = f"Not as stated: {', '.join(off)}." if off else ""
        # "all four" (and Fig. 3a's categories) is a claim about every case: every sign must agree.
        out.append(Check("Fig. 3a", statement, text, verdict_of(agree, total, most=1.0), why, _OTHERS))
    return out


def _same_trends(groups: dict[str, _Group], source: str, label: str, metric: str) -> Check:
    """Fig. 3a's trends (Sel below Conservative and EASY in SN, SW and LN, Sel-D in all four) in another
    of Fig. 3's measures."""
    statement = (
        f"SDSC, high load, exact estimates: the same trends for {label} (Sel improves SN, SW and LN, "
        "Sel-D all four, against Conservative and EASY)"
    )
    g = _sdsc(groups, "exact")
    if g is None:
        return missing(source, statement)
    a, off_a = _categories_beaten(g, "Sel", ("SN", "SW", "LN"), metric)
    b, off_b = _categories_beaten(g, "Sel-D", CATEGORIES, metric)
    sel = [chg(g, "Sel", metric, c) for c in CATEGORIES]
    sel_d = [chg(g, "Sel-D", metric, c) for c in CATEGORIES]
    easy = [chg(g, "EASY", metric, c) for c in CATEGORIES]
    text = (
        f"{_where('exact')}, {label} SN / SW / LN / LW against Conservative: Sel {fs(sel)}, Sel-D "
        f"{fs(sel_d)}, EASY {fs(easy)} %; {a + b} of 14 cases as stated"
    )
    why = ""
    if off_a or off_b:
        why = "Not below both: " + ", ".join([f"Sel's {x}" for x in off_a] + [f"Sel-D's {x}" for x in off_b])
    return Check(source, statement, text, verdict_of(a + b, 14), why + ("." if why else ""))


def fig3_turnaround(groups: dict[str, _Group]) -> Check:
    return _same_trends(groups, "Fig. 3b", "turnaround", "mean_response")


def fig3_worst_trends(groups: dict[str, _Group]) -> Check:
    """§4.2: "similar trends are observed when comparing ... worst case slowdowns" (Fig. 3c)."""
    return _same_trends(groups, "Fig. 3c", "the worst-case slowdown", "max_bsld")


def fig3_worst(groups: dict[str, _Group]) -> list[Check]:
    source = "Fig. 3c"
    statements = [
        "SDSC, high load, exact estimates: Sel-D cuts the worst-case slowdown of every category "
        "dramatically against EASY",
        "SDSC, high load, exact estimates: Sel-D's worst-case slowdown is much lower than Conservative's "
        "in SN, LN and LW",
        "SDSC, high load, exact estimates: not so in SW (Sel-D's worst-case SW slowdown not lower than "
        "Conservative's)",
    ]
    g = _sdsc(groups, "exact")
    if g is None:
        return [missing(source, s) for s in statements]
    d = [chg(g, "Sel-D", "max_bsld", c) for c in CATEGORIES]
    e = [chg(g, "EASY", "max_bsld", c) for c in CATEGORIES]
    head = f"{_where('exact')}, worst case SN / SW / LN / LW against Conservative: Sel-D {fs(d, 0)} %"
    below = sum(x < y for x, y in zip(d, e, strict=True))
    out = [
        Check(
            source,
            statements[0],
            head + f", EASY {fs(e, 0)} %; Sel-D below EASY in {below} of 4",
            verdict_of(below, 4, most=1.0),
        )
    ]
    lower = [c for c, x in zip(CATEGORIES, d, strict=True) if c != "SW" and x < 0]
    out.append(
        Check(
            source, statements[1], head + f"; lower in {len(lower)} of 3", verdict_of(len(lower), 3, most=1.0)
        )
    )
    sw = d[1]
    why = "" if sw >= 0 else f"Our Sel-D lowers the SW jobs' worst case too ({f(sw, 0)} %)."
    text = f"{_where('exact')}: Sel-D's worst-case SW slowdown {f(sw, 0)} % against Conservative"
    out.append(Check(source, statements[2], text, judged(ONE, "holds" if sw >= 0 else "differs"), why))
    return out


def _over_loads(
    groups: dict[str, _Group], estimates: str, names: tuple[str, ...], source: str
) -> list[Check]:
    """Fig. 4 (exact) and Fig. 6 (user): Sel and Sel-D outperform Conservative and EASY, especially under
    high load (the caption's words, judged by :func:`especially`), for slowdown and turnaround, and their
    gains grow from normal to high load (the text's words, judged as most cases)."""
    what = "exact estimates" if estimates == "exact" else "user estimates"
    loads = ", ".join(f"x{ld:g}" for ld in DEFAULT_LOADS)
    statements = [
        f"{what.capitalize()}, {', '.join(names)}: Sel and Sel-D outperform Conservative and EASY, "
        f"especially under high load (slowdown and turnaround, at {loads})",
        f"{what.capitalize()}, {', '.join(names)}: their gains are more pronounced under high load",
    ]
    by_load = {load: cells(groups, load, estimates, names) for load in DEFAULT_LOADS}
    have = [n for n in names if all(n in c for c in by_load.values())]
    if not have:
        return [missing(source, s) for s in statements]
    schemes, metrics = ("Sel", "Sel-D"), ("mean_bsld", "mean_response")
    lost_at = [
        (ld, f"{s} {'slowdown' if m == 'mean_bsld' else 'turnaround'} on {n} x{ld:g}")
        for n in have
        for ld, c in by_load.items()
        for s in schemes
        for m in metrics
        if not all(beats(c[n], s, m))
    ]
    lost = [text for _, text in lost_at]
    lost_high = [text for ld, text in lost_at if ld == HIGH]
    high_total = len(have) * len(schemes) * len(metrics)
    total = len(have) * len(DEFAULT_LOADS) * len(schemes) * len(metrics)
    sel = {n: [chg(by_load[ld][n], "Sel") for ld in DEFAULT_LOADS] for n in have}
    sel_d = {n: [chg(by_load[ld][n], "Sel-D") for ld in DEFAULT_LOADS] for n in have}
    easy = {n: [chg(by_load[ld][n], "EASY") for ld in DEFAULT_LOADS] for n in have}
    loads = "/".join(f"x{ld:g}" for ld in DEFAULT_LOADS)
    text = (
        f"slowdown at {loads}: "
        + "; ".join(f"{n} Sel {fs(sel[n])}, Sel-D {fs(sel_d[n])}, EASY {fs(easy[n])} %" for n in have)
        + f"; below both in {total - len(lost)} of {total} (trace, load, scheme, metric) cases, "
        + f"{high_total - len(lost_high)} of {high_total} at x{HIGH:g}"
        + so_far(len(have), len(names))
    )
    why = ("Not below both: " + ", ".join(lost) + ".") if lost else ""
    if lost_high:
        why += (
            f" The paper stresses the high load, and there {len(lost_high)} of {high_total} cases are not"
            " below both."
        )
        if any(" on CTC " in x for x in lost_high):
            why += f" The paper does not give its high load; {CTC_LOAD}."
    verdict = especially(total - len(lost), total, high_total - len(lost_high), high_total)
    out = [Check(source, statements[0], text, verdict, why)]
    grows, flat = 0, []
    for n in have:
        for s in schemes:
            for m in metrics:
                a, b = chg(by_load[NORMAL][n], s, m), chg(by_load[HIGH][n], s, m)
                grows += b < a
                if not b < a:
                    flat.append(
                        f"{s}'s {'slowdown' if m == 'mean_bsld' else 'turnaround'} on {n} "
                        f"({f(a)} \u2192 {f(b)} %)"
                    )
    total = len(have) * len(schemes) * len(metrics)
    text = (
        f"the gain grows from x{NORMAL:g} to x{HIGH:g} in {grows} of {total} (trace, scheme, metric) cases"
        + so_far(len(have), len(names))
    )
    why = ("Not for " + ", ".join(flat) + ".") if flat else ""
    if flat and estimates == "user" and "CTC" in "".join(flat):
        why += f" The paper does not give its high load; {CTC_LOAD}."
    out.append(Check(source, statements[1], text, verdict_of(grows, total), why))
    return out


def fig4(groups: dict[str, _Group]) -> list[Check]:
    return _over_loads(groups, "exact", NAMES, "Fig. 4")


def fig6(groups: dict[str, _Group]) -> list[Check]:
    return _over_loads(groups, "user", USER, "Fig. 6")


def fig5(groups: dict[str, _Group]) -> list[Check]:
    """Fig. 5a-c on SDSC at high load with user estimates, one check per claim."""
    statements = [
        ("Fig. 5a", "Sel and Sel-D beat Conservative and EASY in every category (slowdown)"),
        ("Fig. 5a", "Sel cuts the short jobs' (SN, SW) slowdown more than Sel-D"),
        ("Fig. 5a", "Sel-D cuts the long jobs' (LN, LW) slowdown more than Sel"),
        (
            "Fig. 5b",
            "the same trends for turnaround: Sel and Sel-D beat Conservative and EASY in every category",
        ),
        (
            "Fig. 5c",
            "Sel-D's worst-case slowdown is much lower than Conservative's and EASY's in SN, LN and LW",
        ),
        ("Fig. 5c", "Sel-D's worst-case SW slowdown deteriorates slightly against Conservative"),
    ]
    statements = [(s, "SDSC, high load, user estimates: " + t) for s, t in statements]
    g = _sdsc(groups, "user")
    if g is None:
        return [missing(s, t) for s, t in statements]
    out = []
    for (source, statement), metric in zip(
        (statements[0], statements[3]), ("mean_bsld", "mean_response"), strict=True
    ):
        a, off_a = _categories_beaten(g, "Sel", CATEGORIES, metric)
        b, off_b = _categories_beaten(g, "Sel-D", CATEGORIES, metric)
        rows = {s: [chg(g, s, metric, c) for c in CATEGORIES] for s in ("Sel", "Sel-D", "EASY")}
        text = (
            f"{_where('user')}, SN / SW / LN / LW against Conservative: "
            + ", ".join(f"{s} {fs(v)}" for s, v in rows.items())
            + f" %; {a + b} of 16 cases below both"
        )
        off = [f"Sel's {x}" for x in off_a] + [f"Sel-D's {x}" for x in off_b]
        why = ("Not below both: " + ", ".join(off) + ".") if off else ""
        out.append(Check(source, statement, text, verdict_of(a + b, 16, most=1.0), why))
    sel = {c: chg(g, "Sel", cat=c) for c in CATEGORIES}
    sel_d = {c: chg(g, "Sel-D", cat=c) for c in CATEGORIES}
    for (source, statement), cats, first in (
        (statements[1], ("SN", "SW"), "Sel"),
        (statements[2], ("LN", "LW"), "Sel-D"),
    ):
        ok = [c for c in cats if (sel[c] < sel_d[c]) == (first == "Sel")]
        text = f"{_where('user')}: " + ", ".join(f"{c} Sel {f(sel[c])} / Sel-D {f(sel_d[c])} %" for c in cats)
        text += f"; as stated in {len(ok)} of 2"
        off = [c for c in cats if c not in ok]
        other = "Sel-D" if first == "Sel" else "Sel"
        why = f"{other} cuts the {and_(off)} slowdown more than {first} on our SDSC." if off else ""
        out.insert(len(out) - 1, Check(source, statement, text, verdict_of(len(ok), 2, most=1.0), why))
    d = [chg(g, "Sel-D", "max_bsld", c) for c in CATEGORIES]
    e = [chg(g, "EASY", "max_bsld", c) for c in CATEGORIES]
    head = f"{_where('user')}, worst case SN / SW / LN / LW against Conservative: Sel-D {fs(d, 0)}, "
    head += f"EASY {fs(e, 0)} %"
    idx = [0, 2, 3]
    agree = sum(d[i] < 0 for i in idx) + sum(d[i] < e[i] for i in idx)
    off = [CATEGORIES[i] for i in idx if not d[i] < min(0.0, e[i])]
    why = f"Sel-D is not below both in {and_(off)}." if off else ""
    out.append(
        Check(
            "Fig. 5c",
            statements[4][1],
            head + f"; below both in {agree} of 6",
            verdict_of(agree, 6, most=1.0),
            why,
        )
    )
    sw = d[1]
    ok = 0 < sw <= _SLIGHT
    verdict = judged(_SIGN_AND_SIZE, "holds" if ok else ("partly" if sw > 0 else "differs"))
    why = (
        ""
        if ok
        else (
            f"Our Sel-D improves the SW worst case ({f(sw, 0)} %)."
            if sw <= 0
            else f"More than slight ({f(sw, 0)} %)."
        )
    )
    out.append(Check("Fig. 5c", statements[5][1], f"SW {f(sw, 0)} % against Conservative", verdict, why))
    return out
