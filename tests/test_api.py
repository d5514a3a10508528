"""The public API: sorted, importable, documented, typed."""

from __future__ import annotations

import inspect
from pathlib import Path

import backfill


def test_all_is_sorted_and_complete() -> None:
    assert backfill.__all__ == sorted(backfill.__all__)
    for name in backfill.__all__:
        assert hasattr(backfill, name), name


def test_every_public_name_has_a_docstring_with_a_summary_line() -> None:
    for name in backfill.__all__:
        obj = getattr(backfill, name)
        if isinstance(obj, dict):
            continue  # a table (PRIORITIES): its ``#:`` comment is its documentation
        doc = inspect.getdoc(obj)
        assert doc, f"{name} has no docstring"
        assert doc.splitlines()[0].endswith("."), f"{name}: summary line should be a sentence"


def test_py_typed_is_shipped() -> None:
    assert (Path(backfill.__file__).parent / "py.typed").exists()
