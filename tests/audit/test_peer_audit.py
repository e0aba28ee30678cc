"""hwkb.audit.peers: a peer tool's entries audited against their own figures and against the KB's catalogue,
on the peers' test KB (tests/fixtures/peers/kb: a product gpu-x of 204.8 TFLOPS dense BF16, 2000 GB/s)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import FIXTURES
from hwkb import KnowledgeBase
from hwkb.audit.findings import Verdict
from hwkb.formats.peers.entries import NameMatch
from hwkb.formats.peers.registry import FORMATS
from hwkb.render.finding_words import peer_hint_text, provenance_text

PEERS = FIXTURES / "peers"
CLEAN = {"llm-analysis": "llm-analysis/gpu-x.json", "genz": "genz/systems.json", "llmcompass": "llmcompass/gpu-x.json",
         "aiconfigurator": "aiconfigurator/gpu-x.yaml", "epoch": "epoch/ml_hardware.csv"}
#: each format's sample with one planted error: the field, the KB key, the source the KB cites, and the hint's words
PLANTED = {
    "llm-analysis": ("llm-analysis/planted.json", "hbm_bandwidth_in_GB_per_sec", "memory_bandwidth",
                     "gpu-x: test datasheet, table 2", "binary vs decimal prefix"),
    "genz": ("genz/planted.json", "Flops", "tc_peak[bf16]", "gpu-x: test datasheet, table 1 (dense)",
             "equals the KB's tc_peak_sparse[bf16]"),
    "llmcompass": ("llmcompass/planted.json", "core_count", "sm_count", "gpu-x: test datasheet, table 1", None),
    "aiconfigurator": ("aiconfigurator/planted/gpu-x.yaml", "gpu.mem_bw", "memory_bandwidth",
                       "gpu-x: test datasheet, table 2", "1.07374x the KB's value: binary vs decimal prefix"),
    "epoch": ("epoch/planted.csv", "TF32 (TensorFloat-32) performance (FLOP/s)", "tc_peak[tf32]",
              "derived by tf32_ratio", "equals the KB's tc_peak_sparse[tf32]"),
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([PEERS / "kb"], default=False)


@pytest.mark.parametrize("fmt", list(CLEAN))
def test_a_clean_sample_has_no_finding(kb, fmt):
    audit = kb.audit_peer_files(fmt, [PEERS / CLEAN[fmt]])
    assert audit.exit_code() == 0 and audit.status in ("consistent", "within_rounding")
    assert audit.entries[0].product == "gpu-x" and audit.entries[0].comparisons


@pytest.mark.parametrize("fmt", list(PLANTED))
def test_the_planted_error_is_named_with_both_sources(kb, fmt):
    path, field, key, kb_source, hint = PLANTED[fmt]
    audit = kb.audit_peer_files(fmt, [PEERS / path])
    assert audit.exit_code() == 1 and audit.status == "inconsistent"
    (bad,) = [c for e in audit.entries for c in e.comparisons if c.status == Verdict.INCONSISTENT]
    assert (bad.field, bad.key) == (field, key) and provenance_text(bad.kb_source).startswith(kb_source)
    assert bad.where.file == str(PEERS / path) and bad.where.line is not None
    assert (hint is None and bad.hint is None) or hint in peer_hint_text(bad.hint)
    text = str(audit)
    assert field in text and kb_source in text and f"{bad.where}" in text


def test_an_entrys_own_laws_are_audited_too(kb):
    audit = kb.audit_peer_files("epoch", [PEERS / "epoch" / "planted.csv"])
    internal = audit.entries[0].internal
    (check,) = internal.checks
    assert check.rule == "tf32_ratio" and check.status == Verdict.INCONSISTENT
    assert check.suspects[0].fact == "tc_peak[tf32]"
    assert "internal: 1 inconsistent" in str(audit)


def test_an_entry_without_a_product_is_audited_alone_and_said_so(kb):
    audit = kb.audit_peer_files("genz", [PEERS / "genz" / "systems.json"])
    unlisted = audit.entries[1]
    assert unlisted.product is None and not unlisted.comparisons
    assert audit.not_in_kb == ("Unlisted_GPU",) and audit.to_dict()["summary"]["entries_without_product"] == 1
    assert "genz: Unlisted_GPU (" in audit.render() and "vs no KB entity: unchecked" in audit.render()
    assert audit.render().count("Unlisted_GPU") == 2  # its block's head and the one 'not in the KB:' line


def test_a_name_tables_variant_skips_the_figures_of_the_other_part(kb, monkeypatch, tmp_path):
    monkeypatch.setitem(FORMATS["genz"].names, "gpu-x-big", NameMatch("gpu-x", ("memory_bandwidth",), "a bigger part"))
    other = tmp_path / "big.json"
    other.write_text((PEERS / "genz" / "planted.json").read_text().replace('"gpu-x"', '"gpu-x-big"'))
    entry = kb.audit_peer_files("genz", [other]).entries[0]
    assert entry.skipped == ("memory_bandwidth",) and "memory_bandwidth" not in [c.key for c in entry.comparisons]
    assert any("a bigger part" in n for n in entry.notes)


def test_keys_the_kb_cannot_settle_are_listed_not_judged(kb):
    entry = kb.audit_peer_files("llmcompass", [PEERS / "llmcompass" / "gpu-x.json"]).entries[0]
    assert entry.unsettled == () and {c.key for c in entry.comparisons} >= {"sm_count", "clock_tc", "memory_bus_bits"}
    epoch = kb.audit_peer_files("epoch", [PEERS / "epoch" / "ml_hardware.csv"]).entries[0]
    assert all(c.status != Verdict.INCONSISTENT for c in epoch.comparisons)


def test_the_json_is_the_audit_document_with_the_catalogue(kb):
    audit = kb.audit_peer_files("llm-analysis", [PEERS / "llm-analysis" / "planted.json"])
    doc = audit.to_dict()
    assert doc["command"] == "audit" and doc["format"] == "llm-analysis" and doc["status"] == "inconsistent"
    comparison = doc["catalogue"][0]["comparisons"][0]
    assert comparison["deviation"] == pytest.approx(1862.6 / 2000 - 1) and comparison["kb_value"] == 2000
    assert comparison["written"] == "1862.6" and comparison["consumed"].startswith("llm_analysis/analysis.py:205")
    assert json.loads(audit.render("json"))["catalogue"][0]["comparisons"][0]["written"] == "1862.6 (GB/s)"
    json.dumps(doc)


def test_failed_only_shows_the_failing_entries(kb):
    audit = kb.audit_peer_files("genz", [PEERS / "genz" / "systems.json", PEERS / "genz" / "planted.json"])
    text = audit.render(failed_only=True)
    assert text.count("genz: gpu-x") == 1 and "genz: Unlisted_GPU" not in text and "3 entries in 2 files" in text


def test_a_part_without_sparsity_is_never_hinted_sparse_under_dense(kb, tmp_path):
    """2:4 sparsity is an expectation, not a law: the KB derives no sparse figure for a part whose datasheet has none
    (CDNA 2), so a doubled figure there is hinted by what the KB does hold."""
    path = tmp_path / "systems.json"
    path.write_text(json.dumps({"gpu-x": {"Flops": 409.6, "real_values": True},
                                "gpu-nosparse": {"Flops": 409.6, "real_values": True}}))
    hints = {e.product: peer_hint_text(c.hint) for e in kb.audit_peer_files("genz", [path]).entries for c in e.comparisons
             if c.status == Verdict.INCONSISTENT}
    assert "a sparse figure under a dense key" in hints["gpu-x"]
    assert hints["gpu-nosparse"] == ("equals the KB's tc_peak[fp8] (409.6 TFLOPS): looks like the fp8 figure under "
                                     "the bf16 key")


def test_a_streamed_audit_reads_one_chunk_of_entries_ahead(kb):
    from hwkb.audit.peers import stream_peer_entries
    entries = FORMATS["epoch"].read(PEERS / "epoch" / "ml_hardware.csv", kb.model, kb.units) * 7
    pulled = []

    def read():
        for e in entries:
            pulled.append(e)
            yield e

    stream = stream_peer_entries(kb, FORMATS["epoch"], read(), chunk=3)
    audits = stream.entries
    first = next(audits)
    assert len(pulled) == 3 and first.entry is entries[0] and stream.totals.entries == 1
    rest = list(audits)
    assert len(rest) == len(entries) - 1 and stream.totals.entries == len(pulled) == len(entries) > 3


def test_two_rows_of_one_name_are_each_audited_on_their_own_figures(kb, tmp_path):
    """A table keyed by the name used to give the first row the last one's internal audit, silently."""
    header, planted = (PEERS / "epoch" / "planted.csv").read_text().splitlines()[:2]
    cells = planted.split(",")
    cells[5] = str(float(cells[4]) / 2)  # TF32 at half BF16: what tf32_ratio asks
    path = tmp_path / "twice.csv"
    path.write_text("\n".join([header, planted, ",".join(cells), planted]) + "\n")
    audit = kb.audit_peer_files("epoch", [path])
    assert [e.internal.counts()[Verdict.INCONSISTENT] for e in audit.entries] == [1, 0, 1]
    assert audit.to_dict()["summary"]["counts"]["inconsistent"] == 1  # one entity, counted once


