"""The SWF reader and writer: cleaning rules, malformed input, round trips, archive traces."""

from __future__ import annotations

import bz2
import contextlib
import functools
import gzip
import io
import lzma
import os
import re
import tarfile
import threading
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backfill.errors import BackfillError, JobError, ParameterError, SWFError
from backfill.workloads import swf as swf_module
from backfill.workloads.limits import MAX_TIME
from backfill.workloads.swf import MAX_LINE_LENGTH, CleaningPolicy, ReadReport, read_swf, write_swf
from backfill.workloads.workload import JOB_DTYPE, SWF_FIELDS, Job, Workload

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
needs_traces = pytest.mark.skipif(
    not TRACES.is_dir(), reason=f"trace folder {TRACES} is absent (the archive logs live there)"
)

# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

FIELD_DEFAULTS: dict[str, float] = {
    "id": 1,
    "submit": 0,
    "wait": -1,
    "runtime": 100,
    "processors": 4,
    "cpu_time": -1,
    "memory": -1,
    "requested_processors": 4,
    "estimate": 200,
    "requested_memory": -1,
    "status": 1,
    "user": 1,
    "group": 1,
    "executable": -1,
    "queue": 1,
    "partition": -1,
    "preceding_job": -1,
    "think_time": -1,
}


def line(**fields: float | str) -> str:
    """One SWF data line; unspecified fields take FIELD_DEFAULTS."""
    unknown = set(fields) - set(SWF_FIELDS)
    assert not unknown, unknown
    values = {**FIELD_DEFAULTS, **fields}
    return " ".join(str(values[name]) for name in SWF_FIELDS)


def swf(*lines: str, header: str = "; MaxProcs: 16") -> io.StringIO:
    return io.StringIO("\n".join([header, *lines]) + "\n" if header else "\n".join(lines) + "\n")


def read(
    *lines: str, policy: CleaningPolicy | None = None, header: str = "; MaxProcs: 16"
) -> tuple[Workload, ReadReport]:
    return read_swf(swf(*lines, header=header), policy or CleaningPolicy())


def ids(workload: Workload) -> list[int]:
    return workload.column("id").tolist()


def check_invariant(report: ReadReport) -> None:
    assert report.lines == report.kept + sum(report.dropped.values()) + len(report.skipped_lines)


# ---------------------------------------------------------------------------------------------
# Cleaning rules
# ---------------------------------------------------------------------------------------------


def test_clean_job_is_kept_unchanged() -> None:
    w, report = read(line(id=7, submit=3, runtime=50, processors=2, estimate=60))
    assert len(w) == 1 and report.kept == 1 and report.lines == 1
    job = w[0]
    assert (job.id, job.submit, job.runtime, job.processors, job.estimate) == (
        7,
        3.0,
        50.0,
        2,
        60.0,
    )
    assert dict(report.dropped) == {} and dict(report.altered) == {}
    assert report.skipped_lines == ()


@pytest.mark.parametrize("status", [2, 3, 4])
def test_partial_executions_are_dropped(status: int) -> None:
    w, report = read(line(id=1), line(id=2, status=status))
    assert ids(w) == [1]
    assert dict(report.dropped) == {"partial_execution": 1}
    assert report.dropped_ids["partial_execution"] == (2,)
    w, report = read(line(id=1), line(id=2, status=status), policy=CleaningPolicy(drop_partial=False))
    assert ids(w) == [1, 2]


def test_cancelled_jobs_are_dropped_only_if_they_never_ran() -> None:
    lines = [line(id=1, status=5, runtime=0), line(id=2, status=5, runtime=30), line(id=3)]
    w, report = read(*lines)
    assert ids(w) == [2, 3]
    assert report.dropped_ids == {"cancelled_before_start": (1,)}
    w, _ = read(*lines, policy=CleaningPolicy(drop_cancelled_unstarted=False))
    assert ids(w) == [1, 2, 3]


def test_unknown_runtime_is_dropped() -> None:
    lines = [line(id=1, runtime=-1), line(id=2, runtime=0)]
    w, report = read(*lines)
    assert ids(w) == [2]
    assert report.dropped_ids == {"unknown_runtime": (1,)}
    w, report = read(*lines, policy=CleaningPolicy(drop_unknown_runtime=False))
    assert ids(w) == [1, 2]
    # An unknown runtime gives no estimate to copy, so the estimate is left alone.
    assert w[0].runtime == -1 and w[0].estimate == 200


def test_unknown_submit_is_always_dropped() -> None:
    lines = [line(id=1, submit=-1), line(id=2, submit=5)]
    for policy in (CleaningPolicy(), CleaningPolicy.raw()):
        w, report = read(*lines, policy=policy)
        assert ids(w) == [2]
        assert report.dropped_ids == {"unknown_submit": (1,)}


def test_jobs_without_processors_are_dropped() -> None:
    lines = [line(id=1, processors=0), line(id=2, processors=-1), line(id=3, processors=1)]
    w, report = read(*lines)
    assert ids(w) == [3]
    assert report.dropped == {"no_processors": 2}
    assert report.dropped_ids == {"no_processors": (1, 2)}
    w, _ = read(*lines, policy=CleaningPolicy(drop_no_processors=False))
    assert ids(w) == [1, 2, 3]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("allocated", {1: 4, 3: 2}),
        ("requested", {1: 8, 2: 6}),
        ("allocated_or_requested", {1: 4, 2: 6, 3: 2}),
    ],
)
def test_processors_choice(choice: str, expected: dict[int, int]) -> None:
    lines = [
        line(id=1, processors=4, requested_processors=8),
        line(id=2, processors=-1, requested_processors=6),
        line(id=3, processors=2, requested_processors=-1),
    ]
    w, report = read(*lines, policy=CleaningPolicy(processors=choice))
    assert {job.id: job.processors for job in w} == expected
    # The requested count itself is kept as it was in the file.
    assert {job.id: job.requested_processors for job in w} == {
        k: v for k, v in {1: 8, 2: 6, 3: -1}.items() if k in expected
    }
    check_invariant(report)


def test_missing_estimate_becomes_exact() -> None:
    lines = [
        line(id=1, runtime=70, estimate=-1),
        line(id=2, runtime=70, estimate=0),
        line(id=3),
        line(id=4, runtime=0, estimate=0),  # already exact: not counted as a change
    ]
    w, report = read(*lines)
    assert [job.estimate for job in w] == [70.0, 70.0, 200.0, 0.0]
    assert report.altered == {"estimate_from_runtime": 2}
    w, report = read(*lines, policy=CleaningPolicy(fill_missing_estimate=False))
    assert [job.estimate for job in w] == [-1.0, 0.0, 200.0, 0.0]
    assert report.altered == {}


@pytest.mark.parametrize(
    ("overrun", "kept", "runtime", "estimate", "dropped", "altered"),
    [
        ("raise_estimate", [1, 2], 300.0, 300.0, {}, {"estimate_raised_to_runtime": 1}),
        ("truncate_runtime", [1, 2], 200.0, 200.0, {}, {"runtime_truncated_to_estimate": 1}),
        ("keep", [1, 2], 300.0, 200.0, {}, {}),
        ("drop", [2], None, None, {"runtime_over_estimate": 1}, {}),
    ],
)
def test_overrun_policy(
    overrun: str,
    kept: list[int],
    runtime: float | None,
    estimate: float | None,
    dropped: dict[str, int],
    altered: dict[str, int],
) -> None:
    lines = [line(id=1, runtime=300, estimate=200), line(id=2, runtime=100, estimate=200)]
    w, report = read(*lines, policy=CleaningPolicy(overrun=overrun))
    assert ids(w) == kept
    if runtime is not None:
        assert (w[0].runtime, w[0].estimate) == (runtime, estimate)
    assert dict(report.dropped) == dropped
    assert dict(report.altered) == altered
    if overrun == "drop":
        assert report.dropped_ids == {"runtime_over_estimate": (1,)}
    assert w[-1].runtime == 100 and w[-1].estimate == 200
    check_invariant(report)


