"""A guard for hosts: a scheduler wrapper that checks, at every call, the duties the protocol gives a driver.

The schedulers check what they can in O(1), always: the door of :mod:`backfill.schedulers.machinery.door`
(times, widths, estimates, submit times), a job submitted twice, a job completed that was not
running or after its start + estimate. What needs a record of the whole run is checked here, at a
cost: wrap a scheduler with :func:`guarded` while you write or debug a host simulator, or in its
tests, and every mistake raises :class:`~backfill.ScheduleError` naming the job and the time, at the
call that made it, instead of a silently different schedule.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

import attrs

from backfill.errors import JobError, ScheduleError
from backfill.schedulers.machinery.priorities import priority_name
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.workloads.amounts import Amounts
from backfill.workloads.limits import MAX_CLOCK
from backfill.workloads.resources import Resource, capacities, requests
from backfill.workloads.workload import Job

__all__ = ["GuardedScheduler", "guarded"]


def _has_nan(key: Any) -> bool:
    """Whether a sort key is NaN or holds one (NaN compares false both ways, so sorting is undefined)."""
    if isinstance(key, tuple | list):
        return any(_has_nan(part) for part in key)
    try:
        return bool(key != key)
    except Exception:
        return False


@attrs.define(eq=False)
class GuardedScheduler:
    """A scheduler that checks its host's calls and its own answers; see :func:`guarded`.

    Everything not part of the protocol (``events_examined``, ``take_reservation_changes``, ...) is
    passed through to the wrapped scheduler.

    Attributes:
        scheduler: The scheduler being guarded.
    """

    scheduler: Scheduler
    _size: int = attrs.field(init=False, default=0)
    _now: float = attrs.field(init=False, default=-math.inf)
    # The latest instant with a notification and no schedule() after it, and what happened then.
    _pending: float | None = attrs.field(init=False, default=None)
    _pending_what: str = attrs.field(init=False, default="")
    _queued: dict[int, Job] = attrs.field(init=False, factory=dict)
    _running: dict[int, tuple[float, Job]] = attrs.field(init=False, factory=dict)
    _ends: list[tuple[float, int]] = attrs.field(init=False, factory=list)
    _used: int = attrs.field(init=False, default=0)
    # With resources: the machine's capacities, what running jobs hold, and each running job's amounts.
    _capacity: Amounts | None = attrs.field(init=False, default=None)
    _held: Amounts | None = attrs.field(init=False, default=None)
    _amounts: dict[int, Amounts] = attrs.field(init=False, factory=dict)
    # Every job that ended in this run, by id, with its end: an id is submitted once per run.
    _ended: dict[int, float] = attrs.field(init=False, factory=dict)

    @property
    def name(self) -> str:
        """The wrapped scheduler's name: a guarded run is the same run."""
        return scheduler_name(self.scheduler)

    @property
    def resources(self) -> tuple[Resource, ...]:
        """The wrapped scheduler's resources besides processors (none if it plans processors alone)."""
        return tuple(getattr(self.scheduler, "resources", ()))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.scheduler, name)

    def _fail(self, message: str) -> ScheduleError:
        return ScheduleError(f"{self.name} (guarded): {message}")

    def _clock(self, now: float, what: str, *, deciding: bool = False) -> None:
        """Check the host's time and the duties that fall due as it passes."""
        if self._size < 1:  # before the first reset, which sets the machine (and is checked first)
            raise self._fail(
                f"{what} at {now!r}: reset() not called; a host calls reset(machine_size, now) "
                "before any other call"
            )
        if not isinstance(now, int | float) or math.isnan(now):
            raise self._fail(f"{what}: the time {now!r} is not a number")
        if not -math.inf < now <= MAX_CLOCK:
            raise self._fail(f"{what}: the time {now!r} is not a finite number of seconds up to 2**43")
        if now < self._now:
            raise self._fail(f"time went backwards: {what} at {now:g}, after a call at {self._now:g}")
        if self._pending is not None and now > self._pending:
            raise self._fail(
                f"schedule() was not called at {self._pending:g}, an instant with events "
                f"({self._pending_what}); the next call is {what} at {now:g}"
            )
        ends = self._ends
        while ends and (ends[0][0] < now or (deciding and ends[0][0] == now)):
            end, job_id = ends[0]
            if job_id in self._running and self._running[job_id][0] == end:
                raise self._fail(
                    f"job {job_id} is still running at {now:g} ({what}), past its start + estimate "
                    f"({end:g}), when its processors count as free; the host must complete it by then, "
                    "ending it or raising its estimate before submitting it"
                )
            heapq.heappop(ends)
        self._now = now

    def _note(self, now: float, what: str) -> None:
        if self._pending is None:
            self._pending, self._pending_what = now, what
        elif len(self._pending_what) < 200:
            self._pending_what += f", {what}"

    def reset(self, machine_size: int, now: float) -> None:
        """Reset the wrapped scheduler and the guard's own record."""
        if not isinstance(machine_size, int) or machine_size < 1:
            raise self._fail(f"reset: machine_size must be a positive int, got {machine_size!r}")
        self._call(now, None, self.scheduler.reset, machine_size, now)
        self._size = machine_size
        self._now = -math.inf
        self._clock(now, "reset")
        self._pending = None
        self._queued, self._running, self._ends, self._used = {}, {}, [], 0
        self._ended = {}
        resources = self.resources
        self._capacity = capacities(machine_size, resources) if resources else None
        self._held = None if self._capacity is None else self._capacity - self._capacity
        self._amounts = {}

    def submit(self, job: Job, now: float) -> None:
        """Check the arrival (once, fits the machine, a known estimate, not early), then pass it on."""
        if not isinstance(job, Job):
            raise self._fail(f"submit() at {now!r} was given {job!r}, which is not a Job")
        self._clock(now, f"submit(job {job.id})")
        if job.id in self._queued or job.id in self._running:
            state = "queued" if job.id in self._queued else "running"
            raise self._fail(f"job {job.id} submitted at {now:g} while already {state}")
        if job.id in self._ended:
            raise self._fail(
                f"job {job.id} submitted at {now:g} after it ended at {self._ended[job.id]:g}; a job id is "
                "submitted once per run"
            )
        if not 0 < job.processors <= self._size:
            raise self._fail(
                f"job {job.id} submitted at {now:g} needs {job.processors} processors on a "
                f"{self._size}-processor machine; a host leaves such jobs out"
            )
        if self._capacity is not None:
            self._check_amounts(job, now)
        if not 0 <= job.estimate < math.inf:
            raise self._fail(f"job {job.id} submitted at {now:g} with estimate {job.estimate!r}")
        if job.submit > now:
            raise self._fail(f"job {job.id} submitted at {now:g}, before its submit time {job.submit:g}")
        self._call(now, job, self.scheduler.submit, job, now)
        self._queued[job.id] = job
        self._note(now, f"job {job.id} arrived")

    def complete(self, job: Job, now: float) -> None:
        """Check that the job was running and ends by its start + estimate, then pass it on."""
        if not isinstance(job, Job):
            raise self._fail(f"complete() at {now!r} was given {job!r}, which is not a Job")
        self._clock(now, f"complete(job {job.id})")
        record = self._running.get(job.id)
        if record is None:
            if job.id in self._queued:
                state = "queued, never started"
            elif job.id in self._ended:
                state = f"not running: it ended at {self._ended[job.id]:g}"
            else:
                state = "not started"
            raise self._fail(f"job {job.id} completed at {now:g} but was {state}")
        self._call(now, job, self.scheduler.complete, job, now)
        del self._running[job.id]
        self._ended[job.id] = now
        if record[1].estimate > 0:
            self._used -= record[1].processors
            if self._held is not None:
                self._held -= self._amounts[job.id]
        self._amounts.pop(job.id, None)
        self._note(now, f"job {job.id} ended")

    def schedule(self, now: float) -> Sequence[Job]:
        """Check the instant and the queue's priority keys, decide, and check what starts."""
        self._clock(now, "schedule()", deciding=True)
        self._check_keys(now)
        started: Sequence[Job] = self._call(now, None, self.scheduler.schedule, now)
        for job in started:
            if not isinstance(job, Job):
                raise self._fail(f"schedule() at {now:g} returned {job!r}, not a Job")
            if self._queued.pop(job.id, None) is None:
                if job.id in self._running:
                    state = "already started (it is running)"
                elif job.id in self._ended:
                    state = f"already started (it ended at {self._ended[job.id]:g})"
                else:
                    state = "has not arrived (it was never submitted)"
                raise self._fail(f"started job {job.id} at {now:g}, which {state}")
            end = now + job.estimate
            if job.estimate > 0:
                self._used += job.processors
                if self._used > self._size:
                    raise self._fail(
                        f"started job {job.id} at {now:g}: {self._used} processors in use on a "
                        f"{self._size}-processor machine"
                    )
                if self._held is not None:
                    self._hold(job, now)
            self._running[job.id] = (end, job)
            heapq.heappush(self._ends, (end, job.id))
        self._pending = None
        return started

    def _check_amounts(self, job: Job, now: float) -> None:
        """Refuse a job asking more of some resource than the machine has (a host leaves it out)."""
        capacity = self._capacity
        assert capacity is not None
        try:
            amounts = requests(job, self.resources)
        except JobError as error:
            raise self._fail(f"{error} (submitted at {now:g})") from None
        names = ["processors", *(r.name for r in self.resources)]
        for name, a, c in zip(names[1:], amounts[1:], capacity[1:], strict=True):
            if a > c:
                raise self._fail(
                    f"job {job.id} submitted at {now:g} needs {a} {name} on a machine with {c}; "
                    "a host leaves such jobs out"
                )
        self._amounts[job.id] = amounts

    def _hold(self, job: Job, now: float) -> None:
        """Count a started job's amounts as held; refuse a start that exceeds some resource."""
        held = self._held
        capacity = self._capacity
        assert held is not None and capacity is not None
        held = self._held = held + self._amounts[job.id]
        for name, h, c in zip([r.name for r in self.resources], held[1:], capacity[1:], strict=True):
            if h > c:
                raise self._fail(f"started job {job.id} at {now:g}: {h} {name} in use on a machine with {c}")

    def _call(self, now: float, job: Job | None, method: Callable[..., Any], *args: Any) -> Any:
        """Call the wrapped scheduler; an exception its priority raised becomes a ScheduleError naming it."""
        try:
            return method(*args)
        except ScheduleError:
            raise
        except Exception as error:
            blamed = self._priority_error(error, now, job)
            if blamed is None:
                raise
            raise blamed from error

    def _priority_error(self, error: Exception, now: float, job: Job | None) -> ScheduleError | None:
        """The error naming the priority, if ``error`` came from it, and the job it was keying; else None.

        The priority raised it if a frame of the traceback runs the priority's code (a function, a
        :func:`functools.partial` of one, or a method of a priority object, such as a
        :class:`~backfill.schedulers.machinery.priorities.StatefulPriority`'s hooks); the job is the one that
        frame was given. A priority without Python code (a builtin) is found by keying the job and
        the queued jobs again: the one whose key raises is named.
        """
        inner = self.scheduler
        priority = getattr(inner, "priority", None)
        if not callable(priority):
            return None
        # The priority given, and the scheduler's own copy of a stateful one.
        owners = [p for p in (priority, getattr(inner, "_key", None)) if callable(p)]
        codes: set[Any] = set()
        objects: set[int] = set()
        for p in owners:
            objects.add(id(p))
            while isinstance(p, functools.partial):
                p = p.func
            code = getattr(p, "__code__", None) or getattr(getattr(p, "__func__", None), "__code__", None)
            if code is not None:
                codes.add(code)
        name = priority_name(priority)
        tb = error.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code in codes or id(frame.f_locals.get("self")) in objects:
                code = frame.f_code
                given = [frame.f_locals.get(arg) for arg in code.co_varnames[: code.co_argcount]]
                keyed = next((value for value in given if isinstance(value, Job)), job)
                return self._priority_failure(name, error, keyed, now)
            tb = tb.tb_next
        key = getattr(inner, "key", None) or priority
        for other in ([job] if job is not None else []) + list(self._queued.values()):
            try:
                key(other, now)
            except Exception:
                return self._priority_failure(name, error, other, now)
        return None

    def _priority_failure(self, name: str, error: Exception, job: Job | None, now: float) -> ScheduleError:
        whom = f"job {job.id}" if job is not None else "no job"
        return self._fail(f"priority {name} raised {error!r} for {whom} at {now:g}")

    def _check_keys(self, now: float) -> None:
        """Raise if the priority gives a queued job a NaN or incomparable key, or two different keys."""
        inner = self.scheduler
        priority = getattr(inner, "priority", None)
        key = getattr(inner, "key", None) or priority
        if not callable(key) or not self._queued:
            return
        name = priority_name(priority if callable(priority) else key)
        keyed: list[tuple[Any, Job]] = []
        for job in self._queued.values():
            try:
                first, second = key(job, now), key(job, now)
            except Exception as error:
                raise self._fail(f"priority {name} raised {error!r} for job {job.id} at {now:g}") from error
            if _has_nan(first):
                raise self._fail(
                    f"priority {name} gave job {job.id} the key {first!r} at {now:g}: NaN compares false "
                    "both ways, so the queue order would be undefined"
                )
            try:
                same = bool(first == second) and not first < second and not second < first
            except TypeError as error:
                raise self._fail(
                    f"priority {name} gave job {job.id} the key {first!r} at {now:g}, which cannot be "
                    f"compared ({error})"
                ) from None
            if not same:
                raise self._fail(
                    f"priority {name} is not a pure function of (job, now): job {job.id} got {first!r}, "
                    f"then {second!r} at {now:g}; a priority that keeps history is a StatefulPriority"
                )
            keyed.append((first, job))
        try:
            sorted(k for k, _ in keyed)
        except TypeError:
            base, base_job = keyed[0]
            for k, job in keyed[1:]:
                try:
                    _ = base < k, k < base
                except TypeError as error:
                    raise self._fail(
                        f"priority {name}: the keys of job {base_job.id} ({base!r}) and job {job.id} "
                        f"({k!r}) cannot be compared at {now:g} ({error})"
                    ) from None
            raise self._fail(
                f"priority {name}: the keys of the queued jobs cannot be sorted at {now:g}"
            ) from None

    def next_wakeup(self) -> float | None:
        """The wrapped scheduler's wake-up, checked to be a number."""
        wake = self.scheduler.next_wakeup()
        if wake is not None and (not isinstance(wake, int | float) or math.isnan(wake)):
            raise self._fail(f"next_wakeup() returned {wake!r} at {self._now:g}")
        return wake

    def reservations(self) -> Mapping[int, float]:
        """The wrapped scheduler's reservations."""
        return self.scheduler.reservations()

    def copy(self) -> Self:
        """Return a guarded copy of the wrapped scheduler, with the guard's record copied too."""
        other = type(self)(self.scheduler.copy())
        other._size, other._now = self._size, self._now
        other._pending, other._pending_what = self._pending, self._pending_what
        other._queued, other._running = self._queued.copy(), self._running.copy()
        other._ends, other._used = self._ends.copy(), self._used
        other._ended = self._ended.copy()
        other._capacity, other._held, other._amounts = self._capacity, self._held, self._amounts.copy()
        return other


