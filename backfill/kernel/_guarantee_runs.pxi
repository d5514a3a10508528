# Included by _wholerun.pyx (one extension module): the guarantee runs, Conservative, PC and DC, and
# the wake-ups PC and DC ask for, as functions of the QueueRun they decide for (its methods before
# the split).

# -- wake-ups (PC's next_wakeup, its earliest guarantee; the simulator's _WAKEUP events) -----------

cdef void _wake_at(QueueRun self, double time) except *:
    """Push a wake-up (the simulator pushes each pending time once; a repeat changes no instant)."""
    if time == self.last_wake and self.wn:
        return
    self.last_wake = time
    self.wakes = <double*>_grow(self.wakes, &self.wcap, self.wn + 1, sizeof(double))
    cdef Py_ssize_t i = self.wn, parent
    self.wn += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not time < self.wakes[parent]:
            break
        self.wakes[i] = self.wakes[parent]
        i = parent
    self.wakes[i] = time

cdef void _pop_wake(QueueRun self) noexcept:
    self.wn -= 1
    cdef double last = self.wakes[self.wn]
    cdef Py_ssize_t i = 0, child
    while True:
        child = 2 * i + 1
        if child >= self.wn:
            break
        if child + 1 < self.wn and self.wakes[child + 1] < self.wakes[child]:
            child += 1
        if not self.wakes[child] < last:
            break
        self.wakes[i] = self.wakes[child]
        i = child
    if self.wn:
        self.wakes[i] = last

# -- Conservative (Conservative.submit, _arrive, complete, schedule; the accelerated compression) -

cdef void _arrive(QueueRun self, Py_ssize_t row, double now) except *:
    """Conservative.submit: compress if a job ended early, then reserve at the earliest fit."""
    if self.dirty:
        _compress(self, now)
    self.arrivals += 1
    cdef double est = self.estimate[row]
    cdef double start = steps_earliest_fit(&self.prof, now, self.procs[row], est)
    steps_reserve(&self.prof, start, start + est, self.procs[row])
    self._insert(start, self.arrivals, row)
    self._note(now, row, start)

cdef void _complete_conservative(QueueRun self, long long row, double end, double now) except *:
    """Conservative.complete: release the unused part of the reservation (until ``end``, as
    planned at the start), compress later."""
    if now < end:
        steps_release(&self.prof, now, end, self.procs[row])
        self.freed = <Freed*>_grow(self.freed, &self.fcap, self.fn + 1, sizeof(Freed))
        self.freed[self.fn].a = now
        self.freed[self.fn].b = end
        self.fn += 1
        self.dirty = True

cdef void _schedule_conservative(QueueRun self, double now) except *:
    """Conservative.schedule: compress if a job ended early, then start every job now due."""
    if self.dirty:
        _compress(self, now)
    steps_advance(&self.prof, now)
    cdef Py_ssize_t k = 0
    while k < self.qn and self.queue[k].key <= now:
        self._start(&self.queue[k], now)
        k += 1
    self._drop_head(k)

cdef void _compress(QueueRun self, double now) except *:
    """LongQueueConservative._compress_long_queue (as _loops.compress_conservative) on the arrays.

    Every queued job in planned-start order moves to its earliest fit if that is earlier; jobs
    that no interval freed before their start can help, or that a failed job as wide and as long
    rules out, are passed over without a search (see the reference for why that is exact).
    """
    cdef Steps* s = &self.prof
    cdef _Entry* queue = self.queue
    cdef Py_ssize_t n = self.qn, i, j, k, m, nfailed = 0, npending = 0, nmoved = 0
    cdef double start, new = 0.0, est, reach = now, frontier, origin, b, low_e, v0, v1
    cdef long long p, low_p, row
    cdef bint found
    cdef long long fp[4]
    cdef double fe[4]
    cdef double ff[4]
    self._room_for_marks()
    # At most one freed interval per early completion and one per move.
    self.pending = <Freed*>_grow(self.pending, &self.pcap, self.fn + n + 1, sizeof(Freed))
    cdef Freed* pending = self.pending
    for k in range(self.fn):
        if self.freed[k].b > now:
            freed_push(pending, &npending, self.freed[k].a, self.freed[k].b)
    i = 0
    while i < n:
        start = queue[i].key
        while npending and pending[0].a < start:
            b = freed_pop(pending, &npending)
            if b > reach:
                reach = b
        if reach <= now or start <= now:
            i += 1
            continue
        if nfailed and start <= ff[nfailed - 1]:
            # Entries from i on have not moved yet: their keys are the pass's starts.
            j = i + 1
            while j < n and not ff[nfailed - 1] < queue[j].key:
                j += 1
            if j - i > 1:
                low_p = self.procs[queue[i].row]
                low_e = self.estimate[queue[i].row]
                for m in range(i + 1, j):
                    row = queue[m].row
                    if self.procs[row] < low_p:
                        low_p = self.procs[row]
                    if self.estimate[row] < low_e:
                        low_e = self.estimate[row]
                if fp[nfailed - 1] <= low_p and fe[nfailed - 1] <= low_e:
                    i = j
                    continue
        row = queue[i].row
        p = self.procs[row]
        est = self.estimate[row]
        frontier = reach if reach < start else start
        origin = now
        for k in range(nfailed - 1, -1, -1):
            if fp[k] <= p and fe[k] <= est:
                origin = ff[k]
                break
        found = False
        if origin < frontier:
            new = steps_earliest_move(s, origin, p, est, start, reach, &found)
        if not found:
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
            if not steps_move(s, start, start + est, new, new + est, p):
                raise AssertionError(f"job {self.ids[row]}: its earliest move to {new} does not fit")
            self._note(now, row, new)
            queue[i].key = new
            self.taken[i] = 1
            nmoved += 1
            v0 = start if start > new + est else new + est
            v1 = start + est
            if v0 < v1:
                freed_push(pending, &npending, v0, v1)
        i += 1
    if nmoved:
        _resort(self, nmoved)
    self.fn = 0
    self.dirty = False

