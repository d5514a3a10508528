"""What every scheduler is built on: the bases, the queue and its priorities, the protocol and its door.

The algorithms, one module each, sit one level up in :mod:`backfill.schedulers`; they import from
here, and nothing here imports an algorithm. :mod:`~backfill.schedulers.machinery.protocol` is the
contract, :mod:`~backfill.schedulers.machinery.base` and :mod:`~backfill.schedulers.machinery.queue`
the bases, :mod:`~backfill.schedulers.machinery.guarantee` the base of the schedulers that
guarantee start times, :mod:`~backfill.schedulers.machinery.door` and
:mod:`~backfill.schedulers.machinery.guard` check what crosses the protocol, and
:mod:`~backfill.schedulers.machinery.priorities`, :mod:`~backfill.schedulers.machinery.thresholds`
and :mod:`~backfill.schedulers.machinery.entitlement` are the orders and shares the algorithms rank
by.
"""
