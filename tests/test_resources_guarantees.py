"""PC, DC, Selective, the slack schedulers and the wrappers on several resources (1, 2 and 3 in all)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from checks import check_slack_bound, check_slack_guarantees
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import NaiveDC, NaivePC, naive_start_over_reservations
from resource_strategies import GPUS, MEMORY, resource_sets, resource_workloads

from backfill import (
    DC,
    G1,
    G2,
    PC,
    Conservative,
    Job,
    LookaheadSlack,
    ParameterError,
    Resource,
    ScheduleError,
    Selective,
    SlackBackfill,
    SlackFactor,
    Workload,
    guarded,
    planning,
    simulate,
)
from backfill.measures.validation import check_reservations, validate_schedule
from backfill.schedule import Schedule
from backfill.schedulers.machinery.priorities import fcfs, ljf, sjf
from backfill.schedulers.prediction.predictors import UserHistory
from backfill.simulator import Simulator
from backfill.workloads.amounts import Amounts

PRIORITIES = {"fcfs": fcfs, "sjf": sjf, "ljf": ljf}
GOALS = {"G1": G1(), "G2": G2()}
#: A generous slack, so that small instances displace reservations (as in test_lookahead.py).
GENEROUS = SlackFactor(up=4.0, down=3.0, minimal=2.0, unit=100.0)


def starts(schedule: Schedule) -> dict[int, float]:
    ids = schedule.workload.column("id").tolist()
    return {i: s for i, s in zip(ids, schedule.start.tolist(), strict=True) if s == s}


def log(schedule: Schedule) -> list[tuple[float, int, float]]:
    return [tuple(r) for r in schedule.reservations.tolist()]


def no_request(job: Job) -> int:
    return 0


#: A resource no job asks for: planning it must change nothing.
UNUSED = Resource("licences", 5, no_request)


def job(i: int, submit: float, processors: int, runtime: float, memory: float = 0.0, **kw: Any) -> Job:
    """A job asking ``memory`` kB per processor (MEMORY has 16 kB in all)."""
    estimate = kw.pop("estimate", runtime)
    return Job(
        id=i,
        submit=submit,
        processors=processors,
        runtime=runtime,
        estimate=estimate,
        requested_memory=memory,
        **kw,
    )


# -- PC and DC against their naive definitions, on vectors ------------------------------------------


@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    n=st.sampled_from([1, 2, 3]),
    name=st.sampled_from(sorted(PRIORITIES)),
    restart=st.booleans(),
)
def test_pc_equals_the_naive_definition_on_vectors(
    data: st.DataObject, n: int, name: str, restart: bool
) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    priority = PRIORITIES[name]
    fast = simulate(w, PC(priority, restart=restart, resources=resources))
    naive = simulate(w, NaivePC(priority, restart, resources))
    assert starts(fast) == starts(naive)
    assert log(fast) == log(naive)
    validate_schedule(fast)
    check_reservations(fast)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]), name=st.sampled_from(sorted(PRIORITIES)))
def test_dc_equals_the_naive_definition_on_vectors(data: st.DataObject, n: int, name: str) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    priority = PRIORITIES[name]
    fast = simulate(w, DC(priority, resources=resources))
    naive = simulate(w, NaiveDC(priority, resources))
    assert starts(fast) == starts(naive)
    assert log(fast) == log(naive)
    validate_schedule(fast)
    check_reservations(fast)


class PlainPC(PC):
    """PC compressing by the papers' loop, every job searched after every move."""

    accelerated = False


