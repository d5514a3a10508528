"""What the benchmark and reproduction scripts share: where the traces are, and markdown tables."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The Parallel Workloads Archive traces, in ../shared/traces beside the project.
DEFAULT_TRACE_DIR = ROOT.parent / "shared" / "traces"


def markdown(header: list[str], rows: list[list[str]], right: int = 1) -> str:
    """Return a markdown table; columns from ``right`` on are right-aligned."""
    align = ["---" if i < right else "---:" for i in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)
