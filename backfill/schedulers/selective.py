"""Selective reservation (Srinivasan, Kettimuthu, Subramani and Sadayappan 2002, §4).

Jobs get no reservation when they arrive. A job that has waited long enough, its expansion factor
``XFactor = (wait + estimate) / estimate`` having reached its *starvation threshold*, is promoted to a
guaranteed queue run exactly as Conservative backfilling; every other job starts only where it delays
no promoted job. The threshold is a fixed number (the paper's *Selective*, calibrated by
:func:`starvation_threshold` on a previous run), one number per job category (*Selective-D*,
:class:`CategoryThresholds`, calibrated by :func:`category_thresholds`), or the running mean slowdown
of the jobs completed so far (:class:`AdaptiveThreshold`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
from sortedcontainers import SortedList

import backfill.kernel as kernel
from backfill._moved import moved_name
from backfill._validators import optional_positive_int, optional_seconds
from backfill.errors import ScheduleError
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.machinery.base import SchedulerBase
from backfill.schedulers.machinery.priorities import (
    Priority,
    StatefulPriority,
    depends_on_time,
    fcfs,
    priority_name,
)
from backfill.schedulers.machinery.queue import Entry, check_priority, own_priority
from backfill.schedulers.machinery.thresholds import (
    AdaptiveThreshold,
    CategoryThresholds,
    Threshold,
    as_threshold,
    category_index,
)
from backfill.workloads.conventions import CATEGORIES
from backfill.workloads.limits import MAX_CLOCK
from backfill.workloads.nodes import Allocation
from backfill.workloads.workload import Job

__all__ = [
    "AdaptiveThreshold",
    "CategoryThresholds",
    "Selective",
]

_OVERALL = len(CATEGORIES)  # index of the all-jobs statistics, after the four categories


def _promotion_at(job: Job, threshold: float) -> float:
    """When ``job``'s XFactor reaches ``threshold``: see :meth:`Selective.promotion_time`."""
    if threshold == math.inf:
        return math.inf
    if threshold <= 1 or not job.estimate > 0:
        return job.submit
    return job.submit + (threshold - 1) * job.estimate


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class Selective(SchedulerBase):
    """Selective reservation: only jobs that have waited too long get a Conservative guarantee.

    Two queues (Srinivasan et al. 2002, §4.1):

    * The **entry queue** takes every arriving job and promises nothing. At each decision its jobs are
      tried in ``priority`` order (ties by arrival); a job starts now if it fits over
      ``[now, now + estimate)`` in the profile of running and guaranteed jobs without touching any
      reservation, so it delays no guaranteed job. It then counts as running, so its early completion
      frees space as any other. An entry job never gets a reservation.
    * A job moves to the **guaranteed queue** (is *promoted*) when its ``XFactor = (wait + estimate) /
      estimate`` reaches its starvation threshold ``T``, i.e. at ``submit + (T - 1) * estimate``: at
      arrival if ``T <= 1`` or the estimate is 0 (for finite ``T``), never if ``T`` is ``inf``. The
      guaranteed queue *is* a :class:`~backfill.schedulers.Conservative` scheduler: a promoted job is
      placed at its earliest fit, that reservation never moves later, early completions compress the
      profile in planned-start order, and a guaranteed job starts when the clock reaches its planned
      start. So with ``T <= 1`` for every job, Selective is Conservative, decision for decision.

    Order of one decision at ``now``: (1) compress if a job ended early, (2) promote every entry job
    whose promotion time has come, in order of (promotion time, priority key, arrival), each at its
    earliest fit, (3) start the guaranteed jobs planned at ``now``, (4) try the entry queue.
    :meth:`next_wakeup` names the next promotion time, so promotion happens at that exact instant.
    Guaranteed starts need no wake-up: an earliest fit is always where some reservation ends, and
    every reservation end is a completion (or a reservation released early, which compresses).
    A job the driver delivers late keeps its real submit time, so it may be promoted at once.

    **Starvation bound.** A job promoted at ``t`` starts no later than ``t + Σ est_j`` over the other
    jobs in the profile at the end of that instant (running or guaranteed), hence, in a finished
    schedule, no later than ``t + Σ estimate_j`` over the jobs ``j`` with ``submit_j <= t < end_j``.
    Why: after a compression pass every guaranteed job sits at its earliest fit, and placing jobs at
    their earliest fit or starting entry jobs only takes space, so that stays true between early
    completions. Then no instant of ``[now, s_i)`` (``s_i`` the planned start of job ``i``) has the
    whole machine free: the first reservation after such a free stretch could start at the
    stretch's beginning (the stretch, then its own old place), so it would not be at its earliest fit.
    Every instant of ``[now, s_i)`` is thus covered by a reservation of some other job, so
    ``s_i - now`` is at most the sum of their estimates; the reservation never moves later. The bound
    holds for any threshold; for a fixed or category threshold ``t`` is ``submit + (T - 1) * estimate``.

    **Several resources** (``resources=[...]``): the guaranteed part is Conservative on every
    resource, and an entry job starts only where all its amounts fit over ``[now, now + estimate)``
    without touching a reservation. XFactors and Selective-D's categories read estimates and
    processors, as in the paper. The starvation bound holds as stated: an instant where every
    resource is wholly free cannot precede an earliest fit.

    Args:
        threshold: A number (the same ``T`` for every job, the paper's *Selective*; 26.69 in its
            Table 7), a :class:`CategoryThresholds` (*Selective-D*), or an :class:`AdaptiveThreshold`
            (the default), whose promotion times are recomputed for every waiting job when a
            completion changes the threshold.
        priority: Order of the entry queue (smallest key first, ties by arrival), and of promotions
            due at the same time; any callable ``(job, now) -> key``. The paper uses FCFS.
        planning_window: The guaranteed part's planning window (Slurm's ``bf_window``, seconds; not
            in the paper): a promoted job whose earliest fit lies beyond it waits unreserved until it
            comes within reach (:class:`~backfill.schedulers.Conservative`'s). None: no window.
        max_tested: How many such jobs are tried per decision (with a window only).

    Raises:
        ParameterError: If ``threshold`` is not a number or threshold object, or is negative or
            NaN, or ``priority`` is not callable.

    Examples:
        A wide job waits behind a long one; with ``T = 2`` and an estimate of 100 it is promoted 100 s
        after it arrived and reserved where the long job ends. A later job that would delay it must
        wait, though it fits now.

        >>> s = Selective(2.0)
        >>> s.reset(4, now=0)
        >>> s.submit(Job(id=1, submit=0.0, processors=2, runtime=1000.0, estimate=1000.0), now=0)
        >>> [j.id for j in s.schedule(now=0)]
        [1]
        >>> s.submit(Job(id=2, submit=5.0, processors=4, runtime=100.0, estimate=100.0), now=5)
        >>> s.schedule(now=5), s.next_wakeup()
        ([], 105.0)
        >>> s.schedule(now=105), dict(s.reservations())
        ([], {2: 1000.0})
        >>> s.submit(Job(id=3, submit=110.0, processors=2, runtime=1000.0, estimate=1000.0), now=110)
        >>> s.schedule(now=110), s.name
        ([], 'Selective(2)')
    """

    # Its inner Conservative's: note_reservation is refused (SchedulerBase._check_note).
    _plans_reservations: ClassVar[str] = "its inner Conservative's, whose log it hands out"

    threshold: Threshold = attrs.field(factory=AdaptiveThreshold, converter=as_threshold)
    priority: Priority = attrs.field(default=fcfs, validator=check_priority)
    planning_window: float | None = attrs.field(default=None, kw_only=True, validator=optional_seconds)
    max_tested: int | None = attrs.field(default=None, kw_only=True, validator=optional_positive_int)
    # The guaranteed queue and the profile of running and guaranteed jobs.
    _core: Conservative = attrs.field(init=False)
    _seq: int = attrs.field(init=False, default=0)
    _static: bool = attrs.field(init=False, default=True)
    # What the queue is ordered by: ``priority``, or this scheduler's own copy of a stateful one.
    _key: Priority = attrs.field(init=False, default=fcfs)
    _stateful: StatefulPriority | None = attrs.field(init=False, default=None)
    # The entry queue: every waiting job by id as (arrival seq, job); for a static priority also
    # sorted by (key, seq, job), with each job's entry kept for removal.
    _waiting: dict[int, tuple[int, Job]] = attrs.field(init=False, factory=dict)
    _queue: SortedList = attrs.field(init=False, factory=SortedList)
    _entry: dict[int, Entry] = attrs.field(init=False, factory=dict)
    # Finite promotion times of waiting jobs, as (time, seq, job), and each job's time for removal.
    _promotions: SortedList = attrs.field(init=False, factory=SortedList)
    _promote_at: dict[int, float] = attrs.field(init=False, factory=dict)
    # Adaptive threshold: start of every running job, sums and counts of completed jobs' bounded
    # slowdowns per category and overall, and whether promotion times must be recomputed.
    _started: dict[int, float] = attrs.field(init=False, factory=dict)
    _sums: list[float] = attrs.field(init=False, factory=lambda: [0.0] * (_OVERALL + 1))
    _counts: list[int] = attrs.field(init=False, factory=lambda: [0] * (_OVERALL + 1))
    _stale: bool = attrs.field(init=False, default=False)

    @property
    def name(self) -> str:
        """Short readable name: ``Selective(26.69)``, ``Selective-D(22.3/72.4/1.72/2.59)``, ..."""
        th = self.threshold
        if isinstance(th, float):
            kind, label = "Selective", f"{th:g}"
        elif isinstance(th, CategoryThresholds):
            kind, label = "Selective-D", th.label()
        else:
            kind, label = ("Selective-D" if th.per_category else "Selective"), th.label()
        extra = "" if self.priority is fcfs else f", {priority_name(self.priority)}"
        window = "".join(f", {e}" for e in self._core._window_extras() + self._resource_extras())
        if type(self) is not Selective:
            kind = type(self).__name__
        return f"{kind}({label}{extra}{window})"

    def __repr__(self) -> str:
        window = "".join(f", {e}" for e in self._core._window_extras() + self._resource_extras())
        return (
            f"{type(self).__name__}(threshold={self.threshold!r}, priority={priority_name(self.priority)}"
            f"{window})"
        )

    def __attrs_post_init__(self) -> None:
        # The guaranteed part plans within the window: a promoted job out of reach waits there.
        self._core = Conservative(
            planning_window=self.planning_window,
            max_tested=self.max_tested,
            resources=self.resources,
            nodes=self.nodes,
            placement=self.placement,
        )

    def allocation(self, job_id: int) -> Allocation | None:
        """The nodes a running job holds (the guaranteed part places every job); None on a pool."""
        return self._core.allocation(job_id)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        self._door_reset(machine_size, now)
        self._core.reset(machine_size, now)
        self._seq = 0
        self._key = own_priority(self.priority, machine_size, now)
        self._stateful = self._key if isinstance(self._key, StatefulPriority) else None
        self._static = self._stateful is None and not depends_on_time(self.priority)
        self._waiting = {}
        self._queue = SortedList()
        self._entry = {}
        self._promotions = SortedList()
        self._promote_at = {}
        self._started = {}
        self._sums = [0.0] * (_OVERALL + 1)
        self._counts = [0] * (_OVERALL + 1)
        self._stale = False

    # -- thresholds ----------------------------------------------------------------------------------

    def _threshold_of(self, job: Job) -> float:
        th = self.threshold
        if isinstance(th, float):
            return th
        if isinstance(th, CategoryThresholds):
            return th.of(job)
        i = category_index(job, th.runtime_boundary, th.width_boundary) if th.per_category else _OVERALL
        n = self._counts[i]
        return th.value(self._sums[i] / n if n else None)

    def promotion_time(self, job: Job) -> float:
        """Return when a job's XFactor reaches its current threshold (``inf``: never). O(1).

        ``submit + (T - 1) * estimate``, or ``submit`` if ``T <= 1`` or the estimate is 0 (but ``inf``
        for ``T = inf``). The crossing is defined by this time, so it is exact to the float.

        Examples:
            >>> Selective(3.0).promotion_time(Job(id=1, submit=5.0, processors=1, runtime=1.0, estimate=10.0))
            25.0
        """
        return _promotion_at(job, self._threshold_of(job))

    def _recompute(self) -> None:
        """Recompute every waiting job's promotion time after the threshold changed. O(q log q).

        Only an adaptive threshold changes. Its value per category is worked out once here rather
        than once per job, then each job's time follows :meth:`promotion_time`'s formula (a subclass
        that redefines that method has it called for every job instead).
        """
        items: list[tuple[float, int, Job]] = []
        promote_at: dict[int, float] = {}
        th = self.threshold
        if isinstance(th, AdaptiveThreshold) and type(self).promotion_time is Selective.promotion_time:
            sums, counts = self._sums, self._counts
            values = [th.value(sums[i] / counts[i] if counts[i] else None) for i in range(_OVERALL + 1)]
            per_category, rb, wb = th.per_category, th.runtime_boundary, th.width_boundary
            if (compiled := kernel.KERNEL) is not None:
                items, promote_at = compiled.promotion_items(
                    self._waiting.values(), values, per_category, rb, wb
                )
            else:
                for seq, job in self._waiting.values():
                    at = _promotion_at(job, values[category_index(job, rb, wb) if per_category else _OVERALL])
                    if at < math.inf:
                        items.append((at, seq, job))
                        promote_at[job.id] = at
        else:
            for seq, job in self._waiting.values():
                t = self.promotion_time(job)
                if t < math.inf:
                    items.append((t, seq, job))
                    promote_at[job.id] = t
        self._promotions = SortedList(items)
        self._promote_at = promote_at
        self._stale = False

    def key(self, job: Job, now: float) -> Any:
        """Return the entry-queue sort key of a job at ``now`` (its own priority state's, if any)."""
        return self._key(job, now)

    # -- protocol ------------------------------------------------------------------------------------

    def submit(self, job: Job, now: float) -> None:
        """Put a new job in the entry queue and note its promotion time. O(log q).

        Raises:
            ScheduleError: If the job does not pass the door (:mod:`backfill.schedulers.machinery.door`), or
                is already queued or running.
        """
        self._door_submit(job, now)
        core = self._core
        if (
            job.id in self._waiting
            or job.id in self._started
            or job.id in core._planned
            or job.id in core._unreserved
        ):
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already queued or running; "
                "a host submits each job once"
            )
        requests = self._requests
        if requests is not None:
            # The guaranteed part owns the profile and plans entry jobs' starts too: it keeps the
            # amounts of every job from its arrival on.
            self._take_request(job)
            core._requests[job.id] = requests.pop(job.id)  # type: ignore[index]
        if self._stateful is not None:
            self._stateful.submitted(job, now)
        self._seq += 1
        seq = self._seq
        self._waiting[job.id] = (seq, job)
        if self._static:
            entry = (self._key(job, now), seq, job)
            self._queue.add(entry)
            self._entry[job.id] = entry
        t = self.promotion_time(job)
        if t < math.inf:
            self._promotions.add((t, seq, job))
            self._promote_at[job.id] = t

    def complete(self, job: Job, now: float) -> None:
        """Free the unused part of a finished job's reservation; compression follows. O(log n + k).

        With an adaptive threshold, also fold the job's bounded slowdown into the running means; the
        promotion times are recomputed before the next decision.
        """
        self._door_complete(job, now)
        start = self._started.get(job.id)
        if start is None:
            raise self._completion_error(job, now, None, job.id in self._waiting)
        if now > start + job.estimate:
            raise self._completion_error(job, now, start + job.estimate, False)
        self._core.complete(job, now)
        del self._started[job.id]
        if self._stateful is not None:
            self._stateful.completed(job, now)
        th = self.threshold
        if isinstance(th, AdaptiveThreshold):
            bsld = max(1.0, (now - job.submit) / max(now - start, th.bound))
            for i in (category_index(job, th.runtime_boundary, th.width_boundary), _OVERALL):
                self._sums[i] += bsld
                self._counts[i] += 1
            self._stale = True

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its planned end to end at ``end`` (planning's hook).

        Guaranteed and entry jobs alike run in the guaranteed part's profile, which re-plans as
        :meth:`Conservative.extend <backfill.schedulers.Conservative.extend>` does.
        """
        self._core.extend(job, end, now)

    def schedule(self, now: float) -> list[Job]:
        """Compress, promote what is due, start guaranteed jobs due now, then start entry jobs that fit.

        O(p log p + s (log n + k)) for p promotions and s profile searches, plus O(q (log n + k)) for
        the entry queue (O(q log q) more for a time-dependent priority); an adaptive threshold that
        changed adds O(q log q).
        """
        self._door_time(now)
        if self._stale:
            self._recompute()
        core = self._core
        promotions = self._promotions
        if promotions and promotions[0][0] <= now:
            due = []
            while promotions and promotions[0][0] <= now:
                due.append(promotions.pop(0))
            priority = self._key
            due.sort(key=lambda e: (e[0], priority(e[2], now), e[1]))
            for _, _, job in due:
                self._leave_entry_queue(job)
                core.submit(job, now)  # compresses first if a job ended early
        started = core.schedule(now)  # compresses here if nothing was promoted
        for job in started:
            self._started[job.id] = now
        if self._waiting:
            started += self._start_entry_jobs(now)
        if self._stateful is not None:
            for job in started:
                self._stateful.started(job, now)
        return started

    def _leave_entry_queue(self, job: Job) -> None:
        del self._waiting[job.id]
        if self._static:
            self._queue.remove(self._entry.pop(job.id))

    def _start_entry_jobs(self, now: float) -> list[Job]:
        """Start, in priority order, every entry job that fits now without touching a reservation."""
        if self._static:
            ordered: Any = self._queue
        else:
            priority = self._key
            ordered = sorted((priority(job, now), seq, job) for seq, job in self._waiting.values())
        # The guaranteed part owns the profile and the running jobs; an entry job joins them exactly
        # as a guaranteed one does when it starts, so completions and compression treat both alike.
        started = self._core._start_unreserved(ordered, now)
        for job in started:
            self._started[job.id] = now
            seq = self._waiting[job.id][0]
            self._leave_entry_queue(job)
            t = self._promote_at.pop(job.id, None)
            if t is not None:
                self._promotions.remove((t, seq, job))
        return started

    def next_wakeup(self) -> float | None:
        """Return the earliest promotion (or window's reach) after the last decision, or None. O(log q).

        Promotions later than :data:`~backfill.workloads.limits.MAX_CLOCK` (a huge threshold times a
        long estimate) never come, and ask for no decision.
        """
        if self._stale:
            self._recompute()
        promotions = self._promotions
        i = promotions.bisect_right((self._now, math.inf))
        # A promotion after MAX_CLOCK never comes: no host calls at such a time (the door refuses it).
        wake = float(promotions[i][0]) if i < len(promotions) and promotions[i][0] <= MAX_CLOCK else None
        reach = self._core.next_wakeup()  # a promoted job out of the window's reach, if any
        if reach is not None and (wake is None or reach < wake):
            return reach
        return wake

    def reservations(self) -> Mapping[int, float]:
        """Planned (guaranteed) start of every promoted, still queued job, by job id. O(1)."""
        return self._core.reservations()

    def log_reservation_changes(self, on: bool = True) -> None:
        """Start (or stop) logging reservation changes; see :class:`~backfill.schedulers.ReservationLog`."""
        self._core.log_reservation_changes(on)

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        """Return the ``(job_id, start)`` changes since the last call (promotions and compression moves)."""
        return self._core.take_reservation_changes()

    def queued(self) -> int:
        """Number of queued jobs, in both queues. O(1)."""
        return self._core.queued() + len(self._waiting)

    @property
    def promoted(self) -> int:
        """Number of jobs in the guaranteed queue. O(1)."""
        return self._core.queued()

    @property
    def events_examined(self) -> int:
        """Profile events examined by searches since :meth:`reset`; see :attr:`Profile.examined`."""
        return self._core.events_examined

    def _copy_into(self, other: Any) -> None:
        # O(n + q), adaptive statistics included.
        super()._copy_into(other)
        other._core = self._core.copy()
        if self._stateful is not None:
            other._key = other._stateful = self._stateful.copy()
        other._waiting = self._waiting.copy()
        other._queue = self._queue.copy()
        other._entry = self._entry.copy()
        other._promotions = self._promotions.copy()
        other._promote_at = self._promote_at.copy()
        other._started = self._started.copy()
        other._sums = self._sums.copy()
        other._counts = self._counts.copy()


def __getattr__(name: str) -> object:
    # Names that moved out (the threshold calibration is a measure now) still import, with a warning.
    return moved_name(__name__, name)
