"""The suites of tests/conftest.py: what the default run leaves out, and the quick hypothesis profile."""

from __future__ import annotations

import re
from pathlib import Path

import conftest
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

CONFTEST = Path(conftest.__file__).read_text(encoding="utf-8")
INI = """[pytest]
addopts = --strict-markers -p no:cacheprovider -m 'not slow and not long and not integration'
markers =
    slow: slow
    long: long
    integration: integration
filterwarnings = error
"""

# A module of each kind of test (a module constant: the rule reads a test's own source).
MIXED = """import pytest
from hypothesis import given, settings, strategies as st

def test_lean():
    print("ran test_lean")

def test_asks_for_pandas():
    pytest.importorskip("pandas")
    print("ran test_asks_for_pandas")

@pytest.fixture
def cluster():
    return pytest.importorskip("distributed")

def test_through_a_fixture(cluster):
    print("ran test_through_a_fixture", cluster.__name__)

@pytest.mark.long
def test_long():
    print("ran test_long")

TRIED = []

@pytest.mark.slow
@settings(max_examples=40, database=None)
@given(st.integers())
def test_slow_keeps_its_count(x):
    TRIED.append(x)

def test_after_the_slow_one():
    assert len(TRIED) in (0, 40)
    print("ran test_after_the_slow_one")
"""


def ran(result: pytest.RunResult) -> set[str]:
    """The sample tests that ran (each prints its name; the run needs ``-s``)."""
    return set(re.findall(r"\bran (test_\w+)", result.stdout.str()))


def counted(count: int, **kwargs: object) -> tuple[object, list[int]]:
    """A property of ``count`` examples that records each example it tries."""
    tried: list[int] = []

    @settings(max_examples=count, phases=[Phase.generate], database=None, **kwargs)  # type: ignore[arg-type]
    @given(st.integers())
    def prop(x: int) -> None:
        tried.append(x)

    return prop, tried


@pytest.mark.parametrize(("own", "quick"), [(100, 25), (150, 38), (30, 10), (8, 8)])
def test_the_quick_profile_tries_a_quarter_of_a_propertys_examples(own: int, quick: int) -> None:
    prop, tried = counted(own)
    conftest._quicken(prop)
    prop()  # type: ignore[operator]
    assert len(tried) == quick


def test_a_derandomized_property_keeps_its_count() -> None:
    prop, tried = counted(60, derandomize=True)
    conftest._quicken(prop)
    prop()  # type: ignore[operator]
    assert len(tried) == 60


def test_the_default_run_leaves_out_the_marked_suites_and_what_needs_the_integration_extra(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini(INI)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_heavy="""
        import pytest

        pytestmark = pytest.mark.integration
        pytest.importorskip("a_package_this_machine_lacks")
        """,
        test_mixed=MIXED,
    )
    lean = pytester.runpytest_subprocess("-s")
    lean.assert_outcomes(passed=2, deselected=4)
    assert ran(lean) == {"test_lean", "test_after_the_slow_one"}
    assert "test_heavy" not in lean.stdout.str()  # not imported at all, not even skipped
    integration = pytester.runpytest_subprocess("-s", "-m", "integration")
    outcomes = integration.parseoutcomes()  # pandas and distributed pass or skip, as installed here
    assert outcomes.get("passed", 0) + outcomes.get("skipped", 0) == 3 and outcomes["deselected"] == 4
    assert ran(integration) <= {"test_asks_for_pandas", "test_through_a_fixture"}
    slow = pytester.runpytest_subprocess("-s", "-m", "slow or not long and not integration")
    slow.assert_outcomes(passed=3, deselected=3)
    assert ran(slow) == {"test_lean", "test_after_the_slow_one"}


def test_a_bad_profile_is_one_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini(INI)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_one="def test_one():\n    assert False, 'a bad profile stops the run first'\n")
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "fast")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: HYPOTHESIS_PROFILE='fast': this suite's profiles are quick, full and thorough"]
    )


COUNTING = """from hypothesis import given, settings, strategies as st

TRIED = []

@settings(max_examples=100, database=None)
@given(st.integers())
def test_counts(x):
    TRIED.append(x)

def test_report():
    print("tried", len(TRIED))
"""


@pytest.mark.parametrize("ci", ["", "true"])
def test_the_profiles_do_not_depend_on_a_ci_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    # With CI set, hypothesis loads its derandomized `ci` profile at import; the suite's profiles
    # derive from its `default` instead, so CI runs the README command's suite, a quarter as long.
    pytester.makeini(INI)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_counting=COUNTING)
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    for name in (
        "CI",
        "GITHUB_ACTIONS",
        "TF_BUILD",
        "BUILDKITE",
        "CIRCLECI",
        "CIRRUS_CI",
        "CODEBUILD_BUILD_ID",
        "GITLAB_CI",
        "HEROKU_TEST_RUN_ID",
        "TEAMCITY_VERSION",
        "bamboo.buildKey",
    ):
        monkeypatch.delenv(name, raising=False)
    if ci:
        monkeypatch.setenv("CI", ci)
    result = pytester.runpytest_subprocess("-s")
    result.assert_outcomes(passed=2)
    assert "tried 25" in result.stdout.str()
    quick = settings.get_profile("quick")
    assert not quick.derandomize and quick.deadline is None
