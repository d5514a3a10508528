"""Where the command line's outputs go: checked before any simulation, written whole, named in errors.

Private to :mod:`backfill.cli`: ``simulate`` and ``compare`` check their outputs with
:func:`check_outputs` and write them with :func:`write_outputs`, each file through
:func:`~backfill._files.open_atomically` (a temporary file renamed into place, or a special file
written in place).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from backfill._files import is_special, same_file
from backfill.cli.options import CommandLineError

__all__ = ["OutputsInterrupted", "check_output_paths", "check_outputs", "write_outputs"]


class OutputsInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM while the outputs were written: those written, and those not.

    Each output is whole or absent (:func:`~backfill._files.open_atomically`), so the one being
    written when the interrupt came is among those not written, left as it was.

    Examples:
        >>> print(OutputsInterrupted([Path("m.csv")], [Path("m.json"), Path("jobs.csv")]))
        while writing the outputs: wrote m.csv; not written (left as they were): m.json, jobs.csv
    """

    def __init__(
        self, written: Sequence[Path], unwritten: Sequence[Path], failed: Sequence[Path] = ()
    ) -> None:
        super().__init__(written, unwritten)
        self.written, self.unwritten, self.failed = list(written), list(unwritten), list(failed)

    def __str__(self) -> str:
        wrote = ", ".join(map(str, self.written)) if self.written else "nothing"
        words = [f"while writing the outputs: wrote {wrote}"]
        if self.failed:
            words.append(f"could not write {', '.join(map(str, self.failed))}")
        if self.unwritten:
            words.append(f"not written (left as they were): {', '.join(map(str, self.unwritten))}")
        return "; ".join(words)


def check_outputs(
    outputs: Iterable[tuple[str, Path | None]],
    inputs: Iterable[str | os.PathLike[str]] = (),
    directories: Iterable[Path | None] = (),
    *,
    given: Iterable[tuple[str, Path | None]] = (),
) -> None:
    """Refuse, before any simulation, an output that cannot be written, is an input, or is another output.

    ``outputs`` are (option, path) pairs, every file the run will write (each schedule's file of
    ``--jobs-csv``, say), None for an option not given; ``given`` are the paths as the options gave
    them, checked first, so that a folder that cannot be made is named as given. Missing folders
    are made when the outputs are written (:func:`write_outputs`). A path names an input (or
    another output) when both are one file: the same device and inode where the file exists (a
    symbolic or hard link is seen through), the same resolved path otherwise. Special files
    (``/dev/null``, ``/dev/stdout``, a FIFO) are written in place, one output after the other, so
    several outputs may name one; none may be an input.

    Raises:
        CommandLineError: A file's folder cannot be made or written in, the file is a directory, an
            input, or the file of another output; the message names the options and paths.

    Examples:
        >>> check_outputs([("--csv", Path("m.csv")), ("--json", Path("m.csv"))])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        backfill.cli.options.CommandLineError: --csv and --json both write m.csv; give each output ...
    """
    check_output_paths([path for _, path in given], directories)
    sources = [Path(p) for p in inputs]
    seen: list[tuple[str, Path]] = []
    for option, path in outputs:
        if path is None:
            continue
        for source in sources:
            if same_file(path, source):
                alias = "" if os.path.abspath(path) == os.path.abspath(source) else " (the same file)"
                raise CommandLineError(
                    f"{option} {path} would overwrite the input {source}{alias}; give another path"
                )
        if not is_special(path):
            for other_option, other in seen:
                if same_file(path, other) and other_option == option:
                    raise CommandLineError(
                        f"{option} would write {path} twice; give the runs distinct labels"
                    )
                if same_file(path, other):
                    alias = "" if os.path.abspath(path) == os.path.abspath(other) else f" (as {other})"
                    raise CommandLineError(
                        f"{other_option} and {option} both write {path}{alias}; give each output its own path"
                    )
            seen.append((option, path))
        check_output_paths([path])


def write_outputs(outputs: Iterable[tuple[Path, Callable[[Path], object]]]) -> None:
    """Write each output by its writer, print ``wrote PATH`` for each written, and name those that failed.

    The folders an output needs are made just before it is written.

    Every output is tried, even after one fails (a full disk may spare a small file); each writer
    writes whole files or none (:func:`~backfill._files.open_atomically`), so a failed one leaves
    its path as it was.

    An interrupt (Ctrl-C, or SIGTERM as the command line turns it into one) stops the writing: the
    outputs written so far are printed as above, and :class:`OutputsInterrupted` says which were
    written and which were not.

    Raises:
        CommandLineError: An output could not be written: its path and why, and how many others failed.
        OutputsInterrupted: Interrupted while writing.
    """
    outputs = list(outputs)
    written: list[Path] = []
    failed: list[tuple[Path, OSError]] = []
    try:
        for path, write in outputs:
            try:
                if not is_special(path):
                    # Missing folders are made now, for every output alike (checked before the run).
                    path.parent.mkdir(parents=True, exist_ok=True)
                write(path)
            except OSError as e:
                failed.append((path, e))
            else:
                written.append(path)
    except KeyboardInterrupt:
        for path in written:
            print(f"wrote {path}")
        left = [path for path, _ in outputs[len(written) + len(failed) :]]
        raise OutputsInterrupted(written, left, [path for path, _ in failed]) from None
    for path in written:
        print(f"wrote {path}")
    if failed:
        first, error = failed[0]
        # Several outputs to one special file fail together: named once, counted.
        times = sum(p == first for p, _ in failed)
        others = list(dict.fromkeys(str(p) for p, _ in failed if p != first))
        message = f"cannot write {first}" + (f" ({times} outputs)" if times > 1 else "")
        message += f": {error.strerror or error}"
        message += f"; not written either: {', '.join(others)}" if others else ""
        raise CommandLineError(message)


def _creatable(directory: Path) -> str | None:
    """Why ``directory`` cannot be made or written in, or None: its nearest existing ancestor decides."""
    if directory.is_dir():
        return None if os.access(directory, os.W_OK) else "permission denied"
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{ancestor} is not a directory"
    if os.access(ancestor, os.W_OK | os.X_OK):
        return None
    return f"no permission to make folders in {ancestor}"


def check_output_paths(files: Iterable[Path | None], directories: Iterable[Path | None] = ()) -> None:
    """Refuse, before any simulation, an output file or directory that cannot be written.

    Every output treats a missing folder alike: it is created when the output is written (not
    before, so that a run stopped early leaves none empty), and refused now if it could not be, its
    nearest existing ancestor being a file or not writable. A special file (``/dev/null``,
    ``/dev/stdout``, a FIFO) is written in place: it needs to be writable itself. Other files are
    replaced through a temporary file beside them, so their folder must be writable.

    Raises:
        CommandLineError: A file's folder cannot be made or written in, or the file is a directory.
    """
    for directory in directories:
        if directory is None:
            continue
        if directory.exists() and not directory.is_dir():
            raise CommandLineError(f"cannot write in {directory}: it is not a directory")
        why = _creatable(directory)
        if why is not None:
            raise CommandLineError(f"cannot write in {directory}: {why}")
    for path in files:
        if path is None:
            continue
        if path.is_dir():
            raise CommandLineError(f"cannot write {path}: it is a directory")
        if is_special(path):
            if not os.access(path, os.W_OK):
                raise CommandLineError(f"cannot write {path}: permission denied")
            continue
        why = _creatable(path.parent)
        if why is None and path.exists() and not os.access(path, os.W_OK):
            why = "permission denied"
        if why is not None:
            raise CommandLineError(f"cannot write {path}: {why}")
