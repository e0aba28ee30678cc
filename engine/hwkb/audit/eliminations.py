"""Checks hidden in a singular pair of laws: two laws in the same unknowns that fix only a combination of them.

A sheet with an FP16 and an FP8 peak but no SM count or clock leaves ``tensor_peak[fp16]`` and
``tensor_peak[fp8]`` each with two unknowns, so the planner gives neither a route and the audit would see no
check. Yet the pair fixes only the product SMs x clock, and so implies a relation among the stated figures:
the FP16 peak is the FP8 peak times the ratio of their per-SM rates. Solving one law for a shared unknown and
putting it into the other eliminates the unknowns; where they cancel, what is left is a check of stated facts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence

from hwkb.definitions.model import VarKey
from hwkb.solving.relations import Relation, symbol_of

if TYPE_CHECKING:
    import sympy

__all__ = ["HiddenCheck", "hidden_checks"]


class HasExpr(Protocol):
    """A route of :mod:`hwkb.audit.analysis`: a known key as an expression of stated facts, and its rule."""
    expr: sympy.Expr
    rule: str | None


@dataclass(frozen=True)
class HiddenCheck:
    """``target`` of ``first`` as stated (``own``) against what ``first`` implies with ``second``'s unknowns put in."""
    first: Relation
    second: Relation
    target: VarKey
    own: sympy.Expr
    implied: sympy.Expr
    unknowns: tuple[VarKey, ...]

    @property
    def name(self) -> str:
        return f"{self.first.name} with {self.second.name}"

    @property
    def keys(self) -> tuple[VarKey, ...]:
        """The known keys of both laws, each once."""
        return tuple(dict.fromkeys(k for r in (self.first, self.second) for k in r.keys if k not in self.unknowns))


def hidden_checks(relations: Sequence[Relation], routes: Mapping[VarKey, HasExpr],
                  usable: Callable[[int], bool]) -> list[HiddenCheck]:
    """The checks of the laws left with two or more unknowns, grouped by their unknowns: each law of a group
    against the group's first, where the unknowns cancel."""
    groups: dict[frozenset[VarKey], list[Relation]] = {}
    for i, relation in enumerate(relations):
        unknowns = frozenset(k for k in relation.keys if k not in routes)
        if len(unknowns) >= 2 and relation.kind == "law" and relation.template is not None and usable(i):
            groups.setdefault(unknowns, []).append(relation)
    out = []
    for unknowns, members in groups.items():
        for other in members[1:]:
            check = _eliminate(members[0], other, sorted(unknowns), routes)
            if check is not None:
                out.append(check)
    return out


def _eliminate(first: Relation, second: Relation, unknowns: list[VarKey],
               routes: Mapping[VarKey, HasExpr]) -> HiddenCheck | None:
    symbols = {symbol_of(k) for k in unknowns}
    for unknown in unknowns:
        if not second.can_solve_for(unknown):
            continue
        given = second.solution(unknown)
        if given is None:
            continue
        given = given.xreplace({symbol_of(k): routes[k].expr for k in second.keys if k in routes})
        stated_first = sorted((k for k in first.keys if k in routes), key=lambda k: routes[k].rule is not None)
        for target in stated_first:
            solved = first.solution(target) if first.can_solve_for(target) else None
            if solved is None:
                continue
            others = {symbol_of(k): routes[k].expr for k in first.keys if k in routes and k != target}
            implied = solved.xreplace({**others, symbol_of(unknown): given})
            if implied.free_symbols & symbols:
                import sympy  # already loaded: the solutions above are SymPy's
                implied = sympy.cancel(implied)
            if not implied.free_symbols & symbols:
                return HiddenCheck(first, second, target, routes[target].expr, implied, tuple(unknowns))
    return None
