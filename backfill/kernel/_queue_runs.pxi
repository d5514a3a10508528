# Included by _wholerun.pyx (one extension module): the queue runs, FCFS and EASY at depth 1 and at
# depth k, as functions of the QueueRun they decide for (its methods before the split).

# -- the schedulers' decisions --------------------------------------------------------------------

cdef void _schedule_fcfs(QueueRun self, double now) except *:
    """FCFS.schedule: start queue heads while they fit."""
    cdef Py_ssize_t k = 0
    cdef long long row
    while k < self.qn:
        row = self.queue[k].row
        if self.procs[row] > self.free:
            break
        self._start(&self.queue[k], now)
        k += 1
    self._drop_head(k)

cdef void _schedule_easy(QueueRun self, double now) except *:
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
            self._start(&self.queue[k], now)
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
            self._start(&self.queue[j], now)
            f -= p
            self.taken[j] = 1
            if first < 0 or j < first:
                first = j
    if first >= 0:
        self._dequeue(first)

# -- EASY at depth k (_easy_depth.DeepReservations with EASY.accelerated False: a full pass) ------

cdef Py_ssize_t _find(QueueRun self, _Held* entries, Py_ssize_t lo, Py_ssize_t hi, _Entry e) noexcept:
    """bisect_left of the entry ``e`` in ``entries[lo:hi]`` (sorted by key and arrival)."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _entry_less(_key_of(entries[mid]), e):
            lo = mid + 1
        else:
            hi = mid
    return lo

cdef Py_ssize_t _held_at(QueueRun self, _Held* entries, Py_ssize_t lo, Py_ssize_t hi, _Entry e) noexcept:
    cdef Py_ssize_t k = _find(self, entries, lo, hi, e)
    if k >= hi or entries[k].seq != e.seq:
        return -1
    return k

cdef Py_ssize_t _queued_at(QueueRun self, _Entry e) noexcept:
    cdef Py_ssize_t lo = 0, hi = self.qn, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _entry_less(self.queue[mid], e):
            lo = mid + 1
        else:
            hi = mid
    if lo < self.qn and self.queue[lo].seq == e.seq:
        return lo
    return -1

cdef void _schedule_deep(QueueRun self, double now) except *:
    """DeepReservations._schedule_deep, a full pass: start or reserve the queue in order."""
    steps_advance(&self.prof, now)
    steps_copy(&self.plan, &self.prof)
    self._room_for_marks()
    # The last pass's reservations become ``old``; those an arrival came ahead of are lost.
    cdef _Held* swap = self.old
    cdef Py_ssize_t oldn = self.holdn, k, lost_from = self.holdn, i, swap_cap
    self.old = self.held
    self.held = swap
    swap_cap = self.oldcap
    self.oldcap = self.holdcap
    self.holdcap = swap_cap
    self.holdn = 0
    cdef _Held* old = self.old
    cdef _Entry e
    if self.has_over and oldn:
        # bisect_right(held, overtaker)
        lost_from = _find(self, old, 0, oldn, self.over)
        while lost_from < oldn and not _entry_less(self.over, _key_of(old[lost_from])):
            lost_from += 1
    self.has_head = False
    self.has_over = False
    cdef double first = INFINITY, end, start, est
    cdef long long count = 0, p, row
    cdef bint fits
    cdef Py_ssize_t first_taken = -1, j
    for k in range(self.qn):
        row = self.queue[k].row
        p = self.procs[row]
        est = self.estimate[row]
        if p <= self.free or not est > 0:
            end = now + est
            if end <= first:
                fits = True
            elif count < self.limit:
                fits = False
            else:
                if steps_min_free(&self.plan, now, end) < p:
                    continue
                fits = True
            if fits:
                if est > 0:
                    steps_add(&self.plan, now, end, -p)
                    steps_add(&self.prof, now, end, -p)
                self._start(&self.queue[k], now)
                self.taken[k] = 1
                if first_taken < 0:
                    first_taken = k
                continue
        elif count >= self.limit:
            continue
        start = steps_earliest_fit(&self.plan, now, p, est)
        end = start + est
        steps_add(&self.plan, start, end, -p)
        if start == now:
            steps_add(&self.prof, now, end, -p)
            self._start(&self.queue[k], now)
            self.taken[k] = 1
            if first_taken < 0:
                first_taken = k
            continue
        self.held = <_Held*>_grow(self.held, &self.holdcap, self.holdn + 1, sizeof(_Held))
        self.held[self.holdn].key = self.queue[k].key
        self.held[self.holdn].seq = self.queue[k].seq
        self.held[self.holdn].row = row
        self.held[self.holdn].start = start
        self.holdn += 1
        e = self.queue[k]
        j = _held_at(self, old, 0, lost_from, e)
        if j < 0 or old[j].start != start:
            if _held_at(self, old, lost_from, oldn, e) >= 0:
                self._note(now, row, NAN)
            self._note(now, row, start)
        count += 1
        self.head = e
        self.has_head = True
        if start < first:
            first = start
    # A job reserved in the last pass that neither holds a reservation now nor started lost it.
    for i in range(oldn):
        e = _key_of(old[i])
        if _held_at(self, self.held, 0, self.holdn, e) >= 0:
            continue
        k = _queued_at(self, e)
        if k >= 0 and not self.taken[k]:
            self._note(now, old[i].row, NAN)
    if first_taken >= 0:
        self._dequeue(first_taken)
