r"""Reading and writing the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file starts with header comments (lines beginning with ``;``, such as ``; MaxProcs: 338``)
followed by one line per job with 18 whitespace-separated numbers; ``-1`` means unknown. See
https://www.cs.huji.ac.il/labs/parallel/workload/swf.html for the field definitions.

:func:`read_swf` parses a file, checks it, applies a :class:`CleaningPolicy` and returns a
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

import gzip
import os
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from backfill.errors import BackfillError, SWFError
from backfill.workloads.cleaning import REASON_CODES, CleaningPolicy, ReadReport
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS, Workload

__all__ = ["CleaningPolicy", "ReadReport", "read_swf", "write_swf"]

#: What :func:`read_swf` accepts: a path (``.gz`` or not) or an open text or binary file.
Source: TypeAlias = "str | os.PathLike[str] | IO[str] | IO[bytes]"
#: What :func:`write_swf` accepts: a path (a ``.gz`` suffix means gzip) or an open text file.
Target: TypeAlias = "str | os.PathLike[str] | IO[str]"


_N_FIELDS = len(SWF_FIELDS)
_COL = {name: i for i, name in enumerate(SWF_FIELDS)}
_INT_COLS = np.array([i for i, name in enumerate(SWF_FIELDS) if JOB_DTYPE[name].kind == "i"])
# Integer fields go through float64 on the fast path; beyond 2**53 that would silently lose digits.
_MAX_EXACT_INT = 2.0**53
# Integral floats below this print without an exponent, so they can be written as integers.
_MAX_PLAIN_INT = 1e16
# Lines the slow path hands to the C parser at a time.
_BLOCK = 2048
_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"

_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)
_NON_FINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)
# SWF header keys are CamelCase words ("MaxProcs", "UnixStartTime"); requiring a capital stops
# continuation lines such as ";   http://..." or ";  see: ..." from being read as keys.
_KEY = r"[A-Z][A-Za-z0-9_]*"
_KEY_RE = re.compile(rf"{_KEY}\Z", re.ASCII)
_HEADER_RE = re.compile(rf"\s*;\s*({_KEY})\s*:(.*)\Z", re.ASCII | re.DOTALL)
_LEADING_INT_RE = re.compile(r"\s*\+?([0-9]+)")
_SURROGATE_RE = re.compile("[\udc80-\udcff]")


# Drop reasons, in the order the rules are applied; a job is counted under the first that matches.
def _names(source: Source) -> tuple[str, str]:
    """Return (name for error messages, base name for provenance)."""
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        return path, os.path.basename(path)
    name = getattr(source, "name", None)
    if isinstance(name, str) and name:
        return name, os.path.basename(name)
    return "<string>", "<string>"


def _read_text(source: Source, where: str, lenient: bool) -> str:
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as f:
            raw: str | bytes = f.read()
    else:
        try:
            raw = source.read()
        except UnicodeDecodeError as e:
            # The caller opened the file in text mode with a codec that cannot read it.
            raise SWFError(f"not valid text ({e.reason})", path=where) from e
    if isinstance(raw, str):
        return raw[1:] if raw.startswith("\ufeff") else raw
    # The suffix is not trusted: archive logs are often renamed or stored decompressed as ".gz".
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise SWFError(f"not a valid gzip file: {e}", path=where) from e
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if not lenient:
            line = raw.count(b"\n", 0, e.start) + 1
            raise SWFError(f"not valid UTF-8 ({e.reason})", path=where, line=line) from e
        # Undecodable bytes become lone surrogates, which the data checks reject line by line.
        return raw.decode("utf-8", "surrogateescape")


def _split_lines(text: str) -> tuple[list[tuple[int, str]], list[str], list[int]]:
    """Split into comment lines (with numbers), data lines and the data lines' 1-based numbers."""
    comments: list[tuple[int, str]] = []
    data: list[str] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped[0] == ";":
            comments.append((number, line))
        else:
            data.append(line)
            numbers.append(number)
    return comments, data, numbers


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


def _leading_int(value: str | None) -> int | None:
    if value is None:
        return None
    match = _LEADING_INT_RE.match(value)
    return int(match.group(1)) if match else None


def _fast_parse(data: list[str]) -> npt.NDArray[np.float64] | None:
    """Parse well-formed data lines in C; ``None`` means some line needs a closer look."""
    try:
        values = np.loadtxt(data, dtype=np.float64, comments=None, ndmin=2)
    except ValueError:
        return None
    if values.shape != (len(data), _N_FIELDS):
        return None
    return values


def _token_problem(token: str, field: int) -> str:
    name = SWF_FIELDS[field]
    if _NON_FINITE_RE.fullmatch(token):
        return f"field {field + 1} ({name}) is not a finite number: {token!r}"
    return f"field {field + 1} ({name}) is not a number: {token!r}"


