"""Tests of the Lublin-Feitelson (2003) workload model.

The statistical tests compare a large sample with values computed from the model's parameters
(numerical quadrature of the published densities, never sampled reference values), with tolerances
of ``Z`` standard errors derived from the sample size.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill.errors import BackfillError
from backfill.workloads.lublin import _standard_gamma, lublin_feitelson
from backfill.workloads.workload import JOB_DTYPE, Workload

Z = 5.0  # standard errors allowed in the statistical tests (two-sided p about 6e-7 each)
N_STAT = 100_000

# The published parameter sets (Lublin & Feitelson 2003; m_lublin99.c), 128-processor machine.
PUBLISHED = {
    "batch": dict(
        serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed=5.0, uhi=7.0, uprob=0.875,
        a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
        aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519,
    ),
    "interactive": dict(
        serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, umed=3.0, uhi=5.5, uprob=0.705,
        a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
        aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797,
    ),
    "all": dict(
        serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86,
        a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
        aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225,
    ),
}  # fmt: skip
JOB_CLASSES = ("batch", "interactive", "all")


@pytest.fixture(scope="module", params=JOB_CLASSES)
def sample(request: pytest.FixtureRequest) -> Workload:
    return lublin_feitelson(N_STAT, seed=12345, job_class=request.param)


def params_of(w: Workload) -> dict[str, float]:
    return dict(w.provenance["parameters"])


# ---------------------------------------------------------------- quadrature of the densities


def gamma_pdf(x: np.ndarray, shape: float, scale: float) -> np.ndarray:
    log_pdf = (shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    return np.exp(log_pdf)


def midpoints(upper: float, n: int = 1_200_000) -> tuple[np.ndarray, float]:
    h = upper / n
    return (np.arange(n) + 0.5) * h, h


def gamma_mass(lo: float, hi: float, shape: float, scale: float, n: int = 20_000) -> float:
    h = (hi - lo) / n
    x = lo + (np.arange(n) + 0.5) * h
    return float(gamma_pdf(x, shape, scale).sum() * h)


# ---------------------------------------------------------------- parameters and determinism


@pytest.mark.parametrize("job_class", JOB_CLASSES)
def test_parameters_are_the_published_ones(job_class: Any) -> None:
    w = lublin_feitelson(10, job_class=job_class)
    assert params_of(w) == pytest.approx(PUBLISHED[job_class], abs=1e-12)
    assert w.provenance["job_class"] == job_class
    assert w.provenance["seed"] == 0


def test_size_breakpoints_follow_log2_of_machine_size() -> None:
    p = params_of(lublin_feitelson(10, machine_size=1024))
    assert (p["ulow"], p["umed"], p["uhi"]) == pytest.approx((1.2, 8.0, 10.0))
    p = params_of(lublin_feitelson(10, machine_size=2))
    assert 0 <= p["ulow"] <= p["umed"] <= p["uhi"] == pytest.approx(1.0)


def test_same_seed_same_bytes_different_seed_differs() -> None:
    a = lublin_feitelson(5000, seed=7)
    b = lublin_feitelson(5000, seed=7)
    c = lublin_feitelson(5000, seed=8)
    assert a.records.tobytes() == b.records.tobytes()
    assert dict(a.provenance) == dict(b.provenance)
    for name in ("submit", "runtime", "processors"):
        assert not np.array_equal(a.records[name], c.records[name])


def test_estimate_modes_share_the_jobs() -> None:
    exact = lublin_feitelson(3000, seed=3)
    f = lublin_feitelson(3000, seed=3, estimates="f-model", estimate_factor=5.0)
    for name in ("submit", "runtime", "processors"):
        assert np.array_equal(exact.records[name], f.records[name])
    assert np.array_equal(exact.records["estimate"], exact.records["runtime"])
    assert f.provenance["estimate_factor"] == 5.0


def test_start_time_shifts_submits() -> None:
    base = lublin_feitelson(500, seed=4)
    shifted = lublin_feitelson(500, seed=4, start_time=86_400.0)
    assert np.array_equal(shifted.records["submit"], base.records["submit"] + 86_400.0)


def test_empty_workload() -> None:
    w = lublin_feitelson(0)
    assert len(w) == 0 and w.records.dtype == JOB_DTYPE


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_jobs": -1},
        {"n_jobs": 2.5},
        {"machine_size": 0},
        {"machine_size": True},
        {"seed": -1},
        {"estimates": "exact"},
        {"estimate_factor": 0.5},
        {"estimate_factor": math.inf},
        {"start_time": 0.5},
        {"start_time": math.nan},
        {"machine_size": 2**53},
        {"start_time": -86_400.0},
        {"start_time": 2.0**60},
    ],
)
def test_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(BackfillError):
        lublin_feitelson(**{"n_jobs": 10, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"start_time": 1e12}, "start_time 1000000000000.0 puts the last of 100 arrivals"),
        ({"estimates": "f-model", "estimate_factor": 1e308}, "estimate_factor 1e+308 gives estimates"),
    ],
)
def test_parameters_that_carry_a_job_past_max_time_are_named(kwargs: dict[str, Any], named: str) -> None:
    # Each value alone is in range; the jobs it makes are not, and the error says which parameter.
    with pytest.raises(BackfillError, match=re.escape(named)):
        lublin_feitelson(100, seed=1, **kwargs)


# ---------------------------------------------------------------- arrival shape (load)

THESIS_ALPHAS = (10.05, 10.23, 10.33, 10.43, 10.73)  # Jin (2009), Table 2: W4, W1, W2, W3, W3


@pytest.mark.parametrize("job_class", JOB_CLASSES)
def test_default_arrival_shape_is_unchanged(job_class: Any) -> None:
    default = lublin_feitelson(3000, seed=11, job_class=job_class)
    explicit_none = lublin_feitelson(3000, seed=11, job_class=job_class, arrival_shape=None)
    assert default.records.tobytes() == explicit_none.records.tobytes()
    assert dict(default.provenance) == dict(explicit_none.provenance)
    assert default.provenance["arrival_shape"] is None
    assert default.provenance["parameter_source"].endswith("published values")
    # Passing the published shape reproduces the default jobs exactly.
    published = PUBLISHED[job_class]["aarr"]
    same = lublin_feitelson(3000, seed=11, job_class=job_class, arrival_shape=published)
    assert same.records.tobytes() == default.records.tobytes()


def test_arrival_shape_is_recorded_in_provenance() -> None:
    w = lublin_feitelson(10, job_class="interactive", arrival_shape=7.5)
    assert params_of(w) == pytest.approx(PUBLISHED["interactive"] | {"aarr": 7.5}, abs=1e-12)
    assert w.provenance["arrival_shape"] == 7.5
    assert "arrival_shape" in w.provenance["parameter_source"]
    assert "arrival shape 7.5" in w.header["Note"]


def test_larger_arrival_shape_gives_lighter_load() -> None:
    workloads = [lublin_feitelson(5000, seed=71, job_class="all", arrival_shape=a) for a in THESIS_ALPHAS]
    last_submits = [float(w.records["submit"][-1]) for w in workloads]
    assert last_submits == sorted(last_submits) and len(set(last_submits)) == len(last_submits)
    # Only the arrivals change: sizes and runtimes come from their own streams.
    for w in workloads[1:]:
        for name in ("runtime", "processors"):
            assert np.array_equal(w.records[name], workloads[0].records[name])


def test_unknown_job_class() -> None:
    with pytest.raises(BackfillError, match="job_class"):
        lublin_feitelson(10, job_class="typeless")  # type: ignore[arg-type]


def test_queue_field_records_the_job_class() -> None:
    queues = {c: set(lublin_feitelson(50, job_class=c).records["queue"].tolist()) for c in JOB_CLASSES}
    assert queues == {"batch": {1}, "interactive": {0}, "all": {-1}}


def test_all_jobs_set_gives_the_thesis_job_mix() -> None:
    """Jin (2009), Table 2: the job mix of the thesis's Lublin-Feitelson workloads.

    64 / 19.5 / 16.5 % of jobs short (< 10 min), medium (< 3 h) and long; 0.5 / 26 / 73.5 % of
    the work; 24 % serial; 75 % of parallel sizes powers of two. The thesis rounds, and 200,000
    jobs give standard errors near 0.1 points for the job shares, so the tolerances are the
    thesis's rounding plus a few standard errors. The batch set, which the thesis did not use,
    misses the mix by far more than that (the second half of the test).

    The 75 % is the share of parallel jobs the model rounds to a power of two on purpose,
    ``pow2_prob / (1 - serial_prob)`` = 76.2 %; sizes that come out as powers of two by chance
    (2 and 4 often do) raise the observed share to about 83 %.
    """

    def mix(w: Workload) -> dict[str, float]:
        runtime = w.records["runtime"].astype(float)
        size = w.records["processors"].astype(np.int64)
        area = runtime * size
        classes = {"short": runtime < 600, "medium": (runtime >= 600) & (runtime < 10_800)}
        classes["long"] = runtime >= 10_800
        out = {f"jobs_{k}": 100 * float(v.mean()) for k, v in classes.items()}
        out |= {f"work_{k}": 100 * float(area[v].sum() / area.sum()) for k, v in classes.items()}
        parallel = size[size > 1]
        out["serial"] = 100 * float((size == 1).mean())
        out["pow2"] = 100 * float(((parallel & (parallel - 1)) == 0).mean())
        return out

    thesis = {"jobs_short": 64.0, "jobs_medium": 19.5, "jobs_long": 16.5, "work_short": 0.5}
    thesis |= {"work_medium": 26.0, "work_long": 73.5, "serial": 24.0}
    tolerance = {"jobs_short": 1.0, "jobs_medium": 1.0, "jobs_long": 1.0, "work_short": 0.3}
    tolerance |= {"work_medium": 1.5, "work_long": 1.5, "serial": 1.0}
    ours = mix(lublin_feitelson(200_000, seed=2009, job_class="all"))
    for key, value in thesis.items():
        assert abs(ours[key] - value) <= tolerance[key], (key, ours[key], value)
    p = params_of(lublin_feitelson(1, job_class="all"))
    assert abs(100 * p["pow2_prob"] / (1 - p["serial_prob"]) - 75.0) <= 1.5
    assert 100 * p["pow2_prob"] / (1 - p["serial_prob"]) < ours["pow2"] < 90.0
    batch = mix(lublin_feitelson(200_000, seed=2009))
    assert abs(batch["jobs_short"] - 64.0) > 10 and abs(batch["work_long"] - 73.5) > 10


@pytest.mark.parametrize("shape", [0.0, -6.0, math.nan, math.inf, -math.inf, True, "6"])
def test_bad_arrival_shape(shape: Any) -> None:
    with pytest.raises(BackfillError, match="arrival_shape"):
        lublin_feitelson(10, arrival_shape=shape)


def test_arrival_shape_too_large_for_the_truncation() -> None:
    # Almost every log gap would exceed 13 and be redrawn; refused rather than looping for ever.
    lublin_feitelson(100, arrival_shape=24.0)
    with pytest.raises(BackfillError, match="truncation"):
        lublin_feitelson(100, arrival_shape=24.5)


@pytest.mark.parametrize("shape", [1e-9, 0.3, 0.999])
def test_arrival_shape_below_one_gives_valid_workloads(shape: float) -> None:
    w = lublin_feitelson(2000, seed=5, arrival_shape=shape)
    assert_valid(w, 128, None)
    assert np.all(np.diff(w.records["submit"]) >= 0)


@pytest.mark.parametrize("shape", [0.3, 0.7])
def test_standard_gamma_below_shape_one(shape: float) -> None:
    # Marsaglia and Tsang's boost for shape < 1: check the first two moments, both equal to shape.
    n = 400_000
    x = _standard_gamma(np.random.Generator(np.random.PCG64(2)), shape, n)
    assert np.all(x >= 0)
    assert abs(float(x.mean()) - shape) <= Z * math.sqrt(shape / n)
    var_se = math.sqrt((2 * shape**2 + 6 * shape) / n)  # (mu4 - sigma^4) / n for a gamma
    assert abs(float(x.var()) - shape) <= Z * var_se


# ---------------------------------------------------------------- every job valid


def assert_valid(w: Workload, machine_size: int, factor: float | None) -> None:
    r = w.records
    n = len(r)
    assert np.array_equal(r["id"], np.arange(1, n + 1))
    assert np.all((r["processors"] >= 1) & (r["processors"] <= machine_size))
    assert np.array_equal(r["requested_processors"], r["processors"])
    assert np.all(r["runtime"] >= 1) and np.all(r["runtime"] == np.floor(r["runtime"]))
    assert np.all(r["runtime"] <= math.exp(12))
    assert np.all(r["estimate"] >= r["runtime"])
    assert np.all(r["estimate"] == np.floor(r["estimate"]))
    if factor is not None:
        assert np.all(r["estimate"] <= factor * r["runtime"])
    assert np.all(np.diff(r["submit"]) >= 0) and np.all(r["submit"] == np.floor(r["submit"]))
    assert np.all(r["status"] == 1)
    for name in ("user", "group", "wait", "cpu_time", "memory", "executable", "think_time"):
        assert np.all(r[name] == -1), name


@settings(max_examples=40, deadline=None)
@given(
    machine_size=st.integers(1, 5000),
    seed=st.integers(0, 2**63),
    job_class=st.sampled_from(JOB_CLASSES),
    factor=st.one_of(st.none(), st.floats(1.0, 20.0)),
    start=st.integers(0, 10**9),
)
def test_every_job_valid(
    machine_size: int, seed: int, job_class: Any, factor: float | None, start: int
) -> None:
    w = lublin_feitelson(
        400,
        machine_size=machine_size,
        seed=seed,
        job_class=job_class,
        estimates="accurate" if factor is None else "f-model",
        estimate_factor=3.0 if factor is None else factor,
        start_time=float(start),
    )
    assert w.machine_size == machine_size
    assert np.all(w.records["submit"] >= start)
    assert_valid(w, machine_size, factor)


def test_large_sample_valid(sample: Workload) -> None:
    assert_valid(sample, 128, None)
    assert sample.records["processors"].max() == 128 or sample.provenance["job_class"] != "batch"


# ---------------------------------------------------------------- statistics of the model


def test_serial_fraction(sample: Workload) -> None:
    p = params_of(sample)["serial_prob"]
    observed = float(np.mean(sample.records["processors"] == 1))
    assert abs(observed - p) <= Z * math.sqrt(p * (1 - p) / N_STAT)


def two_stage_cdf(x: np.ndarray, p: dict[str, float]) -> np.ndarray:
    lo, med, hi, prob = p["ulow"], p["umed"], p["uhi"], p["uprob"]
    first = np.clip((x - lo) / (med - lo), 0, 1)
    second = np.clip((x - med) / (hi - med), 0, 1)
    return prob * first + (1 - prob) * second


def test_power_of_two_fraction_among_parallel_jobs(sample: Workload) -> None:
    p = params_of(sample)
    # A job is rounded to a power of two with unconditional probability pow2_prob; the other
    # parallel jobs get round(2**X), X two-stage uniform, which is a power of two 2**k when
    # X lies in [log2(2**k - 0.5), log2(2**k + 0.5)).
    k = np.arange(1, 8)
    hits = two_stage_cdf(np.log2(2.0**k + 0.5), p) - two_stage_cdf(np.log2(2.0**k - 0.5), p)
    parallel_prob = 1 - p["serial_prob"]
    expected = (p["pow2_prob"] + (parallel_prob - p["pow2_prob"]) * hits.sum()) / parallel_prob
    procs = sample.records["processors"]
    parallel = procs[procs > 1]
    observed = float(np.mean((parallel & (parallel - 1)) == 0))
    se = math.sqrt(expected * (1 - expected) / parallel.size)
    assert abs(observed - expected) <= Z * se
    assert expected > {"batch": 0.9, "interactive": 0.8, "all": 0.7}[sample.provenance["job_class"]]


def log_runtime_moments(
    p: dict[str, float], sizes: np.ndarray, *, cap: float = 12.0, floor: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of ln(runtime) for each size, by quadrature of the model's density.

    ln(runtime) is ln(floor(exp(X))), X from the mixture p(s) Gamma(a1, b1) + (1 - p(s)) Gamma(a2,
    b2) with p(s) = clip(pa s + pb, 0, 1), truncated at X <= 12 (rejected draws redraw the
    component too, so the mixture is renormalised as a whole). ``cap`` and ``floor`` switch the
    truncation and the rounding to whole seconds, to check the quadrature against closed forms.
    """
    x, h = midpoints(cap)
    g = np.log(np.floor(np.exp(x))) if floor else x
    f1 = gamma_pdf(x, p["a1"], p["b1"])
    f2 = gamma_pdf(x, p["a2"], p["b2"])
    mass = np.array([f1.sum(), f2.sum()]) * h
    first = np.array([(g * f1).sum(), (g * f2).sum()]) * h
    second = np.array([(g * g * f1).sum(), (g * g * f2).sum()]) * h
    mix = np.clip(p["pa"] * sizes + p["pb"], 0, 1)
    weights = np.stack([mix, 1 - mix], axis=1)
    total = weights @ mass
    mean = weights @ first / total
    return mean, weights @ second / total - mean**2


