"""Rule notes on the real KB: a route shows its law in symbols and its source, never another product's numbers."""
from __future__ import annotations

import re

import pytest

from conftest import run_cli

#: a worked calculation: a number, perhaps with its unit, times or over a number ("132 x 4096", "4096 FLOP x 1.83",
#: "8192 / 512"); a law in symbols ("FLOP = 4 seqlen^2 head_dim heads") is not one
ARITHMETIC = re.compile(r"\d\s*(?:[A-Za-z]+\s*)?[x×*/]\s*\d")


def test_no_rule_source_carries_a_worked_example(real_kb):
    """A worked example is about one product; it belongs in the rule's ``example``, which no route prints."""
    carrying = {name: rule.source for name, rule in real_kb.model.rules.items() if ARITHMETIC.search(rule.source)}
    assert carrying == {}
    assert real_kb.model.rules["tensor_peak"].example.startswith("H100 SXM, BF16: 132 SMs")
    assert ARITHMETIC.search(real_kb.model.rules["tensor_peak"].example)


def test_every_route_of_an_mi300x_shows_its_law_not_the_h100s_numbers(capsys):
    code, out, _ = run_cli(capsys, "explain", "clock_tc", "--gpu", "mi300x")
    routes = [line for line in out.splitlines() if line.startswith("clock_tc = ") and " by law " in line]
    assert code == 0 and len(routes) >= 6
    for line in routes:
        precision = re.search(r"by law tensor_peak\[(\w+)\]", line).group(1)
        assert (f": tc_peak[{precision}] = sm_count * tc_fma_per_sm_cycle[{precision}] * clock_tc "
                f"— chapter-sms-and-tensor-cores, section 'How the peak compute is computed'") in line
    assert "132" not in out and "989" not in out


@pytest.mark.parametrize("variable", ["register_elements_per_warp", "registers_per_lane"])
def test_the_p100s_register_notes_print_no_other_figure(capsys, variable):
    """Issue 24: 8160 (255 x 32) was printed beside a source reading '8192 in all'."""
    code, out, _ = run_cli(capsys, "explain", variable, "--gpu", "p100")
    notes = [line.split(" by law ", 1)[1] for line in out.splitlines() if " by law " in line]
    assert code == 0 and notes and not any("8192" in line or "1024" in line for line in notes)


def test_a_simulation_shows_its_model_applied_to_its_inputs(real_kb):
    facts = ["warps_per_scheduler=8", "loads_per_round=1", "compute_per_round=16", "latency_cycles=500"]
    origin = real_kb.solve("scheduler_utilization", facts=facts).value.origin
    assert origin.law == ("scheduler_utilization = warp_scheduler(warps=warps_per_scheduler, ilp=loads_per_round, "
                          "compute=issued_after_load_per_round, latency=latency_cycles)")
