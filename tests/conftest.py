"""Test configuration: the suites, hypothesis profiles and the shared-traces location.

The default run (``python -m pytest``) leaves out three marked suites, which CI runs
(``pyproject.toml`` registers the markers, ``docs/testing.md`` lists the commands):

* ``slow``: long suites (full traces, large fuzzing);
* ``long``: the default suite's slower checks (differential runs of the compiled kernel, whole
  example scripts, subprocess round trips), run by ``python -m pytest -m long``;
* ``integration``: the optional integrations (a local Dask cluster, DataFrames, figures, evalys,
  the docs hooks under mkdocs), whose packages the lean ``test`` extra leaves out; run by
  ``pip install -e ".[integration]" && python -m pytest -m integration``.

A test is in the integration suite when its module says ``pytestmark = pytest.mark.integration``,
when it is marked so, when it or a fixture of its module asks for one of those packages with
``pytest.importorskip``, or, for a doctest, when it imports one or documents a function that returns
a figure or a DataFrame: the rules below mark it, so a new test that needs one of them is left out
of the lean run by itself instead of skipping there (tests/test_doc_pages.py marks the docs pages).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test, settings

# Hypothesis profiles, chosen with HYPOTHESIS_PROFILE:
# - `full` (CI's): every property tries the examples its test sets, or hypothesis's 100;
# - `quick`, the default run's: as full, then each property collected outside the slow suites
#   tries a quarter of that (QUICK_SHARE; `_quicken` below);
# - `thorough`: as full, and a property without an example count of its own tries 2,000.
# Each derives from hypothesis's `default` profile, not from whatever hypothesis loaded at import:
# with a CI variable set it loads its `ci` profile (derandomized), under which `_quicken` would keep
# every count, so CI would run another suite than the README's command does elsewhere. No deadline:
# speed is measured by the benchmarks, and a loaded machine must not fail a property.
_PLAIN = settings.get_profile("default")
settings.register_profile("full", _PLAIN, deadline=None)
settings.register_profile("quick", _PLAIN, deadline=None)
settings.register_profile("thorough", _PLAIN, max_examples=2000, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "quick")
#: The share of a property's own example count that the quick profile tries, and the fewest it tries.
QUICK_SHARE, QUICK_LEAST = 0.25, 10

# tests/test_suites.py runs this file's rules on small suites of its own.
pytest_plugins = ["pytester"]

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"

#: The packages of the integration suite: ``pytest.importorskip`` of one marks a test ``integration``.
INTEGRATION_PACKAGES = (
    "pandas",
    "matplotlib",
    "dask",
    "distributed",
    "evalys",
    "mkdocs",
    "seaborn",
    "simpy",
    "accasim",
)
_ASKS_FOR = re.compile(r"importorskip\(\s*[\"'](" + "|".join(INTEGRATION_PACKAGES) + r")\b")
_MODULE_MARK = re.compile(r"^pytestmark = .*\bpytest\.mark\.integration\b", re.MULTILINE)
#: Dask's default dashboard port, which a cluster started without ``dashboard_address`` binds.
DASK_DASHBOARD_PORT = 8787


def pytest_configure(config: pytest.Config) -> None:
    """Load the hypothesis profile (before the test modules make their settings from it)."""
    if PROFILE not in ("quick", "full", "thorough"):
        raise pytest.UsageError(
            f"HYPOTHESIS_PROFILE={PROFILE!r}: this suite's profiles are quick, full and thorough"
        )
    settings.load_profile(PROFILE)


@pytest.fixture(scope="session")
def traces() -> Path:
    """The folder of Parallel Workloads Archive traces, or skip if this checkout has none beside it."""
    if not TRACES.is_dir():
        pytest.skip(f"no trace folder at {TRACES} (expected ../shared/traces beside the project)")
    return TRACES


@pytest.fixture
def dask_dashboard_port_taken() -> Iterator[None]:
    """Hold Dask's default dashboard port during the test, as another cluster on the machine may.

    A `LocalCluster` that binds the default port fails to start then: it moves to another port with
    a `UserWarning`, an error under this suite's warning filter (and it leaks a socket, reported in a
    later test). Holding the port makes that failure certain instead of depending on what else runs.
    """
    with socket.socket() as held:
        try:
            held.bind(("127.0.0.1", DASK_DASHBOARD_PORT))
            held.listen()
        except OSError:
            pass  # already held by another process: the condition this fixture makes
        yield


@functools.cache
def _source(function: object) -> str:
    try:
        return inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def _asks_for_an_integration_package(item: pytest.Function) -> bool:
    """Whether the test, or a fixture defined in its module, importorskips an integration package."""
    if _ASKS_FOR.search(_source(item.function)):
        return True
    module_source = _source(item.module) if item.module is not None else ""
    for name in item.fixturenames:
        fixture = re.search(
            rf"^@pytest\.fixture[^\n]*\ndef {re.escape(name)}\(.*?(?=^\S)", module_source, re.M | re.S
        )
        if fixture and _ASKS_FOR.search(fixture.group()):
            return True
    return False


#: What a library function returns when it needs matplotlib or pandas to make it.
_MADE_WITH_AN_INTEGRATION_PACKAGE = re.compile(r"\b(Figure|Axes|DataFrame)\b")
_IMPORTS = re.compile(r"^\s*>>> (?:import|from) (" + "|".join(INTEGRATION_PACKAGES) + r")\b", re.MULTILINE)


def _doctest_needs_an_integration_package(item: pytest.Item) -> bool:
    """Whether a docstring's examples import an integration package, or document a figure or frame."""
    test = getattr(item, "dtest", None)
    if test is None:
        return False
    if any(_IMPORTS.search(">>> " + example.source) for example in test.examples):
        return True
    documented = test.globs.get(test.name.rpartition(".")[2])
    returns = str(getattr(documented, "__annotations__", {}).get("return", ""))
    return bool(_MADE_WITH_AN_INTEGRATION_PACKAGE.search(returns))


