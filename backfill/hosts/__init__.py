"""Other people's simulators driving backfill's schedulers (hosts), each an optional extra.

* :mod:`backfill.hosts.accasim`: `AccaSim <https://accasim.readthedocs.io>`_ 1.1.3
  (``pip install '.[accasim]'``) with a backfill scheduler deciding and AccaSim's allocator (or the
  scheduler's own) placing jobs on nodes.

Nothing in the core imports this package; importing it does not import the host simulators, which
are imported when a run needs them.
"""

from __future__ import annotations

from backfill.hosts.accasim import BackfillDispatcher, import_accasim, run_accasim, system_config

__all__ = ["BackfillDispatcher", "import_accasim", "run_accasim", "system_config"]
