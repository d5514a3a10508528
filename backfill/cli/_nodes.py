"""The ``--nodes`` and ``--placement`` options of ``simulate`` and ``compare``: a machine of nodes.

Private to :mod:`backfill.cli`. ``--nodes`` gives the machine as groups of identical nodes
(:meth:`~backfill.workloads.nodes.NodeGroup.parse`), every job placed on them by ``--placement``
(:data:`~backfill.profile.placement.PLACEMENTS`); ``--resources`` plans pools instead, so the two
exclude each other.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import attrs

from backfill.cli.options import ORDER_HINT, CommandLineError, looks_like_workload
from backfill.errors import ParameterError
from backfill.experiments.specs import SchedulerSpec
from backfill.profile.placement import PLACEMENTS
from backfill.workloads.batsim import is_batsim_path
from backfill.workloads.nodes import Machine, NodeGroup, tasks_request
from backfill.workloads.request_table import RequestTable, read_batsim_requests

__all__ = ["NODES_HELP", "PLACEMENT_HELP", "add_nodes_options", "machine_line", "with_nodes"]

NODES_HELP = (
    "place every job on a machine of nodes instead of a pool of processors: one GROUP per group of "
    "identical nodes (several: a heterogeneous machine), each COUNTxCORES[,memory=SIZE][,gpus=N]"
    "[,NAME=N...] per node (128x8,memory=12G,gpus=4; SIZE in kB or 512M, 1.5G). An SWF job asks its "
    "processors as one-core tasks, each with its memory per processor (field 10, else 7) where "
    "some group states memory; a job no placement can hold is rejected, with its reason. The "
    "machine's cores replace the workload's processors; a Batsim workload's jobs may state their "
    "own (nodes, tasks_per_node, cores_per_task, memory_per_node, gpus_per_node, exclusive, ...). "
    "Not with --resources or --partitions"
)
PLACEMENT_HELP = (
    f"with --nodes: which nodes a job gets, {', '.join(PLACEMENTS)} (node-id order; fullest nodes "
    "first; consecutive nodes only); default first_fit"
)


def add_nodes_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--nodes GROUP [GROUP ...]`` and ``--placement NAME`` (read by :func:`with_nodes`)."""
    parser.add_argument("--nodes", nargs="+", action="extend", metavar="GROUP", help=NODES_HELP)
    parser.add_argument("--placement", choices=list(PLACEMENTS), metavar="NAME", help=PLACEMENT_HELP)


def _machine(texts: Sequence[str]) -> Machine:
    """The machine of the ``--nodes`` groups, each read by :meth:`NodeGroup.parse`, in their order.

    Repeats are kept: two equal groups are twice the nodes.
    """
    groups = []
    for text in texts:
        try:
            groups.append(NodeGroup.parse(text))
        except ParameterError as e:
            if looks_like_workload(text):
                raise CommandLineError(
                    f"--nodes {text!r} is a workload, not a node group: {ORDER_HINT}"
                ) from None
            raise CommandLineError(f"--nodes: {e}") from None
    return Machine(tuple(groups))


def _file_requests(workloads: Sequence[str]) -> RequestTable | None:
    """The node requests the Batsim workloads state, if one does; None if none states any.

    Raises:
        CommandLineError: Several workloads, one of which states node requests: a spec's machine has
            one request rule, and a table of one file's job ids would give other files' jobs theirs.
    """
    tables = []
    for path in (w for w in workloads if is_batsim_path(w)):
        try:
            table = read_batsim_requests(Path(path))
        except OSError:
            continue  # the workload's reader says why it cannot be read
        if len(table):
            tables.append((path, table))
    if not tables:
        return None
    if len(workloads) > 1:
        raise CommandLineError(
            f"{tables[0][0]} states node requests for {len(tables[0][1])} jobs, which apply to that "
            "workload alone: run it on its own, or with backfill simulate"
        )
    return tables[0][1]


