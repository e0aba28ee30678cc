"""The errors a user can cause, as types that carry data.

Every error knows where it comes from (file, line, column where there is one)
and prints as one line: ``file:line:col: message; hint``. Each class keeps what
went wrong as fields (the two dimensions of an unbalanced law, the unknown name
and its nearest neighbours, the bad parameter and what is allowed) and builds
its message from them. The CLI prints that line and exits 2; nothing else about
an error reaches a user.
"""
from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "Location", "KBError", "LoadError", "ExpressionError", "UnitError", "DimensionError", "UnknownNameError",
    "ContextError", "QueryError", "NotDetermined", "NoClosedForm", "UnevaluablePoint", "SimulationInputError", "MissingExtraError",
    "UsageError", "LimitError", "KBErrors", "suggest",
]


@dataclass(frozen=True, order=True)
class Location:
    """Where an item was written: 1-based line and column, as editors count."""
    file: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        return self.written(display_path(self.file))

    def written(self, file: str | None = None) -> str:
        """``file:line:col`` with ``file`` as the user gave it (the JSON's form, whatever the working directory)."""
        parts = [self.file if file is None else file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)


def display_path(file: str) -> str:
    """A file as a user should see it: relative to the working directory when it lies below it."""
    path = Path(file)
    try:  # the folder resolved, not the file: a symbolic link is shown by its own name
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
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

    def at(self, where: Location | None) -> "KBError":
        """The same error placed at ``where`` (kept where it is if it already has a place)."""
        if self.where is not None or where is None:
            return self
        placed = copy.copy(self)
        placed.where = where
        return placed

    def with_hint(self, hint: str | None) -> "KBError":
        changed = copy.copy(self)
        changed.hint = hint
        return changed

    def to_dict(self) -> dict:
        """The JSON of bad input; ``file`` as the user gave it, whatever the working directory."""
        where = self.where or Location(None)
        return {"file": where.file, "line": where.line, "column": where.col, "message": self.message,
                "hint": self.hint}


class LoadError(KBError):
    """A KB file that cannot be read as the format says: bad YAML, a missing field."""


class ExpressionError(LoadError):
    """An expression outside the whitelist (see :mod:`hwkb.definitions.expressions`)."""


class UnitError(KBError):
    """A unit Pint cannot parse, or a value whose unit does not fit its variable."""


class DimensionError(UnitError):
    """Two quantities an operation joins, of different dimensions: a law whose sides do not balance.

    ``left`` and ``right`` are the dimensions as text (``right`` None for an
    operation of one operand, such as ``exp()``), ``operation`` what joins them:
    ``=`` (the two sides of a relation), ``'+'``, ``'-'``, ``min()``, ``max()``,
    ``exp()``, ``log()``, ``**`` (an exponent with a dimension) or ``power`` (a
    quantity raised to a variable power); ``rule`` the rule instance, if any.
    """

    def __init__(self, left: str, right: str | None = None, *, operation: str = "=", rule: str | None = None,
                 where: Location | None = None, hint: str | None = None):
        self.left, self.right, self.operation, self.rule = left, right, operation, rule
        if operation == "=":
            what = f"the left side is {left}, the right side {right}"
        elif operation in ("exp()", "log()"):
            what = f"{operation} of {left}"
        elif operation == "**":
            what = f"an exponent of {left}"
        elif operation == "power":
            what = f"{left} raised to a variable power"
        else:
            what = f"{operation} joins {left} and {right}"
        super().__init__(what if rule is None else f"rule {rule} does not balance: {what}", where=where, hint=hint)

    def in_rule(self, rule: str, where: Location | None) -> "DimensionError":
        return DimensionError(self.left, self.right, operation=self.operation, rule=rule, where=where, hint=self.hint)


MAX_LISTED = 10  # an unknown name without close matches lists the known names if there are this few


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


class NotDetermined(QueryError):
    """The target does not follow from the context (and the free variables); ``needs`` says what would settle it."""

    def __init__(self, message: str, needs: Sequence[Sequence[str]] = (), *, hint: str | None = None):
        self.needs = tuple(tuple(n) for n in needs)
        if hint is None and self.needs:
            hint = "also give one of " + " or ".join("{" + ", ".join(n) + "}" for n in self.needs)
        super().__init__(message, hint=hint)


class NoClosedForm(QueryError):
    """The target follows, but not through explicit algebra (a simulation, a system SymPy cannot solve)."""


