"""hwkb.audit.population: systematic vs isolated failures, on hand-made outcomes."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.audit.population import Outcome, PopulationSummary, classify
from hwkb.render.finding_words import explanation_sentence


def rows(prefix: str, n: int, status: str, rule: str = "fp32", deviation: float | None = 0.0, **groups):
    return [Outcome(f"{prefix}{i}", rule, status, deviation, groups) for i in range(n)]


def tesla_and_ada():
    out = rows("tesla", 4, "inconsistent", deviation=134.4, architecture="Tesla", generation="GeForce 8",
               memory_type="GDDR3")
    out += rows("ada", 5, "within_rounding", architecture="Ada", generation="GeForce 40", memory_type="GDDR6X")
    out += [Outcome("ada-bad", "fp32", "inconsistent", -26.4,
                    {"architecture": "Ada", "generation": "GeForce 40", "memory_type": "GDDR6X"})]
    return out


def test_counts_every_status():
    s = classify(tesla_and_ada()).to_dict()
    assert s["counts"] == {"consistent": 0, "within_rounding": 5, "implausible": 0, "inconsistent": 5}


def test_a_mostly_failing_group_is_systematic_and_a_lone_failure_isolated():
    s = classify(tesla_and_ada()).to_dict()
    # architecture, generation and memory type all hold the same four rows: the first grouping of `by` wins
    assert s["systematic"] == [{"rule": "fp32", "group_by": "architecture", "group": "Tesla", "failed": 4,
                                "checked": 4, "share": 1.0,
                                "examples": ["tesla0", "tesla1", "tesla2", "tesla3"], "explanation": None}]
    assert s["isolated"] == [{"rule": "fp32", "entity": "ada-bad", "group_by": "architecture", "group": "Ada",
                              "deviation": pytest.approx(-0.264), "failed": 1, "checked": 6}]  # a fraction


def test_thresholds():
    out = rows("a", 2, "inconsistent", architecture="X") + rows("b", 2, "consistent", architecture="X")
    assert [g.group for g in classify(out, by=["architecture"]).systematic] == ["X"]   # 2 of 4: share 0.5
    assert classify(out, by=["architecture"], systematic_share=0.6).systematic == ()
    half = classify(out, by=["architecture"], systematic_share=0.6)
    assert half.isolated == () and len(half.mixed) == 2        # 2 of 4 failing: neither holds nor mostly fails
    few = rows("a", 2, "inconsistent", architecture="Y")
    assert classify(few, by=["architecture"]).systematic == ()                          # 2 rows < min_group 3
    assert [g.group for g in classify(few, by=["architecture"], min_group=2).systematic] == ["Y"]
    with pytest.raises(ValueError):
        classify(out, systematic_share=0)
    with pytest.raises(ValueError):
        classify(out, min_group=0)


def test_within_rounding_is_a_pass_and_other_rules_are_separate():
    out = rows("a", 3, "within_rounding", architecture="X") + rows("a", 3, "inconsistent", rule="density",
                                                                   architecture="X")
    s = classify(out, by=["architecture"])
    assert [(g.rule, g.failed, g.checked) for g in s.systematic] == [("density", 3, 3)]


def test_unknown_is_no_group():
    out = rows("u", 5, "inconsistent", architecture="unknown") + rows("n", 3, "inconsistent")
    s = classify(out, by=["architecture"])
    assert s.systematic == ()
    assert {(i.entity, i.group) for i in s.isolated + s.mixed} == {(f"u{i}", "unknown") for i in range(5)} | {
        (f"n{i}", "unknown") for i in range(3)}


def test_isolated_goes_under_the_finest_group_of_enough_rows():
    # the bad row is alone in its generation (too small), in an architecture of 4 and a memory type of 7
    out = rows("p", 3, "consistent", architecture="Pascal", generation="GeForce 10", memory_type="GDDR5")
    out += rows("m", 3, "consistent", architecture="Maxwell", generation="GeForce 900", memory_type="GDDR5")
    out += [Outcome("bad", "fp32", "inconsistent", 50.0,
                    {"architecture": "Pascal", "generation": "Titan", "memory_type": "GDDR5"})]
    (only,) = classify(out).isolated
    assert (only.entity, only.group_by, only.group) == ("bad", "architecture", "Pascal")


def test_a_confounded_coarse_group_is_subsumed():
    # GDDR3 fails for half its rows only because Tesla (all failing) used it: Tesla is reported, GDDR3 not
    out = rows("t", 6, "inconsistent", architecture="Tesla", generation="G8", memory_type="GDDR3")
    out += rows("k", 6, "consistent", architecture="Kepler", generation="G6", memory_type="GDDR3")
    s = classify(out)
    assert [(g.group_by, g.group) for g in s.systematic] == [("architecture", "Tesla")]
    assert s.isolated == ()


def test_a_rebrand_in_a_passing_generation_is_explained_by_its_architecture():
    # Fermi rebrands sold as GeForce 600 fail as every Fermi does: systematic, not a data error
    out = rows("f", 5, "inconsistent", architecture="Fermi", generation="GeForce 500", memory_type="GDDR5")
    out += rows("k", 8, "consistent", architecture="Kepler", generation="GeForce 600", memory_type="GDDR5")
    out += rows("r", 2, "inconsistent", architecture="Fermi", generation="GeForce 600", memory_type="GDDR5")
    s = classify(out)
    assert [(g.group, g.failed) for g in s.systematic] == [("Fermi", 7)]
    assert s.isolated == ()


def test_order_is_most_severe_first_then_names():
    out = rows("x", 3, "inconsistent", architecture="A") + rows("y", 4, "inconsistent", architecture="B")
    out += rows("z", 2, "inconsistent", architecture="C") + rows("z", 2, "consistent", architecture="C")
    out += rows("q", 16, "consistent", architecture="D")
    out += [Outcome("d-small", "fp32", "inconsistent", 2.0, {"architecture": "D"}),
            Outcome("d-big", "fp32", "inconsistent", -40.0, {"architecture": "D"}),
            Outcome("d-none", "fp32", "inconsistent", None, {"architecture": "D"}),
            Outcome("d-also", "fp32", "inconsistent", 40.0, {"architecture": "D"})]
    s = classify(out, by=["architecture"])
    assert [(g.group, g.share) for g in s.systematic] == [("B", 1.0), ("A", 1.0), ("C", 0.5)]
    assert [i.entity for i in s.isolated] == ["d-also", "d-big", "d-small", "d-none"]


def test_examples_are_capped_and_sorted():
    out = rows("e", 9, "inconsistent", architecture="A")
    (g,) = classify(out, by=["architecture"]).systematic
    assert g.to_dict()["examples"] == ["e0", "e1", "e2", "e3", "e4"] and len(g.entities) == 9


def test_summary_type():
    assert isinstance(classify([]), PopulationSummary)
    assert classify([]).to_dict() == {"counts": {"consistent": 0, "within_rounding": 0, "implausible": 0, "inconsistent": 0},
                                      "systematic": [], "isolated": [], "mixed": []}


# ---------------------------------------------------------------- properties

GROUPS = st.fixed_dictionaries({"architecture": st.sampled_from(["A", "B", "C", "unknown"]),
                                "generation": st.sampled_from(["g1", "g2", "g3", "g4"]),
                                "memory_type": st.sampled_from(["M", "N"])})
OUTCOMES = st.lists(st.tuples(st.sampled_from(["r1", "r2"]),
                              st.sampled_from(["consistent", "within_rounding", "inconsistent"]),
                              st.one_of(st.none(), st.floats(-500, 500)), GROUPS),
                    max_size=60).map(lambda cells: [Outcome(f"e{i}", rule, status, deviation, groups)
                                                    for i, (rule, status, deviation, groups) in enumerate(cells)])


@settings(max_examples=150, deadline=None)
@given(OUTCOMES, st.randoms(use_true_random=False))
def test_order_of_the_outcomes_does_not_matter(outcomes, rnd):
    shuffled = list(outcomes)
    rnd.shuffle(shuffled)
    assert classify(shuffled).to_dict() == classify(outcomes).to_dict()


@settings(max_examples=150, deadline=None)
@given(OUTCOMES)
def test_every_failure_is_isolated_mixed_or_systematic_never_two(outcomes):
    s = classify(outcomes)
    isolated = [(i.rule, i.entity) for i in s.isolated + s.mixed]
    covered = {(g.rule, e) for g in s.systematic for e in g.entities}
    failures = [(o.rule, o.entity) for o in outcomes if o.status == "inconsistent"]
    assert len(isolated) == len(set(isolated))  # each isolated failure once
    assert not set(isolated) & covered
    assert set(isolated) | covered == set(failures)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABC"), st.booleans()), min_size=1, max_size=30),
       st.integers(0, 29), st.integers(1, 20))
def test_adding_passing_peers_never_turns_an_isolated_failure_systematic(cells, pick, extra):
    """One grouping, min_group 1: a group's share only falls as passing rows join it."""
    outcomes = [Outcome(f"e{i}", "r", "inconsistent" if bad else "consistent", 1.0, {"architecture": g})
                for i, (g, bad) in enumerate(cells)]
    before = classify(outcomes, by=["architecture"], min_group=1)
    if not before.isolated:
        return
    target = before.isolated[pick % len(before.isolated)]
    peers = [Outcome(f"peer{i}", "r", "consistent", 0.0, {"architecture": target.group}) for i in range(extra)]
    after = classify(outcomes + peers, by=["architecture"], min_group=1)
    assert target.entity in {i.entity for i in after.isolated}  # its group's failing share only fell
    assert target.group not in {g.group for g in after.systematic}


