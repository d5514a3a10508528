"""Parallel-job scheduling algorithms for HPC batch systems, and the tools to evaluate them."""

# First: the command line counts its time from the start of this import (backfill._clock).
import backfill._clock  # noqa: F401

# isort: split

from backfill._moved import install as _install_moved_paths
from backfill.admission import rejections
from backfill.errors import BackfillError, BatsimError, JobError, ParameterError, ScheduleError, SWFError
from backfill.experiments.columns import MEASURE_COLUMNS, extra_measures
from backfill.experiments.fair_start import FairStartTimes, fair_start_times, srinivasan_fair_starts
from backfill.experiments.partitioned import partition_fair_start_times
from backfill.experiments.replications import replication_summary, t_quantile
from backfill.experiments.sweep import (
    Cell,
    Grid,
    ModelWorkload,
    SchedulerSpec,
    SweepResult,
    TraceWorkload,
    run_sweep,
)
from backfill.measures.calibration import category_thresholds, starvation_threshold
from backfill.measures.fairness import (
    FairnessBuckets,
    fair_slowdowns,
    fairness_buckets,
    skip_unfairness,
    slowdown_ratios,
    unfairness,
)
from backfill.measures.fairshare import fair_share_unfairness, fair_shares, resources_received
from backfill.measures.groups import (
    category_shares,
    group_summary,
    job_categories,
    per_category,
    per_user,
    runtime_classes,
)
from backfill.measures.metrics import (
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
from backfill.measures.nodes import fragmentation, node_utilization
from backfill.measures.partitions import validate_partitions
from backfill.measures.phases import high_load_phases, high_load_utilization, phase_utilization
from backfill.measures.planning import (
    PLANNING_KEYS,
    guarantee_violations,
    never_reserved,
    planning_summary,
    prediction_mae,
    underprediction_rate,
)
from backfill.measures.resource_use import held_back, resource_utilization
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.measures.usershares import (
    actual_usage,
    benefit_and_suffer,
    entitled_usage,
    share_balance,
    share_deviation,
    user_measures,
)
from backfill.measures.validation import check_reservations, same_schedule, validate_schedule
from backfill.partitions import Partition, log_partitions, partition_sizes, simulate_partitions
from backfill.profile import Profile, ProfileError
from backfill.profile.demand import Demand, NodeFree
from backfill.profile.multi import ResourceProfile
from backfill.profile.nodes import NodeProfile
from backfill.profile.placement import best_fit, contiguous, first_fit
from backfill.schedule import Schedule
from backfill.schedulers import (
    DC,
    EASY,
    FCFS,
    G1,
    G2,
    PC,
    AdaptiveThreshold,
    CategoryThresholds,
    Conservative,
    Door,
    GuaranteeScheduler,
    GuardedScheduler,
    LookaheadSlack,
    PackingScores,
    QueueScheduler,
    RelShare,
    ReservationLog,
    RunningJob,
    Scheduler,
    SchedulerBase,
    Selective,
    SlackBackfill,
    SlackFactor,
    guarded,
    scheduler_name,
)
from backfill.schedulers.machinery.entitlement import entitled_processors
from backfill.schedulers.machinery.priorities import (
    PRIORITIES,
    RecentUsage,
    StatefulPriority,
    fcfs,
    ljf,
    lxf,
    njf,
    priority_name,
    sjf,
    wjf,
)
from backfill.schedulers.machinery.protocol import Placing
from backfill.schedulers.prediction.planning import PlanningScheduler, Replanning, planning
from backfill.schedulers.prediction.predictors import (
    StatefulPredictor,
    UserHistory,
    exact_runtime,
    predictor_name,
    user_estimate,
)
from backfill.simulator import Simulator, simulate
from backfill.workloads.amounts import Amounts, amount_of
from backfill.workloads.batsim import batsim_ids, read_batsim_workload, write_batsim_workload
from backfill.workloads.cleaning import CleaningPolicy, ReadReport
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.nodes import Allocation, Machine, NodeGroup, NodeRequest, tasks_request
from backfill.workloads.resources import Resource, default_capacity, memory_request
from backfill.workloads.swf import read_swf, write_swf
from backfill.workloads.workload import Job, Workload

_install_moved_paths()  # old module paths (backfill.metrics, ...) keep importing, with a warning

__all__ = [
    "AdaptiveThreshold",
    "Allocation",
    "Amounts",
    "BackfillError",
    "BatsimError",
    "CategoryThresholds",
    "Cell",
    "CleaningPolicy",
    "Conservative",
    "DC",
    "Demand",
    "Door",
    "EASY",
    "FCFS",
    "FairStartTimes",
    "FairnessBuckets",
    "G1",
    "G2",
    "Grid",
    "GuaranteeScheduler",
    "GuardedScheduler",
    "Job",
    "JobError",
    "LookaheadSlack",
    "MEASURE_COLUMNS",
    "Machine",
    "ModelWorkload",
    "NodeFree",
    "NodeGroup",
    "NodeProfile",
    "NodeRequest",
    "PC",
    "PLANNING_KEYS",
    "PRIORITIES",
    "PackingScores",
    "ParameterError",
    "Partition",
    "Placing",
    "PlanningScheduler",
    "Profile",
    "ProfileError",
    "QueueScheduler",
    "ReadReport",
    "RecentUsage",
    "RelShare",
    "Replanning",
    "ReservationLog",
    "Resource",
    "ResourceProfile",
    "RunningJob",
    "SWFError",
    "Schedule",
    "ScheduleError",
    "Scheduler",
    "SchedulerBase",
    "SchedulerSpec",
    "Selective",
    "Simulator",
    "SlackBackfill",
    "SlackFactor",
    "StatefulPredictor",
    "StatefulPriority",
    "SweepResult",
    "TraceWorkload",
    "Trim",
    "UserHistory",
    "Workload",
    "actual_usage",
    "amount_of",
    "batsim_ids",
    "benefit_and_suffer",
    "best_fit",
    "bounded_slowdowns",
    "category_shares",
    "category_thresholds",
    "check_reservations",
    "contiguous",
    "default_capacity",
    "entitled_processors",
    "entitled_usage",
    "exact_runtime",
    "extra_measures",
    "fair_share_unfairness",
    "fair_shares",
    "fair_slowdowns",
    "fair_start_times",
    "fairness_buckets",
    "fcfs",
    "first_fit",
    "fragmentation",
    "group_summary",
    "guarantee_violations",
    "guarded",
    "held_back",
    "high_load_phases",
    "high_load_utilization",
    "job_categories",
    "ljf",
    "log_partitions",
    "lublin_feitelson",
    "lxf",
    "makespan",
    "mean_top_wait",
    "mean_wait_of_widest",
    "measured_jobs",
    "memory_request",
    "metrics_table",
    "never_reserved",
    "njf",
    "node_utilization",
    "partition_fair_start_times",
    "partition_sizes",
    "per_category",
    "per_user",
    "percent_improvement",
    "phase_utilization",
    "planning",
    "planning_summary",
    "prediction_mae",
    "predictor_name",
    "priority_name",
    "read_batsim_workload",
    "read_swf",
    "rejections",
    "relative_response_times",
    "replication_summary",
    "resource_utilization",
    "resources_received",
    "response_times",
    "run_sweep",
    "runtime_classes",
    "same_schedule",
    "scheduler_name",
    "share_balance",
    "share_deviation",
    "simulate",
    "simulate_partitions",
    "sjf",
    "skip_unfairness",
    "slowdown_ratios",
    "srinivasan_fair_starts",
    "starvation_threshold",
    "summarize",
    "t_quantile",
    "tasks_request",
    "to_rows",
    "trim_schedule",
    "underprediction_rate",
    "unfairness",
    "user_estimate",
    "user_measures",
    "utilization",
    "validate_partitions",
    "validate_schedule",
    "wait_times",
    "wjf",
    "write_batsim_workload",
    "write_swf",
]
