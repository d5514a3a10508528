"""Reproduce Vasupongayya's fair-share study (Fig. 1, 4, Tables III, V, VI) on an archive trace with users.

The paper simulates ten monthly NCSA IA-64 workloads, each with a one-week warm-up from the month
before and a cool-down in which the next month's jobs keep arriving until every job of the month has
started; measures cover the jobs submitted in the month; runtimes are exact. We do the same on a
trace with user ids (CTC-SP2 by default), split at the calendar months of the trace's time zone
(from its ``UnixStartTime`` and ``TimeZoneString`` header lines), and compare:

* FCFS-backfill and LXF-backfill (EASY with a reservation for the first job, FCFS or LXF order);
* RelShare(fw) with expected usage, fw = 4 h, 12 h, 1 d, 2 d and 7 d, and RelShare(1d) without it.

Windows start at local midnight. Every schedule is validated. Each month runs in its own process
(``--workers``) and is cached as JSON under ``--cache``, so an interrupted run resumes. Usage::

    python benchmarks/reproduce_vasupongayya.py --output report.md
    python benchmarks/reproduce_vasupongayya.py --trace SDSC-SP2-1998-4.2-cln
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
from _common import DEFAULT_TRACE_DIR, ROOT, markdown, write_report

from backfill import (
    EASY,
    RelShare,
    Scheduler,
    Workload,
    benefit_and_suffer,
    bounded_slowdowns,
    read_swf,
    share_balance,
    simulate,
    user_measures,
    validate_schedule,
)
from backfill.priorities import lxf

DEFAULT_CACHE = ROOT / "benchmarks" / "results" / "vasupongayya"
DEFAULT_TRACE = "CTC-SP2-1996-3.1-cln"
HOUR, DAY = 3600.0, 86400.0
WARM_UP = 7 * DAY
BOUND = 60.0  # the paper's bounded slowdown: runtimes under a minute count as a minute
UNDER_SHARE = 50 * HOUR  # Table V: more than 50 node-hours under or over the entitled share

WINDOWS = {"4h": 4 * HOUR, "12h": 12 * HOUR, "1d": DAY, "2d": 2 * DAY, "7d": 7 * DAY}

#: Policy name -> factory taking the window origin (local midnight).
POLICIES: dict[str, Callable[[float], Scheduler]] = {
    "FCFS-backfill": lambda origin: EASY(),
    "LXF-backfill": lambda origin: EASY(lxf),
    "RelShare(1d) w/o": lambda origin: RelShare(DAY, expected_usage=False, origin=origin),
    **{
        f"RelShare({name})": (lambda origin, fw=fw: RelShare(fw, origin=origin))
        for name, fw in WINDOWS.items()
    },
}


def months(w: Workload) -> list[tuple[str, float, float]]:
    """Return (label, start, end) of each calendar month the trace covers whole, in trace seconds."""
    unix = float(w.header["UnixStartTime"])
    zone = ZoneInfo(w.header.get("TimeZoneString", "UTC"))
    first = datetime.fromtimestamp(unix, zone)
    last = datetime.fromtimestamp(unix + float(w.column("submit").max()), zone)
    out = []
    year, month = (first.year, first.month + 1) if first.day > 1 or first.hour else (first.year, first.month)
    while True:
        year, month = (year + 1, 1) if month > 12 else (year, month)
        nxt = (year + 1, 1) if month == 12 else (year, month + 1)
        start = datetime(year, month, 1, tzinfo=zone).timestamp() - unix
        end = datetime(*nxt, 1, tzinfo=zone).timestamp() - unix
        if datetime(*nxt, 1, tzinfo=zone) > last:
            return out
        out.append((f"{month}/{year % 100:02d}", start, end))
        month += 1


def _load(trace_dir: str, stem: str) -> Workload:
    w, _ = read_swf(Path(trace_dir) / f"{stem}.swf.gz")
    return w.with_exact_estimates()  # the paper uses perfect runtime information


def _month_measures(s: Any, month_jobs: np.ndarray, start: float, end: float) -> dict[str, Any]:
    wait = s.wait[month_jobs]
    users = user_measures(s, period=(start, end), bound=BOUND)
    dev = {u: m["dev"] for u, m in users.items() if m["jobs"] > 0}
    under, over = share_balance(dev, threshold=UNDER_SHARE)
    return {
        "mean_bsld": float(bounded_slowdowns(s, BOUND)[month_jobs].mean()),
        "mean_wait": float(wait.mean()),
        "max_wait": float(wait.max()),
        "p99_wait": float(np.percentile(wait, 99)),
        "under": under,
        "over": over,
        "users": {str(u): m for u, m in users.items() if m["jobs"] > 0},
    }


def _job_mix(w: Workload, month_jobs: np.ndarray) -> dict[str, list[float]]:
    """Each user's jobs of the month: count, mean and max width, mean runtime (h), total area (proc-h)."""
    user = w.column("user")[month_jobs]
    width = w.column("processors")[month_jobs].astype(float)
    runtime = w.column("runtime")[month_jobs]
    out = {}
    for u in np.unique(user).tolist():
        mine = user == u
        n = width[mine]
        t = runtime[mine]
        out[str(u)] = [
            float(mine.sum()),
            float(n.mean()),
            float(n.max()),
            float(t.mean() / HOUR),
            float((n * t).sum() / HOUR),
        ]
    return out


