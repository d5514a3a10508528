"""Synthetic rigid-job workloads from the Lublin-Feitelson model.

Reference:
    U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
    characteristics of rigid jobs", Journal of Parallel and Distributed Computing 63(11):1105-1122,
    2003. The parameter values below are the published ones, as set in the authors' reference
    implementation ``m_lublin99.c`` (distributed with the Parallel Workloads Archive).

The model describes each job class by three independent parts. The reference implementation has
three parameter sets: batch jobs, interactive jobs, and all jobs taken together without a type
(its default when no job types are used); ``job_class`` picks one.

* **Size.** A job is serial with probability ``serial_prob``. Otherwise the log2 of its size is
  drawn from a two-stage uniform distribution: uniform on ``[ulow, umed]`` with probability
  ``uprob``, else uniform on ``[umed, uhi]``. A job is a power-of-two job with probability
  ``pow2_prob`` (of all jobs, so ``pow2_prob / (1 - serial_prob)`` of the parallel ones): its log2
  size is rounded to the nearest integer first. The size is ``round(2 ** log2_size)``. The
  published breakpoints are for a 128-processor machine (``uhi = 7``); for another machine they
  are moved by ``log2(machine_size) - 7``, as the reference implementation tells its users to set
  ``uhi`` to the log2 of the machine size, then clamped to ``0 <= ulow <= umed <= uhi``, and sizes
  are capped at the machine size.
* **Runtime.** The natural log of the runtime follows a hyper-gamma distribution: Gamma(``a1``,
  ``b1``) with probability ``p`` and Gamma(``a2``, ``b2``) otherwise (shape, scale), where
  ``p = pa * size + pb`` clipped to ``[0, 1]``. Since ``pa < 0``, larger jobs more often take the
  long-running second component. Draws above ``ln(runtime) = 12`` (about 45 hours) are redrawn,
  mixture choice included, and the runtime is ``floor(exp(x))`` whole seconds, so at least 1 s.
* **Arrivals.** The natural log of an inter-arrival gap follows Gamma(``aarr * arar``, ``barr``),
  redrawn above 13 (about 5 days); ``arar`` turns the rush-hour fit into an all-day one. The gaps
  ``exp(g)`` run on a model clock that goes ``w`` times as fast as real time in each half hour of
  the day, with 48 weights ``w`` of mean 1: half hour ``(i - 1) mod 48`` gets the mass of
  Gamma(``anum``, ``bnum``) on ``[i - 0.5, i + 0.5]`` for the slots ``i = 11..58`` of a shifted
  day. Busy half hours therefore get proportionally more arrivals (a share ``w / 48`` each). The
  first job arrives one gap after the origin, which is taken as midnight (the reference's
  ``START = 0``).

The load is set through the arrival shape: ``arrival_shape`` replaces ``aarr`` (a larger shape
means longer gaps, so a lighter load). The arrival shapes alpha that Jin's thesis (2009, Table 2)
quotes for its workloads (10.05 to 10.73) are on the scale of the all-jobs set, whose ``aarr`` is
10.2303, and that set reproduces the thesis's job mix; pass them as they are with
``job_class="all"``.

The model has no users, groups or runtime estimates. Estimates are either exact, or drawn from the
"f-model" of Mu'alem and Feitelson (2001): uniform between the runtime and ``f`` times the runtime.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.workload import JOB_DTYPE, Workload

__all__ = ["JobClass", "lublin_feitelson"]

_REFERENCE = (
    "U. Lublin and D. G. Feitelson, The workload on parallel supercomputers: modeling the "
    "characteristics of rigid jobs, J. Parallel Distrib. Comput. 63(11):1105-1122, 2003"
)
_F_MODEL_REFERENCE = (
    "A. W. Mu'alem and D. G. Feitelson, Utilization, predictability, workloads, and user runtime "
    "estimates in scheduling the IBM SP2 with backfilling, IEEE Trans. Parallel Distrib. Syst. "
    "12(6):529-543, 2001"
)

_REFERENCE_LOG2_SIZE = 7.0  # the published size parameters are for 2**7 = 128 processors
_MAX_LOG_RUNTIME = 12.0  # TOO_MUCH_TIME in m_lublin99.c
_MAX_LOG_GAP = 13.0  # TOO_MUCH_ARRIVE_TIME in m_lublin99.c
_BUCKETS = 48  # half-hour slots of the daily cycle
_SECONDS_PER_BUCKET = 1800.0
_SECONDS_PER_DAY = _BUCKETS * _SECONDS_PER_BUCKET
_CYCLE_FIRST_SLOT = 11  # CYCLIC_DAY_START in m_lublin99.c
# Below this chance of a log gap under _MAX_LOG_GAP the redraw loop would hardly ever finish.
_MIN_GAP_ACCEPTANCE = 0.01


class _Params(NamedTuple):
    """The model parameters of one job class (names as in m_lublin99.c, lower case)."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


