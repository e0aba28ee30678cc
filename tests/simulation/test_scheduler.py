"""Tests of hwkb.simulation.scheduler: the chapter's table, hand-worked runs, fast == reference, input errors, grids."""
from __future__ import annotations

import dataclasses
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.simulation import scheduler
from hwkb.simulation.scheduler import (
    FAST_MAX_WORK, GRID_MAX_CONFIGS, REFERENCE_MAX_CYCLES, SimulationInputError,
    SimulationResult, run_grid, simulate, simulate_reference,
)

WARPS = (1, 2, 4, 8, 16)
CHAPTER = {  # (ilp, compute): rounded percent per warps count, latency 500, GTO
    (1, 16): (3, 7, 13, 26, 52),
    (4, 64): (12, 24, 48, 95, 99),
}
CHAPTER_CELLS = [(w, ilp, compute, pct) for (ilp, compute), row in CHAPTER.items() for w, pct in zip(WARPS, row)]


def test_all_names_exist():
    assert set(scheduler.__all__) <= set(dir(scheduler))


@pytest.mark.parametrize("warps, ilp, compute, percent", CHAPTER_CELLS)
def test_chapter_table(warps, ilp, compute, percent):
    fast = simulate(warps, ilp, compute, 500)
    assert round(100 * fast.utilization) == percent
    assert fast == simulate_reference(warps, ilp, compute, 500)


# Hand-worked runs (cycle: what issues).
HAND = [
    # 1 warp, latency 0: c0 load (ready at 0), c1 compute -> round 1; c2 load, c3 compute -> round 2;
    # c4, c5 -> round 3; the run ends at the start of cycle 6. 6 issued in 6 cycles.
    ((1, 1, 1, 0, 3, "gto"), 6, 6),
    # latency 1 is the same: the data of a load at c is ready at c+1, when the warp could issue next anyway.
    ((1, 1, 1, 1, 3, "gto"), 6, 6),
    # 1 warp, latency 3: c0 load (ready at 3), c1-c2 idle, c3 compute -> round 1; c4 load (ready at 7),
    # c5-c6 idle, c7 compute -> round 2; ends at the start of cycle 8. 4 issued in 8 cycles.
    ((1, 1, 1, 3, 2, "gto"), 4, 8),
    ((1, 1, 1, 3, 2, "lrr"), 4, 8),
    # 2 warps, latency 3, GTO: c0 w0 load (ready 3); c1 w0 waits, w1 load (ready 4); c2 idle, current := w0;
    # c3 w0 compute -> w0 round 1; c4 w0 load (ready 7); c5 w1 compute -> w1 round 1; c6 w1 load (ready 9);
    # c7 w0 compute -> w0 round 2; ends at 8. 7 issued in 8 cycles.
    ((2, 1, 1, 3, 2, "gto"), 7, 8),
    # the same under LRR: c0 w0 load (ready 3); c1 w1 load (ready 4); c2 idle; c3 w0 compute -> round 1;
    # c4 w1 compute -> round 1; c5 w0 load (ready 8); c6 w1 load (ready 9); c7 idle; c8 w0 compute ->
    # w0 round 2; ends at 9. 7 issued in 9 cycles: round-robin puts the warps in lockstep.
    ((2, 1, 1, 3, 2, "lrr"), 7, 9),
    # 2 loads, 1 compute, latency 2, 1 warp: c0 load, c1 load (ready 3), c2 idle, c3 compute -> round 1;
    # ends at 4. 3 issued in 4 cycles.
    ((1, 2, 1, 2, 1, "gto"), 3, 4),
]


@pytest.mark.parametrize("config, issued, cycles", HAND)
@pytest.mark.parametrize("function", [simulate, simulate_reference])
def test_hand_worked(function, config, issued, cycles):
    result = function(*config)
    assert (result.issued, result.cycles) == (issued, cycles)
    assert result == SimulationResult(*config, issued, cycles)


def test_result_is_frozen_with_utilization():
    result = simulate(1, 1, 1, 3, iters=2)
    assert result.utilization == 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.issued = 1


def test_defaults():
    assert simulate(2, 1, 16, 500) == simulate(2, 1, 16, 500, iters=100, policy="gto")
    assert simulate(2, 1, 16, 500).iters == 100


configs = dict(warps=st.integers(1, 12), ilp=st.integers(1, 6), compute=st.integers(1, 20),
               latency=st.integers(0, 60), iters=st.integers(1, 8), policy=st.sampled_from(["gto", "lrr"]))


@settings(max_examples=300, deadline=None)
@given(**configs)
def test_fast_equals_reference(warps, ilp, compute, latency, iters, policy):
    assert simulate(warps, ilp, compute, latency, iters, policy) == \
        simulate_reference(warps, ilp, compute, latency, iters, policy)


