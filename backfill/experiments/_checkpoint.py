"""Checkpoints of Fair Start Times: finished rows saved to a file as they come, so a long run resumes.

Private to :mod:`backfill.experiments.fair_start`. FSTs of a large trace under PC cost hours of forks; a
checkpoint keeps what an interrupted run (a closed laptop, a killed batch job) already paid for.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from backfill._files import open_atomically
from backfill.errors import BackfillError
from backfill.workloads.workload import Workload

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Seconds between two writes of the file: often enough to lose little, rarely enough to cost nothing.
_SAVE_EVERY = 60.0


def fingerprint(workload: Workload, scheduler: str, strict: bool, relaxed: bool, overrun: str) -> str:
    """A digest of everything the FSTs depend on, so that a checkpoint is never resumed by another run."""
    digest = hashlib.sha256(workload.records.tobytes())
    digest.update(f"{workload.machine_size}|{scheduler}|{strict}|{relaxed}|{overrun}".encode())
    return digest.hexdigest()


def _digest(key: str, strict: FloatArray, relaxed: FloatArray, done: BoolArray) -> str:
    """A SHA-256 of a checkpoint's content, so that a file changed after it was written is never resumed."""
    digest = hashlib.sha256(key.encode())
    for array in (strict, relaxed, done):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


@attrs.define(eq=False)
class Checkpoint:
    """Rows done so far and their FSTs, mirrored in ``path`` (an ``.npz``) at most every ``_SAVE_EVERY`` s."""

    path: Path
    key: str
    strict: FloatArray
    relaxed: FloatArray
    done: BoolArray
    _saved_at: float = attrs.field(factory=time.monotonic)

    @classmethod
    def open(cls, path: str | os.PathLike[str], n: int, key: str) -> Checkpoint:
        """Load the checkpoint at ``path``, or start an empty one if there is no file.

        Raises:
            BackfillError: If the file is not a checkpoint, holds another run's rows, or was changed
                after it was written (its checksum does not match its content).
        """
        path = Path(path)
        if not path.exists():
            return cls(path, key, np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=bool))
        try:
            with np.load(path, allow_pickle=False) as data:
                found = str(data["key"])
                digest = str(data["digest"]) if "digest" in data else None
                strict, relaxed, done = data["strict"], data["relaxed"], data["done"]
        except (OSError, ValueError, KeyError, EOFError) as e:
            raise BackfillError(f"{path}: not a fair-start-times checkpoint ({e})") from e
        if found != key or len(done) != n:
            raise BackfillError(
                f"{path} holds fair start times of another workload, scheduler or kind; "
                "give another checkpoint path or delete the file"
            )
        shapes = all(a.shape == (n,) for a in (strict, relaxed, done))
        kinds = strict.dtype == np.float64 and relaxed.dtype == np.float64 and done.dtype == np.bool_
        if not (shapes and kinds) or digest != _digest(found, strict, relaxed, done):
            raise BackfillError(
                f"{path} is damaged: its content does not match the checksum written with it; "
                "delete the file to compute the fair start times again"
            )
        return cls(path, key, strict.copy(), relaxed.copy(), done.copy())

    def first_missing(self) -> int:
        """The first row not done (the number of rows if all are)."""
        missing = np.flatnonzero(~self.done)
        return int(missing[0]) if missing.size else len(self.done)

    def record(self, lo: int, strict: FloatArray, relaxed: FloatArray, count: int) -> None:
        """Take the first ``count`` rows of results that start at row ``lo``."""
        hi = lo + count
        self.strict[lo:hi] = strict[:count]
        self.relaxed[lo:hi] = relaxed[:count]
        self.done[lo:hi] = True

    def due(self) -> bool:
        """Whether the file is older than ``_SAVE_EVERY`` seconds."""
        return time.monotonic() - self._saved_at >= _SAVE_EVERY

    def save(self) -> None:
        """Write the file with a checksum of its content; a crash while writing leaves the old one whole."""
        arrays: dict[str, Any] = {
            "key": np.array(self.key),
            "digest": np.array(_digest(self.key, self.strict, self.relaxed, self.done)),
            "strict": self.strict,
            "relaxed": self.relaxed,
            "done": self.done,
        }
        try:
            with open_atomically(self.path, "wb") as f:
                np.savez(f, **arrays)
        except OSError as e:
            raise BackfillError(f"{self.path}: cannot write the checkpoint ({e})") from e
        self._saved_at = time.monotonic()
