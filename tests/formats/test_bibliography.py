"""hwkb.formats.bibliography: kb/SOURCES.yaml holds every document once, and every citation names one of them."""
from __future__ import annotations

from collections import Counter

import pytest

from conftest import TINY, load_errors, write_kb
from hwkb.definitions.citations import split_citation
from hwkb.formats.bibliography import BIBLIOGRAPHY
from hwkb.formats.load import load_model
from hwkb.formats.resources import default_kb_dirs


@pytest.fixture(scope="module")
def built_in():
    model, _ = load_model(default_kb_dirs())
    return model


def _citations(model):
    """(what cites, the citation) for every entity, fact, other document's figure, default and rule of a model."""
    for eid in model.entities:
        entity = model.entities[eid]
        if entity.source is not None:
            yield f"entity {eid}", entity.source
        for key, fact in entity.facts.items():
            yield f"{eid}: {key}", fact.source
            for other in fact.also:
                yield f"{eid}: {key} also", other.source
    for name, variable in model.variables.items():
        if variable.default is not None:
            yield f"default of {name}", variable.default.source
    for name, rule in model.rules.items():
        yield f"rule {name}", rule.source


def test_every_fact_of_the_built_in_kb_cites_a_document_of_its_bibliography(built_in):
    assert built_in.sources is not None
    uncited = [(what, source) for what, source in _citations(built_in)
               if not what.startswith("rule ") and (source is None or split_citation(source)[0] not in built_in.sources)]
    # an n/a fact states no figure: it may cite nothing, its doc says why
    uncited = [(what, source) for what, source in uncited if source is not None or not _is_na(built_in, what)]
    assert uncited == []


def _is_na(model, what):
    eid, _, key = what.partition(": ")
    fact = model.entities[eid].facts.get(key) if eid in model.entities else None
    return fact is not None and fact.value is None


def test_every_document_of_the_bibliography_is_cited(built_in):
    cited = Counter(split_citation(source)[0] for _, source in _citations(built_in) if source)
    assert [ident for ident in built_in.sources if cited[ident] == 0] == []


def test_every_document_says_how_it_was_read(built_in):
    for document in built_in.sources.values():
        assert document.read in ("first-hand", "copy", "unrecorded")
        assert document.read != "copy" or document.via, document.id
        assert document.url is None or document.url.startswith(("https://", "http://")), document.id


# ---------------------------------------------------------------- malformed bibliographies and citations

_SOURCES = f"""
    tiny-whitepaper:
      title: Tiny architecture whitepaper
      publisher: Tiny Inc.
      read: first-hand
      doc: the architecture
    tiny-datasheet:
      title: Tiny chip datasheet
      publisher: Tiny Inc.
      url: https://example.com/tiny.pdf
      read: copy
      via: a reseller's page
      doc: the product
    tiny-book:
      title: A tiny textbook
      publisher: Tiny Press
      read: first-hand
      doc: the laws
"""

_RULES = (TINY / "rules" / "compute.yaml").read_text().replace("tiny book", "tiny-book, chapter 1")

_CITED = """
    arch:
      kind: architecture
      name: Tiny architecture
      doc: what every chip of the generation shares
      source: "tiny-whitepaper, table 2"
      facts:
        sm_count: 128
        fma_rate[fp16]: {value: 1024 FMA/cycle, source: "tiny-whitepaper, table 3"}

    chip:
      kind: product
      name: Tiny chip
      extends: arch
      facts:
        sm_count: {value: 100, source: "tiny-datasheet, page 1"}
        peak[fp16]: {value: 204.8 TFLOPS, source: "tiny-datashet, page 1"}
"""


def test_a_kb_without_a_bibliography_keeps_free_text_sources():
    model, _ = load_model([TINY])
    assert model.sources is None
    assert model.entities["chip"].facts["sm_count"].source == "tiny datasheet"


def test_a_citation_of_an_unknown_id_names_the_place_the_id_and_the_nearest(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES, "gpus/chips.yaml": _CITED})
    assert load_errors(kb) == [
        "gpus/chips.yaml:16:25: unknown source 'tiny-datashet'; did you mean 'tiny-datasheet'? cite a document of "
        "SOURCES.yaml as 'ID, LOCATION', or add the document there"]


