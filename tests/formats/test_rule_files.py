"""hwkb.formats.rule_files: index sets, variables, rules and simulated rules, each problem at file:line:col."""
from __future__ import annotations

import pytest

from conftest import write_kb
from hwkb.definitions.model import Simulation
from hwkb.errors import KBErrors
from hwkb.formats import rule_files
from hwkb.formats.load import load_model


def errors_of(tmp_path, monkeypatch, rules: str) -> list[str]:
    kb = write_kb(tmp_path, monkeypatch, {"rules/bad.yaml": rules})
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    return [str(e) for e in info.value.errors]


@pytest.mark.parametrize("rules, messages", [
    ("- a\n- b\n", ["rules/bad.yaml:1:1: a rules file must be a mapping of 'key: value' lines"]),
    ("varaibles: {}\n", ["rules/bad.yaml:1:1: unknown field 'varaibles' in a rules file; did you mean 'variables'?"]),
    ("variables:\n  x: 3\n", ["rules/bad.yaml:2:6: variable 'x' must be a mapping of 'key: value' lines"]),
    ("variables:\n  x: {doc: a thing}\n", ["rules/bad.yaml:2:6: variable 'x' lacks 'unit'"]),
    ("variables:\n  x: {unit: GHz, doc: a thing, integer: maybe}\n",
     ["rules/bad.yaml:2:41: integer must be true or false"]),
    ("variables:\n  x: {unit: GHz, doc: a thing, index: precison}\n",
     ["rules/bad.yaml:2:39: unknown index set 'precison'; did you mean 'precision'?"]),
    ("variables:\n  x: {unit: GHz, doc: a thing, source: a book}\n",
     ["rules/bad.yaml:2:32: 'source' on a variable belongs to its 'default'; "
      "give a default value or move the source to the facts"]),
    ("variables:\n  x: {unit: GHz, doc: [a, list]}\n", ["rules/bad.yaml:2:23: doc must be a single line of text"]),
    ("variables:\n  x: {unit: GHz, doc: a thing, default: 5 TFLOPS}\n",
     ["rules/bad.yaml:2:41: '5 TFLOPS' does not fit x, which is in GHz; "
      "give it in GHz or a unit of the same dimension"]),
    ("indices:\n  size: {doc: no values}\n", ["rules/bad.yaml:2:9: index set 'size' lacks 'values'"]),
    ("indices:\n  size: {values: [a, b], integer: [c]}\n",
     ["rules/bad.yaml:2:35: unknown size value 'c'; one of a, b"]),
    ("rules:\n  r: {doc: d, source: s}\n", ["rules/bad.yaml:2:3: rule 'r' lacks 'eq'; write eq: LHS = RHS"]),
    ("rules:\n  r: {doc: d, source: s, eq: clock <= clock}\n",
     ["rules/bad.yaml:2:30: a rule states an equation, not '<='; constraints belong in a query's --where, launch limits in a rule of kind: limit"]),
    ("rules:\n  r: {doc: d, source: s, for: size, eq: clock = clock}\n",
     ["rules/bad.yaml:2:31: unknown index set 'size'; one of precision"]),
    ("rules:\n  r: {doc: d, source: s, eq: 'clock[fp16] = clock'}\n",
     ["rules/bad.yaml:2:30: clock has no index, but is written clock[fp16]; write clock"]),
    ("rules:\n  r: {doc: d, source: s, eq: 'peak = clock'}\n",
     ["rules/bad.yaml:2:30: peak is indexed by precision; write peak[precision] with 'for: precision', or peak[fp16]"]),
    ("indices:\n  size: {values: [a, b]}\nrules:\n  r: {doc: d, source: s, for: size, eq: 'peak[size] = peak[size]'}\n",
     ["rules/bad.yaml:4:41: peak[size] runs over size, but peak is indexed by precision"]),
    ("rules:\n  r: {doc: d, source: s, eq: 'peak[fp32] = peak[fp16]'}\n",
     ["rules/bad.yaml:2:30: unknown precision value 'fp32'; one of fp16, bf16"]),
    ("rules:\n  r: {source: s, eq: clok = clock}\n",
     ["rules/bad.yaml:2:6: rule 'r' lacks 'doc'", "rules/bad.yaml:2:22: unknown variable 'clok'; did you mean 'clock'?"]),
    ("rules:\n  r: {doc: d, source: s, kind: limit, eq: clock = clock}\n",
     ["rules/bad.yaml:2:43: a limit states an inequality, not '='; write eq: LHS <= RHS"]),
    ("rules:\n  r: {doc: d, source: s, tolerance: lots, eq: clock = clock}\n",
     ["rules/bad.yaml:2:37: tolerance 'lots' must be a fraction, e.g. '1 %' or 0.01"]),
    ("variables:\n  x: {unit: GHz, doc: a clock, capacity: true}\n",
     ["rules/bad.yaml:2:32: capacity: true is for sizes in bytes, but x is in GHz; "
      "leave 'capacity' out, or give the variable a unit of bytes"]),
])
def test_error_branches(rules, messages, tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, rules) == messages


