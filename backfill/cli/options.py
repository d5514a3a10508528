"""The vocabulary both ``backfill`` commands share: options, their spellings, types and messages.

``simulate`` and ``compare`` add the same options from here (:func:`add_run_options`): the
schedulers (``NAME`` or ``NAME:K=V,...``) and one option per scheduler parameter name and planning
option (all read from the registry; a name several schedulers take with different meanings is one
option, read by each chosen scheduler's own parameter), Slurm's names for planning settings
(``--bf-window MINUTES`` and the like, converted to the parameter they set), ``--priority``,
``--load``, ``--estimates`` (``user`` or ``exact``), ``--bound``, the machine-readable outputs
(``--csv``, ``--json``, ``--jobs-csv``), ``--figures`` and ``--progress``. A value that is a
workload given after a many-valued option gets the same message in both (:data:`ORDER_HINT`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from backfill._files import is_special
from backfill.cli._parser import Parser
from backfill.errors import BackfillError, ParameterError
from backfill.experiments.progress import LINES, Progress
from backfill.experiments.specs import SchedulerSpec, split_spec_text
from backfill.measures.metrics import DEFAULT_BOUND
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.schedulers.registry import (
    PLANNING_OPTIONS,
    SCHEDULERS,
    SLURM_ALIASES,
    Entry,
    Meaning,
    depth_from_text,
    duration_from_text,
    non_negative_float_from_text,
    non_negative_int_from_text,
    positive_float_from_text,
    positive_int_from_text,
    scheduler_entry,
)

__all__ = [
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "DEFAULT_SCHEDULERS",
    "ESTIMATE_WORDS",
    "NO_JOBS",
    "ORDER_HINT",
    "CommandLineError",
    "Parser",
    "add_run_options",
    "add_scheduler_options",
    "argument_type",
    "depth",
    "duration",
    "estimate_policies",
    "given_parameters",
    "loads",
    "looks_like_workload",
    "non_negative_float",
    "non_negative_int",
    "output_path",
    "positive_float",
    "positive_int",
    "priorities",
    "progress_wanted",
    "read_values",
    "scheduler_spec",
    "scheduler_specs",
    "slug",
    "split_params",
    "unused_options",
]

#: Jobs in the default synthetic workload.
DEFAULT_JOBS = 5_000
#: Processors of the default synthetic machine.
DEFAULT_MACHINE_SIZE = 128
#: The schedulers both commands run when ``--scheduler`` is not given.
DEFAULT_SCHEDULERS = ("fcfs", "easy", "conservative")
#: Why both commands refuse a workload without a job (exit status 2).
NO_JOBS = "no jobs to simulate (the log has none, or the cleaning policy dropped them all)"


class CommandLineError(BackfillError):
    """An error of the command line's own (bad combination of options, unreadable file)."""


def _said_of(text: str, reason: str) -> str:
    """The reason a reader gave for refusing ``text``; for a negative value, that it is negative.

    Examples:
        >>> _said_of("-4h", "window: expected a positive number, got -4")
        'window: -4h is negative; expected a positive number'
        >>> _said_of("-x", "goal must be one of G1, G2, got '-x'")
        "goal must be one of G1, G2, got '-x'"
    """
    rest = text[1:].lower()
    if not text.startswith("-") or not (rest[:1].isdigit() or rest[:1] == "." or rest.startswith("inf")):
        return reason  # not a negative number, whatever else it is
    name, colon, said = reason.rpartition(": ")
    expected = said.split(", got ")[0]
    return f"{name}{colon}{text} is negative; {expected}"


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
            raise argparse.ArgumentTypeError(_said_of(text, str(e))) from None

    parse.__name__ = name  # argparse names the type in some messages
    parse.__doc__ = f"The argparse type of :func:`~{read.__module__}.{read.__name__}`."
    return parse


positive_int = argument_type(positive_int_from_text, "positive_int")
non_negative_int = argument_type(non_negative_int_from_text, "non_negative_int")
positive_float = argument_type(positive_float_from_text, "positive_float")
non_negative_float = argument_type(non_negative_float_from_text, "non_negative_float")
duration = argument_type(duration_from_text, "duration")
depth = argument_type(depth_from_text, "depth")

#: The planning options, which every scheduler takes.
_EVERY = frozenset(p.name for p in PLANNING_OPTIONS)


def _spelled(name: str) -> str:
    return "--" + name.replace("_", "-")


