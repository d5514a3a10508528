r"""Reading and writing the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file starts with header comments (lines beginning with ``;``, such as ``; MaxProcs: 338``)
followed by one line per job with 18 whitespace-separated numbers; ``-1`` means unknown. See
https://www.cs.huji.ac.il/labs/parallel/workload/swf.html for the field definitions.

:func:`read_swf` parses a file as a stream (plain, gzip, bzip2 or xz; memory grows with the jobs, not
with the file), checks it, applies a :class:`CleaningPolicy` and returns a
:class:`~backfill.workloads.workload.Workload` with a :class:`ReadReport` that says what was dropped or
changed and why. :func:`write_swf` writes a workload (or a simulated schedule of it) back; writing
then reading gives bit-identical records.

Examples:
    >>> import io
    >>> text = "; MaxProcs: 8\n1 0 5 100 4 -1 -1 4 300 -1 1 7 -1 -1 -1 -1 -1 -1\n"
    >>> workload, report = read_swf(io.StringIO(text))
    >>> len(workload), workload.machine_size, workload[0].estimate
    (1, 8, 300.0)
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
from collections.abc import Mapping
from typing import IO, Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError, SWFError
from backfill.workloads._swf_lines import MAX_LINE_LENGTH, Source, line_blocks
from backfill.workloads._swf_rows import Rows
from backfill.workloads.cleaning import REASON_CODES, CleaningPolicy, ReadReport, memory_sources
from backfill.workloads.limits import MAX_INT
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS, Workload

__all__ = ["MAX_LINE_LENGTH", "CleaningPolicy", "ReadReport", "read_swf", "write_swf"]

#: What :func:`write_swf` accepts: a path (a ``.gz`` suffix means gzip) or an open text file.
Target: TypeAlias = "str | os.PathLike[str] | IO[str]"

_COL = {name: i for i, name in enumerate(SWF_FIELDS)}
# Integral floats below this print without an exponent, so they can be written as integers.
_MAX_PLAIN_INT = 1e16
# Header text kept (characters): real headers are a few KB; comment lines past this are counted,
# not kept, so that a log of endless comments cannot fill the memory.
_MAX_HEADER = 2**20

# SWF header keys are CamelCase words ("MaxProcs", "UnixStartTime"); requiring a capital stops
# continuation lines such as ";   http://..." or ";  see: ..." from being read as keys.
_KEY = r"[A-Z][A-Za-z0-9_]*"
_KEY_RE = re.compile(rf"{_KEY}\Z", re.ASCII)
_HEADER_RE = re.compile(rf"\s*;\s*({_KEY})\s*:(.*)\Z", re.ASCII | re.DOTALL)
# A machine size: a whole number, alone or followed by a space or a parenthesis ("338 (batch
# partition; 512 total)"); "1e9", "12.5" and "1,024" are not read as 1 or 12.
_SIZE_RE = re.compile(r"\s*\+?([0-9]{1,16})(?=[\s(]|\Z)")
_SURROGATE_RE = re.compile("[\udc80-\udcff]")
# A blank line after the first of a block: empty or whitespace only (re's \s and str.strip agree on
# what whitespace is). Searched from its LF, which the regex engine finds fast.
_BLANK_LINE_RE = re.compile(r"\n[^\S\n]*+(?:\n|\Z)")
_SIZE_KEYS = ("MaxProcs", "MaxNodes")
_SIZE_SOURCES = {
    "argument": "the machine_size argument",
    "MaxNodes": "MaxNodes",
    "widest_job": "the widest job",
    "default": "the default, 1",
}


def _names(source: Source) -> tuple[str, str]:
    """Return (name for error messages, base name for provenance)."""
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        return path, os.path.basename(path)
    name = getattr(source, "name", None)
    if isinstance(name, str) and name:
        return name, os.path.basename(name)
    return "<string>", "<string>"


def _parse_header(comments: list[tuple[int, str]]) -> dict[str, str]:
    """Turn ``; Key: value`` comments into a dict.

    A repeated key (``Queue``, ``Partition``, ``Note``) and a comment line continuing the previous
    key's text (no key of its own, no blank ``;`` line in between) are joined with newlines, so no
    header text is lost and :func:`write_swf` can write it back line by line.
    """
    header: dict[str, str] = {}
    last: str | None = None
    for _, line in comments:
        line = _SURROGATE_RE.sub("\ufffd", line).rstrip()
        match = _HEADER_RE.match(line)
        if match:
            key, value = match.group(1), match.group(2).strip()
            header[key] = f"{header[key]}\n{value}" if key in header else value
            last = key
            continue
        text = line.lstrip()[1:].strip()
        if not text:
            last = None
        elif last is not None:
            header[last] = f"{header[last]}\n{text}"
    return header


def _size(text: str) -> int | None:
    """Read one line of a ``MaxProcs`` or ``MaxNodes`` value: a machine size, or ``None``."""
    match = _SIZE_RE.match(text)
    size = int(match.group(1)) if match else 0
    return size if 0 < size < MAX_INT else None


def _leading_int(value: str | None) -> int | None:
    """Return the machine size a header value states: its first line that is one, or ``None``."""
    for text in (value or "").split("\n"):
        size = _size(text)
        if size is not None:
            return size
    return None


def _machine_size(
    header: Mapping[str, str], widths: npt.NDArray[np.float64], given: int | None
) -> tuple[int, str]:
    if given is not None:
        return int(given), "argument"
    for key in _SIZE_KEYS:
        size = _leading_int(header.get(key))
        if size is not None:
            return size, key
    if len(widths) and widths.max() > 0:
        return int(widths.max()), "widest_job"
    return 1, "default"


def _header_notes(header: Mapping[str, str], size: int, size_from: str, comments_over: int) -> list[str]:
    """Say what in the header could not be used, or disagrees with itself, and what was used instead."""
    notes = []
    for key in _SIZE_KEYS:
        if key not in header:
            continue
        values = header[key].split("\n")
        used = f"the first {key}" if size_from == key else _SIZE_SOURCES.get(size_from, size_from)
        outcome = f"the machine size is {size}, from {used}"
        unusable = [v for v in values if _size(v) is None]
        if unusable:
            shown = ", ".join(repr(v) for v in list(dict.fromkeys(unusable))[:3])
            lines = f" ({len(unusable)} lines)" if len(unusable) > 1 else ""
            notes.append(f"header {key} {shown}{lines} is not a machine size (a positive integer): {outcome}")
        sizes = list(dict.fromkeys(s for s in map(_size, values) if s is not None))
        if len(sizes) > 1:
            shown = ", ".join(map(str, sizes[:5])) + (", ..." if len(sizes) > 5 else "")
            notes.append(f"header gives {len(sizes)} different {key} values ({shown}): {outcome}")
    if comments_over:
        notes.append(
            f"header text beyond {_MAX_HEADER // 2**20} MiB not kept: {comments_over:,} comment lines"
        )
    return notes


def _read_lines(
    source: Source, where: str, lenient: bool, processors: str
) -> tuple[npt.NDArray[np.float64], Rows, list[tuple[int, str]], int]:
    """Read a log as a stream, a block of lines at a time.

    Returns:
        The valid rows, the :class:`Rows` that counted the data lines, the header comments kept and
        the number of comment lines beyond the header's budget.
    """
    rows = Rows(where, lenient, processors)
    comments: list[tuple[int, str]] = []
    header_chars = comments_over = 0
    stream_error: SWFError | None = None
    blocks = line_blocks(source, where, lenient)
    with contextlib.closing(blocks):
        while True:
            try:
                first, text = next(blocks)
            except StopIteration:
                break
            except SWFError as e:
                # Lines before the stream's problem are checked first: strictly, an earlier bad line
                # is the one to report.
                stream_error = e
                break
            if text is None:
                rows.skip(first)
                continue
            if text.isspace():
                continue  # blank lines only
            data, numbers = rows.data, rows.numbers
            lines = text.split("\n")
            if ";" not in text and lines[0].strip() and not _BLANK_LINE_RE.search(text):
                # Data lines only, the usual block: no line to look at one by one.
                data += lines
                numbers += range(first, first + len(lines))
            else:
                # Empty lines are passed over without a Python step each: a log may hold millions.
                for i in np.flatnonzero(np.fromiter(map(len, lines), np.intp, len(lines))).tolist():
                    line = lines[i]
                    stripped = line.lstrip()
                    if not stripped:
                        continue
                    number = first + i
                    if stripped[0] != ";":
                        data.append(line)
                        numbers.append(number)
                    elif header_chars + len(line) <= _MAX_HEADER:
                        comments.append((number, line))
                        header_chars += len(line)
                    else:
                        comments_over += 1
            if rows.full():
                rows.flush()
    values = rows.finish()
    if stream_error is not None:
        raise stream_error
    return values, rows, comments, comments_over


def read_swf(
    source: Source,
    policy: CleaningPolicy = CleaningPolicy(),  # noqa: B008 - frozen, so sharing the default is safe
    *,
    lenient: bool = False,
    machine_size: int | None = None,
) -> tuple[Workload, ReadReport]:
    r"""Read an SWF log, check it and clean it.

    The log is read as a stream, a block of lines at a time, so memory grows with the number of
    jobs (about 300 bytes each while reading), not with the size of the file.

    Args:
        source: A path or an open file, text or binary. gzip, bzip2 and xz are recognised by their
            magic bytes, not the suffix. A path must name a regular file: a FIFO, a device or a
            directory is refused (to read a stream, open it and pass the open file).
        policy: Which jobs to keep and how to repair them; see :class:`CleaningPolicy`.
        lenient: Skip malformed data lines (listed in ``ReadReport.skipped_lines``) instead of
            raising.
        machine_size: Processors of the machine. By default the header's ``MaxProcs``, else
            ``MaxNodes``, else the widest job kept.

    Returns:
        The cleaned workload, sorted by submit time (ties keep file order), with the header
        comments in ``Workload.header`` and the source name, policy and counts in
        ``Workload.provenance``; and the :class:`ReadReport`, whose ``notes`` say what in the header
        could not be used and whose ``memory_note`` says, where the log records memory, how many
        jobs fall back from requested memory (field 10) to used memory (field 7) or have neither
        (counted in ``memory_from``).

    Raises:
        SWFError: A data line is not a job: it has not 18 fields, a field is not a finite number, an
            integer field is not an integer or is 2**53 or more in magnitude, a time (submit,
            runtime, estimate) is negative other than -1 (unknown) or above 10**12 s, a width or
            a memory (field 7 or 10) or the partition number (field 16) is negative other than -1,
            or a job id repeats; a line is longer than :data:`MAX_LINE_LENGTH` (1 MiB) or not
            UTF-8. The error names the file and the 1-based line; with ``lenient=True`` such lines
            are skipped instead. Whatever ``lenient`` says, a file that is not a log (named: a zip
            archive, a PDF, binary data, ...), a corrupt gzip, bzip2 or xz stream, or a path that is
            not a regular file raises, without a line.
        BackfillError: ``machine_size`` is not a positive integer.
        OSError: The file cannot be opened or read.

    Examples:
        >>> import io
        >>> log = io.StringIO(
        ...     "; MaxProcs: 4\n"
        ...     "1 0 -1 50 2 -1 -1 2 40 -1 1 1 1 -1 1 -1 -1 -1\n"   # ran past its estimate
        ...     "2 5 -1 -1 2 -1 -1 2 40 -1 0 1 1 -1 1 -1 -1 -1\n"   # runtime unknown
        ... )
        >>> w, report = read_swf(log)
        >>> [(job.id, job.runtime, job.estimate) for job in w]
        [(1, 50.0, 50.0)]
        >>> dict(report.dropped), dict(report.altered)
        ({'unknown_runtime': 1}, {'estimate_raised_to_runtime': 1})
    """
    if machine_size is not None and (
        isinstance(machine_size, bool) or not isinstance(machine_size, int | np.integer)
    ):
        raise BackfillError(f"machine_size must be an integer, got {machine_size!r}")
    if machine_size is not None and not 0 < machine_size < MAX_INT:
        raise BackfillError(f"machine_size must be positive and below 2**53, got {machine_size}")
    where, base = _names(source)
    values, rows, comments, comments_over = _read_lines(source, where, lenient, policy.processors)
    header = _parse_header(comments)
    del comments
    records, size, size_from, dropped, dropped_ids, altered = clean_rows(values, header, policy, machine_size)
    del values
    report = ReadReport(
        source=base,
        lines=rows.lines,
        kept=len(records),
        machine_size=size,
        machine_size_from=size_from,
        dropped=dropped,
        dropped_ids=dropped_ids,
        altered=altered,
        skipped_lines=rows.skipped,
        notes=_header_notes(header, size, size_from, comments_over),
        memory_from=memory_sources(records),
    )
    provenance = {
        "source": base,
        "reader": "backfill.workloads.swf.read_swf",
        "policy": repr(policy),
        "lenient": lenient,
        "lines": report.lines,
        "kept": report.kept,
        "dropped": dict(report.dropped),
        "altered": dict(report.altered),
        "skipped_lines": len(report.skipped_lines),
        "machine_size_from": size_from,
    }
    # The records are already in submit order, so the constructor takes them without another copy.
    return Workload(records, size, provenance, header), report


def _compact(
    values: npt.NDArray[np.float64], kept: npt.NDArray[np.intp], step: int = 2**16
) -> npt.NDArray[np.float64]:
    """Move the rows ``kept`` (increasing) to the front of ``values``, in place; return them.

    Examples:
        >>> _compact(np.arange(6.0).reshape(6, 1), np.array([1, 2, 4, 5]), step=3).ravel().tolist()
        [1.0, 2.0, 4.0, 5.0]
    """
    # A block of rows never lands on a row a later block still has to move, since kept[i] >= i.
    for start in range(0, len(kept), step):
        block = kept[start : start + step]
        values[start : start + len(block)] = values[block]
    return values[: len(kept)]


def _as_records(rows: npt.NDArray[np.float64]) -> npt.NDArray[np.void]:
    """View rows of 18 floats as records of JOB_DTYPE, converting the integer fields in place."""
    rows = np.ascontiguousarray(rows)
    as_ints = rows.view(np.int64)
    for i, name in enumerate(SWF_FIELDS):
        if JOB_DTYPE[name].kind == "i":
            # Every value is an exact integer below 2**53 (the rows were checked), so this is exact.
            as_ints[:, i] = rows[:, i]
    return rows.view(JOB_DTYPE).reshape(len(rows))


def clean_rows(
    values: npt.NDArray[np.float64], header: Mapping[str, str], policy: CleaningPolicy, given: int | None
) -> tuple[npt.NDArray[np.void], int, str, dict[str, int], dict[str, list[int]], dict[str, int]]:
    """Apply the cleaning policy to valid rows, reusing their memory for the records.

    :func:`read_swf`'s cleaning step, also :func:`~backfill.workloads.batsim.read_batsim_workload`'s
    (its jobs, checked there, are rows of the same 18 fields): one copy of the rules.

    Returns:
        The records kept, in submit order; the machine size and where it came from; the counts (and
        ids) of the jobs dropped, and the counts of those altered.

    Examples:
        >>> rows = np.full((2, len(SWF_FIELDS)), -1.0)
        >>> rows[:, [_COL["id"], _COL["submit"], _COL["runtime"], _COL["processors"]]] = [
        ...     [1, 5.0, 10.0, 2], [2, 0.0, -1.0, 1]]
        >>> records, size, _, dropped, _, altered = clean_rows(rows, {}, CleaningPolicy(), 4)
        >>> records["id"].tolist(), size, dropped, altered
        ([1], 4, {'unknown_runtime': 1}, {'estimate_from_runtime': 1})
    """
    width = _widths(values, policy)
    reason, size, size_from = _drop_reasons(values, width, header, policy, given)
    kept, runtime, estimate, altered = _repair(values, reason, policy)
    dropped, dropped_ids = _dropped(values, reason)
    records = _kept_records(values, kept, width[kept], runtime, estimate)
    # Jobs listed after a later submit time: sorted into place (stably), and counted, so that a log
    # out of order does not pass unnoticed.
    submits = records["submit"]
    if len(submits) > 1:
        late = np.count_nonzero(submits[1:] < np.maximum.accumulate(submits)[:-1])
        if late:
            altered["reordered_by_submit_time"] = int(late)
            records = records[np.argsort(submits, kind="stable")]
    altered = {k: v for k, v in altered.items() if v}
    return records, size, size_from, dropped, dropped_ids, altered


def _widths(values: npt.NDArray[np.float64], policy: CleaningPolicy) -> npt.NDArray[np.float64]:
    """Each job's processors: allocated, requested, or allocated where known, as the policy says."""
    allocated = values[:, _COL["processors"]]
    requested = values[:, _COL["requested_processors"]]
    if policy.processors == "allocated":
        return allocated
    if policy.processors == "requested":
        return requested
    return np.where(allocated > 0, allocated, requested)


