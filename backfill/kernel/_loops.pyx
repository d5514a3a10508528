# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The optional compiled kernel: the profile's hot steps and the compression loops in C.

Every function here is a line-by-line port of a pure-Python reference that stays the definition: the
searches and updates of :class:`backfill.profile.Profile` (``earliest_fit``, ``earliest_move``,
``earliest_moves``, ``min_free``, ``max_free``, ``first_below``, ``move``, ``_add``), Conservative's
compression pass (``LongQueueConservative._compress_long_queue``) and PC's and DC's candidate loop
(``LongQueueCompression._candidate_loop`` with ``_search_range``, ``_search_range_then_profile``,
``_widen_ranges`` and ``_spread_vacated``) with the queue's arrays around it.
They work in place on the profile's own two lists (``_times``, ``_free``) and on the schedulers' own
state, so a profile or a scheduler is the same object whether or not the kernel runs, and they make
the same comparisons with the same IEEE doubles, so the schedules, the reservation logs and the
``examined`` counts are identical (asserted by ``tests/test_kernel.py``). Where the reference stores
or returns one of its arguments or a step's time, so does the port (the same object), so an int
stays an int as in the reference. Nothing here is imported directly: :mod:`backfill.kernel` says
whether the kernel is in use.
"""

from libc.stdlib cimport free as c_free
from libc.stdlib cimport malloc

from backfill.kernel._profile cimport Freed, freed_pop, freed_push
from backfill.kernel._steps cimport (
    _add,
    _bisect_left,
    _bisect_right,
    _earliest_move,
    _first_not_below,
    _f,
    _max_free,
    _min_free,
    _move,
    _t,
)

# What _steps.pyx defines, re-exported so that this module is the whole kernel.
from backfill.kernel._steps import (
    add,
    earliest_fit,
    earliest_move,
    earliest_moves,
    first_below,
    max_free,
    min_free,
    mark_seen,
    move,
    promotion_items,
    queue_arrays,
    start_unreserved,
)
from backfill.kernel._wholerun import QueueRun


cdef inline int _shape(list entries, Py_ssize_t i, long* widths, double* lengths) except -1:
    job = (<tuple>entries[i])[2]
    widths[i] = job.processors
    lengths[i] = job.estimate
    return 0


def compress_conservative(profile, list entries, list freed, double now, dict planned, changes):
    """Conservative's compression pass (``_compress_long_queue``) in C; True if a job moved.

    ``entries`` are the queue's ``(start, seq, job)`` in planned-start order and are updated in
    place; ``planned`` and ``changes`` (the reservation log) get the moves, as in the reference.
    """
    cdef list times = profile._times, free = profile._free
    cdef Py_ssize_t n = len(entries), i, j, k, m, nfailed = 0, npending = 0, examined = 0
    cdef double start, new, est, reach = now, frontier, origin, b, low_e, v0, v1
    cdef long p, low_p
    cdef Py_ssize_t at
    cdef bint moved = False
    cdef long fp[4]
    cdef double fe[4]
    cdef double ff[4]
    cdef double* starts = <double*>malloc(n * sizeof(double) + 1)
    cdef long* widths = <long*>malloc(n * sizeof(long) + 1)
    cdef double* lengths = <double*>malloc(n * sizeof(double) + 1)
    # At most one freed interval per early completion and one per move.
    cdef Freed* pending = <Freed*>malloc((len(freed) + n + 1) * sizeof(Freed))
    if not (starts and widths and lengths and pending):
        c_free(starts); c_free(widths); c_free(lengths); c_free(pending)
        raise MemoryError()
    try:
        # Widths and estimates are read when first needed: most jobs of a long queue are passed over
        # before any freed interval reaches them, and each read is an attribute lookup.
        for i in range(n):
            starts[i] = (<tuple>entries[i])[0]
            widths[i] = -1
        for a_b in freed:
            if a_b[1] > now:
                freed_push(pending, &npending, a_b[0], a_b[1])
        i = 0
        while i < n:
            start = starts[i]
            while npending and pending[0].a < start:
                b = freed_pop(pending, &npending)
                if b > reach:
                    reach = b
            if reach <= now or start <= now:
                i += 1
                continue
            if nfailed and start <= ff[nfailed - 1]:
                j = i + 1
                while j < n and not ff[nfailed - 1] < starts[j]:
                    j += 1
                if j - i > 1:
                    for m in range(i, j):
                        if widths[m] < 0:
                            _shape(entries, m, widths, lengths)
                    low_p = widths[i]
                    low_e = lengths[i]
                    for m in range(i + 1, j):
                        if widths[m] < low_p:
                            low_p = widths[m]
                        if lengths[m] < low_e:
                            low_e = lengths[m]
                    if fp[nfailed - 1] <= low_p and fe[nfailed - 1] <= low_e:
                        i = j
                        continue
            if widths[i] < 0:
                _shape(entries, i, widths, lengths)
            p = widths[i]
            est = lengths[i]
            frontier = reach if reach < start else start
            origin = now
            for k in range(nfailed - 1, -1, -1):
                if fp[k] <= p and fe[k] <= est:
                    origin = ff[k]
                    break
            at = -2
            if origin < frontier:
                new = _earliest_move(times, free, origin, p, est, start, reach, &examined, &at)
            if at == -2:
                while nfailed and fp[nfailed - 1] >= p and fe[nfailed - 1] >= est:
                    nfailed -= 1
                if nfailed == 4:
                    for k in range(3):
                        fp[k] = fp[k + 1]
                        fe[k] = fe[k + 1]
                        ff[k] = ff[k + 1]
                    nfailed = 3
                fp[nfailed] = p
                fe[nfailed] = est
                ff[nfailed] = frontier
                nfailed += 1
            else:
                nfailed = 0
                # The same objects as the reference's where it returns a step's time; a float of
                # the same value where it returns its origin.
                new_o = times[at] if at >= 0 else new
                entry = entries[i]
                job = entry[2]
                start_o = entry[0]
                est_o = job.estimate
                if not _move(times, free, start_o, start_o + est_o, new_o, new_o + est_o, p):
                    raise RuntimeError(f"job {job.id}: its earliest move to {new} does not fit")
                planned[job.id] = new_o
                changes.append((job.id, new_o))
                entries[i] = (new_o, entry[1], job)
                moved = True
                v0 = start if start > new + est else new + est
                v1 = start + est
                if v0 < v1:
                    freed_push(pending, &npending, v0, v1)
            i += 1
    finally:
        profile.examined += examined
        c_free(starts)
        c_free(widths)
        c_free(lengths)
        c_free(pending)
    return moved


# -- PC's and DC's compression loop -------------------------------------------------------------------

import numpy as np
from heapq import heappop as _heappop
from heapq import heappush as _heappush

cdef double _INF = float("inf")


cdef inline void _search_range(
    object sched, object jid, double estimate, double start, double now, Py_ssize_t top,
    double* low, double* high,
):
    """``LongQueueCompression._search_range`` with ``top`` given: widen by the log read since."""
    cdef dict seen = sched._seen
    cdef Py_ssize_t mark = seen[jid], base, k
    cdef double a, b
    low[0] = sched._no_fit_before[jid]
    high[0] = sched._no_fit_from[jid]
    if mark < top:
        base = sched._base
        freed = sched._freed
        for k in range(mark - base, top - base):
            interval = freed[k]
            a = interval[0]
            b = interval[1]
            if b > now and a < start:
                if a - estimate < low[0]:
                    low[0] = a - estimate
                if b > high[0]:
                    high[0] = b
        seen[jid] = top


cdef object _search_then_profile(
    object sched, list times, list free, double now, object job, object jid, double start,
    double limit, double low, double high, Py_ssize_t* examined,
):
    """``LongQueueCompression._search_range_then_profile`` with ``known`` given; None if no move."""
    cdef dict no_fit_before = sched._no_fit_before, no_fit_from = sched._no_fit_from
    cdef double origin = low if low > now else now
    cdef double end = high if high < limit else limit
    cdef Py_ssize_t at
    cdef double new
    if origin < end:
        new = _earliest_move(times, free, origin, job.processors, job.estimate, start, end, examined, &at)
        if at != -2:
            found = times[at] if at >= 0 else new
            no_fit_before[jid] = found
            no_fit_from[jid] = -_INF
            return found
        origin = end
    _record_no_fit(no_fit_before, no_fit_from, jid, start, origin, high)
    return None


cdef inline void _record_no_fit(
    dict no_fit_before, dict no_fit_from, object jid, double start, double low, double high
):
    """``LongQueueCompression._record_no_fit``: no fit in ``[now, low)`` nor in ``[high, start)``."""
    if low >= high:
        low = start
        high = -_INF
    no_fit_before[jid] = low
    no_fit_from[jid] = high


def trim(sched):
    """``LongQueueCompression._trim``: every stale job widens its range by the log, which is dropped."""
    cdef Py_ssize_t top = sched._base + len(sched._freed)
    cdef double now = sched._profile.origin, start, low, high
    cdef dict reserved = sched._reserved, entry = sched._entry
    cdef dict no_fit_before = sched._no_fit_before, no_fit_from = sched._no_fit_from
    for jid, mark in sched._seen.items():
        if <Py_ssize_t>mark < top:
            start = reserved[jid]
            _search_range(sched, jid, (<object>entry[jid])[2].estimate, start, now, top, &low, &high)
            _record_no_fit(no_fit_before, no_fit_from, jid, start, low, high)
    sched._freed = []
    sched._base = top


cdef Py_ssize_t _first_below(long* room, Py_ssize_t size, long w):
    """First index of the nonincreasing ``room`` holding less than ``w`` (``size`` if none)."""
    cdef Py_ssize_t lo = 0, hi = size, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if room[mid] >= w:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef long* _minima(list free, Py_ssize_t lo, Py_ssize_t size, bint suffix) except NULL:
    """The minima of ``free[lo:lo + size]`` over each suffix (or prefix), in a new C array (size >= 1).

    The ``np.minimum.accumulate`` of ``free_run_start`` (suffixes) and ``free_run_end`` (prefixes).
    """
    cdef long* room = <long*>malloc((size + 1) * sizeof(long))
    cdef Py_ssize_t f
    if not room:
        raise MemoryError()
    if suffix:
        room[size - 1] = _f(free, lo + size - 1)
        for f in range(size - 2, -1, -1):
            room[f] = _f(free, lo + f)
            if room[f + 1] < room[f]:
                room[f] = room[f + 1]
    else:
        room[0] = _f(free, lo)
        for f in range(1, size):
            room[f] = _f(free, lo + f)
            if room[f - 1] < room[f]:
                room[f] = room[f - 1]
    return room


cdef int _spread_wide(
    object sched, object loop, list times, list free, double now, double a, double b,
    Py_ssize_t* more, Py_ssize_t m, Py_ssize_t narrow, Py_ssize_t per_width, Py_ssize_t* examined,
) except -1:
    """The long branch of ``LongQueueCompression._spread_vacated`` for the ``m`` jobs ``more`` it reaches.

    ``free_run_start`` and ``free_run_end`` are answered per job by a binary search over the same
    suffix and prefix minima (a function of the width alone, so the answers are the reference's per
    distinct width), and they count the steps they span as the profile's methods do.
    """
    cdef list jobs = loop.jobs, heap = loop.heap
    cdef double[:] starts = loop.starts
    cdef long long[:] widths = loop.widths
    cdef double[:] estimates = loop.estimates
    cdef unsigned char[:] queued = loop.queued
    cdef unsigned char[:] widened = loop.widened
    cdef Py_ssize_t k, r, i1, j1, i2, j2, f, size, dips = 0, useful_count = 0
    cdef double since, t0 = _t(times, 0), time, until, v
    cdef long* room = NULL
    cdef double[:] lows
    cdef double[:] highs
    cdef double* earliest = <double*>malloc((m + 1) * sizeof(double))
    cdef double* needs = <double*>malloc((m + 1) * sizeof(double))
    cdef double* ends = <double*>malloc((m + 1) * sizeof(double))
    cdef unsigned char* useful = <unsigned char*>malloc(m + 1)
    if not (earliest and needs and ends and useful):
        c_free(earliest); c_free(needs); c_free(ends); c_free(useful)
        raise MemoryError()
    try:
        since = a - estimates[more[0]]
        for r in range(1, m):
            v = a - estimates[more[r]]
            if v < since:
                since = v
        if now > since:
            since = now
        # free_run_start(a, widths, since)
        if since < t0:
            since = t0
        if not since < a:
            for r in range(m):
                earliest[r] = a - estimates[more[r]]
                if since > earliest[r]:
                    earliest[r] = since
        else:
            i1 = _bisect_right(times, since, 0) - 1
            j1 = _bisect_left(times, a, i1)
            examined[0] += j1 - i1
            size = j1 - i1
            room = _minima(free, i1, size, True)
            for r in range(m):
                k = more[r]
                f = _first_not_below(room, size, <long>widths[k])
                v = _t(times, i1 + f) if f < size else a
                if since > v:
                    v = since
                earliest[r] = a - estimates[k]
                if v > earliest[r]:
                    earliest[r] = v
            c_free(room)
            room = NULL
        until = 0.0
        for r in range(m):
            k = more[r]
            needs[r] = earliest[r] + estimates[k]
            if starts[k] < needs[r]:
                needs[r] = starts[k]
            if r == 0 or needs[r] > until:
                until = needs[r]
        # free_run_end(a, widths, until)
        time = a if not a < t0 else t0
        if not time < until:
            for r in range(m):
                ends[r] = until
        else:
            i2 = _bisect_right(times, time, 0) - 1
            j2 = _bisect_left(times, until, i2)
            examined[0] += j2 - i2
            size = j2 - i2
            room = _minima(free, i2, size, False)
            for r in range(m):
                f = _first_below(room, size, widths[more[r]])
                v = _t(times, i2 + f) if f < size else until
                ends[r] = v if v > time else time
            c_free(room)
            room = NULL
        for r in range(m):
            useful[r] = ends[r] >= needs[r] or ends[r] < b
            if useful[r] and ends[r] < needs[r]:
                dips += 1
        if dips > narrow:
            kinds = set()
            for r in range(m):
                if useful[r] and ends[r] < needs[r]:
                    kinds.add(widths[more[r]])
            if dips > per_width * len(kinds):
                # earliest_moves over the dips: the profile's own method, as in the reference.
                dip = np.array([more[r] for r in range(m) if useful[r] and ends[r] < needs[r]], dtype=np.intp)
                W = np.asarray(loop.widths)[dip]
                can = sched._profile.earliest_moves(
                    now, W, np.asarray(loop.estimates)[dip], np.asarray(loop.starts)[dip]
                )
                f = 0
                for r in range(m):
                    if useful[r] and ends[r] < needs[r]:
                        v = can[f]
                        f += 1
                        useful[r] = v < starts[more[r]]
                        earliest[r] = v
        for r in range(m):
            if useful[r]:
                useful_count += 1
        if useful_count <= narrow:
            # _widen_ranges over the useful jobs, in queue order.
            no_fit_before = sched._no_fit_before
            no_fit_from = sched._no_fit_from
            for r in range(m):
                if useful[r]:
                    k = more[r]
                    kid = (<object>jobs[k]).id
                    if earliest[r] < <double>no_fit_before[kid]:
                        no_fit_before[kid] = earliest[r]
                    if b > <double>no_fit_from[kid]:
                        no_fit_from[kid] = b
                    if not queued[k]:
                        queued[k] = 1
                        _heappush(heap, k)
            return 0
        lows_highs = loop.arrays()
        lows = lows_highs[0]
        highs = lows_highs[1]
        for r in range(m):
            if useful[r]:
                k = more[r]
                if earliest[r] < lows[k]:
                    lows[k] = earliest[r]
                if b > highs[k]:
                    highs[k] = b
                widened[k] = 1
        for r in range(m):
            if useful[r]:
                k = more[r]
                if not queued[k]:
                    queued[k] = 1
                    _heappush(heap, k)
    finally:
        c_free(earliest); c_free(needs); c_free(ends); c_free(useful); c_free(room)
    return 0


def guarantee_loop(
    sched, double now, loop, bytearray cut, Py_ssize_t top, cap, Py_ssize_t narrow, Py_ssize_t per_width
):
    """``LongQueueCompression._candidate_loop``: PC's and DC's candidates, searched in priority order.

    Each vacated interval is spread as the reference's ``_spread_vacated`` does: to at most
    ``narrow`` jobs one by one (its ``_widen_ranges``), to more through :func:`_spread_wide` (its
    narrowing, with ``per_width`` deciding when ``Profile.earliest_moves`` is worth a pass).
    Returns whether a job moved.
    """
    cdef list jobs = loop.jobs, heap = loop.heap
    cdef double[:] starts = loop.starts
    cdef long long[:] widths = loop.widths
    cdef double[:] estimates = loop.estimates
    cdef unsigned char[:] queued = loop.queued
    cdef unsigned char[:] widened = loop.widened
    cdef unsigned char[:] cutv = cut
    cdef Py_ssize_t n = len(jobs), i, k, r, count, examined = 0
    cdef bytearray read_flags = bytearray(n)
    cdef unsigned char[:] read = read_flags
    cdef dict reserved = sched._reserved, no_fit_before = sched._no_fit_before, no_fit_from = sched._no_fit_from
    profile = sched._profile
    cdef list times = profile._times, free = profile._free
    cdef double limit = cap() if cap is not None else _INF
    cdef double start, until, low, hi, spread, was, a, b
    cdef long most
    cdef bint moved = False
    # The jobs a vacated interval reaches, found in one pass and shared by both ways of spreading it.
    cdef Py_ssize_t* more = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
    if not more:
        raise MemoryError()
    move = sched._move
    try:
        while heap:
            i = _heappop(heap)
            queued[i] = 0
            job = jobs[i]
            jid = job.id
            start_o = reserved[jid]
            start = start_o
            until = start if start < limit else limit
            if read[i]:
                low = no_fit_before[jid]
                hi = no_fit_from[jid]
            else:
                read[i] = 1
                _search_range(sched, jid, job.estimate, start, now, top, &low, &hi)
            if widened[i]:
                widened[i] = 0
                lows = loop.lows
                highs = loop.highs
                spread = lows[i]
                if spread < low:
                    low = spread
                spread = highs[i]
                if spread > hi:
                    hi = spread
                lows[i] = _INF
                highs[i] = -_INF
            new = _search_then_profile(sched, times, free, now, job, jid, start, until, low, hi, &examined)
            if new is None:
                if until < start and <double>no_fit_before[jid] < <double>no_fit_from[jid]:
                    cutv[i] = 1
                continue
            # The count goes to the profile before any Python code runs (a subclass's _move may
            # read it).
            profile.examined += examined
            examined = 0
            vacated = move(job, start_o, new)
            moved = True
            starts[i] = new
            if cap is not None:
                was = limit
                limit = cap()
                if limit > was:
                    most = _max_free(times, free, was, limit)
                    for k in range(n):
                        if cutv[k] > queued[k] and widths[k] <= most:
                            cutv[k] = 0
                            queued[k] = 1
                            _heappush(heap, k)
            if vacated is not None:
                a = vacated[0]
                b = vacated[1]
                most = _max_free(times, free, a, b)
                count = 0
                for k in range(n):
                    if starts[k] > a and widths[k] <= most:
                        more[count] = k
                        count += 1
                if count == 0:
                    continue
                if count > narrow:
                    _spread_wide(sched, loop, times, free, now, a, b, more, count, narrow, per_width, &examined)
                    continue
                # _widen_ranges over the few jobs, in queue order.
                for r in range(count):
                    k = more[r]
                    kid = (<object>jobs[k]).id
                    spread = a - estimates[k]
                    if spread < <double>no_fit_before[kid]:
                        no_fit_before[kid] = spread
                    if b > <double>no_fit_from[kid]:
                        no_fit_from[kid] = b
                    if not queued[k]:
                        queued[k] = 1
                        _heappush(heap, k)
    finally:
        profile.examined += examined
        c_free(more)
    return moved
