"""Reproduce Vasupongayya's fair-share study (Fig. 1, 4, Tables I-VII) on archive traces with users.

The paper simulates ten monthly NCSA IA-64 workloads, each with a one-week warm-up from the month
before and a cool-down in which the next month's jobs keep arriving until every job of the month has
started; measures cover the jobs submitted in the month; runtimes are exact. We do the same on a
trace with user ids (CTC-SP2 by default), split at the calendar months of the trace's time zone
(from its ``UnixStartTime`` and ``TimeZoneString`` header lines), and compare:

* FCFS-backfill and LXF-backfill (EASY with a reservation for the first job, FCFS or LXF order);
* RelShare(fw) with expected usage, fw = 4 h, 12 h, 1 d, 2 d and 7 d, and RelShare(1d) without it.

Windows start at local midnight. Every schedule is validated. Each month runs in its own process
(``--workers``) and is kept as JSON under ``--cache``, so an interrupted run resumes. ``checks()``
judges the paper's claims on SDSC-SP2 (a stand-in for the paper's NCSA IA-64 months, which are not
public: a 128-processor production machine's months) and again on CTC-SP2 (another setting), for
``reproduce.py``; the claims themselves are in
``_vasupongayya_findings`` (months) and ``_vasupongayya_users`` (kinds of users). Usage::

    python benchmarks/reproduction/vasupongayya/reproduce_vasupongayya.py --output report.md
    python benchmarks/reproduction/vasupongayya/reproduce_vasupongayya.py --trace SDSC-SP2-1998-4.2-cln
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import (
    DEFAULT_TRACE_DIR,
    RESULTS,
    TRACE_STEMS,
    Check,
    cached_result,
    discarded,
    load_result,
    markdown,
    save_result,
    write_report,
)
from _vasupongayya_days import DAY_FIELDS, day_findings, day_summaries, unpack_days
from _vasupongayya_findings import DAY, HOUR, WINDOWS, month_findings
from _vasupongayya_more import more_findings
from _vasupongayya_users import (
    MAIN_POLICIES,
    SIZE_FIELDS,
    USER_FIELDS,
    WINDOW_POLICIES,
    job_sizes,
    kinds_table,
    pack_sizes,
    pack_users,
    spread_findings,
    table_ii,
    table_iv,
    tables_vi_vii,
    unpack_month,
    user_findings,
    user_months,
)

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
from backfill.schedulers.machinery.priorities import lxf

PAPER = "Vasupongayya, Impact of Fair Share and its Configurations on Parallel Job Scheduling Algorithms"
PAGE = "reproduction-vasupongayya.md"

DEFAULT_CACHE = RESULTS / "vasupongayya"
DEFAULT_TRACE = "CTC-SP2-1996-3.1-cln"
#: The traces the page covers, by the name the reproduction report gives them, with the setting each
#: stands for: the paper's NCSA IA-64 months are not public, and SDSC-SP2's months, on a machine of
#: the paper's 128 processors, stand for them; CTC-SP2's are another setting.
_TRACES = {"SDSC-SP2": "", "CTC-SP2": "CTC-SP2, 338 processors"}
#: What the report says of the trace judged in the paper's stead: its claims are counted as judged on
#: a stand-in trace, never as judged in the paper's own setting.
STAND_IN = {"SDSC-SP2": "SDSC-SP2 for the paper's NCSA IA-64"}
#: The other reading of a user who spreads its jobs, whose Table IV and §V.C rows are shown apart.
_QUARTER = "a user spreads its jobs when no day holds over a quarter of them"
WARM_UP = 7 * DAY
BOUND = 60.0  # the paper's bounded slowdown: runtimes under a minute count as a minute
UNDER_SHARE = 50 * HOUR  # Table V: more than 50 node-hours under or over the entitled share

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


def _month_measures(
    s: Any, month_jobs: np.ndarray, start: float, end: float
) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    """A policy's measures of the month, and each user's (those with a job submitted in it)."""
    wait = s.wait[month_jobs]
    users = user_measures(s, period=(start, end), bound=BOUND)
    dev = {u: m["dev"] for u, m in users.items() if m["jobs"] > 0}
    under, over = share_balance(dev, threshold=UNDER_SHARE)
    measures = {
        "mean_bsld": float(bounded_slowdowns(s, BOUND)[month_jobs].mean()),
        "mean_wait": float(wait.mean()),
        "max_wait": float(wait.max()),
        "p99_wait": float(np.percentile(wait, 99)),
        "under": under,
        "over": over,
    }
    return measures, {str(u): m for u, m in users.items() if m["jobs"] > 0}


def run_month(trace_dir: str, stem: str, index: int) -> dict[str, dict[str, Any]]:
    """Simulate every policy on one month (with warm-up and cool-down) and measure the month's jobs.

    Returns:
        ``{"month": ..., "windows": ...}``: the month's result (every policy's measures, the per-user
        measures of :data:`MAIN_POLICIES`, each user's job sizes) and the per-user measures of the
        other windows, packed as :func:`unpack_month` reads them.
    """
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
        schedules, users = {}, {}
        for name, factory in POLICIES.items():
            t0 = time.perf_counter()
            s = simulate(sub, factory(start))
            out["seconds"][name] = time.perf_counter() - t0
            validate_schedule(s)
            if np.isnan(s.start[month_jobs]).any() or s.start[month_jobs].max() >= end + cool:
                done = False  # a month job started after the last arrival kept: cool down longer
                break
            schedules[name] = s
            out[name], users[name] = _month_measures(s, month_jobs, start, end)
        if done:
            break
        cool *= 2
    out["cool_down_days"] = cool / DAY
    area = (sub.column("processors") * sub.column("runtime"))[month_jobs].sum()
    out["demand"] = float(area / (w.machine_size * (end - start)))
    out["users"] = len(np.unique(sub.column("user")[month_jobs]))
    out["hours"] = (end - start) / HOUR
    out["machine_size"] = w.machine_size
    out["size_fields"] = SIZE_FIELDS
    out["sizes"] = pack_sizes(job_sizes(sub, month_jobs, start))
    out["user_fields"] = USER_FIELDS
    out["per_user"] = {p: pack_users(users[p]) for p in MAIN_POLICIES}
    windows = {"label": label, "user_fields": USER_FIELDS}
    windows["per_user"] = {p: pack_users(users[p]) for p in WINDOW_POLICIES}
    base = schedules["FCFS-backfill"]
    for name in ("RelShare(1d)", "RelShare(1d) w/o", "LXF-backfill"):
        out[name]["benefit_10h"], out[name]["suffer_10h"] = benefit_and_suffer(
            base, schedules[name], threshold=10 * HOUR, jobs=month_jobs
        )
        out[name]["benefit_0"], out[name]["suffer_0"] = benefit_and_suffer(
            base, schedules[name], threshold=0.0, jobs=month_jobs
        )
    return {"month": out, "windows": windows}


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


def report(stem: str, results: list[dict[str, Any]], machine_size: int, level: int = 2) -> str:
    """The tables of one trace's months, under headings of ``level``."""
    share_policies = ["FCFS-backfill", "LXF-backfill", "RelShare(1d) w/o", "RelShare(1d)"]
    windows = [f"RelShare({name})" for name in WINDOWS]
    h = "#" * level
    parts = [
        f"Trace {stem}, {len(results)} months, {machine_size} processors, exact runtimes.",
        f"{h} Workload (Table I)",
        workload_table(results),
        f"{h} Average bounded slowdown (Fig. 1a)",
        measure_table(results, share_policies, "mean_bsld", lambda x: f"{x:.1f}"),
        f"{h} Average wait (Fig. 1b)",
        measure_table(results, share_policies, "mean_wait", _hours),
        f"{h} Maximum wait (Fig. 1c)",
        measure_table(results, share_policies, "max_wait", _hours),
        f"{h} 99th-percentile wait (Fig. 1d)",
        measure_table(results, share_policies, "p99_wait", _hours),
        f"{h} The users RelShare(1d) hurts most (Table II)",
        table_ii(results, machine_size),
        "dev is in processor-hours; MaxW and AvgW are the maximum and average wait, AvgX the average "
        "bounded slowdown; N x T in processor-hours; the busiest day is how many jobs the user submitted "
        "on its busiest day of the month. The kinds follow the rules above.",
        f"{h} Users who benefit or suffer under RelShare(1d) against FCFS-backfill, by max wait (Table III)",
        benefit_table(results),
        f"{h} Users who mix large and small jobs and spread them, most helped by RelShare(1d) (Table IV)",
        table_iv(results),
        f"{h} User-months of each kind",
        "How many user-months of each kind, how many of them have a lower maximum wait under "
        "RelShare(1d) than under FCFS-backfill (benefit), and how many a higher one than under both "
        "backfill policies (suffer).",
        kinds_table(results),
        f"{h} Users under- and over-shared by more than 50 processor-hours (Table V)",
        balance_table(results),
        f"{h} Fair-share window and individual users (Tables VI, VII)",
        "Table II's users, then the two users of the month whose maximum wait RelShare(1d) cuts most.",
        tables_vi_vii(results),
        f"{h} Fair-share window: average bounded slowdown (Fig. 4a, b)",
        measure_table(results, windows, "mean_bsld", lambda x: f"{x:.1f}"),
        f"{h} Fair-share window: average wait (§VI)",
        measure_table(results, windows, "mean_wait", _hours),
        f"{h} Fair-share window: maximum wait (Fig. 4c, d)",
        measure_table(results, windows, "max_wait", _hours),
    ]
    return "\n\n".join(parts) + "\n"


