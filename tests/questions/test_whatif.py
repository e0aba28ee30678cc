"""hwkb.questions.whatif: baseline beside scenario, every downstream value recomputed, overrides marked."""
from __future__ import annotations

import pytest

from conftest import kb_from_text
from hwkb.errors import QueryError, UnknownNameError
from hwkb.questions.whatif import relative_change, scenario_contexts, what_if

RULES = """
variables:
  n:        {unit: "", integer: true, doc: items of one kind per round}
  m:        {unit: "", integer: true, doc: items of the other kind per round}
  cost:   {unit: "", doc: work per round (items of plain work)}
  rate:     {unit: flop/cycle, doc: work per cycle}
  units:    {unit: "", integer: true, doc: units at work}
  per_unit: {unit: flop/cycle, default: 4 flop/cycle, source: test, doc: work one unit does per cycle}
  cap:      {unit: flop/cycle, doc: work all units do per cycle}
  load:     {unit: "", doc: share of the exp capacity in use}
rules:
  cost_law: {doc: work of a round, eq: cost = 2 * n + 2 * m, source: test}
  cap_law:  {doc: every unit at its rate, eq: cap = units * per_unit, source: test}
  load_law: {doc: load of the capacity, eq: load = rate / cost / cap, source: test}
"""
GPUS = """
chip:
  kind: product
  source: test
  facts: {rate: 4096 flop/cycle, units: 4}
chip-next:
  kind: product
  source: test
  facts: {rate: 4096 flop/cycle, units: 4, per_unit: 8 flop/cycle}
wide:
  kind: scenario
  doc: twice the exps per unit
  facts: {per_unit: 8 flop/cycle}
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("whatif"), RULES, GPUS)


GIVEN = ["n=64", "m=64"]  # load = 4096 / 256 / 16 = 1


def test_a_wider_unit_halves_the_load(kb):
    result = what_if(kb, ["load", "cap"], gpu="chip", given=GIVEN, scenarios=["wide"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, r.change) for r in result.rows}
    assert rows == {"load": (1.0, 0.5, -0.5), "cap": (16.0, 32.0, 1.0)}
    assert result.changes == ("per_unit",)


def test_without_variables_every_changed_value_is_shown(kb):
    result = what_if(kb, gpu="chip", given=GIVEN, changes=["per_unit=2"])
    keys = [r.variable for r in result.rows]
    assert keys[0] == "per_unit" and result.rows[0].overridden
    assert set(keys) == {"per_unit", "cap", "load"}
    assert all(r.change is not None for r in result.rows)


def test_the_scenario_fact_carries_scenario_provenance(kb):
    (row,) = what_if(kb, ["load"], gpu="chip", given=GIVEN, scenarios=["wide"]).rows
    facts = {v.key: v.origin for v in row.scenario.facts()}
    assert facts["per_unit"].via == "scenario"
    assert facts["per_unit"].entity == "wide"
    assert facts["n"].via == "given"
    baseline = {v.key: v.origin for v in row.baseline.facts()}
    assert baseline["per_unit"].via == "default"


def test_a_scenario_entity_contributes_only_what_differs(kb):
    baseline, scenario, _ = scenario_contexts(kb, gpu="chip", given=GIVEN, scenarios=["chip-next"])
    assert [k for k, v in scenario.overrides.items() if v == "scenario"] == ["per_unit"]
    assert baseline.overrides == {"n": "given", "m": "given"}


def test_set_wins_over_the_scenario_entity_and_given_stays(kb):
    result = what_if(kb, ["per_unit", "n"], gpu="chip", given=GIVEN, scenarios=["wide"], changes=["per_unit=16"])
    assert [(r.baseline.magnitude, r.scenario.magnitude) for r in result.rows] == [(4.0, 16.0), (64.0, 64.0)]


def test_a_what_if_needs_a_change(kb):
    with pytest.raises(QueryError) as info:
        what_if(kb, ["load"], gpu="chip")
    assert str(info.value) == "a what-if needs a change; give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)"


def test_unknown_scenario_suggests(kb):
    with pytest.raises(UnknownNameError) as info:
        what_if(kb, gpu="chip", scenarios=["wid"])
    assert str(info.value) == "--scenario: unknown entity 'wid'; did you mean 'wide'?"


def test_thresholds_compare_too(kb):
    # load = 4096 / (4n) / cap <= 1: n >= 64 at 16 exps per cycle, n >= 32 at 32
    (row,) = what_if(kb, ["n"], gpu="chip", scenarios=["wide"], where=["m = n", "load <= 1"]).rows
    assert (row.baseline.magnitude, row.scenario.magnitude, row.change) == (64.0, 32.0, -0.5)


def test_a_what_if_over_every_value_takes_only_equalities(kb):
    with pytest.raises(QueryError) as info:
        what_if(kb, gpu="chip", scenarios=["wide"], where=["m = n", "load <= 1"])
    assert str(info.value) == ("a what-if over every value takes only equalities in --where; "
                               "name the variables to compare, or drop the inequalities")


def test_relative_change():
    assert relative_change(2.0, 3.0) == 0.5
    assert relative_change(-2.0, -1.0) == 0.5
    assert relative_change(0.0, 0.0) == 0.0


MEMORY_RULES = """
variables:
  bus:   {unit: "", integer: true, doc: pins}
  clock: {unit: GHz, doc: the memory clock}
  bits:  {unit: bit/cycle, doc: bits a pin moves per clock, default: 2 bit/cycle, source: test}
  rate:  {unit: Gbit/s, doc: data rate of one pin}
  bw:    {unit: GB/s, doc: bandwidth}
