"""Resources a sweep or the command line plans, as data: a name and a capacity rule per processor.

Private to :mod:`backfill.experiments.specs`, which exports :class:`ResourceSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from backfill.errors import BackfillError
from backfill.workloads.resources import Resource, default_capacity, memory_request
from backfill.workloads.sizes import memory_size, memory_text
from backfill.workloads.workload import Job, Workload

__all__ = ["RESOURCE_RULES", "ResourceSpec", "memory_size", "memory_text", "resource_specs"]

#: The resources a :class:`ResourceSpec` can name, each with the rule giving a job's amount.
RESOURCE_RULES: dict[str, Callable[[Job], int]] = {"memory": memory_request}


def _known_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value not in RESOURCE_RULES:
        raise BackfillError(f"unknown resource {value!r}; known: processors, {', '.join(RESOURCE_RULES)}")


def _per_processor(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise BackfillError(f"a resource's capacity per processor must be an int >= 1 or None, got {value!r}")


@attrs.frozen
class ResourceSpec:
    """A resource to plan besides processors, by name, with its capacity per processor of the machine.

    The capacity is ``per_processor`` times the machine's processors; with ``per_processor=None``
    it is the documented capacity of the machine the workload comes from
    (:func:`~backfill.workloads.resources.default_capacity`: the node memory its description gives,
    per processor), and a workload of a machine without one is refused: give a size.

    Args:
        name: A key of ``RESOURCE_RULES``: ``memory`` (in kB, each job holding
            :func:`~backfill.workloads.resources.memory_request`).
        per_processor: Units per processor of the machine (kB for memory), or None for the default.

    Examples:
        >>> from backfill import Job, Workload
        >>> job = Job(id=1, submit=0.0, processors=2, runtime=1.0, estimate=1.0, requested_memory=100.5)
        >>> ResourceSpec.parse("memory=1K").resource(Workload.from_jobs([job], machine_size=8))  # 1 kB x 8
        Resource(name='memory', capacity=8, request=memory_request)
        >>> ResourceSpec.parse("memory=1G").label, ResourceSpec.parse("memory=1G").per_processor
        ('memory=1G', 1048576)
        >>> ResourceSpec.parse("memory=1536M").label, ResourceSpec.parse("memory=150").label
        ('memory=1.5G', 'memory=150')
    """

    name: str = attrs.field(validator=_known_name)
    per_processor: int | None = attrs.field(default=None, validator=_per_processor)

    @classmethod
    def parse(cls, text: str) -> ResourceSpec:
        """Return the spec of ``NAME`` or ``NAME=SIZE`` (a size per processor, :func:`memory_size`).

        Raises:
            BackfillError: An unknown name, ``processors`` (always planned; its capacity is the
                machine's size) or a size that is not one.
        """
        if not isinstance(text, str):
            raise BackfillError(f"a resource is named by text such as memory or memory=1.5G, got {text!r}")
        name, eq, size = (part.strip() for part in text.partition("="))
        if name == "processors":
            raise BackfillError("processors are always planned; their capacity is the machine's size")
        _known_name(None, attrs.fields(cls).name, name)
        if eq and not size:
            raise BackfillError(f"{name}= needs a size per processor, such as {name}=1.5G")
        return cls(name, memory_size(size) if eq else None)

    @property
    def label(self) -> str:
        """The spec as text, ``memory`` or ``memory=1.5G`` (:func:`memory_text`), as :meth:`parse` reads it.

        The one way a resource is written: in the ``scheduler`` column, tables and file names alike.
        """
        return self.name if self.per_processor is None else f"{self.name}={memory_text(self.per_processor)}"

    def identity(self) -> list[Any]:
        """What a cell's result depends on, as JSON-able data: the name and the size per processor.

        Without a size, ``"documented"``: the capacity comes from
        :func:`~backfill.workloads.resources.default_capacity` (a cell cached when the default was
        the largest request per processor, under ``None``, is not read back as one of these).
        """
        return [self.name, "documented" if self.per_processor is None else self.per_processor]

    def resource(self, workload: Workload) -> Resource:
        """Return the :class:`~backfill.workloads.resources.Resource` of this spec on ``workload``'s machine.

        Raises:
            ParameterError: No size given and none documented for the workload's machine (naming
                the log), or a capacity of 2**62 or more.
        """
        if self.per_processor is None:
            capacity = default_capacity(self.name, workload)
        else:
            capacity = self.per_processor * workload.machine_size
        return Resource(self.name, capacity, RESOURCE_RULES[self.name])


def resource_specs(value: str | Iterable[str | ResourceSpec]) -> tuple[ResourceSpec, ...]:
    """Return resource specs from ``processors,memory=1.5G`` or from specs and texts, refusing repeats.

    ``processors`` alone (without a size) may be listed: processors are always planned.

    Raises:
        BackfillError: An empty item, an unknown resource, a bad size, or a resource named twice.

    Examples:
        >>> [r.label for r in resource_specs("processors,memory=2G")]
        ['memory=2G']
        >>> resource_specs("processors")
        ()
        >>> resource_specs("memory,gpus")
        Traceback (most recent call last):
        ...
        backfill.errors.BackfillError: unknown resource 'gpus'; known: processors, memory
    """
    items: Iterable[str | ResourceSpec] = value.split(",") if isinstance(value, str) else value
    if isinstance(value, ResourceSpec) or not isinstance(items, Iterable):
        raise BackfillError(f"resources are a list of names or ResourceSpec objects, got {value!r}")
    out: list[ResourceSpec] = []
    for item in items:
        if isinstance(item, str) and item.strip() == "processors":
            continue
        if isinstance(item, str) and not item.strip():
            raise BackfillError(f"an empty resource name in {value!r}")
        spec = item if isinstance(item, ResourceSpec) else ResourceSpec.parse(item)
        if any(spec.name == other.name for other in out):
            raise BackfillError(f"the resource {spec.name!r} is given twice")
        out.append(spec)
    return tuple(out)
