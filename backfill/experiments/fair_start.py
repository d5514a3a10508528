"""Fair Start Times: when each job *should* have started, by re-simulation or from a reference schedule.

Two families (see ``docs/fairness.md`` for the definitions and our reading of the papers):

* :func:`fair_start_times` -- Sabin and Sadayappan's (2005) **strict** FST, the start a job gets under
  the same scheduler if no job arrives after it, and **relaxed** FST, the same when it also may not
  start before the last of the other jobs queued at its arrival. Each is one fork of the simulation at
  the job's arrival (:meth:`~backfill.simulator.Simulator.fork`), so it works for any scheduler that
  satisfies the protocol. The forks are independent and run on a process pool by default, or on any
  :class:`concurrent.futures.Executor` (a Dask ``Client.get_executor()`` runs them on a cluster).
* :func:`srinivasan_fair_starts` -- Srinivasan et al.'s (2002) scheduler-independent reference: the
  start under FCFS-Conservative if the machine switched to FCFS without backfilling at the job's
  arrival, computed from a finished FCFS-Conservative schedule.

Metrics over these times (average unfairness, fair slowdown, ...) are in :mod:`backfill.measures.fairness`.
"""

from __future__ import annotations

import concurrent.futures as cf
import heapq
import itertools
import math
import os
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError
from backfill.experiments._checkpoint import Checkpoint, fingerprint
from backfill.experiments._pool import exit_with_parent
from backfill.experiments.progress import Progress, progress_meter
from backfill.kernel._forks import CompiledSimulation, PastMaxClock, compiled_simulation
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.simulator import OverrunPolicy, Simulator
from backfill.workloads.workload import Workload

__all__ = ["FairStartTimes", "fair_start_times", "srinivasan_fair_starts"]

FloatArray = npt.NDArray[np.float64]
#: A simulation on either path: the Python one, or a run in the compiled kernel (``backfill.kernel._forks``).
Simulation = Simulator | CompiledSimulation

#: Rows per task when the forks run in parallel, unless ``chunks`` says otherwise: enough tasks to
#: balance the workers, few enough that shipping each task's starting state stays cheap.
_TASKS_PER_WORKER = 8


@attrs.frozen(eq=False)
class FairStartTimes:
    """Strict and relaxed Fair Start Times of every job of a workload under one scheduler.

    Arrays are aligned with the workload's rows; a job the simulator rejects, or a kind that was not
    asked for, has NaN.

    Attributes:
        workload: The simulated jobs.
        scheduler: Name of the scheduler.
        strict: Start of each job had no job arrived after it.
        relaxed: The same, but not before the last of the other jobs queued at its arrival started.
    """

    workload: Workload
    scheduler: str
    strict: FloatArray = attrs.field(repr=False)
    relaxed: FloatArray = attrs.field(repr=False)


@attrs.frozen
class _Ticks:
    """A progress bar's ``update`` and ``close``, reporting to a function."""

    report: Callable[[int], object]

    def update(self, n: int) -> None:
        self.report(n)

    def close(self) -> None:
        pass


def _strict_fork(sim: Simulation, row: int) -> tuple[float, Simulation]:
    """Strict FST of ``row``, and the fork that gave it (run until the job started)."""
    fork = sim.fork(last_arrival=row)
    fork.stop_recording()
    return fork._run_until_row_started(row), fork


def _strict_fst(sim: Simulation, row: int) -> float:
    return _strict_fork(sim, row)[0]


def _relaxed_fst(sim: Simulation, row: int, strict: float) -> float:
    # Without this job, every job that can start in the fork is one of "the other jobs queued at its
    # arrival" (queued before this instant or arriving earlier in it): later arrivals are dropped.
    fork = sim.fork(last_arrival=row - 1)
    fork.stop_recording()
    if not fork.queued_jobs and fork._next >= row:
        return _strict_fst(sim, row) if math.isnan(strict) else strict
    return _join_when_others_started(fork, row)


