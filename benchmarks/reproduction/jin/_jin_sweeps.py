"""Jin (2009) §5.3: the lookahead depth and slack factor sweeps (Fig. 11-16) and the other slack parameters.

Each cell is one model workload (the thesis's W1 or W2, exact estimates, one of its 11 seeds) under
``LookaheadSlack`` with goal G1 or G2 and one parameter changed from the thesis's Table 3:

* ``lookahead``: the depth of the lookahead, :data:`DEPTHS` (Fig. 11, 12 at W1; Fig. 13, 14 at W2);
* ``up``: the slack factor, :data:`SLACKS` (Fig. 15, 16 at W1), as §5.3 describes it: the upper end
  of the factor's range, the lower end staying 1.2 except for a factor of 1, whose range is 1 to 1.
  A factor above 1.5 applies only to medium jobs shorter than an hour expected to wait less than two
  hours, the others keeping 1.5; since Table 3's K2 = 0.4 caps eq. 5 at 1.2 + 0.4 = 1.6, those jobs'
  K2 is raised to ``factor - 1.2`` so that a job expected to start at once reaches the factor;
* ``down``, ``minimal``, ``k1``, ``k2``: the four parameters §5.3 says change little, one at a time,
  each at two values around Table 3's (:data:`OTHERS`);
* ``classes``: W1 under Table 3's settings again, the cells counting the late jobs per class (§5.4).

Table 3's own setting (lookahead 20, slack 1.5) is the main grid's G1 and G2 cells, and the baseline
is its Conservative cells (``reproduce_jin.py``): they are read from the same cache, not run again.
Every cell is cached as JSON under the cache folder, so an interrupted run resumes. Usage::

    nice -n 5 python benchmarks/reproduction/jin/_jin_sweeps.py --cache benchmarks/reproduction/jin
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np

# benchmarks/, where _common is (importing it puts the other benchmark folders on sys.path)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _common import load_result, markdown, save_result
from reproduce_jin import DEFAULT_CACHE, JOBS, SEEDS, SHORT, W1_ALPHA, cell_name, class_masks, model_workload

from backfill import (
    G1,
    G2,
    LookaheadSlack,
    SlackFactor,
    relative_response_times,
    unfairness,
    validate_schedule,
)
from backfill.measures.metrics import percent_improvement
from backfill.simulator import Simulator
from backfill.workloads.workload import Job

W2_ALPHA = 10.33
WORKLOADS = {"W1": W1_ALPHA, "W2": W2_ALPHA}
GOALS = {"G1": G1, "G2": G2}
#: Table 3's values of the swept parameters.
DEFAULTS: dict[str, float] = {"lookahead": 20, "up": 1.5, "down": 1.2, "minimal": 1.1, "k1": -0.5, "k2": 0.4}
#: The depths tried (Fig. 11-14); the thesis names 20 and 30, not the others it plotted.
DEPTHS = (5, 10, 15, 20, 30, 40, 50)
#: The slack factors tried (Fig. 15, 16); the thesis names 1 and 1.5 and speaks of factors up to 2.
SLACKS = (1.0, 1.2, 1.3, 1.4, 1.5, 1.75, 2.0)
#: The other parameters, each at two values around Table 3's (§5.3 gives none of the values it tried).
OTHERS: dict[str, tuple[float, ...]] = {
    "down": (1.1, 1.2, 1.3),
    "minimal": (1.0, 1.1, 1.2),
    "k1": (-1.0, -0.5, -0.25),
    "k2": (0.2, 0.4, 0.6),
}
#: §5.3: a factor above 1.5 is for medium jobs shorter than an hour expected to wait under two hours.
WIDE_RUNTIME, WIDE_WAIT = 3_600.0, 7_200.0
CUTOFF, THRESHOLD = 10.0, 10.0


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class WideSlack(LookaheadSlack):
    """``LookaheadSlack`` whose short medium jobs expected to wait little get the ``wide`` slack (§5.3)."""

    wide: SlackFactor = attrs.field(factory=SlackFactor)

    def _limit(self, job: Job, now: float) -> float:
        arrived, fst = self._fst[job.id]
        expected = fst - arrived
        wide = SHORT <= job.estimate < WIDE_RUNTIME and expected < WIDE_WAIT
        latest = (self.wide if wide else self.slack).latest_start(arrived, expected, now - arrived)
        planned = self._planned[job.id]
        return planned if planned > latest else latest


def scheduler(goal: str, param: str, value: float) -> LookaheadSlack:
    """The scheduler of a sweep cell: Table 3's settings with ``param`` set to ``value``."""
    if param == "classes":  # Table 3's settings, run again to count the late jobs per class
        return LookaheadSlack(goal=GOALS[goal]())
    if param == "lookahead":
        return LookaheadSlack(goal=GOALS[goal](), lookahead=int(value))
    if param == "up" and value > DEFAULTS["up"]:
        wide = SlackFactor(up=value, k2=max(DEFAULTS["k2"], value - DEFAULTS["down"]))
        return WideSlack(goal=GOALS[goal](), wide=wide)
    if param == "up":
        slack = SlackFactor(
            up=value, down=min(DEFAULTS["down"], value), minimal=min(DEFAULTS["minimal"], value)
        )
        return LookaheadSlack(goal=GOALS[goal](), slack=slack)
    return LookaheadSlack(goal=GOALS[goal](), slack=SlackFactor(**{param: value}))


