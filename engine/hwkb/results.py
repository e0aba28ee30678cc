"""What every question returns: a result whose ``to_dict()`` is its data and whose ``render(fmt)`` is any form
(``render("json")`` the command's JSON: the data, with the words the render stage adds to an audit's findings).

The forms (text, markdown, html, csv, json; plots) live in the render stage,
:mod:`hwkb.render`, which stands above every stage that makes a result:
``... -> questions | audit -> kb -> render -> cli``. A result cannot import the
stage above it, so :meth:`Result.render` names it and imports it when a form
is asked for: the render stage's one entry point, reached by name from below,
the way a plugin is. Nothing else in the package imports upward, by name or
otherwise (tests/test_structure.py holds both to that), and a result made and
never rendered never loads the render stage.
"""
from __future__ import annotations

from importlib import import_module

__all__ = ["Result", "FORMATS", "RENDER_STAGE"]

#: every form a result may render as; a result type names those it has in the render stage
FORMATS = ("text", "markdown", "html", "csv", "json")
RENDER_STAGE = "hwkb.render"


class Result:
    """A question's answer. ``render(fmt)`` gives one of :data:`FORMATS`; ``str()`` is the text form."""

    __slots__ = ()

    def render(self, fmt: str = "text", **options) -> str:
        """This result as ``fmt`` (text, markdown, html, csv or json); :class:`hwkb.errors.UsageError` for a form
        it has not, saying why. ``options`` are the form's own (``failed_only`` for an audit)."""
        return import_module(RENDER_STAGE).render(self, fmt, **options)

    def __str__(self) -> str:
        return self.render("text")
