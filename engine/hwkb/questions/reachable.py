"""What an infeasible target could reach: the best value of the constrained quantity over the variable's domain.

``hwkb solve regs_per_thread --gpu a100 --set threads_per_block=256 --set smem_per_block=48KiB --where
'occupancy >= 0.5'`` has no answer: at 48 KiB a block, shared memory holds three blocks, 37.5 %, whatever the
registers. The answer says so: the variable is probed at the powers of two within its domain and at its
ends, the point where the constraints are missed by the least is kept, and the quantity's value there is
reported with the limit a min/max law took on the way (``blocks_limit_smem``), as the JSON fields
``reachable``, ``limiter`` and ``limiters`` of the :class:`~hwkb.solving.solution.Solution`.
"""
from __future__ import annotations

from typing import Sequence

from hwkb.definitions.model import VarKey
from hwkb.errors import KBError, NotDetermined
from hwkb.questions.searches import MAX_INTEGER, REAL_PROBES
from hwkb.solving.context import Context
from hwkb.solving.points import PointEvaluator
from hwkb.solving.system import System

__all__ = ["best_reached"]


def best_reached(kb: System, variable: VarKey, context: Context, constraints: Sequence, where: Sequence[str],
                 upper: float | None, integer: bool) -> dict:
    """For an infeasible target: the best value the constrained quantity reaches over the domain (probed at
    powers of two and the domain's ends), the most or the least of it as the constraint asks, and the limit that
    holds it there, as the answer's JSON fields (:func:`hwkb.render.solution_text.render_reachable` prints them)."""
    keys = list(dict.fromkeys(k for c in constraints for k in c.keys if k != variable))
    try:
        evaluate = PointEvaluator(kb, context, [variable], keys, where)
    except NotDetermined:
        return {}
    top = upper if upper is not None else (MAX_INTEGER if integer else REAL_PROBES[-1])
    start = 1.0 if integer else REAL_PROBES[0]
    probes = sorted({*(2.0 ** k for k in range(-40, 61) if start <= 2.0 ** k <= top), start, float(top)})
    unit = kb.model.unit_of(variable)
    best = None
    for x in probes:
        try:
            point = evaluate({variable: x})
        except KBError:
            continue
        if any(point.get(k) is None for k in keys):
            continue
        values = {k: point[k].canonical for k in keys}
        values[variable] = kb.units.to_canonical(x, unit)
        worst = min(constraints, key=lambda c: c.slack(values))
        score = worst.slack(values)
        if best is None or score > best[0] + 1e-12:
            best = (score, x, worst, values, point)
    if best is None:
        return {}
    _, x, worst, values, point = best
    left, right = worst.sides(values)
    subject_left = bool(list(worst.lhs.free_symbols)) or not worst.rhs.free_symbols
    subject = worst.side_text(subject_left)
    reached = left if subject_left else right
    shown_unit = ""
    limiters: tuple[str, ...] = ()
    if subject in point and point[subject] is not None:
        reached, shown_unit = point[subject].magnitude, point[subject].unit
        limit_value = point[subject].binding_limit()
        limiters = () if limit_value is None else tuple(limit_value.origin.bound_by)
    maximizing = (worst.op in (">=", ">")) == subject_left
    out = {"reachable": {"quantity": subject, "value": reached, "unit": shown_unit, "at": x,
                         "side": "most" if maximizing else "least"}}
    if limiters:
        out.update(limiter=limiters[0], limiters=list(limiters))
    return out
