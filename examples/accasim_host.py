"""AccaSim drives backfill's schedulers: the same schedules as backfill.simulate, where the models agree.

AccaSim 1.1.3 (a simulator of machines of nodes, not written here) reads the workload as an SWF file
and asks a dispatcher which jobs start at each of its time points, and on which nodes; the
dispatcher here is ``backfill.hosts.BackfillDispatcher``, whose decisions come from a backfill
scheduler, and whose jobs AccaSim's FirstFit allocator places on the nodes. For each of FCFS, EASY,
Conservative, PC and DC, the script runs the workload through AccaSim and through
``backfill.simulate``, validates AccaSim's schedule, compares the two job by job (starts, ends,
rejections, reservation logs) and times both, and ``simulate``'s Python path (a ``Simulator`` run by
hand, where the scheduler object decides, as under AccaSim) besides its compiled run.

By default the workload is 300 jobs of the embedded Lublin-Feitelson model on 32 one-core nodes;
``--trace`` takes the first ``--jobs`` jobs of an SWF log instead, and ``--cores`` makes nodes of that
many cores (AccaSim packs an SWF job's processors onto any nodes with free cores, so without memory
the machine is still backfill's pool).

Run: python examples/accasim_host.py [--trace FILE.swf.gz] [--jobs N] [--cores C]
     (needs AccaSim: pip install '.[accasim]')
"""

from __future__ import annotations

import argparse
import time

import backfill
from backfill import DC, EASY, FCFS, PC, Conservative, Workload, same_schedule, sjf, validate_schedule
from backfill.hosts import run_accasim
from backfill.workloads.nodes import Machine, NodeGroup
from backfill.workloads.swf import read_swf


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help="an SWF log (default: the Lublin-Feitelson model)")
    parser.add_argument("--jobs", type=int, default=2000, help="the first N jobs of the trace")
    parser.add_argument("--cores", type=int, default=1, help="cores per node")
    args = parser.parse_args(argv)
    if args.trace:
        full, _ = read_swf(args.trace)
        workload = Workload.from_jobs(full[: args.jobs], machine_size=full.machine_size)
        source = f"the first {len(workload)} jobs of {args.trace.rsplit('/', 1)[-1]}"
    else:
        workload = backfill.lublin_feitelson(300, machine_size=32, seed=4, estimates="f-model")
        source = f"{len(workload)} Lublin-Feitelson jobs"
    if workload.machine_size % args.cores:
        parser.error(f"--cores {args.cores} does not divide the machine's {workload.machine_size} processors")
    machine = Machine((NodeGroup(workload.machine_size // args.cores, args.cores),))
    print(f"{source}, {machine.node_count} nodes of {args.cores} core(s), AccaSim's FirstFit placing")
    for scheduler in (FCFS(), EASY(), Conservative(), PC(sjf), DC(sjf)):
        began = time.perf_counter()
        hosted = run_accasim(workload, scheduler.copy(), machine=machine)
        in_accasim = time.perf_counter() - began
        began = time.perf_counter()
        reference = backfill.simulate(workload, scheduler)
        in_simulate = time.perf_counter() - began
        # A Simulator run by hand takes the Python path, where the scheduler decides as under AccaSim.
        began = time.perf_counter()
        backfill.Simulator(workload, scheduler.copy()).run()
        in_python = time.perf_counter() - began
        validate_schedule(hosted)
        same_schedule(hosted, reference, reservations=True)  # raises at the first difference
        started = int(hosted.started.sum())
        print(
            f"{hosted.scheduler}: {started} jobs started, {len(hosted.rejected)} rejected, "
            f"{len(hosted.reservations)} reservation changes; the same schedule as simulate; "
            f"AccaSim {in_accasim:.2f} s, simulate {in_simulate * 1000:.1f} ms ({reference.path}), "
            f"{in_python * 1000:.0f} ms (python)"
        )


if __name__ == "__main__":
    main()
