"""The on-disk cache of :func:`~backfill.experiments.sweep.run_sweep`: content keys and the cell store.

A cell's content key is the SHA-256 of a canonical JSON text of what its result depends on (the
identities of its workload and scheduler specs, its priority, load, estimates and bound, and the
library's version); its file in the cache directory, ``<key>.json``, holds that object, the cell's
metrics, the key and a checksum of them all (:class:`CellStore`). A file is used only if it is
whole: its checksum matches, it is the file of its key, and every metric has its type and range;
anything else is counted as damaged and computed again, never used.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import os
import tempfile
import zlib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from backfill._files import write_atomically
from backfill._version import library_version
from backfill.errors import BackfillError
from backfill.experiments._node_specs import node_identity
from backfill.experiments.results import COUNT_COLUMNS, DROPPED_COLUMN, METRIC_COLUMNS, REJECTIONS_COLUMN
from backfill.schedulers.machinery.protocol import Scheduler

__all__ = [
    "CACHE_FORMAT",
    "DAMAGED",
    "FOUND",
    "MISSING",
    "OUTDATED",
    "CellStore",
    "canonical_json",
    "content_key",
    "file_digest",
    "library_version",
    "machine_key",
]

# -- keys and the store --------------------------------------------------------------------------

#: Bumped when the layout of a cell file or the meaning of its metrics changes, so old files are
#: computed again rather than misread. Format 2 added the key and the checksums; format 3 the
#: schedule's ``path`` (which code made it), so that a cached row says it as a computed one does;
#: format 4 the ``held_back_<resource>`` columns of runs with resources and Batsim's own job ids
#: in the per-job files; format 5 the per-job files' ``user`` and ``group`` columns, with their
#: provenance on the first row only; format 6 the ``fragmentation`` columns of runs on node machines
#: (:data:`~backfill.measures.nodes.NODE_COLUMNS`) and their per-job files' node ids.
CACHE_FORMAT = 6

#: What :meth:`CellStore.read` found: a sound file, no file, a file of an older format (written
#: by an earlier version, computed again without being counted as damaged), or a damaged one.
FOUND, MISSING, OUTDATED, DAMAGED = "found", "missing", "outdated", "damaged"

# The first line of a per-job file: this mark, then its format, key and checksum as JSON.
_JOBS_MARK = "#backfill-sweep-jobs "
# The statistics over completed jobs: NaN exactly when no job completed.
_STATISTICS = frozenset(METRIC_COLUMNS) - COUNT_COLUMNS - {"utilization", "makespan", "seconds"}
# The schedule's path (Schedule.path) is kept with the metrics: a cached cell has no schedule.
_PATH = "path"
_COLUMNS = frozenset({*METRIC_COLUMNS, REJECTIONS_COLUMN, DROPPED_COLUMN, _PATH})

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


def _callable_name(f: object) -> str:
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', repr(f))}"


def machine_key(scheduler: Scheduler) -> dict[str, Any]:
    """The node machine's part of a cell's key: none for a scheduler of a pool, so pool keys stay.

    A scheduler built with ``nodes`` (a :class:`~backfill.workloads.nodes.Machine`) adds what its
    spec's key adds (:meth:`~backfill.experiments.specs.SchedulerSpec.resource_key`): its node
    groups, its request rule and its placement policy, the callables by module and qualified name
    (so two lambdas would share one: give a sweep's rules and policies names). A node run is never
    served a pool run's cell, nor one of other nodes or another placement.

    Examples:
        >>> from backfill import EASY, Machine, best_fit
        >>> machine_key(EASY())
        {}
        >>> machine_key(EASY(nodes=Machine.parse("16x4"), placement=best_fit))["placement"]
        'best_fit'
    """
    nodes = getattr(scheduler, "nodes", None)
    if nodes is None:
        return {}
    return node_identity(nodes, scheduler.placement)  # type: ignore[attr-defined]


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


def _checksum(key: str, cell: Any, metrics: Any) -> str:
    return content_key({"key": key, "cell": cell, "metrics": metrics})


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _metrics_problem(metrics: Mapping[str, Any], measures: Collection[str] = ()) -> str | None:
    """What is wrong with a cell's metrics as read back, or None: columns, types and ranges.

    ``measures`` are the extra columns the cell was asked for: floats, each NaN (no job to cover)
    or finite and at least 0.
    """
    if set(metrics) != _COLUMNS | set(measures):
        return "not the columns of a result row"
    for column in measures:
        value = metrics[column]
        if not (isinstance(value, float) and (math.isnan(value) or (math.isfinite(value) and value >= 0))):
            return f"{column} is {value!r}"
    if not all(_is_count(metrics[c]) for c in COUNT_COLUMNS):
        return "a count that is not a non-negative integer"
    if not all(isinstance(metrics[c], str) for c in (REJECTIONS_COLUMN, DROPPED_COLUMN)):
        return "reasons that are not text"
    if metrics[_PATH] not in ("compiled", "python"):
        return f"path is {metrics[_PATH]!r}"
    for column in _COLUMNS - COUNT_COLUMNS - {REJECTIONS_COLUMN, DROPPED_COLUMN, _PATH}:
        value = metrics[column]
        if not isinstance(value, float):  # bool and int are not what the writer writes
            return f"{column} is not a float"
        # The statistics of completed jobs are NaN when none completed, and only then.
        nan_expected = column in _STATISTICS and metrics["jobs"] == 0
        sound = math.isnan(value) if nan_expected else math.isfinite(value) and value >= 0
        if not sound:
            return f"{column} is {value!r}"
    return None


class CellStore:
    """A directory of cell files, one ``<key>.json`` per computed cell, verified when read.

    Each file holds the cell's key, its description (the object the key is the digest of), its
    metrics and the SHA-256 of the three; a per-job file (``<key>.jobs.csv.gz``) starts with its
    key and the SHA-256 of its CSV text. Files are written atomically.

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

    def check_writable(self) -> None:
        """Refuse a directory where no file can be created, before anything is computed for it.

        Raises:
            BackfillError: Creating a file there failed; the message names the directory.
        """
        try:
            fd, probe = tempfile.mkstemp(dir=self.directory, prefix=".probe-", suffix=".tmp")
        except OSError as e:
            raise BackfillError(
                f"cannot write in the sweep cache {str(self.directory)!r}: {e.strerror or e}"
            ) from None
        os.close(fd)
        os.unlink(probe)

    def path(self, key: str) -> Path:
        """Return the file of the cell with content key ``key``."""
        return self.directory / f"{key}.json"

    def read(self, key: str) -> tuple[dict[str, Any] | None, str]:
        """Return the metrics stored under ``key`` and :data:`FOUND`, or None and why not.

        The reason is :data:`MISSING` (no file), :data:`OUTDATED` (a file of another
        :data:`CACHE_FORMAT`) or :data:`DAMAGED`: not JSON, a checksum that does not match, the file
        of another key, or a metric of the wrong type or range.
        """
        try:
            text = self.path(key).read_bytes()
        except FileNotFoundError:
            return None, MISSING
        except OSError:
            return None, DAMAGED
        try:
            data = json.loads(text)
        except ValueError:
            return None, DAMAGED
        if not isinstance(data, dict):
            return None, DAMAGED
        if data.get("format") != CACHE_FORMAT:
            return None, OUTDATED if isinstance(data.get("format"), int) else DAMAGED
        cell, metrics = data.get("cell"), data.get("metrics")
        if (
            data.get("key") != key
            or data.get("sha256") != _checksum(key, cell, metrics)
            or not isinstance(metrics, dict)
        ):
            return None, DAMAGED
        return metrics, FOUND

    def read_result(self, key: str, measures: Collection[str] = ()) -> tuple[dict[str, Any] | None, str]:
        """As :meth:`read`, and the metrics must also be a result row's, each in its range.

        ``measures`` names the extra columns the row must hold besides the standard ones.
        """
        metrics, status = self.read(key)
        if metrics is not None and _metrics_problem(metrics, measures) is not None:
            return None, DAMAGED
        return metrics, status

    def load(self, key: str) -> dict[str, Any] | None:
        """Return the metrics stored under ``key``, or None if there are none (or they are unusable)."""
        return self.read(key)[0]

    def save(self, key: str, cell: Any, metrics: dict[str, Any]) -> None:
        """Write a cell's description and metrics under ``key``, atomically, with its checksum.

        Raises:
            OSError: The file could not be written (it names the file); the cache is as it was.
        """
        data = {
            "format": CACHE_FORMAT,
            "key": key,
            "sha256": _checksum(key, cell, metrics),
            "cell": cell,
            "metrics": metrics,
        }
        write_atomically(self.path(key), json.dumps(data, indent=1))

    def jobs_path(self, key: str) -> Path:
        """Return the file of the per-job results of the cell with content key ``key``."""
        return self.directory / f"{key}.jobs.csv.gz"

    def save_jobs(self, key: str, text: str) -> None:
        """Write a cell's per-job CSV text under ``key``, gzipped, atomically, with its checksum."""
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        mark = _JOBS_MARK + canonical_json({"format": CACHE_FORMAT, "key": key, "sha256": digest})
        write_atomically(self.jobs_path(key), gzip.compress(f"{mark}\n{text}".encode(), mtime=0))

    def read_jobs(self, key: str, rows: int | None = None) -> tuple[str | None, str]:
        """Return the per-job CSV text stored under ``key`` and :data:`FOUND`, or None and why not.

        With ``rows``, a text of another number of rows is :data:`DAMAGED` too: a short file would
        silently lose jobs.
        """
        try:
            raw = gzip.decompress(self.jobs_path(key).read_bytes())
        except FileNotFoundError:
            return None, MISSING
        except (OSError, EOFError, zlib.error):
            return None, DAMAGED
        try:
            mark, text = raw.decode("utf-8").split("\n", 1)
            found = json.loads(mark.removeprefix(_JOBS_MARK)) if mark.startswith(_JOBS_MARK) else None
        except ValueError:
            return None, DAMAGED
        if not isinstance(found, dict):
            return None, OUTDATED if not raw.startswith(b"#") else DAMAGED
        if found.get("format") != CACHE_FORMAT:
            return None, OUTDATED if isinstance(found.get("format"), int) else DAMAGED
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if found.get("key") != key or found.get("sha256") != digest:
            return None, DAMAGED
        if rows is not None and sum(1 for _ in csv.reader(io.StringIO(text))) != rows + 1:
            return None, DAMAGED
        return text, FOUND

    def load_jobs(self, key: str) -> str | None:
        """Return the per-job CSV text stored under ``key``, or None if there is none (or it is unusable)."""
        return self.read_jobs(key)[0]