rules:
  rate_law: {doc: two transfers a clock, eq: rate = clock * bits, source: test}
  bw_law:   {doc: pins at their rate, eq: bw = bus * rate, source: test}
"""
MEMORY_GPUS = """
sheet:
  kind: product
  source: test
  facts: {bus: 4096, bw: 512 GB/s}
full:
  kind: product
  source: test
  facts: {bus: 4096, clock: 0.5 GHz, bw: 512 GB/s}
pins:
  kind: product
  source: test
  facts: {bus: 4096, rate: 1 Gbit/s}
"""


@pytest.fixture(scope="module")
def memory_kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("moved"), MEMORY_RULES, MEMORY_GPUS)


def test_a_raised_bandwidth_lists_the_causes_it_was_worked_back_into(memory_kb):
    """Issue 19: raising a stated bandwidth raised the data rate silently; it is a row, marked, beside it."""
    result = what_if(memory_kb, ["bw"], gpu="sheet", changes=["bw=1024GB/s"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, r.moved) for r in result.rows}
    assert rows == {"bw": (512, 1024, None), "rate": (1, 2, "worked back from the change"),
                    "clock": (0.5, 1, "worked back from the change")}
    assert result.to_dict()["rows"][1]["moved"] == "worked back from the change"
    assert "moved" not in result.to_dict()["rows"][0]
    assert str(result).splitlines()[4].endswith("+100%  [worked back from the change]")


def test_a_stated_figure_the_change_recomputes_is_listed_as_moved(memory_kb):
    result = what_if(memory_kb, ["rate"], gpu="full", changes=["clock=1GHz"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, r.moved) for r in result.rows}
    assert rows == {"rate": (1, 2, None), "bw": (512, 1024, "stated figure moved")}
    assert result.notes == ("bw (stated 512 GB/s) is recomputed from the change",)


def test_a_forward_change_moves_nothing_it_does_not_list(memory_kb):
    result = what_if(memory_kb, gpu="full", changes=["bus=8192"])
    assert {r.variable: r.moved for r in result.rows} == {"bus": None, "bw": "stated figure moved"}


def test_a_change_the_stated_causes_contradict_says_they_fix_it(memory_kb):
    """An MI300X states its bus and data rate: a bandwidth set alone contradicts both, and the note says so."""
    result = what_if(memory_kb, ["bw"], gpu="pins", changes=["bw=1024GB/s"])
    assert result.rows[0].scenario_status == "inconsistent"
    assert result.notes == ("bw is fixed by bw_law from bus = 4096 and rate = 1 Gbit/s, which pins states: the "
                            "change contradicts them; give the one that moves with --set",)
    assert what_if(memory_kb, ["bw"], gpu="sheet", changes=["bw=1024GB/s"]).notes == ()