def collect(
    trace_dir: Path, stem: str, cache: Path, count: int, *, workers: int = 2, run: bool = True
) -> dict[int, dict[str, Any]]:
    """Return the results of the trace's first ``count`` months by index, from ``cache``, unpacked
    (:func:`unpack_month`); with ``run``, simulate the missing months on ``workers`` processes and keep
    them. A kept month without per-user results (written by older code) counts as missing."""
    results: dict[int, dict[str, Any]] = {}
    todo = []
    for i in range(count):
        main, windows = _paths(cache, stem, i)
        kept = load_result(main) if main.exists() else {}
        if "per_user" in kept and windows.exists():
            results[i] = unpack_month(kept, load_result(windows))
        else:
            todo.append(i)
    if not (run and todo):
        return results
    cache.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_month, str(trace_dir), stem, i): i for i in todo}
        for future in as_completed(futures):
            i = futures[future]
            main, windows = _paths(cache, stem, i)
            done = future.result()
            results[i] = unpack_month(save_result(main, done["month"]), save_result(windows, done["windows"]))
            print(
                f"{results[i]['label']:>6} done in {sum(results[i]['seconds'].values()):.1f} s",
                file=sys.stderr,
            )
    return results


#: The policies whose schedules Fig. 2 and 3 follow day by day.
DAY_POLICIES = (MAIN_POLICIES[0], MAIN_POLICIES[1], MAIN_POLICIES[2])


