"""Every scheduler through the independent validator, against naive references, and its guarantees."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import NaiveConservative, NaiveEASY
from strategies import make, registered_schedulers, workloads

from backfill import (
    EASY,
    FCFS,
    G2,
    CategoryThresholds,
    Conservative,
    Job,
    JobError,
    LookaheadSlack,
    ParameterError,
    RelShare,
    Scheduler,
    Selective,
    Workload,
    check_reservations,
    simulate,
    validate_schedule,
)
from backfill.schedulers.machinery.priorities import PRIORITIES, fcfs, lxf, sjf
from backfill.schedulers.registry import SCHEDULERS

PRIORITY_NAMES = sorted(PRIORITIES)


def all_schedulers() -> list[Scheduler]:
    """The registry's schedulers (every priority, every parameter sample), and variants it cannot name."""
    out = registered_schedulers()
    out += [EASY(sjf, depth=None), Selective(3.0, lxf), Selective(CategoryThresholds(2.0, 5.0, 1.5, 1.2))]
    out += [RelShare(window=30.0, expected_usage=False, depth=2), LookaheadSlack(goal=G2(), lookahead=3)]
    return out


def test_all_schedulers_cover_the_registry() -> None:
    names = {type(s).__name__ for s in all_schedulers()}
    assert names == {entry.name for entry in SCHEDULERS}


def reservation_log(schedule) -> list[tuple[float, int, float | None]]:  # type: ignore[no-untyped-def]
    """The reservation log with NaN (a withdrawn reservation) as None, so logs compare equal."""
    return [(t, j, None if s != s else s) for t, j, s in schedule.reservations.tolist()]


def starts(schedule) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """Start time by job id, after the independent validator has passed the schedule."""
    validate_schedule(schedule)
    return dict(zip(schedule.workload.column("id").tolist(), schedule.start.tolist(), strict=True))


@pytest.mark.parametrize("scheduler", all_schedulers(), ids=lambda s: s.name)
def test_satisfies_the_protocol(scheduler: Scheduler) -> None:
    assert isinstance(scheduler, Scheduler)


@pytest.mark.parametrize("scheduler", all_schedulers(), ids=lambda s: s.name)
@settings(max_examples=60, deadline=None)
@given(w=workloads(overruns=True))
def test_every_schedule_is_valid(scheduler: Scheduler, w: Workload) -> None:
    result = simulate(w, scheduler.copy())
    validate_schedule(result)
    assert int(result.started.sum()) + len(result.rejected) == len(w)


@settings(max_examples=250, deadline=None)
@given(w=workloads(max_jobs=20))
def test_conservative_equals_the_naive_definition(w: Workload) -> None:
    # The compression shortcuts (freed-interval bound, failure dominance, run skipping) must not
    # change a single start time or reservation.
    fast, naive = simulate(w, Conservative()), simulate(w, NaiveConservative())
    assert starts(fast) == starts(naive)
    assert reservation_log(fast) == reservation_log(naive)


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_jobs=40, machine_size=6, accurate=False, zero_runtimes=False))
def test_conservative_equals_the_naive_definition_under_load(w: Workload) -> None:
    assert starts(simulate(w, Conservative())) == starts(simulate(w, NaiveConservative()))


@pytest.mark.parametrize("priority", [fcfs, sjf, lxf], ids=lambda p: p.__name__)
@settings(max_examples=120, deadline=None)
@given(w=workloads(max_jobs=30))
def test_easy_equals_a_full_pass_every_time(priority, w: Workload) -> None:  # type: ignore[no-untyped-def]
    # EASY skips the full pass when only arrivals happened; that cache must be exact.
    fast, naive = simulate(w, EASY(priority)), simulate(w, NaiveEASY(priority))
    assert starts(fast) == starts(naive)
    # Reservation logs differ by design: the naive one is recorded by comparing reservations between
    # instants, so it misses what happens within one (a head overtaken and re-reserved).


@settings(max_examples=200, deadline=None)
@given(w=workloads(max_jobs=30, accurate=False))
def test_conservative_reservations_never_move_later(w: Workload) -> None:
    result = simulate(w, Conservative())
    check_reservations(result)
    # Every job that waited had a reservation, and started no later than the first one.
    for job_id, start in starts(result).items():
        first = result.reservations_of(job_id)
        assert first.size >= 1
        assert start <= first[0]


@pytest.mark.parametrize("priority", [fcfs, sjf, lxf], ids=lambda p: p.__name__)
@settings(max_examples=150, deadline=None)
@given(w=workloads(max_jobs=30, accurate=False))
def test_easy_head_reservation_never_moves_later_while_head(priority, w: Workload) -> None:  # type: ignore[no-untyped-def]
    check_reservations(simulate(w, EASY(priority)), while_held=True)


def test_check_reservations_catches_a_delay() -> None:
    class Delaying(Conservative):
        """Conservative that pushes one reservation later, which the checker must notice."""

        def schedule(self, now: float) -> list[Job]:
            out = super().schedule(now)
            if self._planned and now == 0:
                jid = next(iter(self._planned))
                self._changes.append((jid, self._planned[jid] + 5))
            return out

    w = make((0, 2, 10, 10), (0, 2, 10, 10), size=2)
    with pytest.raises(Exception, match="moved later"):
        check_reservations(simulate(w, Delaying()))


