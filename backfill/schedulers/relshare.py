"""Relative fair-share scheduling as production schedulers do it (Vasupongayya, §II and §III-B).

Each user (or group) has a *fair-share priority*, its cumulated entitled share divided by its
cumulated usage within the current fair-share window; every job of the user carries it, ties go to
the earlier arrival, and the queue is served by EASY backfilling in that order (the highest-priority
blocked job, or the first ``depth`` of them, holds a reservation). PBS, LSF, LoadLeveler and
Maui/Moab all implement this relative model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar

import attrs

from backfill._validators import optional_positive_int, optional_seconds
from backfill.errors import ParameterError, ScheduleError
from backfill.profile.nodes import Demand
from backfill.schedulers._fairshare_queue import FairShareEASY, FairShareKey
from backfill.schedulers._window import limit_names
from backfill.schedulers.machinery.base import SchedulerBase
from backfill.schedulers.machinery.entitlement import water_fill
from backfill.workloads.limits import MAX_TIME
from backfill.workloads.nodes import Allocation, Machine
from backfill.workloads.workload import Job

__all__ = ["RelShare"]

_DAY = 86400.0

#: Window boundaries crossed one by one in a step; any more are crossed at once (_skip_windows).
_STEPPED_WINDOWS = 1024


def _positive_finite(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value < math.inf):
        raise ParameterError(f"{attribute.name} must be a positive finite number of seconds, got {value!r}")


def _origin_validator(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not -MAX_TIME <= value <= MAX_TIME:
        raise ParameterError(f"origin must be a number of seconds within ±{MAX_TIME:g}, got {value!r}")


def _decay_validator(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (0 <= value <= 1):
        raise ParameterError(f"decay must be a number in [0, 1], got {value!r}")


def _by_validator(instance: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if value not in ("user", "group"):
        raise ParameterError(f"by must be 'user' or 'group', got {value!r}")


def _shares_converter(value: Mapping[int, float] | None) -> Mapping[int, float]:
    shares = dict(value or {})
    for owner, share in shares.items():
        if not (0 < share < math.inf):
            raise ParameterError(f"shares must be positive and finite, got {share!r} for {owner!r}")
    return MappingProxyType(shares)


def _window_name(seconds: float) -> str:
    for unit, size in (("d", _DAY), ("h", 3600.0), ("min", 60.0)):
        if seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class RelShare(SchedulerBase):
    """RelShare(fw): EASY backfilling in the order of the owners' entitled share / cumulated usage.

    **Priority.** A job's key is its owner's fair-share priority ``E / U`` within the current
    window (``window`` seconds long, windows starting at ``origin + k * window``):

    * ``E``, the *cumulated entitled share*: processor-seconds the owner was entitled to since the
      window began. At each instant the machine is divided among the active owners (a job waiting or
      running) in proportion to their shares, each capped at the processors it requests, the rest
      re-divided (:func:`backfill.schedulers.machinery.entitlement.entitled_processors`).
    * ``U``, the *cumulated usage*: processor-seconds the owner's jobs used since the window began,
      plus, with ``expected_usage`` (the paper's RelShare(fw)), the processor-seconds its running
      jobs are expected to use (by their estimates) and its reserved jobs to use from their
      reservation, both only up to the end of the window. Without it (``expected_usage=False``, the
      paper's "w/o expected usage") only what was actually used counts.

    An owner that has used nothing has an infinite priority. Ties go to the earlier arrival.

    **Windows and decay.** At each window start, ``E`` and ``U`` are multiplied by ``decay``: 0
    (the default, and the paper's setting) resets them, as Vasupongayya does to isolate the window; a
    value in (0, 1] carries earlier windows over with that weight, as production schedulers allow.

    **Choices where the paper is silent**, each tested:

    * Priorities are computed once per decision, at its start, as production schedulers recompute
      them once per scheduling iteration; a job started during the decision raises its owner's usage
      for the next decision.
    * A reserved job's expected usage counts against its owner's *other* jobs, not against itself.
      Counted against itself too, a reservation would lower its holder's priority and pass to another
      owner at the next decision, then come back: it would hop between owners at every decision.
    * The machine's size is what is divided (the paper's 128 nodes), not the processors in use.
    * Decisions happen at arrivals and completions only, as for LXF-backfill: a window boundary
      changes priorities but does not by itself wake the scheduler.

    **Several resources.** Built with ``resources=[...]``, EASY plans every resource (see
    :class:`~backfill.schedulers.EASY`) and a job is charged by its *dominant share* (Ghodsi et
    al.'s DRF): its share of the machine is the largest of ``amount / capacity`` over processors and
    every resource, and it counts as that share of the machine's processors, ``width = share *
    processors``, a processor-equivalent width. Usage is that width times the time used, and an
    owner's request (what caps its entitlement) the sum of its jobs' widths. A job asking little
    of every resource but its processors has ``width = processors``: with processors alone, or
    resources nobody asks much of, usage is exactly processor-seconds as above; a job holding all
    the memory on one processor is charged the whole machine. Widths are exact fractions, so an
    owner's running width returns to exactly 0.

    **Cost.** Usage is accounted incrementally: a start, a completion or an arrival updates its
    owner in O(1); the entitlements are re-divided in O(u log u) (u active owners) at each instant
    where requests changed and accumulated in O(u) when time advances; a window start costs O(o + r)
    (o owners seen, r running jobs). The decision itself is EASY's over a queue kept per owner: the
    owners are sorted by key and their queues, in arrival order, laid end to end, O(q + o log o) for
    q queued jobs of o owners, plus O(log q) per reserved job, which has a key of its own.

    Args:
        window: The fair-share window ``fw`` in seconds (the paper studies 4 h to 7 days).
        expected_usage: Count running and reserved jobs' expected usage within the window.
        decay: Weight of the previous window's entitlement and usage at each window start.
        depth: Reservation depth of the EASY backfilling (1, the paper's setting, or more; None
            reserves for every blocked job).
        planning_window: EASY's planning window in seconds (Slurm's ``bf_window``), or None.
        max_tested: EASY's limit on the queued jobs each decision goes through (Slurm's
            ``bf_max_job_test``), or None.
        by: Share between ``"user"`` or ``"group"`` (the job field of that name).
        shares: Assigned share of each owner; owners not listed get ``default_share``. Equal shares
            (the paper's setting) by default.
        default_share: The share of an owner not in ``shares``.
        origin: A time at which a window starts.
        resources: Resources planned besides processors (see "Several resources" above).

    Raises:
        ParameterError: A window or share that is not positive and finite, a decay outside [0, 1], an
            unknown ``by``, a bad depth.

    Examples:
        Users 1 and 2 each have a job waiting for the whole 4-processor machine; user 1 has just used
        it, so user 2's job goes first although it arrived later:

        >>> s = RelShare(window=86400.0)
        >>> s.reset(4, now=0.0)
        >>> s.submit(Job(id=1, submit=0.0, processors=4, runtime=100.0, estimate=100.0, user=1), 0.0)
        >>> [j.id for j in s.schedule(0.0)]
        [1]
        >>> s.submit(Job(id=2, submit=10.0, processors=4, runtime=100.0, estimate=100.0, user=1), 10.0)
        >>> s.submit(Job(id=3, submit=20.0, processors=4, runtime=100.0, estimate=100.0, user=2), 20.0)
        >>> s.schedule(20.0), dict(s.reservations())
        ([], {3: 100.0})
        >>> s.name
        'RelShare(1d)'
    """

    # Its inner EASY's, whose log it hands out: note_reservation is refused (SchedulerBase._check_note).
    _plans_reservations: ClassVar[str] = "its inner EASY's, whose log it hands out"

    window: float = attrs.field(default=_DAY, validator=_positive_finite)
    expected_usage: bool = attrs.field(default=True)
    decay: float = attrs.field(default=0.0, validator=_decay_validator)
    depth: int | None = attrs.field(default=1, validator=optional_positive_int)
    planning_window: float | None = attrs.field(default=None, kw_only=True, validator=optional_seconds)
    max_tested: int | None = attrs.field(default=None, kw_only=True, validator=optional_positive_int)
    by: str = attrs.field(default="user", validator=_by_validator)
    shares: Mapping[int, float] = attrs.field(default=None, converter=_shares_converter)
    default_share: float = attrs.field(default=1.0, validator=_positive_finite)
    origin: float = attrs.field(default=0.0, validator=_origin_validator)

    _core: FairShareEASY = attrs.field(init=False)
    _waiting: dict[int, Job] = attrs.field(init=False, factory=dict)
    # Per owner: processors requested (waiting + running), the entitlement rate now, the entitlement
    # and completed usage cumulated in this window (settled to _t), and for its running jobs their
    # total width, sum of width * max(start, window start), and expected usage within the window.
    # (Widths are ints, or with resources also Fractions: see _charged.)
    _request: dict[int, int | Fraction] = attrs.field(init=False, factory=dict)
    _rate: dict[int, float] = attrs.field(init=False, factory=dict)
    _entitled: dict[int, float] = attrs.field(init=False, factory=dict)
    _used: dict[int, float] = attrs.field(init=False, factory=dict)
    _width: dict[int, int | Fraction] = attrs.field(init=False, factory=dict)
    _anchor: dict[int, float] = attrs.field(init=False, factory=dict)
    _expected: dict[int, float] = attrs.field(init=False, factory=dict)
    # Running jobs: id -> (owner, width, start, planned end); reserved: id -> (owner, width, start, end).
    _running: dict[int, tuple[int, int | Fraction, float, float]] = attrs.field(init=False, factory=dict)
    _reserved: dict[int, tuple[int, int | Fraction, float, float]] = attrs.field(init=False, factory=dict)
    _t: float = attrs.field(init=False, default=0.0)
    _w0: float = attrs.field(init=False, default=0.0)
    _w1: float = attrs.field(init=False, default=0.0)
    _dirty: bool = attrs.field(init=False, default=False)
    # Waiting jobs per owner, so a decision keys only the owners with a job queued.
    _queued: dict[int, int] = attrs.field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self._core = FairShareEASY(
            FairShareKey(self),
            self.depth,
            planning_window=self.planning_window,
            max_tested=self.max_tested,
            resources=self.resources,
            nodes=self.nodes,
            placement=self.placement,
        )

    def __getstate__(self) -> dict[str, Any]:
        # The read-only view of the shares does not pickle; its dict does (process pools, checkpoints).
        state = {a.name: getattr(self, a.name) for a in attrs.fields(RelShare)}
        state["shares"] = dict(self.shares)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, MappingProxyType(value) if name == "shares" else value)

    @property
    def name(self) -> str:
        """Short readable name, e.g. ``RelShare(1d)`` or ``RelShare(4h, w/o expected usage)``."""
        extras = [] if self.expected_usage else ["w/o expected usage"]
        if self.decay:
            extras.append(f"decay={self.decay:g}")
        if self.depth != 1:
            extras.append(f"depth={'inf' if self.depth is None else self.depth}")
        extras += limit_names(self.planning_window, self.max_tested)
        if self.by != "user":
            extras.append(f"by={self.by}")
        extras += self._resource_extras()
        return f"{type(self).__name__}({', '.join([_window_name(self.window), *extras])})"

    def __repr__(self) -> str:
        return (
            f"RelShare(window={self.window!r}, expected_usage={self.expected_usage!r}, "
            f"decay={self.decay!r}, depth={self.depth!r}, by={self.by!r}, shares={dict(self.shares)!r}, "
            f"default_share={self.default_share!r}, origin={self.origin!r}, "
            f"planning_window={self.planning_window!r}, max_tested={self.max_tested!r}"
            + "".join(f", {extra}" for extra in self._resource_extras())
            + ")"
        )

    # ----------------------------------------------------------------------------- the protocol

    def allocation(self, job_id: int) -> Allocation | None:
        """The nodes a running job holds (its EASY core places every job); None on a pool."""
        return self._core.allocation(job_id)

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job and all usage; schedule a machine of ``machine_size`` processors from ``now``."""
        self._door_reset(machine_size, now)
        self._core.reset(machine_size, now)
        self._waiting, self._running, self._reserved = {}, {}, {}
        self._request, self._width, self._queued = {}, {}, {}
        self._rate, self._entitled, self._used, self._anchor, self._expected = {}, {}, {}, {}, {}
        self._t = now
        self._w0 = self._window_start(now)
        self._w1 = self._window_end(self._w0, now)
        self._dirty = False

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job; its owner becomes active. O(log q).

        Raises:
            ScheduleError: If the job does not pass the door (:mod:`backfill.schedulers.machinery.door`), or
                is already queued or running.
        """
        self._door_submit(job, now)
        if job.id in self._waiting or job.id in self._running:
            raise ScheduleError(
                f"{self.name}: job {job.id} submitted at {now:g} while already queued or running; "
                "a host submits each job once"
            )
        if self._requests is not None:
            self._take_request(job)  # refuses a job asking more than the machine has, naming this
        self._advance(now)
        self._core.submit(job, now)
        self._waiting[job.id] = job
        owner = self._owner(job)
        self._request[owner] = self._request.get(owner, 0) + self._charged(job)
        self._queued[owner] = self._queued.get(owner, 0) + 1
        self._dirty = True

    def complete(self, job: Job, now: float) -> None:
        """Free a finished job's processors and book what it actually used. O(log r)."""
        self._door_complete(job, now)
        record = self._running.get(job.id)
        if record is None:
            raise self._completion_error(job, now, None, job.id in self._waiting)
        if now > record[3]:
            raise self._completion_error(job, now, record[3], False)
        self._core.complete(job, now)
        self._advance(now)
        owner, width, start, end = self._running.pop(job.id)
        if self._requests is not None:
            del self._requests[job.id]
        since = max(start, self._w0)
        self._used[owner] = self._used.get(owner, 0.0) + width * max(now - since, 0.0)
        self._width[owner] -= width
        if self._width[owner] == 0:
            # Exact zeros, so rounding cannot build up over a long trace.
            self._anchor[owner] = self._expected[owner] = 0.0
        else:
            self._anchor[owner] -= width * since
            self._expected[owner] -= width * max(min(end, self._w1) - since, 0.0)
        self._request[owner] -= width
        if self._request[owner] == 0:
            # Only active owners stay, so re-dividing the machine never walks past ones.
            del self._request[owner]
        self._dirty = True

    def extend(self, job: Job, end: float, now: float) -> None:
        """Plan a running job that outlived its planned end to end at ``end`` (planning's hook).

        EASY re-plans at the next decision, and the owner's expected usage grows by the extra time.
        """
        self._core.extend(job, end, now)  # raises if it is not running or not extended
        self._advance(now)
        owner, width, start, old = self._running[job.id]
        self._running[job.id] = (owner, width, start, end)
        since = max(start, self._w0)
        w1 = self._w1
        self._expected[owner] += width * (max(min(end, w1) - since, 0.0) - max(min(old, w1) - since, 0.0))
        self._dirty = True

    def schedule(self, now: float) -> list[Job]:
        """Order the queue by fair-share priority and run one EASY decision; book the started jobs."""
        self._door_time(now)
        self._advance(now)
        started = self._core.schedule(now)
        for job in started:
            del self._waiting[job.id]
            owner = self._owner(job)
            self._queued[owner] -= 1
            if not self._queued[owner]:
                del self._queued[owner]
            end = now + job.estimate
            width = self._charged(job)
            self._running[job.id] = (owner, width, now, end)
            self._width[owner] = self._width.get(owner, 0) + width
            self._anchor[owner] = self._anchor.get(owner, 0.0) + width * now
            self._expected[owner] = self._expected.get(owner, 0.0) + width * max(
                min(end, self._w1) - now, 0.0
            )
        self._reserved = {}
        if self.expected_usage:
            for job_id, start in self._core.reservations().items():
                job = self._waiting[job_id]
                self._reserved[job_id] = (self._owner(job), self._charged(job), start, start + job.estimate)
        return started

    def next_wakeup(self) -> float | None:
        """None: decisions happen at arrivals and completions (see the class docstring)."""
        return self._core.next_wakeup()

    def reservations(self) -> Mapping[int, float]:
        """The reservations of the EASY decision: the first blocked job's (or the first ``depth``)."""
        return self._core.reservations()

    def take_reservation_changes(self) -> list[tuple[int, float]]:
        """The reservation changes since the previous call; see :meth:`log_reservation_changes`."""
        return self._core.take_reservation_changes()

    def queued(self) -> int:
        """Number of queued jobs. O(1)."""
        return self._core.queued()

    def log_reservation_changes(self, on: bool = True) -> None:
        """Start (or stop) logging reservation changes; see :class:`~backfill.schedulers.ReservationLog`."""
        self._core.log_reservation_changes(on)

    def _copy_into(self, other: Any) -> None:
        # O(q + r + o) for o owners. The copy's EASY orders by the copy's own fair-share keys.
        super()._copy_into(other)
        other._core = self._core.copy()
        key = FairShareKey(other)
        other._core.priority = key
        other._core._key = key
        for name in (
            "_waiting",
            "_request",
            "_rate",
            "_entitled",
            "_used",
            "_width",
            "_anchor",
            "_expected",
            "_queued",
        ):
            setattr(other, name, getattr(self, name).copy())
        other._running = self._running.copy()
        other._reserved = self._reserved.copy()

    # ----------------------------------------------------------------------------- accounting

    def _owner(self, job: Job) -> int:
        return job.user if self.by == "user" else job.group

    def _charged(self, job: Job) -> int | Fraction:
        """The width a queued or running job is charged: its processors, or its dominant share of them.

        With resources, ``max(processors, amount * machine processors / capacity)`` over the
        resources (see the class docstring): an int where processors dominate, else a Fraction. O(r).
        """
        requests = self._requests
        if requests is None:
            return job.processors
        if self.nodes is not None:
            return _node_charge(requests[job.id], self.nodes, self._size)
        capacity = self._capacity
        assert capacity is not None
        amounts = requests[job.id]
        width: int | Fraction = amounts[0]
        size = self._size
        for a, c in zip(amounts[1:], capacity[1:], strict=True):
            if a * size > width * c:
                width = Fraction(a * size, c)
        return width

    def _advance(self, now: float) -> None:
        """Bring the entitlements to ``now``, starting new windows on the way."""
        if self._dirty:
            # Requests changed at _t: the new division holds from _t on.
            active = list(self._request)
            shares = self.shares
            if shares:
                weights = [shares.get(o, self.default_share) for o in active]
            else:
                weights = [self.default_share] * len(active)
            requested: list[Any] = list(self._request.values())  # with resources, Fractions too
            levels = water_fill(requested, weights, self._size)
            self._rate = dict(zip(active, levels, strict=True))
            self._dirty = False
        stepped = 0
        while now >= self._w1:
            if stepped == _STEPPED_WINDOWS:
                self._skip_windows(now)
                break
            self._accumulate(self._w1)
            self._new_window()
            stepped += 1
        self._accumulate(now)

    def _window_start(self, t: float) -> float:
        """The start of the window that holds ``t``; ``t`` itself if windows are too short to place."""
        k = (t - self.origin) / self.window
        if not math.isfinite(k):
            return t
        start = self.origin + math.floor(k) * self.window
        return start if start <= t else t

    def _window_end(self, start: float, t: float) -> float:
        """The end of the window starting at ``start`` that holds ``t``: after ``t``, however short."""
        end = start + self.window
        return end if end > t else math.nextafter(t, math.inf)

    def _skip_windows(self, now: float) -> None:
        """Start the window that holds ``now`` at once, crossing every whole window before it. O(o + r).

        Between two calls nothing changes but time: each whole window adds ``rate * window`` to an
        owner's entitlement and ``width * window`` (its running jobs') to its usage, and then both are
        multiplied by ``decay``, so n windows give ``x * d**n + a * (d + ... + d**n)``. Called at a
        window boundary, after more windows than :data:`_STEPPED_WINDOWS` were crossed one at a time.
        """
        w0, window, d = self._w0, self.window, self.decay
        start = min(max(self._window_start(now), self._w1), now)
        n = max((start - w0) / window, 1.0)
        if d == 1:
            keep, gain = 1.0, n
        else:
            keep = d**n  # 0 for d = 0, which clears every value
            gain = d * (1 - keep) / (1 - d)
        entitled = dict.fromkeys(self._rate, 0.0) | self._entitled
        used = dict.fromkeys(self._width, 0.0) | self._used
        rates, widths = self._rate, self._width
        self._entitled = {o: keep * e + gain * rates.get(o, 0.0) * window for o, e in entitled.items()}
        self._used = {o: keep * u + gain * widths.get(o, 0) * window for o, u in used.items()}
        for owner, width in self._width.items():
            self._anchor[owner] = width * start
        self._t = self._w0 = start
        self._w1 = self._window_end(start, now)
        self._rebase_expected(start)

    def _accumulate(self, until: float) -> None:
        span = until - self._t
        if span > 0:
            entitled = self._entitled
            for owner, rate in self._rate.items():
                entitled[owner] = entitled.get(owner, 0.0) + rate * span
            self._t = until

    def _new_window(self) -> None:
        """Start the window at _w1: decay the cumulated values, re-base the running jobs. O(o + r)."""
        boundary = self._w1
        decay = self.decay
        for owner, width in self._width.items():
            # The running jobs' usage up to the boundary joins the window that ends.
            self._used[owner] = self._used.get(owner, 0.0) + width * boundary - self._anchor[owner]
            self._anchor[owner] = width * boundary
        if decay == 0:
            self._used.clear()
            self._entitled.clear()
        else:
            self._used = {o: decay * u for o, u in self._used.items()}
            self._entitled = {o: decay * e for o, e in self._entitled.items()}
        self._w0, self._w1 = boundary, boundary + self.window
        self._rebase_expected(boundary)

    def _rebase_expected(self, boundary: float) -> None:
        """The running jobs' expected usage within the window that starts at ``boundary``. O(o + r)."""
        expected = dict.fromkeys(self._expected, 0.0)
        for owner, width, _start, end in self._running.values():
            expected[owner] += width * max(min(end, self._w1) - boundary, 0.0)
        self._expected = expected

    def usage(self, owner: int, now: float) -> float:
        """Return the owner's cumulated usage in the current window at ``now``, expected usage included.

        With ``expected_usage``, the running jobs count up to their planned end and the reserved jobs
        from their reservation, both cut at the window's end. Call it with the scheduler's latest
        time (it does not advance the accounting).
        """
        used = self._used.get(owner, 0.0)
        if self.expected_usage:
            used += self._expected.get(owner, 0.0)
            w0, w1 = self._w0, self._w1
            for other, width, start, end in self._reserved.values():
                if other == owner:
                    used += width * max(min(end, w1) - max(start, w0), 0.0)
        else:
            used += self._width.get(owner, 0) * now - self._anchor.get(owner, 0.0)
        return used

    def entitled(self, owner: int) -> float:
        """Return the owner's cumulated entitled share in the current window, in processor-seconds."""
        return self._entitled.get(owner, 0.0)

    def fair_share_priority(self, job: Job, now: float) -> float:
        """Return the fair-share priority of ``job``'s owner: entitled share / usage (inf if no usage).

        A reserved job does not count its own expected usage (see the class docstring). Call it with
        the scheduler's latest time (it does not advance the accounting).
        """
        owner = self._owner(job)
        used = self.usage(owner, now)
        mine = self._reserved.get(job.id)
        if mine is not None:
            _, width, start, end = mine
            used -= width * max(min(end, self._w1) - max(start, self._w0), 0.0)
        return math.inf if used <= 0 else self.entitled(owner) / used

    def _keys_at(self, now: float) -> tuple[dict[int, float], dict[int, float]]:
        """Return the sort keys of one decision: by owner with a queued job, and for reserved jobs.

        O(o + k) for o such owners and k reservations.
        """
        entitled, used, expected = self._entitled, self._used, self._expected
        w0, w1 = self._w0, self._w1
        reserved: dict[int, float] = {}
        for owner, width, start, end in self._reserved.values():
            reserved[owner] = reserved.get(owner, 0.0) + width * max(min(end, w1) - max(start, w0), 0.0)
        keys: dict[int, float] = {}
        for owner in self._queued:
            u = used.get(owner, 0.0)
            if self.expected_usage:
                u += expected.get(owner, 0.0) + reserved.get(owner, 0.0)
            else:
                u += self._width.get(owner, 0) * now - self._anchor.get(owner, 0.0)
            keys[owner] = -math.inf if u <= 0 else -entitled.get(owner, 0.0) / u
        special = {job_id: -self.fair_share_priority(self._waiting[job_id], now) for job_id in self._reserved}
        return keys, special


def _node_charge(demand: Demand, machine: Machine, size: int) -> int | Fraction:
    """A job's charge on a node machine: its dominant share of the machine's totals, in processors.

    The rule of several resources (``max(processors, amount * machine processors / capacity)``),
    with each resource's amount the job's shares times one share, and its capacity the machine's
    total. An exclusive job is charged what it asks, not the whole nodes it will hold (which
    depend on where it is placed). O(r).
    """
    width: int | Fraction = demand.processors
    totals = machine.totals()
    for a, c in zip((demand.share * demand.count).tolist()[1:], totals[1:], strict=True):
        if c and a * size > width * c:
            width = Fraction(a * size, c)
    return width
