"""hwkb.questions.thresholds: thresholds exact where SymPy can, numeric otherwise, and the two agree."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from conftest import kb_from_text
from hwkb.errors import KBError, OutsideLimit
from hwkb.questions.searches import greatest_integer, least_integer
from hwkb.questions.thresholds import admissible_set, parse_constraints, solve_constrained
from hwkb.solving.solution import Interval
from hwkb.errors import DimensionError
from hwkb.solving.points import PointEvaluator
from hwkb.render.note_words import note_text

TINY_RULES = """
variables:
  n:      {unit: "", integer: true, doc: a count}
  x:      {unit: "", doc: a real knob}
  cost:   {unit: "", doc: work per item (items of plain work)}
  rate:   {unit: flop/cycle, doc: work per cycle}
  cap:    {unit: flop/cycle, doc: capacity per cycle}
  load:   {unit: "", doc: share of the capacity}
  capped: {unit: "", doc: the load capped at 1}
  bump:   {unit: "", doc: a function with a hump}
  m:      {unit: "", integer: true, doc: a second count}
  share:  {unit: "", doc: share of the capacity for n and m items}
  fit:    {unit: "", integer: true, doc: whole items of n in 256}
  fit_x:  {unit: "", integer: true, doc: whole sixteens in x}
  inv:    {unit: "", doc: the inverse of x}
  n_max:  {unit: "", integer: true, doc: the most n a launch allows}
rules:
  cost_law:   {doc: cost of an item, eq: cost = 2 * n, source: test}
  load_law:   {doc: load of the capacity, eq: load = rate / cost / cap, source: test}
  capped_law: {doc: capped load, eq: "capped = min(load, 1)", source: test}
  bump_law:   {doc: a hump, eq: bump = x / (1 + x ** 2), source: test}
  share_law:  {doc: n and m items, eq: share = rate / (cost + 2 * m) / cap, source: test}
  fit_law:    {doc: items that fit, eq: "fit = floor(256 / n)", source: test}
  fit_x_law:  {doc: sixteens that fit, eq: "fit_x = floor(x / 16)", source: test}
  inv_law:    {doc: the inverse, eq: inv = 1 / x, source: test}
  n_limit:    {kind: limit, doc: no more n than the chip allows, eq: n <= n_max, source: test}
"""
TINY_GPUS = """
chip:
  kind: product
  source: test
  facts: {rate: 4096 flop/cycle, cap: 16 flop/cycle, n: 8}
capped-chip:
  kind: product
  extends: chip
  source: test
  facts: {n_max: 200}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("tiny_constraints"), TINY_RULES, TINY_GPUS)


def test_least_integer_exactly(tiny):
    # load = 4096 / (2n) / 16 = 128 / n <= 1  <=>  n >= 128 (the entity's n = 8 is set aside)
    solution = solve_constrained(tiny, "n", tiny.context("chip"), ["load <= 1"])
    assert solution.status == "derived" and solution.magnitude == 128 and solution.extra["bound"] == "lower"
    assert solution.intervals == (Interval(128.0, None, True, False),)
    assert str(solution).startswith("n >= 128   (derived)")
    assert note_text(solution.notes[0]) == "set aside n = 8  (chip) to solve for it"
    assert "solved exactly" in solution.notes[1]


def test_strict_inequality_moves_the_least_integer(tiny):
    assert solve_constrained(tiny, "n", tiny.context("chip"), ["load < 1"]).magnitude == 129


def test_min_goes_numeric_and_agrees(tiny):
    exact = solve_constrained(tiny, "n", tiny.context("chip"), ["load <= 0.5"])
    numeric = solve_constrained(tiny, "n", tiny.context("chip"), ["capped <= 0.5"])
    assert exact.magnitude == numeric.magnitude == 256
    assert any("solved numerically" in n for n in map(note_text, numeric.notes))


def test_forced_numeric_method_agrees_with_exact(tiny):
    for where in (["load <= 1"], ["load >= 0.25", "load <= 0.5"]):
        exact = solve_constrained(tiny, "n", tiny.context("chip"), where, method="exact")
        numeric = solve_constrained(tiny, "n", tiny.context("chip"), where, method="numeric")
        assert exact.magnitude == numeric.magnitude
        assert [i.lower for i in exact.intervals] == [i.lower for i in numeric.intervals]


