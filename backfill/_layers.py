"""The package's layers, in one place: each part and its layer; a module imports only its layer or lower.

``tests/test_layers.py`` checks every import against this table, and ``docs/_hooks/layout.py`` draws
the rooms of ``docs/architecture.md`` in this order. A new top-level package or module gets its line.
"""

from __future__ import annotations

__all__ = ["LAYERS"]

#: Each part of the package (its first name under ``backfill``) and its layer.
LAYERS: dict[str, int] = {
    "errors": 0,
    "_validators": 0,
    "_moved": 0,
    "_version": 0,
    "_files": 0,
    "_layers": 0,
    "_clock": 0,
    "workloads": 1,
    "profile": 2,
    "kernel": 2,
    "schedulers": 3,
    "schedule": 4,
    "admission": 4,
    "simulator": 4,
    "partitions": 4,
    "measures": 5,
    "hosts": 5,
    "testing": 5,
    "experiments": 6,
    "cli": 7,
    "__init__": 8,
    "__main__": 8,
}
