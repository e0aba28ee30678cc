"""hwkb.solving.solver: every status on the tiny KBs, values with provenance, routes compared."""
from __future__ import annotations

import dataclasses
import math

import pytest

from conftest import TINY, kb_from_text
from hwkb import KnowledgeBase
from hwkb.solving import solver as solve_module
from hwkb.solving.solution import Solution, Status
from hwkb.solving.solver import Solver
from hwkb.solving.values import FactOrigin, RuleOrigin
from hwkb.render.note_words import note_text


def test_all_names_exist():
    assert sorted(solve_module.__all__) == ["MAX_DETOUR", "MAX_PLANS", "Solver", "Structure"]
    assert [str(s) for s in Status] == ["stated", "derived", "underdetermined", "inconsistent", "not_applicable",
                                       "implausible", "infeasible"]


def test_a_status_is_its_plain_string():
    s = Solution("x", "derived", "GHz")
    assert s.status is Status.DERIVED and s.status == "derived" and s.to_dict()["status"] == "derived"
    assert type(s.to_dict()["status"]) is str and s.determined


# ---------------------------------------------------------------- stated and derived

def test_stated(tiny_kb):
    s = tiny_kb.solve("sm_count", gpu="chip")
    assert (s.status, s.magnitude, s.unit, s.determined) == ("stated", 100.0, "", True)
    assert isinstance(s.value.origin, FactOrigin)
    assert (s.value.origin.entity, s.value.origin.source, s.value.origin.via) == ("chip", "tiny datasheet", "fact")


def test_derived_with_its_derivation(tiny_kb, monkeypatch):
    monkeypatch.chdir(TINY)
    s = tiny_kb.solve("clock", gpu="chip")
    assert (s.status, s.magnitude, s.unit) == ("derived", pytest.approx(1.0), "GHz")
    assert s.value.canonical == pytest.approx(1e9)
    assert s.to_dict() == {  # where: the file as loaded, whatever the working directory
        "command": "solve", "variable": "clock", "value": pytest.approx(1.0), "unit": "GHz", "status": "derived",
        "derivation": {
            "rule": "peak_law[fp16]", "kind": "law", "variable": "clock", "value": pytest.approx(1.0), "unit": "GHz",
            "source": "tiny book, page 1", "law": "peak[fp16] = sm_count * fma_rate[fp16] * clock", "inputs": [
                {"fact": "peak[fp16]", "value": 204.8, "unit": "TFLOPS", "entity": "chip", "source": "tiny datasheet",
                 "where": f"{TINY}/gpus/chips.yaml:16:25"},
                {"fact": "sm_count", "value": 100.0, "unit": "", "entity": "chip", "source": "tiny datasheet",
                 "where": f"{TINY}/gpus/chips.yaml:15:23"},
                {"fact": "fma_rate[fp16]", "value": 1024.0, "unit": "FMA/cycle", "entity": "arch",
                 "source": "tiny whitepaper, table 3", "where": f"{TINY}/gpus/chips.yaml:8:29"},
            ]}}


def test_derived_through_two_rules(tiny_kb):
    s = tiny_kb.solve("peak[bf16]", gpu="chip")
    assert (s.status, s.magnitude) == ("derived", pytest.approx(204.8))
    origin = s.value.origin
    assert isinstance(origin, RuleOrigin) and origin.rule == "peak_law[bf16]"
    assert [i.key for i in origin.inputs] == ["sm_count", "fma_rate[bf16]", "clock"]
    assert origin.inputs[1].origin.rule == "bf16_is_fp16"
    assert [f.key for f in s.value.facts()] == ["sm_count", "fma_rate[fp16]", "peak[fp16]"]
    assert s.value.depends == {"sm_count", "fma_rate[bf16]", "fma_rate[fp16]", "clock", "peak[fp16]"}


def test_rounding_is_carried_to_first_order(tiny_kb):
    s = tiny_kb.solve("clock", gpu="chip")
    # a printed figure rounded or cut short (as the audit reads it): 204.8 TFLOPS to a whole last digit, 1024
    # FMA/cycle to a whole unit; the SM count exact
    assert s.value.uncertainty == pytest.approx(0.1 / 204.8 + 1 / 1024, rel=1e-4)


def test_with_sets_and_no_entity(tiny_kb):
    s = tiny_kb.solve("sm_count", facts=["peak[bf16]=100TFLOPS", "clock=1GHz", "fma_rate[bf16]=500"])
    assert (s.status, s.magnitude) == ("derived", pytest.approx(100.0))
    assert {i.origin.via for i in s.value.origin.inputs} == {"set"}


# ---------------------------------------------------------------- underdetermined

