"""Adding a built-in scheduler: every list of schedulers comes from the registry or is checked against it.

:func:`missing` names, one line each, what a registered scheduler still lacks outside its module and
its registry entry: its exports, its reference stub and nav entry, a section of an explanation
page, a row of the README's table and a test naming it. :func:`stale_lists` finds any line of the
docs or the README that lists most of the registered schedulers but not all, and any count of
schedulers or of the invariant suite's configurations written in words or digits (those would go
stale when a scheduler is added). The pages' own list is written by the MkDocs hook
``docs/_hooks/registry.py``.

The last tests register a trivial scheduler, as a built-in would be, and check that the invariant
suite, the other tests' lists of every scheduler, the command line, the sweep specs and the hook pick
it up, and that the checks name exactly the files left to write: those are the files
``docs/architecture.md`` and ``docs/contributing.md`` list.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import test_contract
import test_invariants
import test_simulator

import backfill
import backfill.schedulers
from backfill import Job
from backfill.cli import build_parser
from backfill.cli.options import scheduler_specs
from backfill.experiments.specs import SchedulerSpec
from backfill.schedulers.machinery.queue import QueueScheduler
from backfill.schedulers.registry import SCHEDULERS, Entry

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The pages whose lists and counts of schedulers are checked: every docs page and the README.
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((DOCS / "how-to").glob("*.md"))]
#: A paragraph (or a table row) naming at least this many registered schedulers, in backticks, is a
#: list of them: it must name all of them, or at least all those that take a queue priority.
LIST = 6
_NUMBERS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
#: "all nine schedulers", "70 scheduler configurations": a count a new scheduler may make stale.
COUNT = re.compile(
    rf"\b(?P<n>\d+|{'|'.join(_NUMBERS.split())})\s+(?:built-in\s+|registered\s+)?(?:scheduler\s+)?"
    r"(?P<what>schedulers|configurations)\b(?P<claim>\s+(?:the library|it) (?:implements|ships|has))?",
    re.IGNORECASE,
)


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_doc_registry_hook", DOCS / "_hooks" / "registry.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = _load_hook()


def _text(path: Path) -> str:
    """A page as the site shows it: the registry hook applied."""
    return str(hook.on_page_markdown(path.read_text(encoding="utf-8")))


def _where(path: Path) -> str:
    return str(path.relative_to(ROOT))


def missing(entry: Entry) -> list[str]:
    """What the registered scheduler ``entry`` lacks outside its module and registry entry, one line each."""
    name, module = entry.name, entry.cls.__module__
    out = []
    if name not in backfill.schedulers.__all__:
        out.append(f"backfill/schedulers/__init__.py: import {name} and add it to __all__")
    if name not in backfill.__all__:
        out.append(f"backfill/__init__.py: import {name} and add it to __all__ (sorted)")
    stem = module.removeprefix("backfill.")
    stub = DOCS / "reference" / f"{stem}.md"
    if not stub.is_file() or f"::: {module}" not in stub.read_text(encoding="utf-8"):
        out.append(f"docs/reference/{stem}.md: a reference stub '# {name}' and '::: {module}'")
    if f"reference/{stem}.md" not in (ROOT / "mkdocs.yml").read_text(encoding="utf-8"):
        out.append(f"mkdocs.yml: '{name}: reference/{stem}.md' in the nav's Reference > Schedulers")
    heading = re.compile(rf"^#+ .*\b{re.escape(name)}\b", re.MULTILINE)
    if not any(heading.search(page.read_text(encoding="utf-8")) for page in DOCS.glob("*.md")):
        out.append(f"docs/schedulers.md (or a page of its own): a section whose heading names {name}")
    if f"| `{name}(" not in (ROOT / "README.md").read_text(encoding="utf-8"):
        out.append(f"README.md: a row '| `{name}(...)` | what it does |' in the table of schedulers")
    named = re.compile(rf"\b{re.escape(name)}\b")
    tests = [t for t in (ROOT / "tests").glob("test_*.py") if t.name != Path(__file__).name]
    if not any(named.search(t.read_text(encoding="utf-8")) for t in tests):
        out.append(f"tests/test_{module.rpartition('.')[2]}.py: tests of {name}'s own algorithm")
    return out


def _units(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each paragraph of a page, and of each row of its tables."""
    line = 1
    for block in re.split(r"(\n[ \t]*\n)", text):
        if block.lstrip().startswith("|"):
            yield from ((line + i, row) for i, row in enumerate(block.splitlines()))
        elif block.strip():
            yield line + len(block) - len(block.lstrip("\n")), block
        line += block.count("\n")


def _count(match: re.Match[str]) -> bool:
    """Whether a count of schedulers or configurations is one of the whole registry or invariant suite."""
    n = match["n"].lower()
    number = int(n) if n.isdigit() else _NUMBERS.split().index(n) + 1
    if match["what"].lower() == "configurations":
        return number == len(test_invariants.CONFIGS) or "scheduler" in match.group().lower()
    return number == len(SCHEDULERS) or match["claim"] is not None