def test_a_quoted_expression_is_placed_after_its_quote(tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, "rules:\n  r:\n    doc: d\n    source: s\n"
                                            "    eq: 'clock = foo(clock)'\n") == [
        "rules/bad.yaml:5:18: function 'foo' is not allowed in 'clock = foo(clock)'; "
        "use min, max, floor, ceil, sqrt, exp, log"]


def test_tiny_rules_as_written(tiny_kb):
    rule = tiny_kb.model.rules["peak_law"]
    assert (rule.kind, rule.text, rule.source, rule.over, rule.tolerance) == (
        "law", "peak[precision] = sm_count * fma_rate[precision] * clock", "tiny book, page 1", ("precision",), 0.0)
    assert [str(r) for r in rule.relation.references()] == ["peak[precision]", "sm_count", "fma_rate[precision]", "clock"]


def test_tiny_variables_and_indices_as_written(tiny_kb):
    model = tiny_kb.model
    assert model.indices["precision"].values == ("fp16", "bf16")
    sm_count, peak = model.variables["sm_count"], model.variables["peak"]
    assert (sm_count.unit, sm_count.integer, sm_count.index, sm_count.default) == ("", True, None, None)
    assert (peak.unit, peak.integer, peak.index) == ("TFLOPS", False, "precision")


def test_rule_tolerance_is_relative(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "rules:\n  r: {kind: expectation, doc: d, source: s, "
                                                          "tolerance: 2 %, eq: 'peak[bf16] = peak[fp16]'}\n"})
    rule = load_model([kb])[0].rules["r"]
    assert (rule.kind, rule.tolerance) == ("expectation", pytest.approx(0.02))


def test_a_worked_example_is_kept_apart_from_the_source(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "rules:\n  r: {doc: d, source: a book, example: 'chip: 2 x 3 = 6', "
                                                          "eq: 'peak[bf16] = peak[fp16]'}\n"})
    model = load_model([kb])[0]
    assert (model.rules["r"].source, model.rules["r"].example) == ("a book", "chip: 2 x 3 = 6")
    assert model.rules["peak_law"].example == ""


def test_variable_default(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "variables:\n  lanes: {unit: FMA/cycle, doc: d, "
                                                          "default: 1 FMA/cycle, source: a book}\n"})
    default = load_model([kb])[0].variables["lanes"].default
    assert (default.key, default.value, default.unit, default.source, default.entity) == (
        "lanes", 1.0, "FMA/cycle", "a book", None)


def test_a_default_is_exact_unless_it_states_a_tolerance(tmp_path, monkeypatch):
    """A default is a definition or an ideal bound, not a rounded printed figure: read as one, "1 FMA/cycle" allowed
    0.5 to 1.5, and `solve` called an FP32 peak 24 % off its law's value consistent."""
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "variables:\n"
                                          "  lanes: {unit: FMA/cycle, doc: d, default: 1 FMA/cycle, source: a book}\n"
                                          "  share: {unit: '', doc: d, default: {value: 1, tolerance: 0.1}, source: b}\n"})
    variables = load_model([kb])[0].variables
    assert (variables["lanes"].default.rounding, variables["share"].default.rounding) == (0.0, 0.1)


# ---------------------------------------------------------------- simulated rules

SIMULATED = ("rules:\n  r:\n    kind: simulated\n    doc: d\n    source: s\n    model: {model}\n"
             "    inputs: {inputs}\n    output: clock\n{options}")
INPUTS = "{warps: sm_count, ilp: sm_count, compute: sm_count, latency: 'fma_rate[fp16]'}"


