"""A shadow-time backfilling scheduler written outside the library, against its public names only.

``tests/test_public_state.py`` checks that this module names nothing private of ``backfill`` (no
name starting with an underscore), and that its schedules are EASY's. The rule is EASY's as its
documentation states it: jobs start in queue order while they fit; the first that does not (the
head) is reserved at the shadow time, when enough running jobs will have ended by their planned
ends; the processors left over then are the extra processors; a later job backfills if it fits now
and either ends by the shadow time or uses only extra processors.
"""

from __future__ import annotations

import math

from backfill import Job, QueueScheduler


class ShadowEASY(QueueScheduler):
    """Classic EASY from the public state of :class:`QueueScheduler`; notes the head's reservation."""

    def shadow(self, processors: int) -> tuple[float, int]:
        """When ``processors`` will be free by the running jobs' planned ends, and the surplus then."""
        avail = self.free
        shadow = None
        for running in self.running_jobs():
            if shadow is not None and running.planned_end > shadow:
                break
            avail += running.processors
            if shadow is None and avail >= processors:
                shadow = running.planned_end
        assert shadow is not None, "a job no wider than the machine fits once every job ends"
        return shadow, avail - processors

    def schedule(self, now: float) -> list[Job]:
        queue = list(self.ordered(now))
        free = self.free
        # The previous head loses its reservation if another job starts before it: a job ahead of it
        # now (an arrival with a smaller key, or a time-dependent key overtaking it) took its place.
        previous = next(iter(self.reservations()), None)
        overtaken = False
        i = 0
        while i < len(queue) and queue[i][2].processors <= free:
            free -= queue[i][2].processors
            if queue[i][2].id == previous:
                previous = None
            elif previous is not None:
                overtaken = True
            i += 1
        started = self.start(queue[:i], now) if i else []
        if i == len(queue):
            return started
        head = queue[i][2]
        shadow, extra = self.shadow(head.processors)
        if previous is not None and (overtaken or previous != head.id):
            self.note_reservation(previous, math.nan)
        self.note_reservation(head.id, shadow)
        chosen = []
        for entry in queue[i + 1 :]:
            if free == 0:
                break
            job = entry[2]
            if job.processors > free:
                continue
            if now + job.estimate <= shadow:
                pass
            elif job.processors <= extra:
                extra -= job.processors
            else:
                continue
            chosen.append(entry)
            free -= job.processors
        return started + (self.start(chosen, now) if chosen else [])
