"""The protocol's door: every scheduler checks each call it is given, always, before it changes anything.

Issue 41. Each case here passed silently (or failed with an error naming no job) before: zero-processor
jobs started, SWF's -1 estimate over-committed Conservative, a job submitted before its submit time
started then, ``schedule()`` went backwards, a job wider than the machine gave EASY an AssertionError
saying the opposite, Conservative a ProfileError naming no job, and blocked FCFS's whole queue.
"""

from __future__ import annotations

import contextlib
import math
import re
import signal
import types
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest
from strategies import CompressAtArrivals, FirstFit, make, registered_schedulers

from backfill import (
    DC,
    EASY,
    FCFS,
    PC,
    Conservative,
    Job,
    ParameterError,
    QueueScheduler,
    RecentUsage,
    RelShare,
    ScheduleError,
    Selective,
    guarded,
    simulate,
    sjf,
    validate_schedule,
)
from backfill.schedulers import relshare
from backfill.schedulers.machinery.door import Door
from backfill.schedulers.prediction.planning import planning
from backfill.schedulers.prediction.predictors import exact_runtime
from backfill.schedulers.registry import SCHEDULERS as SCHEDULERS_REGISTRY
from backfill.workloads.limits import MAX_CLOCK, MAX_TIME


def job(i: int, submit: float, procs: int, runtime: float, estimate: float) -> Job:
    return Job(id=i, submit=submit, processors=procs, runtime=runtime, estimate=estimate)


def unchecked_job(**fields: Any) -> Job:
    """A job that got past construction: its fields are set without Job's own checks.

    For values no Job can be built with (a NaN estimate), which a host's own job objects may still
    carry, to show that the door refuses them too.
    """
    made = object.__new__(Job)
    for field in attrs.fields(Job):
        value = fields.get(field.name, field.default)
        object.__setattr__(made, field.name, value)
    return made


# -- the schedulers: every registered one, wrapped, subclassed, and one written from scratch ----------------


class MyConservative(Conservative):
    """A user's subclass that overrides nothing of the door."""


class FromScratch:
    """A scheduler written without the library's bases: FCFS without backfilling, with a Door."""

    name = "FromScratch"

    def __init__(self) -> None:
        self.door = Door(self.name)
        self.queue: list[Job] = []
        self.running: dict[int, Job] = {}
        self.size = 0

    def reset(self, machine_size: int, now: float) -> None:
        self.door.reset(machine_size, now)
        self.queue, self.running, self.size = [], {}, machine_size

    def submit(self, job: Job, now: float) -> None:
        self.door.submit(job, now)
        self.queue.append(job)

    def complete(self, job: Job, now: float) -> None:
        self.door.complete(job, now)
        del self.running[job.id]

    def schedule(self, now: float) -> list[Job]:
        self.door.schedule(now)
        started = []
        free = self.size - sum(j.processors for j in self.running.values())
        while self.queue and self.queue[0].processors <= free:
            started.append(first := self.queue.pop(0))
            self.running[first.id] = first
            free -= first.processors
        return started

    def next_wakeup(self) -> float | None:
        return None

    def reservations(self) -> dict[int, float]:
        return {}

    def copy(self) -> FromScratch:
        other = FromScratch()
        other.door = self.door.copy()
        other.queue, other.running, other.size = list(self.queue), dict(self.running), self.size
        return other


def every_scheduler() -> list[Any]:
    return [
        *registered_schedulers(),
        planning(EASY(), predictor=exact_runtime),
        planning(Conservative(), resolution=60.0),
        FirstFit(sjf),
        CompressAtArrivals(sjf),
        MyConservative(),
        FromScratch(),
    ]


def named(schedulers: list[Any]) -> list[Any]:
    return [pytest.param(s, id=f"{i}-{s.name}") for i, s in enumerate(schedulers)]


SCHEDULERS = named(every_scheduler())


def fresh(scheduler: Any, size: int = 4, now: float = 0.0) -> Any:
    s = scheduler.copy()
    s.reset(size, now)
    return s


def drive(s: Any, calls: list[tuple[str, Any, float]]) -> list[Any]:
    """Make the calls; return what each schedule() started (ids) and the reservations after it."""
    seen: list[Any] = []
    for what, arg, now in calls:
        if what == "schedule":
            seen.append(([j.id for j in s.schedule(now)], dict(s.reservations())))
        else:
            getattr(s, what)(arg, now)
    return seen


