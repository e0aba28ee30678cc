"""hwkb.render.solution_text: solutions, derivation trees and derived values as the CLI prints them, on the tiny KB."""
from __future__ import annotations

from hwkb.solving.solution import Interval, Solution, Status
from hwkb.render.solution_text import MAX_NEEDS_SHOWN, render_answer, render_derived, render_needs, render_solution

TREE = """clock = 1 GHz   by law peak_law[fp16]: peak[fp16] = sm_count * fma_rate[fp16] * clock — tiny book, page 1
├─ peak[fp16] = 204.8 TFLOPS   [chip, tiny datasheet]
├─ sm_count = 100   [chip, tiny datasheet]
└─ fma_rate[fp16] = 1024 FMA/cycle   [arch, tiny whitepaper, table 3]"""


def test_a_derived_and_a_stated_value(tiny_kb):
    assert render_solution(tiny_kb.solve("clock", gpu="chip")) == "clock = 1 GHz  (derived)"
    assert render_solution(tiny_kb.solve("sm_count", gpu="chip")) == "sm_count = 100   (stated)"


def test_explain_adds_the_tree_with_sources(tiny_kb):
    assert render_solution(tiny_kb.solve("clock", gpu="chip"), explain=True) == "clock = 1 GHz  (derived)\n" + TREE


def test_underdetermined_names_what_would_settle_it(tiny_kb):
    assert render_solution(tiny_kb.solve("clock", gpu="arch")).splitlines() == [
        "clock: underdetermined", "  give one of {peak[bf16]} or {peak[fp16]}"]
    assert render_needs(()) == "  no further fact of the KB's variables settles it"


def test_many_needs_are_cut_short():
    needs = tuple((f"v{i}", "w") for i in range(MAX_NEEDS_SHOWN + 2))
    text = render_solution(Solution("x", Status.UNDERDETERMINED, "GHz", needs=needs))
    assert text.splitlines()[1] == ("  give one of {v0, w} or {v1, w} or {v2, w} or {v3, w} or {v4, w} or {v5, w} "
                                    "(or one of 2 more sets: --json lists all)")


def test_inconsistent_shows_every_route_and_explain_every_tree(tiny_kb):
    solution = tiny_kb.solve("clock", gpu="chip", facts=["peak[bf16]=300TFLOPS"])
    assert render_solution(solution).splitlines() == [
        "clock = 1 GHz  (inconsistent)", "  independent routes disagree beyond rounding:",
        "    1 GHz via peak_law[fp16]", "    1.465 GHz via peak_law[bf16]"]
    explained = render_solution(solution, explain=True).splitlines()
    assert explained[4:8] == TREE.splitlines() and explained[8] == "also, by an independent route:"
    assert explained[-2:] == [("└─ fma_rate[bf16] = 1024 FMA/cycle   by law bf16_is_fp16: fma_rate[bf16] = fma_rate[fp16] "
                               "— tiny book, page 2"),
                              "   └─ fma_rate[fp16] = 1024 FMA/cycle   [arch, tiny whitepaper, table 3]"]


def test_not_applicable_and_its_note(tiny_kb):
    assert render_solution(tiny_kb.solve("peak[fp16]", gpu="chip", facts=["peak[fp16]=n/a"])).splitlines() == [
        "peak[fp16]: not applicable", "  note: peak[fp16] is stated as n/a at --set"]


def test_admissible_intervals():
    solution = Solution("d_qk", Status.UNDERDETERMINED, "", needs=(("d_v",),),
                        intervals=(Interval(1, 2, True, False), Interval(128, None, True, False)))
    assert render_solution(solution).splitlines()[-1] == "  admissible: [1, 2) ∪ [128, inf)"


def test_derived_values_are_aligned(tiny_kb):
    assert render_derived(tiny_kb.derive(gpu="chip")).splitlines() == [
        "clock                    1 GHz         via peak_law[fp16]",
        "fma_rate[bf16]        1024 FMA/cycle   via bf16_is_fp16",
        "peak[bf16]           204.8 TFLOPS      via peak_law[bf16]"]
    assert render_derived([]) == ""


def test_a_rule_default_is_not_passed_off_as_a_stated_figure(real_kb):
    assert render_answer(real_kb.solve("tc_bf16_fp16_ratio", gpu="h100-sxm")) == (
        "tc_bf16_fp16_ratio = 1   (stated: the rule's default)")
    assert render_answer(real_kb.solve("sm_count", gpu="h100-sxm")) == "sm_count = 132   (stated)"


def test_a_value_above_its_ceiling_says_so_within_or_beyond_its_figures_rounding():
    from hwkb.render.solution_text import render_above_ceiling
    from hwkb.solving.solution import AboveCeiling
    within = AboveCeiling("clock_fp64", 2.0123, "clock_boost", 1.98, 1.9673, 2.0796, False, "a chapter")
    assert render_above_ceiling(within, "GHz") == ("  clock_fp64 = 2.012 GHz is above the stated clock_boost 1.98 GHz, "
                                                   "within the rounding of the figures it comes from "
                                                   "(1.967 GHz to 2.08 GHz)")
    beyond = AboveCeiling("clock_fp64", 2.131, "clock_boost", 1.98, 2.085, 2.198, True, "a chapter")
    assert render_above_ceiling(beyond, "GHz").endswith("beyond the rounding of the figures it comes from "
                                                        "(2.085 GHz to 2.198 GHz): one of them is likely misread")


def test_a_systems_memory_is_shown_as_its_vendor_prints_it(real_kb):
    solution = real_kb.solve("system_memory_size", facts=["gpus_per_system=72", "memory_size=186GB"])
    assert render_solution(solution).splitlines() == [
        "system_memory_size = 13.39 TB  (derived)",
        "  as vendors print a system's memory: GB of 2^30 bytes, decimal prefixes above (13.08 TiB)"]