def _check_line(line: str) -> str | None:
    """Return what is wrong with one data line's text, or ``None`` if it is 18 numbers."""
    if _SURROGATE_RE.search(line):
        return "not valid UTF-8"
    tokens = line.split()
    if len(tokens) != _N_FIELDS:
        return f"expected {_N_FIELDS} fields, got {len(tokens)}"
    for i, token in enumerate(tokens):
        if not _NUMBER_RE.fullmatch(token):
            return _token_problem(token, i)
    return None


def _slow_parse(
    data: list[str], numbers: list[int]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[tuple[int, str]]]:
    """Find the lines the fast path choked on: the good rows, their line numbers, the problems.

    Blocks of lines still go through the C parser; only a block that fails is checked line by
    line, so one bad line in a big log costs little more than the fast path.
    """
    blocks: list[npt.NDArray[np.float64]] = []
    good_numbers: list[int] = []
    problems: list[tuple[int, str]] = []
    for start in range(0, len(data), _BLOCK):
        block, block_numbers = data[start : start + _BLOCK], numbers[start : start + _BLOCK]
        values = _fast_parse(block)
        if values is not None:
            blocks.append(values)
            good_numbers.extend(block_numbers)
            continue
        tokens: list[str] = []
        for line, number in zip(block, block_numbers, strict=True):
            problem = _check_line(line)
            if problem is None:
                tokens.extend(line.split())
                good_numbers.append(number)
            else:
                problems.append((number, problem))
        blocks.append(np.array(tokens, dtype=np.float64).reshape(-1, _N_FIELDS))
    return np.concatenate(blocks), np.array(good_numbers, dtype=np.int64), problems


def _value_problems(values: npt.NDArray[np.float64], numbers: npt.NDArray[np.int64]) -> list[tuple[int, str]]:
    """Find rows that parse as numbers but are still not valid SWF jobs: (line, problem) pairs."""
    problems: list[tuple[int, str]] = []
    bad = np.zeros(len(values), dtype=bool)

    def flag(mask: npt.NDArray[np.bool_], describe: Callable[[int], str]) -> None:
        new = mask & ~bad
        problems.extend((int(numbers[r]), describe(r)) for r in np.flatnonzero(new).tolist())
        bad[new] = True

    def first_column(per_field: npt.NDArray[np.bool_], columns: Sequence[int], r: int) -> int:
        return columns[int(np.argmax(per_field[r]))]

    def field(col: int) -> str:
        return f"field {col + 1} ({SWF_FIELDS[col]})"

    with np.errstate(invalid="ignore"):
        non_finite = ~np.isfinite(values)
        ints = values[:, _INT_COLS]
        not_int = ints != np.trunc(ints)
        too_big = np.abs(ints) > _MAX_EXACT_INT
    all_cols = range(_N_FIELDS)
    int_cols: list[int] = _INT_COLS.tolist()

    def describe_non_finite(r: int) -> str:
        return f"{field(first_column(non_finite, all_cols, r))} is not a finite number"

    def describe_not_int(r: int) -> str:
        col = first_column(not_int, int_cols, r)
        return f"{field(col)} must be an integer, got {float(values[r, col])!r}"

    def describe_too_big(r: int) -> str:
        col = first_column(too_big, int_cols, r)
        value = float(values[r, col])
        return f"{field(col)} is out of range (more than 2**53 in magnitude): {value!r}"

    flag(np.any(non_finite, axis=1), describe_non_finite)
    flag(np.any(not_int, axis=1), describe_not_int)
    flag(np.any(too_big, axis=1), describe_too_big)
    submit = values[:, _COL["submit"]]
    # -1 is SWF's "unknown" and is left to the cleaning rules; any other negative value is corrupt.
    flag(
        (submit < 0) & (submit != -1),
        lambda r: f"field 2 (submit) is negative: {float(submit[r])!r}",
    )
    # Duplicates are looked for among the otherwise valid rows only; the first occurrence wins.
    ok_rows = np.flatnonzero(~bad)
    ids = values[ok_rows, _COL["id"]]
    unique_ids, first = np.unique(ids, return_index=True)
    if len(unique_ids) < len(ids):
        duplicate = np.zeros(len(values), dtype=bool)
        duplicate[ok_rows] = True
        duplicate[ok_rows[first]] = False
        first_line = dict(zip(unique_ids.tolist(), numbers[ok_rows[first]].tolist(), strict=True))

        def describe_duplicate(r: int) -> str:
            job = float(values[r, _COL["id"]])
            return f"duplicate job id {int(job)} (first on line {first_line[job]})"

        flag(duplicate, describe_duplicate)
    return problems