def test_a_simulated_rule(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": SIMULATED.format(
        model="warp_scheduler", inputs=INPUTS, options="    options: {policy: lrr, iters: 50}\n")})
    rule = load_model([kb])[0].rules["r"]
    assert (rule.kind, rule.relation) == ("simulated", None)
    assert rule.simulation == Simulation("warp_scheduler", {"warps": "sm_count", "ilp": "sm_count",
                                                            "compute": "sm_count", "latency": "fma_rate[fp16]"},
                                         "clock", {"policy": "lrr", "iters": 50})


@pytest.mark.parametrize("model, inputs, options, messages", [
    ("warp_schedular", INPUTS, "",
     ["rules/bad.yaml:6:12: unknown simulation model 'warp_schedular'; did you mean 'warp_scheduler'?"]),
    ("warp_scheduler", "{warps: sm_count, ilp: sm_count}", "",
     ["rules/bad.yaml:7:13: model 'warp_scheduler' takes the inputs warps, ilp, compute, latency; "
      "missing: compute, latency; unknown: none"]),
    ("warp_scheduler", INPUTS.replace("'fma_rate[fp16]'", "fma_rate"), "",
     ["rules/bad.yaml:7:13: model 'warp_scheduler' takes the inputs warps, ilp, compute, latency; "
      "missing: latency; unknown: none",
      "rules/bad.yaml:7:74: fma_rate is indexed by precision; write fma_rate[fp16] (one of fp16, bf16)"]),
    ("warp_scheduler", INPUTS, "    options: {speed: 2}\n",
     ["rules/bad.yaml:9:22: model 'warp_scheduler' has no option 'speed'; its options: policy, iters"]),
])
def test_simulated_rule_errors(model, inputs, options, messages, tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, SIMULATED.format(model=model, inputs=inputs, options=options)) == messages


def test_a_simulated_rule_needs_its_model(tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, "rules:\n  r: {doc: d, source: s, kind: simulated}\n") == [
        "rules/bad.yaml:2:3: a simulated rule needs 'model'"]


def test_module_surface():
    assert sorted(rule_files.__all__) == ["build_rule", "build_variable", "check_aliases", "check_key", "check_ref",
                                          "read_rule_file"]


