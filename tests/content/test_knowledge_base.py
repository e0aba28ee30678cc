"""The facade on the real KB: the default KB loaded first and a user's KB layered on it, figures through its laws.

The facade's behaviour is tested on the tiny KBs in tests/test_kb.py; these
tests load kb/, so editing it may change them.
"""
from __future__ import annotations

import pytest

from hwkb import KnowledgeBase
from hwkb.errors import KBErrors
from hwkb.formats.resources import default_kb_dirs


# ---------------------------------------------------------------- loading

def test_the_default_kb_comes_first(real_kb):
    assert real_kb.directories == tuple(default_kb_dirs())


def test_a_bad_directory_fails_the_load(tmp_path):
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([tmp_path / "missing"])
    assert len(info.value.errors) == 1


def test_a_user_kb_layers_on_the_default(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    (mine / "gpus").mkdir(parents=True)
    (mine / "rules").mkdir()
    (mine / "gpus" / "mine.yaml").write_text(
        "h100-binned:\n  kind: product\n  extends: h100-sxm\n  facts:\n    sm_count: 114\n")
    (mine / "rules" / "mine.yaml").write_text(
        "variables:\n  peak_per_sm: {unit: TFLOPS, doc: a user's own variable}\n"
        "rules:\n  per_sm:\n    doc: the BF16 peak shared out over the SMs\n"
        "    eq: peak_per_sm = tc_peak[bf16] / sm_count\n    source: the user\n")
    kb = KnowledgeBase.load([mine])
    assert kb.directories == (*default_kb_dirs(), mine)
    assert "h100-binned" in kb.model.entities and "peak_per_sm" in kb.model.variables
    binned = kb.solve("clock_tc", gpu="h100-binned")
    assert binned.magnitude == pytest.approx(989.4e12 / (114 * 4096) / 1e9)
    per_sm = kb.solve("peak_per_sm", gpu="h100-sxm")
    assert (per_sm.status, per_sm.magnitude) == ("derived", pytest.approx(989.4 / 132))


# ---------------------------------------------------------------- figures

@pytest.mark.parametrize("gpu, rate", [("v100", 1.758), ("a100", 2.430), ("h100-sxm", 5.234), ("b200", 7.812)])
def test_the_per_pin_data_rate_follows_from_bus_and_bandwidth(real_kb, gpu, rate):
    solution = real_kb.solve("memory_data_rate", gpu=gpu)  # HBM2 ~1.75, HBM2 ~2.4, HBM3 ~5.2, HBM3e ~7.8 Gbit/s
    assert solution.status == "derived" and solution.magnitude == pytest.approx(rate, abs=1e-3)
