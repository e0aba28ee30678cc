"""hwkb.audit.readings: the reading a within-rounding verdict needed, named so a reader can judge it."""
from __future__ import annotations

from hwkb.audit.readings import TRUNCATED, reading
from hwkb.render.finding_words import detail


def test_a_reading_names_truncation_and_the_figures_read_to_two_significant_figures():
    assert reading(False, ()) is None
    assert reading(True, ()) == TRUNCATED == "truncated"
    assert reading(False, ["memory_bandwidth"]) == "memory_bandwidth read to 2 significant figures"
    assert reading(True, ["a", "b"]) == "truncated; a read to 2 significant figures; b read to 2 significant figures"


def test_the_documents_check_names_its_reading(real_kb):
    """A chosen figure and another document's, each printed: the B200's 8 TB/s (DGX) and 7.7 TB/s (HGX) meet as
    rounded figures; Google's 197 TFLOPS per chip meets its pod figure only cut short."""
    (b200,) = real_kb.audit(["b200"]).entities
    (documents,) = [c for c in b200.checks if c.rule == "documents" and c.target == "memory_bandwidth"]
    assert (str(documents.status), documents.reading) == ("within_rounding", None)
    (v5e,) = real_kb.audit(["tpu-v5e"]).entities
    (pod,) = [c for c in v5e.checks if c.rule == "system_peak[bf16]"]
    assert (str(pod.status), pod.reading) == ("within_rounding", "truncated")
    assert "reading: truncated" in detail(pod) and pod.to_dict()["reading"] == "truncated"
