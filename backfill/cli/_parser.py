"""The parser of the ``backfill`` command line: one-line errors, negative values, usages as accepted.

Private to :mod:`backfill.cli`; :mod:`backfill.cli.options` re-exports :class:`Parser`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["Parser"]


class _UsageFirst(argparse.HelpFormatter):
    """The help formatter of both commands: the usage gives the positional arguments first.

    Both commands read their workloads first (options of many values take every word after them),
    so the usage shows them in that place: ``backfill compare TRACE_OR_MODEL [...] --scheduler ...``.
    """

    def _format_usage(self, usage: Any, actions: Any, groups: Any, prefix: Any) -> str:
        if usage is not None:
            return str(super()._format_usage(usage, actions, groups, prefix))
        start = "usage: " if prefix is None else str(prefix)
        prog = str(self._prog)
        ordered = [a for a in actions if not a.option_strings] + [a for a in actions if a.option_strings]
        parts: list[str] = []
        shown: set[int] = set()
        for action in ordered:
            # An option with its values is one part, never wrapped inside; a group of options too.
            group = next((g for g in groups if action in g._group_actions), None)
            if group is None:
                parts.append(self._format_actions_usage([action], []))
            elif id(group) not in shown:
                shown.add(id(group))
                parts.append(self._format_actions_usage(group._group_actions, [group]))
        width = max(self._width - self._current_indent, 40)
        indent = " " * (len(start) + len(prog) + 1)
        lines: list[str] = []
        line: str = prog
        for part in parts:
            if len(start) + len(line) + 1 + len(part) > width and line.strip():
                lines.append(line)
                line = indent + part
            else:
                line += " " + part
        lines.append(line)
        return start + "\n".join(lines) + "\n\n"


class Parser(argparse.ArgumentParser):
    """The parser of ``backfill`` and its commands: one-line errors, negative values read as values.

    An argument error is one line on standard error, ``PROG: error: MESSAGE; see 'PROG --help'``,
    with exit status 2, never the usage before it. A value that starts with ``-`` after an option
    that takes one (``--window -4h``, ``--depth -inf``) is that option's value, so its reader says
    what is wrong with it, rather than argparse taking it for an unknown option. ``hints`` maps the
    start of an argparse message to the message to give instead.

    Examples:
        >>> parser = Parser(prog="demo")
        >>> _ = parser.add_argument("--window")
        >>> parser.parse_args(["--window", "-4h"]).window
        '-4h'
    """

    def __init__(self, *args: Any, hints: dict[str, str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _UsageFirst)
        super().__init__(*args, **kwargs)
        self.hints = dict(hints or {})

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Parse as argparse does, a value starting with ``-`` after an option taking one being its value."""
        words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self._values_joined(words), namespace)

    def _values_joined(self, words: list[str]) -> list[str]:
        """``--opt -x`` as ``--opt=-x`` where ``--opt`` takes values and ``-x`` is no option.

        An option of several values (``nargs="+"``, ``action="extend"``, as every list option of
        the commands is) takes every word up to the next option: each one that starts with ``-``
        is given as ``--opt=-x`` of its own and the others after ``--opt``, in their order, since
        ``--opt=-x`` gives an option exactly one value and the words after it would be left over
        ("unrecognized arguments").
        """
        out: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            out.append(word)
            i += 1
            if word == "--":
                return out + words[i:]
            action = self._option_string_actions.get(word)
            if action is None and word.startswith("--") and self.allow_abbrev:
                # An unambiguous abbreviation (--win for --window), as argparse reads it.
                prefixed = {a for o, a in self._option_string_actions.items() if o.startswith(word)}
                action = prefixed.pop() if len(prefixed) == 1 else None
            if action is None or action.nargs == 0 or i == len(words):
                continue
            if action.nargs in ("+", "*") and isinstance(action, argparse._ExtendAction):
                values = []
                while i < len(words) and not self._is_option(words[i]):
                    values.append(words[i])
                    i += 1
                if any(v.startswith("-") for v in values):
                    out[-1:] = _spread(word, values)
                else:
                    out += values
                continue
            value = words[i]
            if value.startswith("-") and not self._is_option(value):
                out[-1] = f"{word}={value}"
                i += 1
        return out

    def _is_option(self, word: str) -> bool:
        """Whether a word ends an option's values: an option of this parser, or any ``--word``."""
        return word.startswith("--") or word in self._option_string_actions

    def error(self, message: str) -> Any:  # argparse's error never returns
        """Print one line, ``PROG: error: MESSAGE; see 'PROG --help'``, and exit with status 2."""
        for start, instead in self.hints.items():
            if message.startswith(start):
                message = instead
        line = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {line}; see '{self.prog} --help'\n")


def _spread(option: str, values: list[str]) -> list[str]:
    """The words giving ``values`` to an extending ``option``, each value starting with ``-`` joined.

    Examples:
        >>> _spread("--seeds", ["-1", "2", "3", "-x"])
        ['--seeds=-1', '--seeds', '2', '3', '--seeds=-x']
    """
    out: list[str] = []
    plain = False  # whether the last word is the option or one of its plain values
    for value in values:
        if value.startswith("-"):
            out.append(f"{option}={value}")
            plain = False
        else:
            out += [value] if plain else [option, value]
            plain = True
    return out
