"""Readable renderings of values, their derivations and solutions, for the terminal: what the CLI prints.

The render stage's text of a solution, an explanation and derived values
(:mod:`hwkb.render.answers` names them as those results' text forms).
"""
from __future__ import annotations

from typing import Sequence

from hwkb.definitions.display import display_scale, format_number, format_parts, format_quantity
from hwkb.render.capacities import vendor_capacity_scale
from hwkb.solving.values import Value
from hwkb.render.note_words import intervals_text, note_text, range_text

__all__ = ["render_tree", "format_value", "render_solution", "render_answer", "render_limiter",
           "render_needs", "unsettled_reason", "render_derived", "render_implausible", "render_reachable",
           "render_whole_counts", "render_above_ceiling", "MAX_NEEDS_SHOWN"]


def format_value(value: Value) -> str:
    return format_quantity(value.magnitude, value.unit)


def render_tree(value: Value, indent: str = "") -> str:
    """The derivation as an indented tree, rules with their source, facts with entity and source.

    A fact met twice is printed in full once; later it is only named.
    """
    lines: list[str] = []
    _render(value, indent, lines, set(), last=True, root=True)
    return "\n".join(lines)


def _render(value: Value, prefix: str, lines: list[str], seen: set, last: bool, root: bool = False):
    branch = "" if root else ("└─ " if last else "├─ ")
    head = f"{value.key} = {format_value(value)}"
    origin = value.origin
    if value.stated:
        label = {"default": "default", "scenario": "scenario"}.get(origin.via)
        who = ", ".join(p for p in (origin.entity, label, origin.source) if p)
        lines.append(f"{prefix}{branch}{head}   [{who or 'fact'}]")
        pad = prefix + ("" if root else ("   " if last else "│  "))
        lines += [f"{pad}   another document: {format_quantity(o.value, value.unit)}   [{o.source}]"
                  for o in origin.also]
        return
    label = "simulation" if origin.kind == "simulated" else origin.kind
    bound = f" [bound by {', '.join(origin.bound_by)}]" if origin.bound_by else ""
    lines.append(f"{prefix}{branch}{head}   by {label} {origin.rule}{bound}" + (f": {origin.law}" if origin.law else "")
                 + (f" — {origin.source}" if origin.source else ""))
    if origin.parameters:
        params = ", ".join(f"{k}={v}" for k, v in origin.parameters)
        lines.append(f"{prefix}{'' if root else ('   ' if last else '│  ')}   ({params})")
    for chosen in origin.chosen:  # what picked this instance of the law: a layer's choice, a default or --set
        who = ", ".join(p for p in (chosen.entity, chosen.source) if p)
        lines.append(f"{prefix}{'' if root else ('   ' if last else '│  ')}   chosen: {chosen.choice} = {chosen.value}"
                     f"   [{who}]")
    child_prefix = prefix + ("" if root else ("   " if last else "│  "))
    for i, child in enumerate(origin.inputs):
        _render(child, child_prefix, lines, seen, last=i == len(origin.inputs) - 1)


#: an underdetermined answer lists this many sets of facts that would settle it; --json lists all
MAX_NEEDS_SHOWN = 6


def render_solution(solution, explain: bool = False) -> str:
    """A solution as ``hwkb solve`` prints it, and with ``explain`` its derivation trees as ``hwkb explain`` does."""
    lines = [render_answer(solution)]
    if solution.status == "infeasible" and "reachable" in solution.extra:
        lines.append(render_reachable(solution))
    if solution.value is not None:
        lines += [render_limiter(limiter) for limiter in solution.value.binding_limits()]
    if solution.status == "underdetermined":
        lines.append(render_needs(solution.needs))
    if solution.value is not None and vendor_capacity_scale(solution.unit, ()) is not None:
        lines.append(f"  as vendors print a system's memory: GB of 2^30 bytes, decimal prefixes above "
                     f"({format_quantity(solution.magnitude, solution.unit)})")
    above = getattr(solution, "above", None)
    if above is not None:
        lines.append(render_above_ceiling(above, solution.unit))
    whole = getattr(solution, "whole", None)
    if whole is not None:
        lines.append(render_whole_counts(whole, solution.unit))
    elif solution.intervals:
        lines.append(f"  admissible: {intervals_text(solution.intervals)}")
    lines += render_implausible(getattr(solution, "implausible", ()), solution.variable, solution.value)
    if solution.status == "inconsistent" and solution.alternatives:
        lines.append("  independent routes disagree beyond rounding:")
        for alternative in (solution.value, *solution.alternatives):
            route = "the stated fact" if alternative.stated else alternative.origin.rule
            lines.append(f"    {format_quantity(alternative.magnitude, alternative.unit)} via {route}")
    if explain and solution.value is not None:
        lines.append(render_tree(solution.value))
        for alternative in solution.alternatives:
            lines.append("also, by an independent route:")
            lines.append(render_tree(alternative))
    lines += [f"  note: {note_text(note)}" for note in solution.notes]
    return "\n".join(lines)


