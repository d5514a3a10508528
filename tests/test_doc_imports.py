"""Every ``backfill`` import path the docs, the README and the examples show still imports.

Read from ``README.md``, ``docs/**/*.md`` (fenced Python blocks, ```python, ```py and ```pycon, and
mkdocstrings ``::: backfill.x`` lines) and ``examples/*.py``: every ``from backfill.x import y``,
``import backfill.x`` and ``::: backfill.x[.Name]``. A module that moved without its alias, or a name
that left a module the docs import it from, fails here with the file and line that show it, so a
layout change sees at once which page still shows the old path. A path the docs show must not warn
either: an old path kept by ``backfill/_moved.py`` belongs in the text that explains it, not in an
example a reader copies.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import textwrap
import warnings
from pathlib import Path

import pytest

import backfill
from backfill._moved import MOVED, MOVED_NAMES

ROOT = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^(\s*)```(python|py|pycon)\b[^\n]*\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
_DIRECTIVE = re.compile(r"^::: (backfill[\w.]*)\s*$", re.MULTILINE)
_FROM = re.compile(r"^\s*(?:>>> |\.\.\. )?from (backfill[\w.]*) import \(?([\w, ]+)")
_IMPORT = re.compile(r"^\s*(?:>>> |\.\.\. )?import (backfill[\w.]*)")


def _from_code(code: str, first_line: int) -> list[tuple[int, str, str]]:
    """(line, module, name or "") of every backfill import in a piece of Python code."""
    prompts = (">>> ", "... ")
    code = "\n".join(ln.lstrip()[4:] if ln.lstrip().startswith(prompts) else ln for ln in code.splitlines())
    out = []
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:  # an excerpt: read it line by line
        for i, line in enumerate(code.splitlines()):
            if m := _FROM.match(line):
                names = [n.split(" as ")[0].strip() for n in m.group(2).split(",")]
                out += [(first_line + i, m.group(1), n) for n in names if n]
            elif m := _IMPORT.match(line):
                out.append((first_line + i, m.group(1), ""))
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "backfill":
            out += [(first_line + node.lineno - 1, node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [
                (first_line + node.lineno - 1, a.name, "")
                for a in node.names
                if a.name.startswith("backfill")
            ]
    return out


@functools.cache
def shown() -> list[tuple[str, str, str]]:
    """(where, module, name) of every backfill import path the docs and examples show."""
    found: list[tuple[str, str, str]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT).as_posix()
        for block in _FENCE.finditer(text):
            line = text.count("\n", 0, block.start(3)) + 1
            found += [(f"{where}:{n}", module, name) for n, module, name in _from_code(block.group(3), line)]
        for directive in _DIRECTIVE.finditer(text):
            found.append((f"{where}:{text.count(chr(10), 0, directive.start()) + 1}", directive.group(1), ""))
    for path in sorted((ROOT / "examples").glob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        found += [(f"{where}:{n}", m, name) for n, m, name in _from_code(path.read_text(encoding="utf-8"), 1)]
    return sorted(set(found))


def _resolve(dotted: str) -> object:
    """The module or object a dotted path names (``backfill.x`` or ``backfill.x.Name``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ModuleNotFoundError(dotted)


def test_the_docs_show_import_paths() -> None:
    modules = {module for _, module, _ in shown()}
    assert len(shown()) > 100
    assert {"backfill", "backfill.experiments.sweep"} <= modules


@pytest.mark.parametrize(("where", "module", "name"), shown(), ids=lambda v: v or "-")
def test_an_import_path_the_docs_show_imports(where: str, module: str, name: str) -> None:
    path = f"{module}.{name}" if name else module
    old = [m for m in MOVED if module == m or module.startswith(m + ".")]
    assert not old and (module, name) not in MOVED_NAMES, (
        f"{where} shows `{path}`, an old path kept by backfill/_moved.py: show the new one"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            if name and name != "*":
                target = importlib.import_module(module)  # from X import: X is a module
                if not hasattr(target, name):
                    importlib.import_module(f"{module}.{name}")  # a submodule: from backfill import kernel
            else:
                _resolve(module)  # import backfill.x, or ::: backfill.x[.Name]
        except (ImportError, AttributeError, DeprecationWarning) as error:
            pytest.fail(
                f"{where} shows `{module}{'.' + name if name else ''}`, which does not import: {error}"
            )


def test_every_public_name_of_the_package_imports() -> None:
    assert len(backfill.__all__) >= 139
    namespace: dict[str, object] = {}
    exec(f"from backfill import {', '.join(backfill.__all__)}", namespace)
    assert all(namespace[name] is getattr(backfill, name) for name in backfill.__all__)