class PlainDC(DC):
    """DC by the papers' loops, the arrival's cap asked for every job."""

    accelerated = False


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n=st.sampled_from([2, 3]),
    name=st.sampled_from(sorted(PRIORITIES)),
    kind=st.sampled_from(["PC", "DC"]),
)
def test_compression_with_resources_skips_only_searches_that_fail(
    data: st.DataObject, n: int, name: str, kind: str
) -> None:
    # The vacated-part test and the cap asked once per plan (_compress_vectors) leave out
    # searches, never a move.
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources, max_jobs=25))
    fast_type, plain_type = (PC, PlainPC) if kind == "PC" else (DC, PlainDC)
    fast = simulate(w, fast_type(PRIORITIES[name], resources=resources))
    plain = simulate(w, plain_type(PRIORITIES[name], resources=resources))
    assert starts(fast) == starts(plain) and log(fast) == log(plain)


def test_dc_searches_again_when_a_move_pushes_the_arrivals_completion_later() -> None:
    # An arrival moves jobs ahead of it, and a move takes room the arrival would have used: its
    # completion, the limit of the others' moves, grows, so every job ahead must be tried again
    # (found by a search against PlainDC with that retry left out).
    rows = [(0, 1, 0, 0), (0, 1, 0, 0), (0, 1, 0, 0), (1, 1, 18, 23), (1, 1, 18, 18), (2, 2, 0, 2)]
    rows += [(10, 1, 0, 10), (10, 3, 0, 1), (11, 2, 0, 8), (19, 1, 0, 1)]
    jobs = [job(i + 1, s, p, r, estimate=e) for i, (s, p, r, e) in enumerate(rows)]
    w = Workload.from_jobs(jobs, 3)
    fast = simulate(w, DC(fcfs, resources=[MEMORY]))
    assert log(fast) == log(simulate(w, PlainDC(fcfs, resources=[MEMORY])))
    assert log(fast) == log(simulate(w, NaiveDC(fcfs, (MEMORY,))))


#: 4 processors and 16 kB: job 1 holds 12 kB to 10 (early end at 5); jobs 2 (8 kB) and 3 (1 processor,
#: no memory) wait behind the memory and the processors. Only the memory keeps job 2 from starting.
MEMORY_BOUND = Workload.from_jobs(
    [
        job(1, 0.0, 2, 5.0, memory=6.0, estimate=10.0),
        job(2, 0.0, 1, 5.0, memory=8.0),
        job(3, 1.0, 1, 3.0),
    ],
    4,
)


@pytest.mark.parametrize("make", [PC, DC], ids=["PC", "DC"])
def test_memory_alone_holds_a_job_back_and_compression_brings_it_forward(make: Any) -> None:
    plain = simulate(MEMORY_BOUND, make())
    assert starts(plain) == {1: 0.0, 2: 0.0, 3: 1.0}
    both = simulate(MEMORY_BOUND, make(resources=[MEMORY]))
    # Job 2 is planned where job 1's memory frees (10), and moves to 5 when job 1 ends early.
    assert both.reservations_of(2).tolist() == [10.0, 5.0]
    assert starts(both) == {1: 0.0, 2: 5.0, 3: 1.0}
    validate_schedule(both)


def test_dc_protects_the_jobs_ahead_of_an_arrival_up_to_its_completion_in_every_resource() -> None:
    # At 4, job 6 (3 processors, 9 kB) arrives behind job 5 (the same shape, planned at 6 but able
    # to start at 5). Where job 6 could first complete depends on the memory: on processors alone
    # it would end by 5 and job 5 would stay; with memory it ends later, so job 5 moves to 5 first.
    rows = [
        (0, 3, 3, 3, 0),
        (0, 1, 0, 0, 0),
        (1, 4, 0, 1, 0),
        (2, 2, 2, 2, 4),
        (2, 3, 0, 1, 3),
        (4, 3, 0, 1, 3),
    ]
    jobs = [job(i + 1, s, p, r, memory=m, estimate=e) for i, (s, p, r, e, m) in enumerate(rows)]
    w = Workload.from_jobs(jobs, 5)
    schedule = simulate(w, DC(resources=[MEMORY]))
    assert log(schedule)[-3:] == [(4.0, 5, 5.0), (4.0, 6, 6.0), (5.0, 6, 5.0)]
    assert log(schedule) == log(simulate(w, NaiveDC(fcfs, (MEMORY,))))


