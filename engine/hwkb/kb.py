"""The one door: :class:`KnowledgeBase` loads KB directories and answers questions.

>>> kb = KnowledgeBase.load()
>>> round(kb.solve("clock_tc", gpu="h100-sxm").value.magnitude, 2)
1.83
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from hwkb.definitions.model import VarKey
from hwkb.errors import QueryError
from hwkb.formats.load import load_model
from hwkb.formats.resources import default_kb_dirs
from hwkb.solving.context import Context
from hwkb.solving.relations import compile_relations
from hwkb.solving.solver import Solution, Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["KnowledgeBase"]


class KnowledgeBase(System):
    """Variables, rules, entities and their compiled relations; no global state.

    Loading twice gives two independent knowledge bases.
    """

    @classmethod
    def load(cls, directories: Iterable[Path | str] = (), *, default: bool = True) -> "KnowledgeBase":
        """The default KB (unless ``default=False``) with ``directories`` layered on top."""
        dirs = (default_kb_dirs() if default else []) + [Path(d) for d in directories]
        if not dirs:
            raise QueryError("no KB directory to load", hint="give --kb DIR or leave the default KB in")
        model, units = load_model(dirs)
        return cls(model, units, compile_relations(model, units), dirs)

    def solver(self, context: Context, where: Iterable[str] = (), use_expectations: bool = False) -> Solver:
        """Everything that follows from ``context`` (and the ``where`` equalities), evaluated once."""
        return Solver(self, context, where, use_expectations)

    # -- questions
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
