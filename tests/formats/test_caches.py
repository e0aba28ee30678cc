"""The disk caches: a warm load sees exactly what a cold one sees, a bad entry is only a miss, writes are atomic,
and nothing touches the disk unless a cache directory is given (hwkb.formats.caches, hwkb.formats.yaml_nodes)."""
from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import BAD, TINY, build_kb
from hwkb import KnowledgeBase
from hwkb.errors import KBErrors
from hwkb.formats import caches
from hwkb.formats.caches import CacheDirectory, SolutionCache, cache_directory
from hwkb.formats.load import load_model
from hwkb.formats.yaml_nodes import _flat, cached_tree, store_tree, tree_entry

TEXT = "a: {b: 1.5, c: 'x y'}\nlist: [1, two]\nblock:\n  - {value: 2 GHz}\n"


@pytest.fixture
def cache_dir(tmp_path):
    return tmp_path / "cache"


@pytest.fixture
def cache(cache_dir):
    return CacheDirectory.open(cache_dir)


def compose(text: str):
    return YAML(typ="safe", pure=True).compose(text)


# ---------------------------------------------------------------- composed YAML trees

def test_a_stored_tree_comes_back_node_for_node(cache, cache_dir):
    root = compose(TEXT)
    assert cached_tree(TEXT, "f.yaml", cache) is None
    store_tree(TEXT, root, cache)
    again = cached_tree(TEXT, "f.yaml", cache)
    assert _flat(again) == _flat(root)
    assert cached_tree(TEXT + "\n# edited\n", "f.yaml", cache) is None
    assert [p.parent.name for p in cache_dir.rglob("*.json")] == ["nodes"]


def test_a_load_is_the_same_warm_and_cold(cache_dir):
    cold, _ = load_model([TINY], cache=cache_dir)
    assert len(list((cache_dir / "nodes").iterdir())) == 2
    warm, _ = load_model([TINY], cache=cache_dir)
    assert warm == cold


