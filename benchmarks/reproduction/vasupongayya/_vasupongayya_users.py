"""Vasupongayya's per-user findings (Tables II, IV, VI and VII) and their tables.

The paper picks example users of July 2003 and names their kind: heavy or light demand, a mixture of
large and small (or long and short) jobs, spread out or not. We sort every user of every month by
rules written from those examples, so that a claim about a kind of user can be counted over all
user-months:

* a job is *large* from a quarter of the machine (Table IV's #113, whose widest jobs take 32 of the
  128 nodes, is the narrowest "large" example) and *long* from half the month's longest runtime
  (#166's 12-hour jobs under a 12-hour limit); it is *difficult* when large or long, *easy* otherwise;
* a user *mixes* its jobs when it has at least one difficult job and one easy job in the month;
* a user *spreads* its jobs when no day of the month (24 hours from the month's local midnight) holds
  more than twice as many of its jobs as an even spread over the month would (its jobs divided by
  the month's days, rounded up); a user with fewer than four jobs neither spreads nor bunches;
* a user is *heavy* when its month's demand (processor-hours) exceeds twice an equal share of the
  month's capacity (machine size x hours / active users), *light* otherwise. In July 2003 an equal
  share is 1,400 node-hours: the rule makes #21 (4,030), #49 (6,051) and #71 (11,693) heavy and #8
  (1,452), #24 (827) and #70 (1,144) light, as the paper's text has them.

A user *benefits* under RelShare(1d) when its maximum wait is lower than under FCFS-backfill and
*suffers* when it is higher than under both backfill policies (Table VI's "poorer performance under
RelShare(1d) than under both backfill policies").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from _common import markdown, markdown_split, verdict_of
from _vasupongayya_findings import FCFS, HOUR, LXF, REL, WINDOWS, Finding

from backfill import Workload

DAY = 24 * HOUR
LARGE = 0.25  # of the machine
LONG = 0.5  # of the month's longest runtime
SPREAD = 2  # times an even spread's jobs a day, at most, on the user's busiest day
HEAVY = 2.0  # equal shares of the month's capacity
FEW = 5  # jobs, at most, of a user with "a few very short jobs"
UNDER = 50 * HOUR  # processor-seconds: the paper's 50 node-hours


def _stats(x: np.ndarray) -> list[float]:
    return [float(x.min()), float(x.mean()), float(np.median(x)), float(x.max())]


def job_sizes(w: Workload, month_jobs: np.ndarray, start: float) -> dict[str, dict[str, Any]]:
    """Each user's jobs of the month (Tables II(b), IV(b)): how many, their total N x T
    (processor-hours), min, mean, median and max of the width N, the runtime T (hours) and N x T;
    how many are difficult; and how many the user submitted on its busiest day."""
    user = w.column("user")[month_jobs]
    width = w.column("processors")[month_jobs].astype(float)
    runtime = w.column("runtime")[month_jobs] / HOUR
    day = np.floor((w.column("submit")[month_jobs] - start) / DAY).astype(int)
    difficult = (width >= LARGE * w.machine_size) | (runtime >= LONG * runtime.max())
    out = {}
    for u in np.unique(user).tolist():
        mine = user == u
        n, t = width[mine], runtime[mine]
        out[str(u)] = {
            "jobs": int(mine.sum()),
            "area": float((n * t).sum()),
            "N": _stats(n),
            "T": _stats(t),
            "NT": _stats(n * t),
            "difficult": int(difficult[mine].sum()),
            "busiest_day": int(np.bincount(day[mine]).max()),
        }
    return out


#: The policies whose per-user measures a month's result keeps; the other windows' go to a second
#: file beside it (``<stem>__<month>__fw.json``), so that each stays small.
MAIN_POLICIES = (FCFS, LXF, REL)
WINDOW_POLICIES = tuple(f"RelShare({fw})" for fw in WINDOWS if fw != "1d")
#: A user's measures under a policy, kept as one string of these, in order: dev (processor-hours),
#: maximum and average wait (seconds), average bounded slowdown.
USER_FIELDS = "dev (processor-hours), max_wait (s), mean_wait (s), mean_bsld"
#: A user's job sizes, kept as one string of these, in order.
SIZE_FIELDS = (
    "jobs, area (processor-hours), N min/mean/median/max, T (hours) min/mean/median/max, "
    "N x T (processor-hours) min/mean/median/max, difficult jobs, jobs on the busiest day"
)


def pack_users(users: dict[str, dict[str, float]]) -> dict[str, str]:
    """Each user's measures as one string of :data:`USER_FIELDS` (a month's result stays small)."""
    return {
        u: f"{m['dev'] / HOUR:.1f} {m['max_wait']:.0f} {m['mean_wait']:.0f} {m['mean_bsld']:.4g}"
        for u, m in users.items()
    }


def unpack_users(packed: dict[str, str]) -> dict[str, dict[str, float]]:
    """The measures :func:`pack_users` kept, dev back in processor-seconds."""
    out = {}
    for u, text in packed.items():
        dev, max_wait, mean_wait, bsld = (float(x) for x in text.split())
        out[u] = {"dev": dev * HOUR, "max_wait": max_wait, "mean_wait": mean_wait, "mean_bsld": bsld}
    return out


def pack_sizes(sizes: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each user's :func:`job_sizes` as one string of :data:`SIZE_FIELDS`."""
    out = {}
    for u, z in sizes.items():
        stats = " ".join(f"{x:.4g}" for key in ("N", "T", "NT") for x in z[key])
        out[u] = f"{z['jobs']} {z['area']:.1f} {stats} {z['difficult']} {z['busiest_day']}"
    return out


