"""What the ``backfill`` subcommands share: argument types, the scheduler options, the command's error."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from backfill.errors import BackfillError, ParameterError
from backfill.schedulers.registry import (
    SCHEDULERS,
    Entry,
    Parameter,
    depth_from_text,
    duration_from_text,
    non_negative_float_from_text,
    non_negative_int_from_text,
    positive_float_from_text,
    positive_int_from_text,
)

__all__ = [
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "NO_JOBS",
    "CommandLineError",
    "add_scheduler_options",
    "argument_type",
    "depth",
    "duration",
    "given_parameters",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
]

#: Jobs in the default synthetic workload.
DEFAULT_JOBS = 5_000
#: Processors of the default synthetic machine.
DEFAULT_MACHINE_SIZE = 128
#: Why both commands refuse a workload without a job (exit status 2).
NO_JOBS = "no jobs to simulate (the log has none, or the cleaning policy dropped them all)"


class CommandLineError(BackfillError):
    """An error of the command line's own (bad combination of options, unreadable file)."""


def argument_type(read: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """Return ``read`` as an argparse type: its :class:`ParameterError` becomes a usage error.

    Examples:
        >>> argument_type(positive_int_from_text, "positive_int")("3")
        3
    """

    def parse(text: str) -> Any:
        try:
            return read(text)
        except ParameterError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = name  # argparse names the type in some messages
    parse.__doc__ = f"The argparse type of :func:`~{read.__module__}.{read.__name__}`."
    return parse


positive_int = argument_type(positive_int_from_text, "positive_int")
non_negative_int = argument_type(non_negative_int_from_text, "non_negative_int")
positive_float = argument_type(positive_float_from_text, "positive_float")
non_negative_float = argument_type(non_negative_float_from_text, "non_negative_float")
duration = argument_type(duration_from_text, "duration")
depth = argument_type(depth_from_text, "depth")


def _is_switch(entry: Entry, p: Parameter) -> bool:
    return isinstance(entry.default(p.name), bool)


def _option(entry: Entry, p: Parameter) -> str:
    spelled = p.name.replace("_", "-")
    if _is_switch(entry, p):
        return f"--no-{spelled}" if entry.default(p.name) else f"--{spelled}"
    return f"--{spelled}"


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
    """Add one option per parameter of the registered schedulers (``--depth``, ``--window``, ...).

    A parameter several schedulers take (``depth``: EASY and RelShare) is one option for all of
    them. An option not given is absent from the parsed namespace (a value may be None, as
    ``--depth inf``): the scheduler's own default then applies.
    Switches that are on by default are spelled ``--no-<name>``.
    """
    users: dict[str, list[Entry]] = {}
    first: dict[str, Parameter] = {}
    for entry in SCHEDULERS:
        for p in entry.parameters:
            users.setdefault(p.name, []).append(entry)
            first.setdefault(p.name, p)
    for name, entries in users.items():
        p, entry = first[name], entries[0]
        defaults = sorted({e.default_text(name) for e in entries})
        which = ", ".join(e.cli_name for e in entries)
        if _is_switch(entry, p):
            value = not entry.default(name)
            parser.add_argument(
                _option(entry, p), dest=name, action="store_const", const=value, default=argparse.SUPPRESS,
                help=f"{which}: {'turn on' if value else 'turn off'}: {p.help}",
            )  # fmt: skip
            continue
        parser.add_argument(
            _option(entry, p),
            dest=name,
            type=argument_type(p.from_text, name),
            default=argparse.SUPPRESS,
            metavar=p.metavar,
            help=f"{which}: {p.help}; default {' / '.join(defaults)}",
        )


def given_parameters(entry: Entry, args: argparse.Namespace) -> dict[str, Any]:
    """Return the values of ``entry``'s parameters that were given on the command line."""
    return {p.name: getattr(args, p.name) for p in entry.parameters if hasattr(args, p.name)}
