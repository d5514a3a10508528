"""The several-resource profile against a naive model of vectors, for one, two and three resources."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from naive import NaiveResourceProfile

from backfill.profile import Profile, ProfileError
from backfill.profile.multi import ResourceProfile
from backfill.workloads.amounts import Amounts

times = st.integers(min_value=0, max_value=40)
durations = st.integers(min_value=0, max_value=15)


def machine_for(capacity: tuple[int, ...]) -> type[RuleBasedStateMachine]:
    """A state machine checking a ResourceProfile of ``capacity`` against the naive model."""
    amounts = st.tuples(*(st.integers(0, c) for c in capacity)).map(Amounts)

    class ResourceProfileMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.profile = ResourceProfile(Amounts(capacity))
            self.model = NaiveResourceProfile(capacity)

        @rule(start=times, duration=durations, a=amounts)
        def reserve(self, start: int, duration: int, a: Amounts) -> None:
            start = max(start, self.model.origin)
            if self.model.fits(start, a, duration):
                self.profile.reserve(start, start + duration, a)
                if duration:
                    self.model.intervals.append((start, start + duration, a))
            else:
                before = list(self.profile)
                with pytest.raises(ProfileError, match="cannot reserve"):
                    self.profile.reserve(start, start + duration, a)
                assert list(self.profile) == before

        @rule(t=times, a=amounts, d=durations)
        def reserve_at_earliest_fit(self, t: int, a: Amounts, d: int) -> None:
            s = self.profile.earliest_fit(t, a, d)
            assert s == self.model.earliest_fit(t, a, d)
            self.profile.reserve(s, s + d, a)
            if d:
                self.model.intervals.append((s, s + d, a))

        @precondition(lambda self: self.model.intervals)
        @rule(data=st.data())
        def release_part(self, data: st.DataObject) -> None:
            k = data.draw(st.integers(0, len(self.model.intervals) - 1))
            s, e, a = self.model.intervals.pop(k)
            cut = data.draw(st.integers(max(s, self.model.origin), e))
            self.profile.release(cut, e, Amounts(a))
            if cut > s:
                self.model.intervals.append((s, cut, a))

        @rule(a=amounts)
        def release_too_much(self, a: Amounts) -> None:
            t = self.model.origin
            free = self.model.free_at(t)
            if any(f + x > c for f, x, c in zip(free, a, capacity, strict=True)):
                before = list(self.profile)
                with pytest.raises(ProfileError, match="cannot release"):
                    self.profile.release(t, t + 1, a)
                assert list(self.profile) == before

        @precondition(lambda self: self.model.intervals)
        @rule(data=st.data())
        def move_earlier(self, data: st.DataObject) -> None:
            k = data.draw(st.integers(0, len(self.model.intervals) - 1))
            s, e, a = self.model.intervals[k]
            t = data.draw(st.integers(self.model.origin, self.model.origin + 40))
            got = self.profile.earliest_move(t, Amounts(a), e - s, current=s)
            del self.model.intervals[k]
            fit = self.model.earliest_fit(t, a, e - s)
            self.model.intervals.insert(k, (s, e, a))
            assert got == (fit if fit < s else None)

        @precondition(lambda self: self.model.intervals)
        @rule(data=st.data())
        def move(self, data: st.DataObject) -> None:
            k = data.draw(st.integers(0, len(self.model.intervals) - 1))
            s, e, a = self.model.intervals[k]
            new = data.draw(st.integers(self.model.origin, self.model.origin + 40))
            del self.model.intervals[k]
            if self.model.fits(new, a, e - s):
                self.profile.move(s, new, e - s, Amounts(a))
                self.model.intervals.append((new, new + e - s, a))
            else:
                before = list(self.profile)
                with pytest.raises(ProfileError):
                    self.profile.move(s, new, e - s, Amounts(a))
                assert list(self.profile) == before  # a failed move changes no resource
                self.model.intervals.append((s, e, a))

        @rule(dt=st.integers(0, 10))
        def advance(self, dt: int) -> None:
            t = self.model.origin + dt
            self.profile.advance(t)
            self.model.origin = max(self.model.origin, t)
            self.model.intervals = [(max(s, t), e, a) for s, e, a in self.model.intervals if e > t]

        @rule(a=times, b=times)
        def min_and_max_free_match(self, a: int, b: int) -> None:
            a, b = sorted((max(a, self.model.origin), max(b, self.model.origin)))
            assume(b > a)
            points = {a} | {x for s, e, _ in self.model.intervals for x in (s, e) if a < x < b}
            frees = [self.model.free_at(x) for x in points]
            assert tuple(self.profile.min_free(a, b)) == tuple(map(min, zip(*frees, strict=True)))
            assert tuple(self.profile.max_free(a, b)) == tuple(map(max, zip(*frees, strict=True)))

        @rule(a=times, b=times, need=amounts)
        def first_below_matches(self, a: int, b: int, need: Amounts) -> None:
            a, b = sorted((max(a, self.model.origin), max(b, self.model.origin)))
            points = sorted({a} | {x for s, e, _ in self.model.intervals for x in (s, e) if a < x < b})
            short = (
                x for x in points if any(f < n for f, n in zip(self.model.free_at(x), need, strict=True))
            )
            assert self.profile.first_below(a, b, need) == (next(short, None) if b > a else None)

        @rule(t=times)
        def free_at_matches(self, t: int) -> None:
            t = max(t, self.model.origin)
            assert tuple(self.profile.free_at(t)) == self.model.free_at(t)

        @rule()
        def copy_is_independent(self) -> None:
            other = self.profile.copy()
            other._check()
            assert list(other) == list(self.profile)
            # Past the last step everything is free (a reservation may end after origin + 100).
            later = max(t for t, _ in other) + 100
            other.reserve(later, later + 1, other.capacity)
            assert self.profile.free_at(later) == self.profile.capacity

        @invariant()
        def representation(self) -> None:
            self.profile._check()

    return ResourceProfileMachine


_MACHINES = {n: machine_for(c) for n, c in {1: (6,), 2: (6, 10), 3: (4, 7, 3)}.items()}
TestOneResource = _MACHINES[1].TestCase
TestTwoResources = _MACHINES[2].TestCase
TestThreeResources = _MACHINES[3].TestCase
for _case in (TestOneResource, TestTwoResources, TestThreeResources):
    _case.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)
del _case


def test_one_resource_answers_as_the_profile_does() -> None:
    plain, multi = Profile(6), ResourceProfile(Amounts((6,)))
    for s, e, w in [(0, 10, 4), (5, 20, 2), (12, 30, 3)]:
        plain.reserve(s, e, w)
        multi.reserve(s, e, Amounts((w,)))
    for t in range(0, 35, 3):
        for w in range(1, 7):
            for d in (0, 1, 7, 25):
                assert multi.earliest_fit(t, Amounts((w,)), d) == plain.earliest_fit(t, w, d)
    assert [(t, f[0]) for t, f in multi] == list(plain)


BAD: list[Any] = [math.nan, math.inf, "3", None]


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.reserve(0, 5, (1, 1)),
        lambda p: p.reserve(0, 5, Amounts((1,))),
        lambda p: p.reserve(0, 5, Amounts((1, -1))),
        lambda p: p.reserve(5, 0, Amounts((1, 1))),
        lambda p: p.reserve(math.nan, 5, Amounts((1, 1))),
        lambda p: p.earliest_fit(0, Amounts((5, 1)), 3),
        lambda p: p.earliest_fit(0, Amounts((1, 1)), -1),
        lambda p: p.earliest_fit(math.inf, Amounts((1, 1)), 3),
        lambda p: p.earliest_move(0, Amounts((1, 1)), 3, current=math.nan),
        lambda p: p.free_at("3"),
        lambda p: p.min_free(5, 0),
        lambda p: p.move(0, 1, 3, Amounts((4, 9))),
    ],
)
def test_bad_arguments_are_refused_and_change_nothing(call: Any) -> None:
    p = ResourceProfile(Amounts((4, 9)))
    p.reserve(0, 5, Amounts((2, 2)))
    before = list(p)
    with pytest.raises(ProfileError, match=r"ResourceProfile\.\w+: |exceed the capacity"):
        call(p)
    assert list(p) == before


@pytest.mark.parametrize("capacity", [(), (0, 4), (4, 2.5), (True,), "44"])
def test_a_capacity_is_one_int_per_resource(capacity: Any) -> None:
    with pytest.raises(ProfileError, match="capacity must be one int >= 1 per resource"):
        ResourceProfile(capacity)
