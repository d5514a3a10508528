"""The pure-Python reference of the profile's searches: where jobs fit, and where they could move.

:class:`~backfill.profile.Profile`'s methods call these once they have checked their arguments (its
unchecked twins call them straight away). Where the compiled kernel is built, ``earliest_fit``,
``earliest_move`` and ``earliest_moves`` run as its C ports instead, which give the same answers.
Each reads the profile's two lists and adds the steps it looks at to its ``examined`` count.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from backfill.profile import Profile


def earliest_fit(profile: Profile, time: float, processors: int, duration: float) -> float:
    """:meth:`Profile.earliest_fit <backfill.profile.Profile.earliest_fit>` without the kernel."""
    times = profile._times
    free = profile._free
    n = len(times)
    if time < times[0]:
        time = times[0]
    if not duration > 0:
        return time
    i = first = bisect_right(times, time) - 1
    start = time
    while True:
        while free[i] < processors:
            i += 1
            start = times[i]
        end = start + duration
        j = i + 1
        while j < n and times[j] < end:
            if free[j] < processors:
                break
            j += 1
        else:
            # The scan only moves forward, so the steps looked at are those from first to j.
            profile.examined += j - first
            return start
        i = j


def earliest_move(
    profile: Profile, time: float, processors: int, duration: float, current: float, before: float | None
) -> float | None:
    """:meth:`Profile.earliest_move <backfill.profile.Profile.earliest_move>` without the kernel."""
    # Past ``current`` the job's own reservation covers it, so a window that starts earlier needs
    # the processors free only until ``min(start + duration, current)``.
    times = profile._times
    free = profile._free
    if time < times[0]:
        time = times[0]
    bound = current if before is None or before > current else before
    if not time < bound:
        return None
    if not duration > 0:
        return time
    i = bisect_right(times, time) - 1
    k = bisect_left(times, bound, i)  # steps i..k-1 are where a start can be
    profile.examined += k - i
    # Most jobs in a compression cannot move; one C-level max rules them out without a loop.
    if max(free[i:k]) < processors:
        return None
    while i < k:
        if free[i] < processors:
            i += 1
            continue
        start = times[i] if times[i] > time else time
        end = start + duration
        if end > current:
            end = current
        j = bisect_left(times, end, i + 1)
        profile.examined += j - i - 1
        if j == i + 1 or min(free[i + 1 : j]) >= processors:
            return start
        # Jump past the last step in the window that is too full: no start before it can work.
        j -= 1
        while free[j] >= processors:
            j -= 1
        i = j + 1
    return None


def free_run_start(
    profile: Profile, time: float, widths: npt.NDArray[np.int64], since: float
) -> npt.NDArray[np.float64]:
    """:meth:`Profile.free_run_start <backfill.profile.Profile.free_run_start>`."""
    times = profile._times
    if since < times[0]:
        since = times[0]
    if not since < time:
        return np.full(len(widths), float(since))
    i = bisect_right(times, since) - 1
    j = bisect_left(times, time, i)  # steps i..j-1 start before ``time``
    profile.examined += j - i
    # Suffix minima are nondecreasing: each width's first step from which every step up to
    # ``time`` has room is one binary search.
    room = np.minimum.accumulate(np.array(profile._free[i:j])[::-1])[::-1]
    first = np.searchsorted(room, widths, side="left")
    starts = np.array([*times[i:j], time], dtype=np.float64)[first]
    return np.maximum(starts, since)


def free_run_end(
    profile: Profile, time: float, widths: npt.NDArray[np.int64], until: float
) -> npt.NDArray[np.float64]:
    """:meth:`Profile.free_run_end <backfill.profile.Profile.free_run_end>`."""
    times = profile._times
    if time < times[0]:
        time = times[0]
    if not time < until:
        return np.full(len(widths), float(until))
    i = bisect_right(times, time) - 1
    j = bisect_left(times, until, i)  # steps i..j-1 start before ``until``
    profile.examined += j - i
    # Negated prefix minima are nondecreasing: one binary search per width again.
    room = np.minimum.accumulate(np.array(profile._free[i:j]))
    first = np.searchsorted(-room, -widths, side="right")
    ends = np.array([*times[i:j], until], dtype=np.float64)[first]
    return np.maximum(ends, time)


def earliest_moves(
    profile: Profile,
    time: float,
    widths: npt.NDArray[np.int64],
    durations: npt.NDArray[np.float64],
    currents: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """:meth:`Profile.earliest_moves <backfill.profile.Profile.earliest_moves>` without the kernel."""
    times = profile._times
    if time < times[0]:
        time = times[0]
    moves = np.full(len(widths), np.inf)
    live = currents > time
    if not live.any():
        return moves
    instant = live & ~(durations > 0)
    moves[instant] = time  # a zero duration occupies nothing, as in earliest_move
    live &= ~instant
    if not live.any():
        return moves
    horizon = float(currents[live].max())
    i = bisect_right(times, time) - 1
    j = bisect_left(times, horizon, i)  # steps i..j-1 start before every window ends
    start = np.array(times[i:j], dtype=np.float64)
    start[0] = time
    after = np.append(start, np.inf)  # the last step reaches past every window
    room = np.array(profile._free[i:j])
    # A run length computed by subtraction can differ from the search's start + duration by
    # rounding; these bound that difference generously.
    slack = 8 * np.finfo(np.float64).eps * (abs(horizon) + float(durations[live].max()))
    # Jobs grouped by width, each group with one pass over the steps.
    index = np.flatnonzero(live)
    index = index[np.argsort(widths[index], kind="stable")]
    sorted_widths = widths[index]
    groups = np.split(index, np.flatnonzero(sorted_widths[1:] != sorted_widths[:-1]) + 1)
    profile.examined += (j - i) * len(groups)
    size = room.size
    for jobs in groups:
        w = int(widths[jobs[0]])
        ok = room >= w
        # Runs of steps with room: every other segment between changes, from the first if it
        # has room, else from the second.
        edges = np.concatenate(([0], np.flatnonzero(ok[1:] != ok[:-1]) + 1, [size]))
        first = 0 if ok[0] else 1
        run_start = start[edges[first:-1:2]]
        if not run_start.size:
            continue
        run_end = after[edges[first + 1 :: 2]]
        d = durations[jobs]
        current = currents[jobs]
        # The first run that may be long enough (runs before it are too short by more than
        # rounding), tested as the search tests a window, and the run that reaches the job's own
        # reservation, if one does (a window that ends there needs no more room).
        longest = np.maximum.accumulate(run_end - run_start)
        a = np.minimum(np.searchsorted(longest, d - slack, side="left"), run_start.size - 1)
        a_ok = longest[a] >= d - slack
        a_fits = run_start[a] + d <= run_end[a]
        b = np.searchsorted(run_start, current, side="left") - 1
        b_ok = (b >= 0) & (run_end[np.maximum(b, 0)] >= current)
        best = np.minimum(
            np.where(a_ok & a_fits, run_start[a], np.inf),
            np.where(b_ok, run_start[np.maximum(b, 0)], np.inf),
        )
        moves[jobs] = np.where(best < current, best, np.inf)
        # A candidate run that rounding may have let through, with no answer earlier than it:
        # only a search tells where such a job fits.
        unsure = a_ok & ~a_fits & (run_start[a] < np.minimum(best, current))
        for k in jobs[unsure].tolist():
            found = profile._earliest_move(time, w, float(durations[k]), float(currents[k]))
            moves[k] = np.inf if found is None else found
    return moves
