"""What a sweep's cells run on: a log read with a cleaning policy, or the synthetic model, as data.

Private to :mod:`backfill.experiments.specs`, which exports :class:`TraceWorkload`,
:class:`ModelWorkload` and :data:`WorkloadSpec`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeAlias

import attrs

from backfill.errors import BackfillError
from backfill.experiments.cache import file_digest
from backfill.workloads.batsim import BATSIM_POLICY, is_batsim_path, read_batsim_workload
from backfill.workloads.cleaning import CleaningPolicy
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.swf import read_swf
from backfill.workloads.workload import Workload

__all__ = ["ModelWorkload", "TraceWorkload", "WorkloadSpec"]


def _as_path(value: str | os.PathLike[str]) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise BackfillError(f"a trace path must be a string or path, got {value!r}")
    return Path(value).expanduser().absolute()


def _existing_file(instance: object, attribute: attrs.Attribute[Any], value: Path) -> None:
    if value.is_file():
        return
    if not value.exists():
        raise BackfillError(f"trace file not found: {str(value)!r}")
    # A FIFO or device is there but cannot be a trace: reading it would hang or never end, and a
    # sweep reads each trace once per cell.
    kind = "a directory" if value.is_dir() else "a FIFO (named pipe)" if value.is_fifo() else "a special file"
    raise BackfillError(f"trace {str(value)!r} is {kind}, not a regular file")


def _optional_policy(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, CleaningPolicy):
        raise BackfillError(f"cleaning must be a CleaningPolicy or None, got {value!r}")


def _optional_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not (isinstance(value, str) and value):
        raise BackfillError(f"name must be a non-empty string or None, got {value!r}")


def _window(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is None:
        return
    if not (
        isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 0 <= value[0] < value[1]
    ):
        raise BackfillError(f"window must be None or (start, stop) with 0 <= start < stop, got {value!r}")


def _as_window(value: Any) -> Any:
    # A list from JSON or the user is the same window as a tuple (and hashes).
    return tuple(value) if isinstance(value, list) else value


def _window_bounds(n_jobs: int, n: int) -> list[tuple[int, int]]:
    # Consecutive, covering 0..n_jobs, sizes n_jobs // n or one more (the longer ones last).
    return [(i * n_jobs // n, (i + 1) * n_jobs // n) for i in range(n)]


def _job_count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BackfillError(f"n_jobs must be an integer >= 0, got {value!r}")


@functools.lru_cache(maxsize=2)
def _read_trace(path: Path, digest: str, cleaning: CleaningPolicy) -> Workload:
    # One read per worker process and trace, not per cell: the digest in the key drops a stale copy.
    return read_batsim_workload(path, cleaning)[0] if is_batsim_path(path) else read_swf(path, cleaning)[0]


@attrs.frozen
class TraceWorkload:
    """An SWF log read with :func:`~backfill.workloads.swf.read_swf` and a cleaning policy (default if None).

    A path ending in ``.json`` is a Batsim workload, read with
    :func:`~backfill.workloads.batsim.read_batsim_workload` (default policy
    :data:`~backfill.workloads.batsim.BATSIM_POLICY`).

    Its cache identity is the SHA-256 of the file's bytes and the policy, not its path or mtime: a
    moved trace keeps its cached cells, an edited one does not. Its label is ``name``, else the file
    name without ``.gz`` and ``.swf`` (or ``.json``). A sweep on a cluster needs the file at the
    same path on the workers.

    ``window=(start, stop)`` keeps only the jobs at positions ``start`` to ``stop - 1`` of the
    cleaned log in submit order (0-based, as a slice): :meth:`windows` cuts a log into consecutive
    windows, replications of one configuration. A window is part of the identity and, without a
    ``name``, of the label (``KTH-SP2 jobs 1-7134``, 1-based and inclusive); its jobs keep their
    submit times, so its simulation starts at its first submission (the metrics measure from the
    first submission too). The reader's dropped-job counts are the whole log's.

    Examples:
        >>> import tempfile
        >>> from backfill import Job, write_swf
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = Path(d) / "tiny.swf"
        ...     jobs = [Job(id=1, submit=0.0, processors=1, runtime=5.0, estimate=9.0)]
        ...     write_swf(path, Workload.from_jobs(jobs, machine_size=4))
        ...     moved = Path(d) / "moved.swf"
        ...     _ = moved.write_bytes(path.read_bytes())
        ...     trace = TraceWorkload(path)
        ...     trace.label, len(trace.load()), trace.identity() == TraceWorkload(moved).identity()
        ('tiny', 1, True)
    """

    path: Path = attrs.field(converter=_as_path, validator=_existing_file)
    cleaning: CleaningPolicy | None = attrs.field(default=None, validator=_optional_policy)
    name: str | None = attrs.field(default=None, kw_only=True, validator=_optional_name)
    window: tuple[int, int] | None = attrs.field(
        default=None, kw_only=True, converter=_as_window, validator=_window
    )

    @property
    def label(self) -> str:
        """The name shown in results."""
        if self.name is not None:
            return self.name
        stem = self.path.name.removesuffix(".gz")
        stem = stem.removesuffix(".json" if is_batsim_path(stem) else ".swf") or stem
        return stem if self.window is None else f"{stem} {_window_words(self.window)}"

    def identity(self) -> dict[str, Any]:
        """Return what the workload's content depends on, as JSON-able data (hashes the file)."""
        policy = self.reading_policy()
        kind = "batsim" if is_batsim_path(self.path) else "swf"
        identity = {"kind": kind, "sha256": file_digest(self.path), "cleaning": attrs.asdict(policy)}
        # Only for a window, so that the cells of a whole log keep their keys.
        return identity if self.window is None else identity | {"window": list(self.window)}

    def windows(self, n: int) -> tuple[TraceWorkload, ...]:
        """Return the log cut into ``n`` consecutive windows of nearly equal job counts.

        The cleaned log's jobs, in submit order, are split so that every job is in exactly one
        window and two windows' sizes differ by at most one (the longer ones last). Each window keeps
        this spec's path, cleaning and ``name`` (a name given is suffixed with the window's words).

        Raises:
            BackfillError: ``n`` is not an integer from 1, this spec is already a window, or the log
                has fewer than ``n`` jobs.

        Examples:
            >>> import tempfile
            >>> from backfill import Job, write_swf
            >>> with tempfile.TemporaryDirectory() as d:
            ...     path = Path(d) / "tiny.swf"
            ...     jobs = [Job(id=i, submit=10.0 * i, processors=1, runtime=5.0, estimate=9.0)
            ...             for i in range(1, 8)]
            ...     write_swf(path, Workload.from_jobs(jobs, machine_size=4))
            ...     parts = TraceWorkload(path).windows(3)
            ...     [(w.window, w.label, len(w.load())) for w in parts]
            [((0, 2), 'tiny jobs 1-2', 2), ((2, 4), 'tiny jobs 3-4', 2), ((4, 7), 'tiny jobs 5-7', 3)]
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BackfillError(f"the number of windows must be an integer from 1, got {n!r}")
        if self.window is not None:
            raise BackfillError(f"{self.label} is already a window of its log")
        n_jobs = len(self.load())
        if n > n_jobs:
            raise BackfillError(f"{n} windows of {self.label}, which has {n_jobs} jobs: at most one per job")
        return tuple(
            attrs.evolve(
                self,
                window=bounds,
                name=None if self.name is None else f"{self.name} {_window_words(bounds)}",
            )
            for bounds in _window_bounds(n_jobs, n)
        )

    def reading_policy(self) -> CleaningPolicy:
        """Return the cleaning policy the log is read with: ``cleaning``, or its reader's default."""
        if self.cleaning is not None:
            return self.cleaning
        return BATSIM_POLICY if is_batsim_path(self.path) else CleaningPolicy()

    def load(self) -> Workload:
        """Read and clean the trace."""
        return self._load(self.identity())

    def _load(self, identity: Mapping[str, Any]) -> Workload:
        whole = _read_trace(self.path, identity["sha256"], self.reading_policy())
        if self.window is None:
            return whole
        start, stop = self.window
        if stop > len(whole):
            raise BackfillError(f"{self.label}: the log has only {len(whole)} jobs after cleaning")
        provenance = dict(whole.provenance) | {"window": [start, stop]}
        return Workload(whole.records[start:stop].copy(), whole.machine_size, provenance, dict(whole.header))


