"""Slack-based backfilling (Talby & Feitelson 1999): a backfill may delay a queued job within its slack.

Conservative backfilling in FCFS order, where a job that fits in the processors free now may also
start by pushing queued jobs' reservations back, as long as none of them is pushed past its
*guarantee*: its first reservation plus a slack fixed when it arrived. The slack is the static
delay-tolerance factor times the mean wait so far times the job's priority weight, the three
ingredients the paper combines (as Jin 2009, §2, summarises it). The paper's heuristics for
re-ordering the queue within the slacks are left out: jobs are tried one at a time, in arrival order.
With ``resources=[...]`` a job is tried if all its amounts fit now, and the reservations in its way
give way as :mod:`backfill.schedulers._displace` states for several resources.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from backfill.errors import BackfillError
from backfill.schedulers._displace import Certificate, DisplacingConservative
from backfill.workloads.workload import Job

__all__ = ["SlackBackfill"]

#: The type of a priority weight: ``weight(job)`` multiplies the job's slack.
Weight = Callable[[Job], float]


def _tolerance_validator(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise BackfillError(f"{attribute.name} must be a finite number >= 0, got {value!r}")


def _weight_validator(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not callable(value):
        raise BackfillError(f"{attribute.name} must be None or a callable job -> float, got {value!r}")


def _weight_name(weight: Weight | None) -> str:
    """A short readable name for a weight: None, the function's name, or its repr."""
    if weight is None:
        return "None"
    name = getattr(weight, "__name__", None)
    return name if isinstance(name, str) and name != "<lambda>" else repr(weight)


