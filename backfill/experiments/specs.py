"""What the cells of :mod:`backfill.experiments.sweep` are made of: scheduler and workload specs.

Everything a cell's result depends on is plain data with a JSON *identity*: a scheduler by name with
JSON parameters (:class:`SchedulerSpec`), a trace by the SHA-256 of its bytes and its cleaning policy
(:class:`TraceWorkload`), a model by its arguments (:class:`ModelWorkload`). Those identities make the
cell's content key in :mod:`backfill.experiments.cache`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

import attrs

from backfill.errors import BackfillError, ParameterError
from backfill.experiments._node_specs import (
    check_machine,
    node_extras,
    node_identity,
    node_params,
    placement_of,
    read_node_extras,
)
from backfill.experiments._resource_specs import ResourceSpec, memory_size, memory_text, resource_specs
from backfill.experiments._workload_specs import ModelWorkload, TraceWorkload, WorkloadSpec
from backfill.profile.placement import PLACEMENTS, Placement
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.schedulers.registry import SCHEDULERS as REGISTRY
from backfill.schedulers.registry import scheduler_entry
from backfill.workloads.nodes import Machine
from backfill.workloads.resources import Resource
from backfill.workloads.workload import Workload

__all__ = [
    "SCHEDULERS",
    "ModelWorkload",
    "ParamValue",
    "ResourceSpec",
    "SchedulerSpec",
    "TraceWorkload",
    "WorkloadSpec",
    "check_priority",
    "memory_size",
    "memory_text",
    "resource_specs",
    "split_spec_text",
]

# -- scheduler specs -----------------------------------------------------------------------------


#: A scheduler parameter: a JSON scalar, so that it can be part of a cache key and a CSV cell.
ParamValue: TypeAlias = bool | int | float | str | None

#: The schedulers a :class:`SchedulerSpec` can name: the registry (:mod:`backfill.schedulers.registry`).
SCHEDULERS = REGISTRY


def _canonical_name(value: object) -> object:
    try:
        return scheduler_entry(value).name if isinstance(value, str) else value
    except ParameterError:
        return value  # refused, with the known names, by _check_name


def _check_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or value not in SCHEDULERS:
        raise BackfillError(f"unknown scheduler {value!r}; known: {', '.join(e.name for e in SCHEDULERS)}")


def _sorted_params(value: Mapping[str, ParamValue] | Iterable[tuple[str, ParamValue]]) -> tuple[Any, ...]:
    items = list(value.items() if isinstance(value, Mapping) else value)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise BackfillError(f"scheduler parameters must be (name, value) pairs, got {item!r}")
    return tuple(sorted(items, key=lambda kv: kv[0]))


def _check_nodes(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None:
        check_machine(value)


def _check_params(instance: SchedulerSpec, attribute: attrs.Attribute[Any], value: tuple[Any, ...]) -> None:
    entry = scheduler_entry(instance.name)
    keys = [k for k, _ in value]
    if len(set(keys)) == len(keys):
        value = entry.canonical(value)  # Slurm's names, checked and converted (again in post-init)
        keys = [k for k, _ in value]
    if len(set(keys)) != len(keys):
        raise BackfillError(f"{instance.name}: a parameter is given twice in {keys}")
    for key, v in value:
        if key == "priority":
            raise BackfillError(
                f"{instance.name}: give the priority in the grid's priorities, not as a parameter"
            )
        entry.parameter(key)  # refuses a name the registry does not list, naming those it does
        if not (v is None or isinstance(v, bool | int | float | str)):
            raise BackfillError(
                f"{instance.name}: parameter {key}={v!r} is not a JSON number, string or bool"
            )
    _construct(instance.name, value, None)  # the scheduler's own validators judge the values


_RESOURCE_SPLIT = re.compile(r"\+(?=\s*[A-Za-z_])")


def _value_text(value: ParamValue) -> str:
    """A parameter's value as :meth:`SchedulerSpec.parse` reads it back (none, true, 120.0, last2)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _construct(
    name: str,
    params: tuple[tuple[str, ParamValue], ...],
    priority: str | None,
    resources: tuple[Resource, ...] = (),
    nodes: Machine | None = None,
    placement: str | Placement | None = None,
) -> Scheduler:
    entry = scheduler_entry(name)
    policy = PLACEMENTS[placement] if isinstance(placement, str) else placement
    try:
        return entry.build(
            PRIORITIES[priority] if priority is not None else None,
            resources=resources,
            nodes=nodes,
            placement=policy,
            **dict(params),
        )
    except (BackfillError, TypeError, ValueError) as e:
        raise BackfillError(f"cannot build {name} with {dict(params)}: {e}") from e