# -- Selective -------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]), threshold=st.sampled_from([1.0, 1.5, 3.0]))
def test_selective_keeps_its_guarantees_and_every_capacity(
    data: st.DataObject, n: int, threshold: float
) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    schedule = simulate(w, Selective(threshold, resources=resources))
    validate_schedule(schedule)
    check_reservations(schedule)
    if threshold <= 1:
        # Every job is promoted at arrival: Selective is Conservative, on vectors as on processors.
        conservative = simulate(w, Conservative(resources=resources))
        assert starts(schedule) == starts(conservative) and log(schedule) == log(conservative)


def test_an_entry_job_waits_for_the_memory_a_guaranteed_job_holds() -> None:
    # Job 1 takes 12 kB; job 2 (promoted at once) needs 8 kB and is reserved at 10; job 3, an entry
    # job needing 6 kB, fits in the processors and the 4 kB free now only if it asks no more than that.
    jobs = [
        job(1, 0.0, 2, 10.0, memory=6.0),
        job(2, 0.0, 1, 5.0, memory=8.0),
        job(3, 1.0, 1, 3.0, memory=6.0),
        job(4, 1.0, 1, 3.0, memory=4.0),
    ]
    w = Workload.from_jobs(jobs, 4)
    schedule = simulate(w, Selective(1e6, resources=[MEMORY]))  # only arrival-time promotions: none
    assert starts(schedule)[4] == 1.0 and starts(schedule)[3] >= 10.0
    validate_schedule(schedule)


# -- the slack schedulers --------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]), tolerance=st.sampled_from([0.0, 1.0, 3.0]))
def test_slack_backfill_keeps_its_guarantees_on_vectors(
    data: st.DataObject, n: int, tolerance: float
) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    schedule = simulate(w, SlackBackfill(tolerance=tolerance, resources=resources))
    validate_schedule(schedule)
    check_slack_guarantees(schedule, tolerance)
    if tolerance == 0:
        # No slack: no job starts after its first reservation (which a start over it may move).
        for jid, start in starts(schedule).items():
            assert start <= schedule.reservations_of(jid)[0]


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.sampled_from([1, 2, 3]), goal=st.sampled_from(["G1", "G2"]))
def test_lookahead_slack_keeps_its_slack_bound_on_vectors(data: st.DataObject, n: int, goal: str) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    scheduler = LookaheadSlack(goal=GOALS[goal], slack=GENEROUS, lookahead=4, resources=resources)
    schedule = simulate(w, scheduler)
    validate_schedule(schedule)
    check_slack_bound(schedule, scheduler)
    # Without lookahead it is Conservative, on vectors too.
    plain = simulate(w, LookaheadSlack(lookahead=0, resources=resources))
    assert starts(plain) == starts(simulate(w, Conservative(resources=resources)))


def random_workload(rnd: random.Random, resources: tuple[Resource, ...]) -> Workload:
    """Narrow jobs asking memory and GPUs, over a span long enough for slacks to grow."""
    jobs = []
    for _ in range(25):
        runtime = rnd.randint(1, 40)
        jobs.append(
            dict(
                submit=float(rnd.randint(0, 60)),
                processors=rnd.randint(1, 5),
                runtime=float(runtime),
                estimate=float(runtime + rnd.randint(0, 30)),
                # Many ask no memory: a reservation that holds none may not give way for memory.
                requested_memory=float(rnd.choice([0, 0, 1, 2, 3])),
                executable=rnd.randint(0, 2),
            )
        )
    jobs.sort(key=lambda j: j["submit"])  # type: ignore[arg-type, return-value]
    return Workload.from_jobs([Job(id=i + 1, **j) for i, j in enumerate(jobs)], 8)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [2, 3])
