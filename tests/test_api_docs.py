"""Every public name has a docstring and a place in the documentation site's reference pages."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import backfill

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"


@functools.cache
def _public_modules() -> list[str]:
    names = ["backfill"]
    for info in pkgutil.walk_packages(backfill.__path__, "backfill."):
        parts = info.name.split(".")
        if not any(part.startswith("_") for part in parts):
            names.append(info.name)
    return sorted(names)


@functools.cache
def _rendered_modules() -> set[str]:
    """Modules a reference page renders with a mkdocstrings ``::: module`` directive."""
    found = set()
    for page in REFERENCE.glob("*.md"):
        found |= set(re.findall(r"^::: (\S+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE))
    return found


PUBLIC = {
    (module, name)
    for module in _public_modules()
    for name in getattr(importlib.import_module(module), "__all__", ())
}


def _shown_by(module: str, name: str) -> list[str]:
    """Rendered modules that export the same object as ``module.name`` (there its entry is shown)."""
    obj = getattr(importlib.import_module(module), name)
    return [
        other
        for other in sorted(_rendered_modules())
        if name in getattr(importlib.import_module(other), "__all__", ())
        and getattr(importlib.import_module(other), name) is obj
    ]


def test_every_reference_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(REFERENCE.glob("*.md"))
    assert len(pages) >= 30
    for page in pages:
        assert f"reference/{page.name}" in nav, page.name


def test_rendered_modules_exist_and_export_something() -> None:
    for module in _rendered_modules():
        assert getattr(importlib.import_module(module), "__all__", None), module


@pytest.mark.parametrize(("module", "name"), sorted(PUBLIC))
def test_public_name_is_documented(module: str, name: str) -> None:
    assert _shown_by(module, name), f"{module}.{name}: no reference page renders a module exporting it"
    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        doc = inspect.getdoc(obj) or ""
        assert doc.strip(), f"{module}.{name} has no docstring"
        # One-line summary first (house style).
        assert doc.splitlines()[0].endswith("."), f"{module}.{name}: summary line does not end the sentence"


def test_every_public_name_of_the_package_is_counted() -> None:
    # The parametrised test above covers the re-exported API, not just the modules' own lists.
    assert {("backfill", name) for name in backfill.__all__} <= PUBLIC
    assert len(PUBLIC) > 150
