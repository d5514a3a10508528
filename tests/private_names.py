"""What a scheduler written outside the library may not use: the package's private names.

Shared by the tests of the code written as a user would (``tests/shadow_easy.py``, ``examples/los.py``).
"""

from __future__ import annotations

import ast


def private_names(source: str) -> list[str]:
    """Names starting with an underscore that a module imports or reads as attributes (dunders aside).

    >>> private_names("from backfill.schedulers._replan import x\\nfrom backfill import _y\\nf = self._free")
    ['_free', '_y', 'backfill.schedulers._replan']
    >>> private_names("import backfill\\nbackfill.EASY().__class__")
    []
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            found += [node.module or ""] + [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.Attribute):
            found.append(node.attr)
    return sorted(
        {n for n in found for part in n.split(".") if part.startswith("_") and not part.endswith("__")}
    )
