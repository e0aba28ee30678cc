"""hwkb.solving.need_search: the smallest sets of further facts that settle a key -- on key sets alone, no SymPy."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.solving import need_search as search_module
from hwkb.solving.need_search import find_needs, search_needs
from hwkb.solving.plan import make_plan

from tiny_structures import ANY, BLOCK, TINY


def test_all_names_exist():
    assert sorted(search_module.__all__) == ["MAX_NEED_CANDIDATES", "MAX_NEED_SIZE", "MAX_NEED_TRIALS", "NeedSearch",
                                             "find_needs", "search_needs"]


# ---------------------------------------------------------------- needs

def test_needs_are_the_smallest_sets():
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY) == [("peak[bf16]",), ("peak[fp16]",)]


def test_needs_of_two():
    # structurally, both peaks settle {sms, clock} as a block (SymPy would find that system singular)
    assert find_needs(TINY, {"rate[fp16]"}, "clock", ANY) == [
        ("peak[bf16]", "peak[fp16]"), ("peak[bf16]", "sms"), ("peak[fp16]", "sms")]


def test_needs_of_a_determined_target_are_none():
    assert find_needs(TINY, {"sms", "rate[fp16]", "peak[fp16]"}, "clock", ANY) == []


def test_needs_leave_out_excluded_keys():
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY, excluded={"peak[bf16]"}) == [("peak[fp16]",)]


def test_needs_respect_usable_and_can_solve():
    # without rate[bf16] = rate[fp16] the bf16 route needs two keys, so only the fp16 one is smallest
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY, usable=lambda r: r != 2) == [("peak[fp16]",)]
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", lambda r, k: k != "clock") == []


def test_needs_of_a_key_no_relation_mentions():
    assert find_needs(TINY, set(), "lonely", ANY) == []


def test_needs_through_a_block():
    assert find_needs(BLOCK, {"a"}, "z", ANY) == [("x",), ("y",), ("b",)]  # z's own inputs before the far b



def test_the_needs_search_stops_at_its_budget_and_says_how_far_it_got():
    full = search_needs(TINY, {"rate[fp16]"}, "clock", ANY)
    assert (full.tried, full.candidates, full.largest, full.complete) == (6, 3, 2, True)
    cut = search_needs(TINY, {"rate[fp16]"}, "clock", ANY, budget=5)
    assert (cut.tried, cut.largest, cut.complete) == (5, 2, False)
    assert cut.sets == [("peak[bf16]", "peak[fp16]"), ("peak[bf16]", "sms")]  # what the budget reached, no more


def test_a_search_cut_by_its_budget_is_noted():
    from hwkb.solving.needs import budget_note
    cut = search_needs(TINY, {"rate[fp16]"}, "clock", ANY, budget=2)
    assert budget_note("clock", cut) == ("the search for what would settle clock stopped at its budget of 2 trial "
                                         "plans, during the sets of 1 of the 3 nearest variables that reach it",)
    assert budget_note("clock", search_needs(TINY, {"rate[fp16]"}, "clock", ANY)) == ()


def test_a_trial_plan_is_the_plan_make_plan_makes():
    """The needs search's trials start from the finished plan; each must be the plan made from scratch."""
    rels = [frozenset(s.split()) for s in ["a x1 x2", "b x1 x2", "x1 x2 y1 y2", "x1 y1 y2", "c y1 y2 z", "p q d",
                                           "z w", "w x1 y2 e", "q f", "y1 y2 z w", "x2 z", "a b c d"]]
    base = make_plan(rels, {"f"}, ANY)
    trials = search_module._Trials(rels, base.determined, ANY, lambda r: True)
    keys = sorted({k for ks in rels for k in ks} - base.determined)
    for size in (1, 2, 3):
        for added in itertools.combinations(keys, size):
            assert trials.plan(added) == make_plan(rels, base.determined | set(added), ANY), added


def _every_trial_planned(relations, known, target):
    """The sets a search that plans every trial from scratch with make_plan finds, the same candidates in order."""
    base = make_plan(relations, known, ANY)
    if target in base.determined:
        return []
    near = search_module._distances(relations, lambda r: True, target)
    reach = search_module._reach(relations, lambda r: True, base.determined, target)
    keys = sorted((k for k in near if k not in base.determined and k != target),
                  key=lambda k: (near[k], k))[:search_module.MAX_NEED_CANDIDATES]
    keys = [k for k in keys if k in reach]
    for size in range(1, search_module.MAX_NEED_SIZE + 1):
        found = [c for c in itertools.combinations(keys, size)
                 if target in make_plan(relations, base.determined | set(c), ANY).determined]
        if found:
            return sorted((tuple(sorted(c)) for c in found), key=lambda c: (sum(near[k] for k in c), c))
    return []


SYSTEM = st.lists(st.frozensets(st.sampled_from([f"k{i}" for i in range(10)]), min_size=1, max_size=4),
                  min_size=1, max_size=12)


@given(SYSTEM, st.sets(st.sampled_from([f"k{i}" for i in range(10)]), max_size=3),
       st.sampled_from([f"k{i}" for i in range(10)]))
@settings(max_examples=300, deadline=None)
def test_the_needs_search_finds_what_planning_every_trial_finds(relations, known, target):
    """Trials skipped for an uncovered target, and plans shared from where propagation stops, change no set."""
    assert find_needs(relations, known, target, ANY) == _every_trial_planned(relations, known, target)