def test_fcfs_does_not_backfill() -> None:
    w = make((0, 3, 10, 10), (1, 4, 10, 10), (2, 1, 5, 5), size=4)
    assert starts(simulate(w, FCFS())) == {1: 0, 2: 10, 3: 20}


def test_easy_backfills_only_without_delaying_the_head() -> None:
    # Job 2 (4 procs) waits for job 1 (ends by estimate at 10): shadow 10, no extra processors.
    # Job 3 ends by 7 <= 10: backfills. Job 4 would end at 22 > 10 and has no extra: waits.
    w = make((0, 3, 10, 10), (1, 4, 10, 10), (2, 1, 5, 5), (2, 1, 20, 20), size=4)
    result = simulate(w, EASY())
    assert starts(result) == {1: 0, 2: 10, 3: 2, 4: 20}
    assert result.reservations_of(2).tolist() == [10.0]


def test_easy_uses_extra_processors() -> None:
    # Head job 2 needs 3 of 6 at shadow 10: 3 extra processors; a long 2-processor job may use them.
    w = make((0, 6, 10, 10), (1, 3, 10, 10), (2, 2, 50, 50), size=6)
    w = make((0, 4, 10, 10), (1, 5, 10, 10), (2, 1, 50, 50), size=6)
    assert starts(simulate(w, EASY())) == {1: 0, 2: 10, 3: 2}


def test_easy_sjf_orders_the_queue() -> None:
    w = make((0, 4, 10, 10), (1, 4, 30, 30), (2, 4, 5, 5), size=4)
    assert starts(simulate(w, EASY(sjf))) == {1: 0, 2: 15, 3: 10}


def test_conservative_compresses_on_early_completion() -> None:
    # Job 1 is estimated at 100 but runs 10; job 2 (reserved at 100) moves to 10; job 3, which
    # backfilled behind it, keeps its place.
    w = make((0, 4, 10, 100), (1, 4, 20, 20), (2, 4, 5, 5), size=4)
    result = simulate(w, Conservative())
    assert starts(result) == {1: 0, 2: 10, 3: 30}
    assert result.reservations_of(2).tolist() == [100.0, 10.0]
    assert result.reservations_of(3).tolist() == [120.0, 30.0]


def test_conservative_compression_follows_profile_order() -> None:
    # Rajbhandary et al. 2013, Fig. 1: in profile order, job 4 (which backfilled ahead of job 3)
    # is compressed first, then job 3 — no gap is left behind.
    w = make((0, 2, 5, 5), (0, 2, 2, 20), (1, 2, 10, 10), (2, 2, 3, 3), size=4)
    result = simulate(w, Conservative())
    validate_schedule(result)
    assert starts(result) == {1: 0, 2: 0, 3: 2, 4: 5}


def test_simultaneous_completions_release_before_arrivals_are_placed() -> None:
    # Two jobs end early at 5; the job arriving at 5 must see the compressed profile, so the
    # earlier-queued job 3 gets the freed machine first.
    w = make((0, 2, 5, 50), (0, 2, 5, 50), (1, 4, 10, 10), (5, 4, 10, 10), size=4)
    assert starts(simulate(w, Conservative())) == {1: 0, 2: 0, 3: 5, 4: 15}


def test_copy_is_independent() -> None:
    s = Conservative()
    s.reset(4, 0)
    s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), 0)
    c = s.copy()
    c.submit(Job(id=2, submit=0.0, processors=4, runtime=5.0, estimate=5.0), 0)
    assert dict(s.reservations()) == {1: 0}
    assert dict(c.reservations()) == {1: 0, 2: 5}


def test_priority_must_be_callable() -> None:
    with pytest.raises(ParameterError):
        EASY(priority=3)  # type: ignore[arg-type]


@given(st.sampled_from(PRIORITY_NAMES))
def test_priority_names_round_trip(name: str) -> None:
    assert EASY(PRIORITIES[name]).name == f"EASY({name})"


def test_accounting_with_rejections() -> None:
    w = make((0, 5, 1, 1), (0, 2, 1, 1), size=4)
    result = simulate(w, EASY())
    validate_schedule(result)
    assert dict(result.rejected) == {1: "wider than the machine (4 processors)"}
    assert np.isnan(result.start[0]) and result.start[1] == 0


def test_easy_counts_every_job_ending_at_the_shadow_time_as_extra() -> None:
    # Jobs 1 (2 procs) and 2 (1 proc) both end at 10; head job 3 needs 3 of 4, so at 10 one
    # processor is extra, and the long 1-processor job 4 may use it right away.
    w = make((0, 2, 10, 10), (0, 1, 10, 10), (1, 3, 10, 10), (2, 1, 100, 100), size=4)
    assert starts(simulate(w, EASY())) == {1: 0, 2: 0, 3: 10, 4: 2}


def test_estimates_that_are_unknown_or_not_a_number() -> None:
    # A NaN estimate never reaches a simulation: the job refuses it where it enters.
    with pytest.raises(JobError, match="job 1: estimate must be"):
        make((0, 1, 5, float("nan")), size=2)
    w = make((0, 1, 5, -1), (0, 1, 5, 5), size=2)
    for overrun in ("raise_estimate", "kill"):
        result = simulate(w, Conservative(), overrun=overrun)  # type: ignore[arg-type]
        validate_schedule(result)
        assert dict(result.rejected) == {}
        assert dict(result.altered) == {"estimate_from_runtime": 1}
        assert result.estimate[0] == 5 and result.end.tolist() == [5, 5]
