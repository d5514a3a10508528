"""The scheduler registry: one place that lists the schedulers, and what is built from it."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from strategies import registered_schedulers

import backfill.schedulers
from backfill import Job, ParameterError, Workload, simulate, validate_schedule
from backfill.cli import build_parser, main
from backfill.cli.options import scheduler_specs
from backfill.experiments.sweep import Grid, ModelWorkload, SchedulerSpec, run_sweep
from backfill.schedulers import EASY, FCFS, SchedulerBase
from backfill.schedulers.machinery.queue import QueueScheduler
from backfill.schedulers.prediction.planning import PlanningScheduler
from backfill.schedulers.prediction.predictors import UserHistory
from backfill.schedulers.registry import (
    PLANNING_OPTIONS,
    SCHEDULERS,
    SLURM_ALIASES,
    Entry,
    Parameter,
    positive_int_from_text,
    scheduler_entry,
)

#: Public classes of backfill.schedulers that are not algorithms: bases to subclass and the guard.
NOT_ALGORITHMS = {"SchedulerBase", "QueueScheduler", "GuaranteeScheduler", "GuardedScheduler"}


def test_every_public_scheduler_class_is_registered() -> None:
    public = {
        name
        for name in backfill.schedulers.__all__
        if inspect.isclass(cls := getattr(backfill.schedulers, name)) and issubclass(cls, SchedulerBase)
    }
    assert public - NOT_ALGORITHMS == {entry.name for entry in SCHEDULERS}


def test_entries_read_priority_and_defaults_from_the_class() -> None:
    for entry in SCHEDULERS:
        assert entry.takes_priority == ("priority" in inspect.signature(entry.cls).parameters)
        assert entry.summary == inspect.getdoc(entry.cls).splitlines()[0]  # type: ignore[union-attr]
        default = entry.build()
        for p in entry.parameters:
            assert getattr(default, p.name) == entry.default(p.name), (entry.name, p.name)


def test_meanings_group_each_name_by_what_it_means() -> None:
    # A name may mean different things for different schedulers (tests/test_registry_parameters.py);
    # every parameter of every entry is in exactly one meaning of its name, read by its own reader.
    meanings = SCHEDULERS.meanings()
    for entry in SCHEDULERS:
        for p in entry.parameters:
            (mine,) = [m for m in meanings[p.name] if entry in m.entries]
            assert mine.parameter.parse is p.parse and mine.parameter.help == p.help, (entry.name, p.name)
    # The built-ins that share a name share its meaning: EASY's and RelShare's depth is one option.
    assert [[e.name for e in m.entries] for m in meanings["depth"]] == [["EASY", "RelShare"]]
    assert [m.which for m in meanings["resolution"]] == ["every scheduler"]


def test_names_are_unique_and_looked_up_in_any_case() -> None:
    names = [name for entry in SCHEDULERS for name in entry.names]
    assert len(names) == len(set(names))
    for entry in SCHEDULERS:
        for name in entry.names:
            assert scheduler_entry(name.upper()) is entry
    with pytest.raises(ParameterError, match="unknown scheduler 'nope'; known: fcfs, easy"):
        scheduler_entry("nope")


def test_an_entry_refuses_a_parameter_its_class_lacks() -> None:
    with pytest.raises(ParameterError, match="FCFS has no constructor parameter 'depth'"):
        Entry(FCFS, parameters=(Parameter("depth", positive_int_from_text, "depth"),))


def test_a_registered_name_cannot_be_taken_twice() -> None:
    with pytest.raises(ParameterError, match="easy already names a scheduler"):
        SCHEDULERS.register(Entry(backfill.schedulers.EASY))


# -- adding a scheduler: its module (here, the class below), one entry, and it is everywhere ----


class FirstFit(QueueScheduler):
    """Start every queued job that fits, in queue order, with no reservation for anyone."""

    def schedule(self, now: float) -> list[Job]:
        """Start, in priority order, each waiting job that fits in what is still free."""
        chosen, free = [], self.free
        for entry in self.ordered(now):  # (key, arrival seq, job)
            if entry[2].processors <= free:
                chosen.append(entry)
                free -= entry[2].processors
        return self.start(chosen, now)


@pytest.fixture
def added() -> Iterator[Entry]:
    entry = Entry(FirstFit, aliases=("ff",))
    SCHEDULERS.register(entry)
    yield entry
    SCHEDULERS.unregister("ff")


def test_a_scheduler_added_to_the_registry_is_offered_everywhere(
    added: Entry, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command line: its name is accepted, listed in the help, and it runs.
    args = build_parser().parse_args(["simulate", "--scheduler", "FF"])
    assert [spec.name for spec in scheduler_specs(args)] == ["FirstFit"]
    assert main(["simulate", "--jobs", "60", "--scheduler", "ff", "fcfs", "--priority", "sjf"]) == 0
    out = capsys.readouterr().out
    assert "FirstFit(sjf)" in out and "2 schedule(s) valid" in out
    # The sweep specs name it, and a sweep runs it.
    spec = SchedulerSpec("firstfit")
    assert spec.name == "FirstFit" and spec.takes_priority
    result = run_sweep(Grid([ModelWorkload(n_jobs=40, machine_size=16)], [spec]), workers=1)
    assert [row["scheduler"] for row in result.rows] == ["FirstFit"]
    # The test suite's list of all schedulers includes it.
    assert any(isinstance(s, FirstFit) for s in registered_schedulers())


def test_after_unregistering_it_is_unknown_again(added: Entry) -> None:
    SCHEDULERS.unregister("ff")
    with pytest.raises(ParameterError, match="unknown scheduler 'ff'"):
        scheduler_entry("ff")
    SCHEDULERS.register(added)  # for the fixture's teardown


def test_the_added_scheduler_runs_valid_schedules(added: Entry) -> None:
    jobs = [Job(id=i, submit=float(i), processors=1 + i % 3, runtime=5.0, estimate=9.0) for i in range(12)]
    schedule = simulate(Workload.from_jobs(jobs, machine_size=4), added.build())
    validate_schedule(schedule)


# -- planning options and Slurm's names: one table each, read by every front end --------------------


def test_every_entry_takes_the_planning_options_besides_its_parameters() -> None:
    names = [p.name for p in PLANNING_OPTIONS]
    assert names == ["predictor", "resolution", "correction"]
    for entry in SCHEDULERS:
        assert [p.name for p in entry.options] == [p.name for p in entry.parameters] + names
        assert all(entry.takes(name) for name in names)
        assert (
            entry.default_text("predictor") == "estimate" and entry.default_text("correction") == "estimate"
        )
        # Not constructor parameters: the class never sees them.
        assert not set(names) & set(inspect.signature(entry.cls).parameters), entry.name


def test_every_slurm_name_sets_a_parameter_some_scheduler_takes() -> None:
    for alias in SLURM_ALIASES.values():
        assert any(entry.takes(alias.target) for entry in SCHEDULERS), alias.name
        assert alias.name.startswith("bf_") and alias.name not in {
            p.name for e in SCHEDULERS for p in e.options
        }


def test_build_wraps_the_scheduler_in_planning_only_when_asked() -> None:
    easy = scheduler_entry("easy")
    assert type(easy.build()) is EASY and type(easy.build(predictor="estimate")) is EASY
    planned = easy.build(predictor="last2", correction="steps", resolution=60.0)
    assert isinstance(planned, PlanningScheduler) and isinstance(planned.predictor, UserHistory)
    assert planned.name == "EASY(fcfs) [predictor=last2, correction=steps, resolution=60]"
    assert (
        easy.build(bf_window=2, bf_job_part_count_reserve=0).name
        == "EASY(fcfs, depth=inf, planning_window=120)"
    )


def test_a_parameter_cannot_take_a_planning_options_name() -> None:
    class Resolved(FCFS):
        def __init__(self, resolution: float = 1.0) -> None:
            super().__init__()

    with pytest.raises(ParameterError, match="'resolution' names a planning option of every scheduler"):
        Entry(Resolved, parameters=(Parameter("resolution", positive_int_from_text, "r"),))
