"""The node model: the node-time profile against a naive per-node model, placement policies, machines."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from node_strategies import GIB, groups, holds, machines, policies, requests

from backfill.errors import ParameterError
from backfill.profile import ProfileError
from backfill.profile.demand import Demand, NodeFree
from backfill.profile.node_admission import placement_refusal
from backfill.profile.nodes import NodeProfile
from backfill.profile.placement import Placement, best_fit, contiguous, first_fit
from backfill.workloads.nodes import Machine, NodeGroup, NodeRequest, interval_set, tasks_request
from backfill.workloads.workload import Job

IntArray = np.ndarray[Any, np.dtype[np.int64]]
Placed = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], float, float]

#: A demand never placed: refused by the nodes' search, or first by the pool bound (totals too big).
NEVER = r"never placed, even on the empty machine|^ResourceProfile\.earliest_fit: .* exceed the capacity"
times = st.integers(0, 40)
durations = st.integers(0, 12)


class NaiveNodes:
    """Reservations as a plain dict; node n's free amount at t is capacity less the placements covering t."""

    def __init__(self, capacity: IntArray, policy: Placement) -> None:
        self.capacity = capacity
        self.policy = policy
        self.origin: float = 0
        self.demands: dict[int, Demand] = {}
        self.placed: dict[int, Placed] = {}

    def free_at(self, t: float, without: int | None = None) -> IntArray:
        free = self.capacity.copy()
        for key, (nodes, amounts, s, e) in self.placed.items():
            if key != without and s <= t < e:
                for node, amount in zip(nodes, amounts, strict=True):
                    free[node] -= amount
        return free

    def edges(self, without: int | None = None) -> set[float]:
        return {x for k, (_, _, s, e) in self.placed.items() if k != without for x in (s, e)}

    def points(self, s: float, e: float, without: int | None = None) -> list[float]:
        """The instants where the free amounts over ``[s, e)`` can change: all of them matter."""
        return sorted({s} | {x for x in self.edges(without) if s < x < e})

    def low(self, s: float, e: float, without: int | None = None) -> IntArray:
        low: IntArray = np.min([self.free_at(x, without) for x in self.points(s, e, without)], axis=0)
        return low

    def high(self, s: float, e: float) -> IntArray:
        high: IntArray = np.max([self.free_at(x) for x in self.points(s, e)], axis=0)
        return high

    def room(self, free: IntArray, demand: Demand) -> IntArray:
        """Shares each node holds with ``free``, node by node as the profile's documentation says."""
        shares = demand.share.tolist()
        room = []
        for row, whole in zip(free.tolist(), self.capacity.tolist(), strict=True):
            n = min(f // a for f, a in zip(row, shares, strict=True) if a > 0)
            if demand.exclusive and row != whole:
                n = 0
            if demand.per_node is not None:
                n = min(n, demand.per_node)
            room.append(n)
        return np.array(room, dtype=np.int64)

    def take(self, free: IntArray, demand: Demand) -> IntArray | None:
        room = self.room(free, demand)
        return None if room.sum() < demand.count else self.policy(room, demand.count)

    def take_over(self, s: float, d: float, demand: Demand, without: int | None = None) -> IntArray | None:
        return self.take(self.low(s, s + d, without), demand)

    def earliest_fit(self, t: float, demand: Demand, d: float, without: int | None = None) -> float | None:
        """The first candidate (``t``, then each placement edge after it) where the policy places it."""
        t = max(t, self.origin)
        if d == 0:
            return t
        for s in sorted({t} | {x for x in self.edges(without) if x > t}):
            if self.take_over(s, d, demand, without) is not None:
                return s
        return None  # not even on the empty machine, after the last edge

    def place(self, demand: Demand, take: IntArray, s: float, e: float) -> None:
        nodes = [int(n) for n in np.flatnonzero(take)]
        amounts = [
            tuple(self.capacity[n].tolist() if demand.exclusive else (int(take[n]) * demand.share).tolist())
            for n in nodes
        ]
        self.demands[demand.key] = demand
        self.placed[demand.key] = (tuple(nodes), tuple(amounts), s, e)

    def forget(self, key: int) -> None:
        del self.placed[key], self.demands[key]


def _state(p: NodeProfile) -> tuple[object, ...]:
    """Everything a call could change: the steps, every placement, the examined count."""
    steps = [(t, f.tolist()) for t, f in p]
    return steps, {k: p.placement(k) for k in sorted(p._placed)}, p.examined


class NodeProfileMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.next_key = 1

    @initialize(machine=machines(), policy=policies())
    def build(self, machine: Machine, policy: Placement) -> None:
        self.machine = machine
        self.profile = NodeProfile(machine.capacities(), policy=policy)
        self.model = NaiveNodes(machine.capacities(), policy)

    def demand(self, data: st.DataObject) -> Demand:
        request = data.draw(requests(self.machine), label="request")
        key, self.next_key = self.next_key, self.next_key + 1
        return Demand.of(key, self.machine, request)

    def some_key(self, data: st.DataObject, queued: bool = False) -> int:
        keys = [k for k, p in self.model.placed.items() if not queued or p[2] >= self.model.origin]
        return data.draw(st.sampled_from(sorted(keys)), label="key")

    def has_queued(self) -> bool:
        return any(s >= self.model.origin for _, _, s, _ in self.model.placed.values())

    @rule(data=st.data(), t=times, jobs=st.integers(1, 4))
    def plan_at_earliest_fits(self, data: st.DataObject, t: int, jobs: int) -> None:
        # A queue planned as conservative backfilling plans it: each job at its earliest fit in turn.
        for _ in range(jobs):
            demand = self.demand(data)
            d = data.draw(durations, label="duration")
            expected = self.model.earliest_fit(t, demand, d)
            if expected is None:  # a contiguous run the machine never has
                before = _state(self.profile)
                with pytest.raises(ProfileError, match="never placed, even on the empty machine"):
                    self.profile.earliest_fit(t, demand, d)
                assert _state(self.profile)[:2] == before[:2]
                continue
            s = self.profile.earliest_fit(t, demand, d)
            assert s == expected
            self.profile.reserve(s, s + d, demand)
            if d:
                take = self.model.take_over(s, d, demand)
                assert take is not None
                self.model.place(demand, take, s, s + d)

    @rule(data=st.data(), t=times, d=st.integers(1, 12))
    def reserve_anywhere(self, data: st.DataObject, t: int, d: int) -> None:
        demand = self.demand(data)
        s = max(t, self.model.origin)
        take = self.model.take_over(s, d, demand)
        if take is None:
            before = _state(self.profile)
            with pytest.raises(ProfileError, match="is not placed over"):
                self.profile.reserve(s, s + d, demand)
            assert _state(self.profile) == before
        else:
            self.profile.reserve(s, s + d, demand)
            self.model.place(demand, take, s, s + d)

    @rule(data=st.data())
    def unholdable_requests_are_refused(self, data: st.DataObject) -> None:
        request = data.draw(requests(self.machine, holdable=False), label="request")
        reason = self.machine.refusal(request)
        assert reason is not None
        if "has none" in reason:
            with pytest.raises(ParameterError, match="licences; the machine"):
                Demand.of(0, self.machine, request)
            return
        before = _state(self.profile)
        with pytest.raises(ProfileError, match=NEVER):
            self.profile.earliest_fit(0, Demand.of(0, self.machine, request), 1)
        assert _state(self.profile)[:2] == before[:2]

    @precondition(lambda self: self.model.placed)
    @rule(data=st.data())
    def release_tail(self, data: st.DataObject) -> None:
        key = self.some_key(data)
        nodes, amounts, s, e = self.model.placed[key]
        cut = data.draw(st.integers(max(s, self.model.origin), e), label="cut")  # type: ignore[arg-type]
        self.profile.release(cut, e, self.model.demands[key])
        if cut == e:
            return
        if cut <= max(s, self.model.origin):  # nothing of it is left to come
            self.model.forget(key)
        else:
            self.model.placed[key] = (nodes, amounts, s, cut)

    @precondition(lambda self: self.model.placed)
    @rule(data=st.data())
    def release_whole(self, data: st.DataObject) -> None:
        key = self.some_key(data)
        _, _, s, e = self.model.placed[key]
        self.profile.release(s, e, self.model.demands[key])
        self.model.forget(key)

    @precondition(lambda self: self.model.placed)
    @rule(data=st.data(), t=times, limit=st.none() | times)
    def move_earlier(self, data: st.DataObject, t: int, limit: int | None) -> None:
        # Running jobs too: their own placement, which began before the origin, counts as free.
        key = self.some_key(data)
        demand = self.model.demands[key]
        _, _, s, e = self.model.placed[key]
        got = self.profile.earliest_move(t, demand, e - s, current=s, before=limit)
        bound = s if limit is None or limit > s else limit
        fit = self.model.earliest_fit(t, demand, e - s, without=key)
        assert fit is not None  # its own nodes, at the latest
        assert got == (fit if fit < bound else None)
        if got is not None:
            self.profile._move(s, got, e - s, demand)
            take = self.model.take_over(got, e - s, demand, without=key)
            assert take is not None
            self.model.place(demand, take, got, got + e - s)

    @precondition(lambda self: self.has_queued())
    @rule(data=st.data(), new=times)
    def move_anywhere(self, data: st.DataObject, new: int) -> None:
        key = self.some_key(data, queued=True)
        demand = self.model.demands[key]
        _, _, s, e = self.model.placed[key]
        new = max(new, int(self.model.origin))
        take = self.model.take_over(new, e - s, demand, without=key)
        if take is None:
            before = _state(self.profile)
            with pytest.raises(ProfileError, match="is not placed over"):
                self.profile.move(s, new, e - s, demand)
            assert _state(self.profile) == before
        else:
            self.profile.move(s, new, e - s, demand)
            if new != s:
                self.model.place(demand, take, new, new + e - s)

    @precondition(lambda self: self.model.placed)
    @rule(data=st.data(), d=st.integers(1, 12))
    def extend(self, data: st.DataObject, d: int) -> None:
        # A running job planned longer grows on the nodes it holds, or the profile refuses.
        key = self.some_key(data)
        nodes, amounts, s, e = self.model.placed[key]
        low = self.model.low(e, e + d)
        if all((low[n] >= a).all() for n, a in zip(nodes, amounts, strict=True)):
            self.profile.reserve(e, e + d, self.model.demands[key])
            self.model.placed[key] = (nodes, amounts, s, e + d)
        else:
            before = _state(self.profile)
            with pytest.raises(ProfileError, match="cannot run on to"):
                self.profile.reserve(e, e + d, self.model.demands[key])
            assert _state(self.profile) == before

    @precondition(lambda self: self.model.placed)
    @rule(data=st.data(), d=st.integers(1, 12))
    def splitting_or_doubling_a_reservation_is_refused(self, data: st.DataObject, d: int) -> None:
        # A key holds one reservation: neither a hole in it nor a second one elsewhere.
        key = self.some_key(data)
        demand = self.model.demands[key]
        _, _, s, e = self.model.placed[key]
        low = max(s, self.model.origin)
        before = _state(self.profile)
        if e - low >= 3:
            a = data.draw(st.integers(low + 1, e - 2), label="a")  # type: ignore[arg-type]
            with pytest.raises(ProfileError, match="would split"):
                self.profile.release(a, a + 1, demand)
        if low + 1 != e:
            with pytest.raises(ProfileError, match="already holds"):
                self.profile.reserve(low + 1, low + 1 + d, demand)
        assert _state(self.profile) == before

    @rule(dt=st.integers(0, 10))
    def advance(self, dt: int) -> None:
        t = self.model.origin + dt
        self.profile.advance(t)
        self.model.origin = max(self.model.origin, t)
        for key in [k for k, (_, _, _, e) in self.model.placed.items() if e <= t]:
            self.model.forget(key)

    @rule(data=st.data(), a=times, b=times, t=times, d=durations)
    def queries_match(self, data: st.DataObject, a: float, b: float, t: float, d: int) -> None:
        a, b = sorted((max(a, self.model.origin), max(b, self.model.origin)))
        t = max(t, self.model.origin)
        assert np.array_equal(self.profile.free_at(t).amounts, self.model.free_at(t))
        if b > a:
            assert np.array_equal(self.profile.min_free(a, b).amounts, self.model.low(a, b))
            assert np.array_equal(self.profile.max_free(a, b).amounts, self.model.high(a, b))
        # A free amount holds a demand when the policy places it there, as the model says.
        demand = self.demand(data)
        free = self.profile.free_at(t)
        placed = self.model.take(self.model.free_at(t), demand) is not None
        assert (free >= demand) is placed and (demand <= free) is placed
        assert (free < demand) is not placed and (demand > free) is not placed
        # Where it would start, and whether it fits at t, asked without reserving (of a demand
        # placed somewhere: one never placed is refused before it is planned).
        expected = self.model.earliest_fit(t, demand, d)
        if expected is not None:
            assert self.profile.earliest_fit(t, demand, d) == expected
            if d:
                placed_over = self.model.take_over(t, d, demand) is not None
                assert self.profile._fits(t, demand, d) is placed_over

    @rule(dt=st.integers(0, 50))
    def a_copy_is_independent(self, dt: int) -> None:
        copy = self.profile.copy()
        assert _state(copy) == _state(self.profile)
        copy.advance(self.model.origin + dt)
        for key in list(copy._placed):
            placed = copy.placement(key)
            assert placed is not None
            copy.release(max(placed[2], copy.origin), placed[3], self.model.demands[key])
        copy._check()
        assert list(map(lambda step: step[1].tolist(), copy)) == [self.machine.capacities().tolist()]

    @invariant()
    def same_as_the_model(self) -> None:
        if not hasattr(self, "profile"):
            return
        self.profile._check()
        assert self.profile.origin == self.model.origin
        for t, free in self.profile:
            assert np.array_equal(free, self.model.free_at(t))
        for x in self.model.edges():
            if x >= self.model.origin:
                assert np.array_equal(self.profile.free_at(x).amounts, self.model.free_at(x))
        assert sorted(self.profile._placed) == sorted(self.model.placed)
        for key, placed in self.model.placed.items():
            assert self.profile.placement(key) == placed


TestNodeProfileMachine = NodeProfileMachine.TestCase
TestNodeProfileMachine.settings = settings(max_examples=250, stateful_step_count=40, deadline=None)


# -- placement policies ------------------------------------------------------------------------------

rooms = st.lists(st.integers(0, 6), max_size=8).map(lambda r: np.array(r, dtype=np.int64))
counts = st.integers(1, 30)


def _runs(room: IntArray) -> list[tuple[int, int]]:
    """The runs ``[a, b)`` of consecutive nodes with room."""
    runs, start = [], None
    for i, r in enumerate([*room.tolist(), 0]):
        if r and start is None:
            start = i
        elif not r and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _is_a_take(take: IntArray | None, room: IntArray, count: int) -> bool:
    return (
        take is not None
        and take.shape == room.shape
        and take.dtype.kind == "i"
        and bool(((take >= 0) & (take <= room)).all())
        and int(take.sum()) == count
    )


@given(room=rooms, count=counts)
def test_first_and_best_fit_place_whenever_the_room_holds_the_count(room: IntArray, count: int) -> None:
    for policy in (first_fit, best_fit):
        take = policy(room.copy(), count)
        if int(room.sum()) < count:
            assert take is None
        else:
            assert _is_a_take(take, room, count)


@given(room=rooms, count=counts)
def test_first_fit_fills_nodes_in_order(room: IntArray, count: int) -> None:
    take = first_fit(room, count)
    if take is not None:
        used = np.flatnonzero(take)
        # Every node before the last one used is filled as far as it holds.
        assert np.array_equal(take[: used[-1]], room[: used[-1]])


@given(room=rooms, count=counts)
def test_best_fit_takes_the_tightest_node_that_holds_the_job_else_the_fewest_nodes(
    room: IntArray, count: int
) -> None:
    take = best_fit(room, count)
    if take is None:
        return
    used = np.flatnonzero(take).tolist()
    holding = [n for n in range(len(room)) if room[n] >= count]
    if holding:
        tightest = min(holding, key=lambda n: (room[n], n))
        assert used == [tightest]
        return
    # As few nodes as hold the job at all, each filled whole but the one taking the last shares.
    fewest = int(np.searchsorted(np.cumsum(np.sort(room)[::-1]), count)) + 1
    assert len(used) == fewest
    assert sum(take[n] != room[n] for n in used) <= 1


@given(room=rooms, count=counts)
def test_contiguous_takes_the_first_run_that_holds_the_count(room: IntArray, count: int) -> None:
    take = contiguous(room, count)
    holding = [(a, b) for a, b in _runs(room) if int(room[a:b].sum()) >= count]
    if not holding:
        assert take is None
        return
    assert _is_a_take(take, room, count)
    assert take is not None
    a, b = holding[0]
    assert not take[:a].any() and not take[b:].any()
    run = first_fit(room[a:b], count)  # within its run, contiguous fills as first fit does
    assert run is not None
    assert np.array_equal(take[a:b], run)


@pytest.mark.parametrize(
    ("room", "count", "first", "best", "run"),
    [
        ([3, 0, 8, 2, 8], 10, [3, 0, 7, 0, 0], [0, 0, 8, 2, 0], [0, 0, 8, 2, 0]),
        ([8, 3, 0, 5], 4, [4, 0, 0, 0], [0, 0, 0, 4], [4, 0, 0, 0]),
        ([2, 2, 1, 3], 5, [2, 2, 1, 0], [2, 0, 0, 3], [2, 2, 1, 0]),
        ([4, 0, 4], 6, [4, 0, 2], [4, 0, 2], None),
        ([1, 1, 1], 3, [1, 1, 1], [1, 1, 1], [1, 1, 1]),
        ([2, 5, 1], 9, None, None, None),
        ([], 1, None, None, None),
        ([0, 0, 5], 5, [0, 0, 5], [0, 0, 5], [0, 0, 5]),
    ],
)
def test_policies_on_examples(
    room: list[int], count: int, first: list[int] | None, best: list[int] | None, run: list[int] | None
) -> None:
    r = np.array(room, dtype=np.int64)
    for policy, expected in ((first_fit, first), (best_fit, best), (contiguous, run)):
        take = policy(r, count)
        assert (None if take is None else take.tolist()) == expected, policy.__name__


def test_contiguous_can_leave_a_holdable_job_never_placed() -> None:
    # Nodes 0 and 2 have GPUs, node 1 none: two GPU nodes exist but no run of them.
    machine = Machine.parse(["1x4,gpus=1", "1x4", "1x4,gpus=1"])
    request = NodeRequest.nodes(2, gpus_per_node=1)
    assert machine.refusal(request) is None
    demand = Demand.of(1, machine, request)
    assert NodeProfile(machine.capacities()).earliest_fit(0, demand, 5) == 0
    with pytest.raises(ProfileError, match=r"never placed, even on the empty machine \(policy contiguous\)"):
        NodeProfile(machine.capacities(), policy=contiguous).earliest_fit(0, demand, 5)


# -- a policy that answers badly ---------------------------------------------------------------------


def too_short(room: IntArray, count: int) -> IntArray | None:
    return np.array([count], dtype=np.int64)


def over_room(room: IntArray, count: int) -> IntArray | None:
    take = np.zeros_like(room)
    take[0] = max(count, room[0] + 1)
    return take


def wrong_sum(room: IntArray, count: int) -> IntArray | None:
    return room.copy()


def floats(room: IntArray, count: int) -> IntArray | None:
    take = first_fit(room, count)
    return None if take is None else take.astype(np.float64)


def negative(room: IntArray, count: int) -> IntArray | None:
    take = first_fit(room, count)
    if take is None:
        return None
    take[1] += take[0] + 1
    take[0] = -1
    return take


@pytest.mark.parametrize("policy", [too_short, over_room, wrong_sum, floats, negative])
@pytest.mark.parametrize("call", ["reserve", "earliest_fit", "earliest_move", "compare", "move"])
def test_a_policy_that_answers_badly_is_named(policy: Placement, call: str) -> None:
    machine = Machine.parse("4x4")
    p = NodeProfile(machine.capacities(), policy=first_fit)
    held = Demand.of(1, machine, NodeRequest.tasks(2))
    p.reserve(0, 10, held)
    p._policy = policy  # the bad policy decides the next placement only
    before = _state(p)
    demand = Demand.of(2, machine, NodeRequest.tasks(6))
    calls: dict[str, Callable[[], object]] = {
        "reserve": lambda: p.reserve(0, 5, demand),
        "earliest_fit": lambda: p.earliest_fit(0, demand, 5),
        "earliest_move": lambda: p.earliest_move(0, held, 10, current=5),
        "compare": lambda: p.free_at(0) >= demand,
        "move": lambda: p.move(0, 3, 10, held),
    }
    with pytest.raises(ProfileError, match=rf"^placement policy {policy.__name__} answered .* on room "):
        calls[call]()
    assert _state(p)[:2] == before[:2]
    p._check()


def test_a_policy_that_declines_is_no_error() -> None:
    machine = Machine.parse("2x4")
    p = NodeProfile(machine.capacities(), policy=lambda room, count: None)
    demand = Demand.of(1, machine, NodeRequest.tasks(1))
    with pytest.raises(ProfileError, match="is not placed over"):
        p.reserve(0, 5, demand)
    assert not p.free_at(0) >= demand
    with pytest.raises(ProfileError, match="never placed"):
        p.earliest_fit(0, demand, 5)


def test_a_profile_takes_only_a_callable_policy() -> None:
    with pytest.raises(ProfileError, match="policy must be a callable"):
        NodeProfile([[4]], policy="first_fit")  # type: ignore[arg-type]


# -- arguments no profile takes ----------------------------------------------------------------------

_MACHINE = Machine.parse(["2x4,gpus=2", "1x8"])
_GOOD = Demand.of(1, _MACHINE, NodeRequest.tasks(3, gpus_per_task=1))
_NEW = Demand.of(2, _MACHINE, NodeRequest.tasks(2))
_BAD_DEMANDS: list[Any] = [3, NodeRequest.tasks(2), Demand(2, np.array([1]), 2), None]
_BAD_TIMES: list[Any] = [math.nan, math.inf, -math.inf, "3", None]


def _profile() -> NodeProfile:
    p = NodeProfile(_MACHINE.capacities())
    p.reserve(10, 20, _GOOD)
    return p


_CALLS: list[Callable[[NodeProfile, Any], object]] = [
    lambda p, bad: p.reserve(0, 5, bad),
    lambda p, bad: p.release(10, 20, bad),
    lambda p, bad: p.earliest_fit(0, bad, 5),
    lambda p, bad: p.earliest_move(0, bad, 10, current=10),
    lambda p, bad: p.move(10, 0, 10, bad),
]
_TIME_CALLS: list[Callable[[NodeProfile, Any], object]] = [
    lambda p, bad: p.reserve(bad, 30, _NEW),
    lambda p, bad: p.reserve(0, bad, _NEW),
    lambda p, bad: p.release(bad, 20, _GOOD),
    lambda p, bad: p.earliest_fit(bad, _NEW, 5),
    lambda p, bad: p.earliest_fit(0, _NEW, bad),
    lambda p, bad: p.earliest_move(bad, _GOOD, 10, current=10),
    lambda p, bad: p.earliest_move(0, _GOOD, bad, current=10),
    lambda p, bad: p.earliest_move(0, _GOOD, 10, current=bad),
    lambda p, bad: p.earliest_move(0, _GOOD, 10, current=10, before=bad),
    lambda p, bad: p.move(bad, 0, 10, _GOOD),
    lambda p, bad: p.move(10, bad, 10, _GOOD),
    lambda p, bad: p.move(10, 0, bad, _GOOD),
    lambda p, bad: p.advance(bad),
    lambda p, bad: p.free_at(bad),
    lambda p, bad: p.min_free(0, bad),
    lambda p, bad: p.max_free(bad, 5),
]


@pytest.mark.parametrize("bad", _BAD_DEMANDS, ids=repr)
@pytest.mark.parametrize("call", range(len(_CALLS)))
def test_a_demand_no_profile_takes_is_refused(call: int, bad: Any) -> None:
    p = _profile()
    before = _state(p)
    with pytest.raises(ProfileError, match=r"^NodeProfile\.\w+: a Demand over 2 resources is needed, got "):
        _CALLS[call](p, bad)
    assert _state(p) == before


@pytest.mark.parametrize("bad", _BAD_TIMES, ids=repr)
@pytest.mark.parametrize("call", range(len(_TIME_CALLS)))
def test_a_time_no_profile_takes_is_refused(call: int, bad: Any) -> None:
    p = _profile()
    before = _state(p)
    if bad is None and call == 8:  # before=None is the default: no bound
        _TIME_CALLS[call](p, bad)
        assert _state(p)[:2] == before[:2]
        return
    with pytest.raises(ProfileError, match=r"^NodeProfile\.\w+: "):
        _TIME_CALLS[call](p, bad)
    assert _state(p) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.reserve(30, 25, _NEW),
        lambda p: p.release(20, 10, _GOOD),
        lambda p: p.min_free(5, 4),
        lambda p: p.max_free(5, 4),
        lambda p: p.earliest_fit(0, _NEW, -1),
    ],
)
def test_an_interval_ending_before_its_start_is_refused(call: Callable[[NodeProfile], object]) -> None:
    p = _profile()
    before = _state(p)
    with pytest.raises(ProfileError, match=r"^NodeProfile\.\w+: "):
        call(p)
    assert _state(p) == before