def test_an_entity_named_twice_is_counted_once_in_the_internal_summary(kb):
    path = PEERS / "epoch" / "ml_hardware.csv"
    from hwkb.audit.peers import audit_peer_entries
    entries = FORMATS["epoch"].read(path, kb.model, kb.units)
    once, twice = (audit_peer_entries(kb, FORMATS["epoch"], entries * n) for n in (1, 2))
    assert len(twice.entries) == 2 * len(once.entries)
    internal = {k: v for k, v in once.to_dict()["summary"].items() if k not in ("catalogue", "entries_without_product")}
    assert twice.to_dict()["summary"] == {**internal, "catalogue": {k: 2 * n for k, n in once.counts.items()},
                                          "entries_without_product": 2 * once.totals.without_product}


def test_a_streamed_audit_gives_its_entries_once(kb):
    from hwkb.errors import QueryError
    stream = kb.stream_peer_files("epoch", [PEERS / "epoch" / "ml_hardware.csv"])
    assert stream.collect().entries
    with pytest.raises(QueryError, match="a streamed peer audit gives its entries once"):
        stream.render("text")


def test_rows_of_a_shape_audited_from_their_numbers_equal_their_full_audits(real_kb, tmp_path, monkeypatch):
    """Plain rows naming no product, of a shape whose pattern has no check, are audited from their canonical
    numbers once the shape is known; a row with a figure out of range, a zero or a product's name still takes the
    full way. Each audit equals the full one, and the full way runs for the first chunk and those rows only."""
    header = "Hardware name,TDP (W),Die Size (mm^2),Memory bandwidth (byte/s)\n"
    rows = [f"gpu-{i},{300 + i}.0,{600 + i},{2.0e12 + i * 1e9}" for i in range(60)]
    rows[30] = "gpu-30,1e9,630,2e12"  # a TDP beyond its range: implausible
    rows[40] = "gpu-40,0,640,2e12"  # a zero: a note
    rows[45] = "NVIDIA H100 SXM5 80GB,700,814,3.35e12"  # a KB product: compared
    rows[50] = rows[10]  # a name twice
    got, expected, recorded = _shape_and_full_audits(real_kb, tmp_path, monkeypatch, header, rows)
    assert [(a.internal, a.comparisons, a.notes) for a in got.entries] == [
        (a.internal, a.comparisons, a.notes) for a in expected.entries]
    assert got.render("json") == expected.render("json") and got.render("text") == expected.render("text")
    assert str(got.entries[30].internal.status) == "implausible"
    assert recorded == [f"gpu-{i}" for i in range(10)] + ["gpu-30", "gpu-40", "NVIDIA H100 SXM5 80GB"]