def stale_lists() -> list[str]:
    """Paragraphs of the pages that list most registered schedulers but not all, or count them."""
    names = [entry.name for entry in SCHEDULERS]
    with_priority = {entry.name for entry in SCHEDULERS if entry.takes_priority}
    out = []
    for page in PAGES:
        for line, unit in _units(_text(page)):
            listed = [n for n in names if re.search(rf"`{re.escape(n)}\b", unit)]
            if len(listed) >= LIST and len(listed) < len(names) and not with_priority <= set(listed):
                lacking = ", ".join(n for n in names if n not in listed)
                out.append(f"{_where(page)}:{line}: lists {len(listed)} schedulers but not {lacking}")
            for count in filter(_count, COUNT.finditer(unit)):
                at = line + unit.count("\n", 0, count.start())
                said = " ".join(count.group().split())
                out.append(f"{_where(page)}:{at}: '{said}' goes stale when a scheduler is added")
    return out


# -- the built-ins pass the checks ------------------------------------------------------------------


@pytest.mark.parametrize("entry", list(SCHEDULERS), ids=[e.name for e in SCHEDULERS])
def test_every_built_in_has_its_files(entry: Entry) -> None:
    assert missing(entry) == []


def test_no_page_lists_some_schedulers_or_counts_them() -> None:
    assert stale_lists() == []


def test_the_hook_writes_the_registry_into_the_pages() -> None:
    index = _text(DOCS / "index.md")
    assert hook.MARKER not in index
    assert all(f"`{entry.name}`" in index for entry in SCHEDULERS)
    # A page that shows the marker itself, in a code span, keeps it.
    assert f"`{hook.MARKER}`" in _text(DOCS / "architecture.md")


def test_the_checks_catch_a_partial_list_and_a_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Run `FCFS`, `EASY`, `Conservative`,\n`PC`, `DC`, `RelShare`.\n\n"
        "Order `FCFS`, `EASY`, `PC`, `DC`, `Selective` by priority, not `Conservative`.\n\n"
        "| all nine schedulers |\n| the six schedulers the library implements |\n\n"
        "through 70 scheduler\nconfigurations, four schedulers\n"
    )
    monkeypatch.setitem(globals(), "PAGES", [page])
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    found = stale_lists()
    assert found == [
        "page.md:1: lists 6 schedulers but not Selective, LookaheadSlack, SlackBackfill",
        "page.md:6: 'nine schedulers' goes stale when a scheduler is added",
        "page.md:7: 'six schedulers the library implements' goes stale when a scheduler is added",
        "page.md:9: '70 scheduler configurations' goes stale when a scheduler is added",
    ]


# -- a trivial built-in: what picks it up, and what the checks say is left --------------------------


class Trivial(QueueScheduler):
    """Start every queued job that fits, in queue order: no reservations."""

    def schedule(self, now: float) -> list[Job]:
        """Start, in priority order, each waiting job that fits in what is still free."""
        chosen, free = [], self.free
        for item in self.ordered(now):  # (key, arrival seq, job)
            if item[2].processors <= free:
                chosen.append(item)
                free -= item[2].processors
        return self.start(chosen, now)


# As if it were the module a contributor adds, backfill/schedulers/trivial.py.
Trivial.__module__ = "backfill.schedulers.trivial"


@pytest.fixture
def trivial() -> Iterator[Entry]:
    entry = Entry(Trivial)
    SCHEDULERS.register(entry)
    yield entry
    SCHEDULERS.unregister(entry.name)


def test_a_new_built_in_is_in_the_test_lists_the_cli_and_the_pages(trivial: Entry) -> None:
    configs = [c for c in test_invariants.configurations() if isinstance(c.scheduler, Trivial)]
    # Its defaults under every priority, held to feasibility (no promise is written for it).
    assert len(configs) == len(backfill.PRIORITIES)
    assert {c.check for c in configs} == {test_invariants.feasible_only}
    # The other tests' lists of every scheduler.
    for every_scheduler in (test_contract.every_scheduler, test_simulator.every_scheduler):
        assert any(isinstance(s, Trivial) for s in every_scheduler()), every_scheduler.__module__
    args = build_parser().parse_args(["simulate", "--scheduler", "trivial"])
    assert [spec.name for spec in scheduler_specs(args)] == ["Trivial"]
    assert SchedulerSpec("trivial").name == "Trivial"
    assert "`Trivial`" in _text(DOCS / "index.md")
    assert stale_lists() == []


def test_the_checks_name_exactly_the_files_a_new_built_in_needs(trivial: Entry) -> None:
    assert missing(trivial) == [
        "backfill/schedulers/__init__.py: import Trivial and add it to __all__",
        "backfill/__init__.py: import Trivial and add it to __all__ (sorted)",
        "docs/reference/schedulers.trivial.md: a reference stub '# Trivial' and "
        "'::: backfill.schedulers.trivial'",
        "mkdocs.yml: 'Trivial: reference/schedulers.trivial.md' in the nav's Reference > Schedulers",
        "docs/schedulers.md (or a page of its own): a section whose heading names Trivial",
        "README.md: a row '| `Trivial(...)` | what it does |' in the table of schedulers",
        "tests/test_trivial.py: tests of Trivial's own algorithm",
    ]
