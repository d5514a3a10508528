"""When the library's import began: the start of a command run as ``backfill ...``.

Private. ``backfill/__init__.py`` imports this module before anything else, so that
:data:`IMPORTED` is taken before numpy and the library load. The command line counts its whole
time from here rather than from the process's start, which a shell that runs the command by ``exec``
after other work (``bash -c 'pip install . && backfill simulate'``) would date to before that work.
"""

import time

#: :func:`time.perf_counter` when ``import backfill`` began.
IMPORTED = time.perf_counter()