def test_a_figure_on_a_closed_bound_of_its_range_is_audited_from_its_shape_as_in_full(real_kb, tmp_path, monkeypatch):
    """A count on a closed bound of its range (1 and 4,000 Tensor Cores) is in its range, as the full audit's range
    check reads it: its row is audited from its shape, with the full audit's result; one past the bound is not."""
    header = "Hardware name,TDP (W),Tensor cores\n"
    rows = [f"gpu-{i},{300 + i}.0,{100 + i}" for i in range(40)]
    rows[20], rows[25], rows[30], rows[35] = "gpu-20,320.0,1", "gpu-25,325.0,4000", "gpu-30,330.0,4001", "gpu-35,335.0,0.5e1"
    got, expected, recorded = _shape_and_full_audits(real_kb, tmp_path, monkeypatch, header, rows)
    assert got.render("json") == expected.render("json") and got.render("text") == expected.render("text")
    assert [str(a.internal.status) for a in got.entries[20:40:5]] == ["None", "None", "implausible", "None"]
    assert recorded == [f"gpu-{i}" for i in range(10)] + ["gpu-30"]


def test_chunks_after_the_first_hold_at_most_later_chunk_entries_and_audit_alike(real_kb, tmp_path, monkeypatch):
    """After the first chunk, entries come at most LATER_CHUNK at a time; the audit is the same as in chunks of the
    first's size, and as every row audited in full."""
    import dataclasses
    import itertools
    from hwkb.audit import peers
    header = "Hardware name,TDP (W),Die Size (mm^2)\n"
    rows = [f"gpu-{i},{300 + i}.0,{600 + i}" for i in range(60)]
    rows[33], rows[47] = "gpu-33,1e9,633", "NVIDIA H100 SXM5 80GB,700,814"  # implausible; a KB product
    path = tmp_path / "rows.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    entries = FORMATS["epoch"].read(path, real_kb.model, real_kb.units)
    full = [dataclasses.replace(e, canonical=None) for e in entries]
    expected = peers.stream_peer_entries(real_kb, FORMATS["epoch"], full, chunk=20).render("json")
    sizes = []
    islice = itertools.islice
    monkeypatch.setattr(peers.itertools, "islice", lambda it, n: sizes.append(n) or islice(it, n))
    monkeypatch.setattr(peers, "LATER_CHUNK", 7)
    got = peers.stream_peer_entries(real_kb, FORMATS["epoch"], entries, chunk=20).render("json")
    assert got == expected and sizes == [20] + [7] * 7
    monkeypatch.setattr(peers, "LATER_CHUNK", 250)
    sizes.clear()
    assert peers.stream_peer_entries(real_kb, FORMATS["epoch"], entries, chunk=20).render("json") == expected
    assert sizes == [20] * 4


