"""examples/los.py: LOS written outside the library, public names only, packing the most processors."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from private_names import private_names
from strategies import workloads

from backfill import EASY, Job, ParameterError, Workload, simulate, validate_schedule
from backfill.testing import check_scheduler

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "los.py"
spec = importlib.util.spec_from_file_location("los_example", EXAMPLE)
assert spec is not None and spec.loader is not None
los = importlib.util.module_from_spec(spec)
sys.modules["los_example"] = los
spec.loader.exec_module(los)


def test_the_example_uses_no_private_name() -> None:
    assert private_names(EXAMPLE.read_text()) == []
    # The check sees a private import, a private module and a private attribute when there is one.
    control = "from backfill.schedulers._replan import x\nfrom backfill import _y\nf = self._free\n"
    assert private_names(control) == ["_free", "_y", "backfill.schedulers._replan"]


def test_the_example_is_short() -> None:
    assert len(EXAMPLE.read_text().splitlines()) < 250


def brute_force(widths: Sequence[int], ends: Sequence[bool], free: int, extra: int) -> int:
    """The most processors a subset can use: within ``free``, and its long jobs within ``extra`` too."""
    best = 0
    for r in range(len(widths) + 1):
        for subset in itertools.combinations(range(len(widths)), r):
            used = sum(widths[k] for k in subset)
            long = sum(widths[k] for k in subset if not ends[k])
            if used <= free and long <= extra:
                best = max(best, used)
    return best


def entries(widths: Sequence[int]) -> list[tuple[int, int, Job]]:
    jobs = [Job(id=k, submit=0.0, processors=p, runtime=1.0, estimate=1.0) for k, p in enumerate(widths)]
    return [(0, k + 1, job) for k, job in enumerate(jobs)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 9), st.booleans()), max_size=8),
    st.integers(0, 16),
    st.integers(0, 16),
)
def test_pack_uses_the_most_processors(jobs: list[tuple[int, bool]], free: int, extra: int) -> None:
    widths = [p for p, _ in jobs]
    ends = [e for _, e in jobs]
    chosen = los.LOS().pack(entries(widths), free, extra, ends)
    assert sorted(set(chosen)) == chosen
    assert sum(widths[k] for k in chosen) <= free
    assert sum(widths[k] for k in chosen if not ends[k]) <= extra
    assert sum(widths[k] for k in chosen) == brute_force(widths, ends, free, extra)


def test_pack_beats_greedy_where_easy_does_not() -> None:
    # EASY's first fit takes the 3 and then nothing fits; LOS takes 2 + 2 and fills the machine.
    chosen = los.LOS().pack(entries([3, 2, 2]), 4, 4, [True, True, True])
    assert chosen == [1, 2]
    # Ties go to earlier jobs: 1 + 3 and 3 + 1 both fill 4; the first 1 and first 3 are taken.
    assert los.LOS().pack(entries([1, 3, 3, 1]), 4, 4, [True] * 4) == [0, 1]


class CheckedLOS(los.LOS):  # type: ignore[misc, name-defined]
    """LOS that checks every packing it makes against the brute-force maximum, and counts them."""

    checked: list[int] = []  # noqa: RUF012 (shared on purpose: counts across copies)

    def pack(self, candidates, free, extra, ends_by_shadow):  # type: ignore[no-untyped-def]
        chosen = super().pack(candidates, free, extra, ends_by_shadow)
        widths = [entry[2].processors for entry in candidates]
        if len(widths) <= 10:
            assert sum(widths[k] for k in chosen) == brute_force(widths, ends_by_shadow, free, extra)
            self.checked.append(len(widths))
        return chosen


@settings(max_examples=80, deadline=None)
@given(workloads(max_jobs=20, overruns=True))
def test_los_keeps_the_head_reservation_and_packs_the_most(workload: Workload) -> None:
    schedule = check_scheduler(CheckedLOS(lookahead=10), workload, guarantees="while_held")
    validate_schedule(schedule)


def test_los_on_a_small_model_workload() -> None:
    workload = los.lublin_feitelson(500, seed=1)
    schedule = simulate(workload, los.LOS())
    validate_schedule(schedule)
    assert schedule.scheduler == "LOS(50)"
    assert len(schedule.reservations) > 0  # the head's reservations reach the log
    # Not EASY under another name: on this workload the two schedules differ.
    assert schedule.start.tolist() != simulate(workload, EASY()).start.tolist()


def test_los_packs_the_most_on_a_model_workload() -> None:
    CheckedLOS.checked.clear()
    validate_schedule(simulate(los.lublin_feitelson(500, seed=1), CheckedLOS(lookahead=10)))
    # The check ran at many decisions, some with several jobs to choose from.
    assert len(CheckedLOS.checked) > 50 and max(CheckedLOS.checked) >= 5


def test_main_prints_the_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    assert los.main(["--jobs", "200", "--examples", "3"]) == 0
    out = capsys.readouterr().out
    assert "LOS kept the head's reservation on 3 random workloads" in out
    assert "Lublin-Feitelson model, 128 processors, 200 jobs" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("EASY(fcfs)", "LOS(50)"))]
    assert [row[:2] for row in rows] == [["EASY(fcfs)", "200"], ["LOS(50)", "200"]]


def test_main_on_a_trace_prefix(traces: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--trace", str(traces / "KTH-SP2-1996-2.swf.gz"), "--jobs", "300", "--examples", "2"]
    assert los.main(args) == 0
    assert "KTH-SP2-1996-2.swf.gz: 100 processors, first 300 jobs" in capsys.readouterr().out


def test_main_without_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert los.main(["--trace", str(tmp_path / "nope.swf")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("value", [-1, True, 2.5, "3"])
def test_a_lookahead_that_is_no_count_is_refused(value: object) -> None:
    with pytest.raises(ParameterError, match=rf"LOS: lookahead must be an int >= 0, got {value!r}"):
        los.LOS(lookahead=value)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lookahead", "-1"], "argument --lookahead: expected a whole number >= 0, got '-1'"),
        (["--jobs", "0"], "argument --jobs: expected a whole number >= 1, got '0'"),
        (["--examples", "2.5"], "argument --examples: expected a whole number >= 1, got '2.5'"),
    ],
)
def test_the_command_line_refuses_counts_that_are_not(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        los.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
