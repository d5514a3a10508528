"""Measures, the timeline and the Lublin-Feitelson generator end on any input they accept.

None of them advances a time by a window or a step: the measures and the timeline work on the
sorted event times of a schedule (one vectorized pass), and the generator's only loops are its
rejection samplers, whose acceptance its parameters keep high (the arrival shape is refused when
fewer than 1 % of gaps would pass) and its Gamma CDF series, cut at 10,000 terms. These cases run at
the edges of what is accepted (times near ``MAX_TIME``, durations at the float spacing there,
periods one float wide, extreme model parameters) in a subprocess with a timeout, so that a loop
that stops advancing fails the test instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys

EDGES = r"""
import math

from backfill import EASY, FCFS, Conservative, Job, Workload, lublin_feitelson, simulate
from backfill.experiments.timeline import utilization_queue_series
from backfill.measures import (
    category_thresholds,
    entitled_usage,
    fair_share_unfairness,
    high_load_phases,
    high_load_utilization,
    phase_utilization,
    runtime_classes,
    share_deviation,
    summarize,
    user_measures,
)
from backfill.workloads.limits import MAX_TIME


def done(case):
    print(case, flush=True)


for kw in (
    {"arrival_shape": 5e-324},
    {"arrival_shape": 24.0},
    {"job_class": "all", "arrival_shape": 39.0},
    {"machine_size": 2**53 - 1},
    {"estimates": "f-model", "estimate_factor": 1.0},
):
    w = lublin_feitelson(3000, seed=7, **kw)
    assert len(w) == 3000
    done(f"lublin {kw}")

# Jobs near the largest time a job may carry, as short as a float there can tell apart.
late = MAX_TIME - 1000.0
tick = math.ulp(MAX_TIME)
runtimes = [tick, 2 * tick, 1.0, 0.0, 500.0, tick, 3.0, 100.0, tick, 7.0, 0.5, 2 * tick]
jobs = [
    Job(id=i + 1, submit=late + (i // 3) * tick, processors=1 + i % 4, runtime=r, estimate=r + 5, user=i % 3)
    for i, r in enumerate(runtimes)
]
w = Workload.from_jobs(jobs, 4)
for scheduler in (FCFS(), EASY(), Conservative()):
    s = simulate(w, scheduler)
    summarize(s)
    utilization_queue_series(s)
    for threshold in (1, 2, 3, 10**9):
        phases = high_load_phases(s, threshold)
        phase_utilization(s, phases)
        high_load_utilization(s, threshold)
    fair_share_unfairness(s)
    runtime_classes(s, boundaries=(tick, 2 * tick, 1.0))
    category_thresholds(s)
    for period in ((late, math.nextafter(late, math.inf)), (late, late + 1.0), (0.0, MAX_TIME + 2000.0)):
        entitled_usage(s, period=period)
        share_deviation(s, period=period)
        user_measures(s, period=period)
    done(f"measures {s.scheduler}")
print("all ended")
"""


def test_generator_measures_and_timeline_end_at_the_edges() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", EDGES], capture_output=True, text=True, timeout=300, check=False
        )
    except subprocess.TimeoutExpired as hung:
        raise AssertionError(f"a loop did not end; cases finished before it:\n{hung.stdout!s}") from None
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "all ended"
