"""Pool workers that do not outlive the process that started them.

Private to :mod:`backfill.experiments`. A worker of a :class:`~concurrent.futures.ProcessPoolExecutor`
whose parent is killed outright (``kill -9``, the OOM killer) would otherwise finish its cell and
then wait for work for ever, holding memory and a core. :func:`exit_with_parent`, run in each
worker by the pool's initializer, ends it when its parent dies: on Linux the kernel sends
it SIGKILL (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread notices that its parent is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time

__all__ = ["POLL_SECONDS", "exit_with_parent"]

#: How often the portable fallback looks for its parent, in seconds.
POLL_SECONDS = 0.5

_PR_SET_PDEATHSIG = 1


def _orphaned_already() -> bool:
    """Whether the process that asked for this worker died before the worker got this far."""
    # Forked or spawned, a worker is the child of the process that made the pool, whose pid
    # multiprocessing knows; under forkserver its parent is the server, and it cannot tell.
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return False
    return (
        multiprocessing.get_start_method(allow_none=True) in ("fork", "spawn") and os.getppid() != parent.pid
    )


def _death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that cannot be done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        # The kernel sends it when the *thread* that forked this process ends. Pools are made and
        # shut down within one call (run_sweep, fair_start_times), by the thread that submits.
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)


def exit_with_parent() -> None:
    """End this process when its parent dies, even by SIGKILL.

    Examples:
        >>> import concurrent.futures as cf
        >>> with cf.ProcessPoolExecutor(1, initializer=exit_with_parent) as pool:
        ...     pool.submit(sum, [1, 2]).result()
        3
    """
    parent = os.getppid()
    if not _death_signal():
        threading.Thread(target=_watch, args=(parent,), name="exit-with-parent", daemon=True).start()
    # A parent that died before the signal was asked for sends none: nobody is left to tell us.
    if os.getppid() != parent or _orphaned_already():
        os._exit(1)
