"""The one door: :class:`KnowledgeBase` loads KB directories and answers questions.

>>> kb = KnowledgeBase.load()
>>> round(kb.solve("clock_tc", gpu="h100-sxm").value.magnitude, 2)
1.83
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from hwkb.solving.context import Context, build_context
from hwkb.errors import DimensionError, Location, QueryError
from hwkb.definitions.expressions import Num, Ref, parse_relation
from hwkb.formats.load import load_model
from hwkb.definitions.model import Model, VarKey
from hwkb.formats.resources import default_kb_dirs
from hwkb.solving.relations import Relation, check_dimensions, compile_relations
from hwkb.solving.solver import Solution, Solver
from hwkb.definitions.units import Units
from hwkb.solving.values import Value

__all__ = ["KnowledgeBase"]


class KnowledgeBase:
    """Variables, rules, entities and their compiled relations; no global state.

    Loading twice gives two independent knowledge bases.
    """

    def __init__(self, model: Model, units: Units, relations: list[Relation], directories: Sequence[Path]):
        self.model, self.units, self.relations = model, units, relations
        self.directories = tuple(directories)
        self.relation_index = {r.name: r for r in relations}

    @classmethod
    def load(cls, directories: Iterable[Path | str] = (), *, default: bool = True) -> "KnowledgeBase":
        """The default KB (unless ``default=False``) with ``directories`` layered on top."""
        dirs = (default_kb_dirs() if default else []) + [Path(d) for d in directories]
        if not dirs:
            raise QueryError("no KB directory to load", hint="give --kb DIR or leave the default KB in")
        model, units = load_model(dirs)
        return cls(model, units, compile_relations(model, units), dirs)

    # -- contexts
    def context(self, gpu: str | None = None, layers: Iterable[str] = (), facts: Iterable = (),
                via: str = "set", base: Context | None = None) -> Context:
        return build_context(self.model, self.units, gpu, layers, facts, via=via, base=base)

    def solver(self, context: Context, where: Iterable[str] = (), use_expectations: bool = False) -> Solver:
        return Solver(self, context, self.where_relations(where), use_expectations)

    def where_relations(self, where: Iterable[str]) -> list[Relation]:
        """``--where`` equalities as relations (inequalities are handled by hwkb.questions.thresholds)."""
        out = []
        for i, text in enumerate(where):
            relation = self.parse_where(text, i)
            if relation.op == "=":
                out.append(self._compile_where(relation, f"where[{i + 1}]", text))
        return out

    def has_inequalities(self, where: Iterable[str]) -> bool:
        """Whether any ``--where`` is a constraint (<=, >=, <, >) rather than an equality."""
        return any(self.parse_where(w, i).op != "=" for i, w in enumerate(where))

    def parse_where(self, text: str, i: int = 0):
        origin = Location(f"--where {text!r}")
        relation = parse_relation(text, origin)
        for ref in relation.references():
            self.model.check_key(str(ref), where=origin)
        try:
            check_dimensions(relation, self.model, self.units, where=origin)
        except DimensionError as exc:
            sides = (relation.lhs, relation.rhs)
            if any(isinstance(a, Num) for a in sides) and any(isinstance(b, Ref) for b in sides):
                ref = next(b for b in sides if isinstance(b, Ref))
                unit = self.model.unit_of(str(ref))
                raise DimensionError(exc.message, where=origin, hint=(
                    f"a bare number has no unit, and {ref} is in {unit}: compare {ref} with another variable "
                    f"of that unit, or a ratio of such variables with a number")) from None
            raise
        return relation

    def _compile_where(self, relation, name: str, text: str) -> Relation:
        from hwkb.definitions.model import Model, Rule
        rule = Rule(name, "law", f"given: {text}", "given on the command line", Location("--where"), relation, text)
        single = Model(self.model.indices, self.model.variables, {name: rule}, {}, ())
        return compile_relations(single, self.units)[0]

    # -- questions
    def check_key(self, key: VarKey) -> VarKey:
        self.model.check_key(key)
        return key

    def solve(self, variable: VarKey, gpu: str | None = None, layers: Iterable[str] = (), facts: Iterable = (),
              where: Iterable[str] = ()) -> Solution:
        """The value of one variable in a context, with its derivation, or what it needs."""
        self.check_key(variable)
        where = list(where)
        context = self.context(gpu, layers, facts)
        if self.has_inequalities(where):
            from hwkb.questions.thresholds import solve_constrained
            return solve_constrained(self, variable, context, where)
        return self.solver(context, where).solution(variable)

    def derive(self, gpu: str | None = None, layers: Iterable[str] = (), facts: Iterable = ()) -> list[Value]:
        """Every value that follows from the context but is not stated in it."""
        return self.solver(self.context(gpu, layers, facts)).derived()
