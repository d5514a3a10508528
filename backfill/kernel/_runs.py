"""Which simulations run whole in the compiled kernel: built-in configurations it implements exactly.

:func:`~backfill.simulator.simulate` asks :func:`whole_run` before it runs a simulation. The compiled
whole-run path (``backfill/kernel/_wholerun.pyx``) ports the simulator's event loop together with a
scheduler's decisions, so it may run only what it ports decision for decision; everything else runs
the pure-Python path unchanged. It runs:

* :class:`~backfill.schedulers.FCFS`, any built-in static priority;
* :class:`~backfill.schedulers.EASY` at depth 1 with no ``planning_window`` or ``max_tested``, any
  built-in static priority, and no ``backfill_order`` or a built-in static one (SJBF is
  ``backfill_order=sjf``);
* :class:`~backfill.schedulers.EASY` at any other depth (``depth=k`` or ``None``) with no
  ``planning_window`` or ``max_tested``, any built-in static priority: the deep path's full pass
  at every decision (what ``EASY.accelerated``'s shortcut is proven equal to), with the
  reservations it overtakes logged as the Python path logs them;
* :class:`~backfill.schedulers.Conservative` with no ``planning_window`` or ``max_tested``, its
  accelerated compression (``Conservative.accelerated``, the default), and no job running past its
  estimate (the default overrun policy raises such estimates): the run reports the profile events
  its searches examined, so the scheduler's ``events_examined`` is the Python path's;
* :class:`~backfill.schedulers.PC` under a built-in static priority, ``restart`` or not, with no
  ``planning_window`` or ``max_tested``, its accelerated compression (``PC.accelerated``) and no job
  running past its estimate; its ``events_examined`` and ``moves`` are the Python path's;
* :class:`~backfill.schedulers.DC` under a built-in static priority, with no ``planning_window`` or
  ``max_tested``, its accelerated compression and hole filling (``DC.accelerated``) and no job
  running past its estimate; its ``events_examined`` and ``moves`` are the Python path's;

where the built-in static priorities are :func:`~backfill.schedulers.machinery.priorities.fcfs`, ``sjf``,
``ljf``, ``wjf`` and ``njf`` themselves. It never runs a subclass (whatever it overrides), another
priority (a time-dependent one such as ``lxf``, a stateful one, or a user's function, even one that
computes the same keys), a scheduler wrapped by ``planning`` or ``guarded``, or a simulation that is
stepped, forked or read before its end (:class:`~backfill.simulator.Simulator` itself always runs
the Python path). The schedule says which path made it (:attr:`~backfill.schedule.Schedule.path`);
``tests/test_wholerun.py`` requires identical starts, start order and reservation log either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import backfill.kernel as kernel
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.dc import DC
from backfill.schedulers.easy import EASY
from backfill.schedulers.fcfs import FCFS
from backfill.schedulers.machinery.guarantee import compression_thresholds
from backfill.schedulers.machinery.priorities import fcfs, ljf, njf, sjf, wjf
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.schedulers.pc import PC
from backfill.workloads.limits import MAX_CLOCK

__all__ = ["compiled_kind", "settle", "whole_run"]

#: The priorities the compiled queue orders by, by the function itself (identity, not name).
_KEYS = {fcfs: "fcfs", sjf: "sjf", ljf: "ljf", wjf: "wjf", njf: "njf"}


def compiled_kind(scheduler: Scheduler) -> int | None:
    """The compiled scheduler that makes exactly this scheduler's decisions, or None.

    0 for FCFS, 1 for classic EASY, 2 for Conservative, 3 for EASY at depth k, 4 for PC and 5 for
    DC (``backfill/kernel/_wholerun.pyx``'s constants). The class must be the built-in one itself, not a
    subclass, and its priority one of the built-in static ones.
    """
    cls = type(scheduler)
    if getattr(scheduler, "resources", ()):
        return None  # the kernel plans processors alone
    if cls is Conservative:
        assert isinstance(scheduler, Conservative)
        plain = scheduler.planning_window is None and scheduler.max_tested is None
        return 2 if plain and cls.accelerated else None
    if cls is PC or cls is DC:
        assert isinstance(scheduler, (PC, DC))
        plain = scheduler.planning_window is None and scheduler.max_tested is None
        if plain and cls.accelerated and scheduler.priority in _KEYS:
            return 4 if cls is PC else 5
        return None
    if cls is not FCFS and cls is not EASY:
        return None
    if getattr(scheduler, "priority", None) not in _KEYS:
        return None
    if cls is FCFS:
        return 0
    assert isinstance(scheduler, EASY)
    if (
        scheduler.depth != 1
        and scheduler.planning_window is None
        and scheduler.max_tested is None
        and not scheduler._always_plan
    ):
        # The deep path, decided by a full pass each time (EASY.accelerated's shortcut is proven
        # equal to it by tests/test_easy_paths.py).
        return 3
    classic = (
        scheduler.depth == 1
        and (scheduler.backfill_order is None or scheduler.backfill_order in _KEYS)
        # The path EASY chose at reset: depth 1 with no planning window or test limit (a test may
        # send depth 1 through the general path, which differs for jobs of zero estimate).
        and scheduler.classic
    )
    return 1 if classic else None


def whole_run(
    scheduler: Scheduler,
    machine_size: int,
    records: np.ndarray,
    submit: Sequence[float],
    runtime: Sequence[float],
    estimate: Sequence[float],
    bad: Sequence[bool],
    record: bool,
) -> Any | None:
    """A compiled run of a simulation not yet started, or None where the Python path must run it.

    Args:
        scheduler: The simulation's scheduler (reset, not yet driven).
        machine_size: Processors of the machine.
        records: The workload's rows (ids and processors are read).
        submit: Per row, the submit time.
        runtime: Per row, the runtime (after the overrun policy).
        estimate: Per row, the estimate the scheduler sees (after the overrun policy).
        bad: Per row, whether the simulator rejected the job.
        record: Whether the reservation log is kept.

    Returns:
        The kernel's ``QueueRun`` (``advance(stop)``, False if it stopped at a time past
        ``MAX_CLOCK``, where the Python path must run to raise the door's error; ``queued()``;
        ``results()``), or None: no
        kernel, the pure-Python path was asked for, or the configuration is not one it implements.
    """
    compiled = kernel.KERNEL
    if compiled is None or not kernel.WHOLE_RUNS:
        return None
    kind = compiled_kind(scheduler)
    if kind is None:
        return None
    runtimes = np.asarray(runtime, dtype=np.float64)
    estimates = np.asarray(estimate, dtype=np.float64)
    if kind in (2, 4, 5) and np.any((runtimes > estimates) & ~np.asarray(bad, dtype=bool)):
        # Conservative, PC and DC refuse a job running past its planned end: the Python path says so.
        return None
    key = "fcfs" if kind == 2 else _KEYS[scheduler.priority]  # type: ignore[attr-defined]
    order = getattr(scheduler, "backfill_order", None)
    depth = getattr(scheduler, "depth", 1)
    return compiled.QueueRun(
        kind,
        key,
        None if order is None else _KEYS[order],
        np.asarray(submit, dtype=np.float64),
        runtimes,
        estimates,
        records["processors"],
        records["id"],
        np.asarray(bad, dtype=np.uint8),
        machine_size,
        record,
        MAX_CLOCK,
        depth,
        getattr(scheduler, "restart", True),
        *compression_thresholds(),  # PC's and DC's, read now (a test may lower them)
    )


def settle(scheduler: Scheduler, run: Any) -> None:
    """Leave in the scheduler what its Python path would have counted: events examined, PC's and DC's moves.

    The compiled run does not drive the scheduler object, which stays as it was reset; the counts
    that callers read after a simulation (``events_examined``, the work measure of Lindsay et al.
    2013, §4.3) are the run's.
    """
    if type(scheduler) in (Conservative, PC, DC):
        scheduler._profile.examined = run.examined()  # type: ignore[attr-defined]
    if type(scheduler) in (PC, DC):
        scheduler._moves = run.moves()  # type: ignore[attr-defined]