def test_filled_estimates_never_count_as_overruns() -> None:
    w, report = read(line(id=1, runtime=500, estimate=-1), policy=CleaningPolicy(overrun="drop"))
    assert ids(w) == [1] and w[0].estimate == 500
    assert report.altered == {"estimate_from_runtime": 1}


def test_a_job_is_counted_under_the_first_rule_only() -> None:
    # Partial, cancelled, no runtime and no processors at once: counted once, as partial.
    bad = line(id=1, status=3, runtime=-1, processors=-1, submit=-1)
    w, report = read(bad, line(id=2))
    assert ids(w) == [2]
    assert report.dropped == {"partial_execution": 1}
    check_invariant(report)


def test_dropped_jobs_are_not_counted_as_altered() -> None:
    w, report = read(line(id=1, status=2, estimate=-1), line(id=2, runtime=900, processors=0))
    assert len(w) == 0
    assert report.altered == {}


# ---------------------------------------------------------------------------------------------
# Machine size
# ---------------------------------------------------------------------------------------------


def test_jobs_wider_than_the_machine_are_rejected_with_their_ids() -> None:
    lines = [line(id=i, processors=p) for i, p in [(1, 8), (2, 9), (3, 1), (4, 30)]]
    w, report = read_swf(swf(*lines, header="; MaxProcs: 8"))
    assert w.machine_size == 8 and ids(w) == [1, 3]
    assert report.dropped == {"wider_than_machine": 2}
    assert report.dropped_ids == {"wider_than_machine": (2, 4)}
    assert "wider_than_machine: 2" in report.summary()
    # Even the most permissive policy cannot run a job wider than the machine.
    w, report = read_swf(swf(*lines, header="; MaxProcs: 8"), CleaningPolicy.raw())
    assert ids(w) == [1, 3]


def test_machine_size_argument_overrides_the_header() -> None:
    lines = [line(id=i, processors=p) for i, p in [(1, 8), (2, 9)]]
    w, report = read_swf(swf(*lines, header="; MaxProcs: 8"), machine_size=64)
    assert w.machine_size == 64 and ids(w) == [1, 2]
    assert report.machine_size_from == "argument"
    w, report = read_swf(swf(*lines, header="; MaxProcs: 8"), machine_size=4)
    assert len(w) == 0 and report.dropped_ids == {"wider_than_machine": (1, 2)}


def test_machine_size_from_max_nodes_then_widest_job() -> None:
    w, report = read_swf(swf(line(processors=3), header="; MaxNodes: 32 (dual CPU)"))
    assert (w.machine_size, report.machine_size_from) == (32, "MaxNodes")
    w, report = read_swf(swf(line(id=1, processors=3), line(id=2, processors=12), header=""))
    assert (w.machine_size, report.machine_size_from) == (12, "widest_job")
    # A header value that is not a number is ignored rather than trusted.
    w, report = read_swf(swf(line(processors=5), header="; MaxProcs: unknown"))
    assert (w.machine_size, report.machine_size_from) == (5, "widest_job")


def test_machine_size_reads_the_leading_number_of_annotated_values() -> None:
    w, _ = read_swf(swf(line(), header="; MaxProcs: 1664 (72, 1368, 224)"))
    assert w.machine_size == 1664


@pytest.mark.parametrize("bad", [0, -4, 2.5, True, "8"])
def test_machine_size_argument_is_checked(bad: object) -> None:
    with pytest.raises(BackfillError, match="machine_size"):
        read_swf(swf(line()), machine_size=bad)


# ---------------------------------------------------------------------------------------------
# Empty and header-only input, ordering, provenance
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n", "; just a comment\n;\n"])
def test_input_without_data_lines_gives_an_empty_workload(text: str) -> None:
    w, report = read_swf(io.StringIO(text))
    assert len(w) == 0 and report.lines == 0 and report.kept == 0
    assert w.machine_size == 1 and report.machine_size_from == "default"


def test_header_only_file_keeps_its_machine_size() -> None:
    w, _ = read_swf(io.StringIO("; Version: 2.2\n; MaxProcs: 128\n"))
    assert len(w) == 0 and w.machine_size == 128
    assert w.header["Version"] == "2.2"


def test_all_jobs_dropped_still_gives_a_workload() -> None:
    w, report = read(line(id=1, status=2), line(id=2, runtime=-1))
    assert len(w) == 0 and report.lines == 2
    check_invariant(report)


def test_jobs_are_sorted_by_submit_time_stably() -> None:
    lines = [line(id=i, submit=s) for i, s in [(1, 50), (2, 10), (3, 50), (4, 0), (5, 10)]]
    w, _ = read(*lines)
    assert ids(w) == [4, 2, 5, 1, 3]


def test_provenance_names_the_file_but_not_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "sub dir" / "mylog.swf"
    path.parent.mkdir()
    path.write_text("; MaxProcs: 16\n" + line(id=1) + "\n" + line(id=2, status=4) + "\n")
    w, report = read_swf(path)
    prov = dict(w.provenance)
    assert prov["source"] == "mylog.swf" == report.source
    assert str(tmp_path) not in repr(prov)
    assert prov["policy"] == repr(CleaningPolicy())
    assert prov["lines"] == 2 and prov["kept"] == 1
    assert prov["dropped"] == {"partial_execution": 1}
    assert prov["machine_size_from"] == "MaxProcs"
    # str paths work as well as Path objects.
    assert len(read_swf(str(path))[0]) == 1


def test_unnamed_streams_are_called_string() -> None:
    _, report = read(line())
    assert report.source == "<string>"


def test_summary_mentions_the_counts() -> None:
    _, report = read(line(id=1), line(id=2, status=2), line(id=3, estimate=-1))
    text = report.summary()
    assert "3 data lines: 2 jobs kept, 1 dropped, 0 malformed lines skipped" in text
    assert "partial_execution: 1" in text and "estimate_from_runtime: 1" in text
    assert "machine size 16 (from MaxProcs)" in text


def test_report_rejects_counts_that_do_not_add_up() -> None:
    with pytest.raises(BackfillError, match="does not add up"):
        ReadReport(source="x", lines=3, kept=1, machine_size=1, machine_size_from="default")


# ---------------------------------------------------------------------------------------------
# Header parsing
# ---------------------------------------------------------------------------------------------

HEADER = """\
;       Version: 2.2
;      Computer: Pentium-III Linux cluster
;   Information: http://www.cs.huji.ac.il/labs/parallel/workload
;   Information: http://www.cs.vu.nl/das2
;TimeZoneString: Europe/Amsterdam  # CET
; UnixStartTime: 1041377305
;
;      MaxNodes: 32 (dual CPU)
;      MaxProcs: 64
; Note: hybrid nodes are not taken into account in the MaxNodes
;\tand MaxProcs fields.
;\tsee: http://example.org/curie
;
;   --- a free-form comment without a key ---
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; Partition:  1  pbatch
; Partition:  2  pdebug
; Queue:
"""


def test_header_keys_values_repeats_and_continuations() -> None:
    w, _ = read_swf(io.StringIO(HEADER + line() + "\n"))
    h = dict(w.header)
    assert h["Version"] == "2.2"
    assert h["Computer"] == "Pentium-III Linux cluster"
    assert h["Information"] == ("http://www.cs.huji.ac.il/labs/parallel/workload\nhttp://www.cs.vu.nl/das2")
    assert h["TimeZoneString"] == "Europe/Amsterdam  # CET"
    assert h["UnixStartTime"] == "1041377305"
    assert h["MaxNodes"] == "32 (dual CPU)"
    assert h["MaxProcs"] == "64"
    assert h["Note"] == (
        "hybrid nodes are not taken into account in the MaxNodes\nand MaxProcs fields.\n"
        "see: http://example.org/curie"
    )
    assert h["Partition"] == "1  pbatch\n2  pdebug"
    assert h["Queue"] == ""
    # Lower-case words before a colon ("see:", "http:") continue a value; they are not keys.
    assert "see" not in h and "http" not in h
    assert w.machine_size == 64


