# cython: language_level=3
"""PC's and DC's accelerated compression over C arrays, for their whole runs in ``_wholerun.pyx``.

A line-by-line port of ``LongQueueCompression`` (``backfill/schedulers/_long_queues.py``) as PC and
DC run it: ``_compress_long_queue`` and its candidate loop (with DC's cap, the end of the arriving
job's earliest fit, and the jobs it cut short), ``_search_range``,
``_record_no_fit``, ``_search_range_then_profile``, ``_spread_vacated`` with ``_widen_ranges``, the
single walk of ``restart=False``, and ``Profile.earliest_moves`` (as the kernel's ``_steps.pyx``
computes it), over the C profile of ``_profile.pxd``. The queue is the scheduler's, in priority
order; each queued job has a ``Guar`` at the same position (its guarantee, its search range and how
much of the freed log it has read). Every comparison is the reference's on the same doubles, and
every search adds the steps it looks at to the profile's ``examined`` as the reference does, so the
moves, their order and ``events_examined`` are identical. Inline, as ``_profile.pxd``: the module
that cimports it compiles its own copy.
"""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, fabs
from libc.stdlib cimport free as c_free
from libc.stdlib cimport qsort, realloc

from backfill.kernel._profile cimport (
    Freed,
    Steps,
    steps_bisect_left,
    steps_bisect_right,
    steps_earliest_fit,
    steps_earliest_move,
    steps_max_free,
    steps_move,
)


cdef struct Guar:
    double start      # the guarantee (``_reserved``)
    double low        # no fit in [now, low) (``_no_fit_before``)
    double high       # nor in [high, start) (``_no_fit_from``)
    long long seen    # how much of the freed log it has read, counted from the log's first interval ever


cdef struct FreedLog:
    # ``_freed`` and ``_base``: the intervals freed (early completions, moves), less the first ``base``.
    Freed* v
    Py_ssize_t n
    Py_ssize_t cap
    long long base


cdef struct WidthAt:
    long long width
    Py_ssize_t at


cdef struct PCWork:
    # One compression's arrays, by queue position (kept between compressions to save allocations).
    Py_ssize_t qcap
    long long* widths
    double* ests
    unsigned char* queued
    unsigned char* widened
    unsigned char* read
    unsigned char* cut  # DC's: a search stopped short by the cap
    double* lows
    double* highs
    Py_ssize_t* heap
    Py_ssize_t* more
    double* earliest
    double* needs
    double* ends
    unsigned char* useful
    long long* gw       # a gathered subset, for earliest_moves
    double* gd
    double* gc
    double* can
    Py_ssize_t* gk
    WidthAt* pairs
    Py_ssize_t* unsure
    # per profile step
    Py_ssize_t scap
    double* st
    long long* room
    double* rs
    double* re
    double* lg
    # the moves made, in order, for the reservation log
    Py_ssize_t mcap
    Py_ssize_t nmoved
    Py_ssize_t* mk
    double* mnew


cdef inline int _realloc_into(void** data, Py_ssize_t count, size_t item) except -1:
    cdef void* out = realloc(data[0], (count if count > 0 else 1) * item)
    if out == NULL:
        raise MemoryError()
    data[0] = out
    return 0


cdef inline void work_init(PCWork* w) noexcept:
    w.qcap = w.scap = w.mcap = w.nmoved = 0
    w.widths = NULL
    w.ests = NULL
    w.queued = NULL
    w.widened = NULL
    w.read = NULL
    w.cut = NULL
    w.lows = NULL
    w.highs = NULL
    w.heap = NULL
    w.more = NULL
    w.earliest = NULL
    w.needs = NULL
    w.ends = NULL
    w.useful = NULL
    w.gw = NULL
    w.gd = NULL
    w.gc = NULL
    w.can = NULL
    w.gk = NULL
    w.pairs = NULL
    w.unsure = NULL
    w.st = NULL
    w.room = NULL
    w.rs = NULL
    w.re = NULL
    w.lg = NULL
    w.mk = NULL
    w.mnew = NULL