def render_implausible(implausible, target: str | None = None, answer: Value | None = None) -> list[str]:
    """Each value of a derivation outside its range (``target``'s own first, then those it rests on, then those of
    routes that disagree with the ``answer``), and the stated facts it rests on: one of them is likely misread
    (``hwkb audit`` ranks them)."""
    lines = []
    for found in implausible:
        quantity = f"{found.value.key} = {format_value(found.value)}"
        outside = f"outside {range_text(found.range, found.value.unit)}, the range real hardware spans ({found.range.source})"
        if target is not None and found.value.key != target:
            lines.append(f"  implausible: it rests on {quantity}, {outside}")
        elif answer is not None and found.value is not answer:
            lines.append(f"  implausible: another route gives {quantity}, {outside}")
        else:
            lines.append(f"  implausible: {quantity} is {outside}")
        rests_on = ", ".join(f"{f.key} = {format_value(f)} [{f.origin.entity or f.origin.via}]" for f in found.facts)
        lines.append(f"    from the stated {rests_on}: one of them is likely misread or does not apply "
                     f"(hwkb audit ranks them)")
    return lines


def render_above_ceiling(above, unit: str) -> str:
    """A derived value above its ceiling's stated figure: within the rounding of its figures, or beyond it."""
    value, ceiling, low, high = (format_quantity(x, unit) for x in (above.value, above.ceiling_value, above.lower,
                                                                      above.upper))
    if value == ceiling:  # 1.70006 GHz above 1.7 GHz: to six figures, as four would show them equal
        value = f"{above.value:.6g} {unit}".rstrip()
    rounding = f"the rounding of the figures it comes from ({low} to {high})"
    where = f"beyond {rounding}: one of them is likely misread" if above.beyond else f"within {rounding}"
    return f"  {above.key} = {value} is above the stated {above.ceiling} {ceiling}, {where}"


def render_whole_counts(whole, unit: str) -> str:
    """A count the figures give fractional: the whole counts within their rounding, or that none is."""
    low, high = (format_quantity(x, unit) for x in (whole.lower, whole.upper))
    computed = f"{whole.computed:.6g} {unit}".rstrip()  # to six figures: four would show 131.996 as a whole 132
    rounding = f"the rounding of the figures it comes from ({low} to {high}; {computed} as computed)"
    if not whole.any:
        return f"  no whole {whole.key} lies within {rounding}: they contradict one another"
    if whole.single:
        return f"  {format_quantity(whole.first, unit)}: the one whole {whole.key} within {rounding}"
    return (f"  any whole {whole.key} from {format_quantity(whole.first, unit)} to {format_quantity(whole.last, unit)}"
            f" lies within {rounding}")


def render_reachable(solution) -> str:
    """What an infeasible target's constrained quantity reaches at best, and the limit that holds it there."""
    reached = solution.extra["reachable"]
    amount = format_quantity(reached["value"], reached["unit"])
    at = f"{solution.variable} = {format_quantity(reached['at'], solution.unit)}"
    limiters = solution.extra.get("limiters")
    if not limiters:
        extreme = "highest" if reached["side"] == "most" else "lowest"
        return f"  the {extreme} {reached['quantity']} reached is {amount} (at {at})"
    held = f"caps {reached['quantity']} at {amount}" if reached["side"] == "most" else \
        f"keeps {reached['quantity']} at {amount} or more"
    return f"  {' = '.join(limiters)} {held} (the best reached, at {at})"


def render_limiter(value: Value) -> str:
    """Which named limit a min/max law took, and every limit's value: ``limited by blocks_limit_regs``."""
    bound = " = ".join(value.origin.bound_by)
    limits = ", ".join(f"{i.key} {format_value(i)}" for i in value.origin.inputs)  # a min of names: all limits
    return f"  limited by {bound} ({value.key} = {format_value(value)} by {value.origin.rule}; limits: {limits})"


