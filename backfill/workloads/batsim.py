r"""Reading and writing Batsim workloads (JSON), so that Batsim and evalys users can move between tools.

Batsim (https://github.com/oar-team/batsim) simulates a resource and job management system; its
workloads are JSON documents. The format followed here is the one Batsim 4.2.1 documents in
``docs/input-workload.rst`` (https://batsim.readthedocs.io/en/latest/input-workload.html) and
checks in ``src/jobs.cpp`` and ``src/profiles.cpp``:

* ``nb_res``: the number of resources the workload was made for, a positive integer (the
  machine size here);
* ``jobs``: an array of jobs, each with ``id`` (a string, or an integer), ``subtime`` (submission
  time in seconds), ``res`` (resources requested, an integer from 0), ``profile`` (the name of a
  profile) and optionally ``walltime`` (-1, no limit, or a positive number of seconds; Batsim
  stops a job at its walltime). Other fields are the user's: Batsim 4 forwards them to the
  scheduler, Batsim 5 its ``extra_data``; here they are left aside, but for ``user``, ``memory``
  and a node request's (:func:`~backfill.workloads.request_table.read_batsim_requests` reads them);
* ``profiles``: an object from profile name to profile, each with a ``type``. A ``"delay"``
  profile (Batsim 5.0.0-rc2 calls it ``"DelayProfile"``; both are read) holds its job for
  ``delay`` seconds, a positive number: that is the job's runtime. A ``"composed"`` profile
  (``"SequentialCompositionProfile"``) runs the profiles its ``seq`` names one after the other,
  ``repeat`` times (default 1): made of delays, it has a runtime too. The other types
  (``parallel``, ``parallel_homogeneous``, SMPI traces, ...) simulate computations and
  communications on a platform, so their runtime is not in the file.

What a Batsim job becomes here:

* ``id`` (Batsim's ids are strings, or integers): jobs here have integer ids, so an integer, or a
  string holding one alone (``"7"``) or after Batsim's workload prefix (``"w0!7"``, the
  workload-qualified form of Batsim's protocol), is the job id 7, unless an earlier job of the file
  took 7; every other id (``"delay"``, ``"1-ok"``, ``" 1"``, an integer taken or past 2**53) is
  numbered from one past the largest integer id kept (from 1 if there is none), in file order. So
  the same file always gives the same ids. The ids given otherwise than as their integer's decimal
  text are kept with the workload (:func:`batsim_ids`), named in the report's notes, and written
  back as given by :func:`write_batsim_workload` and the per-job CSV; the SWF output, figures and
  messages show the integers.
* ``subtime`` → ``submit``; ``res`` → ``processors`` (and ``requested_processors``);
  ``walltime`` → ``estimate`` (-1, unknown, when absent or -1);
* the profile's ``delay`` (or a sequence's delays, summed and repeated) → ``runtime``; a profile
  of another type gives an unknown runtime (-1),
  which the cleaning policy drops by default (counted under ``unknown_runtime``, with a note
  naming the profile types);
* ``user``, a field Batsim does not define but lets users add: an integer is kept as the job's
  ``user``; strings (user names) are numbered 1, 2, ... in order of first appearance (after the
  largest integer user, if the file has both), with a note; ``null`` or no field is unknown (-1).
  :func:`write_batsim_workload` writes a known user back as an integer ``user`` field.
* ``memory``, a field Batsim does not define either: the kB of memory the whole job holds, a number
  from 0, as :func:`write_batsim_workload` writes it for a schedule that planned memory; it becomes
  the job's requested memory per processor (SWF field 10), so that
  :func:`~backfill.workloads.resources.memory_request` gives it back. Fields of other resources are
  left aside: a job here has no place for them.

Reading applies a :class:`~backfill.workloads.cleaning.CleaningPolicy` as :func:`~backfill.read_swf`
does, and counts every job dropped or changed in a :class:`~backfill.workloads.cleaning.ReadReport`
(whose ``lines`` are the file's jobs); the workload's ``provenance`` counts, under
``profiles_without_runtime``, the profile types that left jobs without a runtime. The default
policy truncates the runtime of a job whose delay exceeds its walltime to the walltime, as Batsim
does when it stops the job there. A file Batsim
itself would refuse (a job without a field it requires, a value of the wrong type, a profile that
does not exist, a delay that is not positive, a sequence without profiles or a positive
``repeat``, a repeated job id, an id neither a string nor an integer) raises
:class:`~backfill.errors.BatsimError` naming the file and the job, and so do a negative ``subtime``
and a time past 1e12 s (:data:`~backfill.workloads.limits.MAX_TIME`), which no job here can have:
a run's clock stays below 2**43 s, where a float still resolves a millisecond, and a submit time of
1e13 s (as two of Batsim's own test workloads hold) would leave it there no room. So does a
document nested more deeply than Python's JSON reader follows (about a thousand levels).

Examples:
    >>> import io
    >>> text = '''{"nb_res": 4,
    ...   "jobs": [{"id": "1", "subtime": 0, "walltime": 100, "res": 2, "profile": "delay10"}],
    ...   "profiles": {"delay10": {"type": "delay", "delay": 10}}}'''
    >>> workload, report = read_batsim_workload(io.StringIO(text))
    >>> workload.machine_size, [(j.id, j.processors, j.runtime, j.estimate) for j in workload]
    (4, [(1, 2, 10.0, 100.0)])
"""

