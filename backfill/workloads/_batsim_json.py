"""The JSON side of Batsim workloads: the document, the types of its values, its profiles' runtimes.

Private to :mod:`backfill.workloads.batsim`, which documents the format.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from collections.abc import Mapping
from typing import IO, Any, TypeGuard

from backfill.errors import BatsimError, ParameterError
from backfill.workloads.limits import MAX_INT, MAX_TIME

__all__ = [
    "BEYOND_MAX_TIME",
    "DELAY_TYPES",
    "JOB_FIELDS",
    "REQUEST_FIELDS",
    "check_resource_names",
    "is_int",
    "is_number",
    "load_document",
    "memory_field",
    "memory_per_processor",
    "profile_runtimes",
    "shown",
]

#: Why a time past MAX_TIME is refused: Batsim's own tests hold submit times of 1e13 s, and the reason
#: is not Batsim's, but what a float resolves (backfill.workloads.limits).
BEYOND_MAX_TIME = (
    "is beyond 1e12 s, the longest time a job may carry here: a run's clock stays below 2**43 s "
    "(about 8.8e12 s), where a float still resolves a millisecond, and a start plus a walltime "
    "must fit there; shift the file's times or leave such jobs out"
)
#: The names Batsim gives the delay profile type: Batsim 4's, then Batsim 5's.
DELAY_TYPES = ("delay", "DelayProfile")
#: And the names of the sequence profile type.
_SEQUENCE_TYPES = ("composed", "SequentialCompositionProfile")
# The first bytes of a gzip file: a compressed workload is named as such, not as text that is not UTF-8.
_GZIP_MAGIC = b"\x1f\x8b"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members, refusing a repeated key (``json`` would keep the last one silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def load_document(source: str | os.PathLike[str] | IO[str] | IO[bytes], where: str) -> Any:
    """The JSON document of a path or an open file."""
    if isinstance(source, str | os.PathLike):
        mode = os.stat(source).st_mode
        if not stat.S_ISREG(mode):
            raise BatsimError(
                "not a regular file (to read a stream, open it and pass the open file)", path=where
            )
        with open(source, "rb") as f:
            data: str | bytes = f.read()
    else:
        data = source.read()
    try:
        return json.loads(data, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise BatsimError(
            f"not a JSON document: {e.msg} (line {e.lineno}, column {e.colno})", path=where
        ) from None
    except UnicodeDecodeError:
        if isinstance(data, bytes) and data.startswith(_GZIP_MAGIC):
            raise BatsimError(
                "not a JSON document: the file is compressed (gzip); decompress it first", path=where
            ) from None
        raise BatsimError("not a JSON document: the text is not UTF-8", path=where) from None
    except ValueError as e:
        raise BatsimError(f"not a Batsim workload: {e}", path=where) from None
    except RecursionError:
        # Python's JSON reader follows arrays and objects by recursion: past about a thousand levels
        # it stops, and no workload nests so deeply (Batsim's go three or four levels down).
        raise BatsimError(
            "not a Batsim workload: its arrays or objects are nested too deeply to read "
            f"(more than about {sys.getrecursionlimit()} levels)",
            path=where,
        ) from None


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shown(value: object) -> str:
    """A value as a message shows it: its JSON, cut to about 40 characters."""
    try:
        text = json.dumps(value) if not isinstance(value, float) else repr(value)
    except RecursionError:  # read from a document, but nested too deeply to write back whole
        return f"a {type(value).__name__} nested too deeply to show"
    return text if len(text) <= 40 else f"{text[:30]}...{text[-6:]}"


def profile_runtimes(profiles: Mapping[str, Any], where: str) -> dict[str, float | str]:
    """Each profile's runtime (a delay, or a sequence of delays), or its type when it has none."""
    out: dict[str, float | str] = {}
    sequences = {}
    for name, profile in profiles.items():
        if not isinstance(profile, dict):
            raise BatsimError(f"profile {name!r} is not an object: {shown(profile)}", path=where)
        kind = profile.get("type")
        if not isinstance(kind, str):
            raise BatsimError(f"profile {name!r} has no 'type' string", path=where)
        if kind in _SEQUENCE_TYPES:
            sequences[name] = (kind, *_sequence(name, profile, where))
        elif kind not in DELAY_TYPES:
            out[name] = kind
        else:
            out[name] = _time(
                profile.get("delay"), f"profile {name!r} of type {kind!r} must have a 'delay'", where
            )
    for name in sequences:
        try:
            _sequence_runtime(name, sequences, out, (), where)
        except RecursionError:
            raise BatsimError(f"profile {name!r} nests sequences too deeply to follow", path=where) from None
    return out