def _parse_data(
    data: list[str], numbers: list[int], where: str, lenient: bool
) -> tuple[npt.NDArray[np.float64], tuple[int, ...]]:
    """Return the valid job rows (n, 18) in file order and the skipped line numbers."""
    if not data:
        return np.empty((0, _N_FIELDS), dtype=np.float64), ()
    fast = _fast_parse(data)
    if fast is not None:
        values, line_numbers = fast, np.array(numbers, dtype=np.int64)
        problems: list[tuple[int, str]] = []
    else:
        values, line_numbers, problems = _slow_parse(data, numbers)
    problems += _value_problems(values, line_numbers)
    if not problems:
        return values, ()
    if not lenient:
        line, reason = min(problems)
        raise SWFError(reason, path=where, line=line)
    skipped = {line for line, _ in problems}
    keep = ~np.isin(line_numbers, np.fromiter(skipped, dtype=np.int64, count=len(skipped)))
    return values[keep], tuple(sorted(skipped))


def _machine_size(
    header: Mapping[str, str], widths: npt.NDArray[np.float64], given: int | None
) -> tuple[int, str]:
    if given is not None:
        return int(given), "argument"
    for key in ("MaxProcs", "MaxNodes"):
        size = _leading_int(header.get(key))
        if size is not None and size > 0:
            return size, key
    if len(widths) and widths.max() > 0:
        return int(widths.max()), "widest_job"
    return 1, "default"


def read_swf(
    source: Source,
    policy: CleaningPolicy = CleaningPolicy(),  # noqa: B008 - frozen, so sharing the default is safe
    *,
    lenient: bool = False,
    machine_size: int | None = None,
) -> tuple[Workload, ReadReport]:
    r"""Read an SWF log, check it and clean it.

    Args:
        source: A path (``.gz`` or plain; gzip is recognised by its magic bytes, not the suffix) or
            an open file, text or binary.
        policy: Which jobs to keep and how to repair them; see :class:`CleaningPolicy`.
        lenient: Skip malformed data lines (listed in ``ReadReport.skipped_lines``) instead of
            raising.
        machine_size: Processors of the machine. By default the header's ``MaxProcs``, else
            ``MaxNodes``, else the widest job kept.

    Returns:
        The cleaned workload, sorted by submit time (ties keep file order), with the header
        comments in ``Workload.header`` and the source name, policy and counts in
        ``Workload.provenance``; and the :class:`ReadReport`.

    Raises:
        SWFError: A data line has not 18 fields, a field is not a finite number, an integer field
            is not an integer, a submit time is negative (other than -1, unknown) or a job id
            repeats; the bytes are not UTF-8 or the gzip stream is corrupt. The error names the file
            and the 1-based line. With ``lenient=True`` such lines are skipped instead (bad gzip
            still raises).
        BackfillError: ``machine_size`` is not a positive integer.

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
    if machine_size is not None and machine_size <= 0:
        raise BackfillError(f"machine_size must be positive, got {machine_size}")
    where, base = _names(source)
    text = _read_text(source, where, lenient)
    comments, data, numbers = _split_lines(text)
    header = _parse_header(comments)
    values, skipped = _parse_data(data, numbers, where, lenient)

    runtime = values[:, _COL["runtime"]]
    status = values[:, _COL["status"]]
    allocated = values[:, _COL["processors"]]
    requested = values[:, _COL["requested_processors"]]
    if policy.processors == "allocated":
        width = allocated
    elif policy.processors == "requested":
        width = requested
    else:
        width = np.where(allocated > 0, allocated, requested)

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
    size, size_from = _machine_size(header, width[reason == 0], machine_size)
    drop("wider_than_machine", width > size)

    kept = reason == 0
    rows = values[kept].copy()
    rows[:, _COL["processors"]] = width[kept]
    runtime, estimate = rows[:, _COL["runtime"]], rows[:, _COL["estimate"]]
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
        reason[np.flatnonzero(kept)[overrun]] = REASON_CODES["runtime_over_estimate"]
        rows = rows[~overrun]
    # Jobs listed after a later submit time: the workload sorts them into place (stably), and the
    # report says how many, so that a log out of order does not pass unnoticed.
    submits = rows[:, _COL["submit"]]
    if len(submits) > 1:
        altered["reordered_by_submit_time"] = int(
            np.count_nonzero(submits[1:] < np.maximum.accumulate(submits)[:-1])
        )
    altered = {k: v for k, v in altered.items() if v}

    ids = values[:, _COL["id"]]
    dropped: dict[str, int] = {}
    dropped_ids: dict[str, list[int]] = {}
    for name, code in REASON_CODES.items():
        mask = reason == code
        if mask.any():
            dropped[name] = int(mask.sum())
            dropped_ids[name] = ids[mask].astype(np.int64).tolist()

    records = np.empty(len(rows), dtype=JOB_DTYPE)
    for i, name in enumerate(SWF_FIELDS):
        records[name] = rows[:, i]
    report = ReadReport(
        source=base,
        lines=len(data),
        kept=len(records),
        machine_size=size,
        machine_size_from=size_from,
        dropped=dropped,
        dropped_ids=dropped_ids,
        altered=altered,
        skipped_lines=skipped,
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
        "skipped_lines": len(skipped),
        "machine_size_from": size_from,
    }
    workload = Workload.from_records(records, size, provenance=provenance, header=header)
    return workload, report


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
