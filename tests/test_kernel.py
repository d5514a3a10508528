"""The compiled kernel against the pure-Python reference it ports: identical schedules, logs and counts.

Every scheduler is run twice on the same workload, once as installed (with the kernel where it is
built) and once inside :func:`backfill.kernel.pure_python`; the start times, the start order, the
reservation log move by move and the profile events examined must all be equal. The profile's own
state machine runs against its naive model under the pure path too (``tests/test_profile.py`` runs it
as installed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import narrowing_everything, registered_schedulers, workloads
from test_compression_paths import assert_same
from test_profile import ProfileMachine

from backfill import (
    DC,
    PC,
    Conservative,
    Profile,
    Schedule,
    Scheduler,
    Selective,
    SlackBackfill,
    Workload,
    kernel,
    lublin_feitelson,
    read_swf,
    simulate,
    sjf,
)
from backfill.kernel import ENVIRONMENT_VARIABLE, compiled, pure_python, python_path

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
SCHEDULERS = registered_schedulers()


def _run(w: Workload, scheduler: Scheduler) -> tuple[Schedule, Any]:
    s = scheduler.copy()
    return simulate(w, s), getattr(s, "events_examined", None)


def assert_same_as_reference(w: Workload, scheduler: Scheduler) -> None:
    fast, fast_events = _run(w, scheduler)
    # Where the configuration runs whole in the kernel, the kernel's loops on the Python path too.
    with python_path():
        loops, loops_events = _run(w, scheduler)
    with pure_python():
        assert not compiled()
        plain, plain_events = _run(w, scheduler)
    assert_same(fast, plain)
    assert_same(loops, plain)
    assert fast_events == loops_events == plain_events


def test_the_kernel_is_built_wherever_a_compiler_is() -> None:
    # The extension is optional so that an install without a compiler still works; that must not hide
    # a kernel that fails to build (or an install that left it out) where a compiler is present.
    if os.environ.get(ENVIRONMENT_VARIABLE, "") not in ("", "0"):
        assert not compiled()
    elif shutil.which(os.environ.get("CC", "cc")) is not None:
        assert compiled(), (
            "a C compiler is present but the compiled kernel is not in use: install with "
            f"`pip install -e .` (or set {ENVIRONMENT_VARIABLE}=1 to run the pure path alone)"
        )


def test_a_kernel_built_from_an_older_checkout_is_left_out_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A checkout updated without rebuilding keeps an old extension that lacks what the code calls:
    # the pure path runs (identical schedules) and the warning says how to rebuild.
    class Old:
        __file__ = "old/_kernel.so"

    for name in kernel._NAMES:
        if name != "QueueRun":
            setattr(Old, name, None)
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(kernel.importlib, "import_module", lambda name: Old)
    with pytest.warns(RuntimeWarning, match=r"old/_kernel.so .* lacks QueueRun\): running the pure-Python"):
        assert kernel._load() is None
    Old.QueueRun = None  # type: ignore[attr-defined]
    assert kernel._load() is Old


def test_pure_python_restores_the_kernel_even_after_an_error() -> None:
    before = kernel.KERNEL
    with pytest.raises(RuntimeError), pure_python():
        assert kernel.KERNEL is None
        raise RuntimeError
    assert kernel.KERNEL is before


@pytest.mark.parametrize("scheduler", SCHEDULERS, ids=[s.name for s in SCHEDULERS])
@settings(max_examples=25, deadline=None)
@given(w=workloads(max_jobs=40, machine_size=8, accurate=False, overruns=True))
def test_every_scheduler_schedules_as_the_reference(scheduler: Scheduler, w: Workload) -> None:
    assert_same_as_reference(w, scheduler)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), which=st.sampled_from(range(len(SCHEDULERS))))
def test_the_same_schedules_on_long_queues(seed: int, which: int) -> None:
    # The model at twice its load on a small machine keeps dozens of jobs queued, and f-model
    # estimates make jobs end early, so compressions move many jobs.
    w = lublin_feitelson(300, machine_size=32, seed=seed, estimates="f-model").scaled(2.0)
    assert_same_as_reference(w, SCHEDULERS[which])


@pytest.mark.long
@pytest.mark.skipif(not TRACES.is_dir(), reason=f"the archive traces are not at {TRACES}")
@pytest.mark.parametrize(
    ("trace", "jobs", "load"),
    [
        ("KTH-SP2-1996-2", 3000, 2.0),
        ("CTC-SP2-1996-3.1-cln", 5000, 1.0),
        ("SDSC-SP2-1998-4.2-cln", 4000, 1.5),
    ],
)
def test_the_same_schedules_on_archive_trace_prefixes(trace: str, jobs: int, load: float) -> None:
    # Queues of hundreds of jobs: vacated intervals reach more jobs than the kernel widens one by one,
    # so its own narrowing of wide spreads (and the profile's earliest_moves) runs too.
    workload = read_swf(TRACES / f"{trace}.swf.gz")[0]
    w = Workload.from_records(workload.records[:jobs], workload.machine_size).scaled(load)
    for scheduler in (Conservative(), PC(sjf), DC(sjf)):
        assert_same_as_reference(w, scheduler)


_RESERVATIONS = st.lists(
    st.tuples(st.integers(0, 200), st.sampled_from([1, 7, 20, 0.5, 33.25]), st.integers(1, 16)), max_size=40
)
_JOBS = st.lists(
    st.tuples(
        st.integers(1, 16),
        st.sampled_from([0.0, 1.0, 10.0, 30.0, 2.5, 1e-12, float(np.nextafter(20.0, np.inf))]),
        st.sampled_from([0.0, 5.0, 50.0, 99.5, 150.0, 300.0]),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(reservations=_RESERVATIONS, jobs=_JOBS, time=st.sampled_from([-5.0, 0.0, 3.0, 40.5]))
def test_earliest_moves_as_the_reference(
    reservations: list[tuple[int, float, int]], jobs: list[tuple[int, float, float]], time: float
) -> None:
    # The answers and the steps counted, for every width, duration and planned start, including
    # durations one ulp off a run length (the reference's search of last resort).
    fast = Profile(16)
    for start, duration, width in reservations:
        if fast.min_free(start, start + duration) >= width:
            fast.reserve(start, start + duration, width)
            # As in a compression, the job planned there is asked about too.
            jobs = [*jobs, (width, duration, float(start))]
    plain = fast.copy()
    widths = np.array([w for w, _, _ in jobs], dtype=np.int64)
    durations = np.array([d for _, d, _ in jobs], dtype=np.float64)
    currents = np.array([c for _, _, c in jobs], dtype=np.float64)
    got = fast.earliest_moves(time, widths, durations, currents)
    with pure_python():
        expected = plain.earliest_moves(time, widths, durations, currents)
    assert got.tolist() == expected.tolist()
    assert fast.examined == plain.examined


@pytest.mark.parametrize("scheduler", [PC(), PC(sjf), PC(restart=False), DC(), DC(sjf)], ids=str)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_same_schedules_when_every_spread_is_narrowed(scheduler: Scheduler, seed: int) -> None:
    # Small queues take the wide-spread branch too when told to narrow everything (as in
    # test_compression_paths), which compares its moves with the plain loop; here its count of
    # events examined is compared with the pure-Python narrowing's as well.
    w = lublin_feitelson(200, machine_size=32, seed=seed, estimates="f-model").scaled(2.0)
    with narrowing_everything():
        assert_same_as_reference(w, scheduler)


class PureProfileMachine(ProfileMachine):
    """The profile's state machine with the kernel switched off for the whole run."""

    def __init__(self) -> None:
        super().__init__()
        self._saved = kernel.KERNEL
        kernel.KERNEL = None

    def teardown(self) -> None:
        kernel.KERNEL = self._saved