cdef inline void work_free(PCWork* w) noexcept:
    c_free(w.widths); c_free(w.ests); c_free(w.queued); c_free(w.widened); c_free(w.read); c_free(w.cut)
    c_free(w.lows); c_free(w.highs); c_free(w.heap); c_free(w.more); c_free(w.earliest)
    c_free(w.needs); c_free(w.ends); c_free(w.useful); c_free(w.gw); c_free(w.gd); c_free(w.gc)
    c_free(w.can); c_free(w.gk); c_free(w.pairs); c_free(w.unsure); c_free(w.st); c_free(w.room)
    c_free(w.rs); c_free(w.re); c_free(w.lg); c_free(w.mk); c_free(w.mnew)
    work_init(w)


cdef inline int work_queue_room(PCWork* w, Py_ssize_t n) except -1:
    """Room for ``n`` queue positions in every per-position array."""
    if n <= w.qcap:
        return 0
    cdef Py_ssize_t cap = w.qcap * 2 if w.qcap else 64
    while cap < n:
        cap *= 2
    _realloc_into(<void**>&w.widths, cap, sizeof(long long))
    _realloc_into(<void**>&w.ests, cap, sizeof(double))
    _realloc_into(<void**>&w.queued, cap, 1)
    _realloc_into(<void**>&w.widened, cap, 1)
    _realloc_into(<void**>&w.read, cap, 1)
    _realloc_into(<void**>&w.cut, cap, 1)
    _realloc_into(<void**>&w.lows, cap, sizeof(double))
    _realloc_into(<void**>&w.highs, cap, sizeof(double))
    _realloc_into(<void**>&w.heap, cap, sizeof(Py_ssize_t))
    _realloc_into(<void**>&w.more, cap, sizeof(Py_ssize_t))
    _realloc_into(<void**>&w.earliest, cap, sizeof(double))
    _realloc_into(<void**>&w.needs, cap, sizeof(double))
    _realloc_into(<void**>&w.ends, cap, sizeof(double))
    _realloc_into(<void**>&w.useful, cap, 1)
    _realloc_into(<void**>&w.gw, cap, sizeof(long long))
    _realloc_into(<void**>&w.gd, cap, sizeof(double))
    _realloc_into(<void**>&w.gc, cap, sizeof(double))
    _realloc_into(<void**>&w.can, cap, sizeof(double))
    _realloc_into(<void**>&w.gk, cap, sizeof(Py_ssize_t))
    _realloc_into(<void**>&w.pairs, cap, sizeof(WidthAt))
    _realloc_into(<void**>&w.unsure, cap, sizeof(Py_ssize_t))
    w.qcap = cap
    return 0


cdef inline int work_steps_room(PCWork* w, Py_ssize_t n) except -1:
    """Room for ``n`` profile steps (and one more) in every per-step array."""
    if n + 1 <= w.scap:
        return 0
    cdef Py_ssize_t cap = w.scap * 2 if w.scap else 64
    while cap < n + 1:
        cap *= 2
    _realloc_into(<void**>&w.st, cap, sizeof(double))
    _realloc_into(<void**>&w.room, cap, sizeof(long long))
    _realloc_into(<void**>&w.rs, cap, sizeof(double))
    _realloc_into(<void**>&w.re, cap, sizeof(double))
    _realloc_into(<void**>&w.lg, cap, sizeof(double))
    w.scap = cap
    return 0


cdef inline int work_moved(PCWork* w, Py_ssize_t k, double new) except -1:
    """Note that the job at position ``k`` moved to ``new``."""
    cdef Py_ssize_t cap
    if w.nmoved == w.mcap:
        cap = w.mcap * 2 if w.mcap else 64
        _realloc_into(<void**>&w.mk, cap, sizeof(Py_ssize_t))
        _realloc_into(<void**>&w.mnew, cap, sizeof(double))
        w.mcap = cap
    w.mk[w.nmoved] = k
    w.mnew[w.nmoved] = new
    w.nmoved += 1
    return 0


cdef inline int log_push(FreedLog* log, double a, double b) except -1:
    cdef Py_ssize_t cap
    if log.n == log.cap:
        cap = log.cap * 2 if log.cap else 64
        _realloc_into(<void**>&log.v, cap, sizeof(Freed))
        log.cap = cap
    log.v[log.n].a = a
    log.v[log.n].b = b
    log.n += 1
    return 0