@settings(max_examples=100, deadline=None)
@given(warps=st.integers(1, 8), ilp=st.integers(1, 4), compute=st.integers(1, 12), latency=st.integers(0, 40),
       iters=st.integers(20, 40), policy=st.sampled_from(["gto", "lrr"]))
def test_fast_equals_reference_in_steady_state(warps, ilp, compute, latency, iters, policy):
    # enough rounds that the fast simulator finds a period and skips most of the run
    assert simulate(warps, ilp, compute, latency, iters, policy) == \
        simulate_reference(warps, ilp, compute, latency, iters, policy)


@pytest.mark.parametrize("config", [(64, 1, 8, 100), (24, 3, 5, 90), (40, 2, 30, 1000)])
@pytest.mark.parametrize("policy", ["gto", "lrr"])
def test_fast_equals_reference_many_warps(config, policy):
    assert simulate(*config, iters=30, policy=policy) == simulate_reference(*config, iters=30, policy=policy)


@pytest.mark.parametrize("ilp, compute", list(CHAPTER))
def test_round_robin_no_better_than_gto(ilp, compute):
    gto = [simulate(w, ilp, compute, 500).utilization for w in WARPS]
    lrr = [simulate(w, ilp, compute, 500, policy="lrr").utilization for w in WARPS]
    assert lrr[0] == gto[0]  # one warp: nothing to choose between
    assert all(l < g for l, g in zip(lrr[1:], gto[1:]))
    assert [round(100 * u, 1) for u in lrr] == ({(1, 16): [3.3, 6.4, 12.1, 21.6, 36.0],
                                                (4, 64): [12.0, 21.4, 35.4, 52.5, 69.2]}[ilp, compute])


def test_huge_counts_are_cheap_for_the_fast_simulator():
    result = simulate(10, 10**9, 10**9, 10**9, iters=1000)
    assert result.cycles > 10**12 and result.utilization == 1.0


# --- input errors -----------------------------------------------------------------------------------

ERRORS = [
    (dict(warps=0), "warps must be an integer >= 1, got 0"),
    (dict(warps=True), "warps must be an integer >= 1, got True (bool)"),
    (dict(warps=4.0), "warps must be an integer >= 1, got 4.0 (float)"),
    (dict(warps="4"), "warps must be an integer >= 1, got '4'"),
    (dict(ilp=0), "ilp must be an integer >= 1, got 0"),
    (dict(ilp=2.5), "ilp must be an integer >= 1, got 2.5 (float)"),
    (dict(compute=-1), "compute must be an integer >= 1, got -1"),
    (dict(compute=None), "compute must be an integer >= 1, got None (NoneType)"),
    (dict(latency=-1), "latency must be an integer >= 0, got -1"),
    (dict(latency=False), "latency must be an integer >= 0, got False (bool)"),
    (dict(iters=0), "iters must be an integer >= 1, got 0"),
    (dict(iters=1e2), "iters must be an integer >= 1, got 100.0 (float)"),
    (dict(policy="GTO"), "policy must be one of 'gto', 'lrr', got 'GTO'"),
    (dict(policy="rr"), "policy must be one of 'gto', 'lrr', got 'rr'"),
    (dict(policy=1), "policy must be one of 'gto', 'lrr', got 1"),
]
GOOD = dict(warps=2, ilp=1, compute=4, latency=10, iters=5, policy="gto")


@pytest.mark.parametrize("change, message", ERRORS)
@pytest.mark.parametrize("function", [simulate, simulate_reference])
def test_input_errors(function, change, message):
    with pytest.raises(SimulationInputError) as info:
        function(**{**GOOD, **change})
    assert str(info.value) == message
    (parameter, value), = change.items()
    assert info.value.parameter == parameter and info.value.value is value
    assert isinstance(info.value, ValueError)


def test_reference_bound():
    # 1000 * (64 * (8 + 128) + 1000) cycles at most: too many to step one by one
    with pytest.raises(SimulationInputError) as info:
        simulate_reference(64, 8, 128, 1000, iters=1000)
    assert str(info.value) == ("the cycle-by-cycle reference may step iters x (warps x (ilp + compute) + latency) "
                               f"= 9704000 cycles here, more than its {REFERENCE_MAX_CYCLES}; give fewer warps or "
                               "iters, a smaller ilp, compute or latency, or use simulate")
    assert simulate(64, 8, 128, 1000, iters=1000).iters == 1000  # the fast one takes it


