"""The claims of Srinivasan et al. (2002) in the text around the figures, beside what we measure: the
traces (§2.1, §4.3), the overall EASY-Conservative comparison (§3), the thresholds' spread (§4.2, §4.3),
SJF-EASY and FCFS without backfilling (§5), fairness under user estimates (§5), and the scaled
adaptive threshold's oscillation (§7).

Most rows read the groups of ``reproduce_srinivasan.py``. Two small results are kept here as well:
``trace_notes.json`` (each trace's machine size, narrowest request and jobs with an estimate, read once)
and ``oscillation__<key>.json`` for SDSC, the paper's trace: the running mean slowdown of Sel-A and
Sel-A1.5 over their completions, and FCFS without backfilling against Conservative (about half a
minute a cell).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from _common import ONE, Check, cached_result, judged, verdict_of
from _srinivasan_common import NAMES, NORMAL, PAPER_TRACE, STEM, cells, chg, f, missing
from reproduce_srinivasan import DEFAULT_LOADS, TRACES, _key

from backfill import Conservative, Job, Schedule, Selective, Workload, read_swf, simulate, validate_schedule
from backfill.measures.metrics import bounded_slowdowns
from backfill.schedulers import FCFS
from backfill.schedulers.machinery.thresholds import AdaptiveThreshold

_Group = dict[str, Any]
#: §2.1: the machine of each trace, as the paper gives it.
_MACHINES = {"CTC": 430, "KTH": 100, "SDSC": 128, "LANL": 1024}
#: The share of completions left out at the start of a running mean, where it follows a few jobs only.
_WARMUP = 0.1


def trace_notes(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, Any] | None:
    """Return, by the paper's trace name, the machine size, the fewest processors any job requested and
    the percent of jobs with their own estimate (None without ``run`` when not kept)."""

    def compute() -> dict[str, Any]:
        notes = {}
        for name, stem, *_ in TRACES:
            path = trace_dir / f"{stem}.swf.gz"
            if path.exists():
                workload, read = read_swf(path)
                records = workload.records
                requested = np.where(
                    records["requested_processors"] > 0,
                    records["requested_processors"],
                    records["processors"],
                )
                notes[name] = {
                    "machine_size": workload.machine_size,
                    "narrowest_request": int(requested.min()),
                    "estimated": 100.0 * (1 - read.altered.get("estimate_from_runtime", 0) / len(workload)),
                }
        return {"traces": notes}

    return cached_result(cache / "trace_notes.json", compute, run=run)


def running_mean_range(schedule: Schedule) -> tuple[float, float]:
    """Return the range (max - min) of the running mean bounded slowdown over the completions, leaving
    out the first :data:`_WARMUP` of them, and the final mean.

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=10.0, estimate=10.0) for i in range(3)]
        >>> running_mean_range(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()))
        (1.0, 2.0)
    """
    order = np.argsort(schedule.end, kind="stable")
    bsld = bounded_slowdowns(schedule)[order]
    means = np.cumsum(bsld) / np.arange(1, len(bsld) + 1)
    kept = means[int(_WARMUP * len(means)) :]
    return float(kept.max() - kept.min()), float(means[-1])


def run_oscillation(
    trace_dir: Path, stem: str, load: float, estimates: str, width_boundary: int
) -> dict[str, Any]:
    """Sel-A and Sel-A1.5's running mean slowdowns, and FCFS without backfilling against Conservative."""
    workload, _ = read_swf(trace_dir / f"{stem}.swf.gz")
    if estimates == "exact":
        workload = workload.with_exact_estimates()
    workload = workload.scaled(load)
    out: dict[str, Any] = {"trace": stem, "load": load, "estimates": estimates, "running_mean": {}}
    for name, factor in (("Sel-A", 1.0), ("Sel-A1.5", 1.5)):
        schedule = simulate(
            workload, Selective(AdaptiveThreshold(factor=factor, width_boundary=width_boundary))
        )
        validate_schedule(schedule)
        spread, final = running_mean_range(schedule)
        out["running_mean"][name] = {"range": spread, "final": final}
    conservative = simulate(workload, Conservative())
    fcfs = simulate(workload, FCFS())
    validate_schedule(fcfs)
    later = fcfs.start > conservative.start + 1e-6
    earlier = fcfs.start < conservative.start - 1e-6
    out["fcfs"] = {"later": float(100 * later.mean()), "earlier": float(100 * earlier.mean())}
    return out


