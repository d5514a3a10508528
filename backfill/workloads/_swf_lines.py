"""The lines of an SWF log, read as a stream in bounded memory.

:func:`line_blocks` opens a source (a path or an open file), says what it is when it is not a log (a
zip archive, a PDF, binary data, ...), decompresses gzip, bzip2 and xz as it goes, and yields the
log's lines a block at a time. Line ends are LF, CR LF or CR; a line longer than
:data:`MAX_LINE_LENGTH` is refused (skipped when reading leniently) as soon as its first
:data:`MAX_LINE_LENGTH` bytes are in, so memory never depends on the size of the file or of a line.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import zlib
from collections.abc import Callable, Generator, Iterator
from typing import IO, Any, TypeAlias, cast

from backfill.errors import SWFError

__all__ = ["MAX_LINE_LENGTH", "Source", "line_blocks"]

#: What :func:`backfill.read_swf` accepts: a path or an open text or binary file.
Source: TypeAlias = "str | os.PathLike[str] | IO[str] | IO[bytes]"

#: The longest line :func:`backfill.read_swf` accepts, in bytes (of UTF-8, for a text stream): 1 MiB.
#: Archive logs' data lines are under 200 bytes and their header lines a few hundred.
MAX_LINE_LENGTH = 2**20

#: A block of lines: the number of its first line and the lines' text (joined by LF), or ``None``
#: for one line too long to keep (skipped when reading leniently).
Block: TypeAlias = "tuple[int, str | None]"

# Bytes (or characters of a text stream) read at a time: with MAX_LINE_LENGTH above it, a complete
# line of a block can be too long only if it began in the previous chunk.
_CHUNK = 2**18
# How much of a file is looked at to tell what it is; git and grep call a file binary when its first
# 8,000 bytes hold a NUL byte.
_HEAD = 8000
_UTF8_BOM = b"\xef\xbb\xbf"

# Compressed streams the reader opens, by magic bytes (the suffix is not trusted: archive logs are
# often renamed, or stored decompressed under a ".gz" name).
_GZIP, _BZIP2, _XZ = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"

# Formats people hand to a reader by mistake, by magic bytes: named in the error instead of being
# read as lines of garbage.
_FORMATS: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "an ELF executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"(\xb5/\xfd", "zstd-compressed data"),
    (b'\x04"M\x18', "lz4-compressed data"),
    (b"\x1f\x9d", "compress (.Z) data"),
    (b"7z\xbc\xaf'\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a Microsoft Office document"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"PAR1", "a Parquet file"),
    (b"\x93NUMPY", "a NumPy array file"),
    *((b"\x80" + bytes([protocol]), "a Python pickle") for protocol in (2, 3, 4, 5)),
    (b"\xff\xfe\x00\x00", "UTF-32 text"),
    (b"\x00\x00\xfe\xff", "UTF-32 text"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)
_MARKUP = ((b"<!doctype html", "an HTML page"), (b"<html", "an HTML page"), (b"<?xml", "an XML document"))
_EXPECTED = "an SWF log is UTF-8 text, plain or compressed with gzip, bzip2 or xz"

_SPECIAL_FILES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class _Prefixed:
    """A binary stream whose first bytes, already read to tell what it is, are handed out again."""

    def __init__(self, head: bytes, rest: Callable[[int], bytes]) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest(size)
        if size < 0:
            out, self._head = self._head + self._rest(-1), b""
            return out
        out, self._head = self._head[:size], self._head[size:]
        return out


def _decompressing(kind: str, compressed: _Prefixed) -> io.BufferedIOBase:
    # The decompressors only call read(size), which _Prefixed has.
    stream = cast("IO[bytes]", compressed)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=stream, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(stream, mode="rb")
    return lzma.LZMAFile(stream, mode="rb")


def _compression(head: bytes) -> str | None:
    if head.startswith(_GZIP):
        return "gzip"
    if head.startswith(_BZIP2) and head[3:4].isdigit():
        return "bzip2"
    if head.startswith(_XZ):
        return "xz"
    return None


def _not_a_log(head: bytes) -> tuple[str, str] | None:
    """Name what a file is when its first bytes say it is not a text log; ``None`` if it may be one.

    Returns:
        What the file is, and the evidence when the name alone does not say it ("byte 12 is NUL; "),
        else ``""``.
    """
    for magic, name in _FORMATS:
        if head.startswith(magic):
            return name, ""
    if head[257:262] == b"ustar":
        return "a tar archive", ""
    start = head.lstrip()[:16].lower()
    for magic, name in _MARKUP:
        if start.startswith(magic):
            return name, ""
    nul = head.find(b"\x00")
    if nul >= 0:
        return "binary data", f"byte {nul + 1} is NUL; "
    return None


def _refuse_special(mode: int, where: str) -> None:
    if stat.S_ISREG(mode):
        return
    what = next((name for test, name in _SPECIAL_FILES if test(mode)), "a special file")
    raise SWFError(
        f"is {what}, not a regular file (to read a stream, pass read_swf the open file)", path=where
    )


def _open_path(path: str | os.PathLike[str], where: str) -> IO[bytes]:
    """Open a regular file for reading; refuse anything else without opening it, so nothing hangs."""
    _refuse_special(os.stat(path).st_mode, where)
    # Non-blocking, so that a path turned into a FIFO since the check cannot hang the open either.
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    try:
        _refuse_special(os.fstat(fd).st_mode, where)
        if nonblocking:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_head(read: Callable[[int], bytes], size: int, head: bytes = b"") -> bytes:
    while len(head) < size:
        piece = read(size - len(head))
        if not piece:
            break
        head += piece
    return head


def _guarded(read: Callable[[int], bytes], kind: str, where: str) -> Callable[[int], bytes]:
    """Wrap a decompressing read so that a corrupt stream is an SWFError naming the format."""

    def guarded_read(size: int) -> bytes:
        try:
            return read(size)
        except (OSError, EOFError, zlib.error, lzma.LZMAError) as e:
            if isinstance(e, OSError) and e.errno is not None:
                raise  # the file itself could not be read: the OS error says why
            raise SWFError(f"not a valid {kind} file: {e}", path=where) from e

    return guarded_read


def _encoded(text: str) -> bytes:
    # Lone surrogates (from a "surrogateescape" decoding) come out as bytes that are not UTF-8.
    return text.encode("utf-8", "surrogatepass")


def _text_reader(source: IO[str], where: str, encode: bool = True) -> Callable[[int], Any]:
    """Read a text stream as UTF-8 bytes (``encode=False``: as the stream gives it)."""

    def read(size: int) -> Any:
        try:
            text = source.read(size)
        except UnicodeDecodeError as e:
            # The caller opened the file in text mode with a codec that cannot read it.
            raise SWFError(f"not valid text ({e.reason})", path=where) from e
        return _encoded(text) if encode else text

    return read


def _content(read: Callable[[int], bytes], head: bytes, compressed: bool, where: str) -> Iterator[bytes]:
    """Yield the decompressed bytes of a log, after checking that its first bytes may be one."""
    kind = _compression(head) if compressed else None
    if kind is None:
        yield from _checked(read, head, None, where)
        return
    with _decompressing(kind, _Prefixed(head, read)) as stream:
        read = _guarded(stream.read, kind, where)
        yield from _checked(read, _read_head(read, _HEAD), kind, where)


def _checked(read: Callable[[int], bytes], head: bytes, kind: str | None, where: str) -> Iterator[bytes]:
    named = _not_a_log(head)
    if named is not None:
        what, why = named
        inside = "" if kind is None else f", compressed with {kind}"
        raise SWFError(f"not an SWF log but {what}{inside} ({why}{_EXPECTED})", path=where)
    if head.startswith(_UTF8_BOM):
        head = head[len(_UTF8_BOM) :]
    if head:
        yield head
    while chunk := read(_CHUNK):
        yield chunk


def _chunks(source: Source, where: str) -> Iterator[bytes]:
    """Yield the decompressed bytes of a log, without its byte-order mark."""
    if isinstance(source, str | os.PathLike):
        with _open_path(source, where) as f:
            yield from _content(f.read, _read_head(f.read, _HEAD), True, where)
        return
    text_source = cast("IO[str]", source)  # or a binary one: the type of what it reads says which
    first = _text_reader(text_source, where, encode=False)(_HEAD)
    read: Callable[[int], bytes]
    if isinstance(first, str):
        # A text stream, decoded by its opener: neither compressed nor in another encoding.
        read = _text_reader(text_source, where)
        yield from _content(read, _read_head(read, _HEAD, _encoded(first)), False, where)
    else:
        read = cast("IO[bytes]", source).read
        yield from _content(read, _read_head(read, _HEAD, first), True, where)


class _Splitter:
    """Cuts a stream of bytes into decoded lines, in blocks, keeping at most one partial line."""

    def __init__(self, where: str, lenient: bool) -> None:
        self.where = where
        self.errors = "surrogateescape" if lenient else "strict"
        self.lenient = lenient
        self.limit = MAX_LINE_LENGTH
        self.number = 1  # of the line ``pending`` begins
        self.pending = b""
        self.skipping = False  # inside a line too long to keep, dropping its bytes

    def feed(self, chunk: bytes) -> Iterator[Block]:
        """Take the next bytes (line ends already LF); yield the lines they complete."""
        if self.skipping:
            end = chunk.find(b"\n")
            if end < 0:
                return
            chunk, self.skipping, self.number = chunk[end + 1 :], False, self.number + 1
        end = chunk.rfind(b"\n")
        if end < 0:
            self.pending += chunk
        else:
            block, self.pending = self.pending + chunk[:end], chunk[end + 1 :]
            yield from self._lines(block)
        if len(self.pending) > self.limit:
            self.pending = b""
            yield from self._too_long()
            self.skipping = True

    def finish(self) -> Iterator[Block]:
        """Yield the last line, which has no line end."""
        if self.pending and not self.skipping:
            yield from self._decoded(self.pending)

    def _lines(self, block: bytes) -> Iterator[Block]:
        """Yield the lines of ``block`` (complete lines joined by LF), refusing any too long."""
        if len(block) <= self.limit:
            yield from self._decoded(block)
            return
        run: list[bytes] = []
        for line in block.split(b"\n"):
            if len(line) <= self.limit:
                run.append(line)
                continue
            if run:
                yield from self._decoded(b"\n".join(run))
                run = []
            yield from self._too_long()
            self.number += 1
        if run:
            yield from self._decoded(b"\n".join(run))

    def _too_long(self) -> Iterator[Block]:
        if not self.lenient:
            raise SWFError(
                f"line longer than {self.limit:,} bytes (SWF lines are a few hundred at most)",
                path=self.where,
                line=self.number,
            )
        yield self.number, None

    def _decoded(self, block: bytes) -> Iterator[Block]:
        try:
            text = block.decode("utf-8", self.errors)
        except UnicodeDecodeError as e:
            # Strict reading: the lines before the bad byte are good and come first.
            start = block.rfind(b"\n", 0, e.start)
            if start >= 0:
                yield from self._decoded(block[:start])
            raise SWFError(f"not valid UTF-8 ({e.reason})", path=self.where, line=self.number) from e
        yield self.number, text
        self.number += text.count("\n") + 1


def line_blocks(source: Source, where: str, lenient: bool) -> Generator[Block, None, None]:
    r"""Yield the lines of an SWF log in file order, in blocks of about 256 KiB, joined by LF.

    Args:
        source: A path or an open file (text or binary).
        where: The name errors give the file.
        lenient: Decode bytes that are not UTF-8 as lone surrogates (for the caller to refuse line by
            line) and skip lines longer than :data:`MAX_LINE_LENGTH`, instead of raising.

    Raises:
        SWFError: The path is not a regular file; the file is not a log (named: a zip archive, binary
            data, ...); a compressed stream is corrupt (no line number; raised when reading reaches
            it); strictly, a line is longer than :data:`MAX_LINE_LENGTH` or not UTF-8 (with its
            line number, after the lines before it).
        OSError: The file cannot be opened or read.

    Examples:
        >>> import io
        >>> list(line_blocks(io.BytesIO(b"; MaxProcs: 4\r1 2\r\n3"), "log.swf", lenient=False))
        [(1, '; MaxProcs: 4\n1 2'), (3, '3')]
    """
    splitter = _Splitter(where, lenient)
    cr = b""  # a CR that ended the previous chunk: a line end, with the LF that may follow it
    for chunk in _chunks(source, where):
        chunk = cr + chunk
        cr = b""
        if b"\r" in chunk:
            if chunk.endswith(b"\r"):
                chunk, cr = chunk[:-1], b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        yield from splitter.feed(chunk)
    if cr:
        yield from splitter.feed(b"\n")
    yield from splitter.finish()
