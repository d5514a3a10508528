"""Shared hypothesis strategies: random workloads for every scheduler test."""

from __future__ import annotations

from hypothesis import strategies as st

from backfill.workload import Job, Workload


@st.composite
def workloads(
    draw: st.DrawFn,
    *,
    max_jobs: int = 25,
    machine_size: int | None = None,
    accurate: bool | None = None,
    overruns: bool = False,
    zero_runtimes: bool = True,
    too_wide: bool = False,
) -> Workload:
    """Draw a small workload with bursts of simultaneous arrivals and inaccurate estimates.

    Args:
        max_jobs: Most jobs drawn.
        machine_size: Fixed machine size, or drawn from 1..16.
        accurate: Force exact (True) or inexact (False) estimates; drawn per job if None.
        overruns: Allow runtime > estimate (left for the simulator's overrun policy).
        zero_runtimes: Allow jobs of zero runtime.
        too_wide: Allow jobs up to two processors wider than the machine (the simulator rejects them).
    """
    size = machine_size or draw(st.integers(1, 16))
    n = draw(st.integers(0, max_jobs))
    # Few distinct submit times, so many jobs arrive (and complete) at the same instant.
    submits = sorted(draw(st.lists(st.integers(0, 60), min_size=n, max_size=n)))
    jobs = []
    for i, submit in enumerate(submits):
        procs = draw(st.one_of(st.integers(1, size + 2 * too_wide), st.just(size)))
        runtime = draw(st.integers(0 if zero_runtimes else 1, 40))
        exact = accurate if accurate is not None else draw(st.booleans())
        if exact:
            estimate = runtime
        elif overruns and draw(st.booleans()):
            estimate = draw(st.integers(0, runtime))
        else:
            estimate = runtime + draw(st.integers(0, 60))
        jobs.append(
            Job(
                id=i + 1,
                submit=float(submit),
                processors=procs,
                runtime=float(runtime),
                estimate=float(estimate),
            )
        )
    return Workload.from_jobs(jobs, size)
