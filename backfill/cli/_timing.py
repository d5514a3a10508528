"""How long a command took, in the words both commands print: the part measured, and the whole.

Private to :mod:`backfill.cli`. The time of the simulations alone can be a small part of a
command's (reading and hashing a log, importing the library, writing the outputs): the closing
line says what its time covers, with which code the schedules were made, and the time since the
command started.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterable

__all__ = ["kernel_words", "mark_start", "since_start_words"]


def _process_age() -> float | None:
    """Seconds since this process started (Linux's /proc), or None where that cannot be read."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        # Field 22, the start in clock ticks since boot, counted after the parenthesized name.
        ticks = int(stat.rsplit(b")", 1)[1].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def mark_start(args: argparse.Namespace, *, whole_process: bool) -> None:
    """Note in ``args`` when the command started: the process's start if it is the command's own.

    ``whole_process`` when the command is the process (``backfill ...``, ``python -m backfill``):
    its time then counts the interpreter's start and the imports too. Called from Python
    (``main([...])``), the command starts when ``main`` does.
    """
    age = _process_age() if whole_process else None
    args.started = time.perf_counter() - (age if age is not None and age >= 0 else 0.0)


def since_start_words(args: argparse.Namespace) -> str:
    """``"1.92 s since the command started"`` (from :func:`mark_start`; empty if it was not called).

    Examples:
        >>> args = argparse.Namespace()
        >>> mark_start(args, whole_process=False)
        >>> since_start_words(args).endswith(" s since the command started")
        True
    """
    started = getattr(args, "started", None)
    if started is None:
        return ""
    return f"{time.perf_counter() - started:.2f} s since the command started"


def kernel_words(paths: Iterable[str]) -> str:
    """Which code made the schedules: ``"compiled kernel"``, ``"pure Python"``, or how many each.

    Examples:
        >>> kernel_words(["compiled", "compiled"]), kernel_words(["python"])
        ('compiled kernel', 'pure Python')
        >>> kernel_words(["compiled", "python", "compiled"])
        'compiled kernel for 2, pure Python for 1'
    """
    paths = list(paths)
    compiled = sum(p == "compiled" for p in paths)
    if compiled == len(paths):
        return "compiled kernel"
    if not compiled:
        return "pure Python"
    return f"compiled kernel for {compiled}, pure Python for {len(paths) - compiled}"