def test_a_real_window_exactly_and_numerically(tiny):
    # x / (1 + x^2) >= 0.4  <=>  0.5 <= x <= 2
    constraints = parse_constraints(tiny, ["bump >= 0.4"])
    exact = admissible_set(tiny, "x", tiny.context(), constraints, method="exact")
    numeric = admissible_set(tiny, "x", tiny.context(), constraints, method="numeric")
    assert exact.intervals == (Interval(0.5, 2.0, True, True),)
    (found,) = numeric.intervals
    assert found.lower == pytest.approx(0.5, rel=1e-9) and found.upper == pytest.approx(2.0, rel=1e-9)
    solution = solve_constrained(tiny, "x", tiny.context(), ["bump >= 0.4"])
    assert (solution.magnitude, solution.extra) == (0.5, {"bound": "both", "upper": 2.0})  # both ends are bounds
    assert str(solution).startswith("x = 0.5–2   (derived)")


def test_no_admissible_value_is_infeasible_with_the_best_reached(tiny):
    solution = solve_constrained(tiny, "x", tiny.context(), ["bump >= 0.6"])
    assert solution.status == "infeasible" and solution.intervals == () and solution.value is None
    assert solution.extra["reachable"] == {"quantity": "bump", "value": 0.5, "unit": "", "at": 1.0, "side": "most"}
    assert str(solution).splitlines()[:2] == ["x: infeasible", "  the highest bump reached is 0.5 (at x = 1)"]


@pytest.mark.parametrize("variable, where, side, value", [
    ("n", ["load <= 1"], "lower", 128),      # load = 128 / n falls with n
    ("n", ["load >= 1"], "upper", 128),
    ("n", ["load > 1"], "upper", 127),
    ("x", ["inv >= 0.25"], "upper", 4.0),    # inv = 1 / x falls with x
    ("x", ["inv <= 0.25"], "lower", 4.0),
    ("x", ["inv > 0.25"], "upper", 4.0),
])
def test_the_headline_is_the_bound_on_the_side_asked(tiny, variable, where, side, value):
    solution = tiny.solve(variable, gpu="chip", where=where)
    assert (solution.status, solution.extra["bound"], solution.magnitude) == ("derived", side, value)
    assert solution.to_dict()["bound"] == side and solution.to_dict()["value"] == value
    strict = variable == "x" and "=" not in where[0]  # a real bound the set does not include
    sign = ("<" if strict else "<=") if side == "upper" else ">="
    assert str(solution).startswith(f"{variable} {sign} {value:g} ")


def test_an_equality_through_floor_answers_the_interval_of_solutions(tiny):
    # fit = floor(256 / n) = 2  <=>  85.33 < n <= 128
    solution = tiny.solve("n", where=["fit = 2"])
    assert (solution.status, solution.magnitude, solution.extra) == ("derived", 86, {"bound": "both", "upper": 128.0})
    assert str(solution).startswith("n = 86–128   (derived)")
    assert "searched 'fit = 2' as constraints: the laws do not invert them for n" in solution.notes


def test_a_launch_limit_is_the_edge_of_the_search(tiny):
    capped = tiny.context("capped-chip")
    assert tiny.solve("n", gpu="capped-chip", where=["load >= 1"]).magnitude == 128
    whole = solve_constrained(tiny, "n", capped, ["load >= 0.5"])   # n <= 256, but the chip allows 200
    assert (whole.extra, whole.intervals) == ({"bound": "both", "upper": 200.0}, (Interval(0.0, 200.0, False, True),))
    assert "n searched up to 200 (launch limit n_limit)" in map(note_text, whole.notes)
    beyond = solve_constrained(tiny, "n", capped, ["capped <= 0.5"])   # n >= 256: past the limit
    assert beyond.status == "infeasible"
    assert (beyond.extra["reachable"]["value"], beyond.extra["reachable"]["at"]) == (0.64, 200)
    assert str(beyond).splitlines()[1] == "  the lowest capped reached is 0.64 (at n = 200)"


def test_a_context_past_a_launch_limit_is_an_error(tiny):
    with pytest.raises(OutsideLimit) as caught:
        tiny.context("capped-chip", facts=["n=300"])
    assert str(caught.value) == ("--set: n = 300 exceeds the launch limit n_max = 200 (capped-chip, test): rule n_limit, "
                                 "n <= n_max; no more n than the chip allows")


def test_a_stated_override_is_checked_not_solved(tiny):
    held = solve_constrained(tiny, "n", tiny.context("chip", facts=["n=256"]), ["load <= 1"])
    broken = solve_constrained(tiny, "n", tiny.context("chip", facts=["n=64"]), ["load <= 1"])
    assert held.status == "stated" and held.intervals is None and "'load <= 1' holds" in held.notes
    assert broken.status == "inconsistent" and "'load <= 1' does not hold in this context" in broken.notes


