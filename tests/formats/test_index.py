"""The entity index and the entity cache: a warm question reads only the files it needs, and is never wrong.

A KB of the tiny rules and a few entity files; each test loads it once cold
(which builds the index), then warm, and checks what the warm load built and
that it answers and fails exactly as a cold load would.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import build_kb
from hwkb import KnowledgeBase
from hwkb.errors import KBErrors
from hwkb.formats import load as loader
from hwkb.formats.caches import CacheDirectory
from hwkb.formats.caches.entities import cached_entities, store_entities
from hwkb.formats.caches.entity_index import LazyEntities
from hwkb.formats.load import load_model


def product(eid: str, sms: int, parent: str = "arch") -> str:
    return f"{eid}:\n  kind: product\n  extends: {parent}\n  facts:\n    sm_count: {sms}\n\n"


@pytest.fixture
def kb(tmp_path, monkeypatch) -> Path:
    """The tiny KB and three files of four products each; the working directory is the KB."""
    kb = build_kb(tmp_path / "kb")
    for n in range(3):
        (kb / "gpus" / f"more_{n}.yaml").write_text("".join(product(f"p{n}{i}", 10 * n + i + 1) for i in range(4)))
    monkeypatch.chdir(kb)
    return kb


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The entity files the loader reads the text of, as they are read."""
    seen: list[str] = []
    real = loader.read_regular_file

    def counting(path, *args):
        if Path(path).parent.name == "gpus":
            seen.append(Path(path).name)
        return real(path, *args)
    monkeypatch.setattr(loader, "read_regular_file", counting)
    return seen


def load(kb: Path, cache: Path) -> KnowledgeBase:
    return KnowledgeBase.load([kb], default=False, cache=cache)