cdef void _resort(QueueRun self, Py_ssize_t nmoved) except *:
    """Restore planned-start order after a pass: the marked entries moved earlier, the rest kept
    their order, so sorting the few moved ones and merging them back is the SortedList rebuilt."""
    self.scratch = <_Entry*>_grow(self.scratch, &self.scap, nmoved + 1, sizeof(_Entry))
    cdef _Entry* queue = self.queue
    cdef Py_ssize_t k, kept = 0, m = 0, w
    for k in range(self.qn):
        if self.taken[k]:
            self.taken[k] = 0
            self.scratch[m] = queue[k]
            m += 1
        else:
            queue[kept] = queue[k]
            kept += 1
    qsort(self.scratch, m, sizeof(_Entry), _entry_cmp)
    w = self.qn - 1
    kept -= 1
    m -= 1
    while m >= 0:
        if kept >= 0 and _entry_less(self.scratch[m], queue[kept]):
            queue[w] = queue[kept]
            kept -= 1
        else:
            queue[w] = self.scratch[m]
            m -= 1
        w -= 1


# -- PC (PC.submit, complete, schedule; GuaranteeScheduler._place, _release, _start_due, _trim) ---
# The compression is LongQueueCompression's, in _guarantee.pxd.

cdef void _work_queue(QueueRun self, Py_ssize_t n) except *:
    """The widths and estimates of the first ``n`` queued jobs, by position, for a compression."""
    cdef Py_ssize_t k
    cdef long long row
    work_queue_room(&self.work, n)
    for k in range(n):
        row = self.queue[k].row
        self.work.widths[k] = self.procs[row]
        self.work.ests[k] = self.estimate[row]

cdef void _note_moves(QueueRun self, double now) except *:
    """Log the moves the last compression or filling made, in order, and count them."""
    cdef PCWork* w = &self.work
    cdef Py_ssize_t k
    for k in range(w.nmoved):
        self._note(now, self.queue[w.mk[k]].row, w.mnew[k])
        if w.mnew[k] < self.due:
            self.due = w.mnew[k]
    self.nmoves += w.nmoved

cdef void _guarantee(QueueRun self, Py_ssize_t k, Py_ssize_t row, double start, double now) except *:
    """Give the queued job at position ``k`` its guarantee ``start`` (GuaranteeScheduler._place):
    its search range starts there, the log of freed intervals is read from here on, it may be the
    earliest guarantee to wake for, and the reservation is logged."""
    self.guar[k].start = start
    self.guar[k].low = start
    self.guar[k].high = -INFINITY
    self.guar[k].seen = self.flog.base + self.flog.n
    if start < self.due:
        self.due = start
    self._note(now, row, start)

cdef void _arrive_pc(QueueRun self, Py_ssize_t row, double now) except *:
    """PC.submit: compress if a job ended early, then queue the job with its guarantee, its
    earliest fit (GuaranteeScheduler._place)."""
    if self.dirty:
        _compress_pc(self, now)
    self.arrivals += 1
    cdef double est = self.estimate[row]
    cdef double start = steps_earliest_fit(&self.prof, now, self.procs[row], est)
    steps_reserve(&self.prof, start, start + est, self.procs[row])
    cdef Py_ssize_t k = self._insert(self.keys[row], self.arrivals, row)
    self.guar = <Guar*>_grow(self.guar, &self.gcap, self.qn, sizeof(Guar))
    memmove(&self.guar[k + 1], &self.guar[k], (self.qn - 1 - k) * sizeof(Guar))
    _guarantee(self, k, row, start, now)

cdef void _complete_pc(QueueRun self, long long row, double end, double now) except *:
    """PC.complete (GuaranteeScheduler._release): free and log the unused part of the reservation,
    which the next decision compresses into."""
    if now < end:
        steps_release(&self.prof, now, end, self.procs[row])
        log_push(&self.flog, now, end)
        self.freed = <Freed*>_grow(self.freed, &self.fcap, self.fn + 1, sizeof(Freed))
        self.freed[self.fn].a = now
        self.freed[self.fn].b = end
        self.fn += 1
        self.dirty = True

