"""The data lines of an SWF log, parsed a batch at a time into rows of 18 numbers and checked.

:class:`Rows` takes data lines as :func:`~backfill.workloads._swf_lines.line_blocks` yields them,
parses them in batches with numpy's C parser, and checks every row against the rules a job's values
obey (:mod:`backfill.workloads.limits`), so that a row it keeps is one a
:class:`~backfill.workloads.workload.Workload` accepts. Memory is one row of 18 floats per job kept,
plus one number per line skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from backfill.errors import SWFError
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS

__all__ = ["N_FIELDS", "Rows"]

N_FIELDS = len(SWF_FIELDS)
_COL = {name: i for i, name in enumerate(SWF_FIELDS)}
_INT_COLS = np.array([i for i, name in enumerate(SWF_FIELDS) if JOB_DTYPE[name].kind == "i"])
# Times a job carries: -1 (unknown) or 0..MAX_TIME.
_TIME_COLS = (_COL["submit"], _COL["runtime"], _COL["estimate"])
# Memory a job used and asked (fields 7 and 10, kB per processor): -1 (unknown) or at least 0. A
# resource reads them (backfill.workloads.resources.memory_request); -5 is no amount, not "unknown".
_MEMORY_COLS = (_COL["memory"], _COL["requested_memory"])
# Data lines parsed at a time: enough for numpy's parser to run at full speed, few enough that the
# text waiting to be parsed stays a few MB.
_BATCH = 2**15
# Lines a failed batch hands back to the C parser at a time, to find the bad ones.
_BLOCK = 2048

_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)
_NON_FINITE_RE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)
_SURROGATE_RE = re.compile("[\udc80-\udcff]")
_UNKNOWN_ONLY = "(-1, unknown, is the only negative value allowed)"


def _field(col: int) -> str:
    return f"field {col + 1} ({SWF_FIELDS[col]})"


def _fast_parse(data: list[str]) -> npt.NDArray[np.float64] | None:
    """Parse well-formed data lines in C; ``None`` means some line needs a closer look."""
    try:
        values = np.loadtxt(data, dtype=np.float64, comments=None, ndmin=2)
    except ValueError:
        return None
    if values.shape != (len(data), N_FIELDS):
        return None
    return values


def _token_problem(token: str, field: int) -> str:
    if _NON_FINITE_RE.fullmatch(token):
        return f"{_field(field)} is not a finite number: {token!r}"
    return f"{_field(field)} is not a number: {token!r}"


def _check_line(line: str) -> str | None:
    """Return what is wrong with one data line's text, or ``None`` if it is 18 numbers."""
    if _SURROGATE_RE.search(line):
        return "not valid UTF-8"
    tokens = line.split()
    if len(tokens) != N_FIELDS:
        return f"expected {N_FIELDS} fields, got {len(tokens)}"
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
        blocks.append(np.array(tokens, dtype=np.float64).reshape(-1, N_FIELDS))
    return np.concatenate(blocks), np.array(good_numbers, dtype=np.int64), problems


def _value_problems(
    values: npt.NDArray[np.float64], numbers: npt.NDArray[np.int64], processors: str
) -> list[tuple[int, str]]:
    """Find rows that parse as numbers but hold a value no job can have: (line, problem) pairs.

    The rules are those of :class:`~backfill.workloads.workload.Job`: integers exact (below 2**53 in
    magnitude), times (submit, runtime, estimate) -1 or 0 to ``MAX_TIME``, a width and a partition
    number (field 16) -1 or at least 0; and memory (used, field 7, and requested, field 10) -1 or
    at least 0, as a width.
    ``processors`` is the cleaning policy's choice of width, since a width taken from field 8 must
    obey the width's rule too. Repeated ids are looked for separately, over the whole log.
    """
    problems: list[tuple[int, str]] = []
    bad = np.zeros(len(values), dtype=bool)

    def flag(mask: npt.NDArray[np.bool_], describe: Callable[[int], str]) -> None:
        new = mask & ~bad
        problems.extend((int(numbers[r]), describe(r)) for r in np.flatnonzero(new).tolist())
        bad[new] = True

    def first_column(per_field: npt.NDArray[np.bool_], columns: Sequence[int], r: int) -> int:
        return columns[int(np.argmax(per_field[r]))]

    with np.errstate(invalid="ignore"):
        non_finite = ~np.isfinite(values)
        ints = values[:, _INT_COLS]
        not_int = ints != np.trunc(ints)
        too_big = np.abs(ints) >= MAX_INT
    int_cols: list[int] = _INT_COLS.tolist()

    def describe_non_finite(r: int) -> str:
        return f"{_field(first_column(non_finite, range(N_FIELDS), r))} is not a finite number"

    def describe_not_int(r: int) -> str:
        col = first_column(not_int, int_cols, r)
        return f"{_field(col)} must be an integer, got {float(values[r, col])!r}"

    def describe_too_big(r: int) -> str:
        col = first_column(too_big, int_cols, r)
        return f"{_field(col)} is out of range (2**53 or more in magnitude): {float(values[r, col])!r}"

    flag(np.any(non_finite, axis=1), describe_non_finite)
    flag(np.any(not_int, axis=1), describe_not_int)
    flag(np.any(too_big, axis=1), describe_too_big)

    def negative(col: int) -> Callable[[int], str]:
        return lambda r: f"{_field(col)} is negative: {float(values[r, col])!r} {_UNKNOWN_ONLY}"

    def too_large(col: int) -> Callable[[int], str]:
        return lambda r: f"{_field(col)} is too large: {float(values[r, col])!r} (at most 10**12 s)"

    for col in _TIME_COLS:
        column = values[:, col]
        flag((column < 0) & (column != -1), negative(col))
        flag(column > MAX_TIME, too_large(col))
    for col in _MEMORY_COLS:
        column = values[:, col]
        flag((column < 0) & (column != -1), negative(col))
    # A partition number names a part of the machine; -1 says it is unknown, and no other negative
    # number means anything (read as a partition, -7 would become one of its own).
    partition = _COL["partition"]
    flag((values[:, partition] < 0) & (values[:, partition] != -1), negative(partition))
    allocated, requested = values[:, _COL["processors"]], values[:, _COL["requested_processors"]]
    flag(
        (allocated < 0) & (allocated != -1),
        lambda r: f"field 5 (processors) is negative: {float(allocated[r])!r} {_UNKNOWN_ONLY}",
    )
    if processors != "allocated":
        # The width is field 8 (for "allocated_or_requested", where field 5 is not positive).
        from_requested = requested < -1
        if processors == "allocated_or_requested":
            from_requested &= allocated <= 0
        flag(
            from_requested,
            lambda r: (
                f"field 8 (requested_processors), the job's width with processors={processors!r}, "
                f"is negative: {float(requested[r])!r} {_UNKNOWN_ONLY}"
            ),
        )
    return problems