def test_aliases_as_declared(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/vendor.yaml": """
        variables:
          cu_rate: {unit: FMA/cycle, doc: a rate, aliases: [rate_per_cu]}
          xcds: {unit: "", doc: dies, aliases: xcd_count}
        rules:
          vendor_law:
            doc: a law written in a vendor's words
            eq: rate_per_cu = xcd_count * fma_rate[fp16]
            source: vendor book
        """})
    model = load_model([kb])[0]
    assert model.variables["cu_rate"].aliases == ("rate_per_cu",) and model.variables["xcds"].aliases == ("xcd_count",)
    assert model.variables["clock"].aliases == ()
    assert [str(r) for r in model.rules["vendor_law"].relation.references()] == ["cu_rate", "xcds", "fma_rate[fp16]"]


@pytest.mark.parametrize("rules, messages", [
    ("variables:\n  a: {unit: GHz, doc: x, aliases: [clock]}\n",
     ["rules/bad.yaml:2:35: alias 'clock' of 'a' is the name of another variable; that variable is declared at "
      "rules/compute.yaml:9:3"]),
    ("variables:\n  a: {unit: GHz, doc: x, aliases: [b]}\n  c: {unit: GHz, doc: y, aliases: [b]}\n",
     ["rules/bad.yaml:3:35: alias 'b' of 'c' is declared twice; it is an alias of 'a' at rules/bad.yaml:2:3"]),
    ("variables:\n  a: {unit: GHz, doc: x, aliases: [a, b, b]}\n",
     ["rules/bad.yaml:2:35: alias 'a' of 'a' is its own name", "rules/bad.yaml:2:35: alias 'b' of 'a' is written twice"]),
    ("variables:\n  a: {unit: GHz, doc: x, aliases: [exp]}\n",
     ["rules/bad.yaml:2:35: variable name 'exp' is reserved; a variable may not be called like a function (min, max, "
      "floor, ceil, sqrt, exp, log), a builtin, a module or a placeholder x0, x1, ..."]),
    ("variables:\n  a: {unit: GHz, doc: x, aliases: {b: c}}\n",
     ["rules/bad.yaml:2:35: the aliases of 'a' must be a name or a list of names"]),
])
def test_alias_errors(rules, messages, tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, rules) == messages


def test_an_index_set_names_its_integer_values(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "indices:\n  size: {values: [a, b], integer: [b]}\n"})
    assert load_model([kb])[0].indices["size"].integer == ("b",)


@pytest.mark.parametrize("declared, messages", [
    ("range: {min: 2 TFLOPS, source: s}",
     ["rules/bad.yaml:2:45: '2 TFLOPS' does not fit x, which is in GHz; "
      "give it in GHz or a unit of the same dimension"]),
    ("range: {min: 3 GHz, max: 2000 MHz, source: s}",
     ["rules/bad.yaml:2:39: the range of 'x' is empty: its lower bound 3 GHz is not below its upper bound 2 GHz; "
      "swap the bounds, or correct the one mistyped"]),
    ("range: {above: 2 GHz, below: 2 GHz, source: s}",
     ["rules/bad.yaml:2:39: the range of 'x' is empty: its lower bound 2 GHz is not below its upper bound 2 GHz; "
      "swap the bounds, or correct the one mistyped"]),
    ("range: {min: 0.1 GHz, max: 3.5 GHz}",
     ["rules/bad.yaml:2:39: the range of 'x' lacks 'source'; say where the bounds come from: a document, "
      "or the reason no real part lies outside them"]),
    ("range: {source: s}",
     ["rules/bad.yaml:2:39: the range of 'x' gives no bound; give min (or above), max (or below), or both"]),
    ("range: {min: 1 GHz, above: 1 GHz, source: s}",
     ["rules/bad.yaml:2:52: the range of 'x' gives both 'min' and 'above'; "
      "'min' includes the bound, 'above' excludes it: keep one"]),
    ("range: {min: [1], source: s}", ["rules/bad.yaml:2:45: 'min' of the range of 'x' must be a quantity; "
                                       "e.g. min: 1 GHz"]),
    ("range: {mx: 1 GHz, source: s}", ["rules/bad.yaml:2:40: unknown field 'mx' in the range of 'x'; "
                                        "did you mean 'max'?"]),
    ("range: {min: n/a, source: s}", ["rules/bad.yaml:2:45: 'min' of the range of 'x' must be a quantity; "
                                       "e.g. min: 1 GHz"]),
])
def test_range_error_branches(declared, messages, tmp_path, monkeypatch):
    assert errors_of(tmp_path, monkeypatch, f"variables:\n  x: {{unit: GHz, doc: a thing, {declared}}}\n") == messages


def test_a_range_is_kept_in_the_variables_unit(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/ok.yaml": (
        "variables:\n"
        "  x: {unit: GHz, doc: a clock, range: {min: 100 MHz, max: 3.5 GHz, source: the clocks of real parts}}\n"
        "  f: {unit: '', doc: a share, range: {above: 0, max: 1, source: a fraction}}\n")})
    variables = load_model([kb])[0].variables
    clock, share = variables["x"].range, variables["f"].range
    assert (clock.lower, clock.upper, clock.source, str(clock)) == (0.1, 3.5, "the clocks of real parts", "[0.1, 3.5]")
    assert (str(clock.where), str(share)) == ("rules/ok.yaml:2:39", "(0, 1]")
    assert (variables["x"].plausible(3.502), variables["f"].plausible(0), variables["f"].plausible(1)) == (
        False, False, True)


def test_a_capacity_reads_a_printed_decimal_prefix_as_jedecs_binary_one(tmp_path, monkeypatch):
    """Vendors print memory and cache sizes in JEDEC's units: "80 GB" of HBM is 80 GiB. The fact keeps the unit
    as printed and stores the size."""
    kb = write_kb(tmp_path, monkeypatch, {
        "rules/x.yaml": "variables:\n  memory: {unit: KiB, capacity: true, doc: a memory}\n",
        "gpus/x.yaml": "x: {kind: product, facts: {memory: {value: 80 kB, tolerance: 1 kB}}}\n"})
    model = load_model([kb])[0]
    assert model.variables["memory"].capacity and not model.variables["clock"].capacity
    fact = model.entities["x"].facts["memory"]
    assert (fact.value, fact.unit, fact.printed_unit, fact.text, fact.tolerance) == (80.0, "KiB", "kB", "80", 1.0)
