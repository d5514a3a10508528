"""Instruction counts of one simulation under callgrind, shared by the benchmarks that compare two
versions of the library (``bench_door_checks.py``, ``bench_easy_paths.py``).

Each count is one child process under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0`` and the
garbage collector off (when it runs depends on every allocation since the start, which moves a count
by more than the changes these benchmarks measure), started in an empty temporary directory so that
it imports the version its interpreter's environment holds, not the checkout the script lives in.
It builds the first jobs of a trace from a plain array file (both versions read the same one) and,
in mode ``run``, simulates them (reservations recorded) under a scheduler given as an expression over
``backfill``'s names (``EASY()``, ``EASY(depth=4)``); mode ``setup`` only builds the workload, and
its count is what a caller subtracts.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

# A counted run: build the prefix's workload from the arrays, and simulate it if asked.
_COUNTED = r"""
import gc, sys
gc.disable()
import numpy as np
import backfill
from backfill import Job, Workload, simulate
data = np.load(sys.argv[1])
columns = [data[k].tolist() for k in ("id", "submit", "processors", "runtime", "estimate")]
jobs = [Job(id=i, submit=s, processors=p, runtime=r, estimate=e) for i, s, p, r, e in zip(*columns)]
w = Workload.from_jobs(jobs, int(data["size"]))
scheduler = eval(sys.argv[2], vars(backfill))
if sys.argv[3] == "run":
    simulate(w, scheduler)
"""


def write_prefix(trace: Path, n: int, path: Path) -> None:
    """Write the first ``n`` jobs of the trace (as read with the default cleaning) as arrays."""
    import numpy as np

    from backfill import read_swf

    w, _ = read_swf(trace)
    r = w.records[:n]
    np.savez(
        path,
        id=r["id"],
        submit=r["submit"],
        processors=r["processors"],
        runtime=r["runtime"],
        estimate=r["estimate"],
        size=np.array(w.machine_size),
    )


def instructions(python: str, prefix: Path, config: str, mode: str, cwd: str) -> int:
    """Instructions callgrind counts in one process: ``python`` builds ``prefix`` and, in mode
    ``run``, simulates it under the scheduler expression ``config``."""
    out = Path(cwd) / f"callgrind.{abs(hash((python, config, mode)))}.out"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, "-c", _COUNTED]
    result = subprocess.run(
        [*command, str(prefix), config, mode],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=True,
    )
    out.unlink(missing_ok=True)
    match = re.search(r"Collected\s*:\s*(\d+)", result.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in callgrind's output:\n{result.stderr}")
    return int(match.group(1))