from __future__ import annotations

import json
import numbers
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import IO, Any, Literal, Protocol, TypeAlias

import numpy as np

from backfill.errors import BatsimError, ParameterError
from backfill.workloads._batsim_ids import NAMES_KEY, job_ids, names_note
from backfill.workloads._batsim_json import (
    BEYOND_MAX_TIME,
    DELAY_TYPES,
    check_resource_names,
    is_int,
    is_number,
    load_document,
    memory_field,
    memory_per_processor,
    profile_runtimes,
    shown,
)
from backfill.workloads.cleaning import CleaningPolicy, ReadReport
from backfill.workloads.limits import MAX_INT, MAX_TIME
from backfill.workloads.request_table import RequestTable, request_fields, table_requests
from backfill.workloads.resources import Resource, check_resources
from backfill.workloads.swf import clean_rows
from backfill.workloads.workload import SWF_FIELDS, Job, Workload, job_from_row

__all__ = [
    "BATSIM_POLICY",
    "BATSIM_PROFILE_TYPES",
    "batsim_ids",
    "is_batsim_path",
    "read_batsim_workload",
    "write_batsim_workload",
]

#: What :func:`read_batsim_workload` reads: a path, or an open file (text or binary).
Source: TypeAlias = "str | os.PathLike[str] | IO[str] | IO[bytes]"
#: What :func:`write_batsim_workload` writes to: a path, or an open text file.
Target: TypeAlias = "str | os.PathLike[str] | IO[str]"

#: The delay profile type each Batsim version reads, by major version: Batsim 4's ``"delay"``; Batsim
#: 5's ``"DelayProfile"`` (the name its 5.0.0-rc2 workloads and its protocol's ``DelayProfile`` use).
#: :func:`write_batsim_workload` writes either (``profile_type``), and the command line's
#: ``--batsim-version`` chooses.
BATSIM_PROFILE_TYPES: Mapping[int, Literal["delay", "DelayProfile"]] = MappingProxyType(
    {4: "delay", 5: "DelayProfile"}
)

#: The default cleaning policy of :func:`read_batsim_workload`: :class:`CleaningPolicy`'s defaults,
#: except that a job whose delay exceeds its walltime runs for its walltime, as Batsim stops it then.
BATSIM_POLICY = CleaningPolicy(overrun="truncate_runtime")

_COL = {name: i for i, name in enumerate(SWF_FIELDS)}
# Integral floats below this are written without a decimal point (they stay exact).
_MAX_PLAIN_INT = 1e16


class _Scheduled(Protocol):
    """A simulated schedule, as far as writing its workload goes (:class:`backfill.Schedule`)."""

    @property
    def workload(self) -> Workload: ...


def is_batsim_path(path: str | os.PathLike[str]) -> bool:
    """Whether a path names a Batsim workload: its suffix is ``.json`` (any letter case).

    The command line reads such a path with :func:`read_batsim_workload`, any other as SWF.

    Examples:
        >>> is_batsim_path("workloads/test_delays.json"), is_batsim_path("SDSC-SP2.swf.gz")
        (True, False)
    """
    return os.fspath(path).lower().endswith(".json")


