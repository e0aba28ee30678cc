"""hwkb.cli.flags: what every command shares: the KB it loads (caches on), the one JSON form, the error lines."""
from __future__ import annotations

import argparse
import gc
import json
from pathlib import Path

import pytest

from hwkb.cli import flags
from hwkb.errors import KBErrors, QueryError
from hwkb.kb import KnowledgeBase


def test_the_cli_loads_the_kb_with_the_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("HWKB_CACHE_DIR", str(tmp_path))
    calls = []
    monkeypatch.setattr(KnowledgeBase, "load", lambda *a, **kw: calls.append((a, kw)))
    flags.load_kb(argparse.Namespace(kb=["mine"], no_default_kb=True))
    assert calls == [((["mine"],), {"default": False, "cache": Path(tmp_path)})]
    monkeypatch.setenv("HWKB_CACHE_DIR", "off")
    flags.load_kb(argparse.Namespace(kb=[], no_default_kb=False))
    assert calls[-1][1] == {"default": True, "cache": None}


def test_one_json_form():
    text = flags.json_text({"a": (1, 2), "b": frozenset(), "c": QueryError("x")})
    assert text.startswith('{\n  "a": [\n    1,') and text.endswith("}\n")
    assert json.loads(text) == {"a": [1, 2], "b": [], "c": QueryError("x").to_dict()}
    assert flags.json_text({"a": [1, 2]}, compact=True) == '{"a":[1,2]}\n'


def test_every_error_is_one_line(capsys):
    flags.print_errors(KBErrors([QueryError("first"), QueryError("second", hint="try again")]))
    flags.print_errors(QueryError("third"))
    assert capsys.readouterr().err == "error: first\nerror: second; try again\nerror: third\n"


def test_few_collections_raises_the_threshold_for_the_stream_and_restores_it():
    before = gc.get_threshold()
    with flags.few_collections(threshold=before[0] + 12345):
        assert gc.get_threshold() == (before[0] + 12345, *before[1:])
        with pytest.raises(KeyError):
            with flags.few_collections(threshold=1):  # never lowers it
                assert gc.get_threshold()[0] == before[0] + 12345
                raise KeyError
        assert gc.get_threshold()[0] == before[0] + 12345
    assert gc.get_threshold() == before
