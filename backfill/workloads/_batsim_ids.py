"""Batsim's job ids (strings) as the integers jobs here carry, and back.

Private to :mod:`backfill.workloads.batsim`, which documents the rule: an id that is an integer, or a
string of one alone (``"7"``) or after a workload's name (``"w0!7"``), stays that integer unless an
earlier job took it; every other id (``"delay"``, ``"1-ok"``, ``" 1"``) is numbered from one past the
largest integer kept, in file order. The ids whose text is not the integer's are kept, to be written
back as given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from backfill.errors import BatsimError
from backfill.workloads._batsim_json import is_int, shown
from backfill.workloads.limits import MAX_INT

__all__ = ["NAMES_KEY", "job_ids", "names_note"]

#: The key of ``Workload.provenance`` holding the ids given as other text than their integer's.
NAMES_KEY = "batsim_ids"

# An id as Batsim writes one: an integer, alone or after a workload's name and "!".
_ID_RE = re.compile(r"(?:[^!]+!)?([+-]?[0-9]+)\Z", re.ASCII)


def _given(raw: Any, k: int, where: str) -> tuple[str, int | None]:
    """A job's id as text (Batsim's key: ``7`` and ``"7"`` are one id) and the integer it holds, if any."""
    if not isinstance(raw, dict):
        raise BatsimError(f"is not an object: {shown(raw)}", path=where, job=f"#{k}")
    if "id" not in raw:
        raise BatsimError("has no 'id' field", path=where, job=f"#{k}")
    value = raw["id"]
    if is_int(value):
        return str(value), value
    if not isinstance(value, str):
        raise BatsimError(
            f"id must be a string or an integer, as Batsim reads it, got {shown(value)}",
            path=where,
            job=f"#{k}",
        )
    match = _ID_RE.match(value)
    return value, int(match.group(1)) if match else None


def job_ids(jobs: Sequence[Any], where: str) -> tuple[list[int], list[str], dict[int, str], range]:
    """Each job's integer id and its id as given (text); the ids given otherwise; how many were numbered.

    The third value maps each integer id to its given text where that is not the integer's own; the
    last is the numbers given to the ids that held no integer, or one an earlier job took.

    Raises:
        BatsimError: A job is not an object, has no id or one of another type, or its id is given
            to an earlier job too (Batsim refuses that file), or the numbered ids would reach 2**53.

    Examples:
        >>> jobs = [{"id": "b"}, {"id": 3}, {"id": "w0!5"}, {"id": "a"}, {"id": "5"}]
        >>> ids, given, names, numbered = job_ids(jobs, "f")
        >>> ids, names, numbered
        ([6, 3, 5, 7, 8], {6: 'b', 5: 'w0!5', 7: 'a', 8: '5'}, range(6, 9))
    """
    given = [_given(raw, k, where) for k, raw in enumerate(jobs, start=1)]
    seen: dict[str, int] = {}
    for k, (text, _) in enumerate(given, start=1):
        if text in seen:
            raise BatsimError(
                f"the job id {text!r} is given to job #{seen[text]} too (Batsim refuses a repeated id)",
                path=where,
                job=f"#{k}",
            )
        seen[text] = k
    ids: list[int | None] = []
    taken: set[int] = set()
    for _, number in given:
        keep = number is not None and -MAX_INT < number < MAX_INT and number not in taken
        ids.append(number if keep else None)
        if keep:
            taken.add(number)  # type: ignore[arg-type]  # keep implies an int
    first = following = max(0, *taken) + 1 if taken else 1
    names: dict[int, str] = {}
    out: list[int] = []
    for (text, _), job_id in zip(given, ids, strict=True):
        if job_id is None:
            job_id, following = following, following + 1
            if job_id >= MAX_INT:
                raise BatsimError(
                    f"the id {text!r} cannot be numbered: the ids would reach 2**53", path=where, job=text
                )
        if text != str(job_id):
            names[job_id] = text
        out.append(job_id)
    return out, [text for text, _ in given], names, range(first, following)


def names_note(names: Mapping[int, str], numbered: range) -> str | None:
    """The reader's note on ids given as other text than an integer's, naming the first few."""
    if not names:
        return None
    first = ", ".join(f"{text!r} = {job_id}" for job_id, text in list(names.items())[:3])
    more = ", ..." if len(names) > 3 else ""
    how = f"{len(numbered)} numbered in file order from {numbered.start}; " if numbered else ""
    return (
        f"{len(names)} job ids are not plain integers ({how}{first}{more}): outputs write them "
        "back as given (see batsim_ids)"
    )
