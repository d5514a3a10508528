"""The progress of long runs (simulations, sweeps, fair start times): a tqdm bar, or a line now and then.

A terminal gets a bar redrawn in place (tqdm, the ``progress`` extra). A log (standard error
piped or redirected, as under a batch system) would get a bar's every redraw; it gets instead
a line now and then (:data:`LINES`), which needs nothing installed.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import Any, Literal, TextIO

from backfill.errors import BackfillError

__all__ = ["LINES", "Progress", "ProgressLines", "progress_bar", "progress_meter"]

#: The ``progress`` value that asks for a line now and then on standard error instead of a bar.
LINES: Literal["lines"] = "lines"

#: What a ``progress`` argument takes: False (nothing), True (a tqdm bar) or :data:`LINES`.
Progress = bool | Literal["lines"]

#: The shortest time between two lines (seconds); later lines come at a tenth of the time so far.
_EVERY = 10.0


def progress_bar(total: int, label: str, unit: str, initial: int = 0) -> Any:
    """Return a tqdm bar of ``total`` items, ``initial`` of them already done, on standard error.

    Examples:
        >>> bar = progress_bar(10, "demo", "job", initial=4)
        >>> _ = bar.update(6)
        >>> bar.n, bar.total
        (10, 10)
        >>> bar.close()

    Raises:
        BackfillError: tqdm is not installed (it is the ``progress`` extra).
    """
    try:
        from tqdm.auto import tqdm
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise BackfillError("progress=True needs tqdm: pip install '.[progress]'") from e
    return tqdm(total=total, initial=initial, desc=label, unit=unit)


class ProgressLines:
    """A progress bar for a log: a line on standard error now and then, never a redrawn bar.

    It has a bar's ``update``, ``close``, ``n`` and ``total``. A line (``sweep: 12/40 cells (30 %),
    42 s, about 98 s left``) is written when ``every`` seconds (default 10) have passed since the last, and
    later at a tenth of the time so far, whichever is longer, so that a run of hours writes tens
    of lines, not thousands; ``close`` writes a last one (``done``) if any was written. A run shorter
    than ``every`` writes nothing.

    Examples:
        >>> import io
        >>> ticks = iter([0.0, 1.0, 12.0, 13.0])
        >>> out = io.StringIO()
        >>> lines = ProgressLines(40, "sweep", "cell", every=10.0, stream=out, clock=lambda: next(ticks))
        >>> lines.update(4); lines.update(8); lines.close()
        >>> print(out.getvalue(), end="")
        sweep: 12/40 cells (30 %), 12 s, about 28 s left
        sweep: 12/40 cells (30 %), 13 s, done

    Raises:
        BackfillError: ``total`` or ``initial`` not an int >= 0, ``every`` not a finite number >= 0
            (0: a line at every update).
    """

    def __init__(
        self,
        total: int,
        label: str,
        unit: str,
        initial: int = 0,
        *,
        every: float | None = None,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        for name, count in (("total", total), ("initial", initial)):
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise BackfillError(f"ProgressLines {name} must be an int >= 0, got {count!r}")
        every = _EVERY if every is None else every
        if not isinstance(every, int | float) or isinstance(every, bool) or not 0 <= every < math.inf:
            raise BackfillError(f"ProgressLines every must be a finite number of seconds >= 0, got {every!r}")
        self.total, self.n, self.label, self.unit = total, initial, label, unit
        self._every = float(every)
        self._initial, self._stream, self._clock = initial, stream, clock
        self._started = self._last = clock()
        self._said = self._closed = False

    def update(self, n: int = 1) -> None:
        """Count ``n`` more items done; write a line if it is time."""
        self.n += n
        now = self._clock()
        if now - self._last >= max(self._every, (now - self._started) / 10.0):
            self._say(now, "")

    def close(self) -> None:
        """Write the last line, if any line was written."""
        if self._said and not self._closed:
            self._say(self._clock(), "done")
        self._closed = True

    def _say(self, now: float, end: str) -> None:
        elapsed = now - self._started
        share = f" ({100.0 * self.n / self.total:.0f} %)" if self.total else ""
        done = self.n - self._initial
        if not end and done > 0 and self.total:
            end = f"about {elapsed * (self.total - self.n) / done:.0f} s left"
        line = f"{self.label}: {self.n}/{self.total} {self.unit}s{share}, {elapsed:.0f} s" + (
            f", {end}" if end else ""
        )
        print(line, file=self._stream if self._stream is not None else sys.stderr, flush=True)
        self._last, self._said = now, True


def progress_meter(progress: Progress, total: int, label: str, unit: str, initial: int = 0) -> Any:
    """Return what ``progress`` asks for: None (False), a tqdm bar (True) or :class:`ProgressLines`.

    Examples:
        >>> progress_meter(False, 10, "demo", "job") is None
        True
        >>> type(progress_meter(LINES, 10, "demo", "job")).__name__
        'ProgressLines'

    Raises:
        BackfillError: ``progress`` is none of them, or True without tqdm installed.
    """
    if isinstance(progress, str) and progress == LINES:
        return ProgressLines(total, label, unit, initial)
    if not isinstance(progress, bool):
        raise BackfillError(f"progress must be True, False or {LINES!r}, got {progress!r}")
    return progress_bar(total, label, unit, initial) if progress else None