cdef void _compress_pc(QueueRun self, double now) except *:
    """PC._compress_pending: the accelerated compression of the queue, in priority order, after the
    early completions since the last one (``self.freed``); every move is logged in order."""
    self.dirty = False
    _work_queue(self, self.qn)
    compress(&self.prof, self.guar, self.qn, &self.flog, self.freed, self.fn, now, self.restart,
             self.narrow, self.per_width, &self.work)
    _note_moves(self, now)
    self.fn = 0

cdef void _schedule_pc(QueueRun self, double now) except *:
    """PC.schedule: compress if a job ended early, then start every job whose guarantee has come,
    in planned-start order (GuaranteeScheduler._start_due), and trim the freed log if it is long."""
    if self.dirty:
        _compress_pc(self, now)
    _start_due(self, now)

cdef void _start_due(QueueRun self, double now) except *:
    """GuaranteeScheduler._start_due: start every job whose guarantee has come, in planned-start
    order, and trim the freed log if it is long."""
    steps_advance(&self.prof, now)
    if not self.qn or self.due > now:
        return
    cdef Py_ssize_t k, m = 0, kept = 0
    self._room_for_marks()
    self.scratch = <_Entry*>_grow(self.scratch, &self.scap, self.qn + 1, sizeof(_Entry))
    for k in range(self.qn):
        if self.guar[k].start <= now:
            self.scratch[m].key = self.guar[k].start
            self.scratch[m].seq = self.queue[k].seq
            self.scratch[m].row = k
            m += 1
    qsort(self.scratch, m, sizeof(_Entry), _entry_cmp)
    for k in range(m):
        self._start(&self.queue[self.scratch[k].row], now)
        self.taken[self.scratch[k].row] = 1
    self.due = INFINITY
    for k in range(self.qn):
        if self.taken[k]:
            self.taken[k] = 0
        else:
            self.queue[kept] = self.queue[k]
            self.guar[kept] = self.guar[k]
            if self.guar[kept].start < self.due:
                self.due = self.guar[kept].start
            kept += 1
    self.qn = kept
    if self.flog.n > 2 * self.qn + self.trim:
        _work_queue(self, self.qn)
        trim(self.guar, self.qn, self.work.ests, &self.flog, self.prof.t[0])

# -- DC (DC.submit, _arrive, _admit, complete, schedule, _fill; GuaranteeScheduler._place) --------
# ``dirty`` is DC's ``_idle_check``: processors may be idle now, fill them before the next step.
# The compression with a cap and the hole filling are LongQueueCompression's, in
# _guarantee.pxd and _dc_fill.pxd.

cdef void _fill_dc(QueueRun self, double now) except *:
    """DC._fill (_fill_long_queue): move the queued jobs that fit now to now, in priority order."""
    self.dirty = False
    _work_queue(self, self.qn)
    fill(&self.prof, self.guar, self.qn, &self.flog, now, &self.work)
    _note_moves(self, now)

cdef void _arrive_dc(QueueRun self, Py_ssize_t row, double now) except *:
    """DC.submit: fill idle processors if a completion or a move may have left some; queue the job;
    move the higher-priority jobs it could delay (DC._admit, a compression capped by the end of
    the job's earliest fit); then give it its guarantee (GuaranteeScheduler._place)."""
    if self.dirty:
        _fill_dc(self, now)
    self.arrivals += 1
    cdef long long p = self.procs[row]
    cdef double est = self.estimate[row]
    cdef Py_ssize_t k = self._insert(self.keys[row], self.arrivals, row)
    self.guar = <Guar*>_grow(self.guar, &self.gcap, self.qn, sizeof(Guar))
    memmove(&self.guar[k + 1], &self.guar[k], (self.qn - 1 - k) * sizeof(Guar))
    if k:
        # The jobs ahead of it in the queue, every one a candidate, none moving past the cap.
        _work_queue(self, k)
        compress(&self.prof, self.guar, k, &self.flog, NULL, 0, now, True, self.narrow,
                 self.per_width, &self.work, True, True, p, est)
        _note_moves(self, now)
        if self.work.nmoved:
            self.dirty = True
    cdef double start = steps_earliest_fit(&self.prof, now, p, est)
    steps_reserve(&self.prof, start, start + est, p)
    _guarantee(self, k, row, start, now)

cdef void _complete_dc(QueueRun self, long long row, double end, double now) except *:
    """DC.complete (GuaranteeScheduler._release): free and log the unused part of the reservation;
    idle processors are filled before the next step."""
    if now < end:
        steps_release(&self.prof, now, end, self.procs[row])
        log_push(&self.flog, now, end)
    self.dirty = True

cdef void _schedule_dc(QueueRun self, double now) except *:
    """DC.schedule: fill idle processors if a completion or a move may have left some, then start
    every job whose guarantee has come."""
    if self.dirty:
        _fill_dc(self, now)
    _start_due(self, now)
