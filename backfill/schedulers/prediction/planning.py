"""Planning with predicted runtimes (EASY++'s idea) and a coarse time resolution, around any scheduler.

A batch system kills a job at its user's estimate; nothing forces it to *plan* with that estimate.
:func:`planning` wraps a scheduler so that it plans each job with a runtime from a
:mod:`~backfill.schedulers.prediction.predictors` predictor (Tsafrir, Etsion and Feitelson 2007) and/or with
planned durations rounded up to a time resolution (Slurm's ``bf_resolution``), while the host still
runs and kills jobs by their own runtimes and estimates. The wrapped scheduler sees every job with
``estimate`` replaced by its *planned runtime*; the host gets its own job objects back.

**Semantics** (the choices a reader may question, all tested in ``tests/test_planning.py``):

* The planned runtime is the prediction, capped at the estimate (the job is killed there anyway),
  raised to at least one second (or to the estimate, if shorter) so that a job that will run is
  never planned as occupying nothing, then rounded *up* to a multiple of ``resolution`` (if set).
  Rounding may plan a job beyond its estimate (never beyond ``MAX_TIME``, the longest time a job
  may carry); it never plans it shorter than the prediction.
* **When a job outlives its planned runtime**, it is *extended* at its planned end, before that
  instant's decision: by default to its estimate (``correction="estimate"``, see
  :data:`CORRECTIONS`), or by Tsafrir et al.'s gradual steps (``correction="steps"``: the first
  prediction plus the next of 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 5 h, 10 h, 20 h, 50 h,
  100 h that plans it longer, capped at the estimate; see :data:`STEPS`). The wrapped scheduler is
  told through its ``extend`` hook and re-plans: EASY recomputes its reservations, Conservative,
  PC, DC and Selective move the reservations that no longer fit to their earliest fit.
* **Guarantees are made on predictions**, so an underprediction can break one: a reservation that
  moves later, or a job that starts after the reservation it held. Nothing hides this:
  :func:`~backfill.measures.planning.guarantee_violations` counts it per job from the reservation
  log. With the default predictor and no resolution nothing changes at all (the wrapped scheduler
  sees the host's own jobs), and with ``exact_runtime`` no job is ever extended.

The wrapped scheduler must have the hook ``extend(job, end, now)`` (every built-in backfilling scheduler
has; :class:`Replanning`), unless the predictor is the default: rounding up alone never underplans.

Examples:
    >>> from backfill import EASY, Job, Workload, simulate
    >>> from backfill.schedulers.prediction.predictors import exact_runtime
    >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=100.0),
    ...         Job(id=2, submit=1.0, processors=3, runtime=50.0, estimate=60.0),
    ...         Job(id=3, submit=2.0, processors=1, runtime=5.0, estimate=200.0)]
    >>> w = Workload.from_jobs(jobs, machine_size=3)
    >>> simulate(w, EASY()).start.tolist()  # by estimates, job 3 would delay job 2's start at 100
    [0.0, 10.0, 60.0]
    >>> s = planning(EASY(), predictor=exact_runtime)
    >>> s.name, simulate(w, s).start.tolist()  # planned by runtimes: job 3 backfills at once
    ('EASY(fcfs) [predictor=exact]', [0.0, 10.0, 2.0])
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, Protocol, Self, runtime_checkable

import attrs

from backfill.errors import ParameterError, ScheduleError
from backfill.schedulers.machinery.door import Door
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.schedulers.prediction.predictors import (
    Predictor,
    StatefulPredictor,
    predictor_name,
    user_estimate,
)
from backfill.workloads.limits import MAX_TIME
from backfill.workloads.resources import Resource
from backfill.workloads.workload import Job

__all__ = ["CORRECTIONS", "PlanningScheduler", "Replanning", "planning"]

#: The gradual correction: a job that outlives its planned runtime is planned to run its first
#: prediction plus the first of these seconds that plans it longer than before (capped at its
#: estimate; without a resolution, the k-th step at the k-th extension), and to its estimate after
#: the last. The steps are those of the public EASY++ re-implementation in pyss/predictsim, whose
#: corrector cites Tsafrir et al. (2007); the paper's own text was not at hand to check them against.
STEPS = (60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0, 36000.0, 72000.0, 180000.0, 360000.0)

#: The rules for a job that outlives its planned runtime: ``"estimate"`` plans it to its estimate
#: (the kill time) at once; ``"steps"`` adds the next of :data:`STEPS`, capped at the estimate.
CORRECTIONS = ("estimate", "steps")

#: The shortest planned runtime of a job with a positive estimate (seconds); see the module docstring.
MIN_PLANNED = 1.0


@runtime_checkable
class Replanning(Protocol):
    """A scheduler that can re-plan a running job that outlived its planned runtime."""

    def extend(self, job: Job, end: float, now: float) -> None:
        """Learn that running ``job`` did not end at its planned end: plan it to end at ``end``.

        ``job`` is the one the scheduler started, with a longer ``estimate`` (its new planned
        runtime from its start, so ``end`` is its start plus that). Called at the old planned end,
        after that instant's completions and before its
        :meth:`~backfill.schedulers.Scheduler.schedule`. The scheduler re-plans as it must (moving
        reservations later if they no longer fit) and keeps the job's processors busy until ``end``.
        """
        ...


def _resolution(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
        raise ParameterError(f"resolution must be a finite number of seconds >= 0, got {value!r}")


def _correction(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value not in CORRECTIONS:
        raise ParameterError(f"correction must be one of {', '.join(CORRECTIONS)}, got {value!r}")


def _predictor(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(value):
        raise ParameterError(f"predictor must be a callable (job, now) -> seconds, got {value!r}")


@attrs.define(eq=False, repr=False)
class PlanningScheduler:
    """A scheduler that plans with predicted, rounded runtimes and kills by estimates; see :func:`planning`.

    Everything outside the protocol (``events_examined``, ``take_reservation_changes``, ...) is
    passed through to the wrapped scheduler.

    Attributes:
        scheduler: The wrapped scheduler (never shared: :meth:`copy` copies it).
        predictor: The runtime predictor (a template: each run learns on its own copy).
        resolution: Planned runtimes are rounded up to a multiple of this many seconds (0: exact).
        correction: What happens when a job outlives its planned runtime (see :data:`CORRECTIONS`).
    """

    scheduler: Scheduler
    predictor: Predictor | StatefulPredictor = attrs.field(default=user_estimate, validator=_predictor)
    resolution: float = attrs.field(default=0.0, validator=_resolution)
    correction: Literal["estimate", "steps"] = attrs.field(default="estimate", validator=_correction)
    _own: Predictor = attrs.field(init=False, default=user_estimate)
    # The own copy again if it learns (a StatefulPredictor), else None.
    _learner: StatefulPredictor | None = attrs.field(init=False, default=None)
    _jobs: dict[int, Job] = attrs.field(init=False, factory=dict)
    _plans: dict[int, Job] = attrs.field(init=False, factory=dict)
    _started: dict[int, float] = attrs.field(init=False, factory=dict)
    # Running jobs planned to end before their kill time, as a heap of (planned end, seq, job id).
    _due: list[tuple[float, int, int]] = attrs.field(init=False, factory=list)
    _seq: int = attrs.field(init=False, default=0)
    _predicted: dict[int, float] = attrs.field(init=False, factory=dict)
    _extended: dict[int, int] = attrs.field(init=False, factory=dict)
    # The protocol's door (backfill.schedulers.machinery.door), checked before this wrapper's own records
    # change.
    _door: Door = attrs.field(init=False, factory=lambda: Door(""))

    def __attrs_post_init__(self) -> None:
        if isinstance(self.scheduler, PlanningScheduler):
            raise ParameterError(
                f"{self.scheduler.name} already plans with a predictor or a resolution; give all of "
                "them to one planning() call"
            )
        if self.predictor is not user_estimate and not isinstance(self.scheduler, Replanning):
            raise ParameterError(
                f"{scheduler_name(self.scheduler)} cannot plan with predictions: it has no "
                "extend(job, end, now) hook to re-plan a job that outlives its prediction"
            )

    @property
    def name(self) -> str:
        """The wrapped scheduler's name and the planning options, e.g. ``EASY(fcfs) [predictor=last2]``."""
        parts = []
        if self.predictor is not user_estimate:
            parts.append(f"predictor={predictor_name(self.predictor)}")
            if self.correction != "estimate":
                parts.append(f"correction={self.correction}")
        if self.resolution:
            parts.append(f"resolution={self.resolution:g}")
        inner = scheduler_name(self.scheduler)
        return f"{inner} [{', '.join(parts)}]" if parts else inner

    def __repr__(self) -> str:
        return f"planning({self.scheduler!r}, {self.name})"

    @property
    def resources(self) -> tuple[Resource, ...]:
        """The wrapped scheduler's resources besides processors, which the host plans and records.

        A planned job keeps its amounts (only its estimate changes), and a re-plan after an
        extension moves reservations where every amount fits.
        """
        return tuple(getattr(self.scheduler, "resources", ()))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.scheduler, name)

    # -- the protocol --------------------------------------------------------------------------------

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job and all history; reset the wrapped scheduler."""
        self._door = Door(self.name)
        self._door.reset(machine_size, now)
        predictor = self.predictor
        if isinstance(predictor, StatefulPredictor):
            own = predictor.copy()
            own.reset()
            self._own, self._learner = own, own
        else:
            self._own, self._learner = predictor, None
        self._jobs, self._plans, self._started = {}, {}, {}
        self._due, self._seq = [], 0
        self._predicted, self._extended = {}, {}
        self.scheduler.reset(machine_size, now)

    def submit(self, job: Job, now: float) -> None:
        """Predict the job's runtime, round it, and submit it so planned to the wrapped scheduler.

        Raises:
            ScheduleError: If the prediction is not a finite number >= 0 (naming the job and the
                predictor), or the job does not pass the door (:mod:`backfill.schedulers.machinery.door`) or
                is already queued or running.
        """
        self._door.submit(job, now)
        if job.id in self._jobs:
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already queued or running; "
                "a host submits each job once"
            )
        estimate = job.estimate
        if self.predictor is user_estimate:
            predicted = estimate
        else:
            value = self._own(job, now)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
                raise ScheduleError(
                    f"{self.name}: predictor {predictor_name(self.predictor)} gave job {job.id} the "
                    f"runtime {value!r}; a prediction is a finite number of seconds >= 0"
                )
            predicted = min(float(value), estimate)
            if predicted < MIN_PLANNED:
                predicted = min(MIN_PLANNED, estimate)
        planned = self._rounded(predicted)
        plan = job if planned == estimate else attrs.evolve(job, estimate=planned)
        self._jobs[job.id] = job
        self._plans[job.id] = plan
        self._predicted[job.id] = predicted
        self.scheduler.submit(plan, now)

    def complete(self, job: Job, now: float) -> None:
        """Tell the predictor the job's runtime and the wrapped scheduler that it ended.

        Raises:
            ScheduleError: If the job was not running, or ended after its start + estimate.
        """
        self._door.complete(job, now)
        start = self._started.get(job.id)
        if start is None:
            state = "queued" if job.id in self._jobs else "not running"
            raise ScheduleError(f"{self.name}: job {job.id} completed at {now:g} but was {state}")
        if now > start + job.estimate:
            raise ScheduleError(
                f"{self.name}: job {job.id} completed at {now:g}, after its start + estimate "
                f"({start + job.estimate:g}); a host ends every job by then"
            )
        del self._started[job.id]
        del self._jobs[job.id]
        plan = self._plans.pop(job.id)
        if self._learner is not None:
            self._learner.completed(job, now - start, now)
        self.scheduler.complete(plan, now)

    def schedule(self, now: float) -> list[Job]:
        """Extend the jobs that outlived their planned runtime, then decide; return the host's jobs."""
        self._door.schedule(now)
        due = self._due
        while due and due[0][0] <= now:
            end, _, jid = heapq.heappop(due)
            start = self._started.get(jid)
            if start is not None and start + self._plans[jid].estimate == end:
                self._extend(jid, start, now)
        started = self.scheduler.schedule(now)
        jobs = self._jobs
        out = []
        for plan in started:
            job = jobs[plan.id]
            self._started[job.id] = now
            if plan.estimate < job.estimate:
                self._seq += 1
                heapq.heappush(due, (now + plan.estimate, self._seq, job.id))
            out.append(job)
        return out

    def next_wakeup(self) -> float | None:
        """The wrapped scheduler's wake-up, or the earliest planned end of a job that may outlive it."""
        wake = self.scheduler.next_wakeup()
        due = self._due
        while due:
            end, _, jid = due[0]
            start = self._started.get(jid)
            if start is not None and start + self._plans[jid].estimate == end:
                return end if wake is None else min(wake, end)
            heapq.heappop(due)
        return wake

    def reservations(self) -> Mapping[int, float]:
        """The wrapped scheduler's reservations (made on planned runtimes)."""
        return self.scheduler.reservations()

    def copy(self) -> Self:
        """Return an independent copy: the wrapped scheduler's copy, the predictor's, every record's."""
        other = type(self).__new__(type(self))
        for a in attrs.fields(type(self)):
            object.__setattr__(other, a.name, getattr(self, a.name))
        other.scheduler = self.scheduler.copy()
        if self._learner is not None:
            other._own = other._learner = self._learner.copy()
        other._jobs = self._jobs.copy()
        other._plans = self._plans.copy()
        other._started = self._started.copy()
        other._due = self._due.copy()
        other._predicted = self._predicted.copy()
        other._extended = self._extended.copy()
        other._door = self._door.copy()
        return other

    # -- what a schedule reads -----------------------------------------------------------------------

    def planned_runtimes(self) -> Mapping[int, float]:
        """The runtime each job submitted since :meth:`reset` was first planned with (before rounding)."""
        return MappingProxyType(self._predicted)

    def extensions(self) -> Mapping[int, int]:
        """How many times each job that outlived its planned runtime was extended."""
        return MappingProxyType(self._extended)

    # -- internals -----------------------------------------------------------------------------------

    def _rounded(self, runtime: float) -> float:
        r = self.resolution
        if not r:
            return runtime
        # Round up, but a runtime already on the grid stays (division error must not add a step).
        k = math.ceil(runtime / r)
        if (k - 1) * r >= runtime:
            k -= 1
        # A planned job is a Job, whose estimate is at most MAX_TIME; the runtime never is more.
        return min(k * r, MAX_TIME)

    def _extend(self, jid: int, start: float, now: float) -> None:
        job = self._jobs[jid]
        plan = self._plans[jid]
        new = self._rounded(job.estimate)
        if self.correction == "steps":
            # The first step that plans the job longer than now (with a resolution, rounding may
            # have planned it past the next steps already).
            for step in STEPS:
                longer = self._rounded(min(self._predicted[jid] + step, job.estimate))
                if longer > plan.estimate:
                    new = longer
                    break
        plan = attrs.evolve(plan, estimate=new)
        self._plans[jid] = plan
        self._extended[jid] = self._extended.get(jid, 0) + 1
        self.scheduler.extend(plan, start + new, now)  # type: ignore[attr-defined]
        if new < job.estimate:
            self._seq += 1
            heapq.heappush(self._due, (start + new, self._seq, jid))


