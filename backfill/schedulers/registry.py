"""The built-in schedulers: one entry each, from which the command line, sweep specs and tests are built.

An :class:`Entry` says what a front end needs to know about a scheduler class and cannot read from
the class itself: the names a user may type for it, and its parameters that can be given as text
(:class:`Parameter`: the constructor keyword, how to read a value from text, a help line, and the
names of object values such as LookaheadSlack's ``G1``/``G2``). Everything else is read from the
class: its name, its one-line summary (the docstring's first line), whether it takes a queue
priority (a ``priority`` parameter of its constructor) and the default of each parameter.

Adding a built-in scheduler is its module, one entry in :data:`SCHEDULERS`, its docs page and its
tests: ``backfill simulate --scheduler`` and ``backfill compare --scheduler`` offer it with its
options, :class:`~backfill.experiments.specs.SchedulerSpec` names it, and the test suite's list of
all schedulers includes it.

The text readers (:func:`depth_from_text` and the like) raise
:class:`~backfill.errors.ParameterError`; the command line turns that into its usage errors.

Examples:
    >>> entry = scheduler_entry("easy")
    >>> entry.name, entry.takes_priority, [p.name for p in entry.parameters]
    ('EASY', True, ['depth'])
    >>> entry.build(depth=entry.parameter("depth").parse("inf")).depth is None
    True
    >>> type(scheduler_entry("lookahead").build(goal="G2").goal).__name__
    'G2'
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from backfill.errors import ParameterError
from backfill.schedulers.conservative import Conservative
from backfill.schedulers.dc import DC
from backfill.schedulers.easy import EASY
from backfill.schedulers.fcfs import FCFS
from backfill.schedulers.lookahead import G1, G2, LookaheadSlack
from backfill.schedulers.pc import PC
from backfill.schedulers.priorities import Priority
from backfill.schedulers.protocol import Scheduler
from backfill.schedulers.relshare import RelShare
from backfill.schedulers.selective import AdaptiveThreshold, Selective
from backfill.schedulers.slack import SlackBackfill

__all__ = [
    "SCHEDULERS",
    "Entry",
    "Parameter",
    "Registry",
    "bool_from_text",
    "depth_from_text",
    "duration_from_text",
    "finite_float_from_text",
    "non_negative_float_from_text",
    "non_negative_int_from_text",
    "optional_int_from_text",
    "positive_float_from_text",
    "positive_int_from_text",
    "scheduler_entry",
]


# -- reading values from text ------------------------------------------------------------------


def _number(text: str, kind: Callable[[str], Any], what: str) -> Any:
    try:
        return kind(text.strip())
    except ValueError:
        raise ParameterError(f"expected {what}, got {text!r}") from None


def positive_int_from_text(text: str) -> int:
    """Read a whole number >= 1.

    Examples:
        >>> positive_int_from_text("4")
        4
    """
    value: int = _number(text, int, "a whole number")
    if value < 1:
        raise ParameterError(f"expected a positive number, got {value}")
    return value


def non_negative_int_from_text(text: str) -> int:
    """Read a whole number >= 0.

    Examples:
        >>> non_negative_int_from_text("0")
        0
    """
    value: int = _number(text, int, "a whole number")
    if value < 0:
        raise ParameterError(f"expected a non-negative number, got {value}")
    return value


def optional_int_from_text(text: str) -> int | None:
    """Read a whole number >= 1, or ``none`` (no limit).

    Examples:
        >>> optional_int_from_text("none"), optional_int_from_text("500")
        (None, 500)
    """
    return None if text.strip().lower() in ("none", "null") else positive_int_from_text(text)


def positive_float_from_text(text: str) -> float:
    """Read a finite number > 0.

    Examples:
        >>> positive_float_from_text("2.5")
        2.5
    """
    value: float = _number(text, float, "a number")
    if not 0 < value < math.inf:
        raise ParameterError(f"expected a positive number, got {text.strip()}")
    return value


def non_negative_float_from_text(text: str) -> float:
    """Read a finite number >= 0.

    Examples:
        >>> non_negative_float_from_text("0")
        0.0
    """
    value: float = _number(text, float, "a number")
    if not 0 <= value < math.inf:
        raise ParameterError(f"expected a non-negative number, got {text.strip()}")
    return value


def finite_float_from_text(text: str) -> float:
    """Read a finite number.

    Examples:
        >>> finite_float_from_text("-3600")
        -3600.0
    """
    value: float = _number(text, float, "a number")
    if not math.isfinite(value):
        raise ParameterError(f"expected a finite number, got {text.strip()}")
    return value


def depth_from_text(text: str) -> int | None:
    """Read a reservation depth: a whole number >= 1, or ``inf`` (``unlimited``) for no limit (None).

    Examples:
        >>> depth_from_text("4"), depth_from_text("inf")
        (4, None)
    """
    if text.strip().lower() in ("inf", "unlimited", "none"):
        return None
    return positive_int_from_text(text)


_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def duration_from_text(text: str) -> float:
    """Read a duration in seconds: a number, or one followed by s, min, h or d.

    Examples:
        >>> duration_from_text("4h"), duration_from_text("90min"), duration_from_text("30")
        (14400.0, 5400.0, 30.0)
    """
    stripped = text.strip().lower()
    for unit in sorted(_UNITS, key=len, reverse=True):
        if stripped.endswith(unit):
            return positive_float_from_text(stripped[: -len(unit)]) * _UNITS[unit]
    return positive_float_from_text(stripped)


def bool_from_text(text: str) -> bool:
    """Read ``true``/``false`` (also ``yes``/``no``, ``1``/``0``), in any letter case.

    Examples:
        >>> bool_from_text("False"), bool_from_text("yes")
        (False, True)
    """
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ParameterError(f"expected true or false, got {text!r}")


# -- entries -----------------------------------------------------------------------------------


def _is_identifier(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not (isinstance(value, str) and value.isidentifier()):
        raise ParameterError(f"{attribute.name} must be a Python identifier, got {value!r}")


@attrs.frozen
class Parameter:
    """A constructor parameter a front end may set from text.

    Attributes:
        name: The constructor keyword (``depth``); the command line spells it ``--depth``, or
            ``--no-<name>`` for a switch that is on by default.
        parse: Reads a value from text (raising :class:`~backfill.errors.ParameterError`); the
            result is a JSON scalar, so that it can be part of a sweep's cache key.
        help: What the value means, for the command line's help (the default is added to it).
        metavar: The placeholder of the value in the help.
        named_values: Object values by the name a user types (``{"G1": G1, "G2": G2}``): the
            text, and a sweep spec, hold the name; the scheduler gets ``named_values[name]()``.
        samples: Values besides the default that the test suite runs (after :meth:`value`).
    """

    name: str = attrs.field(validator=_is_identifier)
    parse: Callable[[str], Any]
    help: str
    metavar: str = "VALUE"
    named_values: Mapping[str, Callable[[], object]] = attrs.field(factory=dict)
    samples: tuple[Any, ...] = ()

    def from_text(self, text: str) -> Any:
        """Return the value of ``text`` as a spec holds it: a named value's name, else ``parse(text)``."""
        for known in self.named_values:
            if text.strip().lower() == known.lower():
                return known
        if self.parse is _no_text:
            raise ParameterError(f"{self.name} must be one of {', '.join(self.named_values)}, got {text!r}")
        try:
            return self.parse(text)
        except ParameterError as e:
            raise ParameterError(f"{self.name}: {e}") from None

    def value(self, held: Any) -> Any:
        """Return the constructor argument of a spec's value ``held``: a named value's object, or itself."""
        if isinstance(held, str) and held in self.named_values:
            return self.named_values[held]()
        if self.named_values and self.parse is _no_text:
            raise ParameterError(f"{self.name} must be one of {', '.join(self.named_values)}, got {held!r}")
        return held


