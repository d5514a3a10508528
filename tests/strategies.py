"""Shared hypothesis strategies for the tests; they live in the public kit :mod:`backfill.testing`."""

from __future__ import annotations

from backfill.testing import workloads

__all__ = ["workloads"]
