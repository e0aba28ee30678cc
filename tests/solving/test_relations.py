"""hwkb.solving.relations: rule instances, dimension checks, solved directions (and a property of all of them)."""
from __future__ import annotations

import math
import random

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TINY, build_kb, kb_from_text, load_errors
from hwkb import KnowledgeBase
from hwkb.solving import relations as relations_module
from hwkb.errors import DimensionError, KBErrors
from hwkb.definitions.expressions import parse_relation
from hwkb.solving.relations import check_dimensions, compile_relations, key_of_symbol, symbol_of


def test_all_names_exist():
    assert sorted(relations_module.__all__) == sorted(
        ["Relation", "compile_relations", "symbol_of", "key_of_symbol", "check_dimensions"])


@pytest.mark.parametrize("key, name", [("tc_peak[bf16]", "tc_peak__bf16"), ("sm_count", "sm_count")])
def test_symbols_round_trip(key, name):
    symbol = symbol_of(key)
    assert symbol.name == name and symbol.is_positive
    assert key_of_symbol(symbol) == key
    assert sympy.sympify(str(symbol)).name == name  # str() form parses back


# ---------------------------------------------------------------- instances of the tiny KB

def test_one_instance_per_index_value(tiny_kb):
    assert [(r.name, r.keys, dict(r.binding)) for r in tiny_kb.relations] == [
        ("peak_law[fp16]", ("peak[fp16]", "sm_count", "fma_rate[fp16]", "clock"), {"precision": "fp16"}),
        ("peak_law[bf16]", ("peak[bf16]", "sm_count", "fma_rate[bf16]", "clock"), {"precision": "bf16"}),
        ("bf16_is_fp16", ("fma_rate[bf16]", "fma_rate[fp16]"), {}),
    ]
    assert {r.kind for r in tiny_kb.relations} == {"law"}
    assert tiny_kb.relations[0].rule is tiny_kb.model.rules["peak_law"]


def test_instances_of_one_rule_share_their_solutions(tiny_kb):
    fp16, bf16, other = tiny_kb.relations
    assert fp16.template is bf16.template
    assert other.template is not fp16.template


def test_sides_in_canonical_symbols(tiny_kb):
    rel = tiny_kb.relations[0]
    peak, sms, rate, clock = map(symbol_of, rel.keys)
    assert rel.lhs == peak and rel.rhs == sms * rate * clock
    assert rel.residual == peak - sms * rate * clock


def test_every_direction_of_the_peak_law(tiny_kb):
    rel = tiny_kb.relations[1]
    peak, sms, rate, clock = map(symbol_of, rel.keys)
    assert rel.solution("clock") == peak / (sms * rate)
    assert all(rel.can_solve_for(k) for k in rel.keys)
    # canonical numbers: 204.8 TFLOPS = 2.048e14 flop/s, 1024 FMA/cycle = 2048 flop/cycle
    values = {"peak[bf16]": 2.048e14, "sm_count": 100.0, "fma_rate[bf16]": 2048.0, "clock": 1e9}
    for key in rel.keys:
        given = {k: v for k, v in values.items() if k != key}
        assert rel.solver(key)(given) == pytest.approx(values[key], rel=1e-12)
    lhs, rhs = rel.residual_value(values)
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_loading_twice_solves_into_separate_templates():
    a = KnowledgeBase.load([TINY], default=False)
    b = KnowledgeBase.load([TINY], default=False)
    assert a.relations[0].template is not b.relations[0].template
    assert a.relations[0].solution("clock") == b.relations[0].solution("clock")


# ---------------------------------------------------------------- forward-only directions

