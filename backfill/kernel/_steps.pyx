# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled kernel's profile steps: the searches and updates of :class:`backfill.profile.Profile` in C.

Line-by-line ports of ``Profile``'s methods that work in place on its two lists, and of the loops
over PC's and DC's queue and Selective's entry queue that need nothing else; see
:mod:`backfill.kernel._loops` for the promise they keep, and ``_steps.pxd`` for what the compression loops
of ``_loops.pyx`` call directly.
"""

import numpy as np
from libc.stdlib cimport free as c_free
from libc.stdlib cimport malloc

cdef double _INFINITY = float("inf")
cdef double _EPSILON = np.finfo(np.float64).eps


cdef Py_ssize_t _bisect_right(list a, double x, Py_ssize_t lo):
    cdef Py_ssize_t hi = len(a), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < _t(a, mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef Py_ssize_t _bisect_left(list a, double x, Py_ssize_t lo):
    cdef Py_ssize_t hi = len(a), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _t(a, mid) < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void _span(list times, double start, double end, Py_ssize_t* i, Py_ssize_t* j):
    """``Profile._span``: the steps ``i[0]:j[0]`` covering ``[start, end)``, never empty."""
    i[0] = _bisect_right(times, start, 0) - 1
    if i[0] < 0:
        i[0] = 0
    j[0] = _bisect_left(times, end, i[0])
    if j[0] < i[0] + 1:
        j[0] = i[0] + 1


cdef long _min_free(list times, list free, double start, double end):
    """``Profile.min_free``."""
    cdef Py_ssize_t i, j, k
    _span(times, start, end, &i, &j)
    cdef long low = _f(free, i)
    for k in range(i + 1, j):
        if _f(free, k) < low:
            low = _f(free, k)
    return low


cdef long _max_free(list times, list free, double start, double end):
    """``Profile.max_free``."""
    cdef Py_ssize_t i, j, k
    _span(times, start, end, &i, &j)
    cdef long high = _f(free, i)
    for k in range(i + 1, j):
        if _f(free, k) > high:
            high = _f(free, k)
    return high


def first_below(profile, start, double end, long processors):
    """``Profile.first_below`` for a non-empty ``[start, end)``: its step's time, or ``start`` itself."""
    cdef list times = profile._times, free = profile._free
    cdef double s = start
    cdef Py_ssize_t i, j, k
    _span(times, s, end, &i, &j)
    for k in range(i, j):
        if _f(free, k) < processors:
            t = times[k]
            return t if _t(times, k) > s else start
    return None


def min_free(profile, double start, double end):
    """``Profile.min_free``."""
    return _min_free(profile._times, profile._free, start, end)


def max_free(profile, double start, double end):
    """``Profile.max_free``."""
    return _max_free(profile._times, profile._free, start, end)


cdef int _add(list times, list free, object start_o, object end_o, long delta) except -1:
    """``Profile._add``: add ``delta`` free processors over ``[start, end)``, unchecked."""
    cdef double start = start_o, end = end_o
    cdef Py_ssize_t i = _bisect_left(times, start, 0), j, m
    if i == len(times) or _t(times, i) != start:
        if i == 0:
            raise ValueError(f"time {start} is before the profile origin {_t(times, 0)}")
        times.insert(i, start_o)
        free.insert(i, free[i - 1])
    j = _bisect_left(times, end, i)
    if j == len(times) or _t(times, j) != end:
        times.insert(j, end_o)
        free.insert(j, free[j - 1])
    for m in range(i, j):
        free[m] = _f(free, m) + delta
    if j < len(times) and _f(free, j - 1) == _f(free, j):
        del times[j]
        del free[j]
    if i and _f(free, i - 1) == _f(free, i):
        del times[i]
        del free[i]
    return 0


cdef bint _move(list times, list free, object start_o, object end_o, object new_o, object new_end_o, long p) except -1:
    """``Profile.move`` after its checks, given both intervals' ends; False (nothing changed) if no room."""
    cdef double start = start_o, end = end_o, new = new_o, new_end = new_end_o
    if new < start:
        g0 = new_end_o if new_end > start else start_o
        g1 = end_o
        l0 = new_o
        l1 = start_o if start < new_end else new_end_o
    else:
        g0 = start_o
        g1 = new_o if new < end else end_o
        l0 = end_o if end > new else new_o
        l1 = new_end_o
    _add(times, free, g0, g1, p)
    if _min_free(times, free, l0, l1) < p:
        _add(times, free, g0, g1, -p)
        return False
    _add(times, free, l0, l1, -p)
    return True