_BATCH = _Params(
    serial_prob=0.2927,
    pow2_prob=0.6686,
    ulow=1.2,
    umed=5.0,
    uhi=7.0,
    uprob=0.875,
    a1=6.57,
    b1=0.823,
    a2=639.1,
    b2=0.0156,
    pa=-0.003,
    pb=0.6986,
    aarr=6.0415,
    barr=0.8531,
    anum=6.1271,
    bnum=5.2740,
    arar=1.0519,
)

_INTERACTIVE = _Params(
    serial_prob=0.1541,
    pow2_prob=0.625,
    ulow=1.0,
    umed=3.0,
    uhi=5.5,
    uprob=0.705,
    a1=3.8351,
    b1=0.6605,
    a2=7.073,
    b2=0.6856,
    pa=-0.0118,
    pb=0.9156,
    aarr=6.5510,
    barr=0.6621,
    anum=8.9186,
    bnum=3.6680,
    arar=0.9797,
)

# The typeless set of m_lublin99.c, used when jobs are not split into batch and interactive.
_ALL = _Params(
    serial_prob=0.244,
    pow2_prob=0.576,
    ulow=0.8,
    umed=4.5,
    uhi=7.0,
    uprob=0.86,
    a1=4.2,
    b1=0.94,
    a2=312.0,
    b2=0.03,
    pa=-0.0054,
    pb=0.78,
    aarr=10.2303,
    barr=0.4871,
    anum=8.1737,
    bnum=3.9631,
    arar=1.0225,
)

JobClass = Literal["batch", "interactive", "all"]
_PARAMETER_SETS: dict[str, _Params] = {"batch": _BATCH, "interactive": _INTERACTIVE, "all": _ALL}
# SWF queue field per class: the reference writes the job type there (SWF reserves queue 0 for
# interactive jobs); typeless jobs have no queue, so -1.
_QUEUE = {"batch": 1, "interactive": 0, "all": -1}

_FloatArray = npt.NDArray[np.float64]