@pytest.mark.parametrize(
    ("capacity", "origin"),
    [([4, 4], 0), ([[0], [4]], 0), ([[4, -1]], 0), ([], 0), ([[4]], math.nan), ([[4]], math.inf)],
)
def test_a_profile_is_made_of_a_capacity_array_and_a_finite_origin(capacity: Any, origin: float) -> None:
    with pytest.raises(ProfileError, match=r"^NodeProfile: "):
        NodeProfile(capacity, origin)


def test_reserving_before_the_origin_and_releasing_what_is_not_there_are_refused() -> None:
    p = _profile()
    p.advance(5)
    before = _state(p)
    with pytest.raises(ProfileError, match="before the origin"):
        p.reserve(0, 8, _NEW)
    with pytest.raises(ProfileError, match="job 2 holds no reservation"):
        p.release(5, 8, _NEW)
    with pytest.raises(ProfileError, match="job 2 holds no reservation"):
        p.move(5, 8, 3, _NEW)
    assert _state(p) == before


def test_free_amounts_are_not_reduced_by_a_demand() -> None:
    free = _profile().free_at(0)
    with pytest.raises(TypeError, match="reserve it in the NodeProfile"):
        free - _NEW
    with pytest.raises(TypeError):
        free >= 3  # noqa: B015
    with pytest.raises(TypeError):
        _NEW <= 3  # noqa: B015
    assert free.total().tolist() == [16, 4]
    assert isinstance(free, NodeFree)


