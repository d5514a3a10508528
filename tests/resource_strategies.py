"""Workloads that ask for memory and GPUs, and the resource sets the multi-resource tests run over."""

from __future__ import annotations

from hypothesis import strategies as st

from backfill.workloads.resources import Resource
from backfill.workloads.workload import Job, Workload

__all__ = ["GPUS", "MEMORY", "gpus", "resource_sets", "resource_workloads"]


def gpus(job: Job) -> int:
    """The tests' second resource: GPUs, read from the (otherwise unused) executable field."""
    return max(job.executable, 0)


#: 16 units of memory (kB) and 3 GPUs: small, so that both bind often.
MEMORY = Resource.memory(16)
GPUS = Resource("gpus", 3, gpus)
#: The resources planned besides processors, by the number of resources in all (1: processors alone).
resource_sets: dict[int, tuple[Resource, ...]] = {1: (), 2: (MEMORY,), 3: (MEMORY, GPUS)}


@st.composite
def resource_workloads(
    draw: st.DrawFn, resources: tuple[Resource, ...], max_jobs: int = 18, machine_size: int | None = None
) -> Workload:
    """Jobs asking processors, memory (0-5 kB per processor) and GPUs (0-4), some more than the machine has.

    Submit times in 0..30 and runtimes in 0..30 make arrivals and ends coincide; estimates exceed
    runtimes by 0..20 s, so early ends make the schedulers compress.
    """
    size = machine_size or draw(st.integers(1, 8))
    jobs = []
    for i in range(draw(st.integers(0, max_jobs))):
        runtime = draw(st.integers(0, 30))
        jobs.append(
            Job(
                id=i + 1,
                submit=float(draw(st.integers(0, 30))),
                processors=draw(st.integers(1, size)),
                runtime=float(runtime),
                estimate=float(runtime + draw(st.integers(0, 20))),
                requested_memory=float(draw(st.integers(0, 5))),
                executable=draw(st.integers(0, 4)),
            )
        )
    jobs.sort(key=lambda j: j.submit)
    jobs = [Job(**{**_fields(j), "id": k + 1}) for k, j in enumerate(jobs)]
    return Workload.from_jobs(jobs, size)


def _fields(job: Job) -> dict[str, object]:
    return {
        name: getattr(job, name)
        for name in ("submit", "processors", "runtime", "estimate", "requested_memory", "executable")
    }