# Valid calls made after a refused one: the run must go on exactly as if the refused call had not been.
AFTER = [
    ("submit", job(101, 0, 4, 10, 10), 0.0),
    ("submit", job(102, 0, 2, 5, 5), 0.0),
    ("schedule", None, 0.0),
    ("submit", job(103, 1, 1, 3, 3), 1.0),
    ("schedule", None, 1.0),
]


def refused(scheduler: Any, call: Callable[[Any], Any], message: str) -> None:
    """The call raises a ScheduleError naming the scheduler with ``message``, and changes nothing."""
    s = fresh(scheduler)
    with pytest.raises(ScheduleError) as info:
        call(s)
    text = str(info.value)
    assert text.startswith(f"{s.name}: "), text
    assert re.search(message, text), text
    assert drive(s, AFTER) == drive(fresh(scheduler), AFTER)


# -- 1. submit -------------------------------------------------------------------------------------------

SUBMITS: dict[str, tuple[Any, float, str]] = {
    "no processors": (
        job(7, 0, 0, 5, 5),
        0.0,
        r"job 7 submitted at 0 needs 0 processors; a job needs at least 1",
    ),
    "unknown processors": (job(7, 0, -1, 5, 5), 0.0, r"job 7 submitted at 0 needs -1 processors"),
    "wider than the machine": (
        job(7, 0, 5, 5, 5),
        0.0,
        r"job 7 submitted at 0 needs 5 processors, more than the machine's 4; a host leaves such jobs out",
    ),
    "SWF's unknown estimate": (
        job(7, 0, 2, 5, -1),
        0.0,
        r"job 7 submitted at 0 with estimate -1(\.0)?; a scheduler plans with a known estimate",
    ),
    "NaN estimate": (
        unchecked_job(id=7, submit=0.0, processors=2, runtime=5.0, estimate=math.nan),
        0.0,
        r"job 7 submitted at 0 with estimate nan",
    ),
    "before its submit time": (job(7, 10, 2, 5, 5), 0.0, r"job 7 submitted at 0, before its submit time 10"),
    "not a Job": (
        types.SimpleNamespace(id=7, submit=0.0, processors=2, runtime=5.0, estimate=5.0, user=1, group=1),
        0.0,
        r"submit\(\) at 0 was given namespace\(id=7.*, which is not a Job",
    ),
    "NaN time": (
        job(7, 0, 2, 5, 5),
        math.nan,
        r"(job 7 submitted|compress\(\)) at nan; a time is a finite number",
    ),
    "infinite time": (
        job(7, 0, 2, 5, 5),
        math.inf,
        r"(job 7 submitted|compress\(\)) at inf; a time is a finite number",
    ),
    "after MAX_CLOCK": (
        job(7, 0, 2, 5, 5),
        2 * MAX_CLOCK,
        r"(job 7 submitted|compress\(\)) at 1.75922e\+13, after MAX_CLOCK \(2\*\*43 s\)",
    ),
    "a time that is not a number": (
        job(7, 0, 2, 5, 5),
        "soon",
        r"(job 7 submitted|compress\(\)) at 'soon', which is not a number",
    ),
}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_submit_refuses_what_no_scheduler_can_plan(scheduler: Any) -> None:
    # Before: zero- and minus-one-processor jobs were queued and started, SWF's -1 estimate and a NaN
    # one were planned (Conservative, PC and DC ran 8 processors on 4), a job started before its
    # submit time, a duck-typed job was taken, NaN and infinite times were taken.
    for case, (given, now, message) in SUBMITS.items():
        try:
            refused(scheduler, lambda s, given=given, now=now: s.submit(given, now), message)
        except AssertionError as error:
            raise AssertionError(f"{case}: {error}") from None


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_job_wider_than_the_machine_is_named_with_both_sizes(scheduler: Any) -> None:
    # Before: EASY raised "AssertionError: a job no wider than the machine always fits once all jobs
    # end", Conservative "ProfileError" naming no job, FCFS blocked its whole queue behind it.
    s = fresh(scheduler, size=4)
    s.submit(job(1, 0, 2, 5, 5), 0.0)
    with pytest.raises(
        ScheduleError, match=r"job 9 submitted at 0 needs 8 processors, more than the machine's 4"
    ):
        s.submit(job(9, 0, 8, 5, 5), 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_simulate_counts_a_wide_job_as_a_rejection(scheduler: Any) -> None:
    # The other half of the one behaviour: the simulator never submits such a job, it counts it.
    w = make((0, 8, 5, 5), (0, 2, 5, 5), size=4)
    result = simulate(w, scheduler.copy())
    assert dict(result.rejected) == {1: "wider than the machine (4 processors)"}
    assert result.start.tolist()[1] == 0.0


# -- 2. complete, schedule, reset ---------------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_schedule_never_goes_backwards_nor_past_max_time(scheduler: Any) -> None:
    # Before: schedule(5) after schedule(10) was taken by every scheduler (Conservative's profile
    # was then advanced backwards), and NaN and infinite times were taken.
    # A user's subclass deciding in its own schedule() is refused by the base's step it calls.
    call = r"(schedule|start|start_due)\(\)"
    cases = {
        5.0: rf"{call} at 5, before a call at 10: a host's time never goes backwards",
        math.nan: rf"{call} at nan; a time is a finite number",
        math.inf: rf"{call} at inf; a time is a finite number",
        2 * MAX_CLOCK: rf"{call} at 1.75922e\+13, after MAX_CLOCK",
        None: rf"{call} at None, which is not a number",
    }
    for now, message in cases.items():
        s = fresh(scheduler)
        s.schedule(10.0)
        with pytest.raises(ScheduleError, match=message):
            s.schedule(now)
        assert drive(s, [("submit", job(1, 10, 4, 5, 5), 10.0), ("schedule", None, 10.0)]) == [([1], {})]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_complete_refuses_a_bad_time_or_an_object_that_is_not_a_job(scheduler: Any) -> None:
    first = job(1, 0, 2, 10, 10)
    s = fresh(scheduler)
    s.submit(first, 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1]
    impostor = types.SimpleNamespace(**attrs.asdict(first))
    with pytest.raises(ScheduleError, match=r"complete\(\) at 5 was given namespace\(.*which is not a Job"):
        s.complete(impostor, 5.0)
    with pytest.raises(ScheduleError, match=r"job 1 completed at nan; a time is a finite number"):
        s.complete(first, math.nan)
    s.complete(first, 5.0)  # nothing changed: the job is still running, and ends now
    s.submit(job(2, 5, 4, 1, 1), 5.0)
    assert [j.id for j in s.schedule(5.0)] == [2]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_reset_refuses_a_machine_or_a_time_that_is_not_one(scheduler: Any) -> None:
    sizes = {0: "0", -4: "-4", 2.5: "2.5", True: "True", "4": "'4'", None: "None"}
    for size, shown in sizes.items():
        with pytest.raises(
            ScheduleError, match=rf"reset\(\) was given a machine of {re.escape(shown)} processors"
        ):
            scheduler.copy().reset(size, 0.0)
    for now, shown in {math.nan: "nan", math.inf: "inf", 2 * MAX_CLOCK: r"1.75922e\+13", "0": "'0'"}.items():
        with pytest.raises(ScheduleError, match=rf"reset\(\) at {shown}"):
            scheduler.copy().reset(4, now)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_every_call_before_reset_is_refused(scheduler: Any) -> None:
    s = scheduler.copy()
    with pytest.raises(ScheduleError, match=r"(job 1 submitted|compress\(\)) at 0 before any reset\(\)"):
        s.submit(job(1, 0, 1, 1, 1), 0.0)
    with pytest.raises(ScheduleError, match=r"(schedule|start|start_due)\(\) at 0 before any reset\(\)"):
        s.schedule(0.0)


# -- 3. subclasses inherit the door; a scheduler from scratch has the same one -------------------------------


def test_the_door_of_a_scheduler_written_from_scratch_is_the_library_s() -> None:
    # The same refusals, word for word after the name, as a built-in scheduler's.
    for given, now, _ in SUBMITS.values():
        texts = []
        for s in (fresh(FromScratch()), fresh(EASY())):
            with pytest.raises(ScheduleError) as info:
                s.submit(given, now)
            texts.append(str(info.value).split(": ", 1)[1])
        assert texts[0] == texts[1]
    result = simulate(make((0, 2, 5, 5), (0, 4, 5, 5), (1, 2, 3, 3), size=4), FromScratch())
    assert result.start.tolist() == [0.0, 5.0, 10.0]


def test_the_public_steps_of_the_bases_check_the_time() -> None:
    # A subclass that decides in its own schedule() inherits the door through start(), start_due()
    # and compress().
    for s, step in ((fresh(FirstFit()), "start"), (fresh(CompressAtArrivals()), "start_due")):
        s.schedule(10.0)
        with pytest.raises(ScheduleError, match=rf"{step}\(\) at 5, before a call at 10"):
            s.schedule(5.0)
    s = fresh(CompressAtArrivals())
    s.schedule(10.0)
    with pytest.raises(ScheduleError, match=r"compress\(\) at 5, before a call at 10"):
        s.compress(5.0)


# -- 4. the planning window's wake-ups -----------------------------------------------------------------------


def test_a_job_asks_for_the_instant_its_fit_comes_within_the_window() -> None:
    # ``start - window`` is here one float too early: ``(s - w) + w < s``. Before, the job found itself
    # out of reach at that instant, asked for the same instant again (no decision at all) and waited
    # unreserved until job 3 arrived and took its place: job 2 started at s + 50 instead of s.
    s, w = 141593.25026201658, 5593.26235832613
    assert s - w + w < s
    jobs = [job(1, 0, 2, s, s), job(2, 0, 2, 100, 100), job(3, s - w + 1, 1, 50, 50)]
    for scheduler in (Conservative(planning_window=w), PC(planning_window=w), DC(planning_window=w)):
        result = simulate(
            make(*[(j.submit, j.processors, j.runtime, j.estimate) for j in jobs], size=2), scheduler
        )
        assert result.start.tolist() == [0.0, s, s + 100], scheduler.name
    result = simulate(
        make(*[(j.submit, j.processors, j.runtime, j.estimate) for j in jobs], size=2),
        EASY(planning_window=w),
    )
    assert result.start.tolist()[1] == s


# -- 5. the guard: a resubmitted id, a raising priority ------------------------------------------------------


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_guard_refuses_an_id_submitted_again_after_it_ended(scheduler: Any) -> None:
    # Before: the job started twice, guarded or not (a scheduler forgets ended jobs; so did the guard).
    first = job(1, 0, 2, 10, 10)
    s = guarded(scheduler.copy())
    s.reset(4, 0.0)
    s.submit(first, 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1]
    s.complete(first, 10.0)
    s.schedule(10.0)
    with pytest.raises(
        ScheduleError, match=r"\(guarded\): job 1 submitted at 20 after it ended at 10; a job id"
    ):
        s.submit(attrs.evolve(first, submit=20.0), 20.0)
    with pytest.raises(ScheduleError, match=r"job 1 completed at 20 but was not running: it ended at 10"):
        s.complete(first, 20.0)


class Raising:
    """A priority that raises for job 2: at once, or only from ``after`` on (then time-dependent)."""

    def __init__(self, error: type[Exception], after: float = -math.inf) -> None:
        self.error, self.after = error, after
        if after == -math.inf:
            self.depends_on_time = False

    def __call__(self, job: Job, now: float) -> float:
        if job.id == 2 and now >= self.after:
            raise self.error("no key for job 2")
        return job.submit

    def __repr__(self) -> str:
        return "raising"


def boom(job: Job, now: float) -> float:
    if job.id == 2:
        raise TypeError("boom")
    return 0.0


boom.depends_on_time = False  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "entry", [pytest.param(e, id=e.name) for e in SCHEDULERS_REGISTRY if e.takes_priority]
)
@pytest.mark.parametrize("error", [ValueError, TypeError])
def test_the_guard_names_a_priority_that_raises_in_any_call(entry: Any, error: type[Exception]) -> None:
    # Before: guarded DC (and every scheduler keying at submission) let the priority's own
    # ValueError/TypeError out raw, naming neither the priority nor the job.
    cases: list[tuple[Any, list[tuple[str, Any, float]], str]] = [
        # A static priority is keyed when the job arrives.
        (Raising(error), [("submit", job(1, 0, 4, 10, 10), 0.0), ("submit", job(2, 0, 2, 5, 5), 0.0)], "0"),
        # A function, keyed at arrival.
        (boom, [("submit", job(1, 0, 4, 10, 10), 0.0), ("submit", job(2, 0, 2, 5, 5), 0.0)], "0"),
        # A time-dependent one that starts failing later, in whichever call keys the queue then.
        (
            Raising(error, after=3.0),
            [
                ("submit", job(1, 0, 4, 10, 10), 0.0),
                ("submit", job(2, 0, 2, 5, 5), 0.0),
                ("schedule", None, 0.0),
                ("submit", job(3, 3, 1, 5, 5), 3.0),
                ("schedule", None, 3.0),
            ],
            "3",
        ),
    ]
    for priority, calls, at in cases:
        s = guarded(entry.build(priority))
        s.reset(4, 0.0)
        with pytest.raises(ScheduleError) as info:
            drive(s, calls)
        name = "boom" if priority is boom else "raising"
        assert re.search(
            rf"\(guarded\): priority {name} raised \w+Error\('.*'\) for job 2 at {at}$", str(info.value)
        )
        assert isinstance(info.value.__cause__, ValueError | TypeError)


