"""The installed version of the library, read once from its package metadata."""

from __future__ import annotations

import functools
import importlib.metadata


@functools.cache
def library_version() -> str:
    """Return the installed version of ``backfill`` (``"unknown"`` when run from a bare checkout).

    Examples:
        >>> isinstance(library_version(), str)
        True
    """
    try:
        return importlib.metadata.version("backfill")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - depends on the install
        return "unknown"
