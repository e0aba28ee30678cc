"""Solving on the real KB: its forward-only rules, every solved direction of its laws, its needs and givens.

The engine's behaviour is tested on small KBs in tests/solving; these tests run
on kb/'s own rules and facts, so editing kb/ may change them.
"""
from __future__ import annotations

import math
import random

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwkb.solving.relations import symbol_of
from hwkb.render.note_words import note_text


# ---------------------------------------------------------------- forward-only rules of the real KB

def test_the_real_kb_marks_its_floor_forward_only(real_kb):
    fits = next(r for r in real_kb.relations if r.rule.text and "floor(" in r.rule.text)
    output = str(next(fits.rule.relation.references()))
    assert fits.can_solve_for(output)
    assert not any(fits.can_solve_for(k) for k in fits.keys if k != output)


def test_a_simulated_rule_is_forward_only_to_its_output(real_kb):
    sim = next(r for r in real_kb.relations if r.kind == "simulated")
    assert sim.template is None
    output = sim.rule.simulation.output
    assert sim.can_solve_for(output)
    assert not any(sim.can_solve_for(k) for k in sim.keys if k != output)


# ---------------------------------------------------------------- the property, over the real KB

def _directions(kb):
    out = []
    for rel in kb.relations:
        if rel.kind != "law" or rel.template is None:
            continue
        sides = sympy.lambdify([symbol_of(k) for k in rel.keys], [rel.lhs, rel.rhs], modules="math")
        for key in rel.keys:
            if rel.can_solve_for(key):
                out.append((rel, key, rel.solver(key), sides))
    return out


@pytest.fixture(scope="module")
def directions(real_kb):
    found = _directions(real_kb)
    assert len(found) > 100  # every law, most of them in every direction
    return found


POSITIVE = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


def _residual_ok(rel, key, solve, sides, values) -> bool | None:
    """None when the point is outside the direction's domain, else whether the residual is ≤ 1e-9."""
    try:
        values[key] = solve(values)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None  # e.g. warps_needed = 1 exactly
    if not (math.isfinite(values[key]) and values[key] > 0):
        return None  # every KB quantity is positive: a negative root is no value of the variable
    lhs, rhs = sides(*(values[k] for k in rel.keys))
    # floating point cannot do better than a few hundred ulps of the largest term: a small side that is the
    # difference of huge ones (multiplied_params = active_params - (copies - 1) x vocab x hidden) is checked to that
    return abs(lhs - rhs) <= 1e-9 * max(abs(lhs), abs(rhs)) + 1e-13 * _largest_term(rel)(*(values[k] for k in rel.keys))


_TERMS: dict[int, object] = {}