def _meanings_help(meanings: Sequence[Meaning], verb: str | None = None) -> str:
    """The help of one option: each meaning of its name, after the schedulers that take it so.

    ``verb`` (``turn on``) for a switch, which has no value, placeholder or default to show.
    """
    several = len(meanings) > 1
    parts = []
    for m in meanings:
        said = f"{verb}: {m.parameter.help}" if verb else f"{m.parameter.help}; default {m.defaults}"
        placeholder = f" ({m.parameter.metavar})" if several and not verb else ""
        parts.append(f"{m.which}{placeholder}: {said}")
    return ". ".join(parts)


def _text_checked(name: str, meanings: Sequence[Meaning]) -> Callable[[str], str]:
    """The argparse type of ``--NAME``: the text itself, once some scheduler's reader accepts it.

    Each chosen scheduler reads it later with its own parameter (:func:`given_parameters`); a text
    no taker can read is refused at once, with every reader's reason.
    """

    def check(text: str) -> str:
        reasons = []
        for m in meanings:
            try:
                m.parameter.from_text(text)
            except ParameterError as e:
                owners = " and ".join(entry.name for entry in m.entries)
                said = _said_of(text, str(e))
                reason = said.removeprefix(f"{name}: ")
                reasons.append(f"{owners}'s {name}: {reason}" if len(meanings) > 1 else said)
            else:
                return text
        raise argparse.ArgumentTypeError("; ".join(reasons))

    check.__name__ = name
    return check


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
    """Add one option per parameter name of the registered schedulers (``--depth``, ``--window``, ...).

    A name several schedulers take is one option for all of them, even where it means different
    things (:meth:`~backfill.schedulers.registry.Registry.meanings`): its help lists each meaning
    with the schedulers that take it so, and each chosen scheduler reads the value with its own
    parameter (:func:`given_parameters`). An option not given is absent from the parsed namespace:
    the scheduler's own default then applies. A switch (a parameter with a bool default) takes no
    value: ``--<name>`` turns it on where it is off by default, ``--no-<name>`` off where it is on.
    Then Slurm's names (``--bf-window MINUTES``, ...), each read in Slurm's unit into the parameter
    it sets.
    """
    meanings = SCHEDULERS.meanings()
    for name, group in meanings.items():
        takers = [e for m in group for e in m.entries]
        if takers[0].is_switch(name):  # then for all of them (the registry refuses a mix)
            for value in sorted({not e.default(name) for e in takers}, reverse=True):
                parser.add_argument(
                    _spelled(name) if value else _spelled(f"no_{name}"), dest=name, action="store_const",
                    const=value, default=argparse.SUPPRESS,
                    help=_meanings_help(group, "turn on" if value else "turn off"),
                )  # fmt: skip
            continue
        parser.add_argument(
            _spelled(name),
            dest=name,
            type=_text_checked(name, group),
            default=argparse.SUPPRESS,
            metavar="|".join(dict.fromkeys(m.parameter.metavar for m in group)),
            help=_meanings_help(group),
        )
    for alias in SLURM_ALIASES.values():
        takers = [e for e in SCHEDULERS if e.takes_slurm(alias.name)]
        if not takers:
            continue
        which = "every scheduler" if alias.target in _EVERY else ", ".join(e.cli_name for e in takers)
        parser.add_argument(
            _spelled(alias.name),
            dest=alias.name,
            type=argument_type(alias.from_text, alias.name),
            default=argparse.SUPPRESS,
            metavar=alias.metavar,
            help=f"{which}: Slurm's {alias.name}: {alias.help}",
        )


def _read(entry: Entry, name: str, text: str) -> Any:
    """``entry``'s value of ``--NAME text``, read by its own parameter."""
    try:
        return entry.parameter(name).from_text(text)
    except ParameterError as e:
        reason = str(e).removeprefix(f"{name}: ")
        raise CommandLineError(
            f"{_spelled(name)} {text!r} is not a value of {entry.name}'s {name}: {reason}"
        ) from None


def given_parameters(entry: Entry, args: argparse.Namespace, besides: Collection[str] = ()) -> dict[str, Any]:
    """Return the values of ``entry``'s parameters and planning options given on the command line.

    Each value is read from its text by ``entry``'s own parameter of that name, whatever another
    scheduler's parameter of the name means. A Slurm name (``--bf-window``) gives the parameter it
    sets, in that parameter's unit, to a scheduler whose parameter means what Slurm's does. The
    parameters named in ``besides`` (those its ``NAME:K=V`` gives itself) are left out, unread.

    Raises:
        CommandLineError: A text ``entry``'s parameter cannot read (naming the scheduler and the
            parameter), or a parameter given both by its own option and by Slurm's name.
    """
    given = {}
    for p in entry.options:
        if hasattr(args, p.name) and p.name not in besides:
            value = getattr(args, p.name)
            # Switches hold their bool; every other option holds its text, read here.
            given[p.name] = _read(entry, p.name, value) if isinstance(value, str) else value
    for alias in SLURM_ALIASES.values():
        if hasattr(args, alias.name) and entry.takes_slurm(alias.name) and alias.target not in besides:
            if alias.target in given:
                raise CommandLineError(
                    f"{_spelled(alias.name)} and {_spelled(alias.target)} set the same parameter; give one"
                )
            given[alias.target] = getattr(args, alias.name)
    return given


