"""An entity's audit built from templates is the text json.dumps gives its to_dict() with the render stage's words,
for every shape and value."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from finding_samples import shaped
from hwkb.audit.auditor import audit
from hwkb.audit.findings import Check, CheckKind, EntityAudit, Figure, Hint, NotApplicable, Suspect, Verdict
from hwkb.cli import flags
from hwkb.audit.targets import HARDWARE_KINDS
from hwkb.render.audit_json import entity_json
from hwkb.render.finding_words import entity_words


def dumped(a: EntityAudit) -> str:
    return flags.json_text(entity_words(a, a.to_dict()), compact=True)[:-1]


def test_every_audit_of_the_kb_is_the_dumped_dict(real_kb):
    ids = [e.id for e in real_kb.model.entities.values() if e.kind in HARDWARE_KINDS]
    report = audit(real_kb, ids)
    assert sum(len(a.checks) for a in report.entities) > 100
    for a in report.entities:
        assert entity_json(a) == dumped(a), a.entity


def test_the_templates_kept_are_bounded(real_kb, monkeypatch):
    from hwkb.render import audit_json
    monkeypatch.setattr(audit_json, "MAX_TEMPLATES", 3)
    monkeypatch.setattr(audit_json, "_CHECKS", {})
    monkeypatch.setattr(audit_json, "_FIGURES", {})
    monkeypatch.setattr(audit_json, "_SIDES", {})
    report = audit(real_kb, ["h100-sxm", "a100-80gb-sxm", "mi300x"])
    for a in report.entities:
        assert entity_json(a) == dumped(a), a.entity
    assert 0 < len(audit_json._CHECKS) <= 3 and 0 < len(audit_json._FIGURES) <= 3
    assert 0 < len(audit_json._SIDES) <= 3


@pytest.mark.parametrize("status", list(Verdict))
@pytest.mark.parametrize("deviation, values", [
    (0.5, (1.5, 1.0, 0.4, 100.0)), (None, (1.5, 1.0, 0.4, 100.0)), (math.nan, (1.5, 1.0, 0.4, 100.0)),
    (0.5, (1.5, math.inf, 0.4, 100.0)), (0.5, (-0.0, 1e300, 1e300, 5e-324)), (-math.inf, (math.nan,) * 4)])
def test_a_check_over_its_shape_is_written_as_its_figures_are(status, deviation, values):
    made, plain = shaped(status, deviation, values)
    assert entity_json(EntityAudit("x", "X", (made,))) == entity_json(EntityAudit("x", "X", (plain,))) \
        == dumped(EntityAudit("x", "X", (plain,)))


numbers = st.floats(allow_nan=True, allow_infinity=True) | st.floats(min_value=-1e-300, max_value=1e300)
texts = st.text(max_size=12)  # any code point: quotes, backslashes, control characters, non-ASCII
keys = st.sampled_from(["sm_count", "tc_peak[bf16]", "clock_tc", "a\"b\\c", "π\x07"])


@st.composite
def figures(draw) -> Figure:
    value = draw(numbers)
    stated = draw(st.booleans())
    lower, upper = (value, value) if stated else (draw(numbers), draw(numbers))
    return Figure(draw(keys), value, draw(texts), lower, upper, draw(st.none() | texts),
                  tuple(draw(st.lists(keys, max_size=2))), draw(st.none() | texts))


hints = st.builds(Hint, st.sampled_from(["sparse", "bits", "binary", "decimal", "power_of_two"]), keys,
                  numbers.filter(math.isfinite), numbers.filter(math.isfinite), texts,
                  st.sampled_from([2.0, 0.5, 8.0, 0.125, 1.024, 1 / 1.048576, 1000.0, 1e-6, 1024.0]),
                  st.none() | texts, st.none() | keys, st.booleans())
suspects = st.builds(Suspect, keys, st.none() | texts, numbers, texts, texts, st.none() | numbers,
                     st.none() | numbers, st.integers(0, 9), st.integers(0, 9), st.booleans(), st.booleans(),
                     st.none() | hints)


@st.composite
def checks(draw) -> Check:
    return Check(draw(texts), draw(st.sampled_from(CheckKind)), draw(st.sampled_from(Verdict)),
                 draw(st.none() | numbers), tuple(draw(st.lists(keys, max_size=3))), draw(keys), draw(figures()),
                 draw(figures()), tuple(draw(st.lists(figures(), max_size=3))), draw(texts), draw(texts),
                 tuple(draw(st.lists(keys, max_size=2))), tuple(draw(st.lists(suspects, max_size=2))),
                 draw(st.none() | hints), draw(numbers.filter(math.isfinite)))


@settings(max_examples=75, deadline=None)
@given(st.lists(checks(), max_size=3), st.lists(suspects, max_size=2),
       st.lists(st.lists(keys, min_size=1, max_size=2).map(tuple), max_size=2),
       st.dictionaries(texts | st.integers(), texts, max_size=2), st.lists(texts, max_size=2),
       st.lists(st.builds(NotApplicable, texts, keys, st.none() | texts, texts), max_size=1), texts, texts)
def test_random_audits_are_the_dumped_dict(checks, suspects, conflicts, groups, notes, withheld, entity, name):
    a = EntityAudit(entity, name, tuple(checks), tuple(suspects), tuple(conflicts), groups, tuple(notes),
                    tuple(withheld))
    assert entity_json(a) == dumped(a)


@pytest.mark.parametrize("value, lower, upper", [
    (1.5, math.inf, 2.0), (1.5, 1.0, math.inf), (1.5, -math.inf, math.inf), (math.nan, 1.0, 2.0), (1.5, math.nan, 2.0),
    (-0.0, -0.0, 0.0), (1e300, 1e-300, 5e-324), (2, 1, 3), (True, False, None)])
def test_each_kind_of_bound_is_written_as_json_writes_it(value, lower, upper):
    figure = Figure("clock_tc", value, "GHz", lower, upper)
    a = EntityAudit("x", "x", (Check("r", CheckKind.LAW, Verdict.CONSISTENT, None, ("clock_tc",), "clock_tc", figure,
                                      figure, (figure,), "doc", "source"),))
    assert entity_json(a) == dumped(a)
