"""The errors a user can cause, as types that carry data.

Every error knows where it comes from (file, line, column where there is one)
and prints as one line: ``file:line:col: message; hint``. The CLI prints that
line and exits 2; nothing else about an error reaches a user.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

__all__ = [
    "Location", "KBError", "LoadError", "ExpressionError", "UnitError",
    "DimensionError", "UnknownNameError", "ContextError", "QueryError",
    "KBErrors", "suggest",
]


@dataclass(frozen=True, order=True)
class Location:
    """Where an item was written: 1-based line and column, as editors count."""
    file: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        parts = [_display_path(self.file)]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)


def _display_path(file: str) -> str:
    path = Path(file)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(file)


class KBError(Exception):
    """Something wrong with what the user gave: a KB file, a flag, a query."""

    def __init__(self, message: str, *, where: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def __str__(self) -> str:
        text = self.message if self.where is None else f"{self.where}: {self.message}"
        return f"{text}; {self.hint}" if self.hint else text

    def to_dict(self) -> dict:
        return {
            "file": None if self.where is None else _display_path(self.where.file),
            "line": None if self.where is None else self.where.line,
            "message": self.message if not self.hint else f"{self.message}; {self.hint}",
        }


class LoadError(KBError):
    """A KB file that cannot be read as the format says: bad YAML, a missing field."""


class ExpressionError(LoadError):
    """An expression outside the whitelist (see hwkb.definitions.expressions)."""


class UnitError(KBError):
    """A unit Pint cannot parse, or a value whose unit does not fit its variable."""


class DimensionError(UnitError):
    """A law whose two sides do not have the same dimensions."""


class UnknownNameError(KBError):
    """A name the KB does not declare; carries the nearest declared names."""

    def __init__(self, kind: str, name: str, known: Iterable[str], *, where: Location | None = None):
        self.kind, self.name = kind, name
        known = list(known)
        self.suggestions = suggest(name, known)
        if self.suggestions:
            hint = f"did you mean {' or '.join(repr(s) for s in self.suggestions)}?"
        else:  # nothing close: a short list is worth showing whole
            hint = f"one of {', '.join(known)}" if 0 < len(known) <= MAX_LISTED else None
        super().__init__(f"unknown {kind} {name!r}", where=where, hint=hint)


class ContextError(KBError):
    """A query context that cannot be built: an unknown entity, a bad --set."""


class QueryError(KBError):
    """A question that cannot be asked as written (a saved query, a flag combination)."""


class KBErrors(KBError):
    """All the errors of one load, reported together so a user fixes them in one pass."""

    def __init__(self, errors: list[KBError]):
        self.errors = sorted(errors, key=lambda e: (e.where or Location(""), e.message))
        super().__init__(f"{len(self.errors)} error(s) in the knowledge base")

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


MAX_LISTED = 10  # an unknown name without close matches lists the known names if there are this few


def suggest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The declared names closest to a typo, best first.

    >>> suggest("sm_cout", ["sm_count", "clock_tc", "sm_count_full"])
    ['sm_count', 'sm_count_full']
    """
    return difflib.get_close_matches(name, list(known), n=n, cutoff=0.6)