class FailingUsage(RecentUsage):
    """A stateful priority whose completion hook raises."""

    def completed(self, job: Job, now: float) -> None:
        raise ValueError(f"cannot book job {job.id}")

    def copy(self) -> FailingUsage:
        other = FailingUsage(self.half_life)
        other._usage, other._started = self._usage.copy(), self._started.copy()
        return other


def test_the_guard_names_a_stateful_priority_that_raises_in_its_hooks() -> None:
    for scheduler in (EASY(FailingUsage(60.0)), PC(FailingUsage(60.0)), Selective(2.0, FailingUsage(60.0))):
        s = guarded(scheduler)
        s.reset(4, 0.0)
        first = job(1, 0, 2, 5, 5)
        s.submit(first, 0.0)
        s.schedule(0.0)
        with pytest.raises(
            ScheduleError, match=r"priority .* raised ValueError\('cannot book job 1'\) for job 1 at 5"
        ) as info:
            s.complete(first, 5.0)
        assert isinstance(info.value.__cause__, ValueError)


def test_the_guard_lets_other_errors_through_unchanged() -> None:
    class Broken(FCFS):
        def schedule(self, now: float) -> list[Job]:
            raise KeyError("lost track")

    s = guarded(Broken())
    s.reset(4, 0.0)
    s.submit(job(1, 0, 1, 1, 1), 0.0)
    with pytest.raises(KeyError, match="lost track"):
        s.schedule(0.0)