class UnevaluablePoint(QueryError):
    """A question cannot be evaluated at one value of the variable searched over (a simulation too large there)."""

    def __init__(self, variable: str, value: float, reason: str):
        self.variable, self.value, self.reason = variable, value, reason
        super().__init__(f"{variable} = {value:g}: {reason}")


class SimulationInputError(KBError, ValueError):
    """A simulation parameter outside its domain, or a configuration too large to run.

    Carries the parameter's name, the bad value and what is allowed, so a caller
    can react to the data and the CLI can print the one-line message.
    """

    def __init__(self, parameter: str, value: object, allowed: str, *, message: str | None = None):
        self.parameter, self.value, self.allowed = parameter, value, allowed
        super().__init__(message or f"{parameter} must be {allowed}, got {_show(value)}")


def _show(value: object) -> str:
    shown = repr(value)
    return shown if type(value) is int or isinstance(value, str) else f"{shown} ({type(value).__name__})"


class MissingExtraError(KBError):
    """A feature needs an optional dependency that is not installed (one of hwkb's extras)."""

    def __init__(self, module: str, extra: str, feature: str):
        self.module, self.extra, self.feature = module, extra, feature
        super().__init__(f"{feature} needs {module}, which is not installed",
                         hint=f"install it with: pip install {module} (hwkb's '{extra}' extra)")


class LimitError(KBError):
    """Input beyond one of hwkb's explicit limits (kb/README.md, "Limits"), which keep every answer bounded.

    ``what`` is the measure limited (``exponent``, ``magnitude``, ``file size`` ...), ``found`` its value in
    the input, ``limit`` the largest allowed (or a (smallest, largest) pair), ``subject`` the text it was found
    in, if any.
    """

    def __init__(self, what: str, found: object, limit: object, *, subject: str | None = None,
                 where: Location | None = None, hint: str | None = None):
        self.what, self.found, self.limit, self.subject = what, found, limit, subject
        prefix = f"{subject}: " if subject else ""
        if isinstance(limit, tuple):
            message = f"{prefix}{what} {found} is outside the limits {limit[0]} .. {limit[1]}"
        else:
            message = f"{prefix}{what} {found} exceeds the limit of {limit}"
        super().__init__(message, where=where, hint=hint)
        self.args = (what, found, limit)  # how copy.copy (KBError.at) rebuilds it; the rest is in __dict__


class UsageError(KBError):
    """A command line that argparse rejected."""


class KBErrors(KBError):
    """All the errors of one load, reported together so a user fixes them in one pass."""

    def __init__(self, errors: list[KBError]):
        self.errors = sorted(errors, key=lambda e: (e.where or Location(""), e.message))
        super().__init__(f"{len(self.errors)} error(s) in the knowledge base")

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def suggest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The declared names closest to a typo, best first: the same name in another case or with ``-`` for ``_``,
    then the same words in another order, then the closest spellings.

    >>> suggest("sm_cout", ["sm_count", "clock_tc", "sm_count_full"])
    ['sm_count', 'sm_count_full']
    >>> suggest("boost_clock", ["clock_tc", "clock_boost"]), suggest("H100_SXM", ["h100-pcie", "h100-sxm"])
    (['clock_boost'], ['h100-sxm'])
    """
    known = list(dict.fromkeys(known))
    spelled = {k: _normal_spelling(k) for k in known}
    target = _normal_spelling(name)
    same = [k for k in known if spelled[k] == target]
    reordered = [k for k in known if _words(spelled[k]) == _words(target) and k not in same]
    by_spelling: dict[str, list[str]] = {}
    for k in known:
        by_spelling.setdefault(spelled[k], []).append(k)
    close = [k for s in difflib.get_close_matches(target, list(by_spelling), n=n, cutoff=0.6) for k in by_spelling[s]]
    return list(dict.fromkeys(same + reordered + close))[:n]


def _normal_spelling(name: str) -> str:
    return name.casefold().replace("-", "_").replace(" ", "_")


def _words(spelling: str) -> tuple[str, ...]:
    """The words of a name in a fixed order (``boost_clock`` and ``clock_boost`` alike); an index stays with its name."""
    base, bracket, index = spelling.partition("[")
    return tuple(sorted(w for w in base.split("_") if w)) + ((bracket + index,) if bracket else ())
