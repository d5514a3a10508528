"""Writing a file whole, or not at all; telling special files and the same file under two names.

Every file the library writes (SWF logs, CSV and JSON results, figures, the sweep cache) goes
through :func:`open_atomically`: the bytes go to a temporary file beside the target, which is
flushed to disk and renamed over the target only once it is complete. An error, an interrupt or a
full disk therefore leaves the target as it was (absent, or its previous content), never half a file
or an empty one, and the error names the target, not the temporary file.

A special file (a device such as ``/dev/null``, a FIFO, a socket, or a name of an open descriptor
such as ``/dev/stdout``) cannot be replaced by renaming: it is written in place, after what was
written to it before, so that several outputs to one stream follow each other.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["is_special", "open_atomically", "same_file", "write_atomically"]

# Names that stand for an open descriptor rather than a file of their own: writing to them must
# reach whatever the descriptor is (a pipe, a terminal, the file a shell redirected to).
_DESCRIPTOR_DIRS = ("/dev/", "/proc/")
_FD_NAME = re.compile(r"/(?:proc/(?P<pid>self|[0-9]+)|dev)/fd/(?P<fd>[0-9]+)\Z")
# Symbolic links followed when looking for a descriptor's name, as the kernel's own limit.
_MAX_LINKS = 40


def _link_chain(path: str) -> Iterator[str]:
    """Yield ``path`` made absolute, then every name its symbolic links lead to, in order."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        yield current
        try:
            target = os.readlink(current)
        except OSError:
            return
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))


def _descriptor(path: str) -> int | None:
    """The number of this process's open descriptor that ``path`` names (``/dev/stdout`` is 1), or None."""
    for name in _link_chain(path):
        found = _FD_NAME.match(name)
        if found and found["pid"] in (None, "self", str(os.getpid())):
            return int(found["fd"])
    return None


def is_special(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written in place rather than replaced: an existing non-regular file.

    That is a device (``/dev/null``, ``/dev/full``), a FIFO, a socket, or a name under ``/dev`` or
    ``/proc`` (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``) even when the descriptor it
    names is a regular file, since replacing the name would not reach that file.

    Examples:
        >>> is_special("/dev/null"), is_special(__file__), is_special("no/such/file")
        (True, False, False)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if not stat.S_ISREG(mode):
        return True
    return any(name.startswith(_DESCRIPTOR_DIRS) for name in _link_chain(os.fspath(path)))


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same device and inode when both exist, else one real path.

    Symbolic and hard links are seen through: a hard link is another name of the same inode.

    Examples:
        >>> same_file(__file__, os.path.join(os.path.dirname(__file__), ".", os.path.basename(__file__)))
        True
        >>> same_file("a.csv", "b.csv")
        False
    """
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _named(e: OSError, target: str) -> OSError:
    """The error ``e`` as raised by the target: errno and reason kept, the file name the target's."""
    return OSError(e.errno, e.strerror or str(e), target)


def _temporary(final: str) -> tuple[int, str]:
    """Create a new empty file beside ``final``, with the mode ``final`` has (or the umask's)."""
    directory, name = os.path.split(final)
    try:
        mode = stat.S_IMODE(os.stat(final).st_mode)
    except OSError:
        mode = None
    while True:
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:  # pragma: no cover - 32 random bits met an earlier file
            continue
        if mode is not None:
            with contextlib.suppress(OSError):
                os.chmod(tmp, mode)
        return fd, tmp


@contextlib.contextmanager
def open_atomically(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing so that it gets all that is written, or is left as it was.

    A regular file (or a new one) is written through a temporary file in the same directory,
    flushed to disk and renamed over ``path`` when the ``with`` block ends without an error; on an
    error or an interrupt the temporary file is removed and ``path`` is untouched. A symbolic link
    stays a link: the file it names is replaced. A special file (:func:`is_special`) is written in
    place: a device or FIFO opened for appending, a name of one of this process's descriptors
    (``/dev/stdout``) through that descriptor, after what ``sys.stdout`` holds is flushed, so that
    several outputs follow each other and what was printed. An :class:`OSError` names ``path``,
    whatever step failed.

    Args:
        path: The file to write.
        mode: ``"w"`` for text, ``"wb"`` for bytes.
        encoding: The text's encoding (ignored for bytes).
        newline: As for :func:`open`.

    Examples:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     target = pathlib.Path(d) / "out.txt"
        ...     with open_atomically(target) as f:
        ...         _ = f.write("whole")
        ...     try:
        ...         with open_atomically(target) as f:
        ...             _ = f.write("half")
        ...             raise KeyboardInterrupt
        ...     except KeyboardInterrupt:
        ...         pass
        ...     target.read_text(), sorted(os.listdir(d))
        ('whole', ['out.txt'])
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    binary = mode == "wb"
    text_options: dict[str, Any] = {} if binary else {"encoding": encoding, "newline": newline}
    target = os.fspath(path)
    if is_special(target):
        # What this process printed before must come out before what it writes to its own stdout.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        descriptor = _descriptor(target)
        try:
            if descriptor is not None:
                # Through the descriptor itself, sharing its offset: a name reopened would write
                # over what this process prints next to a redirected stdout.
                f = os.fdopen(os.dup(descriptor), "wb" if binary else "w", **text_options)
            else:
                f = open(target, "ab" if binary else "a", **text_options)  # noqa: SIM115 - closed below
        except OSError as e:
            raise _named(e, target) from None
        try:
            with f:
                yield f
        except OSError as e:
            if e.filename not in (None, target):
                raise
            raise _named(e, target) from None
        return
    final = os.path.realpath(target)
    try:
        fd, tmp = _temporary(final)
    except OSError as e:
        raise _named(e, target) from None
    try:
        with os.fdopen(fd, mode, **text_options) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename in (None, tmp):
            raise _named(e, target) from None
        raise


def write_atomically(path: str | os.PathLike[str], data: bytes | str) -> None:
    r"""Write ``data`` (bytes, or text as UTF-8) to ``path`` whole, or leave ``path`` as it was.

    See :func:`open_atomically`.

    Examples:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     write_atomically(pathlib.Path(d) / "a.csv", "x,y\n")
        ...     (pathlib.Path(d) / "a.csv").read_text()
        'x,y\n'
        >>> write_atomically("/dev/full", b"more")  # doctest: +SKIP
        Traceback (most recent call last):
        OSError: [Errno 28] No space left on device: '/dev/full'
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open_atomically(path, "wb") as f:
        f.write(data)
