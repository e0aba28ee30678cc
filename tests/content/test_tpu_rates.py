"""The TPUs' matrix rates per cycle on the real KB: the MXUs' structure, not two rounded peaks, gives them.

Google's v5e page prints 197 TFLOPs (BF16) and 393 TOPs (INT8) per chip. The BF16 peak over four 128 x 128 MXUs
gives the clock, 1.503 GHz; the INT8 peak over that clock gave 1.307e+05 INT8 multiply-accumulates per cycle,
the two peaks' rounding (393 is 392.5 to 394, 197 is 196.5 to 198) spread over about 1,500 whole counts. The
v5e's INT8 rate is twice its BF16 rate (Google DeepMind's scaling book: 1.97e14 and 3.94e14 per chip), so the
MXUs retire 2 x 4 x 16,384 = 131,072 per cycle, and the peak route agrees within its rounding.
"""
from __future__ import annotations

from hwkb.solving.whole_counts import figure_bounds


def test_the_v5e_int8_rate_is_twice_its_mxus_bf16_rate(real_kb):
    solution = real_kb.solve("tc_fma_per_sm_cycle[int8]", "tpu-v5e")
    assert solution.status == "derived" and solution.magnitude == 131072
    assert solution.value.origin.rule == "mxu_int8_rate"
    (peaks,) = solution.alternatives
    assert peaks.origin.rule == "tensor_peak[int8]" and round(peaks.magnitude) == 130739
    assert solution.value.agrees_with(peaks)


def test_the_peaks_alone_allow_some_fifteen_hundred_whole_counts(real_kb):
    """Why declaring the rate a count did not help: the peaks' rounding allows 129,9xx to 131,4xx."""
    context = real_kb.context("tpu-v5e")
    (peaks,) = real_kb.solve("tc_fma_per_sm_cycle[int8]", "tpu-v5e").alternatives
    low, high = (x * peaks.magnitude / peaks.canonical for x in
                 figure_bounds(peaks, context.facts, real_kb.relation_index, real_kb.model.variables))
    assert 1400 < high - low < 1600 and low < 131072 < high


def test_the_v5e_int8_peak_is_within_the_rounding_of_its_mxus(real_kb):
    audit = real_kb.audit(["tpu-v5e"]).entities[0]
    (check,) = [c for c in audit.checks if c.rule == "tensor_peak[int8]"]
    assert str(check.status) == "within_rounding" and round(check.deviation, 3) == -0.254
