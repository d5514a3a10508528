"""The SWF reader's cleaning policy and the report of what it dropped or changed.

:class:`CleaningPolicy` says which jobs of a log :func:`backfill.read_swf` keeps and how it repairs
them; :class:`ReadReport` counts every dropped or altered job by reason, so nothing is lost silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, TypeAlias

import attrs

from backfill._validators import is_bool, one_of
from backfill.errors import BackfillError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "CleaningPolicy",
    "OverrunPolicy",
    "ProcessorsChoice",
    "ReadReport",
    "memory_note",
    "memory_sources",
]

ProcessorsChoice: TypeAlias = Literal["allocated", "requested", "allocated_or_requested"]
OverrunPolicy: TypeAlias = Literal["raise_estimate", "truncate_runtime", "keep", "drop"]

_DROP_REASONS = (
    "partial_execution",
    "cancelled_before_start",
    "unknown_submit",
    "unknown_runtime",
    "no_processors",
    "wider_than_machine",
    "runtime_over_estimate",
)
REASON_CODES = {reason: code for code, reason in enumerate(_DROP_REASONS, start=1)}


@attrs.frozen
class CleaningPolicy:
    """Which jobs of an SWF log to keep, and how to repair the ones kept.

    The defaults follow the usual practice for simulating backfilling on archive logs (Lindsay et
    al. 2013; Rajbhandary et al. 2013): jobs that never ran as one whole job, or whose length or
    width is unknown, cannot be replayed and are dropped; missing estimates become exact ones, and a
    job that ran longer than its estimate gets its estimate raised, so that no scheduler has to kill
    a job the log says completed. Every drop and change is counted in the :class:`ReadReport`.

    Two rules always apply and have no switch: a job with an unknown submit time (``-1``) is
    dropped, and so is a job wider than the machine (its id is listed in the report).

    Attributes:
        processors: The width a job gets: ``"allocated"`` (SWF field 5, the default),
            ``"requested"`` (field 8) or ``"allocated_or_requested"`` (field 5, or field 8 when
            field 5 is not positive).
        overrun: What to do with a job whose runtime exceeds its estimate: ``"raise_estimate"``
            (default; estimate := runtime), ``"truncate_runtime"`` (runtime := estimate), ``"keep"``
            (leave both) or ``"drop"``.
        drop_partial: Drop status 2, 3 and 4 (one part of a job that was checkpointed or swapped).
        drop_cancelled_unstarted: Drop status 5 (cancelled) with runtime <= 0: it never started.
        drop_unknown_runtime: Drop jobs whose runtime is unknown (< 0).
        drop_no_processors: Drop jobs whose width (see ``processors``) is not positive.
        fill_missing_estimate: Give a job without an estimate (field 9 <= 0) an exact one,
            estimate := runtime.

    Examples:
        >>> CleaningPolicy(overrun="truncate_runtime").processors
        'allocated'
        >>> CleaningPolicy(processors="nodes")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        backfill.errors.ParameterError: CleaningPolicy.processors must be one of 'allocated', ...; got 'nodes'
    """

    processors: ProcessorsChoice = attrs.field(
        default="allocated",
        validator=one_of("allocated", "requested", "allocated_or_requested"),
    )
    overrun: OverrunPolicy = attrs.field(
        default="raise_estimate",
        validator=one_of("raise_estimate", "truncate_runtime", "keep", "drop"),
    )
    drop_partial: bool = attrs.field(default=True, validator=is_bool)
    drop_cancelled_unstarted: bool = attrs.field(default=True, validator=is_bool)
    drop_unknown_runtime: bool = attrs.field(default=True, validator=is_bool)
    drop_no_processors: bool = attrs.field(default=True, validator=is_bool)
    fill_missing_estimate: bool = attrs.field(default=True, validator=is_bool)

    @classmethod
    def raw(cls) -> CleaningPolicy:
        """Return a policy that keeps and changes as much as possible (for inspecting a log).

        Only the two fixed rules still apply: unknown submit times and jobs wider than the machine.

        Examples:
            >>> CleaningPolicy.raw().overrun
            'keep'
        """
        return cls(
            overrun="keep",
            drop_partial=False,
            drop_cancelled_unstarted=False,
            drop_unknown_runtime=False,
            drop_no_processors=False,
            fill_missing_estimate=False,
        )


def _frozen_counts(m: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType({str(k): int(v) for k, v in m.items()})


def _frozen_ids(m: Mapping[str, Iterable[int]]) -> Mapping[str, tuple[int, ...]]:
    return MappingProxyType({str(k): tuple(int(i) for i in v) for k, v in m.items()})


def _int_tuple(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _str_tuple(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


@attrs.frozen
class ReadReport:
    """What :func:`read_swf` did to a log: how many jobs it kept, dropped, changed or skipped.

    The counts always add up: ``lines == kept + sum(dropped.values()) + len(skipped_lines)``.

    Attributes:
        source: The file name (no directory), or ``"<string>"`` for an unnamed stream.
        lines: Data lines in the file (comments and blank lines not counted).
        kept: Jobs in the returned workload.
        machine_size: The machine size the workload got.
        machine_size_from: Where it came from: ``"argument"``, ``"MaxProcs"``, ``"MaxNodes"``,
            ``"widest_job"`` or ``"default"`` (an empty log with no header: 1).
        dropped: Jobs dropped, by reason (only reasons that occurred), in the order the rules apply:
            ``partial_execution``, ``cancelled_before_start``, ``unknown_submit``,
            ``unknown_runtime``, ``no_processors``, ``wider_than_machine``,
            ``runtime_over_estimate``.
        dropped_ids: The ids of the dropped jobs, by reason, in file order.
        altered: Jobs kept but changed, by reason: ``estimate_from_runtime``,
            ``estimate_raised_to_runtime``, ``runtime_truncated_to_estimate``.
        skipped_lines: 1-based line numbers of the malformed lines skipped in lenient mode.
        notes: What the reader could not use or found contradictory outside the data lines, one
            sentence each, saying what it used instead: a ``MaxProcs`` or ``MaxNodes`` header value
            that is not a machine size, different values given for one of them, header text beyond
            what is kept. How the jobs' memory is known is :attr:`memory_note`, which applies
            only to a run that plans memory.
        memory_from: Jobs kept by where their memory per processor comes from, as
            :func:`~backfill.workloads.resources.memory_request` reads it: ``requested`` (SWF field
            10), ``used`` (no field 10, so the used memory of field 7, as AccaSim does) and ``none``
            (neither: the job holds no memory). Empty for a reader that does not count them. Where
            any job records memory, the jobs that fall back to field 7 and those with neither are
            :attr:`memory_note`, so that a user scheduling memory sees them.

    Examples:
        >>> r = ReadReport(source="x.swf", lines=3, kept=1, machine_size=4,
        ...                machine_size_from="MaxProcs", dropped={"unknown_runtime": 1},
        ...                dropped_ids={"unknown_runtime": [7]}, skipped_lines=[12])
        >>> r.dropped_ids["unknown_runtime"], r.skipped_lines
        ((7,), (12,))
    """

    source: str
    lines: int
    kept: int
    machine_size: int
    machine_size_from: str
    dropped: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen_counts)
    dropped_ids: Mapping[str, tuple[int, ...]] = attrs.field(factory=dict, converter=_frozen_ids, repr=False)
    altered: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen_counts)
    skipped_lines: tuple[int, ...] = attrs.field(default=(), converter=_int_tuple)
    notes: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    memory_from: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen_counts, repr=False)

    def __attrs_post_init__(self) -> None:
        accounted = self.kept + sum(self.dropped.values()) + len(self.skipped_lines)
        if accounted != self.lines:
            raise BackfillError(
                f"ReadReport does not add up: {self.lines} lines but {self.kept} kept + "
                f"{sum(self.dropped.values())} dropped + {len(self.skipped_lines)} skipped"
            )

    @property
    def memory_note(self) -> str:
        """How the jobs' memory is known, one note (:func:`memory_note`); empty where nothing falls back."""
        return memory_note(self.memory_from)

    def summary(self, resources: Iterable[str] = ()) -> str:
        """Return a few lines of text describing the read, for logs and notebooks.

        The notes on a resource (:attr:`memory_note`) only for the ``resources`` named, those a run
        plans besides processors: a run of processors alone does not use the jobs' memory.

        Examples:
            >>> r = ReadReport(source="log.swf", lines=5, kept=4, machine_size=8,
            ...                machine_size_from="MaxProcs", dropped={"no_processors": 1},
            ...                altered={"estimate_from_runtime": 2},
            ...                notes=["header gives 2 different MaxProcs values (8, 16): ..."])
            >>> print(r.summary())
            log.swf: 5 data lines: 4 jobs kept, 1 dropped, 0 malformed lines skipped
              machine size 8 (from MaxProcs)
              dropped no_processors: 1
              altered estimate_from_runtime: 2
              note: header gives 2 different MaxProcs values (8, 16): ...
        """
        head = (
            f"{self.source}: {self.lines} data lines: {self.kept} jobs kept, "
            f"{sum(self.dropped.values())} dropped, "
            f"{len(self.skipped_lines)} malformed lines skipped"
        )
        body = [f"  machine size {self.machine_size} (from {self.machine_size_from})"]
        body += [f"  dropped {reason}: {n}" for reason, n in self.dropped.items()]
        body += [f"  altered {reason}: {n}" for reason, n in self.altered.items()]
        if self.skipped_lines:
            shown = ", ".join(str(n) for n in self.skipped_lines[:10])
            more = ", ..." if len(self.skipped_lines) > 10 else ""
            body.append(f"  skipped lines: {shown}{more}")
        body += [f"  note: {note}" for note in self.notes]
        if "memory" in resources and self.memory_note:
            body.append(f"  note: {self.memory_note}")
        return "\n".join([head, *body])


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------


