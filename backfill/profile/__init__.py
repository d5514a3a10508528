"""Free processors over time, as a step function: the data structure every backfilling scheduler plans on.

Design (after sortedcontainers): two parallel Python lists, ``_times`` (strictly increasing breakpoints)
and ``_free`` (free processors from ``_times[i]`` until ``_times[i + 1]``; the last step extends to
infinity). There is no object per step, every lookup is a C-level :func:`bisect`, and every update is one
slice assignment plus at most four list insertions or deletions, which move memory in C. Adjacent steps
always differ, so the profile holds at most two steps per planned job and stays short.

Complexities below use *n* for the number of steps and *k* for the number of steps a call spans or scans.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

import backfill.kernel as kernel
import backfill.profile._args as _args
import backfill.profile._search as _search
from backfill.errors import BackfillError

__all__ = ["Profile", "ProfileError"]


class ProfileError(BackfillError):
    """A call the profile cannot honour; the profile is unchanged.

    An argument no profile takes (a NaN time, a fractional or negative width, an interval that ends
    before it starts), or a reservation, release or move that would take it outside ``[0, capacity]``.
    """


class Profile:
    """Free processors of a machine as a step function of time, from an origin onwards.

    Before any reservation every processor is free at every time. :meth:`reserve` takes processors over
    a half-open interval ``[start, end)``, :meth:`release` gives them back, and :meth:`earliest_fit`
    finds where a job fits. Times before :attr:`origin` are outside the profile.

    Every public method checks its arguments in O(1) and raises :class:`ProfileError` for one no
    profile takes, leaving the profile unchanged: times must be finite numbers, processor counts ints
    (numpy integers too; never bool or float) >= 0, durations finite and >= 0, and an interval's end
    not before its start. Each has an unchecked private twin (``_reserve``, ``_earliest_fit``, ...),
    which the library's schedulers call with the values of jobs checked when they entered.

    Args:
        capacity: Number of processors of the machine: an int >= 1.
        origin: First time the profile describes: a finite number.

    Examples:
        >>> p = Profile(8)
        >>> p.reserve(0, 10, 6)
        >>> p.earliest_fit(0, 4, 5)
        10
        >>> p.earliest_fit(0, 2, 50)
        0
        >>> list(p)
        [(0, 2), (10, 8)]
    """

    __slots__ = ("_free", "_times", "capacity", "examined")

    def __init__(self, capacity: int, origin: float = 0) -> None:
        capacity = _args.capacity(capacity)
        origin = _args.time("__init__", origin, "origin")
        self.capacity = capacity
        self._times: list[float] = [origin]
        self._free: list[int] = [capacity]
        #: Steps looked at by the searches so far: :meth:`earliest_fit` and :meth:`earliest_move`
        #: count the steps they scan, :meth:`earliest_moves` its span once per distinct width, and
        #: :meth:`free_run_start` and :meth:`free_run_end` their span once. Each step is a planned start
        #: or end, so this is the "events examined" work measure of Lindsay et al. (2013, §4.3).
        #: Updates are not counted; searches are where compression spends its time.
        self.examined = 0

    # -- queries -------------------------------------------------------------------------------------

    @property
    def origin(self) -> float:
        """The first time the profile describes. O(1)."""
        return self._times[0]

    def __len__(self) -> int:
        """Number of steps. O(1)."""
        return len(self._times)

    def __iter__(self) -> Iterator[tuple[float, int]]:
        """Iterate over ``(time, free)`` steps in time order. O(n) for the whole iteration."""
        return zip(self._times, self._free, strict=True)

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in self)
        return f"Profile(capacity={self.capacity}, steps=[{steps}])"

    def free_at(self, time: float) -> int:
        """Return the free processors at ``time`` (at or after the origin). O(log n).

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(5, 10, 3)
            >>> p.free_at(4.9), p.free_at(5), p.free_at(10)
            (4, 1, 4)
        """
        time = _args.time("free_at", time)
        return self._free_at(time)

    def _free_at(self, time: float) -> int:
        """:meth:`free_at` without checking its argument."""
        return self._free[max(bisect_right(self._times, time) - 1, 0)]

    def min_free(self, start: float, end: float) -> int:
        """Return the fewest free processors over ``[start, end)``. O(log n + k).

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(5, 10, 3)
            >>> p.min_free(0, 5), p.min_free(0, 6)
            (4, 1)
        """
        start, end = _args.interval("min_free", start, end)
        return self._min_free(start, end)

    def _min_free(self, start: float, end: float) -> int:
        """:meth:`min_free` without checking its arguments."""
        if (compiled := kernel.KERNEL) is not None:
            return compiled.min_free(self, start, end)
        i, j = self._span(start, end)
        return min(self._free[i:j])

    def max_free(self, start: float, end: float) -> int:
        """Return the most free processors at any time in ``[start, end)``. O(log n + k).

        No job wider than this can use any part of the interval, which lets a scheduler rule out jobs
        without searching for each.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(5, 10, 3)
            >>> p.max_free(5, 10), p.max_free(0, 6)
            (1, 4)
        """
        start, end = _args.interval("max_free", start, end)
        return self._max_free(start, end)

    def _max_free(self, start: float, end: float) -> int:
        """:meth:`max_free` without checking its arguments."""
        if (compiled := kernel.KERNEL) is not None:
            return compiled.max_free(self, start, end)
        i, j = self._span(start, end)
        return max(self._free[i:j])

    def first_below(self, start: float, end: float, processors: int) -> float | None:
        """Return the earliest time in ``[start, end)`` with fewer than ``processors`` free, or None.

        Where a job of that width would collide with the plan first: a scheduler that starts a job
        over reservations uses it to find which reservation must give way. O(log n + k).

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(5, 10, 3)
            >>> p.first_below(0, 20, 2), p.first_below(0, 5, 2), p.first_below(7, 20, 2)
            (5, None, 7)
        """
        start, end, processors = _args.interval_width("first_below", start, end, processors)
        return self._first_below(start, end, processors)

    def _first_below(self, start: float, end: float, processors: int) -> float | None:
        """:meth:`first_below` without checking its arguments."""
        if not end > start:
            return None
        if (compiled := kernel.KERNEL) is not None:
            return compiled.first_below(self, start, end, processors)
        i, j = self._span(start, end)
        free = self._free
        for k in range(i, j):
            if free[k] < processors:
                t = self._times[k]
                return t if t > start else start
        return None

    def free_run_start(
        self, time: float, widths: npt.NDArray[np.int64], since: float
    ) -> npt.NDArray[np.float64]:
        """Return, per width, the earliest time from ``since`` with that many processors free until ``time``.

        That is where the run of steps with room for the width that reaches ``time`` starts (``time``
        itself where the step just before is too full). A window that starts earlier and reaches
        ``time`` crosses a step without room. A scheduler that knows a job fits nowhere before some
        space freed at ``time`` rules out many jobs' earlier starts at once with it.
        O(log n + k + m log k), m widths.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 10, 3)
            >>> p.reserve(10, 20, 1)
            >>> p.free_run_start(30, np.array([1, 2, 3, 4]), since=0).tolist()
            [0.0, 10.0, 10.0, 20.0]
        """
        time, since = _args.time("free_run_start", time), _args.time("free_run_start", since, "since")
        widths = _args.widths("free_run_start", widths)
        return self._free_run_start(time, widths, since)

    def _free_run_start(
        self, time: float, widths: npt.NDArray[np.int64], since: float
    ) -> npt.NDArray[np.float64]:
        """:meth:`free_run_start` without checking its arguments."""
        return _search.free_run_start(self, time, widths, since)

    def free_run_end(
        self, time: float, widths: npt.NDArray[np.int64], until: float
    ) -> npt.NDArray[np.float64]:
        """Return, per width, the first time from ``time`` on with fewer processors free, or ``until``.

        That is where the run of steps with room for the width that starts at ``time`` ends (``time``
        itself where it has no room), looked for before ``until`` only. O(log n + k + m log k),
        m widths.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 10, 1)
            >>> p.reserve(10, 20, 3)
            >>> p.free_run_end(0, np.array([1, 2, 3, 4]), until=15).tolist()
            [15.0, 10.0, 10.0, 0.0]
        """
        time, until = _args.time("free_run_end", time), _args.time("free_run_end", until, "until")
        widths = _args.widths("free_run_end", widths)
        return self._free_run_end(time, widths, until)

    def _free_run_end(
        self, time: float, widths: npt.NDArray[np.int64], until: float
    ) -> npt.NDArray[np.float64]:
        """:meth:`free_run_end` without checking its arguments."""
        return _search.free_run_end(self, time, widths, until)

    def _span(self, start: float, end: float) -> tuple[int, int]:
        """Indices ``i, j`` of the steps covering ``[start, end)``: ``free[i:j]``, never empty."""
        times = self._times
        i = max(bisect_right(times, start) - 1, 0)
        return i, max(bisect_left(times, end, i), i + 1)

    def earliest_fit(self, time: float, processors: int, duration: float) -> float:
        """Return the earliest start ``s >= time`` with ``processors`` free throughout ``[s, s + duration)``.

        A zero ``duration`` occupies nothing, so it fits at ``time`` (this keeps a zero-length plan
        consistent: it reserves nothing, so nothing placed later can push it back). A start always exists
        because every processor is free after the last step. O(log n + k), k = steps scanned from ``time``.

        Raises:
            ProfileError: If ``processors`` exceeds the capacity, or an argument is not valid.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 10, 2)
            >>> p.reserve(20, 30, 3)
            >>> p.earliest_fit(0, 2, 20), p.earliest_fit(0, 2, 21), p.earliest_fit(0, 3, 10)
            (0, 30, 10)
        """
        time, processors, duration = _args.search("earliest_fit", time, processors, duration)
        return self._earliest_fit(time, processors, duration)

    def _earliest_fit(self, time: float, processors: int, duration: float) -> float:
        """:meth:`earliest_fit` without checking its arguments (but the width, against the capacity)."""
        if processors > self.capacity:
            raise ProfileError(
                f"Profile.earliest_fit: {processors} processors exceed the capacity {self.capacity}"
            )
        if (compiled := kernel.KERNEL) is not None:
            return compiled.earliest_fit(self, time, processors, duration)
        return _search.earliest_fit(self, time, processors, duration)

    def earliest_move(
        self,
        time: float,
        processors: int,
        duration: float,
        current: float,
        before: float | None = None,
    ) -> float | None:
        """Return where a job planned at ``current`` could start earlier, or ``None`` if nowhere.

        This is the compression step of Conservative backfilling without touching the profile: the job's
        own reservation ``[current, current + duration)`` counts as free, and the result is the earliest
        start ``s`` with ``time <= s < current`` at which the job fits, exactly what removing the job and
        re-inserting it at its earliest fit would give. A job that cannot move costs no update. With
        ``before``, only starts earlier than ``before`` count (a caller that knows where space was freed
        can bound the search). O(log n + k), k = steps scanned from ``time`` up to ``current``.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(10, 20, 4)  # a job planned at 10; nothing else in the way
            >>> p.earliest_move(0, 4, 10, current=10)
            0
            >>> p.reserve(0, 5, 1)
            >>> p.earliest_move(0, 4, 10, current=10)
            5
            >>> p.reserve(5, 10, 1)
            >>> p.earliest_move(0, 4, 10, current=10) is None
            True
        """
        time, processors, duration = _args.search("earliest_move", time, processors, duration)
        current = _args.time("earliest_move", current, "current")
        if before is not None:
            before = _args.bound("earliest_move", before)
        return self._earliest_move(time, processors, duration, current, before)

    def _earliest_move(
        self, time: float, processors: int, duration: float, current: float, before: float | None = None
    ) -> float | None:
        """:meth:`earliest_move` without checking its arguments."""
        if (compiled := kernel.KERNEL) is not None:
            return compiled.earliest_move(
                self, time, processors, duration, current, current if before is None else before
            )
        return _search.earliest_move(self, time, processors, duration, current, before)

    def earliest_moves(
        self,
        time: float,
        widths: npt.NDArray[np.int64],
        durations: npt.NDArray[np.float64],
        currents: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]:
        """Return :meth:`earliest_move` for many jobs at once, ``inf`` where a job cannot move.

        Job ``k`` has ``widths[k]`` processors, lasts ``durations[k]`` and is planned at
        ``currents[k]``. A compression that frees space usually finds most of a long queue unable to
        use it; this rules those jobs out in one pass over the steps per distinct width instead of
        one search each. The earliest start of a job is the start of the first run of steps with room
        for it that is long enough for it, or that reaches its own reservation. A job for which
        rounding could tell the two tests apart (a run length within a few ulps of its duration) is
        searched alone. O(log n + u·k + m log k), u distinct widths among m jobs, k steps from
        ``time`` to the latest of ``currents``.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 5, 1)
            >>> p.reserve(10, 20, 4)  # the first job's reservation
            >>> p.earliest_moves(
            ...     0, np.array([4, 3, 4]), np.array([10.0, 10.0, 10.0]), np.array([10.0, 10.0, 4.0])
            ... ).tolist()
            [5.0, 0.0, inf]
        """
        time = _args.time("earliest_moves", time)
        widths, durations, currents = _args.jobs("earliest_moves", widths, durations, currents)
        return self._earliest_moves(time, widths, durations, currents)

    def _earliest_moves(
        self,
        time: float,
        widths: npt.NDArray[np.int64],
        durations: npt.NDArray[np.float64],
        currents: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]:
        """:meth:`earliest_moves` without checking its arguments."""
        if (compiled := kernel.KERNEL) is not None:
            floats = np.asarray(durations, np.float64), np.asarray(currents, np.float64)
            return compiled.earliest_moves(self, time, np.asarray(widths, np.int64), *floats)
        return _search.earliest_moves(self, time, widths, durations, currents)

    # -- updates -------------------------------------------------------------------------------------

    def _add(self, start: float, end: float, delta: int) -> None:
        """Add ``delta`` free processors over ``[start, end)`` (``start < end``), unchecked.

        The hot path of every update: split and merge inlined, one slice assignment.
        """
        if (compiled := kernel.KERNEL) is not None:
            compiled.add(self, start, end, delta)
            return
        times = self._times
        free = self._free
        i = bisect_left(times, start)
        if i == len(times) or times[i] != start:
            if i == 0:
                raise ProfileError(f"time {start} is before the profile origin {times[0]}")
            times.insert(i, start)
            free.insert(i, free[i - 1])
        j = bisect_left(times, end, i)
        if j == len(times) or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        free[i:j] = [f + delta for f in free[i:j]]
        if j < len(times) and free[j - 1] == free[j]:
            del times[j]
            del free[j]
        if i and free[i - 1] == free[i]:
            del times[i]
            del free[i]

    def reserve(self, start: float, end: float, processors: int) -> None:
        """Take ``processors`` over ``[start, end)``; an empty interval is a no-op. O(log n + k).

        Raises:
            ProfileError: If fewer than ``processors`` are free somewhere in the interval, or an argument
                is not valid (``end`` before ``start``, a negative or fractional width, a NaN): nothing
                changes.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 5, 3)
            >>> p.reserve(2, 4, 2)
            Traceback (most recent call last):
            ...
            backfill.profile.ProfileError: cannot reserve 2 processors over [2, 4): only 1 free
            >>> p.reserve(0, 10, -2)
            Traceback (most recent call last):
            ...
            backfill.profile.ProfileError: Profile.reserve: processors must be an int >= 0, got -2
        """
        start, end, processors = _args.interval_width("reserve", start, end, processors)
        self._reserve(start, end, processors)

    def _reserve(self, start: float, end: float, processors: int) -> None:
        """:meth:`reserve` without checking its arguments (but against the origin and the free counts)."""
        if not end > start:
            return
        if start < self._times[0]:
            raise ProfileError(f"time {start} is before the profile origin {self._times[0]}")
        lowest = self._min_free(start, end)
        if lowest < processors:
            raise ProfileError(
                f"cannot reserve {processors} processors over [{start:g}, {end:g}): only {lowest} free"
            )
        self._add(start, end, -processors)

    def release(self, start: float, end: float, processors: int) -> None:
        """Give back ``processors`` over ``[start, end)``; an empty interval is a no-op. O(log n + k).

        Raises:
            ProfileError: If that would free more than the capacity somewhere, or an argument is not
                valid (as for :meth:`reserve`): nothing changes.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 10, 3)
            >>> p.release(4, 10, 3)
            >>> list(p)
            [(0, 1), (4, 4)]
        """
        start, end, processors = _args.interval_width("release", start, end, processors)
        self._release(start, end, processors)

    def _release(self, start: float, end: float, processors: int) -> None:
        """:meth:`release` without checking its arguments (but against the origin and the capacity)."""
        if not end > start:
            return
        if start < self._times[0]:
            raise ProfileError(f"time {start} is before the profile origin {self._times[0]}")
        highest = self._max_free(start, end)
        if highest + processors > self.capacity:
            raise ProfileError(
                f"cannot release {processors} processors over [{start:g}, {end:g}): "
                f"{highest} already free of {self.capacity}"
            )
        self._add(start, end, processors)

    def move(self, start: float, new: float, duration: float, processors: int) -> None:
        """Move a reservation of ``processors`` over ``[start, start + duration)`` to start at ``new``.

        Equivalent to ``release`` then ``reserve``, but when the two intervals overlap only the parts
        that change are touched. The profile keeps no list of reservations, so "the reservation is
        there" means what it can tell: at least ``processors`` are taken throughout the old interval
        (one more pass over its k steps). O(log n + k).

        Raises:
            ProfileError: If the reservation is not there (fewer than ``processors`` taken somewhere in
                ``[start, start + duration)``), the new place does not fit, or an argument is not valid:
                nothing changes.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(10, 20, 3)
            >>> p.move(10, 5, 10, 3)
            >>> list(p)
            [(0, 4), (5, 1), (15, 4)]
            >>> p.move(30, 40, 10, 3)
            Traceback (most recent call last):
            ...
            backfill.profile.ProfileError: Profile.move: no reservation of 3 processors over [30, 40) to \