def test_underdetermined_names_what_would_settle_it(tiny_kb):
    s = tiny_kb.solve("clock", gpu="arch")
    assert (s.status, s.value, s.magnitude, s.determined) == ("underdetermined", None, None, False)
    assert s.needs == (("peak[bf16]",), ("peak[fp16]",))
    assert s.to_dict() == {"command": "solve", "variable": "clock", "value": None, "unit": "GHz", "status": "underdetermined",
                           "derivation": None, "needs": [["peak[bf16]"], ["peak[fp16]"]]}


def test_underdetermined_from_nothing(tiny_kb):
    s = tiny_kb.solve("clock")
    assert s.status == "underdetermined"
    assert ("fma_rate[fp16]", "peak[fp16]", "sm_count") in s.needs
    assert all(len(n) == 3 for n in s.needs)


def test_needs_leave_out_sets_that_only_force_a_relation_among_themselves(tiny_kb):
    """The two peaks with the SM count give three equations in the two rates and the clock that the clock
    cannot be separated from: they force peak[bf16] = peak[fp16] instead of settling the clock."""
    needs = tiny_kb.solve("clock", facts=["sm_count=100"]).needs
    assert needs == (("fma_rate[bf16]", "peak[bf16]"), ("fma_rate[bf16]", "peak[fp16]"),
                     ("fma_rate[fp16]", "peak[bf16]"), ("fma_rate[fp16]", "peak[fp16]"))


# ---------------------------------------------------------------- inconsistent

def test_inconsistent_routes(tiny_kb):
    s = tiny_kb.solve("clock", gpu="chip", facts=["clock=1.5GHz"])
    assert (s.status, s.magnitude, s.determined) == ("inconsistent", 1.5, True)
    assert s.value.stated and s.value.origin.via == "set"
    assert [a.magnitude for a in s.alternatives] == [pytest.approx(1.0)]
    assert s.alternatives[0].origin.rule == "peak_law[fp16]"
    d = s.to_dict()
    assert d["status"] == "inconsistent"
    assert d["alternatives"] == [{"value": pytest.approx(1.0), "unit": "GHz",
                                  "derivation": s.alternatives[0].derivation_dict()}]


def test_contradictory_facts_of_an_entity(bad_kb):
    kb = KnowledgeBase.load([bad_kb("contradictory_facts")], default=False)
    s = kb.solve("clock", gpu="liar")
    assert (s.status, s.magnitude) == ("inconsistent", 1.5)
    assert s.value.origin.source == "a hopeful datasheet"
    assert [a.magnitude for a in s.alternatives] == [pytest.approx(1.0)]


def test_agreement_within_rounding_is_consistent(tiny_kb):
    s = tiny_kb.solve("clock", gpu="chip", facts=["clock=1.0012GHz"])  # the route is 1 GHz +- 0.146 %
    assert (s.status, s.magnitude) == ("stated", 1.0012)
    assert len(s.alternatives) == 1
    # a given figure is read as printed: "1.002" is 1.0015 to 1.003, within the route's rounding; "1.003" is not
    assert tiny_kb.solve("clock", gpu="chip", facts=["clock=1.002GHz"]).status == "stated"
    assert tiny_kb.solve("clock", gpu="chip", facts=["clock=1.003GHz"]).status == "inconsistent"
    assert tiny_kb.solve("clock", gpu="chip", facts=["clock=1.00200GHz"]).status == "inconsistent"


# ---------------------------------------------------------------- not applicable

def test_stated_as_not_applicable(tiny_kb):
    s = tiny_kb.solve("peak[bf16]", gpu="chip", facts=["peak[bf16]=n/a"])
    assert (s.status, s.value, s.determined) == ("not_applicable", None, False)
    assert s.notes == ("peak[bf16] is stated as n/a at --set",)
    assert "needs" not in s.to_dict()


def test_resting_on_something_not_applicable(tiny_kb):
    s = tiny_kb.solve("peak[bf16]", gpu="chip", facts=["fma_rate[bf16]=n/a"])
    assert s.status == "not_applicable"
    assert s.notes == ("peak[bf16] rests on what this context states as n/a: fma_rate[bf16] (--set)",)
    # what does not rest on it is unaffected
    assert tiny_kb.solve("clock", gpu="chip", facts=["fma_rate[bf16]=n/a"]).status == "derived"


# ---------------------------------------------------------------- simultaneous blocks

def test_a_block_is_solved_jointly(block_kb):
    for key, value in (("x", 7.0), ("y", 3.0)):
        s = block_kb.solve(key, gpu="pair")
        assert (s.status, s.magnitude) == ("derived", pytest.approx(value))
        assert s.value.origin.rule == "system(sum, difference)"
        assert s.value.origin.law == "a = x + y; b = x - y"
        assert {i.key for i in s.value.origin.inputs} == {"a", "b"}


