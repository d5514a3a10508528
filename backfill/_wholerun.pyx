# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Whole runs in C: the simulator's event loop with FCFS or classic EASY deciding, for built-in priorities.

A port of the pure-Python path that stays the reference, decision for decision: the event loop of
:class:`backfill.simulator.Simulator` (``_step``, ``_settle``, ``_complete_due``, ``_start_jobs``;
no wake-ups, since neither scheduler asks for one) driving :class:`backfill.schedulers.FCFS` and the
plain path of :class:`backfill.schedulers.EASY` at depth 1 (``schedule``, ``_shadow``, ``_backfill``,
``_log_changes``, ``complete``), over a queue ordered by a static priority key (``fcfs``, ``sjf``,
``ljf``, ``wjf``, ``njf``) with ties by arrival, and EASY's backfill order if it is one of them. Every comparison is the reference's on the same IEEE
doubles, and the log is written as the simulator writes it, so starts, their order and the
reservation log are identical (``tests/test_wholerun.py``; the schedule digests of the archive
traces). What may run here is decided by ``backfill._compiled_runs``; nothing imports this module
directly.

The state is plain C arrays: the queue as a sorted array of (key, arrival, row), the running jobs'
planned ends as a sorted array of (end, arrival, processors), and the completions as a binary heap
of (time, start sequence, row), each ordered exactly as the reference's tuples are.
"""

from libc.math cimport INFINITY, NAN
from libc.stdlib cimport free as c_free
from libc.stdlib cimport malloc, qsort, realloc
from libc.string cimport memmove, memset

import numpy as np


cdef struct _Entry:
    double key
    long long seq
    long long row


cdef struct _End:
    double end
    long long seq
    long long procs


cdef struct _Ranked:
    double key
    Py_ssize_t pos


cdef struct _Event:
    double time
    long long seq
    long long row


# Which scheduler decides.
FCFS = 0
EASY = 1
# Which static key orders the queue (the built-in priorities of that name).
KEYS = ("fcfs", "sjf", "ljf", "wjf", "njf")


cdef inline bint _entry_less(_Entry a, _Entry b):
    # The reference compares (key, seq, job) tuples; seq is unique, so the job is never compared.
    return a.key < b.key or (a.key == b.key and a.seq < b.seq)


cdef inline bint _end_less(_End a, _End b):
    return a.end < b.end or (a.end == b.end and a.seq < b.seq)


cdef inline bint _event_less(_Event a, _Event b):
    return a.time < b.time or (a.time == b.time and a.seq < b.seq)


cdef int _ranked_cmp(const void* x, const void* y) noexcept nogil:
    # A stable sort by key: ties keep the queue order (Python's sorted with a key).
    cdef const _Ranked* a = <const _Ranked*>x
    cdef const _Ranked* b = <const _Ranked*>y
    if a.key < b.key:
        return -1
    if b.key < a.key:
        return 1
    return -1 if a.pos < b.pos else (1 if a.pos > b.pos else 0)


cdef object _keys_of(str key, submit, estimate, processors):
    """The sort key of every row under the built-in static priority of that name."""
    if key == "fcfs":
        return submit
    if key == "sjf":
        return estimate
    if key == "ljf":
        return -estimate
    if key == "wjf":
        return -processors.astype(np.float64)
    if key == "njf":
        return processors.astype(np.float64)
    raise ValueError(f"no compiled key for priority {key!r}")


cdef void* _grow(void* data, Py_ssize_t* capacity, Py_ssize_t need, size_t item) except NULL:
    """Room for at least ``need`` items, doubling; raises MemoryError."""
    cdef Py_ssize_t cap = capacity[0]
    if need <= cap:
        return data
    while cap < need:
        cap = cap * 2 if cap else 64
    cdef void* out = realloc(data, cap * item)
    if out == NULL:
        raise MemoryError()
    capacity[0] = cap
    return out


cdef class QueueRun:
    """One simulation of FCFS or classic EASY over prepared arrays, run in steps like the simulator.

    Args:
        scheduler: ``FCFS`` or ``EASY`` (this module's constants).
        key: The priority's name, one of ``KEYS``.
        backfill_order: EASY's backfill order, a name of ``KEYS`` or None (queue order).
        submit, runtime, estimate: Per row, as the simulator prepared them (overrun policy applied).
        processors, ids: Per row.
        bad: Per row, 1 for a job the simulator rejected (never submitted).
        machine_size: Processors of the machine.
        record: Whether to keep the reservation log.
        max_clock: The latest time a scheduler accepts (``backfill.workloads.limits.MAX_CLOCK``).
    """

    cdef int kind
    cdef bint record
    cdef long long size
    cdef Py_ssize_t n, next_row
    cdef double[::1] submit, runtime, estimate, keys, bkeys
    cdef bint by_order
    cdef _Ranked* ranked
    cdef Py_ssize_t rcap
    cdef long long[::1] procs, ids, qseq
    cdef const unsigned char[::1] bad
    cdef double[::1] start, end
    cdef long long[::1] order
    cdef Py_ssize_t started
    # the scheduler
    cdef long long free, arrivals
    cdef _Entry* queue
    cdef Py_ssize_t qn, qcap
    cdef _End* ends
    cdef Py_ssize_t en, ecap
    cdef bint has_res
    cdef long long res_row
    cdef double res_start
    cdef unsigned char* taken
    cdef Py_ssize_t tcap
    # the simulator
    cdef _Event* heap
    cdef Py_ssize_t hn, hcap
    cdef long long seq
    cdef double* log
    cdef Py_ssize_t ln, lcap
    cdef public double now
    cdef double max_clock

    def __cinit__(self):
        self.queue = NULL
        self.ends = NULL
        self.heap = NULL
        self.log = NULL
        self.taken = NULL
        self.ranked = NULL

    def __init__(self, int scheduler, str key, backfill_order, submit, runtime, estimate, processors,
                 ids, bad, long long machine_size, bint record, double max_clock):
        if scheduler not in (FCFS, EASY):
            raise ValueError(f"no such scheduler: {scheduler}")
        self.kind = scheduler
        self.record = record
        self.max_clock = max_clock
        self.size = machine_size
        self.submit = np.ascontiguousarray(submit, dtype=np.float64)
        self.runtime = np.ascontiguousarray(runtime, dtype=np.float64)
        self.estimate = np.ascontiguousarray(estimate, dtype=np.float64)
        self.procs = np.ascontiguousarray(processors, dtype=np.int64)
        self.ids = np.ascontiguousarray(ids, dtype=np.int64)
        self.bad = np.ascontiguousarray(bad, dtype=np.uint8)
        self.n = len(self.submit)
        est, width = np.asarray(self.estimate), np.asarray(self.procs)
        self.keys = np.ascontiguousarray(_keys_of(key, np.asarray(self.submit), est, width))
        self.by_order = backfill_order is not None
        if self.by_order:
            if scheduler != EASY:
                raise ValueError("a backfill order is EASY's")
            self.bkeys = np.ascontiguousarray(_keys_of(backfill_order, np.asarray(self.submit), est, width))
        self.rcap = 0
        self.qseq = np.zeros(self.n, dtype=np.int64)
        self.start = np.full(self.n, np.nan)
        self.end = np.full(self.n, np.nan)
        self.order = np.zeros(self.n, dtype=np.int64)
        self.started = 0
        self.next_row = 0
        self.free = machine_size
        self.arrivals = 0
        self.qn = self.qcap = self.en = self.ecap = self.hn = self.hcap = self.ln = self.lcap = 0
        self.tcap = 0
        self.has_res = False
        self.res_row = -1
        self.res_start = 0.0
        self.seq = 0
        self.now = -np.inf

    def __dealloc__(self):
        c_free(self.queue)
        c_free(self.ends)
        c_free(self.heap)
        c_free(self.log)
        c_free(self.taken)
        c_free(self.ranked)

    # -- the simulator (Simulator._advance, _step, _settle, _complete_due, _start_jobs) ---------------

    def advance(self, double stop):
        """Process every instant before ``stop`` (every one if it is infinite).

        Returns False, having processed nothing of it, at the first instant past ``max_clock``: there
        the reference's scheduler refuses the completion (its door), which the caller reproduces by
        running the Python path. True otherwise.
        """
        cdef double t
        while True:
            t = self.heap[0].time if self.hn else INFINITY
            if self.next_row < self.n and self.submit[self.next_row] < t:
                t = self.submit[self.next_row]
            if t >= stop or t == INFINITY:
                return True
            if t > self.max_clock:
                return False
            self._step(t)

    def queued(self):
        """How many submitted jobs have not started."""
        return self.qn

    def results(self):
        """(start, end, start order, flat log of (time, job id, start) triples) as numpy arrays."""
        log = np.empty(self.ln, dtype=np.float64)
        cdef double[::1] out = log
        cdef Py_ssize_t i
        for i in range(self.ln):
            out[i] = self.log[i]
        return (np.asarray(self.start).copy(), np.asarray(self.end).copy(),
                np.asarray(self.order)[:self.started].copy(), log)

    cdef void _step(self, double now) except *:
        self.now = now
        self._complete_due(now)
        cdef Py_ssize_t i = self.next_row
        while i < self.n and self.submit[i] == now:
            if not self.bad[i]:
                self._enqueue(i)
            i += 1
        self.next_row = i
        while True:
            if self.kind == EASY:
                self._schedule_easy(now)
            else:
                self._schedule_fcfs(now)
            if self.hn and self.heap[0].time == now:
                self._complete_due(now)
                continue
            break

    cdef void _complete_due(self, double now) except *:
        cdef long long row
        while self.hn and self.heap[0].time == now:
            row = self._pop()
            self.end[row] = now
            # the scheduler's complete(): free the processors, forget the planned end
            self.free += self.procs[row]
            if self.kind == EASY:
                self._remove_end(row)

    cdef void _start(self, long long row, double now) except *:
        """QueueScheduler._start (and EASY's insort of the planned end), then the simulator's start."""
        cdef long long p = self.procs[row]
        self.free -= p
        if self.kind == EASY:
            self._insert_end(now + self.estimate[row], self.qseq[row], p)
        self.start[row] = now
        self.order[self.started] = row
        self.started += 1
        self.seq += 1
        self._push(now + self.runtime[row], self.seq, row)

    cdef void _note(self, double now, long long row, double start) except *:
        if not self.record:
            return
        self.log = <double*>_grow(self.log, &self.lcap, self.ln + 3, sizeof(double))
        self.log[self.ln] = now
        self.log[self.ln + 1] = <double>self.ids[row]
        self.log[self.ln + 2] = start
        self.ln += 3

    # -- the queue (QueueScheduler._enqueue, _dequeue, over a SortedList of (key, seq, job)) ----------

    cdef void _enqueue(self, Py_ssize_t row) except *:
        self.arrivals += 1
        self.qseq[row] = self.arrivals
        cdef _Entry e
        e.key = self.keys[row]
        e.seq = self.arrivals
        e.row = row
        self.queue = <_Entry*>_grow(self.queue, &self.qcap, self.qn + 1, sizeof(_Entry))
        # bisect_right: the entry goes after every entry not greater (its seq is the largest).
        cdef Py_ssize_t lo = 0, hi = self.qn, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if _entry_less(e, self.queue[mid]):
                hi = mid
            else:
                lo = mid + 1
        if lo < self.qn:
            memmove(&self.queue[lo + 1], &self.queue[lo], (self.qn - lo) * sizeof(_Entry))
        self.queue[lo] = e
        self.qn += 1

    cdef void _room_for_marks(self) except *:
        """A zeroed mark per queued entry (_dequeue clears the marks it reads)."""
        cdef Py_ssize_t old = self.tcap
        self.taken = <unsigned char*>_grow(self.taken, &self.tcap, self.qn + 1, 1)
        if self.tcap > old:
            memset(self.taken + old, 0, self.tcap - old)

    cdef void _dequeue(self, Py_ssize_t first) except *:
        """Drop the marked entries from ``first`` on, keeping the order of the rest."""
        cdef Py_ssize_t k, w = first
        for k in range(first, self.qn):
            if self.taken[k]:
                self.taken[k] = 0
            else:
                self.queue[w] = self.queue[k]
                w += 1
        self.qn = w

    # -- the planned ends of running jobs (EASY._ends, kept with bisect) -------------------------------

    cdef void _insert_end(self, double end, long long seq, long long procs) except *:
        cdef _End e
        e.end = end
        e.seq = seq
        e.procs = procs
        self.ends = <_End*>_grow(self.ends, &self.ecap, self.en + 1, sizeof(_End))
        cdef Py_ssize_t lo = 0, hi = self.en, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if _end_less(e, self.ends[mid]):
                hi = mid
            else:
                lo = mid + 1
        if lo < self.en:
            memmove(&self.ends[lo + 1], &self.ends[lo], (self.en - lo) * sizeof(_End))
        self.ends[lo] = e
        self.en += 1

    cdef void _remove_end(self, long long row) except *:
        cdef _End e
        e.end = self.start[row] + self.estimate[row]
        e.seq = self.qseq[row]
        cdef Py_ssize_t lo = 0, hi = self.en, mid
        while lo < hi:  # bisect_left
            mid = (lo + hi) >> 1
            if _end_less(self.ends[mid], e):
                lo = mid + 1
            else:
                hi = mid
        if lo >= self.en or self.ends[lo].seq != e.seq:
            raise AssertionError(f"no planned end for row {row}")
        memmove(&self.ends[lo], &self.ends[lo + 1], (self.en - lo - 1) * sizeof(_End))
        self.en -= 1

    # -- the completions (the simulator's heap of (time, kind 0, seq, row)) ---------------------------

    cdef void _push(self, double time, long long seq, long long row) except *:
        self.heap = <_Event*>_grow(self.heap, &self.hcap, self.hn + 1, sizeof(_Event))
        cdef _Event e
        e.time = time
        e.seq = seq
        e.row = row
        cdef Py_ssize_t i = self.hn, parent
        self.hn += 1
        while i > 0:
            parent = (i - 1) >> 1
            if not _event_less(e, self.heap[parent]):
                break
            self.heap[i] = self.heap[parent]
            i = parent
        self.heap[i] = e

    cdef long long _pop(self):
        cdef long long row = self.heap[0].row
        self.hn -= 1
        cdef _Event last = self.heap[self.hn]
        cdef Py_ssize_t i = 0, child
        while True:
            child = 2 * i + 1
            if child >= self.hn:
                break
            if child + 1 < self.hn and _event_less(self.heap[child + 1], self.heap[child]):
                child += 1
            if not _event_less(self.heap[child], last):
                break
            self.heap[i] = self.heap[child]
            i = child
        if self.hn:
            self.heap[i] = last
        return row

    # -- the schedulers' decisions --------------------------------------------------------------------

    cdef void _schedule_fcfs(self, double now) except *:
        """FCFS.schedule: start queue heads while they fit."""
        cdef Py_ssize_t k = 0
        cdef long long row
        while k < self.qn:
            row = self.queue[k].row
            if self.procs[row] > self.free:
                break
            self._start(row, now)
            k += 1
        if k:
            memmove(&self.queue[0], &self.queue[k], (self.qn - k) * sizeof(_Entry))
            self.qn -= k

    cdef void _schedule_easy(self, double now) except *:
        """EASY.schedule, the plain path: start in order, reserve for the head, backfill the rest."""
        self._room_for_marks()
        cdef Py_ssize_t k = 0, head = -1, first = -1
        cdef long long row, p
        # 1. Jobs start in queue order while they fit; the previous head loses its reservation if a
        # job ahead of it starts first.
        cdef bint previous = self.has_res, overtaken = False
        cdef long long prev_row = self.res_row
        while k < self.qn:
            row = self.queue[k].row
            if self.procs[row] <= self.free:
                self._start(row, now)
                self.taken[k] = 1
                if first < 0:
                    first = k
                if previous and row == prev_row:
                    previous = False
                elif previous:
                    overtaken = True
                k += 1
            else:
                head = k
                break
        # 2. The head's reservation at its shadow time, and the extra processors then.
        cdef bint old_has = self.has_res
        cdef long long old_row = self.res_row
        cdef double old_start = self.res_start
        cdef double shadow = 0.0
        cdef long long extra = 0, avail, need
        cdef bint found
        cdef Py_ssize_t j
        cdef long long head_row = -1
        if head >= 0:
            head_row = self.queue[head].row
            need = self.procs[head_row]
            avail = self.free
            found = False
            for j in range(self.en):
                if found and self.ends[j].end > shadow:
                    break
                avail += self.ends[j].procs
                if not found and avail >= need:
                    shadow = self.ends[j].end
                    found = True
            if not found:
                raise AssertionError("a job no wider than the machine always fits once all jobs end")
            extra = avail - need
        # _log_changes
        if previous and (overtaken or head < 0 or head_row != prev_row):
            self._note(now, prev_row, NAN)
            old_has = False
        if head >= 0 and not (old_has and old_row == head_row and old_start == shadow):
            self._note(now, head_row, shadow)
        self.has_res = head >= 0
        self.res_row = head_row
        self.res_start = shadow
        # 3. Backfill the jobs behind the head, in queue order or, given a backfill order, stably
        # sorted by its key (ties keep the queue order).
        cdef long long f
        cdef Py_ssize_t i, count = 0
        if head >= 0:
            if self.by_order:
                count = self.qn - head - 1
                self.ranked = <_Ranked*>_grow(self.ranked, &self.rcap, count + 1, sizeof(_Ranked))
                for i in range(count):
                    self.ranked[i].pos = head + 1 + i
                    self.ranked[i].key = self.bkeys[self.queue[head + 1 + i].row]
                qsort(self.ranked, count, sizeof(_Ranked), _ranked_cmp)
            f = self.free
            for i in range(self.qn - head - 1):
                if f == 0:
                    break
                j = self.ranked[i].pos if self.by_order else head + 1 + i
                row = self.queue[j].row
                p = self.procs[row]
                if p > f:
                    continue
                if now + self.estimate[row] <= shadow:
                    pass
                elif p <= extra:
                    extra -= p
                else:
                    continue
                self._start(row, now)
                f -= p
                self.taken[j] = 1
                if first < 0 or j < first:
                    first = j
        if first >= 0:
            self._dequeue(first)
