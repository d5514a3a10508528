# cython: language_level=3
"""DC's hole filling over C arrays, for its whole runs in ``_wholerun.pyx``.

A line-by-line port of ``LongQueueCompression._fill_long_queue``
(``backfill/schedulers/_long_queues.py``): while processors are idle now, the first queued job in
priority order whose window from now up to its own guarantee has room all the way moves to now. The
test for the whole queue is one ``Profile.free_run_end`` from now (counted in ``examined`` as the
reference counts it), answered per job by a binary search over the prefix minima of the free
counts. DC's arrivals compress with ``compress`` of ``_guarantee.pxd`` under a cap. Inline, as
``_profile.pxd``: the module that cimports it compiles its own copy.
"""

from backfill.kernel._guarantee cimport FreedLog, Guar, PCWork, free_run_end, jobs_that_fit, move_job
from backfill.kernel._profile cimport Steps, steps_free_at


cdef inline int fill(Steps* s, Guar* g, Py_ssize_t n, FreedLog* log, double now, PCWork* w) except -1:
    """``_fill_long_queue`` of the ``n`` queued jobs (``g``, with ``w.widths`` and ``w.ests`` filled in
    by position, in priority order); the moves go to ``w``."""
    cdef long long idle = steps_free_at(s, now)
    cdef Py_ssize_t k, m, r, pick
    cdef double until, a, b, v
    cdef double* needs = w.needs
    w.nmoved = 0
    if idle <= 0:
        return 0
    # A job fits now if its window up to its own guarantee has room all the way.
    for k in range(n):
        v = now + w.ests[k]
        needs[k] = v if v < g[k].start else g[k].start
    while idle > 0:
        m = jobs_that_fit(g, n, w, now, idle)
        if m == 0:
            return 0
        until = needs[w.more[0]]
        for r in range(1, m):
            if needs[w.more[r]] > until:
                until = needs[w.more[r]]
        free_run_end(s, w, now, m, until, w.ends)
        pick = -1
        for r in range(m):
            if w.ends[r] >= needs[w.more[r]]:
                pick = w.more[r]
                break
        if pick < 0:
            return 0
        # No search will look at the job again: it starts at this instant.
        move_job(s, &g[pick], log, w, pick, w.widths[pick], w.ests[pick], now, &a, &b)
        idle -= w.widths[pick]
    return 0
