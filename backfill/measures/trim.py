"""Warm-up and cool-down: the jobs a measure leaves out at either end of a run, not the simulation.

A simulation starts on an empty machine and ends by draining its queue, so the first and last jobs
of a workload see a system unlike the steady state a comparison of schedulers is about. A
:class:`Trim` names how many jobs (by submit order), or how long a stretch of submissions, to leave
out at each end; :func:`measured_jobs` gives the mask of the jobs it keeps and
:func:`trim_schedule` the schedule of those jobs alone, which every measure of
:mod:`backfill.measures` takes as it takes a whole one. The jobs left out were still simulated:
they occupied the machine, and the measured jobs waited behind them.

Examples:
    >>> from backfill import EASY, lublin_feitelson, simulate
    >>> s = simulate(lublin_feitelson(100, machine_size=16), EASY())
    >>> trimmed = trim_schedule(s, Trim(warmup=10, cooldown=20))
    >>> len(trimmed), trimmed.workload.column("id")[0] == s.workload.column("id")[10]
    (70, np.True_)
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.schedule import Schedule
from backfill.workloads.workload import Workload

__all__ = ["Trim", "measured_jobs", "trim_schedule"]


def _jobs_or_seconds(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BackfillError(f"{attribute.name} must be a number of jobs or seconds, got {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise BackfillError(f"{attribute.name} must be finite and at least 0, got {value!r}")


@attrs.frozen
class Trim:
    """The jobs a measure leaves out: the first ``warmup`` and the last ``cooldown``.

    Each is a number of jobs (an ``int``: the first or last jobs by submit order) or a duration in
    seconds (a ``float``: the jobs submitted within that time of the first submission, or of the
    last). ``Trim()`` leaves out nothing.

    Examples:
        >>> Trim(warmup=500, cooldown=86400.0).describe()
        ('500 jobs', '86400 s')
        >>> Trim(warmup=-1)
        Traceback (most recent call last):
        backfill.errors.BackfillError: warmup must be finite and at least 0, got -1
    """

    warmup: int | float = attrs.field(default=0, validator=_jobs_or_seconds)
    cooldown: int | float = attrs.field(default=0, validator=_jobs_or_seconds)

    def __bool__(self) -> bool:
        return bool(self.warmup or self.cooldown)

    def describe(self) -> tuple[str, str]:
        """Return the warm-up and cool-down as result rows record them: ``"N jobs"``, ``"S s"`` or ``""``."""
        return _describe(self.warmup), _describe(self.cooldown)


def _describe(value: int | float) -> str:
    if not value:
        return ""
    return f"{value} jobs" if isinstance(value, int) else f"{value:g} s"


def measured_jobs(submit: npt.ArrayLike, trim: Trim) -> npt.NDArray[np.bool_]:
    """Return the mask of the jobs ``trim`` keeps, given their submit times in submit order.

    Examples:
        >>> measured_jobs([0.0, 10.0, 20.0, 30.0], Trim(warmup=1)).tolist()
        [False, True, True, True]
        >>> measured_jobs([0.0, 10.0, 20.0, 30.0], Trim(warmup=15.0, cooldown=10.0)).tolist()
        [False, False, True, False]
    """
    times = np.asarray(submit, dtype=np.float64)
    n = times.size
    keep = np.ones(n, dtype=np.bool_)
    if n == 0:
        return keep
    if isinstance(trim.warmup, int):
        keep[: trim.warmup] = False
    else:
        keep &= times >= times[0] + trim.warmup
    if isinstance(trim.cooldown, int):
        if trim.cooldown:
            keep[max(n - trim.cooldown, 0) :] = False
    else:
        keep &= times <= times[-1] - trim.cooldown
    return keep


def trim_schedule(schedule: Schedule, trim: Trim) -> Schedule:
    """Return the schedule of the jobs ``trim`` keeps, as if the others had not been measured.

    Starts, ends, the reservation log and the rejections of the kept jobs are as in ``schedule``;
    every measure then covers them alone (utilization and makespan too: the span of the kept jobs).

    Raises:
        BackfillError: ``trim`` is not a :class:`Trim`, or leaves no job to measure.

    Examples:
        >>> from backfill import FCFS, Job, Workload, simulate
        >>> jobs = [Job(id=i, submit=float(i), processors=1, runtime=5.0, estimate=5.0) for i in range(4)]
        >>> s = trim_schedule(simulate(Workload.from_jobs(jobs, machine_size=1), FCFS()), Trim(1, 1))
        >>> s.workload.column("id").tolist(), s.start.tolist()
        ([1, 2], [5.0, 10.0])
    """
    if not isinstance(trim, Trim):
        raise BackfillError(f"trim must be a Trim, got {trim!r}")
    if not trim:
        return schedule
    keep = measured_jobs(schedule.submit, trim)
    if len(schedule) and not keep.any():
        raise BackfillError(
            f"warmup {trim.warmup!r} and cooldown {trim.cooldown!r} leave none of the {len(schedule)} jobs"
        )
    workload = schedule.workload
    sub = Workload.from_records(
        workload.records[keep], workload.machine_size, provenance=workload.provenance, header=workload.header
    )
    ids = set(sub.column("id").tolist())
    # Rows renumbered: the kept rows, in order, become 0, 1, ...
    new_row = np.cumsum(keep) - 1
    order = schedule.start_order[keep[schedule.start_order]]
    log = schedule.reservations
    log = log[np.isin(log["job_id"], sub.column("id"))] if log.size else log
    return attrs.evolve(
        schedule,
        workload=sub,
        start=schedule.start[keep],
        end=schedule.end[keep],
        runtime=schedule.runtime[keep],
        estimate=schedule.estimate[keep],
        start_order=new_row[order],
        rejected={i: r for i, r in schedule.rejected.items() if i in ids},
        allocations={i: a for i, a in schedule.allocations.items() if i in ids},
        reservations=log,
        predicted=None if schedule.predicted is None else schedule.predicted[keep],
    )
