"""hwkb.solving.context: entity stacks (later wins), defaults underneath, --set parsing."""
from __future__ import annotations

import pytest

from conftest import build_kb
from hwkb import KnowledgeBase
from hwkb.solving import context as context_module
from hwkb.solving.context import Context, build_context, parse_assignment
from hwkb.errors import ContextError, KBError, Location, UnitError, UnknownNameError


@pytest.fixture(scope="module")
def layered_kb(tmp_path_factory):
    """The tiny KB plus a default, a scenario and a second chain to stack with --with."""
    kb = build_kb(tmp_path_factory.mktemp("layered") / "kb")
    (kb / "rules" / "extra.yaml").write_text(
        "variables:\n"
        "  boost: {unit: GHz, doc: a boost clock, default: 2 GHz, source: the usual boost}\n")
    (kb / "gpus" / "extra.yaml").write_text(
        "slow:\n  kind: scenario\n  facts:\n    clock: 0.5 GHz\n    boost: 0.6 GHz\n"
        "base_shape:\n  kind: instruction\n  facts:\n    sm_count: 7\n"
        "shape:\n  kind: instruction\n  extends: base_shape\n  facts:\n    fma_rate[bf16]: 3 FMA/cycle\n")
    return KnowledgeBase.load([kb], default=False)


def test_all_names_exist():
    assert sorted(context_module.__all__) == ["Context", "build_context", "parse_assignment"]


# ---------------------------------------------------------------- stacks

def test_extends_stacks_most_general_first(tiny_kb):
    ctx = build_context(tiny_kb.model, tiny_kb.units, "chip")
    assert ctx.entities == ("arch", "chip") and ctx.entity == "chip"
    assert set(ctx.facts) == {"sm_count", "fma_rate[fp16]", "peak[fp16]"}
    assert ctx.overrides == {}


def test_the_child_wins(tiny_kb):
    ctx = build_context(tiny_kb.model, tiny_kb.units, "chip")
    assert (ctx.facts["sm_count"].value, ctx.facts["sm_count"].entity) == (100.0, "chip")
    assert (ctx.facts["fma_rate[fp16]"].value, ctx.facts["fma_rate[fp16]"].entity) == (1024.0, "arch")
    parent = build_context(tiny_kb.model, tiny_kb.units, "arch")
    assert parent.facts["sm_count"].value == 128.0


def test_with_layers_later_entities_and_their_chains(layered_kb):
    ctx = build_context(layered_kb.model, layered_kb.units, "chip", ["shape", "slow"])
    assert ctx.entities == ("arch", "chip", "base_shape", "shape", "slow")
    assert ctx.facts["sm_count"].value == 7.0  # base_shape comes after chip
    assert ctx.facts["clock"].entity == "slow"
    assert ctx.facts["fma_rate[bf16]"].entity == "shape"
    assert ctx.entity == "slow"


def test_an_entity_met_twice_moves_to_its_last_place(layered_kb):
    ctx = build_context(layered_kb.model, layered_kb.units, "chip", ["arch"])
    assert ctx.entities == ("chip", "arch")
    assert ctx.facts["sm_count"].value == 128.0  # arch is now the later layer


def test_defaults_sit_under_everything(layered_kb):
    bare = build_context(layered_kb.model, layered_kb.units)
    assert (bare.entities, set(bare.facts)) == ((), {"boost"})
    default = bare.facts["boost"]
    assert (default.value, default.entity, default.source) == (2.0, None, "the usual boost")
    slow = build_context(layered_kb.model, layered_kb.units, "chip", ["slow"])
    assert slow.facts["boost"].value == 0.6


def test_sets_win_over_entities(tiny_kb):
    ctx = build_context(tiny_kb.model, tiny_kb.units, "chip", sets=["sm_count=96", "clock=1.2GHz"])
    assert ctx.facts["sm_count"].value == 96.0 and ctx.facts["sm_count"].entity is None
    assert ctx.overrides == {"sm_count": "set", "clock": "set"}