def _no_text(text: str) -> Any:
    """The reader of a parameter that has only named values: any other text is refused."""
    raise ParameterError(f"expected one of the named values, got {text!r}")


def _check_parameters(instance: Entry, attribute: attrs.Attribute[Any], value: tuple[Parameter, ...]) -> None:
    signature = inspect.signature(instance.cls).parameters
    for p in value:
        if p.name not in signature or p.name == "priority":
            raise ParameterError(
                f"{instance.cls.__name__} has no constructor parameter {p.name!r} to register"
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

    def parameter(self, name: str) -> Parameter:
        """Return the parameter called ``name``.

        Raises:
            ParameterError: The scheduler has no such text parameter.
        """
        for p in self.parameters:
            if p.name == name:
                return p
        if name == "priority":
            raise ParameterError(f"{self.name}: priority is not a parameter; give it as the queue priority")
        known = ", ".join(p.name for p in self.parameters) or "none"
        raise ParameterError(f"{self.name} takes no parameter {name!r}; it takes {known}")

    def default(self, name: str) -> Any:
        """Return the constructor's default of parameter ``name`` (a factory's product for attrs classes)."""
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

    def build(self, priority: Priority | None = None, **params: Any) -> Scheduler:
        """Return a new scheduler with the given priority and parameters (as a spec holds them).

        Raises:
            ParameterError: A priority for a scheduler without one, an unknown parameter, or a
                value the scheduler refuses.
        """
        kwargs = {name: self.parameter(name).value(value) for name, value in params.items()}
        if priority is not None:
            if not self.takes_priority:
                raise ParameterError(f"{self.name} takes no queue priority")
            kwargs["priority"] = priority
        scheduler: Scheduler = self.cls(**kwargs)
        return scheduler


_DEPTH = Parameter(
    "depth",
    depth_from_text,
    "reservation depth: reservations for the first K blocked jobs, or inf",
    metavar="K",
    samples=(3, None),
)


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
        """Add ``entry`` at the end. O(names).

        Raises:
            ParameterError: One of its names is taken, or it is not an :class:`Entry`.
        """
        if not isinstance(entry, Entry):
            raise ParameterError(f"register takes an Entry, got {entry!r}")
        taken = [name for name in entry.names if name in self._by_name]
        if taken:
            raise ParameterError(
                f"cannot register {entry.name}: {', '.join(taken)} already names a scheduler"
            )
        self._entries.append(entry)
        self._by_name.update(dict.fromkeys(entry.names, entry))

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
        Entry(EASY, parameters=(_DEPTH,)),
        Entry(Conservative),
        Entry(
            PC,
            parameters=(
                Parameter(
                    "restart",
                    bool_from_text,
                    "rescan the queue from its head after every improved reservation",
                    samples=(False,),
                ),
            ),
        ),
        Entry(DC),
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
                Parameter(
                    "by",
                    _no_text,
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
                    _no_text,
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
