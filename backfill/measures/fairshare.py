"""Resource-equality fairness: each job's fair share of the processors in use against what it received.

Rajbhandary, Bunde and Leung (2013, §3.2), after Raz et al. and Sabin and Sadayappan:
every *active* job (arrived, not yet completed) deserves an equal share of the processors *in use*,
never more than it asked for. For job ``i`` with arrival ``a_i`` (submit), completion ``c_i`` (end)
and width ``p_i``:

* unweighted fair share (eq. 1): ``F_i = ∫_{a_i}^{c_i} min(util(t) / active(t), p_i) dt``;
* weighted fair share (eq. 2): ``W_i = ∫_{a_i}^{c_i} min(p_i / P(t) * util(t), p_i) dt``,

where ``util(t)`` is the number of processors in use at ``t`` (jobs with ``start <= t < end``, so a
job of zero runtime occupies nothing), ``active(t)`` the number of jobs with ``a_j <= t < c_j`` and
``P(t)`` the sum of their widths. The resources a job received are ``p_i * runtime_i``.

The cap in eq. 2 never binds: running jobs are active, so ``util(t) <= P(t)`` and
``W_i = p_i ∫ util / P dt``. Summed over the jobs, the weighted shares then give out exactly the
processor-time used, ``Σ W_i = ∫ util = Σ p_i runtime_i``, for every schedule; the signed unfairness
``W_i - R_i`` always averages to zero. A job's "perception of unfairness is the amount less than
this that it receives", so :func:`fair_share_unfairness` averages ``max(0, share - received)``, as
the paper does with its fair-start-time metrics (§3.1). The unweighted shares give out at most the
processor-time used (``Σ F_i <= Σ R_i``).

Only completed jobs (finite start and end) take part: a rejected or unfinished job is neither active
nor running, and its entries are NaN. All functions are O(n log n) in the number of jobs.

Examples:
    >>> from backfill import Job, Workload, simulate
    >>> from backfill.schedulers import FCFS
    >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
    ...         Job(id=2, submit=0.0, processors=2, runtime=10.0, estimate=10.0)]
    >>> s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
    >>> fair_shares(s).tolist(), resources_received(s).tolist()
    ([10.0, 30.0], [20.0, 20.0])
    >>> fair_share_unfairness(s)
    5.0
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backfill.schedule import Schedule

__all__ = ["fair_share_unfairness", "fair_shares", "resources_received"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _completed(s: Schedule) -> npt.NDArray[np.bool_]:
    return np.isfinite(s.start) & np.isfinite(s.end)


def _per_interval(
    submit: FloatArray, start: FloatArray, end: FloatArray, width: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, IntArray, IntArray]:
    """Split time at every submit, start and end; return per-interval length, util, active, P and job bounds.

    Interval ``k`` is ``[T[k], T[k+1])``; job ``i`` is active over intervals ``lo[i] .. hi[i] - 1``.
    Every rate is constant inside an interval, so each integral is a sum over intervals.
    """
    times = np.unique(np.concatenate([submit, start, end]))
    m = max(times.size - 1, 0)
    lo = np.searchsorted(times, submit)
    hi = np.searchsorted(times, end)
    on = np.searchsorted(times, start)

    def level(first: IntArray, last: IntArray, weight: FloatArray) -> FloatArray:
        # A difference array: weight enters at its first interval and leaves at its last + 1.
        delta = np.bincount(first, weight, m + 1) - np.bincount(last, weight, m + 1)
        return np.asarray(np.cumsum(delta)[:m], dtype=np.float64)

    length = np.diff(times)
    util = level(on, hi, width)
    active = level(lo, hi, np.ones_like(width))
    demand = level(lo, hi, width)
    return length, util, active, demand, lo, hi


def capped_sums(
    rate: FloatArray, length: FloatArray, lo: IntArray, hi: IntArray, cap: FloatArray
) -> FloatArray:
    """Return ``Σ_{lo_i <= k < hi_i} length_k * min(rate_k, cap_i)`` for every query ``i``.

    Split at the cap, the sum is ``Σ length*rate`` over the intervals with ``rate <= cap`` plus ``cap``
    times the length of the others: a range sum restricted to values below a threshold, which each
    query has its own of. A wavelet matrix over the rate ranks answers all of them together: one level
    per bit of the rank, from the highest, each a stable partition of the intervals by that bit. At a
    level where the threshold's bit is 1, the query's intervals whose bit is 0 are below it whatever
    their lower bits, so their sum is taken and the query follows the 1s; otherwise it follows the 0s.
    O((m + n) log m) for ``m`` intervals and ``n`` queries, every level a whole-array operation.
    """
    m = rate.size
    by_rate = np.argsort(rate, kind="stable")
    rank = np.empty(m, dtype=np.int64)
    rank[by_rate] = np.arange(m)
    # The intervals of rank below the threshold are exactly those with rate <= cap, ties included.
    threshold = np.searchsorted(rate[by_rate], cap, side="right").astype(np.int64)
    left, right = lo.astype(np.int64), hi.astype(np.int64)
    below_area = np.zeros(lo.size)
    below_length = np.zeros(lo.size)
    # The columns travel in the current level's order, so a level reads them without a gather.
    ranks, lengths, areas = rank, length, length * rate
    # Thresholds run up to m itself, so the ranks get as many bits as m has.
    for bit in reversed(range(max(m.bit_length(), 1))):
        zero = ((ranks >> bit) & 1) == 0
        zeros = np.concatenate([[0], np.cumsum(zero)])
        zero_area = np.concatenate([[0.0], np.cumsum(areas * zero)])
        zero_length = np.concatenate([[0.0], np.cumsum(lengths * zero)])
        take = ((threshold >> bit) & 1) == 1
        below_area += np.where(take, zero_area[right] - zero_area[left], 0.0)
        below_length += np.where(take, zero_length[right] - zero_length[left], 0.0)
        z_left, z_right = zeros[left], zeros[right]
        left = np.where(take, zeros[-1] + left - z_left, z_left)
        right = np.where(take, zeros[-1] + right - z_right, z_right)
        one = ~zero
        ranks = np.concatenate([ranks[zero], ranks[one]])
        lengths = np.concatenate([lengths[zero], lengths[one]])
        areas = np.concatenate([areas[zero], areas[one]])
    prefix_length = np.concatenate([[0.0], np.cumsum(length)])
    above_length = prefix_length[hi] - prefix_length[lo] - below_length
    return np.asarray(below_area + cap * above_length, dtype=np.float64)


def fair_shares(s: Schedule, *, weighted: bool = False) -> FloatArray:
    """Return each job's fair share of the processors in use, in processor-seconds (eq. 1 or 2).

    Args:
        s: A simulated schedule.
        weighted: Share the processors in use in proportion to the widths of the active jobs
            (eq. 2) rather than equally (eq. 1).

    Returns:
        One fair share per row of the workload; NaN for jobs that did not complete.

    Complexity:
        O(n log n) time and O(n) memory for n jobs.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=1, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=3, runtime=10.0, estimate=10.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())
        >>> fair_shares(s).tolist(), fair_shares(s, weighted=True).tolist()
        ([10.0, 20.0], [10.0, 30.0])
    """
    done = _completed(s)
    out = np.full(len(s), np.nan)
    if not done.any():
        return out
    width = s.processors[done].astype(np.float64)
    length, util, active, demand, lo, hi = _per_interval(s.submit[done], s.start[done], s.end[done], width)
    if weighted:
        # No processor is in use while no job is active, so 0/0 only happens where it is worth 0.
        rate = np.divide(util, demand, out=np.zeros_like(util), where=demand > 0)
        cum = np.concatenate([[0.0], np.cumsum(length * rate)])
        out[done] = width * (cum[hi] - cum[lo])
    else:
        rate = np.divide(util, active, out=np.zeros_like(util), where=active > 0)
        out[done] = capped_sums(rate, length, lo, hi, width)
    return out


def resources_received(s: Schedule) -> FloatArray:
    """Return the processor-seconds each job received: width times the runtime it ran for.

    Args:
        s: A simulated schedule.

    Returns:
        One value per row of the workload; NaN for jobs that did not complete.

    Complexity:
        O(n).

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=3, runtime=10.0, estimate=20.0),
        ...         Job(id=2, submit=0.0, processors=9, runtime=1.0, estimate=1.0)]
        >>> resources_received(simulate(Workload.from_jobs(jobs, machine_size=4), FCFS())).tolist()
        [30.0, nan]
    """
    done = _completed(s)
    return np.where(done, s.processors * np.where(done, s.runtime, 0.0), np.nan)


def fair_share_unfairness(s: Schedule, *, weighted: bool = False) -> float:
    """Return the average unfairness: the mean over completed jobs of max(0, fair share - received).

    The clamp is what makes the measure mean anything: unclamped, the weighted values sum to exactly
    zero over the jobs of every schedule (see the module documentation), so the paper's "amount less
    than this that it receives" counts only shortfalls. The signed values are
    ``fair_shares(s, weighted=...) - resources_received(s)``.

    Args:
        s: A simulated schedule.
        weighted: Use the weighted fair share (eq. 2) instead of the unweighted one (eq. 1).

    Returns:
        The average unfairness in processor-seconds; NaN if no job completed.

    Complexity:
        As :func:`fair_shares`.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import FCFS
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=10.0),
        ...         Job(id=2, submit=0.0, processors=2, runtime=10.0, estimate=10.0)]
        >>> s = simulate(Workload.from_jobs(jobs, machine_size=2), FCFS())
        >>> fair_share_unfairness(s), fair_share_unfairness(s, weighted=True)
        (5.0, 5.0)
    """
    done = _completed(s)
    if not done.any():
        return float("nan")
    shortfall = fair_shares(s, weighted=weighted)[done] - resources_received(s)[done]
    return float(np.maximum(shortfall, 0.0).mean())
