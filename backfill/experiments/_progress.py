"""The optional tqdm progress bar of long runs (fair start times, sweeps)."""

from __future__ import annotations

from typing import Any

from backfill.errors import BackfillError


def progress_bar(total: int, label: str, unit: str, initial: int = 0) -> Any:
    """Return a tqdm bar of ``total`` items, ``initial`` of them already done.

    Raises:
        BackfillError: tqdm is not installed (it is the ``progress`` extra).
    """
    try:
        from tqdm.auto import tqdm
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise BackfillError("progress=True needs tqdm: pip install 'backfill[progress]'") from e
    return tqdm(total=total, initial=initial, desc=label, unit=unit)