cdef double _earliest_move(
    list times, list free, double time, long p, double duration, double current, double before,
    Py_ssize_t* examined, Py_ssize_t* at,
):
    """``Profile.earliest_move`` with ``before`` given.

    ``at[0]`` tells what the reference returns: ``-2`` None, ``-1`` its ``time`` argument, else the
    time of step ``at[0]`` (the clamped origin is step 0).
    """
    cdef Py_ssize_t i, j, k, m
    cdef double start, end, bound
    cdef long top
    cdef Py_ssize_t time_at = -1
    at[0] = -2
    if time < _t(times, 0):
        time = _t(times, 0)
        time_at = 0
    bound = current if before > current else before
    if not time < bound:
        return 0.0
    if not duration > 0:
        at[0] = time_at
        return time
    i = _bisect_right(times, time, 0) - 1
    k = _bisect_left(times, bound, i)
    examined[0] += k - i
    top = _f(free, i)
    for m in range(i + 1, k):
        if _f(free, m) > top:
            top = _f(free, m)
    if top < p:
        return 0.0
    while i < k:
        if _f(free, i) < p:
            i += 1
            continue
        start = _t(times, i)
        if start > time:
            at[0] = i
        else:
            start = time
            at[0] = time_at
        end = start + duration
        if end > current:
            end = current
        j = _bisect_left(times, end, i + 1)
        examined[0] += j - i - 1
        m = i + 1
        while m < j and _f(free, m) >= p:
            m += 1
        if m == j:
            return start
        j -= 1
        while _f(free, j) >= p:
            j -= 1
        i = j + 1
    at[0] = -2
    return 0.0


cdef inline object _value(list times, Py_ssize_t at, object time):
    """The object the reference returns for a search's ``at`` (see :func:`_earliest_move`)."""
    if at == -2:
        return None
    return time if at == -1 else times[at]


def earliest_move(profile, time, long processors, double duration, double current, double before):
    """``Profile.earliest_move`` with ``before`` given (``current`` where the caller has none)."""
    cdef Py_ssize_t examined = 0, at
    cdef list times = profile._times
    _earliest_move(times, profile._free, time, processors, duration, current, before, &examined, &at)
    profile.examined += examined
    return _value(times, at, time)


def add(profile, start, end, long delta):
    """``Profile._add``: ``delta`` free processors over ``[start, end)``, ``start < end``, unchecked."""
    _add(profile._times, profile._free, start, end, delta)


def move(profile, start, end, new, new_end, long processors):
    """``Profile.move`` after its checks; False (and nothing changed) where the new place does not fit."""
    return _move(profile._times, profile._free, start, end, new, new_end, processors)


def earliest_fit(profile, time, long processors, double duration):
    """``Profile.earliest_fit`` after its capacity check: the scan from ``time`` in C."""
    cdef list times = profile._times, free = profile._free
    cdef Py_ssize_t n = len(times), i, first, j
    cdef double start, end
    if time < times[0]:
        time = times[0]
    if not duration > 0:
        return time
    start = time
    i = first = _bisect_right(times, start, 0) - 1
    cdef Py_ssize_t at = -1
    while True:
        while _f(free, i) < processors:
            i += 1
            start = _t(times, i)
            at = i
        end = start + duration
        j = i + 1
        while j < n and _t(times, j) < end:
            if _f(free, j) < processors:
                break
            j += 1
        else:
            profile.examined += j - first
            return time if at < 0 else times[at]
        i = j


def earliest_moves(profile, time, widths_a, durations_a, currents_a):
    """``Profile.earliest_moves``: one pass over the steps per distinct width, in C."""
    cdef list times = profile._times, free = profile._free
    cdef long long[:] widths = widths_a
    cdef double[:] durations = durations_a
    cdef double[:] currents = currents_a
    cdef Py_ssize_t n = widths.shape[0], i, j, k, s, size, r, runs, a, b, g, examined = 0
    cdef double t, horizon = -_INFINITY, longest_d = -_INFINITY, slack, d, current, best, run_a
    cdef long w
    cdef bint a_ok, a_fits
    if time < times[0]:
        time = times[0]
    t = time
    moves_a = np.full(n, np.inf)
    cdef double[:] moves = moves_a
    live_list = []
    for k in range(n):
        if currents[k] > t:
            if not durations[k] > 0:
                moves[k] = t  # a zero duration occupies nothing, as in earliest_move
            else:
                live_list.append(k)
                if currents[k] > horizon:
                    horizon = currents[k]
                if durations[k] > longest_d:
                    longest_d = durations[k]
    if not live_list:
        return moves_a
    live_a = np.array(live_list, dtype=np.intp)
    order_a = live_a[np.argsort(widths_a[live_a], kind="stable")]
    cdef Py_ssize_t[:] order = order_a
    cdef Py_ssize_t m = order.shape[0]
    i = _bisect_right(times, t, 0) - 1
    j = _bisect_left(times, horizon, i)  # steps i..j-1 start before every window ends
    size = j - i
    slack = 8 * _EPSILON * (abs(horizon) + longest_d)
    cdef double* start = <double*>malloc((size + 1) * sizeof(double))
    cdef long* room = <long*>malloc(size * sizeof(long))
    cdef double* run_start = <double*>malloc((size + 1) * sizeof(double))
    cdef double* run_end = <double*>malloc((size + 1) * sizeof(double))
    cdef double* longest = <double*>malloc((size + 1) * sizeof(double))
    unsure = []
    try:
        if not (start and room and run_start and run_end and longest):
            raise MemoryError()
        for s in range(size):
            start[s] = _t(times, i + s)
            room[s] = _f(free, i + s)
        start[0] = t
        start[size] = _INFINITY  # the last step reaches past every window
        g = 0
        while g < m:
            w = widths[order[g]]
            examined += size
            # Runs of steps with room for the width, and the longest run up to each.
            runs = 0
            s = 0
            while s < size:
                if room[s] < w:
                    s += 1
                    continue
                run_start[runs] = start[s]
                while s < size and room[s] >= w:
                    s += 1
                run_end[runs] = start[s]
                d = run_end[runs] - run_start[runs]
                longest[runs] = d if runs == 0 or d > longest[runs - 1] else longest[runs - 1]
                runs += 1
            while g < m and widths[order[g]] == w:
                k = order[g]
                g += 1
                if runs == 0:
                    continue
                d = durations[k]
                current = currents[k]
                # The first run that may be long enough, tested as the search tests a window, and
                # the run that reaches the job's own reservation, if one does.
                a = _first_not_below(longest, runs, d - slack)
                if a > runs - 1:
                    a = runs - 1
                run_a = run_start[a]
                a_ok = longest[a] >= d - slack
                a_fits = run_a + d <= run_end[a]
                best = run_a if a_ok and a_fits else _INFINITY
                b = _first_not_below(run_start, runs, current) - 1
                if b >= 0 and run_end[b] >= current and run_start[b] < best:
                    best = run_start[b]
                moves[k] = best if best < current else _INFINITY
                if a_ok and not a_fits and run_a < (best if best < current else current):
                    unsure.append((k, w))
    finally:
        c_free(start); c_free(room); c_free(run_start); c_free(run_end); c_free(longest)
    profile.examined += examined
    # A candidate run that rounding may have let through, with no answer earlier: a search says.
    for k, w in unsure:
        found = profile.earliest_move(time, w, float(durations[k]), float(currents[k]))
        moves[k] = _INFINITY if found is None else found
    return moves_a


