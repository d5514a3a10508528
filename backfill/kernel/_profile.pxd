# cython: language_level=3
"""A profile of free processors over time in plain C arrays, for the compiled whole runs.

A line-by-line port of :class:`backfill.profile.Profile` (``_add``, ``_min_free``, ``_max_free``,
``_free_at``, ``_advance``, ``_reserve``, ``_release``, the searches ``earliest_fit`` and
``earliest_move`` of ``backfill/profile/_search.py`` and ``_move``), over two arrays instead of two
lists: the same steps, the same comparisons on the same doubles, the same ``examined`` counts. The
functions are defined here, inline, so that every module that cimports them compiles its own copy
and calls them directly (``_wholerun.pyx``; ``_loops.pyx`` uses the heap of freed intervals).
"""

from libc.stdlib cimport free as c_free
from libc.stdlib cimport realloc
from libc.string cimport memcpy, memmove


cdef struct Freed:
    double a
    double b


cdef inline void freed_push(Freed* heap, Py_ssize_t* size, double a, double b) noexcept:
    """Push an interval onto a binary min-heap of intervals keyed by their start."""
    cdef Py_ssize_t i = size[0], parent
    size[0] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not a < heap[parent].a:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i].a = a
    heap[i].b = b


cdef inline double freed_pop(Freed* heap, Py_ssize_t* size) noexcept:
    """Pop the earliest-starting interval off the heap and return its end."""
    cdef double b = heap[0].b
    cdef Py_ssize_t n = size[0] - 1, i = 0, child
    cdef Freed last = heap[n]
    size[0] = n
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1].a < heap[child].a:
            child += 1
        if not heap[child].a < last.a:
            break
        heap[i] = heap[child]
        i = child
    if n:
        heap[i] = last
    return b


cdef struct Steps:
    double* t        # step start times, increasing; t[0] is the origin
    long long* f     # free processors from t[k] until t[k + 1] (the last step: for ever)
    Py_ssize_t n     # steps in use
    Py_ssize_t cap   # steps allocated
    long long capacity
    long long examined


cdef inline int steps_init(Steps* s, long long capacity, double origin) except -1:
    s.t = NULL
    s.f = NULL
    s.n = 0
    s.cap = 0
    steps_room(s, 64)
    s.t[0] = origin
    s.f[0] = capacity
    s.n = 1
    s.capacity = capacity
    s.examined = 0
    return 0


cdef inline void steps_free_memory(Steps* s) noexcept:
    c_free(s.t)
    c_free(s.f)
    s.t = NULL
    s.f = NULL
    s.n = s.cap = 0