def lublin_feitelson(
    n_jobs: int = 10_000,
    *,
    machine_size: int = 128,
    seed: int = 0,
    estimates: Literal["accurate", "f-model"] = "accurate",
    estimate_factor: float = 3.0,
    job_class: JobClass = "batch",
    start_time: float = 0.0,
    arrival_shape: float | None = None,
) -> Workload:
    """Generate a synthetic workload from the Lublin-Feitelson (2003) rigid-job model.

    Implements U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling
    the characteristics of rigid jobs", J. Parallel and Distributed Computing 63(11):1105-1122,
    2003, with the published batch (default), interactive or all-jobs parameter set of the
    reference implementation ``m_lublin99.c``; see the module docstring for the model. Sizes are scaled to
    ``machine_size`` through the log2 breakpoints of the size distribution. The runtime model's
    dependence on size uses the size itself, as published, so on machines much larger than 128
    processors the widest jobs all take the long-running component (``p`` reaches 0 at 233
    processors for batch jobs, 78 for interactive ones and 145 for the all-jobs set).

    The all-jobs set (``job_class="all"``) is the model fitted to all jobs without a type. It is
    the one whose arrival scale Jin's thesis (2009) uses: its published ``aarr`` is 10.2303, and
    the thesis's alphas 10.05-10.73 are shapes on that scale. It gives the thesis's Table 2 job mix
    (64 % short jobs under 10 minutes, 19.5 % medium under 3 hours, 16.5 % long; 0.5 %, 26 % and
    73.5 % of the work; 24 % serial; 75 % of parallel sizes powers of two), which the batch set
    does not (about 47/17/36 % of jobs, 95 % of the work in long jobs). Its size and runtime
    values (``serial_prob`` 0.244, ``pow2_prob`` 0.576, ``ulow`` 0.8, ``umed`` 4.5, ``uhi`` 7,
    ``uprob`` 0.86; ``a1`` 4.2, ``b1`` 0.94, ``a2`` 312, ``b2`` 0.03, ``pa`` -0.0054, ``pb``
    0.78) and arrival values (``aarr`` 10.2303, ``barr`` 0.4871, ``arar`` 1.0225) are those of
    the paper's model for all jobs; its daily-cycle values (``anum`` 8.1737, ``bnum`` 3.9631) are
    as we have them from the reference implementation and only shape arrivals within a day, not
    the load.

    The model gives no runtime estimates. ``estimates="accurate"`` sets each estimate to the
    runtime. ``estimates="f-model"`` uses the f-model of A. W. Mu'alem and D. G. Feitelson,
    "Utilization, predictability, workloads, and user runtime estimates in scheduling the IBM SP2
    with backfilling", IEEE TPDS 12(6):529-543, 2001: the estimate is uniform on
    ``[runtime, estimate_factor * runtime]``, rounded down to whole seconds.

    The output depends only on the arguments: sizes, runtimes, arrivals and estimates each draw
    uniform doubles from their own ``numpy.random.PCG64`` stream spawned from
    ``SeedSequence(seed)``, and the gamma and normal variates are derived from those uniforms here,
    so NumPy's own sampling algorithms (which may change between releases) do not enter. The only
    platform dependence left is the last bit of ``exp``/``log``/``cos`` in the maths library, which
    would have to fall exactly on a whole-second boundary to change a record. The two estimate
    modes share the same sizes, runtimes and submit times for one seed.

    ``arrival_shape`` replaces the Gamma shape ``aarr`` of the log inter-arrival gap (``barr`` and
    the all-day factor ``arar`` stay), which is how Jin's thesis (2009) sets the load of its
    workloads, with ``job_class="all"``. The mean log gap is
    proportional to it, so a larger shape gives a lighter load. Sizes and runtimes do not depend on
    it: for one seed only the submit times change.

    Jobs get ids ``1..n_jobs``, whole-second submit times (non-decreasing, the first one gap after
    ``start_time``), whole-second runtimes of at least 1 s, ``requested_processors`` equal to
    ``processors``, status 1, and queue 1 for batch, 0 for interactive and -1 for all-jobs
    workloads (the reference implementation writes the job type there; SWF reserves queue 0 for
    interactive jobs). The model
    assigns no users or groups, so those and all other fields are -1.

    Args:
        n_jobs: Number of jobs to generate (0 gives an empty workload).
        machine_size: Processors of the machine, below 2**53; no job is wider.
        seed: Non-negative integer seed.
        estimates: ``"accurate"`` or ``"f-model"``.
        estimate_factor: The f of the f-model, at least 1 (ignored for accurate estimates); the
            estimates it gives must stay within ``MAX_TIME``.
        job_class: The parameter set: ``"batch"``, ``"interactive"`` or ``"all"`` (typeless).
        start_time: Whole-second time origin from 0 to ``MAX_TIME``; the daily cycle takes it as
            midnight. Every arrival must stay within ``MAX_TIME``.
        arrival_shape: The arrival shape to use instead of the published ``aarr``, positive and
            small enough that at least 1 % of log gaps fall below the truncation at 13 (up to
            about 24 for batch jobs, whose published value is 6.0415, 32 for interactive ones
            and 39 for all jobs, whose published value is 10.2303); None keeps the published
            value.

    Returns:
        The workload, with the model, its parameters (after scaling and ``arrival_shape``) and the
        seed in ``provenance``.

    Raises:
        BackfillError: If an argument is out of range.

    Examples:
        >>> w = lublin_feitelson(1000, seed=1)
        >>> len(w), w.machine_size, w.provenance["job_class"]
        (1000, 128, 'batch')
        >>> bool((w.column("processors") <= 128).all() and (w.column("runtime") >= 1).all())
        True
        >>> bool((lublin_feitelson(1000, seed=1).records == w.records).all())
        True
        >>> w1 = lublin_feitelson(1000, seed=1, job_class="all", arrival_shape=10.23)
        >>> w3 = lublin_feitelson(1000, seed=1, job_class="all", arrival_shape=10.73)
        >>> bool(w3.records["submit"][-1] > w1.records["submit"][-1])  # larger shape, lighter load
        True
    """
    n, size, root_seed = _check_args(n_jobs, machine_size, seed, estimates, estimate_factor, start_time)
    if job_class not in _PARAMETER_SETS:
        raise BackfillError(f"job_class must be 'batch', 'interactive' or 'all', got {job_class!r}")
    params = _scaled_params(_PARAMETER_SETS[job_class], size)
    if arrival_shape is not None:
        params = params._replace(aarr=_check_arrival_shape(arrival_shape, params))

    streams = np.random.SeedSequence(root_seed).spawn(4)
    size_rng, runtime_rng, arrival_rng, estimate_rng = (
        np.random.Generator(np.random.PCG64(s)) for s in streams
    )
    processors = _job_sizes(size_rng, params, n, size)
    runtime = np.floor(np.exp(_log_runtimes(runtime_rng, params, processors)))
    runtime = np.maximum(runtime, 1.0)
    submit = float(start_time) + np.floor(_arrival_times(arrival_rng, params, n))
    if estimates == "f-model":
        spread = 1.0 + (float(estimate_factor) - 1.0) * estimate_rng.random(n)
        with np.errstate(over="ignore"):  # an overflow to inf is refused just below, naming the factor
            estimate = np.maximum(np.floor(runtime * spread), runtime)
    else:
        estimate = runtime.copy()
    _check_within_max_time(submit, estimate, start_time, estimate_factor)

    records = np.full(n, -1, dtype=JOB_DTYPE)
    records["id"] = np.arange(1, n + 1)
    records["submit"] = submit
    records["runtime"] = runtime
    records["processors"] = processors
    records["requested_processors"] = processors
    records["estimate"] = estimate
    records["status"] = 1
    records["queue"] = _QUEUE[job_class]

    provenance: dict[str, Any] = {
        "model": "lublin_feitelson",
        "reference": _REFERENCE,
        "parameter_source": "m_lublin99.c (Parallel Workloads Archive), published values"
        + ("" if arrival_shape is None else ", aarr replaced by arrival_shape"),
        "job_class": job_class,
        "n_jobs": n,
        "machine_size": size,
        "seed": root_seed,
        "rng": "numpy PCG64 streams spawned from SeedSequence(seed): size, runtime, arrival, estimate",
        "start_time": float(start_time),
        "estimates": estimates,
        "estimate_factor": float(estimate_factor) if estimates == "f-model" else None,
        "arrival_shape": None if arrival_shape is None else params.aarr,
        "parameters": params._asdict(),
        "max_log_runtime": _MAX_LOG_RUNTIME,
        "max_log_interarrival": _MAX_LOG_GAP,
        "cycle_weights": _cycle_weights(params.anum, params.bnum).tolist(),
    }
    if estimates == "f-model":
        provenance["estimate_reference"] = _F_MODEL_REFERENCE
    header = {
        "MaxJobs": str(n),
        "MaxRecords": str(n),
        "MaxNodes": str(size),
        "MaxProcs": str(size),
        "MaxRuntime": str(int(math.exp(_MAX_LOG_RUNTIME))),
        "Note": f"Synthetic: Lublin & Feitelson (2003) model, {job_class} jobs, seed {root_seed}",
    }
    if arrival_shape is not None:
        header["Note"] += f", arrival shape {params.aarr!r}"
    return Workload.from_records(records, size, provenance=provenance, header=header)


