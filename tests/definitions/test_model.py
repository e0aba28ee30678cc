"""hwkb.definitions.model: frozen data, key arithmetic, name checks and the extends chain."""
from __future__ import annotations

import math

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import example, given, settings, strategies as st

from hwkb.definitions import model as model_module
from hwkb.errors import KBError, Location, UnknownNameError
from hwkb.definitions.model import Entity, Fact, IndexSet, Model, Variable, split_key, var_key
from hwkb.definitions.printed import printed_interval, read_to_least_figures

HERE = Location("f.yaml", 1, 1)


def test_all_names_exist():
    assert sorted(model_module.__all__) == sorted([
        "VarName", "VarKey", "EntityId", "IndexSet", "Range", "Ceiling", "Variable", "Fact", "Rule", "Simulation", "SimulationModel",
        "SIMULATION_MODELS", "Entity", "Model", "ancestry", "var_key", "split_key", "half_unit", "alias_table", "resolve_name",
        "RULE_KINDS", "ENTITY_KINDS"])
    for name in model_module.__all__:
        assert hasattr(model_module, name)


def test_kinds():
    assert model_module.RULE_KINDS == ("law", "expectation", "simulated", "limit")
    assert {"architecture", "product", "instruction", "workload", "scenario"} <= set(model_module.ENTITY_KINDS)


@pytest.mark.parametrize("name, index, key", [("tc_peak", "bf16", "tc_peak[bf16]"), ("sm_count", None, "sm_count")])
def test_var_key_and_split_key_are_inverse(name, index, key):
    assert var_key(name, index) == key
    assert split_key(key) == (name, index)


def test_split_key_of_odd_text():
    assert split_key("a[b]c") == ("a[b]c", None)
    assert split_key("a[b[c]]") == ("a", "b[c]")


def _fact(text, tolerance=None, value=1.0):
    return Fact("clock", value, "GHz", text, None, "chip", HERE, tolerance=tolerance)


@pytest.mark.parametrize("text, rounding", [
    ("989.4", 0.05), ("132", 0.5), ("1.83", 0.005), ("1.5e3", 50.0), ("2.50E-3", 0.000005), ("1_000", 50.0),
    ("-3.25", 0.005), ("2520", 5.0), ("900", 5.0), ("3000000000000", 5e10), ("1000000000.0", 5e7),
    ("1410000000.0", 5e6), ("8", 0.5), ("1.500", 0.0005), ("6.0", 0.05), ("0", 0.5), ("1e9", 5e7), ("2E12", 5e10),
])
def test_rounding_is_half_the_last_significant_digit(text, rounding):
    """Trailing zeros of a whole number (and a program's '.0') are not significant, but dropping them leaves two
    figures at least; zeros printed after a decimal point are significant."""
    assert _fact(text).rounding == pytest.approx(rounding)


@pytest.mark.parametrize("text, below, above", [("3.2", 0.05, 0.1), ("900", 5.0, 10.0), ("1228", 0.5, 1.0),
                                                ("8", 0.5, 0.5), ("1e9", 5e7, 1e8)])   # one digit: rounded only
def test_a_printed_figure_may_be_rounded_or_cut_short(text, below, above):
    assert _fact(text).interval == pytest.approx((below, above))
    assert _fact(text, tolerance=0.2).interval == (0.2, 0.2)


@pytest.mark.parametrize("text, coarse", [("900", True), ("3000000000000", True), ("1000000000.0", True),
                                          ("1e9", True), ("3200", False), ("1228", False), ("8", False),
                                          ("6.0", False)])
def test_a_figure_read_to_more_digits_than_it_prints_says_so(text, coarse):
    assert read_to_least_figures(text) is coarse


def test_tolerance_overrides_the_printed_digits():
    assert _fact("1.83", tolerance=0.1).rounding == 0.1
    assert _fact("132", tolerance=0.0).rounding == 0.0


def test_not_applicable_fact():
    assert _fact("n/a", value=None).applicable is False
    assert _fact("1.83").applicable is True


@pytest.mark.parametrize("obj, field", [
    (_fact("1"), "value"),
    (Variable("clock", "GHz", "doc", HERE), "unit"),
    (IndexSet("precision", ("fp16",), "", HERE), "values"),
    (Entity("chip", "product", "Chip", "", HERE), "extends"),
])
def test_definitions_are_frozen(obj, field):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, None)


def test_model_tables_are_read_only(tiny_kb):
    m = tiny_kb.model
    for table in (m.indices, m.variables, m.rules, m.entities):
        with pytest.raises(TypeError):
            table["new"] = None


