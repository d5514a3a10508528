"""Fair Start Times: the papers' worked instances, properties against independent reasoning, parallel runs."""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import make, workloads

from backfill import DC, EASY, FCFS, PC, Conservative, simulate
from backfill.errors import BackfillError, ScheduleError
from backfill.experiments.fair_start import fair_start_times, srinivasan_fair_starts
from backfill.measures.fairness import unfairness
from backfill.schedule import Schedule
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.testing import check_feasible
from backfill.workloads.workload import Job, Workload

# Rajbhandary et al. 2013, §4.1: 100 processors, every estimate 200.
SECTION_4_1 = make(
    (0, 90, 100, 200), (1, 45, 100, 200), (2, 40, 95, 200), (3, 90, 100, 200), (4, 45, 100, 200), size=100
)


@pytest.mark.parametrize("scheduler", [Conservative(), EASY(), PC()], ids=["Conservative", "EASY", "PC"])
def test_section_4_1_strict_fsts(scheduler: object) -> None:
    # J2 and J3 start when J1 ends early at 100; J4 when J2 ends at 200; J5 after J4, at 300 (the paper:
    # "Conservative, EASY, and PC all generate the same schedule and fair start times").
    fst = fair_start_times(SECTION_4_1, scheduler, workers=1)  # type: ignore[arg-type]
    assert fst.strict.tolist() == [0, 100, 100, 200, 300]
    assert simulate(SECTION_4_1, scheduler).start.tolist() == [0, 100, 100, 200, 300]  # type: ignore[arg-type]


def test_section_4_1_dc_is_unfair_to_j4() -> None:
    # DC gives J1-J4 the same strict FSTs, but J5 backfills when J3 ends at 195 (J4 was not compressed
    # when J1 ended early), so J4 starts at 295 instead of its FST of 200.
    fst = fair_start_times(SECTION_4_1, DC(), workers=1)
    s = simulate(SECTION_4_1, DC())
    assert fst.strict.tolist()[:4] == [0, 100, 100, 200]
    assert s.start.tolist() == [0, 100, 100, 295, 195]
    assert s.start[3] - fst.strict[3] == 95
    assert unfairness(s, fst.strict) == pytest.approx(95 / 5)
    conservative = simulate(SECTION_4_1, Conservative())
    assert unfairness(conservative, fair_start_times(SECTION_4_1, Conservative(), workers=1).strict) == 0


def test_figure_2_strict_fsts_are_infeasible_together() -> None:
    # J1 is overestimated; J2's FST is J1's real end, J3 backfills before J2's reservation, which
    # rests on J1's estimate. Running J2 and J3 at their FSTs needs 15 of 10 processors.
    w = make((0, 5, 10, 100), (1, 10, 10, 10), (2, 5, 50, 50), size=10)
    fst = fair_start_times(w, Conservative(), workers=1)
    assert fst.strict.tolist() == [0, 10, 2]
    at_fst = Schedule(
        workload=w,
        scheduler="strict FSTs",
        start=fst.strict,
        end=fst.strict + w.column("runtime"),
        runtime=w.column("runtime"),
        estimate=w.column("estimate"),
        start_order=np.array([0, 2, 1]),
        rejected={},
        altered={},
        reservations=np.empty(0, dtype=[("time", "f8"), ("job_id", "i8"), ("start", "f8")]),
    )
    with pytest.raises(ScheduleError, match="15 processors in use at time 10"):
        check_feasible(at_fst)
    # The relaxed FST of J3 waits for J2, queued at its arrival: J2 starts at 10 and runs to 20.
    assert fst.relaxed.tolist() == [0, 10, 20]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(max_jobs=15, too_wide=True))
def test_fcfs_jobs_start_at_their_fair_start_times(w: Workload) -> None:
    # Without backfilling a later arrival can never change an earlier job's start.
    s = simulate(w, FCFS())
    fst = fair_start_times(w, FCFS(), workers=1)
    np.testing.assert_array_equal(fst.strict, s.start)
    np.testing.assert_array_equal(fst.relaxed, s.start)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(max_jobs=15, accurate=True), st.sampled_from(["Conservative", "PC"]))
