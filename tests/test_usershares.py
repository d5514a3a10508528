"""Per-user fair-share measures (Vasupongayya §III-C, §V): hand cases, a brute-force oracle, errors."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import workloads

from backfill import Job, Workload, simulate
from backfill.errors import BackfillError
from backfill.measures.usershares import (
    USER_MEASURE_KEYS,
    actual_usage,
    benefit_and_suffer,
    entitled_usage,
    share_balance,
    share_deviation,
    user_measures,
)
from backfill.schedule import RESERVATION_DTYPE, Schedule
from backfill.schedulers import EASY, FCFS, Conservative, Scheduler
from backfill.schedulers.machinery.entitlement import entitled_processors

SCHEDULERS: list[Scheduler] = [FCFS(), EASY(), Conservative()]
HOUR = 3600.0

# (submit, width, start, end, user, group)
Spec = tuple[float, int, float, float, int, int]


def schedule_of(specs: list[Spec], size: int, *, name: str = "hand") -> Schedule:
    """A schedule given outright (the measures do not need it to respect the capacity)."""
    specs = sorted(specs, key=lambda x: x[0])
    # A job that never ran (NaN start and end) has SWF's unknown runtime and estimate, -1.
    jobs = [
        Job(id=i + 1, submit=sub, processors=w, runtime=r, estimate=r, user=u, group=g)
        for i, (sub, w, b, e, u, g) in enumerate(specs)
        for r in [-1.0 if math.isnan(e - b) else e - b]
    ]
    workload = Workload.from_jobs(jobs, size)
    start = np.array([x[2] for x in specs], dtype=np.float64)
    end = np.array([x[3] for x in specs], dtype=np.float64)
    return Schedule(
        workload=workload,
        scheduler=name,
        start=start,
        end=end,
        runtime=end - start,
        estimate=end - start,
        start_order=np.argsort(start, kind="stable"),
        rejected={},
        altered={},
        reservations=np.empty(0, dtype=RESERVATION_DTYPE),
    )


def brute_entitled(
    s: Schedule,
    *,
    by: str = "user",
    shares: dict[int, float] | None = None,
    default_share: float = 1.0,
    capacity: float | None = None,
    period: tuple[float, float] | None = None,
) -> dict[int, float]:
    """Integrate ``entitled_processors`` over every elementary interval, at its midpoint."""
    shares = shares or {}
    cap = float(s.workload.machine_size if capacity is None else capacity)
    t0, t1 = period if period is not None else (-math.inf, math.inf)
    done = [j for j in range(len(s)) if np.isfinite(s.start[j]) and np.isfinite(s.end[j])]
    owner = s.workload.column(by)
    cuts = {float(s.submit[j]) for j in done} | {float(s.end[j]) for j in done}
    cuts |= {t for t in (t0, t1) if math.isfinite(t)}
    out: dict[int, float] = defaultdict(float)
    for a, b in itertools.pairwise(sorted(cuts)):
        if a < t0 or b > t1:
            continue
        mid = (a + b) / 2
        request: dict[int, float] = defaultdict(float)
        for j in done:
            if s.submit[j] <= mid < s.end[j]:
                request[int(owner[j])] += float(s.processors[j])
        users = sorted(request)
        got = entitled_processors(
            [request[u] for u in users], [shares.get(u, default_share) for u in users], cap
        )
        for u, e in zip(users, got, strict=True):
            out[u] += (b - a) * e
    return dict(out)


def brute_present(s: Schedule, by: str, period: tuple[float, float] | None) -> set[int]:
    t0, t1 = period if period is not None else (-math.inf, math.inf)
    owner = s.workload.column(by)
    return {
        int(owner[j])
        for j in range(len(s))
        if np.isfinite(s.end[j]) and (max(s.submit[j], t0) < min(s.end[j], t1) or t0 <= s.submit[j] < t1)
    }


def total_entitlement(s: Schedule, capacity: float, period: tuple[float, float] | None) -> float:
    """∫ min(capacity, total request) dt over the period."""
    t0, t1 = period if period is not None else (-math.inf, math.inf)
    done = np.isfinite(s.end)
    cuts = sorted(
        {*s.submit[done].tolist(), *s.end[done].tolist()} | {t for t in (t0, t1) if math.isfinite(t)}
    )
    total = 0.0
    for a, b in itertools.pairwise(cuts):
        if t0 <= a and b <= t1:
            mid = (a + b) / 2
            demand = s.processors[done & (s.submit <= mid) & (mid < s.end)].sum()
            total += (b - a) * min(capacity, float(demand))
    return total


# ---------------------------------------------------------------------------------------------
# Hand-computed cases
# ---------------------------------------------------------------------------------------------


def three_users() -> Schedule:
    # 128 processors. User 1 asks 10 for 20 minutes then 15 for 40 minutes (the paper's example);
    # user 2 runs 100 wide for the hour; user 3 waits the hour then runs 100 wide for an hour.
    # Users 1 and 2 are in group 7, user 3 in group 8.
    return schedule_of(
        [
            (0.0, 10, 0.0, 1200.0, 1, 7),
            (1200.0, 15, 1200.0, 3600.0, 1, 7),
            (0.0, 100, 0.0, 3600.0, 2, 7),
            (0.0, 100, 3600.0, 7200.0, 3, 8),
        ],
        size=128,
    )


def test_three_users_entitled() -> None:
    # [0, 1200)     requests 10, 100, 100: user 1 capped at 10, the others (128 - 10) / 2 = 59
    # [1200, 3600)  requests 15, 100, 100: 15, then 56.5 each
    # [3600, 7200)  user 3 alone: its 100
    s = three_users()
    got = entitled_usage(s)
    assert got[1] == pytest.approx(10 * 1200 + 15 * 2400)  # 48,000 = 800 processor-minutes
    assert got[1] / 60 == pytest.approx(800.0)
    assert got[2] == pytest.approx(59 * 1200 + 56.5 * 2400)
    assert got[3] == pytest.approx(59 * 1200 + 56.5 * 2400 + 100 * 3600)
    assert list(got) == [1, 2, 3]
    assert actual_usage(s) == {1: 48_000.0, 2: 360_000.0, 3: 360_000.0}
    dev = share_deviation(s)
    assert dev == pytest.approx({1: 0.0, 2: 360_000.0 - 206_400.0, 3: 360_000.0 - 566_400.0})
    assert share_balance(dev, threshold=100_000.0) == pytest.approx((1 / 3, 1 / 3))
    assert share_balance(dev, threshold=200_000.0) == pytest.approx((1 / 3, 0.0))


def test_three_users_period_cuts_intervals() -> None:
    s = three_users()
    period = (600.0, 4200.0)
    got = entitled_usage(s, period=period)
    assert got == pytest.approx({1: 42_000.0, 2: 171_000.0, 3: 171_000.0 + 60_000.0})
    assert actual_usage(s, period=period) == {1: 42_000.0, 2: 300_000.0, 3: 60_000.0}
    # A period where only user 3 is present.
    assert entitled_usage(s, period=(5000.0, 6000.0)) == {3: 100_000.0}


def test_three_users_unequal_shares() -> None:
    # Shares 1, 3, 1 in [0, 1200): user 1 capped at 10; 118 left over shares 4 is 29.5 a share,
    # below user 2's cap 100 / 3, so user 2 gets 88.5 and user 3 29.5. In [1200, 3600): user 1 15,
    # 113 / 4 = 28.25 a share: user 2 84.75, user 3 28.25.
    s = three_users()
    got = entitled_usage(s, shares={2: 3.0})
    assert got[1] == pytest.approx(48_000.0)
    assert got[2] == pytest.approx(88.5 * 1200 + 84.75 * 2400)
    assert got[3] == pytest.approx(29.5 * 1200 + 28.25 * 2400 + 100 * 3600)
    # default_share scales everyone not named: user 2 at 1 against the others at 1/3 is the same.
    assert entitled_usage(s, shares={2: 1.0}, default_share=1 / 3) == pytest.approx(got)


def test_three_users_groups_and_capacity() -> None:
    # Group 7 (users 1 and 2) requests 110 then 115, group 8 100: 64 each for the hour.
    s = three_users()
    assert entitled_usage(s, by="group") == pytest.approx({7: 64 * 3600.0, 8: 64 * 3600.0 + 360_000.0})
    assert actual_usage(s, by="group") == {7: 408_000.0, 8: 360_000.0}
    # A 30-processor machine: a third each for the hour (user 1's 15 is above 10), then 30.
    got = entitled_usage(s, capacity=30)
    assert got == pytest.approx({1: 36_000.0, 2: 36_000.0, 3: 36_000.0 + 108_000.0})
    # 36 processors: 10 + 13 + 13 for 20 minutes, then 12 each for 40 minutes, then 36.
    got = entitled_usage(s, capacity=36)
    assert got == pytest.approx({1: 40_800.0, 2: 44_400.0, 3: 44_400.0 + 129_600.0})
    assert entitled_usage(s, capacity=0) == {1: 0.0, 2: 0.0, 3: 0.0}


def test_three_users_measures() -> None:
    s = three_users()
    m = user_measures(s)
    assert list(m) == [1, 2, 3]
    assert all(list(v) == list(USER_MEASURE_KEYS) for v in m.values())
    assert m[3]["jobs"] == 1.0 and m[3]["max_wait"] == 3600.0 and m[3]["mean_bsld"] == 2.0
    assert m[1]["jobs"] == 2.0 and m[1]["mean_wait"] == 0.0 and m[1]["dev"] == pytest.approx(0.0)
    assert m[2]["dev"] == pytest.approx(153_600.0)
    assert m[3]["usage"] - m[3]["entitled"] == pytest.approx(m[3]["dev"])
    # Over (1000, 4000) only user 1's second job was submitted; users 2 and 3 still have a dev.
    m = user_measures(s, period=(1000.0, 4000.0))
    assert m[1]["jobs"] == 1.0 and m[1]["max_wait"] == 0.0
    assert m[2]["jobs"] == 0.0 and math.isnan(m[2]["max_wait"]) and math.isnan(m[2]["mean_bsld"])
    assert m[3]["dev"] == pytest.approx(400 * 100 - (200 * 59 + 2400 * 56.5 + 400 * 100))


def test_bounded_slowdown_bound() -> None:
    # A 10 s job waiting 50 s: response 60 s, slowdown 60 / max(10, bound).
    s = schedule_of([(0.0, 1, 50.0, 60.0, 1, 1)], size=1)
    assert user_measures(s)[1]["mean_bsld"] == 1.0
    assert user_measures(s, bound=10.0)[1]["mean_bsld"] == 6.0


def test_only_completed_jobs_count() -> None:
    s = schedule_of([(0.0, 2, 0.0, 10.0, 1, 1), (0.0, 2, math.nan, math.nan, 2, 1)], size=2)
    assert entitled_usage(s) == {1: 20.0}
    assert user_measures(s)[1]["dev"] == 0.0
    assert entitled_usage(schedule_of([(0.0, 2, math.nan, math.nan, 2, 1)], size=2)) == {}
    assert user_measures(schedule_of([(0.0, 2, math.nan, math.nan, 2, 1)], size=2)) == {}


def test_zero_length_job_is_present_with_nothing() -> None:
    s = schedule_of([(5.0, 2, 5.0, 5.0, 1, 1), (0.0, 2, 0.0, 10.0, 2, 1)], size=2)
    assert entitled_usage(s) == {1: 0.0, 2: 20.0}
    assert user_measures(s)[1]["jobs"] == 1.0


# ---------------------------------------------------------------------------------------------
# share_balance and benefit_and_suffer
# ---------------------------------------------------------------------------------------------


def test_share_balance_threshold_is_strict() -> None:
    dev = {1: -180_000.0, 2: -180_001.0, 3: 180_000.5, 4: 0.0}
    assert share_balance(dev) == (0.25, 0.25)
    assert share_balance(dev, threshold=0.0) == (0.5, 0.25)
    assert all(math.isnan(x) for x in share_balance({}))


def two_policies() -> tuple[Schedule, Schedule]:
    # Max waits: user 1 0 -> 11 h (suffers), user 2 20 h -> 5 h (benefits), user 3 5 h -> 5 h + 1 s.
    def build(waits: dict[int, float], name: str) -> Schedule:
        specs = [
            (0.0, 1, 0.0, 10.0, 1, 1),
            (0.0, 1, waits[1], waits[1] + 10.0, 1, 1),
            (0.0, 1, waits[2], waits[2] + 10.0, 2, 1),
            (0.0, 1, waits[3], waits[3] + 10.0, 3, 2),
        ]
        return schedule_of(specs, size=4, name=name)

    return build({1: 0.0, 2: 20 * HOUR, 3: 5 * HOUR}, "base"), build(
        {1: 11 * HOUR, 2: 5 * HOUR, 3: 5 * HOUR + 1}, "other"
    )


def test_benefit_and_suffer() -> None:
    base, other = two_policies()
    assert benefit_and_suffer(base, other) == pytest.approx((1 / 3, 1 / 3))
    assert benefit_and_suffer(base, other, threshold=0.0) == pytest.approx((1 / 3, 2 / 3))
    assert benefit_and_suffer(base, base, threshold=0.0) == (0.0, 0.0)
    assert benefit_and_suffer(other, base) == pytest.approx((1 / 3, 1 / 3))
    # Only the first job of each user: user 1's first job never waits, so nobody changes ...
    first = np.array([True, False, True, True])
    assert benefit_and_suffer(base, other, jobs=first) == pytest.approx((1 / 3, 0.0))
    # ... and without user 2's job the users are 1 and 3.
    no_two = np.array([True, True, False, True])
    assert benefit_and_suffer(base, other, jobs=no_two) == pytest.approx((0.0, 0.5))
    assert all(math.isnan(x) for x in benefit_and_suffer(base, other, jobs=np.zeros(4, dtype=bool)))
    # by group: group 1 (users 1, 2) max 20 h -> 11 h benefits; group 2 is user 3.
    assert benefit_and_suffer(base, other, by="group", threshold=0.0) == pytest.approx((0.5, 0.5))


def test_benefit_and_suffer_on_simulations() -> None:
    # EASY lets job 3 (user 3) backfill at once where FCFS holds it behind the 2-wide job 2.
    jobs = [
        Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0, user=1),
        Job(id=2, submit=1.0, processors=2, runtime=100.0, estimate=100.0, user=2),
        Job(id=3, submit=2.0, processors=1, runtime=10.0, estimate=10.0, user=3),
    ]
    w = Workload.from_jobs(jobs, machine_size=2)
    fcfs, easy = simulate(w, FCFS()), simulate(w, EASY())
    assert benefit_and_suffer(fcfs, easy, threshold=0.0) == pytest.approx((1 / 3, 0.0))
    assert benefit_and_suffer(easy, fcfs, threshold=0.0) == pytest.approx((0.0, 1 / 3))
    assert benefit_and_suffer(fcfs, easy, threshold=197.0) == pytest.approx((1 / 3, 0.0))
    assert benefit_and_suffer(fcfs, easy, threshold=198.0) == (0.0, 0.0)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("period", [(5.0, 5.0), (6.0, 5.0), (math.nan, 1.0), (0.0, math.inf), (1.0,), "ab"])
def test_bad_period(period: object) -> None:
    s = three_users()
    for fn in (entitled_usage, actual_usage, share_deviation, user_measures):
        with pytest.raises(BackfillError, match="period"):
            fn(s, period=period)  # type: ignore[operator]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"shares": {2: 0.0}}, "shares"),
        ({"shares": {2: -1.0}}, "shares"),
        ({"shares": {99: math.nan}}, "shares"),
        ({"shares": {2: "x"}}, "shares"),
        ({"default_share": 0.0}, "shares"),
        ({"default_share": math.inf}, "shares"),
        ({"by": "project"}, "by"),
        ({"capacity": -1.0}, "capacity"),
        ({"capacity": math.nan}, "capacity"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    s = three_users()
    for fn in (entitled_usage, share_deviation, user_measures):
        with pytest.raises(BackfillError, match=match):
            fn(s, **kwargs)  # type: ignore[operator]


def test_other_errors() -> None:
    s = three_users()
    with pytest.raises(BackfillError, match="by"):
        actual_usage(s, by="account")
    with pytest.raises(BackfillError, match="slowdown bound"):
        user_measures(s, bound=0.0)
    with pytest.raises(BackfillError, match="threshold"):
        share_balance({1: 0.0}, threshold=-1.0)
    base, other = two_policies()
    with pytest.raises(BackfillError, match="threshold"):
        benefit_and_suffer(base, other, threshold=math.nan)
    with pytest.raises(BackfillError, match="same jobs"):
        benefit_and_suffer(base, s)
    with pytest.raises(BackfillError, match="mask"):
        benefit_and_suffer(base, other, jobs=np.ones(3, dtype=bool))
    with pytest.raises(BackfillError, match="mask"):
        benefit_and_suffer(base, other, jobs=np.ones(4))
    with pytest.raises(BackfillError, match="by"):
        benefit_and_suffer(base, other, by="x")


# ---------------------------------------------------------------------------------------------
# Against the brute force
# ---------------------------------------------------------------------------------------------


@st.composite
def owned_schedules(draw: st.DrawFn) -> Schedule:
    """A small simulated schedule whose jobs belong to a few users and groups."""
    w = draw(workloads(max_jobs=18, too_wide=True))
    records = w.records.copy()
    n = len(records)
    records["user"] = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    records["group"] = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return simulate(Workload.from_records(records, w.machine_size), draw(st.sampled_from(SCHEDULERS)))


@st.composite
def periods(draw: st.DrawFn) -> tuple[float, float] | None:
    if draw(st.booleans()):
        return None
    # Half-seconds cut the whole-second intervals of the workloads.
    t0 = draw(st.integers(-10, 120)) / 2
    return t0, t0 + draw(st.integers(1, 160)) / 2


share_maps = st.dictionaries(st.integers(0, 4), st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0, 0.7, 5.5]))


@settings(max_examples=300, deadline=None)
@given(
    s=owned_schedules(),
    by=st.sampled_from(["user", "group"]),
    shares=share_maps,
    default_share=st.sampled_from([1.0, 0.3, 2.0]),
    capacity=st.one_of(st.none(), st.integers(0, 20).map(float)),
    period=periods(),
)
def test_entitled_matches_brute_force(
    s: Schedule,
    by: str,
    shares: dict[int, float],
    default_share: float,
    capacity: float | None,
    period: tuple[float, float] | None,
) -> None:
    kwargs = {
        "by": by,
        "shares": shares,
        "default_share": default_share,
        "capacity": capacity,
        "period": period,
    }
    got = entitled_usage(s, **kwargs)  # type: ignore[arg-type]
    expected = brute_entitled(s, **kwargs)  # type: ignore[arg-type]
    assert set(got) == brute_present(s, by, period)
    assert set(expected) <= set(got)
    for key, value in got.items():
        assert value == pytest.approx(expected.get(key, 0.0), rel=1e-9, abs=1e-7)
    cap = float(s.workload.machine_size if capacity is None else capacity)
    assert sum(got.values()) == pytest.approx(total_entitlement(s, cap, period), rel=1e-9, abs=1e-7)
    usage = actual_usage(s, by=by, period=period)
    dev = share_deviation(s, **kwargs)  # type: ignore[arg-type]
    assert list(usage) == list(got) == list(dev)
    for key in got:
        assert dev[key] == pytest.approx(usage[key] - got[key], abs=1e-7)
    measures = user_measures(s, **kwargs)  # type: ignore[arg-type]
    assert list(measures) == list(got)
    for key, m in measures.items():
        assert m["dev"] == pytest.approx(dev[key], abs=1e-7)


@settings(max_examples=300, deadline=None)
@given(s=owned_schedules(), period=periods())
def test_usage_and_waits_match_definitions(s: Schedule, period: tuple[float, float] | None) -> None:
    t0, t1 = period if period is not None else (-math.inf, math.inf)
    user = s.workload.column("user")
    usage: dict[int, float] = defaultdict(float)
    waits: dict[int, list[float]] = defaultdict(list)
    for j in range(len(s)):
        if np.isfinite(s.end[j]):
            usage[int(user[j])] += s.processors[j] * max(0.0, min(s.end[j], t1) - max(s.start[j], t0))
            if t0 <= s.submit[j] < t1:
                waits[int(user[j])].append(float(s.start[j] - s.submit[j]))
    got = actual_usage(s, period=period)
    assert got == pytest.approx({u: usage[u] for u in got})
    measures = user_measures(s, period=period)
    for u, m in measures.items():
        assert m["jobs"] == len(waits[u])
        if waits[u]:
            assert m["max_wait"] == max(waits[u])
            assert m["mean_wait"] == pytest.approx(sum(waits[u]) / len(waits[u]))
            assert m["mean_bsld"] >= 1.0
        else:
            assert math.isnan(m["max_wait"])


@st.composite
def wide_schedules(draw: st.DrawFn) -> tuple[Schedule, dict[int, float]]:
    """Up to 60 jobs of up to 12 users, placed at random (capacity ignored), with random shares."""
    n = draw(st.integers(1, 60))
    size = draw(st.integers(1, 64))
    specs: list[Spec] = []
    for _ in range(n):
        submit = float(draw(st.integers(0, 200)))
        start = submit + draw(st.integers(0, 50))
        end = start + draw(st.integers(0, 80))
        specs.append((submit, draw(st.integers(1, size)), start, float(end), draw(st.integers(0, 11)), 0))
    shares = draw(st.dictionaries(st.integers(0, 11), st.floats(0.05, 20.0)))
    return schedule_of(specs, size=size), shares


@settings(max_examples=150, deadline=None)
@given(case=wide_schedules(), period=periods())
def test_many_users_match_brute_force(
    case: tuple[Schedule, dict[int, float]], period: tuple[float, float] | None
) -> None:
    s, shares = case
    got = entitled_usage(s, shares=shares, period=period)
    expected = brute_entitled(s, shares=shares, period=period)
    assert set(expected) <= set(got)
    for key, value in got.items():
        assert value == pytest.approx(expected.get(key, 0.0), rel=1e-9, abs=1e-6)
