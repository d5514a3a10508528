"""A planning window for schedulers that reserve at arrival (Conservative, PC, DC, Selective's core).

Slurm plans its backfill map only ``bf_window`` ahead: a job that cannot start within it gets no
reservation. For a scheduler that gives every job its guarantee on arrival, the window means: a job
whose earliest fit lies more than ``planning_window`` seconds after its arrival waits *unreserved*
(it cannot start, and delays nobody). At every later decision, after the scheduler's own compression,
the unreserved jobs are tried in arrival order, at most ``max_tested`` of them (Slurm's
``bf_max_job_test``); one whose earliest fit has come within the window then arrives for real, as if
submitted then (the scheduler's own placement: an earliest fit in the profile, DC's protection of
the jobs ahead of it). The window is judged on the earliest fit the job finds before it arrives:
DC's protection of the jobs ahead may then move one of them into that place, so a DC reservation
can lie beyond the window by what that move took. A job tried and still out of reach asks for a
decision when its earliest fit would come within the window (its fit minus the window), so it is not
forgotten when nothing else happens. With no window nothing changes, and ``max_tested`` alone is
refused: it only limits the unreserved jobs a window leaves.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs

from backfill._validators import optional_positive_int, optional_seconds
from backfill.errors import ParameterError, ScheduleError
from backfill.profile import Profile
from backfill.workloads.workload import Job

__all__ = ["PlanningWindow", "limit_names", "reach_time"]


def reach_time(start: float, window: float) -> float:
    """The earliest time ``t`` at which a fit at ``start`` is within the window: ``start <= t + window``.

    ``start - window`` as floats can be a float too early, where ``t + window`` rounds below
    ``start``: a decision asked for then would find the job still out of reach and ask for the same
    instant again, which is no later decision at all, and the job would wait unreserved until some
    other event. The next floats are taken then; ``start`` itself always qualifies (``window >= 0``),
    so the loop ends after a few steps.

    Examples:
        >>> start, window = 141593.25026201658, 5593.26235832613
        >>> start - window + window < start, start <= reach_time(start, window) + window
        (True, True)
    """
    t = start - window
    for _ in range(64):
        if t + window >= start:
            return t
        t = math.nextafter(t, math.inf)
    return start  # pragma: no cover - a few steps always suffice


def limit_names(planning_window: float | None, max_tested: int | None) -> list[str]:
    """``planning_window=...`` and ``max_tested=...`` for a scheduler's name, those that are set."""
    names = []
    if planning_window is not None:
        names.append(f"planning_window={planning_window:g}")
    if max_tested is not None:
        names.append(f"max_tested={max_tested}")
    return names


@attrs.define(slots=False)
class PlanningWindow:
    """Mixin: the planning window and test limit of a scheduler that reserves at arrival; see the module."""

    planning_window: float | None = attrs.field(default=None, kw_only=True, validator=optional_seconds)
    max_tested: int | None = attrs.field(default=None, kw_only=True, validator=optional_positive_int)
    # Jobs waiting without a reservation, in arrival order, and the decision one of them asked for.
    _unreserved: dict[int, Job] = attrs.field(init=False, factory=dict)
    _window_wake: float = attrs.field(init=False, default=math.inf)

    if TYPE_CHECKING:  # SchedulerBase's, which every class mixing this in has

        def request(self, job: Job) -> Any: ...

    def _check_window(self) -> None:
        if self.max_tested is not None and self.planning_window is None:
            raise ParameterError(
                f"{type(self).__name__}: max_tested limits the unreserved jobs tried per decision, "
                "which only a planning_window leaves; give a planning_window too"
            )

    def _window_extras(self) -> list[str]:
        """``planning_window=...`` and ``max_tested=...`` for a name, if set."""
        return limit_names(self.planning_window, self.max_tested)

    def _reset_window(self) -> None:
        self._unreserved = {}
        self._window_wake = math.inf

    def _out_of_reach(self, profile: Profile, job: Job, now: float) -> bool:
        """Whether an arriving job's earliest fit lies beyond the window; if so it waits unreserved."""
        window = self.planning_window
        if window is None:
            return False
        if job.id in self._unreserved:
            raise ScheduleError(
                f"{type(self).__name__}: job {job.id} submitted at {now:g} while already queued; "
                "a host submits each job once"
            )
        start = profile._earliest_fit(now, self.request(job), job.estimate)
        if start <= now + window:
            return False
        self._unreserved[job.id] = job
        self._window_wake = min(self._window_wake, reach_time(start, window))
        return True

    def _reserve_within_reach(self, profile: Profile, now: float) -> None:
        """Let the unreserved jobs whose earliest fit came within the window arrive (``_arrive``)."""
        unreserved = self._unreserved
        if not unreserved:
            return
        window = self.planning_window
        assert window is not None
        tests = len(unreserved) if self.max_tested is None else self.max_tested
        wake = math.inf
        for job in list(unreserved.values())[:tests]:
            start = profile._earliest_fit(now, self.request(job), job.estimate)
            if start <= now + window:
                del unreserved[job.id]
                self._arrive(job, now)
            elif (reach := reach_time(start, window)) < wake:
                wake = reach
        self._window_wake = wake

    def _arrive(self, job: Job, now: float) -> None:
        """Give a job its guarantee now (the scheduler's own placement)."""
        raise NotImplementedError

    def _window_wakeup(self, now: float) -> float | None:
        """The decision an unreserved job asked for, if any is still to come."""
        wake = self._window_wake
        return wake if self._unreserved and wake > now and wake < math.inf else None

    def _copy_window(self, other: Any) -> None:
        other._unreserved = self._unreserved.copy()