def test_guarantees_with_exact_estimates_are_fair(w: Workload, name: str) -> None:
    # Exact estimates: a reservation made at arrival is never moved, and later arrivals only use holes,
    # so each job starts exactly where it would had nothing arrived after it (Sabin and Sadayappan:
    # "Conservative would be fair ... if job lengths were accurately estimated").
    scheduler = Conservative() if name == "Conservative" else PC()
    s = simulate(w, scheduler)
    np.testing.assert_array_equal(fair_start_times(w, scheduler, workers=1, relaxed=False).strict, s.start)


def _naive_relaxed(w: Workload, scheduler: object, row: int) -> float:
    """Relaxed FST from scratch: simulate the prefix, let the others start, then add the job."""
    from backfill.simulator import Simulator

    submit = w.column("submit")
    sim = Simulator(w, scheduler.copy(), record_reservations=False)  # type: ignore[attr-defined]
    sim.run_before(float(submit[row]))
    same_instant = (submit[:row] == submit[row]) & (w.column("processors")[:row] <= w.machine_size)
    others = set(sim.queued_jobs) | {int(j) for j in w.column("id")[:row][same_instant]}
    fork = sim.fork(last_arrival=row - 1)
    started: dict[int, float] = {}
    while not others <= set(started):
        assert fork.step()
        started |= {
            int(w.column("id")[i]): float(t) for i, t in enumerate(fork.result().start) if np.isfinite(t)
        }
    if not others:
        return sim.fork(last_arrival=row).run_until_started(int(w.column("id")[row]))
    fork._deliver_late(row)
    return fork.run_until_started(int(w.column("id")[row]))


def _naive_strict(w: Workload, scheduler: object, row: int) -> float:
    """Strict FST from scratch: simulate the prefix, fork without later arrivals, run until it starts."""
    from backfill.simulator import Simulator

    sim = Simulator(w, scheduler.copy(), record_reservations=False)  # type: ignore[attr-defined]
    sim.run_before(float(w.column("submit")[row]))
    return sim.fork(last_arrival=row).run_until_started(int(w.column("id")[row]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    workloads(max_jobs=12, too_wide=True, overruns=True),
    st.sampled_from(["Conservative", "EASY", "PC", "DC"]),
)
def test_fsts_match_forks_taken_from_scratch(w: Workload, name: str) -> None:
    # fair_start_times runs each strict fork on to give the next row's relaxed FST; these forks are
    # taken afresh for every row, as the definitions read. Rejected rows break the chain.
    scheduler = {"Conservative": Conservative(), "EASY": EASY(), "PC": PC(), "DC": DC()}[name]
    fst = fair_start_times(w, scheduler, workers=1)
    rejected = w.column("processors") > w.machine_size
    for row in range(len(w)):
        if rejected[row]:
            assert np.isnan(fst.strict[row]) and np.isnan(fst.relaxed[row])
            continue
        assert fst.strict[row] == _naive_strict(w, scheduler, row)
        assert fst.relaxed[row] == _naive_relaxed(w, scheduler, row)
    ran = ~rejected
    assert np.all(fst.strict[ran] >= w.column("submit")[ran])
    assert np.all(fst.relaxed[ran] >= w.column("submit")[ran])
    # Either kind alone takes its own forks and gives the same values.
    np.testing.assert_array_equal(fair_start_times(w, scheduler, workers=1, relaxed=False).strict, fst.strict)
    np.testing.assert_array_equal(
        fair_start_times(w, scheduler, workers=1, strict=False).relaxed, fst.relaxed
    )


def test_rejected_jobs_have_no_fst_and_the_prototype_is_untouched() -> None:
    w = make((0, 2, 5, 5), (0, 9, 5, 5), (1, 2, 5, 5), size=4)
    prototype = Conservative()
    fst = fair_start_times(w, prototype, workers=1)
    assert np.isnan(fst.strict[1]) and np.isnan(fst.relaxed[1])
    assert fst.strict.tolist()[::2] == [0, 1]
    assert prototype.reservations() == {}
    assert fst.scheduler == "Conservative"


def test_bad_arguments() -> None:
    with pytest.raises(BackfillError, match="strict or relaxed"):
        fair_start_times(SECTION_4_1, EASY(), strict=False, relaxed=False)
    with pytest.raises(BackfillError, match="workers"):
        fair_start_times(SECTION_4_1, EASY(), workers=0)
    with pytest.raises(BackfillError, match="chunks"):
        fair_start_times(SECTION_4_1, EASY(), workers=2, chunks=0)


def _random_workload(n: int, seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 150 * n, n)).astype(float)
    runtime = rng.integers(1, 400, n).astype(float)
    jobs = [
        Job(
            id=i + 1,
            submit=float(submit[i]),
            processors=int(rng.integers(1, 33)),
            runtime=float(runtime[i]),
            estimate=float(runtime[i] * rng.uniform(1, 4)),
        )
        for i in range(n)
    ]
    return Workload.from_jobs(jobs, machine_size=32)


