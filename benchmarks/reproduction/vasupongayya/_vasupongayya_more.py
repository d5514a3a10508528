"""Vasupongayya's remaining claims of §§IV-VI, judged on the kept month results.

``_vasupongayya_findings`` and ``_vasupongayya_users`` judge the claims the page was first written
for; this module adds the other sentences of the results sections that state a number or a
direction: the gap in maximum wait (§IV), the users of Table II and what RelShare(1d) does to the
over- and under-shared (§V.A), users who mix long and short jobs (§V.B), type-S1 users' share
(Fig. 3), the size and share of Table IV's users (§V.C), how many users are active and under-shared
(§V.D), and how fw moves the maximum wait and type-S1 users (§VI). The kinds of users are
``_vasupongayya_users``'s rules; each finding is ``(source, statement, ours, verdict, why)``, its
reason dropped where the claim holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from _common import verdict_of
from _vasupongayya_findings import FCFS, LXF, NEAR, REL, WINDOWS, Finding, near, spread
from _vasupongayya_users import LARGE, LONG, UNDER, heavy, hurt_most, mixed, spreads, suffers, user_months

HOUR = 3600.0
#: Table V: "Typically, there are 70-80 active users each month."
ACTIVE = (70, 80)
#: Table VI: #24's maximum and average wait improve "by over 80 %" with fw = 2 or 7 days.
OVER = 0.80

Pairs = list[tuple[dict[str, Any], str]]


def _m(r: dict[str, Any], u: str, policy: str, key: str) -> float:
    return float(r[policy]["users"][u][key])


def _jobs(r: dict[str, Any], u: str) -> int:
    return int(r["sizes"][u]["jobs"])


def _bunched(r: dict[str, Any], u: str) -> bool:
    """Mixes its jobs and does not spread them (type S1), with the four jobs a spread needs."""
    return mixed(r, u) and _jobs(r, u) >= 4 and not spreads(r, u)


def _gains(r: dict[str, Any], u: str) -> bool:
    return _m(r, u, REL, "max_wait") < _m(r, u, FCFS, "max_wait")


def _pct(k: int, total: int) -> str:
    return f"{k}/{total} ({100 * k / total:.0f}%)" if total else "0/0"


def more_findings(results: list[dict[str, Any]]) -> list[Finding]:
    """The claims this module adds, judged on ``results`` (one per month), in the paper's order."""
    out: list[Finding] = []

    def add(source: str, statement: str, ours: str, verdict: str, why: str) -> None:
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    pairs = user_months(results)
    gaps = [
        r[REL]["max_wait"] / max(r[FCFS]["max_wait"], r[LXF]["max_wait"]) - 1
        for r in results
        if r[FCFS]["max_wait"]
    ]
    wide = sum(1 for g in gaps if g > NEAR)
    add(
        "§IV",
        "the gap in maximum wait between RelShare(1d) and both backfill policies is large",
        f"over 25% above the larger of the two in {wide}/{len(gaps)} months; median gap "
        f"{100 * float(np.median(gaps or [0.0])):+.0f}%",
        verdict_of(wide, len(gaps)),
        f"RelShare(1d)'s maximum wait is within 25 % of the worse backfill policy's, or below it, in "
        f"{len(gaps) - wide} of {len(gaps)} months.",
    )
    above = below_median = total = 0
    for r in results:
        counts = [_jobs(r, u) for u in r["sizes"]]
        for u in hurt_most(r):
            total += 1
            above += _jobs(r, u) > r["jobs"] / r["users"]
            below_median += _jobs(r, u) > float(np.median(counts))
    add(
        "§V.A, Table II",
        "the users RelShare(1d) hurts most have many jobs against the month's average and median (in 7/03: "
        "44-83 jobs, against an average of 21 and a median of 8 per user)",
        f"above the month's average for {above}/{total} of each month's five most hurt (above the median "
        f"for {below_median})",
        verdict_of(above, total),
        f"{total - above} of the {total} have no more jobs than the month's average user.",
    )
    _share_findings(pairs, add)
    _kind_findings(results, pairs, add)
    _window_findings(results, pairs, add)
    return out