def run_month(trace_dir: str, stem: str, index: int) -> dict[str, Any]:
    """Simulate every policy on one month (with warm-up and cool-down) and measure the month's jobs."""
    w = _load(trace_dir, stem)
    label, start, end = months(w)[index]
    submit = w.column("submit")
    cool = WARM_UP
    while True:
        keep = (submit >= start - WARM_UP) & (submit < end + cool)
        sub = Workload.from_records(w.records[keep], w.machine_size, header=w.header)
        sub_submit = sub.column("submit")
        month_jobs = (sub_submit >= start) & (sub_submit < end)
        done = True
        out: dict[str, Any] = {"label": label, "jobs": int(month_jobs.sum()), "seconds": {}}
        schedules = {}
        for name, factory in POLICIES.items():
            t0 = time.perf_counter()
            s = simulate(sub, factory(start))
            out["seconds"][name] = time.perf_counter() - t0
            validate_schedule(s)
            if np.isnan(s.start[month_jobs]).any() or s.start[month_jobs].max() >= end + cool:
                done = False  # a month job started after the last arrival kept: cool down longer
                break
            schedules[name] = s
            out[name] = _month_measures(s, month_jobs, start, end)
        if done:
            break
        cool *= 2
    out["cool_down_days"] = cool / DAY
    area = (sub.column("processors") * sub.column("runtime"))[month_jobs].sum()
    out["demand"] = float(area / (w.machine_size * (end - start)))
    out["users"] = len(np.unique(sub.column("user")[month_jobs]))
    out["mix"] = _job_mix(sub, month_jobs)
    base = schedules["FCFS-backfill"]
    for name in ("RelShare(1d)", "RelShare(1d) w/o", "LXF-backfill"):
        out[name]["benefit_10h"], out[name]["suffer_10h"] = benefit_and_suffer(
            base, schedules[name], threshold=10 * HOUR, jobs=month_jobs
        )
        out[name]["benefit_0"], out[name]["suffer_0"] = benefit_and_suffer(
            base, schedules[name], threshold=0.0, jobs=month_jobs
        )
    return out


def _hours(seconds: float) -> str:
    return f"{seconds / HOUR:.1f}h"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def workload_table(results: list[dict[str, Any]]) -> str:
    rows = [[r["label"], _pct(r["demand"]), str(r["users"]), str(r["jobs"])] for r in results]
    return markdown(["month", "proc. demand", "users", "jobs"], rows)


def measure_table(
    results: list[dict[str, Any]], policies: list[str], key: str, fmt: Callable[[float], str]
) -> str:
    rows = [[r["label"], *(fmt(r[p][key]) for p in policies)] for r in results]
    return markdown(["month", *policies], rows)


def benefit_table(results: list[dict[str, Any]]) -> str:
    rows = []
    for r in results:
        m = r["RelShare(1d)"]
        rows.append(
            [r["label"], *(_pct(m[k]) for k in ("benefit_10h", "suffer_10h", "benefit_0", "suffer_0"))]
        )
    return markdown(["month", "benefit > 10 h", "suffer > 10 h", "benefit > 0", "suffer > 0"], rows)


