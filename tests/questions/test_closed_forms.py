"""hwkb.questions.closed_forms: closed forms equal the compiled numeric forms, on tiny KBs."""
from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from conftest import kb_from_text
from hwkb.errors import NoClosedForm, NotDetermined, UnknownNameError
from hwkb.questions.closed_forms import (closed_form, default_free, exact_number, latex_of, parse_free,
                                         solve_symbolic)
from hwkb.solving.relations import symbol_of

TINY_RULES = """
variables:
  n:      {unit: "", integer: true, doc: a count}
  m:      {unit: "", doc: another count}
  cost:   {unit: "", doc: work per item (items of plain work)}
  rate:   {unit: flop/cycle, doc: work per cycle}
  cap:    {unit: flop/cycle, doc: capacity per cycle}
  load:   {unit: "", doc: share of the capacity}
  capped: {unit: "", doc: the load capped at 1}
  clock:  {unit: GHz, doc: a clock}
  peak:   {unit: TFLOPS, doc: a peak}
  s:      {unit: "", doc: a sum}
  d:      {unit: "", doc: a difference}
  a:      {unit: "", doc: one part}
  b:      {unit: "", doc: the other part}
  rounds: {unit: "", integer: true, doc: a simulated input}
  busy:   {unit: "", doc: a simulated output}
rules:
  cost_law:   {doc: cost of an item, eq: cost = 2 * n + 2 * m, source: test}
  load_law:   {doc: load of the capacity, eq: load = rate / cost / cap, source: test}
  capped_law: {doc: capped load, eq: "capped = min(load, 1)", source: test}
  peak_law:   {doc: peak rate, eq: peak = rate * clock, source: test}
  sum_law:    {doc: a sum, eq: a + b = s, source: test}
  diff_law:   {doc: a difference, eq: a - b = d, source: test}
"""
TINY_GPUS = """
chip:
  kind: product
  source: test
  facts: {rate: 4096 flop/cycle, cap: 16 flop/cycle, clock: 2 GHz, s: 10, d: 4}
fast:
  kind: scenario
  source: test
  facts: {cap: 32 flop/cycle}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("tiny_kb"), TINY_RULES, TINY_GPUS)


def test_closed_form_substitutes_the_facts(tiny):
    form = closed_form(tiny, "load", tiny.context("chip"), ["n", "m"])
    assert form.text == "128/(m + n)"
    assert form.free == ("n", "m") and form.unit == ""
    assert form.rules == ("load_law", "cost_law")


def test_closed_form_is_in_display_units(tiny):
    form = closed_form(tiny, "peak", tiny.context("chip"), ["clock"])
    # 4096 flop/cycle x clock [GHz] = 4.096 clock TFLOPS
    assert form.expression == sympy.Rational(512, 125) * symbol_of("clock")
    assert form.evaluate({"clock": 2}) == pytest.approx(tiny.solve("peak", gpu="chip").magnitude)


def test_a_block_is_solved_jointly(tiny):
    form = closed_form(tiny, "a", tiny.context("chip"), ["s"])
    assert form.text == "s/2 + 2"


def test_min_stays_in_the_closed_form_and_vectorises(tiny):
    import numpy as np
    form = closed_form(tiny, "capped", tiny.context("chip"), ["n", "m"])
    assert form.expression.has(sympy.Min)
    out = form.function(np.array([32.0, 64.0, 100.0]), np.array([32.0, 64.0, 100.0]))
    assert out.tolist() == [1.0, 1.0, 0.64]


def test_not_determined_names_what_would_settle_it(tiny):
    with pytest.raises(NotDetermined) as info:
        closed_form(tiny, "load", tiny.context("chip"), ["n"])
    assert info.value.needs == (("cost",), ("m",))
    assert str(info.value) == "load does not follow from this context and n; also give one of {cost} or {m}"


def test_the_text_parses_back(tiny_kb):
    form = closed_form(tiny_kb, "peak[bf16]", tiny_kb.context("chip"), ["sm_count", "fma_rate[fp16]", "clock"])
    names = {s.name: s for s in form.expression.free_symbols}
    assert set(names) == {"sm_count", "fma_rate__fp16", "clock"}
    assert form.text == "clock*fma_rate__fp16*sm_count/500"
    assert sympy.simplify(sympy.parse_expr(form.text, local_dict=names) - form.expression) == 0


def test_latex_and_elasticities(tiny):
    form = closed_form(tiny, "load", tiny.context("chip"), ["n", "m"])
    assert form.latex == r"\frac{128}{\mathrm{m} + \mathrm{n}}"
    assert {k: float(e) for k, e in form.elasticities({"n": 64, "m": 192}).items()} == {"n": -0.25, "m": -0.75}


def test_the_targets_own_fact_is_set_aside(tiny_kb):
    form = closed_form(tiny_kb, "peak[fp16]", tiny_kb.context("chip"), ["clock"])  # the chip states 204.8 TFLOPS
    assert form.approximate == "204.8*clock"


def test_simulated_rules_have_no_closed_form(scheduler_kb):
    with pytest.raises(NoClosedForm) as info:
        closed_form(scheduler_kb, "busy", scheduler_kb.context("round"), ["warps"])
    assert "simulated rule scheduler_model" in str(info.value)


def test_unknown_free_variable_suggests(tiny):
    with pytest.raises(UnknownNameError) as info:
        parse_free(tiny, "n, mm")
    assert str(info.value) == "--free: unknown variable 'mm'; did you mean 'm'?"


def test_default_free_expands_the_defining_rules(tiny):
    assert default_free(tiny, "load", tiny.context("chip")) == (("n", "m"), "the variables its defining rules rest on")
    assert default_free(tiny, "load", tiny.context("chip"), ["m = n"])[0] == ("n",)
    given = tiny.context("chip", facts=["n=64", "m=64"])
    assert default_free(tiny, "load", given) == (("n", "m"), "the facts given for this query")
    assert default_free(tiny, "peak", tiny.context("chip"))[0] == ("rate", "clock")


def test_solve_symbolic_gives_the_contract_fields(tiny):
    context = tiny.context("chip", facts=["n=32", "m=32"])
    solution = solve_symbolic(tiny, "load", context, ["n", "m"], sensitivity=True)
    document = solution.to_dict()
    assert document["expression"] == "128/(m + n)" and document["free"] == ["n", "m"]
    assert document["value"] == 2.0 and document["status"] == "derived"
    assert document["sensitivity"] == [
        {"variable": "n", "expression": "-n/(m + n)", "elasticity": -0.5},
        {"variable": "m", "expression": "-m/(m + n)", "elasticity": -0.5}]


def test_exact_numbers_and_latex_names():
    assert exact_number(0.1) == sympy.Rational(1, 10)
    assert latex_of(symbol_of("tc_peak[bf16]")) == r"\mathrm{tc\_peak}_{\mathrm{bf16}}"


positive = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 10_000), m=positive, rate=positive, cap=positive)  # n counts whole things
def test_closed_form_equals_the_compiled_numeric_form(tiny, n, m, rate, cap):
    context = tiny.context("chip")
    form = closed_form(tiny, "load", context, ["n", "m", "rate", "cap"])
    numeric = tiny.solve("load", gpu="chip", facts=[f"n={n!r}", f"m={m!r}", f"rate={rate!r}", f"cap={cap!r}"])
    assert form.evaluate({"n": n, "m": m, "rate": rate, "cap": cap}) == pytest.approx(numeric.magnitude, rel=1e-9)


def test_not_determined_never_offers_the_figure_asked_for_under_another_name(real_kb):
    """An FP8 model's peak from its compute time, without a GPU and with the batch free: workload_peak is
    tc_peak[fp8] itself (matmul_peak), so --symbolic offers what solve does, the GPUs, not workload_peak."""
    layers = ["llama-3-70b", "fp8"]
    with pytest.raises(NotDetermined) as info:
        closed_form(real_kb, "tc_peak[fp8]", real_kb.context(None, layers, ["decode_compute_time=10ms"]), ["batch"])
    assert info.value.needs == (("gpus",),)
    assert real_kb.solve("tc_peak[fp8]", None, layers, ["batch=512", "decode_compute_time=10ms"]).needs == (("gpus",),)