def test_a_bare_entry_adds_to_the_totals_as_any_entry_does(real_kb, tmp_path):
    """PeerTotals.add_bare, for the rows audited from their shape, counts what add counts: the internal tally, the
    entries, those without a product, the names not in the KB, each file's unread columns; a name twice counts
    its entity once."""
    from hwkb.audit import peers
    from hwkb.audit.peer_findings import PeerTotals
    header = "Hardware name,TDP (W),Die Size (mm^2),Odd column\n"
    rows = [f"gpu-{i},{300 + i}.0,{600 + i},x" for i in range(30)] + ["gpu-12,320.0,620,x"]
    path = tmp_path / "rows.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    entries = FORMATS["epoch"].read(path, real_kb.model, real_kb.units)
    audits = peers.stream_peer_entries(real_kb, FORMATS["epoch"], entries, chunk=10).collect().entries
    bare = [a for a in audits[10:]]
    assert all(not a.comparisons and not a.internal.checks and a.entry.match is None for a in bare)
    added, added_bare = PeerTotals(), PeerTotals()
    for a in bare:
        first = a.internal.entity == a.entry.id
        added.add(a, first=first)
        added_bare.add_bare(a, first=first)
    assert vars(added.internal) == vars(added_bare.internal)
    assert {k: v for k, v in vars(added).items() if k != "internal"} == {
        k: v for k, v in vars(added_bare).items() if k != "internal"}
    assert added.internal.entities == 20 and added.entries == 21 and added.unread == {str(path): ("Odd column",)}


