"""hwkb.cli.sources: ``hwkb sources``, the bibliography with how many facts each document backs."""
from __future__ import annotations

import csv
import io

from conftest import TINY, run_cli, run_cli_json
from hwkb import KnowledgeBase


def test_sources_lists_every_document_most_cited_first(capsys):
    code, doc, _ = run_cli_json(capsys, "sources")
    documents = doc["documents"]
    assert code == 0 and doc["cited"] is True
    assert len(documents) == len(KnowledgeBase.load().model.sources)
    counts = [(d["facts"], d["rules"]) for d in documents]
    assert counts == sorted(counts, reverse=True)
    assert all(d["facts"] + d["rules"] > 0 for d in documents)
    gp100 = next(d for d in documents if d["id"] == "nvidia-gp100-whitepaper")
    assert (gp100["publisher"], gp100["date"], gp100["read"]) == ("NVIDIA", "2016", "first-hand")


def test_the_counts_are_the_facts_that_cite_each_document():
    kb = KnowledgeBase.load()
    rows = {r["id"]: r for r in kb.sources().rows}
    tpu7x = [fact for fact in kb.model.entities["tpu7x"].facts.values()
             if fact.entity == "tpu7x" and fact.source and fact.source.startswith("google-tpu7x")]
    assert rows["google-tpu7x"]["facts"] >= len(tpu7x) > 0
    assert rows["williams-roofline"]["facts"] == 0 and rows["williams-roofline"]["rules"] > 0


def test_sources_text_csv_and_html(capsys):
    most = KnowledgeBase.load().sources().rows[0]
    code, out, _ = run_cli(capsys, "sources")
    first = out.splitlines()[1].split()
    assert code == 0 and first[:4] == [str(most["facts"]), str(most["rules"]), most["id"], most["read"]]
    code, out, _ = run_cli(capsys, "sources", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert (rows[0]["id"], int(rows[0]["facts"])) == (most["id"], most["facts"])
    code, out, _ = run_cli(capsys, "sources", "--format", "html")
    assert ('<a href="https://docs.cloud.google.com/tpu/docs/tpu7x" rel="noreferrer">'
            "Cloud TPU documentation, &#x27;TPU7x (Ironwood)&#x27;</a>") in out


def test_a_kb_without_a_bibliography_lists_its_free_text_sources(capsys):
    code, doc, _ = run_cli_json(capsys, "sources", "--kb", str(TINY), "--no-default-kb")
    assert code == 0 and doc["cited"] is False
    assert {d["id"]: d["facts"] for d in doc["documents"]} == {
        "tiny whitepaper": 1, "tiny whitepaper, table 3": 1, "tiny datasheet": 2, "tiny book, page 1": 0, "tiny book, page 2": 0}


def test_sheet_lists_each_cited_document_with_its_title_and_link(capsys):
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "mi300x")
    assert code == 0
    assert ("  amd-cdna3-whitepaper: Introducing AMD CDNA 3 Architecture (white paper) (AMD, as published 9 April "
            "2025) <https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/white-papers/"
            "amd-cdna-3-white-paper.pdf>") in out.splitlines()
    code, doc, _ = run_cli_json(capsys, "sheet", "--gpu", "mi300x")
    assert "amd-cdna3-whitepaper" in [d["id"] for d in doc["documents"]]


def test_the_sheet_page_links_a_source_to_its_document(capsys):
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "tpu7x", "--format", "html")
    assert code == 0
    assert ('<a href="https://docs.cloud.google.com/tpu/docs/tpu7x" title="Cloud TPU documentation, &#x27;TPU7x '
            '(Ironwood)&#x27; (Google)" rel="noreferrer">google-tpu7x, ') in out
    assert "<h2>Documents</h2>" in out


def test_explain_ends_with_the_documents_its_tree_cites(capsys):
    code, out, _ = run_cli(capsys, "explain", "clock_tc", "--gpu", "h100-sxm")
    lines = out.splitlines()
    documents = lines[lines.index("documents:") + 1:]
    assert code == 0 and [line.split(":")[0].strip() for line in documents] == [
        "chapter-sms-and-tensor-cores", "nvidia-h100-datasheet", "nvidia-blog-hopper-in-depth"]
    code, doc, _ = run_cli_json(capsys, "explain", "clock_tc", "--gpu", "h100-sxm")
    assert [d["id"] for d in doc["documents"]] == [
        "chapter-sms-and-tensor-cores", "nvidia-h100-datasheet", "nvidia-blog-hopper-in-depth"]


def test_only_an_http_address_becomes_a_link(tmp_path):
    from hwkb.definitions.citations import Document
    from hwkb.errors import Location
    make = lambda url: Document("d", "T", "P", "first-hand", "d", Location("x"), url=url)
    assert make("https://example.com/a.pdf").link == "https://example.com/a.pdf"
    assert make('https://example.com/"onmouseover="x').link is None
    assert make("javascript:alert(1)").link is None and make(None).link is None


def test_the_audit_page_links_a_findings_source_to_its_document():
    page = KnowledgeBase.load().audit(["b200"]).render("html")
    assert '<a href="https://www.nvidia.com/en-us/data-center/hgx" title="NVIDIA HGX platform, technical ' in page
