"""One reservation log: a subclass that answers reservations() is recorded, whatever it knows of the log."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from checks import head_at_latest_end
from hypothesis import given, settings
from hypothesis import strategies as st
from shadow_easy import ShadowEASY
from strategies import registered_schedulers, workloads

from backfill import EASY, FCFS, Conservative, Job, ScheduleError, Workload, fair_start_times, simulate
from backfill.schedulers import QueueScheduler, SchedulerBase
from backfill.testing import check_scheduler

JOBS = [
    Job(id=0, submit=0.0, processors=3, runtime=10.0, estimate=10.0),
    Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0),
    Job(id=2, submit=0.0, processors=1, runtime=8.0, estimate=8.0),
    Job(id=3, submit=1.0, processors=4, runtime=2.0, estimate=2.0),
]
W = Workload.from_jobs(JOBS, machine_size=4)


class OwnReservations(ShadowEASY):
    """ShadowEASY keeping its reservations in a dict of its own: it never notes a change in the log."""

    held: dict[int, float] = {}  # noqa: RUF012 (replaced by an instance's own at each note)

    def note_reservation(self, job_id: int, start: float) -> None:
        held = dict(self.held)
        if math.isnan(start):
            held.pop(job_id, None)
        else:
            held[job_id] = start
        self.held = held

    def schedule(self, now: float) -> list[Job]:
        started = super().schedule(now)
        self.held = {j: s for j, s in self.held.items() if j not in {job.id for job in started}}
        return started

    def reservations(self) -> Mapping[int, float]:
        return MappingProxyType(self.held)

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self.held = {}


def test_a_class_that_answers_reservations_itself_is_logged_by_comparison() -> None:
    assert SchedulerBase.logs_reservations and QueueScheduler.logs_reservations and EASY.logs_reservations
    assert Conservative.logs_reservations and ShadowEASY.logs_reservations
    assert OwnReservations.logs_reservations is False

    class Declared(OwnReservations):
        logs_reservations = True

        def reservations(self) -> Mapping[int, float]:
            return super().reservations()

    assert Declared.logs_reservations is True


def test_a_subclass_overriding_reservations_is_recorded() -> None:
    # On 7330ea9 the simulator read the base's private log, which this class never feeds: 0 changes.
    mine = simulate(W, OwnReservations())
    easy = simulate(W, EASY())
    assert len(easy.reservations) > 0
    np.testing.assert_array_equal(mine.start, easy.start)
    assert mine.reservations.tolist() == easy.reservations.tolist()
    check_scheduler(OwnReservations(), W, guarantees="while_held")


class WithoutLog:
    """A protocol-only wrapper (no log): the simulator records it by comparing reservations()."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in ("log_reservation_changes", "take_reservation_changes"):
            raise AttributeError(name)
        return getattr(self.inner, name)


@settings(max_examples=40, deadline=None)
@given(workloads(max_jobs=20))
def test_an_overriding_subclass_is_recorded_as_the_simulator_records_one_without_a_log(
    workload: Workload,
) -> None:
    compared = check_scheduler(OwnReservations(), workload, guarantees="while_held")
    reference = simulate(workload, WithoutLog(ShadowEASY()))
    np.testing.assert_array_equal(compared.start, reference.start)
    a, b = compared.reservations, reference.reservations
    assert len(a) == len(b)
    assert (a["time"] == b["time"]).all() and (a["job_id"] == b["job_id"]).all()
    assert np.array_equal(a["start"], b["start"], equal_nan=True)


def test_fair_start_times_of_an_overriding_subclass_are_easys() -> None:
    mine = fair_start_times(W, OwnReservations(), workers=1)
    easy = fair_start_times(W, EASY(), workers=1)
    np.testing.assert_array_equal(mine.strict, easy.strict)
    np.testing.assert_array_equal(mine.relaxed, easy.relaxed)


class NotesItself(head_at_latest_end(QueueScheduler)):  # type: ignore[misc]
    """FCFS that reserves the blocked head at the latest planned end, noting it the public way."""


