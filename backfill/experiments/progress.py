"""The optional tqdm progress bar of long runs (simulations, sweeps, fair start times)."""

from __future__ import annotations

from typing import Any

from backfill.errors import BackfillError

__all__ = ["progress_bar"]


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
        raise BackfillError("progress=True needs tqdm: pip install 'backfill[progress]'") from e
    return tqdm(total=total, initial=initial, desc=label, unit=unit)
