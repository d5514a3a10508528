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
        """Load the checkpoint at ``path``, or start an empty one if there is no file."""
        path = Path(path)
        if not path.exists():
            return cls(path, key, np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=bool))
        try:
            with np.load(path, allow_pickle=False) as data:
                found = str(data["key"])
                strict, relaxed, done = data["strict"], data["relaxed"], data["done"]
        except (OSError, ValueError, KeyError) as e:
            raise BackfillError(f"{path}: not a fair-start-times checkpoint ({e})") from e
        if found != key or len(done) != n:
            raise BackfillError(
                f"{path} holds fair start times of another workload, scheduler or kind; "
                "give another checkpoint path or delete the file"
            )
        return cls(path, key, strict.astype(np.float64), relaxed.astype(np.float64), done.astype(bool))

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
        """Write the file; a crash while writing leaves the previous one whole."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        arrays: dict[str, Any] = {
            "key": np.array(self.key),
            "strict": self.strict,
            "relaxed": self.relaxed,
            "done": self.done,
        }
        try:
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, self.path)
        except OSError as e:
            raise BackfillError(f"{self.path}: cannot write the checkpoint ({e})") from e
        self._saved_at = time.monotonic()
