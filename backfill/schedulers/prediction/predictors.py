"""Runtime predictors: the runtime a scheduler plans a job with, while its estimate stays its kill time.

A scheduler plans with each job's *estimate* unless it is wrapped by
:func:`~backfill.schedulers.prediction.planning.planning`, which asks a predictor instead. A predictor is,
like a priority, a plain callable ``(job, now) -> seconds``, called once when the job arrives; one that
learns from history implements :class:`StatefulPredictor`, and the planning scheduler keeps its own
copy of it (never the object it was given), tells it of every completion with the runtime the job
had, and copies it along with itself, so forks and copies never share history.

Shipped:

* :func:`user_estimate`, the default: the job's estimate, i.e. today's behaviour;
* :func:`exact_runtime`, an oracle that knows the runtime (for bounds: "what if predictions were
  perfect");
* :class:`UserHistory`, Tsafrir, Etsion and Feitelson (2007)'s predictor: the mean runtime of the
  user's last two completed jobs, capped by the job's estimate;
* any callable of your own with the same signature.

The planning scheduler checks every prediction: it must be a number, finite and not negative
(anything else is a :class:`~backfill.errors.ScheduleError` naming the job and the predictor);
a prediction above the estimate is capped at it, since the job is killed then anyway.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, Self, runtime_checkable

import attrs

from backfill.errors import ParameterError
from backfill.workloads.workload import Job

__all__ = [
    "Predictor",
    "StatefulPredictor",
    "UserHistory",
    "exact_runtime",
    "predictor_name",
    "user_estimate",
]

#: A runtime predictor: ``(job, now) -> seconds`` the scheduler plans the job with.
Predictor = Callable[[Job, float], float]


@runtime_checkable
class StatefulPredictor(Protocol):
    """A predictor that learns from the jobs that ended (a user's recent runtimes, say).

    The planning scheduler takes its own :meth:`copy` at reset (the object it was given is never
    changed, so one object can serve many schedulers), calls :meth:`reset`, and then
    :meth:`completed` for every job that ends, in the order they end. ``__call__`` must not change
    the state.
    """

    def __call__(self, job: Job, now: float) -> float:
        """Return the runtime to plan ``job`` with, at its arrival ``now``; no side effects."""
        ...

    def reset(self) -> None:
        """Forget all history."""
        ...

    def completed(self, job: Job, runtime: float, now: float) -> None:
        """Learn that ``job`` ended at ``now`` after running ``runtime`` seconds."""
        ...

    def copy(self) -> Self:
        """Return an independent copy with the same history."""
        ...


def user_estimate(job: Job, now: float) -> float:
    """Plan with the user's estimate (the default: a scheduler that predicts nothing).

    Examples:
        >>> user_estimate(Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=60.0), 0.0)
        60.0
    """
    return job.estimate


def exact_runtime(job: Job, now: float) -> float:
    """Plan with the job's actual runtime: an oracle, for bounds on what prediction can give.

    Examples:
        >>> exact_runtime(Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=60.0), 0.0)
        5.0
    """
    return job.runtime


def _positive_count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{attribute.name} must be a positive int, got {value!r}")


@attrs.define(eq=False)
class UserHistory:
    """The mean runtime of the user's last ``count`` completed jobs, capped by the estimate.

    Tsafrir, Etsion and Feitelson (2007, §3) predict a job's runtime as the average of the runtimes
    of the last two jobs *of the same user* that have ended, never above the user's estimate (the
    job is killed there). A user with fewer than ``count`` ended jobs, and every job of unknown
    user (``-1``), is planned with the estimate, as a scheduler without history would. History is
    only what has ended by the job's arrival: jobs still running teach nothing yet.

    Args:
        count: How many of the user's latest runtimes to average (2 in the paper).

    Examples:
        >>> p = UserHistory()
        >>> job = Job(id=3, submit=9.0, processors=1, runtime=5.0, estimate=100.0, user=7)
        >>> p(job, 9.0)  # no history yet: the estimate
        100.0
        >>> for i, runtime in enumerate((10.0, 30.0, 50.0)):
        ...     p.completed(Job(id=i, submit=0.0, processors=1, runtime=runtime, estimate=99.0, user=7),
        ...                 runtime, 8.0)
        >>> p(job, 9.0), p
        (40.0, UserHistory(count=2))
    """

    count: int = attrs.field(default=2, validator=_positive_count)
    _recent: dict[int, deque[float]] = attrs.field(init=False, factory=dict, repr=False)

    @property
    def name(self) -> str:
        """Short name for tables: ``last2`` for the paper's predictor."""
        return f"last{self.count}"

    def __call__(self, job: Job, now: float) -> float:
        """The mean of the user's last ``count`` runtimes, capped by the estimate; else the estimate."""
        recent = self._recent.get(job.user)
        if recent is None or len(recent) < self.count:
            return job.estimate
        return min(math.fsum(recent) / len(recent), job.estimate)

    def reset(self) -> None:
        """Forget every user's runtimes."""
        self._recent = {}

    def completed(self, job: Job, runtime: float, now: float) -> None:
        """Remember the runtime as the user's latest (jobs of unknown user are not remembered)."""
        if job.user < 0:
            return
        recent = self._recent.get(job.user)
        if recent is None:
            recent = self._recent[job.user] = deque(maxlen=self.count)
        recent.append(runtime)

    def copy(self) -> Self:
        """Return an independent copy with the same history. O(users)."""
        other = type(self)(self.count)
        other._recent = {user: deque(r, maxlen=self.count) for user, r in self._recent.items()}
        return other


def predictor_name(predictor: Predictor | StatefulPredictor) -> str:
    """Return a short name for tables: the ``name`` attribute, the function name, or the class name.

    Examples:
        >>> predictor_name(user_estimate), predictor_name(UserHistory(3))
        ('estimate', 'last3')
    """
    if predictor is user_estimate:
        return "estimate"
    if predictor is exact_runtime:
        return "exact"
    name = getattr(predictor, "name", None)
    if isinstance(name, str):
        return name
    return getattr(predictor, "__name__", type(predictor).__name__)