def test_the_slack_checks_are_not_vacuous_on_vectors(n: int) -> None:
    # Displacements happen with resources: the bounds above see reservations moved later.
    resources = resource_sets[n]
    rnd = random.Random(5)
    moved = bounded = 0
    for _ in range(30):
        w = random_workload(rnd, resources)
        moved += check_slack_guarantees(simulate(w, SlackBackfill(resources=resources)), 1.0)
        scheduler = LookaheadSlack(slack=GENEROUS, lookahead=4, resources=resources)
        bounded += check_slack_bound(simulate(w, scheduler), scheduler)
    assert moved > 5 and bounded > 5


def decision_states(w: Workload, scheduler: LookaheadSlack):  # type: ignore[no-untyped-def]
    sim = Simulator(w, scheduler, record_reservations=False)
    while sim.step():
        yield sim.scheduler, sim.now


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([2, 3]))
def test_starting_over_reservations_equals_the_naive_rule_on_vectors(seed: int, n: int) -> None:
    # Every set of the first three queued jobs, and every later one alone, that fits now, at every
    # decision of a run.
    resources = resource_sets[n]
    w = random_workload(random.Random(seed), resources)
    # Without lookahead the queue keeps the jobs that fit now but run into reservations.
    for s, now in decision_states(w, LookaheadSlack(lookahead=0, slack=GENEROUS, resources=resources)):
        free = s._profile.free_at(now)
        queue = list(s._queue.values())
        head = queue[:3]
        singles = [(j,) for j in queue[3:]]
        for subset in [c for k in (1, 2, 3) for c in itertools.combinations(head, k)] + singles:
            total = free - free
            for j in subset:
                total = total + s._requests[j.id]
            if not total <= free:
                continue
            running = list(s._running.values())
            queued = [(j, seq, start) for start, seq, j in s._order]
            plan = s._try_start(list(subset), now)
            naive = naive_start_over_reservations(
                s.capacity,
                now,
                running,
                queued,
                list(subset),
                lambda j, s=s, now=now: s._limit(j, now),
                width=lambda j, s=s: tuple(s._requests[j.id]),
            )
            moves = None if plan is None else [(j.id, old, new) for j, old, new in plan.moves]
            assert moves == naive
            if plan is not None:
                plan.profile._check()


def test_only_a_reservation_holding_the_short_resource_gives_way() -> None:
    # 4 processors, 16 kB. Job 1 runs on 3 processors with 12 kB to 20. Job 3 (1 processor, 14 kB)
    # and then job 2 (2 processors, no memory) are reserved at 20. A job of 1 processor and 4 kB for
    # 30 s fits now, but at 20 memory falls short (14 + 4 > 16) while the processors suffice
    # (1 + 2 + 1): job 3 gives way, not job 2, though job 2 arrived last.
    s = SlackBackfill(tolerance=0.0, resources=[MEMORY])
    s.reset(4, now=0.0)
    s.submit(job(1, 0.0, 3, 20.0, memory=4.0), 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1]
    s.submit(job(3, 0.0, 1, 10.0, memory=14.0), 0.0)
    s.submit(job(2, 0.0, 2, 10.0), 0.0)
    assert dict(s.reservations()) == {3: 20.0, 2: 20.0}
    displaced: list[Job] = []
    shortages = s._make_room(s._profile.copy(), 0.0, 30.0, Amounts((1, 4)), set(), displaced)
    assert shortages == [20.0] and [j.id for j in displaced] == [3]


# -- what every one of them shares -----------------------------------------------------------------