def _window_words(window: tuple[int, int]) -> str:
    """Name a window of a log's jobs, 1-based and inclusive, as labels and tables show it.

    Examples:
        >>> _window_words((0, 7134))
        'jobs 1-7134'
    """
    return f"jobs {window[0] + 1}-{window[1]}"


@attrs.frozen
class ModelWorkload:
    """A Lublin-Feitelson workload: the arguments of :func:`~backfill.workloads.lublin.lublin_feitelson`.

    ``estimates`` is the model's estimate mode (``"accurate"`` or ``"f-model"`` with
    ``estimate_factor``), what the grid's ``"user"`` policy keeps. The fields are its cache
    identity; ``name`` is only its label (default: the non-default fields).

    Examples:
        >>> model = ModelWorkload(n_jobs=100, machine_size=32, seed=3, estimates="f-model")
        >>> model.label
        "lublin(n_jobs=100, machine_size=32, seed=3, estimates='f-model')"
        >>> len(model.load()), model.load().machine_size
        (100, 32)
    """

    n_jobs: int = attrs.field(default=10_000, validator=_job_count)
    machine_size: int = 128
    seed: int = 0
    job_class: str = "batch"
    arrival_shape: float | None = None
    estimates: str = "accurate"
    estimate_factor: float = 3.0
    name: str | None = attrs.field(default=None, kw_only=True, validator=_optional_name)

    def __attrs_post_init__(self) -> None:
        # The model checks its own arguments (and the arrival shape against its truncation); an
        # empty workload costs nothing and reports a bad value now rather than in a worker.
        self._generate(0)

    def _generate(self, n_jobs: int) -> Workload:
        return lublin_feitelson(
            n_jobs,
            machine_size=self.machine_size,
            seed=self.seed,
            job_class=self.job_class,  # type: ignore[arg-type]  # checked by the model
            arrival_shape=self.arrival_shape,
            estimates=self.estimates,  # type: ignore[arg-type]
            estimate_factor=self.estimate_factor,
        )

    @property
    def label(self) -> str:
        """The name shown in results."""
        if self.name is not None:
            return self.name
        shown = ["n_jobs", "machine_size", "seed"]
        defaults = ModelWorkload()
        shown += [
            f
            for f in ("job_class", "arrival_shape", "estimates", "estimate_factor")
            if getattr(self, f) != getattr(defaults, f)
            and (f != "estimate_factor" or self.estimates != "accurate")
        ]
        return f"lublin({', '.join(f'{f}={getattr(self, f)!r}' for f in shown)})"

    def identity(self) -> dict[str, Any]:
        """Return the model's arguments as JSON-able data."""
        return {
            "kind": "lublin_feitelson",
            "n_jobs": int(self.n_jobs),
            "machine_size": int(self.machine_size),
            "seed": int(self.seed),
            "job_class": self.job_class,
            "arrival_shape": None if self.arrival_shape is None else float(self.arrival_shape),
            "estimates": self.estimates,
            # Accurate estimates ignore the factor, so it must not split the cache.
            "estimate_factor": float(self.estimate_factor) if self.estimates == "f-model" else None,
        }

    def load(self) -> Workload:
        """Generate the workload."""
        return self._generate(self.n_jobs)

    def _load(self, identity: Mapping[str, Any]) -> Workload:
        return self.load()


WorkloadSpec: TypeAlias = TraceWorkload | ModelWorkload