_BOUND_SIGNS = {"upper": "<=", "lower": ">="}  # the side of an inequality's headline (questions.thresholds)


def render_answer(solution) -> str:
    """The first line: the value and its status, or the status alone; the vendor alias asked by, if any."""
    alias = getattr(solution, "alias", None)
    name = f"{solution.variable} ({alias})" if alias else solution.variable
    if solution.value is not None:
        bound = getattr(solution, "extra", {}).get("bound")
        ends = (solution.magnitude, solution.extra["upper"]) if bound == "both" else (solution.magnitude,)
        factor, unit = vendor_capacity_scale(solution.unit, ends) or display_scale(solution.unit, ends)
        numbers = [format_number(x * factor) for x in ends]
        if bound == "both":  # the interval of solutions: 7681–8192
            shown = f"= {numbers[0]}–{numbers[1]}"
        else:
            first = solution.intervals[0] if solution.intervals else None
            end, end_closed = ((first.upper, first.upper_closed) if bound == "upper" else
                               (first.lower, first.lower_closed)) if first is not None else (None, True)
            closed = end_closed or end != solution.magnitude  # an integer bound inside an open end is reached
            sign = _BOUND_SIGNS.get(bound, "=")
            shown = f"{sign if closed or sign == '=' else sign[0]} {numbers[0]}"
        return f"{name} {shown} {unit}  ({_status_words(solution)})"
    return f"{name}: {solution.status.replace('_', ' ')}"


def _status_words(solution) -> str:
    """A figure no document states but a rule assumes says so: ``(stated)`` alone would pass it for a vendor's."""
    if solution.status == "stated" and getattr(solution.value.origin, "via", "fact") == "default":
        return "stated: the rule's default"
    return solution.status


def render_needs(needs) -> str:
    """The sets of facts, any one of which would settle an underdetermined variable."""
    if not needs:
        return "  no further fact of the KB's variables settles it"
    shown = needs[:MAX_NEEDS_SHOWN]
    options = " or ".join("{" + ", ".join(keys) + "}" for keys in shown)
    more = len(needs) - len(shown)
    return f"  give one of {options}" + (f" (or one of {more} more sets: --json lists all)" if more else "")


def unsettled_reason(solution) -> str:
    """Why a solution has no value, on one line: the n/a it rests on, or what would settle it."""
    why = "; ".join(map(note_text, solution.notes)) or f"{solution.variable} is {solution.status.replace('_', ' ')}"
    return why + (f" ({render_needs(solution.needs).strip()})" if solution.status == "underdetermined" else "")


def render_derived(values: Sequence[Value], conflicts=None, implausible=None, whole=None, above=None) -> str:
    """Derived values as ``hwkb derive`` prints them: one aligned line each, with the rule that gave it;
    a value an independent route contradicts is marked, with the other routes' values, and so is one outside
    its range (or resting on such a value), with the range and the stated facts it rests on; a count read as
    whole counts and a value above its ceiling say so beneath, in ``solve``'s words."""
    conflicts, implausible, whole, above = conflicts or {}, implausible or {}, whole or {}, above or {}
    width = max((len(v.key) for v in values), default=0)
    lines = []
    for v in values:
        number, unit = format_parts(v.magnitude, v.unit)
        line = f"{v.key:<{width}}  {number:>10} {unit:<10}  via {v.origin.rule}"
        if v.key in conflicts:
            others = ", ".join(f"{format_value(a)} via {a.origin.rule}" for a in conflicts[v.key])
            line += f"  [inconsistent: {others}]"
        if v.key in implausible:
            found = implausible[v.key][0]
            line += (f"  [implausible: outside {range_text(found.range, v.unit)}]" if found.value.key == v.key
                     else f"  [implausible: rests on {found.value.key} = {format_value(found.value)}]")
        lines.append(line)
        if v.key in whole:
            lines.append(render_whole_counts(whole[v.key], v.unit))
        if v.key in above:
            lines.append(render_above_ceiling(above[v.key], v.unit))
    roots = {found.value.key: found for found_all in implausible.values() for found in found_all
             if found.value.key in implausible}
    lines += render_implausible(list(roots.values()))
    return "\n".join(lines)