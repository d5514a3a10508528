"""What the cells of :mod:`backfill.experiments.sweep` are made of: scheduler and workload specs.

Everything a cell's result depends on is plain data with a JSON *identity*: a scheduler by name with
JSON parameters (:class:`SchedulerSpec`), a trace by the SHA-256 of its bytes and its cleaning policy
(:class:`TraceWorkload`), a model by its arguments (:class:`ModelWorkload`). Those identities make the
cell's content key in :mod:`backfill.experiments.cache`.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeAlias

import attrs

from backfill.errors import BackfillError, ParameterError
from backfill.experiments._resource_specs import ResourceSpec, memory_size, memory_text, resource_specs
from backfill.experiments.cache import file_digest
from backfill.schedulers.machinery.priorities import PRIORITIES
from backfill.schedulers.machinery.protocol import Scheduler
from backfill.schedulers.registry import SCHEDULERS as REGISTRY
from backfill.schedulers.registry import scheduler_entry
from backfill.workloads.batsim import BATSIM_POLICY, is_batsim_path, read_batsim_workload
from backfill.workloads.cleaning import CleaningPolicy
from backfill.workloads.lublin import lublin_feitelson
from backfill.workloads.resources import Resource
from backfill.workloads.swf import read_swf
from backfill.workloads.workload import Workload

__all__ = [
    "SCHEDULERS",
    "ModelWorkload",
    "ParamValue",
    "ResourceSpec",
    "SchedulerSpec",
    "TraceWorkload",
    "WorkloadSpec",
    "check_priority",
    "memory_size",
    "memory_text",
    "resource_specs",
    "split_spec_text",
]

# -- scheduler specs -----------------------------------------------------------------------------


#: A scheduler parameter: a JSON scalar, so that it can be part of a cache key and a CSV cell.
ParamValue: TypeAlias = bool | int | float | str | None

#: The schedulers a :class:`SchedulerSpec` can name: the registry (:mod:`backfill.schedulers.registry`).
SCHEDULERS = REGISTRY


def _canonical_name(value: object) -> object:
    try:
        return scheduler_entry(value).name if isinstance(value, str) else value
    except ParameterError:
        return value  # refused, with the known names, by _check_name


def _check_name(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or value not in SCHEDULERS:
        raise BackfillError(f"unknown scheduler {value!r}; known: {', '.join(e.name for e in SCHEDULERS)}")


def _sorted_params(value: Mapping[str, ParamValue] | Iterable[tuple[str, ParamValue]]) -> tuple[Any, ...]:
    items = list(value.items() if isinstance(value, Mapping) else value)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise BackfillError(f"scheduler parameters must be (name, value) pairs, got {item!r}")
    return tuple(sorted(items, key=lambda kv: kv[0]))


def _check_params(instance: SchedulerSpec, attribute: attrs.Attribute[Any], value: tuple[Any, ...]) -> None:
    entry = scheduler_entry(instance.name)
    keys = [k for k, _ in value]
    if len(set(keys)) == len(keys):
        value = entry.canonical(value)  # Slurm's names, checked and converted (again in post-init)
        keys = [k for k, _ in value]
    if len(set(keys)) != len(keys):
        raise BackfillError(f"{instance.name}: a parameter is given twice in {keys}")
    for key, v in value:
        if key == "priority":
            raise BackfillError(
                f"{instance.name}: give the priority in the grid's priorities, not as a parameter"
            )
        entry.parameter(key)  # refuses a name the registry does not list, naming those it does
        if not (v is None or isinstance(v, bool | int | float | str)):
            raise BackfillError(
                f"{instance.name}: parameter {key}={v!r} is not a JSON number, string or bool"
            )
    _construct(instance.name, value, None)  # the scheduler's own validators judge the values


_RESOURCE_SPLIT = re.compile(r"\+(?=\s*[A-Za-z_])")


def _value_text(value: ParamValue) -> str:
    """A parameter's value as :meth:`SchedulerSpec.parse` reads it back (none, true, 120.0, last2)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _construct(
    name: str,
    params: tuple[tuple[str, ParamValue], ...],
    priority: str | None,
    resources: tuple[Resource, ...] = (),
) -> Scheduler:
    entry = scheduler_entry(name)
    try:
        return entry.build(
            PRIORITIES[priority] if priority is not None else None, resources=resources, **dict(params)
        )
    except (BackfillError, TypeError, ValueError) as e:
        raise BackfillError(f"cannot build {name} with {dict(params)}: {e}") from e


