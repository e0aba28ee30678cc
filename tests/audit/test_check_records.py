"""hwkb.audit.check_records and the check cache: a pattern's checks as data, the same warm and cold, a forged or
malformed entry only a miss, and a warm audit with no SymPy."""
from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from conftest import imports_cold_then_warm
from hwkb import KnowledgeBase
from hwkb.audit.analysis import Analysis
from hwkb.audit.check_records import decode, encode
from hwkb.audit.enclosures import Enclosure, compile_interval
from hwkb.definitions.expressions import BinOp, Num, Ref
from hwkb.definitions.symbolic import exact_tree
from hwkb.formats.caches import CacheDirectory
from hwkb.formats.caches.results import ResultCache


@pytest.fixture(scope="module")
def warm_kb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    folder.chmod(0o700)
    return KnowledgeBase.load(cache=folder)


def h100_pattern(kb):
    from hwkb.audit.auditor import Auditor
    auditor = Auditor(kb)
    (row,) = auditor.rows(["h100-sxm"])
    return row.pattern


def test_exact_tree_keeps_sympys_order_and_numbers():
    x, y = sympy.symbols("x y", positive=True)
    tree = exact_tree(2 * x / (3 * y), lambda s: Ref(s.name))
    assert tree == BinOp("*", BinOp("*", Num(Fraction(2, 3)), Ref("x")), BinOp("**", Ref("y"), Num(Fraction(-1))))
    with pytest.raises(NotImplementedError, match="no interval form for Exp1"):
        exact_tree(sympy.E * x, lambda s: Ref(s.name))


def test_a_tree_encloses_as_sympys_expression_did():
    x, y = sympy.symbols("x y", positive=True)
    boxes = [Enclosure.around(3.0, 0.25), Enclosure.around(7.0, 0.5)]
    for expr in (x * y / 3, sympy.sqrt(x) + sympy.Min(x, y), x ** sympy.Rational(2, 3) / (x + y)):
        out = compile_interval(expr, (x, y))(boxes)
        values = [float(expr.subs({x: a, y: b})) for a in (2.75, 3.25) for b in (6.5, 7.5)]
        assert out.lo[0] <= min(values) and max(values) <= out.hi[0]


def test_records_round_trip_and_compile_the_same(warm_kb):
    analysis = Analysis(warm_kb)
    records = analysis.records(h100_pattern(warm_kb))
    assert records and decode(encode(records), len(warm_kb.relations)) == records


def test_a_warm_analysis_reads_what_a_cold_one_stored(warm_kb):
    pattern = h100_pattern(warm_kb)
    cold = Analysis(warm_kb).records(pattern)
    cache = ResultCache(warm_kb.solutions.directory, "checks")
    source = Analysis(warm_kb)._source(pattern)
    assert decode(cache.get(source), len(warm_kb.relations)) == cold
    analysis = Analysis(warm_kb)
    analysis._analyse = None  # a warm analysis must not analyse
    assert analysis.records(pattern) == cold


@pytest.mark.parametrize("forge", ["unsigned", "malformed"])
def test_a_forged_or_malformed_entry_is_a_miss(warm_kb, forge):
    pattern = h100_pattern(warm_kb)
    honest = Analysis(warm_kb).records(pattern)
    directory: CacheDirectory = warm_kb.solutions.directory
    source = Analysis(warm_kb)._source(pattern)
    path = directory / "checks" / f"{source[:40]}.json"
    header, _, payload = path.read_text().partition("\n")
    if forge == "unsigned":  # a variable added to every check, not signed again: the HMAC no longer matches
        forged = payload.replace('"variables":["', '"variables":["x","')
        path.write_text(header + "\n" + forged)
    else:  # signed with the user's secret, yet not a record: a node outside the whitelist
        ResultCache(directory, "checks").put(source, payload.replace('"ref"', '"eval"', 1))
    assert Analysis(warm_kb).records(pattern) == honest


@pytest.mark.parametrize("text", ['[{"relation": 10000000}]', '[["num", 1, 0]]', '{"a": 1}',
                                  '[{"relation": 0, "name": null, "kind": "law", "target": "x", "symbols": [], '
                                  '"variables": [], "defaults": [], "own": ["call", "system", [["ref", "x"]]], '
                                  '"implied": ["ref", "x"], "ratio": ["ref", "x"], "target_via": null, "sides": []}]'])
def test_decode_refuses_what_is_not_a_record(text):
    with pytest.raises(ValueError):
        decode(text, 10)


def test_a_warm_audit_imports_no_sympy(tmp_path):
    """Issue 20: `hwkb audit --gpu h100-sxm` with its caches warm loads neither SymPy nor NetworkX."""
    (cold_out, cold), (warm_out, warm) = imports_cold_then_warm(tmp_path, ["audit", "--gpu", "h100-sxm"],
                                                                ("sympy", "networkx"))
    assert cold_out == warm_out
    assert "'sympy'" in cold  # cold: the analysis plans and cancels with SymPy
    assert warm == "[] 1"


def test_a_compiled_check_declares_only_what_compiling_adds(warm_kb):
    """A check's and a side's fields are declared once, on the records; the compiled forms read them through."""
    from dataclasses import fields
    from hwkb.audit.analysis import CompiledCheck, Side
    from hwkb.audit.check_records import CheckRecord, SideRecord
    compiled = {"relation", "own", "implied", "ratio", "sides"}  # a place, trees and side records, compiled
    assert [f.name for f in fields(CompiledCheck)] == ["record", "relation", "own", "implied", "ratio", "sides"]
    assert compiled <= {f.name for f in fields(CheckRecord)}
    assert [f.name for f in fields(Side)] == ["record", "function", "unit", "factor"]
    assert not {"function", "unit", "factor"} & {f.name for f in fields(SideRecord)}
    analysis = Analysis(warm_kb)
    (check, *_) = analysis.checks(h100_pattern(warm_kb))
    record = check.record
    assert (check.kind, check.target, check.symbols, check.variables, check.defaults, check.target_via) == (
        record.kind, record.target, record.symbols, record.variables, record.defaults, record.target_via)
    assert check.relation is warm_kb.relations[record.relation] or check.relation.name == record.name
    assert [(s.key, s.via, s.inputs, s.symbols) for s in check.sides] == [
        (s.key, s.via, s.inputs, s.symbols) for s in record.sides]
