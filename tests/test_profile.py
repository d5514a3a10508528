"""The Profile against a naive model: a plain list of reservations, checked after every step."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from naive import NaiveProfile

from backfill.profile import Profile, ProfileError

CAPACITY = 6
BAD_TIMES: list[Any] = [math.nan, math.inf, -math.inf, "3", None]
BAD_WIDTHS: list[Any] = [-1, 2.5, 2.0, True, np.float64(2.0), "2", None]
BAD_DURATIONS: list[Any] = [math.nan, math.inf, -1.0, "1", None]
times = st.integers(min_value=0, max_value=40)
widths = st.integers(min_value=1, max_value=CAPACITY)
durations = st.integers(min_value=0, max_value=15)


@pytest.mark.parametrize(
    ("reservations", "expected"),
    [
        # Room for 4 from 10 to 13: a window of one ulp over 3 starting at 10 ends at 13 once rounded,
        # so it fits although the run is shorter than the duration.
        ([(0, 10, 1), (13, 20, 1)], 10.0),
        # From 0 the same window ends past 3, where the step is too full: the next run long enough
        # is at 5, before the run at 12 that reaches the job's reservation.
        ([(3, 5, 1), (9, 12, 1)], 5.0),
    ],
)
def test_earliest_moves_rounds_as_the_search_does(
    reservations: list[tuple[int, int, int]], expected: float
) -> None:
    p = Profile(4)
    for s, e, w in reservations:
        p.reserve(s, e, w)
    d = float(np.nextafter(3.0, 4.0))
    assert p.earliest_move(0, 4, d, current=30) == expected
    assert p.earliest_moves(0, np.array([4]), np.array([d]), np.array([30.0])).tolist() == [expected]


class ProfileMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.profile = Profile(CAPACITY)
        self.model = NaiveProfile(CAPACITY)

    @rule(start=times, duration=durations, p=widths)
    def reserve(self, start: int, duration: int, p: int) -> None:
        start = max(start, self.model.origin)
        end = start + duration
        ok = duration == 0 or self.model.fits(start, p, duration)
        if ok:
            self.profile.reserve(start, end, p)
            if duration:
                self.model.intervals.append((start, end, p))
        else:
            with pytest.raises(ProfileError):
                self.profile.reserve(start, end, p)

    @rule(t=times, p=widths, d=durations)
    def reserve_at_earliest_fit(self, t: int, p: int, d: int) -> None:
        s = self.profile.earliest_fit(t, p, d)
        assert s == self.model.earliest_fit(t, p, d)
        self.profile.reserve(s, s + d, p)
        if d:
            self.model.intervals.append((s, s + d, p))

    @precondition(lambda self: self.model.intervals)
    @rule(data=st.data())
    def release_part(self, data: st.DataObject) -> None:
        k = data.draw(st.integers(0, len(self.model.intervals) - 1))
        s, e, p = self.model.intervals.pop(k)
        cut = data.draw(st.integers(max(s, self.model.origin), e))
        self.profile.release(cut, e, p)
        if cut > s:
            self.model.intervals.append((s, cut, p))

    @rule(p=widths)
    def release_too_much(self, p: int) -> None:
        t = self.model.origin
        if self.model.free_at(t) + p > CAPACITY:
            with pytest.raises(ProfileError):
                self.profile.release(t, t + 1, p)

    @precondition(lambda self: self.model.intervals)
    @rule(data=st.data())
    def move_earlier(self, data: st.DataObject) -> None:
        k = data.draw(st.integers(0, len(self.model.intervals) - 1))
        s, e, p = self.model.intervals[k]
        t = data.draw(st.integers(self.model.origin, self.model.origin + 40))
        got = self.profile.earliest_move(t, p, e - s, current=s)
        # The definition: remove the job, find its earliest fit, keep it only if earlier.
        del self.model.intervals[k]
        fit = self.model.earliest_fit(t, p, e - s)
        self.model.intervals.insert(k, (s, e, p))
        assert got == (fit if fit < s else None)

    @precondition(lambda self: self.model.intervals)
    @rule(data=st.data())
    def move(self, data: st.DataObject) -> None:
        k = data.draw(st.integers(0, len(self.model.intervals) - 1))
        s, e, p = self.model.intervals[k]
        new = data.draw(st.integers(self.model.origin, self.model.origin + 40))
        del self.model.intervals[k]
        if self.model.fits(new, p, e - s):
            self.profile.move(s, new, e - s, p)
            self.model.intervals.append((new, new + e - s, p))
        else:
            with pytest.raises(ProfileError):
                self.profile.move(s, new, e - s, p)
            self.model.intervals.append((s, e, p))

    @rule(data=st.data(), t=times, d=st.integers(1, 15), p=widths)
    def bad_arguments_change_nothing(self, data: st.DataObject, t: int, d: int, p: int) -> None:
        t = max(t, self.model.origin)
        time = data.draw(st.sampled_from(BAD_TIMES), label="time")
        width = data.draw(st.sampled_from([-p, *BAD_WIDTHS]), label="width")
        duration = data.draw(st.sampled_from(BAD_DURATIONS), label="duration")
        calls: list[Callable[[Profile], object]] = [
            lambda q: q.reserve(t + d, t, p),
            lambda q: q.release(t + d, t, p),
            lambda q: q.reserve(t, t + d, width),
            lambda q: q.release(t, t + d, width),
            lambda q: q.reserve(time, t + d, p),
            lambda q: q.release(t, time, p),
            lambda q: q.move(t, t + 1, d, width),
            lambda q: q.move(time, t, d, p),
            lambda q: q.move(t, time, d, p),
            lambda q: q.move(t, t + 1, duration, p),
            lambda q: q.earliest_fit(time, p, d),
            lambda q: q.earliest_fit(t, width, d),
            lambda q: q.earliest_fit(t, p, duration),
            lambda q: q.earliest_move(t, p, duration, current=t + d),
            lambda q: q.earliest_move(t, width, d, current=t + d),
            lambda q: q.earliest_move(t, p, d, current=time),
            lambda q: q.earliest_moves(t, np.array([p]), np.array([duration]), np.array([t + d])),
            lambda q: q.advance(time),
            lambda q: q.free_at(time),
            lambda q: q.min_free(t + d, t),
            lambda q: q.max_free(t, time),
            lambda q: q.first_below(t, t + d, width),
            lambda q: q.free_run_end(t, np.array([p]), until=time),
        ]
        call = data.draw(st.sampled_from(calls), label="call")
        before, examined = list(self.profile), self.profile.examined
        with pytest.raises(ProfileError, match=r"^Profile\.\w+: "):
            call(self.profile)
        assert list(self.profile) == before and self.profile.examined == examined

    @rule(s=times, d=st.integers(1, 15), p=widths, new=times)
    def moving_what_is_not_there_is_refused(self, s: int, d: int, p: int, new: int) -> None:
        s = max(s, self.model.origin)
        points = {s} | {x for a, b, _ in self.model.intervals for x in (a, b) if s < x < s + d}
        assume(max(self.model.free_at(x) for x in points) + p > CAPACITY)
        before = list(self.profile)
        with pytest.raises(ProfileError, match="no reservation of"):
            self.profile.move(s, new, d, p)
        assert list(self.profile) == before

    @rule(dt=st.integers(0, 10))
    def advance(self, dt: int) -> None:
        t = self.model.origin + dt
        self.profile.advance(t)
        self.model.origin = max(self.model.origin, t)
        self.model.intervals = [(max(s, t), e, p) for s, e, p in self.model.intervals if e > t]

    @rule(t=times, p=widths, d=durations)
    def earliest_fit_matches(self, t: int, p: int, d: int) -> None:
        assert self.profile.earliest_fit(t, p, d) == self.model.earliest_fit(t, p, d)

    @rule(a=times, b=times)
    def min_free_matches(self, a: int, b: int) -> None:
        a, b = sorted((max(a, self.model.origin), max(b, self.model.origin)))
        assume(b > a)
        points = {a} | {x for s, e, _ in self.model.intervals for x in (s, e) if a < x < b}
        assert self.profile.min_free(a, b) == min(self.model.free_at(x) for x in points)
        assert self.profile.max_free(a, b) == max(self.model.free_at(x) for x in points)

    @rule(a=times, b=times, p=widths)
    def first_below_matches(self, a: int, b: int, p: int) -> None:
        a, b = sorted((max(a, self.model.origin), max(b, self.model.origin)))
        points = sorted({a} | {x for s, e, _ in self.model.intervals for x in (s, e) if a < x < b})
        expected = next((x for x in points if self.model.free_at(x) < p), None) if b > a else None
        assert self.profile.first_below(a, b, p) == expected

    @rule(a=times, b=times)
    def free_runs_match(self, a: int, b: int) -> None:
        # Every width at once, as the compression asks; the model checks each at every boundary.
        m = self.model
        ws = np.arange(1, CAPACITY + 1)

        def points(lo: float, hi: float) -> list[float]:
            return sorted({lo} | {x for s, e, _ in m.intervals for x in (s, e) if lo < x < hi})

        since = max(a, m.origin)
        starts = self.profile.free_run_start(b, ws, since=a).tolist()
        for w, got in zip(ws.tolist(), starts, strict=True):
            if since >= b:
                assert got == since
                continue
            room = [x for x in points(since, b) if all(m.free_at(y) >= w for y in points(x, b))]
            assert got == (room[0] if room else b)
        time = max(a, m.origin)
        ends = self.profile.free_run_end(a, ws, until=b).tolist()
        for w, got in zip(ws.tolist(), ends, strict=True):
            if time >= b:
                assert got == b
                continue
            assert got == next((x for x in points(time, b) if m.free_at(x) < w), b)

    @rule(
        t=times,
        extra=st.lists(st.tuples(widths, durations, times), max_size=6),
        shape=st.sampled_from(["whole", "half", "nudged"]),
    )
    def earliest_moves_match(self, t: int, extra: list[tuple[int, int, int]], shape: str) -> None:
        # Every reservation as a job planned there, and some that are not in the profile at all.
        # Half durations fall between steps; durations one ulp above a whole number make run lengths
        # that rounding cannot tell from them, which only a search settles.
        jobs = [(p, e - s, s) for s, e, p in self.model.intervals] + extra
        assume(jobs)
        ws = np.array([p for p, _, _ in jobs], dtype=np.int64)
        ds = np.array([d for _, d, _ in jobs], dtype=np.float64)
        ds = ds / 2 if shape == "half" else np.nextafter(ds, np.inf) if shape == "nudged" else ds
        cs = np.array([c for _, _, c in jobs], dtype=np.float64)
        got = self.profile.earliest_moves(t, ws, ds, cs).tolist()
        for w, d, c, g in zip(ws.tolist(), ds.tolist(), cs.tolist(), got, strict=True):
            one = self.profile.earliest_move(t, w, d, current=c)
            assert g == (np.inf if one is None else one)

    @rule(t=times, p=widths, d=durations)
    def searches_count_the_steps_they_examine(self, t: int, p: int, d: int) -> None:
        # A search looks at least at the step it starts in and never at more steps than exist.
        before = self.profile.examined
        self.profile.earliest_fit(t, p, d)
        spent = self.profile.examined - before
        assert (0 if d == 0 else 1) <= spent <= len(self.profile)

    @invariant()
    def same_step_function(self) -> None:
        self.profile._check()
        assert self.profile.origin == self.model.origin
        steps = list(self.profile)
        for t, f in steps:
            assert self.model.free_at(t) == f
        # Between breakpoints nothing changes: every model boundary agrees with the step it is in.
        for s, e, _ in self.model.intervals:
            for x in (s, e):
                if x >= self.model.origin:
                    assert self.profile.free_at(x) == self.model.free_at(x)


TestProfileMachine = ProfileMachine.TestCase
TestProfileMachine.settings = settings(max_examples=200, stateful_step_count=30, deadline=None)


def test_wider_than_capacity_is_an_error() -> None:
    with pytest.raises(ProfileError, match="exceed the capacity"):
        Profile(4).earliest_fit(0, 5, 1)


def test_reserve_before_origin_is_an_error() -> None:
    p = Profile(4, origin=10)
    with pytest.raises(ProfileError, match="before the profile origin"):
        p.reserve(5, 20, 1)


def test_failed_reserve_leaves_profile_unchanged() -> None:
    p = Profile(4)
    p.reserve(0, 10, 3)
    before = list(p)
    with pytest.raises(ProfileError):
        p.reserve(5, 15, 2)
    assert list(p) == before
    p._check()


@given(st.lists(st.tuples(times, durations, widths), max_size=30))
def test_reserving_at_earliest_fit_never_fails(jobs: list[tuple[int, int, int]]) -> None:
    p = Profile(CAPACITY)
    for t, d, w in jobs:
        s = p.earliest_fit(t, w, d)
        assert s >= t
        p.reserve(s, s + d, w)
        p._check()
    # Each planned job adds at most two breakpoints.
    assert len(p) <= 2 * len(jobs) + 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Each of these did nothing, or something wrong, without a word.
        (lambda p: p.reserve(0, 10, -2), "Profile.reserve: processors must be an int >= 0, got -2"),
        (lambda p: p.reserve(10, 0, 2), "Profile.reserve: end must be at or after start (10), got 0"),
        (lambda p: p.earliest_fit(0, 2, math.nan), "Profile.earliest_fit: duration must be a finite number"),
        (lambda p: p.move(0, 5, 10, 2), "Profile.move: no reservation of 2 processors over [0, 10) to move"),
        (lambda p: p.reserve(0, 10, 2.5), "Profile.reserve: processors must be an int >= 0, got 2.5"),
        (lambda p: p.reserve(0, math.nan, 2), "Profile.reserve: end must be a finite number, got nan"),
        (lambda p: p.release(0, 10, True), "Profile.release: processors must be an int >= 0, got True"),
        (lambda p: p.advance(math.inf), "Profile.advance: time must be a finite number, got inf"),
        (lambda p: p.free_at(math.nan), "Profile.free_at: time must be a finite number, got nan"),
        (
            lambda p: p.earliest_move(0, 2, 5, current=math.nan),
            "Profile.earliest_move: current must be a finite number, got nan",
        ),
        (
            lambda p: p.earliest_move(0, 2, 5, current=9, before=math.nan),
            "Profile.earliest_move: before must be a number (inf: no bound) or None, got nan",
        ),
        (
            lambda p: Profile(0),
            "Profile.__init__: capacity must be an int >= 1, below 2**62 (MAX_AMOUNT), got 0",
        ),
        (
            lambda p: Profile(8.0),
            "Profile.__init__: capacity must be an int >= 1, below 2**62 (MAX_AMOUNT), got 8.0",
        ),  # type: ignore[arg-type]
        (lambda p: Profile(8, origin=math.nan), "Profile.__init__: origin must be a finite number, got nan"),
        (
            lambda p: p.earliest_moves(0, np.array([2, 1]), np.array([5.0, math.nan]), np.array([9.0, 9.0])),
            "Profile.earliest_moves: each job needs a width >= 0, a finite duration >= 0 and a finite start, "
            "got job 1: (1, nan, 9.0)",
        ),
        (
            lambda p: p.earliest_moves(0, np.array([2.0]), np.array([5.0]), np.array([9.0])),
            "Profile.earliest_moves: widths must be a one-dimensional array of ints, got float64 (1,)",
        ),
    ],
)
def test_an_argument_no_profile_takes_is_refused(call: Callable[[Profile], object], message: str) -> None:
    p = Profile(8)
    p.reserve(20, 30, 4)
    before = list(p)
    with pytest.raises(ProfileError) as caught:
        call(p)
    assert str(caught.value).startswith(message)
    assert list(p) == before
    p._check()


def test_numpy_widths_are_taken_as_ints() -> None:
    p = Profile(np.int64(8))
    p.reserve(np.float64(0), 10, np.int64(3))
    p.move(0, np.float64(5), 10, np.int32(3))
    assert list(p) == [(0, 8), (5, 5), (15, 8)]
    p._check()
    assert type(p.capacity) is int and all(type(f) is int for _, f in p)


def test_a_move_checks_the_reservation_is_there_even_in_place() -> None:
    p = Profile(8)
    p.reserve(0, 10, 3)
    p.move(0, 0, 10, 3)  # in place: nothing to do
    with pytest.raises(ProfileError, match=r"over \[0, 12\) to move: 8 of 8 are free there"):
        p.move(0, 0, 12, 3)
    assert list(p) == [(0, 5), (10, 8)]