def test_comment_lines_between_data_lines_are_allowed() -> None:
    w, report = read(line(id=1), "; Note: halfway", "   ; indented comment", line(id=2))
    assert ids(w) == [1, 2] and report.lines == 2
    assert w.header["Note"] == "halfway\nindented comment"


# ---------------------------------------------------------------------------------------------
# Malformed input
# ---------------------------------------------------------------------------------------------

GOOD = line(id=1)
MALFORMED = {
    "17 fields": (" ".join(line(id=2).split()[:17]), "expected 18 fields, got 17"),
    "19 fields": (line(id=2) + " 5", "expected 18 fields, got 19"),
    "word": (line(id=2, runtime="abc"), r"field 4 \(runtime\) is not a number: 'abc'"),
    "two dots": (line(id=2, submit="1.2.3"), "field 2 .* is not a number"),
    "underscore": (line(id=2, submit="1_000"), "field 2 .* is not a number"),
    "unicode digit": (line(id=2, submit="\u0665"), "field 2 .* is not a number"),
    "nan": (line(id=2, runtime="nan"), r"field 4 \(runtime\) is not a finite number"),
    "inf": (line(id=2, estimate="-inf"), r"field 9 \(estimate\) is not a finite number"),
    "overflow": (line(id=2, wait="1e400"), r"field 3 \(wait\) is not a finite number"),
    "fractional width": (line(id=2, processors=2.5), r"field 5 \(processors\) must be an integer"),
    "fractional id": (line(id=2.5), r"field 1 \(id\) must be an integer, got 2.5"),
    "fractional status": (line(id=2, status="1.5"), r"field 11 \(status\) must be an integer"),
    "huge id": (line(id="1e20"), r"field 1 \(id\) is out of range"),
    "negative submit": (line(id=2, submit=-5), r"field 2 \(submit\) is negative: -5.0"),
    "duplicate id": (line(id=1, submit=9), r"duplicate job id 1 \(first on line 2\)"),
    # The rules of a job's values (backfill.workloads.limits), which a Workload enforces too: the
    # reader refuses the line rather than hand the Workload a row it would refuse.
    "id 2**53": (line(id=2**53), r"field 1 \(id\) is out of range \(2\*\*53 or more"),
    "user -2**53": (line(id=2, user=-(2**53)), r"field 12 \(user\) is out of range"),
    "negative runtime": (line(id=2, runtime=-5), r"field 4 \(runtime\) is negative: -5.0 \(-1, unknown"),
    "negative estimate": (line(id=2, estimate=-2), r"field 9 \(estimate\) is negative: -2.0"),
    "negative width": (line(id=2, processors=-3), r"field 5 \(processors\) is negative: -3.0"),
    "submit over MAX_TIME": (
        line(id=2, submit=10**12 + 1),
        r"field 2 \(submit\) is too large: 1000000000001.0",
    ),
    "runtime over MAX_TIME": (
        line(id=2, runtime="2e12"),
        r"field 4 \(runtime\) is too large: 2000000000000.0",
    ),
    "estimate over MAX_TIME": (line(id=2, estimate="1e15"), r"field 9 \(estimate\) is too large"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_line_raises_with_its_line_number(case: str) -> None:
    bad, message = MALFORMED[case]
    # Line 1 is the header, 2 a good job, 3 blank, 4 a comment, 5 the bad line, 6 another good job.
    text = "\n".join(["; MaxProcs: 16", GOOD, "", "; Note: x", bad, line(id=3)]) + "\n"
    with pytest.raises(SWFError, match=message) as info:
        read_swf(io.StringIO(text))
    assert info.value.line == 5
    assert info.value.path == "<string>"
    assert str(info.value).startswith("<string>:5: ")


@pytest.mark.parametrize("case", MALFORMED)
def test_lenient_mode_skips_and_counts_malformed_lines(case: str) -> None:
    bad, _ = MALFORMED[case]
    text = "\n".join(["; MaxProcs: 16", GOOD, "", "; Note: x", bad, line(id=3)]) + "\n"
    w, report = read_swf(io.StringIO(text), lenient=True)
    assert ids(w) == [1, 3]
    assert report.skipped_lines == (5,)
    assert report.lines == 3
    check_invariant(report)
    assert "skipped lines: 5" in report.summary()


def test_the_first_bad_line_is_reported() -> None:
    text = "\n".join([GOOD, line(id=2, processors=1.5), "1 2 3", line(id=2)])
    with pytest.raises(SWFError) as info:
        read_swf(io.StringIO(text))
    assert info.value.line == 2
    w, report = read_swf(io.StringIO(text), lenient=True)
    # Line 2 was bad, so the job id 2 on line 4 is not a duplicate.
    assert ids(w) == [1, 2] and report.skipped_lines == (2, 3)


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.swf"
    path.write_text("; MaxProcs: 4\n" + GOOD + "\n" + "1 2 3\n")
    with pytest.raises(SWFError) as info:
        read_swf(path)
    assert info.value.path == str(path) and info.value.line == 3
    assert str(info.value) == f"{path}:3: expected 18 fields, got 3"


def test_lenient_mode_agrees_with_the_fast_path_on_good_lines() -> None:
    # Enough lines for several of the slow path's blocks, with bad lines in two of them.
    rng = np.random.default_rng(5)
    n = 5000
    submits, runtimes = rng.integers(0, 10**6, n).tolist(), rng.uniform(1, 99, n).tolist()
    good = [
        line(id=i, submit=s, runtime=r, cpu_time=round(r / 3, 4))
        for i, (s, r) in enumerate(zip(submits, runtimes, strict=True))
    ]
    clean, _ = read_swf(swf(*good))
    dirty_lines = [*good[:100], "garbage", *good[100:4000], line(id=4, submit=0.5), *good[4000:]]
    dirty, report = read_swf(swf(*dirty_lines), lenient=True)
    assert report.skipped_lines == (102, 4003)
    assert clean.records.tobytes() == dirty.records.tobytes()
    with pytest.raises(SWFError, match=r"duplicate job id 4 \(first on line 6\)") as info:
        read_swf(swf(*good[:4000], line(id=4, submit=0.5), *good[4000:]))
    assert info.value.line == 4002


def test_tabs_and_runs_of_spaces_separate_fields() -> None:
    text = "\t".join(line(id=1).split()) + "\n   " + "    ".join(line(id=2).split()) + "   \n"
    w, _ = read_swf(io.StringIO(text))
    assert ids(w) == [1, 2]


def test_non_utf8_data_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.swf"
    path.write_bytes(b"; MaxProcs: 4\n" + GOOD.encode() + b"\n" + b"2 0 \xff\xfe 1\n")
    with pytest.raises(SWFError, match="not valid UTF-8") as info:
        read_swf(path)
    assert info.value.line == 3
    w, report = read_swf(path, lenient=True)
    assert ids(w) == [1] and report.skipped_lines == (3,)


def test_non_utf8_header_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.swf"
    path.write_bytes(b"; MaxProcs: 4\n; Acknowledge: J\xe9r\xf4me\n" + GOOD.encode() + b"\n")
    with pytest.raises(SWFError, match="not valid UTF-8") as info:
        read_swf(path)
    assert info.value.line == 2
    w, report = read_swf(path, lenient=True)
    assert w.header["Acknowledge"] == "J\ufffdr\ufffdme"
    assert len(w) == 1 and report.skipped_lines == ()


def test_crlf_line_endings_and_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "dos.swf"
    path.write_bytes(b"\xef\xbb\xbf; MaxProcs: 4\r\n" + GOOD.encode() + b"\r\n\r\n")
    w, report = read_swf(path)
    assert ids(w) == [1] and w.header["MaxProcs"] == "4" and report.lines == 1


# ---------------------------------------------------------------------------------------------
# gzip and file objects
# ---------------------------------------------------------------------------------------------

TEXT = "; MaxProcs: 4\n" + GOOD + "\n" + line(id=2, submit=7) + "\n"


def test_gzip_is_detected_by_magic_bytes_not_suffix(tmp_path: Path) -> None:
    hidden = tmp_path / "compressed.swf"
    hidden.write_bytes(gzip.compress(TEXT.encode()))
    assert ids(read_swf(hidden)[0]) == [1, 2]
    plain_named_gz = tmp_path / "plain.swf.gz"
    plain_named_gz.write_text(TEXT)
    assert ids(read_swf(plain_named_gz)[0]) == [1, 2]
    normal = tmp_path / "log.swf.gz"
    normal.write_bytes(gzip.compress(TEXT.encode()))
    w, report = read_swf(normal)
    assert ids(w) == [1, 2] and report.source == "log.swf.gz"


def test_corrupt_gzip_raises(tmp_path: Path) -> None:
    path = tmp_path / "broken.swf.gz"
    path.write_bytes(gzip.compress(TEXT.encode())[:-12])
    with pytest.raises(SWFError, match="not a valid gzip file") as info:
        read_swf(path)
    assert info.value.line is None and info.value.path == str(path)


def test_file_objects_text_and_binary(tmp_path: Path) -> None:
    path = tmp_path / "obj.swf.gz"
    path.write_bytes(gzip.compress(TEXT.encode()))
    with open(path, "rb") as f:
        w, report = read_swf(f)
    assert ids(w) == [1, 2] and report.source == "obj.swf.gz"
    assert ids(read_swf(io.BytesIO(TEXT.encode()))[0]) == [1, 2]
    text_path = tmp_path / "obj.swf"
    text_path.write_text(TEXT)
    with open(text_path, encoding="utf-8") as f:
        w, report = read_swf(f)
    assert ids(w) == [1, 2] and report.source == "obj.swf"


def test_missing_file_raises_the_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_swf(tmp_path / "nope.swf")


# ---------------------------------------------------------------------------------------------
# CleaningPolicy
# ---------------------------------------------------------------------------------------------


def test_policy_defaults_and_repr() -> None:
    p = CleaningPolicy()
    assert p.processors == "allocated" and p.overrun == "raise_estimate"
    assert p.drop_partial and p.drop_cancelled_unstarted and p.drop_unknown_runtime
    assert p.drop_no_processors and p.fill_missing_estimate
    assert repr(p).startswith("CleaningPolicy(processors='allocated', overrun='raise_estimate'")
    assert p == CleaningPolicy() and hash(p) == hash(CleaningPolicy())
    with pytest.raises(AttributeError):
        p.overrun = "drop"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"processors": "nodes"},
        {"processors": None},
        {"overrun": "ignore"},
        {"overrun": "RAISE_ESTIMATE"},
    ],
)
def test_policy_rejects_unknown_choices(kwargs: dict[str, object]) -> None:
    with pytest.raises(ParameterError, match="must be one of"):
        CleaningPolicy(**kwargs)