PARALLEL = _random_workload(200, 7)


@pytest.mark.parametrize(
    "scheduler",
    [Conservative(), EASY(PRIORITIES["sjf"]), PC(), DC(PRIORITIES["sjf"])],
    ids=["Conservative", "EASY-sjf", "PC", "DC-sjf"],
)
def test_process_pool_gives_the_serial_result(scheduler: object) -> None:
    serial = fair_start_times(PARALLEL, scheduler, workers=1)  # type: ignore[arg-type]
    parallel = fair_start_times(PARALLEL, scheduler, workers=2, chunks=7)  # type: ignore[arg-type]
    np.testing.assert_array_equal(serial.strict, parallel.strict)
    np.testing.assert_array_equal(serial.relaxed, parallel.relaxed)
    assert np.isfinite(serial.strict).all() and np.isfinite(serial.relaxed).all()


def test_any_executor_and_a_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    serial = fair_start_times(PARALLEL, PC(), workers=1)
    with cf.ThreadPoolExecutor(max_workers=3) as pool:
        threaded = fair_start_times(PARALLEL, PC(), executor=pool, chunks=5, progress=True)
    np.testing.assert_array_equal(serial.strict, threaded.strict)
    np.testing.assert_array_equal(serial.relaxed, threaded.relaxed)
    assert "200/200" in capsys.readouterr().err


@pytest.mark.usefixtures("dask_dashboard_port_taken")
def test_dask_local_cluster_gives_the_serial_result() -> None:
    distributed = pytest.importorskip("distributed", reason="the integration extra installs it")
    serial = fair_start_times(PARALLEL, Conservative(), workers=1)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        # A lambda priority: Dask pickles with cloudpickle, so even this reaches the workers.
        on_cluster = fair_start_times(PARALLEL, Conservative(), executor=client.get_executor(), chunks=4)
        lam = fair_start_times(PARALLEL, PC(lambda job, now: job.submit), executor=client.get_executor())
    np.testing.assert_array_equal(serial.strict, on_cluster.strict)
    np.testing.assert_array_equal(serial.relaxed, on_cluster.relaxed)
    np.testing.assert_array_equal(fair_start_times(PARALLEL, PC(), workers=1).strict, lam.strict)


# -- Srinivasan et al.'s fair start -----------------------------------------------------------------


def _naive_srinivasan(reference: Schedule) -> list[float]:
    """Fair start of each job by a time-stepped FCFS-without-backfilling replay from its arrival."""
    size = reference.workload.machine_size
    submit, start, end = reference.submit, reference.start, reference.end
    procs, runtime = reference.processors, reference.runtime
    out = []
    for i in range(len(reference)):
        if not np.isfinite(start[i]):
            out.append(float("nan"))
            continue
        a = submit[i]
        busy = [(end[j], procs[j]) for j in range(len(reference)) if start[j] < a < end[j] and runtime[j] > 0]
        queue = [j for j in range(i + 1) if np.isfinite(start[j]) and start[j] >= a]
        t = a
        for j in queue:
            need = procs[j] if runtime[j] > 0 else 0
            # Earliest time >= t at which `need` processors are free, given the jobs placed so far.
            times = sorted({t} | {e for e, _ in busy if e > t})
            t = next(x for x in times if size - sum(p for e, p in busy if e > x) >= need)
            if need:
                busy.append((t + runtime[j], need))
        out.append(float(t))
    return out