def run_days(trace_dir: str, stem: str, index: int, cool: float) -> dict[str, Any]:
    """Simulate the month's jobs again, with the warm-up and the cool-down of ``cool`` seconds its kept
    result found, under :data:`DAY_POLICIES`, and reduce each to its users' day-by-day figures
    (``_vasupongayya_days.day_summaries``) for the users with a job submitted in the month."""
    w = _load(trace_dir, stem)
    label, start, end = months(w)[index]
    submit = w.column("submit")
    keep = (submit >= start - WARM_UP) & (submit < end + cool)
    sub = Workload.from_records(w.records[keep], w.machine_size, header=w.header)
    sub_submit = sub.column("submit")
    users = np.unique(sub.column("user")[(sub_submit >= start) & (sub_submit < end)]).tolist()
    days = round((end - start) / DAY)
    out: dict[str, Any] = {"label": label, "day_fields": DAY_FIELDS, "per_user": {}}
    for name in DAY_POLICIES:
        s = simulate(sub, POLICIES[name](start))
        validate_schedule(s)
        out["per_user"][name] = day_summaries(s, start, days, users)
    return out


def collect_days(
    trace_dir: Path, stem: str, cache: Path, done: dict[int, dict[str, Any]], *, workers: int, run: bool
) -> None:
    """Put each month's day-by-day figures under ``done[i]["days"]``, from ``cache``; with ``run``,
    compute the missing ones on ``workers`` processes and keep them as ``<stem>__<month>__days.json``."""
    path = {i: cache / f"{stem}__{i:02d}__days.json" for i in done}
    todo = [i for i in done if not path[i].exists()]
    if run and todo:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(run_days, str(trace_dir), stem, i, done[i]["cool_down_days"] * DAY): i
                for i in todo
            }
            for future in as_completed(futures):
                save_result(path[futures[future]], future.result())
    for i in done:
        if path[i].exists():
            done[i]["days"] = unpack_days(load_result(path[i])["per_user"])