@pytest.mark.parametrize(
    "name",
    [
        "drop_partial",
        "drop_cancelled_unstarted",
        "drop_unknown_runtime",
        "drop_no_processors",
        "fill_missing_estimate",
    ],
)
@pytest.mark.parametrize("value", [0, 1, "no", None])
def test_policy_switches_must_be_booleans(name: str, value: object) -> None:
    with pytest.raises(ParameterError, match=f"{name} must be True or False"):
        CleaningPolicy(**{name: value})


def test_raw_policy_keeps_everything_it_can() -> None:
    lines = [
        line(id=1, status=2),
        line(id=2, status=5, runtime=0),
        line(id=3, runtime=-1),
        line(id=4, processors=0),
        line(id=5, estimate=-1),
        line(id=6, runtime=900, estimate=10),
    ]
    w, report = read(*lines, policy=CleaningPolicy.raw())
    assert ids(w) == [1, 2, 3, 4, 5, 6]
    assert report.altered == {} and report.dropped == {}
    assert w[4].estimate == -1 and (w[5].runtime, w[5].estimate) == (900, 10)


# ---------------------------------------------------------------------------------------------
# write_swf
# ---------------------------------------------------------------------------------------------


def small_workload() -> Workload:
    jobs = [
        Job(id=1, submit=0.0, processors=2, runtime=5.0, estimate=9.5, cpu_time=0.1),
        Job(id=2, submit=3.0, processors=4, runtime=7.0, estimate=1e12, cpu_time=1e20, memory=-0.0),
        Job(id=3, submit=3.0, processors=1, runtime=0.0, estimate=1.0, think_time=1e-05),
    ]
    return Workload.from_jobs(jobs, 8, header={"Version": "2.2", "Note": "one\ntwo"})


def test_write_formats_numbers_exactly() -> None:
    out = io.StringIO()
    write_swf(out, small_workload())
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["; Version: 2.2", "; Note: one", "; Note: two", "; MaxProcs: 8"]
    assert lines[4] == "1 0 -1 5 2 0.1 -1 -1 9.5 -1 1 -1 -1 -1 -1 -1 -1 -1"
    assert lines[5].split()[3:9] == ["7", "4", "1e+20", "-0", "-1", "1000000000000"]
    assert lines[6].split()[-1] == "1e-05"
    assert not any(re.search(r"\.0\b", x) for x in lines[4:])


def test_write_with_wait_writes_a_schedule() -> None:
    w = small_workload()
    out = io.StringIO()
    write_swf(out, w, wait=np.array([0.0, 12.5, np.nan]))
    back, _ = read_swf(io.StringIO(out.getvalue()), CleaningPolicy.raw())
    assert back.column("wait").tolist() == [0.0, 12.5, -1.0]
    assert w.column("wait").tolist() == [-1.0, -1.0, -1.0]


def test_write_rejects_bad_wait_and_non_finite_values() -> None:
    w = small_workload()
    with pytest.raises(SWFError, match="one value per job"):
        write_swf(io.StringIO(), w, wait=[1.0, 2.0])
    with pytest.raises(SWFError, match="wait is inf"):
        write_swf(io.StringIO(), w, wait=[1.0, np.inf, 2.0])
    records = w.records.copy()
    records["runtime"][1] = np.nan
    # A workload holds no such value: it is refused where it enters, before any writing.
    with pytest.raises(JobError, match="job 2: runtime must be"):
        write_swf(io.StringIO(), Workload(records, 8))


def test_write_states_the_machine_size() -> None:
    w = small_workload()
    out = io.StringIO()
    write_swf(out, w, header={"MaxProcs": "4", "MaxNodes": "2"})
    assert out.getvalue().startswith("; MaxProcs: 8\n; MaxNodes: 2\n")
    out = io.StringIO()
    write_swf(out, w, header={"MaxProcs": "8 (all of them)"})
    assert out.getvalue().startswith("; MaxProcs: 8 (all of them)\n1 ")
    with pytest.raises(SWFError, match="not an SWF key"):
        write_swf(io.StringIO(), w, header={"max procs": "8"})


def test_write_gzip_when_the_path_says_so(tmp_path: Path) -> None:
    w = small_workload()
    write_swf(tmp_path / "a.swf.gz", w)
    write_swf(str(tmp_path / "b.swf.gz"), w)
    write_swf(tmp_path / "c.swf", w)
    a, b = (tmp_path / "a.swf.gz").read_bytes(), (tmp_path / "b.swf.gz").read_bytes()
    assert a[:2] == b"\x1f\x8b" and a == b  # no timestamp inside: reproducible
    assert gzip.decompress(a).decode() == (tmp_path / "c.swf").read_text()
    for name in ("a.swf.gz", "c.swf"):
        back, _ = read_swf(tmp_path / name)
        assert back.records.tobytes() == w.records.tobytes()


