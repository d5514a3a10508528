"""The package's layers: imports run one way, no private name crosses a module, modules stay short."""

from __future__ import annotations

import ast
import functools
import importlib
import sys
from pathlib import Path

import pytest

from backfill._moved import MOVED

ROOT = Path(__file__).resolve().parents[1] / "backfill"

#: Each part of the package and its layer: a module may import only from its own layer or lower ones.
LAYERS: dict[str, int] = {
    "errors": 0,
    "_validators": 0,
    "_moved": 0,
    "_version": 0,
    "_files": 0,
    "workloads": 1,
    "profile": 2,
    "kernel": 2,
    "schedulers": 3,
    "schedule": 4,
    "simulator": 4,
    "partitions": 4,
    # The kernel's whole-run dispatch and forks choose between the built-in schedulers and the
    # simulator's own loop, so they sit above them, in the kernel's package but not its layer.
    "kernel._runs": 4,
    "kernel._forks": 4,
    "measures": 5,
    "testing": 5,
    "experiments": 6,
    "cli": 7,
    "__init__": 8,
    "__main__": 8,
}
MAX_LINES = 600
#: The kernel's private modules that one caller outside its package imports: the simulator runs a
#: configuration whole in the kernel where it can, and the fair start times fork such runs.
KERNEL_CALLERS: dict[str, tuple[str, ...]] = {
    "backfill.kernel._runs": ("backfill.simulator",),
    "backfill.kernel._forks": ("backfill.experiments.fair_start",),
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _sources() -> dict[str, ast.Module]:
    return {_module(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))}


def _part(module: str) -> str:
    """The part of ``backfill.x.y`` with a layer of its own (``x.y`` if listed, else ``x``), or
    ``__init__`` for the package itself."""
    parts = module.split(".")
    if len(parts) > 2 and ".".join(parts[1:3]) in LAYERS:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(tree: ast.Module) -> list[tuple[str, list[str], int]]:
    """(module imported, names imported from it, line) of every import of the package."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("backfill"):
            out.append((node.module, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("backfill")]
    return out


def test_every_part_has_a_layer() -> None:
    assert {_part(m) for m in _sources()} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(_sources()))
def test_imports_run_down_the_layers(module: str) -> None:
    mine = LAYERS[_part(module)]
    for imported, _, line in _imports(_sources()[module]):
        theirs = LAYERS[_part(imported)] if imported != "backfill" else LAYERS["__init__"]
        assert theirs <= mine, f"{module}:{line} imports {imported}, a layer above it"


def test_schedulers_import_neither_measures_nor_schedules() -> None:
    for module, tree in _sources().items():
        if module.startswith("backfill.schedulers"):
            for imported, _, line in _imports(tree):
                assert not imported.startswith(
                    ("backfill.measures", "backfill.schedule")
                ) or imported.startswith("backfill.schedulers"), f"{module}:{line} imports {imported}"


@pytest.mark.parametrize("module", sorted(_sources()))
def test_no_private_name_crosses_a_module(module: str) -> None:
    for imported, names, line in _imports(_sources()[module]):
        private = [n for n in names if n.startswith("_")]
        assert not private, f"{module}:{line} imports {private} from {imported}"
        # A private module is its package's own: only modules of that package import it (and the
        # callers KERNEL_CALLERS names, of the kernel's whole runs and forks).
        if module in KERNEL_CALLERS.get(imported, ()):
            continue
        parts = imported.split(".")
        for i, part in enumerate(parts):
            if part.startswith("_"):
                owner = ".".join(parts[:i])
                assert module == owner or module.startswith(owner + "."), (
                    f"{module}:{line} imports {imported}"
                )


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_short(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name}: {lines} lines"


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_module_paths_still_import_and_say_where_they_went(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__spec__ is not None and module.__spec__.name == new  # the module keeps its own spec


def test_names_from_old_paths_are_the_same_objects() -> None:
    sys.modules.pop("backfill.metrics", None)
    with pytest.warns(DeprecationWarning):
        from backfill.metrics import summarize  # type: ignore[import-not-found,unused-ignore]
    from backfill.measures.metrics import summarize as moved

    assert summarize is moved
