"""Checks of a finished schedule that trust no scheduler: capacity, accounting, and guarantees.

These functions read only a :class:`~backfill.schedule.Schedule`'s arrays, never a scheduler's state, so
they can judge any scheduler, including one written outside this library.
"""

from __future__ import annotations

import numpy as np

from backfill.errors import ScheduleError
from backfill.schedule import Schedule

__all__ = ["check_reservations", "validate_schedule"]


def validate_schedule(schedule: Schedule, *, complete: bool = True) -> None:
    """Raise :class:`ScheduleError` unless the schedule is feasible and accounts for every job.

    Checks: every job is either rejected with a reason or started exactly once (with ``complete``; a
    partial run may leave jobs unstarted); no rejected job started; start >= submit; end = start +
    runtime; and at no instant do the running jobs use more processors than the machine has (a job
    occupies ``[start, end)``, so one ending at ``t`` frees its processors for one starting at ``t``).

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
    # Capacity: sweep the start/end events, ends before starts at equal times.
    procs = w.column("processors")[finished]
    t = np.concatenate([start[finished], end[finished]])
    kind = np.concatenate([np.ones(procs.size), np.zeros(procs.size)])
    delta = np.concatenate([procs, -procs])
    keep = np.concatenate([end[finished] > start[finished]] * 2)  # zero-length jobs occupy nothing
    t, kind, delta = t[keep], kind[keep], delta[keep]
    idx = np.lexsort((kind, t))
    used = np.cumsum(delta[idx])
    if used.size and (peak := int(used.max())) > w.machine_size:
        at = float(t[idx][int(np.argmax(used))])
        raise ScheduleError(
            f"{name}: {peak} processors in use at time {at:g} on a {w.machine_size}-processor machine"
        )


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
        if not while_held:
            if np.isnan(starts).any():
                raise ScheduleError(f"{name}: job {job_id} lost its reservation")
            if np.any(np.diff(starts) > 0):
                raise ScheduleError(f"{name}: job {job_id}'s reservation moved later: {starts}")
            if actual > starts[0]:
                raise ScheduleError(
                    f"{name}: job {job_id} started at {actual:g}, after its guarantee {starts[0]:g}"
                )
            continue
        held = starts[0]
        for s in starts[1:]:
            if not np.isnan(held) and not np.isnan(s) and s > held:
                raise ScheduleError(f"{name}: job {job_id}'s reservation moved later: {held} -> {s}")
            held = s
        if not np.isnan(held) and actual > held:
            raise ScheduleError(f"{name}: job {job_id} started at {actual:g}, after {held:g}")