def test_free_text_in_a_kb_with_a_bibliography_is_refused(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES})  # the tiny KB's own free-text sources
    assert load_errors(kb) == [
        "gpus/chips.yaml:1:1: unknown source 'tiny whitepaper'; did you mean 'tiny-whitepaper'? cite a document "
        "of SOURCES.yaml as 'ID, LOCATION', or add the document there",
        "gpus/chips.yaml:7:15: unknown source 'tiny whitepaper'; did you mean 'tiny-whitepaper'? cite a document "
        "of SOURCES.yaml as 'ID, LOCATION', or add the document there",
        "gpus/chips.yaml:8:29: unknown source 'tiny whitepaper'; did you mean 'tiny-whitepaper'? cite a document "
        "of SOURCES.yaml as 'ID, LOCATION', or add the document there",
        "gpus/chips.yaml:15:23: unknown source 'tiny datasheet'; did you mean 'tiny-datasheet'? cite a document "
        "of SOURCES.yaml as 'ID, LOCATION', or add the document there",
        "gpus/chips.yaml:16:25: unknown source 'tiny datasheet'; did you mean 'tiny-datasheet'? cite a document "
        "of SOURCES.yaml as 'ID, LOCATION', or add the document there"]


def test_a_cited_kb_loads_with_its_documents(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES,
                                          "gpus/chips.yaml": _CITED.replace("tiny-datashet", "tiny-datasheet")})
    model, _ = load_model([kb])
    assert sorted(model.sources) == ["tiny-book", "tiny-datasheet", "tiny-whitepaper"]
    assert model.sources["tiny-datasheet"].link == "https://example.com/tiny.pdf"
    assert split_citation(model.entities["chip"].facts["peak[fp16]"].source) == ("tiny-datasheet", "page 1")
    assert model.entities["arch"].facts["sm_count"].source == "tiny-whitepaper, table 2"  # inherited: still an id


@pytest.mark.parametrize("entry, message", [
    ("tiny-whitepaper:\n  title: T\n  publisher: P\n  read: maybe\n  doc: d\n",
     "SOURCES.yaml:4:9: document 'tiny-whitepaper' says read: 'maybe'; use one of first-hand, copy, unrecorded"),
    ("tiny-whitepaper:\n  title: T\n  publisher: P\n  read: copy\n  doc: d\n",
     "SOURCES.yaml:2:3: document 'tiny-whitepaper' was read through a copy but does not say which; name the copy "
     "in 'via'"),
    ("tiny-whitepaper:\n  title: T\n  publisher: P\n  read: first-hand\n  url: javascript:alert(1)\n  doc: d\n",
     "SOURCES.yaml:5:8: the url of 'tiny-whitepaper' is not an http(s) address a page can link to; write the "
     "address as https://..., with no space, quote or angle bracket"),
    ("tiny-whitepaper:\n  title: T\n  publisher: P\n  read: first-hand\n  url: 'https://a.b/\"x'\n  doc: d\n",
     "SOURCES.yaml:5:8: the url of 'tiny-whitepaper' is not an http(s) address a page can link to; write the "
     "address as https://..., with no space, quote or angle bracket"),
    ("Tiny Whitepaper:\n  title: T\n  publisher: P\n  read: first-hand\n  doc: d\n",
     "SOURCES.yaml:1:1: document id 'Tiny Whitepaper' is not lowercase words joined by '-' or '.'; write it as e.g. "
     "'nvidia-h100-datasheet'"),
    ("tiny-whitepaper:\n  title: T\n  read: first-hand\n  doc: d\n",
     "SOURCES.yaml:2:3: document 'tiny-whitepaper' lacks 'publisher'"),
    ("tiny-whitepaper:\n  title: T\n  publisher: P\n  read: first-hand\n  doc: d\n  pages: 3\n",
     "SOURCES.yaml:6:3: unknown field 'pages' in document 'tiny-whitepaper'; allowed: title, publisher, date, url, "
     "read, via, doc"),
])
def test_a_malformed_entry_is_refused_at_its_line(tmp_path, monkeypatch, entry, message):
    kb = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: entry, "rules/compute.yaml": _RULES})
    assert load_errors(kb)[0] == message


