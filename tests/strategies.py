"""Shared test inputs: hypothesis strategies (from the public kit :mod:`backfill.testing`) and hand cases."""

from __future__ import annotations

from backfill.testing import workloads
from backfill.workload import Job, Workload

__all__ = ["make", "workloads"]


def make(*specs: tuple[float, int, float, float], size: int) -> Workload:
    """Jobs from (submit, processors, runtime, estimate), ids 1, 2, ... in order."""
    jobs = [
        Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=e) for i, (s, p, r, e) in enumerate(specs)
    ]
    return Workload.from_jobs(jobs, size)