@attrs.frozen(repr=False)
class SchedulerSpec:
    """A scheduler by name with keyword parameters: picklable, hashable data that builds a fresh one.

    ``name`` is a key of :data:`SCHEDULERS` (any letter case); ``params`` are keyword arguments of its
    constructor, JSON scalars kept as a tuple of (name, value) pairs sorted by name. Objects are out,
    except those a registered parameter names (LookaheadSlack's ``goal`` as ``"G1"`` or ``"G2"``, a
    predictor as ``"last2"``). The queue priority is not a parameter: :meth:`build` takes it by name.

    A parameter is the named scheduler's own (:mod:`backfill.schedulers.registry`): another
    scheduler may declare one of the same name with another meaning, and :meth:`parse` reads a
    value with this scheduler's reader. A cell's cache key holds ``name`` beside ``params``, so
    two schedulers' parameters of one name never share a key.

    Every scheduler also takes the registry's planning options (``predictor``, ``resolution``,
    ``correction``), which wrap it in :func:`~backfill.schedulers.prediction.planning.planning`, and Slurm's
    names for planning settings in Slurm's units (``bf_window=1440`` minutes), which the spec holds as
    the parameter they set (``planning_window=86400.0``): two spellings of one setting are one spec.

    ``resources`` are the resources planned besides processors (:class:`ResourceSpec`, or their
    text: ``"memory"``, ``"memory=1.5G"``); their capacities come from the workload, so a spec with
    resources builds its scheduler for a workload (:meth:`build`). They are part of the label
    (``EASY+memory``, ``EASY+memory=1.5G``: the size per processor as :func:`memory_text` writes
    it), hence of the ``scheduler`` column of results, and of a cell's cache key. In text they
    follow the name and parameters the same way, as the command line's ``--resources`` names them:
    ``easy:depth=4+memory=1G`` (:meth:`parse`); ``str(spec)`` is that text, which :meth:`parse`
    reads back to an equal spec.

    Examples:
        >>> spec = SchedulerSpec.of("easy", depth=4)
        >>> spec
        SchedulerSpec(name='EASY', params=(('depth', 4),))
        >>> spec.label, spec.build("sjf").depth
        ('EASY(depth=4)', 4)
        >>> SchedulerSpec("Conservative").takes_priority
        False
        >>> SchedulerSpec.of("EASY", bf_window=1440, predictor="last2").label
        "EASY(planning_window=86400.0, predictor='last2')"
        >>> SchedulerSpec("Conservative", resources="memory=2048M").label
        'Conservative+memory=2G'
        >>> str(SchedulerSpec.parse("easy:depth=4+memory=1.5G"))
        'EASY:depth=4+memory=1.5G'
    """

    name: str = attrs.field(converter=_canonical_name, validator=_check_name)
    params: tuple[tuple[str, ParamValue], ...] = attrs.field(
        default=(), converter=_sorted_params, validator=_check_params
    )
    resources: tuple[ResourceSpec, ...] = attrs.field(default=(), kw_only=True, converter=resource_specs)

    def __attrs_post_init__(self) -> None:
        canonical = _sorted_params(scheduler_entry(self.name).canonical(self.params))
        if canonical != self.params:
            object.__setattr__(self, "params", canonical)  # frozen: set once, before anyone reads it

    def __repr__(self) -> str:
        # The resources only when there are some, so that a spec of processors alone reads as before.
        extra = f", resources={self.resources!r}" if self.resources else ""
        return f"SchedulerSpec(name={self.name!r}, params={self.params!r}{extra})"

    def __str__(self) -> str:
        params = ",".join(f"{k}={_value_text(v)}" for k, v in self.params)
        return self.name + (f":{params}" if params else "") + "".join(f"+{r.label}" for r in self.resources)

    @classmethod
    def parse(cls, text: str) -> SchedulerSpec:
        """Return the spec of ``NAME[:K=V,...][+RESOURCE[=SIZE]...]``.

        Each value is read from text by NAME's own parameter ``K``; each resource as ``--resources``
        reads one (:meth:`ResourceSpec.parse`: ``memory``, ``memory=1.5G``). The command line's
        ``--scheduler`` and a sweep grid's scheduler given as text are read so.

        Raises:
            ParameterError: An unknown scheduler or parameter, a pair that is not ``K=V``, a key given
                twice, or a value its reader refuses (naming the scheduler and the parameter).
            BackfillError: An unknown resource, a bad size, or a resource named twice.

        Examples:
            >>> SchedulerSpec.parse("easy:bf_window=2,predictor=last2").params
            (('planning_window', 120.0), ('predictor', 'last2'))
            >>> SchedulerSpec.parse("conservative+memory=1G").label
            'Conservative+memory=1G'
        """
        # A resource begins with a letter after its "+"; a value's exponent ("1e+5") does not.
        head, *extras = _RESOURCE_SPLIT.split(text)
        resources = resource_specs(extras) if extras else ()
        name, pairs = split_spec_text(head)
        if not pairs:
            return cls(name, resources=resources)
        entry = scheduler_entry(name)
        return cls(entry.name, entry.read_all(pairs), resources=resources)

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
        extras = "".join(f"+{r.label}" for r in self.resources)
        if not self.params:
            return self.name + extras
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params)}){extras}"

    @property
    def takes_priority(self) -> bool:
        """Whether the scheduler orders a queue by a priority (FCFS, EASY, PC, DC, Selective)."""
        return scheduler_entry(self.name).takes_priority

    def build(self, priority: str = "fcfs", workload: Workload | None = None) -> Scheduler:
        """Return a new scheduler with the queue priority named ``priority``.

        A scheduler without a queue priority (Conservative, RelShare, LookaheadSlack, SlackBackfill)
        is built only with ``"fcfs"``, which stands for "its own order". With :attr:`resources` it
        plans them on ``workload``'s machine (:meth:`ResourceSpec.resource`).

        Raises:
            BackfillError: Unknown priority, or a priority other than ``"fcfs"`` for a scheduler
                without one; resources without a workload, or without a capacity on it.
        """
        check_priority(self, priority)
        return _construct(
            self.name, self.params, priority if self.takes_priority else None, self.planned(workload)
        )

    def resource_key(self) -> dict[str, Any]:
        """The resources' part of a cell's cache key: none without resources, so old keys still hold."""
        return {"resources": [r.identity() for r in self.resources]} if self.resources else {}

    def planned(self, workload: Workload | None) -> tuple[Resource, ...]:
        """The resources the scheduler plans on ``workload``'s machine; none without :attr:`resources`.

        Raises:
            BackfillError: Resources without a workload, or without a capacity on it.
        """
        if not self.resources:
            return ()
        if workload is None:
            raise BackfillError(f"{self.label}: a scheduler with resources is built for a workload")
        return tuple(r.resource(workload) for r in self.resources)


def split_spec_text(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``NAME:K=V,...`` into the name and its (key, value) texts.

    Raises:
        ParameterError: A pair that is not ``K=V``, or a key given twice.

    Examples:
        >>> split_spec_text("easy:depth=4")
        ('easy', [('depth', '4')])
    """
    head, colon, rest = text.partition(":")
    pairs = []
    if colon:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not (eq and key.strip() and value.strip()):
                raise ParameterError(f"expected KEY=VALUE, got {item!r}")
            pairs.append((key.strip(), value.strip()))
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ParameterError(f"{', '.join(repeated)} given twice")
    return head.strip(), pairs


def check_priority(spec: SchedulerSpec, priority: object) -> None:
    """Refuse an unknown priority name, or any but ``fcfs`` for a scheduler without a priority."""
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