SCHEDULERS = {
    "PC": lambda r: PC(sjf, resources=r),
    "PC-one-pass": lambda r: PC(fcfs, restart=False, resources=r),
    "DC": lambda r: DC(ljf, resources=r),
    "PC-window": lambda r: PC(sjf, planning_window=10.0, resources=r),
    "DC-window": lambda r: DC(fcfs, planning_window=10.0, max_tested=2, resources=r),
    "Selective": lambda r: Selective(2.0, resources=r),
    "SlackBackfill": lambda r: SlackBackfill(tolerance=1.0, resources=r),
    "LookaheadSlack": lambda r: LookaheadSlack(slack=GENEROUS, lookahead=3, resources=r),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_resource_nobody_asks_for_changes_nothing(name: str, data: st.DataObject) -> None:
    w = data.draw(resource_workloads(()))
    plain = simulate(w, SCHEDULERS[name](()))
    unused = simulate(w, SCHEDULERS[name]((UNUSED,)))
    assert starts(plain) == starts(unused) and log(plain) == log(unused)
    validate_schedule(unused)


@pytest.mark.parametrize("name", ["PC-window", "DC-window"])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.sampled_from([2, 3]))
def test_planning_windows_keep_the_guarantees_on_vectors(name: str, data: st.DataObject, n: int) -> None:
    w = data.draw(resource_workloads(resource_sets[n]))
    schedule = simulate(w, SCHEDULERS[name](resource_sets[n]))
    validate_schedule(schedule)
    check_reservations(schedule)


def test_free_and_capacity_are_amounts_with_resources() -> None:
    for s in (PC(resources=[MEMORY]), DC(resources=[MEMORY])):
        s.reset(4, now=0.0)
        first = job(1, 0.0, 1, 5.0, memory=10.0)
        s.submit(first, 0.0)
        s.schedule(0.0)
        assert s.capacity == Amounts((4, 16)) and s.free == Amounts((3, 6))
        s.complete(first, 5.0)
        assert s.free == Amounts((4, 16))


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_names_carry_the_resources_and_are_unchanged_without(name: str) -> None:
    plain, one, two = (SCHEDULERS[name](r) for r in ((), (MEMORY,), (MEMORY, GPUS)))
    assert "+" not in plain.name and "+" not in repr(plain)
    assert one.name.endswith(", +memory)") and "+memory" in repr(one)
    assert two.name.endswith(", +memory, +gpus)") and "+memory, +gpus" in repr(two)
    assert one.name.replace(", +memory", "") == plain.name


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_a_job_asking_more_than_the_machine_has_is_refused_at_the_door(name: str) -> None:
    s = SCHEDULERS[name]((MEMORY,))
    s.reset(4, now=0.0)
    with pytest.raises(ScheduleError, match=r"job 7 .* asks 40 memory of 16: more than the machine has"):
        s.submit(job(7, 0.0, 2, 5.0, memory=20.0), 0.0)
    assert s.queued() == 0
    s.submit(job(8, 0.0, 2, 5.0, memory=2.0), 0.0)  # the refusal left nothing behind
    assert [j.id for j in s.schedule(0.0)] == [8]
    with pytest.raises(ScheduleError, match="job 8 submitted at 0 while already"):
        s.submit(job(8, 0.0, 2, 5.0, memory=2.0), 0.0)


def negative(job: Job) -> int:
    return -3


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@pytest.mark.parametrize("bad", ["memory", MEMORY, None, [3], [MEMORY, MEMORY]], ids=repr)
def test_bad_resources_are_refused_with_the_librarys_error(name: str, bad: Any) -> None:
    with pytest.raises(ParameterError, match="resources must"):
        SCHEDULERS[name](bad)


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_a_request_that_is_not_an_amount_is_refused_naming_the_job(name: str) -> None:
    bad = Resource("gpus", 4, negative)
    s = SCHEDULERS[name]((bad,))
    s.reset(4, now=0.0)
    with pytest.raises(ScheduleError, match=r"\+gpus\): job 9: gpus request must be an int >= 0, got -3$"):
        s.submit(job(9, 0.0, 1, 1.0), 0.0)
    g = guarded(SCHEDULERS[name]((bad,)))
    g.reset(4, now=0.0)
    with pytest.raises(
        ScheduleError, match=r"\(guarded\): job 9: gpus request must be an int >= 0, got -3 \("
    ):
        g.submit(job(9, 0.0, 1, 1.0), 0.0)


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_a_copy_decides_as_the_original_on_vectors(name: str) -> None:
    w = random_workload(random.Random(3), (MEMORY, GPUS))
    whole = simulate(w, SCHEDULERS[name]((MEMORY, GPUS)))
    for steps in (3, 12, 20):
        sim = Simulator(w, SCHEDULERS[name]((MEMORY, GPUS)))
        for _ in range(steps):
            sim.step()
        then, fork = sim.now, sim.fork()
        assert fork.scheduler is not sim.scheduler
        # The fork runs to the end first: had it shared state with the original, they would differ.
        while fork.step():
            pass
        while sim.step():
            pass
        later = {j: t for j, t in starts(whole).items() if t > then}
        assert {j: t for j, t in starts(fork.result()).items()} == later
        assert starts(sim.result()) == starts(whole)


