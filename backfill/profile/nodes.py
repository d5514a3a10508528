"""Free amounts of every node over time, and where each reservation sits: the node-time profile.

A :class:`NodeProfile` is the node twin of :class:`~backfill.profile.Profile`: the same step
function of time, but each step holds a (nodes, resources) array of free amounts, and every
reservation is *placed*: it holds given amounts on given nodes over its interval. The schedulers call
it with the methods they call on a Profile (``_earliest_fit``, ``_reserve``, ``_release``,
``_earliest_move``, ``_move``, ``_free_at``, ``_min_free``, ``_advance``), with a :class:`Demand`
where those take a width, so that one scheduler code plans pools and nodes.

A demand carries a key (the job's id): the profile remembers where each key's reservation was
placed, so that releasing it frees those nodes, moving it re-places it (a move may change nodes:
see below), and a running job's extension grows on the nodes it runs on. A key holds at most one
reservation.

**Fits.** A demand of ``count`` shares fits over ``[s, e)`` when, with each node's least free
amount over that interval (its *room*: the shares it can hold throughout), the placement policy
(:mod:`backfill.profile.placement`) places ``count`` shares. Only such a placement is reserved: a
job holds the same nodes from its start to its end, as a batch system runs it.

**Moves.** A queued job's reservation is a start time and a node set; compression, PC's and DC's
moves and re-plans move it to an earlier start and may give it other nodes there. What a
guarantee promises on a node machine is the *start*: a reservation never starts later (the nodes
it will run on are the ones it holds when it starts).

Complexities use *n* for the steps, *N* for the nodes, *r* for the resources, *k* for the steps a
call scans; every step is a length-N r array, so a step's work is O(N r) (done in NumPy).
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from backfill.profile import ProfileError
from backfill.profile._node_args import node_duration, node_interval, node_time
from backfill.profile._node_check import check_node_profile
from backfill.profile.demand import Demand, NodeFree
from backfill.profile.multi import ResourceProfile
from backfill.profile.placement import Placement, first_fit
from backfill.workloads.amounts import Amounts

__all__ = ["NodeProfile"]

IntArray = npt.NDArray[np.int64]


class NodeProfile:
    """Free amounts of each node as a step function of time, with every reservation's nodes.

    Args:
        capacity: Each node's amount of each resource, a (nodes, resources) array of ints >= 0 with
            at least one core per node (:meth:`Machine.capacities`).
        origin: First time the profile describes.
        policy: The placement policy (:mod:`backfill.profile.placement`).

    Examples:
        >>> from backfill import Demand, Machine, NodeRequest
        >>> machine = Machine.parse("3x4")
        >>> p = NodeProfile(machine.capacities())
        >>> a, b = Demand.of(1, machine, NodeRequest.tasks(6)), Demand.of(2, machine, NodeRequest.nodes(2))
        >>> p.reserve(0, 10, a)  # 6 tasks: node 0 whole, 2 cores of node 1
        >>> p.placement(1)
        ((0, 1), ((4,), (2,)), 0, 10)
        >>> p.earliest_fit(0, b, 5)  # two nodes with a core each: nodes 1 and 2 now
        0
        >>> p.earliest_fit(0, Demand(3, np.array([4]), 2, per_node=1), 5)  # two whole nodes: at 10
        10
    """

    __slots__ = (
        "_columns",
        "_ends",
        "_examined",
        "_free",
        "_placed",
        "_policy",
        "_times",
        "_totals",
        "capacity",
    )

    def __init__(self, capacity: npt.ArrayLike, origin: float = 0, policy: Placement = first_fit) -> None:
        cap = np.array(capacity, dtype=np.int64)
        if cap.ndim != 2 or cap.shape[0] < 1 or cap.shape[1] < 1 or (cap < 0).any() or (cap[:, 0] < 1).any():
            raise ProfileError(
                "NodeProfile: capacity must be a (nodes, resources) array of ints >= 0, cores >= 1, "
                f"got {capacity!r}"
            )
        if not -math.inf < origin < math.inf:
            raise ProfileError(f"NodeProfile: origin must be a finite number, got {origin!r}")
        if not callable(policy):
            raise ProfileError(
                f"NodeProfile: policy must be a callable (room, count) -> take, got {policy!r}"
            )
        cap.flags.writeable = False
        self.capacity = cap
        self._times: list[float] = [origin]
        self._free: list[IntArray] = [cap.copy()]
        # key -> [nodes, amounts, start, end]: where each reservation sits.
        self._placed: dict[int, list[Any]] = {}
        self._ends: list[tuple[float, int]] = []  # (end, key), to forget finished placements lazily
        self._policy = policy
        self._examined = 0
        # The machine-wide free amount of each resource (those some node has), as a pool sees it: no
        # placement starts before the pool's earliest fit, so searches jump to it (compiled steps).
        self._columns = np.flatnonzero(cap.sum(axis=0) > 0)
        self._totals = ResourceProfile(Amounts(cap.sum(axis=0)[self._columns].tolist()), origin)

    # -- queries -------------------------------------------------------------------------------------

    @property
    def origin(self) -> float:
        """The first time the profile describes. O(1)."""
        return self._times[0]

    @property
    def examined(self) -> int:
        """Steps looked at by searches: node steps checked, and the pool bound's steps. O(r)."""
        return self._examined + self._totals.examined

    @property
    def policy(self) -> Placement:
        """The placement policy. O(1)."""
        return self._policy

    def __len__(self) -> int:
        """Number of steps. O(1)."""
        return len(self._times)

    def __iter__(self) -> Iterator[tuple[float, IntArray]]:
        """Iterate over ``(time, free)`` steps; each free a read-only (nodes, resources) array. O(n)."""
        for t, f in zip(self._times, self._free, strict=True):
            view = f.view()
            view.flags.writeable = False
            yield t, view

    def __repr__(self) -> str:
        nodes, steps, placed = self.capacity.shape[0], len(self._times), len(self._placed)
        return f"NodeProfile(nodes={nodes}, steps={steps}, placed={placed})"

    def placement(self, key: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...], float, float] | None:
        """Where ``key``'s reservation sits: (node ids, amounts per node, start, end), or None. O(N r)."""
        record = self._placed.get(key)
        if record is None:
            return None
        nodes, amounts, start, end = record
        return tuple(nodes.tolist()), tuple(map(tuple, amounts.tolist())), start, end

    def free_at(self, time: float) -> NodeFree:
        """The free amounts of every node at ``time`` (at or after the origin). O(log n + N r)."""
        return self._free_at(self._time("free_at", time))

    def _free_at(self, time: float) -> NodeFree:
        return NodeFree(self._free[max(bisect_right(self._times, time) - 1, 0)], self)

    def min_free(self, start: float, end: float) -> NodeFree:
        """Each node's least free amounts over ``[start, end)``. O(log n + k N r)."""
        return self._min_free(*self._interval("min_free", start, end))

    def _min_free(self, start: float, end: float) -> NodeFree:
        i, j = self._span(start, end)
        return NodeFree(np.minimum.reduce(self._free[i:j]) if j - i > 1 else self._free[i], self)

    def max_free(self, start: float, end: float) -> NodeFree:
        """Each node's most free amounts over ``[start, end)``. O(log n + k N r).

        A demand that fits somewhere in the interval fits these: a necessary test.
        """
        return self._max_free(*self._interval("max_free", start, end))

    def _max_free(self, start: float, end: float) -> NodeFree:
        i, j = self._span(start, end)
        return NodeFree(np.maximum.reduce(self._free[i:j]) if j - i > 1 else self._free[i], self)

    def _span(self, start: float, end: float) -> tuple[int, int]:
        """Indices ``i, j`` of the steps covering ``[start, end)``: ``free[i:j]``, never empty."""
        times = self._times
        i = max(bisect_right(times, start) - 1, 0)
        return i, max(bisect_left(times, end, i), i + 1)

    def _room(self, free: IntArray, demand: Demand) -> IntArray:
        """Shares of ``demand`` each node holds with ``free`` (of any steps stacked first). O(N r) a step."""
        asked = demand.asked
        room = (free[..., asked] // demand.share[asked]).min(axis=-1)
        if demand.exclusive:
            room[(free != self.capacity).any(axis=-1)] = 0
        if demand.per_node is not None:
            np.minimum(room, demand.per_node, out=room)
        return room  # type: ignore[no-any-return]

    def _place(self, room: IntArray, demand: Demand) -> IntArray | None:
        """The policy's placement on ``room``, checked: shares per node, or None."""
        take = self._policy(room, demand.count)
        if take is None:
            return None
        take = np.asarray(take)
        if (
            take.shape != room.shape
            or take.dtype.kind not in "iu"
            or (take < 0).any()
            or (take > room).any()
            or int(take.sum()) != demand.count
        ):
            name = getattr(self._policy, "__qualname__", repr(self._policy))
            raise ProfileError(
                f"placement policy {name} answered {take!r} for {demand.count} shares on room "
                f"{room.tolist()}: a placement takes 0 to room[i] shares on node i,"
                " summing to the shares asked"
            )
        return take.astype(np.int64, copy=False)

    def earliest_fit(self, time: float, demand: Demand, duration: float) -> float:
        """The earliest start ``s >= time`` at which the policy places ``demand`` over ``[s, s + duration)``.

        A zero ``duration`` fits at ``time``. Candidates are ``time`` and the step times after it;
        a step too full for the demand on its own rules out every start whose interval covers it.
        O(log n + c k N r), c candidates tried, k steps each.

        Raises:
            ProfileError: If no placement exists even on the empty machine (the demand can never
                fit), or an argument is not valid.
        """
        time = self._time("earliest_fit", time)
        duration = self._duration("earliest_fit", duration)
        return self._earliest_fit(time, self._demand("earliest_fit", demand), duration)

    def _earliest_fit(self, time: float, demand: Demand, duration: float) -> float:
        found = self._search(time, demand, duration, math.inf)
        assert found is not None
        return found

    def _search(
        self, time: float, demand: Demand, duration: float, bound: float, own: list[Any] | None = None
    ) -> float | None:
        """The earliest start in ``[time, bound)`` where ``demand`` is placed, or None.

        Each candidate is first moved to the pool's earliest fit of the demand's totals (the
        machine-wide free amounts, searched in the compiled profile): no placement starts earlier.
        There the nodes are checked: each step on its own (a step that cannot hold the demand rules
        out every start whose interval covers it), then the least free amounts over the interval,
        which the policy must place the demand on. With ``own`` (the demand's own placement, a
        queued job's whole reservation), that placement counts as free, on the pool too.
        """
        times = self._times
        origin = times[0]
        t = time if time > origin else origin
        if not duration > 0:
            return t if t < bound else None
        count = demand.count
        room_of = self._room
        need = self._need(demand)
        totals = self._totals
        own_start = math.inf if own is None else own[2]
        enough: dict[int, bool] = {}  # step -> whether it alone holds the demand
        n = len(times)
        while True:
            if own is None:
                t = totals._earliest_fit(t, need, duration)
            else:
                moved = totals._earliest_move(t, need, duration, own_start, bound)
                if moved is None:
                    return None
                t = moved
            if t >= bound:
                return None
            i = bisect_right(times, t) - 1
            j = bisect_left(times, t + duration, i + 1)
            blocked, low = self._window(i, j, demand, own, enough)
            if blocked >= 0:
                i = blocked + 1
            elif low.ndim == 2:  # one step
                room = room_of(low, demand)
                if int(room.sum()) >= count and self._place(room, demand) is not None:
                    return t
                i += 1
            else:
                # Each step holds the demand, perhaps not on the same nodes throughout: the least over
                # each suffix rules out the next candidates whose intervals cover a suffix too full.
                suffix = np.minimum.accumulate(low[::-1], axis=0)[::-1]
                held = room_of(suffix, demand).sum(axis=1) >= count
                if held[0] and self._place(room_of(suffix[0], demand), demand) is not None:
                    return t
                later = np.flatnonzero(held[1:])
                i += 1 + int(later[0]) if later.size else j - i
            if i >= n:
                raise ProfileError(
                    f"NodeProfile: demand {demand!r} is never placed, even on the empty machine "
                    f"(policy {getattr(self._policy, '__qualname__', self._policy)})"
                )
            t = times[i]

    def _window(
        self, i: int, j: int, demand: Demand, own: list[Any] | None, enough: dict[int, bool]
    ) -> tuple[int, IntArray]:
        """The first of steps ``i`` to ``j - 1`` that cannot hold the demand alone, or -1 and their amounts.

        (One step's, or several stacked.) Each step's verdict is kept in ``enough`` for the search's
        later candidates; the first step is tried alone: most candidates fail there. O(k N r).
        """
        self._examined += j - i
        count = demand.count
        if i not in enough:
            enough[i] = int(self._room(self._step(i, own), demand).sum()) >= count
        if not enough[i]:
            return i, self._free[i]
        missing = [k for k in range(i + 1, j) if k not in enough]
        if missing:
            sums = self._room(np.array([self._step(k, own) for k in missing]), demand).sum(axis=1)
            enough.update(zip(missing, (sums >= count).tolist(), strict=True))
        for k in range(i + 1, j):
            if not enough[k]:
                return k, self._free[k]
        if j - i == 1:
            return -1, self._step(i, own)
        return -1, np.array([self._step(k, own) for k in range(i, j)])

    def _step(self, k: int, own: list[Any] | None) -> IntArray:
        """Step ``k``'s free amounts, with ``own`` (a placement counted free) added where it lies."""
        free = self._free[k]
        if own is None or not own[2] <= self._times[k] < own[3]:
            return free
        free = free.copy()
        free[own[0]] += own[1]
        return free

    def _need(self, demand: Demand) -> Amounts:
        """The demand's machine-wide amounts, over the resources the pool bound plans."""
        columns = self._columns
        totals = demand.share * demand.count
        return Amounts(totals[columns].tolist() if len(columns) < len(totals) else totals.tolist())

    def _fits(self, time: float, demand: Demand, duration: float) -> bool:
        """Whether ``demand`` is placed over ``[time, time + duration)``. O(log n + k N r)."""
        return self._search(time, demand, duration, math.nextafter(time, math.inf)) is not None

    def earliest_move(
        self, time: float, demand: Demand, duration: float, current: float, before: float | None = None
    ) -> float | None:
        """Where ``demand``'s reservation at ``current`` could start earlier, or None if nowhere.

        Its own nodes count as free; with ``before``, only starts before it count. Nothing
        changes. O(the search).
        """
        time = self._time("earliest_move", time)
        duration = self._duration("earliest_move", duration)
        current = self._time("earliest_move", current)
        before = None if before is None else self._time("earliest_move", before)
        return self._earliest_move(time, self._demand("earliest_move", demand), duration, current, before)

    def _earliest_move(
        self, time: float, demand: Demand, duration: float, current: float, before: float | None = None
    ) -> float | None:
        bound = current if before is None or before > current else before
        record = self._placed.get(demand.key)
        if record is None:
            return self._search(time, demand, duration, bound)
        if (
            not demand.exclusive
            and record[2] == current
            and record[3] == current + duration
            and np.array_equal(record[1].sum(axis=0)[self._columns], self._need(demand))
        ):
            # Its own reservation counted free in the search, pool bound included: no update.
            return self._search(time, demand, duration, bound, own=record)
        # (An exclusive job holds more than it asks: its nodes are freed and taken back. A running
        # job's placement began before the origin, where the profile has no steps.)
        nodes, amounts, start, end = record[0], record[1], max(record[2], self._times[0]), record[3]
        self._change(nodes, amounts, start, end, 1)
        try:
            return self._search(time, demand, duration, bound)
        finally:
            self._change(nodes, amounts, start, end, -1)

    # -- updates -------------------------------------------------------------------------------------

    def reserve(self, start: float, end: float, demand: Demand) -> None:
        """Place ``demand`` over ``[start, end)`` by the policy; an empty interval is a no-op.

        A key that holds a reservation ending at ``start`` is extended on its nodes (a running job
        planned longer). O(log n + k N r).

        Raises:
            ProfileError: If the policy cannot place it there (nothing changes), or the key holds
                another reservation.
        """
        start, end = self._interval("reserve", start, end)
        self._reserve(start, end, self._demand("reserve", demand))

    def _reserve(self, start: float, end: float, demand: Demand) -> None:
        if not end > start:
            return
        if start < self._times[0]:
            raise ProfileError(
                f"NodeProfile.reserve: start {start:g} is before the origin {self._times[0]:g}"
            )
        key = demand.key
        record = self._placed.get(key)
        if record is not None:
            if record[3] != start:
                raise ProfileError(
                    f"NodeProfile.reserve: job {key} already holds [{record[2]:g}, {record[3]:g}); "
                    f"release it before reserving [{start:g}, {end:g})"
                )
            nodes, amounts = record[0], record[1]
            if (self._min_free(start, end).amounts[nodes] < amounts).any():
                raise ProfileError(
                    f"NodeProfile.reserve: job {key} cannot run on to {end:g} on its nodes {nodes.tolist()}"
                )
            self._change(nodes, amounts, start, end, -1)
            record[3] = end
            heapq.heappush(self._ends, (end, key))
            return
        room = self._room(self._min_free(start, end).amounts, demand)
        take = self._place(room, demand) if int(room.sum()) >= demand.count else None
        if take is None:
            raise ProfileError(f"NodeProfile.reserve: {demand!r} is not placed over [{start:g}, {end:g})")
        nodes = np.flatnonzero(take)
        amounts = self.capacity[nodes] if demand.exclusive else take[nodes, None] * demand.share
        self._change(nodes, amounts, start, end, -1)
        self._placed[key] = [nodes, amounts, start, end]
        heapq.heappush(self._ends, (end, key))

    def _extends(self, key: int, start: float, end: float) -> bool:
        """Whether ``key``'s nodes have its amounts free over ``[start, end)``. O(log n + k N r).

        The test of a running job planned longer: it runs on where it is.
        """
        record = self._placed.get(key)
        if record is None:
            return False
        return not (self._min_free(start, end).amounts[record[0]] < record[1]).any()

    def _hold(self, key: int, nodes: IntArray, amounts: IntArray, start: float, end: float) -> None:
        """Reserve ``amounts`` on ``nodes`` over ``[start, end)`` under ``key``, placed as given.

        For a placement made in another profile (a plan) that this one must hold alike.

        Raises:
            ProfileError: If the key holds a reservation, or the nodes lack the amounts somewhere.
        """
        if not end > start:
            return
        if key in self._placed or (self._min_free(start, end).amounts[nodes] < amounts).any():
            raise ProfileError(
                f"NodeProfile: job {key} cannot hold nodes {nodes.tolist()} over [{start:g}, {end:g})"
            )
        self._change(nodes, amounts, start, end, -1)
        self._placed[key] = [nodes, amounts, start, end]
        heapq.heappush(self._ends, (end, key))

    def release(self, start: float, end: float, demand: Demand) -> None:
        """Free ``[start, end)`` of the key's reservation, on its nodes. O(log n + k N r).

        The interval must reach the reservation's start or its end (a job ending early frees its
        tail; a queued job leaving frees all of it).

        Raises:
            ProfileError: If the key holds no reservation, or the interval would split it.
        """
        start, end = self._interval("release", start, end)
        self._release(start, end, self._demand("release", demand))

    def _release(self, start: float, end: float, demand: Demand) -> None:
        if not end > start:
            return
        record = self._placed.get(demand.key)
        if record is None:
            raise ProfileError(f"NodeProfile.release: job {demand.key} holds no reservation")
        nodes, amounts, low, high = record
        a = start if start > low else low
        b = end if end < high else high
        if not b > a:
            return
        if a > low and b < high:
            raise ProfileError(
                f"NodeProfile.release: [{start:g}, {end:g}) would split job {demand.key}'s "
                f"[{low:g}, {high:g})"
            )
        origin = self._times[0]
        if b > origin:
            self._change(nodes, amounts, a if a > origin else origin, b, 1)
        if b >= high and (a <= low or a <= origin):
            # Nothing of it is left after the origin (a running job ending now): forgotten, as
            # advance forgets a placement that ended, not kept as one ending in the past.
            del self._placed[demand.key]
        elif b >= high:
            record[3] = a
            heapq.heappush(self._ends, (a, demand.key))
        else:
            record[2] = b

    def move(self, start: float, new: float, duration: float, demand: Demand) -> None:
        """Move the key's reservation from ``start`` to ``new``, placed afresh there. O(the two updates).

        Raises:
            ProfileError: If it is not placed at ``new`` (the reservation is then where it was).
        """
        start, new = self._time("move", start), self._time("move", new)
        self._move(start, new, self._duration("move", duration), self._demand("move", demand))

    def _move(self, start: float, new: float, duration: float, demand: Demand) -> None:
        if not duration > 0 or new == start:
            return
        record = self._placed.get(demand.key)
        if record is None:
            raise ProfileError(f"NodeProfile.move: job {demand.key} holds no reservation")
        self._release(start, start + duration, demand)
        try:
            self._reserve(new, new + duration, demand)
        except ProfileError:
            self._change(record[0], record[1], max(record[2], self._times[0]), record[3], -1)
            self._placed[demand.key] = record
            raise

    def advance(self, time: float) -> None:
        """Forget the profile before ``time``, and the placements that ended by then. O(log n + k)."""
        self._advance(self._time("advance", time))

    def _advance(self, time: float) -> None:
        times = self._times
        if time <= times[0]:
            return
        i = bisect_right(times, time) - 1
        if i:
            del times[:i]
            del self._free[:i]
        times[0] = time
        self._totals._advance(time)
        ends, placed = self._ends, self._placed
        while ends and ends[0][0] <= time:
            _, key = heapq.heappop(ends)
            record = placed.get(key)
            if record is not None and record[3] <= time:
                del placed[key]

    def _change(self, nodes: IntArray, amounts: IntArray, start: float, end: float, sign: int) -> None:
        """Add ``sign * amounts`` on ``nodes`` over ``[start, end)``, splitting and merging steps."""
        i = self._split(start)
        j = self._split(end) if end < math.inf else len(self._times)
        free = self._free
        delta = amounts if sign > 0 else -amounts
        totals = delta.sum(axis=0)[self._columns].tolist()
        for pool, a in zip(self._totals.profiles, totals, strict=True):
            if a:
                pool._add(start, end, a)
        for k in range(i, j):
            free[k][nodes] += delta
        # Merge at both edges so that adjacent steps always differ.
        if j < len(free) and np.array_equal(free[j - 1], free[j]):
            del self._times[j], free[j]
        if i > 0 and np.array_equal(free[i - 1], free[i]):
            del self._times[i], free[i]

    def _split(self, time: float) -> int:
        """Make a step start at ``time`` (at or after the origin); return its index."""
        times = self._times
        k = bisect_left(times, time)
        if k < len(times) and times[k] == time:
            return k
        times.insert(k, time)
        self._free.insert(k, self._free[k - 1].copy())
        return k

    def copy(self) -> NodeProfile:
        """An independent copy. O(n N r)."""
        other = NodeProfile.__new__(NodeProfile)
        other.capacity = self.capacity
        other._times = self._times.copy()
        other._free = [f.copy() for f in self._free]
        other._placed = {k: [n, a, s, e] for k, (n, a, s, e) in self._placed.items()}
        other._ends = self._ends.copy()
        other._policy = self._policy
        other._examined = self._examined
        other._columns = self._columns
        other._totals = self._totals.copy()
        return other

    # -- argument checks ------------------------------------------------------------------------------

    def _demand(self, method: str, value: Any) -> Demand:
        if value.__class__ is not Demand or value.share.shape != (self.capacity.shape[1],):
            raise ProfileError(
                f"NodeProfile.{method}: a Demand over {self.capacity.shape[1]} resources is needed, "
                f"got {value!r}"
            )
        return value

    _time = staticmethod(node_time)
    _duration = staticmethod(node_duration)
    _interval = staticmethod(node_interval)

    def _check(self) -> None:
        """Assert every invariant of the representation. O(n N r + p k N) for p placements."""
        check_node_profile(self)