def oscillation_cells(trace_dir: Path, cache: Path, *, run: bool) -> dict[str, _Group]:
    """The kept cells for the paper's trace at each load and estimates, by group key."""
    name = PAPER_TRACE
    stem, width = STEM[name], next(t[2] for t in TRACES if t[0] == name)
    out = {}
    for load in DEFAULT_LOADS:
        for estimates in ("exact", "user"):
            key = _key(stem, load, estimates)
            cell = cached_result(
                cache / f"oscillation__{key}.json",
                lambda load=load, estimates=estimates: run_oscillation(
                    trace_dir, stem, load, estimates, width
                ),
                run=run and (trace_dir / f"{stem}.swf.gz").exists(),
            )
            if cell is not None:
                out[key] = cell
    return out


def _trace_rows(notes: dict[str, Any] | None) -> list[Check]:
    s1 = "The machines: CTC 430, KTH 100, SDSC 128 and LANL 1024 processors"
    s2 = "On LANL no job requested fewer than 32 processors"
    s3 = "The LANL trace has no user runtime estimates"
    if not notes:
        return [missing("§2.1", s1), missing("§2.1", s2), missing("§4.3", s3)]
    t = notes["traces"]
    same = [n for n in _MACHINES if n in t and t[n]["machine_size"] == _MACHINES[n]]
    off = [f"{n} {t[n]['machine_size']}" for n in _MACHINES if n in t and n not in same]
    ours = ", ".join(f"{n} {t[n]['machine_size']}" for n in _MACHINES if n in t)
    why = f"Not on {', '.join(off)}: our CTC-SP2 file (version 3.1) declares 338 processors." if off else ""
    rows = [Check("§2.1", s1, ours, verdict_of(len(same), len(t)), why)]
    if "LANL" in t:
        low = t["LANL"]["narrowest_request"]
        rows.append(
            Check(
                "§2.1",
                s2,
                f"the narrowest request on LANL: {low} processors",
                judged(ONE, "holds" if low >= 32 else "differs"),
            )
        )
        share = t["LANL"]["estimated"]
        why = (
            "Our file, LANL-CM5-1994-4.1-cln, is a newer version of the log than the paper's and carries "
            "estimates; our runs with user estimates leave LANL out, as the paper does."
        )
        rows.append(
            Check(
                "§4.3",
                s3,
                f"{share:.2f} % of LANL's jobs have an estimate",
                judged(ONE, "holds" if share == 0 else "differs"),
                why if share else "",
            )
        )
    return rows


def _overall(groups: dict[str, _Group]) -> Check:
    statement = "Overall, EASY against Conservative depends on the trace and the metric: no consistent trend"
    normal = cells(groups, NORMAL, "exact", NAMES)
    if not normal:
        return missing("§3", statement)
    signs = {}
    for n, g in normal.items():
        for metric in ("mean_bsld", "mean_response"):
            base = g["figures"]["Conservative"]["overall"][metric]
            signs[n, metric] = g["figures"]["EASY"]["overall"][metric] > base
    worse = [f"{n} {'slowdown' if m == 'mean_bsld' else 'turnaround'}" for (n, m), v in signs.items() if v]
    ours = f"x1, exact estimates: EASY worse overall in {len(worse)} of {len(signs)} (trace, metric) cases"
    ours += f" ({', '.join(worse)})" if worse else ""
    metrics = ("mean_bsld", "mean_response")
    by_trace = any(len({signs[n, m] for n in normal}) > 1 for m in metrics)
    by_metric = any(signs[n, metrics[0]] != signs[n, metrics[1]] for n in normal)
    why = (
        "" if by_trace else "Each metric gives EASY the same sign on every trace; only the metric changes it."
    )
    return Check("§3", statement, ours, verdict_of(by_trace + by_metric, 2, most=1.0), why)


#: §4.2 and §4.3's ratios of Conservative's average slowdowns that the paper says are far from 1: where,
#: the claim, the estimates, what the ratio is, the ratio of one group, and whether it must be under half
#: (else above twice).
_RATIOS = (
    (
        "§4.2",
        "The LW jobs' average slowdown under Conservative is much lower than the overall average (Table 7: "
        "2.59 against 26.69, 0.10 times)",
        "exact",
        "LW against overall",
        lambda g: g["thresholds"]["Sel-D"]["LW"] / g["thresholds"]["Sel"],
        True,
    ),
    (
        "§4.3",
        "With user estimates, the average slowdown of all jobs is skewed high by aborted and poorly "
        "estimated jobs",
        "user",
        "Conservative's mean slowdown of all jobs over that of the well-estimated ones",
        lambda g: g["figures"]["Conservative"]["overall"]["mean_bsld"] / g["thresholds"]["Sel"],
        False,
    ),
)


