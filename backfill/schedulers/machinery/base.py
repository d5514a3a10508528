"""What every scheduler of the library shares: a copy of its own type, and the opt-in reservation log.

:class:`SchedulerBase` is the root of every built-in scheduler. It gives

* :meth:`SchedulerBase.copy`, which returns an object of ``type(self)``, so that a subclass's
  overrides survive the copies that :func:`~backfill.testing.check_scheduler` simulates and the
  forks of :func:`~backfill.experiments.fair_start.fair_start_times`;
* the optional :class:`~backfill.schedulers.machinery.protocol.ReservationLog` protocol: a log of reservation
  changes that is kept only after :meth:`SchedulerBase.log_reservation_changes` turned it on, so that
  a host that never reads it never pays for it. A subclass adds to it with
  :meth:`SchedulerBase.note_reservation`; a subclass that answers ``reservations()`` itself without
  declaring ``logs_reservations = True`` is logged by comparing its ``reservations()`` between
  calls instead (see :attr:`SchedulerBase.logs_reservations`), so the log always agrees with the
  reservations it reports;
* the door checks of :mod:`backfill.schedulers.machinery.door` (``_door_reset``, ``_door_submit``,
  ``_door_complete``, ``_door_time``), which every built-in scheduler makes first in ``reset``,
  ``submit``, ``complete`` and ``schedule``, and which the public steps of the base classes make
  too, so that a subclass inherits them.

The classes to subclass for an algorithm of your own are :class:`~backfill.schedulers.QueueScheduler`
(a priority-ordered queue) and :class:`~backfill.schedulers.GuaranteeScheduler` (PC's and DC's
profile of guarantees with prioritized compression); see ``docs/how-to/scheduler.md``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple, Self, cast

import attrs

from backfill.errors import JobError, ParameterError, ScheduleError
from backfill.profile import Profile
from backfill.profile.multi import ResourceProfile
from backfill.profile.nodes import NodeProfile
from backfill.profile.placement import Placement, first_fit
from backfill.schedulers.machinery.door import refusal, reset_refusal
from backfill.schedulers.machinery.placing import NodePlacing, is_machine, is_placement
from backfill.schedulers.machinery.protocol import scheduler_name
from backfill.workloads.amounts import Amounts, amount_of
from backfill.workloads.limits import MAX_CLOCK
from backfill.workloads.nodes import Machine
from backfill.workloads.resources import Resource, capacities, check_resources, requests
from backfill.workloads.workload import Job

__all__ = ["RunningJob", "SchedulerBase"]


class _RunningJobFields(NamedTuple):
    job_id: int
    planned_end: float
    request: int | Amounts


class RunningJob(_RunningJobFields):
    """A running job as a scheduler plans with it: when it is planned to end, and what it holds.

    ``planned_end`` is the job's start plus its estimate, or the end a host gave it since through
    ``extend`` (see :class:`~backfill.schedulers.prediction.planning.Replanning`). The job holds ``request``
    until the host reports it complete, at the latest at ``planned_end``: its processors (an int)
    for a scheduler without resources, and with resources its
    :class:`~backfill.workloads.amounts.Amounts`, processors first, as
    :meth:`SchedulerBase.request` gives them. :attr:`processors` is always the int number of
    processors, with or without resources.

    Built as a tuple ``RunningJob(job_id, planned_end, request)``; ``processors=`` is accepted in
    place of ``request=`` (the field's former name), for a job that holds processors alone or its
    whole Amounts.

    Examples:
        >>> RunningJob(3, 120.0, 8)
        RunningJob(job_id=3, planned_end=120.0, request=8)
        >>> RunningJob(job_id=3, planned_end=120.0, processors=8) == RunningJob(3, 120.0, 8)
        True
        >>> held = RunningJob(3, 120.0, Amounts((8, 4096)))  # with memory planned
        >>> held.processors, held.request
        (8, Amounts(8, 4096))
    """

    __slots__ = ()

    def __new__(
        cls,
        job_id: int,
        planned_end: float,
        request: int | Amounts | None = None,
        *,
        processors: int | Amounts | None = None,
    ) -> RunningJob:
        """Build ``(job_id, planned_end, request)``, ``processors=`` standing for ``request=``."""
        if (request is None) == (processors is None):
            raise TypeError("RunningJob takes its request once: request=, or processors= (its former name)")
        held = request if request is not None else processors
        return tuple.__new__(cls, (job_id, planned_end, held))

    @property
    def processors(self) -> int:
        """The processors the job holds: ``request`` without resources, its first amount with them. O(1)."""
        held = self[2]
        return held[0] if held.__class__ is Amounts else held  # type: ignore[return-value]


def _no_log() -> deque[tuple[int, float]]:
    # A deque of length 0 drops what is appended at C speed: the schedulers append unconditionally.
    return deque(maxlen=0)


def _shallow_copy(obj: Any) -> Any:
    """Return a new object of ``type(obj)`` sharing every attribute of ``obj`` (slots and ``__dict__``)."""
    cls: Any = type(obj)
    other = cls.__new__(cls)
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                object.__setattr__(other, name, getattr(obj, name))
    if hasattr(obj, "__dict__"):
        other.__dict__.update(obj.__dict__)
    return other


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class SchedulerBase(NodePlacing):
    """Root of the built-in schedulers: :meth:`copy` keeps the type, and the reservation log is opt-in.

    Not a scheduler by itself. A subclass that keeps mutable containers of its own (lists, dicts,
    sets) extends :meth:`copy`::

        def copy(self) -> Self:
            other = super().copy()
            other.history = list(self.history)
            return other

    Attributes whose values are immutable (numbers, strings, tuples, jobs) need nothing: the copy
    shares them.
    """

    #: Whether every reservation change this class makes is noted in the log
    #: (:meth:`note_reservation`), so that :meth:`take_reservation_changes` can hand the log out as
    #: it is. A class that defines ``reservations()`` in its body gets False unless the same body
    #: sets it (or defines ``take_reservation_changes``): its changes are then found by comparing
    #: ``reservations()`` with its previous answer at each :meth:`take_reservation_changes`, O(k)
    #: for k reservations, so that a subclass that knows nothing of the log is logged correctly.
    #: Set it True in a class that notes each change itself, for the O(changes) path;
    #: :func:`~backfill.testing.check_scheduler` checks that the notes and ``reservations()`` agree.
    #: Notes are the log only on a direct subclass of this class and on
    #: :class:`~backfill.schedulers.QueueScheduler` (FCFS too); EASY, Conservative (LookaheadSlack,
    #: SlackBackfill), GuaranteeScheduler (PC, DC), Selective and RelShare log their own changes and
    #: refuse :meth:`note_reservation`, in their subclasses too.
    logs_reservations: ClassVar[bool] = True
    # What a base that plans its reservations and logs their changes itself keeps them in ("" for
    # SchedulerBase and QueueScheduler, whose notes are the log): note_reservation is refused on
    # such a base and every subclass of it, since a note would disagree with its plan or corrupt it.
    _plans_reservations: ClassVar[str] = ""

    _changes: list[tuple[int, float]] | deque[tuple[int, float]] = attrs.field(init=False, factory=_no_log)
    # The time of the latest call: a host's time never goes backwards. NaN until the first reset, so
    # that the door refuses every call before it (NaN compares false, and differs from every time).
    _now: float = attrs.field(init=False, default=math.nan)
    # The machine's processors, as given to the latest reset (0 before the first).
    _size: int = attrs.field(init=False, default=0)
    # The previous answer of reservations(), for a class that does not note its changes (compared).
    _last_reserved: dict[int, float] = attrs.field(init=False, factory=dict)
    #: Resources planned besides processors (:mod:`backfill.workloads.resources`); none by default.
    resources: tuple[Resource, ...] = attrs.field(default=(), kw_only=True, converter=check_resources)
    # With resources: each queued or running job's amounts by id (None without resources, where a
    # job's width is its processors), and the machine's capacities.
    # (Typed Any so that a width reads as an int where the profile is typed a Profile; see _new_profile.)
    _requests: dict[int, Any] | None = attrs.field(init=False, default=None)
    _capacity: Amounts | None = attrs.field(init=False, default=None)
    #: A machine of node groups (:mod:`backfill.workloads.nodes`) to place every job on, or None: the
    #: machine is a pool of processors (and of :attr:`resources`). With nodes, every job's start comes
    #: with an :meth:`allocation`, and :attr:`placement` chooses its nodes.
    nodes: Machine | None = attrs.field(default=None, kw_only=True, validator=is_machine)
    #: The placement policy on a node machine (:mod:`backfill.profile.placement`): a plain callable.
    placement: Placement = attrs.field(default=first_fit, kw_only=True, validator=is_placement, repr=False)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        body = cls.__dict__
        inherited = cls.take_reservation_changes
        if "take_reservation_changes" in body or inherited not in _BASE_TAKES:
            return  # a log of its own (RelShare and Selective hand out their core's)
        if "reservations" in body and "logs_reservations" not in body:
            # It answers reservations() its own way: nothing says its notes follow (see logs_reservations).
            cls.logs_reservations = False
        # Chosen once here, so that a class whose notes are the log reads it at no extra cost.
        cls.take_reservation_changes = (  # type: ignore[method-assign]
            SchedulerBase.take_reservation_changes
            if cls.logs_reservations
            else SchedulerBase._take_compared_changes
        )

    def copy(self) -> Self:
        """Return an independent scheduler of the same type in the same state, for what-if runs.

        Every attribute is carried over, a subclass's too; the containers of the library's own state
        are copied so that the two schedulers never share them. O(size of that state).

        Examples:
            >>> from backfill import Conservative
            >>> class Mine(Conservative):
            ...     pass
            >>> type(Mine().copy()).__name__
            'Mine'
        """
        other: Self = _shallow_copy(self)
        self._copy_into(other)
        return other

    def _copy_into(self, other: Any) -> None:
        """Give ``other`` (a shallow copy of this scheduler) its own copies of this class's containers."""
        other._changes = self._changes.copy()
        other._last_reserved = self._last_reserved.copy()
        if self._requests is not None:
            other._requests = self._requests.copy()

    # -- the reservation log (optional protocol ReservationLog) --------------------------------------

    def log_reservation_changes(self, on: bool = True) -> None:
        """Start (or with ``on=False`` stop) logging reservation changes; the log starts empty.

        Off by default, so a host that does not read the log never lets it grow. The setting is kept
        by :meth:`reset` and by :meth:`copy`. O(1).
        """
        self._changes = [] if on else _no_log()

    def note_reservation(self, job_id: int, start: float) -> None:
        """Note in the log that queued job ``job_id`` is now reserved to start at ``start``.

        The public way for a subclass to feed the log (see :attr:`logs_reservations`): note every
        new or moved reservation, and ``math.nan`` for a queued job that lost its reservation; a
        reservation that ends because its job starts needs no note. Costs nothing while the log is
        off. O(1).

        Only two bases log by notes: a direct subclass of :class:`SchedulerBase` (which answers
        ``reservations()`` itself) and :class:`~backfill.schedulers.QueueScheduler` (FCFS too),
        whose ``reservations()`` answers from the notes. The others plan their reservations and log
        each change themselves: EASY (the head's shadow time), Conservative and its subclasses
        (LookaheadSlack, SlackBackfill), GuaranteeScheduler, PC and DC (the guarantees), Selective
        and RelShare (their inner scheduler's). On those and their subclasses a note is refused, as
        it would disagree with the plan or corrupt it; a subclass changes their reservations only
        through the base's own steps.

        Examples:
            >>> s = SchedulerBase()  # a subclass's own schedulers, in practice
            >>> s.log_reservation_changes()
            >>> s.note_reservation(7, 30.0)
            >>> s.take_reservation_changes()
            [(7, 30.0)]
            >>> s.note_reservation(7, -5.0)
            Traceback (most recent call last):
            ...
            backfill.errors.ScheduleError: SchedulerBase: note_reservation(7, -5.0): a start is math.nan ...

        Raises:
            ScheduleError: If the scheduler's base plans its reservations itself (see above), if
                ``job_id`` is not an int, or if ``start`` is neither NaN nor a time from the
                scheduler's latest time (0 before its first call) to ``MAX_CLOCK``.
        """
        self._check_note(job_id, start)
        self._changes.append((job_id, start))

    def _check_note(self, job_id: int, start: float) -> None:
        """Refuse a note that no reservation can be: it would enter the log as a quiet wrong value."""
        if self._plans_reservations:
            raise ScheduleError(_note_refused(self, job_id, start))
        now = self._now if self._now == self._now else 0.0
        if not isinstance(job_id, int) or isinstance(job_id, bool):
            raise ScheduleError(
                f"{scheduler_name(self)}: note_reservation({job_id!r}, {start!r}): a job id is an int"
            )
        try:
            if (
                isinstance(start, (int, float))
                and not isinstance(start, bool)
                and (start != start or now <= start <= MAX_CLOCK)
            ):
                return
        except TypeError:
            pass
        raise ScheduleError(
            f"{scheduler_name(self)}: note_reservation({job_id!r}, {start!r}): a start is math.nan "
            f"(withdrawn) or a time from {now:g} to MAX_CLOCK (2**43 s), no earlier than now"
        )

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        """Return the ``(job_id, start)`` reservation changes since the last call, and forget them.

        ``start`` is NaN when a queued job lost its reservation; a reservation ending because its job
        starts is not a change. O(changes) when the class notes its changes
        (:attr:`logs_reservations`); otherwise the changes are found by comparing ``reservations()``
        with its previous answer, O(k log k) for k reservations.

        Raises:
            ScheduleError: If the log is off (see :meth:`log_reservation_changes`): an empty answer
                would read as "nothing changed".
        """
        changes = self._changes
        if type(changes) is not list:
            raise ScheduleError(
                f"{type(self).__name__}: the reservation log is off; call log_reservation_changes() "
                "before the run to keep one"
            )
        self._changes = []
        return changes

    def _take_compared_changes(self) -> list[tuple[int, float]]:
        """Take the changes of a class whose notes are not the log, by comparing ``reservations()``.

        As the simulator records a scheduler without a log: new and moved reservations by job id,
        then the lost ones of jobs still queued (NaN). Raises as :meth:`take_reservation_changes`
        does if the log is off.
        """
        SchedulerBase.take_reservation_changes(self)  # checks the log is on; drops what was noted
        reserved: Mapping[int, float] = getattr(self, "reservations")()  # noqa: B009 (a subclass's)
        last = self._last_reserved
        if reserved == last:
            return []
        changes = sorted(reserved.items() - last.items())
        changes += [
            (job_id, math.nan)
            for job_id in sorted(last.keys() - reserved.keys())
            if self._still_queued(job_id)
        ]
        self._last_reserved = dict(reserved)
        return changes

    def _still_queued(self, job_id: int) -> bool:
        """Whether a job is still queued (a lost reservation is a change) rather than started."""
        return True

    def _whole_run(self) -> Any:
        """The settings of the compiled kernel's run that makes exactly this scheduler's decisions, or None.

        None here: only FCFS, EASY, Conservative, PC and DC themselves, in the configurations the
        kernel ports (:mod:`backfill.schedulers.machinery.compiled`), answer otherwise, and never a
        subclass of theirs (whatever it overrides). The kernel, below the schedulers, asks the
        scheduler rather than importing it.
        """
        return None

    # -- resources besides processors (backfill.workloads.resources) --------------------------------

    @property
    def capacity(self) -> int | Amounts:
        """What the machine has: its processors, or with resources an :class:`Amounts` of each. O(1).

        With :attr:`resources`: processors first, then each resource's capacity in order.

        Examples:
            >>> from backfill import Conservative, Resource
            >>> s = Conservative(resources=[Resource.memory(1024)])
            >>> s.reset(4, now=0.0)
            >>> s.capacity
            Amounts(4, 1024)
        """
        return self._size if self._capacity is None else self._capacity

    def request(self, job: Job) -> int | Amounts:
        """What ``job`` holds while it runs, as planned: its processors, or with resources Amounts.

        Without :attr:`resources` an int, the job's processors; with them an :class:`Amounts` of
        its processors then its amount of each resource in order. A queued or running job's
        amounts are those taken when it was submitted. O(1) for such a job, O(r) for another (r
        resources).
        """
        requests_ = self._requests
        amounts = None if requests_ is None else requests_.get(job.id)
        if amounts is not None:
            return amounts  # type: ignore[no-any-return]
        if self.nodes is not None:
            return self._demand(job)  # type: ignore[return-value]
        return requests(job, self.resources) if self.resources else job.processors

    def amount(self, job: Job, name: str = "processors") -> int:
        """The units of resource ``name`` that ``job`` holds while it runs, as planned. O(r).

        ``"processors"`` always works, with or without :attr:`resources`: the job's processors.
        Another name must be one of :attr:`resources`; the amount is the one :meth:`request` holds
        (taken at submission for a queued or running job). To read one resource of :attr:`capacity`
        or of a free value, use :func:`~backfill.workloads.amounts.amount_of`.

        Raises:
            ParameterError: If ``job`` is not a Job, or the scheduler does not plan a resource
                ``name`` (naming the ones it plans).

        Examples:
            >>> from backfill import EASY, Job, Resource
            >>> job = Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=5.0, requested_memory=100)
            >>> EASY().amount(job), EASY(resources=[Resource.memory(1024)]).amount(job, "memory")
            (2, 200)
            >>> EASY().amount(job, "memory")
            Traceback (most recent call last):
            ...
            backfill.errors.ParameterError: EASY(fcfs): no resource 'memory' is planned; planned: processors
        """
        if not isinstance(job, Job):
            raise ParameterError(f"{scheduler_name(self)}: amount() takes a Job, got {job!r}")
        try:
            return amount_of(self.request(job), name, self.resources)
        except ParameterError as e:
            raise ParameterError(f"{scheduler_name(self)}: {e}") from None

    def _resource_extras(self) -> list[str]:
        """``+memory`` and the like, one per resource, for a name; ``nodes=...`` on a node machine."""
        if self.nodes is not None:
            policy = getattr(self.placement, "__name__", "placement")
            return [f"nodes={self.nodes.text()}", *([] if self.placement is first_fit else [policy])]
        return [f"+{r.name}" for r in self.resources]

    @property
    def _beyond_processors(self) -> bool:
        """Whether the machine is more than a count of processors: resources, or nodes. O(1)."""
        return bool(self.resources) or self.nodes is not None

    def _new_profile(self, now: float) -> Profile:
        """An empty plan of the machine from ``now``: a Profile, or with resources a ResourceProfile.

        A :class:`ResourceProfile` has every method of a :class:`Profile` that the schedulers call,
        with :class:`Amounts` where the other takes ints, so the schedulers' code is one for both;
        it is typed a Profile for that code (the widths it passes are typed alike, see ``_requests``).
        """
        if self.nodes is not None:
            return cast(Profile, NodeProfile(self.nodes.capacities(), now, self.placement))
        capacity = self._capacity
        if capacity is None:
            return Profile(self._size, origin=now)
        return cast(Profile, ResourceProfile(capacity, origin=now))

    def _take_request(self, job: Job) -> None:
        """Keep a submitted job's amounts (with resources), refusing a job that can never fit.

        Raises:
            ScheduleError: If the job asks more of a resource than the machine has (a host rejects
                such jobs first, as the simulator does), or its request is not an int >= 0.
        """
        requests_ = self._requests
        if requests_ is None or job.id in requests_:
            return  # no resources, or taken already (PC and DC take it before QueueScheduler would)
        if self.nodes is not None:
            requests_[job.id] = self._demand(job)
            return
        try:
            amounts = requests(job, self.resources)
        except JobError as e:
            raise ScheduleError(f"{scheduler_name(self)}: {e}") from None
        capacity = self._capacity
        assert capacity is not None
        if amounts > capacity:
            names = ["processors", *(r.name for r in self.resources)]
            over = [f"{a} {n} of {c}" for n, a, c in zip(names, amounts, capacity, strict=True) if a > c]
            raise ScheduleError(
                f"{scheduler_name(self)}: job {job.id} submitted at {self._now:g} asks {', '.join(over)}: "
                "more than the machine has; a host rejects such jobs before submitting them"
            )
        requests_[job.id] = amounts

    def _drop_request(self, job: Job) -> None:
        """Forget a job's amounts once it has ended (with resources). O(1)."""
        if self._requests is not None:
            self._requests.pop(job.id, None)

    # -- the door (backfill.schedulers.machinery.door): O(1) checks of every call, before anything changes

    def _door_reset(self, machine_size: int, now: float) -> None:
        """Check a reset (a whole number of processors >= 1, a finite time <= MAX_CLOCK) and keep both."""
        error = reset_refusal(scheduler_name(self), machine_size, now)
        if error is not None:
            raise error
        self._size = int(machine_size)
        self._now = now
        if self.nodes is not None:
            if self._size != self.nodes.cores:
                raise ScheduleError(
                    f"{scheduler_name(self)}: reset for {self._size} processors, but its node machine "
                    f"{self.nodes.text()} has {self.nodes.cores} cores; a host resets it with those"
                )
            self._requests = {}
        elif self.resources:
            self._capacity = capacities(self._size, self.resources)
            self._requests = {}

    # The hottest paths (QueueScheduler's _enqueue and _finish, Conservative's submit and complete,
    # every schedule) make these checks inline, with the same conditions, and call the methods below
    # only when a condition fails: a method call costs as much as the checks themselves.

    def _door_submit(self, job: Job, now: float) -> None:
        """Check an arrival (time, type, width, estimate, submit time; see the door) and keep the time."""
        try:
            ok = (
                self._now <= now <= MAX_CLOCK
                and (job.__class__ is Job or isinstance(job, Job))
                and 0 < job.processors <= self._size
                and job.estimate >= 0.0
                and job.submit <= now
            )
        except TypeError:
            ok = False
        if not ok:
            raise refusal(scheduler_name(self), "submit", job, now, self._now, self._size)
        self._now = now

    def _door_complete(self, job: Job, now: float) -> None:
        """Check a completion (a job, a time that does not go backwards) and keep the time."""
        try:
            ok = self._now <= now <= MAX_CLOCK and (job.__class__ is Job or isinstance(job, Job))
        except TypeError:
            ok = False
        if not ok:
            raise refusal(scheduler_name(self), "complete", job, now, self._now, self._size)
        self._now = now

    def _door_time(self, now: float, call: str = "schedule") -> None:
        """Check a decision's time (finite, <= MAX_CLOCK, not before the previous call's) and keep it.

        ``call`` names the method in a refusal: ``schedule``, or a public step a subclass decides with.
        """
        try:
            ok = self._now <= now <= MAX_CLOCK
        except TypeError:
            ok = False
        if not ok:
            raise refusal(scheduler_name(self), call, None, now, self._now, self._size)
        self._now = now

    def _completion_error(self, job: Job, now: float, end: float | None, queued: bool) -> ScheduleError:
        """The error for a job reported ended at ``now`` that was not running, or planned to end at ``end``.

        ``end`` is None for a job that is not running; ``queued`` tells whether it waits instead.
        """
        name = scheduler_name(self)
        if end is None:
            state = "queued" if queued else "not running"
            return ScheduleError(f"{name}: job {job.id} completed at {now:g} but was {state}")
        return ScheduleError(
            f"{name}: job {job.id} completed at {now:g}, after its start + estimate ({end:g}), when "
            "its processors were already counted free; a host ends every job by then, or raises "
            "the estimate before submitting it"
        )

    def _clear_log(self) -> None:
        """Empty the log, keeping it on or off (for :meth:`reset`)."""
        self._changes = [] if isinstance(self._changes, list) else _no_log()
        self._last_reserved = {}


def _note_refused(scheduler: SchedulerBase, job_id: object, start: object) -> str:
    """Why ``note_reservation`` is refused on a scheduler whose base plans its reservations itself."""
    base = next(c for c in type(scheduler).__mro__ if "_plans_reservations" in c.__dict__)
    return (
        f"{scheduler_name(scheduler)}: note_reservation({job_id!r}, {start!r}) is refused: "
        f"{base.__name__} plans its reservations ({scheduler._plans_reservations}) and logs each "
        "change itself, so a note would disagree with them or corrupt them. Only subclasses of "
        "QueueScheduler (FCFS too) or of SchedulerBase directly log by notes; a subclass of "
        f"{base.__name__} changes its reservations through {base.__name__}'s own steps"
    )


# The two ways the base takes the log; a class that inherits another way keeps it.
_BASE_TAKES = (SchedulerBase.take_reservation_changes, SchedulerBase._take_compared_changes)
