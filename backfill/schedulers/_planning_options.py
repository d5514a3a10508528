"""The planning options every registered scheduler takes, and Slurm's names for planning settings.

:func:`~backfill.schedulers.prediction.planning.planning` wraps any scheduler, so its options (``predictor``,
``resolution``, ``correction``) are not constructor parameters of a scheduler class: the registry
(:mod:`backfill.schedulers.registry`) offers them for every entry as :data:`PLANNING_OPTIONS`, and
:meth:`~backfill.schedulers.registry.Entry.build` wraps the scheduler it built with them. A sweep
spec holds their values as text (``"last2"``, ``"steps"``) or numbers, like any parameter's.

:data:`SLURM_ALIASES` are Slurm's ``SchedulerParameters`` names for the same settings, read in
Slurm's units (``bf_window`` in minutes) and converted to the registry's parameter and unit, so that
two spellings of one setting are one spec. The registry re-exports every public name here.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from backfill.errors import ParameterError
from backfill.schedulers._text import (
    Parameter,
    duration_from_text,
    named_only,
    non_negative_int_from_text,
    optional_int_from_text,
    positive_float_from_text,
)
from backfill.schedulers.prediction.planning import CORRECTIONS, planning
from backfill.schedulers.prediction.predictors import UserHistory, exact_runtime, user_estimate

__all__ = [
    "PLANNING_OPTIONS",
    "SLURM_ALIASES",
    "PlanningOption",
    "PredictorNames",
    "SlurmAlias",
    "planning_default",
    "predictor_from_text",
    "resolution_from_text",
]

# What a user may type for UserHistory(N), and the one spelling a spec holds.
_LAST = re.compile(r"last0*([1-9][0-9]*)")
_HELD_LAST = re.compile(r"last[1-9][0-9]*")


class PredictorNames(Mapping[str, Callable[[], object]]):
    """The predictors by the name a user types: ``estimate``, ``exact`` and ``lastN`` for any N >= 1.

    ``lastN`` is :class:`~backfill.schedulers.prediction.predictors.UserHistory` with ``count=N`` (``last2``
    is Tsafrir et al.'s). Iterating lists ``estimate``, ``exact`` and ``last2``, the names the help shows.

    Examples:
        >>> names = PredictorNames()
        >>> list(names), "last3" in names, names["last3"]()
        (['estimate', 'exact', 'last2'], True, UserHistory(count=3))
    """

    _FIXED: Mapping[str, Callable[[], object]] = {
        "estimate": lambda: user_estimate,
        "exact": lambda: exact_runtime,
    }

    def __getitem__(self, name: str) -> Callable[[], object]:
        fixed = self._FIXED.get(name)
        if fixed is not None:
            return fixed
        if not (isinstance(name, str) and _HELD_LAST.fullmatch(name)):
            raise KeyError(name)
        count = int(name[4:])
        return lambda: UserHistory(count)

    def __iter__(self) -> Iterator[str]:
        return iter(("estimate", "exact", "last2"))

    def __len__(self) -> int:
        return 3


def predictor_from_text(text: str) -> str:
    """Read a predictor's name: ``estimate``, ``exact`` or ``lastN`` (N >= 1), in any letter case.

    Examples:
        >>> predictor_from_text("Exact"), predictor_from_text("last3")
        ('exact', 'last3')
    """
    name = text.strip().lower()
    match = _LAST.fullmatch(name)
    if match is not None:
        return f"last{match.group(1)}"
    if name in PredictorNames._FIXED:
        return name
    raise ParameterError(
        "expected estimate, exact or lastN (the mean of the user's last N runtimes, e.g. last2), "
        f"got {text!r}"
    )


def resolution_from_text(text: str) -> float:
    """Read a time resolution in seconds: 0 (plan exactly), a number, or a duration such as 1min.

    Examples:
        >>> resolution_from_text("60"), resolution_from_text("5min"), resolution_from_text("0")
        (60.0, 300.0, 0.0)
    """
    stripped = text.strip()
    try:
        if float(stripped) == 0:
            return 0.0
    except ValueError:
        pass
    return duration_from_text(stripped)


@attrs.frozen
class PlanningOption(Parameter):
    """An option of :func:`~backfill.schedulers.prediction.planning.planning` all registered schedulers take.

    A :class:`~backfill.schedulers.registry.Parameter` whose value goes to ``planning`` rather than
    to the scheduler's constructor. A named value is refused unless it is a name (so that a spec
    never holds an object).
    """

    def value(self, held: Any) -> Any:
        """Return the argument of ``planning`` for a spec's value ``held`` (a name's object, or itself)."""
        if not self.named_values:
            return held
        if not isinstance(held, str):
            raise ParameterError(
                f"{self.name} is given by name ({', '.join(self.named_values)}), got {held!r}"
            )
        return self.named_values[self.from_text(held)]()


#: The options of :func:`~backfill.schedulers.prediction.planning.planning`, in the order the help lists them.
PLANNING_OPTIONS: tuple[PlanningOption, ...] = (
    PlanningOption(
        "predictor",
        predictor_from_text,
        "runtime each job is planned with (the estimate stays its kill time): estimate (the user's, "
        "as without this option), exact (an oracle), lastN (the mean of the user's last N runtimes, "
        "capped by the estimate: last2 is Tsafrir et al.'s EASY++)",
        metavar="estimate|exact|lastN",
        named_values=PredictorNames(),
    ),
    PlanningOption(
        "resolution",
        resolution_from_text,
        "round planned runtimes up to a multiple of this many seconds (Slurm's bf_resolution; 0 plans "
        "them exactly)",
        metavar="SECONDS",
    ),
    PlanningOption(
        "correction",
        named_only,
        "when a job outlives its predicted runtime, plan it to its estimate, or extend it by "
        "Tsafrir et al.'s steps (1 min, 5 min, 15 min, ...)",
        metavar="|".join(CORRECTIONS),
        named_values={name: functools.partial(str, name) for name in CORRECTIONS},
    ),
)


def planning_default(name: str) -> Any:
    """Return ``planning``'s default of option ``name``, read from its signature.

    Examples:
        >>> planning_default("resolution"), planning_default("correction")
        (0.0, 'estimate')
    """
    return inspect.signature(planning).parameters[name].default


# -- Slurm's names -------------------------------------------------------------------------------


def _minutes(text: str) -> float:
    return positive_float_from_text(text) * 60.0


def _reserve(text: str) -> int | None:
    # Slurm's bf_job_part_count_reserve: 0 (its default) reserves for every job, as depth None does.
    count = non_negative_int_from_text(text)
    return None if count == 0 else count


@attrs.frozen
class SlurmAlias:
    """A Slurm ``SchedulerParameters`` name for a registry parameter, read in Slurm's unit.

    Attributes:
        name: Slurm's name (``bf_window``); the command line spells it ``--bf-window``.
        target: The parameter it sets (``planning_window``).
        read: Reads a value in Slurm's unit and returns the target's value as a spec holds it.
        metavar: The placeholder of the value in the help.
        help: What it sets, in which unit, and Slurm's default, for the command line's help.
    """

    name: str
    target: str
    read: Callable[[str], Any]
    metavar: str
    help: str

    def from_text(self, text: str) -> Any:
        """Return the target's value of ``text`` in Slurm's unit.

        Examples:
            >>> SLURM_ALIASES["bf_window"].from_text("2")
            120.0
        """
        try:
            return self.read(text)
        except ParameterError as e:
            raise ParameterError(f"{self.name}: {e}") from None

    def from_value(self, value: object) -> Any:
        """Return the target's value of a spec's value (a JSON number, or text) in Slurm's unit.

        Examples:
            >>> SLURM_ALIASES["bf_job_part_count_reserve"].from_value(0) is None
            True
        """
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ParameterError(f"{self.name}: expected a number in Slurm's unit, got {value!r}")
        return self.from_text(str(value))


#: Slurm's names, in its units, for the registry's planning settings (``slurm.conf``
#: ``SchedulerParameters``): ``bf_window`` (minutes), ``bf_resolution`` (seconds), ``bf_max_job_test``
#: and ``bf_job_part_count_reserve`` (0 meaning every job, as in Slurm).
SLURM_ALIASES: Mapping[str, SlurmAlias] = {
    a.name: a
    for a in (
        SlurmAlias(
            "bf_window",
            "planning_window",
            _minutes,
            "MINUTES",
            "the planning window in minutes (planning_window = 60 x MINUTES s); Slurm's default 1440, a day",
        ),
        SlurmAlias(
            "bf_resolution",
            "resolution",
            positive_float_from_text,
            "SECONDS",
            "the time resolution in seconds (= resolution); Slurm's default 60",
        ),
        SlurmAlias(
            "bf_max_job_test",
            "max_tested",
            optional_int_from_text,
            "N",
            "queued jobs each decision goes through (= max_tested); Slurm's default 500",
        ),
        SlurmAlias(
            "bf_job_part_count_reserve",
            "depth",
            _reserve,
            "N",
            "the reservation depth (= depth), 0 for every waiting job as in Slurm, its default",
        ),
    )
}
