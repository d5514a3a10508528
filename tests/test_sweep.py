"""Sweeps: grid order, labels, cache keys and resuming, executors, the result table, bad inputs."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import os
import pickle
import re
import shutil
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backfill.experiments.sweep as sweep
from backfill import (
    EASY,
    BackfillError,
    CleaningPolicy,
    Conservative,
    Job,
    LookaheadSlack,
    Workload,
    lublin_feitelson,
    sjf,
    write_swf,
)
from backfill.experiments.cache import file_digest
from backfill.experiments.sweep import (
    COLUMNS,
    Cell,
    Grid,
    ModelWorkload,
    SchedulerSpec,
    SweepResult,
    TraceWorkload,
    run_sweep,
)
from backfill.schedulers import G2

SMALL = ModelWorkload(n_jobs=200, machine_size=32, seed=1, estimates="f-model")
OTHER = ModelWorkload(n_jobs=150, machine_size=16, seed=2, estimates="f-model")
#: 40 cells, a few hundredths of a second each.
GRID = Grid(
    [SMALL, OTHER],
    ["Conservative", SchedulerSpec.of("EASY", depth=2), "PC"],
    priorities=["fcfs", "sjf"],
    loads=[1.0, 1.3],
    estimates=["user", "exact"],
)

# Three jobs on 10 processors whose schedules are easy to work out by hand (see test_improvement).
HAND_JOBS = [
    Job(id=1, submit=0.0, processors=5, runtime=10.0, estimate=10.0),
    Job(id=2, submit=1.0, processors=10, runtime=10.0, estimate=10.0),
    Job(id=3, submit=2.0, processors=5, runtime=5.0, estimate=5.0),
]


def same_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """Rows equal in every column but the wall time; repr makes NaN equal to NaN and floats exact."""
    strip = [[(k, v) for k, v in row.items() if k != "seconds"] for row in a]
    return repr(strip) == repr([[(k, v) for k, v in row.items() if k != "seconds"] for row in b])


@pytest.fixture
def hand_trace(tmp_path: Path) -> Path:
    path = tmp_path / "hand.swf"
    write_swf(path, Workload.from_jobs(HAND_JOBS, machine_size=10))
    return path


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    path = tmp_path / "traces" / "small.swf.gz"
    path.parent.mkdir()
    write_swf(path, lublin_feitelson(200, machine_size=32, seed=5, estimates="f-model"))
    return path


# -- grid order and labels -------------------------------------------------------------------------


def test_cells_follow_the_product_order_with_one_fcfs_cell_for_priorityless_schedulers() -> None:
    cells = [(c.workload, c.scheduler.label, c.priority, c.load, c.estimates) for c in GRID.cells()]
    expected = [
        (w, s.label, p, load, e)
        for w, s, p, load, e in itertools.product(
            GRID.workloads, GRID.schedulers, GRID.priorities, GRID.loads, GRID.estimates
        )
        if s.takes_priority or p == "fcfs"
    ]
    assert cells == expected
    assert len(cells) == 2 * (1 + 2 + 2) * 2 * 2
    assert all(c.bound == 10.0 for c in GRID.cells())


@settings(max_examples=40, deadline=None)
@given(
    priorities=st.lists(st.sampled_from(["fcfs", "sjf", "ljf", "lxf"]), min_size=1, max_size=4, unique=True),
    loads=st.lists(st.sampled_from([0.5, 1.0, 1.2, 2.0]), min_size=1, max_size=3, unique=True),
    estimates=st.permutations(["user", "exact"]).map(tuple),
)
def test_cell_order_is_deterministic_for_any_grid(
    priorities: list[str], loads: list[float], estimates: tuple[str, ...]
) -> None:
    grid = Grid([SMALL], ["Selective", "SlackBackfill"], priorities, loads, estimates)
    cells = list(grid.cells())
    assert cells == list(grid.cells())
    selective = [(c.priority, c.load, c.estimates) for c in cells if c.scheduler.name == "Selective"]
    slack = [(c.priority, c.load, c.estimates) for c in cells if c.scheduler.name == "SlackBackfill"]
    assert selective == list(itertools.product(priorities, loads, estimates))
    assert slack == list(itertools.product(["fcfs"], loads, estimates))
    assert cells[: len(selective)] == [c for c in cells if c.scheduler.name == "Selective"]


def test_grid_accepts_lone_values_and_names() -> None:
    grid = Grid(SMALL, "easy", priorities="sjf", loads=2, estimates="exact")
    [cell] = grid.cells()
    assert (cell.scheduler, cell.priority, cell.load, cell.estimates) == (
        SchedulerSpec("EASY"),
        "sjf",
        2.0,
        "exact",
    )


def test_labels(small_trace: Path) -> None:
    assert SchedulerSpec("Conservative").label == "Conservative"
    assert SchedulerSpec.of("EASY", depth=4).label == "EASY(depth=4)"
    assert SchedulerSpec.of("relshare", window=3600.0, depth=2).label == "RelShare(depth=2, window=3600.0)"
    assert SMALL.label == "lublin(n_jobs=200, machine_size=32, seed=1, estimates='f-model')"
    assert ModelWorkload(job_class="all", arrival_shape=10.23).label == (
        "lublin(n_jobs=10000, machine_size=128, seed=0, job_class='all', arrival_shape=10.23)"
    )
    assert ModelWorkload(n_jobs=10, name="W1").label == "W1"
    assert TraceWorkload(small_trace).label == "small"
    assert TraceWorkload(small_trace, name="KTH").label == "KTH"
    row = Cell(SMALL, SchedulerSpec.of("EASY", depth=4), "sjf", 1.2, "exact").description()
    assert row == {
        "workload": SMALL.label,
        "scheduler": "EASY(depth=4)",
        "scheduler_name": "EASY",
        "params": '{"depth": 4}',
        "priority": "sjf",
        "load": 1.2,
        "estimates": "exact",
    }


# -- scheduler specs -------------------------------------------------------------------------------


def test_scheduler_spec_builds_fresh_schedulers_with_the_priority() -> None:
    spec = SchedulerSpec.of("EASY", depth=3)
    a, b = spec.build("sjf"), spec.build("sjf")
    assert isinstance(a, EASY) and a is not b
    assert a.depth == 3 and a.priority is sjf
    assert isinstance(SchedulerSpec("conservative").build(), Conservative)
    lookahead = SchedulerSpec.of("LookaheadSlack", goal="G2", lookahead=5).build()
    assert (
        isinstance(lookahead, LookaheadSlack) and isinstance(lookahead.goal, G2) and lookahead.lookahead == 5
    )
    # Plain data: hashable, equal when equal, and picklable by any executor.
    assert pickle.loads(pickle.dumps(spec)) == spec and hash(spec) == hash(
        SchedulerSpec("easy", {"depth": 3})
    )


@settings(max_examples=30, deadline=None)
@given(
    params=st.dictionaries(
        st.sampled_from(["window", "depth", "decay", "expected_usage"]),
        st.none(),
        min_size=1,
    ).flatmap(
        lambda keys: st.fixed_dictionaries(
            {
                k: {
                    "window": st.floats(60.0, 1e6),
                    "depth": st.integers(1, 5),
                    "decay": st.floats(0.0, 1.0),
                    "expected_usage": st.booleans(),
                }[k]
                for k in keys
            }
        )
    ),
    order=st.randoms(use_true_random=False),
)
def test_params_are_sorted_whatever_the_order_given(params: dict[str, Any], order: Any) -> None:
    items = list(params.items())
    order.shuffle(items)
    spec = SchedulerSpec("RelShare", items)
    assert spec == SchedulerSpec.of("RelShare", **params)
    assert [k for k, _ in spec.params] == sorted(params)
    assert Cell(SMALL, spec).key() == Cell(SMALL, SchedulerSpec.of("RelShare", **params)).key()


def test_schedulers_without_a_priority_take_only_fcfs() -> None:
    for name in ("Conservative", "RelShare", "LookaheadSlack", "SlackBackfill"):
        assert not SchedulerSpec(name).takes_priority
        with pytest.raises(BackfillError, match=rf"{name} has no queue priority.*'sjf'"):
            SchedulerSpec(name).build("sjf")
        with pytest.raises(BackfillError, match="'wjf'"):
            Cell(SMALL, name, "wjf")
    for name in ("FCFS", "EASY", "PC", "DC", "Selective"):
        assert SchedulerSpec(name).takes_priority


# -- cache keys ------------------------------------------------------------------------------------


def test_cache_key_changes_with_every_field(monkeypatch: pytest.MonkeyPatch, hand_trace: Path) -> None:
    base = Cell(SMALL, SchedulerSpec.of("EASY", depth=2), "sjf", 1.2, "user", 10.0)
    variants = [
        Cell(OTHER, base.scheduler, "sjf", 1.2, "user", 10.0),
        Cell(
            ModelWorkload(n_jobs=200, machine_size=32, seed=2, estimates="f-model"),
            base.scheduler,
            "sjf",
            1.2,
        ),
        Cell(ModelWorkload(n_jobs=200, machine_size=32, seed=1), base.scheduler, "sjf", 1.2),
        Cell(TraceWorkload(hand_trace), base.scheduler, "sjf", 1.2),
        Cell(SMALL, SchedulerSpec.of("PC"), "sjf", 1.2),
        Cell(SMALL, SchedulerSpec.of("EASY", depth=3), "sjf", 1.2),
        Cell(SMALL, SchedulerSpec.of("EASY"), "sjf", 1.2),
        Cell(SMALL, base.scheduler, "fcfs", 1.2),
        Cell(SMALL, base.scheduler, "sjf", 1.3),
        Cell(SMALL, base.scheduler, "sjf", 1.2, "exact"),
        Cell(SMALL, base.scheduler, "sjf", 1.2, "user", 60.0),
    ]
    keys = {base.key(), *(cell.key() for cell in variants)}
    assert len(keys) == 1 + len(variants)
    # Equal cells share a key, whatever the spelling: 1.2 as a float, "easy" in lower case.
    assert Cell(SMALL, SchedulerSpec("easy", [("depth", 2)]), "sjf", 1.2).key() == base.key()
    assert Cell(SMALL, "Conservative", load=1).key() == Cell(SMALL, "Conservative", load=1.0).key()
    # A name is only a label.
    named = ModelWorkload(n_jobs=200, machine_size=32, seed=1, estimates="f-model", name="mine")
    assert Cell(named, base.scheduler, "sjf", 1.2).key() == base.key()
    # Another version of the library computes every cell again.
    monkeypatch.setattr(sweep, "library_version", lambda: "999.0")
    assert base.key() not in keys


def test_trace_key_follows_the_bytes_not_the_path(hand_trace: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "renamed.swf"
    copy.parent.mkdir()
    shutil.copy(hand_trace, copy)
    os.utime(copy, (1, 1))  # another mtime too
    original, moved = Cell(TraceWorkload(hand_trace), "EASY"), Cell(TraceWorkload(copy), "EASY")
    assert original.key() == moved.key()
    assert Cell(TraceWorkload(copy, CleaningPolicy(overrun="keep")), "EASY").key() != original.key()
    assert Cell(TraceWorkload(copy, CleaningPolicy()), "EASY").key() == original.key()
    with copy.open("a") as f:
        f.write("4 20 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert Cell(TraceWorkload(copy), "EASY").key() != original.key()
    assert len(TraceWorkload(copy).load()) == 4


# -- running, caching, resuming --------------------------------------------------------------------


MEASURE = sweep._measure


class Interrupted(Exception):
    """Stands for Ctrl-C in the middle of a sweep."""


def count_measures(monkeypatch: pytest.MonkeyPatch, fail_after: int | None = None) -> list[Cell]:
    """Record every cell simulated in this process; raise after ``fail_after`` of them."""
    calls: list[Cell] = []

    def counting(cell: Cell, identity: Any, jobs: bool = False, tick: Any = None) -> dict[str, Any]:
        if fail_after is not None and len(calls) >= fail_after:
            raise Interrupted
        calls.append(cell)
        return MEASURE(cell, identity, jobs, tick)

    monkeypatch.setattr(sweep, "_measure", counting)
    return calls


def test_rows_are_in_grid_order_with_every_column() -> None:
    result = run_sweep(GRID, workers=1)
    assert (result.computed, result.cached) == (40, 0)
    assert [list(row) for row in result.rows] == [list(COLUMNS)] * 40
    assert [{k: row[k] for k in sweep.DESCRIPTION_COLUMNS} for row in result.rows] == [
        cell.description() for cell in GRID.cells()
    ]
    for row in result.rows:
        assert row["jobs"] == (200 if row["workload"] == SMALL.label else 150) and row["rejected"] == 0
        assert isinstance(row["jobs"], int) and row["seconds"] > 0 and row["mean_wait"] >= 0
    assert same_rows([Cell(OTHER, "PC", "sjf", 1.3, "exact").run()], [result.rows[-1]])


def test_an_interrupted_sweep_resumes_without_recomputing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    calls = count_measures(monkeypatch, fail_after=15)
    with pytest.raises(Interrupted):
        run_sweep(GRID, cache=cache, workers=1)
    files = sorted(cache.glob("*.json"))
    assert len(files) == 15 and not list(cache.glob(".*"))  # no temporary file left behind
    assert {f.stem for f in files} == {cell.key() for cell in calls}

    calls = count_measures(monkeypatch)
    resumed = run_sweep(GRID, cache=cache, workers=1)
    assert (resumed.computed, resumed.cached, len(calls)) == (25, 15, 25)
    assert [c.key() for c in calls] == [c.key() for c in list(GRID.cells())[15:]]
    mtimes = {f: f.stat().st_mtime_ns for f in cache.glob("*.json")}

    calls = count_measures(monkeypatch)
    again = run_sweep(GRID, cache=cache, workers=2)
    assert (again.computed, again.cached, calls) == (0, 40, [])
    assert {f: f.stat().st_mtime_ns for f in cache.glob("*.json")} == mtimes
    assert again.rows == resumed.rows  # cached rows keep even their wall time
    assert same_rows(resumed.rows, run_sweep(GRID, workers=1).rows)


def test_a_damaged_cache_file_is_computed_again(tmp_path: Path) -> None:
    grid = Grid(SMALL, ["EASY", "FCFS"])
    first = run_sweep(grid, cache=tmp_path, workers=1)
    easy = tmp_path / f"{Cell(SMALL, 'EASY').key()}.json"
    easy.write_text('{"format": 1, "metr')
    second = run_sweep(grid, cache=tmp_path, workers=1)
    assert (second.computed, second.cached) == (1, 1)
    assert same_rows(first.rows, second.rows)


def test_serial_process_pool_and_cache_give_the_same_rows(tmp_path: Path) -> None:
    serial = run_sweep(GRID, workers=1)
    pooled = run_sweep(GRID, workers=2, cache=tmp_path)
    cached = run_sweep(GRID, workers=2, cache=tmp_path)
    assert (pooled.computed, cached.cached) == (40, 40)
    assert same_rows(serial.rows, pooled.rows)
    assert cached.rows == pooled.rows


def test_traces_run_and_cache_like_models(small_trace: Path, tmp_path: Path) -> None:
    grid = Grid([small_trace], ["EASY", "DC"], priorities=["fcfs", "lxf"], estimates=["user", "exact"])
    serial = run_sweep(grid, workers=1, cache=tmp_path / "a")
    assert [row["workload"] for row in serial.rows] == ["small"] * 8
    moved = tmp_path / "moved.swf.gz"
    shutil.copy(small_trace, moved)
    pooled = run_sweep(
        Grid(
            [TraceWorkload(moved, name="small")], ["EASY", "DC"], ["fcfs", "lxf"], estimates=["user", "exact"]
        ),
        workers=2,
        cache=tmp_path / "a",
    )
    assert pooled.cached == 8
    # Same cells from the cache; only the provenance's file name says which copy was read.
    assert [r | {"source": ""} for r in pooled.rows] == [r | {"source": ""} for r in serial.rows]
    assert {r["source"] for r in serial.rows} == {small_trace.name}
    assert {r["source"] for r in pooled.rows} == {"moved.swf.gz"}
    assert {r["sha256"] for r in pooled.rows} == {file_digest(small_trace)}


def test_a_failing_cell_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(cell: Cell, identity: Any, jobs: bool = False, tick: Any = None) -> dict[str, Any]:
        raise ValueError("boom")

    monkeypatch.setattr(sweep, "_measure", broken)
    with pytest.raises(ValueError, match="boom") as info:
        run_sweep(Grid(SMALL, "EASY", loads=1.5), workers=1)
    assert any("EASY" in note and "load 1.5" in note for note in info.value.__notes__)


def test_progress_bar(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("tqdm")
    grid = Grid(SMALL, ["EASY", "FCFS"])
    run_sweep(grid, workers=1, cache=tmp_path)
    run_sweep(Grid(SMALL, ["EASY", "FCFS", "PC"]), workers=1, cache=tmp_path, progress=True)
    assert "3/3" in capsys.readouterr().err


# -- results ---------------------------------------------------------------------------------------


def test_csv_round_trip(tmp_path: Path) -> None:
    result = run_sweep(Grid([SMALL, ModelWorkload(n_jobs=0)], ["EASY", "SlackBackfill"]), workers=1)
    path = tmp_path / "sweep.csv"
    result.to_csv(path)
    with path.open(newline="") as f:
        header = next(csv.reader(f))
    assert header == list(COLUMNS)
    back = SweepResult.from_csv(path)
    assert same_rows(back.rows, result.rows) and [r["seconds"] for r in back.rows] == [
        r["seconds"] for r in result.rows
    ]
    assert back.rows[-1]["jobs"] == 0 and back.rows[-1]["mean_wait"] != back.rows[-1]["mean_wait"]  # NaN
    path.write_text("workload,scheduler\nx,y\n")
    with pytest.raises(BackfillError, match="no column scheduler_name"):
        SweepResult.from_csv(path)


def test_dataframe_with_pandas() -> None:
    pandas = pytest.importorskip("pandas")
    result = run_sweep(Grid(SMALL, ["EASY", "PC"], priorities=["fcfs", "sjf"]), workers=1)
    frame = result.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 4
    assert frame["mean_wait"].tolist() == [row["mean_wait"] for row in result.rows]


def test_dataframe_uses_pandas_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Any, Any]] = []
    fake = types.ModuleType("pandas")
    fake.DataFrame = lambda rows, columns: seen.append((rows, columns)) or "frame"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pandas", fake)
    result = SweepResult([{"workload": "w"}])
    assert result.to_dataframe() == "frame"
    assert seen == [(result.rows, list(COLUMNS))]


def test_dataframe_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(BackfillError, match=r"pip install '\.\[dataframe\]'"):
        SweepResult([]).to_dataframe()


def test_improvement_by_hand(hand_trace: Path) -> None:
    # On 10 processors: job 1 (5 wide) runs 0-10; job 2 (10 wide, from t=1) can only start at 10.
    # Job 3 (5 wide, 5 s, from t=2) fits beside job 1 before job 2's reservation under EASY and
    # Conservative (waits 0, 9, 0: mean 3), but FCFS(fcfs) keeps it behind job 2 until 20 (0, 9, 18:
    # mean 9). SJF puts job 3 ahead of job 2, so FCFS(sjf) starts it at once (mean 3).
    grid = Grid(TraceWorkload(hand_trace), ["Conservative", "FCFS", "EASY"], priorities=["fcfs", "sjf"])
    result = run_sweep(grid, workers=1)
    waits = {(r["scheduler"], r["priority"]): r["mean_wait"] for r in result.rows}
    assert waits == {
        ("Conservative", "fcfs"): 3.0,
        ("FCFS", "fcfs"): 9.0,
        ("FCFS", "sjf"): 3.0,
        ("EASY", "fcfs"): 3.0,
        ("EASY", "sjf"): 3.0,
    }
    over_conservative = result.improvement("mean_wait")
    assert [(r["scheduler"], r["priority"], r["improvement"]) for r in over_conservative] == [
        ("FCFS", "fcfs", 100 * (3.0 - 9.0) / 3.0),
        ("FCFS", "sjf", 0.0),
        ("EASY", "fcfs", 0.0),
        ("EASY", "sjf", 0.0),
    ]
    assert over_conservative[0] == {
        **{k: result.rows[1][k] for k in sweep.DESCRIPTION_COLUMNS},
        "metric": "mean_wait",
        "baseline": "Conservative",
        "value": 9.0,
        "baseline_value": 3.0,
        "improvement": -200.0,
    }
    over_fcfs = result.improvement("mean_wait", baseline="FCFS")
    assert [(r["scheduler"], r["priority"], r["improvement"]) for r in over_fcfs] == [
        ("Conservative", "fcfs", 100 * (9.0 - 3.0) / 9.0),
        ("EASY", "fcfs", 100 * (9.0 - 3.0) / 9.0),
        ("EASY", "sjf", 0.0),
    ]
    max_wait = {r["scheduler"]: r["improvement"] for r in result.improvement("max_wait", baseline="FCFS")}
    assert max_wait["Conservative"] == 100 * (18.0 - 9.0) / 18.0


def test_improvement_errors() -> None:
    result = run_sweep(Grid([SMALL, OTHER], ["EASY", "PC"]), workers=1)
    with pytest.raises(BackfillError, match="baseline scheduler 'Conservative'; schedulers: EASY, PC"):
        result.improvement("mean_wait")
    with pytest.raises(BackfillError, match="unknown metric 'mean_waits'"):
        result.improvement("mean_waits", baseline="EASY")
    partial = SweepResult([row for row in result.rows if row != result.rows[2]])  # OTHER's EASY row
    with pytest.raises(BackfillError, match=r"no 'EASY' row to compare 'PC'.*workload=.lublin\(n_jobs=150"):
        partial.improvement("mean_wait", baseline="EASY")


# -- bad inputs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: SchedulerSpec("Backfill9"), "unknown scheduler 'Backfill9'"),
        (lambda: Grid(SMALL, "Easyy"), "unknown scheduler 'Easyy'"),
        (lambda: SchedulerSpec.of("EASY", deep=2), "EASY takes no parameter 'deep'"),
        (lambda: SchedulerSpec.of("EASY", depth=0), "depth must be a positive int.*got 0"),
        (lambda: SchedulerSpec.of("EASY", priority="sjf"), "not as a parameter"),
        (lambda: SchedulerSpec.of("LookaheadSlack", goal="G3"), "goal must be one of G1, G2, got 'G3'"),
        (lambda: SchedulerSpec("EASY", [("depth", [1])]), r"depth=\[1\] is not a JSON"),
        (lambda: SchedulerSpec("EASY").build("fastest"), "unknown priority 'fastest'"),
        (lambda: Grid(SMALL, "EASY", priorities=["fcfs", "shortest"]), "unknown priority 'shortest'"),
        (lambda: Grid(SMALL, "EASY", loads=[1.0, 0]), "load factor must be .*got 0.0"),
        (lambda: Grid(SMALL, "EASY", loads=-1.5), "load factor must be .*got -1.5"),
        (lambda: Grid(SMALL, "EASY", loads=["high"]), "load factor must be .*got 'high'"),
        (lambda: Cell(SMALL, "EASY", load=float("inf")), "load factor must be .*got inf"),
        (lambda: Grid(SMALL, "EASY", estimates=["f-model:3"]), "unknown estimate policy 'f-model:3'"),
        (lambda: Cell(SMALL, "EASY", estimates="exactly"), "unknown estimate policy 'exactly'"),
        (lambda: Grid(SMALL, "EASY", bound=0), "bound must be .*got 0.0"),
        (lambda: TraceWorkload("no/such/trace.swf"), r"trace file not found: .*no/such/trace\.swf"),
        (lambda: Grid("missing.swf.gz", "EASY"), r"trace file not found: .*missing\.swf\.gz"),
        (lambda: TraceWorkload(3), "a trace path must be a string or path, got 3"),
        (lambda: ModelWorkload(n_jobs=-5), "n_jobs must be an integer >= 0, got -5"),
        (lambda: ModelWorkload(job_class="gpu"), "job_class must be .* got 'gpu'"),
        (lambda: ModelWorkload(estimates="exact"), "estimates must be .* got 'exact'"),
        (lambda: Grid([SMALL, SMALL], "EASY"), "workload label given twice"),
        (lambda: Grid(SMALL, ["EASY", "easy"]), "scheduler label given twice in a grid: EASY"),
        (lambda: Grid(SMALL, "EASY", loads=[]), "at least one load factor"),
        (lambda: Grid([lublin_feitelson(5)], "EASY"), "a workload must be a TraceWorkload or ModelWorkload"),
        (lambda: Grid(SMALL, [EASY()]), "a scheduler must be a SchedulerSpec or a name"),
        (lambda: run_sweep(Grid(SMALL, "EASY"), workers=0), "workers must be a positive integer, got 0"),
    ],
)
def test_bad_inputs_name_the_bad_value(make: Any, message: str) -> None:
    with pytest.raises(BackfillError, match=message):
        make()


def test_a_trace_that_is_a_fifo_or_a_directory_is_named_as_such(tmp_path: Path) -> None:
    # A FIFO given as a trace was "not found" (it exists); reading it would hang.
    fifo = tmp_path / "trace.swf"
    os.mkfifo(fifo)
    with pytest.raises(BackfillError, match=r"trace\.swf' is a FIFO \(named pipe\), not a regular file"):
        TraceWorkload(fifo)
    with pytest.raises(BackfillError, match=r"is a directory, not a regular file"):
        TraceWorkload(tmp_path)


# -- documentation --------------------------------------------------------------------------------


def test_the_example_of_docs_sweeps_runs_and_resumes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "sweeps.md").read_text(encoding="utf-8")
    example = re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)[0]
    monkeypatch.chdir(tmp_path)
    outputs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(example, "docs/sweeps.md", "exec"), {})
        outputs.append(out.getvalue().splitlines())
    assert outputs[0][0] == "SweepResult(28 rows, 28 computed, 0 cached)"
    assert outputs[1][0] == "SweepResult(28 rows, 0 computed, 28 cached)"
    assert outputs[0][1:] == outputs[1][1:] and len(outputs[0]) == 1 + 24
    assert outputs[0][1].startswith("LF1 EASY fcfs load 1.0   ") and outputs[0][1].endswith(" %")
    assert "LF1 EASY sjf load 1.0     +51.5 %" in outputs[0]  # as docs/sweeps.md quotes it
    assert len(SweepResult.from_csv(tmp_path / "sweep.csv").rows) == 28


# -- Dask ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed", reason="the integration extra installs it")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_a_dask_cluster_gives_the_same_rows(dask_client: Any, tmp_path: Path, small_trace: Path) -> None:
    grid = Grid([SMALL, small_trace], GRID.schedulers, GRID.priorities, GRID.loads, GRID.estimates)
    serial = run_sweep(grid, workers=1)
    on_cluster = run_sweep(grid, executor=dask_client.get_executor(), cache=tmp_path)
    assert on_cluster.computed == 40 and same_rows(serial.rows, on_cluster.rows)
    assert run_sweep(grid, executor=dask_client.get_executor(), cache=tmp_path).rows == on_cluster.rows


def test_per_job_results_come_back_and_are_cached(tmp_path: Path) -> None:
    grid = Grid([SMALL], ["EASY", "Conservative"], loads=[1.0, 1.4])
    fresh = run_sweep(grid, workers=1, jobs=True, cache=tmp_path)
    assert len(fresh.jobs) == 4 and run_sweep(grid, workers=1).jobs == []
    for row, text in zip(fresh.rows, fresh.jobs, strict=True):
        lines = text.splitlines()
        assert len(lines) == 1 + SMALL.n_jobs
        assert f",{row['scheduler']},{row['priority']}," in lines[1]
    again = run_sweep(grid, workers=2, jobs=True, cache=tmp_path)
    assert (again.cached, again.jobs) == (4, fresh.jobs)
    assert len(list(tmp_path.glob("*.jobs.csv.gz"))) == 4


def test_an_interrupted_sweep_says_how_far_it_got(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = 0

    def interrupted(cell: Cell, identity: Any, jobs: bool = False, tick: Any = None) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return MEASURE(cell, identity, jobs, tick)

    monkeypatch.setattr(sweep, "_measure", interrupted)
    with pytest.raises(sweep.SweepInterrupted) as info:
        run_sweep(GRID, workers=1, cache=tmp_path)
    assert (info.value.finished, info.value.total, info.value.cache) == (2, 40, tmp_path)
    assert isinstance(info.value, KeyboardInterrupt)
    assert "2 of 40 cells finished" in str(info.value)


def test_an_interrupt_while_a_cell_is_saved_does_not_count_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The message promises the cache keeps every cell it counts: a signal landing while a
    # finished cell is being written must leave the count at what the cache holds.
    saves = 0
    save = sweep.CellStore.save

    def interrupted_save(self: Any, *args: Any) -> None:
        nonlocal saves
        saves += 1
        if saves == 3:
            raise KeyboardInterrupt
        save(self, *args)

    monkeypatch.setattr(sweep.CellStore, "save", interrupted_save)
    with pytest.raises(sweep.SweepInterrupted) as info:
        run_sweep(GRID, workers=1, cache=tmp_path)
    assert info.value.finished == len(list(tmp_path.glob("*.json"))) == 2


def test_a_pool_worker_ignores_ctrl_c_and_dies_at_once_on_sigterm() -> None:
    # A forked worker inherits the parent's handlers; `backfill compare` turns SIGTERM into an
    # interrupt, which a worker would run only on its next return from compiled code, and its pool
    # loop would catch. The parent stops its workers with SIGTERM: they must die at once.
    import signal

    from backfill.experiments import _parallel as parallel

    def parents_handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, parents_handler), signal.getsignal(signal.SIGINT)
    try:
        parallel.ignore_interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])


def test_a_grid_reads_schedulers_given_as_text_as_the_command_line_does() -> None:
    grid = Grid(
        [ModelWorkload(n_jobs=20, machine_size=8)],
        ["EASY", "easy:depth=4", "easy:bf_window=1440,predictor=last2", "relshare:bf_max_job_test=50"],
    )
    assert grid.schedulers == (
        SchedulerSpec("EASY"),
        SchedulerSpec.of("EASY", depth=4),
        SchedulerSpec.of("EASY", planning_window=86400.0, predictor="last2"),
        SchedulerSpec.of("RelShare", max_tested=50),
    )
    spec = grid.schedulers[2]
    assert pickle.loads(pickle.dumps(spec)) == spec  # what travels to a worker
    with pytest.raises(BackfillError, match="expected KEY=VALUE"):
        Grid([ModelWorkload(n_jobs=20, machine_size=8)], ["easy:depth"])
