"""RelShare(fw): incremental accounting against a from-scratch one, the paper's Type-S1 effect, choices."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import make

from backfill import EASY, Job, ParameterError, Workload, check_reservations, simulate, validate_schedule
from backfill.schedulers import RelShare
from backfill.schedulers.machinery.entitlement import entitled_processors
from backfill.testing import workloads


class Audited:
    """Drives a RelShare like any protocol driver, checking its accounting at every decision.

    It keeps the whole history (which the scheduler must not need) and recomputes, from scratch, every
    owner's cumulated entitlement and usage in the current window; it also checks that the fast queue
    order is the order of the public fair-share priority.
    """

    def __init__(self, inner: RelShare) -> None:
        self.inner = inner
        self.jobs: dict[int, Job] = {}
        self.started: dict[int, float] = {}
        self.ended: dict[int, float] = {}
        self.checks = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def reset(self, machine_size: int, now: float) -> None:
        self.size = machine_size
        self.inner.reset(machine_size, now)

    def submit(self, job: Job, now: float) -> None:
        self.jobs[job.id] = job
        self.inner.submit(job, now)

    def complete(self, job: Job, now: float) -> None:
        self.ended[job.id] = now
        self.inner.complete(job, now)

    def schedule(self, now: float) -> list[Job]:
        inner = self.inner
        inner._advance(now)
        core = inner._core
        queued = [(seq, inner._waiting[jid]) for jid, (_, seq) in core._where.items()]
        assert len(queued) == core.queued() == len(inner._waiting)
        by_key = sorted((-inner.fair_share_priority(job, now), seq, job) for seq, job in queued)
        assert [e[2].id for e in core._ordered(now)] == [e[2].id for e in by_key]
        started = inner.schedule(now)
        for job in started:
            self.started[job.id] = now
        self.check(now)
        return started

    def next_wakeup(self) -> float | None:
        return self.inner.next_wakeup()

    def reservations(self) -> Mapping[int, float]:
        return self.inner.reservations()

    def copy(self) -> Audited:
        raise NotImplementedError

    def owner(self, job: Job) -> int:
        return job.user if self.inner.by == "user" else job.group

    def width(self, job: Job) -> float:
        """What a job is charged per second (tests/test_resources_easy.py charges dominant shares)."""
        return job.processors

    def check(self, now: float) -> None:
        s = self.inner
        k = math.floor((now - s.origin) / s.window)
        w0, w1 = s.origin + k * s.window, s.origin + (k + 1) * s.window
        owners = {self.owner(j) for j in self.jobs.values()}
        entitled = dict.fromkeys(owners, 0.0)
        used = dict.fromkeys(owners, 0.0)
        # Each window's values, weighted by decay ** (windows since); 0 ** 0 is 1.
        first = math.floor((min(j.submit for j in self.jobs.values()) - s.origin) / s.window)
        for i in range(first, k + 1):
            weight = s.decay ** (k - i)
            a, b = s.origin + i * s.window, min(s.origin + (i + 1) * s.window, now)
            cuts = {a, b}
            for j in self.jobs.values():
                cuts.update(t for t in (j.submit, self.ended.get(j.id, math.inf)) if a < t < b)
            edges = sorted(cuts)
            for lo, hi in itertools.pairwise(edges):
                request: dict[int, float] = {}
                for j in self.jobs.values():
                    if j.submit <= lo < self.ended.get(j.id, math.inf):
                        request[self.owner(j)] = request.get(self.owner(j), 0) + self.width(j)
                names = sorted(request)
                shares = [s.shares.get(o, s.default_share) for o in names]
                levels = entitled_processors([request[o] for o in names], shares, self.size)
                for o, e in zip(names, levels, strict=True):
                    entitled[o] += weight * e * (hi - lo)
            for job_id, start in self.started.items():
                j = self.jobs[job_id]
                end = self.ended.get(job_id, now)
                used[self.owner(j)] += weight * self.width(j) * max(min(end, b) - max(start, a), 0.0)
        if s.expected_usage:
            for job_id, start in self.started.items():
                if job_id not in self.ended:
                    j = self.jobs[job_id]
                    used[self.owner(j)] += self.width(j) * max(min(start + j.estimate, w1) - now, 0.0)
            for job_id, r in s.reservations().items():
                j = self.jobs[job_id]
                used[self.owner(j)] += self.width(j) * max(min(r + j.estimate, w1) - max(r, w0), 0.0)
        for o in owners:
            assert s.entitled(o) == pytest.approx(entitled[o], rel=1e-9, abs=1e-6), ("entitled", o, now)
            assert s.usage(o, now) == pytest.approx(used[o], rel=1e-9, abs=1e-6), ("usage", o, now)
        self.checks += 1


relshares = st.builds(
    RelShare,
    window=st.sampled_from([7.0, 20.0, 45.0, 1000.0]),
    expected_usage=st.booleans(),
    decay=st.sampled_from([0.0, 0.5, 1.0]),
    depth=st.sampled_from([1, 2, None]),
    by=st.sampled_from(["user", "group"]),
    shares=st.sampled_from([None, {0: 3.0, 2: 0.5}]),
    origin=st.sampled_from([0.0, 3.0]),
)


@settings(max_examples=150, deadline=None)
@given(w=workloads(max_jobs=20, users=4, overruns=True), scheduler=relshares)
def test_incremental_accounting_equals_a_from_scratch_one(w: Workload, scheduler: RelShare) -> None:
    audited = Audited(scheduler)
    result = simulate(w, audited)  # type: ignore[arg-type]
    validate_schedule(result)
    assert int(result.started.sum()) + len(result.rejected) == len(w)
    assert audited.checks > 0 or len(w) == 0


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=25, users=3, overruns=True), scheduler=relshares)
def test_the_head_keeps_its_reservation_and_copies_decide_alike(w: Workload, scheduler: RelShare) -> None:
    result = simulate(w, scheduler.copy())
    validate_schedule(result)
    if scheduler.depth == 1:
        # EASY's promise holds under any priority: the head's reservation never moves later while held.
        check_reservations(result, while_held=True)
    again = simulate(w, scheduler.copy())
    assert result.start.tolist() == again.start.tolist()


def test_the_scheduler_keeps_nothing_of_finished_jobs() -> None:
    # Incremental accounting: after 2,000 jobs of 40 users, the state is per owner and per live job.
    jobs = [
        Job(id=i, submit=float(i), processors=1 + i % 4, runtime=30.0, estimate=40.0, user=i % 40)
        for i in range(2000)
    ]
    s = RelShare(window=600.0)
    result = simulate(Workload.from_jobs(jobs, 16), s)
    validate_schedule(result)
    assert not s._running and not s._waiting and not s._queued and not s._request
    assert len(s._used) <= 40 and len(s._entitled) <= 40


def type_s1(with_small_job: bool) -> Workload:
    """Vasupongayya §V-B: user 1's large job queues behind a small job of the same user."""
    jobs = [
        Job(id=1, submit=0.0, processors=8, runtime=100.0, estimate=100.0, user=3),  # fills 8 of 10
        Job(id=2, submit=1.0, processors=10, runtime=100.0, estimate=100.0, user=1),  # the large job
        Job(id=4, submit=3.0, processors=10, runtime=100.0, estimate=100.0, user=2),  # another user's
    ]
    if with_small_job:
        jobs.insert(2, Job(id=3, submit=2.0, processors=2, runtime=50.0, estimate=50.0, user=1))
    return Workload.from_jobs(jobs, 10)


