"""Property-test a scheduler of your own with backfill.testing.

A scheduler is any object with the methods of the ``backfill.Scheduler`` protocol. The one written
here, FirstFit, starts every queued job that fits the free processors now, in arrival order, and
promises nothing: jobs pass each other freely and none holds a reservation (so a wide job can starve;
the checks below are about correctness, not fairness).

``backfill.testing.workloads()`` draws small random workloads built to reach the corner cases, and
``check_scheduler`` simulates a copy of the scheduler over one and checks the schedule without
trusting the scheduler, and that copies taken mid-run continue as the original. The two ``test_``
functions are ordinary hypothesis tests: put them in your test suite and pytest runs them; run as
a script, this file calls them itself, then shows what ``check_scheduler`` says about a FirstFit
asked for guarantees it never made and about one whose ``copy()`` shares its queue.

Run: python examples/property_test_scheduler.py   (needs hypothesis: pip install ".[test]")
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from hypothesis import given, settings

from backfill import Conservative, Job, ScheduleError, Workload
from backfill.testing import check_scheduler, workloads

EXAMPLES = 200


@attrs.define
class FirstFit:
    """Start, in arrival order, every queued job that fits the free processors; no reservations."""

    free: int = 0
    queue: list[Job] = attrs.Factory(list)
    name = "FirstFit"

    def reset(self, machine_size: int, now: float) -> None:
        self.free, self.queue = machine_size, []

    def submit(self, job: Job, now: float) -> None:
        self.queue.append(job)

    def complete(self, job: Job, now: float) -> None:
        self.free += job.processors

    def schedule(self, now: float) -> list[Job]:
        started, waiting = [], []
        for job in self.queue:
            if job.processors <= self.free:
                self.free -= job.processors
                started.append(job)
            else:
                waiting.append(job)
        self.queue = waiting
        return started

    def next_wakeup(self) -> float | None:
        return None  # it acts only on arrivals and completions

    def reservations(self) -> Mapping[int, float]:
        return {}  # it promises nothing

    def copy(self) -> FirstFit:
        return attrs.evolve(self, queue=list(self.queue))


tried = {"FirstFit": 0, "Conservative": 0}


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads(overruns=True))
def test_first_fit_is_feasible(workload: Workload) -> None:
    # Capacity and accounting only: FirstFit gives no guarantees to check.
    schedule = check_scheduler(FirstFit(), workload, guarantees=False)
    # The returned schedule is there for properties of your own scheduler.
    assert schedule.reservations.size == 0
    tried["FirstFit"] += 1


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads(overruns=True))
def test_conservative_keeps_its_guarantees(workload: Workload) -> None:
    # guarantees=True (the default): every job that waited had a reservation, none ever moved later,
    # and every job started no later than its first one.
    check_scheduler(Conservative(), workload)
    tried["Conservative"] += 1


def first_fit_promises_nothing() -> str:
    """Ask FirstFit for guarantees on two jobs that cannot run together, and return the complaint."""
    jobs = [Job(id=i, submit=0.0, processors=2, runtime=10.0, estimate=10.0) for i in (1, 2)]
    try:
        check_scheduler(FirstFit(), Workload.from_jobs(jobs, machine_size=2))
    except ScheduleError as error:
        return str(error)
    raise AssertionError("check_guarantees accepted a job that waited without a reservation")


@attrs.define
class SharesItsQueue(FirstFit):
    """FirstFit whose copy shares the queue list with the original (``attrs.evolve`` alone)."""

    name = "SharesItsQueue"

    def copy(self) -> SharesItsQueue:
        return attrs.evolve(self)


def a_copy_must_be_whole() -> str:
    """Check a FirstFit whose copy shares its queue, and return the complaint."""
    jobs = [Job(id=i, submit=float(i // 2), processors=2, runtime=10.0, estimate=10.0) for i in range(1, 5)]
    try:
        check_scheduler(SharesItsQueue(), Workload.from_jobs(jobs, machine_size=2), guarantees=False)
    except ScheduleError as error:
        return str(error)
    raise AssertionError("check_scheduler accepted a copy that shares the queue with the original")


def main() -> None:
    test_first_fit_is_feasible()
    test_conservative_keeps_its_guarantees()
    print(f"FirstFit: every schedule feasible on {tried['FirstFit']} random workloads")
    print(f"Conservative: every guarantee kept on {tried['Conservative']} random workloads")
    print(f"asked for guarantees, check_scheduler says: {first_fit_promises_nothing()}")
    print(f"a copy sharing its queue, check_scheduler says: {a_copy_must_be_whole()}")


if __name__ == "__main__":
    main()