def memory_sources(records: npt.NDArray[np.void]) -> dict[str, int]:
    """Count where the jobs' memory per processor comes from (:attr:`ReadReport.memory_from`).

    Jobs (records of :data:`~backfill.workloads.workload.JOB_DTYPE`) are counted as
    :func:`~backfill.workloads.resources.memory_request` reads them: ``requested`` (SWF field 10
    positive), ``used`` (no field 10 but field 7: the used memory stands in for the request, as
    AccaSim does) and ``none`` (neither).

    Examples:
        >>> from backfill.workloads.workload import Job, Workload
        >>> pairs = [(8, -1), (-1, 5), (-1, -1)]  # (field 10, field 7)
        >>> jobs = [Job(id=i, submit=0.0, processors=1, runtime=1.0, estimate=1.0,
        ...             requested_memory=r, memory=u) for i, (r, u) in enumerate(pairs)]
        >>> memory_sources(Workload.from_jobs(jobs, machine_size=1).records)
        {'requested': 1, 'used': 1, 'none': 1}
    """
    requested = records["requested_memory"] > 0
    used = ~requested & (records["memory"] > 0)
    return {
        "requested": int(requested.sum()),
        "used": int(used.sum()),
        "none": int(len(records) - requested.sum() - used.sum()),
    }