TestPureProfileMachine = PureProfileMachine.TestCase
TestPureProfileMachine.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)


class _Counting:
    """The kernel with a count of the calls of each of its functions."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        function = getattr(self.inner, name)

        def counted(*args: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return function(*args)

        return counted


@pytest.mark.skipif(not compiled(), reason="the kernel is not in use (not built, or BACKFILL_PURE_PYTHON=1)")
def test_the_profile_and_the_schedulers_go_through_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # A differential test passes trivially if the kernel is never called: every function it offers
    # must be reached by the schedulers that use it.
    counting = _Counting(kernel.KERNEL)
    monkeypatch.setattr(kernel, "KERNEL", counting)
    w = lublin_feitelson(400, machine_size=32, seed=3, estimates="f-model").scaled(2.0)
    simulate(w, Conservative())
    simulate(w, SlackBackfill())
    with python_path():  # PC runs whole in the kernel; its Python path calls the loops
        simulate(w, PC())
        simulate(w, PC(restart=False))
    simulate(w, Selective())
    # A queue long enough for the compression to rule jobs out a width at a time (DC runs whole in
    # the kernel too).
    with python_path():
        simulate(lublin_feitelson(800, machine_size=32, seed=3, estimates="f-model").scaled(3.0), DC())
    expected = {"earliest_fit", "earliest_move", "add", "move", "min_free", "max_free", "first_below"}
    expected |= {
        "earliest_moves",
        "compress_conservative",
        "guarantee_loop",
        "mark_seen",
        "queue_arrays",
        "trim",
        "start_unreserved",
        "promotion_items",
    }
    assert expected <= set(counting.calls), counting.calls