def _quicken(test: object) -> None:
    """Let a property of the quick profile try QUICK_SHARE of the examples its test sets.

    A derandomized property keeps its count: its examples are a fixed sequence a check may rely on.
    Hypothesis keeps a test's own settings on the attribute read below; should it move them, the
    properties simply run in full.
    """
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if not isinstance(own, settings) or own.derandomize or own.max_examples <= QUICK_LEAST:
        return
    share = max(QUICK_LEAST, math.ceil(own.max_examples * QUICK_SHARE))
    test._hypothesis_internal_use_settings = settings(own, max_examples=share)  # type: ignore[attr-defined]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``integration`` the tests that need one of its packages (before ``-m`` deselects).

    Under the quick profile, also shorten each property (``_quicken``).
    """
    # The parameters of one test share its function: shortened once. A slow suite's count is its
    # promise (the reliability suite's 10,000 workloads): kept under every profile.
    properties = {
        id(f): f
        for item in items
        if is_hypothesis_test(f := getattr(item, "function", None))
        and item.get_closest_marker("slow") is None
    }
    if PROFILE == "quick":
        for function in properties.values():
            _quicken(function)
    for item in items:
        if (isinstance(item, pytest.Function) and _asks_for_an_integration_package(item)) or (
            _doctest_needs_an_integration_package(item)
        ):
            item.add_marker(pytest.mark.integration)


def _selects_integration(config: pytest.Config) -> bool:
    """Whether this run's ``-m`` expression can select a test marked only ``integration``."""
    expression = config.getoption("markexpr", "")
    if not expression:
        return True
    from _pytest.mark.expression import Expression

    try:
        return Expression.compile(expression).evaluate(lambda name, **_: name == "integration")
    except SyntaxError:
        return True  # collected, so that pytest reports the bad expression in its own words


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out a module marked ``integration`` as a whole when the run deselects that suite.

    Such a module may import (or importorskip) its package at the top, which would fail, or skip it
    whole, in the lean environment; not importing it at all is the deselection it would get.
    """
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if _MODULE_MARK.search(collection_path.read_text(encoding="utf-8")) and not _selects_integration(config):
        return True
    return None