def _duplicates(ids: npt.NDArray[np.float64], numbers: npt.NDArray[np.int64]) -> list[tuple[int, str]]:
    """Find repeated job ids, in file order; the first occurrence of an id is not a duplicate."""
    unique_ids, first = np.unique(ids, return_index=True)
    if len(unique_ids) == len(ids):
        return []
    duplicate = np.ones(len(ids), dtype=bool)
    duplicate[first] = False
    rows = np.flatnonzero(duplicate)
    first_lines = numbers[first[np.searchsorted(unique_ids, ids[rows])]]
    return [
        (line, f"duplicate job id {int(job)} (first on line {first_line})")
        for line, job, first_line in zip(
            numbers[rows].tolist(), ids[rows].tolist(), first_lines.tolist(), strict=True
        )
    ]


class Rows:
    """The data lines of a log, parsed into rows of 18 numbers a batch at a time.

    Strictly, the first line that is not a valid job raises :class:`SWFError` naming it (as soon as
    its batch is parsed, so a broken log fails early); leniently, such lines are skipped and their
    numbers kept in ``skipped``.
    """

    def __init__(self, where: str, lenient: bool, processors: str) -> None:
        self.where = where
        self.lenient = lenient
        self.processors = processors
        #: Data lines seen (skipped ones included).
        self.lines = 0
        #: Data lines waiting to be parsed, and their numbers.
        self.data: list[str] = []
        self.numbers: list[int] = []
        self.skipped: list[int] = []
        self._values: list[npt.NDArray[np.float64]] = []
        self._line_numbers: list[npt.NDArray[np.int64]] = []

    def full(self) -> bool:
        """Whether enough lines wait for :meth:`flush` to be worth calling."""
        return len(self.data) >= _BATCH

    def skip(self, number: int) -> None:
        """Count line ``number`` as a data line skipped (one too long to read, in lenient mode)."""
        self.lines += 1
        self.skipped.append(number)

    def flush(self) -> None:
        """Parse and check the lines waiting."""
        if not self.data:
            return
        data, numbers_list = self.data, self.numbers
        self.data, self.numbers = [], []
        self.lines += len(data)
        values = _fast_parse(data)
        if values is not None:
            numbers = np.array(numbers_list, dtype=np.int64)
            problems: list[tuple[int, str]] = []
        else:
            values, numbers, problems = _slow_parse(data, numbers_list)
        del data, numbers_list
        problems += _value_problems(values, numbers, self.processors)
        if problems:
            if not self.lenient:
                self._raise_first(problems, values, numbers)
            bad = np.unique(np.array([line for line, _ in problems], dtype=np.int64))
            keep = ~np.isin(numbers, bad)
            values, numbers = values[keep], numbers[keep]
            self.skipped.extend(bad.tolist())
        self._values.append(values)
        self._line_numbers.append(numbers)

    def _raise_first(
        self, problems: list[tuple[int, str]], values: npt.NDArray[np.float64], numbers: npt.NDArray[np.int64]
    ) -> None:
        """Raise the first problem of the log so far: this batch's first, or an earlier repeated id."""
        line, reason = min(problems)
        before = numbers < line  # all valid: earlier batches had no problem, nor has this one before
        ids = np.concatenate([*(v[:, 0] for v in self._values), values[before, 0]])
        lines = np.concatenate([*self._line_numbers, numbers[before]])
        repeated = _duplicates(ids, lines)
        if repeated:
            line, reason = min(min(repeated), (line, reason))
        raise SWFError(reason, path=self.where, line=line)

    def finish(self) -> npt.NDArray[np.float64]:
        """Parse the lines left, check ids for repeats, and return the valid rows (n, 18) in file order."""
        self.flush()
        numbers = np.concatenate([np.empty(0, dtype=np.int64), *self._line_numbers])
        self._line_numbers = []
        if len(self._values) == 1:
            values = self._values.pop()
        else:
            # Each batch is freed as soon as it is copied, so the pages in use stay about one copy.
            values = np.empty((len(numbers), N_FIELDS), dtype=np.float64)
            at = 0
            while self._values:
                batch = self._values.pop(0)
                values[at : at + len(batch)] = batch
                at += len(batch)
                del batch
        repeated = _duplicates(values[:, 0], numbers)
        if repeated:
            if not self.lenient:
                line, reason = min(repeated)
                raise SWFError(reason, path=self.where, line=line)
            bad = np.array([line for line, _ in repeated], dtype=np.int64)
            values = values[~np.isin(numbers, bad)]
            self.skipped.extend(bad.tolist())
        self.skipped.sort()
        return values