def test_undetermined_constraint_reports_needs(tiny):
    solution = solve_constrained(tiny, "n", tiny.context(), ["load <= 1"])
    assert solution.status == "underdetermined"
    assert solution.needs == (("cap", "rate"),)


def test_dimension_mismatch_in_where_is_an_error(tiny):
    with pytest.raises(DimensionError):
        solve_constrained(tiny, "n", tiny.context("chip"), ["rate >= 1000"])


def test_a_threshold_under_an_equality(tiny):
    # share = 4096 / (2n + 2m) / 16 with m = n: 64 / n <= 1  <=>  n >= 64
    solution = tiny.solve("n", gpu="chip", where=["m = n", "share <= 1"])
    assert solution.status == "derived" and solution.magnitude == 64 and solution.extra["bound"] == "lower"
    assert solution.intervals == (Interval(64.0, None, True, False),)
    inputs = {v.key: v.magnitude for v in solution.value.origin.inputs}
    assert inputs == {"share": 1.0}


def test_symbolic_threshold_agrees_with_bisection_on_the_numeric_form(tiny):
    where = ["share <= 0.9"]
    context = tiny.context("chip", facts=["m=100"])
    solution = solve_constrained(tiny, "n", context, where)
    evaluate = PointEvaluator(tiny, context, ["n"], ["share"])
    f = lambda n: evaluate({"n": n})["share"].magnitude - 0.9
    lo, hi = 1.0, 4096.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) <= 0 else (mid, hi)
    assert solution.intervals[0].lower == pytest.approx(hi, rel=1e-9)
    assert solution.magnitude == math.ceil(hi)


@settings(max_examples=4, deadline=None)
@given(m=st.integers(1, 1024), bound=st.sampled_from([0.25, 0.5, 0.9, 1.0, 2.0]))
def test_exact_and_numeric_thresholds_agree(tiny, m, bound):
    context = tiny.context("chip", facts=[f"m={m}"])
    where = [f"share <= {bound}"]
    exact = solve_constrained(tiny, "n", context, where, method="exact")
    numeric = solve_constrained(tiny, "n", context, where, method="numeric")
    assert exact.magnitude == numeric.magnitude


def test_least_warps_by_search_through_the_simulation(scheduler_kb):
    solution = scheduler_kb.solve("warps", gpu="round", where=["busy >= 0.9"])
    assert solution.status == "derived" and solution.magnitude == 8
    assert solution.intervals[0].lower == 8.0
    assert any("simulated rule scheduler_model" in n for n in map(note_text, solution.notes))


def test_the_search_stops_where_the_simulation_refuses(scheduler_kb):
    s = scheduler_kb.solve("warps", gpu="round", where=["busy >= 0.9"])
    assert s.magnitude == 8 and "warps at 100 iters is too large to simulate" in s.notes[-1]


@pytest.mark.parametrize("variable, where, intervals, value", [
    ("n", ["fit >= 2"], [(1.0, 128.0, True, True)], 128),
    ("x", ["fit_x >= 3", "fit_x < 4"], [(48.0, 64.0, True, False)], 48.0),
    ("x", ["fit_x >= 2", "fit_x < 4"], [(32.0, 64.0, True, False)], 32.0),
])
def test_numeric_windows_find_both_ends_and_their_closedness(tiny, variable, where, intervals, value):
    s = tiny.solve(variable, where=where)
    assert [(i.lower, i.upper, i.lower_closed, i.upper_closed) for i in s.intervals] == \
        [pytest.approx(i) for i in intervals]
    assert s.magnitude == pytest.approx(value)


def test_an_integer_variable_without_an_integer_in_range_is_infeasible(tiny):
    s = tiny.solve("n", where=["n > 100", "n < 101"])
    assert s.status == "infeasible" and s.notes[-1] == "no positive integer satisfies 'n > 100' and 'n < 101'"


def test_interval_helpers():
    assert least_integer([Interval(0.0, 0.5, False, True), Interval(2.5, 3.0, True, True)]) == 3
    assert least_integer([Interval(0.0, None, False, False)]) == 1
    assert greatest_integer([Interval(0.0, 0.75, False, True)]) is None
    assert greatest_integer([Interval(1.0, 64.0, True, False)]) == 63
    assert greatest_integer([Interval(128.0, None, True, False)]) is None


# ---------------------------------------------------------------- a --where target with a unit (the real KB)

LLAMA_70B_MULTIPLIED = 70_553_706_496 - 128256 * 8192  # tests/questions/test_workload_questions.py's count


