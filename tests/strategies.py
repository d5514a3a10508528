"""Shared test inputs: hypothesis strategies (from the public kit :mod:`backfill.testing`) and hand cases."""

from __future__ import annotations

from hypothesis import strategies as st

from backfill.testing import workloads
from backfill.workloads.workload import Job, Workload

__all__ = ["make", "narrow", "narrow_jobs", "workloads"]


def make(*specs: tuple[float, int, float, float], size: int) -> Workload:
    """Jobs from (submit, processors, runtime, estimate), ids 1, 2, ... in order."""
    jobs = [
        Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=e) for i, (s, p, r, e) in enumerate(specs)
    ]
    return Workload.from_jobs(jobs, size)


def narrow_jobs(span: int = 30, max_jobs: int = 18) -> st.SearchStrategy[list[tuple[int, int, int, int]]]:
    """(submit, processors, runtime, estimate excess) of up to ``max_jobs`` narrow jobs; see :func:`narrow`.

    Narrow jobs with estimates above their runtimes leave holes behind reservations, which is what
    the slack schedulers fill; the general :func:`workloads` draws the full machine too often for that.
    """
    return st.lists(
        st.tuples(st.integers(0, span), st.integers(1, 5), st.integers(1, 40), st.integers(0, 30)),
        min_size=1,
        max_size=max_jobs,
    )


def narrow(specs: list[tuple[int, int, int, int]]) -> Workload:
    """Narrow jobs on 8 processors from :func:`narrow_jobs` draws, estimates above runtimes."""
    return make(*[(s, p, r, r + e) for s, p, r, e in sorted(specs)], size=8)
