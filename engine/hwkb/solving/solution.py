"""The answers of the solving stage: :class:`Solution` (one variable), :class:`Explanation` and :class:`Derived`.

``solve`` always returns a Solution, whatever its :class:`Status`; a threshold
search (``--where`` inequalities) adds the admissible :class:`Interval` s. Each
answer prints as the CLI prints it and gives the CLI's JSON with ``to_dict()``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Mapping

from hwkb.definitions.citations import Document
from hwkb.definitions.model import EntityId, Range, VarKey
from hwkb.solving.plausibility import Implausible
from hwkb.results import Result
from hwkb.solving.values import Value

__all__ = ["Status", "Interval", "OutsideRange", "NoSolutionHere", "ClosestFit", "BrokenGiven", "Note", "WholeCounts",
           "AboveCeiling", "Solution", "Explanation", "Derived"]


class Status(StrEnum):
    """How a variable was settled; the JSON and the text print the plain value."""
    STATED = "stated"
    DERIVED = "derived"
    UNDERDETERMINED = "underdetermined"
    INCONSISTENT = "inconsistent"
    NOT_APPLICABLE = "not_applicable"
    IMPLAUSIBLE = "implausible"  # derived, but outside the range real hardware spans (or resting on such a value)
    INFEASIBLE = "infeasible"  # no value within the domain meets the --where constraints

    @property
    def determined(self) -> bool:
        return self in (Status.STATED, Status.DERIVED, Status.INCONSISTENT, Status.IMPLAUSIBLE)


@dataclass(frozen=True)
class Interval:
    """Admissible values from ``lower`` to ``upper`` (display units; None is unbounded)."""
    lower: float | None
    upper: float | None
    lower_closed: bool
    upper_closed: bool

    def to_dict(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "lower_closed": self.lower_closed,
                "upper_closed": self.upper_closed}


@dataclass(frozen=True)
class OutsideRange:
    """A stated ``key`` outside the ``range`` real hardware spans (in ``unit``): a what-if may state an odd figure,
    which is said, not refused (the audit flags a KB one); :mod:`hwkb.render.note_words` words it."""
    key: VarKey
    range: Range
    unit: str


@dataclass(frozen=True)
class NoSolutionHere:
    """A note: ``rule``'s solved form for ``key`` gives ``result`` (canonical), which does not satisfy the rule."""
    rule: str
    key: VarKey
    result: float


@dataclass(frozen=True)
class ClosestFit:
    """A note: the ``rules`` of a block cannot all hold for any positive ``outputs`` with the ``stated`` figures; their
    closest fit misses by ``spread`` in all, beyond the figures' rounding ``slack`` (both relative)."""
    rules: str
    outputs: tuple[VarKey, ...]
    stated: tuple[VarKey, ...]
    spread: float
    slack: float


@dataclass(frozen=True)
class BrokenGiven:
    """A note: a --where equality (``text``) the context's values contradict, with those values (display units)."""
    text: str
    values: tuple[tuple[VarKey, float], ...]


@dataclass(frozen=True)
class WholeCounts:
    """A count's computed value and the bounds of its figures' rounding, in its display unit; ``first`` to
    ``last`` the whole counts between them (``first > last``: none)."""
    key: VarKey
    computed: float
    lower: float
    upper: float
    first: int
    last: int

    @property
    def any(self) -> bool:
        return self.first <= self.last

    @property
    def single(self) -> bool:
        return self.first == self.last

    def to_dict(self) -> dict:
        return {"computed": self.computed, "lower": self.lower, "upper": self.upper,
                "counts": [self.first, self.last] if self.any else None}


@dataclass(frozen=True)
class AboveCeiling:
    """A derived value above the stated figure of its variable's ceiling (``at_most``), in its display unit: within
    the rounding of the figures it comes from (``lower`` to ``upper``), or beyond it (``beyond``: implausible)."""
    key: VarKey
    value: float
    ceiling: VarKey
    ceiling_value: float
    lower: float
    upper: float
    beyond: bool
    source: str

    def to_dict(self) -> dict:
        return {"ceiling": self.ceiling, "ceiling_value": self.ceiling_value, "lower": self.lower,
                "upper": self.upper, "beyond_rounding": self.beyond, "source": self.source}


#: a note on an answer: a sentence, or data the render stage words (:mod:`hwkb.render.note_words`) where the note
#: shows a figure, whose display is the render stage's
Note = object


