"""The placing side of a scheduler on a node machine, shared by every scheduler through SchedulerBase.

A scheduler built with ``nodes=Machine(...)`` takes each job's request by the machine's rule as a
:class:`~backfill.profile.demand.Demand`, refuses at its door a request that no placement can ever
hold, and answers :meth:`NodePlacing.allocation` for every job it started: the optional placing
extension of the protocol (:class:`~backfill.schedulers.machinery.protocol.Placing`).
"""

from __future__ import annotations

from typing import Any

import attrs

from backfill.errors import ParameterError, ScheduleError
from backfill.profile.demand import Demand
from backfill.profile.nodes import NodeProfile, placement_refusal, zero_length_allocation
from backfill.schedulers.machinery.protocol import scheduler_name
from backfill.workloads.nodes import Allocation, Machine, NodeRequest
from backfill.workloads.workload import Job

__all__ = ["NodePlacing"]


def is_machine(instance: Any, attribute: attrs.Attribute[Any], value: object) -> None:
    """Attrs validator of ``nodes``: a Machine or None, and never beside ``resources``."""
    if value is not None and not isinstance(value, Machine):
        raise ParameterError(
            f"{type(instance).__name__}.nodes must be a Machine of node groups or None, got {value!r}"
        )
    if value is not None and instance.resources:  # (validated before nodes: declared first)
        raise ParameterError(
            f"{type(instance).__name__}: nodes and resources are two models of one machine; on a node "
            "machine, memory, GPUs and other amounts are the node groups' (Machine.parse('8x8,memory=12G'))"
        )


def is_placement(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Attrs validator of ``placement``: a callable."""
    if not callable(value):
        raise ParameterError(
            f"{type(instance).__name__}.placement must be a callable (room, count) -> take, got {value!r}"
        )


class NodePlacing:
    """What every scheduler does on a node machine: its demands, and the allocations it gives.

    A mixin of :class:`~backfill.schedulers.machinery.base.SchedulerBase`, which declares the
    attributes it reads (``nodes``, ``placement``, ``_requests``, ``_now``).
    """

    __slots__ = ()
    nodes: Machine | None
    placement: Any
    _requests: dict[int, Any] | None
    _now: float

    def _demand(self, job: Job) -> Demand:
        """A job's demand on the node machine, from the machine's request rule, checked.

        Raises:
            ScheduleError: If the rule does not give a NodeRequest, or no placement can ever hold it.
        """
        machine = self.nodes
        assert machine is not None
        try:
            request = machine.request(job)
        except Exception as e:  # a user's rule: its error, named
            raise ScheduleError(
                f"{scheduler_name(self)}: the node request rule failed on job {job.id}: {e}"
            ) from e
        if not isinstance(request, NodeRequest):
            raise ScheduleError(
                f"{scheduler_name(self)}: the node request rule gave {request!r} for job {job.id}, "
                "not a NodeRequest"
            )
        why = placement_refusal(machine, self.placement, request)
        if why is not None:
            raise ScheduleError(
                f"{scheduler_name(self)}: job {job.id} {why}; a host rejects such jobs before submitting them"
            )
        return Demand.of(job.id, machine, request)

    def allocation(self, job_id: int) -> Allocation | None:
        """The nodes a running job holds, and its amounts on each; None on a pool machine.

        The optional placing extension of the protocol
        (:class:`~backfill.schedulers.machinery.protocol.Placing`): a host that places jobs asks
        it for every job :meth:`schedule` started, before the next call. A job of zero estimate
        holds nothing over time; its allocation is where the policy places it on what is free at
        its start. O(N r) for N nodes, r resources.

        Raises:
            ScheduleError: On a node machine, if the job is not running.
        """
        machine = self.nodes
        if machine is None:
            return None
        profile = self._placing_profile()
        place = None if profile is None else profile.placement(job_id)
        if place is not None:
            return Allocation(place[0], place[1], machine.resources)
        requests_ = self._requests
        demand = None if requests_ is None else requests_.get(job_id)
        if demand is None or profile is None or not self._is_running(job_id):
            raise ScheduleError(f"{scheduler_name(self)}: job {job_id} is not running; it has no allocation")
        return zero_length_allocation(profile, demand, self._now, machine)

    def _placing_profile(self) -> NodeProfile | None:
        """The node profile holding the running jobs' placements: by default the class's ``_profile``."""
        profile = getattr(self, "_profile", None)
        if isinstance(profile, NodeProfile):
            return profile
        running = getattr(self, "_running_nodes", None)
        return running if isinstance(running, NodeProfile) else None

    def _is_running(self, job_id: int) -> bool:
        running = getattr(self, "_running", None)
        return running is not None and job_id in running