def test_round_trip_keeps_header() -> None:
    w, _ = read_swf(io.StringIO(HEADER + line() + "\n"))
    out = io.StringIO()
    write_swf(out, w)
    back, _ = read_swf(io.StringIO(out.getvalue()))
    assert dict(back.header) == dict(w.header)
    assert back.machine_size == w.machine_size


# Values the default policy leaves alone, so write-then-read must reproduce them bit for bit. They
# obey the rules of a job's values (backfill.workloads.limits): times at most MAX_TIME (10**12 s),
# integers below 2**53 in magnitude.
finite = st.floats(allow_nan=False, allow_infinity=False)
non_negative = st.floats(min_value=0.0, max_value=MAX_TIME, allow_nan=False)
small_ints = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
# A time of a job as the raw policy keeps it: SWF's unknown, or 0 to MAX_TIME.
raw_times = st.one_of(st.just(-1.0), non_negative)
# A job's memory (used or requested, kB per processor): SWF's unknown, or any finite amount from 0.
memories = st.one_of(st.just(-1.0), st.floats(min_value=0.0, allow_infinity=False))
# A partition number: SWF's unknown, or 0 upwards (no other negative number names one).
partitions = st.one_of(st.just(-1), st.integers(min_value=0, max_value=2**53 - 1))


@st.composite
def clean_workloads(draw: st.DrawFn) -> Workload:
    n = draw(st.integers(min_value=0, max_value=25))
    size = draw(st.integers(min_value=1, max_value=1024))
    job_ids = draw(st.lists(small_ints, min_size=n, max_size=n, unique=True))
    jobs = []
    for job_id in job_ids:
        runtime = draw(non_negative)
        jobs.append(
            Job(
                id=job_id,
                submit=draw(non_negative),
                processors=draw(st.integers(min_value=1, max_value=size)),
                runtime=runtime,
                estimate=draw(st.floats(min_value=max(runtime, 1e-300), max_value=MAX_TIME)),
                user=draw(small_ints),
                group=draw(small_ints),
                wait=draw(finite),
                cpu_time=draw(finite),
                memory=draw(memories),
                requested_processors=draw(small_ints),
                requested_memory=draw(memories),
                status=draw(st.sampled_from([-1, 0, 1, 5])) if runtime > 0 else 1,
                executable=draw(small_ints),
                queue=draw(small_ints),
                partition=draw(partitions),
                preceding_job=draw(small_ints),
                think_time=draw(finite),
            )
        )
    return Workload.from_jobs(jobs, size)


@settings(max_examples=150, deadline=None)
@given(clean_workloads())
def test_round_trip_is_exact(w: Workload) -> None:
    out = io.StringIO()
    write_swf(out, w)
    back, report = read_swf(io.StringIO(out.getvalue()))
    assert back.machine_size == w.machine_size
    assert back.records.dtype == JOB_DTYPE
    assert back.records.tobytes() == w.records.tobytes()
    assert report.kept == len(w) and report.dropped == {} and report.altered == {}


@st.composite
def raw_records(draw: st.DrawFn) -> Workload:
    """Any values the reader accepts; the raw policy must keep them all unchanged."""
    n = draw(st.integers(min_value=0, max_value=20))
    size = 2**40
    rows = []
    job_ids = draw(st.lists(small_ints, min_size=n, max_size=n, unique=True))
    for job_id in job_ids:
        row: list[float | int] = []
        for name in SWF_FIELDS:
            if name == "id":
                row.append(job_id)
            elif name == "submit":
                row.append(draw(non_negative))
            elif name in ("runtime", "estimate"):
                row.append(draw(raw_times))
            elif name == "processors":
                row.append(draw(st.one_of(st.just(-1), st.integers(min_value=0, max_value=size))))
            elif name in ("memory", "requested_memory"):
                row.append(draw(memories))
            elif name == "partition":
                row.append(draw(partitions))
            elif JOB_DTYPE[name].kind == "i":
                row.append(draw(small_ints))
            else:
                row.append(draw(finite))
        rows.append(tuple(row))
    records = np.array(rows, dtype=JOB_DTYPE) if rows else np.empty(0, dtype=JOB_DTYPE)
    return Workload.from_records(records, size)


@settings(max_examples=100, deadline=None)
@given(raw_records())
def test_round_trip_is_exact_for_any_values_under_the_raw_policy(w: Workload) -> None:
    out = io.StringIO()
    write_swf(out, w)
    back, _ = read_swf(io.StringIO(out.getvalue()), CleaningPolicy.raw())
    assert back.records.tobytes() == w.records.tobytes()


# Lines that are good, bad, dropped or comments, to check the report's bookkeeping.
any_line = st.one_of(
    st.builds(
        lambda i, s, st_, r, p: line(id=i, submit=s, status=st_, runtime=r, processors=p),
        st.integers(0, 30),
        st.sampled_from([-1, 0, 5, 10]),
        st.sampled_from([0, 1, 2, 3, 4, 5]),
        st.sampled_from([-1, 0, 10, 500]),
        st.sampled_from([-1, 0, 4, 40]),
    ),
    st.sampled_from(["1 2 3", "x " * 18, "; comment", "", line(id=1, processors=0.5)]),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(any_line, max_size=30),
    st.sampled_from(["raise_estimate", "truncate_runtime", "keep", "drop"]),
)
def test_report_counts_always_add_up(lines: list[str], overrun: str) -> None:
    text = "\n".join(["; MaxProcs: 16", *lines]) + "\n"
    policy = CleaningPolicy(overrun=overrun)
    w, report = read_swf(io.StringIO(text), policy, lenient=True)
    check_invariant(report)
    assert report.kept == len(w)
    assert report.lines == sum(1 for x in lines if x.strip() and not x.lstrip().startswith(";"))
    for reason, count in report.dropped.items():
        assert len(report.dropped_ids[reason]) == count
    try:
        read_swf(io.StringIO(text), policy)
    except SWFError as e:
        assert e.line == min(report.skipped_lines)
    else:
        assert report.skipped_lines == ()


# ---------------------------------------------------------------------------------------------
# The archive traces
# ---------------------------------------------------------------------------------------------

# (data lines, kept with the default policy) — the "lines" and "kept+alloc" columns of
# ../shared/traces/SOURCES.md.
TRACE_COUNTS = {
    "CEA-Curie-2011-2.1-cln": (312826, 296970),
    "CTC-SP2-1996-3.1-cln": (77222, 77222),
    "DAS2-fs1-2003-1": (40315, 39348),
    "HPC2N-2002-2.1-cln": (202876, 202876),
    "KTH-SP2-1996-2.1-cln": (28476, 28475),
    "KTH-SP2-1996-2": (28489, 28489),
    "LANL-CM5-1994-4.1-cln": (122060, 122057),
    "LCG-2005-1": (188041, 188041),
    "LLNL-Atlas-2006-2.1-cln": (43778, 39139),
    "LLNL-Thunder-2007-1.1-cln": (121039, 118754),
    "LPC-EGEE-2004-1.2-cln": (234889, 220679),
    "NASA-iPSC-1993-3.1-cln": (18239, 18239),
    "OSC-Clust-2000-3.1-cln": (36097, 36097),
    "RICC-2010-2": (447794, 447786),
    "SDSC-BLUE-2000-4.2-cln": (243306, 223641),
    "SDSC-DS-2004-2.1-cln": (96069, 84969),
    "SDSC-Par-1996-3.1-cln": (32135, 32135),
    "SDSC-SP2-1998-4.2-cln": (59715, 54034),
    "Sandia-Ross-2001-1.1-cln": (57882, 55872),
}

# Job counts published for these logs (the ones the literature simulates).
PUBLISHED = {
    "CTC-SP2-1996-3.1-cln": 77222,
    "KTH-SP2-1996-2": 28489,
    "HPC2N-2002-2.1-cln": 202876,
    "DAS2-fs1-2003-1": 39348,
    "LPC-EGEE-2004-1.2-cln": 220679,
    "LANL-CM5-1994-4.1-cln": 122057,
    "LLNL-Thunder-2007-1.1-cln": 118754,
}


