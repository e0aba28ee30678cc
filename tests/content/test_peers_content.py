"""The peer formats against the real KB: every mapped key and name-table entity exists, every field's unit fits
its variable, and ``hwkb export --to FORMAT --gpu h100-sxm`` round-trips through ``hwkb audit --from``."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from hwkb.audit.findings import Verdict
from hwkb.definitions.model import split_key
from hwkb.formats.peers.entries import DTYPES, NOT_A_PRODUCT
from hwkb.formats.peers.registry import FORMATS
from hwkb.render.finding_words import peer_hint_text, provenance_text


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_field_maps_onto_a_kb_variable_in_a_fitting_unit(real_kb, fmt):
    for field in FORMATS[fmt].fields:
        keys = {field.key.replace("{dtype}", p) for p in set(DTYPES.values())} if field.dtype else {field.key}
        for key in keys:
            variable = real_kb.model.check_key(key)
            assert real_kb.units.dimensions(field.unit) == real_kb.units.dimensions(variable.unit), (fmt, field.field)
        assert field.consumed and split_key(field.key)[0] in real_kb.model.variables


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_name_table_entry_is_a_kb_entity(real_kb, fmt):
    for name, match in FORMATS[fmt].names.items():
        assert match.entity == NOT_A_PRODUCT or match.entity in real_kb.model.entities, (fmt, name)
        for key in match.skip:
            real_kb.model.check_key(key)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_h100_sxm_round_trips_through_every_format(real_kb, tmp_path, fmt):
    export = real_kb.export(fmt, "h100-sxm")
    stem = export.name if fmt == "aiconfigurator" else "export"
    path = tmp_path / f"{stem}{FORMATS[fmt].suffix}"
    path.write_text(export.text)
    (entry,) = real_kb.audit_peer_files(fmt, [path]).entries
    assert entry.product == "h100-sxm" and len(entry.comparisons) >= 2
    assert all(c.status != Verdict.INCONSISTENT for c in entry.comparisons), [c.field for c in entry.comparisons]


def test_the_llm_analysis_round_trip_through_the_command_line(capsys, tmp_path):
    path = tmp_path / "h100.json"
    code, _, err = run_cli(capsys, "export", "--to", "llm-analysis", "--gpu", "h100-sxm", "--output", str(path))
    assert code == 0 and json.loads(path.read_text())["peak_fp16_TFLOPS"] == 989.4
    code, out, _ = run_cli(capsys, "audit", "--from", "llm-analysis", str(path))
    # NVIDIA's 80 GB of HBM is 80 GiB (JEDEC), and llm-analysis reads mem_per_GPU_in_GB x 1024**3: it goes out as 80
    assert json.loads(path.read_text())["mem_per_GPU_in_GB"] == 80
    assert code == 0 and "vs KB h100-sxm: consistent" in out and "0 inconsistent" in out


def test_an_fp8_peak_under_the_fp16_key_is_named_with_nvidias_datasheet(real_kb, tmp_path):
    path = tmp_path / "h100-sxm-80gb.json"
    path.write_text(json.dumps({"name": "h100-sxm-80gb", "peak_fp16_TFLOPS": 1979, "hbm_bandwidth_in_GB_per_sec": 3350}))
    (entry,) = real_kb.audit_peer_files("llm-analysis", [path]).entries
    (bad,) = [c for c in entry.comparisons if c.status == Verdict.INCONSISTENT]
    assert bad.key == "tc_peak[fp16]" and "nvidia-h100-datasheet, dense" in provenance_text(bad.kb_source)
    assert ("equals the KB's tc_peak[fp8] (1979 TFLOPS): looks like the fp8 figure under the fp16 key"
            in peer_hint_text(bad.hint))


def test_a_genz_export_leaves_out_an_icn_the_kb_cannot_settle_and_says_what_genz_then_takes(real_kb, tmp_path):
    export = real_kb.export("genz", "mi250x")
    (system,) = json.loads(export.text).values()
    assert "ICN" not in system and None not in system.values()
    assert system["comment"] == ("ICN left out: the KB cannot settle interconnect_bandwidth; GenZ takes its default "
                                 "ICN 150 (GiB/s, LLM_inference/utils.py:94) in collectives at tensor or expert "
                                 "parallel > 1; not a KB figure")
    path = tmp_path / "mi250x.json"
    path.write_text(export.text)
    (entry,) = real_kb.audit_peer_files("genz", [path]).entries  # the comment is a key hwkb's reader knows
    assert entry.product == "mi250x" and all(c.status != Verdict.INCONSISTENT for c in entry.comparisons)