def batsim_ids(source: Workload | _Scheduled) -> dict[int, str]:
    """The ids a Batsim file gave its jobs, where they are not the integer the job carries here.

    :func:`read_batsim_workload` keeps Batsim's ids: an integer id, or a string of one alone or
    after a workload's name (``"7"``, ``"w0!7"``), becomes that integer, unless an earlier job took
    it; any other id (``"delay"``, ``"1-ok"``) is numbered from one past the largest integer id of
    the file, in file order. The ids given otherwise than as their integer's decimal text are kept
    in the workload (and in the workloads made from it: scaled, cut, a schedule's), and
    :func:`write_batsim_workload` and the per-job CSV write them back as given.

    Args:
        source: A workload, or a simulated schedule (its workload).

    Returns:
        Job id here -> id as given, for the jobs whose given id is not ``str(job.id)``; empty for
        any other workload.

    Raises:
        ParameterError: ``source`` is neither a workload nor a schedule.

    Examples:
        >>> import io
        >>> text = '''{"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10}}, "jobs": [
        ...   {"id": "w0!1", "subtime": 0, "res": 1, "profile": "d"},
        ...   {"id": "late-ok", "subtime": 5, "res": 1, "profile": "d"}]}'''
        >>> workload, _ = read_batsim_workload(io.StringIO(text))
        >>> [job.id for job in workload], batsim_ids(workload)
        ([1, 2], {1: 'w0!1', 2: 'late-ok'})
    """
    workload = source if isinstance(source, Workload) else getattr(source, "workload", None)
    if not isinstance(workload, Workload):
        raise ParameterError(f"expected a Workload or a Schedule, got {type(source).__name__}")
    names = workload.provenance.get(NAMES_KEY)
    return dict(names) if isinstance(names, Mapping) else {}


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------


def _names(source: Source) -> tuple[str, str]:
    """(name for error messages, base name for provenance): a path's, an open file's, or ``<string>``."""
    name = os.fspath(source) if isinstance(source, str | os.PathLike) else getattr(source, "name", None)
    return (name, os.path.basename(name)) if isinstance(name, str) and name else ("<string>", "<string>")


def _users(raw_users: list[Any], ids: list[int], where: str) -> tuple[list[int], str | None]:
    """The users as integers: strings numbered after the integers, in order of first appearance."""
    known = [u for u in raw_users if is_int(u)]
    start = max(0, *known) + 1 if known else 1
    numbers_of: dict[str, int] = {}
    out = []
    for user, job_id in zip(raw_users, ids, strict=True):
        if user is None:
            out.append(-1)
        elif is_int(user):
            if not -MAX_INT < user < MAX_INT:
                raise BatsimError(
                    f"user {user} is not strictly between -2**53 and 2**53", path=where, job=str(job_id)
                )
            out.append(int(user))
        elif isinstance(user, str):
            out.append(numbers_of.setdefault(user, start + len(numbers_of)))
        else:
            raise BatsimError(
                f"user must be an integer, a string or null, got {shown(user)}", path=where, job=str(job_id)
            )
    if not numbers_of:
        return out, None
    first = ", ".join(f"{name!r} = {n}" for name, n in list(numbers_of.items())[:3])
    more = ", ..." if len(numbers_of) > 3 else ""
    names = "user name" if len(numbers_of) == 1 else "user names"
    return out, f"{len(numbers_of)} {names} numbered in order of first appearance ({first}{more})"


def _job_values(
    raw: Mapping[str, Any], job_id: int, name: str, where: str, delays: Mapping[str, float | str]
) -> tuple[Any, ...]:
    """(id, submit, runtime, estimate, processors, user, profile type or None, memory per processor)."""

    def refuse(reason: str) -> BatsimError:
        return BatsimError(reason, path=where, job=name)

    for field in ("subtime", "res", "profile"):
        if field not in raw:
            raise refuse(f"has no {field!r} field")
    subtime, res, profile = raw["subtime"], raw["res"], raw["profile"]
    if not (is_number(subtime) and subtime >= 0):
        raise refuse(f"subtime must be a number of seconds from 0 to 1e12, got {shown(subtime)}")
    if subtime > MAX_TIME:
        raise refuse(f"subtime {shown(subtime)} s {BEYOND_MAX_TIME}")
    walltime = raw.get("walltime", -1)
    if not (is_number(walltime) and (walltime == -1 or walltime > 0)):
        raise refuse(
            "walltime must be -1 (none) or a number of seconds from 0 (excluded) to 1e12, "
            f"got {shown(walltime)}"
        )
    if walltime > MAX_TIME:
        raise refuse(f"walltime {shown(walltime)} s {BEYOND_MAX_TIME}")
    if not (is_int(res) and 0 <= res < MAX_INT):
        raise refuse(f"res must be an integer from 0 to 2**53 - 1, got {shown(res)}")
    if not isinstance(profile, str):
        raise refuse(f"profile must be a profile's name (a string), got {shown(profile)}")
    if profile not in delays:
        raise refuse(f"its profile {profile!r} is not in the file's profiles")
    delay = delays[profile]
    runtime, kind = (delay, None) if isinstance(delay, float) else (-1.0, delay)
    memory = memory_field(raw, name, where)
    per = -1.0 if memory is None or res == 0 else memory_per_processor(memory, res)
    return job_id, float(subtime), runtime, float(walltime), int(res), raw.get("user"), kind, per