def test_log_runtime_means_of_small_and_large_jobs(sample: Workload) -> None:
    p = params_of(sample)
    procs = sample.records["processors"]
    log_rt = np.log(sample.records["runtime"])
    sizes, inverse = np.unique(procs, return_inverse=True)
    mean_by_size, var_by_size = log_runtime_moments(p, sizes.astype(float))
    job_mean, job_var = mean_by_size[inverse], var_by_size[inverse]

    # The quadrature reproduces the hyper-gamma's closed-form mean p(s) a1 b1 + (1 - p(s)) a2 b2
    # when the truncation at 12 and the rounding down to whole seconds are switched off.
    mix = np.clip(p["pa"] * sizes + p["pb"], 0, 1)
    closed_form = mix * p["a1"] * p["b1"] + (1 - mix) * p["a2"] * p["b2"]
    plain_mean, _ = log_runtime_moments(p, sizes.astype(float), cap=40.0, floor=False)
    assert np.allclose(plain_mean, closed_form, rtol=1e-6)

    results = {}
    for name, group in (("small", procs <= 2), ("large", procs >= 32)):
        n = int(group.sum())
        expected = float(job_mean[group].mean())
        se = math.sqrt(float(job_var[group].sum())) / n
        observed = float(log_rt[group].mean())
        assert abs(observed - expected) <= Z * se, (name, observed, expected, se)
        results[name] = (observed, expected, se)
    # The size-runtime correlation: large jobs run longer, as pa < 0 predicts.
    (obs_s, exp_s, se_s), (obs_l, exp_l, se_l) = results["small"], results["large"]
    assert exp_l - exp_s > Z * math.hypot(se_s, se_l)
    assert abs((obs_l - obs_s) - (exp_l - exp_s)) <= Z * math.hypot(se_s, se_l)