@functools.cache
def trace(name: str) -> tuple[Workload, ReadReport]:
    return read_swf(TRACES / f"{name}.swf.gz")


@needs_traces
@pytest.mark.parametrize("name", PUBLISHED)
def test_default_policy_reproduces_published_job_counts(name: str) -> None:
    w, report = trace(name)
    assert len(w) == report.kept == PUBLISHED[name]


@needs_traces
@pytest.mark.parametrize("name", TRACE_COUNTS)
def test_every_trace_reads_with_the_expected_counts(name: str) -> None:
    w, report = trace(name)
    lines, kept = TRACE_COUNTS[name]
    assert (report.lines, report.kept, len(w)) == (lines, kept, kept)
    assert report.skipped_lines == ()
    check_invariant(report)
    assert w.machine_size == int(re.match(r"\d+", w.header["MaxProcs"]).group())
    assert report.machine_size_from == "MaxProcs"
    assert "wider_than_machine" not in report.dropped
    assert w.provenance["source"] == f"{name}.swf.gz"
    submit = w.column("submit")
    assert bool(np.all(submit[1:] >= submit[:-1])) and submit.min() >= 0
    assert w.column("runtime").min() >= 0 and w.column("processors").min() >= 1
    assert bool(np.all(w.column("estimate") >= w.column("runtime")))


@needs_traces
def test_sources_md_agrees_with_the_counts_used_here() -> None:
    table: dict[str, tuple[int, int]] = {}
    for row in (TRACES / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        # | file | version | cln | lines | MaxRecords | hdr ok | MaxProcs | MaxNodes | kept |
        # kept+alloc | published |
        if len(cells) == 11 and cells[0].endswith(".swf.gz"):
            table[cells[0].removesuffix(".swf.gz")] = (int(cells[3]), int(cells[9]))
    assert table == TRACE_COUNTS


@needs_traces
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # SOURCES.md "kept": status rules only (plus runtime = -1 for SDSC-DS).
        ("KTH-SP2-1996-2.1-cln", 28476),
        ("LANL-CM5-1994-4.1-cln", 122060),
        ("LLNL-Atlas-2006-2.1-cln", 39177),
        ("Sandia-Ross-2001-1.1-cln", 55887),
        ("SDSC-DS-2004-2.1-cln", 84969),
        # 120867 in SOURCES.md, less 1190 phantom jobs whose every field is -1 (submit included),
        # which no policy keeps.
        ("LLNL-Thunder-2007-1.1-cln", 120867 - 1190),
    ],
)
def test_status_rules_alone_reproduce_the_kept_column(name: str, expected: int) -> None:
    policy = CleaningPolicy(drop_unknown_runtime=name.startswith("SDSC-DS"), drop_no_processors=False)
    w, report = read_swf(TRACES / f"{name}.swf.gz", policy)
    assert len(w) == expected
    check_invariant(report)


@needs_traces
def test_thunder_phantom_jobs_are_dropped_as_unknown_submit() -> None:
    _, report = trace("LLNL-Thunder-2007-1.1-cln")
    assert report.dropped["unknown_submit"] == 1190
    assert report.dropped["no_processors"] == 923
    assert report.dropped_ids["unknown_submit"][:3] == (299, 306, 1208)


@needs_traces
def test_real_trace_round_trip(tmp_path: Path) -> None:
    w, _ = trace("CTC-SP2-1996-3.1-cln")
    path = tmp_path / "ctc.swf.gz"
    write_swf(path, w)
    back, report = read_swf(path)
    assert back.records.tobytes() == w.records.tobytes()
    assert dict(back.header) == dict(w.header)
    assert back.machine_size == w.machine_size == 338
    assert report.altered == {} and report.dropped == {}


@needs_traces
def test_real_trace_header() -> None:
    w, _ = trace("HPC2N-2002-2.1-cln")
    assert w.header["MaxProcs"] == "240" and w.header["MaxNodes"] == "240"
    assert w.header["UnixStartTime"].isdigit()
    assert "THIS IS A CLEANED VERSION" in w.header["Note"]


def test_jobs_out_of_submit_order_are_sorted_and_counted() -> None:
    lines = [
        f"{i} {s} -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1"
        for i, s in [(1, 0), (2, 50), (3, 20), (4, 30), (5, 60)]
    ]
    workload, report = read_swf(io.StringIO("; MaxProcs: 4\n" + "\n".join(lines) + "\n"))
    assert workload.column("id").tolist() == [1, 3, 4, 2, 5]
    assert report.altered["reordered_by_submit_time"] == 2  # jobs 3 and 4 came after job 2's 50 s
    _, report = read_swf(io.StringIO("; MaxProcs: 4\n" + "\n".join(lines[:2]) + "\n"))
    assert "reordered_by_submit_time" not in report.altered


def test_times_at_max_time_and_unknown_values_are_accepted() -> None:
    w, report = read(
        line(id=1, submit=10**12, runtime=10**12, estimate=10**12),
        line(id=2, runtime=-1, estimate=-1, processors=-1),
        line(id=3, user=2**53 - 1, status=-4, wait=-7.5, think_time=-1e300),
        policy=CleaningPolicy.raw(),
    )
    assert ids(w) == [2, 3, 1] and report.skipped_lines == ()
    assert (w[2].submit, w[2].runtime, w[2].estimate) == (1e12, 1e12, 1e12)


@pytest.mark.parametrize("processors", ["requested", "allocated_or_requested"])
def test_a_width_taken_from_field_8_obeys_the_width_rule(processors: str) -> None:
    bad = line(id=2, processors=0, requested_processors=-4)
    policy = CleaningPolicy(processors=processors, drop_no_processors=False)  # type: ignore[arg-type]
    with pytest.raises(SWFError, match=r"field 8 \(requested_processors\), the job's width") as info:
        read_swf(swf(line(id=1), bad), policy)
    assert info.value.line == 3
    w, report = read_swf(
        swf(line(id=1), bad, line(id=3, processors=0, requested_processors=-1)), policy, lenient=True
    )
    assert ids(w) == [1, 3] and report.skipped_lines == (3,) and w[1].processors == -1
    # With the allocated width, field 8 is any integer.
    assert ids(read_swf(swf(line(id=1), bad), CleaningPolicy(drop_no_processors=False))[0]) == [1, 2]


finite_or_not = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([-1.0, 0.0, 1e12, 1e12 + 1, 2.0**53, -(2.0**53), 2.0**53 - 1]),
    st.integers(-(2**54), 2**54).map(float),
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(finite_or_not, min_size=18, max_size=18), max_size=8),
    st.sampled_from(["allocated", "requested", "allocated_or_requested"]),
)
def test_the_reader_hands_a_workload_only_rows_that_obey_the_job_rules(
    rows: list[list[float]], processors: str
) -> None:
    text = "\n".join(" ".join(repr(v) for v in row) for row in rows) + "\n"
    policy = attrs.evolve(CleaningPolicy.raw(), processors=processors)
    w, report = read_swf(io.StringIO(text), policy, lenient=True)
    check_invariant(report)
    r = w.records
    for name in ("submit", "runtime", "estimate"):
        assert np.all((r[name] == -1) | ((r[name] >= 0) & (r[name] <= MAX_TIME))), name
    assert np.all(r["submit"] >= 0)
    assert np.all(r["processors"] >= -1)
    for name in SWF_FIELDS:
        assert np.all(np.isfinite(r[name]))
        if JOB_DTYPE[name].kind == "i":
            assert np.all(np.abs(r[name]) < 2**53), name


def test_machine_size_argument_must_be_below_2_to_the_53() -> None:
    with pytest.raises(BackfillError, match="below 2\\*\\*53"):
        read_swf(swf(line()), machine_size=2**53)