def test_a_subclass_that_notes_changes_is_recorded() -> None:
    schedule = check_scheduler(NotesItself(), W, guarantees="while_held", require_log=False)
    assert schedule.start.tolist() == [0.0, 10.0, 10.0, 18.0]
    assert schedule.reservations_of(1).tolist() == [10.0]
    assert schedule.reservations_of(3).tolist() == [18.0]


class Disagrees(NotesItself):
    """Says its notes are complete, but answers reservations() a second later than it noted."""

    logs_reservations = True

    def reservations(self) -> Mapping[int, float]:
        return {job_id: start + 1.0 for job_id, start in super().reservations().items()}


def test_the_kit_says_when_the_log_and_reservations_disagree() -> None:
    with pytest.raises(ScheduleError) as caught:
        check_scheduler(Disagrees(), W, guarantees=False)
    assert str(caught.value).startswith(
        "Disagrees(fcfs): at 0 the reservation log and reservations() disagree: the log leaves job 1 "
        "with at 10, reservations() gives it at 11;"
    )


def test_note_reservation_refuses_a_job_that_is_not_queued() -> None:
    s = FCFS()
    s.reset(4, now=0.0)
    with pytest.raises(ScheduleError, match="cannot reserve a start for job 5: it is not queued"):
        s.note_reservation(5, 1.0)


def test_a_noted_withdrawal_is_logged_once_and_a_start_ends_a_reservation_silently() -> None:
    s: Any = QueueScheduler()
    s.log_reservation_changes()
    s.reset(4, now=0.0)
    s.submit(JOBS[0], now=0.0)
    s.note_reservation(0, 3.0)
    s.note_reservation(0, 3.0)
    s.note_reservation(0, math.nan)
    s.note_reservation(0, math.nan)
    s.note_reservation(0, 2.0)
    s.start(s.ordered(0.0), now=0.0)
    changes = s.take_reservation_changes()
    assert [c[0] for c in changes] == [0, 0, 0] and changes[0][1] == 3.0 and math.isnan(changes[1][1])
    assert changes[2][1] == 2.0 and dict(s.reservations()) == {}


@settings(max_examples=80, deadline=None)
@given(workloads(max_jobs=20, overruns=True), st.sampled_from(registered_schedulers()))
def test_every_built_in_logs_what_it_reserves(workload: Workload, scheduler: Any) -> None:
    # The kit's agreement check, on every registered configuration: their logs are notes.
    assert scheduler.logs_reservations
    check_scheduler(scheduler, workload, guarantees=False, forks=0)


@pytest.mark.parametrize("base", [QueueScheduler, SchedulerBase])
@pytest.mark.parametrize(
    ("job_id", "start", "message"),
    [
        (1, -5.0, r"note_reservation\(1, -5.0\): a start is math.nan \(withdrawn\) or a time from 3 to"),
        (1, 2.0, r"note_reservation\(1, 2.0\): .* from 3 to MAX_CLOCK"),
        (1, math.inf, r"note_reservation\(1, inf\)"),
        (1, 2.0**44, r"note_reservation\(1, 17592186044416.0\)"),
        (1, "10", r"note_reservation\(1, '10'\)"),
        (1, True, r"note_reservation\(1, True\)"),
        (1, None, r"note_reservation\(1, None\)"),
        ("1", 5.0, r"note_reservation\('1', 5.0\): a job id is an int"),
        (True, 5.0, r"note_reservation\(True, 5.0\): a job id is an int"),
    ],
)
def test_a_note_no_reservation_can_be_is_refused_and_not_logged(
    base: type[SchedulerBase], job_id: object, start: object, message: str
) -> None:
    s = base()
    s._door_reset(4, 3.0)  # SchedulerBase has no reset of its own; this is what every reset does
    s.log_reservation_changes()
    if isinstance(s, QueueScheduler):
        s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), now=3.0)
    with pytest.raises(ScheduleError, match=message):
        s.note_reservation(job_id, start)  # type: ignore[arg-type]
    assert s.take_reservation_changes() == []
    # Now, a later time, an int time and NaN (withdrawn) are reservations.
    for start_ok in (3.0, 10, math.nan):
        s.note_reservation(1, start_ok)
    assert [c[1] for c in s.take_reservation_changes()][:2] == [3.0, 10]
