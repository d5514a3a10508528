"""Partitions at the edges (issue 53): unknown and invalid partition numbers, sizes read from the log
that pass the machine, and the one prototype copied for every partition."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Self

import pytest

from backfill import EASY, Job, Partition, Resource, Selective, Workload, read_swf
from backfill.cli import main
from backfill.errors import JobError, ParameterError, SWFError
from backfill.experiments import PartitionSpec
from backfill.measures.partitions import validate_partitions
from backfill.partitions import log_partitions, partition_runs, simulate_partitions

# One SWF line: id submit wait runtime processors ... partition (field 16).
_LINE = "{id} {submit} {wait} {runtime} {width} -1 -1 {width} {runtime} -1 1 1 1 -1 1 {part} -1 -1\n"


def _log(path: Path, rows: list[tuple[int, int, int, int, int, int]], max_procs: int) -> Path:
    text = f"; MaxProcs: {max_procs}\n" + "".join(
        _LINE.format(id=i, submit=s, wait=w, runtime=r, width=p, part=part) for i, s, w, r, p, part in rows
    )
    path.write_text(text)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_log_without_partition_numbers_is_refused_by_partitions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Before: the jobs of unknown partition (-1) became a partition of their own, sized from the log.
    path = _log(tmp_path / "plain.swf", [(i, 10 * i, 0, 5, 3, -1) for i in range(1, 7)], 4)
    code, out, err = run(capsys, "simulate", str(path), "--scheduler", "easy", "--partitions")
    assert code == 2
    assert err.strip() == (
        f"backfill: error: --partitions: {path}: no job names a partition (SWF field 16 is -1, unknown, "
        "for every job), so there is none to schedule on its own: give the partitions (-1 serves the "
        "jobs of unknown partition)"
    )
    code, _, err = run(capsys, "compare", str(path), "--scheduler", "easy", "--partitions")
    assert code == 2 and f"--partitions: {path}: no job names a partition" in err
    # Named, -1 is a partition as the docs say (its size read from the log: one job of 3 at a time).
    code, out, err = run(capsys, "simulate", str(path), "--scheduler", "easy", "--partitions", "-1")
    assert code == 0, err
    assert "partition -1: 3 processors, 6 jobs ran" in out


def test_jobs_of_unknown_partition_are_rejected_in_no_partition(tmp_path: Path) -> None:
    rows = [(1, 0, 0, 10, 2, 1), (2, 0, 0, 10, 2, -1), (3, 5, 0, 10, 2, 2), (4, 6, 0, 10, 4, -1)]
    w, _ = read_swf(_log(tmp_path / "some.swf", rows, 8))
    parts = log_partitions(w)
    assert [(p.name, p.processors) for p in parts] == [("1", 2), ("2", 2)]
    s = simulate_partitions(w, parts, EASY())
    assert s.rejection_counts() == {"in no partition (SWF partition -1)": 2}
    assert s.workload.machine_size == 4


def test_a_negative_partition_number_other_than_unknown_is_not_a_job(tmp_path: Path) -> None:
    path = _log(tmp_path / "neg.swf", [(1, 0, 0, 10, 2, 1), (2, 1, 0, 10, 2, -7), (3, 2, 0, 10, 2, 1)], 4)
    with pytest.raises(SWFError) as e:
        read_swf(path)
    assert str(e.value) == (
        f"{path}:3: field 16 (partition) is negative: -7.0 (-1, unknown, is the only negative value allowed)"
    )
    w, report = read_swf(path, lenient=True)
    assert w.column("id").tolist() == [1, 3] and list(report.skipped_lines) == [3]
    # It is a job's rule, as a width's is: a job built in Python cannot hold it either.
    with pytest.raises(JobError, match="partition must be -1 \\(unknown\\) or an int from 0"):
        Job(id=1, submit=0.0, processors=1, runtime=1.0, estimate=1.0, partition=-7)


def _overlapping(tmp_path: Path) -> Path:
    # Partition 1 had 4 processors busy at once in the log, partition 2 had 3: 7 on a 4-processor machine.
    rows = [(1, 0, 0, 100, 2, 1), (2, 0, 0, 100, 2, 1), (3, 0, 0, 100, 3, 2), (4, 200, 0, 10, 1, 2)]
    return _log(tmp_path / "shared.swf", rows, 4)


def test_sizes_read_from_the_log_past_the_machine_are_said(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _overlapping(tmp_path)
    w, _ = read_swf(path)
    with pytest.warns(UserWarning) as said:
        parts = log_partitions(w)
    assert [p.processors for p in parts] == [4, 3]
    assert str(said[0].message) == (
        "the partitions add up to 7 processors, more than the machine's 4: the sizes of partitions "
        "1: 4, 2: 3 are read from the log (the most processors their jobs held at once, which counts "
        "nodes that partitions shared in each, and changes with the jobs read); give the partitions' sizes"
    )
    with pytest.warns(UserWarning, match="sizes of partitions 1: 4 are read"):
        log_partitions(w, numbers=[1, 2], sizes={2: 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sum(p.processors for p in log_partitions(w, sizes={1: 2, 2: 2})) == 4  # given: silent
        log_partitions(w, sizes={1: 4, 2: 3})  # given, even past the machine: the user said so
    code, out, err = run(capsys, "simulate", str(path), "--scheduler", "easy", "--partitions")
    assert code == 0, err
    assert (
        f"note: --partitions: {path}: the partitions add up to 7 processors, more than the machine's 4" in out
    )
    assert "give the partitions' sizes (--partitions N=SIZE,...)" in out
    code, out, err = run(
        capsys, "compare", str(path), "--scheduler", "easy", "--partitions", "--workers", "1"
    )
    assert code == 0, err
    assert out.count("note: --partitions:") == 1
    code, out, err = run(capsys, "simulate", str(path), "--scheduler", "easy", "--partitions", "1=2,2=2")
    assert code == 0 and "note:" not in out


class _Capped(EASY):
    """EASY with a plain attribute and a container of its own, copied as the copy contract says."""

    def copy(self) -> Self:
        other = super().copy()
        other.seen = list(self.seen)
        return other


def _capped() -> Any:
    s: Any = _Capped()
    s.cap = 1
    s.seen = [0]
    return s


def _alternating(estimate: float) -> Workload:
    """Four one-processor jobs of 10 s asking 60 kB each, in partitions 0 and 1 by turns."""
    jobs = [
        Job(
            id=i,
            submit=0.0,
            processors=1,
            runtime=10.0,
            estimate=estimate,
            partition=i % 2,
            requested_memory=60.0,
        )
        for i in range(1, 5)
    ]
    return Workload.from_jobs(jobs, machine_size=4)


def test_one_prototype_is_copied_for_every_partition_resources_or_not() -> None:
    # Before: a partition whose resources differed from the prototype's got attrs.evolve(prototype),
    # a new scheduler without the plain attribute; the other got a copy with it.
    memory = Resource.memory(100)
    w = _alternating(estimate=10.0)
    parts = [Partition("plain", 0, processors=2), Partition("fat", 1, processors=2, resources=(memory,))]
    prototype = _capped()
    runs = partition_runs(w, parts, prototype)
    for run in runs:
        assert type(run.scheduler) is _Capped and run.scheduler is not prototype
        assert run.scheduler.cap == 1  # type: ignore[attr-defined]
        assert run.scheduler.seen == [0] and run.scheduler.seen is not prototype.seen  # type: ignore[attr-defined]
    assert [run.scheduler.resources for run in runs] == [(), (memory,)]  # type: ignore[attr-defined]
    assert prototype.resources == ()
    s = simulate_partitions(w, parts, prototype)
    validate_partitions(s, parts)
    # Partition fat: two jobs of 60 kB do not fit in 100 kB together, so they run one after the other.
    assert s.start.tolist() == [0.0, 0.0, 10.0, 0.0]


def test_a_scheduler_built_around_an_inner_one_plans_the_partitions_resources() -> None:
    # Selective plans through an inner Conservative made by its constructor: made again for memory.
    memory = Resource.memory(100)
    jobs = [
        Job(
            id=i,
            submit=float(i),
            processors=1,
            runtime=10.0,
            estimate=10.0,
            partition=1,
            requested_memory=60.0,
        )
        for i in range(1, 4)
    ]
    w = Workload.from_jobs(jobs, machine_size=4)
    parts = [Partition("fat", 1, processors=4, resources=(memory,))]
    s = simulate_partitions(w, parts, Selective())
    validate_partitions(s, parts)
    assert s.start.tolist() == [1.0, 11.0, 21.0]


def test_a_sweep_grid_takes_partitions_of_its_logs(tmp_path: Path) -> None:
    from backfill.errors import BackfillError
    from backfill.experiments import Grid, ModelWorkload, PartitionSpec, TraceWorkload, run_sweep

    path = _overlapping(tmp_path)
    spec = PartitionSpec.parse("1=2,2=2")
    assert PartitionSpec.parse(str(spec)) == spec and spec.identity() == {
        "numbers": [1, 2],
        "sizes": [[1, 2], [2, 2]],
    }
    grid = Grid([TraceWorkload(path)], ["EASY"], partitions=spec)
    [cell] = grid.cells()
    assert (
        cell.partitions == spec
        and cell.key() != Grid([TraceWorkload(path)], ["EASY"]).cells().__next__().key()
    )
    [row] = run_sweep(grid, workers=1).rows
    assert (row["scheduler"], row["jobs"], row["rejected"]) == ("EASY", 3, 1)
    assert row["rejected_reasons"] == "wider than partition 2 (2 processors): 1"
    with pytest.raises(BackfillError, match="not to the synthetic workload"):
        Grid([ModelWorkload(n_jobs=10, machine_size=4)], ["EASY"], partitions=spec)
    with pytest.raises(BackfillError, match="must be a PartitionSpec"):
        Grid([TraceWorkload(path)], ["EASY"], partitions="1,2")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="sizes must map distinct SWF numbers"):
        PartitionSpec((1,), ((1, 0),))


def test_a_planning_wrapper_is_copied_with_each_partitions_resources() -> None:
    # Before: planning()'s wrapper has no resources of its own to rebuild, so two partitions with
    # memory at their shares were refused ("cannot be rebuilt").
    from backfill import planning

    memory = Resource.memory(100)
    w = _alternating(estimate=20.0)
    parts = [
        Partition(n, int(n), processors=2, resources=(Resource.memory(c),))
        for n, c in (("0", 200), ("1", 100))
    ]
    prototype = planning(EASY(resources=[memory]), resolution=5.0)
    runs = partition_runs(w, parts, prototype)
    assert [run.scheduler.resources for run in runs] == [p.resources for p in parts]  # type: ignore[attr-defined]
    assert prototype.resources == (memory,)
    s = simulate_partitions(w, parts, prototype)
    validate_partitions(s, parts)
    assert s.start.tolist() == [0.0, 0.0, 10.0, 0.0]  # 200 kB hold jobs 2 and 4, 100 kB one of 1 and 3


@pytest.mark.parametrize("numbers", [-7, (3, -2), (1, 1), (), 1.5, "1"])
def test_a_partition_serves_no_number_a_job_cannot_carry(numbers: Any) -> None:
    # Field 16 is -1 or from 0 (a Job refuses -7): a partition of -7 would serve nothing, silently.
    with pytest.raises(ParameterError, match=r"Partition\.numbers must be"):
        Partition("p", numbers, processors=4)
    with pytest.raises(ParameterError, match=r"PartitionSpec\.numbers must be"):
        PartitionSpec(numbers if isinstance(numbers, tuple) else (numbers,))
    assert Partition("p", (-1, 0, 7), processors=4).numbers == (-1, 0, 7)


def test_partition_sizes_name_numbers_a_job_can_carry() -> None:
    with pytest.raises(ParameterError, match=r"PartitionSpec\.sizes' numbers must be"):
        PartitionSpec(None, ((-3, 8),))
    assert PartitionSpec(None, ((-1, 8),)).sizes == ((-1, 8),)