def test_the_last_set_of_a_key_wins(tiny_kb):
    ctx = build_context(tiny_kb.model, tiny_kb.units, sets=["clock=1GHz", "clock=2GHz"])
    assert ctx.facts["clock"].value == 2.0


def test_a_set_may_be_a_ready_fact(tiny_kb):
    fact = parse_assignment("clock=1.1GHz", tiny_kb.model, tiny_kb.units)
    ctx = build_context(tiny_kb.model, tiny_kb.units, sets=[fact], via="scenario")
    assert ctx.facts["clock"] is fact and ctx.overrides == {"clock": "scenario"}


def test_a_base_context_keeps_its_overrides(tiny_kb):
    base = build_context(tiny_kb.model, tiny_kb.units, "chip", sets=["clock=1.2GHz"], via="given")
    ctx = build_context(tiny_kb.model, tiny_kb.units, "chip", sets=["sm_count=50"], base=base)
    assert ctx.facts["clock"].value == 1.2 and ctx.facts["sm_count"].value == 50.0
    assert ctx.overrides == {"clock": "given", "sm_count": "set"}
    assert ctx.facts["clock"].source == "given as the baseline"


def test_not_applicable(tiny_kb):
    ctx = build_context(tiny_kb.model, tiny_kb.units, "chip", sets=["peak[bf16]=n/a"])
    assert ctx.not_applicable == frozenset({"peak[bf16]"})
    assert build_context(tiny_kb.model, tiny_kb.units, "chip").not_applicable == frozenset()


def test_unknown_entities_suggest(tiny_kb):
    with pytest.raises(UnknownNameError) as info:
        build_context(tiny_kb.model, tiny_kb.units, "chipp")
    assert str(info.value) == "--gpu: unknown entity 'chipp'; did you mean 'chip'?"
    with pytest.raises(UnknownNameError) as info:
        build_context(tiny_kb.model, tiny_kb.units, "chip", ["arc"])
    assert str(info.value) == "--with: unknown entity 'arc'; did you mean 'arch'?"


def test_extra_entities_join_the_table(tiny_kb):
    extra = {"sheet": tiny_kb.model.entities["chip"]}
    ctx = build_context(tiny_kb.model, tiny_kb.units, "sheet", extra_entities=extra)
    assert ctx.entities == ("arch", "sheet")


def test_context_is_frozen():
    with pytest.raises(AttributeError):
        Context((), {}).entities = ("x",)


# ---------------------------------------------------------------- --set parsing

@pytest.mark.parametrize("text, key, value, printed, tolerance", [
    ("clock=1.5GHz", "clock", 1.5, "1.5", None),
    ("clock=1.5 GHz", "clock", 1.5, "1.5", None),
    ("clock = 1.5 GHz", "clock", 1.5, "1.5", None),
    ("clock=1.5", "clock", 1.5, "1.5", None),          # a bare number is in the variable's unit
    ("clock=1500MHz", "clock", 1.5, "1.5", 0.1),       # converted, its rounding with it: 15 hundreds, cut short
    ("clock=1e9Hz", "clock", 1.0, "1.0", 0.1),         # an exponent's one digit is read to two figures
    ("sm_count=96", "sm_count", 96.0, "96.0", 0.0),    # a count is exact
    ("peak[bf16]=100TFLOPS", "peak[bf16]", 100.0, "100", None),
    ("peak[bf16]=1e14FLOPS", "peak[bf16]", 100.0, "100.0", 10.0),
    ("fma_rate[fp16]=2048flop/cycle", "fma_rate[fp16]", 1024.0, "1024.0", 0.5),
])
def test_assignments(tiny_kb, text, key, value, printed, tolerance):
    """A --set figure is read as printed, as a KB fact is: its digits give its rounding; a count is exact."""
    fact = parse_assignment(text, tiny_kb.model, tiny_kb.units)
    assert (fact.key, fact.value, fact.text) == (key, pytest.approx(value), printed)
    assert fact.unit == tiny_kb.model.variables[key.split("[")[0]].unit
    assert fact.tolerance == (None if tolerance is None else pytest.approx(tolerance))
    assert (fact.entity, fact.source, fact.where) == (None, "given on the command line", Location("--set"))