def _join_when_others_started(fork: Simulation, row: int) -> float:
    """Run a fork without ``row`` until every job it holds has started, then add ``row``; its start."""
    while fork.queued_jobs or fork._next < row:
        if not fork.step():
            raise BackfillError(
                f"{scheduler_name(fork.scheduler)} never started jobs {sorted(fork.queued_jobs)}"
            )
    # The job joins the queue when the last of them has started, still carrying its real submit time.
    fork._deliver_late(row)
    return fork._run_until_row_started(row)


def _relaxed_fst_after(fork: Simulation, row: int, submit: float) -> float:
    """Relaxed FST of ``row`` from the strict fork of ``row - 1``, which has run until that job started.

    That fork drops every arrival from ``row`` on, and until ``submit`` it saw what the simulation saw,
    so it is (or, run on, becomes) the fork :func:`_relaxed_fst` takes: this saves a fork per row.
    Returns NaN if no job was queued at the arrival, where the relaxed FST is the strict one.
    """
    fork.run_before(submit)
    # Run past ``submit`` means the job of ``row - 1`` was still queued (or arriving) there.
    if fork.now < submit and not fork.queued_jobs and fork._next >= row:
        return math.nan
    return _join_when_others_started(fork, row)


def _fst_rows(
    sim: Simulation,
    lo: int,
    hi: int,
    strict: bool,
    relaxed: bool,
    tick: Callable[[int], None] | None,
    saved: Callable[[int, FloatArray, FloatArray], None] | None = None,
) -> tuple[int, FloatArray, FloatArray]:
    """Advance ``sim`` through rows ``lo..hi-1``, forking once or twice at each arrival.

    With both kinds, the strict fork of a row runs on to give the next row's relaxed FST (see
    :func:`_relaxed_fst_after`), so each row costs about one fork instead of two. ``saved(row, strict,
    relaxed)`` is called after every row with the results so far (a checkpoint).
    """
    n = hi - lo
    out_strict = np.full(n, np.nan)
    out_relaxed = np.full(n, np.nan)
    records = sim.workload.records
    submit = records["submit"].tolist()
    rejected = sim._bad
    carry: Simulation | None = None  # the strict fork of the previous row, if both kinds are asked
    for row in range(lo, hi):
        if not rejected[row]:
            sim.run_before(submit[row])
            r = _relaxed_fst_after(carry, row, submit[row]) if carry is not None else None
            if strict:
                s, fork = _strict_fork(sim, row)
                carry = fork if relaxed else None
            else:
                s = float("nan")
            out_strict[row - lo] = s
            if relaxed:
                if r is None:
                    r = _relaxed_fst(sim, row, s)
                out_relaxed[row - lo] = s if math.isnan(r) else r
        else:
            carry = None  # the next row's relaxed fork must not wait for this row's arrival
        if tick is not None:
            tick(1)
        if saved is not None:
            saved(row, out_strict, out_relaxed)
    return lo, out_strict, out_relaxed


def _fst_task(sim: Simulation, lo: int, hi: int, strict: bool, relaxed: bool) -> tuple[int, Any, Any]:
    # Module-level so that every executor (processes, Dask) can pickle it.
    return _fst_rows(sim, lo, hi, strict, relaxed, None)


def _fst_pickled_task(payload: bytes, lo: int, hi: int, strict: bool, relaxed: bool) -> tuple[int, Any, Any]:
    return _fst_rows(pickle.loads(payload), lo, hi, strict, relaxed, None)