def _drop_reasons(
    values: npt.NDArray[np.float64],
    width: npt.NDArray[np.float64],
    header: Mapping[str, str],
    policy: CleaningPolicy,
    given: int | None,
) -> tuple[npt.NDArray[np.int8], int, str]:
    """Each job's first reason to be dropped (0: kept), the machine size and where it came from."""
    runtime = values[:, _COL["runtime"]]
    status = values[:, _COL["status"]]
    reason = np.zeros(len(values), dtype=np.int8)

    def drop(name: str, mask: npt.NDArray[np.bool_]) -> None:
        reason[(reason == 0) & mask] = REASON_CODES[name]

    if policy.drop_partial:
        drop("partial_execution", np.isin(status, (2, 3, 4)))
    if policy.drop_cancelled_unstarted:
        drop("cancelled_before_start", (status == 5) & (runtime <= 0))
    drop("unknown_submit", values[:, _COL["submit"]] == -1)
    if policy.drop_unknown_runtime:
        drop("unknown_runtime", runtime < 0)
    if policy.drop_no_processors:
        drop("no_processors", width <= 0)
    size, size_from = _machine_size(header, width[reason == 0], given)
    drop("wider_than_machine", width > size)
    return reason, size, size_from


def _repair(
    values: npt.NDArray[np.float64], reason: npt.NDArray[np.int8], policy: CleaningPolicy
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64], npt.NDArray[np.float64], dict[str, int]]:
    """The rows kept, their runtimes and estimates as the policy repairs them, and the counts altered.

    With the ``drop`` overrun policy, a job running past its estimate gets its reason in ``reason``.
    """
    kept = np.flatnonzero(reason == 0)
    runtime, estimate = values[kept, _COL["runtime"]], values[kept, _COL["estimate"]]
    altered: dict[str, int] = {}
    if policy.fill_missing_estimate:
        missing = (estimate <= 0) & (runtime >= 0) & (estimate != runtime)
        estimate[missing] = runtime[missing]
        altered["estimate_from_runtime"] = int(missing.sum())
    # An estimate <= 0 still here means "unknown" (filling was switched off): not an overrun.
    overrun = (estimate > 0) & (runtime > estimate)
    if policy.overrun == "raise_estimate":
        estimate[overrun] = runtime[overrun]
        altered["estimate_raised_to_runtime"] = int(overrun.sum())
    elif policy.overrun == "truncate_runtime":
        runtime[overrun] = estimate[overrun]
        altered["runtime_truncated_to_estimate"] = int(overrun.sum())
    elif policy.overrun == "drop":
        reason[kept[overrun]] = REASON_CODES["runtime_over_estimate"]
        kept, runtime, estimate = kept[~overrun], runtime[~overrun], estimate[~overrun]
    return kept, runtime, estimate, altered