def test_errors_name_the_same_places_warm_and_cold(cache_dir, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    monkeypatch.chdir(kb)

    def messages():
        with pytest.raises(KBErrors) as info:
            KnowledgeBase.load([kb], default=False, cache=cache_dir)
        return [str(e) for e in info.value.errors]

    cold = messages()
    assert list((cache_dir / "nodes").iterdir())
    assert messages() == cold and len(cold) == 4


@pytest.mark.parametrize("payload", ["not json", json.dumps(["s", 3, 4]), json.dumps(["x", "t", [], None, 0, 0]),
                                     json.dumps(["s", "tag", ["list"], None, 0, 0])])
def test_a_tampered_entry_is_a_miss(cache, payload):
    path = tree_entry(TEXT, cache)
    path.parent.mkdir(parents=True)
    path.write_text(payload)
    assert cached_tree(TEXT, "f.yaml", cache) is None


def test_no_directory_means_no_cache():
    assert tree_entry(TEXT, None) is None
    store_tree(TEXT, compose(TEXT), None)
    assert cached_tree(TEXT, "f.yaml", None) is None


def test_an_unwritable_cache_is_skipped(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert caches.trusted(blocker) is None and caches.trusted(blocker) is None
    assert capsys.readouterr().err == (f"warning: {blocker}: cannot use it as a cache directory: File exists "
                                         "(running without a cache)\n")
    cache = CacheDirectory.open(tmp_path / "cache")
    (tmp_path / "cache" / "nodes").write_text("not a directory")
    store_tree(TEXT, compose(TEXT), cache)
    assert cached_tree(TEXT, "f.yaml", cache) is None


# ---------------------------------------------------------------- solved directions

def test_solutions_are_kept_in_memory_without_a_path():
    cache = SolutionCache()
    key = SolutionCache.key("x0 - x1", 0)
    assert cache.get(key) is None
    cache.put(key, "x1")
    assert cache.get(key) == "x1" and cache.path is None


def test_solutions_survive_on_disk_written_atomically(cache_dir):
    cache = SolutionCache.in_directory(cache_dir)
    assert cache.path == cache_dir / "solutions.json"
    cache.put("k", "x1 * 2")
    assert json.loads(cache.path.read_text())["k"]["text"] == "x1 * 2"  # with its checksum beside it
    assert sorted(p.name for p in cache_dir.iterdir()) == ["secret", "solutions.json"]  # no temporary file left
    assert SolutionCache.in_directory(cache_dir).get("k") == "x1 * 2"
    assert SolutionCache.in_directory(None).path is None


@pytest.mark.parametrize("payload", ["not json", "[1, 2]"])
def test_a_tampered_solution_file_is_ignored(cache_dir, payload):
    CacheDirectory.open(cache_dir)
    (cache_dir / "solutions.json").write_text(payload)
    cache = SolutionCache.in_directory(cache_dir)
    assert cache.get("k") is None
    cache.put("k", "x1")
    assert list(json.loads((cache_dir / "solutions.json").read_text())) == ["k"]
    assert SolutionCache.in_directory(cache_dir).get("k") == "x1"


def test_a_solution_entry_that_does_not_match_its_hmac_is_a_miss(cache_dir):
    SolutionCache.in_directory(cache_dir).put("k", "x1 * 2")
    stored = json.loads((cache_dir / "solutions.json").read_text())
    assert set(stored["k"]) == {"text", "hmac"}
    stored["k"]["text"] = "exp(exp(exp(x1)))"
    (cache_dir / "solutions.json").write_text(json.dumps({**stored, "old": "x1"}))
    assert (SolutionCache.in_directory(cache_dir).get("k"), SolutionCache.in_directory(cache_dir).get("old")) == (
        None, None)


def test_an_unwritable_solution_file_is_skipped(tmp_path):
    CacheDirectory.open(tmp_path / "cache")
    (tmp_path / "cache" / "solutions.json").mkdir()
    cache = SolutionCache.in_directory(tmp_path / "cache")
    cache.put("k", "x1")
    assert cache.get("k") == "x1"


def test_different_keys_for_templates_and_positions():
    keys = {SolutionCache.key("x0 - x1", 0), SolutionCache.key("x0 - x1", 1), SolutionCache.key("x0 - 2*x1", 0)}
    assert len(keys) == 3


# ---------------------------------------------------------------- caches are a parameter

def test_a_knowledge_base_uses_the_directory_it_is_given(cache_dir, tiny_kb):
    kb = KnowledgeBase.load([TINY], default=False, cache=cache_dir)
    kb.solve("clock", gpu="chip")  # solving a direction fills the solution cache
    assert (cache_dir / "solutions.json").is_file() and list((cache_dir / "nodes").iterdir())
    again = KnowledgeBase.load([TINY], default=False, cache=cache_dir)
    assert again.model == kb.model == tiny_kb.model
    assert again.solve("clock", gpu="chip").magnitude == kb.solve("clock", gpu="chip").magnitude


def test_without_a_directory_nothing_touches_the_disk(tmp_path, monkeypatch):
    """No environment variable below the CLI: a load without ``cache`` writes nowhere, wherever HWKB_CACHE_DIR points."""
    monkeypatch.setenv("HWKB_CACHE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    KnowledgeBase.load([TINY], default=False).solve("clock", gpu="chip")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("setting, xdg, expected", [
    ("some/dir", None, "some/dir"), ("off", "xdg", None), (None, "xdg", "xdg/hwkb"), ("", "xdg", "xdg/hwkb")])
def test_cache_directory_for_the_cli(monkeypatch, tmp_path, setting, xdg, expected):
    monkeypatch.chdir(tmp_path)
    for name, value in (("HWKB_CACHE_DIR", setting), ("XDG_CACHE_HOME", xdg)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    found = cache_directory()
    assert (None if found is None else found.path.as_posix()) == expected


def test_cache_directory_defaults_to_the_home_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("HWKB_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_directory().path == tmp_path / ".cache" / "hwkb"


def test_module_surface():
    assert sorted(caches.__all__) == ["CacheDirectory", "CacheRefused", "SolutionCache", "UNSOLVABLE",
                                      "cache_directory", "trusted"]
