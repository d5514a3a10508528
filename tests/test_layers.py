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
    "_compiled_runs": 4,
    "_compiled_forks": 4,
    "measures": 5,
    "testing": 5,
    "experiments": 6,
    "cli": 7,
    "__init__": 8,
    "__main__": 8,
}
MAX_LINES = 600


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _sources() -> dict[str, ast.Module]:
    return {_module(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))}


def _part(module: str) -> str:
    """The top-level part of ``backfill.x.y`` (``x``), or ``__init__`` for the package itself."""
    parts = module.split(".")
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
        # A private module is its package's own: only modules of that package import it.
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


def test_old_planning_path_leaves_the_planning_function() -> None:
    import backfill.schedulers

    function = backfill.schedulers.planning
    sys.modules.pop("backfill.schedulers.planning", None)
    with pytest.warns(DeprecationWarning):
        importlib.import_module("backfill.schedulers.planning")
    assert backfill.schedulers.planning is function


#: Inside the schedulers: the machinery every scheduler shares imports no algorithm and no planning;
#: the planning with predicted runtimes builds on the machinery only. Either may use the schedulers
#: package's private helpers (``backfill.schedulers._window`` and the like) that themselves keep to it.
_ROOMS = {"backfill.schedulers.machinery": 0, "backfill.schedulers.prediction": 1}


def _keeps_to(module: str, rooms: tuple[str, ...]) -> bool:
    """Whether ``module`` lies in ``rooms``, or is a private helper of the schedulers that imports only
    those."""
    if module.startswith(rooms):
        return True
    if not module.startswith("backfill.schedulers._"):
        return False
    inside = [i for i, _, _ in _imports(_sources()[module]) if i.startswith("backfill.schedulers")]
    return all(_keeps_to(i, rooms) for i in inside)


@pytest.mark.parametrize("room", sorted(_ROOMS))
def test_the_schedulers_machinery_and_planning_import_no_algorithm(room: str) -> None:
    below = tuple(r for r, n in _ROOMS.items() if n <= _ROOMS[room])
    for module, tree in _sources().items():
        if module == room or module.startswith(room + "."):
            for imported, _, line in _imports(tree):
                if imported.startswith("backfill.schedulers"):
                    assert _keeps_to(imported, below), f"{module}:{line} imports {imported}"
