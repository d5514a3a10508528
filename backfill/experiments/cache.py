"""The on-disk cache of :func:`~backfill.experiments.sweep.run_sweep`: content keys and the cell store.

A cell's content key is the SHA-256 of a canonical JSON text of what its result depends on (the
identities of its workload and scheduler specs, its priority, load, estimates and bound, and the
library's version); its file in the cache directory, ``<key>.json``, holds that object and the cell's
metrics (:class:`CellStore`).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from backfill._version import library_version
from backfill.errors import BackfillError

__all__ = ["CACHE_FORMAT", "CellStore", "canonical_json", "content_key", "file_digest", "library_version"]

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
        self._write(self.path(key), text.encode("utf-8"), key)

    def jobs_path(self, key: str) -> Path:
        """Return the file of the per-job results of the cell with content key ``key``."""
        return self.directory / f"{key}.jobs.csv.gz"

    def save_jobs(self, key: str, text: str) -> None:
        """Write a cell's per-job CSV text under ``key``, gzipped, atomically."""
        self._write(self.jobs_path(key), gzip.compress(text.encode("utf-8"), mtime=0), key)

    def load_jobs(self, key: str) -> str | None:
        """Return the per-job CSV text stored under ``key``, or None if there is none (or it is unusable)."""
        try:
            return gzip.decompress(self.jobs_path(key).read_bytes()).decode("utf-8")
        except (OSError, ValueError, EOFError):
            return None

    def _write(self, target: Path, data: bytes, key: str) -> None:
        # Written beside the target and renamed over it, so a reader (or a resumed sweep after a
        # crash) sees either no file or a whole one.
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
