"""hwkb.questions.derived_file through KnowledgeBase.derived_entity_file: derived values as an entity file the
loader reads back, written in the KB's format by hwkb.formats.entity_writing."""
from __future__ import annotations

import pytest

from hwkb import KnowledgeBase
from hwkb.errors import QueryError
from hwkb.formats.entity_writing import DERIVED_SOURCE
from conftest import TINY


def test_a_derived_file_reads_back_as_an_entity_extending_the_product(tiny_kb, tmp_path):
    derived = tiny_kb.derive("chip")
    (tmp_path / "gpus").mkdir()
    (tmp_path / "gpus" / "derived.yaml").write_text(tiny_kb.derived_entity_file(derived))
    again = KnowledgeBase.load([TINY, tmp_path], default=False)
    entity = again.model.entity("chip-derived")
    assert entity.extends == ("chip",) and len(derived.values) > 0
    assert {f.key for f in entity.facts.values()} == {v.key for v in derived.values}
    assert all(f.source.startswith(DERIVED_SOURCE) for f in entity.facts.values())


def test_a_context_without_a_product_has_no_file(tiny_kb):
    with pytest.raises(QueryError, match="an entity file extends a product"):
        tiny_kb.derived_entity_file(tiny_kb.derive(None, facts=["clock=1GHz"]))
