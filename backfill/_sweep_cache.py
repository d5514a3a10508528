"""What the cells of :mod:`backfill.sweep` are made of, and its on-disk cache.

Everything a cell's result depends on is plain data with a JSON *identity*: a scheduler by name with
JSON parameters (:class:`SchedulerSpec`), a trace by the SHA-256 of its bytes and its cleaning policy
(:class:`TraceWorkload`), a model by its arguments (:class:`ModelWorkload`). A cell's content key is
the SHA-256 of a canonical JSON text of those identities, its priority, load, estimates and bound, and
the library's version; its file in the cache directory, ``<key>.json``, holds that object and the
cell's metrics (:class:`CellStore`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeAlias

import attrs

from backfill.cleaning import CleaningPolicy
from backfill.errors import BackfillError
from backfill.lublin import lublin_feitelson
from backfill.priorities import PRIORITIES
from backfill.schedulers import (
    DC,
    EASY,
    FCFS,
    G1,
    G2,
    PC,
    Conservative,
    LookaheadSlack,
    RelShare,
    Scheduler,
    Selective,
    SlackBackfill,
)
from backfill.swf import read_swf
from backfill.workload import Workload

__all__ = [
    "SCHEDULERS",
    "CellStore",
    "ModelWorkload",
    "ParamValue",
    "SchedulerSpec",
    "TraceWorkload",
    "WorkloadSpec",
    "canonical_json",
    "content_key",
    "file_digest",
    "library_version",
]

# -- keys and the store --------------------------------------------------------------------------

#: Bumped when the layout of a cell file or the meaning of its metrics changes, so old files are
#: ignored rather than misread.
CACHE_FORMAT = 1

_CHUNK = 1 << 20

# (resolved path, size, mtime, inode) -> digest. A sweep asks for the same trace's identity once per
# cell; hashing a large log that often would cost more than the cached cells save.
_digests: dict[tuple[str, int, int, int], str] = {}


def canonical_json(value: Any) -> str:
    """Return ``value`` as JSON with sorted keys and no spaces, the same text for equal values.

    Examples:
        >>> canonical_json({"b": 1.0, "a": [None, True]})
        '{"a":[null,true],"b":1.0}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def content_key(value: Any) -> str:
    """Return the hex SHA-256 of :func:`canonical_json` of ``value``.

    Examples:
        >>> content_key({"a": 1}) == content_key({"a": 1}), content_key({"a": 1}) == content_key({"a": 2})
        (True, False)
    """
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def file_digest(path: Path) -> str:
    """Return the hex SHA-256 of a file's bytes, remembered while its size and mtime stay the same.

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     p = Path(d) / "t.swf"
        ...     _ = p.write_bytes(b"")
        ...     file_digest(p)[:12]
        'e3b0c44298fc'
    """
    try:
        st = path.stat()
        memo = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
        if memo not in _digests:
            digest = hashlib.sha256()
            with path.open("rb") as f:
                while block := f.read(_CHUNK):
                    digest.update(block)
            _digests[memo] = digest.hexdigest()
    except OSError as e:
        raise BackfillError(f"cannot read trace file {str(path)!r}: {e.strerror or e}") from e
    return _digests[memo]


@functools.cache
def library_version() -> str:
    """Return the installed version of ``backfill`` (``"unknown"`` when run from a bare checkout).

    Examples:
        >>> isinstance(library_version(), str)
        True
    """
    try:
        return importlib.metadata.version("backfill")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - depends on the install
        return "unknown"


class CellStore:
    """A directory of cell files, one ``<key>.json`` per computed cell.

    Examples:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     store = CellStore(d)
        ...     store.save("k", {"cell": 1}, {"mean_wait": 2.5})
        ...     store.load("k"), store.load("other")
        ({'mean_wait': 2.5}, None)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise BackfillError(f"cannot use {str(self.directory)!r} as a sweep cache: {e}") from e

    def path(self, key: str) -> Path:
        """Return the file of the cell with content key ``key``."""
        return self.directory / f"{key}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        """Return the metrics stored under ``key``, or None if there are none (or they are unusable)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            # Files are written atomically, so a bad one was damaged from outside; computing the
            # cell again (and overwriting it) is the repair.
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return None
        metrics = data.get("metrics")
        return metrics if isinstance(metrics, dict) else None

    def save(self, key: str, cell: Any, metrics: dict[str, Any]) -> None:
        """Write a cell's description and metrics under ``key``, atomically."""
        text = json.dumps({"format": CACHE_FORMAT, "cell": cell, "metrics": metrics}, indent=1)
        # Written beside the target and renamed over it, so a reader (or a resumed sweep after a
        # crash) sees either no file or a whole one.
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


