"""hwkb.solving.limit_rules: limit rules checked on a context's facts, and the edge they put on a search."""
from __future__ import annotations

import copy

import pytest

from conftest import kb_from_text
from hwkb.errors import Location, OutsideLimit
from hwkb.solving import limit_rules
from hwkb.solving.limit_rules import largest_within, limits_on

RULES = """
variables:
  threads: {unit: thread, integer: true, doc: threads of a block}
  most:    {unit: thread, integer: true, doc: the most threads of a block}
  smem:    {unit: B, doc: bytes of a block}
  plain:   {unit: KiB, doc: smem without the switch}
  switch:  {unit: "", integer: true, doc: the opt-in, default: 1, source: test}
  more:    {unit: KiB, doc: smem with the switch}
rules:
  threads_limit: {kind: limit, doc: no more threads than the most, eq: threads <= most, source: test}
  smem_limit:
    kind: limit
    doc: no more smem than the switch allows
    eq: smem <= max(plain, switch * more)
    source: test
"""
GPUS = """
chip:
  kind: product
  source: the datasheet
  facts: {most: 1024 thread, plain: 48 KiB, more: 100 KiB}
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("limits"), RULES, GPUS)


def test_all_names_exist():
    assert sorted(limit_rules.__all__) == ["Limit", "check_limits", "compile_limits", "largest_within", "limits_on"]


def test_limits_are_compiled_not_solved(kb):
    assert [limit.name for limit in kb.limits] == ["threads_limit", "smem_limit"]
    assert not any(r.rule.kind == "limit" for r in kb.relations)
    assert [limit.name for limit in limits_on(kb.limits, "switch")] == ["smem_limit"]


def test_a_limit_holds_only_where_its_facts_are_stated(kb):
    threads = kb.limits[0]
    assert threads.holds({"threads": 1024.0, "most": 1024.0}) is True
    assert threads.holds({"threads": 1025.0, "most": 1024.0}) is False
    assert threads.holds({"threads": 2048.0}) is None
    kb.context("chip")                                   # no threads stated: nothing to check
    kb.context("chip", facts=["threads=1024", "smem=100KiB"])


def test_a_broken_limit_names_its_value_and_source(kb):
    with pytest.raises(OutsideLimit) as caught:
        kb.context("chip", facts=["threads=2048"])
    error = caught.value
    assert str(error) == ("--set: threads = 2048 thread exceeds the launch limit most = 1024 thread (chip, the datasheet): "
                          "rule threads_limit, threads <= most; no more threads than the most")
    assert (error.rule, error.subject, error.bound) == ("threads_limit", "threads = 2048 thread", "most = 1024 thread")
    moved = copy.copy(error).at(Location("elsewhere"))
    assert str(moved) == str(error) and moved.facts == error.facts


def test_a_composite_bound_lists_every_fact_it_rests_on(kb):
    with pytest.raises(OutsideLimit) as caught:
        kb.context("chip", facts=["smem=60KiB", "switch=0"])
    assert str(caught.value) == (
        "--set: smem = 61440 B exceeds the launch limit max(plain, switch * more) = 49152 B (plain = 48 KiB "
        "[chip, the datasheet]; switch = 0 [given on the command line]; more = 100 KiB [chip, the datasheet]): "
        "rule smem_limit, smem <= max(plain, switch * more); no more smem than the switch allows")
    kb.context("chip", facts=["smem=60KiB"])             # the default opts in


def test_the_largest_value_within_a_limit():
    assert largest_within(lambda n: n <= 255, integer=True, ceiling=2.0 ** 40) == 255
    assert largest_within(lambda n: True, integer=True, ceiling=2.0 ** 40) is None
    assert largest_within(lambda n: n <= 0.5, integer=True, ceiling=2.0 ** 40) == 0
    assert largest_within(lambda x: x <= 3.25, integer=False, ceiling=2.0 ** 60) == pytest.approx(3.25, rel=1e-11)


def test_a_limit_that_does_not_balance_is_a_load_error(tmp_path):
    from hwkb.errors import KBErrors
    rules = RULES + "  wrong: {kind: limit, doc: threads against bytes, eq: threads <= plain, source: test}\n"
    with pytest.raises(KBErrors) as caught:
        kb_from_text(tmp_path, rules, GPUS)
    assert "rule wrong does not balance: the left side is" in str(caught.value)
