"""Workloads: jobs and workloads, SWF reading and writing, cleaning, the Lublin-Feitelson model."""

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
    "CleaningPolicy",
    "JOB_DTYPE",
    "Job",
    "JobClass",
    "OverrunPolicy",
    "ProcessorsChoice",
    "ReadReport",
    "SWF_FIELDS",
    "Workload",
    "lublin_feitelson",
    "read_swf",
    "write_swf",
]