# -- scheduler specs -----------------------------------------------------------------------------


#: A scheduler parameter: a JSON scalar, so that it can be part of a cache key and a CSV cell.
ParamValue: TypeAlias = bool | int | float | str | None

#: The schedulers a :class:`SchedulerSpec` can name, by class name.
SCHEDULERS: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (Conservative, DC, EASY, FCFS, LookaheadSlack, PC, RelShare, Selective, SlackBackfill)
}

_CANONICAL = {name.lower(): name for name in SCHEDULERS}
# Parameters whose values are objects: the spec holds a JSON name, the scheduler gets the object.
_NAMED_VALUES: dict[tuple[str, str], dict[str, Any]] = {("LookaheadSlack", "goal"): {"G1": G1, "G2": G2}}


def _init_names(cls: type[Any]) -> frozenset[str]:
    return frozenset(a.alias for a in attrs.fields(cls) if a.init)


def _takes_priority(name: str) -> bool:
    return "priority" in _init_names(SCHEDULERS[name])


def _canonical_name(value: object) -> object:
    return _CANONICAL.get(value.lower(), value) if isinstance(value, str) else value


def _check_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or value not in SCHEDULERS:
        raise BackfillError(f"unknown scheduler {value!r}; known: {', '.join(SCHEDULERS)}")


def _sorted_params(value: Mapping[str, ParamValue] | Iterable[tuple[str, ParamValue]]) -> tuple[Any, ...]:
    items = list(value.items() if isinstance(value, Mapping) else value)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise BackfillError(f"scheduler parameters must be (name, value) pairs, got {item!r}")
    return tuple(sorted(items, key=lambda kv: kv[0]))


def _check_params(instance: SchedulerSpec, attribute: attrs.Attribute[Any], value: tuple[Any, ...]) -> None:
    keys = [k for k, _ in value]
    if len(set(keys)) != len(keys):
        raise BackfillError(f"{instance.name}: a parameter is given twice in {keys}")
    allowed = _init_names(SCHEDULERS[instance.name]) - {"priority"}
    for key, v in value:
        if key == "priority":
            raise BackfillError(
                f"{instance.name}: give the priority in the grid's priorities, not as a parameter"
            )
        if key not in allowed:
            raise BackfillError(
                f"{instance.name} takes no parameter {key!r}; it takes {', '.join(sorted(allowed)) or 'none'}"
            )
        if not (v is None or isinstance(v, bool | int | float | str)):
            raise BackfillError(
                f"{instance.name}: parameter {key}={v!r} is not a JSON number, string or bool"
            )
    _construct(instance.name, value, None)  # the scheduler's own validators judge the values


def _construct(name: str, params: tuple[tuple[str, ParamValue], ...], priority: str | None) -> Scheduler:
    kwargs: dict[str, Any] = {}
    for key, value in params:
        named = _NAMED_VALUES.get((name, key))
        if named is not None:
            if value not in named:
                raise BackfillError(f"{name}: {key} must be one of {', '.join(named)}, got {value!r}")
            value = named[value]()
        kwargs[key] = value
    if priority is not None:
        kwargs["priority"] = PRIORITIES[priority]
    try:
        scheduler: Scheduler = SCHEDULERS[name](**kwargs)
    except (BackfillError, TypeError, ValueError) as e:
        raise BackfillError(f"cannot build {name} with {dict(params)}: {e}") from e
    return scheduler


