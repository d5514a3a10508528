"""The options of the measures both commands take: ``--metric``, ``--warmup`` and ``--cooldown``.

Private to :mod:`backfill.cli`. The ``--metric`` choices are the column vocabulary of
:mod:`backfill.experiments.columns`, named there once.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from backfill.cli.options import CommandLineError, read_values
from backfill.errors import ParameterError
from backfill.experiments.columns import MEASURE_GROUPS, METRIC_COLUMNS, measure_column
from backfill.measures.trim import Trim
from backfill.schedulers.registry import duration_from_text, non_negative_int_from_text

__all__ = ["add_metric_option", "add_trim_options", "metrics_wanted", "trim_wanted", "trim_words"]


def _metric_help() -> str:
    """The ``--metric`` choices, from the column vocabulary: the standard ones, then each group."""
    groups: dict[str, list[str]] = {}
    for column, group in MEASURE_GROUPS.items():
        groups.setdefault(group, []).append(column)
    categories = sorted({c.split("_", 1)[0] for c in groups.pop("category")})
    keys = dict.fromkeys(c.split("_", 1)[1] for c in MEASURE_GROUPS if MEASURE_GROUPS[c] == "category")
    parts = [f"standard: {' '.join(METRIC_COLUMNS)}"]
    parts += [f"{group.replace('_', ' ')}: {' '.join(columns)}" for group, columns in groups.items()]
    parts.append(f"per job category: {'|'.join(categories)}_{{{'|'.join(keys)}}}")
    return "; ".join(parts)


def add_metric_option(parser: argparse.ArgumentParser, default: str) -> None:
    """Add ``--metric``: the result columns to show, from :mod:`backfill.experiments.columns`."""
    parser.add_argument(
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=(
            f"measures to show (and write; the fairness, share, group and planning ones are "
            f"computed only when named here) -- {_metric_help()}; {default}"
        ),
    )


def add_trim_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--warmup`` and ``--cooldown``: the jobs every measure leaves out (see :func:`trim_wanted`)."""
    parser.add_argument(
        "--warmup",
        metavar="JOBS_OR_TIME",
        help=(
            "leave the first jobs out of every measure (not the simulation): a number of jobs, "
            "or a time such as 1d after the first submission"
        ),
    )
    parser.add_argument(
        "--cooldown",
        metavar="JOBS_OR_TIME",
        help=(
            "leave the last jobs out of every measure: a number of jobs, or a time before the last submission"
        ),
    )


def metrics_wanted(args: argparse.Namespace, default: Sequence[str]) -> list[str]:
    """Return the ``--metric`` columns, or ``default``; an unknown name is a one-line error."""
    return read_values(args.metric or default, measure_column, "--metric", "a metric")


def _trim_amount(text: str) -> int | float:
    """A number of jobs (a whole number) or, with a unit (s, min, h, d), a time in seconds."""
    stripped = text.strip()
    if stripped.startswith("-"):
        raise ParameterError("cannot be negative: give a number of jobs or a time such as 1d")
    if stripped.isdigit():
        # Not int(): str.isdigit() also holds for digits int() refuses, such as '²'.
        return non_negative_int_from_text(stripped)
    if stripped[-1:].isdigit():
        raise ParameterError(f"expected a number of jobs or a time such as 1d, got {text!r}")
    try:
        seconds = duration_from_text(stripped)
    except ParameterError:
        raise ParameterError(f"expected a number of jobs or a time such as 1d, got {text!r}") from None
    return seconds


def trim_wanted(args: argparse.Namespace) -> Trim:
    """Return the :class:`~backfill.measures.trim.Trim` of ``--warmup`` and ``--cooldown``."""
    amounts: dict[str, int | float] = {}
    for option in ("warmup", "cooldown"):
        text = getattr(args, option, None)
        if text is not None:
            try:
                amounts[option] = _trim_amount(text)
            except ParameterError as e:
                raise CommandLineError(f"--{option} {text!r}: {e}") from None
    return Trim(**amounts)


def trim_words(trim: Trim) -> str:
    """The words both commands print after the bound: which jobs of each run the measures leave out.

    Examples:
        >>> trim_words(Trim(warmup=100, cooldown=3600.0))
        '; the first 100 jobs and the last 3600 s of each run left out of the measures'
        >>> trim_words(Trim())
        ''
    """
    warmup, cooldown = trim.describe()
    words = [f"the first {warmup}" if warmup else "", f"the last {cooldown}" if cooldown else ""]
    left = " and ".join(w for w in words if w)
    return f"; {left} of each run left out of the measures" if left else ""
