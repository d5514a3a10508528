"""Why a workload has no job to simulate, as both commands say it (exit status 2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backfill.cli.options import NO_JOBS

__all__ = ["no_jobs"]


def no_jobs(name: str, provenance: Mapping[str, Any]) -> str:
    """The error of a workload without jobs: the file's job count and the reasons the reader dropped them.

    A reader's ``provenance`` counts the file's jobs (``lines``) and the dropped ones by reason; a
    Batsim workload's also counts the profile types that give no runtime. Without those counts
    (a workload made otherwise) the message is :data:`~backfill.cli.options.NO_JOBS`.

    Examples:
        >>> read = {"lines": 3, "dropped": {"unknown_runtime": 3},
        ...         "profiles_without_runtime": {"parallel_homogeneous": 3}}
        >>> no_jobs("w.json", read)  # doctest: +NORMALIZE_WHITESPACE
        "w.json: no jobs to simulate: the reader dropped all 3 of the file's jobs (unknown_runtime: 3);
        their profiles give no runtime (parallel_homogeneous: 3): Batsim computes such a job's time on
        a platform, which this library does not simulate; only delay profiles (and sequences of them)
        carry a runtime"
        >>> no_jobs("one.swf", {"lines": 1, "dropped": {"no_processors": 1}})
        "one.swf: no jobs to simulate: the reader dropped the file's one job (no_processors: 1)"
        >>> no_jobs("empty.swf", {"lines": 0, "dropped": {}})
        'empty.swf: no jobs to simulate: the file has no job'
    """
    lines, dropped = provenance.get("lines"), provenance.get("dropped")
    if not isinstance(lines, int) or not isinstance(dropped, Mapping):
        return f"{name}: {NO_JOBS}"
    if lines == 0:
        return f"{name}: no jobs to simulate: the file has no job"
    reasons = ", ".join(f"{reason}: {n}" for reason, n in dropped.items())
    jobs = "the file's one job" if lines == 1 else f"all {lines} of the file's jobs"
    text = f"{name}: no jobs to simulate: the reader dropped {jobs} ({reasons})"
    kinds = provenance.get("profiles_without_runtime")
    if isinstance(kinds, Mapping) and kinds:
        shown = ", ".join(f"{kind}: {n}" for kind, n in kinds.items())
        text += (
            f"; their profiles give no runtime ({shown}): Batsim computes such a job's time on a "
            "platform, which this library does not simulate; only delay profiles (and sequences of "
            "them) carry a runtime"
        )
    return text
