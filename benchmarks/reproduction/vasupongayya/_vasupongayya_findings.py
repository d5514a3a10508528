"""Vasupongayya's month-level findings (Fig. 1, Tables III and V, Fig. 4), judged on a trace's months.

Each finding is one claim of the paper, as ``(source, statement, ours, verdict, why)``, with ``ours`` and
the verdict computed from the month results of ``reproduce_vasupongayya.run_month``. The verdicts
count months: a claim about every month holds only when all months agree (``most=1.0``); "similar",
"typically", "most months" and claims the paper makes with exceptions hold when three quarters of
the months agree (:func:`verdict_of`'s default); from half of them they are "partly" true.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from _common import verdict_of

HOUR, DAY = 3600.0, 86400.0
#: The fair-share windows of Fig. 4 and Tables VI-VII, by the name the paper gives them.
WINDOWS = {"4h": 4 * HOUR, "12h": 12 * HOUR, "1d": DAY, "2d": 2 * DAY, "7d": 7 * DAY}
#: "Fairly comparable", "similar", "alike", "not by much": within this fraction of the larger value.
NEAR = 0.25

REL, WO, FCFS, LXF = "RelShare(1d)", "RelShare(1d) w/o", "FCFS-backfill", "LXF-backfill"
#: The four policies of Fig. 1.
FIG1 = (FCFS, LXF, WO, REL)

Finding = tuple[str, str, str, str, str]


def near(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` are within :data:`NEAR` of the larger."""
    return abs(a - b) <= NEAR * max(a, b)


def spread(values: list[float]) -> float:
    """(max - min) / max of ``values``: 0 when all are equal."""
    return (max(values) - min(values)) / max(values) if max(values) > 0 else 0.0


def _median_change(results: list[dict[str, Any]], policy: str, base: str, key: str) -> str:
    if not results:
        return "-"
    changes = [(r[policy][key] - r[base][key]) / r[base][key] for r in results]
    return f"{100 * float(np.median(changes)):+.0f}% ({100 * min(changes):+.0f} to {100 * max(changes):+.0f})"


def month_findings(results: list[dict[str, Any]]) -> list[Finding]:
    """The paper's claims about each month's overall measures, judged on ``results`` (one per month)."""
    n = len(results)
    out: list[Finding] = []

    def count(test: Callable[[dict[str, Any]], bool]) -> int:
        return sum(1 for r in results if test(r))

    def some(k: int) -> str:
        return f"{k} of {n} months"

    def add(source: str, statement: str, ours: str, verdict: str, why: str) -> None:
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    def wait(r: dict[str, Any], policy: str) -> float:
        return float(r[policy]["max_wait"])

    demand = [100 * r["demand"] for r in results] or [0.0]
    busy = (
        f"These months have {min(demand):.0f}-{max(demand):.0f} % processor demand, and FCFS-backfill "
        "with exact runtimes gives them high slowdowns, which any order favouring short jobs or light "
        "users reduces; the NCSA IA-64 job mix cannot be compared."
    )
    for source, key, what in (
        ("Fig. 1(a)", "mean_bsld", "average bounded slowdown"),
        ("Fig. 1(b)", "mean_wait", "average wait"),
    ):
        agree = count(lambda r, k=key: spread([r[p][k] for p in FIG1]) <= NEAR)
        add(
            source,
            f"the four policies have a fairly comparable {what} each month, except 6/03 and 7/03",
            f"all four within 25% of the largest in {agree}/{n} months; against FCFS-backfill, median "
            f"month: RelShare(1d) {_median_change(results, REL, FCFS, key)}, LXF-backfill "
            f"{_median_change(results, LXF, FCFS, key)}",
            verdict_of(agree, n),
            f"The four differ by more than 25 % in {some(n - agree)}. {busy}",
        )
    for policy in (FCFS, LXF):
        worse = count(lambda r, p=policy: wait(r, REL) > wait(r, p))
        add(
            "Fig. 1(c)",
            f"RelShare(1d) has a worse maximum wait than {policy} in each month",
            f"worse in {worse}/{n} months",
            verdict_of(worse, n, most=1.0),
            f"RelShare(1d)'s maximum wait is not worse than {policy}'s in {some(n - worse)}.",
        )
    p99 = count(lambda r: near(r[REL]["p99_wait"], r[FCFS]["p99_wait"]))
    higher = count(lambda r: r[REL]["p99_wait"] > r[FCFS]["p99_wait"])
    add(
        "Fig. 1(d)",
        "RelShare(1d)'s 99th-percentile wait is similar to FCFS-backfill's each month, except 7/03 and 1/04",
        f"within 25% in {p99}/{n} months; higher in {higher}/{n}",
        verdict_of(p99, n),
        f"RelShare(1d)'s 99th-percentile wait is higher than FCFS-backfill's in {some(higher)}, so its "
        "long waits reach beyond the few jobs behind the maximum, which the paper found to be the only "
        "ones hurt.",
    )
    keys = ("mean_bsld", "mean_wait", "max_wait", "p99_wait")
    alike = count(lambda r: all(near(r[WO][k], r[REL][k]) for k in keys))
    names = dict(zip(keys, ("slowdown", "wait", "max wait", "99th percentile"), strict=True))
    each = ", ".join(f"{names[k]} {count(lambda r, k=k: near(r[WO][k], r[REL][k]))}" for k in keys)
    add(
        "Fig. 1(a-d)",
        "RelShare(1d) with and without expected usage have fairly comparable performance each month",
        f"all four measures within 25% in {alike}/{n} months (by measure: {each})",
        verdict_of(alike, n),
        f"Some measure differs by more than 25 % between the two in {some(n - alike)}.",
    )
    worse_wo = count(lambda r: wait(r, WO) > wait(r, FCFS))
    add(
        "§IV",
        "the poor maximum wait is not due to expected usage: without it, RelShare(1d) too has a worse "
        "maximum wait than FCFS-backfill",
        f"worse in {worse_wo}/{n} months",
        verdict_of(worse_wo, n, most=1.0),
        f"Without expected usage RelShare(1d)'s maximum wait is not worse in {some(n - worse_wo)}.",
    )
    benefit = count(lambda r: r[REL]["benefit_10h"] >= r[REL]["suffer_10h"])
    add(
        "Table III",
        "the users who benefit by > 10 h of maximum wait are as many as those who suffer, or more, "
        "except 12/03 and 1/04",
        f"benefit >= suffer in {benefit}/{n} months",
        verdict_of(benefit, n),
        f"More users suffer than benefit by > 10 h in {some(n - benefit)}.",
    )
    for policy in (FCFS, LXF):
        fewer = count(lambda r, p=policy: r[REL]["under"] <= r[p]["under"])
        alike = count(
            lambda r, p=policy: r[REL]["under"] <= r[p]["under"] or near(r[REL]["under"], r[p]["under"])
        )
        add(
            "Table V",
            f"RelShare(1d) has a similar or lower fraction of users under-shared by > 50 node-hours "
            f"than {policy}, consistently",
            f"lower, equal or within 25% in {alike}/{n} months (lower or equal in {fewer})",
            verdict_of(alike, n, most=1.0),
            f"RelShare(1d) leaves over 25 % more users under-shared than {policy} in {some(n - alike)}.",
        )
    users = [r["users"] for r in results] or [0]
    for policy in (FCFS, REL, LXF):
        few = count(lambda r, p=policy: r[p]["over"] < 0.10)
        add(
            "Table V",
            f"under {policy}, under 10 % of users are over-shared by > 50 node-hours each month",
            f"under 10% in {few}/{n} months",
            verdict_of(few, n, most=1.0),
            f"Over 10 % of users are over-shared in {some(n - few)}. The fraction depends on how many "
            f"users share a month and how unequal their demand is: these months have "
            f"{min(users)}-{max(users)} active users, the paper's 53-81.",
        )
    pairs = [(FCFS, REL), (FCFS, LXF), (REL, LXF)]
    crossing, parts = 0, []
    for a, b in pairs:
        more = count(lambda r, a=a, b=b: r[a]["over"] > r[b]["over"])
        fewer = count(lambda r, a=a, b=b: r[a]["over"] < r[b]["over"])
        crossing += more > 0 and fewer > 0
        parts.append(f"{a} more than {b} in {more}, fewer in {fewer}")
    add(
        "Table V",
        "all policies have comparable numbers of over-shared users: each has more in some months and "
        "fewer in others than the others",
        f"{crossing} of 3 pairs cross: " + "; ".join(parts),
        verdict_of(crossing, 3, most=1.0),
        "Some policy has at least as many over-shared users as another in every month.",
    )
    out += window_findings(results, count, some, busy)
    return out