@pytest.fixture(scope="module")
def forward_kb(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("forward") / "kb")
    (kb / "rules" / "forward.yaml").write_text(
        "variables:\n"
        "  a: {unit: GHz, doc: a}\n  b: {unit: GHz, doc: b}\n  y: {unit: GHz, doc: y}\n"
        "  m: {unit: '', doc: m}\n  k: {unit: '', doc: k}\n  n: {unit: '', integer: true, doc: n}\n"
        "  s: {unit: '', doc: s}\n  t: {unit: '', doc: t}\n"
        "rules:\n"
        "  smaller: {doc: d, source: s, eq: 'y = min(a, b)'}\n"
        "  larger: {doc: d, source: s, eq: 'y = max(a, b)'}\n"
        "  tiles: {doc: d, source: s, eq: 'n = floor(m / k)'}\n"
        "  tiles_up: {doc: d, source: s, eq: 'n = ceil(m / k)'}\n"
        "  two_roots: {doc: d, source: s, eq: 's = (t - 2) ** 2'}\n"
        "  root: {doc: d, source: s, eq: 's = sqrt(t)'}\n")
    loaded = KnowledgeBase.load([kb], default=False)
    return {r.name: r for r in loaded.relations}


@pytest.mark.parametrize("name, output, inputs", [
    ("smaller", "y", ("a", "b")), ("larger", "y", ("a", "b")),
    ("tiles", "n", ("m", "k")), ("tiles_up", "n", ("m", "k")),
])
def test_min_max_floor_ceil_are_forward_only(forward_kb, name, output, inputs):
    rel = forward_kb[name]
    assert rel.can_solve_for(output)
    for key in inputs:
        assert not rel.can_solve_for(key)
        assert rel.solver(key) is None and rel.solution(key) is None


def test_forward_values(forward_kb):
    assert forward_kb["smaller"].solver("y")({"a": 2e9, "b": 3e9}) == 2e9
    assert forward_kb["larger"].solver("y")({"a": 2e9, "b": 3e9}) == 3e9
    assert forward_kb["tiles"].solver("n")({"m": 7.0, "k": 2.0}) == 3.0
    assert forward_kb["tiles_up"].solver("n")({"m": 7.0, "k": 2.0}) == 4.0


def test_two_positive_roots_leave_a_direction_unsolved(forward_kb):
    rel = forward_kb["two_roots"]
    assert rel.can_solve_for("s") and not rel.can_solve_for("t")


def test_one_positive_root_is_kept(forward_kb):
    rel = forward_kb["root"]
    assert rel.solution("t") == symbol_of("s") ** 2
    assert rel.solver("t")({"s": 3.0}) == pytest.approx(9.0)


def test_a_simulated_rule_is_forward_only_to_its_output(scheduler_kb):
    sim = next(r for r in scheduler_kb.relations if r.kind == "simulated")
    assert sim.template is None and sim.keys == ("warps", "loads", "compute", "latency", "busy")
    assert sim.can_solve_for("busy")
    assert not any(sim.can_solve_for(k) for k in sim.keys if k != "busy")


# ---------------------------------------------------------------- dimensions

def test_an_unbalanced_law_fails_the_load(bad_kb):
    kb = bad_kb("unbalanced_law")
    assert load_errors(kb) == [
        "rules/bad.yaml:3:3: rule unbalanced does not balance: the left side is [cycle]/[time], the right side "
        "1/[time]; check each variable's unit and the factors of the equation"]


def test_every_unbalanced_rule_is_reported_once(bad_kb):
    kb = bad_kb("unbalanced_law")
    (kb / "rules" / "bad2.yaml").write_text(
        "rules:\n"
        "  indexed_unbalanced: {doc: d, source: s, for: precision, eq: 'peak[precision] = fma_rate[precision]'}\n"
        "  sum_of_unlike: {doc: d, source: s, eq: 'clock = clock + sm_count'}\n")
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([kb], default=False)
    assert [str(e) for e in info.value.errors] == [
        "rules/bad.yaml:3:3: rule unbalanced does not balance: the left side is [cycle]/[time], the right side "
        "1/[time]; check each variable's unit and the factors of the equation",
        "rules/bad2.yaml:2:3: rule indexed_unbalanced[fp16] does not balance: the left side is 1/[time], the right "
        "side 1/[cycle]; check each variable's unit and the factors of the equation",
        "rules/bad2.yaml:3:3: rule sum_of_unlike does not balance: '+' joins [cycle]/[time] and dimensionless; "
        "only quantities of the same dimension can be added or compared",
    ]
    assert all(isinstance(e, DimensionError) for e in info.value.errors)


