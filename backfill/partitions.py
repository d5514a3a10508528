"""Partitions: a machine made of disjoint parts, each with its own processors, resources and scheduler.

Jobs name a partition (SWF field 16, :attr:`~backfill.Job.partition`). A :class:`Partition` serves
one or more of those numbers with its own processors, its own resources besides processors
(:class:`~backfill.workloads.resources.Resource`, whose capacities are the partition's) and its own
copy of a scheduler. Partitions are disjoint: a job runs in the one partition that serves its number,
never in another, so the partitions do not interact and each is simulated alone on its own jobs
(:func:`partition_runs`); :func:`simulate_partitions` merges the runs into one
:class:`~backfill.schedule.Schedule` of the whole workload, which is exactly the schedule of the
partitioned machine. A job eligible for several partitions is not supported (it would couple them:
an extension, not built).

Every job is either scheduled in its partition or rejected with a counted reason: ``in no partition
(SWF partition 7)``, ``wider than partition 10 (80640 processors)``, ``needs more memory than
partition 10 has (16)``, or a reason the simulator gives any machine (an unknown runtime).

The SWF log does not record partition sizes. :func:`partition_sizes` gives a lower bound of each
from the log itself: the most processors its jobs held at once when they ran (start = submit +
wait, for the runtime), and at least its widest job. :func:`log_partitions` builds one partition per
SWF number with those sizes, or with sizes given; give them where they are known, since a bound read
from the log can add up to more than the machine (with a :class:`UserWarning` that says so).

Examples:
    >>> from backfill import Conservative, Job, Workload
    >>> jobs = [Job(id=i, submit=0.0, processors=2, runtime=10.0, estimate=10.0, partition=i % 2)
    ...         for i in range(1, 5)]
    >>> w = Workload.from_jobs(jobs, machine_size=4)
    >>> parts = [Partition("a", numbers=(0,), processors=2), Partition("b", numbers=(1,), processors=4)]
    >>> s = simulate_partitions(w, parts, Conservative())
    >>> s.scheduler, s.start.tolist(), s.workload.machine_size
    ('Conservative on partitions a, b', [0.0, 0.0, 0.0, 10.0], 6)
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import ParameterError, ScheduleError
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.simulator import OverrunPolicy, simulate
from backfill.workloads.resources import Resource, check_resources
from backfill.workloads.workload import Workload

__all__ = [
    "Partition",
    "PartitionRun",
    "check_partitions",
    "jobs_per_partition",
    "log_partitions",
    "partition_numbers",
    "partition_runs",
    "partition_sizes",
    "partitioned_name",
    "partitioned_workload",
    "simulate_partitions",
]


def _is_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value or value != value.strip() or "," in value:
        raise ParameterError(f"Partition.name must be a non-empty name without commas, got {value!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def partition_numbers(value: Any, what: str = "Partition.numbers") -> tuple[int, ...]:
    """``value`` as SWF partition numbers: one int or distinct ints, each -1 (unknown) or from 0.

    The numbers a job may carry in field 16 (no other negative number names a partition, see
    :class:`~backfill.workloads.workload.Job`), so a partition never serves a number no job has.

    Raises:
        ParameterError: Naming ``what`` and the value.

    Examples:
        >>> partition_numbers([4, -1]), partition_numbers(2)
        ((4, -1), (2,))
        >>> partition_numbers([-7])
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: Partition.numbers must be distinct ints, each -1 (unknown) or ...
    """
    if _is_int(value):
        value = (value,)
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ParameterError(f"{what} must be SWF partition numbers (ints), got {value!r}")
    out = tuple(value)
    if not out or not all(_is_int(n) and (n >= 0 or n == -1) for n in out) or len(set(out)) != len(out):
        raise ParameterError(
            f"{what} must be distinct ints, each -1 (unknown) or from 0, at least one, got {value!r}"
        )
    return tuple(int(n) for n in out)


def _is_size(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not _is_int(value) or int(value) < 1:  # type: ignore[call-overload]
        raise ParameterError(f"Partition.processors must be an int >= 1, got {value!r}")


@attrs.frozen
class Partition:
    """A part of the machine: the SWF partition numbers it serves, its processors and resources.

    Args:
        name: How tables and rejection reasons name it (no commas).
        numbers: The SWF partition numbers (field 16) of its jobs: one int or several (-1 serves the
            jobs whose partition is unknown).
        processors: Its processors: an int >= 1.
        resources: Its resources besides processors, with its own capacities; its scheduler plans
            exactly these.

    Examples:
        >>> Partition("gpu", numbers=(4, 5), processors=512)
        Partition(name='gpu', numbers=(4, 5), processors=512, resources=())
        >>> Partition("gpu", numbers=(), processors=512)
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: Partition.numbers must be distinct ints, each -1 ... got ()
    """

    name: str = attrs.field(validator=_is_name)
    numbers: tuple[int, ...] = attrs.field(converter=partition_numbers)
    processors: int = attrs.field(validator=_is_size)
    resources: tuple[Resource, ...] = attrs.field(default=(), converter=check_resources)


def check_partitions(partitions: Iterable[Partition]) -> tuple[Partition, ...]:
    """Return ``partitions`` as a tuple, refusing an empty set, repeated names and shared numbers.

    Raises:
        ParameterError: If an item is not a :class:`Partition`, none is given, two share a name, or
            two serve one SWF partition number (partitions must be disjoint).
    """
    if isinstance(partitions, Partition | str) or not isinstance(partitions, Iterable):
        raise ParameterError(f"partitions must be a sequence of Partition objects, got {partitions!r}")
    out = tuple(partitions)
    if not out:
        raise ParameterError("partitions must name at least one Partition")
    for p in out:
        if not isinstance(p, Partition):
            raise ParameterError(f"partitions must be Partition objects, got {p!r}")
    owner: dict[int, str] = {}
    for p in out:
        if any(q.name == p.name for q in out if q is not p):
            raise ParameterError(f"two partitions are named {p.name!r}")
        for n in p.numbers:
            if n in owner:
                raise ParameterError(
                    f"SWF partition {n} is in partitions {owner[n]!r} and {p.name!r}: partitions must "
                    "be disjoint (a job eligible for several partitions is not supported)"
                )
            owner[n] = p.name
    return out


def partition_sizes(workload: Workload) -> dict[int, int]:
    """Return a lower bound of each SWF partition's processors, from the log: its default size.

    The log records each job's wait (field 3), so its jobs ran from submit + wait for their runtime:
    a partition had at least the most processors its jobs held at once, and at least its widest job
    (a job of unknown wait or runtime counts only as that). Read it from the log as read, before a
    load factor moves the submit times. O(n log n).

    Returns:
        The bound of every SWF partition number of the workload's jobs, by number.

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=1, submit=0.0, wait=0.0, processors=3, runtime=10.0, estimate=10.0, partition=1),
        ...         Job(id=2, submit=5.0, wait=0.0, processors=4, runtime=10.0, estimate=10.0, partition=1),
        ...         Job(id=3, submit=0.0, processors=2, runtime=10.0, estimate=10.0, partition=2)]
        >>> partition_sizes(Workload.from_jobs(jobs, machine_size=9))
        {1: 7, 2: 2}
    """
    r = workload.records
    part = r["partition"]
    procs = r["processors"]
    start = r["submit"] + r["wait"]
    runtime = r["runtime"]
    ran = (r["wait"] >= 0) & (runtime > 0) & (procs > 0)
    out: dict[int, int] = {}
    for n in np.unique(part).tolist():
        mine = part == n
        widest = int(procs[mine].max(initial=0))
        held = mine & ran
        # Ends before starts at one instant: a job ending at t frees its processors for one starting then.
        t = np.concatenate([start[held] + runtime[held], start[held]])
        delta = np.concatenate([-procs[held], procs[held]])
        kind = np.concatenate([np.zeros(int(held.sum())), np.ones(int(held.sum()))])
        peak = int(np.cumsum(delta[np.lexsort((kind, t))]).max(initial=0))
        out[int(n)] = max(peak, widest, 1)
    return out


def log_partitions(
    workload: Workload,
    numbers: Sequence[int] | None = None,
    sizes: Mapping[int, int] | None = None,
    resources: Sequence[Resource] = (),
) -> tuple[Partition, ...]:
    """One partition per SWF partition number, named by its number, with a given or default size.

    A job whose partition is unknown (field 16 = -1) is in no partition unless ``numbers`` or
    ``sizes`` name -1: by default it is rejected, counted as ``in no partition (SWF partition -1)``.
    A log whose jobs name no partition at all has none to choose by default, and is refused.

    A default size is a lower bound read from the log (:func:`partition_sizes`). Where partitions
    shared nodes, or the log is cut short, such bounds do not add up to the machine: when the
    partitions chosen add up to more processors than ``workload.machine_size`` and some size is a
    default, a :class:`UserWarning` names the defaults and the totals (the run goes on, on the
    larger machine). Give the sizes (``sizes``) when they are known.

    Args:
        workload: The log, as read (the default sizes come from it: :func:`partition_sizes`).
        numbers: The SWF partition numbers to keep, in order; by default those of ``sizes`` if
            given, else every number of the log (-1, unknown, left out) in increasing order. The
            other jobs are then rejected as in no partition.
        sizes: Processors of some partitions; the others get :func:`partition_sizes`'s bound.
        resources: The resources every partition has (each with these capacities).

    Raises:
        ParameterError: A number is repeated, has no job in the log and no size given, or a size
            is not an int >= 1; no number chosen and no job of the log names a partition.

    Examples:
        >>> from backfill import Job, Workload
        >>> jobs = [Job(id=i, submit=0.0, processors=i, runtime=5.0, estimate=5.0, partition=i % 2)
        ...         for i in (1, 2, 3)]
        >>> [(p.name, p.numbers, p.processors) for p in log_partitions(Workload.from_jobs(jobs, 9))]
        [('0', (0,), 2), ('1', (1,), 3)]
        >>> log_partitions(Workload.from_jobs(jobs, 9), sizes={1: 64, 0: 8})[0]
        Partition(name='1', numbers=(1,), processors=64, resources=())
        >>> unknown = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=5.0)]
        >>> log_partitions(Workload.from_jobs(unknown, 4))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: no job names a partition (SWF field 16 is -1, unknown, ...
    """
    given = dict(sizes or {})
    found = partition_sizes(workload)
    chosen = list(numbers) if numbers is not None else list(given) if given else _named(found)
    if not chosen:
        raise ParameterError(
            "no job names a partition (SWF field 16 is -1, unknown, for every job), so there is none "
            "to schedule on its own: give the partitions (-1 serves the jobs of unknown partition)"
        )
    if len(set(chosen)) != len(chosen):
        raise ParameterError(f"partition numbers must be distinct, got {chosen}")
    out = []
    for n in chosen:
        if n not in given and n not in found:
            raise ParameterError(
                f"SWF partition {n} has no job in the log, so no default size: give its size ({n}=N)"
            )
        out.append(
            Partition(str(n), numbers=(n,), processors=given.get(n, found.get(n, 0)), resources=resources)
        )
    parts = check_partitions(out)
    note = _oversized(parts, [n for n in chosen if n not in given], workload.machine_size)
    if note:
        warnings.warn(note, UserWarning, stacklevel=2)
    return parts


def _named(found: Mapping[int, int]) -> list[int]:
    """The SWF numbers that name a partition, in increasing order: not -1 (unknown)."""
    return sorted(n for n in found if n != -1)


def _oversized(parts: Sequence[Partition], defaults: Sequence[int], machine: int) -> str:
    """Say when partitions sized from the log add up to more than the machine; else ``""``."""
    total = sum(p.processors for p in parts)
    if not defaults or total <= machine:
        return ""
    read = ", ".join(f"{p.name}: {p.processors:,}" for p in parts if p.numbers[0] in defaults)
    return (
        f"the partitions add up to {total:,} processors, more than the machine's {machine:,}: the "
        f"sizes of partitions {read} are read from the log (the most processors their jobs held at "
        "once, which counts nodes that partitions shared in each, and changes with the jobs read); "
        "give the partitions' sizes"
    )


@attrs.frozen(eq=False)
class PartitionRun:
    """One partition's own simulation: its jobs (rows of the whole workload) and its scheduler.

    Attributes:
        partition: The partition.
        rows: The rows of the whole workload that are its jobs, in order.
        workload: Those jobs on a machine of the partition's processors.
        scheduler: A fresh scheduler planning the partition's resources.
    """

    partition: Partition
    rows: npt.NDArray[np.int64] = attrs.field(repr=False)
    workload: Workload
    scheduler: Scheduler


def _scheduler_for(given: Scheduler, partition: Partition, rebuild: bool) -> Scheduler:
    """A copy of ``given`` planning the partition's resources (given them if ``rebuild``)."""
    mine = tuple(getattr(given, "resources", ()))
    if mine == partition.resources:
        return given.copy()
    # The copy contract (SchedulerBase.copy) carries every attribute, a subclass's plain ones and
    # the containers its copy() copies; then the copy takes the partition's resources.
    out = given.copy()
    if not rebuild or not _take_resources(out, partition.resources):
        names = [r.name for r in partition.resources] or "none"
        raise ParameterError(
            f"partition {partition.name!r} has resources {names}, but its scheduler "
            f"{scheduler_name(given)} plans {[r.name for r in mine] or 'none'} and cannot be given "
            "them: give each partition a scheduler built with its partition's resources"
        )
    return out


def _take_resources(scheduler: Any, resources: tuple[Resource, ...]) -> bool:
    """Give a fresh copy ``resources`` in place, or give them to the scheduler it wraps (``planning``).

    False if neither takes them. What the constructor derives from the resources (an inner
    scheduler, say) is derived again, as a new scheduler would be.
    """
    fields = attrs.fields_dict(type(scheduler)) if attrs.has(type(scheduler)) else {}
    if "resources" in fields and fields["resources"].init:
        object.__setattr__(scheduler, "resources", check_resources(resources))
        derive = getattr(scheduler, "__attrs_post_init__", None)
        if derive is not None:
            derive()
        return True
    inner = getattr(scheduler, "scheduler", None) if "scheduler" in fields else None
    return inner is not None and _take_resources(inner, resources)


def partition_runs(
    workload: Workload, partitions: Iterable[Partition], scheduler: Scheduler | Mapping[str, Scheduler]
) -> tuple[PartitionRun, ...]:
    """Split a workload and a scheduler into one simulation per partition, in the partitions' order.

    ``scheduler`` is one prototype, copied for every partition (its ``copy()``, with each
    partition's resources where they differ from its own: every attribute is kept, and what its
    constructor derives from the resources is derived again), or a mapping from each
    partition's name to its scheduler, which must plan that partition's resources. The jobs of no
    partition are in no run.

    Raises:
        ParameterError: Bad partitions (:func:`check_partitions`), a mapping that does not name every
            partition exactly once, or a scheduler that does not plan its partition's resources.
    """
    parts = check_partitions(partitions)
    if isinstance(scheduler, Mapping):
        names = [p.name for p in parts]
        if set(scheduler) != set(names):
            raise ParameterError(
                f"the schedulers must be given for exactly the partitions {names}, got {list(scheduler)}"
            )
    column = workload.column("partition")
    records = workload.records
    out = []
    for p in parts:
        rows = np.flatnonzero(np.isin(column, p.numbers)).astype(np.int64)
        given = scheduler[p.name] if isinstance(scheduler, Mapping) else scheduler
        own = _scheduler_for(given, p, rebuild=not isinstance(scheduler, Mapping))
        jobs = Workload.from_records(records[rows], p.processors, provenance=workload.provenance, header={})
        out.append(PartitionRun(p, rows, jobs, own))
    return tuple(out)


def partitioned_workload(workload: Workload, partitions: Iterable[Partition]) -> Workload:
    """The workload's jobs on the partitioned machine: as many processors as its partitions together."""
    total = sum(p.processors for p in check_partitions(partitions))
    return Workload.from_records(
        workload.records, total, provenance=workload.provenance, header=workload.header
    )


def partitioned_name(runs: Sequence[PartitionRun]) -> str:
    """The name of a partitioned run: its scheduler (or each partition's) and its partitions.

    Examples:
        >>> from backfill import EASY, Job, Workload
        >>> w = Workload.from_jobs([Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0)], 1)
        >>> partitioned_name(partition_runs(w, [Partition("x", 0, 4), Partition("y", 1, 2)], EASY()))
        'EASY(fcfs) on partitions x, y'
    """
    names = [scheduler_name(run.scheduler) for run in runs]
    where = ", ".join(run.partition.name for run in runs)
    if len(set(names)) == 1:
        return f"{names[0]} on partitions {where}"
    return (
        "; ".join(f"{run.partition.name}: {n}" for run, n in zip(runs, names, strict=True)) + " by partition"
    )


def _reasons(run: PartitionRun) -> dict[str, str]:
    """The simulator's reasons for a machine, as this partition's: the machine is the partition."""
    p = run.partition
    size = f"({p.processors} processors)"
    out = {f"wider than the machine {size}": f"wider than partition {p.name} {size}"}
    for r in p.resources:
        out[f"needs more {r.name} than the machine has ({r.capacity})"] = (
            f"needs more {r.name} than partition {p.name} has ({r.capacity})"
        )
    return out


def _merged_resources(parts: Sequence[Partition]) -> tuple[Resource, ...]:
    """The resources every partition has with one request rule, with their capacities summed.

    The whole schedule's validator checks these; a resource of only some partitions is checked per
    partition (:func:`~backfill.measures.partitions.validate_partitions`).
    """
    out = []
    for r in parts[0].resources:
        same = [q for p in parts for q in p.resources if q.name == r.name and q.request == r.request]
        if len(same) == len(parts):
            out.append(Resource(r.name, sum(q.capacity for q in same), r.request))
    return tuple(out)


def simulate_partitions(
    workload: Workload,
    partitions: Iterable[Partition],
    scheduler: Scheduler | Mapping[str, Scheduler],
    *,
    record_reservations: bool = True,
    overrun: OverrunPolicy = "raise_estimate",
) -> Schedule:
    """Simulate each partition on its own jobs and return one schedule of the whole workload.

    Each partition runs :func:`~backfill.simulator.simulate` on its jobs (:func:`partition_runs`);
    disjoint partitions never interact, so the merged schedule is exact. Merged: starts, ends and the
    runtimes and estimates the runs planned, row by row; the start order by start time, ties in the
    partitions' order, then each partition's own order; the reservation logs by time, ties the same
    way; ``predicted``, if any partition planned on predictions, is every job's first planned runtime
    (the others' estimates); the rejections (jobs of no partition: ``in no partition (SWF partition
    7)``; a partition's reasons name it); the overrun policy's counts, summed. The schedule's
    workload is the input's jobs on the partitioned machine (:func:`partitioned_workload`), its name
    :func:`partitioned_name`, its ``path`` ``"compiled"`` only if every partition with jobs ran
    compiled, its ``resources`` those all partitions share (capacities summed): validate it with
    :func:`~backfill.measures.partitions.validate_partitions`, which checks each partition too.

    Args:
        workload: Every job, partitions named in field 16.
        partitions: The disjoint partitions (:class:`Partition`).
        scheduler: One prototype for every partition, or a scheduler per partition name
            (:func:`partition_runs`).
        record_reservations: As :func:`~backfill.simulator.simulate`.
        overrun: As :func:`~backfill.simulator.simulate`.

    Raises:
        ParameterError: Bad partitions or schedulers (:func:`partition_runs`).
        ScheduleError: A partition's scheduler failed (as ``simulate`` says), or a job was lost.
    """
    parts = check_partitions(partitions)
    runs = partition_runs(workload, parts, scheduler)
    n = len(workload)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    runtime = workload.column("runtime").astype(np.float64)
    estimate = workload.column("estimate").astype(np.float64)
    predicted: np.ndarray | None = None
    planned = np.full(n, np.nan)  # each run's first planned runtimes: its predictions, else estimates
    ids = workload.column("id").tolist()
    rejected: dict[int, str] = {}
    inside = np.zeros(n, dtype=bool)
    altered: dict[str, int] = {}
    orders: list[np.ndarray] = []  # each partition's start order, as rows of the whole workload
    logs: list[np.ndarray] = []
    paths = []
    for run in runs:
        rows = run.rows
        inside[rows] = True
        if not len(rows):
            continue
        s = simulate(run.workload, run.scheduler, record_reservations=record_reservations, overrun=overrun)
        paths.append(s.path)
        start[rows], end[rows] = s.start, s.end
        runtime[rows], estimate[rows] = s.runtime, s.estimate
        planned[rows] = s.planned
        if s.predicted is not None:
            predicted = planned  # some partition planned on predictions: keep every one's plan
        names = _reasons(run)
        rejected |= {job: names.get(reason, reason) for job, reason in s.rejected.items()}
        for reason, count in s.altered.items():
            altered[reason] = altered.get(reason, 0) + count
        order = rows[s.start_order]
        orders.append(order)
        logs.append(s.reservations)
    for row in np.flatnonzero(~inside).tolist():
        rejected[ids[row]] = f"in no partition (SWF partition {int(workload.records['partition'][row])})"
    # Concatenated in the partitions' order, then sorted stably: equal starts keep that order, and
    # each partition's own order within it.
    rows = np.concatenate(orders) if orders else np.empty(0, dtype=np.int64)
    start_order = rows[np.argsort(start[rows], kind="stable")]
    log = np.concatenate(logs) if logs else np.empty(0, dtype=RESERVATION_DTYPE)
    log = log[np.argsort(log["time"], kind="stable")]
    schedule = Schedule(
        workload=partitioned_workload(workload, parts),
        scheduler=partitioned_name(runs),
        start=start,
        end=end,
        runtime=runtime,
        estimate=estimate,
        start_order=start_order,
        rejected=rejected,
        altered=altered,
        reservations=log,
        predicted=predicted,
        path="compiled" if paths and all(p == "compiled" for p in paths) else "python",
        resources=_merged_resources(parts),
    )
    started = int(np.count_nonzero(schedule.started))
    if started + len(rejected) != n:
        raise ScheduleError(
            f"{schedule.scheduler}: {n} jobs in, but {started} scheduled + {len(rejected)} rejected"
        )
    return schedule


def jobs_per_partition(schedule: Schedule, partitions: Iterable[Partition]) -> dict[str, int]:
    """How many jobs each partition ran (started), by name, in the partitions' order.

    Examples:
        >>> from backfill import EASY, Job, Workload
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=1.0, estimate=1.0, partition=i % 3)
        ...         for i in range(1, 7)]
        >>> parts = [Partition("a", 0, 1), Partition("b", 1, 1)]
        >>> s = simulate_partitions(Workload.from_jobs(jobs, 1), parts, EASY())
        >>> jobs_per_partition(s, parts), s.rejection_counts()
        ({'a': 2, 'b': 2}, {'in no partition (SWF partition 2)': 2})
    """
    column = schedule.workload.column("partition")
    ran = schedule.started
    return {
        p.name: int(np.count_nonzero(ran & np.isin(column, p.numbers))) for p in check_partitions(partitions)
    }
