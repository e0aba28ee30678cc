"""What every question is asked of: a model, its units and its compiled relations, and the query context.

:class:`System` is the knowledge base below the questions: it builds contexts
(``--gpu``, ``--with``, ``--set``), reads ``--where`` relations against the
model and compiles their equalities. A :class:`~hwkb.solving.solver.Solver`
works on one System and one context; the facade
:class:`~hwkb.kb.KnowledgeBase` is a System with a method per question.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from hwkb.definitions.expressions import Num, Quantity, Ref, RelationTree, parse_where_relation
from hwkb.definitions.model import Model, Rule, VarKey
from hwkb.definitions.units import Units, format_dimensions
from hwkb.errors import DimensionError, KBError, Location
from hwkb.formats.caches import SolutionCache
from hwkb.solving.block_results import BlockResults
from hwkb.solving.context import Context, build_context
from hwkb.solving.limit_rules import Limit, check_limits, compile_limits
from hwkb.solving.need_search import NeedSearch
from hwkb.solving.plan import Plan
from hwkb.solving.relations import Relation, check_dimensions, compile_relations

__all__ = ["System"]


class System:
    """Variables, rules, entities and their compiled relations; no global state.

    Built twice, it gives two independent systems.
    """

    def __init__(self, model: Model, units: Units, relations: list[Relation], directories: Sequence[Path] = (),
                 solutions: SolutionCache | None = None):
        self.model, self.units, self.relations = model, units, relations
        self.directories = tuple(directories)
        self.solutions = SolutionCache() if solutions is None else solutions  # --where equalities solve through it
        self.regular_blocks: dict[tuple, bool] = {}  # a block of the KB's laws -> regular at random inputs
        self.block_results = BlockResults(self.solutions.directory)  # blocks' roots and regularity, on disk
        self.relation_index = {r.name: r for r in relations}
        self._chosen_positions: dict[tuple[str, ...], tuple[tuple[int, Relation], ...]] = {}
        self.limits: tuple[Limit, ...] = compile_limits(model)  # a context's facts must satisfy these
        #: plans by what a query knows (which keys, which are n/a, expectations or not): a plan follows from the
        #: structure alone, so queries that know the same keys share one (solving.solver fills it)
        self.plans: dict[tuple, Plan] = {}
        #: searches for what would settle an undetermined key, by the same known keys and that key
        self.needs: dict[tuple, NeedSearch] = {}

    def context(self, gpu: str | None = None, layers: Iterable[str] = (), facts: Iterable = (),
                via: str = "set", base: Context | None = None) -> Context:
        """The known facts of a query: ``gpu``'s chain, the ``layers`` on it, then ``facts`` (later wins).

        Raises OutsideLimit when the facts break a limit rule (a launch CUDA refuses)."""
        context = build_context(self.model, self.units, gpu, layers, facts, via=via, base=base)
        check_limits(self.limits, context.facts, self.units)
        return context

    def unchosen(self, kinds: tuple[str, ...], chosen: Mapping[str, str]) -> frozenset[int]:
        """Where, among the relations of ``kinds`` in order, are the instances of laws indexed by a choice
        (``matmul_peak[fp8]``) at a value other than the one ``chosen`` names: a Structure switches them off."""
        positions = self._chosen_positions.get(kinds)
        if positions is None:
            positions = self._chosen_positions[kinds] = tuple(
                (i, r) for i, r in enumerate(r for r in self.relations if r.kind in kinds) if r.rule.chosen)
        return frozenset(i for i, relation in positions if not relation.chosen_in(chosen))

    def check_key(self, key: str) -> VarKey:
        """The key of the variable ``key`` names (a vendor alias resolved), or an UnknownNameError."""
        key = self.model.resolve_key(key)
        self.model.check_key(key)
        return key

    # -- --where
    def where_relations(self, where: Iterable[str]) -> list[Relation]:
        """``--where`` equalities as relations (inequalities are thresholds: :mod:`hwkb.questions.thresholds`)."""
        out = []
        for i, text in enumerate(where):
            relation = self.parse_where(text, i)
            if relation.op == "=":
                out.append(self._compile_where(relation, f"where[{i + 1}]", text))
        return out

    def has_inequalities(self, where: Iterable[str]) -> bool:
        """Whether any ``--where`` is a constraint (<=, >=, <, >) rather than an equality."""
        return any(self.parse_where(w, i).op != "=" for i, w in enumerate(where))

    def parse_where(self, text: str, i: int = 0) -> RelationTree:
        """One ``--where`` read and checked against the model: names, indices and dimensions. A side may be a
        number with a unit (``100 token/s``), read with the KB's units as a constant of the other side's
        dimension."""
        origin = Location(f"--where {text!r}")

        def quantity(number: Fraction, unit: str, written: str) -> Quantity:
            try:
                factor = self.units.to_canonical(1.0, unit)
            except KBError as exc:
                raise exc.at(origin) from None
            return Quantity(number * Fraction(repr(factor)), unit, written)

        relation = self.model.resolve_relation(parse_where_relation(text, origin, quantity))
        for ref in relation.references():
            self.model.check_key(str(ref), where=origin)
        try:
            check_dimensions(relation, self.model, self.units, where=origin)
        except DimensionError as exc:
            sides = (relation.lhs, relation.rhs)
            if any(isinstance(s, Quantity) for s in sides):
                raise self._unit_mismatch(relation, exc, origin) from None
            if any(isinstance(a, Num) for a in sides) and any(isinstance(b, Ref) for b in sides):
                ref = next(b for b in sides if isinstance(b, Ref))
                unit = self.model.unit_of(str(ref))
                raise exc.with_hint(
                    f"a bare number has no unit, and {ref} is in {unit}: write the number with a unit "
                    f"('{_number_text(sides)} {unit}'), or compare {ref} with another variable of that unit") from None
            raise
        return relation

    def _unit_mismatch(self, relation: RelationTree, exc: DimensionError, origin: Location) -> DimensionError:
        """A quantity whose unit is not of the other side's dimension, both named with their units."""
        if exc.operation != "=":
            return exc.at(origin)

        def shown(side) -> str:
            dims = format_dimensions(self.units.dimensions(side.unit) if isinstance(side, Quantity) else
                                     self.units.dimensions(self.model.unit_of(str(side))) if isinstance(side, Ref)
                                     else frozenset())
            if isinstance(side, Quantity):
                return f"{side.text!r} ({dims})"
            if isinstance(side, Ref):
                return f"{side}, in {self.model.unit_of(str(side)) or 'a plain number'} ({dims})"
            return exc.left if side is relation.lhs else exc.right

        quantity = next(s for s in (relation.lhs, relation.rhs) if isinstance(s, Quantity))
        other = relation.rhs if quantity is relation.lhs else relation.lhs
        other_dims = exc.right if quantity is relation.lhs else exc.left
        return DimensionError(shown(relation.lhs), shown(relation.rhs), where=origin,
                              hint=f"give {quantity.text!r} in a unit of {other_dims}"
                                   + (f", such as {self.model.unit_of(str(other))}"
                                      if isinstance(other, Ref) and self.model.unit_of(str(other)) else ""))

    def _compile_where(self, relation: RelationTree, name: str, text: str) -> Relation:
        rule = Rule(name, "law", f"given: {text}", "given on the command line", Location("--where"), relation, text)
        single = Model(self.model.indices, self.model.variables, {name: rule}, {}, ())
        return compile_relations(single, self.units, self.solutions)[0]


def _number_text(sides) -> str:
    number = next(s for s in sides if isinstance(s, Num)).value
    return str(number) if number.denominator == 1 else f"{float(number):g}"
