"""The ranges a job's values must lie in: one fact each, shared by every door that checks them.

A float resolves a millisecond only below 2**43 s: above that, two times a millisecond apart are the
same number, and a job of a few seconds could start and end at the same instant. The clock of a run
(the ``now`` of every call a host makes of a scheduler) is therefore at most :data:`MAX_CLOCK`,
2**43 s. Every time a job carries (submit time, runtime, estimate) is at most :data:`MAX_TIME`
seconds, about 31,700 years, a ninth of that: jobs may wait and run long after the last arrival (a
start plus an estimate of one job stays below 2**41 s) and the clock still resolves a millisecond. A
run whose clock would pass ``MAX_CLOCK`` all the same (more than eight jobs of ``MAX_TIME`` seconds
one after another) is refused by the scheduler's door, naming the job and the time, rather than
computed with times that have lost their milliseconds. Integers (job ids, widths, users) must be
exact in a float too, since measures and output files carry them as floats: their magnitude is below
:data:`MAX_INT`. A resource's capacity and every amount a job holds of it (kB of memory, GPUs) are
below :data:`MAX_AMOUNT`, 2**62: the compiled profile keeps free amounts as 64-bit integers, and the
sum or difference of two values below 2**62 stays inside them (an amount past it would wrap to a
negative there and fit everywhere).

Examples:
    >>> MAX_TIME, MAX_INT == 2**53, MAX_CLOCK == 2.0**43, MAX_AMOUNT == 2**62
    (1000000000000.0, True, True, True)
"""

from __future__ import annotations

__all__ = ["MAX_AMOUNT", "MAX_CLOCK", "MAX_INT", "MAX_TIME", "UNKNOWN"]

#: The largest time, in seconds, a job may carry (submit time, runtime, estimate): 10**12 s.
MAX_TIME = 1e12

#: The latest time a run's clock may reach, in seconds (2**43, about 8.8e12 s): below it a float
#: still resolves a millisecond. Every scheduler's door refuses a call at a later time.
MAX_CLOCK = 2.0**43

#: Integers of a job (id, processors, user, ...) lie strictly between ``-MAX_INT`` and ``MAX_INT``.
MAX_INT = 2**53

#: A resource's capacity and every amount of it a job holds are below this: 2**62 (so that the sum of
#: two, in the compiled profile's 64-bit integers, cannot overflow).
MAX_AMOUNT = 2**62

#: SWF's "unknown": the one negative value a field other than the id may hold.
UNKNOWN = -1