def guarded(scheduler: Scheduler) -> GuardedScheduler:
    """Wrap a scheduler so that every mistake of its host raises :class:`~backfill.ScheduleError`.

    Checked at every call, each error naming the job and the time:

    * ``reset(machine_size, now)`` comes before any other call ("reset() not called");
    * time never goes backwards, and is a finite number up to ``MAX_CLOCK``;
    * ``schedule(now)`` is called at every instant that had a ``submit`` or ``complete``, before any
      later call;
    * a job is a :class:`~backfill.Job`, submitted once in a run (an id submitted again after it
      ended is refused: the scheduler has forgotten it, and would start it twice), fits the machine,
      has a finite estimate ``>= 0``, and is not submitted before its submit time;
    * a job completed was started, and no started job is still running past its start + estimate
      (where the scheduler counts its processors free): a host must end it by then or raise its
      estimate before submitting it;
    * the scheduler starts only jobs that have arrived and not started yet, never more processors
      than the machine has, nor more of a resource besides processors (the wrapped scheduler's
      ``resources``) than its capacity; a job asking more of one than the machine has is refused
      at submission, as a job too wide is;
    * the priority (a scheduler's ``key`` or ``priority``) gives every queued job a key that is not
      NaN, compares with the others, and is the same when asked twice (a pure function); and an
      exception the priority raises inside any of the scheduler's calls (keying a job at
      submission, re-keying the queue, a stateful priority's hooks) becomes a ScheduleError naming
      the priority, the job and the time, chained from the original.

    The checks cost O(q log q) per decision for q queued jobs (each key is computed twice) and keep
    every ended job's id, so the guard is for writing and testing hosts, not for long runs.
    ``backfill.simulate`` passes them all. The scheduler's own door
    (:mod:`backfill.schedulers.machinery.door`) checks what it can in O(1) whether guarded or not.

    Examples:
        >>> from backfill import EASY, Job
        >>> s = guarded(EASY())
        >>> s.reset(4, now=0.0)
        >>> s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), now=0.0)
        >>> s.submit(Job(id=2, submit=1.0, processors=4, runtime=5.0, estimate=5.0), now=1.0)
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: EASY(fcfs) (guarded): schedule() was not called at 0, an instant ...
    """
    if isinstance(scheduler, GuardedScheduler):
        return scheduler
    return GuardedScheduler(scheduler)