def window_findings(
    results: list[dict[str, Any]], count: Callable[..., int], some: Callable[[int], str], busy: str
) -> list[Finding]:
    """The claims of §VI about the months under each fair-share window (Fig. 4)."""
    n = len(results)
    out: list[Finding] = []

    def add(source: str, statement: str, ours: str, verdict: str, why: str) -> None:
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    def wait(r: dict[str, Any], fw: str) -> float:
        return float(r[f"RelShare({fw})"]["max_wait"])

    for source, key, what in (
        ("Fig. 4(a,b)", "mean_bsld", "average bounded slowdown by much, except 7/03"),
        ("§VI", "mean_wait", "average wait much (minimal impact, not shown)"),
    ):
        spreads = [spread([r[f"RelShare({fw})"][key] for fw in WINDOWS]) for r in results]
        agree = sum(1 for x in spreads if x <= NEAR)
        add(
            source,
            f"over fw = 4 h to 7 d, fw does not change the {what}",
            f"the five windows within 25% of the largest in {agree}/{n} months; median spread "
            f"{100 * float(np.median(spreads or [0.0])):.0f}%",
            verdict_of(agree, n),
            f"The five windows differ by more than 25 % in {some(n - agree)}. {busy}",
        )
    for fw in ("4h", "12h"):
        better = count(lambda r, fw=fw: wait(r, fw) < wait(r, "1d"))
        add(
            "Fig. 4(c)",
            f"fw = {fw[:-1]} {fw[-1]} improves the maximum wait of fw = 1 d for most months",
            f"better in {better}/{n} months",
            verdict_of(better, n),
            f"fw = {fw[:-1]} {fw[-1]} improves on 1 d in {some(better)}. Which window helps a month's "
            "worst-off job depends on that month's heavy users; the paper too finds the effect of fw "
            "user-specific (Tables VI, VII).",
        )
    week = count(lambda r: wait(r, "7d") > wait(r, "1d"))
    add(
        "Fig. 4(d)",
        "fw = 7 d significantly degrades the maximum wait of fw = 1 d for most months",
        f"worse in {week}/{n} months",
        verdict_of(week, n),
        f"fw = 7 d is worse than 1 d in {some(week)}, although we count any increase where the paper "
        "says 'significantly'.",
    )
    milder = count(lambda r: abs(wait(r, "2d") - wait(r, "1d")) < abs(wait(r, "7d") - wait(r, "1d")))
    add(
        "§VI",
        "fw = 2 d has a much smaller impact on the maximum wait each month than fw = 7 d",
        f"smaller change from 1 d in {milder}/{n} months",
        verdict_of(milder, n),
        f"fw = 2 d moves the maximum wait from 1 d's by as much as 7 d or more in {some(n - milder)}.",
    )
    return out
