"""Schedulers: one module per algorithm, all satisfying :class:`~backfill.schedulers.protocol.Scheduler`."""

from backfill._moved import moved_name
from backfill.schedulers.base import RunningJob, SchedulerBase
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.dc import DC
from backfill.schedulers.door import Door
from backfill.schedulers.easy import EASY
from backfill.schedulers.fcfs import FCFS
from backfill.schedulers.guarantee import GuaranteeScheduler
from backfill.schedulers.guard import GuardedScheduler, guarded
from backfill.schedulers.lookahead import G1, G2, LookaheadSlack, PackingScores, SlackFactor
from backfill.schedulers.pc import PC
from backfill.schedulers.planning import PlanningScheduler, Replanning, planning
from backfill.schedulers.predictors import (
    StatefulPredictor,
    UserHistory,
    exact_runtime,
    predictor_name,
    user_estimate,
)
from backfill.schedulers.protocol import ReservationLog, Scheduler, scheduler_name
from backfill.schedulers.queue import QueueEntry, QueueScheduler
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


def __getattr__(name: str) -> object:
    # Names that moved out (the threshold calibration is a measure now) still import, with a warning.
    return moved_name(__name__, name)
