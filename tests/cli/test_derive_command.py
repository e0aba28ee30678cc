"""hwkb.cli.derive: every value derivable but not stated, and --write."""
from __future__ import annotations

from conftest import TINY, run_cli, run_cli_json


run = run_cli
run_json = run_cli_json


def test_derive_lists_values_not_stated(capsys):
    code, doc, _ = run_json(capsys, "derive", "--gpu", "a100")
    assert code == 0 and doc["entity"] == "a100"
    derived = {d["variable"]: d for d in doc["derived"]}
    assert "clock_tc" in derived and "sm_count" not in derived
    assert all({"variable", "value", "unit", "derivation"} <= set(d) for d in doc["derived"])


def test_derive_write_is_refused_over_an_existing_file(capsys, tmp_path):
    target = tmp_path / "a100-derived.yaml"
    target.write_text("keep me\n")
    code, _, err = run(capsys, "derive", "--gpu", "a100", "--write", str(target))
    assert code == 2 and "--force" in err
    assert target.read_text() == "keep me\n"


def test_derive_text_and_write(capsys, tmp_path):
    target = tmp_path / "chip-derived.yaml"
    code, out, _ = run(capsys, "derive", "--gpu", "chip", "--kb", str(TINY), "--no-default-kb", "--write", str(target))
    assert code == 0 and out.splitlines() == ["clock                    1 GHz         via peak_law[fp16]",
                                              "fma_rate[bf16]        1024 FMA/cycle   via bf16_is_fp16",
                                              "peak[bf16]           204.8 TFLOPS      via peak_law[bf16]"]
    assert "chip-derived:\n  kind: product\n  extends: chip\n" in target.read_text()


def test_derive_needs_a_gpu(capsys):
    code, out, err = run(capsys, "derive", "--kb", str(TINY), "--no-default-kb")
    assert (code, out) == (2, "") and err == "error: derive needs --gpu ID; see 'hwkb list entities'\n"