def _paths(cache: Path, stem: str, index: int) -> tuple[Path, Path]:
    """Where a month's result and its other windows' per-user measures are kept."""
    return cache / f"{stem}__{index:02d}.json", cache / f"{stem}__{index:02d}__fw.json"


def checks(
    trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE, *, workers: int = 2, run: bool = True
) -> list[Check]:
    """Return the paper's claims judged on SDSC-SP2 (a stand-in trace), then on CTC-SP2 (another setting).

    Each trace gives one check per claim: the month-level claims of ``_vasupongayya_findings``, then
    the per-user claims of ``_vasupongayya_users``. ``ours`` starts with the trace's name, and with
    how many of its months are done when some are missing.

    Args:
        trace_dir: Where the traces are; a trace not there is judged from its kept months alone.
        cache: The folder of month results.
        workers: Processes that simulate the missing months.
        run: Simulate the missing months (as :func:`main` does); when false, use only the kept ones.

    Returns:
        The checks, SDSC-SP2's first.
    """
    out = []
    for name, setting in _TRACES.items():
        stem = TRACE_STEMS[name]
        facts = month_facts(trace_dir, stem, cache, run=run)
        count = None if facts is None else facts["months"]
        done = collect(trace_dir, stem, cache, count or 0, workers=workers, run=run)
        results = [done[i] for i in sorted(done)]
        label = name if len(results) == count else f"{name}, {len(results)} of {count or '?'} months so far"
        collect_days(trace_dir, stem, cache, done, workers=workers, run=run)
        # Without results every row is made "not checkable" below: the verdicts the findings compute on
        # no months are replaced, so the rules that gave them decided nothing.
        with contextlib.nullcontext() if results else discarded():
            findings = month_findings(results) + user_findings(results) + more_findings(results)
            found = [(setting, f) for f in findings + day_findings(results)]
            other = f"{setting or name}; {_QUARTER}"
            found += [(other, f) for f in spread_findings(user_months(results), "quarter")]
        stand_in = STAND_IN.get(name, "")
        if results:
            out += [
                Check(s, st, f"{label}: {ours}", v, why, at, stand_in) for at, (s, st, ours, v, why) in found
            ]
        else:
            why = f"No month of {stem} is in the results."
            out += [
                Check(s, st, f"{label}: no results", "not checkable", why, at, stand_in)
                for at, (s, st, *_) in found
            ]
    return out


def month_facts(trace_dir: Path, stem: str, cache: Path, *, run: bool) -> dict[str, Any] | None:
    """How many months the trace has and its machine size, read from it once and kept in ``cache``;
    without ``run``, None when they are not kept."""

    def compute() -> dict[str, Any]:
        workload = _load(str(trace_dir), stem)
        return {"months": len(months(workload)), "machine_size": workload.machine_size}

    return cached_result(cache / f"{stem}__months.json", compute, run=run)


def tables(trace_dir: Path = DEFAULT_TRACE_DIR, cache: Path = DEFAULT_CACHE) -> str:
    """Return the page's tables for both traces, from the kept results only: a level-3 heading per
    trace, level-4 headings for its tables."""
    parts = []
    for name, setting in _TRACES.items():
        stem = TRACE_STEMS[name]
        title = f"### {name} (" + ("another setting" if setting else "a stand-in for the paper's trace") + ")"
        facts = month_facts(trace_dir, stem, cache, run=False)
        done = {} if facts is None else collect(trace_dir, stem, cache, facts["months"], run=False)
        if not done:
            parts.append(f"{title}\n\nNot measured yet.\n")
            continue
        results = [done[i] for i in sorted(done)]
        parts.append(f"{title}\n\n" + report(stem, results, facts["machine_size"], level=4))
    return "\n".join(parts)


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
    results = collect(args.trace_dir, args.trace, args.cache, count, workers=args.workers)
    text = report(args.trace, [results[i] for i in range(count)], workload.machine_size)
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