# -- what began before the origin --------------------------------------------------------------------


def test_a_running_job_ending_at_the_origin_is_forgotten() -> None:
    machine = Machine.parse("2x4")
    p = NodeProfile(machine.capacities())
    d = Demand.of(1, machine, NodeRequest.tasks(3))
    p.reserve(0, 10, d)
    p.advance(5)
    p.release(5, 10, d)  # it ends now, early
    assert p.placement(1) is None
    assert [(t, f.tolist()) for t, f in p] == [(5, [[4], [4]])]
    p._check()


def test_a_running_job_released_from_before_the_origin_is_forgotten() -> None:
    machine = Machine.parse("2x4")
    p = NodeProfile(machine.capacities())
    d = Demand.of(1, machine, NodeRequest.tasks(3))
    p.reserve(0, 10, d)
    p.advance(5)
    p.release(3, 10, d)
    assert p.placement(1) is None
    p._check()


def test_the_move_search_of_a_running_job_leaves_the_profile_alone() -> None:
    machine = Machine.parse("2x4")
    p = NodeProfile(machine.capacities())
    d = Demand.of(1, machine, NodeRequest.tasks(3))
    p.reserve(0, 10, d)
    p.advance(5)
    before = _state(p)
    assert p.earliest_move(5, d, 10, current=0) is None
    assert _state(p)[:2] == before[:2]
    p._check()