@pytest.mark.parametrize("target", ["100 token/s", "0.1 token/ms", "6000 token/min"])
def test_a_target_with_a_unit_is_the_target_variable(real_kb, target):
    asked = dict(variable="memory_bandwidth", context=real_kb.context("h100-sxm", ["llama-3-70b"], ["batch=1"]))
    with_unit = solve_constrained(real_kb, asked["variable"], asked["context"], [f"decode_tokens_per_s >= {target}"])
    by_variable = solve_constrained(
        real_kb, asked["variable"], real_kb.context("h100-sxm", ["llama-3-70b"], ["batch=1", "target_tokens_per_s=100"]),
        ["decode_tokens_per_s >= target_tokens_per_s"])
    assert with_unit.extra["bound"] == "lower" and with_unit.unit == "GB/s"
    # BF16 bytes x 100/s, over the two H100s that hold the weights
    assert with_unit.magnitude == pytest.approx(2 * LLAMA_70B_MULTIPLIED * 100 / 2 / 1e9, rel=1e-6)
    assert with_unit.magnitude == pytest.approx(by_variable.magnitude, rel=1e-9)


def test_a_quantity_on_the_left_reads_the_same(real_kb):
    context = real_kb.context("h100-sxm", ["llama-3-70b"], ["batch=1"])
    left = solve_constrained(real_kb, "memory_bandwidth", context, ["100 token/s <= decode_tokens_per_s"])
    right = solve_constrained(real_kb, "memory_bandwidth", context, ["decode_tokens_per_s >= 100 token/s"])
    assert left.magnitude == pytest.approx(right.magnitude, rel=1e-9)


def test_a_determined_variable_is_checked_against_a_quantity(real_kb):
    context = real_kb.context("h100-sxm", ["llama-3-70b"], ["batch=1"])
    holds = solve_constrained(real_kb, "decode_tokens_per_s", context, ["decode_tokens_per_s >= 10 token/s"])
    broken = solve_constrained(real_kb, "decode_tokens_per_s", context, ["decode_tokens_per_s >= 100 token/s"])
    assert holds.status == "derived" and "'decode_tokens_per_s >= 10 token/s' holds" in holds.notes
    assert broken.status == "inconsistent"
    assert "'decode_tokens_per_s >= 100 token/s' does not hold in this context" in broken.notes


@pytest.mark.parametrize("where, message", [
    ("decode_tokens_per_s >= 100 GB/s",
     "--where 'decode_tokens_per_s >= 100 GB/s': the left side is decode_tokens_per_s, in token/s ([token]/[time]), "
     "the right side '100 GB/s' ([information]/[time]); give '100 GB/s' in a unit of [token]/[time], such as token/s"),
    ("2 * decode_tokens_per_s >= 100 GB/s",
     "--where '2 * decode_tokens_per_s >= 100 GB/s': the left side is [token]/[time], the right side "
     "'100 GB/s' ([information]/[time]); give '100 GB/s' in a unit of [token]/[time]"),
    ("tc_peak[bf16] >= 100 token/s",
     "--where 'tc_peak[bf16] >= 100 token/s': the left side is tc_peak[bf16], in TFLOPS ([operation]/[time]), the "
     "right side '100 token/s' ([token]/[time]); give '100 token/s' in a unit of [operation]/[time], such as TFLOPS"),
    ("decode_tokens_per_s >= 100 TFLOPS",
     "--where 'decode_tokens_per_s >= 100 TFLOPS': the left side is decode_tokens_per_s, in token/s ([token]/[time]), "
     "the right side '100 TFLOPS' ([operation]/[time]); give '100 TFLOPS' in a unit of [token]/[time], such as "
     "token/s"),
    ("sfu_exp_rate >= 5 TFLOPS",
     "--where 'sfu_exp_rate >= 5 TFLOPS': the left side is sfu_exp_rate, in exp/s ([exponential]/[time]), the right "
     "side '5 TFLOPS' ([operation]/[time]); give '5 TFLOPS' in a unit of [exponential]/[time], such as exp/s"),
    ("resident_warps_per_sm >= 2048 thread",
     "--where 'resident_warps_per_sm >= 2048 thread': the left side is resident_warps_per_sm, in warp ([warp]), the "
     "right side '2048 thread' ([thread]); give '2048 thread' in a unit of [warp], such as warp"),
    ("max_threads_per_sm <= 64 warp",
     "--where 'max_threads_per_sm <= 64 warp': the left side is max_threads_per_sm, in thread ([thread]), the right "
     "side '64 warp' ([warp]); give '64 warp' in a unit of [thread], such as thread"),
    ("threads_per_block = 8 warp",
     "--where 'threads_per_block = 8 warp': the left side is threads_per_block, in thread/block ([thread]/[block]), "
     "the right side '8 warp' ([warp]); give '8 warp' in a unit of [thread]/[block], such as thread/block"),
    ("blocks_per_sm >= 4",
     "--where 'blocks_per_sm >= 4': the left side is [block], the right side dimensionless; a bare number has no "
     "unit, and blocks_per_sm is in block: write the number with a unit ('4 block'), or compare blocks_per_sm with "
     "another variable of that unit"),
    ("pixel_rate >= 100 Gtexel/s",
     "--where 'pixel_rate >= 100 Gtexel/s': the left side is pixel_rate, in Gpixel/s ([pixel]/[time]), the right "
     "side '100 Gtexel/s' ([texel]/[time]); give '100 Gtexel/s' in a unit of [pixel]/[time], such as Gpixel/s"),
    ("decode_tokens_per_s >= 100 zorks",
     "--where 'decode_tokens_per_s >= 100 zorks': unknown unit 'zorks'; units are defined in units.txt"),
    ("decode_tokens_per_s >= 100 token/s + batch",
     "--where 'decode_tokens_per_s >= 100 token/s + batch': cannot read unit 'token/s + batch': unexpected '+'; a "
     "unit is names from units.txt joined by *, / and ^ with a whole exponent, e.g. 'FMA/cycle', 'mm^2'"),
])
def test_a_quantity_of_another_dimension_or_no_unit_is_refused(real_kb, where, message):
    with pytest.raises(KBError) as info:
        real_kb.parse_where(where)
    assert str(info.value) == message