def test_random_population_is_deterministic():
    rnd = random.Random(7)
    out = [Outcome(f"e{i}", rnd.choice(["a", "b"]), rnd.choice(["consistent", "inconsistent"]), rnd.random(),
                   {"architecture": rnd.choice("XYZ"), "generation": rnd.choice("pq"), "memory_type": "M"})
           for i in range(200)]
    assert classify(out).to_dict() == classify(list(reversed(out))).to_dict()


def explained(explainer_status: str, explainer_variables: tuple[str, ...]):
    """Four failing Tesla rows of ``clock_rule`` and, on each, an expectation ``shader_rule``."""
    out = []
    for i in range(4):
        groups = {"architecture": "Tesla"}
        out.append(Outcome(f"t{i}", "clock_rule", "inconsistent", -60.0, groups, ("boost", "peak", "units"),
                           "expectation", "the peak is at the boost clock", "a chapter"))
        out.append(Outcome(f"t{i}", "shader_rule", explainer_status, 0.0, groups, explainer_variables,
                           "expectation", "the peak is at a separate shader clock", "a review"))
    return out


def test_a_systematic_group_names_the_expectation_that_holds_where_its_rule_fails():
    (group,) = classify(explained("consistent", ("boost", "peak", "units", "multiple"))).systematic
    assert group.rule == "clock_rule"
    e = group.explanation
    assert (e.rule, e.doc, e.source, e.holds, e.failed) == ("shader_rule", "the peak is at a separate shader clock",
                                                             "a review", 4, 4)
    assert explanation_sentence(group.to_dict()["explanation"]) == \
        "the peak is at a separate shader clock (shader_rule holds for 4 of 4 failing rows; a review)"


@pytest.mark.parametrize("status, variables", [
    ("inconsistent", ("boost", "peak", "units", "multiple")),   # it fails too: no explanation
    ("consistent", ("peak", "ratio")),                          # holds, but on other figures
    ("consistent", ("boost", "peak", "units")),                 # the same figures: a restatement, not a reason
])
def test_an_expectation_explains_only_by_holding_on_more_figures_than_the_rule(status, variables):
    groups = [g for g in classify(explained(status, variables)).systematic if g.rule == "clock_rule"]
    assert [g.explanation for g in groups] == [None]