def test_an_overlay_adds_its_documents_and_may_repeat_one_unchanged(tmp_path, monkeypatch):
    base = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES,
                                            "gpus/chips.yaml": _CITED.replace("tiny-datashet", "tiny-datasheet")})
    overlay = tmp_path / "overlay"
    (overlay / "gpus").mkdir(parents=True)
    (overlay / BIBLIOGRAPHY).write_text(
        "tiny-whitepaper:\n  title: Tiny architecture whitepaper\n  publisher: Tiny Inc.\n  read: first-hand\n"
        "  doc: the architecture\n"
        "tiny-review:\n  title: A review\n  publisher: A magazine\n  read: first-hand\n  doc: a test\n")
    (overlay / "gpus" / "more.yaml").write_text(
        "chip2:\n  kind: product\n  extends: chip\n  facts:\n    sm_count: {value: 96, source: \"tiny-review, p. 2\"}\n")
    model, _ = load_model([base, overlay])
    assert sorted(model.sources) == ["tiny-book", "tiny-datasheet", "tiny-review", "tiny-whitepaper"]


def test_an_overlay_that_lists_an_id_differently_is_refused(tmp_path, monkeypatch):
    base = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES,
                                            "gpus/chips.yaml": _CITED.replace("tiny-datashet", "tiny-datasheet")})
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / BIBLIOGRAPHY).write_text(
        "tiny-whitepaper:\n  title: Another title\n  publisher: Tiny Inc.\n  read: first-hand\n  doc: the architecture\n")
    assert [str(e) for e in _errors([base, overlay])] == [
        f"{overlay / BIBLIOGRAPHY}:1:1: document 'tiny-whitepaper' is listed twice, differently; the first is at "
        "SOURCES.yaml:1:1; give one id one entry, or choose another id"]


def _errors(directories):
    from hwkb.errors import KBErrors
    with pytest.raises(KBErrors) as info:
        load_model(directories)
    return info.value.errors


def test_a_users_datasheet_may_keep_free_text(tmp_path, built_in):
    """A datasheet given with --file (audit, check) cites the user's own document, which the KB's bibliography
    cannot list: its sources are kept as written."""
    from hwkb.formats.load import load_entities
    _, units = load_model(default_kb_dirs())
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text("mine:\n  extends: h100-sxm\n  source: my vendor's sheet, p. 2\n  facts:\n    sm_count: 130\n")
    entities = load_entities(sheet, built_in, units)
    assert entities["mine"].facts["sm_count"].source == "my vendor's sheet, p. 2"


def test_an_overlay_without_a_bibliography_keeps_free_text(tmp_path, monkeypatch):
    """A directory is held to a bibliography only if it holds one: a user's overlay of sheets need not cite."""
    base = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES,
                                            "gpus/chips.yaml": _CITED.replace("tiny-datashet", "tiny-datasheet")})
    overlay = tmp_path / "overlay"
    (overlay / "gpus").mkdir(parents=True)
    (overlay / "gpus" / "more.yaml").write_text(
        "chip2:\n  kind: product\n  extends: chip\n  facts:\n    sm_count: {value: 96, source: my notes}\n")
    model, _ = load_model([base, overlay])
    assert model.entities["chip2"].facts["sm_count"].source == "my notes"


def test_a_fact_without_any_source_in_a_cited_directory_is_refused(tmp_path, monkeypatch):
    chips = _CITED.replace("tiny-datashet", "tiny-datasheet").replace('      source: "tiny-whitepaper, table 2"\n', "")
    kb = write_kb(tmp_path, monkeypatch, {BIBLIOGRAPHY: _SOURCES, "rules/compute.yaml": _RULES, "gpus/chips.yaml": chips})
    assert load_errors(kb) == [
        'gpus/chips.yaml:6:15: sm_count cites no source; add source: "ID, LOCATION" with ID a document of SOURCES.yaml']
