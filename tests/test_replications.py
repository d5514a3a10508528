"""Replications and the measures asked for: Student t, intervals, paired improvements, trimming, columns."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill import EASY, BackfillError, Conservative, Job, Workload, simulate
from backfill.experiments.cache import content_key
from backfill.experiments.columns import (
    EXTRA_COLUMNS,
    MEASURE_COLUMNS,
    MEASURE_GROUPS,
    METRIC_COLUMNS,
    column_label,
    extra_measures,
    measure_column,
)
from backfill.experiments.fair_start import fair_start_times
from backfill.experiments.replications import interval, replication_summary, t_quantile
from backfill.experiments.results import SweepResult
from backfill.experiments.sweep import Cell, Grid, ModelWorkload, SchedulerSpec, run_sweep, summary_row
from backfill.measures.fairness import unfairness
from backfill.measures.groups import per_category
from backfill.measures.metrics import percent_improvement, summarize
from backfill.measures.planning import planning_summary
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.workloads.lublin import lublin_feitelson

# Two-sided 95 % quantiles t_{0.975, df} from the standard tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    15: 2.131,
    20: 2.086,
    29: 2.045,
    30: 2.042,
    60: 2.000,
    100: 1.984,
}


@pytest.mark.parametrize(("df", "expected"), sorted(T_975.items()))
def test_t_quantile_matches_the_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=6e-4)


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [(0.95, 5, 2.015), (0.995, 3, 5.841), (0.90, 10, 1.372), (0.999, 20, 3.552), (0.75, 1, 1.0)],
)
def test_t_quantile_at_other_levels(p: float, df: int, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, abs=6e-4)


def test_t_quantile_tends_to_the_normal_and_is_symmetric() -> None:
    assert t_quantile(0.975, 1e6) == pytest.approx(1.959964, abs=1e-5)
    assert t_quantile(0.025, 7) == pytest.approx(-t_quantile(0.975, 7), abs=1e-10)
    assert t_quantile(0.5, 3) == pytest.approx(0.0, abs=1e-10)


@pytest.mark.parametrize(("p", "df"), [(0.0, 3), (1.0, 3), (1.5, 3), (0.9, 0), (0.9, -1), (0.9, math.inf)])
def test_t_quantile_refuses_bad_arguments(p: float, df: float) -> None:
    with pytest.raises(BackfillError):
        t_quantile(p, df)


def test_interval_of_a_known_sample() -> None:
    s = interval([10.0, 12.0, 14.0, 16.0])
    assert s["n"] == 4 and s["mean"] == 13.0
    assert s["std"] == pytest.approx(float(np.std([10, 12, 14, 16], ddof=1)))
    assert s["half_width"] == pytest.approx(3.182 * s["std"] / 2, rel=2e-4)
    assert (s["low"], s["high"]) == pytest.approx((13.0 - s["half_width"], 13.0 + s["half_width"]))


def test_interval_of_too_small_a_sample_is_nan_and_nan_values_are_left_out() -> None:
    one = interval([3.0, math.nan])
    assert one["n"] == 1 and one["mean"] == 3.0 and math.isnan(one["std"]) and math.isnan(one["half_width"])
    with pytest.raises(BackfillError):
        interval([1.0, 2.0], confidence=1.0)


@pytest.mark.parametrize(("p", "df"), [("0.9", 3), (0.9, "3"), (math.nan, 3), (True, 3)])
def test_t_quantile_refuses_what_is_not_a_number(p: object, df: object) -> None:
    with pytest.raises(BackfillError):
        t_quantile(p, df)  # type: ignore[arg-type]


def test_interval_leaves_out_infinite_values_and_refuses_words() -> None:
    s = interval([1.0, math.inf, 3.0, -math.inf])
    assert s["n"] == 2 and s["mean"] == 2.0
    with pytest.raises(BackfillError, match="needs numbers"):
        interval(["a", "b"])  # type: ignore[list-item]
    with pytest.raises(BackfillError):
        interval([1.0, 2.0], confidence="0.9")  # type: ignore[arg-type]


def test_the_interval_covers_the_mean_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    samples = rng.normal(5.0, 2.0, size=(4000, 5))
    covered = [s["low"] <= 5.0 <= s["high"] for s in map(interval, samples)]
    assert np.mean(covered) == pytest.approx(0.95, abs=0.015)


# -- trimming --------------------------------------------------------------------------------------


@given(
    n=st.integers(0, 40),
    warmup=st.integers(0, 50),
    cooldown=st.integers(0, 50),
)
def test_trimming_by_jobs_keeps_the_middle(n: int, warmup: int, cooldown: int) -> None:
    keep = measured_jobs(np.arange(n, dtype=float), Trim(warmup, cooldown))
    expected = np.zeros(n, dtype=bool)
    expected[warmup : max(n - cooldown, warmup)] = True
    assert keep.tolist() == expected.tolist()


@given(
    submits=st.lists(st.floats(0, 1e5, allow_nan=False), min_size=1, max_size=30).map(sorted),
    warmup=st.floats(0, 5e4),
    cooldown=st.floats(0, 5e4),
)
def test_trimming_by_time_keeps_the_submissions_inside_the_window(
    submits: list[float], warmup: float, cooldown: float
) -> None:
    keep = measured_jobs(submits, Trim(warmup, cooldown))
    times = np.asarray(submits)
    inside = (times >= times[0] + warmup) & (times <= times[-1] - cooldown)
    assert keep.tolist() == inside.tolist()


@pytest.mark.parametrize("value", [-1, -0.5, math.inf, math.nan, "10", True])
def test_a_bad_trim_is_refused(value: object) -> None:
    with pytest.raises(BackfillError):
        Trim(warmup=value)  # type: ignore[arg-type]


def test_a_trimmed_schedule_is_the_kept_jobs_as_simulated() -> None:
    s = simulate(lublin_feitelson(150, machine_size=16, seed=4), Conservative())
    trim = Trim(warmup=20, cooldown=3600.0)
    keep = measured_jobs(s.submit, trim)
    t = trim_schedule(s, trim)
    assert len(t) == int(keep.sum()) < 130
    assert t.start.tolist() == s.start[keep].tolist() and t.end.tolist() == s.end[keep].tolist()
    assert t.workload.column("id").tolist() == s.workload.column("id")[keep].tolist()
    assert sorted(t.start_order.tolist()) == list(range(len(t)))
    assert summarize(t)["mean_wait"] == pytest.approx(float(np.mean(s.wait[keep])))
    assert trim_schedule(s, Trim()) is s
    with pytest.raises(BackfillError, match="leave none"):
        trim_schedule(s, Trim(warmup=100, cooldown=100))


def test_trim_schedule_refuses_what_is_not_a_trim() -> None:
    s = simulate(lublin_feitelson(20, machine_size=8, seed=2), EASY())
    with pytest.raises(BackfillError, match="must be a Trim"):
        trim_schedule(s, 5)  # type: ignore[arg-type]


def test_summary_row_measures_the_kept_jobs_and_counts_them_all() -> None:
    s = simulate(lublin_feitelson(80, machine_size=16, seed=1), EASY())
    row = summary_row(s, trim=Trim(10, 10))
    assert row["jobs"] == 80
    assert row["mean_wait"] == pytest.approx(float(np.mean(s.wait[10:70])))


# -- the extra columns -----------------------------------------------------------------------------


def test_the_vocabulary_is_one_list_with_labels() -> None:
    assert (*METRIC_COLUMNS, *EXTRA_COLUMNS) == MEASURE_COLUMNS
    assert len(set(MEASURE_COLUMNS)) == len(MEASURE_COLUMNS)
    assert set(MEASURE_GROUPS.values()) == {"fair_start", "fair_share", "category", "user", "planning"}
    assert all(column_label(c) != c for c in EXTRA_COLUMNS)
    assert measure_column("lw-mean-bsld") == "lw_mean_bsld"
    with pytest.raises(BackfillError, match="did you mean mean_wait"):
        measure_column("wait")


def test_a_column_named_by_something_else_than_names_is_refused() -> None:
    with pytest.raises(BackfillError, match="named by a string"):
        measure_column(5)  # type: ignore[arg-type]
    s = simulate(lublin_feitelson(20, machine_size=8, seed=2), EASY())
    with pytest.raises(BackfillError, match="the string 'users'"):
        extra_measures(s, "users")


def test_extra_measures_are_those_of_the_measure_functions() -> None:
    w = lublin_feitelson(90, machine_size=16, seed=5)
    s = simulate(w, EASY(), record_reservations=True)
    row = extra_measures(s, EXTRA_COLUMNS, scheduler=EASY())
    assert list(row) == list(EXTRA_COLUMNS)
    fst = fair_start_times(w, EASY(), workers=1)
    assert row["strict_unfairness"] == unfairness(s, fst.strict)
    assert row["relaxed_unfairness"] == unfairness(s, fst.relaxed)
    assert row["lw_mean_bsld"] == per_category(s)["LW"]["mean_bsld"] or math.isnan(row["lw_mean_bsld"])
    assert row["sn_jobs"] + row["sw_jobs"] + row["ln_jobs"] + row["lw_jobs"] == 90
    assert {k: row[k] for k in planning_summary(s)} == planning_summary(s)
    from backfill.measures.fairshare import fair_share_unfairness

    assert row["fair_share_unfairness"] == pytest.approx(fair_share_unfairness(s))
    with pytest.raises(BackfillError, match="needs the scheduler"):
        extra_measures(s, ["strict_unfairness"])
    with pytest.raises(BackfillError, match="unknown metric"):
        extra_measures(s, ["bogus"])


def test_extra_measures_cover_the_trimmed_jobs() -> None:
    w = lublin_feitelson(90, machine_size=16, seed=5)
    s = simulate(w, EASY())
    trim = Trim(15, 15)
    row = extra_measures(s, ["strict_unfairness", "sn_mean_wait"], scheduler=EASY(), trim=trim)
    keep = measured_jobs(s.submit, trim)
    strict = fair_start_times(w, EASY(), relaxed=False, workers=1).strict
    assert row["strict_unfairness"] == unfairness(trim_schedule(s, trim), strict[keep])
    assert row["sn_mean_wait"] == per_category(trim_schedule(s, trim))["SN"]["mean_wait"]


# -- sweeps ----------------------------------------------------------------------------------------

MODELS = [ModelWorkload(n_jobs=70, machine_size=16, seed=s, name=f"m/{s}") for s in (1, 2, 3)]


def test_a_sweep_without_measures_keeps_its_cache_keys() -> None:
    cell = Cell(MODELS[0], SchedulerSpec("EASY"))
    data = cell._key_data(MODELS[0].identity())
    assert "measures" not in data and "trim" not in data and cell.key() == content_key(data)
    assert Cell(MODELS[0], "EASY", measures=["users"]).key() != cell.key()
    assert Cell(MODELS[0], "EASY", trim=Trim(5)).key() != cell.key()


def test_a_sweep_computes_the_measures_asked_for_and_caches_them(tmp_path: Path) -> None:
    grid = Grid(MODELS[:1], ["Conservative", "EASY"], measures=["relaxed_unfairness", "users"], trim=Trim(5))
    first = run_sweep(grid, workers=1, cache=tmp_path)
    again = run_sweep(grid, workers=2, cache=tmp_path)
    assert (first.computed, again.cached) == (2, 2)
    for a, b in zip(first.rows, again.rows, strict=True):
        assert {k: v for k, v in a.items() if k != "seconds"} == {
            k: v for k, v in b.items() if k != "seconds"
        }
        assert a["warmup"] == "5 jobs" and a["cooldown"] == ""
    w = MODELS[0].load()
    s = simulate(w, EASY())
    expected = extra_measures(s, ["relaxed_unfairness"], scheduler=EASY(), trim=Trim(5))
    assert first.rows[1]["relaxed_unfairness"] == expected["relaxed_unfairness"]
    # A damaged measure in the cache is computed again, never used.
    cell = next(iter(grid.cells()))
    path = tmp_path / f"{cell.key()}.json"
    data = json.loads(path.read_text())
    data["metrics"]["users"] = -1.0
    from backfill.experiments.cache import _checksum

    data["sha256"] = _checksum(data["key"], data["cell"], data["metrics"])
    path.write_text(json.dumps(data))
    third = run_sweep(grid, workers=1, cache=tmp_path)
    assert (third.computed, third.damaged) == (1, 1)
    # Without the measures the rows have none of them.
    plain = run_sweep(Grid(MODELS[:1], ["EASY"]), workers=1)
    assert "users" not in plain.rows[0] and plain.rows[0]["warmup"] == ""


def test_a_sweep_refuses_unknown_measures() -> None:
    with pytest.raises(BackfillError, match="unknown metric"):
        Grid(MODELS, ["EASY"], measures=["fairness"])
    with pytest.raises(BackfillError, match="Trim"):
        Grid(MODELS, ["EASY"], trim=5)  # type: ignore[arg-type]


def test_rows_with_measures_round_trip_through_csv(tmp_path: Path) -> None:
    grid = Grid(MODELS[:1], ["EASY"], measures=["lw_mean_bsld", "violations", "under_shared"])
    result = run_sweep(grid, workers=1)
    result.to_csv(tmp_path / "r.csv")
    back = SweepResult.from_csv(tmp_path / "r.csv").rows[0]
    for key in ("lw_mean_bsld", "violations", "under_shared", "mean_wait"):
        a, b = result.rows[0][key], back[key]
        assert a == b or (math.isnan(a) and math.isnan(b))


def test_a_table_with_a_word_for_a_measure_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    result = run_sweep(Grid(MODELS[:1], ["EASY"], measures=["users"]), workers=1)
    result.to_csv(tmp_path / "r.csv")
    with open(tmp_path / "r.csv", newline="", encoding="utf-8") as f:
        header, row = csv.reader(f)
    row[header.index("users")] = "abc"
    with open(tmp_path / "r.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([header, row])
    with pytest.raises(BackfillError, match=r"r\.csv' line 2: users is 'abc', not a number"):
        SweepResult.from_csv(tmp_path / "r.csv")


def test_replication_summary_pairs_the_improvements() -> None:
    result = run_sweep(Grid(MODELS, ["Conservative", "EASY"]), workers=1)
    rows = replication_summary(
        result, ["mean_wait", "mean_bsld"], {m.label: "m" for m in MODELS}, baseline="Conservative"
    )
    by = {(r["scheduler"], r["metric"], r["kind"]): r for r in rows}
    assert len(rows) == 6 and all(r["workload"] == "m" and r["n"] == 3 for r in rows)
    base = [r["mean_wait"] for r in result.rows if r["scheduler"] == "Conservative"]
    easy = [r["mean_wait"] for r in result.rows if r["scheduler"] == "EASY"]
    assert by[("EASY", "mean_wait", "value")]["mean"] == pytest.approx(np.mean(easy))
    paired = [percent_improvement(b, e) for b, e in zip(base, easy, strict=True)]
    improvement = by[("EASY", "mean_wait", "improvement")]
    assert improvement["mean"] == pytest.approx(np.mean(paired))
    assert improvement["std"] == pytest.approx(np.std(paired, ddof=1))
    assert improvement["half_width"] == pytest.approx(t_quantile(0.975, 2) * np.std(paired, ddof=1) / 3**0.5)


def test_planning_measures_come_from_a_run_that_recorded_its_reservations() -> None:
    from backfill import planning

    # The guarantee of job 2 is broken once: planned with a 4 s runtime, job 1 runs 10 s.
    w = Workload.from_jobs(
        [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=20.0),
         Job(id=2, submit=1.0, processors=2, runtime=5.0, estimate=5.0)], 2
    )  # fmt: skip
    quick = planning(Conservative(), predictor=lambda job, now: 4.0)
    s = simulate(w, quick, record_reservations=True)
    assert extra_measures(s, ["violations", "violated_jobs"]) == {"violations": 1.0, "violated_jobs": 1.0}
    model = ModelWorkload(n_jobs=60, machine_size=8)
    row = Cell(model, "EASY", measures=["never_reserved"]).run()
    direct = planning_summary(simulate(model.load(), EASY(), record_reservations=True))
    assert row["never_reserved"] == direct["never_reserved"] > 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 50))
def test_improvement_summary_is_the_mean_of_per_replication_improvements(seed: int) -> None:
    models = [ModelWorkload(n_jobs=30, machine_size=8, seed=seed + k, name=f"x{k}") for k in range(2)]
    result = run_sweep(Grid(models, ["FCFS", "EASY"]), workers=1)
    rows = replication_summary(result, ["mean_bsld"], {m.label: "x" for m in models}, baseline="FCFS")
    (imp,) = [r for r in rows if r["kind"] == "improvement"]
    each = [r["improvement"] for r in result.improvement("mean_bsld", "FCFS")]
    assert imp["mean"] == pytest.approx(np.mean(each))


def test_replication_summary_refuses_a_column_the_rows_lack() -> None:
    result = run_sweep(Grid(MODELS[:2], ["EASY"]), workers=1)
    with pytest.raises(BackfillError, match="no column 'users'"):
        replication_summary(result, ["users"], {})
    with pytest.raises(BackfillError, match="baseline"):
        replication_summary(result, ["mean_wait"], {}, baseline="Conservative")