# -- 6. "not queued": has not arrived, or already started ----------------------------------------------------


class Restarts(FCFS):
    """Returns, besides its own decision, a job of its choosing: ``mode`` says which."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.seen: list[Job] = []

    def schedule(self, now: float) -> list[Job]:
        started = super().schedule(now)
        extra = []
        if self.mode == "unknown" and now > 0:
            extra = [job(99, 0, 1, 1, 1)]
        elif self.mode == "running" and started:
            extra = [started[0]]
        elif self.mode == "ended" and now >= 20 and self.seen:
            extra = [self.seen[0]]
        self.seen += started
        return started + extra

    def copy(self) -> Restarts:
        other = Restarts(self.mode)
        self._copy_into(other)
        return other


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("unknown", r"started job 99 at 1, which has not arrived \(it was never submitted\)"),
        ("running", r"started job 1 at 0, which already started and is running"),
        ("ended", r"started job 1 at 20, which already started and has ended"),
    ],
)
def test_a_start_that_is_not_of_a_queued_job_says_which_it_is(mode: str, message: str) -> None:
    # Before: "started job N at T, which is not queued" for all three.
    w = make((0, 1, 10, 10), (1, 1, 1, 1), (20, 1, 1, 1), size=4)
    with pytest.raises(ScheduleError, match=message):
        simulate(w, Restarts(mode))
    guard_message = message.replace("started and is running", r"started \(it is running\)")
    guard_message = guard_message.replace("started and has ended", r"started \(it ended at 10\)")
    with pytest.raises(ScheduleError, match=r"\(guarded\): " + guard_message):
        simulate(w, guarded(Restarts(mode)))


def test_queue_scheduler_start_says_which_it_is() -> None:
    class Keeps(QueueScheduler):
        """Starts what it is given in ``self.entries`` (kept from an earlier decision, or made up)."""

        entries: tuple[Any, ...] = ()

        def schedule(self, now: float) -> list[Job]:
            return self.start(self.entries, now)

    s = Keeps()
    s.reset(4, 0.0)
    first = job(1, 0, 1, 5, 5)
    s.submit(first, 0.0)
    entries = tuple(s.ordered(0.0))
    s.entries = entries
    assert [j.id for j in s.schedule(0.0)] == [1]
    with pytest.raises(ScheduleError, match=r"cannot start job 1 at 0: it already started and is running"):
        s.schedule(0.0)
    s.complete(first, 5.0)
    with pytest.raises(ScheduleError, match=r"cannot start job 1 at 5: it already started and has ended"):
        s.schedule(5.0)
    s.entries = ((0, 0, job(7, 0, 1, 1, 1)),)
    with pytest.raises(
        ScheduleError, match=r"cannot start job 7 at 5: it has not arrived \(it was never submitted\)"
    ):
        s.schedule(5.0)
    s.submit(job(8, 5, 1, 1, 1), 5.0)
    s.entries = (s.ordered(5.0)[0],) * 2
    with pytest.raises(
        ScheduleError, match=r"cannot start job 8 at 5: it already started earlier in this call"
    ):
        s.schedule(5.0)


# -- 7. every loop over windows or steps ends, on any finite input -------------------------------------------


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail with TimeoutError if the block runs longer than ``seconds``: a loop that never ends fails."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("decay", [0.0, 0.5, 1.0])
@pytest.mark.parametrize(
    ("window", "start", "later"),
    [
        (1e-3, 0.0, 9e11),  # 9e14 windows between two calls
        (1e-5, 9.9e11, 9.9e11 + 1.0),  # shorter than a float's spacing there: w1 + window == w1
        (1e-300, 0.0, 5.0),  # so short that (now - origin) / window is infinite
    ],
)
def test_relshare_ends_however_many_windows_pass(
    window: float, start: float, later: float, decay: float
) -> None:
    # Before: RelShare crossed the windows one at a time, for ever when w1 + window == w1.
    s = RelShare(window=window, decay=decay)
    with deadline(30):
        s.reset(4, start)
        length = later - start + 100.0  # still running at ``later``
        first = Job(id=1, submit=start, processors=2, runtime=length, estimate=length, user=1)
        s.submit(first, start)
        assert [j.id for j in s.schedule(start)] == [1]
        s.submit(Job(id=2, submit=later, processors=4, runtime=5.0, estimate=5.0, user=2), later)
        s.submit(Job(id=3, submit=later, processors=2, runtime=5.0, estimate=5.0, user=1), later)
        started = [j.id for j in s.schedule(later)]
    assert started == [3]
    assert all(math.isfinite(s.entitled(owner)) for owner in (1, 2))
    assert math.isfinite(s.usage(1, later))
    assert s._w0 <= later < s._w1


@pytest.mark.parametrize("decay", [0.0, 0.3, 1.0])
def test_relshare_skips_many_windows_as_it_would_cross_them(decay: float, monkeypatch: Any) -> None:
    # The windows crossed at once give the values the windows crossed one by one give.
    def run() -> tuple[list[float], list[float], float]:
        s = RelShare(window=10.0, decay=decay)
        s.reset(8, 0.0)
        jobs = [
            Job(id=1, submit=0.0, processors=3, runtime=1e5, estimate=2e5, user=1),
            Job(id=2, submit=0.0, processors=2, runtime=5e4, estimate=5e4, user=2),
            Job(id=3, submit=0.0, processors=8, runtime=5.0, estimate=5.0, user=3),
        ]
        for j in jobs:
            s.submit(j, 0.0)
        s.schedule(0.0)
        s.complete(jobs[1], 5e4)
        s.schedule(5e4)
        s.submit(Job(id=4, submit=9.5e4 + 3, processors=1, runtime=5.0, estimate=5.0, user=2), 9.5e4 + 3)
        s.schedule(9.5e4 + 3)
        owners = (1, 2, 3)
        return [s.entitled(o) for o in owners], [s.usage(o, 9.5e4 + 3) for o in owners], s._w0

    crossed = run()
    monkeypatch.setattr(relshare, "_STEPPED_WINDOWS", 10**9)
    stepped = run()
    assert crossed[2] == stepped[2] == 9.5e4
    for a, b in zip(crossed[0] + crossed[1], stepped[0] + stepped[1], strict=True):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-6)


def near_max_time() -> list[Any]:
    """Every registered scheduler, and the ones with windows or thresholds at their extremes."""
    tiny = 1e-6
    return [
        *registered_schedulers(),
        RelShare(window=tiny),
        RelShare(window=tiny, decay=0.5, planning_window=tiny),
        EASY(planning_window=tiny),
        EASY(depth=None, planning_window=tiny, max_tested=1),
        Conservative(planning_window=tiny),
        PC(planning_window=tiny),
        DC(planning_window=tiny),
        Selective(1e300),
        Selective(1.0 + 1e-15, planning_window=tiny),
        planning(EASY(), resolution=tiny),
        planning(Conservative(), predictor=exact_runtime, correction="steps", resolution=tiny),
    ]


@pytest.mark.parametrize("scheduler", named(near_max_time()))
def test_every_scheduler_ends_with_times_near_max_time(scheduler: Any) -> None:
    # A job at 0, then jobs just below MAX_TIME, where a float's spacing is about 1e-4 s: the windows
    # above are shorter than that, and 1e12 seconds of them lie between the first job and the rest.
    top = MAX_TIME - 1000.0
    specs = [(0.0, 2, 5.0, 10.0)] + [(top + 7.0 * i, 1 + i % 4, 3.0 + i, 4.0 + 2 * i) for i in range(12)]
    w = make(*specs, size=4)
    with deadline(60):
        result = simulate(w, scheduler.copy())
    validate_schedule(result)
    assert not any(math.isnan(t) for t in result.start.tolist())


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_run_whose_clock_passes_max_time_is_simulated_and_one_past_max_clock_is_refused(
    scheduler: Any,
) -> None:
    # Jobs carry times up to MAX_TIME, but the clock goes on while they wait and run: three jobs of
    # MAX_TIME seconds, each as wide as the machine, end at 1e12, 2e12 and 3e12. Before, every
    # completion after MAX_TIME was refused at the door (found by the slow SWF fuzzing).
    longest = [(0.0, 4, MAX_TIME, MAX_TIME)] * 3
    result = simulate(make(*longest, size=4), scheduler.copy())
    validate_schedule(result)
    assert sorted(result.end.tolist()) == [MAX_TIME, 2 * MAX_TIME, 3 * MAX_TIME]
    # Nine of them would end at 9e12, past 2**43 s, where a float no longer resolves a millisecond:
    # refused at the first call after MAX_CLOCK, naming the job and the time, not computed coarsely.
    with pytest.raises(ScheduleError, match=r"job \d+ completed at 9e\+12, after MAX_CLOCK \(2\*\*43 s\)"):
        simulate(make(*longest * 3, size=4), scheduler.copy())


@pytest.mark.parametrize("scheduler", named([PC(planning_window=600.0), DC(planning_window=600.0)]))
def test_a_reserved_job_submitted_again_is_named_even_out_of_the_window_s_reach(scheduler: Any) -> None:
    # Job 2 holds a guarantee at 500; submitted again, its fit (at 1500) is out of the window's reach.
    # Before, PC and DC put it among the unreserved jobs too, silently: it would have run twice.
    s = fresh(scheduler)
    s.submit(job(1, 0, 4, 500, 500), 0.0)
    s.submit(job(2, 0, 4, 1000, 1000), 0.0)
    assert [j.id for j in s.schedule(0.0)] == [1]
    assert dict(s.reservations()) == {2: 500.0}
    with pytest.raises(ScheduleError, match=r"job 2 submitted at 0 while already queued"):
        s.submit(job(2, 0, 4, 1000, 1000), 0.0)


@pytest.mark.parametrize("origin", [math.nan, math.inf, 2 * MAX_TIME, "0", True])
def test_relshare_refuses_an_origin_that_is_not_a_time(origin: Any) -> None:
    # Before: taken, and reset() then raised a bare ValueError from math.floor (or looped).
    with pytest.raises(ParameterError, match=r"origin must be a number of seconds within"):
        RelShare(origin=origin)
