"""The AccaSim dispatcher whose decisions a backfill scheduler makes (see :mod:`backfill.hosts.accasim`)."""

from __future__ import annotations

import functools
import heapq
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from backfill.errors import ParameterError, ScheduleError
from backfill.hosts._accasim_machine import accasim_node, accasim_resource, import_accasim
from backfill.schedulers.machinery.protocol import ReservationLog, Scheduler, scheduler_name
from backfill.workloads.nodes import Machine
from backfill.workloads.workload import Job

__all__ = ["ALLOCATORS", "AllocationLike", "BackfillDispatcher", "Placing"]

#: The names ``allocator`` takes (an AccaSim allocator object is taken too).
ALLOCATORS = ("accasim", "backfill")


@runtime_checkable
class AllocationLike(Protocol):
    """Where a scheduler placed a job: node indices (0-based, machine order) and each node's amounts.

    ``amounts[k]`` is a tuple in the order of the machine's
    :attr:`~backfill.workloads.nodes.Machine.resources` (``cores`` first), as
    :class:`backfill.workloads.nodes.Allocation` has it.
    """

    @property
    def nodes(self) -> Sequence[int]:
        """The nodes the job runs on."""
        ...

    @property
    def amounts(self) -> Sequence[Sequence[int]]:
        """For each node, the amount of each resource the job takes there."""
        ...


@runtime_checkable
class Placing(Protocol):
    """The optional method of a scheduler that places the jobs it starts (``allocator="backfill"``)."""

    def allocation(self, job_id: int) -> AllocationLike:
        """Where the job ``job_id``, started by the last ``schedule``, runs."""
        ...


@functools.cache
def _accasim_class() -> type[BackfillDispatcher]:
    """BackfillDispatcher joined with AccaSim's SchedulerBase, made once AccaSim is imported."""
    base = import_accasim().base.scheduler_class.SchedulerBase
    return type("BackfillDispatcher", (BackfillDispatcher, base), {"__module__": __name__})


