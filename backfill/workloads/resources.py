"""Resources besides processors: named pools of capacity that jobs hold while they run.

A machine has processors (the workload's ``machine_size``) and, optionally, further consumable
resources: memory, GPUs, licences, burst-buffer space. Each is a :class:`Resource`: a name, a
capacity (whole units: kB of memory, GPUs, licences) and a rule giving the amount a job holds from
its start to its end. A scheduler built with ``resources=(...)`` plans every one of them as it plans
processors (:class:`~backfill.profile.ResourceProfile`); a job starts only where all its
amounts fit.

Each resource is modelled as one pool per machine (or partition): placement inside nodes, and the
fragmentation it causes, are not modelled. A job asking 8 processors and 16 GB fits wherever 8
processors and 16 GB are free in total, as in Flux's ``planner_multi`` (one planner per resource
type, intersected); Slurm plans whole nodes over time and checks memory and GRES per node only for
the jobs it starts now, so it can refuse a start this model allows.

Examples:
    >>> from backfill.workloads.workload import Job
    >>> memory = Resource.memory(capacity=16 * 2**20)  # 16 GB in kB
    >>> job = Job(id=1, submit=0.0, processors=4, runtime=60.0, estimate=60.0, requested_memory=2**20)
    >>> memory.amount(job)  # 1 GB per processor, 4 processors
    4194304
    >>> requests(job, (memory,))
    Amounts(4, 4194304)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import JobError, ParameterError
from backfill.workloads.amounts import Amounts
from backfill.workloads.workload import Job, Workload

__all__ = ["Resource", "capacities", "check_resources", "memory_request", "requests"]


def memory_request(job: Job) -> int:
    """Memory a job holds, in kB: its processors times its memory per processor, rounded up.

    The per-processor amount is the requested memory (SWF field 10, kB per processor) where the log
    records one, else the average used memory (field 7), as AccaSim does, else nothing (0).
    The reader counts the jobs that fall back (see :func:`~backfill.workloads.swf.read_swf`).

    Examples:
        >>> from backfill.workloads.workload import Job
        >>> memory_request(Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=1.0,
        ...                    memory=300.5, requested_memory=-1))
        601
    """
    per = job.requested_memory if job.requested_memory > 0 else job.memory
    if per > 0 and job.processors > 0:
        return math.ceil(per * job.processors)
    return 0


def _request_name(request: Callable[[Job], int]) -> str:
    return getattr(request, "__qualname__", None) or repr(request)


def _is_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value.isidentifier() or value == "processors":
        raise ParameterError(
            f"Resource.name must be an identifier other than 'processors' (the machine's own), got {value!r}"
        )


def _is_capacity(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ParameterError(f"Resource.capacity must be an int >= 1 (whole units), got {value!r}")


def _is_request(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(value):
        raise ParameterError(f"Resource.request must be a callable job -> int, got {value!r}")


@attrs.frozen
class Resource:
    """A consumable resource of ``capacity`` whole units; each job holds ``request(job)`` while it runs.

    ``request`` is a plain callable from a :class:`Job` to an int >= 0 (a module-level function, so
    that sweeps can send it to their workers). Two resources are equal when their name, capacity and
    request are.

    Args:
        name: An identifier other than ``processors``: ``memory``, ``gpus``, ``licences``, ...
        capacity: Units the machine (or partition) has: an int >= 1.
        request: The units a job holds from its start to its end.

    Examples:
        >>> Resource.memory(1024)
        Resource(name='memory', capacity=1024, request=memory_request)
        >>> Resource("gpus", 0, memory_request)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: Resource.capacity must be an int >= 1 (whole units), got 0
    """

    name: str = attrs.field(validator=_is_name)
    capacity: int = attrs.field(validator=_is_capacity)
    request: Callable[[Job], int] = attrs.field(validator=_is_request, repr=_request_name)

    @classmethod
    def memory(cls, capacity: int) -> Resource:
        """Memory in kB, each job holding :func:`memory_request` (SWF fields 10, else 7)."""
        return cls("memory", capacity, memory_request)

    def amounts(self, workload: Workload) -> npt.NDArray[np.int64]:
        """Every job's :meth:`amount`, in the workload's row order.

        :func:`memory_request` runs on the workload's columns at once (the same products, rounded
        up the same way: ``tests/test_resources.py`` checks); any other rule job by job.
        O(n) for n jobs.

        Raises:
            JobError: If a request is not an int >= 0 (or, for another rule, is 2**63 or more).

        Examples:
            >>> from backfill.workloads.workload import Job, Workload
            >>> jobs = [Job(id=i, submit=0.0, processors=i, runtime=1.0, estimate=1.0,
            ...             requested_memory=1.5) for i in (1, 2, 3)]
            >>> Resource.memory(64).amounts(Workload.from_jobs(jobs, machine_size=4)).tolist()
            [2, 3, 5]
        """
        if self.request is memory_request:
            return _memory_amounts(workload)
        values = [self.amount(job) for job in workload]
        if values and max(values) >= 2**63:
            raise JobError(f"request {max(values)} is 2**63 or more", field=self.name)
        return np.array(values, dtype=np.int64)

    def amount(self, job: Job) -> int:
        """The units ``job`` holds, checked: an int >= 0.

        Raises:
            JobError: If the request is not an int >= 0, naming the job and the resource.
        """
        value = self.request(job)
        if value.__class__ is int and value >= 0:  # the usual answer, without the checks below
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise JobError(f"request must be an int >= 0, got {value!r}", job_id=job.id, field=self.name)
        return int(value)


def _memory_amounts(workload: Workload) -> npt.NDArray[np.int64]:
    """:func:`memory_request` of every job at once, in row order: the same float products, rounded up."""
    r = workload.records
    asked, used, processors = r["requested_memory"], r["memory"], r["processors"]
    per = np.where(asked > 0, asked, used)
    whole = np.ceil(per * processors.astype(np.float64))
    return np.where((per > 0) & (processors > 0), whole, 0).astype(np.int64)


def check_resources(resources: Iterable[Resource]) -> tuple[Resource, ...]:
    """Return ``resources`` as a tuple, refusing anything but :class:`Resource` objects of distinct names.

    Raises:
        ParameterError: If an item is not a Resource, or two share a name.
    """
    if isinstance(resources, Resource | str) or not isinstance(resources, Iterable):
        raise ParameterError(f"resources must be a sequence of Resource objects, got {resources!r}")
    resources = tuple(resources)
    for r in resources:
        if not isinstance(r, Resource):
            raise ParameterError(f"resources must be Resource objects, got {r!r}")
    names = [r.name for r in resources]
    if len(set(names)) != len(names):
        raise ParameterError(f"resources must have distinct names, got {names}")
    return resources


def capacities(machine_size: int, resources: Iterable[Resource]) -> Amounts:
    """The machine's capacities: its processors, then each resource's capacity in order.

    Examples:
        >>> capacities(128, [Resource.memory(2**30)])
        Amounts(128, 1073741824)
    """
    return Amounts([machine_size, *(r.capacity for r in check_resources(resources))])


def requests(job: Job, resources: Iterable[Resource]) -> Amounts:
    """A job's amounts: its processors, then what it holds of each resource in order.

    Raises:
        JobError: If a resource's request for the job is not an int >= 0.
    """
    return Amounts([job.processors, *(r.amount(job) for r in resources)])
