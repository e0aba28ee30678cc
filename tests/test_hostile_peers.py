"""Hostile peer files: each case of issue 22 through ``hwkb audit --from FORMAT FILE`` is one ``error:`` line or a
correct audit, never a traceback, and nothing a file holds reaches the terminal raw.

Each file is made here (several cannot be stored as fixtures: a lone surrogate, control characters in a file
name) from the test product of tests/fixtures/peers; each message is asserted exactly.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli

PEERS = FIXTURES / "peers"
KB = ("--no-default-kb", "--kb", str(PEERS / "kb"))
AIC = (PEERS / "aiconfigurator" / "gpu-x.yaml").read_text()
COMPASS = json.loads((PEERS / "llmcompass" / "gpu-x.json").read_text())
EPOCH_HEADER = "Hardware name,Manufacturer,Type,Tensor-FP16/BF16 performance (FLOP/s)"
CONTROL_HINT = "text is shown on terminals as it is; write it as one line of plain text"


def compass(**core_and_chiplet) -> str:
    document = copy.deepcopy(COMPASS)
    chiplet = document["device"]["compute_chiplet"]
    for key, value in core_and_chiplet.items():
        if key in chiplet:
            chiplet[key] = value
        else:
            chiplet["core"]["systolic_array"][key] = value
    return json.dumps(document)


#: case -> (format, file name, text, the error line after "error: NAME:")
CASES = {
    "llm-analysis 5,000-digit integer": (
        "llm-analysis", "gpu-x.json", '{"name": "gpu-x", "peak_fp16_TFLOPS": ' + "9" * 5000 + "}",
        "1:39: 99999999999999999999...: number length 5000 characters exceeds the limit of 200 characters"),
    "genz 5,000-digit integer": (
        "genz", "systems.json", '{"gpu-x": {"Flops": ' + "9" * 5000 + "}}",
        "1:21: 99999999999999999999...: number length 5000 characters exceeds the limit of 200 characters"),
    "lone surrogate in a name": (
        "llm-analysis", "gpu-x.json", '{"name": "gpu-\\ud800x", "peak_fp16_TFLOPS": 204.8}',
        "1:10: a text holds a lone surrogate '\\ud800', which is not a character: 'gpu-\\ud800x'; write text as "
        "UTF-8"),
    "lone surrogate in a key": (
        "genz", "systems.json", '{"gpu-\\udfffx": {"Flops": 409.6}}',
        "1:2: a key holds a lone surrogate '\\udfff', which is not a character: 'gpu-\\udfffx'; write text as UTF-8"),
    "aiconfigurator node: 5": (
        "aiconfigurator", "gpu-x.yaml", AIC.split("node:")[0] + "node: 5\n",
        "10:7: 'node' must be a mapping of the node's figures; see aiconfigurator's systems/h100_sxm.yaml"),
    "genz control sequences in a system name": (
        "genz", "systems.json", json.dumps({"gpu-x\x1b]0;pwned\x07\x1b[2J\nforged line": {"Flops": 409.6}}),
        "1:2: a key holds a control character: 'gpu-x\\x1b]0;pwned\\x07\\x1b[2J\\nforged line'; " + CONTROL_HINT),
    "llmcompass product beyond the magnitude limit": (
        "llmcompass", "gpu-x.json", compass(array_width=1e29, array_height=1e29, mac_per_cycle=4e29),
        "1:574: systolic_array, the product of array_height x array_width x mac_per_cycle x sublane_count: "
        "magnitude 1.6e+88 exceeds the limit of 1e+30"),
    "llmcompass core_count: 100.5": (
        "llmcompass", "gpu-x.json", compass(core_count=100.5),
        "1:460: device.compute_chiplet.core_count is a count: 100.5 is not a whole number"),
    "epoch Arabic-Indic digits": (
        "epoch", "ml_hardware.csv", f"{EPOCH_HEADER}\ngpu-x,Test,GPU,\u0662\u0660\u0664\u0668e11\n",
        "2: Tensor-FP16/BF16 performance (FLOP/s) must be a number, not '\u0662\u0660\u0664\u0668e11'"),
    "epoch duplicated column": (
        "epoch", "ml_hardware.csv", f"{EPOCH_HEADER},Tensor-FP16/BF16 performance (FLOP/s)\ngpu-x,Test,GPU,1e12,"
                                    "204800000000000.0\n",
        "1: column 'Tensor-FP16/BF16 performance (FLOP/s)' is given twice; a CSV names each column once; which of "
        "the two is meant cannot be told"),
    "epoch a column under its old and its new name": (  # read as one column, the last silently won
        "epoch", "ml_hardware.csv", "Hardware name,Memory (bytes),Memory size per board (Byte)\ngpu-x,8e10,4e10\n",
        "1: column 'Memory (bytes)' is 'Memory size per board (Byte)' renamed, and the file gives both; a CSV names "
        "each column once; which of the two is meant cannot be told"),
    "epoch a million columns": (  # took 48 s (each column checked against all before it, then named unread)
        "epoch", "ml_hardware.csv", f"{EPOCH_HEADER}," + ",".join(f"c{i}" for i in range(10**6 - 4)) + "\n"
                                    + "gpu-x,Test,GPU,1e12" + ",1" * (10**6 - 4) + "\n",
        "1: CSV columns 1000000 exceeds the limit of 1000; a hardware table names each figure once; split the file "
        "or drop the columns no reader maps"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_peer_file_is_one_error_line(case, capsys, tmp_path, monkeypatch):
    fmt, name, text, message = CASES[case]
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text, encoding="utf-8", errors="surrogatepass")
    code, out, err = run_cli(capsys, "audit", "--from", fmt, name, *KB)
    assert (code, out, err) == (2, "", f"error: {name}:{message}\n")


def audit(capsys, fmt: str, name: str, *more) -> tuple[int, str, str]:
    return run_cli(capsys, "audit", "--from", fmt, name, *KB, *more)


def test_a_byte_order_mark_is_accepted(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("ml_hardware.csv").write_text(f"\ufeff{EPOCH_HEADER}\ngpu-x,Test,GPU,204800000000000.0\n")
    code, out, err = audit(capsys, "epoch", "ml_hardware.csv")
    assert (code, err) == (0, "") and "1 consistent" in out


def test_yaml_merge_keys_are_merged_as_aiconfigurators_reader_merges_them(capsys, tmp_path, monkeypatch):
    """PyYAML's SafeLoader (aiconfigurator sdk/perf_database.py get_database): the mapping's own keys win, then
    the merged mappings in order."""
    monkeypatch.chdir(tmp_path)
    Path("gpu-x.yaml").write_text("base: &base\n  mem_bw: 1000000000000\n  power: 300\nother: &other\n"
                                  "  mem_bw: 7\n  bfloat16_tc_flops: 999800000000000\n"
                                  "gpu:\n  <<: [*base, *other]\n  power: 400\n")
    code, out, _ = audit(capsys, "aiconfigurator", "gpu-x.yaml", "--json")
    checks = {c["variable"]: (c["written"], c["status"]) for e in json.loads(out)["catalogue"]
              for c in e["comparisons"]}
    assert code == 1
    assert checks == {"memory_bandwidth": ("1000000000000 (B/s)", "inconsistent"),
                      "tc_peak[bf16]": ("999800000000000 (FLOPS)", "inconsistent"), "tdp": ("400 (W)", "consistent")}


def test_a_file_name_with_control_characters_is_printed_escaped(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "gpu-x\x1b]0;pwned\x07\nforged.yaml"
    Path(name).write_text(AIC)
    code, out, err = audit(capsys, "aiconfigurator", name)
    assert code in (0, 1) and err == ""
    assert "\x1b" not in out and "\x07" not in out and "forged" not in out.replace("\\nforged", "")
    assert out.startswith("aiconfigurator: gpu-x\\x1b]0;pwned\\x07\\nforged (gpu-x\\x1b]0;pwned\\x07\\nforged.yaml:2:1)")


def test_markdown_escapes_html_and_control_characters(capsys, tmp_path, monkeypatch):
    kb = tmp_path / "kb"
    (kb / "gpus").mkdir(parents=True)
    (kb / "gpus" / "x.yaml").write_text(
        "evil:\n  kind: product\n  extends: gpu-x\n  name: '<img src=x onerror=alert(1)> | &'\n"
        "  facts:\n    tdp: {value: 400 W, source: '<script>alert(2)</script>'}\n")
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "evil", "--format", "markdown", *KB, "--kb", str(kb))
    assert code in (0, 1)
    assert "<img" not in out and "<script>" not in out
    assert out.startswith("# &lt;img src=x onerror=alert(1)&gt; \\| &amp; (`evil`)")
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in out