cdef Py_ssize_t _first_not_below(_number* a, Py_ssize_t size, _number x):
    """First index of the nondecreasing ``a[:size]`` holding at least ``x`` (``size`` if none).

    That is ``np.searchsorted(a[:size], x, side="left")``, for doubles and for longs.
    """
    cdef Py_ssize_t lo = 0, hi = size, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# -- PC's and DC's queue -----------------------------------------------------------------------------


def mark_seen(list jobs, dict seen, top):
    """The end of ``_compress_long_queue``: every job has read the log up to ``top``."""
    for job in jobs:
        seen[job.id] = top


def queue_arrays(list jobs, dict reserved):
    """Planned starts, widths and estimates of ``jobs`` as numpy arrays (the loop's ``np.fromiter``s)."""
    cdef Py_ssize_t n = len(jobs), i
    starts_a = np.empty(n, dtype=np.float64)
    widths_a = np.empty(n, dtype=np.int64)
    estimates_a = np.empty(n, dtype=np.float64)
    cdef double[:] starts = starts_a
    cdef long long[:] widths = widths_a
    cdef double[:] estimates = estimates_a
    for i in range(n):
        job = jobs[i]
        starts[i] = reserved[job.id]
        widths[i] = job.processors
        estimates[i] = job.estimate
    return starts_a, widths_a, estimates_a


# -- Selective's entry queue --------------------------------------------------------------------------


def start_unreserved(profile, dict running, entries, now_o):
    """``Conservative._start_unreserved``: start each job that fits now without touching a reservation."""
    cdef list times = profile._times, free = profile._free
    cdef double now = now_o, end
    cdef Py_ssize_t i = _bisect_right(times, now, 0) - 1
    cdef long free_now = _f(free, i if i > 0 else 0), p
    cdef list started = []
    for entry in entries:
        job = (<tuple>entry)[2]
        p = job.processors
        end_o = now_o + job.estimate
        end = end_o
        if end > now:
            if p > free_now or _min_free(times, free, now, end) < p:
                continue
            if now < _t(times, 0):
                profile.reserve(now_o, end_o, p)  # raises the profile's own error
            _add(times, free, now_o, end_o, -p)
            free_now -= p
        running[job.id] = (end_o, p)
        started.append(job)
    return started


def promotion_items(waiting, list values, bint per_category, double runtime_boundary, long width_boundary):
    """Selective's promotion times under an adaptive threshold (``Selective._recompute``'s loop).

    ``values`` holds the threshold of each category and, last, the overall one. Returns the
    ``(time, seq, job)`` items of the jobs with a finite time and those times by job id.
    """
    cdef list items = []
    cdef dict promote_at = {}
    cdef double t, estimate, overall = values[len(values) - 1]
    cdef long category
    for entry in waiting:
        seq = (<tuple>entry)[0]
        job = (<tuple>entry)[1]
        if per_category:
            estimate = job.estimate
            category = (0 if estimate <= runtime_boundary else 2) + (1 if job.processors > width_boundary else 0)
            t = values[category]
        else:
            t = overall
        if t == _INFINITY:
            continue
        submit = job.submit
        estimate = job.estimate
        if t <= 1 or not estimate > 0:
            at = submit
        else:
            at = submit + (t - 1) * estimate
        items.append((at, seq, job))
        promote_at[job.id] = at
    return items, promote_at