def edit_behind_size_and_time(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (of the same length) in ``path``, keeping its modification time."""
    before = os.stat(path)
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size


def test_a_warm_question_reads_only_its_own_file_and_its_chain(kb, tmp_path, reads):
    cache = tmp_path / "cache"
    cold = load(kb, cache)
    assert sorted(set(reads)) == ["chips.yaml", "more_0.yaml", "more_1.yaml", "more_2.yaml"]
    reads.clear()
    warm = load(kb, cache)
    assert reads == [] and isinstance(warm.model.entities, LazyEntities) and warm.model.entities.built == 0
    assert str(warm.solve("sm_count", gpu="p12")) == str(cold.solve("sm_count", gpu="p12"))
    assert sorted(reads) == ["chips.yaml", "more_1.yaml"]  # p12's file and arch's, nothing else
    assert warm.model.entities.built == 4 + 2
    assert list(warm.model.entities) == list(cold.model.entities)
    assert warm.model == cold.model and warm.model.entities.built == 14  # comparing builds every entity


def test_the_warm_derive_and_audit_answer_as_the_cold(kb, tmp_path):
    cache = tmp_path / "cache"
    cold = load(kb, cache)
    warm = load(kb, cache)
    assert warm.derive("p21").to_dict() == cold.derive("p21").to_dict()
    assert warm.audit(["p21"]).to_dict() == cold.audit(["p21"]).to_dict()


def test_an_unknown_entity_is_the_same_error_warm(kb, tmp_path):
    cache = tmp_path / "cache"

    def message(kb_):
        with pytest.raises(Exception) as info:
            kb_.solve("sm_count", gpu="p2")
        return str(info.value)
    cold = message(load(kb, cache))
    warm_kb = load(kb, cache)
    assert message(warm_kb) == cold and "did you mean" in cold
    assert warm_kb.model.entities.built == 0


@pytest.mark.parametrize("edit, expected", [
    # a duplicate id in another, clean file: the index finds it without reading either file's entities
    (("gpus/twin.yaml", product("p01", 5)), "gpus/twin.yaml:1:1: 'p01' is declared twice; the first is at "
                                            "gpus/more_0.yaml:7:1"),
    (("gpus/orphan.yaml", product("lost", 5, parent="archh")), "gpus/orphan.yaml:3:12: unknown entity 'archh'; "
                                                               "did you mean 'arch'?"),
    (("gpus/more_1.yaml", product("p10", 1) + "p11:\n  kind: product\n  facts:\n    sm_cont: 3\n"),
     "gpus/more_1.yaml:10:5: unknown variable 'sm_cont'; did you mean 'sm_count'?"),
])
def test_an_error_is_reported_warm_as_cold(kb, tmp_path, edit, expected):
    cache = tmp_path / "cache"
    load(kb, cache)
    name, text = edit
    (kb / name).write_text(text)
    messages = []
    for _ in range(2):  # the first load after the edit, then again with the index as that load left it
        with pytest.raises(KBErrors) as info:
            load(kb, cache)
        messages.append([str(e) for e in info.value.errors])
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([kb], default=False)
    assert messages == [[expected]] * 2 and [str(e) for e in info.value.errors] == [expected]


def test_a_file_edited_behind_an_unchanged_size_and_time_is_read_as_it_is(kb, tmp_path):
    cache = tmp_path / "cache"
    load(kb, cache)
    edit_behind_size_and_time(kb / "gpus" / "more_2.yaml", "sm_count: 21", "sm_count: 29")
    assert load(kb, cache).model.entities["p20"].facts["sm_count"].value == 29


def test_a_new_file_is_read_and_the_others_are_not(kb, tmp_path, reads):
    cache = tmp_path / "cache"
    load(kb, cache)
    (kb / "gpus" / "more_3.yaml").write_text(product("p30", 31))
    reads.clear()
    model = load(kb, cache).model
    assert reads == ["more_3.yaml"] and model.entities.built == 1 and len(model.entities) == 15
    assert len(list((cache / "index").iterdir())) == 1


def test_a_rule_change_rebuilds_every_file(kb, tmp_path, reads):
    cache = tmp_path / "cache"
    load(kb, cache)
    rules = kb / "rules" / "compute.yaml"
    rules.write_text(rules.read_text() + "\n")
    reads.clear()
    assert load(kb, cache).model.entities.built == 14
    assert sorted(set(reads)) == ["chips.yaml", "more_0.yaml", "more_1.yaml", "more_2.yaml"]


def test_a_tampered_index_or_entity_cache_is_a_miss(kb, tmp_path):
    cache = tmp_path / "cache"
    cold = load(kb, cache).model
    for entry in [*(cache / "index").iterdir(), *(cache / "entities").iterdir()]:
        header, _, payload = entry.read_text().partition("\n")
        entry.write_text(header + "\n" + payload.replace("21", "99").replace("arch", "chip"))
    warm = load(kb, cache).model
    assert warm == cold and warm.entities["p20"].facts["sm_count"].value == 21


def test_a_forged_entity_cache_entry_of_the_wrong_types_is_a_miss(kb, tmp_path):
    cache = CacheDirectory.open(tmp_path / "cache")
    entity = load_model([kb], cache=cache)[0].entities["p00"]
    file = entity.where.file
    store_entities(cache, "x" * 64, file, [entity])
    assert cached_entities(cache, "x" * 64, file) == [entity]
    assert cached_entities(cache, "y" * 64, file) is None  # made from something else
    (entry,) = [p for p in (cache / "entities").iterdir() if "x" * 64 in p.read_text()]
    payload = json.loads(entry.read_text().partition("\n")[2])
    assert payload[0][:3] == ["Entity", "p00", "product"]
    payload[0][2] = 7  # the kind as a number, under an HMAC that matches (made with the secret)
    forged = json.dumps(payload, separators=(",", ":"))
    entry.write_text(json.dumps({"source": "x" * 64, "hmac": cache.sign("x" * 64, forged)}) + "\n" + forged)
    assert cached_entities(cache, "x" * 64, file) is None


def test_without_a_cache_every_entity_is_built_at_once(kb):
    model = load_model([kb])[0]
    assert model.entities.built == len(model.entities) == 14


def test_a_datasheet_file_extends_a_lazily_loaded_entity(kb, tmp_path):
    cache = CacheDirectory.open(tmp_path / "cache")
    load(kb, cache)
    model, units = load_model([kb], cache=cache)
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text(product("mine", 7, parent="p13"))
    assert loader.load_entities(sheet, model, units, cache=cache)["mine"].extends == ("p13",)
    sheet.write_text(product("mine", 7, parent="p99"))
    with pytest.raises(KBErrors, match="unknown entity 'p99'"):
        loader.load_entities(sheet, model, units, cache=cache)
    assert model.entities.built == 0


def test_check_reads_every_file_even_behind_an_unchanged_size_and_time(kb, tmp_path):
    cache = tmp_path / "cache"
    load(kb, cache)
    edit_behind_size_and_time(kb / "gpus" / "more_2.yaml", "sm_count: 21", "sm_coun: 210")
    assert load(kb, cache).model.entities.built == 0  # a question about another product does not look
    report = KnowledgeBase.check([kb], default=False, cache=cache)
    assert not report.ok and [str(e) for e in report.errors] == [
        "gpus/more_2.yaml:5:5: unknown variable 'sm_coun'; did you mean 'sm_count'?"]