def test_a_failed_move_of_a_running_job_leaves_it_where_it_was() -> None:
    machine = Machine.parse("2x4")
    p = NodeProfile(machine.capacities())
    d = Demand.of(1, machine, NodeRequest.tasks(3))
    p.reserve(0, 10, d)
    p.reserve(10, 30, Demand.of(2, machine, NodeRequest.tasks(8)))
    p.advance(2)
    before = _state(p)
    with pytest.raises(ProfileError, match="is not placed over"):
        p.move(0, 4, 10, d)
    assert _state(p) == before
    p._check()


# -- machines, groups and requests -------------------------------------------------------------------


@given(group=groups(max_count=200, max_cores=256))
def test_a_group_reads_back_its_text(group: NodeGroup) -> None:
    assert NodeGroup.parse(group.text()) == group


@given(machine=machines())
def test_a_machine_reads_back_its_text(machine: Machine) -> None:
    assert Machine.parse(machine.text().split()) == machine
    capacities = machine.capacities()
    assert capacities.shape == (machine.node_count, len(machine.resources))
    assert int(capacities[:, 0].sum()) == machine.cores
    for node in range(machine.node_count):
        group = machine.groups[machine.group_of(node)]
        assert capacities[node].tolist() == [group.amount(n) for n in machine.resources]


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("128x8,memory=12G,gpus=4", NodeGroup(128, 8, {"memory": 12 * GIB, "gpus": 4})),
        (" 2 X 4 , memory = 512M ", NodeGroup(2, 4, {"memory": 512 * 2**10})),
        ("1x1,memory=2048,licences=3", NodeGroup(1, 1, {"memory": 2048, "licences": 3})),
        ("3x2,gpus=0", NodeGroup(3, 2)),
    ],
)
def test_group_texts(text: str, group: NodeGroup) -> None:
    assert NodeGroup.parse(text) == group


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("0x8", "NodeGroup.count must be an int >= 1"),
        ("4x0", "NodeGroup.cores must be an int >= 1"),
        ("8", "must start with COUNTxCORES"),
        ("", "must start with COUNTxCORES"),
        ("8x8,memory=12Q", "unknown unit 'Q'"),
        ("8x8,memory=0", "at least 1 kB"),
        ("8x8,gpus=two", "gpus must be a whole number, got 'two'"),
        ("8x8,gpus=-1", "gpus must be a whole number, got '-1'"),
        ("8x8,gpus=2,gpus=3", "names 'gpus' twice"),
        ("8x8,gpus", "'gpus' is not NAME=AMOUNT"),
        ("8x8,=3", "'=3' is not NAME=AMOUNT"),
        ("8x8,cores=3", "a resource name must be an identifier"),
        ("8x8,my-gpus=3", "a resource name must be an identifier"),
        ("8x8,gpus=²", "gpus must be a whole number"),
        ("8x8,gpus=" + "9" * 30, "below 2**62"),
        ("8x8,gpus=" + "9" * 5000, "gpus must be below 2**62, got 5000 digits"),
        ("9" * 5000 + "x8", "count must be below 2**62, got 5000 digits"),
    ],
)
def test_a_bad_group_text_is_named(text: str, says: str) -> None:
    with pytest.raises(ParameterError) as caught:
        NodeGroup.parse(text)
    assert f"node group {text[:40]!r}" in str(caught.value)
    assert says in str(caught.value)