MIXED_COUNTS = """
variables:
  work:       {unit: GFLOP, doc: operations of a step}
  step_time:  {unit: ms, doc: time of a step}
  tokens_per_s: {unit: token/s, doc: tokens per second}
  exps:       {unit: exp, doc: exponentials of a step}
rules:
  work_as_tokens: {doc: d, source: s, eq: tokens_per_s = work / step_time}
  exps_as_work:   {doc: d, source: s, eq: exps = work}
"""


def _load_errors(tmp_path, rules_text: str) -> tuple[list[str], list[str]]:
    """The places (file:line:column) and messages of the errors a tiny KB of ``rules_text`` fails to load with."""
    with pytest.raises(KBErrors) as info:
        kb_from_text(tmp_path, rules_text, "")
    parts = [str(e).split(": ", 1) for e in info.value.errors]
    return [place for place, _ in parts], [message for _, message in parts]


def test_a_rule_mixing_operations_tokens_or_exps_fails_the_load(tmp_path):
    """Operations, tokens and exps are dimensions of their own, so a law that counts one as another does not load."""
    places, messages = _load_errors(tmp_path, MIXED_COUNTS)
    assert messages == [
        "rule work_as_tokens does not balance: the left side is [token]/[time], the right side [operation]/[time]; "
        "check each variable's unit and the factors of the equation",
        "rule exps_as_work does not balance: the left side is [exponential], the right side [operation]; "
        "check each variable's unit and the factors of the equation"]
    assert places == [
        f"{tmp_path / 'rules' / 'tiny.yaml'}:8:3", f"{tmp_path / 'rules' / 'tiny.yaml'}:9:3"]


WARPS_AND_THREADS = """
variables:
  resident_warps: {unit: warp, doc: warps resident on an SM}
  resident_threads: {unit: thread, doc: threads resident on an SM}
  block_threads:  {unit: thread/block, doc: threads of a block}
  resident_blocks: {unit: block, doc: blocks resident on an SM}
  warp_width:     {unit: thread/warp, doc: threads of a warp}
rules:
  warps_as_threads: {doc: d, source: s, eq: resident_warps = resident_threads}
  warps_plus_threads: {doc: d, source: s, eq: resident_threads = resident_warps + resident_threads}
  blocks_as_warps: {doc: d, source: s, eq: resident_blocks = resident_warps / warp_width}
  threads_per_block: {doc: d, source: s, eq: resident_threads = resident_blocks * block_threads}
"""


def test_a_rule_mixing_warps_threads_or_blocks_fails_the_load(tmp_path):
    """Warps, threads and blocks are dimensions of their own: 2048 threads are 64 warps only through a rate in
    thread/warp, and a law that adds one to the other, or counts warps as blocks, does not load."""
    places, messages = _load_errors(tmp_path, WARPS_AND_THREADS)
    assert messages == [
        "rule warps_as_threads does not balance: the left side is [warp], the right side [thread]; "
        "check each variable's unit and the factors of the equation",
        "rule warps_plus_threads does not balance: '+' joins [warp] and [thread]; "
        "only quantities of the same dimension can be added or compared",
        "rule blocks_as_warps does not balance: the left side is [block], the right side [warp]^2/[thread]; "
        "check each variable's unit and the factors of the equation"]
    assert places == [
        f"{tmp_path / 'rules' / 'tiny.yaml'}:{line}:3" for line in (9, 10, 11)]


def test_every_rule_of_the_real_kb_balances(real_kb):
    for relation in real_kb.relations:
        if relation.rule.relation is not None:
            check_dimensions(relation.rule.relation, real_kb.model, real_kb.units)


@pytest.mark.parametrize("text, message", [
    ("clock = sm_count * fma_rate[fp16]",
     "the left side is [cycle]/[time], the right side 1/[cycle]; check each variable's unit and the factors of the equation"),
    ("sm_count = exp(clock)", "exp() of [cycle]/[time]; exp() takes a dimensionless argument"),
    ("sm_count = log(clock)", "log() of [cycle]/[time]; log() takes a dimensionless argument"),
    ("clock = min(clock, sm_count)",
     "min() joins [cycle]/[time] and dimensionless; only quantities of the same dimension can be added or compared"),
    ("clock = clock - 1",
     "'-' joins [cycle]/[time] and dimensionless; only quantities of the same dimension can be added or compared"),
    ("sm_count = sm_count ** clock", "an exponent of [cycle]/[time]; exponents are plain numbers"),
    ("clock = clock ** sm_count",
     "[cycle]/[time] raised to a variable power; only a number may be the exponent of a quantity with a unit"),
])
def test_dimension_errors(tiny_kb, text, message):
    with pytest.raises(DimensionError) as info:
        check_dimensions(parse_relation(text), tiny_kb.model, tiny_kb.units)
    assert str(info.value) == message