# -- the heap of candidates (heapq over distinct positions: any min-heap pops them in the same order)


cdef inline void heap_push(Py_ssize_t* heap, Py_ssize_t* size, Py_ssize_t k) noexcept:
    cdef Py_ssize_t i = size[0], parent
    size[0] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= k:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = k


cdef inline Py_ssize_t heap_pop(Py_ssize_t* heap, Py_ssize_t* size) noexcept:
    cdef Py_ssize_t top = heap[0], n = size[0] - 1, i = 0, child
    cdef Py_ssize_t last = heap[n]
    size[0] = n
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[i] = heap[child]
        i = child
    if n:
        heap[i] = last
    return top


# -- a job's search range (_search_range, _record_no_fit, _search_range_then_profile) ----------------


cdef inline void search_range(
    Guar* g, FreedLog* log, double estimate, double start, double now, long long top,
    double* low, double* high,
) noexcept:
    """``_search_range`` up to ``top``: widen by the intervals freed since the job last read the log."""
    cdef Py_ssize_t k
    cdef double a, b
    low[0] = g.low
    high[0] = g.high
    if g.seen < top:
        for k in range(<Py_ssize_t>(g.seen - log.base), <Py_ssize_t>(top - log.base)):
            a = log.v[k].a
            b = log.v[k].b
            if b > now and a < start:
                if a - estimate < low[0]:
                    low[0] = a - estimate
                if b > high[0]:
                    high[0] = b
        g.seen = top


cdef inline void record_no_fit(Guar* g, double start, double low, double high) noexcept:
    """``_record_no_fit``: no fit in ``[now, low)`` nor in ``[high, start)``."""
    if low >= high:
        low = start
        high = -INFINITY
    g.low = low
    g.high = high


cdef inline double search_then_profile(
    Steps* s, Guar* g, double now, long long p, double est, double start, double limit,
    double low, double high, bint* found,
) noexcept:
    """``_search_range_then_profile`` with ``known``; ``found[0]`` False where it returns None."""
    cdef double origin = low if low > now else now
    cdef double end = high if high < limit else limit
    cdef double new
    found[0] = False
    if origin < end:
        new = steps_earliest_move(s, origin, p, est, start, end, found)
        if found[0]:
            g.low = new
            g.high = -INFINITY
            return new
        origin = end
    record_no_fit(g, start, origin, high)
    return 0.0


cdef inline bint move_job(
    Steps* s, Guar* g, FreedLog* log, PCWork* w, Py_ssize_t k, long long p, double est, double new,
    double* a, double* b,
) except -1:
    """``GuaranteeScheduler._move``: True, with the vacated ``[a, b)`` logged, if the old place is not
    covered by the new one."""
    cdef double start = g.start, low
    if est > 0 and new != start:
        if not steps_move(s, start, start + est, new, new + est, p):
            raise AssertionError(f"a move to {new} does not fit")
    g.start = new
    work_moved(w, k, new)
    low = new + est if new + est > start else start
    if low < start + est:
        a[0] = low
        b[0] = start + est
        log_push(log, low, start + est)
        return True
    return False


# -- Profile.earliest_moves (the kernel's port of backfill/profile/_search.py) ---------------------------


cdef inline int _width_cmp(const void* x, const void* y) noexcept nogil:
    cdef const WidthAt* a = <const WidthAt*>x
    cdef const WidthAt* b = <const WidthAt*>y
    if a.width != b.width:
        return -1 if a.width < b.width else 1
    return -1 if a.at < b.at else (1 if a.at > b.at else 0)


cdef inline Py_ssize_t _first_at_least(double* a, Py_ssize_t size, double x) noexcept:
    """``np.searchsorted(a[:size], x, side="left")`` for a nondecreasing ``a``."""
    cdef Py_ssize_t lo = 0, hi = size, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t distinct_widths(PCWork* w, long long* widths, Py_ssize_t m) noexcept:
    """``np.unique(widths[:m]).size``."""
    cdef Py_ssize_t k, count = 0
    for k in range(m):
        w.pairs[k].width = widths[k]
        w.pairs[k].at = k
    qsort(w.pairs, m, sizeof(WidthAt), _width_cmp)
    for k in range(m):
        if k == 0 or w.pairs[k].width != w.pairs[k - 1].width:
            count += 1
    return count


