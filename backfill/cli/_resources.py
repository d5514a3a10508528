"""The ``--resources`` option of ``simulate`` and ``compare``: what is planned besides processors."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

import attrs

from backfill.cli.options import CommandLineError
from backfill.errors import BackfillError
from backfill.experiments.columns import is_resource_column, resource_of_column
from backfill.experiments.specs import SchedulerSpec, resource_specs
from backfill.measures.resource_use import held_back_column, utilization_column
from backfill.workloads.workload import Workload

__all__ = [
    "PROCESSORS_ONLY",
    "RESOURCES_HELP",
    "add_resources_option",
    "check_capacities",
    "check_resource_metrics",
    "processors_only_note",
    "resource_columns",
    "with_resources",
]

RESOURCES_HELP = (
    "resources to plan, comma-separated: processors (always planned) and memory (each job holds its "
    "processors x its requested memory per processor, SWF field 10, else its used memory, field 7). "
    "memory=SIZE: SIZE per processor times the machine's processors, SIZE in kB (as SWF counts) or "
    "with a binary unit, 512M, 1.5G; memory alone: the node memory documented for the log's machine "
    "(the table in docs/resources.md), refused for a log of any other machine. Each run with "
    "resources also reports held_back_<resource>, the seconds the oldest waiting job had its "
    "processors free but not that resource; default processors"
)


def add_resources_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--resources LIST`` (read by :func:`with_resources`)."""
    parser.add_argument("--resources", metavar="LIST", help=RESOURCES_HELP)


def with_resources(args: argparse.Namespace, specs: Sequence[SchedulerSpec]) -> list[SchedulerSpec]:
    """Return ``specs`` planning the ``--resources`` given; unchanged without the option.

    A spec that names its own resources (``--scheduler easy+memory=1G``) keeps them, as a parameter
    a spec gives itself wins over the option of the same name.

    Raises:
        CommandLineError: An unknown resource (naming the known ones), a size that is not one
            (negative, zero, an unknown unit), or a resource given twice.
    """
    text = getattr(args, "resources", None)
    if text is None:
        return list(specs)
    try:
        chosen = resource_specs(text)
    except BackfillError as e:
        raise CommandLineError(f"--resources {text}: {e}") from None
    return [spec if spec.resources else attrs.evolve(spec, resources=chosen) for spec in specs]


def check_capacities(
    args: argparse.Namespace, specs: Iterable[SchedulerSpec], workloads: Iterable[tuple[str, Workload]]
) -> None:
    """Refuse, before any simulation, resources without a capacity on a workload (none given or documented).

    Raises:
        CommandLineError: Naming the option and the workload (by its label, the first of each pair).
    """
    for spec in specs:
        for label, workload in workloads:
            try:
                spec.planned(workload)
            except BackfillError as e:
                raise CommandLineError(f"--resources {args.resources}: {label}: {e}") from None
        return  # every spec carries the same resources


def _planned_names(specs: Iterable[SchedulerSpec]) -> list[str]:
    """The names of the resources the specs plan, once each, in order."""
    return list(dict.fromkeys(r.name for spec in specs for r in spec.resources))


def resource_columns(specs: Iterable[SchedulerSpec]) -> list[str]:
    """The columns of the resources the specs plan: ``utilization_memory``, ``held_back_memory``, ..."""
    return [c for name in _planned_names(specs) for c in (utilization_column(name), held_back_column(name))]


def check_resource_metrics(metrics: Iterable[str], specs: Iterable[SchedulerSpec]) -> None:
    """Refuse a ``--metric utilization_<name>`` of a resource the runs do not plan.

    Raises:
        CommandLineError: Naming the metric and the option that plans the resource.
    """
    planned = set(resource_columns(specs))
    for metric in metrics:
        if is_resource_column(metric) and metric not in planned:
            name = resource_of_column(metric)
            raise CommandLineError(f"--metric {metric}: the runs do not plan {name} (see --resources)")


#: Measures that count processors only, whatever else the runs plan: per-user shares
#: (:mod:`backfill.measures.usershares`) and fair shares (:mod:`backfill.measures.fairshare`).
PROCESSORS_ONLY = ("fair_share_unfairness", "weighted_fair_share_unfairness", "under_shared", "over_shared")


def processors_only_note(metrics: Iterable[str], specs: Iterable[SchedulerSpec]) -> str:
    """The note a table needs when a measure chosen counts processors only and the runs plan more.

    Examples:
        >>> processors_only_note(["mean_wait", "over_shared"], [SchedulerSpec("EASY", resources="memory")])
        'note: over_shared counts processors only, not memory'
    """
    counted = [m for m in dict.fromkeys(metrics) if m in PROCESSORS_ONLY]
    planned = _planned_names(specs)
    if not counted or not planned:
        return ""
    verb = "counts" if len(counted) == 1 else "count"
    return f"note: {', '.join(counted)} {verb} processors only, not {', '.join(planned)}"