def memory_note(counts: Mapping[str, int]) -> str:
    """The one note a run planning memory needs on a log's jobs (:func:`memory_sources`' ``counts``).

    A log that records no memory at all gets none (no job's memory is known, so none is treated
    differently), nor one where every job requests memory; otherwise it says how many jobs fall
    back to their used memory and how many hold none, since scheduling memory treats them
    differently from what the log's other jobs say.

    Examples:
        >>> for part in memory_note({"requested": 1, "used": 2, "none": 1}).split(": "):
        ...     print(part)
        memory
        2 jobs have no requested memory (field 10)
        their used memory (field 7) stands in, as AccaSim does; 1 records neither
        it holds none
        >>> memory_note({"requested": 5, "none": 2})
        'memory: 2 jobs record neither requested (field 10) nor used memory (field 7): they hold none'
        >>> memory_note({"requested": 0, "used": 0, "none": 3}), memory_note({"requested": 3})
        ('', '')

    Raises:
        BackfillError: A count that is not an int >= 0.
    """
    for key, n in counts.items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise BackfillError(f"memory_note: the count of {key!r} must be an int >= 0, got {n!r}")
    used, none = counts.get("used", 0), counts.get("none", 0)
    if not (counts.get("requested", 0) or used):
        return ""
    parts = []
    if used:
        parts.append(
            f"{used} job{'s have' if used != 1 else ' has'} no requested memory (field 10): "
            f"{'their' if used != 1 else 'its'} used memory (field 7) stands in, as AccaSim does"
        )
    if none:
        verb, hold = ("record", "they hold") if none != 1 else ("records", "it holds")
        if used:  # after the fields are named: short
            parts.append(f"{none} {verb} neither: {hold} none")
        else:
            jobs = "jobs" if none != 1 else "job"
            parts.append(
                f"{none} {jobs} {verb} neither requested (field 10) nor used memory (field 7): {hold} none"
            )
    return "memory: " + "; ".join(parts) if parts else ""
