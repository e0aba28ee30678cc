"""What a key without a value answers: not applicable, where it rests on a figure stated n/a, else underdetermined
with the sets of facts that would settle it.

A key is absent where every law that defines it (the key alone on its left) runs through a key stated ``n/a``, or
through an absent key in turn: an FP8 workload's peak on a GPU whose ``tc_peak[fp8]`` is n/a does not exist, so
neither does its compute time, nor a decode rate bounded by it. Such a key answers ``not applicable`` with the
stated n/a facts it rests on, where the search for what would settle it would offer a figure the hardware does not
have (``give workload_peak``).
"""
from __future__ import annotations

from hwkb.definitions.model import VarKey
from hwkb.solving.needs import budget_note, needs_of
from hwkb.solving.solution import Solution, Status

__all__ = ["unsettled", "defined_by_absent", "absent_but_settled"]


def unsettled(solver, key: VarKey, unit: str, needs: bool) -> Solution:
    """The answer for ``key``, which a :class:`~hwkb.solving.solver.Solver` has no value for; ``needs=False``
    skips the search for what would settle it."""
    if solver.absent is None:
        solver.absent = defined_by_absent(solver)
    context = solver.context
    if key in solver.absent:
        facts = [(k, context.facts[k]) for k in sorted(solver.absent[key])]
        return Solution(key, Status.NOT_APPLICABLE, unit, notes=(
            f"{key} rests on what this context states as n/a: "
            + ", ".join(f"{k} ({f.where}{': ' + f.doc if f.doc else ''})" for k, f in facts),))
    search = needs_of(solver, key) if needs else None
    sets = search.sets if search else []
    beside = sorted({k for r, ks in enumerate(solver.keysets) if key in ks and r not in solver.unchosen
                     for k in ks & context.not_applicable})
    if beside and search is not None and not sets:  # unsearched (needs=False), a key beside an n/a is not one
        where = ", ".join(f"{k} ({context.facts[k].where})" for k in beside)
        return Solution(key, Status.NOT_APPLICABLE, unit,
                        notes=(f"{key} rests on what this context states as n/a: {where}",))
    return Solution(key, Status.UNDERDETERMINED, unit, needs=tuple(sets),
                    notes=solver.notes_about(key) + budget_note(key, search))


def defined_by_absent(solver) -> dict[VarKey, frozenset[VarKey]]:
    """Each absent key of the solver's context that it has no value for, with the stated n/a keys it rests on."""
    defines = _definitions(solver)
    stated = solver.context.not_applicable
    absent = {k: frozenset((k,)) for k in stated}
    grew = True
    while grew:
        grew = False
        for key, causes in defines.items():
            if key in absent or key in solver.values:
                continue
            through = [[k for k in inputs if k in absent] for inputs in causes]
            if all(through):
                absent[key] = frozenset().union(*(absent[k] for ks in through for k in ks))
                grew = True
    return {k: v for k, v in absent.items() if k not in stated}


def absent_but_settled(solver, known: set[VarKey]) -> set[VarKey]:
    """The absent keys that only the n/a keeps from a value: a law defining each has every input absent or in
    ``known`` (an FP8 decode rate on an A100, not an FP8 GEMM time where no GEMM is given)."""
    absent = defined_by_absent(solver)
    gone = absent.keys() | solver.context.not_applicable
    return {key for key, inputs in _definitions(solver).items() if key in absent
            and any(all(k in gone or k in known for k in ks) for ks in inputs)}


def _definitions(solver) -> dict[VarKey, list[tuple[VarKey, ...]]]:
    """Each key a law defines (alone on its left) with the other keys of each such law the context may use."""
    defines: dict[VarKey, list[tuple[VarKey, ...]]] = {}
    for r, relation in enumerate(solver.relations):
        lhs = relation.defined_key
        if lhs is not None and r not in solver.unchosen and r not in solver.given:
            defines.setdefault(lhs, []).append(tuple(k for k in relation.keys if k != lhs))
    return defines