def balance_table(results: list[dict[str, Any]]) -> str:
    policies = ["FCFS-backfill", "RelShare(1d)", "LXF-backfill"]
    rows = [
        [r["label"], *(_pct(r[p]["under"]) for p in policies), *(_pct(r[p]["over"]) for p in policies)]
        for r in results
    ]
    header = ["month", *(f"under: {p}" for p in policies), *(f"over: {p}" for p in policies)]
    return markdown(header, rows)


def suffering_users(results: list[dict[str, Any]], machine_size: int, top: int = 5) -> str:
    """Table II: in the month where RelShare(1d) raises the maximum wait most, the users it hurts most."""
    r = max(results, key=lambda r: r["RelShare(1d)"]["max_wait"] - r["FCFS-backfill"]["max_wait"])
    policies = ["FCFS-backfill", "LXF-backfill", "RelShare(1d)"]
    users = r["RelShare(1d)"]["users"]
    base = r["FCFS-backfill"]["users"]
    worst = sorted(users, key=lambda u: base[u]["max_wait"] - users[u]["max_wait"])[:top]
    rows = []
    for u in worst:
        jobs, mean_n, max_n, mean_t, area = r["mix"][u]
        cells = [u, f"{jobs:.0f}", f"{mean_n:.1f}", f"{max_n:.0f}", f"{mean_t:.1f}", f"{area:.0f}"]
        for p in policies:
            m = r[p]["users"][u]
            cells += [
                f"{m['dev'] / HOUR:.0f}",
                _hours(m["max_wait"]),
                _hours(m["mean_wait"]),
                f"{m['mean_bsld']:.1f}",
            ]
        rows.append(cells)
    header = ["user", "jobs", "avg N", "max N", "avg T (h)", "NT (proc-h)"]
    for p in policies:
        header += [f"{p} dev", "MaxW", "AvgW", "AvgX"]
    return f"Month {r['label']} ({machine_size} processors):\n\n" + markdown(header, rows)