def _pickled(sim: Simulation) -> bytes:
    # Pickled here, not in the pool's feeder thread, so that an unpicklable scheduler (a lambda
    # priority, say) is a clear error instead of a pool that waits forever.
    try:
        return pickle.dumps(sim, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise BackfillError(
            f"cannot send {scheduler_name(sim.scheduler)} to worker processes ({e}); give a picklable "
            "scheduler and priority (module-level functions, attrs classes), workers=1, or an executor "
            "that pickles with cloudpickle, such as a Dask client's get_executor()"
        ) from e


def _costs(sim: Simulation) -> FloatArray:
    """Estimate what each row's FSTs cost, from one plain run of a fork of ``sim`` (not yet started).

    A fork for job i replays the instants from its arrival to its start, and each instant costs the
    scheduler about the length of its queue. So the estimate is 1 + (completions while job i waits
    in the plain run) x (1 + jobs queued at its arrival). It only has to rank regions of the trace:
    long queues come in bursts (a few busy hours of a trace can cost more than the rest), and ranges of equal
    row counts leave one worker with the whole burst.
    """
    schedule = sim.fork().run()
    submit = schedule.submit
    start = np.where(np.isfinite(schedule.start), schedule.start, submit)
    end = np.where(np.isfinite(schedule.end), schedule.end, start)
    ends = np.sort(end)
    completions = np.searchsorted(ends, start, side="right") - np.searchsorted(ends, submit, side="right")
    started_by_arrival = np.searchsorted(np.sort(start), submit, side="right")
    queued = np.maximum(np.arange(len(submit)) - started_by_arrival, 0)
    return np.asarray(1.0 + completions * (1.0 + queued), dtype=np.float64)


def _bounds(costs: FloatArray, chunks: int) -> Iterator[tuple[int, int]]:
    """Cut the rows into at most ``chunks`` consecutive ranges of about equal total cost."""
    n = len(costs)
    cumulative = np.cumsum(costs)
    targets = cumulative[-1] * np.arange(1, chunks) / chunks
    inner = np.searchsorted(cumulative, targets, side="left") + 1
    edges = [0, *np.unique(np.clip(inner, 1, n - 1)).tolist(), n] if n > 1 else [0, n]
    for lo, hi in itertools.pairwise(edges):
        if hi > lo:
            yield lo, hi


def fair_start_times(
    workload: Workload,
    scheduler: Scheduler,
    *,
    strict: bool = True,
    relaxed: bool = True,
    executor: cf.Executor | None = None,
    workers: int | None = None,
    chunks: int | None = None,
    progress: Progress | Callable[[int], object] = False,
    overrun: OverrunPolicy = "raise_estimate",
    checkpoint: str | os.PathLike[str] | None = None,
) -> FairStartTimes:
    """Return the strict and relaxed Fair Start Times of every job under ``scheduler``.

    The **strict** FST of a job (Sabin and Sadayappan 2005) is its start in a fork of the simulation
    taken just before its arrival instant, in which no later job arrives (jobs arriving in the same
    instant but earlier in the workload do arrive). The **relaxed** FST forbids it to start before the
    last of the other jobs queued at its arrival: in a fork without the job, those jobs run until the
    last has started; the job then joins the queue (keeping its real submit time) and its start is
    the relaxed FST. This is how Rajbhandary et al. (2013, §3.1) compute both, and it explains their
    remark that a strict FST can, rarely, exceed the relaxed one: the job's presence changes
    compression decisions. A job with no other job queued at its arrival has equal FSTs.

    The simulation is run once to reach each arrival; the forks are independent. Unless
    ``workers == 1``, the rows are cut into ``chunks`` consecutive ranges of about equal estimated
    cost. One plain simulation estimates each row's cost from the completions during its wait and
    the jobs queued at its arrival, since bursts of long queues cost far more than the rest. For
    each range the main process ships a copy of the simulation at the range's first arrival to
    ``executor`` (by default a
    :class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` processes, ``os.cpu_count()`` if
    not given, whose workers end when this process dies, even by ``kill -9``), which replays the
    range and forks there. Results are identical to the serial run.
    The scheduler and its priority must then be picklable (module-level functions and attrs classes
    are); a Dask cluster, through ``client.get_executor()``, pickles with cloudpickle and also takes
    lambdas.

    Cost: per job, one copy of the scheduler plus the instants from its arrival to its start. With
    both kinds, the strict fork of each job runs on to give the next job's relaxed FST (until then
    it saw what the relaxed fork would see), so a job costs one fork, not two. Where the compiled
    kernel runs the configuration whole (FCFS, EASY at any depth, PC and DC under a built-in static
    priority, Conservative; see :mod:`backfill.kernel`), the simulation and its forks run there: a
    fork is a copy of C arrays and its instants run in C, with the same results. ``progress=True``
    shows a tqdm bar (the ``progress`` extra).

    With ``checkpoint``, finished rows are written to that ``.npz`` file about every minute and when
    the run ends or is interrupted, and a run given an existing file computes only the rows it lacks
    (serially: from the first missing row on; in parallel: each range from its first missing row,
    the ranges cut by the cost left, so a serial run can be finished by several workers). The file
    records a digest of the workload, the scheduler's name, the kinds and ``overrun``, and a file
    of another run is an error. The name does not show a priority's parameters or a changed
    function body: give each variant its own file.

    Args:
        workload: The jobs and machine size.
        scheduler: A prototype; it is copied, never modified.
        strict: Compute strict FSTs.
        relaxed: Compute relaxed FSTs.
        executor: Where to run the ranges; ``None`` makes (and shuts down) a process pool.
        workers: Processes of the default pool; 1 runs everything in this process.
        chunks: Number of ranges (default: 8 per worker, at most one per job).
        progress: Show a progress bar (True), or a line now and then on standard error
            (``"lines"``); a function instead is called with the number of rows each time some
            finish (a sweep's worker reports them so).
        overrun: The simulator's policy for jobs that run past their estimate.
        checkpoint: File to save finished rows to and resume from.

    Returns:
        The FSTs, aligned with the workload's rows.

    Raises:
        BackfillError: On bad arguments, a scheduler that cannot reach worker processes, or a
            ``checkpoint`` file that is unreadable, cannot be written or belongs to another run.

    Examples:
        >>> from backfill import Job, Workload
        >>> from backfill.schedulers import Conservative
        >>> jobs = [Job(id=1, submit=0.0, processors=5, runtime=10.0, estimate=100.0),
        ...         Job(id=2, submit=1.0, processors=10, runtime=10.0, estimate=10.0),
        ...         Job(id=3, submit=2.0, processors=5, runtime=50.0, estimate=50.0)]
        >>> fst = fair_start_times(Workload.from_jobs(jobs, machine_size=10), Conservative(), workers=1)
        >>> fst.strict.tolist(), fst.relaxed.tolist()
        ([0.0, 10.0, 2.0], [0.0, 10.0, 20.0])
    """
    if not (strict or relaxed):
        raise BackfillError("fair_start_times needs strict or relaxed (or both)")
    if workers is not None and workers < 1:
        raise BackfillError(f"workers must be at least 1, got {workers}")
    n = len(workload)
    sim = Simulator(workload, scheduler.copy(), record_reservations=False, overrun=overrun)
    name = scheduler_name(sim.scheduler)
    saved = None
    if checkpoint is not None:
        saved = Checkpoint.open(checkpoint, n, fingerprint(workload, name, strict, relaxed, overrun))
    bar = _Ticks(progress) if callable(progress) else progress_meter(progress, n, f"FST {name}", "job")
    # Where the kernel runs the configuration whole, so do the forks (the same decisions).
    fast = compiled_simulation(sim)
    try:
        try:
            s, r = _fst(fast or sim, strict, relaxed, executor, workers, chunks, bar, saved)
        except PastMaxClock:
            # The clock passed MAX_CLOCK: the Python path raises the scheduler's own error there.
            # ``sim`` itself was never stepped (the compiled run only read its prepared workload).
            s, r = _fst(sim, strict, relaxed, executor, workers, chunks, bar, saved)
    finally:
        if bar is not None:
            bar.close()
    return FairStartTimes(workload=workload, scheduler=name, strict=s, relaxed=r)


def _fst(
    sim: Simulation,
    strict: bool,
    relaxed: bool,
    executor: cf.Executor | None,
    workers: int | None,
    chunks: int | None,
    bar: Any,
    saved: Checkpoint | None,
) -> tuple[FloatArray, FloatArray]:
    if executor is None and (workers == 1 or len(sim.workload) == 0):
        return _fst_serial(sim, strict, relaxed, bar, saved)
    return _fst_parallel(sim, strict, relaxed, executor, workers, chunks, bar, saved)


def _fst_serial(
    sim: Simulation, strict: bool, relaxed: bool, bar: Any, saved: Checkpoint | None
) -> tuple[FloatArray, FloatArray]:
    n = len(sim.workload)
    tick = bar.update if bar is not None else None
    if saved is None:
        _, s, r = _fst_rows(sim, 0, n, strict, relaxed, tick)
        return s, r
    lo = saved.first_missing()
    if tick is not None and lo:
        tick(lo)
    last: list[Any] = []  # the latest (row, strict, relaxed) seen, to save it if the run is interrupted

    def after_row(row: int, s: FloatArray, r: FloatArray) -> None:
        last[:] = row, s, r
        if saved.due():
            saved.record(lo, s, r, row + 1 - lo)
            saved.save()

    try:
        _fst_rows(sim, lo, n, strict, relaxed, tick, after_row)
    finally:
        # After the last row, or wherever an interruption stopped the run.
        if last:
            row, s, r = last
            saved.record(lo, s, r, row + 1 - lo)
        saved.save()
    return saved.strict.copy(), saved.relaxed.copy()


def _fst_parallel(
    sim: Simulation,
    strict: bool,
    relaxed: bool,
    executor: cf.Executor | None,
    workers: int | None,
    chunks: int | None,
    bar: Any,
    saved: Checkpoint | None,
) -> tuple[FloatArray, FloatArray]:
    n = len(sim.workload)
    own = executor is None
    pool_size = workers or os.cpu_count() or 1
    if chunks is None:
        chunks = _TASKS_PER_WORKER * pool_size
    if chunks < 1:
        raise BackfillError(f"chunks must be at least 1, got {chunks}")
    # Our own workers end with this process, even if it is killed outright (kill -9).
    pool: cf.Executor = (
        cf.ProcessPoolExecutor(max_workers=pool_size, initializer=exit_with_parent)
        if executor is None
        else executor
    )
    out_strict = np.full(n, np.nan) if saved is None else saved.strict
    out_relaxed = np.full(n, np.nan) if saved is None else saved.relaxed
    submit = sim.workload.records["submit"].tolist()
    try:
        sizes: dict[cf.Future[tuple[int, Any, Any]], int] = {}
        costs = _costs(sim)
        if saved is not None:
            costs[saved.done] = 0.0  # spread only the work left over the workers
        for lo, hi in _bounds(costs, min(chunks, n)):
            if saved is not None:
                missing = np.flatnonzero(~saved.done[lo:hi])
                skipped = int(missing[0]) if missing.size else hi - lo
                if bar is not None and skipped:
                    bar.update(skipped)
                lo += skipped
                if lo == hi:
                    continue
            sim.run_before(submit[lo])
            if own:
                future = pool.submit(_fst_pickled_task, _pickled(sim.fork()), lo, hi, strict, relaxed)
            else:
                future = pool.submit(_fst_task, sim.fork(), lo, hi, strict, relaxed)
            sizes[future] = hi - lo
        for done in cf.as_completed(sizes):
            lo, s, r = done.result()
            if saved is not None:
                saved.record(lo, s, r, len(s))
                if saved.due():
                    saved.save()
            else:
                out_strict[lo : lo + len(s)] = s
                out_relaxed[lo : lo + len(r)] = r
            if bar is not None:
                bar.update(sizes[done])
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
        if saved is not None:
            saved.save()
    return out_strict.copy(), out_relaxed.copy()


def srinivasan_fair_starts(reference: Schedule) -> FloatArray:
    """Return Srinivasan et al.'s fair start of every job, from an FCFS-Conservative ``reference``.

    Srinivasan, Kettimuthu, Subramani and Sadayappan (2002, §5) define a job's fair start as "the
    earliest possible start time the job would have received under FCFS-Conservative if the
    scheduling strategy were suddenly changed to strict FCFS-NoBackfill at the instant the job
    arrived". It is the same reference for every scheduler, so it is computed from one finished
    schedule of ``Conservative(fcfs)`` (pass that schedule; nothing checks which scheduler made it).

    At the job's arrival instant ``a``, the jobs running are those the reference started before ``a``
    and that end after it; the queue is every earlier row (submit order) the reference had not started
    before ``a``, and the job itself. From there the queue is served in order without backfilling:
    each job starts at the earliest time, not before its predecessor, at which enough processors are
    free, and runs its actual runtime (a job of zero runtime needs none). Later arrivals cannot start
    before the job under FCFS without backfilling, so they are irrelevant.

    Cost: O(r + q log(r + q)) per job for ``r`` running and ``q`` queued jobs at its arrival.

    Returns:
        Fair start of each row; NaN for jobs the reference did not run.

    Examples:
        >>> from backfill import Job, Workload, simulate
        >>> from backfill.schedulers import Conservative
        >>> jobs = [Job(id=1, submit=0.0, processors=5, runtime=10.0, estimate=100.0),
        ...         Job(id=2, submit=1.0, processors=10, runtime=10.0, estimate=10.0),
        ...         Job(id=3, submit=2.0, processors=5, runtime=50.0, estimate=50.0)]
        >>> reference = simulate(Workload.from_jobs(jobs, machine_size=10), Conservative())
        >>> reference.start.tolist(), srinivasan_fair_starts(reference).tolist()
        ([0.0, 52.0, 2.0], [0.0, 10.0, 20.0])
    """
    n = len(reference)
    size = reference.workload.machine_size
    submit = reference.submit.tolist()
    start = reference.start.tolist()
    end = reference.end.tolist()
    procs = reference.processors.tolist()
    runtime = reference.runtime.tolist()
    ran = np.isfinite(reference.start) & np.isfinite(reference.end)
    too_wide = np.flatnonzero(ran & (reference.processors > size))
    if too_wide.size:
        # Such a job never fits the machine the sweep below frees, so its fair start is undefined.
        row = int(too_wide[0])
        raise BackfillError(
            f"the reference schedule ran job {int(reference.workload.records['id'][row])} on "
            f"{procs[row]} processors of a {size}-processor machine: it is not a valid schedule "
            "(validate_schedule says why)"
        )
    out = np.full(n, np.nan)
    # Starts of the reference in time order, consumed as the arrivals sweep forward.
    starts = sorted((start[i], i) for i in np.flatnonzero(ran).tolist())
    s_next = 0
    running: list[tuple[float, int]] = []  # heap of (end, row) of jobs started before the sweep time
    queued: dict[int, None] = {}  # rows arrived and not started before the sweep time, in row order
    for i in range(n):
        if not ran[i]:
            continue
        a = submit[i]
        while s_next < len(starts) and starts[s_next][0] < a:
            j = starts[s_next][1]
            queued.pop(j, None)
            if runtime[j] > 0:
                heapq.heappush(running, (end[j], j))
            s_next += 1
        while running and running[0][0] <= a:
            heapq.heappop(running)
        queued[i] = None
        out[i] = _fcfs_no_backfill_start(a, size, running, queued, procs, runtime)
    return out


def _fcfs_no_backfill_start(
    now: float,
    size: int,
    running: list[tuple[float, int]],
    queued: dict[int, None],
    procs: list[int],
    runtime: list[float],
) -> float:
    """Serve ``queued`` in order from ``now`` without backfilling; return the last one's start."""
    ends = [(e, procs[j]) for e, j in running]
    heapq.heapify(ends)
    free = size - sum(p for _, p in ends)
    t = now
    for j in queued:
        need = procs[j] if runtime[j] > 0 else 0
        while free < need:
            e, p = heapq.heappop(ends)
            free += p
            t = max(t, e)
        if need:
            free -= need
            heapq.heappush(ends, (t + runtime[j], need))
    return t