def read_batsim_workload(
    source: Source,
    policy: CleaningPolicy = BATSIM_POLICY,
    *,
    machine_size: int | None = None,
) -> tuple[Workload, ReadReport]:
    """Read a Batsim workload (JSON), check it and clean it; each delay profile gives a job's runtime.

    Args:
        source: A path (to a regular file) or an open file, text or binary, of JSON text.
        policy: Which jobs to keep and how to repair them, as for :func:`~backfill.read_swf`; see
            :class:`~backfill.workloads.cleaning.CleaningPolicy`. Its ``processors`` choice does not
            matter here (a Batsim job has one width, ``res``), nor do the rules on SWF's statuses. The
            default, :data:`BATSIM_POLICY`, truncates a delay longer than the walltime to the
            walltime, as Batsim does.
        machine_size: Processors of the machine, instead of the file's ``nb_res``.

    Returns:
        The cleaned workload, sorted by submit time (ties keep file order), with the source name,
        policy and counts in ``Workload.provenance`` (and the ids given as other text than their
        integer's, which :func:`batsim_ids` returns); and the :class:`ReadReport`, which counts the
        file's jobs as its ``lines``, names where the machine size came from (``"nb_res"`` or
        ``"argument"``) and says in its ``notes`` which profile types had no runtime and how user
        names were numbered.

    Raises:
        BatsimError: The file is not JSON (or holds NaN or a key twice in one object); ``nb_res``,
            ``jobs`` or ``profiles`` is missing or of the wrong type; a profile has no ``type``, a
            delay profile no positive ``delay``, a sequence no positive integer ``repeat`` or no
            ``seq`` of names of profiles in the file (without a cycle), or it runs beyond 1e12 s;
            a job lacks ``id``, ``subtime``, ``res`` or
            ``profile``, its id is neither a string nor an integer, its ``subtime`` is negative or
            past 1e12 s, its ``walltime`` neither -1 nor positive (up to 1e12 s), its ``res`` not an
            integer from 0, its ``user`` neither an integer, a string nor null, its profile is not
            in the file, or its id repeats; or the document is nested too deeply to read. The error
            names the file and the job (its id as given, or ``#k`` for the k-th job, from 1, when
            its id is what is wrong or repeats).
        ParameterError: ``source`` is neither a path nor an open file, ``policy`` not a
            :class:`CleaningPolicy`, or ``machine_size`` not an integer from 1.
        OSError: The file cannot be opened or read.

    Examples:
        >>> import io
        >>> text = '''{"nb_res": 2, "jobs": [
        ...   {"id": "w0!1", "subtime": 0, "walltime": 5, "res": 1, "profile": "long", "user": "ann"},
        ...   {"id": 2, "subtime": 3, "res": 1, "profile": "homogeneous"}],
        ...   "profiles": {"long": {"type": "delay", "delay": 8},
        ...                "homogeneous": {"type": "parallel_homogeneous", "cpu": 1e6, "com": 0}}}'''
        >>> w, report = read_batsim_workload(io.StringIO(text))
        >>> [(j.id, j.runtime, j.estimate, j.user) for j in w]
        [(1, 5.0, 5.0, 1)]
        >>> dict(report.dropped), dict(report.altered)
        ({'unknown_runtime': 1}, {'runtime_truncated_to_estimate': 1})
    """
    _check_arguments(source, policy, machine_size)
    where, base = _names(source)
    nb_res, jobs, profiles = _document(source, where)
    ids, given, names, numbered = job_ids(jobs, where)
    delays = profile_runtimes(profiles, where)
    rows = [
        _job_values(raw, job_id, name, where, delays)
        for raw, job_id, name in zip(jobs, ids, given, strict=True)
    ]
    users, user_note = _users([row[5] for row in rows], ids, where)
    values = _swf_values(rows, users)
    size = machine_size if machine_size is not None else nb_res
    # One implementation of the cleaning rules: the jobs, checked above, are the SWF reader's rows
    # in file order (so that it counts the jobs it reorders), cleaned by its own step.
    records, _, _, dropped, dropped_ids, altered = clean_rows(values, {}, policy, size)
    size_from = "argument" if machine_size is not None else "nb_res"
    others = Counter(row[6] for row in rows if row[6] is not None)
    report = ReadReport(
        source=base,
        lines=len(rows),
        kept=len(records),
        machine_size=size,
        machine_size_from=size_from,
        dropped=dropped,
        dropped_ids=dropped_ids,
        altered=altered,
        notes=_notes(rows, others, names_note(names, numbered), user_note),
    )
    provenance = {
        "source": base,
        "reader": "backfill.workloads.batsim.read_batsim_workload",
        "policy": repr(policy),
        "lines": report.lines,
        "kept": report.kept,
        "dropped": dict(report.dropped),
        "altered": dict(report.altered),
        "machine_size_from": size_from,
    }
    if others:
        provenance["profiles_without_runtime"] = dict(others.most_common())
    if names:
        provenance[NAMES_KEY] = names
    return Workload(records, size, provenance), report