cdef inline bint worth_a_pass(PCWork* w, long long* widths, Py_ssize_t m, Py_ssize_t narrow,
                              Py_ssize_t per_width) noexcept:
    """``_long_queues.worth_a_pass`` of ``widths[:m]``."""
    return m > narrow and m > per_width * distinct_widths(w, widths, m)


cdef inline int earliest_moves(
    Steps* s, PCWork* w, double time, Py_ssize_t m, long long* widths, double* durations,
    double* currents, double* moves,
) except -1:
    """``Profile.earliest_moves`` of ``m`` jobs into ``moves`` (``INFINITY`` where a job cannot move).

    ``widths`` etc. must not be ``w.pairs`` or ``w.unsure``, which it uses.
    """
    cdef Py_ssize_t k, live = 0, i, j, size, q, g, runs, a, b, nunsure = 0
    cdef double t, horizon = -INFINITY, longest_d = -INFINITY, slack, d, current, best, run_a, v
    cdef long long wd
    cdef bint a_ok, a_fits, found
    if time < s.t[0]:
        time = s.t[0]
    t = time
    for k in range(m):
        moves[k] = INFINITY
        if currents[k] > t:
            if not durations[k] > 0:
                moves[k] = t  # a zero duration occupies nothing, as in earliest_move
            else:
                w.pairs[live].width = widths[k]
                w.pairs[live].at = k
                live += 1
                if currents[k] > horizon:
                    horizon = currents[k]
                if durations[k] > longest_d:
                    longest_d = durations[k]
    if not live:
        return 0
    qsort(w.pairs, live, sizeof(WidthAt), _width_cmp)
    i = steps_bisect_right(s, t, 0) - 1
    j = steps_bisect_left(s, horizon, i)  # steps i..j-1 start before every window ends
    size = j - i
    slack = 8 * DBL_EPSILON * (fabs(horizon) + longest_d)
    work_steps_room(w, size + 1)
    cdef double* st = w.st
    cdef long long* room = w.room
    cdef double* rs = w.rs
    cdef double* re = w.re
    cdef double* lg = w.lg
    for q in range(size):
        st[q] = s.t[i + q]
        room[q] = s.f[i + q]
    st[0] = t
    st[size] = INFINITY  # the last step reaches past every window
    g = 0
    while g < live:
        wd = w.pairs[g].width
        s.examined += size
        # Runs of steps with room for the width, and the longest run up to each.
        runs = 0
        q = 0
        while q < size:
            if room[q] < wd:
                q += 1
                continue
            rs[runs] = st[q]
            while q < size and room[q] >= wd:
                q += 1
            re[runs] = st[q]
            d = re[runs] - rs[runs]
            lg[runs] = d if runs == 0 or d > lg[runs - 1] else lg[runs - 1]
            runs += 1
        while g < live and w.pairs[g].width == wd:
            k = w.pairs[g].at
            g += 1
            if runs == 0:
                continue
            d = durations[k]
            current = currents[k]
            # The first run that may be long enough, tested as the search tests a window, and the
            # run that reaches the job's own reservation, if one does.
            a = _first_at_least(lg, runs, d - slack)
            if a > runs - 1:
                a = runs - 1
            run_a = rs[a]
            a_ok = lg[a] >= d - slack
            a_fits = run_a + d <= re[a]
            best = run_a if a_ok and a_fits else INFINITY
            b = _first_at_least(rs, runs, current) - 1
            if b >= 0 and re[b] >= current and rs[b] < best:
                best = rs[b]
            moves[k] = best if best < current else INFINITY
            if a_ok and not a_fits and run_a < (best if best < current else current):
                w.unsure[nunsure] = k
                nunsure += 1
    # A candidate run that rounding may have let through, with no answer earlier: a search says.
    for q in range(nunsure):
        k = w.unsure[q]
        v = steps_earliest_move(s, time, widths[k], durations[k], currents[k], currents[k], &found)
        moves[k] = v if found else INFINITY
    return 0


# -- _spread_vacated --------------------------------------------------------------------------------