def test_model_copies_the_tables_it_is_given():
    variables = {"clock": Variable("clock", "GHz", "doc", HERE)}
    m = Model({}, variables, {}, {}, ())
    variables["other"] = Variable("other", "", "doc", HERE)
    assert list(m.variables) == ["clock"]


def test_variable_keys(tiny_kb):
    m = tiny_kb.model
    assert m.variables["peak"].keys(m.indices) == ("peak[fp16]", "peak[bf16]")
    assert m.variables["clock"].keys(m.indices) == ("clock",)


def test_all_keys(tiny_kb):
    assert tiny_kb.model.all_keys() == [
        "sm_count", "clock", "fma_rate[fp16]", "fma_rate[bf16]", "peak[fp16]", "peak[bf16]"]


def test_what_the_tiny_kb_declares(tiny_kb):
    m = tiny_kb.model
    assert list(m.indices) == ["precision"] and m.indices["precision"].values == ("fp16", "bf16")
    assert list(m.variables) == ["sm_count", "clock", "fma_rate", "peak"]
    assert m.variables["sm_count"].integer and not m.variables["clock"].integer
    assert (m.variables["peak"].unit, m.variables["peak"].index) == ("TFLOPS", "precision")
    assert list(m.rules) == ["peak_law", "bf16_is_fp16"]
    assert m.rules["peak_law"].over == ("precision",) and m.rules["bf16_is_fp16"].over == ()
    assert {r.kind for r in m.rules.values()} == {"law"}
    assert list(m.entities) == ["arch", "chip"]
    assert m.entities["chip"].extends == ("arch",)


def test_every_item_knows_its_file_and_line(tiny_kb):
    m = tiny_kb.model
    assert m.variables["clock"].where.file.endswith("tiny/rules/compute.yaml")
    assert (m.variables["clock"].where.line, m.variables["clock"].where.col) == (9, 3)
    assert m.rules["peak_law"].where.line == 14
    assert m.entities["chip"].where.file.endswith("tiny/gpus/chips.yaml")
    assert m.entities["chip"].where.line == 10
    assert (m.entities["chip"].facts["peak[fp16]"].where.line, m.entities["chip"].facts["peak[fp16]"].where.col) == (16, 25)


def test_variable_and_entity_lookups(tiny_kb):
    m = tiny_kb.model
    assert m.variable("clock").unit == "GHz"
    assert m.entity("chip").name == "Tiny chip"
    with pytest.raises(UnknownNameError) as info:
        m.variable("clok", where=HERE)
    assert str(info.value) == "f.yaml:1:1: unknown variable 'clok'; did you mean 'clock'?"
    with pytest.raises(UnknownNameError) as info:
        m.entity("chipp")
    assert str(info.value) == "unknown entity 'chipp'; did you mean 'chip'?"
    with pytest.raises(UnknownNameError) as info:
        m.entity("zzz")
    assert str(info.value) == "unknown entity 'zzz'; one of arch, chip"


@pytest.mark.parametrize("key, cls, message", [
    ("clok", UnknownNameError, "unknown variable 'clok'; did you mean 'clock'?"),
    ("pek[fp16]", UnknownNameError,
     "unknown variable 'pek[fp16]'; did you mean 'peak[fp16]'?"),   # words further off are not suggested
    ("clock[fp16]", KBError, "clock has no index, but is written clock[fp16]; write clock"),
    ("peak", KBError, "peak is indexed by precision; write peak[fp16] (one of fp16, bf16)"),
    ("peak[fp32]", UnknownNameError, "unknown precision value 'fp32'; one of fp16, bf16"),
])
def test_check_key_errors(tiny_kb, key, cls, message):
    with pytest.raises(cls) as info:
        tiny_kb.model.check_key(key)
    assert str(info.value) == message


def test_check_key_gives_the_variable(tiny_kb):
    assert tiny_kb.model.check_key("peak[bf16]").name == "peak"
    assert tiny_kb.model.check_key("clock").name == "clock"


def test_ancestry_is_most_general_first(tiny_kb):
    assert tiny_kb.model.ancestry("chip") == ["arch", "chip"]
    assert tiny_kb.model.ancestry("arch") == ["arch"]


def test_ancestry_of_a_diamond_lists_each_once():
    e = lambda eid, *parents: Entity(eid, "product", eid, "", HERE, tuple(parents))
    m = Model({}, {}, {}, {x.id: x for x in [e("base"), e("left", "base"), e("right", "base"),
                                              e("both", "left", "right")]}, ())
    assert m.ancestry("both") == ["base", "left", "right", "both"]