def test_the_search_for_what_settles_an_fp64_clock_plans_few_trials():
    """GB300's FP64 clock: 10,700 sets of up to 3 of the 40 nearest keys are tried, and before the coverage test
    4,041 of them were planned whole (a block search across ~170 pending relations each), 26 s of CPU in all."""
    from hwkb import KnowledgeBase
    from hwkb.solving.needs import needs_of
    kb = KnowledgeBase.load()
    solver = kb.solver(kb.context("gb300"))
    search = needs_of(solver, "clock_fp64")
    assert (search.tried, search.candidates, search.largest, search.complete) == (10_700, 40, 3, True)
    assert search.sets == [("fp64_flop_per_sm_cycle", "fp64_peak", "sm_count"),
                           ("fp64_flop_per_sm_cycle", "fp64_peak", "register_file_total"),
                           ("fp64_flop_per_sm_cycle", "fp64_peak", "shading_units")]
    assert search.planned <= 40


def _rests_on_an_odd_block(plan, target):
    """A stand-in for the solver's numeric test: a block whose relations' places add up to an odd number fixes
    only a combination of its outputs, and a plan whose target rests on one is rejected."""
    needed = {target}
    for step in reversed(plan.steps):
        if needed & set(step.outputs):
            needed |= set(step.outputs)
            if step.is_block and sum(step.relations) % 2:
                return True
    return False


def _every_trial_planned_from_the_knowns(relations, known, target, accept):
    """What the search found before trials planned without a rejected block: with the knowns' plan rejected, every
    trial planned from scratch from the knowns plus its keys, the candidates drawn from the knowns alone."""
    base = make_plan(relations, known, ANY)
    assert target in base.determined and not accept(base)
    near = search_module._distances(relations, lambda r: True, target)
    reach = search_module._reach(relations, lambda r: True, frozenset(known), target)
    keys = [k for k in sorted((k for k in near if k not in known and k != target),
                              key=lambda k: (near[k], k))[:search_module.MAX_NEED_CANDIDATES] if k in reach]
    for size in range(1, search_module.MAX_NEED_SIZE + 1):
        found = []
        for c in itertools.combinations(keys, size):
            plan = make_plan(relations, set(known) | set(c), ANY)
            if target in plan.determined and accept(plan):
                found.append(c)
        if found:
            return sorted((tuple(sorted(c)) for c in found), key=lambda c: (sum(near[k] for k in c), c))
    return []


@given(SYSTEM, st.sets(st.sampled_from([f"k{i}" for i in range(10)]), max_size=3),
       st.sampled_from([f"k{i}" for i in range(10)]))
@settings(max_examples=500, deadline=None)
def test_trials_without_a_rejected_block_find_what_planning_every_trial_finds(relations, known, target):
    """Where the knowns' plan gives the target only through a rejected block, trials planned with that block
    absent find the sets that planning each trial from the knowns finds, but for a key that only changes which
    relations of an over-determined core the matching picks (below): 1 of about 13,000 random such searches."""
    accept = lambda plan: not _rests_on_an_odd_block(plan, target)  # noqa: E731
    base = make_plan(relations, known, ANY)
    if target in base.determined and not accept(base):
        assert find_needs(relations, known, target, ANY, accept=accept) == \
            _every_trial_planned_from_the_knowns(relations, known, target, accept)


def test_the_search_past_a_rejected_block_plans_few_trials():
    """The L40's Tensor clock: its knowns give it only through blocks that fix only a combination (FP32 peak and
    shading units; the FP16 and BF16 Tensor peaks), so the knowns' plan is rejected. Every one of the 820 trials
    was planned whole before, each a block search across ~225 pending relations; with those blocks absent, only
    the trials that touch the core they lie in are."""
    from hwkb import KnowledgeBase
    from hwkb.solving.needs import needs_of
    kb = KnowledgeBase.load()
    search = needs_of(kb.solver(kb.context("l40")), "clock_tc")
    assert (search.tried, search.candidates, search.largest, search.complete) == (820, 40, 2, True)
    assert search.sets == [("sm_count", f"tc_fma_per_sm_cycle[{p}]") for p in ("bf16", "fp16", "fp8", "int4", "int8",
                                                                                 "tf32")]
    assert search.planned <= 300


def test_a_key_that_only_changes_the_matching_settles_nothing():
    """Ten relations over six keys (k0 k2 k4 k5 k7 k8) hold many square systems; from k9 the planner's matching
    picks a rejected one for k7. Knowing k1, which only relation 0 holds with k2 and k6, outside the core, makes
    the matching of a plan from scratch pick another, accepted, square system of the same ten relations: planning
    every trial from the knowns offers k1, though k1 says nothing about k7. With the rejected block absent, a trial
    that leaves the core as it was settles nothing, so k1 is not offered."""
    rels = [frozenset(s.split()) for s in ["k6 k1 k2", "k3", "k4 k0", "k0 k4 k8 k9", "k4 k2 k7", "k2 k8 k9 k5",
                                           "k2 k3 k0", "k5 k7", "k8 k5", "k8 k4 k3 k5", "k3", "k2 k8 k7", "k5 k7"]]
    accept = lambda plan: not _rests_on_an_odd_block(plan, "k7")  # noqa: E731
    assert _every_trial_planned_from_the_knowns(rels, {"k9"}, "k7", accept)[-1] == ("k1",)
    assert find_needs(rels, {"k9"}, "k7", ANY, accept=accept) == [("k2",), ("k4",), ("k5",), ("k8",), ("k0",)]
