"""Vasupongayya's day-by-day claims (Fig. 2 and 3): each user's jobs started, backlog, demand, usage and
entitled share, day by day, and the claims about them.

Fig. 2 plots, for user #8 of July 2003 under each policy, the jobs waiting at the start of each day,
the jobs submitted and the jobs started during it; Fig. 3 plots each day's demand, usage and entitled
share of #8, #71 and #49 beside the average user's demand. ``day_summaries`` reduces a month's
schedule to a few figures per user that the claims need, kept beside the month's result as
``<trace>__<month>__days.json`` (``reproduce_vasupongayya.collect_days`` runs it); ``day_findings``
judges the claims on them, over every user of the kind the paper's example stands for.

A day is 24 hours from the month's local midnight. A user's *demand* on a day is the paper's: the
processor-hours its running jobs can still use that day, plus those its waiting jobs and the jobs it
submits that day could use if they started at once (capped by their runtime and by the day's end).
Its usage and entitled share are ``actual_usage`` and ``entitled_usage`` over the day.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from _common import verdict_of
from _vasupongayya_findings import FCFS, LXF, REL, Finding
from _vasupongayya_users import LARGE, heavy, mixed, spreads, suffers

from backfill import Schedule, actual_usage, entitled_usage

DAY = 86400.0
#: "Much higher" demand than the average user's: at least this many times it.
MUCH = 5.0
#: The figures kept per user and policy, in order, as one string.
DAY_FIELDS = (
    "busy days (a backlog or a new job), median jobs started on a busy day, most started in a day, "
    "days with more than four started, days with four or more, longest run of days begun with a "
    "backlog, demand days, share of demand days used at or above the entitled share, median "
    "usage / entitled share on demand days, highest demand / average user's demand, demand days "
    f"over {MUCH:g} times the average user's"
)


def _longest_run(flags: np.ndarray) -> int:
    best = run = 0
    for flag in flags.tolist():
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def day_summaries(s: Schedule, start: float, days: int, users: list[int]) -> dict[str, str]:
    """Each of ``users``' figures of :data:`DAY_FIELDS` over the ``days`` days from ``start``, packed
    as one string per user."""
    w = s.workload
    owner = w.column("user")
    width = w.column("processors").astype(float)
    submit, begin, end = s.submit, s.start, s.end
    d0 = start + DAY * np.arange(days)[None, :]
    d1 = d0 + DAY
    sub, beg, fin = submit[:, None], begin[:, None], end[:, None]
    started = (beg >= d0) & (beg < d1)
    backlog = (sub < d0) & (beg >= d0)
    new = (sub >= d0) & (sub < d1)
    running = (beg < d0) & (fin > d0)
    runtime = (end - begin)[:, None]
    hours = (
        running * (np.minimum(fin, d1) - d0)
        + backlog * np.minimum(runtime, DAY)
        + new * np.minimum(runtime, d1 - sub)
    ) * width[:, None]
    ids = np.unique(owner)
    index = np.searchsorted(ids, owner)

    def per_user(values: np.ndarray) -> np.ndarray:
        out = np.zeros((ids.size, days))
        np.add.at(out, index, values)
        return out

    starts, waiting, fresh, demand = (per_user(x.astype(float)) for x in (started, backlog, new, hours))
    usage = np.zeros((ids.size, days))
    entitled = np.zeros((ids.size, days))
    for d in range(days):
        period = (start + d * DAY, start + (d + 1) * DAY)
        for table, measure in ((usage, actual_usage), (entitled, entitled_usage)):
            for u, x in measure(s, period=period).items():
                table[np.searchsorted(ids, u), d] = x
    average = np.array(
        [demand[demand[:, d] > 0, d].mean() if (demand[:, d] > 0).any() else 0.0 for d in range(days)]
    )
    out = {}
    for u in users:
        i = int(np.searchsorted(ids, u))
        busy = (waiting[i] > 0) | (fresh[i] > 0)
        asked = demand[i] > 0
        has_share = asked & (entitled[i] > 0)
        ratio = usage[i][has_share] / entitled[i][has_share]
        rel = demand[i][asked] / average[asked]
        figures = [
            int(busy.sum()),
            float(np.median(starts[i][busy])) if busy.any() else 0.0,
            int(starts[i].max()),
            int((starts[i] > 4).sum()),
            int((starts[i] >= 4).sum()),
            _longest_run(waiting[i] > 0),
            int(asked.sum()),
            float((usage[i][asked] >= entitled[i][asked]).mean()) if asked.any() else 0.0,
            float(np.median(ratio)) if ratio.size else 0.0,
            float(rel.max()) if rel.size else 0.0,
            int((rel > MUCH).sum()),
        ]
        out[str(u)] = " ".join(f"{x:.4g}" for x in figures)
    return out


_KEYS = (
    "busy",
    "median_starts",
    "max_starts",
    "over4",
    "four_plus",
    "backlog_run",
    "demand_days",
    "share_used",
    "use_ratio",
    "peak_demand",
    "much_days",
)


def unpack_days(packed: dict[str, dict[str, str]]) -> dict[str, dict[str, dict[str, float]]]:
    """The figures :func:`day_summaries` kept, by policy, then user, then :data:`_KEYS`."""
    return {
        policy: {
            u: dict(zip(_KEYS, (float(x) for x in text.split()), strict=True)) for u, text in users.items()
        }
        for policy, users in packed.items()
    }


def day_findings(results: list[dict[str, Any]]) -> list[Finding]:
    """Fig. 2's and Fig. 3's claims, judged over the user-months of each kind; ``r["days"]`` holds a
    month's :func:`unpack_days` (months without it are left out, and the rows say how many)."""
    out: list[Finding] = []
    kept = [r for r in results if "days" in r]
    note = "" if len(kept) == len(results) else f" ({len(kept)} of {len(results)} months measured)"

    def add(
        source: str,
        statement: str,
        chosen: list[tuple[dict[str, Any], str]],
        test: Callable[[dict[str, Any], str], bool],
        what: str,
        medians: tuple[tuple[str, str, str], ...] = (),
    ) -> None:
        """One row: how many of ``chosen`` pass ``test``, with the median over them of each
        (label, policy, figure) of ``medians``."""
        if not kept:
            out.append(
                (source, statement, "not measured", "not checkable", "The day-by-day results are not kept.")
            )
            return
        agree = sum(1 for r, u in chosen if test(r["days"], u))
        verdict = verdict_of(agree, len(chosen))
        ours = f"{agree}/{len(chosen)} {what}{note}"
        if chosen and medians:
            ours += "; medians: " + ", ".join(
                f"{label} {np.median([d(r['days'], p, u, key) for r, u in chosen]):.3g}"
                for label, p, key in medians
            )
        why = (
            f"{len(chosen) - agree} of {len(chosen)} do not. The paper's figure follows one user; ours "
            "counts every user-month of its kind, by the page's rules."
        )
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    def d(days: dict[str, Any], policy: str, u: str, key: str) -> float:
        return float(days[policy][u][key])

    s1 = [
        (r, u)
        for r in kept
        for u in r[REL]["users"]
        if mixed(r, u)
        and r["sizes"][u]["jobs"] >= 4
        and not spreads(r, u)
        and not heavy(r, u)
        and suffers(r, u)
    ]
    what = "light, bunched, mixed user-months that suffer under RelShare(1d) (type S1)"
    add(
        "Fig. 2(a)",
        "under RelShare(1d) a type-S1 user (#8) typically starts 1-2 jobs a day, and no more than four "
        "except on one day",
        s1,
        lambda days, u: d(days, REL, u, "median_starts") <= 2 and d(days, REL, u, "over4") <= 1,
        what,
        (("jobs started on a busy day", REL, "median_starts"), ("days with more than four", REL, "over4")),
    )
    for policy, fig in ((FCFS, "Fig. 2(b)"), (LXF, "Fig. 2(c)")):
        add(
            fig,
            f"under {policy} the same user starts four or more jobs on more days than under RelShare(1d) "
            "(#8: 4-7 a day on many days)",
            s1,
            lambda days, u, p=policy: d(days, p, u, "four_plus") > d(days, REL, u, "four_plus"),
            what,
            (("days with four or more", policy, "four_plus"), ("under RelShare(1d)", REL, "four_plus")),
        )
    add(
        "Fig. 2(b,c)",
        "under FCFS-backfill and LXF-backfill its backlog clears within a few days, no more than a week",
        s1,
        lambda days, u: max(d(days, FCFS, u, "backlog_run"), d(days, LXF, u, "backlog_run")) <= 7,
        what,
        (
            ("longest backlog (days) under FCFS-backfill", FCFS, "backlog_run"),
            ("LXF-backfill", LXF, "backlog_run"),
        ),
    )
    add(
        "Fig. 2(a)",
        "under RelShare(1d) it keeps a backlog longer than under both backfill policies (a large backlog "
        "each day)",
        s1,
        lambda days, u: (
            d(days, REL, u, "backlog_run")
            > max(d(days, FCFS, u, "backlog_run"), d(days, LXF, u, "backlog_run"))
        ),
        what,
        (
            ("longest backlog (days) under RelShare(1d)", REL, "backlog_run"),
            ("FCFS-backfill", FCFS, "backlog_run"),
        ),
    )
    heavies = [(r, u) for r in kept for u in r[REL]["users"] if heavy(r, u)]
    what = "heavy user-months"
    add(
        "Fig. 3(d-f)",
        f"a heavy user (#71) has a much higher demand than the average user on many days (up to 20-30 "
        f"times): over {MUCH:g} times on at least a quarter of its demand days, under FCFS-backfill",
        heavies,
        lambda days, u: d(days, FCFS, u, "much_days") >= d(days, FCFS, u, "demand_days") / 4,
        what,
        (
            ("highest demand / average user's", FCFS, "peak_demand"),
            (f"days over {MUCH:g} times", FCFS, "much_days"),
            ("demand days", FCFS, "demand_days"),
        ),
    )
    add(
        "Fig. 3(d-f)",
        "a heavy user (#71) uses its entitled share or more on most days under RelShare(1d)",
        heavies,
        lambda days, u: d(days, REL, u, "share_used") > 0.5,
        what,
        (("share of demand days at or above it", REL, "share_used"),),
    )
    for policy in (FCFS, LXF):
        add(
            "Fig. 3(d-f)",
            f"it uses a lot more than its entitled share under {policy}: more, day by day, than under "
            "RelShare(1d)",
            heavies,
            lambda days, u, p=policy: d(days, p, u, "use_ratio") > d(days, REL, u, "use_ratio"),
            what + " (median usage / entitled share of their demand days)",
            (("usage / entitled share", policy, "use_ratio"), ("under RelShare(1d)", REL, "use_ratio")),
        )
    narrow = [
        (r, u)
        for r, u in heavies
        if r["sizes"][u]["N"][3] < LARGE * r["machine_size"] and r["sizes"][u]["difficult"] > 0
    ]
    add(
        "Fig. 3(g-i)",
        "a heavy user of small, long jobs (#49) uses its entitled share or more on most days under "
        "FCFS-backfill, and on fewer under RelShare(1d)",
        narrow,
        lambda days, u: (
            d(days, FCFS, u, "share_used") > 0.5
            and d(days, REL, u, "share_used") < d(days, FCFS, u, "share_used")
        ),
        "heavy user-months whose jobs are narrow and some long",
        (
            ("share of demand days at or above it under FCFS-backfill", FCFS, "share_used"),
            ("RelShare(1d)", REL, "share_used"),
        ),
    )
    return out
