"""hwkb.kb: the one door -- loading (independent, layered), contexts, --where equalities."""
from __future__ import annotations

import pytest

from conftest import TINY, build_kb
from hwkb import KnowledgeBase
from hwkb import kb as kb_module
from hwkb.errors import DimensionError, ExpressionError, KBErrors, QueryError, UnknownNameError
from hwkb.formats.resources import default_kb_dirs


def test_all_names_exist():
    assert kb_module.__all__ == ["KnowledgeBase", "CheckReport"]


# ---------------------------------------------------------------- loading

def test_two_loads_are_independent():
    a = KnowledgeBase.load([TINY], default=False)
    b = KnowledgeBase.load([TINY], default=False)
    assert a.model is not b.model and a.units.registry is not b.units.registry
    assert not {id(r) for r in a.relations} & {id(r) for r in b.relations}
    assert a.solve("clock", gpu="chip").magnitude == b.solve("clock", gpu="chip").magnitude
    # a question of one leaves the other as it was
    a.solve("clock", gpu="chip", facts=["clock=1.5GHz"])
    assert b.solve("clock", gpu="chip").status == "derived"


def test_a_load_records_its_directories(tiny_kb):
    assert tiny_kb.directories == (TINY,)
    assert set(tiny_kb.relation_index) == {"peak_law[fp16]", "peak_law[bf16]", "bf16_is_fp16"}


def test_the_default_kb_comes_first(real_kb):
    assert real_kb.directories == tuple(default_kb_dirs())


def test_nothing_to_load():
    with pytest.raises(QueryError) as info:
        KnowledgeBase.load([], default=False)
    assert str(info.value) == "no KB directory to load; give --kb DIR or leave the default KB in"


def test_a_bad_directory_fails_the_load(tmp_path):
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([tmp_path / "missing"])
    assert len(info.value.errors) == 1