def _largest_term(rel):
    """The magnitude of the largest additive term of ``rel``'s two sides, as a function of its keys."""
    if id(rel) not in _TERMS:
        # expanded: (copies - 1) x vocab x hidden with copies near 1 is computed to the ulps of copies x vocab x hidden
        terms = sympy.Add.make_args(sympy.expand(rel.lhs)) + sympy.Add.make_args(sympy.expand(rel.rhs))
        _TERMS[id(rel)] = sympy.lambdify([symbol_of(k) for k in rel.keys], sympy.Max(*(abs(t) for t in terms)),
                                         modules="math")
    return _TERMS[id(rel)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_solved_values_substituted_back_leave_no_residual(directions, data):
    """For any law, any direction it solves and any positive values of the other keys:
    the solved value substituted back leaves a relative residual of at most 1e-9."""
    rel, key, solve, sides = data.draw(st.sampled_from(directions))
    values = {k: data.draw(POSITIVE) for k in rel.keys if k != key}
    assert _residual_ok(rel, key, solve, sides, values) is not False, (rel.name, key, values)


def test_every_direction_leaves_no_residual(directions):
    """The same law over every direction at once, at seeded random points."""
    rng = random.Random(2026)
    checked = 0
    for rel, key, solve, sides in directions:
        values = {k: 10 ** rng.uniform(-3, 6) for k in rel.keys if k != key}
        ok = _residual_ok(rel, key, solve, sides, values)
        assert ok is not False, (rel.name, key, values)
        checked += ok is True
    assert checked >= len(directions) // 2


def test_residual_value_agrees_with_the_sides(directions):
    rel, key, solve, sides = directions[0]
    values = {k: 1.5 + i for i, k in enumerate(rel.keys)}
    assert rel.residual_value(values) == pytest.approx(tuple(sides(*(values[k] for k in rel.keys))))


# ---------------------------------------------------------------- answers on the real KB

def test_a_given_equality_the_facts_contradict_makes_the_answer_inconsistent(real_kb):
    s = real_kb.solve("smem_share", gpu="hopper", layers=["wgmma-m64n64k16"], facts=["tile_n=128"],
                      where=["b_cols = tile_n"])
    assert s.status == "inconsistent" and s.magnitude == 0.5
    assert note_text(s.notes[-1]) == "'b_cols = tile_n' does not hold here (b_cols = 64, tile_n = 128)"


def test_needs_leave_out_sets_that_only_force_a_relation_among_themselves(real_kb):
    """shading_units with fp32_lanes_per_sm gives two equations in fp32_peak and clock_fp32 that the clock
    cancels out of: they force shading_units = sm_count x lanes instead of settling the clock."""
    needs = real_kb.solve("clock_fp32", gpu="trainium2").needs   # cores known; no FP32 lanes, peak or exp rate stated
    assert needs == (("fp32_lanes_per_sm", "fp32_peak"), ("fp32_peak", "shading_units"),
                     ("sfu_exp_per_sm_cycle", "sfu_exp_rate"))


def test_needs_never_offer_the_figure_asked_for_under_another_name(real_kb):
    """Without a GPU, an FP8 model's peak from its compute time lacks the GPUs it is split over; workload_peak is
    tc_peak[fp8] itself (matmul_peak), so giving it would be giving the answer, and it is not offered."""
    facts = ["batch=512", "decode_compute_time=10ms"]
    for key in ("tc_peak[fp8]", "workload_peak"):
        solution = real_kb.solve(key, layers=["llama-3-70b", "fp8"], facts=facts)
        assert solution.status == "underdetermined" and solution.needs == (("gpus",),)
    settled = real_kb.solve("tc_peak[fp8]", layers=["llama-3-70b", "fp8"], facts=[*facts, "gpus=2"])
    flop = 2 * (70_553_706_496 - 128256 * 8192) * 512  # the multiplied weights' work for the batch
    assert settled.magnitude == pytest.approx(flop / (2 * 10e-3) / 1e12, rel=1e-6)


def test_explain_leads_with_the_dense_bf16_route_on_an_mi300x(real_kb):
    """Every MI300X route rests on one derived step; the precision index's headline puts BF16 first, FP64 last."""
    solution = real_kb.solve("clock_tc", gpu="mi300x")
    rules = [v.origin.rule for v in (solution.value, *solution.alternatives)]
    assert rules[0] == "tensor_peak[bf16]" and rules[-1] == "tensor_peak[fp64]"


def test_an_amd_wavefront_is_64_threads_so_a_block_holds_half_the_warps(real_kb):
    """ROCm's table prints Wavefront Size 64 for CDNA 1-3: 256 threads are 4 wavefronts on an MI300X, 8 warps on
    an H100; the VGPR file (512 KiB a CU) over 64 lanes is 2,048 four-byte registers a lane."""
    facts = ["threads_per_block=256"]
    assert real_kb.solve("warps_per_block", gpu="mi300x", facts=facts).magnitude == 4
    assert real_kb.solve("warps_per_block", gpu="h100-sxm", facts=facts).magnitude == 8
    assert real_kb.solve("warps_per_block", gpu="mi100", facts=facts).magnitude == 4
    lanes = real_kb.solve("registers_per_lane", gpu="mi250x")
    assert lanes.status == "derived" and lanes.magnitude == 2048