def _checked_weight(weight: Weight, job: Job) -> float:
    """``weight(job)`` as a float, or BackfillError naming the job if it is not finite and >= 0."""
    value = weight(job)
    try:
        w = float(value)
    except (TypeError, ValueError):
        w = math.nan
    if not (math.isfinite(w) and w >= 0):
        raise BackfillError(f"weight of job {job.id} must be a finite number >= 0, got {value!r}")
    return w


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class SlackBackfill(DisplacingConservative):
    """Talby and Feitelson's slack-based backfilling: Conservative plans, backfills delay within slack.

    **Slack and guarantee.** When a job arrives it gets Conservative's reservation, its earliest fit in
    the current plan, and a slack fixed then: ``tolerance * mean_wait * weight(job)``, where
    ``mean_wait`` is the mean wait (start minus arrival, as the scheduler saw them) of every job this
    scheduler has started so far, 0 before the first start. Its *guarantee* is its first reservation
    plus its slack; the job never starts later. The paper's priority changes over time; we fix the
    slack at arrival, so that a guarantee is a promise made once, like Conservative's reservation.
    The mean is over started jobs because theirs are the only waits known.

    **Priority.** ``weight(job)`` multiplies the slack, so a *higher-priority* job should get a
    *smaller* weight: less slack means others can delay it less. ``None`` gives every job weight 1.
    The weight must be finite and >= 0; it is asked once, at submission.

    **A decision** first does what :class:`Conservative` does: compress, start the jobs whose
    reservation has come. Then every queued job, in arrival order, that is no wider than the
    processors free now is tried alone: it may start now if the reservations in its way, displaced
    by the rule of :mod:`backfill.schedulers._displace` (the latest-arrived reservation covering a
    shortage gives way, and displaced jobs are placed again at their earliest fit in arrival order),
    all stay at or before their guarantees. A job that passes starts at once and the scan goes on
    with what is left free; the space its start leaves behind is compressed before the decision ends.
    The scan is greedy, one job at a time, first fit in FCFS order: the paper's heuristics for
    re-ordering the queue within the slacks are not implemented. With ``tolerance = 0`` every slack
    is 0 and no job starts after its first reservation, but a job compressed earlier may still be
    pushed back towards it.

    Each decision tries at most every queued job once, each try copying the profile: O(c (n + d (q +
    log n + k))) for c tried jobs, d displaced per try, q queued jobs and n profile steps. A job is
    not tried when one anonymous try of its shape (width and estimate) proves that it would fail;
    this changes no decision (see ``docs/slack-backfilling.md``, "Ruling tries out").

    Args:
        tolerance: The static delay-tolerance factor (>= 0, finite): slack in units of the mean wait.
        weight: The priority weight multiplying each job's slack (smaller for higher priority), or
            None for 1.

    Raises:
        BackfillError: From the constructor for a negative or non-finite tolerance or a weight that is
            not callable; from :meth:`submit` if the weight of a job is not a finite number >= 0.

    Examples:
        >>> s = SlackBackfill(tolerance=1.0)
        >>> s.reset(4, now=0)
        >>> first = Job(id=1, submit=0.0, processors=4, runtime=10.0, estimate=10.0)
        >>> s.submit(first, now=0)
        >>> s.submit(Job(id=2, submit=0.0, processors=2, runtime=20.0, estimate=20.0), now=0)
        >>> [j.id for j in s.schedule(now=0)], dict(s.reservations())
        ([1], {2: 10.0})
        >>> s.complete(first, now=10)
        >>> [j.id for j in s.schedule(now=10)]  # jobs 1 and 2 waited 0 s and 10 s: mean wait 5 s
        [2]

        Job 3 needs the whole machine, so it is planned after job 2, at 30, with a slack of
        ``1.0 * 5 * 1`` s.

        >>> s.submit(Job(id=3, submit=11.0, processors=4, runtime=10.0, estimate=10.0), now=11)
        >>> s.schedule(now=11), dict(s.reservations()), dict(s.guarantees())
        ([], {3: 30.0}, {3: 35.0})

        Job 4 fits in the 2 free processors but would run into job 3's reservation; starting it now
        pushes job 3 back to 34, within its guarantee. With ``tolerance=0`` job 4 would wait until 40.

        >>> s.submit(Job(id=4, submit=12.0, processors=2, runtime=22.0, estimate=22.0), now=12)
        >>> [j.id for j in s.schedule(now=12)], dict(s.reservations())
        ([4], {3: 34.0})
    """

    tolerance: float = attrs.field(default=1.0, validator=_tolerance_validator)
    weight: Weight | None = attrs.field(default=None, validator=_weight_validator)

    #: Per queued job: its guarantee (first reservation + slack) and its arrival time.
    _guarantee: dict[int, float] = attrs.field(init=False, factory=dict)
    _arrived: dict[int, float] = attrs.field(init=False, factory=dict)
    #: Sum and count of the waits of every job started since :meth:`reset`, for the mean wait.
    _wait_sum: float = attrs.field(init=False, default=0.0)
    _started: int = attrs.field(init=False, default=0)

    @property
    def name(self) -> str:
        """Short name for tables, e.g. ``SlackBackfill(1)`` or ``SlackBackfill(0.5, weight=w)``."""
        extras = "".join(f", {e}" for e in self._resource_extras())
        if self.weight is None:
            return f"{type(self).__name__}({self.tolerance:g}{extras})"
        return f"{type(self).__name__}({self.tolerance:g}, weight={_weight_name(self.weight)}{extras})"

    def __repr__(self) -> str:
        extras = "".join(f", {e}" for e in self._resource_extras())
        return f"SlackBackfill(tolerance={self.tolerance!r}, weight={_weight_name(self.weight)}{extras})"

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._guarantee = {}
        self._arrived = {}
        self._wait_sum = 0.0
        self._started = 0

    def submit(self, job: Job, now: float) -> None:
        """Reserve the job as Conservative does and fix its guarantee. O(log n + k).

        Raises:
            BackfillError: If the weight of the job is not a finite number >= 0; the job is not taken.
            ScheduleError: If the job does not pass the door (:mod:`backfill.schedulers.machinery.door`), or
                is already queued or running.
        """
        self._door_submit(job, now)
        weight = 1.0 if self.weight is None else _checked_weight(self.weight, job)
        super().submit(job, now)
        mean = self._wait_sum / self._started if self._started else 0.0
        self._guarantee[job.id] = self._planned[job.id] + self.tolerance * mean * weight
        self._arrived[job.id] = now

    def schedule(self, now: float) -> list[Job]:
        """Conservative's decision, then a greedy FCFS scan for jobs that may start within the slacks."""
        started = self._start_due(now)
        free: Any = self._profile._free_at(now)
        requests = self._requests
        cores: Any = None if requests is None else _free_processors if self.nodes is not None else _first
        # Every job asks a processor at least: with resources too, none starts without one free.
        if (free if requests is None else cores(free)) > 0 and self._queue:
            committed = False
            # What one try teaches about the jobs of its shape, until a start changes the plan.
            known: dict[tuple[int, float], Certificate] = {}
            for job in list(self._queue.values()):
                if requests is None:
                    if not 0 < job.processors <= free or self._doomed(job, now, known):
                        continue
                elif not requests[job.id] <= free:
                    continue
                plan = self._try_start([job], now)
                if plan is None:
                    continue
                self._commit(plan, now)
                known.clear()
                started.append(job)
                committed = True
                # A displaced job may land at now and take free processors too, so ask the profile.
                free = self._profile._free_at(now)
                if (free if requests is None else cores(free)) <= 0:
                    break
            if committed:
                # The commits left space behind (marked for compression), and a displaced job may have
                # been placed at now: compress and start what is due before the decision ends.
                started.extend(self._start_due(now))
        guarantee = self._guarantee
        arrived = self._arrived
        for job in started:
            del guarantee[job.id]
            self._wait_sum += now - arrived.pop(job.id)
        self._started += len(started)
        return started

    def _limit(self, job: Job, now: float) -> float:
        """Latest start a displacement may give ``job``: its guarantee, or its planned start if later.

        Planned starts move later only up to the guarantee, so the second case does not arise; if it
        did, a displacement that leaves the job no later than planned would still be allowed.
        """
        guarantee = self._guarantee[job.id]
        planned = self._planned[job.id]
        return planned if planned > guarantee else guarantee

    def guarantees(self) -> Mapping[int, float]:
        """The guarantee (first reservation + slack) of every queued job, by job id. O(1).

        Examples:
            >>> s = SlackBackfill()
            >>> s.reset(4, now=0)
            >>> s.submit(Job(id=1, submit=0.0, processors=4, runtime=5.0, estimate=5.0), now=0)
            >>> s.submit(Job(id=2, submit=0.0, processors=1, runtime=1.0, estimate=1.0), now=0)
            >>> dict(s.guarantees())  # no job has started yet: the mean wait, and every slack, is 0
            {1: 0.0, 2: 5.0}
        """
        return MappingProxyType(self._guarantee)

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._guarantee = self._guarantee.copy()
        other._arrived = self._arrived.copy()


def _first(free: Any) -> int:
    """The processors free, first of the Amounts free with resources."""
    return int(free[0])


def _free_processors(free: Any) -> int:
    """The cores free on a node machine (a NodeFree), over all nodes."""
    return int(free.total()[0])
