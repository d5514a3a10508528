"""Parallel-job scheduling algorithms for HPC batch systems, and the tools to evaluate them."""

from backfill.errors import BackfillError, ScheduleError, SWFError
from backfill.priorities import fcfs, ljf, lxf, njf, sjf, wjf
from backfill.profile import Profile, ProfileError
from backfill.schedule import Schedule
from backfill.schedulers import EASY, FCFS, Conservative, Scheduler
from backfill.simulator import Simulator, simulate
from backfill.validation import check_reservations, validate_schedule
from backfill.workload import Job, Workload

__all__ = [
    "EASY",
    "FCFS",
    "BackfillError",
    "Conservative",
    "Job",
    "Profile",
    "ProfileError",
    "SWFError",
    "Schedule",
    "ScheduleError",
    "Scheduler",
    "Simulator",
    "Workload",
    "check_reservations",
    "fcfs",
    "ljf",
    "lxf",
    "njf",
    "simulate",
    "sjf",
    "validate_schedule",
    "wjf",
]