def unused_options(args: argparse.Namespace, entries: Iterable[Entry]) -> list[str]:
    """Return the parameter options given (``depth``, ``bf_window``) that none of ``entries`` takes."""
    chosen = list(entries)
    unused = [
        name for name in SCHEDULERS.meanings()
        if name not in _EVERY and hasattr(args, name) and not any(e.takes(name) for e in chosen)
    ]  # fmt: skip
    unused += [
        name for name in SLURM_ALIASES
        if hasattr(args, name) and not any(e.takes_slurm(name) for e in chosen)
    ]  # fmt: skip
    return sorted(unused)


# -- the options both commands take ----------------------------------------------------------------

#: What both commands say when a workload comes after an option that takes several values.
ORDER_HINT = "give the workload first, before the options (or after them, following --)"

#: The words ``--estimates`` takes, and the policy each names: ``user`` keeps the workload's own
#: estimates (a log's users' estimates; the synthetic model's f-model estimates), ``exact`` sets
#: every estimate to the job's runtime. ``accurate`` is another word for ``exact``; ``f-model``
#: names the model's own estimates, so it is ``user`` for the model and an error with a log.
ESTIMATE_WORDS: dict[str, str] = {"user": "user", "exact": "exact", "accurate": "exact", "f-model": "f-model"}


def looks_like_workload(text: str) -> bool:
    """Whether a command-line word names a workload: an SWF log (or any existing file) or ``model``.

    Examples:
        >>> [looks_like_workload(w) for w in ("CTC-SP2.swf.gz", "model:n=100", "easy")]
        [True, True, False]
    """
    if text == "model" or text.startswith("model:") or text.endswith((".swf", ".gz", ".bz2", ".xz")):
        return True
    return os.path.isfile(text)


def read_values(texts: Iterable[str] | None, read: Callable[[str], Any], option: str, what: str) -> list[Any]:
    """Return the values of a many-valued option, each read by ``read``, repeats dropped.

    Both commands read their options of many values this way, after parsing, so that a bad value
    gets the same one-line error in both. A bad value that names a workload gets
    :data:`ORDER_HINT`: options of many values take every word after them, so a workload given
    after one is the likely mistake.

    Raises:
        CommandLineError: A value ``read`` refuses, naming the option and the value.

    Examples:
        >>> read_values(["1.5", "2", "1.5"], positive_float_from_text, "--load", "a load factor")
        [1.5, 2.0]
        >>> read_values(["CTC.swf"], positive_float_from_text, "--load", "a load factor")
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        backfill.cli.options.CommandLineError: --load 'CTC.swf' is a workload, not a load factor: give ...
    """
    values = []
    for text in texts or ():
        try:
            values.append(read(text))
        except (BackfillError, ValueError) as e:
            if looks_like_workload(text):
                raise CommandLineError(f"{option} {text!r} is a workload, not {what}: {ORDER_HINT}") from None
            said = _said_of(text, str(e))
            message = said if said.startswith(option) else f"{option} {text!r}: {said}"
            raise CommandLineError(message) from None
    return list(dict.fromkeys(values))


