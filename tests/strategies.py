"""Shared test inputs: hypothesis strategies (from the public kit :mod:`backfill.testing`) and hand cases."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

from hypothesis import strategies as st

from backfill.schedulers import _long_queues
from backfill.schedulers.priorities import PRIORITIES
from backfill.schedulers.protocol import Scheduler
from backfill.schedulers.registry import SCHEDULERS
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


def registered_schedulers() -> list[Scheduler]:
    """Every registered scheduler: with its defaults under every priority it takes, then each sample.

    Built from the registry, so a scheduler added there is in every test that runs "all schedulers"
    (each parameter's ``samples`` are run with the other parameters at their defaults).
    """
    out: list[Scheduler] = []
    for entry in SCHEDULERS:
        priorities = sorted(PRIORITIES) if entry.takes_priority else [None]
        out += [entry.build(PRIORITIES[name] if name else None) for name in priorities]
        out += [entry.build(**{p.name: sample}) for p in entry.parameters for sample in p.samples]
    return out


@contextlib.contextmanager
def narrowing_everything() -> Iterator[None]:
    """Make small queues take the long-queue paths: narrow every vacated interval, rule jobs out in passes.

    Long queues do that on their own; small workloads search every job instead, unless told.
    """
    with mock.patch.object(_long_queues, "NARROW", -1), mock.patch.object(_long_queues, "PER_WIDTH", 0):
        yield
