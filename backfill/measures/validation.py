"""Checks of a finished schedule that trust no scheduler: capacity, accounting, and guarantees.

These functions read only a :class:`~backfill.schedule.Schedule`'s arrays, never a scheduler's state, so
they can judge any scheduler, including one written outside this library.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from backfill.errors import ScheduleError
from backfill.measures.nodes import validate_allocations
from backfill.schedule import Schedule
from backfill.workloads.resources import Resource

__all__ = ["check_reservations", "same_schedule", "validate_schedule"]

#: How far a job's ``end - start`` may be from its runtime: a millisecond. Below 2**43 s (every time a
#: job may carry, see :mod:`backfill.workloads.limits`) a float resolves it with room to spare.
_RESOLUTION = 1e-3


def _times(value: float) -> str:
    return "withdrawn" if np.isnan(value) else f"{value:g}"


def _history(schedule: Schedule, job_id: int) -> str:
    """A job's reservation changes as ``at 0: 100, at 12: 95`` (``withdrawn`` for a lost one), abridged."""
    r = schedule.reservations
    rows = r[r["job_id"] == job_id]
    if not rows.size:
        return "no reservation"
    changes = [
        f"at {t:g}: {_times(s)}" for t, s in zip(rows["time"].tolist(), rows["start"].tolist(), strict=True)
    ]
    if len(changes) > 8:
        # A long history (EASY's head, withdrawn and given back at every decision) keeps its ends.
        changes = [*changes[:3], f"... {len(changes) - 6} more ...", *changes[-3:]]
    return ", ".join(changes)


def _reservation_error(schedule: Schedule, job_id: int, message: str) -> ScheduleError:
    # The history is found only for the error: it scans every reservation of the schedule.
    return ScheduleError(f"{message} (history: {_history(schedule, job_id)})")


def validate_schedule(
    schedule: Schedule, *, complete: bool = True, resources: Sequence[Resource] | None = None
) -> None:
    """Raise :class:`ScheduleError` unless the schedule is feasible and accounts for every job.

    Checks: every job is either rejected with a reason or started exactly once (with ``complete``; a
    partial run may leave jobs unstarted); no rejected job started; start >= submit; end = start +
    runtime, and ``end - start`` is the runtime to within a millisecond (at times too large for a
    float to resolve one, a job of positive runtime could end as it starts); and at no instant do
    the running jobs use more processors than the machine has (a job occupies ``[start, end)``, so
    one ending at ``t`` frees its processors for one starting at ``t``); nor more of any further
    resource than its capacity: ``resources``, by default those the schedule's scheduler planned
    (:attr:`~backfill.schedule.Schedule.resources`), each job holding ``resource.amount(job)``. On
    a node machine, every node's capacity at every instant and every job's allocation too
    (:func:`~backfill.measures.nodes.validate_allocations`).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import Conservative
        >>> jobs = [Job(id=i, submit=float(i), processors=2, runtime=3.0, estimate=5.0) for i in range(4)]
        >>> validate_schedule(simulate(Workload.from_jobs(jobs, machine_size=3), Conservative()))
    """
    w = schedule.workload
    ids = w.column("id")
    start, end = schedule.start, schedule.end
    started = ~np.isnan(start)
    rejected = np.isin(ids, np.fromiter(schedule.rejected.keys(), dtype=np.int64))
    name = schedule.scheduler

    def fail(message: str, rows: np.ndarray) -> None:
        shown = ", ".join(str(int(x)) for x in ids[rows][:5])
        raise ScheduleError(f"{name}: {message} (job ids {shown}{', ...' if len(rows) > 5 else ''})")

    if (bad := np.flatnonzero(rejected & started)).size:
        fail("rejected jobs were started", bad)
    if complete and (bad := np.flatnonzero(~rejected & ~started)).size:
        fail("jobs neither started nor rejected", bad)
    order = schedule.start_order
    if len(order) != int(started.sum()) or len(np.unique(order)) != len(order):
        raise ScheduleError(f"{name}: some job started more than once or a start was not recorded")
    if not np.array_equal(np.sort(order), np.flatnonzero(started)):
        raise ScheduleError(f"{name}: the start log does not match the recorded starts")
    s = start[started]
    rows = np.flatnonzero(started)
    if (late := rows[s < w.column("submit")[started]]).size:
        fail("jobs started before they were submitted", late)
    finished = started & ~np.isnan(end)
    if complete and (bad := np.flatnonzero(started & np.isnan(end))).size:
        fail("started jobs never completed", bad)
    wrong = np.flatnonzero(finished & (end != start + schedule.runtime))
    if wrong.size:
        fail("completion differs from start + runtime", wrong)
    # At 1e17 s, start + 5 == start: the test above passes a job that ran for no time at all.
    with np.errstate(invalid="ignore"):
        lasted = np.abs((end - start) - schedule.runtime) <= _RESOLUTION
    if (off := np.flatnonzero(finished & ~lasted)).size:
        fail(
            "jobs ran for an end - start that differs from their runtime by more than a millisecond, "
            "as at times too large for a float to resolve",
            off,
        )
    # Every node's capacity, on a node machine; then processors, then each further resource.
    validate_allocations(schedule)
    # (On a node machine, what a job holds is its allocation's, checked node by node above.)
    size = w.machine_size
    peak_at = _peak(w.column("processors")[finished], start[finished], end[finished])
    if schedule.machine is None and peak_at is not None and peak_at[0] > size:
        raise ScheduleError(
            f"{name}: {peak_at[0]} processors in use at time {peak_at[1]:g} on a {size}-processor machine"
        )
    rows = np.flatnonzero(finished)
    for resource in schedule.resources if resources is None else resources:
        # Python numbers, exact however large: a started job past the bound (2**62) is an over-commit
        # to report, not an amount to wrap or clip.
        exact = resource.exact_amounts(w, rows)
        if too_much := [k for k, a in enumerate(exact) if a > resource.capacity]:
            fail(
                f"jobs held more {resource.name} than its capacity {resource.capacity} "
                f"(job {int(ids[rows[too_much[0]]])} held {exact[too_much[0]]})",
                rows[too_much],
            )
        amounts = np.array([*exact, 0], dtype=object)[:-1]  # each at most the capacity: finite ints
        peak_at = _peak(amounts, start[finished], end[finished])
        if peak_at is not None and peak_at[0] > resource.capacity:
            raise ScheduleError(
                f"{name}: {peak_at[0]} {resource.name} in use at time {peak_at[1]:g}, more than its "
                f"capacity {resource.capacity}"
            )