def test_mean_interarrival_time(sample: Workload) -> None:
    assert_mean_interarrival(sample, N_STAT)


@pytest.mark.parametrize("alpha", [10.05, 10.73])
def test_mean_interarrival_time_with_arrival_shape(alpha: float) -> None:
    n = 50_000
    w = lublin_feitelson(n, seed=2024, job_class="all", arrival_shape=alpha)
    assert params_of(w)["aarr"] == alpha
    assert_mean_interarrival(w, n)


def assert_mean_interarrival(sample: Workload, n: int) -> None:
    """The mean gap matches the quadrature of the truncated log-gap gamma of the provenance."""
    p = params_of(sample)
    shape, scale = p["aarr"] * p["arar"], p["barr"]
    x, h = midpoints(13.0)
    f = gamma_pdf(x, shape, scale)
    mass = f.sum() * h
    mean = float((np.exp(x) * f).sum() * h / mass)
    var = float((np.exp(2 * x) * f).sum() * h / mass) - mean**2
    # Gaps are i.i.d. on the model's clock; real time differs from it by less than a day, and
    # submits are rounded down by less than a second.
    observed = (sample.records["submit"][-1] - sample.provenance["start_time"]) / n
    tolerance = Z * math.sqrt(var / n) + (86_400 + 1) / n
    assert abs(observed - mean) <= tolerance, (observed, mean, tolerance)