def test_after_a_block_propagation_continues(block_kb):
    s = block_kb.solve("z", gpu="pair")
    assert (s.status, s.magnitude) == ("derived", pytest.approx(2.1))
    assert s.value.origin.rule == "product"


def test_solver_plan_and_derived(block_kb):
    solver = block_kb.solver(block_kb.context("pair"))
    assert [(s.relations, s.outputs) for s in solver.plan.steps] == [((0, 1), ("x", "y")), ((2,), ("z",))]
    assert [v.key for v in solver.derived()] == ["x", "y", "z"]


def test_a_given_equality_the_facts_contradict_makes_the_answer_inconsistent(tiny_kb):
    s = tiny_kb.solve("peak[bf16]", gpu="chip", where=["sm_count = 50"])  # the chip states 100 SMs
    assert s.status == "inconsistent" and s.magnitude == pytest.approx(204.8)
    assert note_text(s.notes[-1]) == "'sm_count = 50' does not hold here (sm_count = 100)"


def test_a_block_without_a_positive_solution_leaves_its_keys_open(block_kb):
    s = block_kb.solve("x", gpu="pair", facts=["b=12GHz"])  # x = 11, y = -1: no positive solution
    assert s.status == "underdetermined"
    assert s.notes == ("the system sum, difference has 0 positive solutions for x, y",)
    assert block_kb.solve("z", gpu="pair", facts=["b=12GHz"]).status == "underdetermined"


def test_a_route_that_cannot_give_a_value_leaves_later_steps_open(tiny_kb):
    s = tiny_kb.solve("peak[bf16]", gpu="chip", facts=["sm_count=0"])  # clock = peak / (0 * rate)
    assert s.status == "underdetermined"
    assert s.notes == ("peak_law[fp16] cannot give clock here: float division by zero",)


# ---------------------------------------------------------------- the types

def test_solution_is_frozen_and_one_type(tiny_kb):
    answers = [tiny_kb.solve("sm_count", gpu="chip"), tiny_kb.solve("clock", gpu="arch"),
               tiny_kb.solve("peak[bf16]", gpu="chip", facts=["peak[bf16]=n/a"])]
    assert all(type(a) is Solution for a in answers)
    with pytest.raises(dataclasses.FrozenInstanceError):
        answers[0].status = "derived"


def test_solver_values_hold_facts_and_derived(tiny_kb):
    solver = Solver(tiny_kb, tiny_kb.context("chip"))
    assert set(solver.values) == {"sm_count", "fma_rate[fp16]", "peak[fp16]", "clock", "fma_rate[bf16]", "peak[bf16]"}
    assert [v.key for v in solver.derived()] == ["clock", "fma_rate[bf16]", "peak[bf16]"]
    assert solver.producer == {"clock": 0, "fma_rate[bf16]": 2, "peak[bf16]": 1}


def test_derive_of_the_kb(tiny_kb):
    assert [(v.key, round(v.magnitude, 6)) for v in tiny_kb.derive(gpu="chip")] == [
        ("clock", 1.0), ("fma_rate[bf16]", 1024.0), ("peak[bf16]", 204.8)]


NO_CLOSED_FORM_RULES = """
variables:
  p: {unit: "", doc: first unknown}
  q: {unit: "", doc: second unknown}
  s: {unit: "", doc: a stated value}
  t: {unit: "", doc: another stated value}
rules:
  first:  {doc: transcendental in p and q, eq: s = p + exp(p) * q, source: test}
  second: {doc: and again, eq: t = p * q + log(q), source: test}
"""


def test_a_block_without_a_closed_form_is_solved_numerically(tmp_path):
    kb = kb_from_text(tmp_path, NO_CLOSED_FORM_RULES, "pair: {kind: product, source: test, facts: {s: 5, t: 1}}\n")
    solution = kb.solve("p", gpu="pair")
    assert solution.status == "derived" and "solved numerically" in solution.notes[0]
    p, q = solution.magnitude, kb.solve("q", gpu="pair").magnitude
    assert p + math.exp(p) * q == pytest.approx(5, rel=1e-10) and p * q + math.log(q) == pytest.approx(1, abs=1e-10)


def test_an_extraneous_root_of_a_solved_direction_is_no_value(tmp_path):
    """``a = sqrt(b * c) + d`` solved for b is ``(a - d)**2 / c``: with a < d no positive b satisfies it."""
    kb = kb_from_text(tmp_path, """
variables:
  a: {unit: GHz, doc: a}
  b: {unit: GHz, doc: b}
  c: {unit: GHz, doc: c}
  d: {unit: GHz, doc: d}
rules:
  r: {doc: a root plus an offset, eq: a = sqrt(b * c) + d, source: test}
""", """
below: {kind: product, facts: {a: 1 GHz, c: 1 GHz, d: 2 GHz}}
above: {kind: product, facts: {a: 3 GHz, c: 1 GHz, d: 2 GHz}}
""")
    none = kb.solve("b", gpu="below")
    assert none.status == "underdetermined" and none.value is None
    assert "r has no solution for b here (its solved form gives 1e+09, which does not satisfy it)" in map(note_text, none.notes)
    some = kb.solve("b", gpu="above")
    assert some.status == "derived" and some.magnitude == pytest.approx(1.0)


