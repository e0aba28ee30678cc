"""Rules of kind ``limit``: inequalities a context's facts must satisfy, such as the launch limits CUDA enforces.

``kb/rules/occupancy.yaml`` states, for instance::

    block_threads_limit:
      kind: limit
      eq: threads_per_block <= max_threads_per_block

A limit is never solved and never derives anything. It is checked where a
context is built (:meth:`hwkb.solving.system.System.context`): when every
variable it names has a fact there, the facts must satisfy it, else the query
is an :class:`~hwkb.errors.OutsideLimit` error naming the limit, its value and
the facts (with their sources) it comes from. A search for one variable
(:mod:`hwkb.questions.thresholds`) uses the limits that name it as the edge of
its domain: ``regs_per_thread`` is searched up to the 255 registers a thread may
have, not to 2^40.

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> [limit.name for limit in kb.limits][:2]
['block_threads_limit', 'thread_registers_limit']
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from hwkb.definitions.compiled import mapping_function
from hwkb.definitions.expressions import Ref, RelationTree, references
from hwkb.definitions.model import Fact, Model, Rule, VarKey
from hwkb.definitions.quantities import format_number
from hwkb.definitions.units import Units
from hwkb.errors import OutsideLimit

__all__ = ["Limit", "compile_limits", "check_limits", "largest_within", "limits_on"]

_HOLDS = {"<=": lambda a, b: a <= b * (1 + 1e-12), ">=": lambda a, b: a * (1 + 1e-12) >= b,
          "<": lambda a, b: a < b, ">": lambda a, b: a > b}
_VERBS = {"<=": "exceeds", "<": "reaches", ">=": "falls below", ">": "does not pass"}


@dataclass(frozen=True)
class Limit:
    """One instance of a limit rule: its two sides as functions of canonical values."""
    name: str
    rule: Rule
    relation: RelationTree
    keys: tuple[VarKey, ...]
    sides: Callable[[Mapping[VarKey, float]], tuple[float, float]]

    @property
    def condition(self) -> str:
        return self.rule.text

    def holds(self, canonical: Mapping[VarKey, float]) -> bool | None:
        """At canonical values of its keys; None when one has no value (the limit does not apply)."""
        if any(canonical.get(k) is None for k in self.keys):
            return None
        try:
            left, right = self.sides(canonical)
        except (ArithmeticError, ValueError):
            return None
        return _HOLDS[self.relation.op](left, right)


def compile_limits(model: Model) -> tuple[Limit, ...]:
    """Every instance of every limit rule (their dimensions were checked with the laws')."""
    out = []
    for rule in model.rules.values():
        if rule.kind != "limit":
            continue
        for combo in itertools.product(*(model.indices[i].values for i in rule.over)):
            binding = dict(zip(rule.over, combo))
            relation = rule.relation.map_refs(lambda r: Ref(r.name, binding.get(r.index, r.index)))
            keys = tuple(dict.fromkeys(str(r) for r in relation.references()))
            name = rule.name if not binding else f"{rule.name}[{','.join(binding.values())}]"
            sides = mapping_function([relation.lhs, relation.rhs], {k: k for k in keys})
            out.append(Limit(name, rule, relation, keys, sides))
    return tuple(out)


def limits_on(limits: Sequence[Limit], key: VarKey) -> tuple[Limit, ...]:
    return tuple(limit for limit in limits if key in limit.keys)


def check_limits(limits: Sequence[Limit], facts: Mapping[VarKey, Fact], units: Units) -> None:
    """Raise OutsideLimit for the first limit the ``facts`` break; limits they do not fully state are skipped."""
    named = {k for limit in limits for k in limit.keys if k in facts}
    canonical = {k: None if facts[k].value is None else units.to_canonical(facts[k].value, facts[k].unit)
                 for k in named}
    for limit in limits:
        if limit.holds(canonical) is False:
            raise _outside(limit, facts, canonical, units)


def _outside(limit: Limit, facts: Mapping[VarKey, Fact], canonical: Mapping[VarKey, float],
             units: Units) -> OutsideLimit:
    """The error for a broken limit: the left side as the subject, the right side as the bound, with sources."""
    relation = limit.relation
    values = dict(zip(("lhs", "rhs"), limit.sides(canonical)))
    left_keys = list(dict.fromkeys(str(r) for r in references(relation.lhs)))
    right_keys = [k for k in limit.keys if k not in left_keys]
    unit = facts[str(relation.rhs)].unit if isinstance(relation.rhs, Ref) else facts[limit.keys[0]].unit

    def shown(key: VarKey) -> str:
        return f"{key} = {format_number(facts[key].value)} {facts[key].unit}".rstrip()

    def side(name: str) -> str:
        node = getattr(relation, name)
        if isinstance(node, Ref):
            return shown(str(node))
        text = limit.condition.partition(relation.op)[0 if name == "lhs" else 2].strip()
        value = f"{text} = {format_number(units.from_canonical(values[name], unit))} {unit}".rstrip()
        return value if name == "rhs" else f"{value} (with {', '.join(shown(k) for k in left_keys)})"

    def provenance(key: VarKey) -> str:
        fact = facts[key]
        origin = ", ".join(p for p in (fact.entity, fact.source) if p) or "given"
        return origin if isinstance(relation.rhs, Ref) else f"{shown(key)} [{origin}]"

    subject, bound, sources = side("lhs"), side("rhs"), [provenance(k) for k in right_keys]
    listed = f" ({'; '.join(sources)})" if sources else ""
    error = OutsideLimit(f"{subject} {_VERBS[relation.op]} the launch limit {bound}{listed}: rule {limit.name}, "
                         f"{limit.condition}", where=facts[(left_keys or list(limit.keys))[0]].where,
                         hint=limit.rule.doc)
    error.rule, error.condition, error.subject, error.bound, error.facts = \
        limit.name, limit.condition, subject, bound, tuple(sources)
    return error


def largest_within(holds: Callable[[float], bool | None], integer: bool, ceiling: float) -> float | None:
    """The largest value up to ``ceiling`` where ``holds`` (assumed true on a run from the smallest value) is
    true: the edge a limit puts on a search; None when it never fails below ``ceiling``."""
    if holds(ceiling) is not False:
        return None
    low = 1.0 if integer else 2.0 ** -40
    if holds(low) is False:
        return 0.0
    high = ceiling
    if integer:
        lo, hi = int(low), int(high)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if holds(mid) is not False else (lo, mid)
        return float(lo)
    for _ in range(200):
        mid = math.sqrt(low * high) if high / low > 4 else (low + high) / 2
        low, high = (mid, high) if holds(mid) is not False else (low, mid)
        if high - low <= 1e-12 * high:
            break
    return float(f"{low:.12g}")
