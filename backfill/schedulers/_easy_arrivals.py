"""EASY's arrivals-only shortcut: after arrivals alone, a decision looks at the new jobs only.

With a static priority, :class:`~backfill.schedulers.EASY` remembers its last full pass: the head,
the head's shadow time and the extra processors left after backfilling. Until something else
happens, the jobs queued then still cannot start: free processors only shrank (the jobs started since
hold them), the shadow time is unchanged (no job ended, and a job started by backfilling either ends
by the shadow time or took extra processors), the extra processors only shrank, and ``now`` only
grew, so a job that ended too late or was too wide then still is. A full pass would therefore reserve
the same head at the same shadow time and backfill among the new jobs only, in their order: which is
what :meth:`ArrivalsShortcut._schedule_arrivals` does, in O(a log a) for a new jobs where a full pass
is O(q + r).

A full pass comes instead when the shortcut would not be exact or the last pass left nothing to go on
from: after a completion or an extension (``_full`` is set), when a new job sorts before the head
(it may start, or become the head), under a time-dependent or stateful priority (any decision may
reorder the queue), when the last pass left no head (the queue was empty), and always when
``EASY.accelerated`` is False. The deeper-reservation path (:mod:`backfill.schedulers._easy_depth`)
keeps the same bookkeeping, with the last reservation of its pass in the head's place.

``tests/test_easy_paths.py`` runs EASY both ways (``accelerated`` True and False) on hypothesis
workloads and requires the same starts, in the same order, and the same reservation log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from backfill.schedulers.machinery.queue import Entry
from backfill.workloads.workload import Job

__all__ = ["ArrivalsShortcut"]


class ArrivalsShortcut:
    """Decisions after arrivals alone, on the new jobs only; mixed into EASY.

    Its state lives in the scheduler (declared there): ``_full`` (the next decision must be a full
    pass), ``_fresh`` (the static entries that arrived since the last pass, while ``_full`` is
    False), ``_head`` (the last pass's head, or on the deeper path its last reservation) and
    ``_overtaker`` (the deeper path's note of an arrival ahead of its last reservation).
    """

    # No slots of its own, so that EASY's instances keep their layout (slots, no __dict__); hidden
    # from mypy, which would otherwise refuse the assignments to the scheduler's slots below.
    if not TYPE_CHECKING:
        __slots__ = ()

    backfill_order: Any
    _full: bool
    _fresh: list[Entry]
    _head: Entry | None
    _deep: bool
    _overtaker: Entry | None

    if TYPE_CHECKING:  # the scheduler's own, which this mixin calls

        def _enqueue(self, job: Job, now: float) -> Entry | None: ...

        def _dequeue(self, entries: list[Entry], now: float) -> None: ...

        def _backfill(self, entries: Any, now: float, started: list[Job], taken: list[Entry]) -> None: ...

    def submit(self, job: Job, now: float) -> None:
        """Queue a new job. O(log q)."""
        entry = self._enqueue(job, now)
        if entry is None or self._head is None or entry < self._head:
            self._full = True
            # A static entry sorting before the last reservation comes ahead of it; see _overtaken.
            if (
                self._deep
                and entry is not None
                and self._head is not None
                and (self._overtaker is None or entry < self._overtaker)
            ):
                self._overtaker = entry
        elif not self._full:
            self._fresh.append(entry)

    def _schedule_arrivals(self, now: float) -> list[Job]:
        """Backfill among the jobs that arrived since the last full pass, against its head's reservation."""
        started: list[Job] = []
        taken: list[Entry] = []
        fresh = sorted(self._fresh)
        self._fresh = []
        order = self.backfill_order
        if order is not None:
            fresh.sort(key=lambda entry: order(entry[2], now))  # stable: ties keep the queue order
        self._backfill(fresh, now, started, taken)
        if taken:
            self._dequeue(taken, now)
        return started
