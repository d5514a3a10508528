"""The ranges a job's values must lie in: one fact each, shared by every door that checks them.

A float resolves a millisecond only below 2**43 s: above that, two times a millisecond apart are the
same number, and a job of a few seconds could start and end at the same instant. Every time a job
carries (submit time, runtime, estimate) is therefore at most :data:`MAX_TIME` seconds, about 31,700
years; a start plus an estimate then stays below 2**41 s, where the spacing of floats is a quarter of a
millisecond. Integers (job ids, widths, users) must be exact in a float too, since measures and
output files carry them as floats: their magnitude is below :data:`MAX_INT`.

Examples:
    >>> MAX_TIME, MAX_INT == 2**53
    (1000000000000.0, True)
"""

from __future__ import annotations

__all__ = ["MAX_INT", "MAX_TIME", "UNKNOWN"]

#: The largest time, in seconds, a job may carry (submit time, runtime, estimate): 10**12 s.
MAX_TIME = 1e12

#: Integers of a job (id, processors, user, ...) lie strictly between ``-MAX_INT`` and ``MAX_INT``.
MAX_INT = 2**53

#: SWF's "unknown": the one negative value a field other than the id may hold.
UNKNOWN = -1
