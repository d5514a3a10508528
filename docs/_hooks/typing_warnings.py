"""MkDocs hook: keep typing's own deprecation warnings out of the build log.

The reference pages are rendered with ``force_inspection`` and ``preload_modules: [typing]`` (a
Protocol's ``__init__`` is typing's placeholder, and griffe needs the module to resolve it), so griffe
walks every member of ``typing``, including the deprecated ``typing.io`` and ``typing.re``
namespaces; each access warns, and MkDocs prints the warning with a traceback. Nothing of the
library is deprecated by them, so only those two warnings are ignored: any other warning still
shows, and fails ``mkdocs build --strict`` where MkDocs counts it.

Enable it in ``mkdocs.yml`` with ``hooks: [docs/_hooks/typing_warnings.py]``.
"""

from __future__ import annotations

import warnings

warnings.filterwarnings("ignore", message=r"typing\.(io|re) is deprecated", category=DeprecationWarning)
