"""hwkb.cli.listing: ``hwkb list``, what the KB holds."""
from __future__ import annotations

import pytest

from conftest import TINY, run_cli, run_cli_json


run = run_cli
run_json = run_cli_json


@pytest.mark.parametrize("what, expected", [("entities", "h100-sxm"), ("variables", "sm_count"),
                                            ("rules", "tensor_peak")])
def test_list(capsys, what, expected):
    code, doc, _ = run_json(capsys, "list", what)
    items = doc["items"]
    assert code == 0 and expected in {i["id"] for i in items}
    assert all(i["doc"] for i in items if i.get("kind") in (None, "law", "expectation", "architecture", "product"))


def test_list_text_aligns_ids(capsys):
    code, out, _ = run(capsys, "list", "variables", "--kb", str(TINY), "--no-default-kb")
    assert code == 0 and out.splitlines()[0].split() == ["sm_count", "SMs", "enabled"]
    assert len({line.index(line.split()[1]) for line in out.splitlines() if line.split()[1] != "SMs"}) == 1


ALIASED = TINY.parent / "tiny_alias"


def test_list_variables_names_their_aliases(capsys):
    code, doc, _ = run_json(capsys, "list", "variables", "--kb", str(ALIASED), "--no-default-kb")
    aliases = {i["id"]: i["aliases"] for i in doc["items"]}
    assert code == 0 and aliases == {"sm_count": ["cu_count", "tensorcore_count"], "clock": [], "fma_rate": [],
                                     "peak": ["matrix_peak"]}
    code, out, _ = run(capsys, "list", "variables", "--kb", str(ALIASED), "--no-default-kb")
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert lines["sm_count"].endswith("SMs enabled  (aliases: cu_count, tensorcore_count)")
    assert lines["clock"].endswith("the tensor clock")


def test_list_rules_gives_each_rules_law_source_and_worked_example(capsys):
    code, doc, _ = run_json(capsys, "list", "rules")
    rules = {i["id"]: i for i in doc["items"]}
    peak = rules["tensor_peak"]
    assert code == 0 and peak["eq"] == "tc_peak[precision] = sm_count * tc_fma_per_sm_cycle[precision] * clock_tc"
    assert (peak["source"], peak["example"]) == ("chapter-sms-and-tensor-cores, section 'How the peak compute is computed'",
                                                 "H100 SXM, BF16: 132 SMs x 4096 FLOP/cycle x 1.83 GHz = 989 TFLOPS")
    assert rules["divergence"]["example"] == ""
