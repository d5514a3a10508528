"""Workloads: jobs and workloads, SWF and Batsim reading and writing, cleaning, the Lublin-Feitelson model."""

from backfill.workloads.batsim import (
    BATSIM_POLICY,
    BATSIM_PROFILE_TYPES,
    batsim_ids,
    read_batsim_workload,
    write_batsim_workload,
)
from backfill.workloads.cleaning import (
    CleaningPolicy,
    OverrunPolicy,
    ProcessorsChoice,
    ReadReport,
)
from backfill.workloads.lublin import (
    JobClass,
    lublin_feitelson,
)
from backfill.workloads.request_table import (
    RequestTable,
    read_batsim_requests,
)
from backfill.workloads.swf import (
    read_swf,
    write_swf,
)
from backfill.workloads.workload import (
    JOB_DTYPE,
    SWF_FIELDS,
    Job,
    Workload,
)

__all__ = [
    "BATSIM_POLICY",
    "BATSIM_PROFILE_TYPES",
    "CleaningPolicy",
    "JOB_DTYPE",
    "Job",
    "JobClass",
    "OverrunPolicy",
    "ProcessorsChoice",
    "ReadReport",
    "RequestTable",
    "SWF_FIELDS",
    "Workload",
    "batsim_ids",
    "lublin_feitelson",
    "read_batsim_requests",
    "read_batsim_workload",
    "read_swf",
    "write_batsim_workload",
    "write_swf",
]
