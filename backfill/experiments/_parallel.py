"""The parallel part of :func:`~backfill.experiments.sweep.run_sweep`: a pool, its workers, their progress."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import queue
import signal
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol

from backfill.experiments._pool import exit_with_parent


class _Cell(Protocol):
    """What the pool needs of a sweep's cell: the workload whose identity its worker receives."""

    @property
    def workload(self) -> Hashable: ...


def worker_init() -> None:
    ignore_interrupts()
    # A killed parent (kill -9, the OOM killer) cannot terminate its workers: they end themselves.
    exit_with_parent()


def ignore_interrupts() -> None:
    # A pool's workers get the terminal's Ctrl-C too; the parent alone decides to stop, then
    # terminates them, so that no worker dies half-way through a result and hangs the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent stops them with SIGTERM. A forked worker inherits the parent's SIGTERM handler
    # (``backfill compare`` turns SIGTERM into an interrupt), which Python runs only when the worker
    # next returns from compiled code: seconds inside a kernel loop. The default ends it at once.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_parallel(
    cells: Sequence[_Cell],
    todo: list[int],
    identities: Mapping[Any, Mapping[str, Any]],
    executor: cf.Executor | None,
    workers: int | None,
    finish: Any,
    jobs: bool,
    fst_bar: Any = None,
    *,
    run: Callable[..., dict[str, Any]],
) -> None:
    """Run the cells ``todo`` on ``executor`` (or a pool of our own) with ``run``; ``finish`` takes each."""
    own = executor is None
    pool: cf.Executor = (
        cf.ProcessPoolExecutor(
            max_workers=min(workers or os.cpu_count() or 1, len(todo)), initializer=worker_init
        )
        if executor is None
        else executor
    )
    futures: dict[cf.Future[dict[str, Any]], int] = {}
    # Our own workers report the fair start times' rows through a queue; another executor's do not.
    manager = multiprocessing.Manager() if own and fst_bar is not None else None
    ticks = manager.Queue() if manager is not None else None
    try:
        for i in todo:
            tick = ticks.put if ticks is not None else None
            futures[pool.submit(run, cells[i], identities[cells[i].workload], jobs, tick)] = i
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
            drain(ticks, fst_bar)
            for future in done:
                finish(futures[future], future.result())
    except BaseException:
        # On an error or an interrupt, queued cells are dropped (finished ones are already cached)
        # and our own workers are stopped now rather than after the cells they are running.
        for future in futures:
            future.cancel()
        if own:
            pool.shutdown(wait=False, cancel_futures=True)
            terminate(pool)
        raise
    finally:
        if manager is not None:
            manager.shutdown()
    if own:
        pool.shutdown()


def drain(ticks: Any, bar: Any) -> None:
    """Move the rows the workers reported to the bar."""
    while ticks is not None:
        try:
            bar.update(ticks.get_nowait())
        except queue.Empty:
            return


def terminate(pool: cf.Executor) -> None:
    # ProcessPoolExecutor has no public way to stop running workers before Python 3.14.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
