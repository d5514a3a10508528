"""A simulation run in the compiled kernel and forked there: fair start times without the Python path.

:func:`~backfill.experiments.fair_start_times` forks a simulation at every arrival and runs each fork
until one job starts. Where the kernel runs the configuration whole (``backfill/kernel/_runs.py``),
:func:`compiled_simulation` gives it a :class:`CompiledSimulation` instead of a
:class:`~backfill.simulator.Simulator`: the same steps, forks and late deliveries that it uses, on a
kernel run, so that a fork is a copy of C arrays (the queue, the running jobs, the pending
completions and, for Conservative, PC and DC, the profile and the guarantees) and its instants run
in C. A fork taken for one job
(``last_arrival`` given) records no schedule, only when the job it watches starts. The decisions are
the Python path's (``tests/test_compiled_forks.py`` compares the fair start times both ways).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from backfill.errors import BackfillError
from backfill.workloads.workload import Workload

__all__ = ["CompiledSimulation", "PastMaxClock", "compiled_simulation"]


class Prepared(Protocol):
    """A :class:`~backfill.simulator.Simulator` as a compiled simulation uses it.

    Its workload and scheduler, the rows it rejected, its compiled run and the
    :class:`~backfill.schedule.Schedule` it makes of one: the kernel sits below the simulator and
    does not import it.
    """

    @property
    def workload(self) -> Workload: ...

    @property
    def scheduler(self) -> Any: ...

    @property
    def _bad(self) -> list[bool]: ...

    def _compiled_run(self) -> Any: ...

    def _compiled_result(self, run: Any) -> Any: ...


class PastMaxClock(Exception):
    """A compiled simulation reached an instant past ``MAX_CLOCK``: the Python path must run it.

    There the reference's scheduler refuses the completion at its door; the caller reruns on the
    Python path, which makes the same decisions up to there and raises the door's own error.
    """


class _Queued(Mapping[int, None]):
    """The queued jobs of a compiled simulation, by id: what ``Simulator.queued_jobs`` answers."""

    __slots__ = ("_run",)

    def __init__(self, run: Any) -> None:
        self._run = run

    def __len__(self) -> int:
        return int(self._run.queued())

    def __iter__(self) -> Iterator[int]:
        return iter(self._run.queued_ids())

    def __getitem__(self, job_id: int) -> None:
        if job_id not in self._run.queued_ids():
            raise KeyError(job_id)


class CompiledSimulation:
    """A kernel run driven as a :class:`~backfill.simulator.Simulator`, for fair start times.

    It has the part of the simulator's interface that ``fair_start_times`` uses: ``run_before``,
    ``step``, ``fork``, ``stop_recording``, ``queued_jobs``, ``now``, ``run`` and the row-level
    ``_run_until_row_started``, ``_deliver_late``, ``_next`` and ``_bad``. ``sim`` is the simulator
    that prepared the workload (never stepped); it is shared by every fork.
    """

    __slots__ = ("_delivered", "_run", "_sim")

    def __init__(self, sim: Prepared, run: Any, delivered: frozenset[int] = frozenset()) -> None:
        self._sim = sim
        self._run = run
        self._delivered = delivered  # rows delivered late (the run itself keeps no per-row state)

    @property
    def workload(self) -> Workload:
        """The simulated jobs."""
        return self._sim.workload

    @property
    def scheduler(self) -> Any:
        """The scheduler whose decisions the kernel makes (reset, never driven)."""
        return self._sim.scheduler

    @property
    def now(self) -> float:
        """The time of the last instant processed."""
        return float(self._run.now)

    @property
    def _next(self) -> int:
        return int(self._run.next_row)

    @property
    def _bad(self) -> list[bool]:
        return self._sim._bad

    @property
    def queued_jobs(self) -> Mapping[int, None]:
        """The ids of the jobs submitted and not yet started (a mapping, as the simulator's)."""
        return _Queued(self._run)

    def run_before(self, time: float) -> None:
        """Process every instant strictly before ``time``."""
        if not self._run.advance(time):
            raise PastMaxClock

    def step(self) -> bool:
        """Process the next instant; return False if nothing was left."""
        done = self._run.step()
        if done < 0:
            raise PastMaxClock
        return bool(done)

    def fork(self, *, last_arrival: int | None = None) -> CompiledSimulation:
        """An independent copy, as :meth:`Simulator.fork <backfill.simulator.Simulator.fork>`."""
        return CompiledSimulation(self._sim, self._run.fork(last_arrival), self._delivered)

    def stop_recording(self) -> None:
        """Record no more reservation changes."""
        self._run.stop_recording()

    def run(self) -> Any:
        """Run to the end; the :class:`~backfill.schedule.Schedule` since the fork (as ``Simulator.run``)."""
        self.run_before(math.inf)
        return self._sim._compiled_result(self._run)

    def _run_until_row_started(self, row: int) -> float:
        # Only a row that has not started yet may be asked for: the run notes one row's start.
        run = self._run
        run.watch(row)
        while math.isnan(run.watched):
            if not self.step():
                raise BackfillError(f"job {int(self.workload.records['id'][row])} never started")
        return float(run.watched)

    def _deliver_late(self, row: int) -> None:
        if row in self._delivered:
            raise BackfillError(f"row {row} cannot be delivered late")
        self._run.watch(row)
        try:
            self._run.deliver_late(row)
        except ValueError as e:
            raise BackfillError(str(e)) from None
        self._delivered |= {row}


def compiled_simulation(sim: Prepared) -> CompiledSimulation | None:
    """``sim`` (not yet stepped) as a compiled simulation, or None where the Python path must run it."""
    run = sim._compiled_run()
    return None if run is None else CompiledSimulation(sim, run)
