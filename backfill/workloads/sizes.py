"""Memory sizes as people write them (``1.5G``, ``512M``) and as SWF counts them (whole kB).

Read by the command line's resources and node groups (``--resource memory=1.5G``,
``--nodes 128x8,memory=12G``) and written in labels and file names, in one pair of inverse functions.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from backfill.errors import BackfillError

__all__ = ["memory_size", "memory_text"]

# Binary multiples of SWF's kB: 1M = 1024 kB, 1G = 1024 M, 1T = 1024 G.
_UNITS = {"": 1, "K": 1, "M": 2**10, "G": 2**20, "T": 2**30}
_SIZE_RE = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\Z")


def memory_size(text: str) -> int:
    """Read a memory size as whole kB: ``1.5G``, ``512M``, ``64K``, or kB (as SWF counts).

    The units are binary (``1M`` = 1024 kB, ``1G`` = 1024 M, ``1T`` = 1024 G; case and a trailing
    ``B`` do not matter); a fraction of a kB is dropped. The number is read exactly, not as a float,
    so that every size :func:`memory_text` writes reads back as the same kB, however large.

    Raises:
        BackfillError: Not a number with a known unit, or not at least 1 kB.

    Examples:
        >>> memory_size("1.5G"), memory_size("512M"), memory_size("2048"), memory_size("4gb")
        (1572864, 524288, 2048, 4194304)
        >>> memory_size("2P")
        Traceback (most recent call last):
        ...
        backfill.errors.BackfillError: memory size '2P' has an unknown unit 'P'; known: K, M, G, T ...
    """
    if not isinstance(text, str):
        raise BackfillError(f"a memory size is text such as 1.5G, got {text!r}")
    match = _SIZE_RE.match(text.strip())
    if match is None:
        raise BackfillError(f"memory size {text!r} is not a positive number with a unit such as 1.5G or 512M")
    number, unit = match.groups()
    key = unit.upper().removesuffix("B") if unit.upper() not in ("B", "") else ""
    if unit.upper() == "B" or key not in _UNITS:
        raise BackfillError(
            f"memory size {text!r} has an unknown unit {unit!r}; known: K, M, G, T (binary), "
            "none for kB (as SWF counts)"
        )
    # The float only bounds the number (1e999999 would be a huge exact integer); the value is exact.
    if not (math.isfinite(float(number) * _UNITS[key]) and Fraction(number) * _UNITS[key] >= 1):
        raise BackfillError(f"memory size {text!r} must be at least 1 kB")
    return int(Fraction(number) * _UNITS[key])


def memory_text(kb: int) -> str:
    """Write a memory size in the largest binary unit that gives it exactly: ``1.5G``.

    The inverse of :func:`memory_size`: a whole or a number of at most three decimals of ``T``,
    ``G`` or ``M``, else the kB as a plain number (as SWF counts them), so that
    ``memory_size(memory_text(kb)) == kb``. Labels and file names show sizes so, as a user writes them.

    Examples:
        >>> [memory_text(kb) for kb in (1048576, 1572864, 524288, 2048, 1000)]
        ['1G', '1.5G', '512M', '2M', '1000']
        >>> memory_size(memory_text(1049624)) == 1049624
        True

    Raises:
        BackfillError: ``kb`` is not an int of at least 1.
    """
    if not isinstance(kb, int) or isinstance(kb, bool) or kb < 1:
        raise BackfillError(f"a memory size is a whole number of kB >= 1, got {kb!r}")
    for unit in ("T", "G", "M"):
        scale = _UNITS[unit]
        whole, rest = divmod(kb, scale)
        if whole >= 1 and rest * 1000 % scale == 0:  # rest / scale has at most three decimals
            decimals = f"{rest * 1000 // scale:03d}".rstrip("0")
            return f"{whole}.{decimals}{unit}" if decimals else f"{whole}{unit}"
    return str(kb)