@settings(max_examples=5, deadline=None)
@given(rate=st.integers(1, 1000), unit=st.sampled_from([("token/s", 1.0), ("token/ms", 1e-3), ("token/min", 60.0)]))
def test_any_unit_of_the_rate_asks_the_same_question(real_kb, rate, unit):
    """A rate written in any unit of its dimension is the rate in token/s the variable form gives."""
    name, per_second = unit
    context = real_kb.context("b200", ["llama-3-8b"], ["batch=1"])
    with_unit = solve_constrained(real_kb, "memory_bandwidth", context,
                                  [f"decode_tokens_per_s >= {rate * per_second!r} {name}"])
    by_variable = solve_constrained(real_kb, "memory_bandwidth",
                                    real_kb.context("b200", ["llama-3-8b"], ["batch=1", f"target_tokens_per_s={rate}"]),
                                    ["decode_tokens_per_s >= target_tokens_per_s"])
    assert with_unit.magnitude == pytest.approx(by_variable.magnitude, rel=1e-9)


def test_an_unreachable_rate_names_the_best_one_the_compute_allows(real_kb):
    """Slack is the log of the sides' ratio: 1e29 token/s dwarfs every reachable rate, and still the best probe
    is the largest bandwidth, where the two H100s' BF16 peak caps decode (it was the smallest, every probe
    scoring -1 against a side 1e27 times larger)."""
    context = real_kb.context("h100-sxm", ["llama-3-70b"], ["batch=1"])
    solution = solve_constrained(real_kb, "memory_bandwidth", context, ["decode_tokens_per_s >= 1e29 token/s"])
    assert solution.status == "infeasible" and solution.extra["limiter"] == "decode_compute_time"
    reached = solution.extra["reachable"]
    assert reached["side"] == "most" and reached["unit"] == "token/s"
    assert reached["value"] == pytest.approx(2 * 989.4e12 / (2 * LLAMA_70B_MULTIPLIED), rel=1e-9)  # 2 GPUs' peak


def test_a_block_size_target_reports_every_admissible_run(real_kb):
    """Full occupancy on an H100 at 32 registers a thread: blocks of w warps fill its 64 warp slots only when w
    divides 64 (and 64 / w blocks fit its 32): five runs of block sizes, not one."""
    solution = real_kb.solve("threads_per_block", gpu="h100-sxm", facts=["regs_per_thread=32", "smem_per_block=0"],
                             where=["occupancy>=1"])
    full = {t for t in range(1, 1025) if 64 % -(-t // 32) == 0 and 64 // -(-t // 32) <= 32}
    runs = [(t, next(e for e in range(t, 1025) if e + 1 not in full)) for t in sorted(full) if t - 1 not in full]
    assert [(i.lower, i.upper) for i in solution.intervals] == runs
    assert len(runs) == 5


def test_every_integer_under_a_small_launch_limit_is_tried():
    from hwkb.questions.searches import search_integers
    found = search_integers("n", lambda n: n % 10 in (3, 4), upper=30)
    assert [(i.lower, i.upper) for i in found.intervals] == [(3, 4), (13, 14), (23, 24)]
    assert found.least == 3 and found.notes == ("tried every integer 1 .. 30: 3 separate runs admissible",)
