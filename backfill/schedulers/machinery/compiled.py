"""What the compiled kernel needs to run a built-in scheduler whole: its kind and its settings.

The kernel (:mod:`backfill.kernel`, its whole runs in ``backfill/kernel/_runs.py``) sits below the
schedulers and imports none of them. Each built-in that it ports decision for decision (FCFS,
EASY, Conservative, PC, DC) says instead, through its private ``_whole_run()`` method, whether it
is in a configuration the kernel makes exactly, and with which settings: a :data:`WholeRun`. Every
other scheduler, a subclass of a built-in among them, answers None and runs the Python path.
"""

from __future__ import annotations

from typing import Any

from backfill.schedulers.machinery.guarantee import compression_thresholds
from backfill.schedulers.machinery.priorities import Priority, fcfs, ljf, njf, sjf, wjf

__all__ = ["STATIC_PRIORITIES", "WholeRun", "guarantee_run", "whole_run_settings"]

#: The priorities the compiled queue orders by, by the function itself (identity, not name).
STATIC_PRIORITIES: dict[Priority, str] = {fcfs: "fcfs", sjf: "sjf", ljf: "ljf", wjf: "wjf", njf: "njf"}

#: The kernel's kinds of run: ``backfill/kernel/_wholerun.pyx``'s constants.
FCFS_RUN, EASY_RUN, CONSERVATIVE_RUN, EASY_DEPTH_RUN, PC_RUN, DC_RUN = range(6)

#: ``(kind, priority, backfill order or None, depth, restart, narrow, per_width, trim)``, the
#: arguments of the kernel's run after the workload's columns, priorities by name.
WholeRun = tuple[int, str, str | None, int, bool, int, int, int]


def whole_run_settings(
    kind: int, priority: Priority, order: Priority | None = None, depth: int = 1, restart: bool = True
) -> WholeRun:
    """The settings of a built-in's compiled run, with the compression thresholds as they are now.

    ``priority`` and ``order`` must be among :data:`STATIC_PRIORITIES`. The long-queue thresholds
    are read at each call, since a test lowers them to send small queues down the long-queue
    branches, and the kernel must use the same ones as the Python path.

    Examples:
        >>> whole_run_settings(FCFS_RUN, sjf)[:5]
        (0, 'sjf', None, 1, True)
    """
    named_order = None if order is None else STATIC_PRIORITIES[order]
    return (kind, STATIC_PRIORITIES[priority], named_order, depth, restart, *compression_thresholds())


def guarantee_run(scheduler: Any, kind: int) -> WholeRun | None:
    """PC's or DC's compiled run (``kind`` ``PC_RUN`` or ``DC_RUN``), or None where it is not one.

    The kernel ports them on processors alone, under a static priority, with no planning window or
    test limit and their accelerated paths (``accelerated`` of the class); ``restart`` is PC's
    (DC compresses each job once). The caller checks that ``scheduler`` is PC or DC itself.

    Examples:
        >>> from backfill import PC
        >>> guarantee_run(PC(), PC_RUN)[:5], guarantee_run(PC(planning_window=3600.0), PC_RUN)
        ((4, 'fcfs', None, 1, True), None)
    """
    plain = scheduler.planning_window is None and scheduler.max_tested is None
    static = scheduler.priority in STATIC_PRIORITIES
    if scheduler.resources or not plain or not type(scheduler).accelerated or not static:
        return None
    return whole_run_settings(kind, scheduler.priority, restart=getattr(scheduler, "restart", True))
