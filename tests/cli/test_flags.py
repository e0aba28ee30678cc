"""hwkb.cli.flags: what every command shares: the KB it loads (caches on), the one JSON form, the error lines."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from hwkb.cli import flags
from hwkb.errors import KBErrors, QueryError
from hwkb.kb import KnowledgeBase


def test_the_cli_loads_the_kb_with_the_cache_directory(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(KnowledgeBase, "load", lambda *a, **kw: calls.append((a, kw)))
    flags.load_kb(argparse.Namespace(kb=["mine"], no_default_kb=True))
    assert calls == [((["mine"],), {"default": False, "cache": True})]


def test_the_cache_directory_is_the_users_unless_turned_off(monkeypatch, tmp_path):
    tmp_path.chmod(0o700)  # a cache is used only if its directory is the user's alone
    monkeypatch.setenv("HWKB_CACHE_DIR", str(tmp_path))
    assert KnowledgeBase.load(cache=True).cache.path == Path(tmp_path)
    monkeypatch.setenv("HWKB_CACHE_DIR", "off")
    assert KnowledgeBase.load(cache=True).cache is None


def test_one_json_form():
    text = flags.json_text({"a": (1, 2), "b": frozenset(), "c": QueryError("x")})
    assert text.startswith('{\n  "a": [\n    1,') and text.endswith("}\n")
    assert json.loads(text) == {"a": [1, 2], "b": [], "c": QueryError("x").to_dict()}
    assert flags.json_text({"a": [1, 2]}, compact=True) == '{"a":[1,2]}\n'


def test_every_error_is_one_line(capsys):
    flags.print_errors(KBErrors([QueryError("first"), QueryError("second", hint="try again")]))
    flags.print_errors(QueryError("third"))
    assert capsys.readouterr().err == "error: first\nerror: second; try again\nerror: third\n"




def test_only_the_console_script_sets_the_collector(capsys):
    """Tests and notebooks call main() hundreds of times: it must leave the collector as it found it."""
    import gc
    import subprocess
    import sys

    from hwkb.cli import main as cli_main
    before = gc.get_threshold()
    assert cli_main.main(["list", "rules", "--json"]) == 0
    assert gc.get_threshold() == before and before != cli_main.GC_THRESHOLDS
    code = ("import gc, sys\nfrom hwkb.cli.main import console\nsys.argv = ['hwkb', 'list', 'rules', '--json']\n"
            "try:\n    console()\nexcept SystemExit:\n    print(gc.get_threshold(), gc.get_freeze_count() == 0, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.strip() == f"{cli_main.GC_THRESHOLDS} True"