def _check_args(
    n_jobs: object,
    machine_size: object,
    seed: object,
    estimates: object,
    estimate_factor: object,
    start_time: object,
) -> tuple[int, int, int]:
    """Validate the arguments of :func:`lublin_feitelson`; return n_jobs, machine_size, seed."""

    def as_int(value: object, name: str, low: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise BackfillError(f"{name} must be an integer >= {low}, got {value!r}")
        return int(value)

    n = as_int(n_jobs, "n_jobs", 0)
    size = as_int(machine_size, "machine_size", 1)
    if size >= MAX_INT:
        raise BackfillError(f"machine_size must be below 2**53 processors, got {size}")
    root_seed = as_int(seed, "seed", 0)
    if estimates not in ("accurate", "f-model"):
        raise BackfillError(f"estimates must be 'accurate' or 'f-model', got {estimates!r}")
    if not isinstance(estimate_factor, int | float) or not 1.0 <= estimate_factor < math.inf:
        raise BackfillError(f"estimate_factor must be a finite number >= 1, got {estimate_factor!r}")
    if (
        not isinstance(start_time, int | float)
        or not math.isfinite(start_time)
        or not float(start_time).is_integer()
        or not 0.0 <= start_time <= MAX_TIME
    ):
        raise BackfillError(
            f"start_time must be a whole number of seconds from 0 to {MAX_TIME:g}, got {start_time!r}"
        )
    return n, size, root_seed


def _check_within_max_time(
    submit: npt.NDArray[np.float64], estimate: npt.NDArray[np.float64], start_time: object, factor: object
) -> None:
    """Refuse parameters that carry a submit time or an estimate past ``MAX_TIME``, naming which."""
    if len(submit) and submit[-1] > MAX_TIME:
        raise BackfillError(
            f"start_time {start_time!r} puts the last of {len(submit)} arrivals at {submit[-1]:.0f} s, "
            f"past the largest time a job may carry ({MAX_TIME:g} s); use an earlier start_time"
        )
    if len(estimate) and estimate.max() > MAX_TIME:
        raise BackfillError(
            f"estimate_factor {factor!r} gives estimates up to {estimate.max():.3g} s, past the largest "
            f"time a job may carry ({MAX_TIME:g} s); use a smaller factor"
        )


def _positive_float(value: object, name: str) -> float:
    real = int | float | np.integer | np.floating
    if isinstance(value, bool) or not isinstance(value, real) or not 0.0 < float(value) < math.inf:
        raise BackfillError(f"{name} must be a finite positive number, got {value!r}")
    return float(value)


def _check_arrival_shape(arrival_shape: object, params: _Params) -> float:
    """Validate ``arrival_shape``; refuse shapes whose log gaps almost never pass the truncation."""
    shape = _positive_float(arrival_shape, "arrival_shape")
    if _gamma_cdf(_MAX_LOG_GAP, shape * params.arar, params.barr) < _MIN_GAP_ACCEPTANCE:
        raise BackfillError(
            f"arrival_shape {shape!r} puts almost every log inter-arrival gap above the model's "
            f"truncation at {_MAX_LOG_GAP:g} (gaps of about 5 days); use a smaller shape"
        )
    return shape


def _scaled_params(base: _Params, machine_size: int) -> _Params:
    """Move the log2 size breakpoints from the published 128 processors to ``machine_size``."""
    log2_size = math.log2(machine_size)
    shift = log2_size - _REFERENCE_LOG2_SIZE
    uhi = min(max(base.uhi + shift, 0.0), log2_size)
    ulow = min(base.ulow, uhi)
    umed = min(max(base.umed + shift, ulow), uhi)
    return base._replace(ulow=ulow, umed=umed, uhi=uhi)


def _job_sizes(rng: np.random.Generator, p: _Params, n: int, machine_size: int) -> npt.NDArray[np.int64]:
    """Draw job sizes: serial, power-of-two, or other parallel (two-stage uniform on log2)."""
    u = rng.random(n)
    first_stage = rng.random(n) <= p.uprob
    v = rng.random(n)
    log2_size = np.where(first_stage, p.ulow + v * (p.umed - p.ulow), p.umed + v * (p.uhi - p.umed))
    power_of_two = (u > p.serial_prob) & (u <= p.serial_prob + p.pow2_prob)
    log2_size = np.where(power_of_two, np.floor(log2_size + 0.5), log2_size)
    sizes = np.floor(np.exp2(log2_size) + 0.5)
    sizes = np.where(u <= p.serial_prob, 1.0, sizes)
    return np.clip(sizes, 1, machine_size).astype(np.int64)


def _log_runtimes(rng: np.random.Generator, p: _Params, sizes: npt.NDArray[np.int64]) -> _FloatArray:
    """Draw natural-log runtimes from the size-dependent hyper-gamma, redrawing those above 12."""
    first_prob = np.clip(p.pa * sizes + p.pb, 0.0, 1.0)
    out = np.empty(len(sizes))
    todo = np.arange(len(sizes))
    while todo.size:
        first = rng.random(todo.size) <= first_prob[todo]
        draw = np.empty(todo.size)
        draw[first] = p.b1 * _standard_gamma(rng, p.a1, int(first.sum()))
        draw[~first] = p.b2 * _standard_gamma(rng, p.a2, int((~first).sum()))
        accepted = draw <= _MAX_LOG_RUNTIME
        out[todo[accepted]] = draw[accepted]
        todo = todo[~accepted]
    return out


def _arrival_times(rng: np.random.Generator, p: _Params, n: int) -> _FloatArray:
    """Draw arrival times (seconds after midnight of day 0) with the model's daily cycle.

    The gaps ``exp(g)``, ``g ~ Gamma(aarr * arar, barr)`` truncated at 13, are laid end to end on a
    clock that runs ``weight`` times faster than real time in each half hour (weights of mean 1).
    Mapping the cumulative clock back through that piecewise-linear time change gives the same
    arrival times as the reference implementation's bucket-by-bucket "paying of points" (which
    also truncates each gap to whole seconds; here only the final times are rounded down).
    """
    log_gaps = np.empty(n)
    filled = 0
    shape = p.aarr * p.arar
    while filled < n:
        draw = p.barr * _standard_gamma(rng, shape, n - filled)
        draw = draw[draw <= _MAX_LOG_GAP]
        log_gaps[filled : filled + draw.size] = draw
        filled += draw.size
    clock = np.cumsum(np.exp(log_gaps))
    weights = _cycle_weights(p.anum, p.bnum)
    clock_edges = np.concatenate(([0.0], np.cumsum(weights) * _SECONDS_PER_BUCKET))
    real_edges = np.arange(_BUCKETS + 1) * _SECONDS_PER_BUCKET
    clock_per_day = clock_edges[-1]
    days = np.floor(clock / clock_per_day)
    within = np.interp(clock - days * clock_per_day, clock_edges, real_edges)
    times: _FloatArray = days * _SECONDS_PER_DAY + within
    return times


def _cycle_weights(anum: float, bnum: float) -> _FloatArray:
    """Return the 48 half-hour arrival weights (mean 1), midnight first.

    Slot ``i`` (11..58) of the shifted day gets the mass of Gamma(anum, bnum) on
    ``[i - 0.5, i + 0.5]`` and lands on half hour ``(i - 1) mod 48``, as in m_lublin99.c.
    """
    weights = np.empty(_BUCKETS)
    for slot in range(_CYCLE_FIRST_SLOT, _CYCLE_FIRST_SLOT + _BUCKETS):
        mass = _gamma_cdf(slot + 0.5, anum, bnum) - _gamma_cdf(slot - 0.5, anum, bnum)
        weights[(slot - 1) % _BUCKETS] = mass
    normalised: _FloatArray = weights / weights.mean()
    return normalised


def _gamma_cdf(x: float, shape: float, scale: float) -> float:
    """Return the Gamma(shape, scale) CDF at ``x`` (regularised lower incomplete gamma).

    Uses the power series below ``shape + 1`` and a Lentz continued fraction above it (Press et
    al., Numerical Recipes, section 6.2), as the reference implementation does.
    """
    z = x / scale
    if z <= 0.0:
        return 0.0
    log_prefactor = -z + shape * math.log(z) - math.lgamma(shape)
    if z < shape + 1.0:
        term = total = 1.0 / shape
        denominator = shape
        for _ in range(10_000):
            denominator += 1.0
            term *= z / denominator
            total += term
            if term < total * 1e-16:
                break
        return min(1.0, total * math.exp(log_prefactor))
    tiny = 1e-300
    b = z + 1.0 - shape
    c = 1.0 / tiny
    d = 1.0 / b
    fraction = d
    for i in range(1, 10_000):
        a_i = -i * (i - shape)
        b += 2.0
        d = a_i * d + b
        d = tiny if abs(d) < tiny else d
        c = b + a_i / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        fraction *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return max(0.0, 1.0 - math.exp(log_prefactor) * fraction)


def _standard_gamma(rng: np.random.Generator, shape: float, n: int) -> _FloatArray:
    """Draw ``n`` Gamma(shape, 1) variates by Marsaglia and Tsang's method.

    G. Marsaglia and W. W. Tsang, "A simple method for generating gamma variables", ACM TOMS
    26(3):363-372, 2000. Built on uniform doubles only (see :func:`_standard_normal`). The method
    needs ``shape >= 1``; a smaller shape (only an ``arrival_shape`` override gives one) uses the
    paper's boost, Gamma(shape + 1) times ``U ** (1 / shape)``.
    """
    if shape < 1.0:
        boosted = _standard_gamma(rng, shape + 1.0, n)
        boost: _FloatArray = boosted * (1.0 - rng.random(n)) ** (1.0 / shape)
        return boost
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    out = np.empty(n)
    filled = 0
    while filled < n:
        m = (n - filled) + (n - filled) // 16 + 8  # acceptance is above 95 % for shape >= 1
        z = _standard_normal(rng, m)
        u = 1.0 - rng.random(m)  # in (0, 1], so log(u) is finite
        v = (1.0 + c * z) ** 3
        positive = v > 0.0
        log_v = np.log(np.where(positive, v, 1.0))
        accepted = positive & (np.log(u) < 0.5 * z * z + d - d * v + d * log_v)
        values = d * v[accepted]
        take = min(values.size, n - filled)
        out[filled : filled + take] = values[:take]
        filled += take
    return out


def _standard_normal(rng: np.random.Generator, n: int) -> _FloatArray:
    """Draw ``n`` standard normal variates by the Box-Muller transform of uniform doubles."""
    radius = np.sqrt(-2.0 * np.log(1.0 - rng.random(n)))
    normals: _FloatArray = radius * np.cos(2.0 * math.pi * rng.random(n))
    return normals