def _count(results: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> str:
    return f"{sum(1 for r in results if test(r))}/{len(results)}"


def _median_change(results: list[dict[str, Any]], policy: str, base: str, key: str) -> str:
    changes = [(r[policy][key] - r[base][key]) / r[base][key] for r in results]
    return f"{100 * float(np.median(changes)):+.0f}% ({100 * min(changes):+.0f} to {100 * max(changes):+.0f})"


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 0.25 * max(a, b)


def statements(results: list[dict[str, Any]]) -> str:
    """The paper's findings, each with how many of our months agree."""

    rel, fcfs = "RelShare(1d)", "FCFS-backfill"
    rows = [
        [
            "Fig. 1(a,b): fair share changes the average bounded slowdown and wait little",
            "RelShare(1d) against FCFS-backfill, median over months: slowdown "
            + _median_change(results, rel, fcfs, "mean_bsld")
            + ", wait "
            + _median_change(results, rel, fcfs, "mean_wait")
            + "; LXF-backfill: slowdown "
            + _median_change(results, "LXF-backfill", fcfs, "mean_bsld"),
        ],
        [
            "Fig. 1(c): RelShare(1d) has a worse maximum wait than FCFS-backfill every month",
            f"worse in {_count(results, lambda r: r[rel]['max_wait'] > r[fcfs]['max_wait'])} months",
        ],
        [
            "Fig. 1(d): RelShare(1d)'s 99th-percentile wait is similar to FCFS-backfill's",
            "within 25% in "
            + _count(results, lambda r: _near(r[rel]["p99_wait"], r[fcfs]["p99_wait"]))
            + " months",
        ],
        [
            "Fig. 1: with and without expected usage perform alike",
            "max wait within 25% in "
            + _count(results, lambda r: _near(r[rel]["max_wait"], r["RelShare(1d) w/o"]["max_wait"]))
            + " months",
        ],
        [
            "Table III: users who benefit by > 10 h are about as many as those who suffer, or more",
            "benefit >= suffer in "
            + _count(results, lambda r: r[rel]["benefit_10h"] >= r[rel]["suffer_10h"])
            + " months",
        ],
        [
            "Table V: RelShare(1d) has as few users under-shared by > 50 node-hours as FCFS-backfill",
            f"fewer or equal in {_count(results, lambda r: r[rel]['under'] <= r[fcfs]['under'])} months",
        ],
        [
            "Fig. 4(c): a 4 h or 12 h window improves the maximum wait of fw = 1 d in most months",
            "4 h better in "
            + _count(results, lambda r: r["RelShare(4h)"]["max_wait"] < r[rel]["max_wait"])
            + ", 12 h better in "
            + _count(results, lambda r: r["RelShare(12h)"]["max_wait"] < r[rel]["max_wait"])
            + " months",
        ],
        [
            "Fig. 4(d): a 7 d window significantly degrades the maximum wait in most months",
            "worse than 1 d in "
            + _count(results, lambda r: r["RelShare(7d)"]["max_wait"] > r[rel]["max_wait"])
            + " months",
        ],
        [
            "Fig. 4(a,b): fw has little effect on the average bounded slowdown",
            "median spread over the five windows: "
            + f"{100 * float(np.median([_fw_spread(r) for r in results])):.0f}%",
        ],
    ]
    return markdown(["paper", "ours"], rows)


def _fw_spread(r: dict[str, Any]) -> float:
    values = [r[f"RelShare({name})"]["mean_bsld"] for name in WINDOWS]
    return (max(values) - min(values)) / max(values)


def report(stem: str, results: list[dict[str, Any]], machine_size: int) -> str:
    share_policies = ["FCFS-backfill", "LXF-backfill", "RelShare(1d) w/o", "RelShare(1d)"]
    windows = [f"RelShare({name})" for name in WINDOWS]
    seconds = sum(sum(r["seconds"].values()) for r in results)
    parts = [
        f"Trace {stem}, {len(results)} months, exact runtimes; {seconds:.0f} s of simulation in all.",
        "## The paper's findings beside ours",
        statements(results),
        "## Workload (Table I)",
        workload_table(results),
        "## Average bounded slowdown (Fig. 1a)",
        measure_table(results, share_policies, "mean_bsld", lambda x: f"{x:.1f}"),
        "## Average wait (Fig. 1b)",
        measure_table(results, share_policies, "mean_wait", _hours),
        "## Maximum wait (Fig. 1c)",
        measure_table(results, share_policies, "max_wait", _hours),
        "## 99th-percentile wait (Fig. 1d)",
        measure_table(results, share_policies, "p99_wait", _hours),
        "## The users RelShare(1d) hurts most (Table II)",
        suffering_users(results, machine_size),
        "## Users who benefit or suffer under RelShare(1d) against FCFS-backfill, by max wait (Table III)",
        benefit_table(results),
        "## Users under- and over-shared by more than 50 processor-hours (Table V)",
        balance_table(results),
        "## Fair-share window: average bounded slowdown (Fig. 4a, b)",
        measure_table(results, windows, "mean_bsld", lambda x: f"{x:.1f}"),
        "## Fair-share window: maximum wait (Fig. 4c, d)",
        measure_table(results, windows, "max_wait", _hours),
    ]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path, default=DEFAULT_TRACE_DIR)
    parser.add_argument("--trace", default=DEFAULT_TRACE, help=f"file stem (default {DEFAULT_TRACE})")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--output", type=Path, help="write the markdown report here (default: stdout)")
    args = parser.parse_args(argv)
    if not (args.trace_dir / f"{args.trace}.swf.gz").exists():
        print(f"trace {args.trace} not found in {args.trace_dir}", file=sys.stderr)
        return 2
    args.cache.mkdir(parents=True, exist_ok=True)
    workload = _load(str(args.trace_dir), args.trace)
    count = len(months(workload))
    results: dict[int, dict[str, Any]] = {}
    todo = []
    for i in range(count):
        path = args.cache / f"{args.trace}__{i:02d}.json"
        if path.exists():
            results[i] = json.loads(path.read_text())
        else:
            todo.append(i)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = {pool.submit(run_month, str(args.trace_dir), args.trace, i): i for i in todo}
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            (args.cache / f"{args.trace}__{i:02d}.json").write_text(json.dumps(results[i]))
            print(
                f"{results[i]['label']:>6} done in {sum(results[i]['seconds'].values()):.1f} s",
                file=sys.stderr,
            )
    text = report(args.trace, [results[i] for i in range(count)], workload.machine_size)
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
