"""Parallel-job scheduling algorithms for HPC batch systems, and the tools to evaluate them."""

from backfill.cleaning import CleaningPolicy, ReadReport
from backfill.entitlement import entitled_processors
from backfill.errors import BackfillError, ScheduleError, SWFError
from backfill.fair_start import FairStartTimes, fair_start_times, srinivasan_fair_starts
from backfill.fairness import (
    FairnessBuckets,
    fair_slowdowns,
    fairness_buckets,
    skip_unfairness,
    slowdown_ratios,
    unfairness,
)
from backfill.fairshare import fair_share_unfairness, fair_shares, resources_received
from backfill.groups import (
    category_shares,
    group_summary,
    job_categories,
    per_category,
    per_user,
    runtime_classes,
)
from backfill.lublin import lublin_feitelson, thesis_arrival_shape
from backfill.metrics import (
    bounded_slowdowns,
    makespan,
    mean_top_wait,
    mean_wait_of_widest,
    metrics_table,
    percent_improvement,
    relative_response_times,
    response_times,
    summarize,
    to_rows,
    utilization,
    wait_times,
)
from backfill.phases import high_load_phases, high_load_utilization, phase_utilization
from backfill.priorities import fcfs, ljf, lxf, njf, sjf, wjf
from backfill.profile import Profile, ProfileError
from backfill.schedule import Schedule
from backfill.schedulers import (
    DC,
    EASY,
    FCFS,
    PC,
    AdaptiveThreshold,
    CategoryThresholds,
    Conservative,
    RelShare,
    Scheduler,
    Selective,
    category_thresholds,
    starvation_threshold,
)
from backfill.simulator import Simulator, simulate
from backfill.swf import read_swf, write_swf
from backfill.usershares import (
    actual_usage,
    benefit_and_suffer,
    entitled_usage,
    share_balance,
    share_deviation,
    user_measures,
)
from backfill.validation import check_reservations, validate_schedule
from backfill.workload import Job, Workload

__all__ = [
    "AdaptiveThreshold",
    "BackfillError",
    "CategoryThresholds",
    "CleaningPolicy",
    "Conservative",
    "DC",
    "EASY",
    "FCFS",
    "FairStartTimes",
    "FairnessBuckets",
    "Job",
    "PC",
    "Profile",
    "ProfileError",
    "ReadReport",
    "RelShare",
    "SWFError",
    "Schedule",
    "ScheduleError",
    "Scheduler",
    "Selective",
    "Simulator",
    "Workload",
    "actual_usage",
    "benefit_and_suffer",
    "bounded_slowdowns",
    "category_shares",
    "category_thresholds",
    "check_reservations",
    "entitled_processors",
    "entitled_usage",
    "fair_share_unfairness",
    "fair_shares",
    "fair_slowdowns",
    "fair_start_times",
    "fairness_buckets",
    "fcfs",
    "group_summary",
    "high_load_phases",
    "high_load_utilization",
    "job_categories",
    "ljf",
    "lublin_feitelson",
    "lxf",
    "makespan",
    "mean_top_wait",
    "mean_wait_of_widest",
    "metrics_table",
    "njf",
    "per_category",
    "per_user",
    "percent_improvement",
    "phase_utilization",
    "read_swf",
    "relative_response_times",
    "resources_received",
    "response_times",
    "runtime_classes",
    "share_balance",
    "share_deviation",
    "simulate",
    "sjf",
    "skip_unfairness",
    "slowdown_ratios",
    "srinivasan_fair_starts",
    "starvation_threshold",
    "summarize",
    "thesis_arrival_shape",
    "to_rows",
    "unfairness",
    "user_measures",
    "utilization",
    "validate_schedule",
    "wait_times",
    "wjf",
    "write_swf",
]