def _share_findings(pairs: Pairs, add: Callable[[str, str, str, str, str], None]) -> None:
    """§V.A's over- and under-shared users (Table II) and Fig. 3's type-S1 user, by their month's dev."""
    over = [(r, u) for r, u in pairs if _m(r, u, FCFS, "dev") > UNDER]
    lower = sum(1 for r, u in over if _m(r, u, REL, "dev") < _m(r, u, FCFS, "dev"))
    add(
        "§V.A, Table II",
        "users over-shared under FCFS-backfill are less over-shared under RelShare(1d) (#49: 1,532 to 69 "
        "node-hours; #71: 6,585 to 4,583)",
        f"dev lower for {lower}/{len(over)} user-months over-shared by > 50 node-hours under FCFS-backfill",
        verdict_of(lower, len(over)),
        f"{len(over) - lower} of {len(over)} are at least as over-shared under RelShare(1d).",
    )
    under = [(r, u) for r, u in pairs if _m(r, u, LXF, "dev") < -UNDER]
    higher = sum(1 for r, u in under if _m(r, u, REL, "dev") > _m(r, u, LXF, "dev"))
    add(
        "§V.A, Table II",
        "a user under-shared under LXF-backfill is less under-shared under RelShare(1d) (#21: -1,611 to "
        "-668 node-hours)",
        f"dev higher for {higher}/{len(under)} user-months under-shared by > 50 node-hours under "
        "LXF-backfill",
        verdict_of(higher, len(under)),
        f"{len(under) - higher} of {len(under)} are as much or more under-shared under RelShare(1d); the "
        "paper's own #8 and #24 are among such users.",
    )
    s1 = [(r, u) for r, u in pairs if _bunched(r, u) and not heavy(r, u) and suffers(r, u)]

    def fits(r: dict[str, Any], u: str) -> bool:
        fcfs, lxf, rel = (_m(r, u, p, "dev") for p in (FCFS, LXF, REL))
        return fcfs < -UNDER and rel < -UNDER and abs(lxf) < min(abs(fcfs), abs(rel))

    agree = sum(1 for r, u in s1 if fits(r, u))
    add(
        "Fig. 3(a-c)",
        "a type-S1 user (#8) uses much less than its entitled share under FCFS-backfill and RelShare(1d), "
        "and nearly its share under LXF-backfill",
        f"under-shared by > 50 node-hours under both, and less so under LXF-backfill, for {agree}/{len(s1)} "
        "light, bunched, mixed user-months that suffer under RelShare(1d) (dev over the month)",
        verdict_of(agree, len(s1)),
        f"{len(s1) - agree} of {len(s1)} differ. The paper plots each day's usage and entitled share; we "
        "judge the month's dev, their sum.",
    )


