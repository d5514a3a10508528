"""Parallel-job scheduling algorithms for HPC batch systems, and the tools to evaluate them."""

from backfill.errors import BackfillError, ScheduleError, SWFError
from backfill.workload import Job, Workload

__all__ = ["BackfillError", "Job", "SWFError", "ScheduleError", "Workload"]