def split_params(text: str, what: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``NAME:K=V,...`` into the name and its (key, value) texts.

    Raises:
        CommandLineError: A pair that is not ``K=V``, or a key given twice, naming ``what``.

    Examples:
        >>> split_params("easy:depth=4", "--scheduler")
        ('easy', [('depth', '4')])
    """
    try:
        return split_spec_text(text)
    except ParameterError as e:
        raise CommandLineError(f"{what} {text!r}: {e}") from None


def scheduler_spec(text: str) -> SchedulerSpec:
    """Return the sweep spec of ``NAME[:K=V,...][+RESOURCE...]`` (:meth:`SchedulerSpec.parse`).

    Slurm's names (``bf_window=1440``, in minutes) are read into the parameter they set.

    Examples:
        >>> scheduler_spec("relshare:window=4h,expected_usage=false").label
        'RelShare(expected_usage=False, window=14400.0)'
        >>> scheduler_spec("easy:bf_window=1440") == scheduler_spec("easy:planning_window=1d")
        True
    """
    split_params(text, "--scheduler")  # the command line's own words for a malformed pair
    try:
        return SchedulerSpec.parse(text)
    except BackfillError as e:
        raise CommandLineError(f"--scheduler {text!r}: {e}") from None


def _priority(text: str) -> str:
    if text not in PRIORITIES:
        raise ParameterError(f"unknown priority {text!r}; known: {', '.join(PRIORITIES)}")
    return text


def _estimates(text: str) -> str:
    if text not in ESTIMATE_WORDS:
        raise ParameterError(f"unknown estimates {text!r}; known: {', '.join(ESTIMATE_WORDS)}")
    return text


def _scheduler_help() -> str:
    """The help of ``--scheduler``: every registered name and its parameters, from the registry."""
    described = []
    for entry in SCHEDULERS:
        alias = f" ({', '.join(entry.aliases)})" if entry.aliases else ""
        keys = ", ".join(p.name for p in entry.parameters)
        described.append(f"{entry.name.lower()}{alias}" + (f" [{keys}]" if keys else ""))
    planned = ", ".join(p.name for p in PLANNING_OPTIONS)
    slurm = ", ".join(SLURM_ALIASES)
    return (
        "schedulers as NAME or NAME:K=V,... (e.g. easy:depth=4, selective:threshold=20, "
        "relshare:window=4h,expected_usage=false, lookahead:goal=G2, easy:predictor=last2,bf_window=1440); "
        "NAME [its keys K] one of "
        + "; ".join(described)
        + f". Every scheduler also takes {planned}; Slurm's names {slurm} are keys too, in Slurm's "
        "units, for the schedulers that take the parameter they set. A key is the scheduler's own: "
        "its value is read by that scheduler's parameter, as the option of the same name below "
        "reads it for that scheduler; the option sets the parameter of every scheduler that takes "
        "it and does not give it itself"
    )


def add_run_options(parser: argparse.ArgumentParser, *, sweep: bool) -> None:
    """Add the options both commands share, spelled and read alike.

    ``--scheduler``, ``--priority``, ``--load`` and ``--estimates`` take one or more values in
    both commands (``--scheduler`` defaults to :data:`DEFAULT_SCHEDULERS` in both); ``simulate``
    (``sweep=False``) runs every scheduler under every priority, but one
    load factor and one estimate policy (``compare`` sweeps those). Then one option per scheduler
    parameter (:func:`add_scheduler_options`), ``--bound``, the outputs and ``--progress``.
    """
    several = "; several are swept" if sweep else "; one"
    parser.add_argument(
        "--scheduler",
        nargs="+",
        action="extend",
        metavar="SPEC",
        help=_scheduler_help() + f"; default: {' '.join(DEFAULT_SCHEDULERS)}",
    )
    taking = ", ".join(e.cli_name for e in SCHEDULERS if e.takes_priority)
    parser.add_argument(
        "--priority",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=(
            f"queue orders ({', '.join(PRIORITIES)}) of {taking}, each run under every one; the others "
            "keep their own order; default fcfs"
        ),
    )
    # simulate takes one value (given again, it says so); compare sweeps several.
    many: dict[str, Any] = {"nargs": "+", "action": "extend"} if sweep else {"action": "append"}
    parser.add_argument(
        "--load",
        **many,
        metavar="FACTOR",
        help=f"raise the arrival rate by FACTOR (submit times divided by it){several}; default 1",
    )
    parser.add_argument(
        "--estimates",
        **many,
        metavar="POLICY",
        help=(
            "runtime estimates: user keeps the workload's (a log's users' estimates, the model's "
            "f-model ones; f-model says the same for the model), exact (or accurate) sets each to "
            f"the job's runtime{several}; default user"
        ),
    )
    add_scheduler_options(parser)
    parser.add_argument(
        "--bound",
        type=positive_float,
        default=DEFAULT_BOUND,
        metavar="SECONDS",
        help=f"threshold of the bounded slowdown (default {DEFAULT_BOUND:g} s)",
    )
    parser.add_argument(
        "--csv", type=Path, metavar="PATH", help="write the metrics, one row per schedule, as CSV to PATH"
    )
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="write the metrics and their provenance as JSON to PATH"
    )
    parser.add_argument(
        "--jobs-csv",
        type=Path,
        metavar="PATH",
        help=(
            "write every job's result as CSV in the layout evalys reads (one file per schedule: with "
            "several, what tells them apart is added before the suffix)"
        ),
    )
    parser.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="write figures (PNG) to DIR (needs matplotlib: the plot extra)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=(
            "show a progress bar on standard error (needs tqdm: the progress extra); default: a bar on "
            "a terminal, else a line now and then; --no-progress: neither"
        ),
    )


def scheduler_specs(
    args: argparse.Namespace, default: Sequence[str] = DEFAULT_SCHEDULERS
) -> list[SchedulerSpec]:
    """Return the chosen schedulers (``default`` without ``--scheduler``), each with its parameter options.

    Each scheduler reads an option's text with its own parameter of that name
    (:func:`given_parameters`). A parameter a ``NAME:K=V`` spec gives itself wins over the option
    of the same name.

    Raises:
        CommandLineError: A spec or an option's value that a chosen scheduler refuses, naming it.
    """
    specs = read_values(args.scheduler or default, scheduler_spec, "--scheduler", "a scheduler")
    out = []
    for spec in specs:
        entry = scheduler_entry(spec.name)
        params = given_parameters(entry, args, besides=dict(spec.params)) | dict(spec.params)
        try:
            machine = {"resources": spec.resources, "nodes": spec.nodes, "placement": spec.placement}
            out.append(SchedulerSpec(spec.name, tuple(params.items()), **machine))
        except BackfillError as e:
            raise CommandLineError(f"--scheduler {spec.label}: {e}") from None
    return list(dict.fromkeys(out))


def priorities(args: argparse.Namespace) -> list[str]:
    """Return the ``--priority`` names (default ``fcfs``)."""
    return read_values(args.priority or ["fcfs"], _priority, "--priority", "a priority")


def loads(args: argparse.Namespace) -> list[float]:
    """Return the ``--load`` factors (default 1)."""
    return read_values(args.load or ["1"], positive_float_from_text, "--load", "a load factor")


def estimate_policies(args: argparse.Namespace, logs: Iterable[str]) -> list[str]:
    """Return the estimate policies (``user``, ``exact``) that the ``--estimates`` words name.

    Raises:
        CommandLineError: An unknown word, or ``f-model`` with a log among the workloads (``logs``,
            their names).
    """
    words = read_values(args.estimates or ["user"], _estimates, "--estimates", "an estimate policy")
    logs = list(logs)
    if "f-model" in words and logs:
        raise CommandLineError(
            f"--estimates f-model: {logs[0]} is a log, and only the synthetic model has f-model "
            "estimates; user keeps the log's own, exact sets them to the runtimes"
        )
    return list(dict.fromkeys("user" if w == "f-model" else ESTIMATE_WORDS[w] for w in words))


def progress_wanted(args: argparse.Namespace) -> Progress:
    """The progress to show: ``--progress`` a bar, ``--no-progress`` none, else a bar or lines.

    By default, a bar on a terminal (with tqdm), else a line now and then on standard error
    (``"lines"``, which needs nothing installed).

    Raises:
        CommandLineError: ``--progress`` given without tqdm installed.
    """
    if args.progress is False:
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if args.progress:
            raise CommandLineError("--progress needs tqdm: pip install '.[progress]'") from None
        return LINES
    return True if args.progress or sys.stderr.isatty() else LINES


def slug(text: str) -> str:
    """Return a label as a part of a file name.

    Examples:
        >>> slug("EASY(depth=4)"), slug("lublin(n_jobs=50, seed=0)")
        ('easy-depth=4', 'lublin-n_jobs=50-seed=0')
    """
    return re.sub(r"[^a-z0-9._=+]+", "-", text.lower()).strip("-") or "x"


def output_path(base: Path, name: str, several: bool) -> Path:
    """Return ``base`` for one output; for one of several, ``base`` with ``-name`` before its suffix.

    A special file (``/dev/null``, ``/dev/stdout``, a FIFO) is ``base`` itself whatever the number
    of outputs: they are written to it one after the other, never to new files beside it.

    Examples:
        >>> output_path(Path("out/run.swf.gz"), "easy", True).as_posix()
        'out/run-easy.swf.gz'
        >>> output_path(Path("jobs.csv"), "easy", False).as_posix()
        'jobs.csv'
    """
    if not several or is_special(base):
        return base
    double = base.name.endswith((".swf.gz", ".csv.gz", ".json.gz"))
    suffix = "".join(base.suffixes[-2:]) if double else base.suffix
    stem = base.name[: len(base.name) - len(suffix)] if suffix else base.name
    return base.with_name(f"{stem}-{name}{suffix}")