def with_nodes(
    args: argparse.Namespace, specs: Sequence[SchedulerSpec], workloads: Sequence[str] = ()
) -> list[SchedulerSpec]:
    """Return ``specs`` placing jobs on the ``--nodes`` machine with ``--placement``; unchanged without.

    A spec that names its own machine (``--scheduler easy+nodes=4x8`` or ``easy+memory=1G``) keeps
    it, as a parameter a spec gives itself wins over the option of the same name. Where a Batsim
    workload of ``workloads`` states node requests
    (:func:`~backfill.workloads.request_table.read_batsim_requests`), every node machine of the
    default request rule asks the file's instead (its jobs without one still ask their processors
    as tasks).

    Raises:
        CommandLineError: A group that is not one (naming it), ``--nodes`` with ``--resources`` or
            ``--partitions``, ``--placement`` without ``--nodes``, ``--nodes`` where every spec
            names its own machine, or node requests stated by one of several workloads.
        BatsimError: A Batsim workload's node request is not one, naming the file and the job.
    """
    chosen = _with_machine(args, specs)
    if all(spec.nodes is None for spec in chosen):
        return chosen
    table = _file_requests(workloads)
    if table is None:
        return chosen
    return [
        attrs.evolve(spec, nodes=attrs.evolve(spec.nodes, request=table))
        if spec.nodes is not None and spec.nodes.request is tasks_request
        else spec
        for spec in chosen
    ]


def _with_machine(args: argparse.Namespace, specs: Sequence[SchedulerSpec]) -> list[SchedulerSpec]:
    """:func:`with_nodes` but for the workloads' node requests."""
    texts = getattr(args, "nodes", None)
    placement = getattr(args, "placement", None)
    if texts is None:
        if placement is not None:
            raise CommandLineError(
                f"--placement {placement} applies only with --nodes: it chooses the nodes of each job "
                "on a machine of nodes"
            )
        return list(specs)
    if getattr(args, "resources", None) is not None:
        raise CommandLineError(
            "--nodes and --resources are two models of one machine: give one (on a machine of nodes, "
            "memory, GPUs and other amounts are the groups', such as --nodes 128x8,memory=12G)"
        )
    if getattr(args, "partitions", None) is not None:
        raise CommandLineError(
            "--nodes and --partitions: partitions share a pool of processors; a machine of nodes "
            "is not cut into partitions"
        )
    machine = _machine(texts)
    own = [spec.nodes is not None or bool(spec.resources) for spec in specs]
    if all(own):  # then --nodes (and --placement) would change nothing
        raise CommandLineError(
            f"--nodes {' '.join(texts)} applies to none of the schedulers: each names its own machine "
            "(+nodes=... or +memory...)"
        )
    chosen = placement or "first_fit"
    return [
        spec if kept else attrs.evolve(spec, nodes=machine, placement=chosen)
        for spec, kept in zip(specs, own, strict=True)
    ]


def machine_line(specs: Sequence[SchedulerSpec], processors: int | None = None) -> str:
    """The line both commands print for the node machines of the runs: groups, nodes, cores, placement.

    And a workload's node requests where its file states them
    (:class:`~backfill.workloads.request_table.RequestTable`).

    Nothing when every run has a pool of processors. ``processors`` is the workload's machine size,
    noted where the node machine's cores differ from it (None: not noted).

    Examples:
        >>> spec = SchedulerSpec("EASY", nodes=Machine.parse(["64x8,memory=12G", "8x8,gpus=4"]))
        >>> machine_line([spec], 512)
        'nodes: 64x8,memory=12G 8x8,gpus=4: 72 nodes, 576 cores (the workload has 512 processors), first_fit'
    """
    lines = []
    for nodes, placement in dict.fromkeys((s.nodes, s.placement) for s in specs if s.nodes is not None):
        assert nodes is not None
        cores = f"{nodes.cores} cores" + (
            f" (the workload has {processors} processors)"
            if processors is not None and nodes.cores != processors
            else ""
        )
        name = placement if isinstance(placement, str) else getattr(placement, "__qualname__", placement)
        asked = nodes.request
        rule = (
            f", the node requests of {asked.source} ({len(asked)} jobs)"
            if isinstance(asked, RequestTable)
            else ""
        )
        lines.append(f"nodes: {nodes.text()}: {nodes.node_count} nodes, {cores}, {name}{rule}")
    return "\n".join(lines)