def _dropped(
    values: npt.NDArray[np.float64], reason: npt.NDArray[np.int8]
) -> tuple[dict[str, int], dict[str, list[int]]]:
    """How many jobs each reason dropped, and their ids."""
    ids = values[:, _COL["id"]]
    dropped: dict[str, int] = {}
    dropped_ids: dict[str, list[int]] = {}
    for name, code in REASON_CODES.items():
        mask = reason == code
        if mask.any():
            dropped[name] = int(mask.sum())
            dropped_ids[name] = ids[mask].astype(np.int64).tolist()
    return dropped, dropped_ids


def _kept_records(
    values: npt.NDArray[np.float64],
    kept: npt.NDArray[np.intp],
    width: npt.NDArray[np.float64],
    runtime: npt.NDArray[np.float64],
    estimate: npt.NDArray[np.float64],
) -> npt.NDArray[np.void]:
    """The rows kept, with their widths, runtimes and estimates, as records."""
    # The rows kept become the records in place: without a copy when every job is kept (the usual
    # case), else moved to the front of the array, unless so few are kept that the array's unused
    # tail, which the workload would hold on to, is worth a copy of the rest.
    if len(kept) == len(values):
        rows = values
    elif len(kept) >= 0.75 * len(values):
        rows = _compact(values, kept)
    else:
        rows = values[kept]
    rows[:, _COL["processors"]] = width
    rows[:, _COL["runtime"]] = runtime
    rows[:, _COL["estimate"]] = estimate
    return _as_records(rows)


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------


