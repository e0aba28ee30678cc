"""hwkb.formats.node_cache: a warm load sees exactly what a cold one sees, and a bad entry is only a miss."""
from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import BAD, build_kb, load_errors
from hwkb.formats.load import load_model
from hwkb.formats.node_cache import _entry, _flat, cached_tree, store_tree
from hwkb.formats.resources import default_kb_dirs

TEXT = "a: {b: 1.5, c: 'x y'}\nlist: [1, two]\nblock:\n  - {value: 2 GHz}\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HWKB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_stored_tree_comes_back_node_for_node(cache_dir):
    root = YAML(typ="safe", pure=True).compose(TEXT)
    assert cached_tree(TEXT, "f.yaml") is None
    store_tree(TEXT, root)
    again = cached_tree(TEXT, "f.yaml")
    assert _flat(again) == _flat(root)
    assert cached_tree(TEXT + "\n# edited\n", "f.yaml") is None


def test_the_real_kb_loads_the_same_warm_and_cold(cache_dir):
    cold, _ = load_model(default_kb_dirs())
    assert list((cache_dir / "nodes").iterdir())
    warm, _ = load_model(default_kb_dirs())
    assert warm == cold


def test_errors_name_the_same_places_warm_and_cold(cache_dir, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    monkeypatch.chdir(kb)
    assert load_errors(kb) == load_errors(kb)


@pytest.mark.parametrize("payload", ["not json", json.dumps(["s", 3, 4]), json.dumps(["x", "t", [], None, 0, 0]),
                                     json.dumps(["s", "tag", ["list"], None, 0, 0])])
def test_a_tampered_entry_is_a_miss(cache_dir, payload):
    path = _entry(TEXT)
    path.parent.mkdir(parents=True)
    path.write_text(payload)
    assert cached_tree(TEXT, "f.yaml") is None


def test_off_means_off(monkeypatch):
    monkeypatch.setenv("HWKB_CACHE_DIR", "off")
    store_tree(TEXT, YAML(typ="safe", pure=True).compose(TEXT))
    assert cached_tree(TEXT, "f.yaml") is None