@attrs.frozen
class SchedulerSpec:
    """A scheduler by name with keyword parameters: picklable, hashable data that builds a fresh one.

    ``name`` is a key of :data:`SCHEDULERS` (any letter case); ``params`` are keyword arguments of its
    constructor, JSON scalars kept as a tuple of (name, value) pairs sorted by name. Objects are out,
    except LookaheadSlack's ``goal``, given as ``"G1"`` or ``"G2"``. The queue priority is not a
    parameter: :meth:`build` takes it by name.

    Examples:
        >>> spec = SchedulerSpec.of("easy", depth=4)
        >>> spec
        SchedulerSpec(name='EASY', params=(('depth', 4),))
        >>> spec.label, spec.build("sjf").depth
        ('EASY(depth=4)', 4)
        >>> SchedulerSpec("Conservative").takes_priority
        False
    """

    name: str = attrs.field(converter=_canonical_name, validator=_check_name)
    params: tuple[tuple[str, ParamValue], ...] = attrs.field(
        default=(), converter=_sorted_params, validator=_check_params
    )

    @classmethod
    def of(cls, name: str, **params: ParamValue) -> SchedulerSpec:
        """Return the spec of scheduler ``name`` with keyword ``params``.

        Examples:
            >>> SchedulerSpec.of("LookaheadSlack", lookahead=10, goal="G2").label
            "LookaheadSlack(goal='G2', lookahead=10)"
        """
        return cls(name, tuple(params.items()))

    @property
    def label(self) -> str:
        """A short readable name: the scheduler's name and its parameters, e.g. ``EASY(depth=4)``."""
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params)})"

    @property
    def takes_priority(self) -> bool:
        """Whether the scheduler orders a queue by a priority (FCFS, EASY, PC, DC, Selective)."""
        return _takes_priority(self.name)

    def build(self, priority: str = "fcfs") -> Scheduler:
        """Return a new scheduler with the queue priority named ``priority``.

        A scheduler without a queue priority (Conservative, RelShare, LookaheadSlack, SlackBackfill)
        is built only with ``"fcfs"``, which stands for "its own order".

        Raises:
            BackfillError: Unknown priority, or a priority other than ``"fcfs"`` for a scheduler
                without one.
        """
        _check_priority(self, priority)
        return _construct(self.name, self.params, priority if self.takes_priority else None)


def _check_priority(spec: SchedulerSpec, priority: object) -> None:
    if not isinstance(priority, str) or priority not in PRIORITIES:
        raise BackfillError(f"unknown priority {priority!r}; known: {', '.join(PRIORITIES)}")
    if priority != "fcfs" and not spec.takes_priority:
        raise BackfillError(f"{spec.label} has no queue priority; it runs only with 'fcfs', not {priority!r}")


# -- workload specs ------------------------------------------------------------------------------


def _as_path(value: str | os.PathLike[str]) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise BackfillError(f"a trace path must be a string or path, got {value!r}")
    return Path(value).expanduser().absolute()


def _existing_file(instance: object, attribute: attrs.Attribute[Any], value: Path) -> None:
    if not value.is_file():
        raise BackfillError(f"trace file not found: {str(value)!r}")


def _optional_policy(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, CleaningPolicy):
        raise BackfillError(f"cleaning must be a CleaningPolicy or None, got {value!r}")


def _optional_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not (isinstance(value, str) and value):
        raise BackfillError(f"name must be a non-empty string or None, got {value!r}")


def _job_count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BackfillError(f"n_jobs must be an integer >= 0, got {value!r}")


@functools.lru_cache(maxsize=2)
def _read_trace(path: Path, digest: str, cleaning: CleaningPolicy) -> Workload:
    # One read per worker process and trace, not per cell: the digest in the key drops a stale copy.
    return read_swf(path, cleaning)[0]


@attrs.frozen
class TraceWorkload:
    """An SWF log read with :func:`~backfill.swf.read_swf` and a cleaning policy (the default if None).

    Its cache identity is the SHA-256 of the file's bytes and the policy, not its path or mtime: a
    moved trace keeps its cached cells, an edited one does not. Its label is ``name``, else the file
    name without ``.gz`` and ``.swf``. A sweep on a cluster needs the file at the same path on the
    workers.

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

    @property
    def label(self) -> str:
        """The name shown in results."""
        if self.name is not None:
            return self.name
        stem = self.path.name.removesuffix(".gz")
        return stem.removesuffix(".swf") or stem

    def identity(self) -> dict[str, Any]:
        """Return what the workload's content depends on, as JSON-able data (hashes the file)."""
        policy = self.cleaning if self.cleaning is not None else CleaningPolicy()
        return {"kind": "swf", "sha256": file_digest(self.path), "cleaning": attrs.asdict(policy)}

    def load(self) -> Workload:
        """Read and clean the trace."""
        return self._load(self.identity())

    def _load(self, identity: Mapping[str, Any]) -> Workload:
        policy = self.cleaning if self.cleaning is not None else CleaningPolicy()
        return _read_trace(self.path, identity["sha256"], policy)


@attrs.frozen
class ModelWorkload:
    """A Lublin-Feitelson synthetic workload: the arguments of :func:`~backfill.lublin.lublin_feitelson`.

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