@settings(max_examples=80, deadline=None)
@given(workloads(max_jobs=20, too_wide=True))
def test_srinivasan_fair_starts_match_a_naive_replay(w: Workload) -> None:
    reference = simulate(w, Conservative())
    np.testing.assert_array_equal(srinivasan_fair_starts(reference), _naive_srinivasan(reference))


@settings(max_examples=80, deadline=None)
@given(workloads(max_jobs=20, accurate=True))
def test_exact_conservative_starts_no_later_than_the_srinivasan_fair_start(w: Workload) -> None:
    # Srinivasan et al. §5: with exact estimates FCFS-Conservative satisfies the weak fairness
    # property, no job starting later than it could have under FCFS-NoBackfill from its arrival.
    reference = simulate(w, Conservative())
    fair = srinivasan_fair_starts(reference)
    assert np.all(reference.start <= fair)


def test_srinivasan_fair_start_ignores_later_arrivals_and_backfilling() -> None:
    # J3 backfills at 2 under Conservative; switched to FCFS-NoBackfill at its arrival it would have
    # waited for J2 (10..20). J4 arrives at 30 while J3 runs to 52, behind J2 (52..62) in the queue.
    w = make((0, 5, 10, 100), (1, 10, 10, 10), (2, 5, 50, 50), (30, 10, 1, 1), size=10)
    reference = simulate(w, Conservative())
    assert reference.start.tolist() == [0, 52, 2, 62]
    assert srinivasan_fair_starts(reference).tolist() == [0, 10, 20, 62]


def test_an_unpicklable_scheduler_is_a_clear_error_not_a_hung_pool() -> None:
    with pytest.raises(BackfillError, match="cannot send PC"):
        fair_start_times(PARALLEL, PC(lambda job, now: job.submit), workers=2)


class _Stop(Exception):
    """Stands for whatever ends a long run early: a signal, a killed batch job."""


