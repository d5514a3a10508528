"""Build the optional compiled kernel; everything else is configured in pyproject.toml.

The kernel, in ``backfill/kernel/`` (``_loops.pyx``, the compression loops and the module the
library loads; ``_steps.pyx``, the profile steps they use; ``_wholerun.pyx``, the whole runs of the
built-in configurations it implements, with the queue and guarantee runs it includes from
``_queue_runs.pxi`` and ``_guarantee_runs.pxi``), is optional: where no C compiler is present, or
``BACKFILL_PURE_PYTHON=1`` is set, the build goes on without it and the library runs its pure-Python
reference path, which gives identical schedules.
"""

import os

from setuptools import Extension, setup

ext_modules = []
if os.environ.get("BACKFILL_PURE_PYTHON", "") in ("", "0"):
    from Cython.Build import cythonize

    ext_modules = cythonize(
        [
            Extension("backfill.kernel._steps", ["backfill/kernel/_steps.pyx"]),
            Extension("backfill.kernel._wholerun", ["backfill/kernel/_wholerun.pyx"]),
            Extension("backfill.kernel._loops", ["backfill/kernel/_loops.pyx"]),
        ],
        compiler_directives={"language_level": "3"},
    )
    # cythonize builds new Extension objects without the flag: set it on what it returns, so that a
    # failed compilation is a warning and the build goes on without the kernel.
    for extension in ext_modules:
        extension.optional = True

setup(ext_modules=ext_modules)
