"""Schedulers: one module per algorithm, all satisfying the protocol :class:`~backfill.Scheduler`.

The algorithms sit here, one module each (``fcfs``, ``easy``, ``conservative``, ``pc``, ``dc``,
``selective``, ``relshare``, ``lookahead``, ``slack``), with the :mod:`~backfill.schedulers.registry`
that lists them and the private helpers they share (``_window``, ``_replan``, ``_long_queues``,
``_displace``, ``_easy_depth``, ...). What every scheduler is built on (the protocol, the bases, the
queue and its priorities, the door and the guard) is in :mod:`backfill.schedulers.machinery`; the
runtime predictors and the planning wrapper that uses them are in
:mod:`backfill.schedulers.prediction`. Neither imports an algorithm.
"""

from backfill._moved import keep_names, moved_name
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.dc import DC
from backfill.schedulers.easy import EASY
from backfill.schedulers.fcfs import FCFS
from backfill.schedulers.lookahead import G1, G2, LookaheadSlack, PackingScores, SlackFactor
from backfill.schedulers.machinery.base import RunningJob, SchedulerBase
from backfill.schedulers.machinery.door import Door
from backfill.schedulers.machinery.guarantee import GuaranteeScheduler
from backfill.schedulers.machinery.guard import GuardedScheduler, guarded
from backfill.schedulers.machinery.protocol import ReservationLog, Scheduler, scheduler_name
from backfill.schedulers.machinery.queue import QueueEntry, QueueScheduler
from backfill.schedulers.pc import PC
from backfill.schedulers.prediction.planning import PlanningScheduler, Replanning, planning
from backfill.schedulers.prediction.predictors import (
    StatefulPredictor,
    UserHistory,
    exact_runtime,
    predictor_name,
    user_estimate,
)
from backfill.schedulers.relshare import RelShare
from backfill.schedulers.selective import (
    AdaptiveThreshold,
    CategoryThresholds,
    Selective,
)
from backfill.schedulers.slack import SlackBackfill

__all__ = [
    "AdaptiveThreshold",
    "CategoryThresholds",
    "Conservative",
    "DC",
    "Door",
    "EASY",
    "FCFS",
    "G1",
    "G2",
    "GuaranteeScheduler",
    "GuardedScheduler",
    "LookaheadSlack",
    "PC",
    "PackingScores",
    "PlanningScheduler",
    "QueueEntry",
    "QueueScheduler",
    "RelShare",
    "Replanning",
    "ReservationLog",
    "RunningJob",
    "Scheduler",
    "SchedulerBase",
    "Selective",
    "SlackBackfill",
    "SlackFactor",
    "StatefulPredictor",
    "UserHistory",
    "exact_runtime",
    "guarded",
    "planning",
    "predictor_name",
    "scheduler_name",
    "user_estimate",
]


keep_names(__name__)  # the old path backfill.schedulers.planning, when imported, leaves planning the function


def __getattr__(name: str) -> object:
    # Names that moved out (the threshold calibration is a measure now) still import, with a warning.
    return moved_name(__name__, name)