def _check_arguments(source: Source, policy: CleaningPolicy, machine_size: int | None) -> None:
    """Refuse a machine size that is not an integer from 1, a policy or a source of the wrong type."""
    if machine_size is not None and (
        not isinstance(machine_size, numbers.Integral) or isinstance(machine_size, bool)
    ):
        raise ParameterError(f"machine_size must be an integer, got {machine_size!r}")
    if machine_size is not None and not 0 < machine_size < MAX_INT:
        raise ParameterError(f"machine_size must be from 1 to 2**53 - 1 processors, got {machine_size}")
    if not isinstance(policy, CleaningPolicy):
        raise ParameterError(f"policy must be a CleaningPolicy, got {type(policy).__name__}")
    if not isinstance(source, str | os.PathLike) and not callable(getattr(source, "read", None)):
        raise ParameterError(f"source must be a path or an open file, got {type(source).__name__}")


def _document(source: Source, where: str) -> tuple[int, list[Any], dict[str, Any]]:
    """The file's ``nb_res``, ``jobs`` and ``profiles``, each checked for its type."""
    doc = load_document(source, where)
    if not isinstance(doc, dict):
        raise BatsimError(f"a Batsim workload is a JSON object, got {type(doc).__name__}", path=where)
    for key in ("nb_res", "jobs", "profiles"):
        if key not in doc:
            raise BatsimError(f"the {key!r} field is missing", path=where)
    nb_res, jobs, profiles = doc["nb_res"], doc["jobs"], doc["profiles"]
    if not (is_int(nb_res) and 0 < nb_res < MAX_INT):
        raise BatsimError(f"'nb_res' must be a positive integer, got {shown(nb_res)}", path=where)
    if not isinstance(jobs, list):
        raise BatsimError(f"'jobs' must be an array, got {shown(jobs)}", path=where)
    if not isinstance(profiles, dict):
        raise BatsimError(f"'profiles' must be an object, got {shown(profiles)}", path=where)
    return nb_res, jobs, profiles


def _swf_values(rows: list[Any], users: Any) -> np.ndarray[Any, Any]:
    """The jobs as the SWF reader's rows: one per job, its 18 fields, -1 where Batsim has none."""
    values = np.full((len(rows), len(SWF_FIELDS)), -1.0)
    if rows:
        columns = np.array([row[:5] for row in rows], dtype=np.float64).reshape(len(rows), 5)
        for i, name in enumerate(("id", "submit", "runtime", "estimate", "processors")):
            values[:, _COL[name]] = columns[:, i]
    values[:, _COL["requested_processors"]] = values[:, _COL["processors"]]
    values[:, _COL["status"]] = 1
    values[:, _COL["user"]] = users
    values[:, _COL["requested_memory"]] = [row[7] for row in rows]
    return values


