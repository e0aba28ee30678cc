"""The peers' real files (tests/peers/real/, each folder's README names repository, path and commit), read as they
are and audited against the shipped KB: the findings that stand, the false alarms that went, and the counts."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from hwkb.audit.findings import Verdict
from hwkb.errors import LoadError
from hwkb.formats.peers.documents import read_python_dict
from hwkb.render.finding_words import peer_hint_text

REAL = Path(__file__).resolve().parents[1] / "peers" / "real"
#: each repository's whole config folder, as its README's glob
FOLDERS = {"llm-analysis": "llm-analysis/*.json", "genz": "genz/system_configs.py", "llmcompass": "llmcompass/*.json",
           "aiconfigurator": "aiconfigurator/*.yaml", "epoch": "epoch/*.csv"}
#: entries read, matched to a KB product, named in 'not in the KB:', files skipped
COUNTS = {"llm-analysis": (17, 13, 4, 0), "genz": (13, 12, 1, 0), "llmcompass": (8, 3, 0, 0),
          "aiconfigurator": (14, 13, 1, 1), "epoch": (340, 82, 129, 0)}


def files(fmt: str) -> list[Path]:
    return sorted(REAL.glob(FOLDERS[fmt]))


@pytest.fixture(scope="module")
def audits(real_kb):
    return {fmt: real_kb.audit_peer_files(fmt, files(fmt)) for fmt in FOLDERS}


def finding(audit, entry: str, field: str):
    (c,) = [c for e in audit.entries if e.entry.name == entry for c in e.comparisons if c.field == field]
    return c


@pytest.mark.parametrize("fmt", list(FOLDERS))
def test_every_whole_folder_audits_with_exit_0_or_1(capsys, fmt):
    code, out, err = run_cli(capsys, "audit", "--from", fmt, *map(str, files(fmt)))
    assert code in (0, 1) and err == ""
    assert out.rstrip().splitlines()[-1].startswith(f"{fmt}: ")


@pytest.mark.parametrize("fmt", list(FOLDERS))
def test_the_counts_per_peer(audits, fmt):
    audit = audits[fmt]
    matched = sum(e.product is not None for e in audit.entries)
    assert (len(audit.entries), matched, len(audit.not_in_kb), len(audit.skipped_files)) == COUNTS[fmt]


def test_aiconfigurators_manifest_is_skipped_with_one_line(capsys):
    code, out, _ = run_cli(capsys, "audit", "--from", "aiconfigurator", *map(str, files("aiconfigurator")))
    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert code == 0 and skipped == [
        f"skipped, no hardware description: {REAL / 'aiconfigurator' / 'perf_data_reuse_manifest.yaml'} "
        "(no 'gpu' mapping: not an AIConfigurator system file)"]


def test_the_names_the_kb_lacks_are_one_line(audits):
    assert audits["llm-analysis"].not_in_kb == ("a10g-pcie-24gb", "a6000-48gb", "v100-pcie-16gb", "v100-pcie-32gb")
    assert audits["genz"].not_in_kb == ("B100",) and audits["aiconfigurator"].not_in_kb == ("b60",)
    assert "not in the KB: B100\n" in audits["genz"].render()


def test_epochs_renamed_memory_column_is_read_and_the_old_one_kept(audits):
    by_file = {}
    for e in audits["epoch"].entries:
        if e.entry.name == "NVIDIA H100 SXM5 80GB":
            by_file[Path(e.entry.where.file).name] = e.entry.facts["memory_size"].value
    assert by_file == {"ml_hardware.csv": 80e9, "ml_hardware_2025-12.csv": 80e9}
    unread = audits["epoch"].unread
    assert all("Memory (bytes)" not in keys and "Memory size per board (Byte)" not in keys for keys in unread.values())
    assert "Release price (USD)" in unread[str(REAL / "epoch" / "ml_hardware.csv")]


def test_genz_systems_are_read_from_the_python_module_without_running_it(audits):
    (tpu,) = [e.entry for e in audits["genz"].entries if e.entry.name == "TPUv6"]
    assert tpu.facts["tc_peak[bf16]"].text == "926" and tpu.facts["tc_peak[bf16]"].where.line == 12
    assert tpu.unread == () and "not read in system_configs.py: ICN_LL" in audits["genz"].render()


@pytest.mark.parametrize("value, shown", [("__import__('os').getcwd()", "__import__('os').getcwd()"),
                                          ("2 * 989", "2 * 989"), ("FLOPS", "FLOPS")])
def test_a_genz_value_that_is_not_a_literal_is_refused_at_its_line(tmp_path, value, shown):
    path = tmp_path / "system_configs.py"
    path.write_text(f"system_configs = {{\n    'H100_GPU': {{'Flops': {value}, 'Memory_BW': 3400}},\n}}\n")
    with pytest.raises(LoadError) as info:
        read_python_dict(path, "system_configs")
    assert str(info.value) == (f"{path}:2:27: {shown!r} is not a literal: hwkb reads the file, never runs it; "
                               "write the figure itself, e.g. 989")


def test_the_real_findings_stand(audits):
    for name in ("mi250-128gb", "mi250x-128gb", "mi210-64gb", "mi100-32gb"):
        c = finding(audits["llm-analysis"], name, "peak_i8_TFLOPS")
        assert c.status == Verdict.INCONSISTENT and "sparse" not in peer_hint_text(c.hint)
        assert "llm-analysis's default when INT8 is not given (llm_analysis/config.py:97-98" in peer_hint_text(c.hint)
        assert peer_hint_text(c.hint).endswith("the KB's tc_peak[int8] equals its tc_peak[fp16]")
    bandwidth = finding(audits["genz"], "H100_GPU", "Memory_BW")  # 3400 read as GiB/s: 3651 GB/s
    assert bandwidth.status == Verdict.INCONSISTENT and round(bandwidth.value) == 3651 and "Gi vs G" in peer_hint_text(bandwidth.hint)
    icn = finding(audits["genz"], "MI300X", "ICN")  # 400 GiB/s x 2 against AMD's 896 GB/s: no prefix explains it
    assert icn.status == Verdict.INCONSISTENT and icn.hint is None  # (it was hinted 'Mi vs M', a coincidence)
    trillium = finding(audits["genz"], "TPUv6", "Flops")
    assert (trillium.status, trillium.value, trillium.kb_value) == (Verdict.INCONSISTENT, 926, 918)
    mi210 = finding(audits["llmcompass"], "AMD MI210", "systolic_array")
    assert (mi210.status, mi210.value, mi210.kb_value) == (Verdict.INCONSISTENT, 1024, 512)
    assert "FLOP counted as FMA" in peer_hint_text(mi210.hint)
    (gaudi3,) = [e for e in audits["epoch"].entries if e.entry.name == "Intel Habana Gaudi3"
                 and e.entry.where.file.endswith("ml_hardware.csv")]
    bf16 = [c for c in gaudi3.comparisons if c.key == "tc_peak[bf16]"][0]
    assert (bf16.status, bf16.value, bf16.kb_value) == (Verdict.INCONSISTENT, 1678, 1835)
    assert [c.status for c in gaudi3.comparisons if c.key == "tdp"] == [Verdict.CONSISTENT]  # 900 W: the OAM card


def test_the_false_alarms_are_gone(audits):
    for fmt, name, field in (("llm-analysis", "h100-sxm-80gb", "mem_per_GPU_in_GB"),
                             ("aiconfigurator", "h100_sxm", "gpu.mem_capacity"),
                             ("llmcompass", "NVIDIA A100(80GB)x4", "global_buffer_MB"),
                             ("genz", "H100_GPU", "Memory_size")):
        assert finding(audits[fmt], name, field).status != Verdict.INCONSISTENT, (fmt, name)
    assert audits["aiconfigurator"].exit_code() == 0  # nvidia-smi's usable memory is named, not compared
    design = [e for e in audits["llmcompass"].entries if e.entry.name == "NVIDIA A100(80GB)x4" and e.product is None]
    assert len(design) == 4 and all(not e.comparisons for e in design)