def test_a_machine_needs_groups() -> None:
    for bad in ([], "4x8", [NodeGroup(1, 1), "1x1"], 3):
        with pytest.raises(ParameterError, match=r"Machine\.groups must be one or more NodeGroup"):
            Machine(bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"Machine\.request must be a callable"):
        Machine([NodeGroup(1, 1)], request=3)  # type: ignore[arg-type]
    for node in (3, 5, -1):
        with pytest.raises(ParameterError, match=rf"^node {node} is not a node of 2x4 1x2$"):
            Machine.parse(["2x4", "1x2"]).group_of(node)


def test_a_machine_lists_its_resources_cores_first() -> None:
    machine = Machine.parse(["1x4,licences=2,gpus=1", "2x8,memory=1G"])
    assert machine.resources == ("cores", "memory", "gpus", "licences")
    assert machine.capacities().tolist() == [[4, 0, 1, 2], [8, GIB, 0, 0], [8, GIB, 0, 0]]
    assert (machine.node_count, machine.cores, machine.text()) == (
        3,
        20,
        "1x4,licences=2,gpus=1 2x8,memory=1G",
    )


@given(machine=machines(), data=st.data())
def test_a_request_is_refused_exactly_when_the_empty_machine_cannot_hold_it(
    machine: Machine, data: st.DataObject
) -> None:
    request = data.draw(requests(machine, holdable=None))
    reason = machine.refusal(request)
    assert (reason is None) == (holds(machine, request) >= request.count)
    if reason is not None and "has none" in reason:
        return
    # The empty machine places it with first fit at once, or never.
    demand = Demand.of(1, machine, request)
    p = NodeProfile(machine.capacities())
    if reason is None:
        assert p.earliest_fit(0, demand, 1) == 0
    else:
        with pytest.raises(ProfileError, match=NEVER):
            p.earliest_fit(0, demand, 1)


