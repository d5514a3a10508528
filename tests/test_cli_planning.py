"""Planning options and Slurm's names on the command line, in NAME:K=V, in sweep specs and grids."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from backfill import Job, Workload, simulate, write_swf
from backfill.cli import build_parser, main
from backfill.cli.options import scheduler_spec, scheduler_specs
from backfill.errors import BackfillError
from backfill.experiments.cache import content_key
from backfill.experiments.sweep import Cell, Grid, ModelWorkload, SchedulerSpec, run_sweep
from backfill.schedulers import EASY, planning
from backfill.schedulers.machinery.priorities import sjf
from backfill.schedulers.prediction.predictors import UserHistory, exact_runtime
from backfill.schedulers.registry import PLANNING_OPTIONS, SCHEDULERS, SLURM_ALIASES, scheduler_entry

#: Three jobs on 3 processors: planned by estimates job 3 waits until 60; by runtimes it backfills at 2.
JOBS = [
    Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=100.0, user=1),
    Job(id=2, submit=1.0, processors=3, runtime=50.0, estimate=60.0, user=2),
    Job(id=3, submit=2.0, processors=1, runtime=5.0, estimate=200.0, user=1),
]
TINY = Workload.from_jobs(JOBS, machine_size=3)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def specs(*argv: str) -> list[SchedulerSpec]:
    return scheduler_specs(build_parser().parse_args(["simulate", *argv]))


def parsed(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["simulate", *argv])


# -- each option reaches the scheduler -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "params", "name"),
    [
        (["--predictor", "last2"], {"predictor": "last2"}, "EASY(fcfs) [predictor=last2]"),
        (["--predictor", "LAST3"], {"predictor": "last3"}, "EASY(fcfs) [predictor=last3]"),
        (["--predictor", "exact"], {"predictor": "exact"}, "EASY(fcfs) [predictor=exact]"),
        (["--predictor", "estimate"], {"predictor": "estimate"}, "EASY(fcfs)"),
        (["--resolution", "60"], {"resolution": 60.0}, "EASY(fcfs) [resolution=60]"),
        (["--resolution", "5min"], {"resolution": 300.0}, "EASY(fcfs) [resolution=300]"),
        (
            ["--predictor", "last2", "--correction", "steps"],
            {"predictor": "last2", "correction": "steps"},
            "EASY(fcfs) [predictor=last2, correction=steps]",
        ),
        (["--planning-window", "1h"], {"planning_window": 3600.0}, "EASY(fcfs, planning_window=3600)"),
        (["--planning-window", "none"], {"planning_window": None}, "EASY(fcfs)"),
        (["--max-tested", "5"], {"max_tested": 5}, "EASY(fcfs, max_tested=5)"),
        (["--backfill-order", "sjf"], {"backfill_order": "sjf"}, "EASY(fcfs, backfill_order=sjf)"),
    ],
)
def test_each_option_reaches_the_scheduler(argv: list[str], params: dict[str, object], name: str) -> None:
    (spec,) = specs("--scheduler", "easy", *argv)
    assert dict(spec.params) == params
    assert spec.build().name == name


@pytest.mark.parametrize(
    ("argv", "target", "value"),
    [
        (["--bf-window", "2"], "planning_window", 120.0),
        (["--bf-window", "1440"], "planning_window", 86400.0),
        (["--bf-resolution", "30"], "resolution", 30.0),
        (["--bf-max-job-test", "7"], "max_tested", 7),
        (["--bf-job-part-count-reserve", "0"], "depth", None),
        (["--bf-job-part-count-reserve", "3"], "depth", 3),
    ],
)
def test_slurm_options_set_their_parameter_in_its_unit(argv: list[str], target: str, value: object) -> None:
    (spec,) = specs("--scheduler", "easy", *argv)
    assert spec.params == ((target, value),)
    own = "--" + target.replace("_", "-")
    text = "inf" if value is None else str(value)
    assert specs("--scheduler", "easy", own, text) == [spec]  # one setting, one spec identity


def test_the_scheduler_plans_with_the_prediction() -> None:
    (by_estimates, by_runtimes) = specs("--scheduler", "easy", "easy:predictor=exact")
    assert simulate(TINY, by_estimates.build()).start.tolist() == [0.0, 10.0, 60.0]
    assert simulate(TINY, by_runtimes.build()).start.tolist() == [0.0, 10.0, 2.0]
    direct = simulate(TINY, planning(EASY(), predictor=exact_runtime))
    assert simulate(TINY, by_runtimes.build()).start.tolist() == direct.start.tolist()


#: User 1 ran two 5 s jobs; job 5 (user 1, estimate 100) fits before job 4's reservation at 56 only
#: if planned with its user's history (5 s), and only if 5 s is not rounded up past the reservation.
HISTORY = Workload.from_jobs(
    [
        Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=100.0, user=1),
        Job(id=2, submit=0.0, processors=1, runtime=5.0, estimate=100.0, user=1),
        Job(id=3, submit=6.0, processors=2, runtime=50.0, estimate=50.0, user=2),
        Job(id=4, submit=7.0, processors=3, runtime=10.0, estimate=10.0, user=2),
        Job(id=5, submit=8.0, processors=1, runtime=5.0, estimate=100.0, user=1),
    ],
    machine_size=3,
)


@pytest.mark.parametrize(
    ("text", "job5"),
    [
        ("easy", 66.0),
        ("easy:predictor=last2", 8.0),
        ("easy:predictor=last3", 66.0),  # three runtimes of history are needed, two ran
        ("easy:predictor=last2,bf_resolution=10", 8.0),
        ("easy:predictor=last2,resolution=100", 66.0),  # planned 100 s: past the reservation
    ],
)
def test_predictor_and_resolution_decide_a_backfill(text: str, job5: float) -> None:
    assert simulate(HISTORY, scheduler_spec(text).build()).start.tolist() == [0.0, 0.0, 6.0, 56.0, job5]


def test_a_built_scheduler_is_the_one_planning_would_build() -> None:
    spec = scheduler_spec("easy:predictor=last2,correction=steps,bf_resolution=60,backfill_order=sjf")
    built = spec.build()
    expected = planning(EASY(backfill_order=sjf), predictor=UserHistory(), correction="steps", resolution=60)
    assert (
        built.name
        == expected.name
        == "EASY(fcfs, backfill_order=sjf) [predictor=last2, correction=steps, resolution=60]"
    )
    assert type(built) is type(expected)
    assert simulate(TINY, built).start.tolist() == simulate(TINY, expected).start.tolist()


def test_a_window_and_a_test_limit_change_easy_as_the_class_does() -> None:
    # Job 3 would start at 100 by estimates; its earliest fit lies beyond a 1-minute window.
    spec = scheduler_spec("easy:bf_window=1,bf_max_job_test=2")
    assert spec.build().name == "EASY(fcfs, planning_window=60, max_tested=2)"
    got = simulate(TINY, spec.build()).start.tolist()
    assert got == simulate(TINY, EASY(planning_window=60.0, max_tested=2)).start.tolist()


@pytest.mark.parametrize("entry", list(SCHEDULERS), ids=lambda e: e.name)
def test_every_scheduler_takes_the_planning_options(entry: object) -> None:
    name = scheduler_entry(entry.name).cli_name  # type: ignore[attr-defined]
    spec = scheduler_spec(f"{name}:predictor=exact,resolution=60")
    built = spec.build()
    assert built.name.endswith("[predictor=exact, resolution=60]")  # type: ignore[attr-defined]
    simulate(TINY, built)


# -- Slurm's names in NAME:K=V and in sweep specs ---------------------------------------------------


@pytest.mark.parametrize(
    ("slurm", "own"),
    [
        ("easy:bf_window=2", "easy:planning_window=120"),
        ("easy:bf_window=1440", "easy:planning_window=1d"),
        ("relshare:bf_window=90", "relshare:planning_window=90min"),
        ("easy:bf_resolution=60", "easy:resolution=60"),
        ("conservative:bf_resolution=60", "conservative:resolution=1min"),
        ("easy:bf_max_job_test=500", "easy:max_tested=500"),
        ("easy:bf_job_part_count_reserve=0", "easy:depth=inf"),
        ("relshare:bf_job_part_count_reserve=4", "relshare:depth=4"),
    ],
)
def test_two_spellings_of_one_setting_are_one_spec(slurm: str, own: str) -> None:
    a, b = scheduler_spec(slurm), scheduler_spec(own)
    assert a == b and a.label == b.label and hash(a) == hash(b)
    workload = ModelWorkload(n_jobs=10, machine_size=8)
    assert Cell(workload, a).key() == Cell(workload, b).key()


def test_sweep_specs_and_grids_take_slurms_names() -> None:
    assert SchedulerSpec.of("EASY", bf_window=2).params == (("planning_window", 120.0),)
    assert SchedulerSpec.of("EASY", bf_window=1440) == SchedulerSpec.of("EASY", planning_window=86400.0)
    assert SchedulerSpec.of("easy", bf_job_part_count_reserve=0) == SchedulerSpec.of("EASY", depth=None)
    assert SchedulerSpec("EASY", (("bf_max_job_test", 50),)).params == (("max_tested", 50),)
    assert SchedulerSpec.parse("easy:bf_window=1440,predictor=last2") == SchedulerSpec.of(
        "EASY", planning_window=86400.0, predictor="last2"
    )
    grid = Grid([ModelWorkload(n_jobs=30, machine_size=16)], ["easy:bf_window=1440", "EASY"])
    assert [s.label for s in grid.schedulers] == ["EASY(planning_window=86400.0)", "EASY"]
    rows = run_sweep(grid, workers=1).rows
    assert rows[0]["params"] == '{"planning_window": 86400.0}'


#: Spec identities computed by the code before the planning options existed (commit fbe3148): the
#: sweep cache and committed results depend on them, so specs without planning options keep them.
IDENTITIES = [
    (SchedulerSpec("easy"), "EASY", "{}", "f891fbde0846e7d5f55b6be5215eb89985021a2462e65d6778f31c55ee09331a"),
    (
        SchedulerSpec.of("EASY", depth=4),
        "EASY(depth=4)",
        '{"depth": 4}',
        "6360d8526904446bbb9595ff7ab3e0d3bb192d678aca81c3dc057dcc3d4ca45d",
    ),
    (
        SchedulerSpec.of("EASY", depth=None),
        "EASY(depth=None)",
        '{"depth": null}',
        "089316923e38d83a9f8c5045b38b175107c10dee5b37fb820f08981c661055b9",
    ),
    (
        scheduler_spec("relshare:window=4h,expected_usage=false,depth=inf"),
        "RelShare(depth=None, expected_usage=False, window=14400.0)",
        '{"depth": null, "expected_usage": false, "window": 14400.0}',
        "26b302edb4f2795c1e534d52e21419becbbee3c8a44cda06dfdc8b7fec03a39a",
    ),
    (
        SchedulerSpec.of("Selective", threshold="adaptive"),
        "Selective(threshold='adaptive')",
        '{"threshold": "adaptive"}',
        "996ad3f7891e42804b7ebfb1e434246a868703a28bc8c0b55d06b1bb7b4c3845",
    ),
    (
        SchedulerSpec.of("lookahead", goal="G2", lookahead=10),
        "LookaheadSlack(goal='G2', lookahead=10)",
        '{"goal": "G2", "lookahead": 10}',
        "be343eae2ec4410b8d793f3e8f06746802bda11b28c3cb35e6a0130729126cae",
    ),
    (
        SchedulerSpec("Conservative"),
        "Conservative",
        "{}",
        "55e6edfa39f7a37bfa7bcc42aff1aa21927eeb976fddafa05ba5ed96b1ac7f93",
    ),
    (
        SchedulerSpec.of("PC", restart=False),
        "PC(restart=False)",
        '{"restart": false}',
        "6a0c247864cc54018ec9687905e6cd3a781b3593d34d37c975de426d055d5b56",
    ),
]


@pytest.mark.parametrize(("spec", "label", "params", "key"), IDENTITIES, ids=[i[1] for i in IDENTITIES])
def test_spec_identities_without_planning_options_are_unchanged(
    spec: SchedulerSpec, label: str, params: str, key: str
) -> None:
    workload = ModelWorkload(n_jobs=60, machine_size=16)
    cell = Cell(workload, spec, "sjf" if spec.takes_priority else "fcfs")
    data = cell._key_data(workload.identity()) | {"version": "X"}  # the key without the library's version
    assert (spec.label, cell.description()["params"], content_key(data)) == (label, params, key)


def test_planning_options_enter_the_identity() -> None:
    plain, planned = SchedulerSpec("EASY"), SchedulerSpec.of("EASY", predictor="last2")
    workload = ModelWorkload(n_jobs=60, machine_size=16)
    assert planned.label == "EASY(predictor='last2')"
    assert Cell(workload, plain).key() != Cell(workload, planned).key()
    assert SchedulerSpec.of("EASY", predictor="last2") != SchedulerSpec.of("EASY", predictor="last3")


# -- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("easy:predictor=oracle", "predictor: expected estimate, exact or lastN"),
        ("easy:predictor=last0", "predictor: expected estimate, exact or lastN"),
        ("easy:correction=maybe", "correction must be one of estimate, steps, got 'maybe'"),
        ("easy:resolution=-1", "resolution: expected a positive number"),
        ("easy:backfill_order=random", "backfill_order must be one of fcfs"),
        ("easy:bf_window=0", "bf_window: expected a positive number, got 0"),
        ("easy:bf_window=soon", "bf_window: expected a number, got 'soon'"),
        ("easy:bf_max_job_test=0", "bf_max_job_test: expected a positive number, got 0"),
        ("easy:bf_job_part_count_reserve=-1", "bf_job_part_count_reserve: expected a non-negative number"),
        ("fcfs:bf_window=1440", "FCFS has no planning_window, so Slurm's bf_window does not apply to it"),
        ("lookahead:bf_max_job_test=5", "LookaheadSlack has no max_tested, so Slurm's bf_max_job_test"),
        (
            "slack:bf_job_part_count_reserve=2",
            "SlackBackfill has no depth, so Slurm's bf_job_part_count_reserve",
        ),
        (
            "easy:bf_window=2,planning_window=60",
            "EASY: bf_window and planning_window both set planning_window",
        ),
        ("easy:backfill_order=sjf,depth=2", "a backfill order is for classic EASY"),
        ("easy:speed=3", "EASY takes no parameter 'speed'; it takes depth, backfill_order"),
    ],
)
def test_bad_planning_specs_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(BackfillError, match=re.escape(message)):
        scheduler_spec(text)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"predictor": "oracle"}, "predictor: expected estimate, exact or lastN"),
        ({"predictor": 2}, "predictor is given by name (estimate, exact, last2), got 2"),
        ({"resolution": -5.0}, "resolution must be a finite number of seconds >= 0"),
        ({"bf_window": True}, "bf_window: expected a number in Slurm's unit, got True"),
        ({"bf_max_job_test": 1.5}, "bf_max_job_test: expected a whole number, got '1.5'"),
    ],
)
def test_bad_planning_values_in_sweep_specs_are_refused_when_made(
    params: dict[str, object], message: str
) -> None:
    with pytest.raises(BackfillError, match=re.escape(message)):
        SchedulerSpec.of("EASY", **params)  # type: ignore[arg-type]


def test_a_slurm_name_for_a_scheduler_without_the_parameter_in_a_grid() -> None:
    with pytest.raises(BackfillError, match="FCFS has no planning_window, so Slurm's bf_window"):
        Grid([ModelWorkload(n_jobs=10, machine_size=8)], ["fcfs:bf_window=10"])
    with pytest.raises(BackfillError, match="FCFS has no depth, so Slurm's bf_job_part_count_reserve"):
        SchedulerSpec.of("FCFS", bf_job_part_count_reserve=1)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--predictor", "oracle"], "argument --predictor: predictor: expected estimate, exact or lastN"),
        (["--bf-window", "0"], "argument --bf-window: bf_window: expected a positive number, got 0"),
        (
            ["--bf-job-part-count-reserve", "x"],
            "--bf-job-part-count-reserve: bf_job_part_count_reserve: expected a whole number, got 'x'",
        ),
        (
            ["--correction", "later"],
            "argument --correction: correction must be one of estimate, steps, got 'later'",
        ),
    ],
)
def test_bad_option_values_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--scheduler", "easy", *argv])
    assert exit_.value.code == 2
    assert fragment in capsys.readouterr().err


def test_both_spellings_on_the_command_line_are_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "simulate", "--jobs", "20", "--bf-window", "2", "--planning-window", "1h")
    assert (code, out) == (2, "")
    assert "--bf-window and --planning-window set the same parameter; give one" in err


# -- the commands ------------------------------------------------------------------------------------


def test_simulate_prints_planning_measures_for_runs_that_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "tiny.swf"
    write_swf(log, TINY)
    code, out, _ = run(
        capsys, "simulate", str(log), "--scheduler", "easy", "easy:predictor=exact", "--no-progress"
    )
    assert code == 0
    assert "EASY(fcfs) [predictor=exact]" in out
    block = out[out.index("planning measures") :]
    assert block.splitlines()[1] == "EASY(fcfs) [predictor=exact]"
    # The oracle's planned runtimes are the runtimes; nothing is extended, nothing breaks.
    for label, value in [
        ("mean absolute prediction error", "0.0 s"),
        ("underpredicted jobs", "0.000 (fraction of the jobs)"),
        ("broken guarantees", "0"),
        ("jobs with a broken guarantee", "0"),
        ("jobs that waited unreserved", "0"),
    ]:
        assert re.search(rf"^  {label} +{re.escape(value)}$", block, re.MULTILINE), label
    assert "EASY(fcfs)\n" not in block  # the run without planning has no measures


def test_simulate_without_planning_prints_what_it_always_did(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "simulate", "--jobs", "60", "--scheduler", "easy", "easy:depth=2", "--no-progress"
    )
    assert code == 0 and "planning measures" not in out


def test_simulate_notes_a_slurm_option_no_scheduler_takes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "simulate", "--jobs", "40", "--scheduler", "fcfs", "--bf-window", "60", "--no-progress"
    )
    assert code == 0 and "note: bf_window applies to none of the schedulers chosen" in out


def test_compare_sweeps_slurm_settings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    csv = tmp_path / "m.csv"
    code, out, _ = run(
        capsys, "compare", "model:n=60,machine_size=16", "--scheduler", "easy", "easy:bf_window=1",
        "easy:predictor=last2,bf_resolution=60", "--workers", "1", "--csv", str(csv), "--no-progress",
    )  # fmt: skip
    assert code == 0
    assert "EASY(planning_window=60.0)" in out and "EASY(predictor='last2', resolution=60.0)" in out
    assert '"{""planning_window"": 60.0}"' in csv.read_text()


def test_help_documents_the_options_and_slurms_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for p in PLANNING_OPTIONS:
        assert f"--{p.name} " in out
    for option in ("--planning-window DURATION", "--max-tested N", "--backfill-order PRIORITY"):
        assert option in out
    for alias in SLURM_ALIASES.values():
        assert f"--{alias.name.replace('_', '-')} {alias.metavar}" in out
        assert f"Slurm's {alias.name}" in out
    assert "planning_window = 60 x MINUTES" in out and "0 for every waiting job" in out