def _time(value: object, what: str, where: str) -> float:
    if not (is_number(value) and value > 0):
        raise BatsimError(f"{what} from 0 (excluded) to 1e12 s, got {shown(value)}", path=where)
    if value > MAX_TIME:
        raise BatsimError(f"{what}: {shown(value)} s {BEYOND_MAX_TIME}", path=where)
    return float(value)


def _sequence(name: str, profile: Mapping[str, Any], where: str) -> tuple[int, list[str]]:
    """A sequence profile's ``repeat`` and ``seq``, checked as Batsim checks them."""
    repeat, seq = profile.get("repeat", 1), profile.get("seq")
    if not (is_int(repeat) and repeat > 0):
        raise BatsimError(
            f"profile {name!r} must have a positive integer 'repeat', got {shown(repeat)}", path=where
        )
    if not (isinstance(seq, list) and seq and all(isinstance(item, str) for item in seq)):
        raise BatsimError(
            f"profile {name!r} must have a 'seq' of one or more profile names, got {shown(seq)}", path=where
        )
    return repeat, seq


def _sequence_runtime(
    name: str,
    sequences: Mapping[str, tuple[str, int, list[str]]],
    out: dict[str, float | str],
    within: tuple[str, ...],
    where: str,
) -> float | str:
    """A sequence's runtime, ``repeat`` times the sum of its profiles', stored in ``out``; or its type.

    A sequence of profiles that all have a runtime has one (Batsim runs them one after the other);
    one with any other profile in it has none.
    """
    if name in out:
        return out[name]
    if name in within:
        cycle = " -> ".join(map(repr, (*within[within.index(name) :], name)))
        raise BatsimError(f"profiles form a cycle: {cycle}", path=where)
    kind, repeat, seq = sequences[name]
    parts = []
    for item in seq:
        if item not in out and item not in sequences:
            raise BatsimError(
                f"profile {name!r} names {item!r} in its 'seq', which is not in the file", path=where
            )
        parts.append(_sequence_runtime(item, sequences, out, (*within, name), where))
    times = [part for part in parts if isinstance(part, float)]
    # Without a runtime, the type the user sees names what in the sequence has none.
    inner = next((part for part in parts if isinstance(part, str)), "")
    named = inner if " of " in inner else f"{kind} of {inner}"  # a nested sequence's says it already
    runtime: float | str = repeat * sum(times) if len(times) == len(parts) else named
    if isinstance(runtime, float) and runtime > MAX_TIME:
        raise BatsimError(f"profile {name!r} runs for {runtime!r} s, beyond 1e12 s", path=where)
    out[name] = runtime
    return runtime


# -- resources besides processors: one field per resource in a job object -----------------------

#: The fields of a job object that state its node request (:mod:`backfill.workloads.request_table`).
REQUEST_FIELDS = (
    "nodes",
    "tasks_per_node",
    "cores_per_task",
    "memory_per_node",
    "memory_per_task",
    "gpus_per_node",
    "gpus_per_task",
    "exclusive",
)
#: The fields of a Batsim job object this library reads or writes: no resource may take their names.
JOB_FIELDS = ("id", "subtime", "walltime", "res", "profile", "user", *REQUEST_FIELDS)


def memory_field(raw: Mapping[str, Any], job: str, where: str) -> float | None:
    """A job object's ``memory`` (kB the whole job holds), checked: None when it has none."""
    value = raw.get("memory")
    if value is None:
        return None
    if not (is_number(value) and 0 <= value < MAX_INT):
        raise BatsimError(
            f"memory must be a number of kB from 0 to 2**53 - 1, got {shown(value)}", path=where, job=job
        )
    return float(value)


def memory_per_processor(amount: float, processors: int) -> float:
    """The memory per processor whose request is ``amount``, as ``memory_request`` reads it.

    ``amount / processors`` (:func:`~backfill.workloads.resources.memory_request` multiplies back),
    nudged by a unit in the last place where the product rounds past it, so that reading back what
    :func:`~backfill.workloads.batsim.write_batsim_workload` wrote gives the
    same request.

    Examples:
        >>> per = memory_per_processor(1, 49)  # 1 / 49 * 49 is 0.9999999999999999 in floats
        >>> math.ceil(per * 49)
        1
    """
    per = amount / processors
    target = math.ceil(amount)
    while per > 0 and math.ceil(per * processors) > target:
        per = math.nextafter(per, 0.0)
    while math.ceil(per * processors) < target:
        per = math.nextafter(per, math.inf)
    return per


def check_resource_names(names: list[str]) -> None:
    """Refuse a resource whose field would overwrite one of :data:`JOB_FIELDS`."""
    clash = [n for n in names if n in JOB_FIELDS]
    if clash:
        raise ParameterError(f"a resource named {clash[0]!r} would overwrite the job field of that name")
