"""The README: its set-up commands keep their promised form, and its Python example runs."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
TEST_COMMAND = re.compile(r"^\s*(\$ )?(python3? -m )?pip install .*&&.*pytest")


def fenced_blocks(language: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_setup_block_has_exactly_the_two_commands() -> None:
    setup = fenced_blocks("sh")[0].splitlines()
    assert setup == [
        "pip install . && backfill simulate",
        'pip install -e ".[test]" && python -m pytest',
    ]
    matching = [line for line in README.read_text().splitlines() if TEST_COMMAND.match(line)]
    assert matching == [setup[1]]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    command = fenced_blocks("sh")[0].splitlines()[1]
    assert any(line.strip() == command for line in ci.splitlines())


def test_python_example_runs() -> None:
    example = fenced_blocks("python")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {})
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines[1:4]] == ["EASY(fcfs)", "EASY(sjf)", "Conservative"]
    assert float(lines[4]) >= 1.0


def test_fairness_example_runs() -> None:
    example = fenced_blocks("python")[1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {})
    strict, relaxed, share = map(float, out.getvalue().split())
    assert strict >= 0 and relaxed >= 0 and share > 0


def test_no_absolute_paths_of_this_machine() -> None:
    text = README.read_text(encoding="utf-8")
    assert not re.search(r"(^|[\s(`'\"])/(work|root|home|tmp|opt)/", text)


def test_ci_builds_the_docs_with_the_readme_command_in_a_venv_of_only_the_docs_extra() -> None:
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    command = next(
        line.split("#")[0].strip()
        for line in README.read_text(encoding="utf-8").splitlines()
        if "mkdocs build --strict" in line
    )
    assert command == 'pip install ".[docs]" && mkdocs build --strict'
    assert any(line.strip() == command for line in ci.splitlines())
    # The build runs inside the docs-only environment, not the one the tests were installed into.
    docs_step = ci[ci.index('source "$workdir/docs-venv/bin/activate"') :]
    assert "readme_docs" in docs_step.split(")")[0]


def test_the_docs_extra_has_what_the_reference_pages_import() -> None:
    # backfill.testing (rendered in the reference) imports hypothesis; the docs extra alone must build.
    pyproject = (README.parent / "pyproject.toml").read_text(encoding="utf-8")
    docs = re.search(r"^docs = \[(.*)\]$", pyproject, flags=re.MULTILINE)
    assert docs is not None and "hypothesis" in docs.group(1)