def test_a_user_kb_layers_on_the_default(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    (mine / "gpus").mkdir(parents=True)
    (mine / "rules").mkdir()
    (mine / "gpus" / "mine.yaml").write_text(
        "h100-binned:\n  kind: product\n  extends: h100-sxm\n  facts:\n    sm_count: 114\n")
    (mine / "rules" / "mine.yaml").write_text(
        "variables:\n  peak_per_sm: {unit: TFLOPS, doc: a user's own variable}\n"
        "rules:\n  per_sm:\n    doc: the BF16 peak shared out over the SMs\n"
        "    eq: peak_per_sm = tc_peak[bf16] / sm_count\n    source: the user\n")
    kb = KnowledgeBase.load([mine])
    assert kb.directories == (*default_kb_dirs(), mine)
    assert "h100-binned" in kb.model.entities and "peak_per_sm" in kb.model.variables
    binned = kb.solve("clock_tc", gpu="h100-binned")
    assert binned.magnitude == pytest.approx(989.4e12 / (114 * 4096) / 1e9)
    per_sm = kb.solve("peak_per_sm", gpu="h100-sxm")
    assert (per_sm.status, per_sm.magnitude) == ("derived", pytest.approx(989.4 / 132))


def test_two_user_kbs_layer_in_order(tmp_path):
    first = build_kb(tmp_path / "first")
    second = tmp_path / "second"
    (second / "gpus").mkdir(parents=True)
    (second / "gpus" / "more.yaml").write_text("chip2:\n  kind: product\n  extends: chip\n  facts:\n    sm_count: 50\n")
    kb = KnowledgeBase.load([first, second], default=False)
    assert list(kb.model.entities) == ["arch", "chip", "chip2"]
    assert kb.solve("clock", gpu="chip2").magnitude == pytest.approx(2.0)


# ---------------------------------------------------------------- questions

def test_solve_checks_the_variable_first(tiny_kb):
    with pytest.raises(UnknownNameError) as info:
        tiny_kb.solve("clok", gpu="chipp")
    assert str(info.value) == "unknown variable 'clok'; did you mean 'clock'?"
    assert tiny_kb.check_key("peak[bf16]") == "peak[bf16]"


def test_context_and_solver(tiny_kb):
    ctx = tiny_kb.context("chip", facts=["clock=1.5GHz"])
    assert ctx.entities == ("arch", "chip") and ctx.overrides == {"clock": "set"}
    assert tiny_kb.solver(ctx).solution("clock").status == "inconsistent"


def test_derive(tiny_kb):
    assert [v.key for v in tiny_kb.derive(gpu="chip")] == ["clock", "fma_rate[bf16]", "peak[bf16]"]
    assert [v.key for v in tiny_kb.derive(gpu="arch")] == ["fma_rate[bf16]"]


# ---------------------------------------------------------------- --where equalities

def test_where_gives_a_relation(tiny_kb):
    s = tiny_kb.solve("peak[fp16]", facts=["fma_rate[fp16]=1024", "clock=1GHz"], where=["sm_count = 100"])
    assert (s.status, s.magnitude) == ("derived", pytest.approx(204.8))
    sms = s.value.origin.inputs[0]
    assert (sms.key, sms.origin.rule, sms.origin.source) == ("sm_count", "where[1]", "given on the command line")


def test_where_between_variables(tiny_kb):
    # the KB says rate[bf16] = rate[fp16]; the --where says twice that: two routes to rate[bf16] that disagree
    rate = tiny_kb.solve("fma_rate[bf16]", gpu="arch", where=["fma_rate[bf16] = 2 * fma_rate[fp16]"])
    assert rate.status == "inconsistent"
    assert sorted([rate.magnitude, *(a.magnitude for a in rate.alternatives)]) == [1024.0, 2048.0]


def test_where_relations_are_compiled_per_query(tiny_kb):
    (rel,) = tiny_kb.where_relations(["sm_count = 100"])
    assert (rel.name, rel.kind, rel.keys) == ("where[1]", "law", ("sm_count",))
    assert rel.can_solve_for("sm_count")
    assert len(tiny_kb.relations) == 3  # the KB's own relations are untouched


@pytest.mark.parametrize("where, cls, message", [
    ("sm_cont = 100", UnknownNameError, "--where 'sm_cont = 100': unknown variable 'sm_cont'; did you mean 'sm_count'?"),
    ("clock = foo(1)", ExpressionError,
     "--where 'clock = foo(1)': function 'foo' is not allowed in 'clock = foo(1)'; "
     "use min, max, floor, ceil, sqrt, exp, log"),
    ("clock = __import__('os').system('true')", ExpressionError,
     "--where \"clock = __import__('os').system('true')\": only the built-in functions may be called in "
     "\"clock = __import__('os').system('true')\"; use min, max, floor, ceil, sqrt, exp, log"),
])
def test_where_errors(tiny_kb, where, cls, message):
    with pytest.raises(cls) as info:
        tiny_kb.solve("clock", gpu="chip", where=[where])
    assert str(info.value) == message


def test_where_dimension_error_names_the_where(tiny_kb):
    with pytest.raises(DimensionError) as info:
        tiny_kb.solve("clock", gpu="chip", where=["clock = 100"])
    assert str(info.value) == ("--where 'clock = 100': the left side is [cycle]/[time], the right side dimensionless; "
                               "a bare number has no unit, and clock is in GHz: compare clock with another variable "
                               "of that unit, or a ratio of such variables with a number")


@pytest.mark.parametrize("gpu, rate", [("v100", 1.758), ("a100", 2.430), ("h100-sxm", 5.234), ("b200", 7.812)])
def test_the_per_pin_data_rate_follows_from_bus_and_bandwidth(real_kb, gpu, rate):
    solution = real_kb.solve("memory_data_rate", gpu=gpu)  # HBM2 ~1.75, HBM2 ~2.4, HBM3 ~5.2, HBM3e ~7.8 Gbit/s
    assert solution.status == "derived" and solution.magnitude == pytest.approx(rate, abs=1e-3)