def test_the_simulation_models_name_their_integer_parameters_and_options():
    scheduler = model_module.SIMULATION_MODELS["warp_scheduler"]
    assert scheduler.parameters == ("warps", "ilp", "compute", "latency")
    assert dict(scheduler.options) == {"policy": "gto", "iters": 100}


def _alias_model():
    precision = IndexSet("precision", ("fp16", "bf16"), "", HERE)
    variables = {"sm_count": Variable("sm_count", "", "SMs", HERE, aliases=("cu_count", "tensorcore_count")),
                 "peak": Variable("peak", "TFLOPS", "peak", HERE, index="precision", aliases=("matrix_peak",)),
                 "clock": Variable("clock", "GHz", "clock", HERE)}
    return Model({"precision": precision}, variables, {}, {}, ())


def test_aliases_resolve_to_their_variable_in_one_place():
    m = _alias_model()
    assert dict(m.aliases) == {"cu_count": "sm_count", "tensorcore_count": "sm_count", "matrix_peak": "peak"}
    assert [m.resolve_name(n) for n in ("cu_count", "tensorcore_count", "sm_count", "nothing")] == \
        ["sm_count", "sm_count", "sm_count", "nothing"]         # an unknown name is left for its error
    assert m.resolve_key("matrix_peak[bf16]") == "peak[bf16]" and m.resolve_key("peak[fp16]") == "peak[fp16]"
    assert model_module.resolve_name("cu_count", m.variables) == "sm_count"   # the table built when not given
    with pytest.raises(UnknownNameError):
        m.check_key("cu_count")                         # check_key is strict: callers resolve first


def test_a_relation_is_read_in_the_variables_names():
    from hwkb.definitions.expressions import parse_relation
    m = _alias_model()
    relation = m.resolve_relation(parse_relation("matrix_peak[fp16] = cu_count * clock"))
    assert [str(r) for r in relation.references()] == ["peak[fp16]", "sm_count", "clock"]
    plain = parse_relation("peak[fp16] = sm_count * clock")
    assert m.resolve_relation(plain) is plain           # nothing to resolve: the same tree


def test_a_fact_keeps_other_documents_figures():
    other = _fact("96", value=96.0)
    fact = dataclasses.replace(_fact("100", value=100.0), also=(other,))
    assert fact.also[0].value == 96.0 and _fact("1").also == ()


def test_an_integer_index_value_shows_its_variables_work_in_operations():
    precision = IndexSet("precision", ("fp16", "int8"), "", HERE, integer=("int8",))
    variables = {"peak": Variable("peak", "TFLOPS", "peak", HERE, index="precision"),
                 "rate": Variable("rate", "flop/cycle", "rate", HERE, index="precision"),
                 "clock": Variable("clock", "GHz", "clock", HERE)}
    m = Model({"precision": precision}, variables, {}, {}, ())
    assert [m.unit_of(k) for k in ("peak[fp16]", "peak[int8]", "rate[int8]", "clock")] == \
        ["TFLOPS", "TOPS", "op/cycle", "GHz"]


@settings(max_examples=300, deadline=None)
@given(true=st.floats(1e-6, 1e15, allow_nan=False), figures=st.integers(2, 8), cut=st.booleans())
@example(true=3.2768, figures=2, cut=True).via("AMD's 3.2 TB/s")
@example(true=897.0, figures=2, cut=False).via("NVIDIA's 900 GB/s")
@example(true=1.23456e-5, figures=3, cut=False)
@example(true=999999999999998.0, figures=2, cut=True)
def test_a_figure_rounded_or_cut_short_to_its_printed_digits_encloses_the_true_value(true, figures, cut):
    """However a vendor shortened a figure, rounded or truncated to two figures or more and printed in any form,
    its reading encloses the true value."""
    exponent = math.floor(math.log10(true)) - figures + 1
    if true / 10.0 ** exponent < 10 ** (figures - 1):   # log10 rounded up across a power of ten
        exponent -= 1
    scaled = true / 10.0 ** exponent
    digits = math.floor(scaled) if cut else round(scaled)
    whole = exponent >= 0
    forms = [f"{digits}e{exponent}", format(Decimal(digits).scaleb(exponent), "f")]
    forms += [f"{digits * 10 ** exponent}.0"] if whole else []   # as a program writes a whole float
    for text in forms:
        printed = float(text)
        below, above = printed_interval(text)
        slack = 1e-9 * printed
        assert printed - below - slack <= true <= printed + above + slack, text
