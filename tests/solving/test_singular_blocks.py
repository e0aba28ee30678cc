"""A contradiction hidden in a singular block: two peaks and no SM count or clock.

Each peak alone fixes only the product SMs x clock; the two together fix nothing more, but they must stand in the
ratio of their per-SM rates. A sheet whose peaks do not is inconsistent, though no value can be derived: solve
and audit say so, and a sheet whose peaks agree (within their printed digits) stays clean.
"""
from __future__ import annotations

import pytest

from conftest import kb_from_text
from hwkb.audit.auditor import audit
from hwkb.render.note_words import note_text

RULES = """
indices:
  precision: {values: [fp16, fp8], doc: number formats}
variables:
  n:     {unit: "", integer: true, doc: SMs}
  clock: {unit: GHz, doc: the tensor clock}
  rate:  {unit: FMA/cycle, index: precision, doc: multiply-adds per SM per cycle}
  peak:  {unit: TFLOPS, index: precision, doc: dense peak}
  ratio: {unit: "", doc: the FP8 rate over the FP16 rate}
rules:
  peak_law:
    doc: the peak is SMs x rate x clock
    for: precision
    eq: peak[precision] = n * rate[precision] * clock
    source: test
  fp8_rate:
    doc: FP8 runs at the architecture's ratio to FP16
    eq: rate[fp8] = ratio * rate[fp16]
    source: test
"""
GPUS = """
arch:
  kind: architecture
  facts:
    rate[fp16]: 1024 FMA/cycle
    ratio: {value: 2, tolerance: 0}
agreeing:
  kind: product
  extends: arch
  facts:
    peak[fp16]: 200 TFLOPS
    peak[fp8]: 400 TFLOPS
rounded:
  kind: product
  extends: arch
  facts:
    peak[fp16]: 200 TFLOPS
    peak[fp8]: 400.4 TFLOPS
contradicting:
  kind: product
  extends: arch
  facts:
    peak[fp16]: 200 TFLOPS
    peak[fp8]: 300 TFLOPS
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("singular"), RULES, GPUS)


def test_peaks_that_contradict_the_rate_ratio_make_the_block_inconsistent(kb):
    s = kb.solve("clock", gpu="contradicting")
    assert s.status == "inconsistent" and s.value is None
    (note,) = [n for n in map(note_text, s.notes) if "cannot all hold" in n]
    assert note.startswith("peak_law[fp16], peak_law[fp8] cannot all hold for any positive clock, n: with "
                           "peak[fp16], rate[fp16], peak[fp8] as stated, the closest fit misses by 0.333 in all")
    assert kb.solve("n", gpu="contradicting").status == "inconsistent"


@pytest.mark.parametrize("gpu", ["agreeing", "rounded"])
def test_peaks_that_agree_leave_the_block_underdetermined(kb, gpu):
    s = kb.solve("clock", gpu=gpu)
    assert s.status == "underdetermined" and ["n"] in [list(n) for n in s.needs]
    assert not any("cannot all hold" in n or "positive solutions" in n for n in s.notes)


def test_an_unrelated_answer_is_not_touched(kb):
    s = kb.solve("rate[fp8]", gpu="contradicting")
    assert s.status == "derived" and s.magnitude == pytest.approx(2048)


def test_the_audit_reports_the_hidden_contradiction(kb):
    report = audit(kb, ["agreeing", "rounded", "contradicting"])
    verdicts = {e.entity: e for e in report.entities}
    assert verdicts["agreeing"].status == "consistent" and verdicts["rounded"].status != "inconsistent"
    bad = verdicts["contradicting"]
    assert bad.status == "inconsistent"
    (check,) = [c for c in bad.checks if str(c.status) == "inconsistent"]
    assert {"peak[fp16]", "peak[fp8]"} <= set(check.variables)
    assert "peak_law[fp16]" in check.rule and "peak_law[fp8]" in check.rule
