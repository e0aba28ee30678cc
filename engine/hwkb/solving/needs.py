"""What would settle an undetermined key: :func:`~hwkb.solving.need_search.search_needs` for a solver, searched once
per KB for the same known keys (a search, like a plan, follows from which keys are known, not their values)."""
from __future__ import annotations

from hwkb.definitions.expressions import Ref
from hwkb.definitions.model import VarKey
from hwkb.solving.need_search import NeedSearch, search_needs

__all__ = ["needs_of", "budget_note", "same_figure", "MAX_SEARCHES"]

#: searches kept per KB before the memo starts again
MAX_SEARCHES = 4096


def needs_of(solver, key: VarKey) -> NeedSearch:
    """The search for the sets of facts that would settle ``key`` in a :class:`~hwkb.solving.solver.Solver`'s
    context (--where equalities make a structure of their own: not memoised)."""
    memo = None if solver.given else (solver.use_expectations, frozenset(solver.values),
                                      solver.context.shape, key)
    search = solver.kb.needs.get(memo) if memo else None
    if search is None:
        search = search_needs(solver.keysets, solver.values, key, solver.can_solve, solver.usable,
                              accept=lambda plan: solver.blocks_regular(plan, key),
                              excluded=solver.context.not_applicable, same=same_figure(solver, key))
        if memo:
            if len(solver.kb.needs) >= MAX_SEARCHES:
                solver.kb.needs.clear()
            solver.kb.needs[memo] = search
    return search


def same_figure(solver, key: VarKey) -> frozenset[VarKey]:
    """The keys the context's laws make equal to ``key`` alone, as ``workload_peak = tc_peak[fp8]`` does where the
    workload runs in FP8: the figure asked for under another name, so to give one is to give the answer."""
    same, grew = {key}, True
    while grew:
        grew = False
        for r, relation in enumerate(solver.relations):
            if (relation.defined_key is not None and isinstance(relation.ast.rhs, Ref)
                    and solver.usable(r) and set(relation.keys) & same
                    and not set(relation.keys) <= same):
                same |= set(relation.keys)
                grew = True
    return frozenset(same - {key})


def budget_note(key: VarKey, search: NeedSearch | None) -> tuple[str, ...]:
    """The note that says where a search stopped, when its budget ran out."""
    if search is None or search.complete:
        return ()
    return (f"the search for what would settle {key} stopped at its budget of {search.tried} trial plans, "
            f"during the sets of {search.largest} of the {search.candidates} nearest variables that reach it",)