def _ratio_rows(groups: dict[str, _Group]) -> dict[str, Check]:
    """The rows of :data:`_RATIOS`, by source."""
    rows = {}
    for source, statement, estimates, what, ratio, under in _RATIOS:
        kept = [g for g in groups.values() if g.get("estimates") == estimates]
        if not kept:
            rows[source] = missing(source, statement)
            continue
        ratios = sorted(ratio(g) for g in kept)
        agree = sum(r < 0.5 if under else r > 2 for r in ratios)
        bound = "under half" if under else "above twice"
        ours = f"{what}, over our {len(kept)} {estimates}-estimate cells: {ratios[0]:.2f} to {ratios[-1]:.2f}"
        ours += f" times; {bound} in {agree} of {len(ratios)}"
        rows[source] = Check(
            source, statement, ours, verdict_of(agree, len(ratios)), f"We read it as {bound}."
        )
    return rows


def _sjf_easy(groups: dict[str, _Group]) -> Check:
    statement = "SJF-EASY achieves a lower average slowdown than FCFS-EASY"
    if not groups:
        return missing("§5", statement)
    keys = sorted(groups)
    lower = [
        k
        for k in keys
        if groups[k]["figures"]["SJF-EASY"]["overall"]["mean_bsld"]
        < groups[k]["figures"]["EASY"]["overall"]["mean_bsld"]
    ]
    ours = (
        f"average slowdown over our {len(keys)} (trace, load, estimates) cells: SJF-EASY below FCFS-EASY "
        f"in {len(lower)} of {len(keys)}"
    )
    return Check("§5", statement, ours, verdict_of(len(lower), len(keys)))


def _conservative_unfair(groups: dict[str, _Group]) -> Check:
    statement = (
        "With inaccurate user estimates, FCFS-Conservative no longer meets the weak fairness (some jobs "
        "start after their fair start)"
    )
    user = {k: g for k, g in groups.items() if g.get("estimates") == "user"}
    if not user:
        return missing("§5", statement)
    shares = sorted(100 - g["buckets"]["Conservative"]["<=1"] for g in user.values())
    hit = sum(s > 0 for s in shares)
    ours = (
        f"Conservative's jobs beyond their fair slowdown, over our {len(shares)} user-estimate cells: "
        f"{shares[0]:.1f} to {shares[-1]:.1f} %"
    )
    return Check("§5", statement, ours, verdict_of(hit, len(shares)))


def _fcfs(osc: dict[str, _Group]) -> Check:
    statement = "Most jobs would start later under FCFS without backfilling than under FCFS-Conservative"
    if not osc:
        return missing("§5", statement)
    later = {k: c["fcfs"]["later"] for k, c in sorted(osc.items())}
    most = sum(v > 50 for v in later.values())
    ours = (
        f"{PAPER_TRACE}, {len(later)} (load, estimates) cells: FCFS starts {min(later.values()):.1f} to "
        f"{max(later.values()):.1f} % of the jobs later; over half in {most}"
    )
    why = (
        "" if most == len(later) else "The paper says likely; at low load most jobs start at once under both."
    )
    return Check("§5", statement, ours, verdict_of(most, len(later)), why)


def _slowdown_example() -> Check:
    """§5's example, measured on two tiny schedules: a 10-minute job queued behind a 1-hour one, and a
    24-hour job queued behind a 6-day one (a slowdown of 7, a week from submission to end)."""
    statement = (
        "A 1 hour wait for a 10 minute job is a slowdown of 7; a slowdown of 7 for a 24 hour job is about "
        "a one-week wait"
    )
    slowdowns, waits = [], []
    for blocker, job in ((3600.0, 600.0), (6 * 86400.0, 86400.0)):
        jobs = [
            Job(id=0, submit=0.0, processors=1, runtime=blocker, estimate=blocker),
            Job(id=1, submit=0.0, processors=1, runtime=job, estimate=job),
        ]
        schedule = simulate(Workload.from_jobs(jobs, machine_size=1), FCFS())
        slowdowns.append(float(bounded_slowdowns(schedule)[1]))
        waits.append(float(schedule.start[1] - schedule.submit[1]))
    ours = (
        f"10-minute job after a {waits[0] / 3600:g} h wait: slowdown {slowdowns[0]:g}; 24-hour job with "
        "slowdown "
        f"{slowdowns[1]:g}: waits {waits[1] / 86400:g} days, ends {(waits[1] + 86400) / 86400:g} days "
        "after submission"
    )
    agree = (slowdowns[0] == 7) + (slowdowns[1] == 7 and 6 <= waits[1] / 86400 <= 7)
    return Check("§5", statement, ours, verdict_of(agree, 2, most=1.0))


