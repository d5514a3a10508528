"""AccaSim drives a backfill scheduler: a simulator nobody here wrote, deciding with ours.

`AccaSim <https://accasim.readthedocs.io>`_ 1.1.3 (``pip install '.[accasim]'``) simulates a machine
of nodes from a system configuration (groups of nodes with cores, memory, GPUs) and an SWF workload,
and asks a *dispatcher* (a scheduler and an allocator) which queued jobs start at each of its time
points and on which nodes. :class:`BackfillDispatcher` is such a dispatcher, whose decisions come from
any backfill :class:`~backfill.schedulers.Scheduler`; :func:`run_accasim` runs a whole
:class:`~backfill.Workload` through AccaSim with it and returns a :class:`~backfill.schedule.Schedule`
read from AccaSim's own record of each job, so that ``same_schedule``, ``validate_schedule`` and the
metrics judge it as they judge ``simulate``'s.

The machine is backfill's :class:`~backfill.workloads.nodes.Machine`; the mapping to AccaSim's (node
names, resource names, how an SWF job becomes AccaSim's request) is in :func:`system_config`,
:func:`accasim_node`, :func:`node_id` and :func:`accasim_resource`, the one place the two models
meet. On one-core nodes, and on nodes of several cores without memory, AccaSim's machine is
backfill's pool of processors and the schedules are equal to ``simulate``'s; docs/how-to/accasim.md
has the measured comparison and the differences where the models part.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

from backfill.errors import ParameterError
from backfill.hosts._accasim_dispatch import ALLOCATORS, AllocationLike, BackfillDispatcher, Placing
from backfill.hosts._accasim_machine import (
    ACCASIM_NAMES,
    ACCASIM_VERSION,
    accasim_node,
    accasim_resource,
    import_accasim,
    node_id,
    one_core_nodes,
    system_config,
)
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import Scheduler, scheduler_name
from backfill.simulator import Simulator
from backfill.workloads.nodes import Machine, tasks_request
from backfill.workloads.workload import Job, Workload

__all__ = [
    "ACCASIM_NAMES",
    "ACCASIM_VERSION",
    "ALLOCATORS",
    "AllocationLike",
    "BackfillDispatcher",
    "Placing",
    "accasim_node",
    "accasim_resource",
    "import_accasim",
    "node_id",
    "one_core_nodes",
    "run_accasim",
    "system_config",
]

#: The name of the workload file given to AccaSim (and of its outputs, which add a prefix).
WORKLOAD_FILE = "workload.swf"


def run_accasim(
    workload: Workload,
    scheduler: Scheduler,
    *,
    machine: Machine | None = None,
    allocator: object = "accasim",
    workdir: str | Path | None = None,
) -> Schedule:
    """Run a workload through AccaSim with ``scheduler`` deciding; the schedule AccaSim recorded.

    The jobs ``simulate`` rejects (wider than the machine, no processors, an unknown runtime, more
    of a resource than the scheduler's capacity) are left out with the same reasons, and so are the
    jobs no placement on the nodes can ever hold (:meth:`~backfill.workloads.nodes.Machine.refusal`);
    estimates are raised to runtimes as ``simulate`` does by default, so the two can be compared
    with ``same_schedule``. The other jobs are written to an SWF file that AccaSim's own reader reads.

    Args:
        workload: The jobs; submit times and runtimes in whole seconds (AccaSim reads integers), and
            ``workload.machine_size`` equal to the machine's cores.
        scheduler: Any object satisfying the Scheduler protocol; it is reset and driven, as
            ``simulate`` drives it.
        machine: The nodes (a :class:`~backfill.workloads.nodes.Machine` whose request is
            ``tasks_request``, the default); by default ``workload.machine_size`` nodes of one core.
        allocator: ``"accasim"`` (AccaSim's FirstFit), an AccaSim allocator object, or
            ``"backfill"`` (the scheduler's ``allocation(job_id)`` places each job it starts).
        workdir: A folder to keep AccaSim's input (``workload.swf``, ``system.json``) and outputs
            (``results/``: its dispatching plan ``sched-workload.swf``, one line per job with its
            nodes, and its statistics). By default AccaSim writes no outputs and its input goes to a
            temporary folder, removed after the run.

    Returns:
        The schedule, with starts and ends from AccaSim's job records and the scheduler's
        reservation log.

    Raises:
        ParameterError: A bad scheduler, allocator or machine, or times that are not whole seconds.
        ScheduleError: A started job that the allocator cannot place, or a scheduler that breaks the
            protocol; the message names the job and the time.
        BackfillError: AccaSim is not installed.

    Examples:
        >>> import accasim  # the extra: pip install '.[accasim]'
        >>> from backfill import EASY, Job, same_schedule, simulate
        >>> jobs = [Job(id=i, submit=float(i), processors=2, runtime=10.0, estimate=20.0) for i in range(4)]
        >>> w = Workload.from_jobs(jobs, machine_size=4)
        >>> run_accasim(w, EASY()).start.tolist()
        [0.0, 1.0, 10.0, 11.0]
        >>> same_schedule(run_accasim(w, EASY()), simulate(w, EASY()))
    """
    if not isinstance(scheduler, Scheduler):
        raise ParameterError(f"the scheduler must satisfy backfill's Scheduler protocol, got {scheduler!r}")
    machine = one_core_nodes(workload.machine_size) if machine is None else machine
    config = system_config(machine)  # refuses what is not a Machine AccaSim can run
    if machine.cores != workload.machine_size:
        raise ParameterError(
            f"the machine has {machine.cores} cores but the workload's machine size is "
            f"{workload.machine_size} processors; the scheduler plans the cores"
        )
    accasim = import_accasim()
    # simulate's own plan of the run: the jobs it rejects and the estimates it shows the scheduler.
    plan = Simulator(workload, scheduler.copy(), record_reservations=False).result()
    rejected = dict(plan.rejected)
    jobs = _jobs(workload, plan, machine, rejected)
    offset = _offset(jobs)
    first = float(workload.column("submit")[0]) if len(workload) else 0.0
    dispatcher = BackfillDispatcher(scheduler, machine, jobs, allocator=allocator, offset=offset, start=first)
    if not jobs:
        # AccaSim's loop fails on a workload of no job (its clock is never set): nothing to run.
        return Schedule.from_starts(workload, {}, name=scheduler_name(scheduler), rejected=rejected)
    with _folder(workdir) as folder:
        swf = folder / WORKLOAD_FILE
        swf.write_text("".join(_swf_line(aid, job, offset, machine) for aid, (_, job) in jobs.items()))
        (folder / "system.json").write_text(json.dumps(config))
        with _quiet_logger():
            simulator = accasim.base.simulator_class.Simulator(
                str(swf),
                str(folder / "system.json"),
                dispatcher,
                RESULTS_FOLDER_PATH=str(folder / "results"),
                LOG_LEVEL="ERROR",
                show_statistics=False,
                # AccaSim's writers flush through a forked process each (0.5 s a run): only for a
                # folder the caller keeps.
                scheduling_output=workdir is not None,
                statistics_output=workdir is not None,
            )
            simulator.start_simulation()
    start, end, order = dispatcher.times()
    rejected.update(dispatcher.rejected)
    return Schedule.from_starts(
        workload,
        start,
        end,
        name=scheduler_name(scheduler),
        reservations=dispatcher.log,
        estimate=plan.estimate,
        rejected=rejected,
        start_order=order,
        resources=getattr(scheduler, "resources", ()),
    )


def _jobs(
    workload: Workload, plan: Schedule, machine: Machine, rejected: dict[int, str]
) -> dict[str, tuple[int, Job]]:
    """The jobs AccaSim is given, by its id (row + 1), with their rows and the estimates simulate shows.

    A job no placement on the nodes can ever hold is left out with :meth:`Machine.refusal`'s reason
    (AccaSim's own check would reject it too), added to ``rejected``.
    """
    estimates = plan.estimate.tolist()
    jobs: dict[str, tuple[int, Job]] = {}
    for row, job in enumerate(workload):
        if job.id in rejected:
            continue
        for field in ("submit", "runtime"):
            if getattr(job, field) != int(getattr(job, field)):
                raise ParameterError(
                    f"job {job.id}: AccaSim reads whole seconds, but its {field} is {getattr(job, field)}"
                )
        refusal = machine.refusal(tasks_request(job))
        if refusal is not None:
            rejected[job.id] = refusal
            continue
        if estimates[row] != job.estimate:
            job = attrs.evolve(job, estimate=estimates[row])
        jobs[str(row + 1)] = (row, job)
    return jobs


def _offset(jobs: dict[str, tuple[int, Job]]) -> int:
    """AccaSim's clock minus ours: its clock starts 1 s before the first job and takes 0 for unset."""
    first = min((job.submit for _, job in jobs.values()), default=2.0)
    return 2 if first < 2 else 0


def _swf_line(aid: str, job: Job, offset: int, machine: Machine) -> str:
    """One SWF line for AccaSim: its id, the submit time on its clock, runtime, width, estimate, memory."""
    memory = -1
    if "memory" in machine.resources:
        # Always a number (AccaSim decides from the first job whether jobs ask memory at all), and
        # the memory of a task as backfill's node model reads it, rounded up to a whole kB.
        memory = tasks_request(job).amount("memory")
    fields = [
        aid,
        int(job.submit) + offset,
        -1,
        int(job.runtime),
        job.processors,
        -1,
        -1,
        job.processors,
        int(job.estimate),
        memory,
        1,
        job.user,
        job.group,
        -1,
        job.queue,
        job.partition,
        -1,
        -1,
    ]
    return " ".join(map(str, fields)) + "\n"


@contextmanager
def _folder(workdir: str | Path | None) -> Iterator[Path]:
    if workdir is not None:
        folder = Path(workdir)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="backfill-accasim-") as name:
        yield Path(name)


@contextmanager
def _quiet_logger() -> Iterator[None]:
    """Take back the handlers each AccaSim Simulator adds to the 'accasim' logger, and its level."""
    logger = logging.getLogger("accasim")
    handlers, level = list(logger.handlers), logger.level
    try:
        yield
    finally:
        for handler in logger.handlers[len(handlers) :]:
            logger.removeHandler(handler)
        logger.setLevel(level)