cdef inline Py_ssize_t jobs_that_fit(Guar* g, Py_ssize_t n, PCWork* w, double after, long long most) noexcept:
    """Put in ``w.more`` the positions of the jobs planned after ``after`` no wider than ``most``,
    in queue order; return how many."""
    cdef Py_ssize_t k, m = 0
    for k in range(n):
        if g[k].start > after and w.widths[k] <= most:
            w.more[m] = k
            m += 1
    return m


cdef inline int free_run_end(
    Steps* s, PCWork* w, double time, Py_ssize_t m, double until, double* ends
) except -1:
    """``Profile.free_run_end(time, widths, until)`` for the ``m`` jobs at positions ``w.more``."""
    cdef Py_ssize_t i, j, f, size, lo, hi, mid, r
    cdef long long* room
    cdef double v
    if time < s.t[0]:
        time = s.t[0]
    if not time < until:
        for r in range(m):
            ends[r] = until
        return 0
    i = steps_bisect_right(s, time, 0) - 1
    j = steps_bisect_left(s, until, i)  # steps i..j-1 start before ``until``
    s.examined += j - i
    size = j - i
    work_steps_room(w, size)
    room = w.room
    # Prefix minima, nonincreasing: the first step without room for a width is a binary search.
    room[0] = s.f[i]
    for f in range(1, size):
        room[f] = s.f[i + f]
        if room[f - 1] < room[f]:
            room[f] = room[f - 1]
    for r in range(m):
        lo = 0
        hi = size
        while lo < hi:
            mid = (lo + hi) >> 1
            if room[mid] >= w.widths[w.more[r]]:
                lo = mid + 1
            else:
                hi = mid
        v = s.t[i + lo] if lo < size else until
        ends[r] = v if v > time else time
    return 0


cdef inline int _widen(Guar* g, Py_ssize_t k, double low, double b, PCWork* w, Py_ssize_t* nheap) noexcept:
    """``_widen_ranges`` for one job: widen its range by ``[low, b)`` and make it a candidate."""
    if low < g[k].low:
        g[k].low = low
    if b > g[k].high:
        g[k].high = b
    if not w.queued[k]:
        w.queued[k] = 1
        heap_push(w.heap, nheap, k)
    return 0


