"""DC: Conservative backfilling with Delayed prioritized Compression (Lindsay et al. 2013, §2.2)."""

from __future__ import annotations

import math

import attrs

from backfill.schedulers.machinery.compiled import DC_RUN, WholeRun, guarantee_run
from backfill.schedulers.machinery.guarantee import GuaranteeScheduler
from backfill.workloads.workload import Job

__all__ = ["DC"]


@attrs.define(repr=False, eq=False, on_setattr=attrs.setters.NO_OP)
class DC(GuaranteeScheduler):
    """Conservative backfilling that compresses only when it must, in priority order.

    Like :class:`~backfill.schedulers.PC`, DC keeps a profile in which every queued job has a guarantee
    that never moves later, and a compression queue ordered by ``priority``. It differs in *when* it
    reschedules (Lindsay et al. 2013, §2.2):

    * **Completions.** After a job finishes, DC moves only jobs that can start *now*, trying the queue
      in priority order and returning to its head after each move. Holes further ahead are left open on
      purpose, for a later high-priority arrival or a job that ends early.
    * **Arrivals.** A new job is not placed straight away. Every higher-priority queued job whose
      earliest possible start is before the new job's estimated completion (the end of the new job's
      earliest fit, recomputed after each move) is moved there first, in priority order and back to
      the head after each move, because the new job could otherwise take the space it needs. Then the
      new job is placed at its earliest fit, which is its guarantee, and compression stops.
    * **Holes reached.** The papers leave open when the "running system reaches the hole". DC checks at
      every completion, on time or early, and after an arrival that moved a job: whenever processors are
      idle now, queued jobs that fit now are moved to now, in priority order. Between events the
      processors free now do not change, so checking at these instants is enough for the invariant
      *no queued job could start now without delaying a guarantee* after every decision (tested).
    * Jobs start at their guarantees; DC asks the simulator for a wake-up at the earliest one, since a
      guarantee left inside a hole need not coincide with any completion.

    With ``resources=[...]`` a job "fits now" if all its amounts do, and an arrival's estimated
    completion is the end of its earliest fit in every resource; the plain paths run.

    Ties follow the simulator's order: completions of an instant first, then the now-check, then that
    instant's arrivals one by one.

    The plain paths read as the papers state them: the arrivals' loop is
    :meth:`~backfill.schedulers.machinery.guarantee.GuaranteeScheduler._compress_plain` with a cap, the hole
    check :meth:`_fill_plain`. On long queues the same moves are found with fewer searches
    (``backfill/schedulers/_long_queues.py``, proven equal by ``tests/test_compression_paths.py``;
    ``accelerated = False`` in a subclass runs the plain paths).

    Args:
        priority: Compression order (smallest key first, ties by arrival); any callable
            ``(job, now) -> key``.

    Examples:
        Rajbhandary et al. (2013, §4.1): DC leaves job 4 in place when job 1 ends early, so job 5
        backfills when job 3 ends and job 4 starts at 295, where Conservative starts it at 200.

        >>> from backfill import Workload, simulate
        >>> rows = [(0, 90, 100), (1, 45, 100), (2, 40, 95), (3, 90, 100), (4, 45, 100)]
        >>> jobs = [Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=200.0)
        ...         for i, (s, p, r) in enumerate(rows)]
        >>> start = simulate(Workload.from_jobs(jobs, machine_size=100), DC()).start
        >>> start.tolist()
        [0.0, 100.0, 100.0, 295.0, 195.0]
    """

    _idle_check: bool = attrs.field(init=False, default=False)

    def _whole_run(self) -> WholeRun | None:
        """The compiled kernel's run of exactly this scheduler (``machinery.compiled``), or None."""
        return guarantee_run(self, DC_RUN) if type(self) is DC else None

    def reset(self, machine_size: int, now: float) -> None:
        """Forget every job; schedule a machine of ``machine_size`` processors from ``now``."""
        super().reset(machine_size, now)
        self._idle_check = False

    def submit(self, job: Job, now: float) -> None:
        """Protect higher-priority jobs the new one could delay, then give it its guarantee."""
        self._door_submit(job, now)
        if self._requests is not None:
            self._take_new(job, now)
        if self._idle_check:
            self._fill(now)
        if self.planning_window is not None and self._out_of_reach(self._profile, job, now):
            return
        self._arrive(job, now)

    def _arrive(self, job: Job, now: float) -> None:
        entry = self._join_queue(job, now)
        if self._admit(job, now, entry):
            self._idle_check = True
        self._place(job, now, entry)

    def complete(self, job: Job, now: float) -> None:
        """Free the rest of a finished job's reservation; idle processors are filled before the next step."""
        self._release(job, now)
        self._idle_check = True

    def schedule(self, now: float) -> list[Job]:
        """Move jobs that fit now to now if processors are idle, then start every job whose time has come."""
        self._door_time(now)
        if self._idle_check:
            self._fill(now)
        if self._unreserved:
            self._reserve_within_reach(self._profile, now)
            if self._idle_check:
                self._fill(now)
        return self._start_due(now)

    def _vacated(self, intervals: list[tuple[float, float]]) -> None:
        # Space a re-plan freed may hold idle processors now: fill them as after a completion.
        self._idle_check = True

    def _fill(self, now: float) -> None:
        """Move queued jobs that can start now to now, in priority order, back to the head after each move."""
        self._idle_check = False
        # The long-queue path reads the processors' arrays alone: with resources the plain loop runs.
        if self.accelerated and self._requests is None:
            self._fill_long_queue(now)
        else:
            self._fill_plain(now)

    def _fill_plain(self, now: float) -> None:
        """DC's hole filling as stated: the first job in priority order that fits now moves to now; again.

        A job fits now if it can start at ``now`` without delaying any guarantee: an earliest move
        bounded to starts before the next float after ``now``. O(q) profile searches per move.
        With resources a job fits now if every one of its amounts does.
        """
        just_after = math.nextafter(now, math.inf)
        fits_now = self._profile._earliest_move
        reserved = self._reserved
        requests = self._requests
        moved = True
        while moved:
            moved = False
            for entry in self._ordered(now):
                job = entry[2]
                start = reserved[job.id]
                width = job.processors if requests is None else requests[job.id]
                if start > now and fits_now(now, width, job.estimate, start, just_after) == now:
                    self._move(job, start, now)
                    moved = True
                    break

    def _admit(self, job: Job, now: float, entry: tuple[object, int, Job]) -> bool:
        """Move the higher-priority jobs the new one could delay; return whether any moved."""
        if self._static:
            queue = self._queue
            ahead = list(queue.islice(0, queue.bisect_left(entry)))
        else:
            ahead = []
            for e in self._ordered(now):
                if e[1] == entry[1]:
                    break
                ahead.append(e)
        if not ahead:
            return False
        profile = self._profile
        requests = self._requests
        p, d = (job.processors if requests is None else requests[job.id]), job.estimate

        def completion() -> float:
            return profile._earliest_fit(now, p, d) + d

        # The papers' loop, back to the head after every move; the long-queue path makes it
        # affordable on long queues (every job is a candidate at first, as each arrival changes the
        # limit of every search).
        return self._compress(now, ahead, None, cap=completion)
