"""MkDocs hook: write the registry's list of schedulers into the pages that name them all.

A page writes ``<!-- registry:schedulers -->`` right after the words the list explains ("the
built-in schedulers<!-- registry:schedulers --> and ..."); :func:`on_page_markdown` replaces it with
the class names of :data:`backfill.schedulers.registry.SCHEDULERS` in parentheses, in the registry's
order, each in backticks (`` (`FCFS`, `EASY`, ...)``), so that adding a built-in scheduler needs no
edit of those pages, and the page read as plain markdown still makes a sentence.
``tests/test_builtin_checklist.py`` runs the hook on the pages and checks the other lists of
schedulers (the README's table, the reference stubs and the nav) against the registry.

Enable it in ``mkdocs.yml`` with ``hooks: [docs/_hooks/registry.py]``.
"""

from __future__ import annotations

import re
from typing import Any

from backfill.schedulers.registry import SCHEDULERS

__all__ = ["MARKER", "on_page_markdown", "scheduler_names"]

#: What a page writes where the list of built-in schedulers goes.
MARKER = "<!-- registry:schedulers -->"


def scheduler_names() -> str:
    """Return the registered schedulers' class names, in backticks, separated by commas.

    Examples:
        >>> scheduler_names().startswith("`FCFS`, `EASY`, `Conservative`")
        True
    """
    return ", ".join(f"`{entry.name}`" for entry in SCHEDULERS)


#: The marker outside a code span: a page that shows the marker itself writes it in backticks.
_PLACE = re.compile(rf"(?<!`){re.escape(MARKER)}(?!`)")


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace every :data:`MARKER` of a page, except one in backticks, with :func:`scheduler_names`.

    Examples:
        >>> on_page_markdown("the built-in ones<!-- registry:schedulers -->, or yours")[:33]
        'the built-in ones (`FCFS`, `EASY`'
        >>> on_page_markdown("write `<!-- registry:schedulers -->`")
        'write `<!-- registry:schedulers -->`'
    """
    return _PLACE.sub(lambda _: f" ({scheduler_names()})", markdown) if MARKER in markdown else markdown