def _format_column(column: npt.NDArray[Any]) -> list[str]:
    """Format one field shortest-exact: integers plainly, floats by ``repr`` unless integral."""
    if column.dtype.kind in "iu":
        return list(map(str, column.tolist()))
    out = np.empty(len(column), dtype=object)
    with np.errstate(invalid="ignore"):
        integral = (column == np.trunc(column)) & (np.abs(column) < _MAX_PLAIN_INT)
    out[integral] = column[integral].astype(np.int64).astype(str)
    # repr is the shortest text that parses back to the same double.
    out[~integral] = [repr(v) for v in column[~integral].tolist()]
    out[integral & (column == 0) & np.signbit(column)] = "-0"
    return cast(list[str], out.tolist())


def _header_lines(header: Mapping[str, str], machine_size: int) -> list[str]:
    items = dict(header)
    # The file must say the machine size, or reading it back would guess another one.
    if _leading_int(items.get("MaxProcs")) != machine_size:
        items["MaxProcs"] = str(machine_size)
    lines = []
    for key, value in items.items():
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise SWFError(f"header key {key!r} is not an SWF key (a word starting with a capital letter)")
        for part in str(value).split("\n"):
            part = part.strip()
            lines.append(f"; {key}: {part}" if part else f"; {key}:")
    return lines