@given(machine=machines(), policy=policies(), data=st.data())
def test_a_placement_refusal_is_a_refusal_or_a_policy_that_never_places(
    machine: Machine, policy: Placement, data: st.DataObject
) -> None:
    request = data.draw(requests(machine, holdable=None))
    reason = placement_refusal(machine, policy, request)
    if machine.refusal(request) is not None:
        assert reason == machine.refusal(request)
        return
    empty = NaiveNodes(machine.capacities(), policy)
    placed = empty.take(machine.capacities(), Demand.of(1, machine, request)) is not None
    assert (reason is None) is placed
    if not placed:
        assert reason == f"is never placed by {policy.__name__}, even on the empty machine"
    assert list(machine.totals()) == machine.capacities().sum(axis=0).tolist()


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (NodeRequest.nodes(1, tasks_per_node=9), "asks 9 cores per node; no node has that many"),
        (NodeRequest.tasks(1, cores_per_task=9), "asks 9 cores per task; no node has that many"),
        (NodeRequest.nodes(1, gpus_per_node=3), "asks 3 gpus per node; no node has that many"),
        (
            NodeRequest.tasks(1, cores_per_task=8, gpus_per_task=1),
            "asks a share of 8 cores, 1 gpus per task; no node has that many",
        ),
        (NodeRequest.tasks(21), "asks 21 tasks; the machine holds at most 20 such tasks"),
        (NodeRequest.tasks(3, gpus_per_task=1), "asks 3 tasks; the machine holds at most 2 such tasks"),
        (NodeRequest.nodes(4), "asks 4 nodes; the machine holds at most 3 such nodes"),
        (NodeRequest.nodes(2, gpus_per_node=1), "asks 2 nodes; the machine holds at most 1 such nodes"),
        (NodeRequest.tasks(1, licences=1), "asks licences; the machine 1x4,gpus=2 2x8 has none"),
        (NodeRequest.tasks(20, memory_per_task=GIB), None),  # memory ignored: no group states it
        (NodeRequest.nodes(3, exclusive=True), None),
    ],
)
def test_refusal_reasons(request_: NodeRequest, reason: str | None) -> None:
    assert Machine.parse(["1x4,gpus=2", "2x8"]).refusal(request_) == reason


