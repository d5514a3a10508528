"""The package's layers: imports run one way, no private name crosses a module, modules stay short."""

from __future__ import annotations

import ast
import functools
import importlib
import sys
from pathlib import Path

import pytest

from backfill._layers import LAYERS  # the table, shared with the architecture page's generator
from backfill._moved import MOVED

ROOT = Path(__file__).resolve().parents[1] / "backfill"

MAX_LINES = 600
#: The kernel's private modules that one caller outside its package imports: the simulator runs a
#: configuration whole in the kernel where it can, and the fair start times fork such runs.
KERNEL_CALLERS: dict[str, tuple[str, ...]] = {
    "backfill.kernel._runs": ("backfill.simulator",),
    "backfill.kernel._forks": ("backfill.experiments.fair_start",),
}
#: Body lines (without the docstring) a function may have: a longer one reads as named steps.
MAX_FUNCTION_LINES = 80
#: The compiled kernel's parts (as in ``LAYERS``), whose functions mirror the Cython runs they dispatch.
KERNEL_PARTS = frozenset({"kernel"})
#: Functions allowed past ``MAX_FUNCTION_LINES``, by module name (its last part) and qualified name,
#: each with the reason: hot paths, where a split costs a call per job per event.
LONG_FUNCTIONS: dict[str, str] = {
    "_easy_depth.DeepReservations._pass": (
        "EASY's pass over the queue at every event, the Python path's hot loop; one body keeps its "
        "locals and shadow-time reasoning (proved in its docstring) in one place"
    ),
    "_long_queues.LongQueueConservative._compress_long_queue": (
        "Conservative's compression pass on long queues, run at every early completion; its shortcuts "
        "(proved in its docstring) share the loop's state"
    ),
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


def _function_lengths() -> dict[str, int]:
    """Body lines (docstring left out) of every function outside the kernel, by ``module.qualname``."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, module: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, module, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                body = child.body
                if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                    body = body[1:]  # the docstring
                if body:
                    last = body[-1].end_lineno or body[-1].lineno
                    lengths[f"{module}.{prefix}{child.name}"] = last - body[0].lineno + 1
                visit(child, module, f"{prefix}{child.name}.")

    for module, tree in _sources().items():
        if _part(module) not in KERNEL_PARTS:
            visit(tree, module.rsplit(".", 1)[-1], "")
    return lengths


def test_functions_read_as_named_steps() -> None:
    lengths = _function_lengths()
    long = {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES and name not in LONG_FUNCTIONS}
    assert not long, (
        f"functions of more than {MAX_FUNCTION_LINES} body lines (split into named steps): {long}"
    )
    # An exemption names a long function still there: one split or renamed leaves the list.
    stale = [name for name in LONG_FUNCTIONS if lengths.get(name, 0) <= MAX_FUNCTION_LINES]
    assert not stale, f"LONG_FUNCTIONS names functions no longer long: {stale}"


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