def cycle_weights(anum: float, bnum: float) -> np.ndarray:
    """Half-hour arrival weights (mean 1, midnight first) from the cycle's gamma, by quadrature."""
    w = np.empty(48)
    for slot in range(11, 59):  # the shifted day of the model: slot i lands on half hour i - 1
        w[(slot - 1) % 48] = gamma_mass(slot - 0.5, slot + 0.5, anum, bnum)
    return w / w.mean()


def test_daily_cycle(sample: Workload) -> None:
    p = params_of(sample)
    share = cycle_weights(p["anum"], p["bnum"]) / 48  # expected share of arrivals per half hour
    assert np.allclose(np.asarray(sample.provenance["cycle_weights"]) / 48, share, atol=1e-9)
    submit = sample.records["submit"] - sample.provenance["start_time"]
    half_hour = (submit // 1800).astype(np.int64) % 48
    day = (submit // 86_400).astype(np.int64)
    per_day = np.bincount(day)
    windows = {"day (09:00-17:00)": range(18, 34), "night (00:00-05:00)": range(0, 10)}
    hourly = {}
    for name, slots in windows.items():
        inside = np.isin(half_hour, list(slots))
        expected = float(share[list(slots)].sum())
        observed = float(inside.mean())
        # Arrivals close in time share their phase, so the standard error is taken over days
        # (ratio estimator with days as the independent units).
        per_day_inside = np.bincount(day, weights=inside, minlength=per_day.size)
        resid = per_day_inside - observed * per_day
        se = math.sqrt(float(np.sum(resid**2)) * per_day.size / (per_day.size - 1)) / N_STAT
        assert abs(observed - expected) <= Z * se, (name, observed, expected, se)
        hourly[name] = (observed / len(slots), expected / len(slots), se / len(slots))
    (obs_d, exp_d, se_d), (obs_n, exp_n, se_n) = hourly.values()
    assert exp_d > 2 * exp_n  # the model's cycle: daytime half hours are over twice as busy
    assert obs_d - obs_n > Z * math.hypot(se_d, se_n)


def test_f_model_estimates_are_uniform_multiples() -> None:
    f = 4.0
    w = lublin_feitelson(50_000, seed=9, estimates="f-model", estimate_factor=f)
    rt, est = w.records["runtime"], w.records["estimate"]
    long = rt >= 1000  # rounding down to whole seconds moves the ratio by under 0.001 here
    ratio = est[long] / rt[long]
    assert np.all((ratio >= 1) & (ratio <= f))
    se = (f - 1) / math.sqrt(12 * ratio.size)
    assert abs(float(ratio.mean()) - (1 + f) / 2) <= Z * se + 1e-3
    assert w.provenance["estimates"] == "f-model" and "Mu'alem" in w.provenance["estimate_reference"]