def test_fast_bound():
    with pytest.raises(SimulationInputError) as info:
        simulate(1000, 1, 1, 1, iters=100)
    assert str(info.value) == ("1000 warps at 100 iters is too large to simulate: its work, iters x warps^2 = "
                               f"100000000, may be at most {FAST_MAX_WORK}; give at most 447 warps at 100 iters, "
                               "or fewer iters")
    assert (info.value.parameter, info.value.value) == ("warps", 1000)


def test_the_work_limit_is_said_in_iters_when_no_warp_fits():
    with pytest.raises(SimulationInputError) as info:
        simulate(1, 1, 1, 1, iters=FAST_MAX_WORK + 1)
    assert info.value.hint == f"give at most {FAST_MAX_WORK} iters"


def test_no_limit_message_names_an_internal_constant():
    for call in (lambda: simulate(1000, 1, 1, 1), lambda: simulate_reference(64, 8, 128, 1000, iters=1000),
                 lambda: run_grid(list(range(1, 101)), list(range(1, 101)), list(range(1, 12)), [1])):
        with pytest.raises(SimulationInputError) as info:
            call()
        assert not re.search(r"[A-Z]{2,}_[A-Z_]+", str(info.value))


def test_benchmark_grid_is_allowed():
    grid = ([1, 2, 4, 8, 16, 32, 64], [1, 2, 4, 8], [8, 32, 128], [100, 500, 1000])
    assert len(run_grid(*grid)) == 252
    assert 100 * (64 * (8 + 128) + 1000) <= REFERENCE_MAX_CYCLES  # the reference takes all of it too


# --- grids ------------------------------------------------------------------------------------------

def test_grid_order_is_the_cartesian_product():
    lists = ([1, 3], [1, 2], [4], [0, 20])
    runs = run_grid(*lists, iters=5, policy="lrr")
    assert [(r.warps, r.ilp, r.compute, r.latency) for r in runs] == list(itertools.product(*lists))
    assert runs == [simulate(*config, iters=5, policy="lrr") for config in itertools.product(*lists)]


GRID_ERRORS = [
    (([], [1], [1], [1]), {}, "warps must be a non-empty list of integers, got [] (list)"),
    (([1], 2, [1], [1]), {}, "ilp must be a non-empty list of integers, got 2"),
    (([1], [1], [1, 0], [1]), {}, "compute must be an integer >= 1, got 0"),
    (([1], [1], [1], [1.0]), {}, "latency must be an integer >= 0, got 1.0 (float)"),
    (([1], [1], [1], [1]), {"iters": 0}, "iters must be an integer >= 1, got 0"),
    (([1], [1], [1], [1]), {"policy": "fifo"}, "policy must be one of 'gto', 'lrr', got 'fifo'"),
    (([1, 1000], [1], [1], [1]), {}, "1000 warps at 100 iters is too large to simulate: its work, iters x warps^2 = "
                                     f"100000000, may be at most {FAST_MAX_WORK}; give at most 447 warps at 100 "
                                     "iters, or fewer iters"),   # the most warps asked, not the first too many
    ((list(range(1, 101)), list(range(1, 101)), list(range(1, 12)), [1]), {},
     f"the grid has 110000 configurations, more than the {GRID_MAX_CONFIGS} one simulation may run; give shorter "
     "lists of warps, ilp, compute or latency"),
]


@pytest.mark.parametrize("lists, options, message", GRID_ERRORS)
def test_grid_errors(lists, options, message):
    with pytest.raises(SimulationInputError) as info:
        run_grid(*lists, **options)
    assert str(info.value) == message


# --- SimulationRuns: what ``hwkb simulate`` prints ----------------------------------------------

def test_simulation_runs_table_and_json():
    runs = scheduler.SimulationRuns(tuple(run_grid([1, 16], [1], [16], [500])))
    assert str(runs).splitlines() == [
        "warps  ilp  compute  latency  iters  policy  utilization  issued  cycles",
        "    1    1       16      500    100  gto         3.295 %    1700   51600",   # a fraction in percent
        "   16    1       16      500    100  gto         52.25 %   26960   51600"]
    first = runs.runs[0]
    assert runs.to_dict() == {"command": "simulate", "status": "ok", "units": scheduler.SimulationRuns.UNITS, "runs": [
        {"warps": r.warps, "ilp": r.ilp, "compute": r.compute, "latency": r.latency, "iters": r.iters,
         "policy": r.policy, "utilization": r.issued / r.cycles, "cycles": r.cycles, "issued": r.issued}
        for r in runs.runs]}
    assert list(runs.to_dict()["runs"][0]) == ["warps", "ilp", "compute", "latency", "iters", "policy",
                                               "utilization", "cycles", "issued"]
    assert (first.issued, first.cycles) == (1700, 51600)
    with pytest.raises(dataclasses.FrozenInstanceError):
        runs.runs = ()
