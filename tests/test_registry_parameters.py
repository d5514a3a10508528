"""A parameter belongs to its scheduler: two schedulers may give one name different meanings.

A scheduler registered here for the test, FitAhead, has a ``lookahead`` in seconds (a duration,
default 1 h) beside LookaheadSlack's ``lookahead``, a count of jobs (default 20); a ``depth`` that is
not the reservation depth Slurm's ``bf_job_part_count_reserve`` sets; and a switch
``prune_on_slack`` that is off by default where LookaheadSlack's is on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from backfill import Job, ParameterError
from backfill.cli import build_parser, main
from backfill.cli.options import CommandLineError, scheduler_specs
from backfill.experiments import sweep
from backfill.experiments.cache import content_key
from backfill.experiments.sweep import Cell, ModelWorkload, SchedulerSpec
from backfill.schedulers.machinery.priorities import priority_name
from backfill.schedulers.machinery.queue import QueueScheduler
from backfill.schedulers.registry import (
    SCHEDULERS,
    Entry,
    Parameter,
    bool_from_text,
    duration_from_text,
    non_negative_float_from_text,
    positive_int_from_text,
)


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class FitAhead(QueueScheduler):
    """Start each job that fits among the first ``depth``, if it came ``lookahead`` s after the head."""

    lookahead: float = 3600.0
    depth: int = 10
    prune_on_slack: bool = False

    @property
    def name(self) -> str:
        """Its name with its parameters."""
        return f"FitAhead({priority_name(self.priority)}, lookahead={self.lookahead:g}, depth={self.depth})"

    def schedule(self, now: float) -> list[Job]:
        """Start, in priority order, each of the first ``depth`` waiting jobs that fits."""
        chosen, free = [], self.free
        ordered = list(self.ordered(now))[: self.depth]
        for entry in ordered:
            if entry[2].submit - ordered[0][2].submit > self.lookahead:
                continue
            if entry[2].processors <= free:
                chosen.append(entry)
                free -= entry[2].processors
        return self.start(chosen, now)


FIT_AHEAD = Entry(
    FitAhead,
    parameters=(
        Parameter(
            "lookahead",
            duration_from_text,
            "how long after the head's arrival a job may still start: seconds, or e.g. 10min",
            metavar="DURATION",
        ),
        Parameter("depth", positive_int_from_text, "waiting jobs tried per decision", metavar="N"),
        Parameter("prune_on_slack", bool_from_text, "skip the jobs that came too late"),
    ),
)

MODEL = "model:n=60,machine_size=16,seed=1"


@pytest.fixture
def fit_ahead() -> Iterator[Entry]:
    SCHEDULERS.register(FIT_AHEAD)
    yield FIT_AHEAD
    SCHEDULERS.unregister("fitahead")


def params(*argv: str) -> dict[str, dict[str, object]]:
    specs = scheduler_specs(build_parser().parse_args(["simulate", *argv]))
    return {spec.name: dict(spec.params) for spec in specs}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_help_lists_each_meaning_with_its_schedulers(
    fit_ahead: Entry, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    assert (
        "--lookahead N|DURATION lookahead (N): waiting jobs searched for a set to start; default 20. "
        "fitahead (DURATION): how long after the head's arrival a job may still start: seconds, or "
        "e.g. 10min; default 3600.0"
    ) in out
    assert "easy, relshare (K): reservation depth" in out and "fitahead (N): waiting jobs tried" in out
    # A switch on by default for one and off for the other: both spellings, each listing both.
    assert "--prune-on-slack lookahead: turn on: prune the search on slack. fitahead: turn on: skip" in out
    assert "--no-prune-on-slack lookahead: turn off: prune the search on slack. fitahead: turn off:" in out


def test_an_option_reaches_each_scheduler_read_by_its_own_parameter(
    fit_ahead: Entry, capsys: pytest.CaptureFixture[str]
) -> None:
    both = params("--scheduler", "lookahead", "fitahead", "--lookahead", "600", "--depth", "3")
    assert both == {"LookaheadSlack": {"lookahead": 600}, "FitAhead": {"lookahead": 600.0, "depth": 3}}
    assert type(both["LookaheadSlack"]["lookahead"]) is int
    assert type(both["FitAhead"]["lookahead"]) is float
    # A text only FitAhead reads, given to FitAhead alone.
    assert params("--scheduler", "fitahead", "--lookahead", "10min") == {"FitAhead": {"lookahead": 600.0}}
    code, out, err = run(
        capsys, "simulate", "--jobs", "60", "--scheduler", "lookahead", "fitahead", "--lookahead", "5"
    )
    assert code == 0, err
    assert "LookaheadSlack(G1, 5)" in out and "FitAhead(fcfs, lookahead=5, depth=10)" in out


def test_name_k_v_addresses_one_scheduler(fit_ahead: Entry) -> None:
    given = params("--scheduler", "lookahead:lookahead=4", "fitahead", "--lookahead", "90min")
    assert given == {"LookaheadSlack": {"lookahead": 4}, "FitAhead": {"lookahead": 5400.0}}
    assert params("--scheduler", "lookahead", "fitahead:lookahead=2h", "--lookahead", "3") == {
        "LookaheadSlack": {"lookahead": 3},
        "FitAhead": {"lookahead": 7200.0},
    }


def test_switches_of_one_name_with_different_defaults(fit_ahead: Entry) -> None:
    on = params("--scheduler", "lookahead", "fitahead", "--prune-on-slack")
    assert on == {"LookaheadSlack": {"prune_on_slack": True}, "FitAhead": {"prune_on_slack": True}}
    off = params("--scheduler", "lookahead", "fitahead", "--no-prune-on-slack")
    assert off == {"LookaheadSlack": {"prune_on_slack": False}, "FitAhead": {"prune_on_slack": False}}


def test_sweep_specs_and_cache_keys_are_the_schedulers_own(
    fit_ahead: Entry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours, jins = SchedulerSpec.parse("fitahead:lookahead=600"), SchedulerSpec.parse("lookahead:lookahead=600")
    assert ours.params == (("lookahead", 600.0),) and jins.params == (("lookahead", 600),)
    assert ours.label == "FitAhead(lookahead=600.0)" and jins.label == "LookaheadSlack(lookahead=600)"
    model = ModelWorkload(n_jobs=40, machine_size=16)
    assert Cell(model, ours).key() != Cell(model, jins).key()
    # Through compare, one option for both: each cell holds its scheduler's own reading.
    cache = tmp_path / "cache"
    argv = ["compare", MODEL, "--scheduler", "lookahead", "fitahead", "--lookahead", "600"]
    code, _, err = run(capsys, *argv, "--workers", "1", "--cache", str(cache))
    assert code == 0, err
    cells = sorted(
        (cell["scheduler"], json.dumps(cell["params"]))  # as text: 600 and 600.0 are equal numbers
        for cell in (json.loads(f.read_text())["cell"] for f in cache.glob("*.json"))
    )
    assert cells == [("FitAhead", '[["lookahead", 600.0]]'), ("LookaheadSlack", '[["lookahead", 600]]')]


def test_existing_cache_keys_are_unchanged(fit_ahead: Entry, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keys of configurations that existed before parameters became each scheduler's own: unchanged
    # (pinned from the code before), so existing caches stay valid.
    monkeypatch.setattr(sweep, "library_version", lambda: "pinned")
    model = ModelWorkload(n_jobs=40, machine_size=16)
    jins = Cell(model, SchedulerSpec.parse("lookahead:lookahead=3,goal=G2"))
    easy = Cell(model, SchedulerSpec.of("easy", depth=4, predictor="last2"), "sjf")
    assert jins.key() == "e5cb788e37260e2bbd34a7cbef43f19fd8de130c3644225e02ecaf3be93e2713"
    assert easy.key() == "bf5b4cf4d29a69c81457c4a0dffd5a94fc1a3b5b6e0aba43db470e7f4c2b0bb4"
    # The key holds the scheduler's name beside its parameters: that is what tells the two apart.
    assert content_key(jins._key_data(model.identity())) == jins.key()
    assert jins._key_data(model.identity())["scheduler"] == "LookaheadSlack"


# -- ambiguous or invalid uses: one line naming the scheduler and the parameter -------------------


def test_a_value_one_chosen_scheduler_cannot_read_names_it(
    fit_ahead: Entry, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--scheduler", "lookahead", "fitahead", "--lookahead", "2h"]
    code, out, err = run(capsys, "simulate", "--jobs", "60", *argv)
    assert code == 2 and out == ""
    assert err == (
        "backfill: error: --lookahead '2h' is not a value of LookaheadSlack's lookahead: "
        "expected a whole number, got '2h'\n"
    )
    with pytest.raises(CommandLineError, match="--depth 'inf' is not a value of FitAhead's depth"):
        params("--scheduler", "easy", "fitahead", "--depth", "inf")
    # In a NAME:K=V spec (the command line's or a sweep's), the scheduler is named too.
    with pytest.raises(ParameterError, match=r"^FitAhead's lookahead: expected a number, got 'soon'$"):
        SchedulerSpec.parse("fitahead:lookahead=soon")
    code, out, err = run(capsys, "simulate", "--scheduler", "lookahead:lookahead=1h")
    assert code == 2 and err == (
        "backfill: error: --scheduler 'lookahead:lookahead=1h': LookaheadSlack's lookahead: "
        "expected a whole number, got '1h'\n"
    )


def test_a_value_no_scheduler_can_read_is_a_usage_error_naming_each(
    fit_ahead: Entry, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--scheduler", "fitahead", "--lookahead", "soon"])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == (
        "backfill simulate: error: argument --lookahead: LookaheadSlack's lookahead: expected a whole "
        "number, got 'soon'; FitAhead's lookahead: expected a number, got 'soon'; "
        "see 'backfill simulate --help'"
    )


def test_a_slurm_name_applies_only_where_the_parameter_means_slurms(fit_ahead: Entry) -> None:
    with pytest.raises(ParameterError, match=(
        "FitAhead's depth means something else than the depth Slurm's bf_job_part_count_reserve "
        "sets, so bf_job_part_count_reserve does not apply to it"
    )):  # fmt: skip
        SchedulerSpec.parse("fitahead:bf_job_part_count_reserve=0")
    given = params("--scheduler", "easy", "fitahead", "--bf-job-part-count-reserve", "2")
    assert given == {"EASY": {"depth": 2}, "FitAhead": {}}


def test_a_name_cannot_be_a_switch_for_one_and_take_a_value_for_another() -> None:
    @attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
    class Restarting(FitAhead):
        """FitAhead with a restart interval."""

        restart: float = 0.0

    valued = Entry(Restarting, parameters=(Parameter("restart", non_negative_float_from_text, "interval"),))
    with pytest.raises(ParameterError) as refused:
        SCHEDULERS.register(valued)
    assert str(refused.value) == (
        "cannot register Restarting: its parameter restart takes a value but PC's restart is a switch, "
        "and one option --restart cannot do both; give it another name"
    )
    assert "restarting" not in SCHEDULERS


# -- the command-line page's example is true ---------------------------------------------------------


def test_the_command_line_pages_example_runs_as_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "command-line.md"
    section = page.read_text(encoding="utf-8").split("## Scheduler parameters: each scheduler's own")[1]
    section = section.split("\n## ")[0]
    (example,) = re.findall(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    table, help_text = re.findall(r"^ *```text\n(.*?)^ *```", section, re.MULTILINE | re.DOTALL)[:2]
    try:
        exec(compile(example, str(page), "exec"), {"__name__": "__main__"})
        ran = capsys.readouterr().out
        with pytest.raises(SystemExit):
            main(["simulate", "--help"])
        helped = capsys.readouterr().out
    finally:
        if "fitahead" in SCHEDULERS:
            SCHEDULERS.unregister("fitahead")
    assert all(line in ran for line in table.splitlines())
    assert " ".join(help_text.split()) + " --" in " ".join(helped.split())  # whole, up to the next option