@dataclass(frozen=True, repr=False)
class Solution(Result):
    """The answer for one variable: always this type, whatever the status; prints as ``hwkb solve`` does."""
    variable: VarKey
    status: Status
    unit: str
    value: Value | None = None
    alternatives: tuple[Value, ...] = ()
    needs: tuple[tuple[VarKey, ...], ...] = ()
    intervals: tuple[Interval, ...] | None = None
    notes: tuple[Note, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)
    implausible: tuple[Implausible, ...] = ()  # the values of the derivation outside their range, itself first
    whole: WholeCounts | None = None  # a derived count computed fractional: the whole counts its figures allow
    above: AboveCeiling | None = None  # a derived value above its ceiling's stated figure

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    @property
    def determined(self) -> bool:
        return self.status.determined

    @property
    def magnitude(self) -> float | None:
        return None if self.value is None else self.value.magnitude

    @property
    def limiter(self) -> Value | None:
        """The value a min/max law of named limits gave on the way to this one (``blocks_per_sm``), if any.

        Its ``origin.bound_by`` names the limits it equals: the resource that binds.
        """
        return None if self.value is None else self.value.binding_limit()

    @property
    def alias(self) -> str | None:
        """The vendor alias the question named the variable by (``cu_count`` for ``sm_count``), if any."""
        return self.extra.get("alias")

    def asked_as(self, alias: str) -> "Solution":
        """This answer as given to a question that named the variable by ``alias``."""
        return replace(self, extra={**self.extra, "alias": alias})

    def __repr__(self) -> str:
        return str(self)

    def to_dict(self) -> dict:
        out = {"command": "solve", "status": str(self.status), "variable": self.variable, "value": self.magnitude,
               "unit": self.unit,
               "derivation": None if self.value is None else self.value.derivation_dict()}
        limiter = self.limiter
        if limiter is not None:
            out["limiter"] = limiter.origin.bound_by[0]
            out["limiters"] = list(limiter.origin.bound_by)
        if self.alternatives:
            out["alternatives"] = [{"value": a.magnitude, "unit": a.unit, "derivation": a.derivation_dict()}
                                   for a in self.alternatives]
        if self.status == Status.UNDERDETERMINED:
            out["needs"] = [list(n) for n in self.needs]
        if self.intervals is not None:
            out["intervals"] = [i.to_dict() for i in self.intervals]
        if self.implausible:
            out["implausible"] = [i.to_dict() for i in self.implausible]
        if self.whole is not None:
            out["whole_counts"] = self.whole.to_dict()
        if self.above is not None:
            out["above_ceiling"] = self.above.to_dict()
        if self.notes:
            out["notes"] = list(self.notes)
        out.update(self.extra)
        return out


@dataclass(frozen=True, repr=False)
class Explanation(Result):
    """A solution with its derivation trees: what ``hwkb explain`` prints (its JSON is the solution's)."""
    solution: Solution
    documents: tuple[Document, ...] = ()  # the documents the trees cite, in the order first cited

    def __repr__(self) -> str:
        return str(self)

    def to_dict(self) -> dict:
        return {**self.solution.to_dict(), "command": "explain", "documents": [d.to_dict() for d in self.documents]}

    def citations(self) -> list[str | None]:
        """Every source the trees name: the facts', the other documents' beside them, the rules'."""
        found: list[str | None] = []
        pending = [v for v in (self.solution.value, *self.solution.alternatives) if v is not None]
        while pending:
            value = pending.pop(0)
            found.append(value.origin.source)
            found += [other.source for other in getattr(value.origin, "also", ())]
            pending += getattr(value.origin, "inputs", ())
        return found


@dataclass(frozen=True, repr=False)
class Derived(Result):
    """Every value a context gives that it does not state, in plan order: what ``hwkb derive`` prints.

    Each value is the one ``hwkb solve`` answers (its preferred route). ``conflicts`` are the values an
    independent route contradicts beyond rounding, and ``whole`` a count computed fractional read as the whole
    counts its figures allow (none: their status is inconsistent); ``implausible`` those outside their
    variable's range or resting on such a value, and ``above`` those above their ceiling's stated figure
    (beyond its rounding: their status is implausible). Either makes ``hwkb derive`` exit 1.
    """
    entity: EntityId | None
    values: tuple[Value, ...]
    conflicts: Mapping[VarKey, tuple[Value, ...]] = field(default_factory=dict)
    implausible: Mapping[VarKey, tuple[Implausible, ...]] = field(default_factory=dict)
    whole: Mapping[VarKey, WholeCounts] = field(default_factory=dict)
    above: Mapping[VarKey, AboveCeiling] = field(default_factory=dict)

    def __repr__(self) -> str:
        return str(self)

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def consistent(self) -> bool:
        return not self.conflicts and all(w.any for w in self.whole.values())

    @property
    def plausible(self) -> bool:
        return not self.implausible and not any(a.beyond for a in self.above.values())

    def status_of(self, key: VarKey) -> Status:
        if key in self.conflicts or (key in self.whole and not self.whole[key].any):
            return Status.INCONSISTENT
        if key in self.implausible or (key in self.above and self.above[key].beyond):
            return Status.IMPLAUSIBLE
        return Status.DERIVED

    @property
    def status(self) -> Status:
        if not self.consistent:
            return Status.INCONSISTENT
        return Status.DERIVED if self.plausible else Status.IMPLAUSIBLE

    def to_dict(self) -> dict:
        def item(v: Value) -> dict:
            out = {"variable": v.key, "value": v.magnitude, "unit": v.unit, "derivation": v.derivation_dict(),
                   "status": str(self.status_of(v.key))}
            if v.key in self.conflicts:
                out["alternatives"] = [{"value": a.magnitude, "unit": a.unit, "derivation": a.derivation_dict()}
                                       for a in self.conflicts[v.key]]
            if v.key in self.implausible:
                out["implausible"] = [i.to_dict() for i in self.implausible[v.key]]
            if v.key in self.whole:
                out["whole_counts"] = self.whole[v.key].to_dict()
            if v.key in self.above:
                out["above_ceiling"] = self.above[v.key].to_dict()
            return out
        return {"command": "derive", "status": str(self.status), "entity": self.entity,
                "derived": [item(v) for v in self.values]}
