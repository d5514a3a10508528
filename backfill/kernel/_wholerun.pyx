# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Whole runs in C: the simulator's event loop with FCFS, EASY, Conservative, PC or DC deciding.

A port of the pure-Python path that stays the reference, decision for decision: the event loop of
:class:`backfill.simulator.Simulator` (``_step``, ``_settle``, ``_complete_due``, ``_start_jobs``,
and ``fork`` and ``_deliver_late`` for fair start times; wake-ups only for PC and DC, the ones of
these schedulers that ask for them) driving :class:`backfill.schedulers.FCFS`, the plain path of
:class:`backfill.schedulers.EASY` at depth 1 (``schedule``, ``_shadow``, ``_backfill``,
``_log_changes``, ``complete``) or its deep path at depth k, over a queue ordered by a static
priority key (``fcfs``, ``sjf``, ``ljf``, ``wjf``, ``njf``) with ties by arrival and EASY's backfill
order if it is one of them, :class:`backfill.schedulers.Conservative` (``submit``, ``complete``,
``schedule`` and its accelerated compression, ``LongQueueConservative._compress_long_queue``),
:class:`backfill.schedulers.PC` under such a key (``submit``, ``complete``, ``schedule``,
``next_wakeup``, and its accelerated compression ``LongQueueCompression._compress_long_queue``,
ported in ``_guarantee.pxd``), or :class:`backfill.schedulers.DC` under such a key (``submit``,
``_admit``, ``complete``, ``schedule``, ``next_wakeup``, the same compression under the arriving
job's cap, and its hole filling ``LongQueueCompression._fill_long_queue``, ported in ``_dc_fill.pxd``)
over a profile of C arrays (``_profile.pxd``). Every comparison is the reference's on the same IEEE
doubles, and the log is written as the simulator writes it, so starts, their order, the reservation
log, the events examined of Conservative, PC and DC and the moves of PC and DC are identical
(``tests/test_wholerun.py``, ``tests/test_compiled_forks.py``; the schedule digests of the archive
traces). What may run here is decided by ``backfill.kernel._runs``; nothing imports this module
directly.

This file holds the run itself (the state, the event loop, the queue, the planned ends, the
completions, forks and pickling); the schedulers' decisions are functions of the run in two files it
includes, so that they compile into this one module: ``_queue_runs.pxi`` (FCFS, EASY at depth 1 and
at depth k) and ``_guarantee_runs.pxi`` (Conservative, PC and DC, and the wake-ups PC and DC ask
for).

The state is plain C arrays: the queue as a sorted array of (key, arrival, row) (for Conservative
the key is the planned start; PC and DC keep each queued job's guarantee and search range in a
parallel array), the running jobs' planned ends as a sorted array of (end, arrival,
processors), and the completions as a binary heap of (time, start sequence, row), each ordered
exactly as the reference's tuples are. A fork copies them; a fork for fair start times records no
schedule, only when the row it watches starts.
"""

from libc.math cimport INFINITY, NAN
from libc.stdlib cimport free as c_free
from libc.stdlib cimport malloc, qsort, realloc
from libc.string cimport memcpy, memmove, memset

from backfill.kernel._profile cimport (
    Freed,
    Steps,
    freed_pop,
    freed_push,
    steps_add,
    steps_advance,
    steps_copy,
    steps_earliest_fit,
    steps_earliest_move,
    steps_free_memory,
    steps_init,
    steps_min_free,
    steps_move,
    steps_release,
    steps_reserve,
)
from backfill.kernel._dc_fill cimport fill
from backfill.kernel._guarantee cimport (
    FreedLog,
    Guar,
    PCWork,
    compress,
    log_push,
    trim,
    work_free,
    work_init,
    work_queue_room,
)

import numpy as np


cdef struct _Entry:
    double key
    long long seq
    long long row


cdef struct _End:
    double end
    long long seq
    long long procs


cdef struct _Held:
    double key
    long long seq
    long long row
    double start


cdef struct _Ranked:
    double key
    Py_ssize_t pos


cdef struct _Event:
    double time
    long long seq
    long long row
    double planned   # the job's planned end (start + estimate), as the scheduler holds it
    long long qseq   # the job's arrival sequence in the scheduler's queue


# Which scheduler decides.
FCFS = 0
EASY = 1
CONSERVATIVE = 2
EASY_DEEP = 3
PC = 4
DC = 5
# Which static key orders the queue (the built-in priorities of that name).
KEYS = ("fcfs", "sjf", "ljf", "wjf", "njf")


cdef inline bint _entry_less(_Entry a, _Entry b):
    # The reference compares (key, seq, job) tuples; seq is unique, so the job is never compared.
    return a.key < b.key or (a.key == b.key and a.seq < b.seq)


cdef inline bint _end_less(_End a, _End b):
    return a.end < b.end or (a.end == b.end and a.seq < b.seq)


cdef inline bint _event_less(_Event a, _Event b):
    return a.time < b.time or (a.time == b.time and a.seq < b.seq)


cdef int _entry_cmp(const void* x, const void* y) noexcept nogil:
    cdef const _Entry* a = <const _Entry*>x
    cdef const _Entry* b = <const _Entry*>y
    if a.key < b.key or (a.key == b.key and a.seq < b.seq):
        return -1
    if b.key < a.key or (a.key == b.key and b.seq < a.seq):
        return 1
    return 0


cdef inline _Entry _key_of(_Held h) noexcept:
    cdef _Entry e
    e.key = h.key
    e.seq = h.seq
    e.row = h.row
    return e


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


cdef void* _copied(void* src, Py_ssize_t count, size_t item, Py_ssize_t* n, Py_ssize_t* cap) except NULL:
    """A new allocation holding ``count`` items of ``src`` (room for at least one)."""
    cdef void* out = malloc((count if count else 1) * item)
    if out == NULL:
        raise MemoryError()
    if count:
        memcpy(out, src, count * item)
    n[0] = count
    cap[0] = count if count else 1
    return out


cdef bytes _bytes(void* data, Py_ssize_t size):
    if size == 0:
        return b""
    return (<char*>data)[:size]


cdef class QueueRun:
    """One simulation of FCFS, EASY, Conservative, PC or DC over prepared arrays, run like the simulator.

    Args:
        scheduler: ``FCFS``, ``EASY``, ``CONSERVATIVE``, ``EASY_DEEP``, ``PC`` or ``DC`` (this
            module's constants).
        key: The priority's name, one of ``KEYS`` (Conservative has none: its queue is by planned start).
        backfill_order: EASY's backfill order, a name of ``KEYS`` or None (queue order).
        submit, runtime, estimate: Per row, as the simulator prepared them (overrun policy applied).
        processors, ids: Per row.
        bad: Per row, 1 for a job the simulator rejected (never submitted).
        machine_size: Processors of the machine.
        record: Whether to keep the reservation log.
        max_clock: The latest time a scheduler accepts (``backfill.workloads.limits.MAX_CLOCK``).
        depth: EASY's depth (None: every queued job).
        restart: PC's ``restart``.
        narrow, per_width, trim: PC's and DC's thresholds (``_long_queues.NARROW``, ``PER_WIDTH``, ``TRIM``).
    """

    cdef int kind
    cdef bint record
    cdef long long size
    cdef Py_ssize_t n, next_row
    cdef double[::1] submit, runtime, estimate, keys, bkeys
    cdef bint by_order
    cdef _Ranked* ranked
    cdef Py_ssize_t rcap
    cdef long long[::1] procs, ids
    cdef const unsigned char[::1] bad
    cdef double[::1] start, end
    cdef long long[::1] order
    cdef Py_ssize_t started
    # A fork for fair start times records no schedule, only when one watched row starts.
    cdef bint outputs
    cdef long long watch_row
    cdef public double watched
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
    # Conservative: the profile, and the intervals freed since the last compression
    cdef Steps prof
    cdef bint dirty
    cdef Freed* freed
    cdef Py_ssize_t fn, fcap
    cdef Freed* pending
    cdef Py_ssize_t pcap
    cdef _Entry* scratch
    cdef Py_ssize_t scap
    # EASY at depth k (the deep path): the pass's plan, its reservations in pass order, the last one
    # (the head) and the smallest arrival since that came ahead of it
    cdef Steps plan
    cdef long long limit
    cdef _Held* held
    cdef Py_ssize_t holdn, holdcap
    cdef _Held* old
    cdef Py_ssize_t oldcap
    cdef bint has_head, has_over
    cdef _Entry head, over
    # PC and DC: each queued job's guarantee and search range, at its queue position; the freed log;
    # the earliest guarantee; the compression's arrays (DC's idle check is ``dirty``)
    cdef Guar* guar
    cdef Py_ssize_t gcap
    cdef FreedLog flog
    cdef double due
    cdef long long nmoves
    cdef bint restart
    cdef Py_ssize_t narrow, per_width, trim
    cdef PCWork work
    cdef double* wakes
    cdef Py_ssize_t wn, wcap
    cdef double last_wake
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
        self.freed = NULL
        self.pending = NULL
        self.scratch = NULL
        self.prof.t = NULL
        self.prof.f = NULL
        self.plan.t = NULL
        self.plan.f = NULL
        self.held = NULL
        self.old = NULL
        self.guar = NULL
        self.gcap = 0
        self.flog.v = NULL
        self.flog.n = self.flog.cap = 0
        self.flog.base = 0
        work_init(&self.work)
        self.wakes = NULL
        self.wn = self.wcap = 0
        self.last_wake = NAN

    def __init__(self, int scheduler, str key, backfill_order, submit, runtime, estimate, processors,
                 ids, bad, long long machine_size, bint record, double max_clock, depth=1, restart=True,
                 narrow=64, per_width=16, trim=512):
        if scheduler not in (FCFS, EASY, CONSERVATIVE, EASY_DEEP, PC, DC):
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
        self._fresh_outputs()
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
        self.dirty = False
        self.fn = self.fcap = self.pcap = self.scap = 0
        self.due = INFINITY
        self.nmoves = 0
        self.restart = restart
        self.narrow = narrow
        self.per_width = per_width
        self.trim = trim
        if scheduler == CONSERVATIVE or scheduler == EASY_DEEP or scheduler == PC or scheduler == DC:
            # Simulator.__init__ resets the scheduler at the first submit time.
            steps_init(&self.prof, machine_size, self.submit[0] if self.n else 0.0)
        # A depth past any queue's length is no limit (and past C's long long would not convert).
        self.limit = (1 << 62) if depth is None or depth >= (1 << 62) else depth
        self.holdn = self.holdcap = self.oldcap = 0
        self.has_head = self.has_over = False

    def __dealloc__(self):
        c_free(self.queue)
        c_free(self.ends)
        c_free(self.heap)
        c_free(self.log)
        c_free(self.taken)
        c_free(self.ranked)
        c_free(self.freed)
        c_free(self.pending)
        c_free(self.scratch)
        steps_free_memory(&self.prof)
        steps_free_memory(&self.plan)
        c_free(self.held)
        c_free(self.old)
        c_free(self.guar)
        c_free(self.flog.v)
        work_free(&self.work)
        c_free(self.wakes)

    cdef void _fresh_outputs(self) except *:
        cdef Py_ssize_t rows = self.submit.shape[0]
        self.outputs = True
        self.start = np.full(rows, np.nan)
        self.end = np.full(rows, np.nan)
        self.order = np.zeros(rows, dtype=np.int64)
        self.started = 0
        self.watch_row = -1
        self.watched = NAN

    # -- the simulator (Simulator._advance, _step, _settle, _complete_due, _start_jobs) ---------------

    def advance(self, double stop):
        """Process every instant before ``stop`` (every one if it is infinite).

        Returns False, having processed nothing of it, at the first instant past ``max_clock``: there
        the reference's scheduler refuses the completion (its door), which the caller reproduces by
        running the Python path. True otherwise.
        """
        cdef double t
        while True:
            t = self._next_time()
            if t >= stop or t == INFINITY:
                return True
            if t > self.max_clock:
                return False
            self._step(t)

    def queued(self):
        """How many submitted jobs have not started."""
        return self.qn

    def step(self):
        """Process the next instant: 1, or 0 if nothing was left, or -1 (nothing done) past ``max_clock``."""
        cdef double t = self._next_time()
        if t == INFINITY:
            return 0
        if t > self.max_clock:
            return -1
        self._step(t)
        return 1

    @property
    def next_row(self):
        """The row of the next arrival (the workload's length, or the fork's last arrival + 1, when none)."""
        return self.next_row

    def queued_ids(self):
        """The ids of the queued jobs, in the scheduler's queue order."""
        return [self.ids[self.queue[k].row] for k in range(self.qn)]

    def watch(self, long long row):
        """Note when ``row`` starts from now on, in :attr:`watched` (NaN until then); watching the
        row already watched changes nothing."""
        if row != self.watch_row:
            self.watch_row = row
            self.watched = NAN

    def stop_recording(self):
        """Keep no reservation log from now on."""
        self.record = False

    def deliver_late(self, Py_ssize_t row):
        """Submit ``row``, an arrival this fork dropped, at :attr:`now`, and settle the instant.

        The job keeps its submit time (a priority still sees when it really arrived); only the moment
        the scheduler learns of it is late (``Simulator._deliver_late``; relaxed fair start times).
        """
        if row < self.n or row >= self.submit.shape[0] or self.bad[row]:
            raise ValueError(f"row {row} cannot be delivered late")
        self._submit(row, self.now)
        self._settle(self.now)

    def fork(self, last_arrival=None):
        """An independent copy between two instants, as ``Simulator.fork``: its records start empty.

        With ``last_arrival`` (a row), arrivals after that row are dropped and the copy records no
        schedule, only the start of a watched row (:meth:`watch`): a fork for fair start times costs
        a copy of the queue, the running jobs, the pending completions and the profile, no more.
        """
        cdef QueueRun o = QueueRun.__new__(QueueRun)
        o._copy_inputs(self)
        o._copy_state(self)
        if last_arrival is None:
            o._fresh_outputs()
        else:
            o.n = min(self.n, <Py_ssize_t>last_arrival + 1)
            o.outputs = False
            o.started = 0
            o.watch_row = -1
            o.watched = NAN
        return o

    cdef void _copy_inputs(self, QueueRun src) except *:
        self.kind = src.kind
        self.record = src.record
        self.max_clock = src.max_clock
        self.size = src.size
        self.n = src.n
        self.submit = src.submit
        self.runtime = src.runtime
        self.estimate = src.estimate
        self.keys = src.keys
        self.by_order = src.by_order
        if src.by_order:
            self.bkeys = src.bkeys
        self.procs = src.procs
        self.ids = src.ids
        self.bad = src.bad
        self.restart = src.restart
        self.narrow = src.narrow
        self.per_width = src.per_width
        self.trim = src.trim

    cdef void _copy_state(self, QueueRun src) except *:
        self.next_row = src.next_row
        self.free = src.free
        self.arrivals = src.arrivals
        self.has_res = src.has_res
        self.res_row = src.res_row
        self.res_start = src.res_start
        self.seq = src.seq
        self.now = src.now
        self.dirty = src.dirty
        self.rcap = self.tcap = self.pcap = self.scap = 0
        self.ln = self.lcap = 0
        self.queue = <_Entry*>_copied(src.queue, src.qn, sizeof(_Entry), &self.qn, &self.qcap)
        self.ends = <_End*>_copied(src.ends, src.en, sizeof(_End), &self.en, &self.ecap)
        self.heap = <_Event*>_copied(src.heap, src.hn, sizeof(_Event), &self.hn, &self.hcap)
        self.freed = <Freed*>_copied(src.freed, src.fn, sizeof(Freed), &self.fn, &self.fcap)
        self.limit = src.limit
        self.has_head = src.has_head
        self.has_over = src.has_over
        self.head = src.head
        self.over = src.over
        self.held = <_Held*>_copied(src.held, src.holdn, sizeof(_Held), &self.holdn, &self.holdcap)
        self.oldcap = 0
        self.due = src.due
        self.nmoves = src.nmoves
        self.last_wake = src.last_wake
        self.wakes = <double*>_copied(src.wakes, src.wn, sizeof(double), &self.wn, &self.wcap)
        if src.kind == PC or src.kind == DC:
            self.guar = <Guar*>_copied(src.guar, src.qn, sizeof(Guar), &self.qn, &self.gcap)
            self.flog.v = <Freed*>_copied(src.flog.v, src.flog.n, sizeof(Freed), &self.flog.n, &self.flog.cap)
            self.flog.base = src.flog.base
        if src.kind == CONSERVATIVE or src.kind == EASY_DEEP or src.kind == PC or src.kind == DC:
            self.prof.t = <double*>_copied(src.prof.t, src.prof.n, sizeof(double), &self.prof.n, &self.prof.cap)
            self.prof.f = <long long*>_copied(src.prof.f, src.prof.n, sizeof(long long), &self.prof.n,
                                              &self.prof.cap)
            self.prof.capacity = src.prof.capacity
            self.prof.examined = src.prof.examined

    def __reduce__(self):
        # Worker processes of fair_start_times receive a run as a pickle: its inputs as numpy arrays,
        # its state as the bytes of its C arrays.
        arrays = {"submit": np.asarray(self.submit), "runtime": np.asarray(self.runtime),
                  "estimate": np.asarray(self.estimate), "keys": np.asarray(self.keys),
                  "procs": np.asarray(self.procs), "ids": np.asarray(self.ids), "bad": np.asarray(self.bad)}
        if self.by_order:
            arrays["bkeys"] = np.asarray(self.bkeys)
        if self.outputs:
            arrays |= {"start": np.asarray(self.start), "end": np.asarray(self.end),
                       "order": np.asarray(self.order)}
        scalars = (self.kind, self.record, self.max_clock, self.size, self.n, self.by_order,
                   self.next_row, self.free, self.arrivals, self.has_res, self.res_row, self.res_start,
                   self.seq, self.now, self.dirty, self.outputs, self.started, self.watch_row, self.watched,
                   self.prof.capacity, self.prof.examined, self.limit, self.has_head, self.has_over,
                   (self.head.key, self.head.seq, self.head.row), (self.over.key, self.over.seq, self.over.row),
                   self.restart, self.narrow, self.per_width, self.trim, self.due, self.nmoves, self.flog.base,
                   self.last_wake)
        blobs = (
            _bytes(self.queue, self.qn * sizeof(_Entry)),
            _bytes(self.ends, self.en * sizeof(_End)),
            _bytes(self.heap, self.hn * sizeof(_Event)),
            _bytes(self.freed, self.fn * sizeof(Freed)),
            _bytes(self.log, self.ln * sizeof(double)),
            _bytes(self.prof.t, self.prof.n * sizeof(double)),
            _bytes(self.prof.f, self.prof.n * sizeof(long long)),
            _bytes(self.held, self.holdn * sizeof(_Held)),
            _bytes(self.guar, (self.qn if self.kind == PC or self.kind == DC else 0) * sizeof(Guar)),
            _bytes(self.flog.v, self.flog.n * sizeof(Freed)),
            _bytes(self.wakes, self.wn * sizeof(double)),
        )
        return (_restored, (arrays, scalars, blobs))

    def examined(self):
        """The ``events_examined`` of Conservative, PC and DC: the profile steps their searches looked at."""
        return self.prof.examined

    def moves(self):
        """PC's and DC's ``moves``: how many times a queued job moved earlier."""
        return self.nmoves

    def results(self):
        """(start, end, start order, flat log of (time, job id, start) triples) as numpy arrays."""
        log = np.empty(self.ln, dtype=np.float64)
        cdef double[::1] out = log
        cdef Py_ssize_t i
        for i in range(self.ln):
            out[i] = self.log[i]
        return (np.asarray(self.start).copy(), np.asarray(self.end).copy(),
                np.asarray(self.order)[:self.started].copy(), log)

    cdef double _next_time(self) noexcept:
        """Simulator.next_time: the next completion, arrival or wake-up (INFINITY when none)."""
        cdef double t = self.heap[0].time if self.hn else INFINITY
        if self.next_row < self.n and self.submit[self.next_row] < t:
            t = self.submit[self.next_row]
        if self.wn and self.wakes[0] < t:
            t = self.wakes[0]
        return t

    cdef void _step(self, double now) except *:
        self.now = now
        self._complete_due(now)
        cdef Py_ssize_t i = self.next_row
        while i < self.n and self.submit[i] == now:
            if not self.bad[i]:
                self._submit(i, now)
            i += 1
        self.next_row = i
        while self.wn and self.wakes[0] == now:
            _pop_wake(self)
        self._settle(now)

    cdef void _submit(self, Py_ssize_t row, double now) except *:
        cdef _Entry e
        if self.kind == CONSERVATIVE:
            _arrive(self, row, now)
            return
        if self.kind == PC:
            _arrive_pc(self, row, now)
            return
        if self.kind == DC:
            _arrive_dc(self, row, now)
            return
        self._enqueue(row)
        if self.kind == EASY_DEEP and self.has_head:
            # A static entry sorting before the last reservation comes ahead of it (EASY.submit).
            e.key = self.keys[row]
            e.seq = self.arrivals
            if _entry_less(e, self.head) and (not self.has_over or _entry_less(e, self.over)):
                self.over = e
                self.has_over = True

    cdef void _settle(self, double now) except *:
        """Schedule until nothing more starts (a job of zero runtime ends in the instant it starts)."""
        while True:
            if self.kind == EASY:
                _schedule_easy(self, now)
            elif self.kind == EASY_DEEP:
                _schedule_deep(self, now)
            elif self.kind == CONSERVATIVE:
                _schedule_conservative(self, now)
            elif self.kind == PC:
                _schedule_pc(self, now)
            elif self.kind == DC:
                _schedule_dc(self, now)
            else:
                _schedule_fcfs(self, now)
            if self.hn and self.heap[0].time == now:
                self._complete_due(now)
                continue
            break
        if (self.kind == PC or self.kind == DC) and self.due > now and self.due != INFINITY:
            # PC's and DC's next_wakeup: a job must start at its guarantee even if nothing else
            # happens then.
            _wake_at(self, self.due)

    cdef void _complete_due(self, double now) except *:
        cdef _Event e
        while self.hn and self.heap[0].time == now:
            e = self._pop()
            if self.outputs:
                self.end[e.row] = now
            # the scheduler's complete(): free the processors, forget the planned end
            self.free += self._held_procs(e.row)
            if self.kind == EASY:
                self._remove_end(e.planned, e.qseq)
            elif self.kind == EASY_DEEP:
                # the deep path's profile gives back what the job would have used after now
                if now < e.planned:
                    steps_release(&self.prof, now, e.planned, self._held_procs(e.row))
            elif self.kind == CONSERVATIVE:
                _complete_conservative(self, e.row, e.planned, now)
            elif self.kind == PC:
                _complete_pc(self, e.row, e.planned, now)
            elif self.kind == DC:
                _complete_dc(self, e.row, e.planned, now)

    cdef void _start(self, _Entry* entry, double now) except *:
        """QueueScheduler._start (and EASY's insort of the planned end), then the simulator's start."""
        cdef long long row = entry.row, p = self._held_procs(row)
        cdef double planned = now + self.estimate[row]
        self.free -= p
        if self.kind == EASY:
            self._insert_end(planned, entry.seq, p)
        if self.outputs:
            self.start[row] = now
            self.order[self.started] = row
        if row == self.watch_row:
            self.watched = now
        self.started += 1
        self.seq += 1
        self._push(now + self.runtime[row], self.seq, row, planned, entry.seq)

    cdef inline long long _held_procs(self, long long row) noexcept:
        """The processors a running job holds: on EASY's deep path a job of zero estimate holds none."""
        if self.kind == EASY_DEEP and not self.estimate[row] > 0:
            return 0
        return self.procs[row]

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
        self._insert(self.keys[row], self.arrivals, row)

    cdef Py_ssize_t _insert(self, double key, long long seq, long long row) except -1:
        """SortedList.add of (key, seq, job), seq the largest so far; returns its position."""
        cdef _Entry e
        e.key = key
        e.seq = seq
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
        return lo

    cdef void _drop_head(self, Py_ssize_t k) noexcept:
        """Drop the first ``k`` entries (the jobs just started), keeping the order of the rest."""
        if k:
            memmove(&self.queue[0], &self.queue[k], (self.qn - k) * sizeof(_Entry))
            self.qn -= k

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

    cdef void _remove_end(self, double planned, long long qseq) except *:
        cdef _End e
        e.end = planned
        e.seq = qseq
        cdef Py_ssize_t lo = 0, hi = self.en, mid
        while lo < hi:  # bisect_left
            mid = (lo + hi) >> 1
            if _end_less(self.ends[mid], e):
                lo = mid + 1
            else:
                hi = mid
        if lo >= self.en or self.ends[lo].seq != e.seq:
            raise AssertionError(f"no planned end {planned} of arrival {qseq}")
        memmove(&self.ends[lo], &self.ends[lo + 1], (self.en - lo - 1) * sizeof(_End))
        self.en -= 1

    # -- the completions (the simulator's heap of (time, kind 0, seq, row)) ---------------------------

    cdef void _push(self, double time, long long seq, long long row, double planned, long long qseq) except *:
        self.heap = <_Event*>_grow(self.heap, &self.hcap, self.hn + 1, sizeof(_Event))
        cdef _Event e
        e.time = time
        e.seq = seq
        e.row = row
        e.planned = planned
        e.qseq = qseq
        cdef Py_ssize_t i = self.hn, parent
        self.hn += 1
        while i > 0:
            parent = (i - 1) >> 1
            if not _event_less(e, self.heap[parent]):
                break
            self.heap[i] = self.heap[parent]
            i = parent
        self.heap[i] = e

    cdef _Event _pop(self):
        cdef _Event top = self.heap[0]
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
        return top

def _restored(dict arrays, tuple scalars, tuple blobs):
    """A run rebuilt from ``QueueRun.__reduce__``."""
    cdef QueueRun o = QueueRun.__new__(QueueRun)
    (o.kind, o.record, o.max_clock, o.size, o.n, o.by_order, o.next_row, o.free, o.arrivals,
     o.has_res, o.res_row, o.res_start, o.seq, o.now, o.dirty, o.outputs, o.started, o.watch_row,
     o.watched, o.prof.capacity, o.prof.examined, o.limit, o.has_head, o.has_over, head, over,
     o.restart, o.narrow, o.per_width, o.trim, o.due, o.nmoves, o.flog.base,
     o.last_wake) = scalars
    o.head.key, o.head.seq, o.head.row = head
    o.over.key, o.over.seq, o.over.row = over
    o.submit = arrays["submit"]
    o.runtime = arrays["runtime"]
    o.estimate = arrays["estimate"]
    o.keys = arrays["keys"]
    o.procs = arrays["procs"]
    o.ids = arrays["ids"]
    o.bad = arrays["bad"]
    if o.by_order:
        o.bkeys = arrays["bkeys"]
    if o.outputs:
        o.start = arrays["start"].copy()
        o.end = arrays["end"].copy()
        o.order = arrays["order"].copy()
    cdef const unsigned char[::1] b
    b = blobs[0]
    o.queue = <_Entry*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(_Entry), sizeof(_Entry), &o.qn, &o.qcap)
    b = blobs[1]
    o.ends = <_End*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(_End), sizeof(_End), &o.en, &o.ecap)
    b = blobs[2]
    o.heap = <_Event*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(_Event), sizeof(_Event), &o.hn, &o.hcap)
    b = blobs[3]
    o.freed = <Freed*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(Freed), sizeof(Freed), &o.fn, &o.fcap)
    b = blobs[4]
    o.log = <double*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(double), sizeof(double), &o.ln, &o.lcap)
    b = blobs[5]
    if len(b):
        o.prof.t = <double*>_copied(<void*>&b[0], len(b) // sizeof(double), sizeof(double), &o.prof.n, &o.prof.cap)
        b = blobs[6]
        o.prof.f = <long long*>_copied(<void*>&b[0], len(b) // sizeof(long long), sizeof(long long), &o.prof.n,
                                       &o.prof.cap)
    b = blobs[7]
    o.held = <_Held*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(_Held), sizeof(_Held), &o.holdn,
                             &o.holdcap)
    cdef Py_ssize_t count
    if o.kind == PC or o.kind == DC:
        b = blobs[8]
        o.guar = <Guar*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(Guar), sizeof(Guar), &count,
                                &o.gcap)
        b = blobs[9]
        o.flog.v = <Freed*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(Freed), sizeof(Freed),
                                   &o.flog.n, &o.flog.cap)
        b = blobs[10]
        o.wakes = <double*>_copied(<void*>&b[0] if len(b) else NULL, len(b) // sizeof(double), sizeof(double),
                                   &o.wn, &o.wcap)
    return o


# The schedulers' decisions, as functions of the run (a cdef class body cannot include a file):
# FCFS and EASY at any depth over the queue, and Conservative, PC and DC with their guarantees.
include "_queue_runs.pxi"
include "_guarantee_runs.pxi"
