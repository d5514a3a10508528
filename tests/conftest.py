"""Test configuration: hypothesis profiles and the shared-traces location."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# `HYPOTHESIS_PROFILE=thorough python -m pytest ...` runs every property ten times longer.
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"


@pytest.fixture(scope="session")
def traces() -> Path:
    """The folder of Parallel Workloads Archive traces, or skip if this checkout has none beside it."""
    if not TRACES.is_dir():
        pytest.skip(f"no trace folder at {TRACES} (expected ../shared/traces beside the project)")
    return TRACES