def test_a_set_figure_typed_in_the_variables_unit_is_rounded_or_cut_short_as_printed(tiny_kb):
    fact = parse_assignment("clock=1.9GHz", tiny_kb.model, tiny_kb.units)
    assert fact.interval == (pytest.approx(0.05), pytest.approx(0.1))


@pytest.mark.parametrize("text", ["peak[bf16]=n/a", "peak[bf16]=N/A", "peak[bf16]=na", "peak[bf16]=none",
                                  "peak[bf16]=None"])
def test_not_applicable_assignment(tiny_kb, text):
    """n/a is spelled as in a KB file (hwkb.definitions.quantities.NOT_APPLICABLE)."""
    fact = parse_assignment(text, tiny_kb.model, tiny_kb.units)
    assert (fact.value, fact.applicable, fact.text) == (None, False, text.partition("=")[2])


@pytest.mark.parametrize("via, source", [("set", "given on the command line"), ("given", "given as the baseline"),
                                         ("scenario", "scenario override")])
def test_assignment_sources(tiny_kb, via, source):
    assert parse_assignment("clock=1", tiny_kb.model, tiny_kb.units, via=via).source == source


def test_assignment_origin_names_the_flag(tiny_kb):
    with pytest.raises(UnknownNameError) as info:
        parse_assignment("clok=1", tiny_kb.model, tiny_kb.units, origin="--given")
    assert str(info.value) == "--given: unknown variable 'clok'; did you mean 'clock'?"


@pytest.mark.parametrize("text, cls, message", [
    ("clock=5TFLOPS", UnitError, "--set: '5TFLOPS' does not fit clock, which is in GHz; give it in GHz"),
    ("sm_count=2GHz", UnitError, "--set: '2GHz' does not fit sm_count, which is in plain numbers; give it in plain numbers"),
    ("clock=fast", UnitError, "--set: cannot read 'fast' as a value of clock; write a number, optionally with a unit of GHz"),
    ("clock=3 furlongs", UnitError,
     "--set: cannot read '3 furlongs' as a value of clock; write a number, optionally with a unit of GHz"),
    ("clok=1GHz", UnknownNameError, "--set: unknown variable 'clok'; did you mean 'clock'?"),
    ("pek[bf16]=1", UnknownNameError,
     "--set: unknown variable 'pek[bf16]'; did you mean 'peak[bf16]'?"),
    ("peak=3", KBError, "--set: peak is indexed by precision; write peak[fp16] (one of fp16, bf16)"),
    ("peak[fp32]=3", UnknownNameError, "--set: unknown precision value 'fp32'; one of fp16, bf16"),
    ("clock", ContextError, "--set: cannot read 'clock'; write VAR=VALUE, e.g. clock_tc=1.755GHz"),
    ("clock=", ContextError, "--set: cannot read 'clock='; write VAR=VALUE, e.g. clock_tc=1.755GHz"),
    ("=1GHz", ContextError, "--set: cannot read '=1GHz'; write VAR=VALUE, e.g. clock_tc=1.755GHz"),
])
def test_assignment_errors(tiny_kb, text, cls, message):
    with pytest.raises(cls) as info:
        parse_assignment(text, tiny_kb.model, tiny_kb.units)
    assert str(info.value) == message


def test_assignment_must_be_finite(tiny_kb):
    with pytest.raises(UnitError) as info:
        parse_assignment("clock=1e400GHz", tiny_kb.model, tiny_kb.units)
    assert str(info.value) == "--set: '1e400GHz' is not a finite number"


@pytest.mark.parametrize("text, origin, message", [
    ("clock=-1GHz", "--set", "--set: '-1GHz' is negative, and no KB quantity is; give the size of clock"),
    ("clock=fast", "--given", "--given: cannot read 'fast' as a value of clock; "
                              "write a number, optionally with a unit of GHz"),
])
def test_assignment_errors_name_their_flag(tiny_kb, text, origin, message):
    with pytest.raises(UnitError) as info:
        parse_assignment(text, tiny_kb.model, tiny_kb.units, origin=origin)
    assert str(info.value) == message
