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
from backfill.workloads.limits import MAX_AMOUNT
from backfill.workloads.workload import Job, Workload

__all__ = ["Resource", "capacities", "check_resources", "default_capacity", "memory_request", "requests"]


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
        whole = per * job.processors
        if whole == math.inf:  # a finite memory of 1e300 kB per processor times a width
            raise JobError(
                f"memory {per:g} kB per processor x {job.processors} processors is too large for a number",
                job_id=job.id,
                field="memory",
            )
        return math.ceil(whole)
    return 0


def _request_name(request: Callable[[Job], int]) -> str:
    return getattr(request, "__qualname__", None) or repr(request)


def _is_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value.isidentifier() or value == "processors":
        raise ParameterError(
            f"Resource.name must be an identifier other than 'processors' (the machine's own), got {value!r}"
        )


def _is_capacity(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= int(value) < MAX_AMOUNT:
        raise ParameterError(f"Resource.capacity must be an int >= 1, below 2**62 (units), got {value!r}")


def _is_request(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(value):
        raise ParameterError(f"Resource.request must be a callable job -> int, got {value!r}")


@attrs.frozen
class Resource:
    """A consumable resource of ``capacity`` whole units; each job holds ``request(job)`` while it runs.

    ``request`` is a plain callable from a :class:`Job` to an int >= 0 (a module-level function, so
    that sweeps can send it to their workers). Two resources are equal when their name, capacity and
    request are.

    Every capacity and every amount is below :data:`~backfill.workloads.limits.MAX_AMOUNT` (2**62),
    the one bound of amounts: the schedulers' profiles add and subtract them as 64-bit integers. The
    simulator rejects a job asking that much or more, with its reason, as it rejects a job asking more
    than the capacity; :meth:`amount` and :meth:`amounts` refuse it.

    Args:
        name: An identifier other than ``processors``: ``memory``, ``gpus``, ``licences``, ...
        capacity: Units the machine (or partition) has: an int from 1 to below 2**62.
        request: The units a job holds from its start to its end.

    Examples:
        >>> Resource.memory(1024)
        Resource(name='memory', capacity=1024, request=memory_request)
        >>> Resource("gpus", 0, memory_request)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: Resource.capacity must be an int >= 1, below 2**62 (units), got 0
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
            JobError: If a request is not an int >= 0, or is 2**62 (``MAX_AMOUNT``) or more, naming
                the first such job.

        Examples:
            >>> from backfill.workloads.workload import Job, Workload
            >>> jobs = [Job(id=i, submit=0.0, processors=i, runtime=1.0, estimate=1.0,
            ...             requested_memory=1.5) for i in (1, 2, 3)]
            >>> Resource.memory(64).amounts(Workload.from_jobs(jobs, machine_size=4)).tolist()
            [2, 3, 5]
        """
        values, past = _bounded_amounts(self, workload)
        if past.any():
            row = int(np.flatnonzero(past)[0])
            job = workload[row]
            self.amount(job)  # raises, naming the job and the amount
        return values

    def bounded_amounts(self, workload: Workload) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Every job's amount, and which ask ``MAX_AMOUNT`` (2**62) or more, held as that.

        What a host plans with: the jobs marked are rejected with their reason (the simulator does),
        every other amount is exact. O(n) for n jobs.

        Raises:
            JobError: A request that is not an int >= 0 (the rule's error, not the job's).

        Examples:
            >>> from backfill.workloads.workload import Job, Workload
            >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=1.0, memory=3.0),
            ...         Job(id=2, submit=0.0, processors=2, runtime=1.0, estimate=1.0, memory=1e30)]
            >>> amounts, past = Resource.memory(64).bounded_amounts(Workload.from_jobs(jobs, 4))
            >>> amounts.tolist() == [6, 2**62], past.tolist()
            (True, [False, True])
        """
        return _bounded_amounts(self, workload)

    def exact_amount(self, job: Job) -> int:
        """The units ``job`` asks exactly, however large: :meth:`amount` without the bound.

        What outputs write and the validator sums, so that a job past the bound is judged by what
        it asks, not by a wrapped or clipped number. O(1).

        Raises:
            JobError: A request that is not an int >= 0.

        Examples:
            >>> from backfill.workloads.workload import Job
            >>> job = Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=1.0, memory=1e19)
            >>> Resource.memory(64).exact_amount(job)
            20000000000000000000
        """
        return _exact_amount(self, job)

    def exact_amounts(self, workload: Workload, rows: npt.NDArray[np.intp]) -> list[int]:
        """:meth:`exact_amount` of the jobs at ``rows`` (row indices), in one numpy pass for memory. O(k).

        Raises:
            JobError: A request that is not an int >= 0.

        Examples:
            >>> from backfill.workloads.workload import Job, Workload
            >>> jobs = [Job(id=i, submit=0.0, processors=i, runtime=1.0, estimate=1.0, memory=2.5)
            ...         for i in (1, 2)]
            >>> Resource.memory(64).exact_amounts(Workload.from_jobs(jobs, 4), np.array([1, 0]))
            [5, 3]
        """
        return _exact_amounts(self, workload, rows)

    def amount(self, job: Job) -> int:
        """The units ``job`` holds, checked: an int >= 0.

        Raises:
            JobError: If the request is not an int >= 0, naming the job and the resource.
        """
        value = self.request(job)
        if value.__class__ is int and 0 <= value < MAX_AMOUNT:  # the usual answer, without the checks below
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise JobError(f"request must be an int >= 0, got {value!r}", job_id=job.id, field=self.name)
        if value >= MAX_AMOUNT:
            raise JobError(
                f"asks {int(value)} {self.name}, 2**62 (MAX_AMOUNT) or more: more than any capacity",
                job_id=job.id,
                field=self.name,
            )
        return int(value)


def _memory_wholes(workload: Workload) -> npt.NDArray[np.float64]:
    """:func:`memory_request` of every job at once, in row order, as floats: the same products, rounded up.

    A product too large for a float is ``inf``; each value is a whole number (exact as an int).
    """
    r = workload.records
    asked, used, processors = r["requested_memory"], r["memory"], r["processors"]
    per = np.where(asked > 0, asked, used)
    with np.errstate(over="ignore"):
        whole = np.ceil(per * processors.astype(np.float64))
    return np.where((per > 0) & (processors > 0), whole, 0.0)


def _bounded_amounts(
    resource: Resource, workload: Workload
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Every job's amount of ``resource`` and whether it is ``MAX_AMOUNT`` or more (then held as that).

    The simulator rejects the jobs marked, with their reason; every other amount is exact. O(n).

    Raises:
        JobError: A request that is not an int >= 0 (a rule's error, not the job's).
    """
    if resource.request is memory_request:
        whole = _memory_wholes(workload)
        past = whole >= MAX_AMOUNT  # inf too; below 2**62 a float's whole number converts exactly
        return np.where(past, MAX_AMOUNT, whole).astype(np.int64), past
    values = []
    for job in workload:
        value = resource.request(job)
        if not (value.__class__ is int and 0 <= value < MAX_AMOUNT):
            if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= MAX_AMOUNT:
                value = MAX_AMOUNT
            else:
                value = resource.amount(job)  # raises, naming the job
        values.append(value)
    amounts = np.array(values, dtype=np.int64)
    return amounts, amounts >= MAX_AMOUNT