@pytest.fixture(scope="module")
def epoch_screens():
    """Each screened pattern of Epoch's own rows: its Screen, the canonical defaults under the row's figures, and
    the row's own figures."""
    from pathlib import Path
    from hwkb.audit import peers
    from hwkb.audit.auditor import Auditor
    kb = KnowledgeBase.load()
    path = Path(__file__).resolve().parents[1] / "peers" / "real" / "epoch" / "ml_hardware.csv"
    entries = [e for e in FORMATS["epoch"].read(path, kb.model, kb.units) if e.canonical is not None]
    auditor = Auditor(kb)
    rows = auditor.rows([peers._record(kb, e, e.id) for e in entries])
    auditor.report(rows, auditor.evaluate(auditor.prepare(rows)))
    out = {}
    for e, row in zip(entries, rows):
        screen = auditor._shared.screens.get(row.pattern)
        if screen is not None and screen.exact and screen.steps and e.canonical.keys not in out:
            own = e.canonical.mid
            out[e.canonical.keys] = (screen, {k: v for k, v in row.mid.items() if k not in own}, dict(own))
    assert len(out) >= 10
    return list(out.values())


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_shape_screens_a_row_as_its_pattern_screen_does(epoch_screens, data):
    """A shape's screen (each step's function looked up once) says what Screen.clear says of the row's figures
    over the shape's defaults, for figures scaled anywhere from 10^-6 to 10^6, in range or out of it; and so it does
    over only the defaults its steps read."""
    from hwkb.audit.peers import _ShapeScreen
    screen, base, own = data.draw(st.sampled_from(epoch_screens))
    scales = data.draw(st.lists(st.sampled_from([1e-6, 1e-3, 0.5, 1.0, 1.0, 2.0, 1e3, 1e6]), min_size=len(own),
                                max_size=len(own)))
    mid = {k: v * s for (k, v), s in zip(own.items(), scales)}
    assert _ShapeScreen.of(screen).clear({**base, **mid}) == screen.clear({**base, **mid})
    read = {k for relation, _ in screen.steps for k in relation.keys}  # the defaults a shape keeps (_learn)
    assert _ShapeScreen.of(screen).clear({**{k: v for k, v in base.items() if k in read}, **mid}) == screen.clear(
        {**base, **mid})


def test_shape_screens_of_epoch_rows_both_pass_and_refuse(epoch_screens):
    from hwkb.audit.peers import _ShapeScreen
    said = [_ShapeScreen.of(s).clear({**base, **own, key: own[key] * f})
            for s, base, own in epoch_screens for key in own for f in (1.0, 1e-6, 1e6)]
    assert True in said and False in said


def test_a_bare_entry_audit_set_at_once_equals_one_made_field_by_field(kb):
    from hwkb.audit.findings import EntityAudit
    from hwkb.audit.peer_findings import PeerEntryAudit
    entry = FORMATS["epoch"].read(PEERS / "epoch" / "ml_hardware.csv", kb.model, kb.units)[0]
    internal = EntityAudit(entry.id, entry.name, (), notes=("no law ties these figures together",))
    at_once, plain = PeerEntryAudit.bare(entry, internal), PeerEntryAudit(entry, internal, (), (), (), ())
    assert at_once == plain and vars(at_once) == vars(plain)
    with pytest.raises(AttributeError):
        at_once.notes = ("x",)


def test_a_bare_internal_audit_set_at_once_equals_one_made_by_its_init():
    from hwkb.audit.findings import EntityAudit
    from hwkb.audit.peers import _NO_GROUPS, _bare_internal
    at_once = _bare_internal("epoch:gpu #2", "gpu", ("no law ties these figures together",))
    plain = EntityAudit("epoch:gpu #2", "gpu", (), groups=_NO_GROUPS, notes=("no law ties these figures together",))
    assert at_once == plain and vars(at_once) == vars(plain) and at_once.status is None


def _shape_and_full_audits(kb, tmp_path, monkeypatch, header: str, rows: list[str]):
    """An Epoch CSV of ``rows`` audited as streamed (chunks of 10) and with every row the full way, and the names
    of the rows the streamed audit sent the full way."""
    import dataclasses
    from hwkb.audit import peers
    path = tmp_path / "rows.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    entries = FORMATS["epoch"].read(path, kb.model, kb.units)
    full = [dataclasses.replace(e, canonical=None) for e in entries]
    expected = peers.stream_peer_entries(kb, FORMATS["epoch"], full, chunk=10).collect()
    recorded = []
    record = peers._record
    monkeypatch.setattr(peers, "_record", lambda system, e, eid: recorded.append(e.name) or record(system, e, eid))
    return peers.stream_peer_entries(kb, FORMATS["epoch"], entries, chunk=10).collect(), expected, recorded
