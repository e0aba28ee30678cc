"""hwkb.solving.routes: routes most closely stated first, then through the values datasheets headline."""
from __future__ import annotations

import pytest

from conftest import write_kb
from hwkb import KnowledgeBase
from hwkb.errors import KBErrors
from hwkb.solving.routes import derived_steps

RULES = """
indices:
  precision: {{values: [fp16, bf16], doc: number formats{headline}}}
variables:
  sm_count: {{unit: "", integer: true, doc: SMs}}
  clock:    {{unit: GHz, doc: the clock}}
  fma_rate: {{unit: FMA/cycle, index: precision, doc: multiply-adds per SM per cycle}}
  peak:     {{unit: TFLOPS, index: precision, doc: dense peak}}
rules:
  peak_law: {{doc: d, for: precision, eq: 'peak[precision] = sm_count * fma_rate[precision] * clock', source: s}}
"""
CHIP = """
chip:
  kind: product
  name: Chip
  facts: {sm_count: 100, 'peak[fp16]': 204.8 TFLOPS, 'peak[bf16]': 204.8 TFLOPS,
          'fma_rate[fp16]': 1024 FMA/cycle, 'fma_rate[bf16]': 1024 FMA/cycle}
"""


def routes(tmp_path, monkeypatch, headline: str, **files) -> list[str]:
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/compute.yaml": RULES.format(headline=headline),
                                               "gpus/chips.yaml": CHIP, **files})
    solution = KnowledgeBase.load([kb_dir], default=False).solve("clock", gpu="chip")
    return [route.origin.rule for route in (solution.value, *solution.alternatives)]


@pytest.mark.parametrize("headline, first", [(", headline: [bf16]", "peak_law[bf16]"),
                                             (", headline: [fp16, bf16]", "peak_law[fp16]")])
def test_among_routes_as_close_the_headline_value_leads(tmp_path, monkeypatch, headline, first):
    assert routes(tmp_path, monkeypatch, headline)[0] == first


def test_fewer_derived_steps_lead_whatever_the_headline(tiny_kb):
    solution = tiny_kb.solve("clock", gpu="chip", facts=["peak[bf16]=204.8TFLOPS"])
    assert [derived_steps(v) for v in (solution.value, *solution.alternatives)] == [1, 2]
    assert solution.value.origin.rule == "peak_law[fp16]"


@pytest.mark.parametrize("headline, message", [
    (", headline: [fp8]", "rules/compute.yaml:2:68: headline value 'fp8' is not a value of index set 'precision'; "
                          "list some of fp16, bf16"),
    (", headline: [bf16, bf16]", "rules/compute.yaml:2:68: the headline values of 'precision' list a value twice")])
def test_a_headline_names_each_value_once(tmp_path, monkeypatch, headline, message):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/compute.yaml": RULES.format(headline=headline)})
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([kb_dir], default=False)
    assert message in [str(e) for e in info.value.errors]
