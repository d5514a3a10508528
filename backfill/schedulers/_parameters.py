"""Parameters the registry shares between entries, and what a parameter name means to each scheduler.

The registry (:mod:`backfill.schedulers.registry`) declares each scheduler's parameters in its
entry. Some built-ins declare a parameter alike: the reservation depth (:data:`DEPTH`), Slurm's
planning window and test limit (:func:`limits`); these are also the parameters Slurm's names set
(:data:`SLURM_TARGETS`). A scheduler of one's own may still declare a parameter of one of these
names with a meaning of its own: parameters of one name mean the same only when
:func:`same_meaning` says so, and :func:`meanings` groups the entries that take a name by what it
means to them (:class:`Meaning`), which is what the command line's options and help are built from.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import attrs

from backfill.schedulers._planning_options import PLANNING_OPTIONS
from backfill.schedulers._text import (
    Parameter,
    depth_from_text,
    optional_duration_from_text,
    optional_int_from_text,
)


class _Declares(Protocol):
    """What a meaning reads of a registry entry (the registry imports this module, not the reverse)."""

    @property
    def name(self) -> str: ...

    @property
    def cli_name(self) -> str: ...

    @property
    def parameters(self) -> tuple[Parameter, ...]: ...

    def default(self, name: str) -> Any: ...

    def default_text(self, name: str) -> str: ...

    def is_switch(self, name: str) -> bool: ...


__all__ = [
    "DEPTH",
    "MAX_TESTED",
    "PLANNING_WINDOW",
    "SLURM_TARGETS",
    "Meaning",
    "limits",
    "meanings",
    "same_meaning",
]

#: EASY's and RelShare's reservation depth.
DEPTH = Parameter(
    "depth",
    depth_from_text,
    "reservation depth: reservations for the first K blocked jobs, or inf",
    metavar="K",
    samples=(3, None),
)
#: Slurm's planning window, in seconds, of every scheduler whose class takes ``planning_window``.
PLANNING_WINDOW = Parameter(
    "planning_window",
    optional_duration_from_text,
    "planning window (Slurm's bf_window, here in seconds): a job whose earliest start lies beyond "
    "now + W gets no reservation; seconds, or e.g. 4h, 1d; none for no window",
    metavar="DURATION",
    samples=(600.0,),
)
#: Slurm's test limit, of every scheduler whose class takes ``max_tested``.
MAX_TESTED = Parameter(
    "max_tested",
    optional_int_from_text,
    "queued jobs each decision goes through (Slurm's bf_max_job_test), or none (the guarantee "
    "schedulers take it only with a planning window)",
    metavar="N",
    samples=(2,),
)
# The same parameter without a sample, for the schedulers that refuse it without a window (the
# test suite applies one sample at a time, the other parameters at their defaults).
_MAX_TESTED_WITH_WINDOW = attrs.evolve(MAX_TESTED, samples=())

#: The parameters Slurm's names set (besides the planning option ``resolution``): a Slurm name
#: applies to a scheduler only if its parameter of that name means the same.
SLURM_TARGETS: Mapping[str, Parameter] = {p.name: p for p in (PLANNING_WINDOW, MAX_TESTED, DEPTH)}

_PLANNING = frozenset(p.name for p in PLANNING_OPTIONS)


def limits(cls: type[Any], *, alone: bool = True) -> tuple[Parameter, ...]:
    """Slurm's planning limits that ``cls`` takes (read from its signature): the window, the test limit.

    ``alone=False``: ``cls`` takes a test limit only with a window, so it is not sampled alone.

    Examples:
        >>> from backfill.schedulers import FCFS, Conservative
        >>> [p.name for p in limits(Conservative)], limits(FCFS)
        (['planning_window', 'max_tested'], ())
    """
    taken = inspect.signature(cls).parameters
    tested = MAX_TESTED if alone else _MAX_TESTED_WITH_WINDOW
    return tuple(p for p in (PLANNING_WINDOW, tested) if p.name in taken)


def _meaning(p: Parameter) -> tuple[Any, ...]:
    # Not the samples (only the tests read them) nor the default (each class's own).
    return (type(p), p.parse, p.help, p.metavar, tuple(p.named_values))


def same_meaning(a: Parameter, b: Parameter) -> bool:
    """Whether two parameters are read, described and named alike (their samples aside).

    Examples:
        >>> same_meaning(MAX_TESTED, _MAX_TESTED_WITH_WINDOW), same_meaning(MAX_TESTED, DEPTH)
        (True, False)
    """
    return _meaning(a) == _meaning(b)


@attrs.frozen
class Meaning:
    """One meaning of a parameter name: the parameter as the schedulers that take it so declare it.

    Entries share a meaning when their parameters of that name are read, described and named alike
    (EASY's and RelShare's ``depth``); each still has its own default.

    Examples:
        >>> from backfill.schedulers.registry import SCHEDULERS
        >>> (depth,) = SCHEDULERS.meanings()["depth"]
        >>> depth.which, depth.defaults
        ('easy, relshare', '1')
    """

    parameter: Parameter
    entries: tuple[_Declares, ...]

    @property
    def name(self) -> str:
        """The parameter's name."""
        return self.parameter.name

    @property
    def which(self) -> str:
        """Who takes it so: ``every scheduler`` for a planning option, else their command-line names."""
        if self.name in _PLANNING:
            return "every scheduler"
        return ", ".join(e.cli_name for e in self.entries)

    @property
    def defaults(self) -> str:
        """Its default as typed, or each entry's (``1 (easy), inf (relshare)``) when they differ."""
        texts = {e.cli_name: e.default_text(self.name) for e in self.entries}
        if len(set(texts.values())) == 1:
            return next(iter(texts.values()))
        return ", ".join(f"{text} ({name})" for name, text in texts.items())


def meanings(entries: Iterable[_Declares]) -> dict[str, tuple[Meaning, ...]]:
    """Return every parameter name ``entries`` take, each with its meanings, as the command line offers them.

    The names come in the order of the entries' parameters, then the planning options (which all
    take, with one meaning); a name's meanings in the order of the first entry that takes each.
    O(entries x parameters).
    """
    chosen = list(entries)
    found: dict[str, dict[tuple[Any, ...], tuple[Parameter, list[_Declares]]]] = {}
    for entry in chosen:
        for p in entry.parameters:
            found.setdefault(p.name, {}).setdefault(_meaning(p), (p, []))[1].append(entry)
    for option in PLANNING_OPTIONS:
        found[option.name] = {_meaning(option): (option, chosen)}
    return {
        name: tuple(Meaning(p, tuple(takers)) for p, takers in by_meaning.values())
        for name, by_meaning in found.items()
    }