class BackfillDispatcher:
    """An AccaSim dispatcher (a ``SchedulerBase``) whose decisions come from a backfill scheduler.

    ``BackfillDispatcher(...)`` returns an instance of a subclass of both this class and AccaSim's
    ``accasim.base.scheduler_class.SchedulerBase``, made when AccaSim is first imported, so that this
    module imports without AccaSim. It is a plain class, not attrs, because AccaSim's base keeps its
    own state in ``__init__``.

    At each decision AccaSim asks of it (``scheduling_method``, called at every time point with
    queued jobs), the dispatcher tells the scheduler, in the protocol's order, the instants AccaSim
    passed without asking (completions with an empty queue, and wake-ups), then this instant's
    completions in start order, its arrivals in workload order, and calls ``schedule(now)``, again
    while jobs of zero runtime end. The jobs it starts are placed by AccaSim's allocator or, with
    ``allocator="backfill"``, where the scheduler's ``allocation(job_id)`` says; a job that cannot be
    placed raises :class:`ScheduleError`. The rest stay queued, with the scheduler's next wake-up as
    AccaSim's next time point.

    A job of zero runtime occupies nothing in backfill's model, but in AccaSim it holds its nodes
    until the instant's dispatching is over (so a job started after it in the same instant cannot
    have them). The dispatcher sets its AccaSim request to zero and puts it on the first node.

    Args:
        scheduler: Any object satisfying backfill's Scheduler protocol; it is reset here.
        machine: The nodes, as given to AccaSim (see :func:`~backfill.hosts.accasim.system_config`).
        jobs: Each AccaSim job id (the SWF job number) and the row and job the scheduler is given.
        allocator: ``"accasim"`` (AccaSim's FirstFit), an AccaSim allocator object
            (``accasim.base.allocator_class.AllocatorBase``, e.g. ``BestFit()``), or ``"backfill"``.
        offset: AccaSim's clock minus backfill's.
        start: The time the scheduler is reset at.
    """

    #: Set by AccaSim's ``SchedulerBase.__init__``: how it checks a job before the scheduler sees it.
    _job_check: Any

    def __new__(cls, *args: Any, **kwargs: Any) -> BackfillDispatcher:
        return object.__new__(_accasim_class() if cls is BackfillDispatcher else cls)

    def __init__(
        self,
        scheduler: Scheduler,
        machine: Machine,
        jobs: Mapping[str, tuple[int, Job]],
        *,
        allocator: object = "accasim",
        offset: float = 0.0,
        start: float = 0.0,
    ) -> None:
        if not isinstance(scheduler, Scheduler):
            raise ParameterError(
                f"the scheduler must satisfy backfill's Scheduler protocol, got {scheduler!r}"
            )
        accasim = import_accasim()
        self._base = accasim.base.scheduler_class.SchedulerBase
        state = random.getstate()  # AccaSim's constructors reseed the random module: give it back
        accasim.base.scheduler_class.SchedulerBase.__init__(self, 0, allocator=None)
        self._placer = _placer(accasim, allocator, scheduler)
        random.setstate(state)
        self.scheduler, self.machine, self.offset = scheduler, machine, offset
        self._name = scheduler_name(scheduler)
        self._jobs = dict(jobs)
        self._ids = {job.id: job_id for job_id, (_, job) in self._jobs.items()}
        self._submitted: set[str] = set()
        self._pending = len(self._jobs)  # jobs not yet arrived nor rejected
        self._started: dict[str, float] = {}
        self._order: list[str] = []
        self._ends: list[tuple[float, int, str]] = []  # running jobs: (end, start rank, id)
        self._wakeups: set[float] = set()
        self._wake_of: dict[float, float] = {}  # AccaSim's time of a wake-up -> the scheduler's
        self._asked: list[str] = []  # the jobs AccaSim asked about in its current call
        self._events: dict[str, Any] = {}  # AccaSim's job objects, which record its times
        self.rejected: dict[int, str] = {}
        self.log: list[tuple[float, int, float]] = []
        self._free: dict[str, dict[str, int]] | None = None
        self._logs = isinstance(scheduler, ReservationLog)
        if self._logs:
            scheduler.log_reservation_changes()  # type: ignore[attr-defined]
        scheduler.reset(machine.cores, start)

    # -- AccaSim's side ------------------------------------------------------------------------------

    def get_id(self) -> str:
        """The dispatcher's name in AccaSim's outputs: the scheduler's and the allocator's."""
        placer = "backfill" if self._placer is None else self._placer.get_id()
        return f"backfill-{self._name}-{placer}"

    def set_resource_manager(self, resource_manager: Any) -> None:
        """Take AccaSim's resource manager, and give it to the AccaSim allocator if there is one."""
        self.resource_manager = resource_manager
        if self._placer is not None:
            self._placer.set_resource_manager(resource_manager)

    def schedule(self, cur_time: float, es_dict: Mapping[str, Any], es: Sequence[str]) -> Any:
        """AccaSim's entry point: keep its job objects, decide, and note the jobs its check rejected."""
        for job_id in es:
            self._events.setdefault(job_id, es_dict[job_id])
        self._asked = list(es)
        plan, rejected = self._base.schedule(self, cur_time, es_dict, es)
        self._note_rejected(rejected)  # all of them, when no job passed the check
        return plan, rejected

    def scheduling_method(self, cur_time: float, jobs: Sequence[Any], es_dict: Mapping[str, Any]) -> Any:
        """One decision of AccaSim's: the protocol's calls for ``now``; (time, id, nodes) for every job."""
        # A wake-up's time comes back as it was asked for, whatever the float sum with the offset.
        now = self._wake_of.get(cur_time, cur_time - self.offset)
        passed = {e.id for e in jobs}
        self._note_rejected([job_id for job_id in self._asked if job_id not in passed])
        self._catch_up(now)
        self._check_queue(jobs, now)
        self._complete_due(now)
        scheduler = self.scheduler
        for event in sorted(
            (e for e in jobs if e.id not in self._submitted), key=lambda e: self._jobs[e.id][0]
        ):
            self._submitted.add(event.id)
            self._pending -= 1
            scheduler.submit(self._jobs[event.id][1], now)
        self._wakeups.discard(now)
        self._free = None
        plan = []
        while True:
            for job in scheduler.schedule(now):
                plan.append((cur_time, *self._start(job, now, cur_time, es_dict)))
            if not (self._ends and self._ends[0][0] == now):
                break
            self._complete_due(now)  # jobs of zero runtime end in the instant they start
        self._after_decision(now)
        queued = [e.id for e in jobs if e.id not in self._started]
        if queued and not self._ends and not self._wakeups and self._pending <= 0:
            raise ScheduleError(
                f"{self._name} left jobs {[self._jobs[i][1].id for i in queued]} queued at {now:g} with "
                "nothing left to happen (no job running or to arrive, no wake-up)"
            )
        wake = None
        if self._wakeups:
            wake = min(self._wakeups) + self.offset
            self._wake_of[wake] = min(self._wakeups)
        return plan + [(wake, job_id, []) for job_id in queued], []

    def _note_rejected(self, job_ids: Sequence[str]) -> None:
        for job_id in job_ids:
            job = self._jobs[job_id][1]
            if job.id not in self.rejected:
                self.rejected[job.id] = f"rejected by AccaSim's job check ({self._job_check.name})"
                self._pending -= 1

    # -- the protocol's instants -----------------------------------------------------------------------

    def _catch_up(self, now: float) -> None:
        """The instants before ``now`` at which AccaSim had nothing queued, so did not ask."""
        while True:
            t = min(
                [w for w in self._wakeups if w < now] + [e[0] for e in self._ends[:1] if e[0] < now],
                default=None,
            )
            if t is None:
                return
            self._complete_due(t)
            self._wakeups.discard(t)
            started = self.scheduler.schedule(t)
            if started:
                raise ScheduleError(
                    f"{self._name} started jobs {[job.id for job in started]} at {t:g}, an instant at which "
                    "AccaSim had no job queued (a job the scheduler was never given?)"
                )
            self._after_decision(t)

    def _complete_due(self, now: float) -> None:
        while self._ends and self._ends[0][0] <= now:
            end, _, job_id = heapq.heappop(self._ends)
            self.scheduler.complete(self._jobs[job_id][1], end)

    def _after_decision(self, now: float) -> None:
        wake = self.scheduler.next_wakeup()
        if wake is not None and wake > now:
            self._wakeups.add(wake)
        if self._logs:
            changes = self.scheduler.take_reservation_changes()  # type: ignore[attr-defined]
            self.log += [(now, job_id, start) for job_id, start in changes]

    def _check_queue(self, jobs: Sequence[Any], now: float) -> None:
        """A job AccaSim still queues though it was started: its resource manager refused the nodes."""
        for event in jobs:
            if event.id in self._started:
                raise ScheduleError(
                    f"AccaSim did not start job {self._jobs[event.id][1].id} at "
                    f"{self._started[event.id]:g} as {self._name} decided: its resource manager "
                    f"refused the nodes (seen at {now:g})"
                )

    # -- placing a started job ---------------------------------------------------------------------------

    def _start(
        self, job: Job, now: float, cur_time: float, es_dict: Mapping[str, Any]
    ) -> tuple[str, list[str]]:
        job_id = self._ids.get(job.id, "")
        if job_id not in self._submitted or job_id in self._started:
            state = "already started" if job_id in self._started else "not queued"
            raise ScheduleError(f"{self._name} started job {job.id} at {now:g}, which is {state}")
        event = es_dict[job_id]
        if job.runtime == 0:
            for resource in list(event.requested_resources):
                event.override_requested_resources(resource, 0)
            nodes = [accasim_node(0)] * event.requested_nodes
        elif self._placer is not None:
            nodes = self._accasim_nodes(job, event, now, cur_time)
        else:
            nodes = self._backfill_nodes(job, event, now)
        self._started[job_id] = now
        self._order.append(job_id)
        heapq.heappush(self._ends, (now + job.runtime, len(self._order), job_id))
        return job_id, nodes

    def _accasim_nodes(self, job: Job, event: Any, now: float, cur_time: float) -> list[str]:
        placer = self._placer
        if self._free is None:
            self._free = self.resource_manager.current_availability
            placer.set_resources(self._free)
        _, _, nodes = placer.allocating_method(event, cur_time, skip=False)
        if not nodes:
            raise self._unplaced(job, event, now, f"AccaSim's {placer.get_id()}")
        return list(nodes)

    def _backfill_nodes(self, job: Job, event: Any, now: float) -> list[str]:
        if self._free is None:
            self._free = self.resource_manager.current_availability
        free = self._free
        allocation = self.scheduler.allocation(job.id)  # type: ignore[attr-defined]
        if allocation is None:
            raise ScheduleError(f"{self._name} started job {job.id} at {now:g} with no allocation")
        request = event.requested_resources
        names = self.machine.resources
        theirs = [accasim_resource(n) for n in names]
        nodes: list[str] = []
        for index, amounts in zip(allocation.nodes, allocation.amounts, strict=True):
            if not 0 <= index < self.machine.node_count:
                raise ScheduleError(
                    f"{self._name} placed job {job.id} at {now:g} on node {index}, not one of the "
                    f"machine's {self.machine.node_count} nodes"
                )
            name = accasim_node(index)
            units = amounts[0]
            want = tuple(units * request.get(r, 0) for r in theirs)
            if tuple(amounts) != want:
                raise ScheduleError(
                    f"{self._name} placed job {job.id} at {now:g} on node {index} with "
                    f"{dict(zip(names, amounts, strict=True))}, but AccaSim's request for {units} of its "
                    f"processors there is {dict(zip(names, want, strict=True))}"
                )
            if any(free[name][r] < a for r, a in zip(theirs, amounts, strict=True)):
                raise self._unplaced(
                    job, event, now, f"{self._name}'s allocation (node {index}: {free[name]} free)"
                )
            for r, a in zip(theirs, amounts, strict=True):
                free[name][r] -= a
            nodes += [name] * units
        if len(nodes) != event.requested_nodes:
            raise ScheduleError(
                f"{self._name} placed {len(nodes)} of job {job.id}'s {event.requested_nodes} processors "
                f"at {now:g}"
            )
        return nodes

    def _unplaced(self, job: Job, event: Any, now: float, by: str) -> ScheduleError:
        free = self.resource_manager.current_availability
        total = {
            r: sum(node[r] for node in free.values()) for r in map(accasim_resource, self.machine.resources)
        }
        return ScheduleError(
            f"{self._name} started job {job.id} at {now:g}, but {by} cannot place it on the nodes: it asks "
            f"{event.requested_nodes} x {dict(event.requested_resources)}, the nodes have {total} free in "
            f"all before this instant's starts, where the scheduler's pool of {self.machine.cores} "
            "processors (and of the resources it plans) had room: the two machine models differ here "
            "(see docs/how-to/accasim.md)"
        )

    # -- what AccaSim did ---------------------------------------------------------------------------------

    def times(self) -> tuple[dict[int, float], dict[int, float], list[int]]:
        """Each started job's start and end as AccaSim recorded them (backfill's clock), and the start order.

        Raises:
            ScheduleError: AccaSim started a job at another time than the scheduler decided, or not at all.
        """
        start: dict[int, float] = {}
        end: dict[int, float] = {}
        for job_id, decided in self._started.items():
            event = self._events[job_id]
            job = self._jobs[job_id][1]
            if event.start_time is None or event.start_time - self.offset != decided:
                raise ScheduleError(
                    f"AccaSim started job {job.id} at {event.start_time} (its clock), not at {decided:g} "
                    f"as {self._name} decided"
                )
            start[job.id] = decided
            if event.end_time is not None:
                end[job.id] = event.end_time - self.offset
        return start, end, [self._jobs[i][1].id for i in self._order]


def _placer(accasim: Any, allocator: object, scheduler: Scheduler) -> Any:
    """AccaSim's allocator object for ``allocator``, or None when the scheduler places jobs itself."""
    base = accasim.base.allocator_class.AllocatorBase
    if isinstance(allocator, base):
        return allocator
    if allocator == "accasim":
        return accasim.base.allocator_class.FirstFit()
    if allocator == "backfill":
        if not isinstance(scheduler, Placing) or getattr(scheduler, "nodes", True) is None:
            raise ParameterError(
                f'allocator="backfill" needs a scheduler with an allocation(job_id) method that places '
                f"jobs on nodes (a built-in one built with nodes=Machine(...)); {scheduler_name(scheduler)} "
                "has none"
            )
        return None
    raise ParameterError(
        f"allocator must be one of {', '.join(map(repr, ALLOCATORS))} or an AccaSim allocator "
        f"(accasim.base.allocator_class.AllocatorBase), got {allocator!r}"
    )