@pytest.mark.parametrize("expected_usage", [True, False])
def test_type_s1_a_small_job_delays_the_same_users_large_job(expected_usage: bool) -> None:
    def start(w: Workload, scheduler: object, job_id: int) -> float:
        result = simulate(w, scheduler)  # type: ignore[arg-type]
        validate_schedule(result)
        return float(result.start[list(w.column("id")).index(job_id)])

    share = RelShare(expected_usage=expected_usage)
    # FCFS-backfill: the large job is the oldest, keeps the reservation and starts when job 1 ends.
    assert start(type_s1(True), EASY(), 2) == 100.0
    # RelShare without the small job: both users have used nothing, the tie goes to the older job.
    assert start(type_s1(False), share.copy(), 2) == 100.0
    # With it: the small job backfills at 2, user 1's usage becomes positive, user 2's job takes the
    # reservation at 100 and the large job waits until 200.
    assert start(type_s1(True), share.copy(), 3) == 2.0
    assert start(type_s1(True), share.copy(), 4) == 100.0
    assert start(type_s1(True), share.copy(), 2) == 200.0


def test_a_reservation_does_not_hop_between_owners() -> None:
    # Users 1 and 2 each have a job waiting for the whole machine; user 3's short jobs keep the
    # scheduler deciding. Counting the head's own expected usage against it would pass the reservation
    # back and forth; the head keeps it.
    jobs = [Job(id=1, submit=0.0, processors=4, runtime=100.0, estimate=100.0, user=9)]
    jobs += [Job(id=2, submit=1.0, processors=4, runtime=50.0, estimate=50.0, user=1)]
    jobs += [Job(id=3, submit=2.0, processors=4, runtime=50.0, estimate=50.0, user=2)]
    jobs += [
        Job(id=10 + i, submit=3.0 + i, processors=4, runtime=0.0, estimate=1.0, user=3) for i in range(20)
    ]
    result = simulate(Workload.from_jobs(jobs, 4), RelShare())
    validate_schedule(result)
    log = [(job_id, start) for _, job_id, start in result.reservations.tolist() if job_id in (2, 3)]
    assert log == [(2, 100.0), (3, 150.0)]