def _sel_short(groups: dict[str, _Group]) -> Check:
    """§4.3: under Sel (user estimates) "the slowdowns of the short jobs reduces dramatically"."""
    statement = "SDSC, high load, user estimates: Sel cuts the short jobs' (SN, SW) slowdown dramatically"
    g = cells(groups, max(DEFAULT_LOADS), "user", NAMES).get(PAPER_TRACE)
    if g is None:
        return missing("Fig. 5a", statement)
    changes = {c: chg(g, "Sel", cat=c) for c in ("SN", "SW")}
    halved = sum(v <= -50 for v in changes.values())
    ours = f"SDSC x{max(DEFAULT_LOADS):g}, user estimates, against Conservative: " + ", ".join(
        f"{c} {f(v)} %" for c, v in changes.items()
    )
    return Check(
        "Fig. 5a",
        statement,
        ours,
        verdict_of(halved, 2, most=1.0),
        "We read dramatically as at least halved.",
    )


def _comparable(fig7: dict[str, Any]) -> Check:
    statement = "Overall, Sel and Sel-D are better than or comparable to FCFS-EASY in fairness (§5, §7)"
    if not fig7:
        return missing("§5, §7", statement)
    cases, agree, worst = 0, 0, []
    for name, cell in fig7.items():
        within = {
            s: cell["buckets"][s]["all"]["<=1"] for s in ("EASY", "Sel", "Sel-D") if s in cell["buckets"]
        }
        for scheme in ("Sel", "Sel-D"):
            cases += 1
            gap = within[scheme] - within["EASY"]
            agree += gap >= -5
            worst.append(f"{name} {scheme} {gap:+.1f}")
    ours = (
        "jobs within their fair slowdown against FCFS-EASY, x1.2, exact estimates (points): "
        f"{', '.join(worst)}"
    )
    return Check(
        "§5, §7",
        statement,
        ours,
        verdict_of(agree, cases),
        "We read comparable as at most 5 points fewer jobs within their fair slowdown.",
    )


def _scaled(osc: dict[str, _Group]) -> Check:
    statement = "Scaling the adaptive threshold by 1.5 reduces the range of its oscillation"
    if not osc:
        return missing("§7", statement)
    rel = {
        k: {s: c["running_mean"][s]["range"] / c["running_mean"][s]["final"] for s in ("Sel-A", "Sel-A1.5")}
        for k, c in sorted(osc.items())
    }
    smaller = [k for k, r in rel.items() if r["Sel-A1.5"] < r["Sel-A"]]
    shown = "; ".join(
        f"x{osc[k]['load']:g} {osc[k]['estimates']} {r['Sel-A']:.2f} / {r['Sel-A1.5']:.2f}"
        for k, r in rel.items()
    )
    ours = (
        f"{PAPER_TRACE}, range of the running mean slowdown over its final value, Sel-A / Sel-A1.5: "
        f"{shown}; smaller in {len(smaller)} of {len(rel)}"
    )
    why = (
        f"The range is taken after the first {_WARMUP:.0%} of completions; the paper gives no trace, load or "
        "measure of the oscillation."
    )
    return Check("§7", statement, ours, verdict_of(len(smaller), len(rel)), why)


def checks(
    trace_dir: Path, cache: Path, groups: dict[str, _Group], fig7: dict[str, Any], *, run: bool
) -> dict[str, list[Check]]:
    """This module's rows by the section they follow in the paper."""
    notes = trace_notes(trace_dir, cache, run=run)
    osc = oscillation_cells(trace_dir, cache, run=run)
    rows = _trace_rows(notes)
    ratios = _ratio_rows(groups)
    return {
        "§2.1": rows[:2],
        "§3": [_overall(groups)],
        "§4.2": [ratios["§4.2"]],
        "§4.3": [ratios["§4.3"], *rows[2:], _sel_short(groups)],
        "§5": [
            _sjf_easy(groups),
            _fcfs(osc),
            _slowdown_example(),
            _conservative_unfair(groups),
            _comparable(fig7),
        ],
        "§7": [_scaled(osc)],
    }
