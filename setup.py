"""Build the optional compiled kernel; everything else is configured in pyproject.toml.

The kernel, in ``backfill/kernel/`` (``_loops.pyx``, the compression loops and the module the
library loads; ``_steps.pyx``, the profile steps they use; ``_wholerun.pyx``, the whole runs of the
built-in configurations it implements, with the queue and guarantee runs it includes from
``_queue_runs.pxi`` and ``_guarantee_runs.pxi``), is optional: where no C compiler is present, or
``BACKFILL_PURE_PYTHON=1`` is set, the build goes on without it and the library runs its pure-Python
reference path, which gives identical schedules.

What makes the build quick (docs/performance.md gives the times): Cython's own helpers (typed
memoryviews, function objects), which every module would otherwise carry and the C compiler would
optimise three times over, are generated once, in ``backfill/kernel/_cyutility``; the modules are
translated and compiled side by side, one per core; and they are compiled at ``-O2`` without debug
information, which runs as fast as the interpreter's ``-g -O3``. A ``CFLAGS`` set in the environment
is left to decide the flags.
"""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: Cython's shared helpers: a module of their own, built before the modules that import it.
_SHARED = "backfill.kernel._cyutility"
#: Appended to the interpreter's flags (``-g -O3`` in most builds) on gcc and clang, unless CFLAGS is set.
_FLAGS = ["-O2", "-g0"]


class _BuildKernel(build_ext):
    """Compile the extensions in parallel, one per core, at ``_FLAGS``, with no option to pass."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # `-j N` on the command line still wins
            self.parallel = min(len(self.extensions), os.cpu_count() or 1)

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "unix" and "CFLAGS" not in os.environ:
            for extension in self.extensions:
                extension.extra_compile_args = [*extension.extra_compile_args, *_FLAGS]
        super().build_extensions()


ext_modules = []
if os.environ.get("BACKFILL_PURE_PYTHON", "") in ("", "0"):
    from Cython.Build import cythonize

    ext_modules = cythonize(
        [
            # The largest first, so that the parallel build ends soonest.
            Extension("backfill.kernel._wholerun", ["backfill/kernel/_wholerun.pyx"]),
            Extension(_SHARED, ["backfill/kernel/_cyutility.c"]),
            Extension("backfill.kernel._loops", ["backfill/kernel/_loops.pyx"]),
            Extension("backfill.kernel._steps", ["backfill/kernel/_steps.pyx"]),
        ],
        compiler_directives={"language_level": "3"},
        shared_utility_qualified_name=_SHARED,
        nthreads=min(3, os.cpu_count() or 1),
    )
    # cythonize builds new Extension objects without the flag: set it on what it returns, so that a
    # failed compilation is a warning and the build goes on without the kernel.
    for extension in ext_modules:
        extension.optional = True

setup(ext_modules=ext_modules, cmdclass={"build_ext": _BuildKernel})
