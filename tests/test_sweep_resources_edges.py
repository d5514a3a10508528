"""Sweeps with resources (issue 53): a scheduler spec's text names resources, and improvements and
replication summaries take a resource's utilization that only some rows have."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from backfill import Job, Workload
from backfill.cli import main
from backfill.errors import BackfillError
from backfill.experiments import SchedulerSpec, SweepResult, replication_summary
from backfill.experiments.specs import ResourceSpec
from backfill.workloads.swf import write_swf

SPECS = [
    SchedulerSpec("EASY"),
    SchedulerSpec.of("easy", depth=4),
    SchedulerSpec.of("easy", depth=None),
    SchedulerSpec.of("EASY", bf_window=1440, predictor="last2"),
    SchedulerSpec("Conservative", resources="memory=2G"),
    SchedulerSpec("Conservative", resources="memory"),
    SchedulerSpec.of("relshare", window=14400.0, expected_usage=False),
    SchedulerSpec.of("lookaheadslack", lookahead=10, goal="G2"),
    SchedulerSpec("Selective", (("threshold", 1.5),), resources=["memory=512M"]),
]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_a_spec_reads_back_from_its_text(spec: SchedulerSpec) -> None:
    assert SchedulerSpec.parse(str(spec)) == spec


def test_a_spec_text_names_resources_as_the_command_line_does() -> None:
    # Before: "easy+memory=1G" was an unknown scheduler 'easy+memory=1G'.
    spec = SchedulerSpec.parse("easy:depth=2+memory=1G")
    assert spec.params == (("depth", 2),)
    assert spec.resources == (ResourceSpec("memory", 1048576),)
    assert spec.label == "EASY(depth=2)+memory=1G"
    assert str(spec) == "EASY:depth=2+memory=1G"
    assert SchedulerSpec.parse("conservative+memory").resources == (ResourceSpec("memory"),)
    assert SchedulerSpec.parse("easy:planning_window=1e+5").params == (("planning_window", 100000.0),)
    with pytest.raises(BackfillError, match="unknown resource 'gpus'"):
        SchedulerSpec.parse("easy+gpus")
    with pytest.raises(BackfillError, match="given twice"):
        SchedulerSpec.parse("easy+memory+memory=1G")


def test_the_command_line_reads_resources_in_a_scheduler(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Two 1-processor jobs of 24 kB on 2 processors with 10 kB each (20 kB): they run one by one.
    jobs = [
        Job(id=i, submit=0.0, wait=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=24.0)
        for i in (1, 2)
    ]
    jobs[1] = Job(
        id=2, submit=0.0, wait=0.0, processors=1, runtime=10.0, estimate=10.0, requested_memory=16.0
    )
    path = tmp_path / "mem.swf"
    write_swf(path, Workload.from_jobs(jobs, machine_size=2))
    code = main(["compare", str(path), "--scheduler", "fcfs", "easy+memory=12", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "EASY+memory=12" in out and "utilization_memory" in out


def _row(scheduler: str, mean_wait: float, **extra: float) -> dict[str, Any]:
    name = scheduler.split("+")[0]
    return {
        "workload": "w",
        "scheduler": scheduler,
        "scheduler_name": name,
        "params": "{}",
        "priority": "fcfs",
        "load": 1.0,
        "estimates": "user",
        "mean_wait": mean_wait,
        **extra,
    }


def test_improvement_on_a_resource_the_first_row_lacks() -> None:
    # Before: "the rows have no column 'utilization_memory'", since the first row plans no memory.
    rows = [
        _row("Conservative", 10.0),
        _row("Conservative+memory", 20.0, utilization_memory=0.4),
        _row("EASY+memory", 5.0, utilization_memory=0.5),
    ]
    result = SweepResult(rows)
    got = {r["scheduler"]: r for r in result.improvement("utilization_memory", "Conservative+memory")}
    assert got["EASY+memory"]["improvement"] == pytest.approx(-25.0)
    assert math.isnan(got["Conservative"]["value"]) and math.isnan(got["Conservative"]["improvement"])
    assert math.isnan(result.improvement("utilization_memory", "Conservative")[1]["improvement"])
    with pytest.raises(BackfillError, match="no column 'utilization_gpus'"):
        result.improvement("utilization_gpus", "Conservative")


def test_a_replication_summary_of_a_resource_the_first_row_lacks() -> None:
    rows = []
    for seed, (base, easy) in enumerate([(0.4, 0.5), (0.5, 0.5)]):
        rows += [
            _row("Conservative", 10.0) | {"workload": f"w/{seed}"},
            _row("Conservative+memory", 20.0, utilization_memory=base) | {"workload": f"w/{seed}"},
            _row("EASY+memory", 5.0, utilization_memory=easy) | {"workload": f"w/{seed}"},
        ]
    summary = replication_summary(
        SweepResult(rows), ["utilization_memory"], {"w/0": "w", "w/1": "w"}, baseline="Conservative+memory"
    )
    got = {(r["scheduler"], r["kind"]): r for r in summary}
    assert ("Conservative", "value") not in got  # it plans no memory: nothing to summarize
    assert got["EASY+memory", "value"]["mean"] == pytest.approx(0.5)
    assert got["EASY+memory", "improvement"]["mean"] == pytest.approx(-12.5)
    assert got["EASY+memory", "improvement"]["n"] == 2


def _memory_log(tmp_path: Path) -> Path:
    jobs = [
        Job(
            id=i,
            submit=float(i),
            wait=0.0,
            processors=1 + i % 2,
            runtime=30.0,
            estimate=40.0,
            user=i % 3,
            requested_memory=8.0 * (1 + i % 3),
        )
        for i in range(1, 13)
    ]
    path = tmp_path / "mem.swf"
    write_swf(path, Workload.from_jobs(jobs, machine_size=4))
    return path


def test_processor_only_measures_say_so_beside_resources(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = str(_memory_log(tmp_path))
    argv = ["--metric", "mean_wait", "over_shared", "fair_share_unfairness", "--resources", "memory=20"]
    code = main(["simulate", path, "--scheduler", "easy", *argv])
    out = capsys.readouterr().out
    assert code == 0
    assert "note: over_shared, fair_share_unfairness count processors only, not memory" in out
    code = main(["compare", path, "--scheduler", "easy", "conservative", "--workers", "1", *argv])
    out = capsys.readouterr().out
    assert code == 0 and "note: over_shared, fair_share_unfairness count processors only, not memory" in out
    code = main(["simulate", path, "--scheduler", "easy", *argv[:-2]])
    assert code == 0 and "processors only" not in capsys.readouterr().out


def test_a_gantt_figure_of_a_run_with_memory_says_memory_is_not_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from backfill import EASY, Resource, read_swf, simulate
    from backfill.experiments.gantt import schedule_window

    w, _ = read_swf(_memory_log(tmp_path))
    with_memory = simulate(w, EASY(resources=[Resource.memory(80)]))
    figure = schedule_window(with_memory, start=0.0, end=200.0)
    assert figure.axes[0].get_ylabel() == "processors (memory not drawn)"
    figure.savefig(tmp_path / "gantt.png")
    plt.close(figure)
    figure = schedule_window(simulate(w, EASY()), start=0.0, end=200.0)
    assert figure.axes[0].get_ylabel() == "processors"
    plt.close(figure)