def test_memory_is_planned_once_a_group_states_it() -> None:
    machine = Machine.parse(["1x4,memory=4", "1x4"])
    request = NodeRequest.tasks(5, memory_per_task=1)
    # Only the node with memory takes tasks asking memory: the other has none of it.
    assert machine.refusal(request) == "asks 5 tasks; the machine holds at most 4 such tasks"
    assert machine.share(request).tolist() == [1, 1]


@pytest.mark.parametrize(
    ("ids", "text"),
    [([], ""), ([3], "3"), ([0, 1], "0-1"), ([0, 1, 2, 4, 7, 8], "0-2 4 7-8"), ([1, 3, 5], "1 3 5")],
)
def test_interval_sets(ids: list[int], text: str) -> None:
    assert interval_set(ids) == text


@given(st.sets(st.integers(0, 60)))
def test_an_interval_set_reads_back_its_ids(ids: set[int]) -> None:
    read: list[int] = []
    for part in interval_set(sorted(ids)).split():
        a, _, b = part.partition("-")
        read += range(int(a), int(b or a) + 1)
    assert read == sorted(ids)


@pytest.mark.parametrize(
    ("requested", "used", "memory"), [(300.5, 7.0, 301), (0.0, 7.2, 8), (-1.0, -1.0, 0), (0.0, 0.0, 0)]
)
def test_tasks_request_reads_the_memory_per_processor(requested: float, used: float, memory: int) -> None:
    job = Job(
        id=1, submit=0.0, processors=4, runtime=1.0, estimate=1.0, requested_memory=requested, memory=used
    )
    assert tasks_request(job) == NodeRequest.tasks(4, memory_per_task=memory)
    assert Machine.parse("2x2").request is tasks_request


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: NodeRequest.tasks(0), "NodeRequest.count must be an int >= 1"),
        (lambda: NodeRequest.tasks(2, cores_per_task=0), "NodeRequest.cores_per_task must be an int >= 1"),
        (lambda: NodeRequest.nodes(2, tasks_per_node=0), "NodeRequest.tasks_per_node must be an int >= 1"),
        (lambda: NodeRequest.tasks(2, gpus_per_task=-1), "NodeRequest.gpus must be an int >= 0"),
        (lambda: NodeRequest.tasks(2.0), "NodeRequest.count must be an int >= 1"),  # type: ignore[arg-type]
        (lambda: NodeRequest(2, (("gpus", 1),)), "NodeRequest.share must name cores first"),
        (lambda: NodeRequest(2, (("cores", 1),), per_node=0), "NodeRequest.per_node must be an int >= 1"),
    ],
)
def test_a_bad_request_is_named(make: Callable[[], object], says: str) -> None:
    with pytest.raises(ParameterError, match=f"^{re.escape(says)}"):
        make()
