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
    code, out, _ = run_cli(capsys, "sources")
    first = out.splitlines()[1].split()
    assert code == 0 and first[2] == "cuda-programming-guide-13" and first[3] == "copy"
    code, out, _ = run_cli(capsys, "sources", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["id"] == "cuda-programming-guide-13" and int(rows[0]["facts"]) > 100
    code, out, _ = run_cli(capsys, "sources", "--format", "html")
    assert ('<a href="https://docs.cloud.google.com/tpu/docs/tpu7x" rel="noreferrer">'
            "Cloud TPU documentation, &#x27;TPU7x (Ironwood)&#x27;</a>") in out


def test_a_kb_without_a_bibliography_lists_its_free_text_sources(capsys):
    code, doc, _ = run_cli_json(capsys, "sources", "--kb", str(TINY), "--no-default-kb")
    assert code == 0 and doc["cited"] is False
    assert {d["id"]: d["facts"] for d in doc["documents"]} == {
        "tiny whitepaper": 1, "tiny whitepaper, table 3": 1, "tiny datasheet": 2, "tiny book, page 1": 0, "tiny book, page 2": 0}
