"""Experiments: sweeps over schedulers and workloads, fair start times, plots."""

from backfill.experiments.cache import CellStore, canonical_json, content_key, file_digest, library_version
from backfill.experiments.fair_start import (
    FairStartTimes,
    fair_start_times,
    srinivasan_fair_starts,
)
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
    "FairStartTimes",
    "Grid",
    "ModelWorkload",
    "ParamValue",
    "SCHEDULERS",
    "SchedulerSpec",
    "SweepResult",
    "TraceWorkload",
    "WorkloadSpec",
    "canonical_json",
    "content_key",
    "fair_start_times",
    "file_digest",
    "library_version",
    "run_sweep",
    "srinivasan_fair_starts",
]