def _exact_amount(resource: Resource, job: Job) -> int:
    """A job's amount exactly, however large (no bound): what outputs write and the validator sums.

    :meth:`Resource.amount` without the bound; for :func:`memory_request`, a product too large for a
    float is the exact product of the (then whole) memory per processor and the processors.

    Raises:
        JobError: A request that is not an int >= 0.
    """
    if resource.request is memory_request:
        per = job.requested_memory if job.requested_memory > 0 else job.memory
        if per > 0 and job.processors > 0:
            whole = per * job.processors
            return math.ceil(whole) if math.isfinite(whole) else math.ceil(per) * job.processors
        return 0
    value = resource.request(job)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        resource.amount(job)  # raises, naming the job
    return int(value)


def _exact_amounts(resource: Resource, workload: Workload, rows: npt.NDArray[np.intp]) -> list[int]:
    """The amounts of the jobs at ``rows`` exactly (:func:`_exact_amount`), in one numpy pass for memory.

    What :func:`~backfill.measures.validation.validate_schedule` sums: a schedule that started a job
    past the bound is judged by what that job asks, not by a wrapped or clipped number.

    Raises:
        JobError: A request that is not an int >= 0.
    """
    if resource.request is memory_request:
        wholes = _memory_wholes(workload)[rows].tolist()
        return [
            int(x) if math.isfinite(x) else _exact_amount(resource, workload[row])
            for x, row in zip(wholes, rows.tolist(), strict=True)
        ]
    return [_exact_amount(resource, workload[row]) for row in rows.tolist()]


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


@attrs.frozen
class _NodeMemory:
    """A machine of the Parallel Workloads Archive whose description gives its node memory."""

    log: str  # the archive's log, as the docs name it
    installation: str  # the SWF header's Installation, as read_swf keeps it
    computer: str  # the SWF header's Computer
    per_processor: int  # kB of memory per processor: a node's memory over its processors
    source: str  # where the description says so, and what it says


