"""Parallel-job scheduling algorithms for HPC batch systems, and the tools to evaluate them."""

from backfill.cleaning import CleaningPolicy, ReadReport
from backfill.errors import BackfillError, ScheduleError, SWFError
from backfill.lublin import lublin_feitelson
from backfill.metrics import (
    bounded_slowdowns,
    makespan,
    mean_top_wait,
    mean_wait_of_widest,
    metrics_table,
    percent_improvement,
    response_times,
    summarize,
    to_rows,
    utilization,
    wait_times,
)
from backfill.priorities import fcfs, ljf, lxf, njf, sjf, wjf
from backfill.profile import Profile, ProfileError
from backfill.schedule import Schedule
from backfill.schedulers import DC, EASY, FCFS, PC, Conservative, Scheduler
from backfill.simulator import Simulator, simulate
from backfill.swf import read_swf, write_swf
from backfill.validation import check_reservations, validate_schedule
from backfill.workload import Job, Workload

__all__ = [
    "BackfillError",
    "CleaningPolicy",
    "Conservative",
    "DC",
    "EASY",
    "FCFS",
    "Job",
    "PC",
    "Profile",
    "ProfileError",
    "ReadReport",
    "SWFError",
    "Schedule",
    "ScheduleError",
    "Scheduler",
    "Simulator",
    "Workload",
    "bounded_slowdowns",
    "check_reservations",
    "fcfs",
    "ljf",
    "lublin_feitelson",
    "lxf",
    "makespan",
    "mean_top_wait",
    "mean_wait_of_widest",
    "metrics_table",
    "njf",
    "percent_improvement",
    "read_swf",
    "response_times",
    "simulate",
    "sjf",
    "summarize",
    "to_rows",
    "utilization",
    "validate_schedule",
    "wait_times",
    "wjf",
    "write_swf",
]