def _peak(amounts: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[int, float] | None:
    """The most in use at once of a resource each job holds over ``[start, end)``, and when; None if none.

    A sweep of the start and end events, ends before starts at equal times (a job ending at ``t``
    frees what it held for one starting at ``t``); zero-length jobs hold nothing. Amounts may be
    Python ints (an object array: exact however large).
    """
    t = np.concatenate([start, end])
    kind = np.concatenate([np.ones(amounts.size), np.zeros(amounts.size)])
    delta = np.concatenate([amounts, -amounts])
    keep = np.concatenate([end > start] * 2)
    t, kind, delta = t[keep], kind[keep], delta[keep]
    if not t.size:
        return None
    idx = np.lexsort((kind, t))
    used = np.cumsum(delta[idx])
    top = int(np.argmax(used))
    return int(used[top]), float(t[idx][top])


def check_reservations(schedule: Schedule, *, while_held: bool = False) -> None:
    """Raise :class:`ScheduleError` if any job's guaranteed start ever moved later.

    With ``while_held=False`` (Conservative, PC, DC: a reservation is given at arrival and kept), each
    job's successive reservations must never increase and its actual start must be no later than the
    first one. With ``while_held=True`` (EASY's head job, promoted jobs), a job may lose its reservation
    (recorded as NaN) and later get a new one; only within each unbroken run of reservations must the
    start never move later, and a job that starts while holding one starts no later than it.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import EASY
        >>> jobs = [Job(id=i, submit=float(i), processors=2, runtime=1.0, estimate=5.0) for i in range(4)]
        >>> check_reservations(simulate(Workload.from_jobs(jobs, 3), EASY()), while_held=True)
    """
    r = schedule.reservations
    # lexsort is stable, so changes made at one instant keep the order they were made in.
    r = r[np.lexsort((r["time"], r["job_id"]))]
    if r.size == 0:
        return
    ids = schedule.workload.column("id")
    row_of = dict(zip(ids.tolist(), range(len(ids)), strict=True))
    name = schedule.scheduler
    bounds = np.flatnonzero(np.diff(r["job_id"])) + 1
    for chunk in np.split(r, bounds):
        job_id = int(chunk["job_id"][0])
        starts = chunk["start"]
        actual = schedule.start[row_of[job_id]]
        times = chunk["time"]
        if not while_held:
            if np.isnan(starts).any():
                at = float(times[int(np.flatnonzero(np.isnan(starts))[0])])
                raise _reservation_error(
                    schedule, job_id, f"{name}: job {job_id} lost its reservation at {at:g}"
                )
            if (later := np.flatnonzero(np.diff(starts) > 0)).size:
                k = int(later[0])
                raise _reservation_error(
                    schedule,
                    job_id,
                    f"{name}: job {job_id}'s reservation moved later at {times[k + 1]:g}: "
                    f"{starts[k]:g} -> {starts[k + 1]:g}",
                )
            if actual > starts[0]:
                raise _reservation_error(
                    schedule,
                    job_id,
                    f"{name}: job {job_id} started at {actual:g}, after its guarantee {starts[0]:g}",
                )
            continue
        held = starts[0]
        for t, s in zip(times[1:].tolist(), starts[1:].tolist(), strict=True):
            if not np.isnan(held) and not np.isnan(s) and s > held:
                raise _reservation_error(
                    schedule,
                    job_id,
                    f"{name}: job {job_id}'s reservation moved later at {t:g}: {held:g} -> {s:g}",
                )
            held = s
        if not np.isnan(held) and actual > held:
            raise _reservation_error(
                schedule,
                job_id,
                f"{name}: job {job_id} started at {actual:g}, after {held:g}, the reservation it held",
            )


def same_schedule(a: Schedule, b: Schedule, *, reservations: bool = False) -> None:
    """Raise :class:`ScheduleError` unless two schedules of one workload start and end every job alike.

    The differential check for a host simulator of your own: build its result with
    :meth:`Schedule.from_starts` and compare it with ``backfill.simulate`` under the same scheduler.
    Starts, ends and rejections must be identical (a job that never started, NaN in both, is the
    same); with ``reservations`` the reservation logs too, change for change. The message reports
    the first job whose start differs (the earliest of its two starts): its start in each schedule,
    the jobs each one started at that instant, and its reservation history in each.

    Examples:
        >>> from backfill import EASY, Job, Workload, simulate
        >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=5.0, estimate=5.0) for i in (1, 2)]
        >>> w = Workload.from_jobs(jobs, machine_size=2)
        >>> same_schedule(Schedule.from_starts(w, {1: 0.0, 2: 5.0}), simulate(w, EASY()))
        >>> same_schedule(Schedule.from_starts(w, {1: 5.0, 2: 0.0}), simulate(w, EASY()))
        Traceback (most recent call last):
        ...
        backfill.errors.ScheduleError: job 1 starts at 5 under host but at 0 under EASY(fcfs); at 0, host \
started jobs [2] and EASY(fcfs) jobs [1]; job 1's reservations: host: no reservation; EASY(fcfs): no \
reservation
    """
    na, nb = a.scheduler, b.scheduler
    if nb == na:
        na, nb = f"{na} (first)", f"{nb} (second)"
    ids = a.workload.column("id")
    if len(a) != len(b) or not np.array_equal(ids, b.workload.column("id")):
        raise ScheduleError(
            f"{na} and {nb} are schedules of different workloads ({len(a)} and {len(b)} jobs)"
        )
    sa, sb = a.start, b.start
    differs = ~((sa == sb) | (np.isnan(sa) & np.isnan(sb)))
    if differs.any():
        rows = np.flatnonzero(differs)
        when = np.fmin(sa[rows], sb[rows])
        row = int(rows[int(np.nanargmin(when))]) if not np.isnan(when).all() else int(rows[0])
        job_id = int(ids[row])
        at = float(np.fmin(sa[row], sb[row]))

        def begun(schedule: Schedule) -> str:
            return str(ids[schedule.start == at].tolist())

        raise ScheduleError(
            f"job {job_id} starts at {_times(sa[row]).replace('withdrawn', 'never')} under {na} but at "
            f"{_times(sb[row]).replace('withdrawn', 'never')} under {nb}; at {at:g}, {na} started jobs "
            f"{begun(a)} and {nb} jobs {begun(b)}; job {job_id}'s reservations: {na}: "
            f"{_history(a, job_id)}; {nb}: {_history(b, job_id)}"
        )
    ea, eb = a.end, b.end
    if (bad := np.flatnonzero(~((ea == eb) | (np.isnan(ea) & np.isnan(eb))))).size:
        row = int(bad[0])
        raise ScheduleError(
            f"job {int(ids[row])} ends at {ea[row]:g} under {na} but at {eb[row]:g} under {nb}, "
            "with the same start (a different runtime: killed at its estimate?)"
        )
    if dict(a.rejected) != dict(b.rejected):
        job_id = min(set(a.rejected).symmetric_difference(b.rejected) or set(a.rejected))
        raise ScheduleError(
            f"job {job_id} is rejected differently: {na}: {a.rejected.get(job_id, 'not rejected')!r}; "
            f"{nb}: {b.rejected.get(job_id, 'not rejected')!r}"
        )
    if reservations:
        ra, rb = a.reservations.tolist(), b.reservations.tolist()
        for k, (x, y) in enumerate(zip(ra, rb, strict=False)):
            if x[:2] != y[:2] or not (x[2] == y[2] or (np.isnan(x[2]) and np.isnan(y[2]))):
                raise ScheduleError(
                    f"reservation change {k + 1} differs: {na}: job {x[1]} at {x[0]:g}: {_times(x[2])}; "
                    f"{nb}: job {y[1]} at {y[0]:g}: {_times(y[2])}"
                )
        if len(ra) != len(rb):
            longer, name = (ra, na) if len(ra) > len(rb) else (rb, nb)
            t, j, st = longer[min(len(ra), len(rb))]
            raise ScheduleError(
                f"{name} logs {abs(len(ra) - len(rb))} reservation changes more, from job {j} at {t:g}: "
                f"{_times(st)}"
            )
