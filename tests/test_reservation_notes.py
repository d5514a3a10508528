"""note_reservation works on the bases whose notes are the log, and is refused on the others."""

from __future__ import annotations

import math
from typing import Any

import pytest
from checks import head_at_latest_end

from backfill import DC, EASY, FCFS, PC, Conservative, Job, ScheduleError, Workload, simulate
from backfill.schedulers import (
    GuaranteeScheduler,
    LookaheadSlack,
    QueueScheduler,
    RelShare,
    SchedulerBase,
    Selective,
    SlackBackfill,
)
from backfill.testing import check_scheduler

JOBS = [
    Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=10.0),
    Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0),
    Job(id=3, submit=2.0, processors=1, runtime=1.0, estimate=1.0),
    Job(id=4, submit=3.0, processors=2, runtime=1.0, estimate=1.0),
]
W = Workload.from_jobs(JOBS, machine_size=2)


class _PlainGuarantees(GuaranteeScheduler):
    """GuaranteeScheduler written as PC is (place, release, compress, start_due), to subclass again."""

    def submit(self, job: Job, now: float) -> None:
        self.place(job, now)

    def complete(self, job: Job, now: float) -> None:
        interval = self.release(job, now)
        self.compress(now, [interval] if interval else [])

    def schedule(self, now: float) -> list[Job]:
        return self.start_due(now)


# Each base that plans its reservations itself, and the base named in the refusal.
PLANNING_BASES = [
    (PC, "GuaranteeScheduler"),
    (DC, "GuaranteeScheduler"),
    (_PlainGuarantees, "GuaranteeScheduler"),
    (Conservative, "Conservative"),
    (LookaheadSlack, "Conservative"),
    (SlackBackfill, "Conservative"),
    (EASY, "EASY"),
    (Selective, "Selective"),
    (RelShare, "RelShare"),
]


def _noting(base: Any) -> Any:
    """A subclass of ``base`` that reserves a late start for each arriving job from its submit hook."""

    class Noting(base):  # type: ignore[misc, valid-type]
        def submit(self, job: Job, now: float) -> None:
            super().submit(job, now)
            self.note_reservation(job.id, now + 100.0)

    return Noting


@pytest.mark.parametrize(("base", "planner"), PLANNING_BASES, ids=lambda b: getattr(b, "__name__", b))
def test_a_note_on_a_base_that_plans_its_reservations_is_refused_by_name(base: Any, planner: str) -> None:
    # Before: PC and DC ended in "ValueError: (101.0, 2, Job(...)) not in list" from sortedcontainers
    # (the note moved the guarantee in _reserved, not in the profile or _by_start); Conservative, EASY,
    # Selective and RelShare ran and logged a reservation at 100 that their reservations() never had.
    with pytest.raises(ScheduleError) as caught:
        simulate(W, _noting(base)())
    message = str(caught.value)
    assert message.startswith("Noting")
    assert "note_reservation(1, 100.0) is refused" in message
    assert f"{planner} plans its reservations" in message
    assert "Only subclasses of QueueScheduler (FCFS too) or of SchedulerBase directly log by notes" in message


@pytest.mark.parametrize("base", [PC, Conservative, EASY, Selective, RelShare], ids=lambda b: b.__name__)
def test_a_refused_note_leaves_the_scheduler_as_it_was(base: Any) -> None:
    s = base()
    s.reset(2, now=0.0)
    s.log_reservation_changes()
    s.submit(JOBS[0], now=0.0)
    started = s.schedule(0.0)
    s.submit(JOBS[1], now=1.0)
    s.schedule(1.0)
    before = dict(s.reservations()), s.take_reservation_changes()
    with pytest.raises(ScheduleError, match="is refused"):
        s.note_reservation(2, 50.0)
    with pytest.raises(ScheduleError, match="is refused"):
        s.note_reservation(2, math.nan)
    assert (dict(s.reservations()), s.take_reservation_changes()) == (before[0], [])
    assert [j.id for j in started] == [1]


@pytest.mark.parametrize("base", [QueueScheduler, FCFS], ids=lambda b: b.__name__)
def test_notes_are_the_log_on_queue_schedulers(base: Any) -> None:
    HeadAtLatestEnd = head_at_latest_end(base)
    schedule = check_scheduler(HeadAtLatestEnd(), W, guarantees="while_held", require_log=False)
    assert schedule.reservations_of(2).tolist() == [10.0]


def test_a_direct_subclass_of_the_base_still_notes() -> None:
    s = SchedulerBase()
    s.log_reservation_changes()
    s.note_reservation(4, 12.0)
    assert s.take_reservation_changes() == [(4, 12.0)]
