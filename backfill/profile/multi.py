"""Free amounts of several resources over time: one :class:`~backfill.profile.Profile` per resource.

Design (after Flux's ``planner_multi``): a :class:`ResourceProfile` keeps one one-dimensional profile
per resource (processors first) and intersects their answers. A search asks each resource in turn
for its earliest fit from the latest candidate; a resource that answers later moves the candidate,
and the search stops when every resource has accepted one candidate in a row. Each answer is the
earliest fit of its resource at or after the candidate, so no common fit is ever skipped: the result
is the earliest start at which every resource fits, exactly what a profile of vectors (one time
list, a vector of free amounts per step) would give. The choice keeps every step list as short as
its own resource needs (a job asking no memory leaves the memory profile alone), reuses the
one-dimensional profile and its compiled kernel unchanged, and costs one search per resource per
round; the number of rounds is at most the number of distinct candidates, in practice one or two.

Amounts are :class:`~backfill.workloads.amounts.Amounts` (processors first); a zero amount fits
everywhere and touches nothing. Complexities use *r* for the number of resources, *n* for the most
steps of one resource's profile, *k* for the steps a call scans in one resource and *c* for the
rounds of a search (each round at most one search per resource).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Sequence
from typing import Any

from backfill.profile import Profile, ProfileError
from backfill.workloads.amounts import Amounts
from backfill.workloads.limits import MAX_AMOUNT

__all__ = ["ResourceProfile"]


def _refuse(method: str, what: str, value: object) -> ProfileError:
    return ProfileError(f"ResourceProfile.{method}: {what}, got {value!r}")


class ResourceProfile:
    """Free amounts of each resource of a machine as a step function of time, from an origin onwards.

    The several-resource twin of :class:`~backfill.profile.Profile`, with the same methods (each
    with its unchecked private twin, which the schedulers call): amounts are :class:`Amounts` of
    one int per resource instead of a processor count, and an answer about what is free is an
    :class:`Amounts` too. A job fits where every one of its amounts fits.

    Args:
        capacity: The amount of each resource, processors first: ints >= 1.
        origin: First time the profile describes: a finite number.

    Examples:
        >>> p = ResourceProfile(Amounts((8, 100)))
        >>> p.reserve(0, 10, Amounts((2, 90)))  # few processors, most of the memory
        >>> p.earliest_fit(0, Amounts((4, 20)), 5)  # processors are free now, memory at 10
        10
        >>> p.free_at(0), p.free_at(10)
        (Amounts(6, 10), Amounts(8, 100))
    """

    __slots__ = ("_profiles", "capacity")

    def __init__(self, capacity: Sequence[int], origin: float = 0) -> None:
        values = tuple(capacity)
        if not values or any(
            isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 1 <= v < MAX_AMOUNT
            for v in values
        ):
            raise _refuse("__init__", "capacity must be one int >= 1 per resource, below 2**62", capacity)
        self.capacity = Amounts(int(v) for v in values)
        self._profiles: tuple[Profile, ...] = tuple(Profile(c, origin) for c in self.capacity)

    # -- queries -------------------------------------------------------------------------------------

    @property
    def origin(self) -> float:
        """The first time the profile describes. O(1)."""
        return self._profiles[0]._times[0]

    @property
    def profiles(self) -> tuple[Profile, ...]:
        """The one-dimensional profile of each resource, processors first: read them, never change them.

        O(1).
        """
        return self._profiles

    @property
    def examined(self) -> int:
        """Steps looked at by the searches so far, over every resource (:attr:`Profile.examined`). O(r)."""
        return sum(p.examined for p in self._profiles)

    def __len__(self) -> int:
        """Number of steps of the vector step function: distinct breakpoints. O(r n log n)."""
        return len({t for p in self._profiles for t in p._times})

    def __iter__(self) -> Iterator[tuple[float, Amounts]]:
        """Iterate over ``(time, free)`` steps in time order, where any resource changes. O(r n log n)."""
        times = sorted({t for p in self._profiles for t in p._times})
        return ((t, self._free_at(t)) for t in times)

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{tuple(f)}" for t, f in self)
        return f"ResourceProfile(capacity={tuple(self.capacity)}, steps=[{steps}])"

    def _amounts(self, method: str, value: Any) -> Amounts:
        if (
            value.__class__ is Amounts
            and len(value) == len(self.capacity)
            and all(type(a) is int and a >= 0 for a in value)
        ):
            return value
        raise _refuse(method, f"amounts must be Amounts of {len(self.capacity)} ints >= 0", value)

    @staticmethod
    def _time(method: str, value: Any, name: str = "time") -> float:
        try:
            if -math.inf < value < math.inf and not isinstance(value, bool):
                return value  # type: ignore[no-any-return]
        except TypeError:
            pass
        raise _refuse(method, f"{name} must be a finite number", value)

    def _interval(self, method: str, start: Any, end: Any) -> tuple[float, float]:
        start, end = self._time(method, start, "start"), self._time(method, end, "end")
        if end < start:
            raise _refuse(method, "an interval's end must not be before its start", (start, end))
        return start, end

    def free_at(self, time: float) -> Amounts:
        """Return the free amount of each resource at ``time`` (at or after the origin). O(r log n)."""
        return self._free_at(self._time("free_at", time))

    def _free_at(self, time: float) -> Amounts:
        """:meth:`free_at` without checking its argument."""
        return Amounts([p._free_at(time) for p in self._profiles])

    def min_free(self, start: float, end: float) -> Amounts:
        """Return the least free amount of each resource over ``[start, end)``. O(r (log n + k))."""
        return self._min_free(*self._interval("min_free", start, end))

    def _min_free(self, start: float, end: float) -> Amounts:
        """:meth:`min_free` without checking its arguments."""
        return Amounts([p._min_free(start, end) for p in self._profiles])

    def max_free(self, start: float, end: float) -> Amounts:
        """Return the most free of each resource over ``[start, end)``. O(r (log n + k))."""
        return self._max_free(*self._interval("max_free", start, end))

    def _max_free(self, start: float, end: float) -> Amounts:
        """:meth:`max_free` without checking its arguments."""
        return Amounts([p._max_free(start, end) for p in self._profiles])

    def first_below(self, start: float, end: float, amounts: Amounts) -> float | None:
        """Return the earliest time in ``[start, end)`` where some resource has less free than asked.

        Where a job of these amounts would first collide with the plan, or None. O(r (log n + k)).
        """
        start, end = self._interval("first_below", start, end)
        return self._first_below(start, end, self._amounts("first_below", amounts))

    def _first_below(self, start: float, end: float, amounts: Amounts) -> float | None:
        """:meth:`first_below` without checking its arguments."""
        first: float | None = None
        for p, a in zip(self._profiles, amounts, strict=True):
            if a:
                t = p._first_below(start, end, a)
                if t is not None and (first is None or t < first):
                    first = t
        return first

    def earliest_fit(self, time: float, amounts: Amounts, duration: float) -> float:
        """Return the earliest start ``s >= time`` at which every amount fits over ``[s, s + duration)``.

        As :meth:`Profile.earliest_fit`, resource by resource at once: a zero ``duration`` fits at
        ``time``. O(c r (log n + k)).

        Raises:
            ProfileError: If an amount exceeds its resource's capacity, or an argument is not valid.

        Examples:
            >>> p = ResourceProfile(Amounts((4, 10)))
            >>> p.reserve(0, 10, Amounts((1, 8)))
            >>> p.reserve(10, 20, Amounts((4, 0)))
            >>> p.earliest_fit(0, Amounts((2, 4)), 5)  # memory at 10, processors at 20
            20
        """
        time = self._time("earliest_fit", time)
        amounts = self._amounts("earliest_fit", amounts)
        duration = self._time("earliest_fit", duration, "duration")
        if duration < 0:
            raise _refuse("earliest_fit", "duration must be >= 0", duration)
        return self._earliest_fit(time, amounts, duration)

    def _earliest_fit(self, time: float, amounts: Amounts, duration: float) -> float:
        """:meth:`earliest_fit` without checking its arguments (but the amounts, against the capacity)."""
        if amounts > self.capacity:
            raise ProfileError(
                f"ResourceProfile.earliest_fit: {tuple(amounts)} exceed the capacity {tuple(self.capacity)}"
            )
        asked = [(p, a) for p, a in zip(self._profiles, amounts, strict=True) if a]
        origin = self.origin
        if not asked or not duration > 0:
            return time if time >= origin else origin
        # Each resource in turn answers its earliest fit from the candidate; the candidate stands
        # once every resource has accepted it in a row.
        n = len(asked)
        i = accepted = 0
        while accepted < n:
            p, a = asked[i]
            s = p._earliest_fit(time, a, duration)
            if s != time:
                time, accepted = s, 1
            else:
                accepted += 1
            i = i + 1 if i + 1 < n else 0
        return time

    def earliest_move(
        self,
        time: float,
        amounts: Amounts,
        duration: float,
        current: float,
        before: float | None = None,
    ) -> float | None:
        """Return where a job planned at ``current`` could start earlier, or ``None`` if nowhere.

        As :meth:`Profile.earliest_move`, for every resource at once: the job's own reservation
        counts as free, and the answer is the earliest start before ``current`` (and ``before``)
        at which every amount fits. O(c r (log n + k)).

        Examples:
            >>> p = ResourceProfile(Amounts((4, 10)))
            >>> p.reserve(0, 5, Amounts((0, 8)))
            >>> p.reserve(10, 20, Amounts((2, 4)))  # the job, planned at 10
            >>> p.earliest_move(0, Amounts((2, 4)), 10, current=10)  # memory frees at 5
            5
        """
        time = self._time("earliest_move", time)
        amounts = self._amounts("earliest_move", amounts)
        duration = self._time("earliest_move", duration, "duration")
        current = self._time("earliest_move", current, "current")
        if before is not None and (not isinstance(before, int | float) or before != before):
            raise _refuse("earliest_move", "before must be a number (inf: no bound) or None", before)
        return self._earliest_move(time, amounts, duration, current, before)

    def _earliest_move(
        self, time: float, amounts: Amounts, duration: float, current: float, before: float | None = None
    ) -> float | None:
        """:meth:`earliest_move` without checking its arguments."""
        # The hot search of compression, so the loop runs over all resources without building the
        # list of those asked: a resource asked nothing accepts every candidate, which asks the
        # others the same searches in the same order as cycling over the asked ones alone.
        profiles = self._profiles
        n = len(profiles)
        i = accepted = 0
        asked = False
        while accepted < n:
            a = amounts[i]
            if a:
                asked = True
                s = profiles[i]._earliest_move(time, a, duration, current, before)
                if s is None:
                    return None
                if s != time:
                    time, accepted = s, 1
                else:
                    accepted += 1
            else:
                accepted += 1
            i = i + 1 if i + 1 < n else 0
        if not asked:
            origin = self.origin
            bound = current if before is None or before > current else before
            time = time if time >= origin else origin
            return time if time < bound else None
        return time

    # -- updates -------------------------------------------------------------------------------------

    def reserve(self, start: float, end: float, amounts: Amounts) -> None:
        """Take ``amounts`` over ``[start, end)``; an empty interval is a no-op. O(r (log n + k)).

        Raises:
            ProfileError: If some resource has less free than asked somewhere in the interval, or
                an argument is not valid: nothing changes.
        """
        start, end = self._interval("reserve", start, end)
        self._reserve(start, end, self._amounts("reserve", amounts))

    def _reserve(self, start: float, end: float, amounts: Amounts) -> None:
        """:meth:`reserve` without checking its arguments (but against the origin and the free amounts)."""
        if not end > start:
            return
        if start < self.origin:
            raise ProfileError(f"time {start} is before the profile origin {self.origin}")
        asked = [(p, a) for p, a in zip(self._profiles, amounts, strict=True) if a]
        for p, a in asked:
            if p._min_free(start, end) < a:
                raise ProfileError(
                    f"cannot reserve {tuple(amounts)} over [{start:g}, {end:g}): only "
                    f"{tuple(self._min_free(start, end))} free"
                )
        for p, a in asked:
            p._add(start, end, -a)

    def release(self, start: float, end: float, amounts: Amounts) -> None:
        """Give back ``amounts`` over ``[start, end)``; an empty interval is a no-op. O(r (log n + k)).

        Raises:
            ProfileError: If that would free more than a capacity somewhere, or an argument is not
                valid: nothing changes.
        """
        start, end = self._interval("release", start, end)
        self._release(start, end, self._amounts("release", amounts))

    def _release(self, start: float, end: float, amounts: Amounts) -> None:
        """:meth:`release` without checking its arguments (but against the origin and the capacity)."""
        if not end > start:
            return
        if start < self.origin:
            raise ProfileError(f"time {start} is before the profile origin {self.origin}")
        asked = [(p, a) for p, a in zip(self._profiles, amounts, strict=True) if a]
        for p, a in asked:
            if p._max_free(start, end) + a > p.capacity:
                raise ProfileError(
                    f"cannot release {tuple(amounts)} over [{start:g}, {end:g}): "
                    f"{tuple(self._max_free(start, end))} already free of {tuple(self.capacity)}"
                )
        for p, a in asked:
            p._add(start, end, a)

    def move(self, start: float, new: float, duration: float, amounts: Amounts) -> None:
        """Move a reservation of ``amounts`` over ``[start, start + duration)`` to start at ``new``.

        O(r (log n + k)).

        Raises:
            ProfileError: If the reservation is not there in some resource, the new place does not
                fit, or an argument is not valid: nothing changes.
        """
        start = self._time("move", start, "start")
        new = self._time("move", new, "new")
        duration = self._time("move", duration, "duration")
        amounts = self._amounts("move", amounts)
        if duration > 0:
            for p, a in zip(self._profiles, amounts, strict=True):
                if a and p._max_free(start, start + duration) + a > p.capacity:
                    raise ProfileError(
                        f"ResourceProfile.move: no reservation of {tuple(amounts)} over "
                        f"[{start:g}, {start + duration:g}) to move"
                    )
        self._move(start, new, duration, amounts)

    def _move(self, start: float, new: float, duration: float, amounts: Amounts) -> None:
        """:meth:`move` of a reservation known to be there, without checking the arguments."""
        if not duration > 0 or new == start:
            return
        moved: list[tuple[Profile, int]] = []
        try:
            for p, a in zip(self._profiles, amounts, strict=True):
                if a:
                    p._move(start, new, duration, a)
                    moved.append((p, a))
        except ProfileError:
            for p, a in moved:  # nothing changes: the resources moved so far go back
                p._move(new, start, duration, a)
            raise

    def advance(self, time: float) -> None:
        """Forget the profile before ``time``, which becomes the origin. O(r (log n + k))."""
        self._advance(self._time("advance", time))

    def _advance(self, time: float) -> None:
        """:meth:`advance` without checking its argument."""
        for p in self._profiles:
            p._advance(time)

    def copy(self) -> ResourceProfile:
        """Return an independent copy. O(r n)."""
        other = ResourceProfile.__new__(ResourceProfile)
        other.capacity = self.capacity
        other._profiles = tuple(p.copy() for p in self._profiles)
        return other

    def _check(self) -> None:
        """Assert every invariant of the representation. O(r n)."""
        profiles = self._profiles
        assert len(profiles) == len(self.capacity) >= 1, "one profile per resource"
        assert self.capacity.__class__ is Amounts, "the capacity is Amounts"
        for p, c in zip(profiles, self.capacity, strict=True):
            p._check()
            assert p.capacity == c, "each profile has its resource's capacity"
            assert p._times[0] == profiles[0]._times[0], "one origin for every resource"
