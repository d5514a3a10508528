"""Old module paths: ``backfill.metrics`` and the like still import, with a warning naming the new one.

The modules moved into the layer subpackages (``workloads``, ``schedulers``, ``measures``,
``experiments``), and the schedulers' shared machinery and planning into ``schedulers.machinery`` and
``schedulers.prediction``; code that imports an old path gets the same module object under the new name and a
:class:`DeprecationWarning` saying where it went. Names imported from ``backfill`` itself never moved.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

#: Old module path -> the module it is now.
MOVED: dict[str, str] = {
    "backfill.cleaning": "backfill.workloads.cleaning",
    "backfill.entitlement": "backfill.schedulers.machinery.entitlement",
    "backfill.fair_start": "backfill.experiments.fair_start",
    "backfill.fairness": "backfill.measures.fairness",
    "backfill.fairshare": "backfill.measures.fairshare",
    "backfill.groups": "backfill.measures.groups",
    "backfill.lublin": "backfill.workloads.lublin",
    "backfill.metrics": "backfill.measures.metrics",
    "backfill.phases": "backfill.measures.phases",
    "backfill.plots": "backfill.experiments.plots",
    "backfill.priorities": "backfill.schedulers.machinery.priorities",
    "backfill.schedulers.base": "backfill.schedulers.machinery.base",
    "backfill.schedulers.door": "backfill.schedulers.machinery.door",
    "backfill.schedulers.entitlement": "backfill.schedulers.machinery.entitlement",
    "backfill.schedulers.guarantee": "backfill.schedulers.machinery.guarantee",
    "backfill.schedulers.guard": "backfill.schedulers.machinery.guard",
    "backfill.schedulers.priorities": "backfill.schedulers.machinery.priorities",
    "backfill.schedulers.protocol": "backfill.schedulers.machinery.protocol",
    "backfill.schedulers.queue": "backfill.schedulers.machinery.queue",
    "backfill.schedulers.thresholds": "backfill.schedulers.machinery.thresholds",
    "backfill.schedulers.planning": "backfill.schedulers.prediction.planning",
    "backfill.schedulers.predictors": "backfill.schedulers.prediction.predictors",
    "backfill.sweep": "backfill.experiments.sweep",
    "backfill.swf": "backfill.workloads.swf",
    "backfill.usershares": "backfill.measures.usershares",
    "backfill.validation": "backfill.measures.validation",
    "backfill.workload": "backfill.workloads.workload",
}


#: (module, name) -> the module the name moved to, for names that left a module that still exists.
MOVED_NAMES: dict[tuple[str, str], str] = {
    ("backfill.schedulers", "category_thresholds"): "backfill.measures.calibration",
    ("backfill.schedulers", "starvation_threshold"): "backfill.measures.calibration",
    ("backfill.schedulers.selective", "category_thresholds"): "backfill.measures.calibration",
    ("backfill.schedulers.selective", "starvation_threshold"): "backfill.measures.calibration",
}


def moved_name(module: str, name: str) -> object:
    """Return a name that moved out of ``module``, with a warning saying where; AttributeError otherwise.

    A module's ``__getattr__`` calls this, so that ``from backfill.schedulers import
    starvation_threshold`` keeps working. The new home is imported by name only when an old
    import asks, so the layers' import graph keeps no arrow back up.
    """
    new = MOVED_NAMES.get((module, name))
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} moved to {new}; import it from there (or from backfill)",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(new), name)


class _KeepsNames(ModuleType):
    """A package whose own names an old submodule path, imported through the alias, does not replace.

    ``backfill.schedulers.planning`` is the function :func:`~backfill.schedulers.prediction.planning.planning`
    and was the module's old path: importing that path binds the module on the package after loading
    it, which would hide the function. This keeps the function.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and f"{self.__name__}.{name}" in MOVED and name in self.__dict__:
            return
        super().__setattr__(name, value)


def keep_names(package: str) -> None:
    """Let no alias of :data:`MOVED` replace a name the package ``package`` defines (:class:`_KeepsNames`)."""
    sys.modules[package].__class__ = _KeepsNames


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module it moved to, keeping that module's own spec."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there (or the name from backfill)",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        self._specs = getattr(self, "_specs", {})
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just stamped the alias's spec on the module; give it back its own.
        module.__spec__ = self._specs.pop(module.__spec__.name if module.__spec__ else "", module.__spec__)


def install() -> None:
    """Put the finder of old paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
