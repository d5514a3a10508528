"""The optional compiled kernel: whether it is in use, and how to run the pure-Python reference instead.

``pip install`` compiles the Cython sources beside this module (``_steps.pyx``, ``_loops.pyx``,
``_wholerun.pyx``, listed in the docs' performance page) where a C compiler is present; without
one, or with ``BACKFILL_PURE_PYTHON=1`` set when the library is installed or imported, the library
runs its pure-Python code alone. The kernel ports the hottest loops to C: the
searches and updates of :class:`~backfill.profile.Profile`, the compression loops of Conservative, PC
and DC, and Selective's promotion times and entry queue (the list is in the docs' performance page);
and for FCFS, EASY (any depth), PC and DC under a built-in static priority and for Conservative,
:func:`~backfill.simulate` and :func:`~backfill.experiments.fair_start_times` run the whole
simulation, and its forks, in it (:attr:`Schedule.path <backfill.schedule.Schedule.path>` says so;
:func:`python_path` turns that off and keeps the rest).
Each is a line-by-line port of the Python code it replaces, which stays the reference: the same
comparisons on the same IEEE doubles, so schedules, reservation logs and :attr:`Profile.examined
<backfill.profile.Profile.examined>` are identical with or without it (``tests/test_kernel.py``
checks this on random workloads and archive-trace prefixes).

Examples:
    >>> from backfill.kernel import compiled, pure_python
    >>> with pure_python():
    ...     compiled()
    False
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt

__all__ = ["ENVIRONMENT_VARIABLE", "compiled", "pure_python", "python_path"]

#: Set to ``1`` when installing or importing to run without the compiled kernel.
ENVIRONMENT_VARIABLE = "BACKFILL_PURE_PYTHON"


class _Kernel(Protocol):
    """What ``backfill.kernel._loops`` provides; each function is named after the reference it ports."""

    def earliest_fit(self, profile: Any, time: float, processors: int, duration: float) -> float: ...

    def earliest_move(
        self, profile: Any, time: float, processors: int, duration: float, current: float, before: float
    ) -> float | None: ...

    def earliest_moves(
        self,
        profile: Any,
        time: float,
        widths: npt.NDArray[np.int64],
        durations: npt.NDArray[np.float64],
        currents: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]: ...

    def first_below(self, profile: Any, start: float, end: float, processors: int) -> float | None: ...

    def min_free(self, profile: Any, start: float, end: float) -> int: ...

    def max_free(self, profile: Any, start: float, end: float) -> int: ...

    def add(self, profile: Any, start: float, end: float, delta: int) -> None: ...

    def move(
        self, profile: Any, start: float, end: float, new: float, new_end: float, processors: int
    ) -> bool: ...

    def mark_seen(self, jobs: list[Any], seen: dict[int, int], top: int) -> None: ...

    def trim(self, scheduler: Any) -> None: ...

    def queue_arrays(
        self, jobs: list[Any], reserved: dict[int, float]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...

    def guarantee_loop(
        self,
        scheduler: Any,
        now: float,
        loop: Any,
        cut: bytearray,
        top: int,
        cap: Any,
        narrow: int,
        per_width: int,
    ) -> bool: ...

    def start_unreserved(
        self, profile: Any, running: dict[int, Any], entries: Any, now: float
    ) -> list[Any]: ...

    def promotion_items(
        self,
        waiting: Any,
        values: list[float],
        per_category: bool,
        runtime_boundary: float,
        width_boundary: int,
    ) -> tuple[list[Any], dict[int, float]]: ...

    def compress_conservative(
        self,
        profile: Any,
        entries: list[Any],
        freed: list[tuple[float, float]],
        now: float,
        planned: dict[int, float],
        changes: Any,
    ) -> bool: ...

    # The whole runs of ``backfill/kernel/_wholerun.pyx`` (see ``backfill/kernel/_runs.py``).
    QueueRun: Any


#: Every name the library calls on the kernel.
_NAMES = tuple(name for name in vars(_Kernel) if not name.startswith("_")) + tuple(_Kernel.__annotations__)


def _load() -> _Kernel | None:
    if os.environ.get(ENVIRONMENT_VARIABLE, "") not in ("", "0"):
        return None
    try:
        module = importlib.import_module("backfill.kernel._loops")
    except ImportError:  # not built: no compiler at install time, or a source checkout
        return None
    # A kernel built from an older checkout lacks what this code calls: run the pure path (the same
    # schedules), and say so, rather than fail in the middle of a simulation.
    missing = sorted(name for name in _NAMES if not hasattr(module, name))
    if missing:
        warnings.warn(
            f"the compiled kernel at {module.__file__} was built from an older version of backfill "
            f"(it lacks {', '.join(missing)}): running the pure-Python path; rebuild it with "
            "`pip install -e .`",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return cast("_Kernel", module)


#: The compiled module, or None; read at every call, so that :func:`pure_python` takes effect at once.
KERNEL = _load()
#: Whether simulations the kernel implements whole run whole in it; :func:`python_path` clears it.
WHOLE_RUNS = True


def compiled() -> bool:
    """Return whether the compiled kernel is in use.

    Examples:
        >>> isinstance(compiled(), bool)
        True
    """
    return KERNEL is not None


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the pure-Python reference inside the ``with`` block, even where the kernel is built.

    For differential tests of one's own: a schedule computed inside equals one computed outside.

    Examples:
        >>> from backfill import Conservative, lublin_feitelson, simulate
        >>> workload = lublin_feitelson(300, seed=1)
        >>> with pure_python():
        ...     reference = simulate(workload, Conservative()).start
        >>> bool((simulate(workload, Conservative()).start == reference).all())
        True
    """
    global KERNEL
    saved, KERNEL = KERNEL, None
    try:
        yield
    finally:
        KERNEL = saved


@contextmanager
def python_path() -> Iterator[None]:
    """Run every simulation on the Python path inside the ``with`` block, with the kernel's other help.

    The compiled profile steps and compression loops stay in use; only the whole runs (and the fair
    start times' forks of them) are left out. This is the library as it ran before whole runs were
    compiled: a benchmark compares the two in one process, and a subclass's author can time their
    class against the built-in on the same path.

    Examples:
        >>> from backfill import Conservative, lublin_feitelson, simulate
        >>> workload = lublin_feitelson(300, seed=1)
        >>> with python_path():
        ...     reference = simulate(workload, Conservative())
        >>> reference.path
        'python'
        >>> bool((simulate(workload, Conservative()).start == reference.start).all())
        True
    """
    global WHOLE_RUNS
    saved, WHOLE_RUNS = WHOLE_RUNS, False
    try:
        yield
    finally:
        WHOLE_RUNS = saved