def test_windows_reset_or_decay_the_usage() -> None:
    # One user runs 2 processors over [0, 10); windows of 10 s. At 15 the previous window's usage of
    # 20 processor-seconds is forgotten (decay 0) or halved (decay 0.5); entitlement likewise.
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0, user=1),
        Job(id=2, submit=15.0, processors=1, runtime=5.0, estimate=5.0, user=1),
    ]
    for decay, used, entitled in [(0.0, 5.0, 0.0), (0.5, 15.0, 10.0), (1.0, 25.0, 20.0)]:
        s = RelShare(window=10.0, decay=decay)
        s.reset(4, 0.0)
        s.submit(jobs[0], 0.0)
        assert s.schedule(0.0) == [jobs[0]]
        s.complete(jobs[0], 10.0)
        s.schedule(10.0)
        s.submit(jobs[1], 15.0)
        assert s.schedule(15.0) == [jobs[1]]
        # Expected usage: 5 processor-seconds of job 2 within [10, 20); entitled 0 since 10 (idle).
        assert s.usage(1, 15.0) == pytest.approx(used)
        assert s.entitled(1) == pytest.approx(entitled)


def test_assigned_shares_divide_the_machine() -> None:
    # Two users each request the whole 8-processor machine; shares 3:1 entitle them to 6 and 2.
    s = RelShare(shares={1: 3.0, 2: 1.0})
    s.reset(8, 0.0)
    s.submit(Job(id=1, submit=0.0, processors=8, runtime=50.0, estimate=50.0, user=1), 0.0)
    s.submit(Job(id=2, submit=0.0, processors=8, runtime=50.0, estimate=50.0, user=2), 0.0)
    s.schedule(0.0)
    s.schedule(10.0)
    assert (s.entitled(1), s.entitled(2)) == (60.0, 20.0)
    assert RelShare(by="group", shares={5: 2.0}).name == "RelShare(1d, by=group)"


def test_names_and_bad_arguments() -> None:
    assert RelShare(4 * 3600.0, expected_usage=False).name == "RelShare(4h, w/o expected usage)"
    assert RelShare(7 * 86400.0, decay=0.5, depth=None).name == "RelShare(7d, decay=0.5, depth=inf)"
    for kwargs in (
        {"window": 0.0},
        {"window": math.inf},
        {"decay": 1.5},
        {"by": "queue"},
        {"shares": {1: 0.0}},
        {"depth": 0},
    ):
        with pytest.raises(ParameterError):
            RelShare(**kwargs)  # type: ignore[arg-type]


def test_the_paper_tie_goes_to_arrival_order() -> None:
    w = make((0.0, 4, 10.0, 10.0), (0.0, 4, 10.0, 10.0), (0.0, 4, 10.0, 10.0), size=4)
    result = simulate(w, RelShare())
    assert result.start.tolist() == [0.0, 10.0, 20.0]