def _notes(rows: list[Any], others: Counter[Any], id_note: str | None, user_note: str | None) -> list[str]:
    """The report's notes: profiles without a runtime, how ids and users were numbered, memory read."""
    notes = []
    if others:
        kinds = ", ".join(f"{kind}: {n}" for kind, n in others.most_common())
        notes.append(
            f"jobs whose profile is of another type than delay, so their runtime is unknown: "
            f"{others.total()} ({kinds})"
        )
    if id_note:
        notes.append(id_note)
    if user_note:
        notes.append(user_note)
    with_memory = sum(row[7] >= 0 for row in rows)
    if with_memory:
        notes.append(
            f"memory: {with_memory} of {len(rows)} jobs carry a memory field (kB for the job), read as "
            "requested memory per processor (SWF field 10)"
        )
    return notes


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------


def _number(value: float) -> int | float:
    """A time as JSON writes it exactly: integral values as integers (``10``, not ``10.0``)."""
    return int(value) if value.is_integer() and abs(value) < _MAX_PLAIN_INT else value


def _workload_of(source: Workload | _Scheduled | Iterable[Job], machine_size: int | None) -> Workload:
    if isinstance(source, Workload):
        workload = source
    elif isinstance(getattr(source, "workload", None), Workload):
        workload = source.workload  # type: ignore[union-attr]  # a Schedule
    else:
        if isinstance(source, str | bytes | Mapping) or not isinstance(source, Iterable):
            raise ParameterError(f"expected a Workload, a Schedule or jobs, got {type(source).__name__}")
        jobs = list(source)
        wrong = next((j for j in jobs if not isinstance(j, Job)), None)
        if wrong is not None:
            raise ParameterError(f"expected jobs (backfill.Job), got {type(wrong).__name__}")
        if machine_size is None:
            raise ParameterError("machine_size is needed to write jobs: Batsim's nb_res")
        return Workload.from_jobs(jobs, machine_size)
    if machine_size is None:
        return workload
    return Workload(workload.records, machine_size, workload.provenance, workload.header)


