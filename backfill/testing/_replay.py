"""The kit's checks of a run as it goes: its reservation log against ``reservations()``, and its copies.

:class:`LogReplay` steps a simulation and compares, after every instant, the reservation log replayed
with what the scheduler's ``reservations()`` answers; :func:`take_forks` and :func:`check_fork` fork
the simulation mid-run and check that each copy continues as the original did.
"""

from __future__ import annotations

import math

import numpy as np

from backfill.errors import BackfillError, ScheduleError
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import scheduler_name
from backfill.simulator import Simulator

__all__ = ["LogReplay", "check_fork", "take_forks"]


class LogReplay:
    """Steps a simulation, checking after each instant that its log says what ``reservations()`` says.

    The log replayed (each change set, NaN removing, a started job's reservation ending) must give
    exactly the scheduler's reservations of its queued jobs.
    """

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.held: dict[int, float] = {}
        self.read = 0
        # The first disagreement, reported once the run and its feasibility check passed: a
        # scheduler that starts jobs it should not is told that first.
        self.disagreement: str | None = None

    def step(self) -> bool:
        """Run the next instant and check it; return False if nothing was left."""
        if not self.sim.step():
            return False
        self.check()
        return True

    def check(self) -> None:
        sim = self.sim
        log = sim._log  # the library's own simulator: its log as recorded so far, flat triples
        held = self.held
        for i in range(self.read, len(log), 3):
            job_id, start = int(log[i + 1]), log[i + 2]
            if math.isnan(start):
                held.pop(job_id, None)
            else:
                held[job_id] = start
        self.read = len(log)
        queued = sim.queued_jobs
        for job_id in [j for j in held if j not in queued]:
            del held[job_id]
        said = dict(sim.scheduler.reservations())
        if said != held and self.disagreement is None:
            self.disagreement = _disagreement(scheduler_name(sim.scheduler), sim.now, held, said)


def _disagreement(name: str, now: float, logged: dict[int, float], said: dict[int, float]) -> str:
    """Say how the reservation log and ``reservations()`` differ at ``now``, for the first job."""
    job = min(j for j in logged.keys() | said.keys() if logged.get(j) != said.get(j))

    def held(where: dict[int, float]) -> str:
        return f"at {where[job]:g}" if job in where else "no reservation"

    return (
        f"{name}: at {now:g} the reservation log and reservations() disagree: the log leaves job {job} "
        f"with {held(logged)}, reservations() gives it {held(said)}; a scheduler whose class sets "
        "logs_reservations = True must note every change with note_reservation() (math.nan when a "
        "queued job loses its reservation), or leave it unset to be logged by comparing reservations()"
    )


def take_forks(sim: Simulator, forks: int, log: LogReplay | None = None) -> list[tuple[float, Simulator]]:
    """Fork the simulation ``forks`` times; return the (instant, fork) pairs.

    The k-th fork is taken right after the first instant that leaves a job waiting once
    ``k / (forks + 1)`` of the jobs have arrived.
    """
    submit = sim.workload.column("submit")
    n = len(submit)
    taken: list[tuple[float, Simulator]] = []
    for k in range(1, forks + 1):
        # Between instants, once the k-th share of the jobs has arrived and one of them waits: the
        # scheduler then holds a queue, running jobs and whatever state of its own they left.
        share = float(submit[max(n * k // (forks + 1) - 1, 0)]) if n else math.inf
        step = sim.step if log is None else log.step
        while (sim.now < share or not sim.queued_jobs) and step():
            pass
        if sim.next_time() is None:
            break
        if not taken or taken[-1][0] < sim.now:
            taken.append((sim.now, sim.fork()))
    return taken


def check_fork(original: Schedule, at: float, fork: Simulator) -> None:
    """Raise :class:`~backfill.ScheduleError` unless a fork taken after ``at`` ran as the original did."""
    name = original.scheduler
    try:
        copied = fork.run()
        detail = _first_start_difference(original, copied, at) or _first_log_difference(original, copied, at)
    except BackfillError as error:
        detail = f"the copy failed: {error}"
    except Exception as error:  # a scheduler whose copy crashes is caught the same way
        detail = f"the copy raised {error!r}"
    if detail is not None:
        raise ScheduleError(
            f"{name}: a copy of the scheduler taken after {at:g} (as Simulator.fork and fair_start_times "
            f"take one) did not continue as the original: {detail}; copy() must carry all of the "
            "scheduler's state and share no mutable part of it with the original (see SchedulerBase.copy)"
        )


def _when(start: float) -> str:
    return "never" if math.isnan(start) else f"at {start:g}"


def _first_start_difference(original: Schedule, copied: Schedule, at: float) -> str | None:
    """Describe the earliest job the fork started at another time than the original did, if any."""
    a, f = original.start, copied.start
    after = ~np.isnan(a) & (a > at)
    differ = (after != ~np.isnan(f)) | (after & (a != f))
    if not differ.any():
        return None
    first = np.fmin(np.where(after, a, np.inf), np.where(np.isnan(f), np.inf, f))
    row = int(np.flatnonzero(differ)[np.argmin(first[differ])])
    job = int(original.workload.column("id")[row])
    return f"job {job} started {_when(float(f[row]))} in the copy and {_when(float(a[row]))} in the original"


def _first_log_difference(original: Schedule, copied: Schedule, at: float) -> str | None:
    """Describe the earliest reservation change the fork and the original made differently, if any."""
    logs = []
    for log in (original.reservations, copied.reservations):
        log = log[log["time"] > at]
        logs.append(log[np.lexsort((log["job_id"], log["time"]))])
    a, f = logs
    n = min(len(a), len(f))
    same = (a["time"][:n] == f["time"][:n]) & (a["job_id"][:n] == f["job_id"][:n])
    same &= (a["start"][:n] == f["start"][:n]) | (np.isnan(a["start"][:n]) & np.isnan(f["start"][:n]))
    if same.all() and len(a) == len(f):
        return None
    i = int(np.argmin(same)) if not same.all() else n
    # The earliest (time, job) at which the two logs part.
    keys = [(float(t), int(j)) for t, j, _ in (a[i : i + 1].tolist() + f[i : i + 1].tolist())]
    time, job = min(keys)
    return f"at {time:g} the copy {_change(f, time, job)} and the original {_change(a, time, job)}"


def _change(log: np.ndarray, time: float, job: int) -> str:
    """What a log did to a job's reservation at an instant, in words."""
    mine = log[(log["time"] == time) & (log["job_id"] == job)]
    if not len(mine):
        return f"left job {job}'s reservation as it was"
    start = float(mine["start"][-1])
    return f"withdrew job {job}'s reservation" if math.isnan(start) else f"reserved {start:g} for job {job}"
