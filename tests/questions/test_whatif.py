"""hwkb.questions.whatif: baseline beside scenario, every downstream value recomputed, overrides marked."""
from __future__ import annotations

import pytest

from hwkb.errors import QueryError, UnknownNameError
from hwkb.questions.whatif import relative_change, scenario_contexts, what_if


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


GIVEN = ["d_qk=128", "d_v=128"]


def test_sfu_doubled_halves_the_exp_utilization(kb):
    result = what_if(kb, ["exp_utilization[bf16]", "sfu_exp_per_sm_cycle"], gpu="b200", given=GIVEN,
                     scenarios=["sfu-doubled"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, r.change) for r in result.rows}
    assert rows == {"exp_utilization[bf16]": (1.0, 0.5, -0.5), "sfu_exp_per_sm_cycle": (16.0, 32.0, 1.0)}
    assert result.changes == ("sfu_exp_per_unit_cycle",)


def test_without_variables_every_changed_value_is_shown(kb):
    result = what_if(kb, gpu="b200", given=GIVEN, changes=["sfu_exp_per_unit_cycle=2"])
    keys = [r.variable for r in result.rows]
    assert keys[0] == "sfu_exp_per_unit_cycle" and result.rows[0].overridden
    assert {"sfu_exp_per_sm_cycle", "sfu_exp_rate", "exp_utilization[bf16]", "exp_utilization[fp8]"} <= set(keys)
    assert "tc_peak[bf16]" not in keys and "d_qk" not in keys
    assert all(r.change is not None for r in result.rows)


def test_the_scenario_fact_carries_scenario_provenance(kb):
    (row,) = what_if(kb, ["exp_utilization[bf16]"], gpu="b200", given=GIVEN, scenarios=["sfu-doubled"]).rows
    facts = {v.key: v.origin for v in row.scenario.facts()}
    assert facts["sfu_exp_per_unit_cycle"].via == "scenario"
    assert facts["sfu_exp_per_unit_cycle"].entity == "sfu-doubled"
    assert facts["d_qk"].via == "given"
    baseline = {v.key: v.origin for v in row.baseline.facts()}
    assert baseline["sfu_exp_per_unit_cycle"].via == "default"


def test_a_scenario_entity_contributes_only_what_differs(kb):
    baseline, scenario, _ = scenario_contexts(kb, gpu="b200", given=GIVEN, scenarios=["b300-like"])
    assert [k for k, v in scenario.overrides.items() if v == "scenario"] == ["sfu_exp_per_unit_cycle"]
    assert baseline.overrides == {"d_qk": "given", "d_v": "given"}


def test_set_wins_over_the_scenario_entity_and_given_stays(kb):
    result = what_if(kb, ["sfu_exp_per_unit_cycle", "d_qk"], gpu="b200", given=GIVEN, scenarios=["sfu-doubled"],
                     changes=["sfu_exp_per_unit_cycle=4"])
    assert [(r.baseline.magnitude, r.scenario.magnitude) for r in result.rows] == [(1.0, 4.0), (128.0, 128.0)]


def test_a_what_if_needs_a_change(kb):
    with pytest.raises(QueryError) as info:
        what_if(kb, ["sfu_exp_rate"], gpu="b200")
    assert str(info.value) == "a what-if needs a change; give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)"


def test_unknown_scenario_suggests(kb):
    with pytest.raises(UnknownNameError) as info:
        what_if(kb, gpu="b200", scenarios=["sfu-double"])
    assert str(info.value) == "--scenario: unknown entity 'sfu-double'; did you mean 'sfu-doubled'?"


def test_thresholds_compare_too(kb):
    (row,) = what_if(kb, ["d_qk"], gpu="h100-sxm", scenarios=["sfu-doubled"],
                     where=["d_v = d_qk", "exp_utilization[fp8] <= 1"]).rows
    assert (row.baseline.magnitude, row.scenario.magnitude, row.change) == (128.0, 64.0, -0.5)


def test_relative_change():
    assert relative_change(2.0, 3.0) == 0.5
    assert relative_change(-2.0, -1.0) == 0.5
    assert relative_change(0.0, 0.0) == 0.0
