"""Re-planning a profile of reservations when a running job outlives its planned runtime.

Conservative, PC and DC (and Selective, through Conservative) keep every guarantee in a
:class:`~backfill.profile.Profile` of running and queued jobs. When a running job is extended
(:meth:`~backfill.schedulers.prediction.planning.Replanning.extend`), its extra time ``[old end, new end)``
must go into that profile. If it fits, nothing else changes. Otherwise every reservation that
overlaps the extra time leaves the profile, the extra time goes in, and those jobs come back, in the
order of their old planned starts (ties by arrival), each at its earliest fit from ``now``: the
re-plan moves as few jobs as an overlap test can tell, and never a job whose reservation lies wholly
before or after the extra time. A job that comes back later than it was has had its guarantee
broken; the reservation log shows it (:func:`~backfill.measures.planning.guarantee_violations`).
"""

from __future__ import annotations

from typing import Any

from sortedcontainers import SortedList

from backfill.profile import Profile
from backfill.profile.nodes import NodeProfile
from backfill.workloads.workload import Job

__all__ = ["extension_error", "replan"]


def replan(
    profile: Profile,
    by_start: SortedList,
    low: float,
    high: float,
    processors: Any,
    now: float,
    requests: dict[int, Any] | None = None,
) -> list[tuple[float, float, int, Job]]:
    """Put ``[low, high)`` of ``processors`` into ``profile``, moving the reservations in the way.

    ``by_start`` holds the queued jobs as ``(start, seq, job)``, reserved in ``profile`` over
    ``[start, start + job.estimate)``. With resources, ``profile`` is a ResourceProfile,
    ``processors`` the running job's Amounts and ``requests`` every queued job's, by id: a
    reservation is in the way if some resource falls short, and comes back where all its amounts
    fit. On a node machine (a NodeProfile), the extra time must fit on the running job's own nodes,
    and a reservation is in the way if it overlaps the extra time. Return the moved jobs as
    ``(old start, new start, seq, job)`` in the order they were re-placed; the caller updates its
    own records (``by_start`` is left with the moved jobs removed). O(k (log n + s)) for k
    overlapping reservations, each search scanning s steps; O(log n + s) when the extra time fits.
    """
    if high <= low or _fits(profile, low, high, processors):
        if high > low:
            profile._reserve(low, high, processors)
        return []
    hit = [
        entry
        for entry in by_start.irange(maximum=(high,), inclusive=(True, False))
        if entry[0] + entry[2].estimate > low
    ]
    for entry in hit:
        start, _, job = entry
        by_start.remove(entry)
        if job.estimate > 0:
            width = job.processors if requests is None else requests[job.id]
            profile._release(start, start + job.estimate, width)
    profile._reserve(low, high, processors)
    moved = []
    for start, seq, job in hit:
        width = job.processors if requests is None else requests[job.id]
        new = profile._earliest_fit(now, width, job.estimate)
        if job.estimate > 0:
            profile._reserve(new, new + job.estimate, width)
        moved.append((start, new, seq, job))
    return moved


def _fits(profile: Profile, low: float, high: float, processors: Any) -> bool:
    """Whether the extra time fits: in what is free, and on a node machine on the job's own nodes."""
    if isinstance(profile, NodeProfile):
        return profile._extends(processors.key, low, high)
    return bool(profile._min_free(low, high) >= processors)


def extension_error(name: str, job: Job, end: float, now: float, planned: float | None) -> str:
    """The message for an extension of a job that is not running, or that does not extend it."""
    if planned is None:
        return f"{name}: job {job.id} extended at {now:g} but was not running"
    return (
        f"{name}: job {job.id} extended at {now:g} to end at {end:g}, not after its planned end "
        f"{planned:g}; an extension plans a running job longer"
    )