def _kind_findings(
    results: list[dict[str, Any]], pairs: Pairs, add: Callable[[str, str, str, str, str], None]
) -> None:
    """§V.B's long-and-short mixers, §V.C's Table IV users, §V.D's active and under-shared users."""
    large = [
        (r, u) for r, u in pairs if _bunched(r, u) and r["sizes"][u]["N"][3] >= LARGE * r["machine_size"]
    ]
    long_only = [
        (r, u) for r, u in pairs if _bunched(r, u) and r["sizes"][u]["N"][3] < LARGE * r["machine_size"]
    ]
    hurt_large = sum(1 for r, u in large if suffers(r, u))
    hurt_long = sum(1 for r, u in long_only if suffers(r, u))
    both = bool(large and long_only)
    milder = both and hurt_long / len(long_only) < hurt_large / len(large)
    add(
        "§V.B",
        "users who mix long and short jobs of few nodes suffer under RelShare(1d), but less often than "
        "type-S1 users who mix large and small jobs",
        f"suffer: long and short {_pct(hurt_long, len(long_only))}, large and small "
        f"{_pct(hurt_large, len(large))} "
        "(users who bunch their jobs)",
        verdict_of(int(milder), 1) if both else "not checkable",
        "Bunched users whose difficult jobs are long but narrow suffer no less often than those with large "
        "jobs.",
    )
    table_iv = [(r, u) for r, u in pairs if mixed(r, u) and spreads(r, u) and _gains(r, u)]

    def month_mean(r: dict[str, Any]) -> float:
        return sum(z["area"] for z in r["sizes"].values()) / sum(z["jobs"] for z in r["sizes"].values())

    bigger = sum(1 for r, u in table_iv if r["sizes"][u]["NT"][1] > month_mean(r))
    add(
        "§V.C, Table IV",
        "the users of Table IV have difficult jobs against the month's average job (#70: 163.5 node-hours "
        "a job, the month's average 60.6)",
        f"a larger average job than the month's for {bigger}/{len(table_iv)} user-months that mix, spread "
        "and benefit",
        verdict_of(bigger, len(table_iv)),
        f"{len(table_iv) - bigger} of {len(table_iv)} have smaller jobs than the month's average: a job is "
        "difficult by its width or length against the machine and the month, not its area.",
    )

    def mostly_long(r: dict[str, Any], u: str) -> bool:
        longest = max(z["T"][3] for z in r["sizes"].values())
        return bool(r["sizes"][u]["T"][2] >= LONG * longest)

    longs = [(r, u) for r, u in pairs if mostly_long(r, u)]
    worse = sum(1 for r, u in longs if _m(r, u, LXF, "dev") < _m(r, u, REL, "dev"))
    add(
        "§V.C, Table IV",
        "LXF-backfill has a problem with long jobs: a user whose jobs are mostly long is more under-shared "
        "under it than under RelShare(1d) (#166: -273.6 against -103.4 node-hours)",
        f"dev lower under LXF-backfill for {worse}/{len(longs)} user-months whose median job is long",
        verdict_of(worse, len(longs)),
        f"{len(longs) - worse} of {len(longs)} such user-months fare at least as well under LXF-backfill.",
    )
    n = len(results)
    users = [r["users"] for r in results] or [0]
    inside = sum(1 for x in users if ACTIVE[0] <= x <= ACTIVE[1])
    add(
        "§V.D, Table V",
        "typically 70-80 users are active each month",
        f"70-80 users in {inside}/{n} months (range {min(users)}-{max(users)}, median "
        f"{float(np.median(users)):.0f})",
        verdict_of(inside, n),
        "How many users share a month is the trace's, not a scheduler's: the NCSA IA-64 months had 53-81.",
    )
    cases = [(r, p) for r in results for p in (FCFS, REL, LXF)]
    shares = [sum(1 for m in r[p]["users"].values() if m["dev"] < 0) / len(r[p]["users"]) for r, p in cases]
    most = sum(1 for x in shares if x > 0.5)
    add(
        "§V.D",
        "against the idealized entitled share, most users are under-shared (under each policy)",
        f"over half the users with dev < 0 in {most}/{len(cases)} months x policies (median share "
        f"{100 * float(np.median(shares or [0.0])):.0f}%)",
        verdict_of(most, len(cases)),
        f"At most half the users are under-shared in {len(cases) - most} of {len(cases)} months x policies.",
    )
    for policy in (FCFS, LXF):
        fewer = sum(1 for r in results if r[REL]["under"] < r[policy]["under"])
        add(
            "§V.D, Table V",
            f"RelShare(1d) does reduce the number of users under-shared by > 50 node-hours: fewer than under "
            f"{policy}",
            f"fewer in {fewer}/{n} months",
            verdict_of(fewer, n),
            f"RelShare(1d) leaves as many users under-shared as {policy}, or more, in {n - fewer} of {n} "
            "months.",
        )


