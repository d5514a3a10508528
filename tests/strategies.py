"""Shared test inputs: hypothesis strategies (from the public kit :mod:`backfill.testing`) and hand cases."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

import numpy as np
from hypothesis import strategies as st

from backfill.schedulers import GuaranteeScheduler, QueueScheduler, _long_queues
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.schedulers.registry import SCHEDULERS
from backfill.testing import workloads
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS, Job, Workload

__all__ = ["job_rows", "make", "narrow", "narrow_jobs", "workloads"]


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


# Values at and just past the edges of the rules a job's values follow (see backfill.Job).
_EDGES = {
    "int": [-1, 0, MAX_INT - 1, MAX_INT, -MAX_INT + 1, -MAX_INT, 2**62],
    "processors": [-1, 0, MAX_INT - 1, -2, MAX_INT],
    "time": [0.0, -1.0, MAX_TIME, float(np.nextafter(MAX_TIME, np.inf)), -0.5, 1e17, float("nan")],
    "real": [-1e300, 1e300, float("nan"), float("inf"), float("-inf")],
}


def _kind(name: str) -> str:
    if name in ("processors", "partition"):  # one rule: -1 (unknown) or from 0
        return "processors"
    if name in ("submit", "runtime", "estimate"):
        return "time"
    return "int" if JOB_DTYPE[name].kind == "i" else "real"


@st.composite
def job_rows(draw: st.DrawFn, max_rows: int = 6) -> list[tuple[object, ...]]:
    """Rows of :data:`JOB_DTYPE` values in SWF order, ids 1, 2, ...: valid, with 0-2 values set at or
    just past the edge of a rule, any field (ids only past it, so they stay distinct).
    """
    rows = []
    for i in range(draw(st.integers(1, max_rows))):
        row: dict[str, object] = dict.fromkeys(SWF_FIELDS, -1.0)
        row |= {"id": i + 1, "submit": float(draw(st.integers(0, 9))), "processors": 1, "status": 1}
        row |= {name: -1 for name in SWF_FIELDS if JOB_DTYPE[name].kind == "i" and name not in row}
        for name in draw(st.lists(st.sampled_from(SWF_FIELDS), max_size=2)):
            edges = [MAX_INT, -MAX_INT, 2**62] if name == "id" else _EDGES[_kind(name)]
            row[name] = draw(st.sampled_from(edges))
        rows.append(tuple(row[name] for name in SWF_FIELDS))
    return rows


# -- users' subclasses of the public bases, built from the public steps only --------------------------


class FirstFit(QueueScheduler):
    """A user's QueueScheduler: starts, in priority order, every queued job that fits."""

    def schedule(self, now: float) -> list[Job]:
        chosen, free = [], self.free
        for entry in self.ordered(now):
            if entry[2].processors <= free:
                chosen.append(entry)
                free -= entry[2].processors
        return self.start(chosen, now)


class CompressAtArrivals(GuaranteeScheduler):
    """A user's GuaranteeScheduler, built from the public steps only."""

    freed: tuple[tuple[float, float], ...] = ()

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self.freed = ()

    def submit(self, job: Job, now: float) -> None:
        self.compress(now, self.freed)
        self.freed = ()
        self.place(job, now)

    def complete(self, job: Job, now: float) -> None:
        interval = self.release(job, now)
        if interval is not None:
            self.freed = (*self.freed, interval)

    def schedule(self, now: float) -> list[Job]:
        return self.start_due(now)
