"""The built-in schedulers: one entry each, from which the command line, sweep specs and tests are built.

An :class:`Entry` says what a front end needs to know about a scheduler class and cannot read from
the class itself: the names a user may type for it, and its parameters that can be given as text
(:class:`Parameter`: the constructor keyword, how to read a value from text, a help line, and the
names of object values such as LookaheadSlack's ``G1``/``G2``). Everything else is read from the
class: its name, its one-line summary (the docstring's first line), whether it takes a queue
priority (a ``priority`` parameter of its constructor) and the default of each parameter.

A parameter belongs to its scheduler: two entries may each declare a parameter of the same name with
its own reader, help and default (a ``lookahead`` in seconds beside LookaheadSlack's count of jobs).
``NAME:K=V`` and a sweep spec name the scheduler, so ``K`` is read by that scheduler's parameter,
and a cache key holds the scheduler's name beside its parameters. The command line's one option
``--K`` sets ``K`` for every chosen scheduler that takes it, each reading the text with its own
reader; :meth:`Registry.meanings` groups the entries that take a name by what it means there
(:class:`Meaning`), for the help. A name cannot be a switch for one scheduler (``--restart``, no
value) and take a value for another: :meth:`Registry.register` refuses that, naming both.

Every entry also takes the :data:`PLANNING_OPTIONS` (``predictor``, ``resolution``, ``correction``):
they are not constructor parameters but the options of
:func:`~backfill.schedulers.prediction.planning.planning`, which :meth:`Entry.build` wraps the scheduler in
when one is given. :data:`SLURM_ALIASES` are Slurm's names for planning settings (``bf_window`` in
minutes, ``bf_resolution``, ``bf_max_job_test``, ``bf_job_part_count_reserve``): an entry reads them
as the parameter they set (:meth:`Entry.read`, :meth:`Entry.canonical`), so one setting has one
spelling in a spec. A Slurm name applies only to a scheduler whose parameter of that name means
what Slurm's setting means (the built-ins' ``planning_window``, ``max_tested`` and ``depth``). The
command line's options, the sweep specs and the tests read all three tables from here.

Adding a built-in scheduler is its module, ``backfill/schedulers/NAME.py`` beside the other
algorithms (on the bases of :mod:`backfill.schedulers.machinery`), and one entry in
:data:`SCHEDULERS`, plus the files
``docs/contributing.md`` lists (its exports, reference stub, docs section, README row and tests,
which ``tests/test_builtin_checklist.py`` checks): ``backfill simulate --scheduler`` and ``backfill
compare --scheduler`` offer it with its options, :class:`~backfill.experiments.specs.SchedulerSpec`
names it, and the test suite's lists of schedulers and invariant configurations include it.

The text readers (:func:`depth_from_text` and the like) raise
:class:`~backfill.errors.ParameterError`; the command line turns that into its usage errors.

Examples:
    >>> entry = scheduler_entry("easy")
    >>> entry.name, entry.takes_priority, [p.name for p in entry.parameters]
    ('EASY', True, ['depth', 'backfill_order', 'planning_window', 'max_tested'])
    >>> entry.build(depth=entry.parameter("depth").parse("inf")).depth is None
    True
    >>> type(scheduler_entry("lookahead").build(goal="G2").goal).__name__
    'G2'
    >>> entry.read("bf_window", "2"), entry.build(predictor="last2", bf_window=60).name
    (('planning_window', 120.0), 'EASY(fcfs, planning_window=3600) [predictor=last2]')
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs

from backfill.errors import ParameterError
from backfill.schedulers._parameters import DEPTH as _DEPTH
from backfill.schedulers._parameters import SLURM_TARGETS, Meaning, meanings, same_meaning
from backfill.schedulers._parameters import limits as _limits
from backfill.schedulers._planning_options import (
    PLANNING_OPTIONS,
    SLURM_ALIASES,
    PlanningOption,
    SlurmAlias,
    planning_default,
)
from backfill.schedulers._text import (
    Parameter,
    bool_from_text,
    depth_from_text,
    duration_from_text,
    finite_float_from_text,
    named_only,
    non_negative_float_from_text,
    non_negative_int_from_text,
    optional_duration_from_text,
    optional_int_from_text,
    positive_float_from_text,
    positive_int_from_text,
)
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.dc import DC
from backfill.schedulers.easy import EASY
from backfill.schedulers.fcfs import FCFS
from backfill.schedulers.lookahead import G1, G2, LookaheadSlack
from backfill.schedulers.machinery.priorities import PRIORITIES, Priority
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.schedulers.pc import PC
from backfill.schedulers.prediction.planning import planning
from backfill.schedulers.relshare import RelShare
from backfill.schedulers.selective import AdaptiveThreshold, Selective
from backfill.schedulers.slack import SlackBackfill

__all__ = [
    "PLANNING_OPTIONS",
    "SCHEDULERS",
    "SLURM_ALIASES",
    "Entry",
    "Meaning",
    "Parameter",
    "PlanningOption",
    "Registry",
    "SlurmAlias",
    "bool_from_text",
    "depth_from_text",
    "duration_from_text",
    "finite_float_from_text",
    "non_negative_float_from_text",
    "non_negative_int_from_text",
    "optional_duration_from_text",
    "optional_int_from_text",
    "positive_float_from_text",
    "positive_int_from_text",
    "scheduler_entry",
]

#: The names of the planning options, which every entry takes besides its parameters.
_PLANNING = {p.name: p for p in PLANNING_OPTIONS}


# -- entries -----------------------------------------------------------------------------------


def _check_parameters(instance: Entry, attribute: attrs.Attribute[Any], value: tuple[Parameter, ...]) -> None:
    signature = inspect.signature(instance.cls).parameters
    for p in value:
        if p.name not in signature or p.name == "priority":
            raise ParameterError(
                f"{instance.cls.__name__} has no constructor parameter {p.name!r} to register"
            )
        if p.name in _PLANNING or p.name in SLURM_ALIASES:
            raise ParameterError(
                f"{instance.cls.__name__}: {p.name!r} names a planning option of every scheduler; "
                "register the parameter under another name"
            )


@attrs.frozen
class Entry:
    """One built-in scheduler: its class, the extra names users may type, its text parameters.

    Examples:
        >>> entry = scheduler_entry("Conservative")
        >>> entry.cli_name, entry.takes_priority
        ('conservative', False)
        >>> entry.summary
        'Conservative backfilling with compression in the order of the current profile.'
    """

    cls: type[Any]
    aliases: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = attrs.field(default=(), validator=_check_parameters)

    @property
    def name(self) -> str:
        """The class name, the canonical name of the scheduler (``EASY``)."""
        return self.cls.__name__

    @property
    def cli_name(self) -> str:
        """The name the command line lists: the first alias, else the lower-case class name."""
        return self.aliases[0] if self.aliases else self.name.lower()

    @property
    def names(self) -> tuple[str, ...]:
        """Every lower-case name this entry answers to: the class name's, then the aliases."""
        return (self.name.lower(), *(a.lower() for a in self.aliases))

    @property
    def summary(self) -> str:
        """The first line of the class's docstring."""
        return (inspect.getdoc(self.cls) or self.name).splitlines()[0]

    @property
    def takes_priority(self) -> bool:
        """Whether the constructor takes a queue ``priority`` (read from its signature)."""
        return "priority" in inspect.signature(self.cls).parameters

    @property
    def options(self) -> tuple[Parameter, ...]:
        """Its parameters, then the :data:`PLANNING_OPTIONS` that every scheduler takes."""
        return (*self.parameters, *PLANNING_OPTIONS)

    def takes(self, name: str) -> bool:
        """Whether ``name`` is one of its :attr:`options`."""
        return name in _PLANNING or any(p.name == name for p in self.parameters)

    def is_switch(self, name: str) -> bool:
        """Whether its parameter ``name`` is a switch: a bool by default, an option without a value."""
        return isinstance(self.default(name), bool)

    def takes_slurm(self, name: str) -> bool:
        """Whether Slurm's name ``name`` (``bf_window``) applies: it takes the parameter, in Slurm's meaning.

        Examples:
            >>> [scheduler_entry(name).takes_slurm("bf_window") for name in ("easy", "fcfs")]
            [True, False]
        """
        return self._alias_problem(SLURM_ALIASES[name]) is None

    def parameter(self, name: str) -> Parameter:
        """Return the parameter (or planning option) called ``name``.

        Raises:
            ParameterError: The scheduler has no such text parameter.
        """
        for p in self.options:
            if p.name == name:
                return p
        if name == "priority":
            raise ParameterError(f"{self.name}: priority is not a parameter; give it as the queue priority")
        if name in SLURM_ALIASES:
            self._check_alias(SLURM_ALIASES[name])
            raise ParameterError(f"{self.name}: {name} is Slurm's name for {SLURM_ALIASES[name].target}")
        known = ", ".join(p.name for p in self.parameters) or "none"
        planned = ", ".join(_PLANNING)
        raise ParameterError(
            f"{self.name} takes no parameter {name!r}; it takes {known} "
            f"(and, like every scheduler, {planned})"
        )

    def read(self, key: str, text: str) -> tuple[str, Any]:
        """Return the parameter and the value (as a spec holds it) of ``key=text``; a Slurm name converted.

        Raises:
            ParameterError: An unknown key, a Slurm name for a parameter the scheduler lacks, or a
                value its reader refuses.

        Examples:
            >>> scheduler_entry("relshare").read("bf_job_part_count_reserve", "0")
            ('depth', None)
            >>> scheduler_entry("lookahead").read("lookahead", "2h")
            Traceback (most recent call last):
            backfill.errors.ParameterError: LookaheadSlack's lookahead: expected a whole number, got '2h'
        """
        alias = SLURM_ALIASES.get(key)
        reader = self.parameter(key) if alias is None else alias
        if alias is not None:
            self._check_alias(alias)
        try:
            value = reader.from_text(text)
        except ParameterError as e:
            # The parameter is this scheduler's own: another's of the same name may read the text.
            raise ParameterError(f"{self.name}'s {e}") from None
        return (key if alias is None else alias.target), value

    def read_all(self, pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, Any], ...]:
        """Return the parameters and values of ``key=text`` pairs, as :meth:`read` reads each.

        Raises:
            ParameterError: As :meth:`read`, or a parameter given under both its names.
        """
        return self._once((key, *self.read(key, text)) for key, text in pairs)

    def canonical(self, params: Iterable[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
        """Return ``(name, value)`` pairs with each Slurm name replaced by its parameter, in its unit.

        Raises:
            ParameterError: A Slurm name for a parameter the scheduler lacks, a value in Slurm's
                unit that is not one, or a parameter given under both names.

        Examples:
            >>> scheduler_entry("easy").canonical([("bf_max_job_test", 50), ("depth", 2)])
            (('max_tested', 50), ('depth', 2))
        """

        def converted(key: str, value: Any) -> tuple[str, str, Any]:
            alias = SLURM_ALIASES.get(key)
            if alias is None:
                return key, key, value
            self._check_alias(alias)
            return key, alias.target, alias.from_value(value)

        return self._once(converted(key, value) for key, value in params)

    def _once(self, triples: Iterable[tuple[str, str, Any]]) -> tuple[tuple[str, Any], ...]:
        """(name, value) of (key as given, name, value) triples, refusing a name given twice."""
        out: dict[str, Any] = {}
        spelled: dict[str, str] = {}
        for key, name, value in triples:
            if name in out:
                raise ParameterError(f"{self.name}: {spelled[name]} and {key} both set {name}; give one")
            out[name], spelled[name] = value, key
        return tuple(out.items())

    def _alias_problem(self, alias: SlurmAlias) -> str | None:
        if not self.takes(alias.target):
            return f"{self.name} has no {alias.target}, so Slurm's {alias.name} does not apply to it"
        meant = SLURM_TARGETS.get(alias.target)
        if meant is not None and not same_meaning(self.parameter(alias.target), meant):
            return (
                f"{self.name}'s {alias.target} means something else than the {alias.target} Slurm's "
                f"{alias.name} sets, so {alias.name} does not apply to it"
            )
        return None

    def _check_alias(self, alias: SlurmAlias) -> None:
        problem = self._alias_problem(alias)
        if problem is not None:
            raise ParameterError(problem)

    def default(self, name: str) -> Any:
        """Return the constructor's default of parameter ``name`` (a factory's product for attrs classes).

        For a planning option, ``planning``'s default.
        """
        if name in _PLANNING:
            return planning_default(name)
        for field in attrs.fields(self.cls) if attrs.has(self.cls) else ():
            if field.alias == name or field.name == name:
                default = field.default
                return default.factory() if isinstance(default, attrs.Factory) else default  # type: ignore[arg-type]
        return inspect.signature(self.cls).parameters[name].default

    def default_text(self, name: str) -> str:
        """Return the default of ``name`` as a user would type it (a named value's name where one matches)."""
        value = self.default(name)
        for known, make in self.parameter(name).named_values.items():
            if make() == value:
                return known
        if isinstance(value, bool):
            return str(value).lower()
        if value is None and self.parameter(name).parse is depth_from_text:
            return "inf"
        return "none" if value is None else str(value)

    def build(self, priority: Priority | None = None, *, resources: Any = (), **params: Any) -> Scheduler:
        """Return a new scheduler with the given priority and parameters (as a spec holds them).

        Planning options wrap it: ``planning(scheduler, predictor=..., resolution=..., correction=...)``.
        Slurm's names are read as :meth:`canonical` reads them; resources, nodes, placement: its own.

        Raises:
            ParameterError: A priority for a scheduler without one, an unknown parameter, a value it refuses.
        """
        machine = {k: v for k in ("nodes", "placement") if (v := params.pop(k, None)) is not None}
        given = dict(self.canonical(params.items()))
        planned = {name: _PLANNING[name].value(given.pop(name)) for name in _PLANNING if name in given}
        kwargs = {name: self.parameter(name).value(value) for name, value in given.items()}
        if priority is not None:
            if not self.takes_priority:
                raise ParameterError(f"{self.name} takes no queue priority")
            kwargs["priority"] = priority
        kwargs |= ({"resources": tuple(resources)} if resources else {}) | machine  # (backfill.workloads)
        scheduler: Scheduler = self.cls(**kwargs)
        # With the default predictor and no resolution, planning returns the scheduler itself.
        return planning(scheduler, **planned) if planned else scheduler


def _returning(priority: Priority) -> Callable[[], Priority]:
    return lambda: priority


_BACKFILL_ORDER = Parameter(
    "backfill_order",
    named_only,
    "order of the jobs behind the head tried for backfilling (sjf: Tsafrir et al.'s SJBF, as in "
    "EASY++); for classic EASY only: depth 1, no planning window or test limit",
    metavar="PRIORITY",
    named_values={name: _returning(p) for name, p in PRIORITIES.items()},
    samples=("sjf",),
)


def _kind(entry: Entry, name: str) -> str:
    return "is a switch" if entry.is_switch(name) else "takes a value"


class Registry:
    """The schedulers front ends offer: entries in order, looked up by any of their names.

    The built-in ones are :data:`SCHEDULERS`; :meth:`register` adds one of a user's own (for the
    session), after which the command line built in that session, sweep specs and
    :func:`scheduler_entry` know it too.

    Examples:
        >>> "slack" in SCHEDULERS, "SlackBackfill" in SCHEDULERS, "backfill9" in SCHEDULERS
        (True, True, False)
    """

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        self._entries: list[Entry] = []
        self._by_name: dict[str, Entry] = {}
        for entry in entries:
            self.register(entry)

    def register(self, entry: Entry) -> None:
        """Add ``entry`` at the end; its parameters may share names with other entries'. O(names + params).

        Raises:
            ParameterError: One of its names is taken, a parameter is a switch where another
                scheduler's of that name takes a value (or the reverse), or it is not an :class:`Entry`.
        """
        if not isinstance(entry, Entry):
            raise ParameterError(f"register takes an Entry, got {entry!r}")
        taken = [name for name in entry.names if name in self._by_name]
        if taken:
            raise ParameterError(
                f"cannot register {entry.name}: {', '.join(taken)} already names a scheduler"
            )
        for p in entry.parameters:
            other = next((e for e in self._entries if e.takes(p.name)), None)
            if other is not None and other.is_switch(p.name) != entry.is_switch(p.name):
                raise ParameterError(
                    f"cannot register {entry.name}: its parameter {p.name} {_kind(entry, p.name)} but "
                    f"{other.name}'s {p.name} {_kind(other, p.name)}, and one option "
                    f"--{p.name.replace('_', '-')} cannot do both; give it another name"
                )
        self._entries.append(entry)
        self._by_name.update(dict.fromkeys(entry.names, entry))

    def meanings(self) -> dict[str, tuple[Meaning, ...]]:
        """Return every parameter name the entries take, each with its meanings: what the command line offers.

        The names come in the order of the entries' parameters, then the planning options; a name's
        meanings in the order of the first entry that takes each. O(entries x parameters).

        Examples:
            >>> meanings = SCHEDULERS.meanings()
            >>> [m.which for m in meanings["window"]], [m.which for m in meanings["predictor"]]
            (['relshare'], ['every scheduler'])
        """
        return meanings(self._entries)

    def unregister(self, name: str) -> None:
        """Remove the entry called ``name`` (any of its names)."""
        entry = self.entry(name)
        self._entries.remove(entry)
        for known in entry.names:
            del self._by_name[known]

    def entry(self, name: str) -> Entry:
        """Return the entry called ``name`` (class name or alias, any letter case). O(1).

        Raises:
            ParameterError: No registered scheduler has that name.
        """
        entry = self._by_name.get(name.strip().lower()) if isinstance(name, str) else None
        if entry is None:
            known = ", ".join(e.cli_name for e in self._entries)
            raise ParameterError(f"unknown scheduler {name!r}; known: {known}")
        return entry

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._by_name

    def __iter__(self) -> Iterator[Entry]:
        return iter(tuple(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({', '.join(e.name for e in self._entries)})"


#: The built-in schedulers, in the order the command line lists them.
SCHEDULERS = Registry(
    (
        Entry(FCFS),
        Entry(EASY, parameters=(_DEPTH, _BACKFILL_ORDER, *_limits(EASY))),
        Entry(Conservative, parameters=_limits(Conservative, alone=False)),
        Entry(
            PC,
            parameters=(
                Parameter(
                    "restart",
                    bool_from_text,
                    "rescan the queue from its head after every improved reservation",
                    samples=(False,),
                ),
                *_limits(PC, alone=False),
            ),
        ),
        Entry(DC, parameters=_limits(DC, alone=False)),
        Entry(
            Selective,
            parameters=(
                Parameter(
                    "threshold",
                    positive_float_from_text,
                    "starvation threshold: promote a job when (wait + estimate) / estimate reaches T; "
                    "adaptive: the running mean bounded slowdown of completed jobs",
                    metavar="T",
                    named_values={"adaptive": AdaptiveThreshold},
                    samples=(3.0,),
                ),
                *_limits(Selective, alone=False),
            ),
        ),
        Entry(
            RelShare,
            parameters=(
                Parameter(
                    "window",
                    duration_from_text,
                    "fair-share window: seconds, or e.g. 4h, 12h, 1d, 7d",
                    metavar="DURATION",
                    samples=(20.0,),
                ),
                Parameter(
                    "expected_usage",
                    bool_from_text,
                    "count the expected usage of running and reserved jobs as well as the usage so far",
                    samples=(False,),
                ),
                Parameter(
                    "decay",
                    non_negative_float_from_text,
                    "decay rate of past usage per second (0: a sliding window)",
                    metavar="RATE",
                ),
                _DEPTH,
                *_limits(RelShare),
                Parameter(
                    "by",
                    named_only,
                    "share between users or groups (the job field of that name)",
                    metavar="user|group",
                    named_values={"user": lambda: "user", "group": lambda: "group"},
                ),
                Parameter(
                    "default_share",
                    positive_float_from_text,
                    "share of an owner not in the shares table",
                    metavar="SHARE",
                ),
                Parameter(
                    "origin",
                    finite_float_from_text,
                    "time at which usage starts to count, in seconds",
                    metavar="SECONDS",
                ),
            ),
        ),
        Entry(
            LookaheadSlack,
            aliases=("lookahead",),
            parameters=(
                Parameter(
                    "goal",
                    named_only,
                    "goal: G1 stays close to FCFS, G2 maximises utilization",
                    metavar="G1|G2",
                    named_values={"G1": G1, "G2": G2},
                    samples=("G2",),
                ),
                Parameter(
                    "lookahead",
                    non_negative_int_from_text,
                    "waiting jobs searched for a set to start",
                    metavar="N",
                    samples=(3,),
                ),
                Parameter(
                    "max_nodes",
                    optional_int_from_text,
                    "nodes the search may visit per decision, or none",
                    metavar="N",
                ),
                Parameter(
                    "prune_on_slack",
                    bool_from_text,
                    "prune the search on slack",
                    samples=(False,),
                ),
            ),
        ),
        Entry(
            SlackBackfill,
            aliases=("slack",),
            parameters=(
                Parameter(
                    "tolerance",
                    non_negative_float_from_text,
                    "delay tolerance: a job's slack is F x the mean wait so far",
                    metavar="F",
                    samples=(0.5,),
                ),
            ),
        ),
    )
)


def scheduler_entry(name: str) -> Entry:
    """Return the entry of the registered scheduler called ``name`` (class name or alias, any case).

    Raises:
        ParameterError: No registered scheduler has that name.

    Examples:
        >>> scheduler_entry("slack").name
        'SlackBackfill'
    """
    return SCHEDULERS.entry(name)