cdef inline int spread_wide(
    Steps* s, Guar* g, PCWork* w, Py_ssize_t* nheap, bint* have_ranges, double now, double a,
    double b, Py_ssize_t m, Py_ssize_t narrow, Py_ssize_t per_width,
) except -1:
    """The long branch of ``_spread_vacated`` for the ``m`` jobs ``w.more`` that ``[a, b)`` reaches.

    ``free_run_start`` and ``free_run_end`` are answered per job by a binary search over the suffix
    and prefix minima of the free counts (the kernel's ``_spread_wide``), counting their spans once.
    """
    cdef Py_ssize_t* more = w.more
    cdef double* earliest = w.earliest
    cdef double* needs = w.needs
    cdef double* ends = w.ends
    cdef unsigned char* useful = w.useful
    cdef Py_ssize_t k, r, i1, j1, f, size, lo, hi, mid, dips = 0, count = 0
    cdef double since, t0 = s.t[0], until = 0.0, v
    cdef long long* room
    since = a - w.ests[more[0]]
    for r in range(1, m):
        v = a - w.ests[more[r]]
        if v < since:
            since = v
    if now > since:
        since = now
    # free_run_start(a, widths, since): where the run with room for the width that reaches a starts
    if since < t0:
        since = t0
    if not since < a:
        for r in range(m):
            earliest[r] = a - w.ests[more[r]]
            if since > earliest[r]:
                earliest[r] = since
    else:
        i1 = steps_bisect_right(s, since, 0) - 1
        j1 = steps_bisect_left(s, a, i1)
        s.examined += j1 - i1
        size = j1 - i1
        work_steps_room(w, size)
        room = w.room
        # Suffix minima, nondecreasing: the first with room for a width is a binary search.
        room[size - 1] = s.f[i1 + size - 1]
        for f in range(size - 2, -1, -1):
            room[f] = s.f[i1 + f]
            if room[f + 1] < room[f]:
                room[f] = room[f + 1]
        for r in range(m):
            k = more[r]
            lo = 0
            hi = size
            while lo < hi:
                mid = (lo + hi) >> 1
                if room[mid] < w.widths[k]:
                    lo = mid + 1
                else:
                    hi = mid
            v = s.t[i1 + lo] if lo < size else a
            if since > v:
                v = since
            earliest[r] = a - w.ests[k]
            if v > earliest[r]:
                earliest[r] = v
    for r in range(m):
        k = more[r]
        needs[r] = earliest[r] + w.ests[k]
        if g[k].start < needs[r]:
            needs[r] = g[k].start
        if r == 0 or needs[r] > until:
            until = needs[r]
    # free_run_end(a, widths, until): where the run with room for the width that starts at a ends
    free_run_end(s, w, a, m, until, ends)
    for r in range(m):
        useful[r] = ends[r] >= needs[r] or ends[r] < b
        if useful[r] and ends[r] < needs[r]:
            w.gk[dips] = r
            w.gw[dips] = w.widths[more[r]]
            dips += 1
    # Where the room runs out inside [a, b), earliest_moves tells, if there are enough such jobs.
    if worth_a_pass(w, w.gw, dips, narrow, per_width):
        for f in range(dips):
            k = more[w.gk[f]]
            w.gd[f] = w.ests[k]
            w.gc[f] = g[k].start
        earliest_moves(s, w, now, dips, w.gw, w.gd, w.gc, w.can)
        for f in range(dips):
            r = w.gk[f]
            v = w.can[f]
            useful[r] = v < g[more[r]].start
            earliest[r] = v
    for r in range(m):
        if useful[r]:
            count += 1
    if count <= narrow:
        for r in range(m):
            if useful[r]:
                _widen(g, more[r], earliest[r], b, w, nheap)
        return 0
    # Many jobs: the ranges they gain wait in lows and highs until their searches take them in.
    if not have_ranges[0]:
        have_ranges[0] = True
        for k in range(w.qcap):
            w.lows[k] = INFINITY
            w.highs[k] = -INFINITY
    for r in range(m):
        if useful[r]:
            k = more[r]
            if earliest[r] < w.lows[k]:
                w.lows[k] = earliest[r]
            if b > w.highs[k]:
                w.highs[k] = b
            w.widened[k] = 1
    for r in range(m):
        if useful[r]:
            k = more[r]
            if not w.queued[k]:
                w.queued[k] = 1
                heap_push(w.heap, nheap, k)
    return 0


# -- the compression ------------------------------------------------------------------------------------