def sweep_cells() -> list[tuple[str, int, str, str, float]]:
    """Every (workload, seed, goal, parameter, value) of the sweeps, Table 3's own values left out, in
    the order they run: W1's depths, the slack factors, W2's depths, the other parameters; then W1
    under Table 3's settings again (parameter "classes"), whose cells count the late jobs per class."""
    plan: list[tuple[str, str, tuple[float, ...]]] = [("W1", "lookahead", DEPTHS), ("W1", "up", SLACKS)]
    plan.append(("W2", "lookahead", DEPTHS))
    plan += [("W1", param, values) for param, values in OTHERS.items()]
    plan.append(("W1", "classes", (DEFAULTS["lookahead"],)))
    return [
        (workload, seed, goal, param, value)
        for workload, param, values in plan
        for value in values
        if value != DEFAULTS.get(param)
        for seed in SEEDS
        for goal in GOALS
    ]


def sweep_name(workload: str, seed: int, goal: str, param: str, value: float) -> str:
    return f"sweep_{workload}_s{seed}_{goal}_{param}{value:g}_c{CUTOFF:g}"


def run_sweep_cell(workload: str, seed: int, goal: str, param: str, value: float) -> dict[str, Any]:
    """Simulate one sweep cell and measure it."""
    w, info = model_workload(WORKLOADS[workload], seed, None, "exact")
    sched = scheduler(goal, param, value)
    t0 = time.perf_counter()
    s = Simulator(w, sched, record_reservations=False).run()
    seconds = time.perf_counter() - t0
    validate_schedule(s)
    fair = sched.fair_starts()
    fst = np.array([fair.get(i, np.nan) for i in w.column("id").tolist()], dtype=np.float64)
    done = np.isfinite(s.start) & np.isfinite(s.end)
    runtime = s.runtime[done]
    rr = relative_response_times(s, CUTOFF)
    out: dict[str, Any] = {"cell": [workload, seed, goal, param, value], "jobs": len(w), **info}
    masks = class_masks(runtime)
    for name, mask in masks.items():
        out[f"rr_{name}"] = float(rr[mask].mean())
        out[f"n_{name}"] = int(mask.sum())
    out["mean_wait"] = float((s.start - s.submit)[done].mean())
    out["overall_unfairness"] = unfairness(s, fst)
    late = (s.start - fst)[done] > 0
    out["late_jobs"] = int(late.sum())
    out |= {f"late_{name}": int((late & mask).sum()) for name, mask in masks.items() if name != "all"}
    out["seconds"] = seconds
    return out | sched.lookahead_stats()


# --- reading the results ----------------------------------------------------------------------------


def _base(cache: Path, workload: str, seed: int, spec: str) -> dict[str, Any] | None:
    """The main grid's cell of ``spec`` (Conservative, G1 or G2, Table 3's settings)."""
    cell = ("model", WORKLOADS[workload], seed, None, "exact")
    path = cache / f"{cell_name(cell, spec, THRESHOLD, CUTOFF)}.json"
    return load_result(path) if path.exists() else None


