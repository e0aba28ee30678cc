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
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

__all__ = ["Location", "KBError", "LoadError", "NotHardwareFile", "ExpressionError", "UnitError", "DimensionError",
           "UnknownNameError", "ContextError", "QueryError", "NotDetermined", "NoClosedForm", "UnevaluablePoint",
           "SimulationInputError", "MissingExtraError", "UsageError", "LimitError", "OutsideLimit", "CacheRefused",
           "KBErrors", "suggest", "escaped", "markdown_text"]


@dataclass(frozen=True, order=True)
class Location:
    """Where an item was written: 1-based line and column, as editors count."""
    file: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        return self.written(escaped(display_path(self.file)))

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
    try:
        here = os.getcwd()
    except OSError:
        return str(file)
    return _display_path(str(file), here)


@functools.lru_cache(maxsize=1024)
def _display_path(file: str, here: str) -> str:
    """display_path in the working directory ``here``, worked out once per file (an audit of 10^5 rows names its
    file in every line: resolving the folder each time was a fifth of the audit)."""
    path = Path(file)
    try:  # the folder resolved, not the file: a symbolic link is shown by its own name
        return str((path.parent.resolve() / path.name).relative_to(Path(here).resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(file)


#: what a terminal must not be handed raw: control characters (Unicode's Cc) and lone surrogates
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def escaped(text: str) -> str:
    r"""``text`` with every control character and lone surrogate written as its escape (``\x1b``): how a name or a
    path from someone else's file is printed, so it cannot retitle a terminal, clear it or forge a line.

    >>> print(escaped("gpu\x1b]0;x\x07\nline"))
    gpu\x1b]0;x\x07\nline
    """
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def markdown_text(text: str) -> str:
    """``text`` for a Markdown table cell: control characters escaped, HTML's ``& < >`` as entities (a Markdown
    renderer passes raw HTML through), ``|`` and backslashes escaped."""
    return (escaped(text).replace("\\", "\\\\").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("|", "\\|"))


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


class NotHardwareFile(LoadError): """A peer tool's file that describes no hardware: skipped in a folder, else this."""


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

    def __init__(self, kind: str, name: str, known: Iterable[str], *, where: Location | None = None,
                 spellings: Mapping[str, str] | None = None):
        """``spellings``: other ways to write a known name (an alias), each mapped to the name (:func:`suggest`)."""
        self.kind, self.name = kind, name
        known = list(known)
        self.suggestions = suggest(name, known, spellings=spellings)
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

    def __init__(self, parameter: str, value: object, allowed: str, *, message: str | None = None,
                 hint: str | None = None):
        self.parameter, self.value, self.allowed = parameter, value, allowed
        super().__init__(message or f"{parameter} must be {allowed}, got {_show(value)}", hint=hint)


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


class OutsideLimit(KBError):
    """Facts that break a rule of kind ``limit`` (a launch the hardware refuses): ``rule``, ``condition``, the
    ``subject`` that breaks it, the ``bound`` it passes and the ``facts`` the bound rests on, as limit_rules sets."""


class UsageError(KBError):
    """A command line that argparse rejected."""


class CacheRefused(KBError):
    """A cache directory hwkb will not use (another user or a group could write it, or its secret is not the
    user's alone): a warning, not a failure; the command runs without a cache."""


class KBErrors(KBError):
    """All the errors of one load, reported together so a user fixes them in one pass."""

    def __init__(self, errors: list[KBError]):
        self.errors = sorted(errors, key=lambda e: (e.where or Location(""), e.message))
        super().__init__(f"{len(self.errors)} error(s) in the knowledge base")

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


#: a name further than this from a typo (edit distance over its length, word by word) is not suggested
SUGGEST_CUTOFF = 0.4
#: nor one this much further than the nearest name
SUGGEST_MARGIN = 0.15
#: what a word of a name that the typo does not have costs, in proportion to the name's letters in such words
_UNMATCHED_WEIGHT = 0.1
_SHORT = 3  # a distance is over at least this many letters
_WORD_BREAKS = re.compile(r"[_\-\[\]\s.,]+")


def suggest(name: str, known: Iterable[str], n: int = 3, spellings: Mapping[str, str] | None = None) -> list[str]:
    """The declared names closest to a typo, best first, by edit distance over the names' words.

    Each word of the typo is matched with the nearest word of a name (edit distance over the longer word's
    length; order, case and ``-``/``_`` do not matter), the distances averaged, and the name's words the typo
    does not have cost a little; the spellings are also compared whole (words run together or split apart).
    ``spellings`` maps other ways to write a known name (an alias, an alias with an index) to the name: a name
    is suggested once, in whichever of its spellings is nearest the typo. Names beyond
    :data:`SUGGEST_CUTOFF`, or :data:`SUGGEST_MARGIN` further than the nearest, are left out.

    >>> suggest("sm_cout", ["sm_count", "clock_tc", "sm_count_full"])
    ['sm_count', 'sm_count_full']
    >>> suggest("boost_clock", ["clock_tc", "clock_boost"]), suggest("H100_SXM", ["h100-pcie", "h100-sxm"])
    (['clock_boost'], ['h100-sxm'])
    >>> suggest("h100", ["v100", "p100", "a100", "h100-sxm", "h100-pcie", "b200"])
    ['h100-sxm', 'h100-pcie']
    >>> suggest("peak_bf16", ["tc_peak_fp16_acc", "tc_peak[bf16]"], spellings={"matrix_peak[bf16]": "tc_peak[bf16]"})
    ['tc_peak[bf16]']
    >>> suggest("matrix_peek", ["sm_count", "tc_peak"], spellings={"matrix_peak": "tc_peak"})
    ['matrix_peak']
    """
    names = {**{k: k for k in known}, **(spellings or {})}
    target = _normal_spelling(name)
    words = _word_list(target)
    ranked, known_distances = [], {}
    for order, (spelling, named) in enumerate(names.items()):
        normal = _normal_spelling(spelling)
        distance = 0.0 if normal == target else _word_distance(words, _word_list(normal), known_distances)
        if distance > 0:  # words run together or split apart: compared whole too
            distance = min(distance, _distance(target.replace("_", ""), normal.replace("_", "")))
        ranked.append((distance, normal != target, order, spelling, named))
    ranked.sort()
    if not ranked:
        return []
    limit = min(SUGGEST_CUTOFF, ranked[0][0] + SUGGEST_MARGIN)
    nearest: dict[str, str] = {}  # each name's nearest spelling
    for distance, _, _, spelling, named in ranked:
        if distance <= limit:
            nearest.setdefault(named, spelling)
    # a name suggested bare is not suggested again with each of its index values
    return [spelling for named, spelling in nearest.items()
            if named.partition("[")[0] == named or named.partition("[")[0] not in nearest][:n]


def _normal_spelling(name: str) -> str:
    return name.casefold().replace("-", "_").replace(" ", "_")


def _word_list(spelling: str) -> list[str]:
    """``tc_peak[bf16]`` -> ``['tc', 'peak', 'bf16']``: an index is a word like the others."""
    return [w for w in _WORD_BREAKS.split(spelling) if w]


def _word_distance(typo: list[str], name: list[str], known: dict[tuple[str, str], float]) -> float:
    """The typo's words' mean distance to their nearest words of ``name``, plus a little for ``name``'s other words.

    ``known`` keeps the distances worked out so far: names share words, and a catalogue has thousands of names.
    """
    if not typo or not name:
        return 1.0
    used, total = set(), 0.0
    for word in typo:
        distance, nearest = min((known[word, other] if (word, other) in known
                                 else known.setdefault((word, other), _distance(word, other)), i)
                                for i, other in enumerate(name))
        used.add(nearest)
        total += distance
    unmatched = sum(len(w) for i, w in enumerate(name) if i not in used) / sum(map(len, name))
    return total / len(typo) + _UNMATCHED_WEIGHT * unmatched


def _distance(a: str, b: str) -> float:
    """Edit distance over the longer length (at least :data:`_SHORT`, so one letter off a two-letter name is
    near): 0 for the same, 1 for no letter in common.

    Levenshtein's distance, computed bit-parallel (Myers 1999, as Hyyrö 2001 writes it for the whole strings),
    except that one word with two neighbouring letters swapped (``bf61``, ``bf16``) is one edit from the other.
    """
    if a == b:
        return 0.0
    longest = max(len(a), len(b), _SHORT)
    if abs(len(a) - len(b)) / longest > SUGGEST_CUTOFF or not set(a) & set(b):  # far: not worked out
        return 1.0
    if len(a) == len(b) and _one_swap(a, b):
        return 1 / longest
    positions: dict[str, int] = {}
    for i, letter in enumerate(a):
        positions[letter] = positions.get(letter, 0) | 1 << i
    full, top = (1 << len(a)) - 1, 1 << (len(a) - 1)
    plus, minus, edits = full, 0, len(a)  # the vertical differences of the table's column, as bit vectors
    for letter in b:
        equal = positions.get(letter, 0)
        vertical = equal | minus
        horizontal = (((equal & plus) + plus) ^ plus) | equal
        up = minus | (~(horizontal | plus) & full)
        down = plus & horizontal
        edits += 1 if up & top else -1 if down & top else 0
        up, down = (up << 1 | 1) & full, (down << 1) & full
        plus, minus = down | (~(vertical | up) & full), up & vertical
    return edits / longest


def _one_swap(a: str, b: str) -> bool:
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return (len(differ) == 2 and differ[1] == differ[0] + 1
            and a[differ[0]] == b[differ[1]] and a[differ[1]] == b[differ[0]])
