"""Per-user fair-share measures of a finished schedule: entitled share, usage, dev, who benefits.

Vasupongayya (§III-C, §V), over any period ``[t0, t1)``. The *entitled share* of a user is the
integral of its entitled processors: at every instant the ``capacity`` is water-filled among the
*active* users (a job waiting or running, in ``[submit, end)``) by share, nobody getting more than it
requests (the widths of its active jobs), as
:func:`backfill.schedulers.machinery.entitlement.entitled_processors` does
("10 nodes for 20 minutes then 15 for 40 minutes" is 800 node-minutes). *Usage* is the
processor-time its jobs ran; *dev* is usage minus entitled share (positive: over-share, negative:
under-share), which Table V thresholds at 50 node-hours (:func:`share_balance`). Table III's users
who *benefit* or *suffer* compare maximum waits between two policies (:func:`benefit_and_suffer`);
Tables II and IV give each user's dev beside the waits and bounded slowdown (1-minute bound) of the
jobs it submitted in the period (:func:`user_measures`).

Where the paper is silent: only completed jobs (finite start and end) count; jobs are clipped to the
period, so one submitted before it still weighs on it while waiting or running; the users reported
are those with a completed job active in the period or submitted in it. Units are processors and
seconds: with a node as one processor, 50 node-hours are 180,000 processor-seconds. ``by="group"``
measures groups instead of users. See ``docs/user-shares.md``.

Processors only, as the paper's shares are: a schedule that planned resources besides processors
(memory) is measured by its jobs' processors, and what else they held counts nowhere here (the
command line says so beside these columns).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.measures.fairshare import capped_sums
from backfill.measures.metrics import bounded_slowdowns
from backfill.schedule import Schedule

__all__ = [
    "USER_MEASURE_KEYS",
    "actual_usage",
    "benefit_and_suffer",
    "entitled_usage",
    "share_balance",
    "share_deviation",
    "user_measures",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The keys of each user's entry in :func:`user_measures`, in order.
USER_MEASURE_KEYS = ("jobs", "dev", "max_wait", "mean_wait", "mean_bsld", "usage", "entitled")


class _Scope(NamedTuple):
    """The completed jobs that touch a period, as arrays aligned with each other."""

    keys: IntArray  # the user (or group) ids present, sorted
    who: IntArray  # each job's index into keys
    rows: IntArray  # each job's row in the workload
    done_pos: IntArray  # each job's position among the completed jobs (bounded_slowdowns' order)
    width: IntArray
    active_from: FloatArray  # max(submit, t0)
    active_to: FloatArray  # min(end, t1)
    submitted: BoolArray  # submitted inside the period
    t0: float
    t1: float


def _check_by(by: str) -> None:
    if by not in ("user", "group"):
        raise BackfillError(f"by must be 'user' or 'group', got {by!r}")


def _scope(s: Schedule, by: str, period: tuple[float, float] | None) -> _Scope:
    _check_by(by)
    if period is None:
        t0, t1 = -math.inf, math.inf
    else:
        try:
            t0, t1 = (float(t) for t in period)
        except (TypeError, ValueError) as e:
            raise BackfillError(f"period must be a pair of times (t0, t1), got {period!r}") from e
        if not (math.isfinite(t0) and math.isfinite(t1) and t0 < t1):
            raise BackfillError(f"period must be finite times with t0 < t1, got {period!r}")
    done = np.flatnonzero(np.isfinite(s.start) & np.isfinite(s.end))
    submit, end = s.submit[done], s.end[done]
    active_from, active_to = np.maximum(submit, t0), np.minimum(end, t1)
    submitted = (submit >= t0) & (submit < t1)
    present = np.flatnonzero((active_from < active_to) | submitted)
    keys, who = np.unique(s.workload.column(by)[done[present]].astype(np.int64), return_inverse=True)
    rows = done[present]
    width = s.processors[rows].astype(np.int64)
    return _Scope(
        keys,
        who.astype(np.int64),
        rows,
        present,
        width,
        active_from[present],
        active_to[present],
        submitted[present],
        t0,
        t1,
    )


def _request_segments(sc: _Scope) -> tuple[FloatArray, IntArray, IntArray, IntArray, FloatArray]:
    """Split each user's request into constant pieces on the grid of all event times.

    Returns the grid ``T`` and, per segment (a maximal stretch where one user's request is constant
    and positive), its user, its first and past-the-last interval (interval ``k`` is
    ``[T[k], T[k+1])``) and its request. The events sorted by (user, time), a single cumulative sum
    gives every user's request, since each user's +width and -width events cancel within its block.
    """
    live = sc.active_from < sc.active_to
    times = np.concatenate([sc.active_from[live], sc.active_to[live]])
    owner = np.concatenate([sc.who[live], sc.who[live]])
    delta = np.concatenate([sc.width[live], -sc.width[live]])
    order = np.lexsort((times, owner))
    times, owner, delta = times[order], owner[order], delta[order]
    first = np.ones(times.size, dtype=np.bool_)
    first[1:] = (owner[1:] != owner[:-1]) | (times[1:] != times[:-1])
    at = np.flatnonzero(first)
    times, owner = times[at], owner[at]
    request = np.cumsum(np.add.reduceat(delta, at)) if at.size else np.zeros(0, dtype=np.int64)
    # A user's last event brings its request to 0, so a positive request is followed by its own end.
    seg = np.flatnonzero(request > 0)
    grid = np.unique(times)
    lo = np.searchsorted(grid, times[seg]).astype(np.int64)
    hi = np.searchsorted(grid, times[seg + 1]).astype(np.int64)
    return grid, owner[seg], lo, hi, request[seg].astype(np.float64)


def _water_levels(
    m: int, lo: IntArray, hi: IntArray, request: FloatArray, share: FloatArray, capacity: float
) -> FloatArray:
    """Return the water level of each of ``m`` intervals: every segment gets ``min(share * L, request)``.

    Where the requests fit in the capacity, the level is the largest cap (nobody is capped). Elsewhere
    the level is found by a binary search on the caps ``request / share``, sorted, of *all* segments:
    ``g(j) = R_<j + cap_(j-1) * S_>=j`` (sums over the segments active in the interval, ``R`` of
    requests, ``S`` of shares, by cap rank) is the total handed out at level ``cap_(j-1)`` and grows
    with ``j``; for the largest ``j`` with ``g(j) <= capacity``, ``L = (capacity - R_<j) / S_>=j``.
    The segments active in interval ``k`` are the prefix, up to ``k``, of +segment events at ``lo``
    and -segment events at ``hi``, so the sums restricted to a rank range are signed prefix sums. A
    wavelet matrix over the events' ranks runs the binary searches of all intervals together, one
    bit of ``j`` per level, as :func:`backfill.measures.fairshare.capped_sums` does for its thresholds.
    O((m + M) log M) for ``M`` segments.
    """
    cap = request / share
    total = np.cumsum(np.bincount(lo, request, m + 1) - np.bincount(hi, request, m + 1))[:m]
    level = np.full(m, float(cap.max()) if cap.size else 0.0)
    contended = np.flatnonzero(total > capacity)
    if not contended.size:
        return level
    n_seg = cap.size
    by_cap = np.argsort(cap, kind="stable")
    rank = np.empty(n_seg, dtype=np.int64)
    rank[by_cap] = np.arange(n_seg)
    sorted_caps = cap[by_cap]
    interval = np.concatenate([lo, hi])
    order = np.argsort(interval, kind="stable")
    ranks = np.concatenate([rank, rank])[order]
    reqs = np.concatenate([request, -request])[order]
    shares = np.concatenate([share, -share])[order]
    right = np.searchsorted(interval[order], contended, side="right").astype(np.int64)
    left = np.zeros_like(right)
    share_total = np.concatenate([[0.0], np.cumsum(shares)])[right]
    j = np.zeros_like(right)
    req_below = np.zeros(contended.size)
    share_below = np.zeros(contended.size)
    for bit in reversed(range(max(n_seg.bit_length(), 1))):
        zero = ((ranks >> bit) & 1) == 0
        zeros = np.concatenate([[0], np.cumsum(zero)])
        zero_req = np.concatenate([[0.0], np.cumsum(np.where(zero, reqs, 0.0))])
        zero_share = np.concatenate([[0.0], np.cumsum(np.where(zero, shares, 0.0))])
        # The zeros of this node are the ranks [j, j + 2**bit): all capped if g(j + 2**bit) <= capacity.
        r_in = zero_req[right] - zero_req[left]
        s_in = zero_share[right] - zero_share[left]
        step = j + (1 << bit)
        theta = sorted_caps[np.minimum(step, n_seg) - 1]
        handed = req_below + r_in + theta * (share_total - share_below - s_in)
        take = (step <= n_seg) & (handed <= capacity)
        j = np.where(take, step, j)
        req_below += np.where(take, r_in, 0.0)
        share_below += np.where(take, s_in, 0.0)
        z_left, z_right = zeros[left], zeros[right]
        left = np.where(take, zeros[-1] + left - z_left, z_left)
        right = np.where(take, zeros[-1] + right - z_right, z_right)
        one = ~zero
        ranks = np.concatenate([ranks[zero], ranks[one]])
        reqs = np.concatenate([reqs[zero], reqs[one]])
        shares = np.concatenate([shares[zero], shares[one]])
    level[contended] = (capacity - req_below) / (share_total - share_below)
    return level


def _positive_share(value: object, whose: str) -> float:
    try:
        share = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise BackfillError(f"shares must be numbers, got {value!r} for {whose}") from e
    if not (math.isfinite(share) and share > 0):
        raise BackfillError(f"shares must be finite and > 0, got {value!r} for {whose}")
    return share


def _shares_of(keys: IntArray, shares: Mapping[int, float] | None, default_share: float) -> FloatArray:
    default = _positive_share(default_share, "default_share")
    given = {int(k): _positive_share(v, f"id {k!r}") for k, v in (shares or {}).items()}
    return np.array([given.get(k, default) for k in keys.tolist()], dtype=np.float64)


def _entitled(
    s: Schedule,
    sc: _Scope,
    shares: Mapping[int, float] | None,
    default_share: float,
    capacity: float | None,
) -> FloatArray:
    share = _shares_of(sc.keys, shares, default_share)
    cap_total = float(s.workload.machine_size if capacity is None else capacity)
    if not (math.isfinite(cap_total) and cap_total >= 0):
        raise BackfillError(f"capacity must be finite and >= 0, got {capacity!r}")
    grid, owner, lo, hi, request = _request_segments(sc)
    if not owner.size:
        return np.zeros(sc.keys.size)
    seg_share = share[owner]
    level = _water_levels(grid.size - 1, lo, hi, request, seg_share, cap_total)
    area = seg_share * capped_sums(level, np.diff(grid), lo, hi, request / seg_share)
    return np.bincount(owner, area, minlength=sc.keys.size).astype(np.float64)


def _usage(s: Schedule, sc: _Scope) -> FloatArray:
    ran = np.minimum(s.end[sc.rows], sc.t1) - np.maximum(s.start[sc.rows], sc.t0)
    return np.bincount(sc.who, sc.width * np.maximum(ran, 0.0), minlength=sc.keys.size).astype(np.float64)


def _as_dict(keys: IntArray, values: FloatArray) -> dict[int, float]:
    return dict(zip(keys.tolist(), values.tolist(), strict=True))


def entitled_usage(
    s: Schedule,
    *,
    by: str = "user",
    shares: Mapping[int, float] | None = None,
    default_share: float = 1.0,
    capacity: float | None = None,
    period: tuple[float, float] | None = None,
) -> dict[int, float]:
    """Return each user's cumulated entitled share over the period, in processor-seconds.

    At every instant the ``capacity`` is water-filled among the users with a completed job in
    ``[submit, end)`` (waiting or running), each requesting the widths of those jobs; the result is
    the integral, exactly that of :func:`~backfill.schedulers.machinery.entitlement.entitled_processors`
    interval by interval. The entitlements of all users add up to the integral of
    ``min(capacity, total request)``.

    Args:
        s: A simulated schedule.
        by: ``"user"`` or ``"group"``: the workload column that says who owns each job.
        shares: Each user's share, by id; ids not in it get ``default_share``.
        default_share: The share of the ids ``shares`` does not name.
        capacity: Processors divided at each instant; the workload's machine size if None.
        period: ``(t0, t1)``, the time span integrated over; the whole schedule if None.

    Returns:
        The entitled share of every user present in the period (a completed job active or submitted
        in it), in increasing id order; 0 for a user whose only jobs there had zero length.

    Raises:
        BackfillError: If ``by`` is unknown, the period is not finite with ``t0 < t1``, a share is not
            positive and finite, or the capacity is negative or not finite.

    Complexity:
        O(n log n) time and O(n) memory for n jobs (a binary search per interval run as a wavelet
        matrix over the users' request segments, then :func:`~backfill.measures.fairshare.capped_sums`).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0, user=1),
        ...         Job(id=2, submit=0.0, processors=4, runtime=10.0, estimate=10.0, user=2)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> entitled_usage(s)  # 0-10: 2 procs each; 10-20: user 2 alone gets its 4
        {1: 20.0, 2: 60.0}
        >>> entitled_usage(s, shares={2: 3.0}, period=(0.0, 10.0))  # capped at 1 proc, then 3
        {1: 10.0, 2: 30.0}
    """
    sc = _scope(s, by, period)
    return _as_dict(sc.keys, _entitled(s, sc, shares, default_share, capacity))


def actual_usage(
    s: Schedule, *, by: str = "user", period: tuple[float, float] | None = None
) -> dict[int, float]:
    """Return the processor-seconds each user's jobs ran inside the period.

    Args:
        s: A simulated schedule.
        by: ``"user"`` or ``"group"``.
        period: ``(t0, t1)``; the whole schedule if None.

    Returns:
        Width times the part of ``[start, end)`` inside the period, summed per user, for the users of
        :func:`entitled_usage` (0 for one that only waited).

    Raises:
        BackfillError: If ``by`` is unknown or the period is not finite with ``t0 < t1``.

    Complexity:
        O(n log n) (the users are sorted).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0, user=1),
        ...         Job(id=2, submit=0.0, processors=4, runtime=10.0, estimate=10.0, user=2)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> actual_usage(s), actual_usage(s, period=(5.0, 15.0))
        ({1: 20.0, 2: 40.0}, {1: 10.0, 2: 20.0})
    """
    sc = _scope(s, by, period)
    return _as_dict(sc.keys, _usage(s, sc))


def share_deviation(
    s: Schedule,
    *,
    by: str = "user",
    shares: Mapping[int, float] | None = None,
    default_share: float = 1.0,
    capacity: float | None = None,
    period: tuple[float, float] | None = None,
) -> dict[int, float]:
    """Return the paper's *dev*: each user's usage minus its entitled share, in processor-seconds.

    Positive is an over-share, negative an under-share. The arguments are those of
    :func:`entitled_usage`, and so are the users.

    Raises:
        BackfillError: As :func:`entitled_usage`.

    Complexity:
        As :func:`entitled_usage`.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0, user=1),
        ...         Job(id=2, submit=0.0, processors=4, runtime=10.0, estimate=10.0, user=2)]
        >>> share_deviation(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()))
        {1: 0.0, 2: -20.0}
    """
    sc = _scope(s, by, period)
    dev = _usage(s, sc) - _entitled(s, sc, shares, default_share, capacity)
    return _as_dict(sc.keys, dev)


def _check_threshold(threshold: float) -> None:
    if not (math.isfinite(threshold) and threshold >= 0):
        raise BackfillError(f"threshold must be finite and >= 0, got {threshold!r}")


def share_balance(deviation: Mapping[int, float], threshold: float = 50 * 3600.0) -> tuple[float, float]:
    """Return the fractions of users under-shared and over-shared by more than ``threshold`` (Table V).

    Args:
        deviation: dev by user, as :func:`share_deviation` returns it.
        threshold: In processor-seconds; the paper's 50 node-hours by default.

    Returns:
        ``(under, over)``: the fractions of the users with ``dev < -threshold`` and with
        ``dev > threshold``; NaN for both if there is no user.

    Raises:
        BackfillError: If ``threshold`` is negative or not finite.

    Complexity:
        O(u) for u users.

    Examples:
        >>> share_balance({1: -200_000.0, 2: 10.0, 3: 190_000.0, 4: -5.0})
        (0.25, 0.25)
    """
    _check_threshold(threshold)
    dev = np.fromiter(deviation.values(), dtype=np.float64, count=len(deviation))
    if not dev.size:
        return float("nan"), float("nan")
    return float(np.mean(dev < -threshold)), float(np.mean(dev > threshold))


def benefit_and_suffer(
    baseline: Schedule,
    other: Schedule,
    *,
    threshold: float = 10 * 3600.0,
    jobs: npt.ArrayLike | None = None,
    by: str = "user",
) -> tuple[float, float]:
    """Return the fractions of users who benefit and suffer under ``other`` against ``baseline`` (Table III).

    Each user's maximum wait is taken over its jobs selected by ``jobs`` that completed in both
    schedules; the user benefits if the maximum drops by more than ``threshold`` and suffers if it
    grows by more (the paper uses 10 hours and 0).

    Args:
        baseline: The reference schedule (FCFS-backfill in the paper).
        other: A schedule of the same workload under another policy.
        threshold: In seconds.
        jobs: Boolean mask over the workload's rows (e.g. the jobs submitted in a month); all if None.
        by: ``"user"`` or ``"group"``.

    Returns:
        ``(benefit, suffer)`` as fractions of the users with at least one such job; NaN for both if
        there is none.

    Raises:
        BackfillError: If the schedules are not of the same jobs, the mask has the wrong shape, the
            threshold is negative or not finite, or ``by`` is unknown.

    Complexity:
        O(n log n) for n jobs.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS, EASY
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=100.0, estimate=100.0, user=1),
        ...         Job(id=2, submit=1.0, processors=2, runtime=100.0, estimate=100.0, user=2),
        ...         Job(id=3, submit=2.0, processors=1, runtime=10.0, estimate=10.0, user=3)]
        >>> w = Workload.from_jobs(jobs, machine_size=2)
        >>> fcfs, easy = simulate(w, FCFS()), simulate(w, EASY())  # EASY backfills job 3 at once
        >>> benefit_and_suffer(fcfs, easy, threshold=0.0), benefit_and_suffer(fcfs, easy)
        ((0.3333333333333333, 0.0), (0.0, 0.0))
    """
    _check_threshold(threshold)
    _check_by(by)
    same = len(baseline) == len(other) and all(
        np.array_equal(baseline.workload.column(name), other.workload.column(name))
        for name in ("id", "submit", "processors", by)
    )
    if not same:
        raise BackfillError("benefit_and_suffer needs two schedules of the same jobs")
    mask = np.ones(len(baseline), dtype=np.bool_) if jobs is None else np.asarray(jobs)
    if mask.shape != (len(baseline),) or mask.dtype != np.bool_:
        raise BackfillError(f"jobs must be a boolean mask of {len(baseline)} rows, got shape {mask.shape}")
    done = [np.isfinite(x.start) & np.isfinite(x.end) for x in (baseline, other)]
    rows = np.flatnonzero(mask & done[0] & done[1])
    if not rows.size:
        return float("nan"), float("nan")
    _, who = np.unique(baseline.workload.column(by)[rows], return_inverse=True)
    n_users = int(who.max()) + 1
    peaks = []
    for s in (baseline, other):
        peak = np.full(n_users, -np.inf)
        np.maximum.at(peak, who, s.wait[rows])
        peaks.append(peak)
    change = peaks[1] - peaks[0]
    return float(np.mean(change < -threshold)), float(np.mean(change > threshold))


def user_measures(
    s: Schedule,
    *,
    period: tuple[float, float] | None = None,
    bound: float = 60.0,
    by: str = "user",
    shares: Mapping[int, float] | None = None,
    default_share: float = 1.0,
    capacity: float | None = None,
) -> dict[int, dict[str, float]]:
    """Return Vasupongayya's per-user measures (Tables II and IV): dev, waits and bounded slowdown.

    The waits and the bounded slowdown cover the user's completed jobs *submitted* in the period;
    ``dev`` (and ``usage`` and ``entitled``, whose difference it is) covers the period itself, as
    :func:`share_deviation`.

    Args:
        s: A simulated schedule.
        period: ``(t0, t1)``; the whole schedule if None.
        bound: The bounded-slowdown threshold in seconds; the paper's 1 minute by default.
        by: ``"user"`` or ``"group"``.
        shares: Each user's share, by id (see :func:`entitled_usage`).
        default_share: The share of the ids ``shares`` does not name.
        capacity: Processors divided at each instant; the machine size if None.

    Returns:
        For every user of :func:`share_deviation`, in increasing id order, the
        :data:`USER_MEASURE_KEYS`: ``jobs`` (completed jobs submitted in the period), ``dev``,
        ``max_wait``, ``mean_wait`` and ``mean_bsld`` (NaN when ``jobs`` is 0: the user only had
        earlier jobs still waiting or running), ``usage`` and ``entitled``, as floats.

    Raises:
        BackfillError: As :func:`entitled_usage`, or if ``bound`` is not positive.

    Complexity:
        As :func:`entitled_usage`: O(n log n).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=600.0, estimate=600.0, user=1),
        ...         Job(id=2, submit=0.0, processors=4, runtime=600.0, estimate=600.0, user=2)]
        >>> m = user_measures(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS()))
        >>> m[2]["dev"], m[2]["max_wait"], m[2]["mean_bsld"]
        (-1200.0, 600.0, 2.0)
    """
    sc = _scope(s, by, period)
    bsld = bounded_slowdowns(s, bound)[sc.done_pos]
    usage = _usage(s, sc)
    entitled = _entitled(s, sc, shares, default_share, capacity)
    who = sc.who[sc.submitted]
    wait = (s.start - s.submit)[sc.rows][sc.submitted]
    count = np.bincount(who, minlength=sc.keys.size).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_wait = np.bincount(who, wait, minlength=sc.keys.size) / count
        mean_bsld = np.bincount(who, bsld[sc.submitted], minlength=sc.keys.size) / count
    max_wait = np.full(sc.keys.size, -np.inf)
    np.maximum.at(max_wait, who, wait)
    max_wait[count == 0] = np.nan
    columns = (count, usage - entitled, max_wait, mean_wait, mean_bsld, usage, entitled)
    table = np.column_stack(columns).tolist() if sc.keys.size else []
    return {
        key: dict(zip(USER_MEASURE_KEYS, row, strict=True))
        for key, row in zip(sc.keys.tolist(), table, strict=True)
    }