def planning(
    scheduler: Scheduler,
    *,
    predictor: Predictor | StatefulPredictor = user_estimate,
    resolution: float = 0.0,
    correction: Literal["estimate", "steps"] = "estimate",
) -> Scheduler:
    """Return ``scheduler`` planning with predicted runtimes, rounded up to ``resolution`` seconds.

    With the default predictor and no resolution the scheduler itself is returned: it already plans
    with estimates. See the module docstring for the semantics.

    Args:
        scheduler: Any scheduler; with a predictor, one that has the :class:`Replanning` hook.
        predictor: A :mod:`~backfill.schedulers.prediction.predictors` predictor, or any callable
            ``(job, now) -> seconds``.
        resolution: Round planned runtimes up to a multiple of this many seconds (Slurm's
            ``bf_resolution``); 0 plans them exactly.
        correction: ``"estimate"`` or ``"steps"``, for a job that outlives its planned runtime.

    Raises:
        ParameterError: A bad resolution or correction, a predictor that is not callable, or a
            scheduler without the ``extend`` hook given a predictor.

    Examples:
        >>> from backfill import EASY, UserHistory
        >>> planning(EASY(), predictor=UserHistory(), resolution=60).name
        'EASY(fcfs) [predictor=last2, resolution=60]'
        >>> planning(EASY()).name
        'EASY(fcfs)'
    """
    wrapped = PlanningScheduler(scheduler, predictor, resolution, correction)
    if predictor is user_estimate and not resolution:
        return scheduler
    return wrapped