# ---------------------------------------------------------------------------------------------
# Header notes: values that cannot be used, and conflicts
# ---------------------------------------------------------------------------------------------


def test_conflicting_max_procs_lines_are_noted_with_the_value_used() -> None:
    w, report = read(line(id=1), header="; MaxProcs: 64\n; Note: x\n; MaxProcs: 128")
    assert w.machine_size == 64 and report.machine_size_from == "MaxProcs"
    assert report.notes == (
        "header gives 2 different MaxProcs values (64, 128): the machine size is 64, from the first MaxProcs",
    )
    assert "  note: header gives 2 different MaxProcs values (64, 128)" in report.summary()
    # Saying the same value twice is no conflict.
    assert read(line(id=1), header="; MaxProcs: 64\n; MaxProcs: 64")[1].notes == ()


@pytest.mark.parametrize(
    ("header", "size", "note"),
    [
        (
            "; MaxProcs: abc",
            4,
            "header MaxProcs 'abc' is not a machine size (a positive integer): "
            "the machine size is 4, from the widest job",
        ),
        (
            "; MaxProcs: 0\n; MaxNodes: 32",
            32,
            "header MaxProcs '0' is not a machine size (a positive "
            "integer): the machine size is 32, from MaxNodes",
        ),
        ("; MaxProcs: 1e9", 4, "header MaxProcs '1e9' is not a machine size"),
        ("; MaxProcs: 1,024", 4, "header MaxProcs '1,024' is not a machine size"),
        ("; MaxProcs: 99999999999999999999", 4, "header MaxProcs '99999999999999999999' is not"),
        ("; MaxProcs:", 4, "header MaxProcs '' is not a machine size"),
        (
            "; MaxProcs: abc\n; MaxProcs: 16",
            16,
            "header MaxProcs 'abc' is not a machine size (a "
            "positive integer): the machine size is 16, from the first MaxProcs",
        ),
        ("; MaxNodes: -3\n; MaxNodes: x", 4, "header MaxNodes '-3', 'x' (2 lines) is not a machine size"),
    ],
)
def test_unusable_header_sizes_are_noted_and_not_used(header: str, size: int, note: str) -> None:
    w, report = read(line(id=1), header=header)
    assert w.machine_size == size
    assert len(report.notes) == 1 and report.notes[0].startswith(note), report.notes
    assert f"  note: {note}" in report.summary()


def test_annotated_header_sizes_are_used_without_a_note() -> None:
    w, report = read(line(id=1), header="; MaxNodes: 338 (batch partition; 512 total)\n; MaxProcs: 338")
    assert w.machine_size == 338 and report.notes == ()
    w, report = read(line(id=1), header="; MaxProcs: 1664 (72, 1368, 224)")
    assert w.machine_size == 1664 and report.notes == ()


# ---------------------------------------------------------------------------------------------
# Streaming: memory bounded by the jobs, lines bounded in length
# ---------------------------------------------------------------------------------------------


def repeated_gzip(block: bytes, times: int) -> bytes:
    """A gzip file of ``block`` repeated: one member compressed once and repeated (gzip allows it)."""
    return gzip.compress(block, compresslevel=1, mtime=0) * times


def traced_read(path: Path, **kwargs: object) -> tuple[object, int]:
    """Read with tracemalloc on: the result (or the SWFError) and the peak of traced memory."""
    tracemalloc.start()
    try:
        try:
            result: object = read_swf(path, **kwargs)  # type: ignore[arg-type]
        except SWFError as e:
            result = e
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gzip_of_tens_of_mb_of_comments_and_blank_lines_is_read_in_bounded_memory(tmp_path: Path) -> None:
    comments = ("; " + "filler " * 300 + "\n").encode() * 500  # 1 MB of comment lines
    blanks = (" " * 1000 + "\n").encode() * 1000  # and 1 MB of blank ones
    path = tmp_path / "mostly-comments.swf.gz"
    path.write_bytes(
        gzip.compress(f"; MaxProcs: 4\n;\n{line(id=1)}\n".encode(), mtime=0)
        + repeated_gzip(comments + blanks, 25)
        + repeated_gzip(b"\n" * 2**20, 10)  # and 10 million empty lines
        + gzip.compress(f"{line(id=2, submit=7)}\n".encode(), mtime=0)
    )
    decompressed = len(gzip.decompress(path.read_bytes()))
    assert decompressed > 60e6 and path.stat().st_size < decompressed / 100
    result, peak = traced_read(path)
    assert not isinstance(result, SWFError)
    w, report = result  # type: ignore[misc]
    assert ids(w) == [1, 2] and report.lines == 2
    assert report.notes == ("header text beyond 1 MiB not kept: 12,002 comment lines",)
    # The text is never held whole: memory is the jobs, a block of lines and the header kept.
    assert peak < 16e6, peak


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "one-long-line.swf.gz"
    head = f"; MaxProcs: 4\n{line(id=1)}\n".encode()
    path.write_bytes(
        gzip.compress(head, mtime=0)
        + repeated_gzip(b"9" * 2**20, 40)
        + gzip.compress(f"\n{line(id=2)}\n".encode())
    )
    result, peak = traced_read(path)
    assert isinstance(result, SWFError) and result.line == 3, result
    assert str(result) == f"{path}:3: line longer than 1,048,576 bytes (SWF lines are a few hundred at most)"
    assert peak < 16e6, peak
    # Leniently the line is skipped, and counted among the data lines.
    result, peak = traced_read(path, lenient=True)
    w, report = result  # type: ignore[misc]
    assert ids(w) == [1, 2] and report.skipped_lines == (3,) and report.lines == 3
    assert peak < 16e6, peak


@pytest.mark.parametrize("padding", ["trailing", "leading"])
def test_a_line_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(
    tmp_path: Path, padding: str
) -> None:
    def padded(text: str, length: int) -> str:
        return text.ljust(length) if padding == "trailing" else text.rjust(length)

    path = tmp_path / "limit.swf"
    path.write_text(f"{line(id=1)}\n{padded(line(id=2), MAX_LINE_LENGTH)}\r\n{line(id=3)}")
    assert ids(read_swf(path)[0]) == [1, 2, 3]
    path.write_text(f"{line(id=1)}\n{padded(line(id=2), MAX_LINE_LENGTH + 1)}\r\n{line(id=3)}")
    with pytest.raises(SWFError, match="line longer than") as info:
        read_swf(path)
    assert info.value.line == 2
    # A comment or a blank line over the limit is no exception: it is refused too.
    path.write_text(f"{line(id=1)}\n;{'x' * MAX_LINE_LENGTH}\n{' ' * (MAX_LINE_LENGTH + 1)}\n{line(id=3)}")
    w, report = read_swf(path, lenient=True)
    assert ids(w) == [1, 3] and report.skipped_lines == (2, 3) and report.lines == 4


def test_a_bad_line_before_a_long_one_is_reported_first(tmp_path: Path) -> None:
    path = tmp_path / "two-problems.swf"
    path.write_text(f"{line(id=1)}\n{line(id=2, runtime='x')}\n{'9' * (MAX_LINE_LENGTH + 5)}\n")
    with pytest.raises(SWFError, match="runtime") as info:
        read_swf(path)
    assert info.value.line == 2
    path.write_text(f"{line(id=1)}\n{line(id=1, submit=3)}\n{'9' * (MAX_LINE_LENGTH + 5)}\n")
    with pytest.raises(SWFError, match="duplicate job id 1") as info:
        read_swf(path)
    assert info.value.line == 2


# ---------------------------------------------------------------------------------------------
# Line ends
# ---------------------------------------------------------------------------------------------