def unpack_sizes(packed: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The sizes :func:`pack_sizes` kept."""
    out = {}
    for u, text in packed.items():
        x = text.split()
        stats = [float(v) for v in x[2:14]]
        out[u] = {
            "jobs": int(x[0]),
            "area": float(x[1]),
            "N": stats[0:4],
            "T": stats[4:8],
            "NT": stats[8:12],
            "difficult": int(x[14]),
            "busiest_day": int(x[15]),
        }
    return out


def unpack_month(month: dict[str, Any], windows: dict[str, Any]) -> dict[str, Any]:
    """A month's result as the claims and tables read it: each policy's per-user measures under
    ``r[policy]["users"]``, each user's job sizes under ``r["sizes"]``."""
    r = dict(month)
    for policy, packed in {**month["per_user"], **windows["per_user"]}.items():
        r[policy] = {**r[policy], "users": unpack_users(packed)}
    r["sizes"] = unpack_sizes(month["sizes"])
    return r


def _jobs(r: dict[str, Any], u: str) -> int:
    return int(r["sizes"][u]["jobs"])


def heavy(r: dict[str, Any], u: str) -> bool:
    return r["sizes"][u]["area"] > HEAVY * r["machine_size"] * r["hours"] / r["users"]


def mixed(r: dict[str, Any], u: str) -> bool:
    return 0 < r["sizes"][u]["difficult"] < _jobs(r, u)


def spreads(r: dict[str, Any], u: str, rule: str = "even") -> bool:
    """Whether the user spreads its jobs over the month: by our rule (``even``: its busiest day holds
    at most twice an even spread's jobs a day), or by the looser ``quarter`` rule (at most a quarter
    of its jobs), which the page reports as another reading."""
    jobs, busiest = _jobs(r, u), r["sizes"][u]["busiest_day"]
    if rule == "quarter":
        return jobs >= 4 and busiest <= jobs / 4
    return jobs >= 4 and busiest <= SPREAD * math.ceil(jobs / round(r["hours"] / 24))


def few_short(r: dict[str, Any], u: str) -> bool:
    """A few very short jobs (§V.C): at most :data:`FEW` jobs, none longer than an hour."""
    return _jobs(r, u) <= FEW and r["sizes"][u]["T"][3] <= 1.0


def small_only(r: dict[str, Any], u: str) -> bool:
    """Only fairly small jobs (§V.C: "<= 32" of 128 nodes): none wider than :data:`LARGE` of the machine."""
    return r["sizes"][u]["N"][3] <= LARGE * r["machine_size"]


def spread_mixed(r: dict[str, Any], u: str) -> bool:
    return mixed(r, u) and spreads(r, u)


def kind(r: dict[str, Any], u: str) -> str:
    """A user's kind in a month: heavy or light, and whether it mixes and spreads its jobs."""
    text = "heavy" if heavy(r, u) else "light"
    return text + (", mixed, " + ("spread" if spreads(r, u) else "bunched") if mixed(r, u) else "")


def _m(r: dict[str, Any], u: str, policy: str, key: str) -> float:
    return float(r[policy]["users"][u][key])


def suffers(r: dict[str, Any], u: str) -> bool:
    return _m(r, u, REL, "max_wait") > max(_m(r, u, FCFS, "max_wait"), _m(r, u, LXF, "max_wait"))


def hurt_most(r: dict[str, Any], top: int = 5) -> list[str]:
    """Table II's users: the month's ``top`` users whose maximum wait RelShare(1d) raises most."""
    users = r[REL]["users"]
    return sorted(users, key=lambda u: _m(r, u, FCFS, "max_wait") - _m(r, u, REL, "max_wait"))[:top]


def table_ii_month(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The month Table II shows: where RelShare(1d) raises the maximum wait over FCFS-backfill most."""
    return max(results, key=lambda r: r[REL]["max_wait"] - r[FCFS]["max_wait"])


def _adder(out: list[Finding]) -> Callable[[str, str, str, str, str], None]:
    """A function that appends a finding to ``out``, its reason dropped where the claim holds."""

    def add(source: str, statement: str, ours: str, verdict: str, why: str) -> None:
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    return add


def _tally(
    chosen: list[tuple[dict[str, Any], str]], good: Callable[[dict[str, Any], str], bool]
) -> tuple[int, int]:
    """How many of the chosen user-months are good, and of how many."""
    return sum(1 for r, u in chosen if good(r, u)), len(chosen)


def user_months(results: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """Every (month, user) of ``results``: the users with a job submitted in the month."""
    return [(r, u) for r in results for u in r[REL]["users"]]


def user_findings(results: list[dict[str, Any]]) -> list[Finding]:
    """The paper's claims about kinds of users, judged on every user-month of ``results``."""
    out: list[Finding] = []
    pairs = user_months(results)

    add = _adder(out)

    n = len(results)
    worse = sum(
        1
        for r in results
        if any(
            _m(r, u, FCFS, "dev") < -UNDER and _m(r, u, REL, "dev") < _m(r, u, FCFS, "dev")
            for u in hurt_most(r)
        )
    )
    add(
        "Table II",
        "among the users RelShare(1d) hurts most are users already under-shared under FCFS-backfill who "
        "become more under-shared (#8, #24 in 7/03; other months similar)",
        f"such a user among the five most hurt in {worse}/{n} months",
        verdict_of(worse, n),
        f"No such user is among the five most hurt in {n - worse} of {n} months.",
    )
    heavies = [(r, u) for r, u in pairs if heavy(r, u)]
    agree, total = _tally(heavies, lambda r, u: _m(r, u, REL, "dev") < _m(r, u, FCFS, "dev"))
    add(
        "§V.B",
        "RelShare(1d) keeps heavy-demand users from dominating: their dev is lower than under FCFS-backfill",
        f"lower for {agree}/{total} heavy user-months",
        verdict_of(agree, total),
        f"RelShare(1d) leaves {total - agree} of {total} heavy user-months at least as over-shared.",
    )
    gainers = [(r, u) for r, u in pairs if _m(r, u, REL, "max_wait") < _m(r, u, FCFS, "max_wait")]
    short = sum(1 for r, u in gainers if few_short(r, u))
    small = sum(1 for r, u in gainers if not few_short(r, u) and small_only(r, u))
    spread = sum(1 for r, u in gainers if not (few_short(r, u) or small_only(r, u)) and spread_mixed(r, u))
    usual = short + small + spread
    others = [(r, u) for r, u in pairs if _m(r, u, REL, "max_wait") >= _m(r, u, FCFS, "max_wait")]
    alike = sum(1 for r, u in others if few_short(r, u) or small_only(r, u) or spread_mixed(r, u))
    add(
        "§V.C",
        "the users who benefit under RelShare(1d) are usually those with (1) a few very short jobs, (2) "
        "only fairly small jobs (<= 32 of 128 nodes) or (3) difficult jobs spread out",
        f"{usual}/{len(gainers)} benefiting user-months: (1) {short}, else (2) {small}, else (3) {spread}; "
        f"of the user-months that do not benefit, {alike}/{len(others)} are of these kinds too",
        verdict_of(usual, len(gainers)),
        f"{len(gainers) - usual} of {len(gainers)} benefiting user-months are of none of the three kinds "
        "(as the paper's page defines them).",
    )
    out += spread_findings(pairs)
    out += window_user_findings(pairs)
    return out


def spread_findings(pairs: list[tuple[dict[str, Any], str]], rule: str = "even") -> list[Finding]:
    """The claims of Table IV and §V.C about users who mix their jobs, spread by ``rule``. Table IV's
    users all benefit ("all four"): its claims are about every such user-month, and need every one."""
    out: list[Finding] = []

    add = _adder(out)

    spread_mix = [(r, u) for r, u in pairs if mixed(r, u) and spreads(r, u, rule)]
    bunched = [(r, u) for r, u in pairs if mixed(r, u) and _jobs(r, u) >= 4 and not spreads(r, u, rule)]

    def gains(r: dict[str, Any], u: str) -> bool:
        return _m(r, u, REL, "max_wait") < _m(r, u, FCFS, "max_wait")

    agree, total = _tally(spread_mix, gains)
    add(
        "Table IV",
        "users who mix large and small (or long and short) jobs but spread them out benefit under "
        "RelShare(1d): a lower maximum wait than under FCFS-backfill (all four shown)",
        f"lower for {agree}/{total} such user-months",
        verdict_of(agree, total, most=1.0),  # "all four": every such user-month must agree
        f"{total - agree} of {total} such user-months have no lower maximum wait under RelShare(1d) "
        "(mixing and spreading as the paper's page defines them).",
    )
    under = [(r, u) for r, u in spread_mix if _m(r, u, FCFS, "dev") < 0]
    agree2, total2 = _tally(under, lambda r, u: _m(r, u, REL, "dev") > _m(r, u, FCFS, "dev"))
    add(
        "Table IV",
        "their under-share under FCFS-backfill shrinks under RelShare(1d) (all four; #70 and #103 turn "
        "slightly over-shared)",
        f"dev higher for {agree2}/{total2} such user-months under-shared under FCFS-backfill",
        verdict_of(agree2, total2, most=1.0),  # "all four", as above
        f"{total2 - agree2} of {total2} are as much or more under-shared under RelShare(1d).",
    )
    hurt, _ = _tally(spread_mix, suffers)
    kept, all_bunched = _tally(bunched, gains)
    hurt_b, _ = _tally(bunched, suffers)

    def pct(k: int, total: int) -> str:
        return f"{k}/{total} ({100 * k / total:.0f}%)" if total else "0/0"

    both = bool(total and all_bunched)
    rates = f"spread {pct(agree, total)}, bunched {pct(kept, all_bunched)}"
    more = both and agree / total > kept / all_bunched
    add(
        "§V.C, §VII",
        "spreading helps: users who mix their jobs benefit under RelShare(1d) more often when they "
        "spread them out",
        f"benefit: {rates}",
        verdict_of(int(more), 1) if both else "not checkable",
        "Mixed users who spread their jobs benefit no more often than those who bunch them.",
    )
    rates = f"bunched {pct(hurt_b, all_bunched)}, spread {pct(hurt, total)}"
    worse = both and hurt_b / all_bunched > hurt / total
    add(
        "§V.B, §VII",
        "users who mix their jobs and do not spread them (type S1) suffer under RelShare(1d) more often "
        "than those who spread them",
        f"suffer: {rates}",
        verdict_of(int(worse), 1) if both else "not checkable",
        "Mixed users who bunch their jobs suffer no more often than those who spread them.",
    )
    return out


def window_user_findings(pairs: list[tuple[dict[str, Any], str]]) -> list[Finding]:
    """The claims of Tables VI and VII: how fw moves heavy and light users' maximum wait and dev."""
    out: list[Finding] = []

    def compare(
        chosen: list[tuple[dict[str, Any], str]], fw: str, key: str, better: bool
    ) -> tuple[int, int, str]:
        """How many of ``chosen`` whose measure changed from fw = 1 d go the claimed way, and how many
        did not change; for waits, the median change of those that did, in percent of 1 d's."""
        moves = [(_m(r, u, f"RelShare({fw})", key), _m(r, u, REL, key)) for r, u in chosen]
        changed = [(x, base) for x, base in moves if x != base]
        agree = sum(1 for x, base in changed if (x < base) == better)
        note = f"{len(chosen) - len(changed)} unchanged"
        if key != "dev" and changed:
            rel = [100 * (x - base) / base if base else float("inf") for x, base in changed]
            median = float(np.median(rel))
            note += f"; median change {round(median):+d}%" if math.isfinite(median) else ""
        return agree, len(changed), note

    def add(source: str, statement: str, who: str, fw: str, key: str, better: bool, chosen: list) -> None:
        agree, total, note = compare(chosen, fw, key, better)
        way = ("lower" if better else "higher") if key == "dev" else ("better" if better else "worse")
        verdict = verdict_of(agree, total)
        why = f"{total - agree} of the {total} {who} that change go the other way."
        ours = f"{way} than 1 d for {agree}/{total} {who} ({note})"
        out.append((source, statement, ours, verdict, "" if verdict == "holds" else why))

    heavies = [(r, u) for r, u in pairs if heavy(r, u)]
    lights = [(r, u) for r, u in pairs if not heavy(r, u)]
    heavy_hurt = [(r, u) for r, u in heavies if suffers(r, u)]
    light_hurt = [(r, u) for r, u in lights if suffers(r, u)]
    for fw in ("2d", "7d"):
        add(
            "Table VI",
            f"a heavy-demand user who suffers under RelShare(1d) suffers more with fw = {fw[0]} d "
            "(#71's maximum wait 211 h at 1 d, 310 h at 2 d, 451 h at 7 d)",
            "heavy suffering user-months",
            fw,
            "max_wait",
            False,
            heavy_hurt,
        )
    for fw in ("2d", "7d"):
        add(
            "Table VI",
            f"a light-demand user who suffers under RelShare(1d) waits less with fw = {fw[0]} d (#24's "
            "maximum and average wait improve by over 80 %)",
            "light suffering user-months",
            fw,
            "max_wait",
            True,
            light_hurt,
        )
    add(
        "Table VI",
        "users with a light demand or few jobs tend to wait less with a larger fw (#107: 23.5 h at 1 d, "
        "20.2 h at 7 d)",
        "light user-months",
        "7d",
        "max_wait",
        True,
        lights,
    )
    for fw in ("4h", "12h"):
        add(
            "§VI",
            f"a smaller fw ({fw[:-1]} {fw[-1]}) tends to improve heavy-demand users' performance "
            "(maximum wait) against fw = 1 d",
            "heavy user-months",
            fw,
            "max_wait",
            True,
            heavies,
        )
    for fw in ("4h", "12h"):
        add(
            "§VI",
            f"a smaller fw ({fw[:-1]} {fw[-1]}) degrades light-demand users' performance (maximum wait) "
            "against fw = 1 d",
            "light user-months",
            fw,
            "max_wait",
            False,
            lights,
        )
    add(
        "Table VII",
        "a larger fw lowers a heavy-demand user's dev (#71: 4,583 node-hours at 1 d, -1,095 at 7 d)",
        "heavy user-months",
        "7d",
        "dev",
        True,
        heavies,
    )
    add(
        "Table VII",
        "a larger fw raises a light-demand user's dev (#24: -4,593 at 1 d, -386 at 7 d; #107: -263, 340)",
        "light user-months",
        "7d",
        "dev",
        False,
        lights,
    )
    return out


def _h(seconds: float) -> str:
    return f"{seconds / HOUR:.1f}h"


def _measures(r: dict[str, Any], u: str, policy: str) -> list[str]:
    m = r[policy]["users"][u]
    return [f"{m['dev'] / HOUR:.0f}", _h(m["max_wait"]), _h(m["mean_wait"]), f"{m['mean_bsld']:.1f}"]


def _header(policies: list[str]) -> list[str]:
    return [c for p in policies for c in (f"{p} dev", "MaxW", "AvgW", "AvgX")]


def _sizes(r: dict[str, Any], u: str) -> list[str]:
    s = r["sizes"][u]
    cells = [str(_jobs(r, u)), f"{r['sizes'][u]['area']:.0f}"]
    for key, fmt in (("N", "{:.0f}"), ("T", "{:.1f}"), ("NT", "{:.1f}")):
        cells.append(" / ".join(fmt.format(x) for x in s[key]))
    return [*cells, str(s["busiest_day"])]


_SIZE_HEADER = ["jobs", "total NT (proc-h)", "N min/avg/med/max", "T (h)", "NT (proc-h)", "busiest day"]


def table_ii(results: list[dict[str, Any]], machine_size: int) -> str:
    """Table II: in the month where RelShare(1d) raises the maximum wait most, the users it hurts most."""
    r = table_ii_month(results)
    policies = [FCFS, LXF, REL]
    rows = [[u, kind(r, u), *(c for p in policies for c in _measures(r, u, p))] for u in hurt_most(r)]
    sizes = [[u, *_sizes(r, u)] for u in hurt_most(r)]
    return (
        f"Month {r['label']} ({machine_size} processors):\n\n"
        + markdown_split(["user", "kind", *_header(policies)], rows, [4] * len(policies), keep=2, right=2)
        + "\n\n"
        + markdown(["user", *_SIZE_HEADER], sizes)
    )


def table_iv(results: list[dict[str, Any]], top: int = 5) -> str:
    """Table IV: the users who mix and spread their jobs whose maximum wait RelShare(1d) cuts most."""
    chosen = [(r, u) for r in results for u in r[REL]["users"] if mixed(r, u) and spreads(r, u)]
    chosen.sort(key=lambda p: _m(*p, REL, "max_wait") - _m(*p, FCFS, "max_wait"))
    chosen = chosen[:top]
    if not chosen:
        return "No user mixes and spreads its jobs."
    policies = [FCFS, LXF, REL]
    rows = [[u, r["label"], *(c for p in policies for c in _measures(r, u, p))] for r, u in chosen]
    sizes = [[u, r["label"], *_sizes(r, u)] for r, u in chosen]
    return (
        markdown_split(["user", "month", *_header(policies)], rows, [4] * len(policies), keep=2, right=2)
        + "\n\n"
        + markdown(["user", "month", *_SIZE_HEADER], sizes, right=2)
    )


def _window_users(r: dict[str, Any]) -> Iterator[str]:
    """Table VI's users: Table II's, then the two whose maximum wait RelShare(1d) cuts most."""
    yield from hurt_most(r)
    users = r[REL]["users"]
    yield from sorted(users, key=lambda u: _m(r, u, REL, "max_wait") - _m(r, u, FCFS, "max_wait"))[:2]


def tables_vi_vii(results: list[dict[str, Any]]) -> str:
    """Tables VI and VII in Table II's month: each user's maximum and average wait, and dev, by fw."""
    r = table_ii_month(results)
    policies = [FCFS, LXF, *(f"RelShare({fw})" for fw in WINDOWS)]
    names = [FCFS, LXF, *WINDOWS]
    users = list(dict.fromkeys(_window_users(r)))
    waits = [
        [
            u,
            kind(r, u),
            *(f"{_h(_m(r, u, p, 'max_wait'))} / {_h(_m(r, u, p, 'mean_wait'))}" for p in policies),
        ]
        for u in users
    ]
    devs = [[u, kind(r, u), *(f"{_m(r, u, p, 'dev') / HOUR:.0f}" for p in policies)] for u in users]
    return (
        f"Month {r['label']}, maximum / average wait (Table VI):\n\n"
        + markdown(["user", "kind", *names], waits, right=2)
        + "\n\ndev in processor-hours (Table VII):\n\n"
        + markdown(["user", "kind", *names], devs, right=2)
    )


def kinds_table(results: list[dict[str, Any]]) -> str:
    """How many user-months of each kind, and how many of them benefit or suffer under RelShare(1d)."""
    counts: dict[str, list[int]] = {}
    for r in results:
        for u in r[REL]["users"]:
            c = counts.setdefault(kind(r, u), [0, 0, 0])
            c[0] += 1
            c[1] += _m(r, u, REL, "max_wait") < _m(r, u, FCFS, "max_wait")
            c[2] += suffers(r, u)
    rows = [[k, *(str(x) for x in c)] for k, c in sorted(counts.items())]
    return markdown(["kind", "user-months", "benefit", "suffer"], rows)