@pytest.mark.parametrize("text", [
    "peak[fp16] = sm_count * fma_rate[fp16] * clock",
    "peak[fp16] = 2 * peak[bf16] + 0 * peak[fp16]",
    "sm_count = 3",
    "sm_count = exp(sm_count / 2) + log(2)",
    "clock = sqrt(clock ** 2)",
    "clock ** 2 = clock * clock",
    "sm_count = sm_count ** sm_count",
    "clock = max(clock, 2 * clock) - min(clock, clock / 2)",
    "sm_count = floor(peak[fp16] / (fma_rate[fp16] * clock))",
    "-clock = -clock",
])
def test_balanced(tiny_kb, text):
    check_dimensions(parse_relation(text), tiny_kb.model, tiny_kb.units)


# ---------------------------------------------------------------- the property, over laws of every shape

SHAPES = """
variables:
  a: {unit: "", doc: a}
  b: {unit: "", doc: b}
  c: {unit: "", doc: c}
  d: {unit: "", doc: d}
rules:
  product:   {doc: d, source: s, eq: 'a = b * c / d'}
  sum:       {doc: d, source: s, eq: 'a = b + 2 * c - d'}
  powers:    {doc: d, source: s, eq: 'a = b ** 2 * c ** 3 / d'}
  quadratic: {doc: d, source: s, eq: 'a = b ** 2 + c * b + d'}
  root:      {doc: d, source: s, eq: 'a = sqrt(b * c) * d'}
  growth:    {doc: d, source: s, eq: 'a = b * exp(c / d)'}
  logarithm: {doc: d, source: s, eq: 'a = d * log(b / c)'}
"""


@pytest.fixture(scope="module")
def directions(tmp_path_factory, tiny_kb):
    """Every solved direction of the tiny KB's laws (with units) and of the shapes above."""
    shapes = kb_from_text(tmp_path_factory.mktemp("shapes"), SHAPES, "{}\n")
    found = [(rel, key) for kb in (tiny_kb, shapes) for rel in kb.relations for key in rel.keys
             if rel.can_solve_for(key)]
    assert len(found) > 25  # most laws in every direction
    return found


POSITIVE = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


def residual_ok(rel, key, values) -> bool | None:
    """None when the point has no positive value of ``key``, else whether the relative residual is at most 1e-9."""
    try:
        values[key] = rel.solver(key)(values)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
    if not (math.isfinite(values[key]) and values[key] > 0):
        return None  # every KB quantity is positive: a negative root is no value of the variable
    lhs, rhs = rel.residual_value(values)
    return abs(lhs - rhs) <= 1e-9 * max(abs(lhs), abs(rhs))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_solved_values_substituted_back_leave_no_residual(directions, data):
    """For any law, any direction it solves and any positive values of the other keys:
    the solved value substituted back leaves a relative residual of at most 1e-9."""
    rel, key = data.draw(st.sampled_from(directions))
    values = {k: data.draw(POSITIVE) for k in rel.keys if k != key}
    assert residual_ok(rel, key, values) is not False, (rel.name, key, values)


def test_every_direction_leaves_no_residual(directions):
    """The same law over every direction at once, at seeded random points."""
    rng = random.Random(2026)
    checked = 0
    for rel, key in directions:
        values = {k: 10 ** rng.uniform(-3, 6) for k in rel.keys if k != key}
        ok = residual_ok(rel, key, values)
        assert ok is not False, (rel.name, key, values)
        checked += ok is True
    assert checked >= len(directions) // 2


def test_compile_relations_alone(tiny_kb):
    again = compile_relations(tiny_kb.model, tiny_kb.units)
    assert [r.name for r in again] == [r.name for r in tiny_kb.relations]