#: The node memory of each archive machine whose description gives it, keyed by what a workload
#: carries of its machine: the header's Installation and Computer (read_swf keeps them in
#: ``Workload.header``; a trimmed, scaled or renamed log keeps them, a file name does not identify a
#: machine). docs/resources.md gives this table; tests/test_held_back.py checks that the two agree.
_NODE_MEMORY = (
    _NodeMemory(
        "RICC-2010-2",
        "RICC: RIKEN Integrated Cluster of Clusters",
        "Fujitsu RX200S5 Cluster",
        12 * 2**20 // 8,
        "archive page of the RICC log: 1024 nodes, each with 12 GB of memory and two 4-core CPUs",
    ),
    _NodeMemory(
        "HPC2N-2002",
        "HPC2N - High Performance Computing Center North, Sweden",
        "Linux cluster (Seth)",
        2**20 // 2,
        "archive page of the HPC2N log: nodes have 1 GB of RAM each, shared by the two processors",
    ),
    _NodeMemory(
        "SDSC-BLUE-2000",
        "SDSC Blue Horizon",
        "IBM SP",
        4 * 2**20 // 8,
        "the log's header: 4 GB memory per node (shared by 8 processors)",
    ),
    _NodeMemory(
        "DAS2-fs1-2003",
        "DAS2 - Leiden University (fs1)",
        "Pentium-III Linux cluster",
        2**20 // 2,
        "the log's header: 32 nodes of dual 1GHz Pentium-III, 1GB RAM per node",
    ),
)

#: The resources :func:`default_capacity` knows, each with the rule of a job's amount.
_DOCUMENTED = {"memory": memory_request}


def _workload_label(workload: Workload) -> str:
    source = workload.provenance.get("source")
    return f"the log {source}" if source else "the workload (no source file recorded)"


def default_capacity(name: str, workload: Workload) -> int:
    """Return the documented capacity of resource ``name`` on the machine ``workload`` comes from.

    For ``memory`` (in kB, as SWF counts): the memory per processor the machine's description gives
    (a node's memory over its processors) times the workload's processors (its ``machine_size``).
    The machine is recognised by the SWF header's ``Installation`` and ``Computer``, which
    :func:`~backfill.workloads.swf.read_swf` keeps with the workload; the table, with the sentence
    each size comes from, is in docs/resources.md. Any other workload (a log of another machine, a
    Batsim file, a generated workload) has none: a size that nobody documented would be a guess, and
    the old guess (the largest request per processor) could never bind.

    Args:
        name: The resource: ``memory``.
        workload: The workload whose machine is meant.

    Returns:
        The capacity in whole units (kB for memory).

    Raises:
        ParameterError: Another resource, or a machine whose memory no description gives (naming
            the log: give a size, ``memory=SIZE`` on the command line or ``Resource.memory(kB)``).

    Examples:
        >>> from backfill.workloads.workload import Job, Workload
        >>> jobs = [Job(id=1, submit=0.0, processors=8, runtime=1.0, estimate=1.0)]
        >>> header = {"Installation": "RICC: RIKEN Integrated Cluster of Clusters",
        ...           "Computer": "Fujitsu RX200S5 Cluster"}
        >>> default_capacity("memory", Workload.from_jobs(jobs, machine_size=8192, header=header))
        12884901888
        >>> default_capacity("memory", Workload.from_jobs(jobs, machine_size=8))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: no documented memory for the workload (no source file recorded): ...
    """
    if not isinstance(workload, Workload):
        raise ParameterError(f"default_capacity needs a Workload, got {workload!r}")
    if name not in _DOCUMENTED:
        raise ParameterError(
            f"no documented capacity of a resource {name!r}; documented: {', '.join(_DOCUMENTED)}"
        )
    installation = workload.header.get("Installation", "").strip()
    computer = workload.header.get("Computer", "").strip()
    for machine in _NODE_MEMORY:
        if (machine.installation, machine.computer) == (installation, computer):
            capacity = machine.per_processor * workload.machine_size
            if capacity >= MAX_AMOUNT:
                raise ParameterError(
                    f"memory of {machine.log} ({machine.per_processor} kB per processor) times "
                    f"{workload.machine_size} processors passes 2**62 (MAX_AMOUNT)"
                )
            return capacity
    named = f" (Installation {installation!r}, Computer {computer!r})" if installation or computer else ""
    raise ParameterError(
        f"no documented memory for {_workload_label(workload)}{named}: its machine's description "
        "gives no node memory (docs/resources.md lists those that do); give a size per processor, "
        "such as memory=1.5G on the command line, or Resource.memory(capacity in kB)"
    )