def test_cr_only_line_ends_are_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "mac.swf"
    path.write_bytes(f"; MaxProcs: 4\r{line(id=1)}\r\r{line(id=2, submit=5)}\r".encode())
    w, report = read_swf(path)
    assert ids(w) == [1, 2] and report.lines == 2 and w.header["MaxProcs"] == "4"
    path.write_bytes(f"; MaxProcs: 4\r{line(id=1)}\r1 2 3\r".encode())
    with pytest.raises(SWFError, match="expected 18 fields, got 3") as info:
        read_swf(path)
    assert info.value.line == 3
    # Mixed: each of LF, CR LF and CR ends one line.
    text = f"; MaxProcs: 4\n{line(id=1)}\r\n{line(id=2)}\r{line(id=3)}\n\r1 2"
    with pytest.raises(SWFError) as info:
        read_swf(io.StringIO(text))
    assert info.value.line == 6


def test_a_cr_lf_split_between_two_reads_is_one_line_end(tmp_path: Path) -> None:
    # The reader looks at the first 8,000 bytes on their own, then reads on: put CR LF across.
    first = f"; MaxProcs: 4\n{line(id=1)}\n"
    pad = ";" + "x" * (7999 - len(first) - 1)
    text = first + pad + "\r\n" + line(id=2) + "\r\n" + "1 2 3\r\n"
    assert text.index("\r\n", len(first)) == 7999
    path = tmp_path / "split.swf"
    path.write_bytes(text.encode())
    with pytest.raises(SWFError, match="expected 18 fields") as info:
        read_swf(path)
    assert info.value.line == 5


# ---------------------------------------------------------------------------------------------
# What a file is: compressed, or not a log at all
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
        (".gz", gzip.compress),
    ],
)
def test_bzip2_and_xz_are_read_like_gzip(
    tmp_path: Path, suffix: str, compress: Callable[[bytes], bytes]
) -> None:
    for name in (f"log.swf{suffix}", "renamed.swf"):
        path = tmp_path / name
        path.write_bytes(compress(TEXT.encode()))
        w, report = read_swf(path)
        assert ids(w) == [1, 2] and report.source == name
        with open(path, "rb") as f:
            assert ids(read_swf(f)[0]) == [1, 2]
    path.write_bytes(compress(TEXT.encode())[:-8])
    kind = {".bz2": "bzip2", ".xz": "xz", ".gz": "gzip"}[suffix]
    for lenient in (False, True):
        with pytest.raises(SWFError, match=f"not a valid {kind} file") as info:
            read_swf(path, lenient=lenient)
        assert info.value.line is None


def zip_of(text: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("log.swf", text)
    return out.getvalue()


def tar_gz_of(text: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        data = text.encode()
        info = tarfile.TarInfo("log.swf")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


NOT_LOGS = {
    "zip": (zip_of(TEXT), "a zip archive"),
    "tar.gz": (tar_gz_of(TEXT), "a tar archive, compressed with gzip"),
    "pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", "a PDF document"),
    "elf": (b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00>\x00", "an ELF executable"),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
    "zstd": (b"(\xb5/\xfd\x04\x00", "zstd-compressed data"),
    "utf-16": (TEXT.encode("utf-16"), "UTF-16 text"),
    "html": (b"\n<!DOCTYPE html>\n<html><body>Not found</body></html>\n", "an HTML page"),
    "binary": (b"\x01\x02" + TEXT.encode() + b"\x00\x17\xfe", "binary data (byte 113 is NUL;"),
    "bz2 of binary": (bz2.compress(bytes(range(256))), "binary data, compressed with bzip2 (byte 1 is NUL;"),
}


@pytest.mark.parametrize("case", NOT_LOGS)
def test_a_file_that_is_not_a_log_is_named_as_what_it_is(tmp_path: Path, case: str) -> None:
    data, what = NOT_LOGS[case]
    path = tmp_path / "log.swf"
    path.write_bytes(data)
    for lenient in (False, True):
        with pytest.raises(SWFError) as info:
            read_swf(path, lenient=lenient)
        assert info.value.line is None
        opening = f"{path}: not an SWF log but {what}" + ("" if what.endswith(";") else " (")
        assert str(info.value).startswith(opening)
        assert str(info.value).endswith(
            "an SWF log is UTF-8 text, plain or compressed with gzip, bzip2 or xz)"
        )


def test_a_nul_byte_after_the_first_8000_bytes_is_a_bad_line_not_a_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "zeroed.swf"
    good = [line(id=i) for i in range(1, 201)]
    path.write_text("\n".join([*good, line(id=201, runtime="1\x000"), line(id=202)]) + "\n")
    with pytest.raises(SWFError, match="field 4") as info:
        read_swf(path)
    assert info.value.line == 201
    assert len(read_swf(path, lenient=True)[0]) == 201


# ---------------------------------------------------------------------------------------------
# What a path is: FIFOs, devices and directories are refused, never waited on
# ---------------------------------------------------------------------------------------------


def in_thread(function: Callable[[], object], timeout: float = 10.0) -> object:
    """Run ``function`` in a thread; its result or exception, or fail the test if it hangs."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(function())
        except BaseException as e:  # handed back to the test
            outcome.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert outcome, f"still running after {timeout} s: it hangs"
    return outcome[0]


def release(fifo: Path, flags: int) -> None:
    """Open the other end of a FIFO without blocking, so that a thread blocked opening it goes on."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, flags | os.O_NONBLOCK))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "log.swf"
    os.mkfifo(fifo)
    try:
        outcome = in_thread(lambda: read_swf(fifo))
    finally:
        release(fifo, os.O_WRONLY)  # lets a reader stuck in open() go, should it ever be
    assert isinstance(outcome, SWFError), outcome
    assert str(outcome) == (
        f"{fifo}: is a FIFO (named pipe), not a regular file (to read a stream, pass read_swf the open file)"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_with_a_writer_is_refused_by_path_and_read_as_an_open_file(tmp_path: Path) -> None:
    fifo = tmp_path / "log.swf"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as f:
            f.write(TEXT)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        outcome = in_thread(lambda: read_swf(fifo))
        assert isinstance(outcome, SWFError) and "is a FIFO (named pipe)" in str(outcome), outcome

        def read_open_fifo() -> object:
            with open(fifo, "rb") as f:
                return read_swf(f)

        outcome = in_thread(read_open_fifo)
        assert not isinstance(outcome, BaseException), outcome
        assert ids(outcome[0]) == [1, 2]  # type: ignore[index]
    finally:
        release(fifo, os.O_RDONLY)
        writer.join(10)


@pytest.mark.parametrize(
    ("path", "what"),
    [(os.devnull, "a character device"), (".", "a directory")],
)
def test_devices_and_directories_are_refused(path: str, what: str) -> None:
    if not os.path.exists(path) or (what == "a character device" and not Path(path).is_char_device()):
        pytest.skip(f"no {path} here")
    outcome = in_thread(lambda: read_swf(path))
    assert isinstance(outcome, SWFError) and outcome.line is None, outcome
    assert str(outcome).startswith(f"{path}: is {what}, not a regular file")


@pytest.mark.parametrize("dropped", [0, 1, 2, 6])
def test_the_rows_kept_become_the_records_whatever_share_is_dropped(dropped: int) -> None:
    lines = [
        line(id=i, submit=i, runtime=i + 1, processors=0 if i < dropped else 1 + i % 4) for i in range(8)
    ]
    w, report = read(*lines)
    assert ids(w) == list(range(dropped, 8)) and report.dropped.get("no_processors", 0) == dropped
    assert w.column("runtime").tolist() == [i + 1.0 for i in range(dropped, 8)]
    assert w.column("processors").tolist() == [1 + i % 4 for i in range(dropped, 8)]
    assert w.records.dtype == JOB_DTYPE and w.records.flags.c_contiguous


@pytest.mark.parametrize("step", [1, 2, 3, 100])
def test_compacting_rows_in_place_keeps_their_order(step: int) -> None:
    rng = np.random.default_rng(step)
    values = rng.normal(size=(50, 18))
    kept = np.flatnonzero(rng.random(50) < 0.8)
    expected = values[kept].copy()
    assert np.array_equal(swf_module._compact(values, kept, step=step), expected)
