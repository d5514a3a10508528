"""How long a command took, in the words both commands print: the part measured, and the whole.

Private to :mod:`backfill.cli`. The time of the simulations alone can be a small part of a
command's (reading and hashing a log, importing the library, writing the outputs): the closing
line says what its time covers, with which code the schedules were made, and the time since the
command started.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable

from backfill._clock import IMPORTED

__all__ = ["kernel_words", "mark_start", "since_start_words"]


def mark_start(args: argparse.Namespace, *, whole_process: bool) -> None:
    """Note in ``args`` when the command started: when the library's import began, if it is the process's.

    ``whole_process`` when the command is the process (``backfill ...``, ``python -m backfill``):
    its time then counts the imports too, from :data:`backfill._clock.IMPORTED`, though not the
    interpreter's own start (tens of milliseconds). Not the process's start: a shell that runs the
    command by ``exec`` after other work (``bash -c 'pip install . && backfill simulate'``) dates
    that to before the other work. Called from Python (``main([...])``), the command starts when
    ``main`` does.
    """
    args.started = IMPORTED if whole_process else time.perf_counter()


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
