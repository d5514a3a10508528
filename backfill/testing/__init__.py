"""Property tests for schedulers, yours or ours: random workloads and checkers that trust no scheduler.

This module needs `hypothesis <https://hypothesis.readthedocs.io>`_, which comes with the ``test``
extra (``pip install ".[test]"``); ``import backfill`` never imports it.

The usual test of a scheduler of your own, anything satisfying :class:`~backfill.Scheduler`::

    from hypothesis import given
    from backfill.testing import check_scheduler, workloads

    @given(workloads())
    def test_my_scheduler(workload):
        check_scheduler(MyScheduler(), workload, guarantees=False)

:func:`workloads` draws small workloads built to reach the corner cases (bursts of simultaneous
arrivals and completions, inaccurate estimates, jobs as wide as the machine, jobs of zero runtime),
cheaply enough that hypothesis's health checks pass with its default settings; hypothesis prints a
failing one as a table of its jobs. :func:`check_scheduler` simulates one and applies the checkers:
:func:`check_feasible` (capacity and accounting), and :func:`check_guarantees` (reservations never
withdrawn nor moved later) or :func:`check_holds` (reservations that may be withdrawn, as EASY's
head). It also forks the simulation mid-run and checks that each copy of the scheduler continues
exactly as the original (the same later starts and reservation changes), as
:func:`~backfill.fair_start_times` and what-if runs need. Every failure is a
:class:`~backfill.ScheduleError` naming the scheduler and the jobs at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
from hypothesis import strategies as st

from backfill.errors import BackfillError, ParameterError, ScheduleError
from backfill.measures.validation import check_reservations, same_schedule, validate_schedule
from backfill.schedule import Schedule
from backfill.schedulers.machinery.guard import guarded
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.simulator import OverrunPolicy, Simulator
from backfill.testing._nodes import mixed_request, node_machines
from backfill.testing._replay import LogReplay, check_fork, take_forks
from backfill.workloads.resources import Resource, check_resources, memory_request
from backfill.workloads.workload import JOB_DTYPE, Job, Workload

__all__ = [
    "check_feasible",
    "check_guarantees",
    "check_holds",
    "check_scheduler",
    "gpu_request",
    "guarded",
    "mixed_request",
    "node_machines",
    "same_schedule",
    "workloads",
]

_PROTOCOL = ("reset", "submit", "complete", "schedule", "next_wakeup", "reservations", "copy")


# Built once: a strategy object made inside the loop below is validated again for every job, which
# made drawing a workload several times slower (and tripped hypothesis's too_slow health check).
_SIZES = st.integers(1, 16)
_SUBMITS = st.integers(0, 60)
_EXTRAS = st.integers(0, 60)
_COINS = st.booleans()
# Every SWF field a drawn job leaves unknown (-1, status 1), as a Job has them by default.
_BLANK = np.array(
    [Job(id=1, submit=0.0, processors=1, runtime=0.0, estimate=0.0).swf_fields()], dtype=JOB_DTYPE
)


def gpu_request(job: Job) -> int:
    """GPUs a job holds, read from SWF field 14 (executable), where :func:`workloads` draws them.

    The Standard Workload Format has no field for GPUs; the executable number is one no scheduler
    reads, so the kit keeps a drawn job's GPUs there (-1, unknown, is none). A resource to test with:
    ``Resource("gpus", 4, gpu_request)``.

    Examples:
        >>> gpu_request(Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0, executable=2))
        2
    """
    return max(job.executable, 0)


#: The field :func:`workloads` draws each kind of resource into: the one its request function reads.
_DRAWN_FIELDS: dict[Callable[[Job], int], str] = {
    memory_request: "requested_memory",
    gpu_request: "executable",
}


def _drawn_fields(resources: Sequence[Resource]) -> list[tuple[Resource, str]]:
    """Each resource and the field its amounts are drawn into, refusing a request the kit cannot draw."""
    out = []
    for r in check_resources(resources):
        field = _DRAWN_FIELDS.get(r.request)
        if field is None:
            raise ParameterError(
                f"workloads() draws amounts only for resources requesting memory_request (SWF field 10) "
                f"or gpu_request (field 14); {r.name!r} requests {getattr(r.request, '__name__', r.request)}"
            )
        out.append((r, field))
    if len({field for _, field in out}) != len(out):
        raise ParameterError("workloads() draws one resource per request function, got two of one")
    return out


def _draw_amount(draw: st.DrawFn, resource: Resource, field: str, width: int, beyond: bool) -> int:
    """A job's value of ``field``: up to all of ``resource``'s capacity (memory: per processor).

    The whole capacity is drawn as often as every smaller amount together, so that jobs which bind
    on the resource are common; with ``beyond``, one unit more than fits (the simulator rejects it).
    """
    most = resource.capacity // width if field == "requested_memory" else resource.capacity
    most += beyond
    if most <= 0:
        return 0
    value = draw(st.integers(0, 2 * most))
    return value if value <= most else most


class _DrawnWorkload(Workload):
    """A :class:`~backfill.Workload` that hypothesis and ``repr`` print as a short table of its jobs."""

    __slots__ = ()

    def __repr__(self) -> str:
        return _describe(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints an attrs object field by field, records and all; it asks this first.
        for i, line in enumerate(_describe(self).splitlines()):
            if i:
                printer.break_()
            printer.text(line)


@st.composite
def workloads(
    draw: st.DrawFn,
    *,
    max_jobs: int = 25,
    machine_size: int | None = None,
    accurate: bool | None = None,
    overruns: bool = False,
    zero_runtimes: bool = True,
    too_wide: bool = False,
    users: int = 1,
    resources: Sequence[Resource] = (),
) -> Workload:
    """Draw a small workload with bursts of simultaneous arrivals and inaccurate estimates.

    Jobs are numbered 1, 2, ... in submit order. Submit times are whole seconds in 0..60, so with more
    than a handful of jobs many arrive at one instant, and runtimes (whole seconds in 0..40) make many
    end at one instant too. A job's width is drawn from 1 up to the machine size, with the full
    machine drawn as often as all other widths together. Hypothesis shrinks a failing workload towards
    fewer, narrower, shorter jobs, and prints it as a table of its jobs (id, submit, processors,
    runtime, estimate, user; the first 30), as ``repr`` does.

    Args:
        draw: Supplied by hypothesis; callers pass only the keyword arguments.
        max_jobs: Most jobs drawn (0..max_jobs; an empty workload is drawn too).
        machine_size: Fixed machine size, or drawn from 1..16 if None.
        accurate: True for exact estimates (estimate = runtime), False for inexact ones (estimate =
            runtime + 0..60 s), None to draw per job.
        overruns: Let an inexact estimate be below the runtime (drawn half the time), so that the
            simulator's ``overrun`` policy decides; otherwise every estimate is at least the runtime.
        zero_runtimes: Allow jobs of zero runtime, which start and end at one instant.
        too_wide: Allow jobs up to two processors wider than the machine, which the simulator rejects.
        users: With more than 1, each job's ``user`` is drawn from 0..users-1 and its ``group`` is
            ``user // 2``, for schedulers that share by owner; otherwise both are SWF's unknown, -1.
        resources: Resources besides processors to draw amounts of, each up to its capacity (the
            whole capacity as often as all smaller amounts together): memory
            (``Resource.memory``) as requested memory per processor (SWF field 10), GPUs
            (``Resource(name, capacity, gpu_request)``) in field 14. With ``too_wide``, an amount
            may exceed the capacity by one unit (per processor for memory), which the simulator
            rejects. Other request functions are refused (the kit cannot know their fields).

    Returns:
        A strategy of :class:`~backfill.Workload`.

    Raises:
        ParameterError: A resource whose request function the kit does not draw.

    Examples:
        >>> from hypothesis import given, settings
        >>> @settings(max_examples=20)
        ... @given(workloads(max_jobs=5, machine_size=4))
        ... def test_small(workload):
        ...     assert len(workload) <= 5 and workload.machine_size == 4
        ...     assert (workload.column("processors") <= 4).all()
        >>> test_small()
        >>> memory, gpus = Resource.memory(64), Resource("gpus", 2, gpu_request)
        >>> @settings(max_examples=20)
        ... @given(workloads(max_jobs=5, resources=[memory, gpus]))
        ... def test_amounts(workload):
        ...     assert all(memory.amount(j) <= 64 and gpus.amount(j) <= 2 for j in workload)
        >>> test_amounts()
    """
    drawn = _drawn_fields(resources)
    size = machine_size or draw(_SIZES)
    n = draw(st.integers(0, max_jobs))
    # Few distinct submit times, so many jobs arrive (and complete) at the same instant.
    submits = sorted(draw(st.lists(_SUBMITS, min_size=n, max_size=n)))
    widest = size + 2 * too_wide
    # One draw per width: 1..widest as drawn, and as many values again that mean the full machine, so
    # that a workload of only narrow jobs does not leave untested a head job that needs every
    # processor; shrinking still goes towards 1.
    widths = st.integers(1, 2 * widest)
    runtimes = st.integers(0 if zero_runtimes else 1, 40)
    owners = st.integers(0, users - 1)
    procs, runtime, estimate, user = [], [], [], []
    amounts: list[list[int]] = [[] for _ in drawn]
    for _ in submits:
        width = draw(widths)
        procs.append(width if width <= widest else size)
        for (resource, field), values in zip(drawn, amounts, strict=True):
            values.append(_draw_amount(draw, resource, field, procs[-1], too_wide))
        ran = draw(runtimes)
        exact = accurate if accurate is not None else draw(_COINS)
        if exact:
            planned = ran
        elif overruns and draw(_COINS):
            planned = draw(st.integers(0, ran))
        else:
            planned = ran + draw(_EXTRAS)
        runtime.append(ran)
        estimate.append(planned)
        user.append(draw(owners) if users > 1 else -1)
    # The columns straight into the record array: n Job objects would cost more than the draws.
    records = np.repeat(_BLANK, n)
    records["id"] = np.arange(1, n + 1)
    records["submit"] = submits
    records["processors"] = procs
    records["runtime"] = runtime
    records["estimate"] = estimate
    records["user"] = user
    records["group"] = [u // 2 if u >= 0 else -1 for u in user]
    for (_, field), values in zip(drawn, amounts, strict=True):
        records[field] = values
    return _DrawnWorkload.from_records(records, size)


def _ids(ids: np.ndarray) -> str:
    shown = ", ".join(str(int(x)) for x in ids[:5])
    return shown + (", ..." if len(ids) > 5 else "")


def _overcommitted(schedule: Schedule, amounts: np.ndarray, capacity: int) -> tuple[float, np.ndarray] | None:
    """Return the busiest instant of one resource, if it exceeds ``capacity``, and the jobs running then.

    ``amounts`` is what each row holds of the resource (its processors, or a resource's amounts).
    """
    start, end = schedule.start, schedule.end
    busy = ~np.isnan(start) & ~np.isnan(end) & (end > start)
    # Usage peaks when a job starts; the earliest of equal peaks is the one the validator reports.
    times = np.unique(start[busy])
    used = [int(amounts[busy & (start <= t) & (end > t)].sum()) for t in times]
    if not used or max(used) <= capacity:
        return None
    at = float(times[int(np.argmax(used))])
    return at, schedule.workload.column("id")[busy & (start <= at) & (end > at)]


def _culprits(schedule: Schedule, resources: Sequence[Resource]) -> tuple[float, np.ndarray] | None:
    """The busiest over-committed instant and its jobs: processors first, then each resource."""
    found = _overcommitted(schedule, schedule.processors, schedule.workload.machine_size)
    jobs = list(schedule.workload)
    for r in resources:
        if found is not None:
            break
        held = np.array(
            [r.amount(j) if s == s else 0 for j, s in zip(jobs, schedule.start.tolist(), strict=True)],
            dtype=object,
        )
        found = _overcommitted(schedule, held, r.capacity)
    return found


def check_feasible(schedule: Schedule, *, resources: Sequence[Resource] | None = None) -> None:
    """Raise :class:`~backfill.ScheduleError` unless a complete schedule is feasible and loses no job.

    Asserts everything :func:`~backfill.validate_schedule` does (every job is started exactly once or
    rejected with a reason, never both; no job starts before it is submitted; every job ends at start +
    runtime; at no instant do running jobs use more processors than the machine has, nor more of any
    resource besides processors than its capacity), and that the started and rejected jobs add up to
    the workload, so no rejection names a job that is not in it. A capacity error also names the jobs
    running at the busiest instant.

    Args:
        schedule: A finished schedule.
        resources: The resources whose capacity to check; by default those the scheduler planned
            (:attr:`~backfill.Schedule.resources`). Give them for a scheduler of your own that does
            not say which it plans.

    Examples:
        >>> from backfill import Job, Resource, Workload, simulate
        >>> from backfill.schedulers import EASY
        >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=3.0, estimate=5.0) for i in (1, 2, 3)]
        >>> check_feasible(simulate(Workload.from_jobs(jobs, machine_size=4), EASY()))
        >>> gpus = Resource("gpus", 1, lambda job: 1)
        >>> check_feasible(simulate(Workload.from_jobs(jobs, machine_size=4), EASY()), resources=[gpus])
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: EASY(fcfs): 2 gpus in use at time 0, more than its capacity 1 \
(running at 0: job ids 1, 2)
    """
    chosen = schedule.resources if resources is None else check_resources(resources)
    try:
        validate_schedule(schedule, resources=chosen)
    except ScheduleError as error:
        # Only the capacity messages lack job ids; the others name theirs already.
        found = _culprits(schedule, chosen) if " in use at time " in str(error) else None
        if found is None:
            raise
        at, ids = found
        raise ScheduleError(f"{error} (running at {at:g}: job ids {_ids(ids)})") from error
    started = int(schedule.started.sum())
    rejected = len(schedule.rejected)
    if started + rejected != len(schedule):
        unknown = sorted(set(schedule.rejected) - set(schedule.workload.column("id").tolist()))
        raise ScheduleError(
            f"{schedule.scheduler}: {started} jobs started and {rejected} rejected, but the workload has "
            f"{len(schedule)} (rejected job ids not in it: {_ids(np.asarray(unknown))})"
        )


def _log_rows(schedule: Schedule) -> np.ndarray:
    """Return the job ids of the reservation log, after checking that each is in the workload."""
    logged = np.asarray(schedule.reservations["job_id"])
    stray = np.setdiff1d(logged, schedule.workload.column("id"))
    if stray.size:
        raise ScheduleError(
            f"{schedule.scheduler}: the reservation log names jobs not in the workload (job ids "
            f"{_ids(stray)})"
        )
    return logged


def _waited(schedule: Schedule) -> np.ndarray:
    """Return the ids of the jobs that started after their submit time."""
    started = schedule.started
    late = started & (np.where(started, schedule.start, 0.0) > schedule.submit)
    return np.asarray(schedule.workload.column("id")[late])


def check_guarantees(schedule: Schedule, *, require_log: bool = True) -> None:
    """Raise :class:`~backfill.ScheduleError` unless every reservation in the log was kept.

    For schedulers that give a job a guarantee and never withdraw it (Conservative, PC, DC). Asserts,
    through :func:`~backfill.check_reservations` with ``while_held=False``, that no job ever lost its
    reservation, that each job's successive reservations never moved later, and that each job started
    no later than its first reservation.

    An empty log would pass that check vacuously, whether the scheduler gave no guarantees or the
    schedule was simulated with ``record_reservations=False``. So with ``require_log`` (the default)
    every job that waited (started after its submit time) must also have at least one reservation in
    the log. Pass ``require_log=False`` for a scheduler that guarantees only some of its jobs.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS, Conservative
        >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=3.0, estimate=5.0) for i in (1, 2)]
        >>> w = Workload.from_jobs(jobs, machine_size=2)
        >>> check_guarantees(simulate(w, Conservative()))
        >>> check_guarantees(simulate(w, FCFS()))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: FCFS(fcfs): jobs waited without any reservation in the log (job ids...
        >>> check_guarantees(simulate(w, FCFS()), require_log=False)  # FCFS promises nothing
    """
    logged = _log_rows(schedule)
    if require_log:
        unguaranteed = np.setdiff1d(_waited(schedule), logged)
        if unguaranteed.size:
            name = schedule.scheduler
            if logged.size:
                raise ScheduleError(
                    f"{name}: jobs waited without a reservation (job ids {_ids(unguaranteed)}); "
                    "a scheduler that guarantees only some jobs needs require_log=False"
                )
            raise ScheduleError(
                f"{name}: jobs waited without any reservation in the log (job ids {_ids(unguaranteed)}): "
                "the scheduler gave none, or the schedule was simulated with record_reservations=False"
            )
    check_reservations(schedule, while_held=False)


def check_holds(schedule: Schedule, *, require_log: bool = True) -> None:
    """Raise :class:`~backfill.ScheduleError` unless every reservation was kept while it was held.

    For schedulers whose reservations may be withdrawn and given again (EASY's head job, promoted
    jobs). Asserts, through :func:`~backfill.check_reservations` with ``while_held=True``, that within
    each unbroken run of a job's reservations the start never moved later, and that a job starting
    while it holds one starts no later than it.

    With ``require_log`` (the default) the log must not be empty if any job waited: such a scheduler
    reserves at least for the job at the head of its queue, so an empty log means that it reserved
    for none or that the schedule was simulated with ``record_reservations=False``.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import EASY
        >>> jobs = [Job(id=i, submit=float(i), processors=2, runtime=3.0, estimate=5.0) for i in range(4)]
        >>> check_holds(simulate(Workload.from_jobs(jobs, 3), EASY()))
        >>> unrecorded = simulate(Workload.from_jobs(jobs, 3), EASY(), record_reservations=False)
        >>> check_holds(unrecorded)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: EASY(fcfs): jobs waited but the reservation log is empty (job ids 1...
    """
    logged = _log_rows(schedule)
    if require_log and not logged.size and (waited := _waited(schedule)).size:
        raise ScheduleError(
            f"{schedule.scheduler}: jobs waited but the reservation log is empty (job ids {_ids(waited)}): "
            "the scheduler reserved for none, or the schedule was simulated with record_reservations=False"
        )
    check_reservations(schedule, while_held=True)


def check_scheduler(
    scheduler: Scheduler,
    workload: Workload,
    *,
    guarantees: bool | Literal["while_held"] = True,
    overrun: OverrunPolicy = "raise_estimate",
    require_log: bool = True,
    forks: int = 2,
    resources: Sequence[Resource] | None = None,
) -> Schedule:
    """Simulate a copy of a scheduler over a workload, check the schedule and its forks, and return it.

    The scheduler itself is left untouched: its ``copy()`` is simulated, with every reservation change
    recorded. The simulator raises :class:`~backfill.ScheduleError` as soon as the scheduler starts a
    job that has not arrived or has already started, or more processors than the machine has; then
    :func:`check_feasible` runs. Next, the reservation log must have agreed with the scheduler's
    ``reservations()`` after every instant: the log recorded so far, replayed, gives exactly what
    ``reservations()`` answers for the queued jobs. A class that declares ``logs_reservations =
    True`` but misses a :meth:`~backfill.schedulers.SchedulerBase.note_reservation` fails here,
    with a message naming the first instant and job where the two disagree. Then the guarantee
    check ``guarantees`` chooses runs.

    Last, the simulation is forked mid-run (:meth:`~backfill.Simulator.fork`, the copy that
    :func:`~backfill.fair_start_times` and what-if runs rely on) at up to ``forks`` instants, each
    right after the first instant that leaves a job waiting once a further share of the jobs has
    arrived (after a third and two thirds of them, by default). Each fork, run to the end, must start
    every later job at the same time as the original run and make the same reservation changes: a
    ``copy()`` that forgets part of the scheduler's state, or shares a mutable part of it with the
    original, fails here. Each fork costs a run of the rest of the workload.

    A failure carries a note showing the workload's jobs as a table (the first 30), which hypothesis
    prints with the shrunk failing example as well.

    Args:
        scheduler: Anything satisfying the :class:`~backfill.Scheduler` protocol.
        workload: The jobs to schedule, typically drawn from :func:`workloads`.
        guarantees: True to apply :func:`check_guarantees` (reservations given and kept), ``"while_held"``
            for :func:`check_holds` (reservations that may be withdrawn), False for no reservation check.
        overrun: The simulator's policy for jobs that run past their estimate.
        require_log: Passed to the guarantee check.
        forks: How many mid-run copies to check (0 for none).
        resources: The resources whose capacity :func:`check_feasible` checks; by default those the
            scheduler plans (its ``resources``). A scheduler with resources is checked on every one:
            capacity per resource, and its reservations held to ``guarantees`` as with processors.

    Returns:
        The checked schedule, for further assertions of your own.

    Raises:
        ScheduleError: If the scheduler lacks a method of the protocol, its ``copy()`` is not of its
            own type, or a check fails. Every failure is this one type, raised from one place (the
            original error is its ``__cause__``), so that hypothesis reports a scheduler that fails
            in several ways as one failure rather than an exception group.
        BackfillError: If ``guarantees`` is not True, False or ``"while_held"``, or ``forks`` is not
            an int >= 0.

    Examples:
        >>> from backfill import Job, Workload
        >>> from backfill.schedulers import EASY, Conservative
        >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=3.0, estimate=5.0) for i in (1, 2, 3)]
        >>> w = Workload.from_jobs(jobs, machine_size=4)
        >>> check_scheduler(Conservative(), w).start.tolist()
        [0.0, 0.0, 3.0]
        >>> check_scheduler(EASY(), w, guarantees="while_held").scheduler
        'EASY(fcfs)'
    """
    if guarantees is not True and guarantees is not False and guarantees != "while_held":
        raise BackfillError(f"guarantees must be True, False or 'while_held', got {guarantees!r}")
    if not isinstance(forks, int) or isinstance(forks, bool) or forks < 0:
        raise BackfillError(f"forks must be an int >= 0, got {forks!r}")
    missing = [m for m in _PROTOCOL if not callable(getattr(scheduler, m, None))]
    if missing:
        raise ScheduleError(
            f"{type(scheduler).__name__} does not satisfy the Scheduler protocol: no {', '.join(missing)}"
        )
    copy = scheduler.copy()
    if type(copy) is not type(scheduler):
        raise ScheduleError(
            f"{scheduler_name(scheduler)}: copy() returned a {type(copy).__name__}, not a "
            f"{type(scheduler).__name__}: the copy would be checked in its place (see SchedulerBase.copy)"
        )
    failure: Exception | None = None
    try:
        sim = Simulator(workload, copy, record_reservations=True, overrun=overrun)
        log = LogReplay(sim)
        taken = take_forks(sim, forks, log)
        while log.step():
            pass
        schedule = sim.run()
        check_feasible(schedule, resources=resources)
        if log.disagreement is not None:
            raise ScheduleError(log.disagreement)
        if guarantees == "while_held":
            check_holds(schedule, require_log=require_log)
        elif guarantees:
            check_guarantees(schedule, require_log=require_log)
        for at, fork in taken:
            check_fork(schedule, at, fork)
    except Exception as caught:  # a scheduler that crashes fails the check too
        failure = caught
    if failure is not None:
        # One type from one place, with no exception context: hypothesis tells failures apart by
        # type, place and context, and would report a scheduler that fails in two ways as two bugs.
        message = str(failure) if isinstance(failure, ScheduleError) else f"raised {failure!r}"
        report = ScheduleError(message)
        for note in getattr(failure, "__notes__", ()):
            report.add_note(note)
        report.add_note(_describe(workload))
        report.__cause__ = failure
        raise report
    return schedule


_COLUMNS = ("id", "submit", "processors", "runtime", "estimate", "user")


def _describe(workload: Workload, most: int = 30) -> str:
    """Return the workload as a short table: a heading line, then one row per job (the first ``most``).

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=i, submit=float(i), processors=2, runtime=10.0, estimate=15.0) for i in (1, 2, 3)]
        >>> print(_describe(Workload.from_jobs(jobs, 4), most=2))
        workload: 3 jobs on a 4-processor machine
         id  submit  processors  runtime  estimate  user
          1       1           2       10        15    -1
          2       2           2       10        15    -1
        ... and 1 more
    """
    n = len(workload)
    heading = f"workload: {n} job{'' if n == 1 else 's'} on a {workload.machine_size}-processor machine"
    if not n:
        return heading
    # The fields workloads(resources=...) draws amounts into, where any job has one.
    amounts = [f for f in _DRAWN_FIELDS.values() if (workload.records[f][:most] >= 0).any()]
    columns = [*_COLUMNS, *amounts]
    rows = workload.records[columns][:most].tolist()
    cells = [columns] + [[f"{x:.10g}" for x in row] for row in rows]
    widths = [max(len(row[c]) for row in cells) for c in range(len(columns))]
    lines = [heading]
    lines += [" " + "  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    if n > most:
        lines.append(f"... and {n - most} more")
    return "\n".join(lines)