def write_swf(
    target: Target,
    workload: Workload,
    *,
    wait: npt.ArrayLike | None = None,
    header: Mapping[str, str] | None = None,
) -> None:
    """Write a workload as an SWF log.

    Numbers are written exactly: integers and integral floats without a decimal point, other floats
    in their shortest round-tripping form, so ``read_swf`` gives back bit-identical records (for a
    workload that its policy leaves unchanged, such as one it produced).

    Args:
        target: A path (a ``.gz`` suffix writes gzip, with a fixed timestamp so output is
            reproducible) or an open text file. A path is written whole or not at all: through a
            temporary file beside it, renamed into place; a special file (``/dev/null``, a FIFO,
            ``/dev/stdout``) is written in place.
        workload: The jobs, written in their order.
        wait: Optional waiting times, one per job in workload order, replacing SWF field 3; pass
            ``start - submit`` to write a simulated schedule. NaN is written as -1 (unknown).
        header: Header comments to write instead of ``workload.header``. Either way the
            ``MaxProcs`` line is set to ``workload.machine_size`` if it is missing or differs.

    Raises:
        SWFError: ``wait`` has the wrong length, a value is infinite or NaN (other than NaN in
            ``wait``), or a header key is not an SWF key.
        OSError: The file could not be written; it names ``target``, which is left as it was.

    Examples:
        >>> import io
        >>> from backfill.workloads.workload import Job
        >>> job = Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=9.5)
        >>> w = Workload.from_jobs([job], machine_size=4)
        >>> out = io.StringIO()
        >>> write_swf(out, w, wait=[3.0])
        >>> print(out.getvalue(), end="")
        ; MaxProcs: 4
        1 0 3 5 2 -1 -1 -1 9.5 -1 1 -1 -1 -1 -1 -1 -1 -1
    """
    where = os.fspath(target) if isinstance(target, str | os.PathLike) else _names(target)[0]
    records = workload.records
    columns: list[list[str]] = []
    for name in SWF_FIELDS:
        column = records[name]
        if name == "wait" and wait is not None:
            column = np.asarray(wait, dtype=np.float64)
            if column.shape != (len(records),):
                raise SWFError(
                    f"wait must have one value per job ({len(records)}), got shape {column.shape}",
                    path=where,
                )
            column = np.where(np.isnan(column), -1.0, column)
        if column.dtype.kind == "f" and not np.isfinite(column).all():
            row = int(np.argmin(np.isfinite(column)))
            job, value = int(records["id"][row]), float(column[row])
            raise SWFError(f"job {job}: {name} is {value!r}, which SWF cannot hold", path=where)
        columns.append(_format_column(column))
    lines = _header_lines(workload.header if header is None else header, workload.machine_size)
    lines += [" ".join(row) for row in zip(*columns, strict=True)]
    text = "\n".join(lines) + "\n"
    if not isinstance(target, str | os.PathLike):
        target.write(text)
        return
    from backfill._files import write_atomically  # here, beside the only use: the reader needs none

    # Whole or not at all: an error (a full disk, an interrupt) leaves the target as it was.
    data = text.encode("utf-8")
    if os.fspath(target).endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    write_atomically(target, data)