def test_checkpoint_resumes_an_interrupted_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import backfill.experiments.fair_start as fs

    full = fair_start_times(PARALLEL, PC(), workers=1)
    path = tmp_path / "pc.npz"
    real_after, calls = fs._relaxed_fst_after, []

    def interrupted(*args: object) -> float:
        calls.append(1)
        if len(calls) == 60:
            raise _Stop
        return real_after(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(fs, "_relaxed_fst_after", interrupted)
    with pytest.raises(_Stop):
        fair_start_times(PARALLEL, PC(), workers=1, checkpoint=path)
    monkeypatch.setattr(fs, "_relaxed_fst_after", real_after)
    with np.load(path) as data:
        done = data["done"]
        k = int(done.sum())
        assert 0 < k < len(PARALLEL) and done[:k].all()  # the rows finished before the interruption
        np.testing.assert_array_equal(data["strict"][:k], full.strict[:k])
        np.testing.assert_array_equal(data["relaxed"][:k], full.relaxed[:k])
    real_rows, starts = fs._fst_rows, []

    def spy(sim: object, lo: int, *args: object) -> object:
        starts.append(lo)
        return real_rows(sim, lo, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(fs, "_fst_rows", spy)
    copy = tmp_path / "copy.npz"
    copy.write_bytes(path.read_bytes())
    resumed = fair_start_times(PARALLEL, PC(), workers=1, checkpoint=path)
    again = fair_start_times(PARALLEL, PC(), workers=1, checkpoint=path)
    assert starts == [k, len(PARALLEL)]  # only the missing rows, then none
    # Several workers can finish what a serial run began: each range starts at its first missing row.
    starts.clear()
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        in_parallel = fair_start_times(PARALLEL, PC(), executor=pool, chunks=4, checkpoint=copy)
    assert min(starts) == k and len(starts) == 4
    for fst in (resumed, again, in_parallel):
        np.testing.assert_array_equal(fst.strict, full.strict)
        np.testing.assert_array_equal(fst.relaxed, full.relaxed)


def test_checkpoint_is_written_as_rows_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import backfill.experiments._checkpoint as ck

    saves = []
    real_save = ck.Checkpoint.save

    def counted(self: ck.Checkpoint) -> None:
        saves.append(int(self.done.sum()))
        real_save(self)

    monkeypatch.setattr(ck, "_SAVE_EVERY", 0.0)
    monkeypatch.setattr(ck.Checkpoint, "save", counted)
    fair_start_times(PARALLEL, EASY(), workers=1, checkpoint=tmp_path / "easy.npz")
    assert saves[:3] == [1, 2, 3] and saves[-1] == len(PARALLEL)


def test_checkpoint_in_parallel_skips_finished_ranges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import backfill.experiments.fair_start as fs

    serial = fair_start_times(PARALLEL, Conservative(), workers=1)
    path = tmp_path / "conservative.npz"
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        first = fair_start_times(PARALLEL, Conservative(), executor=pool, chunks=5, checkpoint=path)
        monkeypatch.setattr(fs, "_fst_task", lambda *args: pytest.fail("a finished range ran again"))
        second = fair_start_times(PARALLEL, Conservative(), executor=pool, chunks=5, checkpoint=path)
    for fst in (first, second):
        np.testing.assert_array_equal(fst.strict, serial.strict)
        np.testing.assert_array_equal(fst.relaxed, serial.relaxed)


def test_checkpoint_of_another_run_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fst.npz"
    fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)
    with pytest.raises(BackfillError, match="another workload, scheduler or kind"):
        fair_start_times(SECTION_4_1, Conservative(), workers=1, checkpoint=path)
    with pytest.raises(BackfillError, match="another workload, scheduler or kind"):
        fair_start_times(SECTION_4_1, PC(), workers=1, relaxed=False, checkpoint=path)
    with pytest.raises(BackfillError, match="cannot write the checkpoint"):
        fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=tmp_path / "no such folder" / "fst.npz")
    path.write_text("not numpy")
    with pytest.raises(BackfillError, match=r"fst\.npz: not a fair-start-times checkpoint"):
        fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)


def test_a_changed_checkpoint_is_refused_never_resumed(tmp_path: Path) -> None:
    # An edited FST in a checkpoint was resumed as if computed: every later unfairness was wrong.
    path = tmp_path / "fst.npz"
    full = fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    assert arrays["done"].all()
    edited = dict(arrays, strict=arrays["strict"] + np.eye(1, len(full.strict)).ravel() * 100.0)
    np.savez(path, **edited)
    with pytest.raises(BackfillError, match=r"fst\.npz is damaged: its content does not match"):
        fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)
    # A checkpoint of another layout (no checksum, as written before it had one) is not taken either.
    np.savez(path, **{k: v for k, v in arrays.items() if k != "digest"})
    with pytest.raises(BackfillError, match="is damaged"):
        fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)
    np.savez(path, **arrays)
    again = fair_start_times(SECTION_4_1, PC(), workers=1, checkpoint=path)
    np.testing.assert_array_equal(again.strict, full.strict)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fst.npz"]  # no temporary file left beside it


def test_srinivasan_fair_starts_of_an_invalid_reference_name_the_job() -> None:
    # A host's schedule (Schedule.from_starts) that ran a job wider than the machine gave an IndexError.
    jobs = [Job(id=7, submit=0.0, processors=6, runtime=5.0, estimate=5.0)]
    reference = Schedule.from_starts(Workload.from_jobs(jobs, machine_size=4), {7: 0.0})
    with pytest.raises(BackfillError, match="ran job 7 on 6 processors of a 4-processor machine"):
        srinivasan_fair_starts(reference)