move: 4 of 4 are free there
        """
        start, processors, duration = _args.search("move", start, processors, duration, "start")
        new = _args.time("move", new, "new")
        if duration > 0:
            end = start + duration
            highest = self._max_free(start, end)
            if highest + processors > self.capacity:
                raise ProfileError(
                    f"Profile.move: no reservation of {processors} processors over [{start:g}, {end:g}) "
                    f"to move: {highest} of {self.capacity} are free there"
                )
        self._move(start, new, duration, processors)

    def _move(self, start: float, new: float, duration: float, processors: int) -> None:
        """:meth:`move` of a reservation known to be there, without checking the arguments."""
        if not duration > 0 or new == start:
            return
        end = start + duration
        new_end = new + duration
        if new < self._times[0]:
            raise ProfileError(f"time {new} is before the profile origin {self._times[0]}")
        if (compiled := kernel.KERNEL) is not None:
            if not compiled.move(self, start, end, new, new_end, processors):
                raise ProfileError(
                    f"cannot move {processors} processors from {start:g} to {new:g}: not enough free there"
                )
            return
        # Only the parts of the two intervals that differ change.
        if new < start:
            gain, lose = (
                (new_end if new_end > start else start, end),
                (new, start if start < new_end else new_end),
            )
        else:
            gain, lose = (start, new if new < end else end), (end if end > new else new, new_end)
        self._add(gain[0], gain[1], processors)
        if self._min_free(lose[0], lose[1]) < processors:
            self._add(gain[0], gain[1], -processors)
            raise ProfileError(
                f"cannot move {processors} processors from {start:g} to {new:g}: not enough free there"
            )
        self._add(lose[0], lose[1], -processors)

    def advance(self, time: float) -> None:
        """Forget the profile before ``time``, which becomes the origin. O(log n + k), k = steps dropped.

        Examples:
            >>> p = Profile(4)
            >>> p.reserve(0, 10, 3)
            >>> p.advance(6)
            >>> list(p)
            [(6, 1), (10, 4)]
        """
        time = _args.time("advance", time)
        self._advance(time)

    def _advance(self, time: float) -> None:
        """:meth:`advance` without checking its argument."""
        times = self._times
        if time <= times[0]:
            return
        i = bisect_right(times, time) - 1
        if i:
            del times[:i]
            del self._free[:i]
        times[0] = time

    def copy(self) -> Profile:
        """Return an independent copy. O(n).

        Examples:
            >>> p = Profile(4)
            >>> q = p.copy()
            >>> q.reserve(0, 1, 4)
            >>> p.free_at(0), q.free_at(0)
            (4, 0)
        """
        other = Profile.__new__(Profile)
        other.capacity = self.capacity
        other._times = self._times.copy()
        other._free = self._free.copy()
        other.examined = self.examined
        return other

    def _check(self) -> None:
        """Assert every invariant of the representation. O(n)."""
        times, free = self._times, self._free
        assert len(times) == len(free) >= 1, "parallel lists of equal, non-zero length"
        assert all(a < b for a, b in itertools.pairwise(times)), "times strictly increase"
        assert type(self.capacity) is int and self.capacity >= 1, "capacity an int >= 1"
        assert all(-math.inf < t < math.inf for t in times), "times finite"
        assert all(type(f) is int for f in free), "free counts are ints"
        assert all(0 <= f <= self.capacity for f in free), "free within [0, capacity]"
        assert free[-1] == self.capacity, "everything is free after the last step"
        assert all(a != b for a, b in itertools.pairwise(free)), "adjacent steps differ"