cdef inline int compress(
    Steps* s, Guar* g, Py_ssize_t n, FreedLog* log, Freed* pending, Py_ssize_t npending, double now,
    bint restart, Py_ssize_t narrow, Py_ssize_t per_width, PCWork* w, bint every=False,
    bint capped=False, long long cap_p=0, double cap_d=0.0,
) except -1:
    """``_compress_long_queue`` of the ``n`` queued jobs (``g``, with ``w.widths`` and ``w.ests`` filled in
    by position, in priority order) after the early completions ``pending`` (``every``: ``freed=None``,
    every job a candidate); the moves go to ``w``.

    ``capped`` is DC's arrival: a job may only move to a start before the end of the earliest fit of
    ``cap_p`` processors for ``cap_d`` (the arriving job), found again after every move.
    """
    cdef Py_ssize_t k, i, m = 0, nheap = 0
    cdef long long top
    cdef double start, until, low, hi, new, a, b, most, limit = INFINITY, was
    cdef bint found, vacated, have_ranges = False
    w.nmoved = 0
    if not restart:
        # Every job tried once, in order, each reading the whole log (this walk's moves included).
        for k in range(n):
            start = g[k].start
            if start > now:
                search_range(&g[k], log, w.ests[k], start, now, log.base + log.n, &low, &hi)
                new = search_then_profile(s, &g[k], now, w.widths[k], w.ests[k], start, start, low, hi, &found)
                if found:
                    move_job(s, &g[k], log, w, k, w.widths[k], w.ests[k], new, &a, &b)
        return 0
    # Candidates: jobs that can use space freed since the last compression (early completions).
    for k in range(n):
        w.queued[k] = 1 if every else 0
    for i in range(npending):
        a = pending[i].a
        b = pending[i].b
        if b > now:
            most = steps_max_free(s, a if a > now else now, b)
            for k in range(n):
                if g[k].start > a and w.widths[k] <= most:
                    w.queued[k] = 1
    for k in range(n):
        if w.queued[k] and g[k].start > now:
            w.gk[m] = k
            w.gw[m] = w.widths[k]
            m += 1
        w.queued[k] = 0
    if worth_a_pass(w, w.gw, m, narrow, per_width):
        # Most candidates of a long queue cannot use the space at all: one pass per width says which.
        for i in range(m):
            w.gd[i] = w.ests[w.gk[i]]
            w.gc[i] = g[w.gk[i]].start
        earliest_moves(s, w, now, m, w.gw, w.gd, w.gc, w.can)
        for i in range(m):
            k = w.gk[i]
            if w.can[i] < g[k].start:
                w.heap[nheap] = k  # ascending, hence already a heap
                nheap += 1
    else:
        for i in range(m):
            w.heap[nheap] = w.gk[i]
            nheap += 1
    for k in range(n):
        w.widened[k] = 0
        w.read[k] = 0
    for i in range(nheap):
        w.queued[w.heap[i]] = 1
    # The candidate loop (_candidate_loop). A job reads the log up to ``top`` (what was freed before
    # this loop) at its first search; what this loop vacates is spread to the jobs it can help as it
    # is made.
    top = log.base + log.n
    if capped:
        for k in range(n):
            w.cut[k] = 0
        limit = steps_earliest_fit(s, now, cap_p, cap_d) + cap_d
    while nheap:
        i = heap_pop(w.heap, &nheap)
        w.queued[i] = 0
        start = g[i].start
        until = start if start < limit else limit
        if w.read[i]:
            low = g[i].low
            hi = g[i].high
        else:
            w.read[i] = 1
            search_range(&g[i], log, w.ests[i], start, now, top, &low, &hi)
        if w.widened[i]:
            w.widened[i] = 0
            if w.lows[i] < low:
                low = w.lows[i]
            if w.highs[i] > hi:
                hi = w.highs[i]
            w.lows[i] = INFINITY
            w.highs[i] = -INFINITY
        new = search_then_profile(s, &g[i], now, w.widths[i], w.ests[i], start, until, low, hi, &found)
        if not found:
            if until < start and g[i].low < g[i].high:
                w.cut[i] = 1  # left with a search not done past the cap
            continue
        vacated = move_job(s, &g[i], log, w, i, w.widths[i], w.ests[i], new, &a, &b)
        if capped:
            # The cap is asked again; where it grew, jobs it cut short whose width the new stretch
            # has room for are candidates again.
            was = limit
            limit = steps_earliest_fit(s, now, cap_p, cap_d) + cap_d
            if limit > was:
                most = steps_max_free(s, was, limit)
                for k in range(n):
                    if w.cut[k] > w.queued[k] and w.widths[k] <= most:
                        w.cut[k] = 0
                        w.queued[k] = 1
                        heap_push(w.heap, &nheap, k)
        if not vacated:
            continue
        # _spread_vacated: tell the jobs that can use [a, b) of it, and make them candidates.
        m = jobs_that_fit(g, n, w, a, steps_max_free(s, a, b))
        if m == 0:
            continue
        if m > narrow:
            spread_wide(s, g, w, &nheap, &have_ranges, now, a, b, m, narrow, per_width)
            continue
        for i in range(m):
            k = w.more[i]
            _widen(g, k, a - w.ests[k], b, w, &nheap)
    # Every job not searched was ruled out for every interval logged so far.
    top = log.base + log.n
    for k in range(n):
        g[k].seen = top
    return 0


cdef inline void trim(Guar* g, Py_ssize_t n, double* ests, FreedLog* log, double now) noexcept:
    """``_trim``: every job that has not read the whole log widens its range by it; the log is dropped.

    ``ests`` holds the queued jobs' estimates by position.
    """
    cdef long long top = log.base + log.n
    cdef Py_ssize_t k
    cdef double low, high
    for k in range(n):
        if g[k].seen < top:
            search_range(&g[k], log, ests[k], g[k].start, now, top, &low, &high)
            record_no_fit(&g[k], g[k].start, low, high)
    log.n = 0
    log.base = top
