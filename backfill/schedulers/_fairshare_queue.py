"""RelShare's queue: EASY over a queue kept per owner and ordered by the owners' fair-share keys.

:class:`~backfill.schedulers.RelShare` decides with a :class:`FairShareEASY` ordered by a
:class:`FairShareKey` of its own; both are private to it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Any, Protocol

import attrs

from backfill.schedulers.easy import EASY
from backfill.schedulers.machinery.queue import Entry
from backfill.workloads.workload import Job

__all__ = ["FairShareEASY", "FairShareKey"]


class _Shares(Protocol):
    """What the queue reads of its RelShare (a protocol, so that this module does not import it)."""

    by: str

    def fair_share_priority(self, job: Job, now: float) -> float: ...

    def _keys_at(self, now: float) -> tuple[dict[int, float], dict[int, float]]: ...


class FairShareKey:
    """The priority EASY sorts by: minus the owner's fair-share priority (higher share served first)."""

    __slots__ = ("_scheduler",)
    __name__ = "fairshare"

    def __init__(self, scheduler: _Shares) -> None:
        self._scheduler = scheduler

    def __call__(self, job: Job, now: float) -> float:
        return -self._scheduler.fair_share_priority(job, now)


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class FairShareEASY(EASY):
    """EASY whose queue is kept per owner, in arrival order, and ordered by the owners' keys.

    The same order as sorting every queued job by :class:`FairShareKey` then arrival, without a
    Python call or a comparison per queued job: every job of an owner has the owner's key, so the
    owners are sorted (owners with equal keys merged by arrival) and their queues laid end to end.
    Only a reserved job, whose key is its own (see :meth:`RelShare._keys_at`), is placed alone.
    O(q + o log o + s log q) per decision for q queued jobs, o owners and s reserved jobs, where a
    sort of the whole queue would compare O(q log q) tuples. ``tests/test_relshare.py`` checks the
    order against that sort at every decision.
    """

    # Queued jobs per owner, ``seq -> job`` in arrival order, and each queued job's owner and seq.
    _owners: dict[int, dict[int, Job]] = attrs.field(init=False, factory=dict)
    _where: dict[int, tuple[int, int]] = attrs.field(init=False, factory=dict)

    def reset(self, machine_size: int, now: float) -> None:
        super().reset(machine_size, now)
        self._owners = {}
        self._where = {}

    def _hold(self, seq: int, job: Job) -> None:
        owner = job.user if self.priority._scheduler.by == "user" else job.group  # type: ignore[attr-defined]
        self._owners.setdefault(owner, {})[seq] = job
        self._where[job.id] = (owner, seq)

    def _drop(self, entries: list[Entry]) -> None:
        owners, where = self._owners, self._where
        for entry in entries:
            owner, seq = where.pop(entry[2].id)
            queue = owners[owner]
            del queue[seq]
            if not queue:
                del owners[owner]

    def _copy_into(self, other: Any) -> None:
        super()._copy_into(other)
        other._owners = {owner: queue.copy() for owner, queue in self._owners.items()}
        other._where = self._where.copy()

    def _ordered(self, now: float) -> Sequence[Entry]:
        scheduler = self.priority._scheduler  # type: ignore[attr-defined]
        keys, special = scheduler._keys_at(now)
        owners, where = self._owners, self._where
        by_key: dict[float, list[int]] = {}
        for owner in owners:
            by_key.setdefault(keys[owner], []).append(owner)
        order: list[Entry] = []
        for key in sorted(by_key):
            group = by_key[key]
            queue: Any = (
                owners[group[0]].items()
                if len(group) == 1
                else sorted(itertools.chain.from_iterable(owners[owner].items() for owner in group))
            )
            order += [(key, seq, job) for seq, job in queue]
        # A reserved job leaves its owner's run for the place its own key gives it. The order is
        # sorted by (key, seq), so a binary search finds it.
        for jid, key in special.items():
            if jid in where:
                owner, seq = where[jid]
                at = bisect.bisect_left(order, (keys[owner], seq))
                entry = order.pop(at)
                assert entry[2].id == jid
                bisect.insort(order, (key, seq, entry[2]))
        return order