def test_a_target_behind_a_block_that_fixes_only_a_product_says_what_would_settle_it(tmp_path):
    """Two peaks of one rate fix only sm_count x clock: the target is underdetermined, the needs name a
    figure that settles it (not 'no further fact settles it'), and the block's note stays with its keys."""
    kb = kb_from_text(tmp_path, """
variables:
  sms: {unit: "", doc: SMs}
  clock: {unit: GHz, doc: clock}
  rate_a: {unit: FMA/cycle, doc: rate a}
  rate_b: {unit: FMA/cycle, doc: rate b}
  peak_a: {unit: TFLOPS, doc: peak a}
  peak_b: {unit: TFLOPS, doc: peak b}
rules:
  law_a: {doc: peak a, eq: peak_a = sms * rate_a * clock, source: test}
  law_b: {doc: peak b, eq: peak_b = sms * rate_b * clock, source: test}
  twice: {doc: b is twice a, eq: rate_b = 2 * rate_a, source: test}
""", """
sheet: {kind: product, facts: {sms: 100, peak_a: 102.4 TFLOPS, peak_b: 204.9 TFLOPS}}
""")
    s = kb.solve("clock", gpu="sheet")
    assert s.status == "underdetermined"
    assert ("rate_a",) in s.needs and ("rate_b",) in s.needs
    assert kb.solve("sms", gpu="sheet").notes == ()


# ---------------------------------------------------------------- plans shared by what is known

def test_queries_that_know_the_same_keys_share_one_plan_and_keep_their_own_values(tiny_kb):
    first = tiny_kb.solver(tiny_kb.context(gpu="chip"))
    other = tiny_kb.solver(tiny_kb.context(gpu="chip", facts=["sm_count=200"]))
    assert other.plan is first.plan
    assert other.values["clock"].canonical == pytest.approx(first.values["clock"].canonical / 2)
    not_applicable = tiny_kb.solver(tiny_kb.context(gpu="chip", facts=["fma_rate[bf16]=n/a"]))
    assert not_applicable.plan is not first.plan and "peak[bf16]" not in not_applicable.values
    assert tiny_kb.solver(tiny_kb.context(gpu="chip"), use_expectations=True).plan is not first.plan


def test_where_equalities_plan_afresh(tiny_kb):
    context = tiny_kb.context(facts=["peak[fp16]=204.8 TFLOPS", "fma_rate[fp16]=1024"])
    plans = dict(tiny_kb.plans)
    with_where = tiny_kb.solver(context, where=["sm_count = 100"])
    assert with_where.values["clock"].canonical == pytest.approx(1e9)
    assert all(p is not with_where.plan for p in tiny_kb.plans.values()) and plans.items() <= tiny_kb.plans.items()


def test_the_plans_kept_are_bounded(tiny_kb, monkeypatch):
    monkeypatch.setattr(solve_module, "MAX_PLANS", 1)
    tiny_kb.plans.clear()
    tiny_kb.solver(tiny_kb.context(gpu="chip"))
    tiny_kb.solver(tiny_kb.context(gpu="chip", facts=["fma_rate[bf16]=n/a"]))
    assert len(tiny_kb.plans) == 1


def test_a_lazy_solver_reads_fewer_steps_and_answers_as_a_full_one(real_kb):
    """kb.solve evaluates the plan steps its answer reads: the target's, its other routes' and their detours'."""
    context = real_kb.context("h100-sxm", [], [])
    full = Solver(real_kb, context)
    lazy = Solver(real_kb, context, lazy=True)
    assert lazy.values.keys() < full.values.keys()  # nothing derived yet
    answer = lazy.solution("clock_tc")
    assert repr(answer) == repr(full.solution("clock_tc")) and answer.notes == full.solution("clock_tc").notes
    evaluated = {s for s in full.plan.steps if all(k not in lazy._pending for k in s.outputs)}
    assert 0 < len(evaluated) < len(full.plan.steps) / 2
    for gpu in ("mi300x", "a100-80gb-sxm", "v100", "tpu-v5p"):
        context = real_kb.context(gpu, [], [])
        full = Solver(real_kb, context)
        for key in ("clock_tc", "tc_peak[bf16]", "sm_count", "memory_bandwidth", "l2_size"):
            a, b = full.solution(key, needs=False), Solver(real_kb, context, lazy=True).solution(key, needs=False)
            assert (repr(a), a.notes) == (repr(b), b.notes), (gpu, key)