def write_batsim_workload(
    source: Workload | _Scheduled | Iterable[Job],
    target: Target,
    *,
    machine_size: int | None = None,
    description: str | None = None,
    profile_type: Literal["delay", "DelayProfile"] = "delay",
    resources: Iterable[Resource] | None = None,
    requests: RequestTable | None = None,
) -> dict[str, tuple[int, ...]]:
    """Write jobs as a Batsim workload (JSON): one delay profile per distinct runtime.

    Each job is written with its ``id`` as a string: as its Batsim file gave it (:func:`batsim_ids`),
    or its integer's (``"7"``); ``subtime`` (its submit time),
    ``walltime`` (its estimate, the user's; left out, meaning no limit, when the estimate is not
    positive), ``res`` (its processors) and ``profile``, the name of the delay profile of its runtime
    (``"delay10"``, ``"delay20.25"``), and its ``user`` when known. Numbers are written exactly
    (integral ones without a decimal point), so that :func:`read_batsim_workload` gives back the
    same jobs. Each resource besides processors adds a field of its name to every job, the amount
    the job holds (``"memory": 4096``, kB for the whole job), which Batsim keeps as the user's and
    :func:`read_batsim_workload` reads back for memory. Batsim cannot run a job of no runtime (a delay
    must be positive) or of no processors: those are left out, as Batsim's own
    ``swf_to_batsim_workload_delay.py`` leaves them, and returned.

    Args:
        source: A :class:`~backfill.Workload`, a simulated :class:`~backfill.Schedule` (its
            workload is written: the jobs as simulated, after load scaling and the estimates
            policy; a Batsim workload has no field for start times) or an iterable of
            :class:`~backfill.Job`.
        target: A path, written whole or not at all (through a temporary file renamed into
            place), or an open text file.
        machine_size: The ``nb_res`` to write: needed for jobs, by default the workload's size.
        description: Text for the top-level ``description`` field Batsim's tools write, if any.
        profile_type: The delay profile's type name: ``"delay"`` (Batsim 4, the default) or
            ``"DelayProfile"`` (Batsim 5).
        resources: The resources (:class:`~backfill.workloads.resources.Resource`) whose amounts
            each job carries; by default a schedule's :attr:`~backfill.schedule.Schedule.resources`
            and none for a workload or jobs. Without any, the file is as it always was.
        requests: Node requests (a :class:`~backfill.workloads.request_table.RequestTable`) whose
            jobs get the fields stating theirs (``nodes``, ``tasks_per_node``, ...; see
            :func:`~backfill.workloads.request_table.read_batsim_requests`, which reads them back).

    Returns:
        The ids of the jobs left out, by reason: ``"no_runtime"`` (a runtime of 0 or unknown) and
        ``"no_processors"`` (a width of 0 or unknown); empty when every job was written.

    Raises:
        ParameterError: ``source`` is none of those, ``target`` neither a path nor an open file,
            jobs come without ``machine_size``, ``profile_type`` is neither name, a resource
            is named as a job field (``id``, ``res``, ...), ``requests`` is not a table, or a
            request has no fields (:func:`~backfill.workloads.request_table.request_fields`).
        OSError: The file could not be written; it names ``target``, which is left as it was.

    Examples:
        >>> import io
        >>> jobs = [Job(id=1, submit=0.0, processors=2, runtime=10.0, estimate=60.0, user=3),
        ...         Job(id=2, submit=5.5, processors=1, runtime=0.0, estimate=60.0)]
        >>> out = io.StringIO()
        >>> write_batsim_workload(jobs, out, machine_size=4)
        {'no_runtime': (2,)}
        >>> print(out.getvalue(), end="")
        {
          "nb_res": 4,
          "jobs": [
            {"id": "1", "subtime": 0, "walltime": 60, "res": 2, "profile": "delay10", "user": 3}
          ],
          "profiles": {
            "delay10": {"type": "delay", "delay": 10}
          }
        }
    """
    if profile_type not in DELAY_TYPES:
        raise ParameterError(
            f"profile_type must be one of {', '.join(map(repr, DELAY_TYPES))}; got {profile_type!r}"
        )
    if description is not None and not isinstance(description, str):
        raise ParameterError(f"description must be a string or None, got {description!r}")
    table = table_requests(requests)
    workload = _workload_of(source, machine_size)
    planned = check_resources(getattr(source, "resources", ()) if resources is None else resources)
    check_resource_names([r.name for r in planned])
    records = workload.records
    no_runtime = records["runtime"] <= 0
    no_processors = ~no_runtime & (records["processors"] <= 0)
    left_out = {
        reason: tuple(records["id"][mask].tolist())
        for reason, mask in (("no_runtime", no_runtime), ("no_processors", no_processors))
        if mask.any()
    }
    kept = records[~(no_runtime | no_processors)]
    names = batsim_ids(workload)
    profiles: dict[float, str] = {}
    lines = []
    # Exact however large: a job asking 2**62 or more (which the simulator rejects) is written as asked.
    held = [[r.exact_amount(job_from_row(row)) for row in kept.tolist()] for r in planned]
    for k, (job_id, submit, runtime, estimate, processors, user) in enumerate(
        zip(
            *(kept[name].tolist() for name in ("id", "submit", "runtime", "estimate", "processors", "user")),
            strict=True,
        )
    ):
        profile = profiles.setdefault(runtime, f"delay{_number(runtime)}")
        job: dict[str, Any] = {"id": names.get(job_id, str(job_id)), "subtime": _number(submit)}
        if estimate > 0:
            job["walltime"] = _number(estimate)
        job |= {"res": processors, "profile": profile}
        if user != -1:
            job["user"] = user
        for r, amounts in zip(planned, held, strict=True):
            job[r.name] = amounts[k]
        if job_id in table:
            job |= request_fields(table[job_id], job_id, processors)
        lines.append(json.dumps(job))
    head = {"nb_res": workload.machine_size}
    if description is not None:
        head["description"] = description  # type: ignore[assignment]
    text = "{\n" + "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items())
    text += '  "jobs": [' + ("\n    " + ",\n    ".join(lines) + "\n  " if lines else "") + "],\n"
    shown = [
        f"{json.dumps(name)}: {json.dumps({'type': profile_type, 'delay': _number(runtime)})}"
        for runtime, name in sorted(profiles.items())
    ]
    text += '  "profiles": {' + ("\n    " + ",\n    ".join(shown) + "\n  " if shown else "") + "}\n}\n"
    if not isinstance(target, str | os.PathLike):
        if not callable(getattr(target, "write", None)):
            raise ParameterError(f"target must be a path or an open text file, got {type(target).__name__}")
        target.write(text)
        return left_out
    from backfill._files import write_atomically  # here, beside the only use: the reader needs none

    write_atomically(target, text)
    return left_out
