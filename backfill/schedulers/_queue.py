"""Shared state of the queue-based schedulers: a priority-ordered queue and the running jobs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs
from sortedcontainers import SortedList

from backfill.errors import ParameterError, ScheduleError
from backfill.priorities import Priority, depends_on_time, fcfs, priority_name
from backfill.workload import Job

#: A queue entry: (priority key, arrival sequence, job). The unique sequence number breaks ties by
#: arrival order and keeps the job itself out of comparisons.
Entry = tuple[Any, int, Job]


def _priority_validator(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not callable(value):
        raise ParameterError(f"{attribute.name} must be a callable (job, now) -> key, got {value!r}")


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class QueueScheduler:
    """Base of schedulers that keep a priority-ordered queue; not a scheduler by itself.

    Static priorities (see :func:`backfill.priorities.depends_on_time`) are keyed once at submission and
    kept in a :class:`~sortedcontainers.SortedList`; time-dependent ones are re-keyed at each decision.
    """

    priority: Priority = attrs.field(default=fcfs, validator=_priority_validator)
    _size: int = attrs.field(init=False, default=0)
    _free: int = attrs.field(init=False, default=0)
    _seq: int = attrs.field(init=False, default=0)
    _static: bool = attrs.field(init=False, default=True)
    _queue: SortedList = attrs.field(init=False, factory=SortedList)
    _dynamic: list[tuple[int, Job]] = attrs.field(init=False, factory=list)
    _running: dict[int, tuple[float, int, int]] = attrs.field(init=False, factory=dict)
    _reserved: dict[int, float] = attrs.field(init=False, factory=dict)

    @property
    def name(self) -> str:
        """Short readable name, e.g. ``EASY(sjf)``."""
        return f"{type(self).__name__}({priority_name(self.priority)})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(priority={priority_name(self.priority)})"

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._size = machine_size
        self._free = machine_size
        self._seq = 0
        self._static = not depends_on_time(self.priority)
        self._queue = SortedList()
        self._dynamic = []
        self._running = {}
        self._reserved = {}

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job (keyed now if its priority is static). O(log q)."""
        self._enqueue(job, now)

    def _enqueue(self, job: Job, now: float) -> Entry | None:
        """Queue a job; return its entry if the priority is static, else None."""
        self._seq += 1
        if self._static:
            entry = (self.priority(job, now), self._seq, job)
            self._queue.add(entry)
            return entry
        self._dynamic.append((self._seq, job))
        return None

    def complete(self, job: Job, now: float) -> None:
        """Free the processors of a finished job."""
        try:
            _, _, procs = self._running.pop(job.id)
        except KeyError:
            raise ScheduleError(f"job {job.id} completed but was not running") from None
        self._free += procs

    def _ordered(self, now: float) -> Sequence[Entry]:
        """Return the queue in service order at ``now`` (do not mutate the queue while iterating).

        O(1) for a static priority (the sorted queue itself), O(q log q) for a time-dependent one.
        """
        if self._static:
            return self._queue  # type: ignore[no-any-return]
        priority = self.priority
        return sorted((priority(job, now), seq, job) for seq, job in self._dynamic)

    def _dequeue(self, entries: list[Entry]) -> None:
        """Remove started entries from the queue."""
        if self._static:
            for entry in entries:
                self._queue.remove(entry)
        else:
            gone = {seq for _, seq, _ in entries}
            self._dynamic = [(s, j) for s, j in self._dynamic if s not in gone]

    def _start(self, job: Job, now: float, seq: int) -> None:
        self._running[job.id] = (now + job.estimate, seq, job.processors)
        self._free -= job.processors

    def next_wakeup(self) -> float | None:
        """These schedulers act only on arrivals and completions."""
        return None

    def reservations(self) -> Mapping[int, float]:
        """Guaranteed starts of queued jobs, by job id."""
        return MappingProxyType(self._reserved)

    def queued(self) -> int:
        """Number of queued jobs. O(1)."""
        return len(self._queue) + len(self._dynamic)

    def _copy_into(self, other: QueueScheduler) -> None:
        other._size = self._size
        other._free = self._free
        other._seq = self._seq
        other._static = self._static
        other._queue = self._queue.copy()
        other._dynamic = self._dynamic.copy()
        other._running = self._running.copy()
        other._reserved = self._reserved.copy()
