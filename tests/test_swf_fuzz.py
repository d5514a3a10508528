"""SWF fuzzing: every input is read, or refused with the library's own error naming file and line.

Inputs come from two sources:

* logs built from scratch by hypothesis: good and broken data lines (truncated, extra fields,
  non-numbers, NaN, infinities, huge values, fractions in integer fields, negative times, times
  beyond MAX_TIME, duplicate ids, unsorted submit times, lines run together), comment and blank
  lines, lines around the length limit (MAX_LINE_LENGTH, 1 MiB), with or without a header
  (conflicting and unusable ``MaxProcs`` lines among them), LF, CRLF or CR line ends, a byte-order
  mark, in UTF-8 or another encoding, stray bytes, gzip, bzip2 or xz whole or cut short, and the
  empty file;
* real lines of the archive traces in ``../shared/traces``, mutated the same ways.

Each input is read strictly and leniently. A file that is not a log (binary data, UTF-16 text) or
whose compressed stream is corrupt is refused whole in both modes, with :class:`~backfill.SWFError`
naming the file and no line (strictly, a bad line before the point where a stream breaks may be
named instead). Otherwise, strictly, it either gives a workload or raises an SWFError naming the
file and the offending line; no other exception type ever escapes. Leniently, every line the strict
read refuses is skipped and counted. Either way nothing is lost: the report's data lines equal the
lines of the input, and the ids kept, dropped (by reason) and the lines skipped add up to them; the
report's notes name every header ``MaxProcs`` or ``MaxNodes`` value that is not a machine size and
every conflict; and the workload simulates with every job scheduled or rejected with a reason.

The default run tries a few hundred inputs of each kind; the slow suite
(``python -m pytest -m slow tests/test_swf_fuzz.py``) tries 10,000 of each.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import random
import re
import zlib
from collections.abc import Mapping
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from backfill import EASY, SWFError, simulate
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.swf import MAX_LINE_LENGTH, read_swf

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
NAME = "fuzzed.swf"

# -- building inputs ------------------------------------------------------------------------------

#: The compressions the reader opens, fast settings (the reader does not care how hard they tried).
COMPRESS = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "bzip2": lambda data: bz2.compress(data, compresslevel=1),
    "xz": lambda data: lzma.compress(data, preset=0),
}
DECOMPRESS = {"gzip": gzip.decompress, "bzip2": bz2.decompress, "xz": lzma.decompress}

#: Tokens no SWF field may hold, and tokens that are numbers but not valid in every field.
NOT_NUMBERS = ["abc", "1.2.3", "--1", "0x10", "1e", "1_000", "\u0665", "\u00bd", "1,5", "+-2", "e5", "."]
NOT_FINITE = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e400", "-1e400"]
EDGE_NUMBERS = [
    "0",
    "-0",
    "-1",
    "-2",
    "-5",
    "0.5",
    "3.25",
    "+7",
    "7.",
    ".5",
    "5e0",
    "1e12",
    "1000000000001",
    "1e15",
    "1e16",
    "1e300",
    "-1e300",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "9" * 25,
    "-" + "9" * 25,
]
ODD_CHARACTERS = ["\x00", "\t", "\x0b", "\x0c", "\x1c", "\u00a0", "\u2028", "\x85", "\ufeff", "\u00e9", "\r"]


def plausible_fields(seed: int) -> list[str]:
    """The 18 fields of a plausible job, as text, made from a seed.

    Hypothesis draws one seed per line rather than 18 values: generating is then cheap enough for
    10,000 logs, and a failing log still shrinks to fewer and simpler lines.
    """
    rnd = random.Random(seed)
    tokens = [str(rnd.randint(-1, 50)) for _ in range(18)]
    tokens[0] = str(rnd.randint(1, 40))  # small ids, so that some repeat
    tokens[1] = str(rnd.choice([rnd.randint(-1, 10_000), round(rnd.uniform(0, 1e4), rnd.randint(0, 3))]))
    tokens[3] = str(rnd.choice([rnd.randint(-1, 5_000), round(rnd.uniform(0, 5e3), 2)]))  # runtime
    tokens[4] = tokens[7] = str(rnd.randint(-1, 70))  # processors, requested
    tokens[8] = str(rnd.randint(-1, 9_000))  # estimate
    tokens[10] = str(rnd.randint(-1, 5))  # status
    return tokens


@st.composite
def mutated(draw: st.DrawFn, tokens: list[str]) -> str:
    """One data line: ``tokens`` joined, possibly broken in one or two of many ways."""
    tokens = list(tokens)
    # One line in six is broken, so that whole logs are read as well as refused.
    broken = draw(st.integers(0, 5)) == 0
    for _ in range(draw(st.integers(1, 2)) if broken else 0):
        kind = draw(
            st.sampled_from(
                ["truncate", "extra", "not_number", "not_finite", "edge", "negative", "char", "none"]
            )
        )
        i = draw(st.integers(0, max(len(tokens) - 1, 0)))
        if kind == "truncate":
            tokens = tokens[: draw(st.integers(0, len(tokens)))]
        elif kind == "extra":
            tokens += draw(st.lists(st.sampled_from(["1", "-1", "0.5", "x"]), min_size=1, max_size=3))
        elif not tokens:
            continue
        elif kind == "not_number":
            tokens[i] = draw(st.sampled_from(NOT_NUMBERS))
        elif kind == "not_finite":
            tokens[i] = draw(st.sampled_from(NOT_FINITE))
        elif kind == "edge":
            tokens[i] = draw(st.sampled_from(EDGE_NUMBERS))
        elif kind == "negative":
            tokens[i] = "-" + tokens[i].lstrip("+-")
        elif kind == "char":
            at = draw(st.integers(0, len(tokens[i])))
            tokens[i] = tokens[i][:at] + draw(st.sampled_from(ODD_CHARACTERS)) + tokens[i][at:]
    separator = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    return draw(st.sampled_from(["", " ", "\t"])) + separator.join(tokens) + draw(st.sampled_from(["", " "]))


HEADERS = [
    "; MaxProcs: 64",
    "; MaxProcs: 64\n; MaxProcs: 128",
    "; MaxProcs: 64\n; Note: x\n; MaxProcs: 64",
    "; MaxProcs: abc\n; MaxProcs: 16",
    "; MaxProcs: 16 (all of them)\n; MaxProcs: 1,024",
    "; MaxNodes: 8\n; MaxNodes: 4\n; MaxNodes: zero",
    "; MaxProcs: 16",
    "; MaxProcs: 0",
    "; MaxProcs: -3",
    "; MaxProcs: abc",
    "; MaxProcs: 1e9",
    "; MaxProcs: 99999999999999999999999",
    "; MaxProcs:",
    "; MaxNodes: 32",
    "; MaxNodes: 32\n; MaxProcs: 64",
    "; Version: 2.2\n; Computer: fuzz\n;   continued text\n; Note: x",
    ";",
    "; : no key",
    "; maxprocs: 8",
]


def long_line(kind: str, length: int) -> str:
    """A line of ``length`` characters (ASCII): a job padded with spaces, a comment, blanks, or digits."""
    if kind == "job":
        return " ".join(plausible_fields(0)).ljust(length)
    if kind == "indented job":
        return " ".join(plausible_fields(1)).rjust(length)
    if kind == "comment":
        return "; Note: ".ljust(length, "x")
    return (" " if kind == "blank" else "9") * length


@st.composite
def assemble(draw: st.DrawFn, lines: list[str], header: str | None) -> bytes:
    """A whole file: a header (or none), the data lines with comments and blanks, some encoding."""
    out = [header] if header is not None else []
    for text in lines:
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["", "   ", "; comment", " ; indented comment", "\t"])))
        out.append(text)
    if len(out) > 1 and draw(st.integers(0, 4)) == 0:
        # Two lines run together, as when a newline is lost.
        i = draw(st.integers(0, len(out) - 2))
        out[i : i + 2] = [out[i] + " " + out[i + 1]]
    if draw(st.integers(0, 9)) == 0:
        # A line at the length limit, one byte over, or far over.
        kind = draw(st.sampled_from(["job", "indented job", "comment", "blank", "digits"]))
        length = MAX_LINE_LENGTH + draw(st.sampled_from([-1, 0, 1, 2, 300_000]))
        out.insert(draw(st.integers(0, len(out))), long_line(kind, length))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join(out) + draw(st.sampled_from(["", newline]))
    if draw(st.booleans()):
        text = "\ufeff" + text
    encoding = draw(st.sampled_from(["utf-8"] * 6 + ["latin-1", "utf-16", "cp1252"]))
    data = text.encode(encoding, errors="replace")
    if data and draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", b"\xe9"])) + data[at:]
    wrap = draw(st.sampled_from(["plain"] * 5 + sorted(COMPRESS)))
    if wrap == "plain":
        return data
    data = COMPRESS[wrap](data)
    if draw(st.booleans()):  # cut short
        data = data[: draw(st.integers(2, max(2, len(data) - 1)))]
    return data


@st.composite
def logs_from_scratch(draw: st.DrawFn) -> bytes:
    seeds = draw(st.lists(st.integers(0, 2**32 - 1), max_size=25))
    lines = [draw(mutated(plausible_fields(seed))) for seed in seeds]
    header = draw(st.one_of(st.none(), st.sampled_from(HEADERS)))
    return draw(assemble(lines, header))


@functools.cache
def trace_samples() -> dict[str, tuple[str, list[str]]]:
    """Each trace's header and 300 of its data lines (spread over the file), read once."""
    samples: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(TRACES.glob("*.swf.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            text = f.read()
        all_lines = text.split("\n")
        header = "\n".join(x for x in all_lines[:200] if x.startswith(";"))
        data = [x for x in all_lines if x.strip() and not x.lstrip().startswith(";")]
        step = max(1, len(data) // 300)
        samples[path.name.removesuffix(".swf.gz")] = (header, data[::step][:300])
    return samples


@st.composite
def logs_from_traces(draw: st.DrawFn) -> bytes:
    samples = trace_samples()
    header, lines = samples[draw(st.sampled_from(sorted(samples)))]
    chosen = draw(st.lists(st.sampled_from(lines), max_size=30))
    if draw(st.booleans()):
        chosen = draw(st.permutations(chosen))  # unsorted submit times
    broken = [draw(mutated(line.split())) for line in chosen]
    return draw(assemble(broken, draw(st.sampled_from([header, None, "; MaxProcs: 8"]))))


# -- the property ---------------------------------------------------------------------------------


@attrs.frozen
class Expected:
    """What the reader must make of a file, worked out here independently of it."""

    #: The compression its magic bytes name, or None.
    compression: str | None
    #: Why the whole file is refused ("corrupt" stream, "not a log"), or None.
    refused: str | None
    #: Data lines by 1-based number (a line over the length limit is a data line, whatever it holds),
    #: and how many lines a corrupt stream gave before breaking.
    lines: dict[int, str]
    prefix_lines: int


def compression(data: bytes) -> str | None:
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:3] == b"BZh" and data[3:4].isdigit():
        return "bzip2"
    if data[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


def partial(kind: str, data: bytes) -> bytes:
    """What a corrupt stream gives before it breaks."""
    decompressor = {
        "gzip": lambda: zlib.decompressobj(31),
        "bzip2": bz2.BZ2Decompressor,
        "xz": lzma.LZMADecompressor,
    }[kind]()
    try:
        return bytes(decompressor.decompress(data))
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return b""


def expect(data: bytes) -> Expected:
    kind = compression(data)
    content = data
    if kind is not None:
        try:
            content = DECOMPRESS[kind](data)
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
            prefix = partial(kind, data)
            return Expected(kind, "corrupt", {}, len(re.split(rb"\r\n|\r|\n", prefix)))
    head = content[:8000]
    if b"\x00" in head or head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return Expected(kind, "not a log", {}, 0)
    content = content.removeprefix(b"\xef\xbb\xbf")
    lines = {}
    for number, raw in enumerate(re.split(rb"\r\n|\r|\n", content), start=1):
        line = raw.decode("utf-8", "surrogateescape")
        stripped = line.lstrip()
        if len(raw) > MAX_LINE_LENGTH or (stripped and not stripped.startswith(";")):
            lines[number] = line
    return Expected(kind, None, lines, 0)


SIZE_LINE = re.compile(r"\s*\+?([0-9]{1,16})(?=[\s(]|\Z)")


def machine_size(value: str) -> int | None:
    """A header line's machine size, by the rule docs/swf.md states."""
    match = SIZE_LINE.match(value)
    return int(match.group(1)) if match and 0 < int(match.group(1)) < MAX_INT else None


def read(data: bytes, lenient: bool) -> tuple[object, object] | SWFError:
    source = io.BytesIO(data)
    source.name = NAME
    try:
        return read_swf(source, lenient=lenient)
    except SWFError as error:
        return error


def note(what: str) -> None:
    """Count an outcome in hypothesis's statistics (``--hypothesis-show-statistics``)."""
    if currently_in_test_context():
        event(what)


def check_input(data: bytes) -> None:
    expected = expect(data)
    strict, lenient = read(data, False), read(data, True)
    note("strict read: " + ("refused" if isinstance(strict, SWFError) else "read"))
    if expected.compression:
        note(f"{expected.compression}" + (" (corrupt)" if expected.refused == "corrupt" else ""))
    for outcome in (strict, lenient):
        if isinstance(outcome, SWFError):
            assert outcome.path == NAME and str(outcome).startswith(f"{NAME}:")
    if expected.refused is not None:
        # Refused whole, without a line; strictly, a bad line before a stream breaks may come first.
        whole = (f"not a valid {expected.compression} file", "not an SWF log but")
        if expected.refused == "not a log":
            whole = ("not an SWF log but",)
        assert isinstance(lenient, SWFError) and lenient.line is None, lenient
        assert lenient.reason.startswith(whole), lenient
        assert isinstance(strict, SWFError)
        if strict.line is None:
            assert strict.reason.startswith(whole), strict
        else:
            assert expected.refused == "corrupt" and strict.line <= expected.prefix_lines
        return
    lines = expected.lines
    if isinstance(strict, SWFError):
        assert strict.line is not None and strict.line >= 1
    # Leniently, only a file refused whole raises.
    assert not isinstance(lenient, SWFError), lenient
    workload, report = lenient
    assert report.lines == len(lines)
    skipped = len(report.skipped_lines)
    note(f"lenient read: {skipped if skipped < 3 else '3 or more'} lines skipped")
    assert set(report.skipped_lines) <= set(lines)
    # A line over the length limit is skipped, whatever it holds.
    assert {
        n for n, line in lines.items() if len(line.encode("utf-8", "surrogateescape")) > MAX_LINE_LENGTH
    } <= set(report.skipped_lines)
    assert report.kept == len(workload)
    assert report.lines == report.kept + sum(report.dropped.values()) + len(report.skipped_lines)
    # Every line not skipped is a job that was kept or dropped by a named rule, none lost.
    read_ids = sorted(int(float(lines[n].split()[0])) for n in lines if n not in report.skipped_lines)
    accounted = workload.column("id").tolist() + [i for ids in report.dropped_ids.values() for i in ids]
    assert sorted(accounted) == read_ids
    check_header_notes(workload.header, report.notes)
    check_job_rules(workload.records)
    if isinstance(strict, SWFError):
        # The strict read stops at the first bad line, which the lenient one skips; an undecodable
        # byte in a comment is the one thing that stops the strict read and not the lenient one.
        assert strict.line in report.skipped_lines or (
            strict.reason.startswith("not valid UTF-8") and strict.line not in lines
        )
    else:
        strict_workload, strict_report = strict
        assert report.skipped_lines == () and strict_report == report
        assert strict_workload.records.tobytes() == workload.records.tobytes()
    # The workload simulates with every job accounted for (simulate asserts it too).
    schedule = simulate(workload, EASY(), record_reservations=False)
    assert int(np.count_nonzero(schedule.started)) + len(schedule.rejected) == len(workload)


def check_job_rules(records: np.ndarray) -> None:
    """Every row obeys the rules a Job's values obey (backfill.workloads.limits)."""
    assert np.all(records["submit"] >= 0)
    for name in ("submit", "runtime", "estimate"):
        assert np.all((records[name] == -1) | ((records[name] >= 0) & (records[name] <= MAX_TIME))), name
    assert np.all(records["processors"] >= -1)
    for name in records.dtype.names or ():
        assert np.all(np.isfinite(records[name])), name
        if records.dtype[name].kind == "i":
            assert np.all(np.abs(records[name]) < MAX_INT), name


def check_header_notes(header: Mapping[str, str], notes: tuple[str, ...]) -> None:
    """Every MaxProcs or MaxNodes value that is not a machine size, and every conflict, has a note."""
    for key in ("MaxProcs", "MaxNodes"):
        values = header[key].split("\n") if key in header else []
        unusable = [v for v in values if machine_size(v) is None]
        sizes = {machine_size(v) for v in values} - {None}
        assert any(n.startswith(f"header {key} ") for n in notes) == bool(unusable), (values, notes)
        assert any(f"different {key} values" in n for n in notes) == (len(sizes) > 1), (values, notes)
        if unusable or len(sizes) > 1:
            note(f"header note on {key}")


needs_traces = pytest.mark.skipif(
    not TRACES.is_dir(), reason=f"no trace folder at {TRACES} (expected ../shared/traces beside the project)"
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(logs_from_scratch())
def test_fuzzed_logs_are_read_or_refused_with_file_and_line(data: bytes) -> None:
    check_input(data)


@needs_traces
@FAST
@given(logs_from_traces())
def test_mutated_trace_lines_are_read_or_refused_with_file_and_line(data: bytes) -> None:
    check_input(data)


@pytest.mark.slow
@THOROUGH
@given(logs_from_scratch())
def test_10000_fuzzed_logs(data: bytes) -> None:
    check_input(data)


@pytest.mark.slow
@needs_traces
@THOROUGH
@given(logs_from_traces())
def test_10000_mutated_trace_logs(data: bytes) -> None:
    check_input(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"\n\n", b"; MaxProcs: 4\n", "\ufeff".encode(), gzip.compress(b"", mtime=0)],
    ids=["empty", "blank", "header only", "bom only", "empty gzip"],
)
def test_files_without_jobs(data: bytes) -> None:
    check_input(data)
    result = read(data, False)
    assert not isinstance(result, SWFError)
    assert len(result[0]) == 0  # type: ignore[index,arg-type]