# -- the wrappers ----------------------------------------------------------------------------------


def test_guarded_exposes_and_checks_the_resources() -> None:
    s = guarded(PC(resources=[MEMORY, GPUS]))
    assert s.resources == (MEMORY, GPUS) and guarded(PC()).resources == ()
    s.reset(4, now=0.0)
    with pytest.raises(
        ScheduleError, match=r"\(guarded\): job 3 submitted at 0 needs 40 memory on a machine with 16"
    ):
        s.submit(job(3, 0.0, 2, 5.0, memory=20.0), 0.0)
    w = random_workload(random.Random(1), (MEMORY, GPUS))
    schedule = simulate(w, guarded(DC(resources=[MEMORY, GPUS])))
    assert schedule.resources == (MEMORY, GPUS)
    assert starts(schedule) == starts(simulate(w, DC(resources=[MEMORY, GPUS])))


class Greedy(Conservative):
    """Starts every queued job at once, ignoring memory: what a guard must catch."""

    def schedule(self, now: float) -> list[Job]:
        jobs = [entry[2] for entry in self._order]
        self._order.clear()
        self._planned.clear()
        return jobs


def test_guarded_refuses_a_start_beyond_a_resource() -> None:
    s = guarded(Greedy(resources=[MEMORY]))
    s.reset(4, now=0.0)
    s.submit(job(1, 0.0, 1, 5.0, memory=10.0), 0.0)
    s.submit(job(2, 0.0, 1, 5.0, memory=10.0), 0.0)
    with pytest.raises(ScheduleError, match=r"started job 2 at 0: 20 memory in use on a machine with 16"):
        s.schedule(0.0)


@pytest.mark.parametrize("make", [PC, DC, Conservative, lambda **kw: Selective(1.0, **kw)])
def test_planning_exposes_the_resources_and_replans_on_vectors(make: Any) -> None:
    # Planned with predictions, job 1 (12 kB) outlives its plan: job 2 (8 kB) was reserved where its
    # planned end freed the memory, and moves to its real end when it is extended, though processors
    # were free all along.
    jobs = [
        job(1, 0.0, 1, 30.0, memory=12.0, estimate=30.0),
        job(2, 0.0, 1, 5.0, memory=8.0, estimate=5.0),
    ]
    w = Workload.from_jobs(jobs, 4)
    wrapped = planning(make(resources=[MEMORY]), predictor=lambda j, now: 10.0)
    assert wrapped.resources == (MEMORY,)  # type: ignore[attr-defined]
    schedule = simulate(w, wrapped)
    assert schedule.resources == (MEMORY,)
    assert starts(schedule) == {1: 0.0, 2: 30.0}
    assert schedule.reservations_of(2).tolist() == [10.0, 30.0]
    validate_schedule(schedule)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.sampled_from([2, 3]))
def test_planning_with_a_learning_predictor_keeps_every_capacity(data: st.DataObject, n: int) -> None:
    resources = resource_sets[n]
    w = data.draw(resource_workloads(resources))
    for make in (PC, DC):
        validate_schedule(simulate(w, planning(make(resources=resources), predictor=UserHistory())))