@attrs.frozen(repr=False)
class SchedulerSpec:
    """A scheduler by name with keyword parameters: picklable, hashable data that builds a fresh one.

    ``name`` is a key of :data:`SCHEDULERS` (any letter case); ``params`` are keyword arguments of its
    constructor, JSON scalars kept as a tuple of (name, value) pairs sorted by name. Objects are out,
    except those a registered parameter names (LookaheadSlack's ``goal`` as ``"G1"`` or ``"G2"``, a
    predictor as ``"last2"``). The queue priority is not a parameter: :meth:`build` takes it by name.

    A parameter is the named scheduler's own (:mod:`backfill.schedulers.registry`): another
    scheduler may declare one of the same name with another meaning, and :meth:`parse` reads a
    value with this scheduler's reader. A cell's cache key holds ``name`` beside ``params``, so
    two schedulers' parameters of one name never share a key.

    Every scheduler also takes the registry's planning options (``predictor``, ``resolution``,
    ``correction``), which wrap it in :func:`~backfill.schedulers.prediction.planning.planning`, and Slurm's
    names for planning settings in Slurm's units (``bf_window=1440`` minutes), which the spec holds as
    the parameter they set (``planning_window=86400.0``): two spellings of one setting are one spec.

    ``resources`` are the resources planned besides processors (:class:`ResourceSpec`, or their
    text: ``"memory"``, ``"memory=1.5G"``); their capacities come from the workload, so a spec with
    resources builds its scheduler for a workload (:meth:`build`). They are part of the label
    (``EASY+memory``, ``EASY+memory=1.5G``: the size per processor as :func:`memory_text` writes
    it), hence of the ``scheduler`` column of results, and of a cell's cache key. In text they
    follow the name and parameters the same way, as the command line's ``--resources`` names them:
    ``easy:depth=4+memory=1G`` (:meth:`parse`); ``str(spec)`` is that text, which :meth:`parse`
    reads back to an equal spec.

    ``nodes`` is a machine of node groups (:class:`~backfill.workloads.nodes.Machine`) to place
    every job on instead of a pool of processors, and ``placement`` the policy that chooses its
    nodes: a name of :data:`~backfill.profile.placement.PLACEMENTS` (default ``first_fit`` with
    nodes; none without) or a module-level callable. The two models exclude each other: a spec
    has ``resources`` or ``nodes``, not both. The machine and the placement are part of the label
    (``EASY+nodes=64x8,memory=12G 8x8,gpus=4+placement=best_fit``, the placement when it is not
    first fit), hence of the ``scheduler`` column, and of a cell's cache key, so that the results
    of a pool and of a node machine are never taken for one another. The machine's request rule
    and a placement of one's own must be module-level functions (a sweep pickles the spec to its
    workers); the text names only the default request rule, which :meth:`parse` reads back.

    Examples:
        >>> spec = SchedulerSpec.of("easy", depth=4)
        >>> spec
        SchedulerSpec(name='EASY', params=(('depth', 4),))
        >>> spec.label, spec.build("sjf").depth
        ('EASY(depth=4)', 4)
        >>> SchedulerSpec("Conservative").takes_priority
        False
        >>> SchedulerSpec.of("EASY", bf_window=1440, predictor="last2").label
        "EASY(planning_window=86400.0, predictor='last2')"
        >>> SchedulerSpec("Conservative", resources="memory=2048M").label
        'Conservative+memory=2G'
        >>> str(SchedulerSpec.parse("easy:depth=4+memory=1.5G"))
        'EASY:depth=4+memory=1.5G'
        >>> SchedulerSpec("EASY", nodes=Machine.parse("120x2"), placement="best_fit").label
        'EASY+nodes=120x2+placement=best_fit'
    """

    name: str = attrs.field(converter=_canonical_name, validator=_check_name)
    params: tuple[tuple[str, ParamValue], ...] = attrs.field(
        default=(), converter=_sorted_params, validator=_check_params
    )
    resources: tuple[ResourceSpec, ...] = attrs.field(default=(), kw_only=True, converter=resource_specs)
    nodes: Machine | None = attrs.field(default=None, kw_only=True, validator=_check_nodes)
    placement: str | Placement | None = attrs.field(default=None, kw_only=True, converter=placement_of)

    def __attrs_post_init__(self) -> None:
        canonical = _sorted_params(scheduler_entry(self.name).canonical(self.params))
        if canonical != self.params:
            object.__setattr__(self, "params", canonical)  # frozen: set once, before anyone reads it
        if self.nodes is not None and self.resources:
            raise ParameterError(
                f"{self.name}: nodes and resources are two models of one machine; on a node machine, "
                "memory, GPUs and other amounts are the node groups' (Machine.parse('8x8,memory=12G'))"
            )
        if self.nodes is None and self.placement is not None:
            raise ParameterError(
                f"{self.name}: placement {self.placement!r} without nodes: a placement places jobs on "
                "the nodes of a machine (give nodes=Machine.parse(...))"
            )
        if self.nodes is not None and self.placement is None:
            object.__setattr__(self, "placement", "first_fit")  # one spec for first fit, named or not

    def __repr__(self) -> str:
        # The resources and nodes only when given: a spec of processors alone reads as before.
        extra = f", resources={self.resources!r}" if self.resources else ""
        if self.nodes is not None:
            extra += f", nodes={self.nodes!r}, placement={self.placement!r}"
        return f"SchedulerSpec(name={self.name!r}, params={self.params!r}{extra})"

    def __str__(self) -> str:
        params = ",".join(f"{k}={_value_text(v)}" for k, v in self.params)
        return self.name + (f":{params}" if params else "") + self._extras()

    def _extras(self) -> str:
        """The resources or the node machine, each word after a ``+``, as text and label end."""
        if self.nodes is not None:
            assert self.placement is not None  # (set with the nodes, in post-init)
            return "".join(f"+{word}" for word in node_extras(self.nodes, self.placement))
        return "".join(f"+{r.label}" for r in self.resources)

    @classmethod
    def parse(cls, text: str) -> SchedulerSpec:
        """Return the spec of ``NAME[:K=V,...][+RESOURCE[=SIZE]...]`` or ``NAME[:K=V,...]+nodes=GROUP...``.

        Each value is read from text by NAME's own parameter ``K``; each resource as ``--resources``
        reads one (:meth:`ResourceSpec.parse`: ``memory``, ``memory=1.5G``); ``+nodes=`` the node
        groups as ``--nodes`` reads them, separated by spaces, and ``+placement=NAME`` their
        placement. The command line's ``--scheduler`` and a sweep grid's scheduler given as text
        are read so.

        Raises:
            ParameterError: An unknown scheduler or parameter, a pair that is not ``K=V``, a key given
                twice, or a value its reader refuses (naming the scheduler and the parameter).
            BackfillError: An unknown resource, a bad size, or a resource named twice; a bad node
                group, or nodes beside resources.

        Examples:
            >>> SchedulerSpec.parse("easy:bf_window=2,predictor=last2").params
            (('planning_window', 120.0), ('predictor', 'last2'))
            >>> SchedulerSpec.parse("conservative+memory=1G").label
            'Conservative+memory=1G'
            >>> SchedulerSpec.parse("easy+nodes=64x8,memory=12G 8x8,gpus=4+placement=contiguous").nodes.text()
            '64x8,memory=12G 8x8,gpus=4'
        """
        # A resource begins with a letter after its "+"; a value's exponent ("1e+5") does not.
        head, *extras = _RESOURCE_SPLIT.split(text)
        nodes, placement, extras = read_node_extras(extras)
        machine: dict[str, Any] = {"nodes": nodes, "placement": placement}
        resources = resource_specs(extras) if extras else ()
        name, pairs = split_spec_text(head)
        if not pairs:
            return cls(name, resources=resources, **machine)
        entry = scheduler_entry(name)
        return cls(entry.name, entry.read_all(pairs), resources=resources, **machine)

    @classmethod
    def of(cls, name: str, **params: ParamValue) -> SchedulerSpec:
        """Return the spec of scheduler ``name`` with keyword ``params``.

        Examples:
            >>> SchedulerSpec.of("LookaheadSlack", lookahead=10, goal="G2").label
            "LookaheadSlack(goal='G2', lookahead=10)"
        """
        return cls(name, tuple(params.items()))

    @property
    def label(self) -> str:
        """A short readable name: the scheduler's name and its parameters, e.g. ``EASY(depth=4)``."""
        extras = self._extras()
        if not self.params:
            return self.name + extras
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params)}){extras}"

    @property
    def takes_priority(self) -> bool:
        """Whether the scheduler orders a queue by a priority (FCFS, EASY, PC, DC, Selective)."""
        return scheduler_entry(self.name).takes_priority

    def build(self, priority: str = "fcfs", workload: Workload | None = None) -> Scheduler:
        """Return a new scheduler with the queue priority named ``priority``.

        A scheduler without a queue priority (Conservative, RelShare, LookaheadSlack, SlackBackfill)
        is built only with ``"fcfs"``, which stands for "its own order". With :attr:`resources` it
        plans them on ``workload``'s machine (:meth:`ResourceSpec.resource`); with :attr:`nodes` it
        places jobs on that machine with :attr:`placement`.

        Raises:
            BackfillError: Unknown priority, or a priority other than ``"fcfs"`` for a scheduler
                without one; resources without a workload, or without a capacity on it.
        """
        check_priority(self, priority)
        return _construct(
            self.name,
            self.params,
            priority if self.takes_priority else None,
            self.planned(workload),
            self.nodes,
            self.placement,
        )

    def resource_key(self) -> dict[str, Any]:
        """The machine's part of a cell's cache key: its resources, or its node machine and placement.

        None for a pool of processors alone, so that old keys still hold.
        """
        if self.nodes is not None:
            assert self.placement is not None  # (set with the nodes, in post-init)
            return node_identity(self.nodes, self.placement)
        return {"resources": [r.identity() for r in self.resources]} if self.resources else {}

    def row_params(self) -> str:
        """The ``params`` column of a result row: the parameters as JSON, with the node machine's.

        On a node machine, ``nodes`` (its groups' text) and ``placement`` (its name) beside the
        parameters: every result file records the machine it was run on.

        Examples:
            >>> SchedulerSpec.of("easy", depth=2).row_params()
            '{"depth": 2}'
            >>> SchedulerSpec("EASY", nodes=Machine.parse("120x2")).row_params()
            '{"nodes": "120x2", "placement": "first_fit"}'
        """
        params: dict[str, Any] = dict(self.params)
        if self.nodes is not None:
            assert self.placement is not None
            params |= node_params(self.nodes, self.placement)
        return json.dumps(params, sort_keys=True)

    def planned(self, workload: Workload | None) -> tuple[Resource, ...]:
        """The resources the scheduler plans on ``workload``'s machine; none without :attr:`resources`.

        Raises:
            BackfillError: Resources without a workload, or without a capacity on it.
        """
        if not self.resources:
            return ()
        if workload is None:
            raise BackfillError(f"{self.label}: a scheduler with resources is built for a workload")
        return tuple(r.resource(workload) for r in self.resources)


def split_spec_text(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``NAME:K=V,...`` into the name and its (key, value) texts.

    Raises:
        ParameterError: A pair that is not ``K=V``, or a key given twice.

    Examples:
        >>> split_spec_text("easy:depth=4")
        ('easy', [('depth', '4')])
    """
    head, colon, rest = text.partition(":")
    pairs = []
    if colon:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not (eq and key.strip() and value.strip()):
                raise ParameterError(f"expected KEY=VALUE, got {item!r}")
            pairs.append((key.strip(), value.strip()))
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ParameterError(f"{', '.join(repeated)} given twice")
    return head.strip(), pairs


def check_priority(spec: SchedulerSpec, priority: object) -> None:
    """Refuse an unknown priority name, or any but ``fcfs`` for a scheduler without a priority."""
    if not isinstance(priority, str) or priority not in PRIORITIES:
        raise BackfillError(f"unknown priority {priority!r}; known: {', '.join(PRIORITIES)}")
    if priority != "fcfs" and not spec.takes_priority:
        raise BackfillError(f"{spec.label} has no queue priority; it runs only with 'fcfs', not {priority!r}")
