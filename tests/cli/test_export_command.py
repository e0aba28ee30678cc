"""``hwkb export --to FORMAT --gpu ID`` and ``hwkb audit --from FORMAT FILE ...`` on the peers' test KB:
export then audit round-trips with no finding, the JSON validates, bad input is one error line."""
from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli
from hwkb.cli import flags
from hwkb.formats.peers.registry import FORMATS
from json_schema_subset import errors

PEERS = FIXTURES / "peers"
KB = ["--no-default-kb", "--kb", str(PEERS / "kb")]
SCHEMA = json.loads(flags.SCHEMA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_export_then_audit_round_trips_with_no_finding(capsys, tmp_path, fmt):
    path = tmp_path / f"gpu-x{FORMATS[fmt].suffix}"
    code, out, err = run_cli(capsys, "export", "--to", fmt, "--gpu", "gpu-x", "--output", str(path), *KB)
    assert code == 0 and out.startswith(f"wrote {path}: {fmt} layout of gpu-x")
    code, out, err = run_cli(capsys, "audit", "--from", fmt, str(path), *KB, "--json")
    (entry,) = json.loads(out)["catalogue"]
    assert code == 0 and entry["product"] == "gpu-x" and len(entry["comparisons"]) >= 3
    assert all(c["status"] != "inconsistent" for c in entry["comparisons"]) and not entry["unsettled"]


def test_export_writes_the_layout_to_stdout_and_notes_to_stderr(capsys):
    code, out, err = run_cli(capsys, "export", "--to", "llm-analysis", "--gpu", "gpu-x", *KB)
    data = json.loads(out)
    assert code == 0 and data["name"] == "hwkb-gpu-x" and data["peak_fp16_TFLOPS"] == 204.8
    assert data["hbm_bandwidth_in_GB_per_sec"] == 2000 and data["intra_node_bandwidth_in_GB_per_sec"] == 300
    assert data["mem_per_GPU_in_GB"] == pytest.approx(80e9 / 2 ** 30, abs=5e-5)  # the tool reads GiB
    assert "note: intra_node_min_message_latency" in err and all(line.startswith("note: ") for line in err.splitlines())


def test_a_field_the_kb_cannot_settle_is_left_out_with_what_the_tool_then_does_and_named(capsys):
    code, out, err = run_cli(capsys, "export", "--to", "aiconfigurator", "--gpu", "gpu-x", *KB)
    assert code == 0 and "  bfloat16_tc_flops: 204800000000000" in out and "null" not in out
    assert ("  # fp4_tc_flops left out (the KB cannot settle tc_peak[fp4]); AIConfigurator reads no key as no such "
            "hardware (sdk/common.py:1329-1366)") in out
    assert "  num_gpus_per_node: 8  # AIConfigurator's figure in its shipped systems/*.yaml" in out
    assert "note: gpu.fp4_tc_flops: the KB cannot settle tc_peak[fp4] for gpu-x" in err


@pytest.mark.parametrize("argv", [
    ["export", "--to", "llm-analysis", "--gpu", "gpu-x"],
    ["audit", "--from", "genz", str(PEERS / "genz" / "planted.json")],
    ["audit", "--from", "epoch", str(PEERS / "epoch" / "ml_hardware.csv")],
])
def test_the_json_validates_against_the_schema(capsys, argv):
    code, out, err = run_cli(capsys, *argv, *KB, "--json")
    doc = json.loads(out)
    assert errors(doc, SCHEMA) == [] and doc["command"] == argv[0]
    if argv[0] == "export":
        assert doc["status"] == "partial" and doc["fields"][0]["source"].startswith(("gpu-x", "arch-x", "derived"))
        assert json.loads(doc["text"])["peak_fp16_TFLOPS"] == 204.8
    else:
        assert "catalogue" in doc and doc["format"] == argv[2] and code == (1 if "planted" in argv[3] else 0)


@pytest.mark.parametrize("argv, message", [
    (["export", "--to", "llm-analysis"], "export needs --gpu ID"),
    (["export", "--to", "nope", "--gpu", "gpu-x"], "invalid choice: 'nope'"),
    (["export", "--to", "genz", "--gpu", "gpu-y"], "unknown entity 'gpu-y'"),
    (["audit", "--from", "genz"], "--from genz needs at least one FILE"),
    (["audit", str(PEERS / "genz" / "planted.json")], "FILE arguments need --from FORMAT"),
    (["audit", "--from", "genz", "--gpu", "gpu-x", "x.json"], "--from audits files on their own"),
    (["audit", "--from", "genz", "--format", "csv", "x.json"], "--from has no CSV form"),
    (["audit", "--from", "genz", "missing.json"], "missing.json: no such file"),
])
def test_bad_input_is_one_error_line(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv, *KB)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_a_bad_file_names_its_line(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"gpu-x": {"Flops": 1,\n  "Memory_BW": "fast"}}')
    code, out, err = run_cli(capsys, "audit", "--from", "genz", str(path), *KB)
    assert code == 2 and err.startswith(f"error: {path}:2:16: Memory_BW must be a number")


def test_audit_from_writes_its_report_to_a_file(capsys, tmp_path):
    report = tmp_path / "report.txt"
    code, out, err = run_cli(capsys, "audit", "--from", "genz", str(PEERS / "genz" / "planted.json"),
                             "--output", str(report), *KB)
    assert code == 1 and out.startswith(f"wrote {report}: genz: 1 entry in 1 file, 1 with a figure in doubt")
    assert "looks like a sparse figure under a dense key" in report.read_text()


def test_completion_offers_the_formats(capsys):
    code, out, err = run_cli(capsys, "completion", "bash")
    assert code == 0 and '"export --to") _hwkb_offer "" "$cur" < <(printf "%s\\n" llm-analysis genz llmcompass aiconfigurator epoch)' in out
    assert '"audit --from")' in out
