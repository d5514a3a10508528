"""Which simulations run whole in the compiled kernel: built-in configurations it implements exactly.

:func:`~backfill.simulator.simulate` asks :func:`whole_run` before it runs a simulation, which asks
the scheduler (its ``_whole_run()``, :mod:`backfill.schedulers.machinery.compiled`): the kernel sits
below the schedulers and imports none of them. The compiled
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
from backfill.workloads.limits import MAX_CLOCK

__all__ = ["settle", "whole_run"]

# The kinds of run whose schedulers read back what the run counted (Conservative; PC and DC).
_COUNTS_EXAMINED = (2, 4, 5)
_COUNTS_MOVES = (4, 5)


def _settings(scheduler: Any) -> Any:
    """The scheduler's answer to ``_whole_run()``: None for one whose class has no such method.

    Read from the class, not the object, so that a wrapper (``planning``, ``guarded``) that hands
    attribute look-ups to the scheduler it wraps is never taken for it: it runs the Python path.
    """
    ask = getattr(type(scheduler), "_whole_run", None)
    return None if ask is None else ask(scheduler)


def whole_run(
    scheduler: Any,
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
    settings = _settings(scheduler)
    if settings is None:
        return None
    kind, key, order, depth, restart, *thresholds = settings
    runtimes = np.asarray(runtime, dtype=np.float64)
    estimates = np.asarray(estimate, dtype=np.float64)
    if kind in _COUNTS_EXAMINED and np.any((runtimes > estimates) & ~np.asarray(bad, dtype=bool)):
        # Conservative, PC and DC refuse a job running past its planned end: the Python path says so.
        return None
    return compiled.QueueRun(
        kind,
        key,
        order,
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
        restart,
        *thresholds,  # PC's and DC's compression thresholds, read now (a test may lower them)
    )


def settle(scheduler: Any, run: Any) -> None:
    """Leave in the scheduler what its Python path would have counted: events examined, PC's and DC's moves.

    The compiled run does not drive the scheduler object, which stays as it was reset; the counts
    that callers read after a simulation (``events_examined``, the work measure of Lindsay et al.
    2013, §4.3) are the run's.
    """
    kind = _settings(scheduler)[0]
    if kind in _COUNTS_EXAMINED:
        scheduler._profile.examined = run.examined()
    if kind in _COUNTS_MOVES:
        scheduler._moves = run.moves()
