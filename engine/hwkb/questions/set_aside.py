"""What a backward question sets aside beside the figure it asks about: the stated figures that would still fix it.

``hwkb solve memory_bandwidth --gpu mi300x ... --where 'decode_tokens_per_s >= target_tokens_per_s'`` asks which
bandwidths would do; the MI300X states its bandwidth, and also its bus width and data rate, whose law fixes the
bandwidth again once its own figure is set aside. :func:`set_aside_fixing_figures` sets those aside too, route
after route, and names each in a note (:mod:`hwkb.questions.thresholds` asks it).
"""
from __future__ import annotations

from typing import Sequence

from hwkb.definitions.model import VarKey
from hwkb.definitions.quantities import format_number
from hwkb.questions.interventions import downstream_of
from hwkb.solving.context import Context
from hwkb.solving.solver import Solver
from hwkb.solving.system import System

__all__ = ["set_aside_fixing_figures", "SET_ASIDE"]

_KEPT = {"set": "given with --set", "default": "a default", "scenario": "a scenario's"}
#: how the notes that name a figure set aside begin (a what-if shows them beside its table)
SET_ASIDE = "set aside"


def set_aside_fixing_figures(kb: System, variable: VarKey, context: Context,
                             where: Sequence[str]) -> tuple[Context, list[str]]:
    """``context`` without the stated figures that still fix ``variable`` once its own figure is set aside
    (the MI300X's bus width and data rate fix its bandwidth): the question is which values would do, so the
    figures that would move with it go too, route after route, each named in a note: first the stated results
    of laws it is a cause of (asked for a data rate, the bandwidth goes and the bus stays), else the stated
    causes of a law it is the result of (asked for a bandwidth, the bus and the data rate). A figure given with
    ``--set``, a scenario's or a default is kept: when only such figures fix the variable, the answer is that
    value, checked against the constraints, with a note naming what fixes it."""
    notes: list[str] = []
    downstream = downstream_of(kb, [variable])
    while True:
        base = Solver(kb, context, where).solution(variable, needs=False)
        if not base.determined or base.value is None or base.value.stated:
            return context, notes
        rests_on = base.value.facts()
        stated = [v for v in rests_on if v.origin.via == "fact"]
        moving = [v for v in stated if v.key in downstream]
        stated = moving or stated  # what moves with it first (a data rate's bandwidth), its causes only if none
        route = getattr(base.value.origin, "rule", "")
        if not stated:
            kept = ", ".join(f"{v.key} ({_KEPT.get(v.origin.via, v.origin.via)})" for v in rests_on)
            notes.append(f"{variable} is fixed by {kept} through {route}: the constraints check that value")
            return context, notes
        figures = " and ".join(f"{v.key} = {format_number(v.magnitude)} {v.unit}".rstrip() for v in stated)
        entities = ", ".join(dict.fromkeys(v.origin.entity for v in stated if v.origin.entity))
        fix = "they fix" if len(stated) > 1 else "it fixes"
        notes.append(f"{SET_ASIDE} {figures} ({entities}) too: {fix} {variable} through {route}")
        context = context.without([v.key for v in stated])
