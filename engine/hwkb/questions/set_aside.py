"""What a backward question sets aside beside the figure it asks about.

``hwkb solve memory_bandwidth --gpu mi300x ... --where 'decode_tokens_per_s >= 100 token/s'`` asks which
bandwidths would do. The MI300X states its bandwidth, which goes; what the asked figure drives is released and
what the baseline worked back from it is held by the same rule a what-if follows
(:func:`hwkb.questions.interventions.release`): asked for an H100's SM count, its stated peaks go and its clock is
held. Then the stated figures that would still fix it go too, route after route (the MI300X's bus width and data
rate, whose law fixes the bandwidth again), each named in a note (:mod:`hwkb.questions.thresholds` asks it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hwkb.definitions.model import VarKey
from hwkb.questions.interventions import HELD, release
from hwkb.solving.context import Context
from hwkb.solving.solver import Solver
from hwkb.solving.system import System

__all__ = ["set_aside", "set_aside_fixing_figures", "sets_aside", "AskedSetAside", "FixingSetAside", "SET_ASIDE"]

_KEPT = {"set": "given with --set", "default": "a default", "scenario": "a scenario's"}
#: how the notes that name a figure set aside begin (a what-if shows them beside its table)
SET_ASIDE = "set aside"


@dataclass(frozen=True)
class AskedSetAside:
    """A note: the stated ``variable`` (``value`` in ``unit``, of ``entity``; None: a default) set aside to solve
    for it; :mod:`hwkb.render.note_words` words it."""
    variable: VarKey
    value: float
    unit: str
    entity: str | None


@dataclass(frozen=True)
class FixingSetAside:
    """A note: the stated ``figures`` (key, magnitude, unit) of ``entities`` set aside too, since they still fixed
    ``variable`` through ``route``; :mod:`hwkb.render.note_words` words it."""
    figures: tuple[tuple[VarKey, float, str], ...]
    entities: tuple[str, ...]
    variable: VarKey
    route: str


def sets_aside(note) -> bool:
    """Whether ``note`` names what a backward question set aside or held (a what-if shows these beside its table)."""
    return isinstance(note, (AskedSetAside, FixingSetAside)) or (
        isinstance(note, str) and note.startswith((SET_ASIDE, HELD)))


def set_aside(kb: System, variable: VarKey, context: Context, where: Sequence[str]) -> tuple[Context, list]:
    """``context`` ready to ask which values of ``variable`` would do: its stated figure set aside, what it drives
    released and what was worked back from it held (:func:`~hwkb.questions.interventions.release`), then the
    figures that would still fix it (:func:`set_aside_fixing_figures`), each step in a note."""
    fact = context.facts[variable]
    notes: list = [AskedSetAside(variable, fact.value, fact.unit, fact.entity)]
    freed = release(kb, context, [variable], context.without([variable]), where)
    if freed.released:
        figures = ", ".join(f"{f.key} = {f.text} {f.unit}".rstrip() for f in freed.released)
        entities = ", ".join(dict.fromkeys(f.entity for f in freed.released if f.entity))
        routes = ", ".join(dict.fromkeys(r for f in freed.released for r in freed.routes[f.key]))
        follow = "they follow" if len(freed.released) > 1 else "it follows"
        notes.append(f"{SET_ASIDE} {figures} ({entities}) too: {follow} {variable} through {routes}")
    if freed.held:
        notes.append(f"{HELD}: {', '.join(sorted(f.key for f in freed.held))}")
    context, fixing = set_aside_fixing_figures(kb, variable, freed.context, where)
    return context, notes + fixing


def set_aside_fixing_figures(kb: System, variable: VarKey, context: Context,
                             where: Sequence[str]) -> tuple[Context, list]:
    """``context`` without the stated figures that still fix ``variable`` once its own figure and what it drives
    are set aside (the MI300X's bus width and data rate fix its bandwidth): the question is which values would
    do, so those go too, route after route, each named in a note. A figure given with ``--set``, a scenario's or
    a default is kept: when only such figures fix the variable, the answer is that value, checked against the
    constraints, with a note naming what fixes it."""
    notes: list = []
    while True:
        base = Solver(kb, context, where).solution(variable, needs=False)
        if not base.determined or base.value is None or base.value.stated:
            return context, notes
        rests_on = base.value.facts()
        stated = [v for v in rests_on if v.origin.via == "fact"]
        route = getattr(base.value.origin, "rule", "")
        if not stated:
            kept = ", ".join(f"{v.key} ({_KEPT.get(v.origin.via, v.origin.via)})" for v in rests_on)
            notes.append(f"{variable} is fixed by {kept} through {route}: the constraints check that value")
            return context, notes
        entities = tuple(dict.fromkeys(v.origin.entity or "baseline" for v in stated))
        notes.append(FixingSetAside(tuple((v.key, v.magnitude, v.unit) for v in stated), entities, variable, route))
        context = context.without([v.key for v in stated])