cdef inline int steps_room(Steps* s, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap = s.cap
    if need <= cap:
        return 0
    while cap < need:
        cap = cap * 2 if cap else 64
    cdef double* t = <double*>realloc(s.t, cap * sizeof(double))
    if t == NULL:
        raise MemoryError()
    s.t = t
    cdef long long* f = <long long*>realloc(s.f, cap * sizeof(long long))
    if f == NULL:
        raise MemoryError()
    s.f = f
    s.cap = cap
    return 0


cdef inline int steps_copy(Steps* dst, Steps* src) except -1:
    """Make ``dst`` a copy of ``src`` (``Profile.copy``), reusing its memory."""
    steps_room(dst, src.n)
    memcpy(dst.t, src.t, src.n * sizeof(double))
    memcpy(dst.f, src.f, src.n * sizeof(long long))
    dst.n = src.n
    dst.capacity = src.capacity
    dst.examined = src.examined
    return 0


cdef inline Py_ssize_t steps_bisect_right(Steps* s, double x, Py_ssize_t lo) noexcept:
    cdef Py_ssize_t hi = s.n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < s.t[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t steps_bisect_left(Steps* s, double x, Py_ssize_t lo) noexcept:
    cdef Py_ssize_t hi = s.n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if s.t[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void steps_span(Steps* s, double start, double end, Py_ssize_t* i, Py_ssize_t* j) noexcept:
    """``Profile._span``: the steps ``i[0]:j[0]`` covering ``[start, end)``, never empty."""
    i[0] = steps_bisect_right(s, start, 0) - 1
    if i[0] < 0:
        i[0] = 0
    j[0] = steps_bisect_left(s, end, i[0])
    if j[0] < i[0] + 1:
        j[0] = i[0] + 1


cdef inline long long steps_min_free(Steps* s, double start, double end) noexcept:
    cdef Py_ssize_t i, j, k
    steps_span(s, start, end, &i, &j)
    cdef long long low = s.f[i]
    for k in range(i + 1, j):
        if s.f[k] < low:
            low = s.f[k]
    return low


cdef inline long long steps_max_free(Steps* s, double start, double end) noexcept:
    cdef Py_ssize_t i, j, k
    steps_span(s, start, end, &i, &j)
    cdef long long high = s.f[i]
    for k in range(i + 1, j):
        if s.f[k] > high:
            high = s.f[k]
    return high


cdef inline long long steps_free_at(Steps* s, double time) noexcept:
    cdef Py_ssize_t i = steps_bisect_right(s, time, 0) - 1
    return s.f[i if i > 0 else 0]


cdef inline int _steps_insert(Steps* s, Py_ssize_t i, double time) except -1:
    """A new step at position ``i`` with the free count of the step before it."""
    steps_room(s, s.n + 1)
    memmove(&s.t[i + 1], &s.t[i], (s.n - i) * sizeof(double))
    memmove(&s.f[i + 1], &s.f[i], (s.n - i) * sizeof(long long))
    s.t[i] = time
    s.f[i] = s.f[i - 1]
    s.n += 1
    return 0


cdef inline void _steps_delete(Steps* s, Py_ssize_t i) noexcept:
    memmove(&s.t[i], &s.t[i + 1], (s.n - i - 1) * sizeof(double))
    memmove(&s.f[i], &s.f[i + 1], (s.n - i - 1) * sizeof(long long))
    s.n -= 1


cdef inline int steps_add(Steps* s, double start, double end, long long delta) except -1:
    """``Profile._add``: ``delta`` free processors over ``[start, end)``, unchecked."""
    cdef Py_ssize_t i = steps_bisect_left(s, start, 0), j, m
    if i == s.n or s.t[i] != start:
        if i == 0:
            raise AssertionError(f"time {start} is before the profile origin {s.t[0]}")
        _steps_insert(s, i, start)
    j = steps_bisect_left(s, end, i)
    if j == s.n or s.t[j] != end:
        _steps_insert(s, j, end)
    for m in range(i, j):
        s.f[m] += delta
    if j < s.n and s.f[j - 1] == s.f[j]:
        _steps_delete(s, j)
    if i and s.f[i - 1] == s.f[i]:
        _steps_delete(s, i)
    return 0


cdef inline int steps_reserve(Steps* s, double start, double end, long long p) except -1:
    """``Profile._reserve``: its checks are assertions here (a correct port never fails them)."""
    if not end > start:
        return 0
    if start < s.t[0] or steps_min_free(s, start, end) < p:
        raise AssertionError(f"cannot reserve {p} processors over [{start}, {end})")
    return steps_add(s, start, end, -p)


cdef inline int steps_release(Steps* s, double start, double end, long long p) except -1:
    """``Profile._release``, its checks as assertions."""
    if not end > start:
        return 0
    if start < s.t[0] or steps_max_free(s, start, end) + p > s.capacity:
        raise AssertionError(f"cannot release {p} processors over [{start}, {end})")
    return steps_add(s, start, end, p)


cdef inline void steps_advance(Steps* s, double time) noexcept:
    """``Profile._advance``: forget the steps before ``time``, which becomes the origin."""
    if time <= s.t[0]:
        return
    cdef Py_ssize_t i = steps_bisect_right(s, time, 0) - 1
    if i:
        memmove(&s.t[0], &s.t[i], (s.n - i) * sizeof(double))
        memmove(&s.f[0], &s.f[i], (s.n - i) * sizeof(long long))
        s.n -= i
    s.t[0] = time


cdef inline double steps_earliest_fit(Steps* s, double time, long long p, double duration) noexcept:
    """``earliest_fit`` of ``backfill/profile/_search.py``."""
    cdef Py_ssize_t n = s.n, i, first, j
    cdef double start, end
    if time < s.t[0]:
        time = s.t[0]
    if not duration > 0:
        return time
    i = first = steps_bisect_right(s, time, 0) - 1
    start = time
    while True:
        while s.f[i] < p:
            i += 1
            start = s.t[i]
        end = start + duration
        j = i + 1
        while j < n and s.t[j] < end:
            if s.f[j] < p:
                break
            j += 1
        else:
            s.examined += j - first
            return start
        i = j


cdef inline double steps_earliest_move(
    Steps* s, double time, long long p, double duration, double current, double before, bint* found
) noexcept:
    """``earliest_move`` of ``backfill/profile/_search.py`` with ``before`` given; ``found[0]`` False
    where the reference returns None."""
    cdef Py_ssize_t i, j, k, m
    cdef double start, end, bound
    cdef long long top
    found[0] = False
    if time < s.t[0]:
        time = s.t[0]
    bound = current if before > current else before
    if not time < bound:
        return 0.0
    if not duration > 0:
        found[0] = True
        return time
    i = steps_bisect_right(s, time, 0) - 1
    k = steps_bisect_left(s, bound, i)
    s.examined += k - i
    top = s.f[i]
    for m in range(i + 1, k):
        if s.f[m] > top:
            top = s.f[m]
    if top < p:
        return 0.0
    while i < k:
        if s.f[i] < p:
            i += 1
            continue
        start = s.t[i] if s.t[i] > time else time
        end = start + duration
        if end > current:
            end = current
        j = steps_bisect_left(s, end, i + 1)
        s.examined += j - i - 1
        m = i + 1
        while m < j and s.f[m] >= p:
            m += 1
        if m == j:
            found[0] = True
            return start
        j -= 1
        while s.f[j] >= p:
            j -= 1
        i = j + 1
    return 0.0


cdef inline bint steps_move(
    Steps* s, double start, double end, double new, double new_end, long long p
) except -1:
    """``Profile._move`` after its checks, given both ends; False (nothing changed) if no room."""
    cdef double g0, g1, l0, l1
    if new < start:
        g0 = new_end if new_end > start else start
        g1 = end
        l0 = new
        l1 = start if start < new_end else new_end
    else:
        g0 = start
        g1 = new if new < end else end
        l0 = end if end > new else new
        l1 = new_end
    steps_add(s, g0, g1, p)
    if steps_min_free(s, l0, l1) < p:
        steps_add(s, g0, g1, -p)
        return False
    steps_add(s, l0, l1, -p)
    return True