def collect_sweeps(cache: Path, *, run: bool) -> dict[tuple[str, str, str, float], dict[int, dict[str, Any]]]:
    """The sweeps' cells by (workload, goal, parameter, value), then by seed, Table 3's values and
    Conservative (parameter "base", value 0) from the main grid; missing cells are simulated (one at a
    time) when ``run`` is true."""
    out: dict[tuple[str, str, str, float], dict[int, dict[str, Any]]] = {}
    started = time.perf_counter()
    todo = sweep_cells()
    for n, key in enumerate(todo, 1):
        workload, seed, goal, param, value = key
        path = cache / f"{sweep_name(*key)}.json"
        if path.exists():
            result: dict[str, Any] | None = load_result(path)
        elif run:
            result = save_result(path, run_sweep_cell(*key))
            print(
                f"[{n}/{len(todo)} {time.perf_counter() - started:6.0f} s] {sweep_name(*key):45} "
                f"{result['seconds']:6.1f} s",
                file=sys.stderr,
                flush=True,
            )
        else:
            result = None
        if result is not None:
            out.setdefault((workload, goal, param, value), {})[seed] = result
    for workload in WORKLOADS:
        for seed in SEEDS:
            for spec in ("Conservative", *GOALS):
                result = _base(cache, workload, seed, spec)
                if result is None:
                    continue
                if spec == "Conservative":
                    out.setdefault((workload, "", "base", 0.0), {})[seed] = result
                    continue
                for param, default in DEFAULTS.items():
                    out.setdefault((workload, spec, param, float(default)), {})[seed] = result
    return out


Sweeps = dict[tuple[str, str, str, float], dict[int, dict[str, Any]]]


def improvement(
    sweeps: Sweeps, workload: str, goal: str, param: str, value: float, key: str = "rr_all"
) -> float:
    """Percent improvement of the seed-mean of ``key`` over Conservative's, on the seeds both have
    (nan when there are none)."""
    base = sweeps.get((workload, "", "base", 0.0), {})
    cells = sweeps.get((workload, goal, param, float(value)), {})
    seeds = sorted(set(base) & set(cells))
    if not seeds:
        return float("nan")
    return percent_improvement(
        float(np.mean([base[s][key] for s in seeds])), float(np.mean([cells[s][key] for s in seeds]))
    )


def seeds_of(sweeps: Sweeps, workload: str, goal: str, param: str, value: float) -> int:
    base = sweeps.get((workload, "", "base", 0.0), {})
    return len(set(base) & set(sweeps.get((workload, goal, param, float(value)), {})))


def values_of(param: str) -> tuple[float, ...]:
    return {"lookahead": DEPTHS, "up": SLACKS, **OTHERS}[param]


def sweep_table(sweeps: Sweeps, workload: str, param: str, label: str) -> str:
    """One sweep as a table: per value, the improvements in RR (all, medium, long) of G1 and G2."""
    header = [label]
    for goal in GOALS:
        header += [f"{goal} all", f"{goal} medium", f"{goal} long", f"{goal} late jobs", f"{goal} s"]
    header.append("seeds")
    rows = []
    for value in values_of(param):
        row = [f"{value:g}" + (" (Table 3)" if value == DEFAULTS[param] else "")]
        seeds = []
        for goal in GOALS:
            cells = sweeps.get((workload, goal, param, float(value)), {})
            seeds.append(seeds_of(sweeps, workload, goal, param, value))
            for key in ("rr_all", "rr_medium", "rr_long"):
                x = improvement(sweeps, workload, goal, param, value, key)
                row.append(f"{x:+.2f}" if np.isfinite(x) else "n/a")
            late = [c["late_jobs"] for c in cells.values()]
            secs = [c["seconds"] for c in cells.values()]
            row += [f"{np.mean(late):.1f}" if late else "n/a", f"{np.mean(secs):.1f}" if secs else "n/a"]
        row.append(" / ".join(str(n) for n in seeds) if seeds[0] != seeds[1] else str(seeds[0]))
        rows.append(row)
    return markdown(header, rows)


def sweep_tables(cache: Path) -> str:
    """The sweeps' tables for the page, from the kept results only."""
    sweeps = collect_sweeps(cache, run=False)
    parts = [
        "Improvement of RR over Conservative (percent of the seed-mean, positive is better) of the model "
        f"workloads with exact estimates, {JOBS:,} jobs, one parameter changed from Table 3 at a time; "
        "late jobs per run (start after the FST) and wall seconds per run, mean over the seeds.",
        "### Lookahead depth at W1 (Fig. 11, 12)",
        sweep_table(sweeps, "W1", "lookahead", "lookahead"),
        "### Lookahead depth at W2 (Fig. 13, 14)",
        sweep_table(sweeps, "W2", "lookahead", "lookahead"),
        "### Slack factor at W1 (Fig. 15, 16)",
        sweep_table(sweeps, "W1", "up", "slack factor"),
    ]
    names = {"down": "SLACK_DOWN", "minimal": "SLACK_MINIMAL", "k1": "K1", "k2": "K2"}
    for param, name in names.items():
        parts += [f"### {name} at W1 (§5.3)", sweep_table(sweeps, "W1", param, name)]
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    collect_sweeps(args.cache, run=True)
    print(sweep_tables(args.cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
