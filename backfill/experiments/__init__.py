"""Experiments: sweeps over schedulers and workloads, fair start times, plots."""

from backfill.experiments.cache import CellStore, canonical_json, content_key, file_digest, library_version
from backfill.experiments.columns import EXTRA_COLUMNS, MEASURE_COLUMNS, extra_measures
from backfill.experiments.fair_start import (
    FairStartTimes,
    fair_start_times,
    srinivasan_fair_starts,
)
from backfill.experiments.partitioned import PartitionSpec
from backfill.experiments.replications import interval, replication_summary, t_quantile
from backfill.experiments.specs import (
    SCHEDULERS,
    ModelWorkload,
    ParamValue,
    SchedulerSpec,
    TraceWorkload,
    WorkloadSpec,
)
from backfill.experiments.sweep import (
    COLUMNS,
    ESTIMATES,
    Cell,
    Grid,
    SweepResult,
    run_sweep,
)

__all__ = [
    "COLUMNS",
    "Cell",
    "CellStore",
    "ESTIMATES",
    "EXTRA_COLUMNS",
    "FairStartTimes",
    "Grid",
    "MEASURE_COLUMNS",
    "ModelWorkload",
    "ParamValue",
    "PartitionSpec",
    "SCHEDULERS",
    "SchedulerSpec",
    "SweepResult",
    "TraceWorkload",
    "WorkloadSpec",
    "canonical_json",
    "content_key",
    "extra_measures",
    "fair_start_times",
    "file_digest",
    "interval",
    "library_version",
    "replication_summary",
    "run_sweep",
    "srinivasan_fair_starts",
    "t_quantile",
]