def _window_findings(
    results: list[dict[str, Any]], pairs: Pairs, add: Callable[[str, str, str, str, str], None]
) -> None:
    """§VI: how fw moves the months' maximum wait, type-S1 users, Table IV's users and #24's average wait."""
    n = len(results)
    windows = [f"RelShare({fw})" for fw in WINDOWS]
    max_spread = [spread([r[w]["max_wait"] for w in windows]) for r in results]
    mean_spread = [spread([r[w]["mean_wait"] for w in windows]) for r in results]
    wide = sum(1 for x in max_spread if x > NEAR)
    wider = sum(1 for a, b in zip(max_spread, mean_spread, strict=True) if a > b)
    add(
        "Fig. 4(c,d), §VI",
        "fw has a significant impact on each month's maximum wait, which is very sensitive to fw while the "
        "averages are not",
        f"the five windows' maximum waits differ by over 25% in {wide}/{n} months (median spread "
        f"{100 * float(np.median(max_spread or [0.0])):.0f}%); more than their average waits in {wider}/{n}",
        verdict_of(wide, n),
        f"The five windows' maximum waits are within 25 % of the largest in {n - wide} of {n} months.",
    )

    def moved(chosen: Pairs, fw: str, key: str) -> tuple[int, int, int, list[float]]:
        """How many of ``chosen`` fall below fw = 1 d's ``key`` at ``fw``, of how many that change; how
        many do not change; each changed one's relative change."""
        changes = [
            (_m(r, u, f"RelShare({fw})", key), _m(r, u, REL, key))
            for r, u in chosen
            if _m(r, u, f"RelShare({fw})", key) != _m(r, u, REL, key)
        ]
        rel = [(x - base) / base for x, base in changes if base]
        return sum(1 for x, base in changes if x < base), len(changes), len(chosen) - len(changes), rel

    s1 = [(r, u) for r, u in pairs if _bunched(r, u) and _m(r, u, REL, "dev") < -UNDER]
    better, total, same, rel = moved(s1, "2d", "max_wait")
    add(
        "§VI",
        "fw = 2 d significantly improves type-S1 users who have a large under-share under RelShare(1d)",
        f"maximum wait lower than at 1 d for {better}/{total} bunched mixed user-months under-shared by > 50 "
        f"node-hours ({same} unchanged; median change {100 * float(np.median(rel or [0.0])):+.0f}%)",
        verdict_of(better, total),
        f"{total - better} of the {total} that change wait longer at 2 d.",
    )
    spread_light = [
        (r, u) for r, u in pairs if mixed(r, u) and spreads(r, u) and not heavy(r, u) and _gains(r, u)
    ]
    for fw in ("2d", "7d"):
        alike = sum(
            1
            for r, u in spread_light
            if near(_m(r, u, f"RelShare({fw})", "max_wait"), _m(r, u, REL, "max_wait"))
        )
        add(
            "Table VI",
            f"a light user who spreads its difficult jobs (#70) has a similar maximum wait with fw = "
            f"{fw[0]} d as with 1 d (20.1 h at 1 d, 22.0 h at 2 d, 15.3 h at 7 d)",
            f"within 25% of 1 d's for {alike}/{len(spread_light)} light user-months that mix, spread and "
            "benefit",
            verdict_of(alike, len(spread_light)),
            f"{len(spread_light) - alike} of {len(spread_light)} move by more than 25 %.",
        )
    light_hurt = [(r, u) for r, u in pairs if not heavy(r, u) and suffers(r, u)]
    for fw in ("2d", "7d"):
        better, total, same, rel = moved(light_hurt, fw, "mean_wait")
        both = sum(
            1
            for r, u in light_hurt
            if all(
                _m(r, u, f"RelShare({fw})", k) < (1 - OVER) * _m(r, u, REL, k)
                for k in ("max_wait", "mean_wait")
            )
        )
        add(
            "Table VI",
            f"a light-demand user who suffers under RelShare(1d) waits less on average with fw = {fw[0]} d "
            "(#24's maximum and average wait improve by over 80 %)",
            f"average wait lower than at 1 d for {better}/{total} light suffering user-months ({same} "
            f"unchanged; median change {100 * float(np.median(rel or [0.0])):+.0f}%); both waits cut by over "
            f"80% for {both}/{len(light_hurt)}",
            verdict_of(better, total),
            f"{total - better} of the {total} that change wait longer on average at {fw[0]} d.",
        )
