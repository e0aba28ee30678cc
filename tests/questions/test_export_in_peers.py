"""Every file ``hwkb export`` writes, loaded by the peer's own code where the peer is installed (the ``peers``
extra: ``pip install -e .[peers]``), plus one forward estimate; skipped cleanly where it is not."""
from __future__ import annotations

import json
import warnings

import pytest

from hwkb.errors import QueryError


def products(kb) -> list[str]:
    return sorted(e for e in kb.model.entities if kb.model.entity(e).kind == "product")


def exported(kb, fmt: str) -> dict[str, str]:
    """Each product's export text by its name in the file; refused exports (a field the peer computes with that
    the KB cannot settle) are left out: the refusal is the point there."""
    out = {}
    for gpu in products(kb):
        try:
            export = kb.export(fmt, gpu)
        except QueryError:
            continue
        out[export.name] = export.text
    return out


def test_llm_analysis_loads_every_export_and_infers_at_tensor_parallel_2(real_kb, tmp_path, monkeypatch):
    config = pytest.importorskip("llm_analysis.config", reason="llm-analysis is not installed (the peers extra)")
    analysis = pytest.importorskip("llm_analysis.analysis")
    texts = exported(real_kb, "llm-analysis")
    assert "hwkb-h100-sxm" in texts
    for name, text in texts.items():
        (tmp_path / f"{name}.json").write_text(text)
    loaded = config.read_configs(str(tmp_path), type="gpu")  # llm-analysis's own loader: GPUConfig(**json)
    assert set(loaded) == set(texts) and not set(loaded) & set(config.gpu_configs)  # no shipped name reused
    monkeypatch.setattr(config, "gpu_configs", {**config.gpu_configs, **loaded})
    for name in sorted(loaded):
        summary = analysis.infer(model_name="facebook_opt-1.3b", gpu_name=name, tp_size=2, log_level="ERROR")
        assert summary["total_latency"] > 0, name


def test_an_llm_analysis_export_the_peer_would_crash_on_is_refused_with_its_reason(real_kb):
    refused = [gpu for gpu in products(real_kb) if not _exports(real_kb, "llm-analysis", gpu)]
    assert refused
    with pytest.raises(QueryError, match="llm-analysis computes with .*, and the KB cannot settle"):
        real_kb.export("llm-analysis", refused[0])


def test_genz_loads_every_export_and_estimates_decode(real_kb):
    genz = pytest.importorskip("GenZ", reason="genz-llm is not installed (the peers extra)")
    texts = exported(real_kb, "genz")
    assert "hwkb-h100-sxm" in texts and "hwkb-mi300x" in texts
    for name, text in texts.items():
        (system,) = json.loads(text).values()
        loaded = genz.get_inference_system(system_name=system)  # GenZ's own reader of a system dict (utils.py:90-107)
        assert loaded.offchip_mem_bw == system["Memory_BW"] * 2 ** 30, name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = genz.decode_moddeling(model="meta-llama/Llama-3.2-1B", batch_size=1, input_tokens=128,
                                        output_tokens=1, system_name=system, bits="bf16")
        assert out["Latency"] > 0, name


def test_a_genz_export_the_peer_would_crash_on_is_refused_with_its_reason(real_kb):
    refused = [gpu for gpu in products(real_kb) if not _exports(real_kb, "genz", gpu)]
    assert refused
    with pytest.raises(QueryError, match="GenZ computes with .*, and the KB cannot settle"):
        real_kb.export("genz", refused[0])


def test_aiconfigurator_loads_every_export_and_estimates_in_its_sol_mode(real_kb, tmp_path):
    pytest.importorskip("aiconfigurator", reason="aiconfigurator is not installed (the peers extra)")
    from aiconfigurator.cli.api import cli_estimate
    from aiconfigurator_core.sdk.perf_database import PerfDatabase

    texts = exported(real_kb, "aiconfigurator")
    assert "h100_sxm" in texts and "mi300x" in texts
    for name, text in texts.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    for name in sorted(texts):
        spec = PerfDatabase(name, "trtllm", "estimate", systems_root=str(tmp_path)).system_spec  # its own loader
        assert spec["gpu"]["mem_bw"] > 0 and spec["node"]["intra_node_bw"] > 0, name
        result = cli_estimate("Qwen/Qwen3-0.6B", name, database_mode="SOL", systems_paths=str(tmp_path),
                              isl=128, osl=2, batch_size=1)  # its Rust engine reads the file again
        assert result.tpot > 0, name


def _exports(kb, fmt: str, gpu: str) -> bool:
    try:
        kb.export(fmt, gpu)
    except QueryError:
        return False
    return True


def _llama_3_8b(kb) -> dict:
    return {name: int(kb.solve(name, layers=["llama-3-8b"]).magnitude)
            for name in ("layers", "hidden_size", "heads", "kv_heads", "intermediate_size", "vocab_size")}


def test_llm_analysis_counts_llama_3_8b_without_a_third_of_each_mlp_and_the_output_embedding(real_kb, tmp_path,
                                                                                            monkeypatch):
    """docs/peers_side_by_side.md's explanation of llm-analysis's decode ratio, held to its own weight count: two MLP
    matrices where SwiGLU has three (analysis.py:285), the output embedding counted as tied (analysis.py:244)."""
    config = pytest.importorskip("llm_analysis.config", reason="llm-analysis is not installed (the peers extra)")
    analysis = pytest.importorskip("llm_analysis.analysis")
    m = _llama_3_8b(real_kb)
    gpu = config.GPUConfig(**json.loads(real_kb.export("llm-analysis", "h100-sxm").text))
    monkeypatch.setitem(config.gpu_configs, gpu.name, gpu)
    model = tmp_path / "llama-3-8b.json"
    model.write_text(json.dumps({"name": "hwkb-llama-3-8b", "num_layers": m["layers"], "n_head": m["heads"],
                                 "hidden_dim": m["hidden_size"], "vocab_size": m["vocab_size"],
                                 "num_key_value_heads": m["kv_heads"], "ffn_embed_dim": m["intermediate_size"],
                                 "expansion_ratio": m["intermediate_size"] / m["hidden_size"]}))
    summary = analysis.infer(model_name=str(model), gpu_name=gpu.name, seq_len=1024, num_tokens_to_generate=1,
                             log_level="ERROR")
    hwkb_bytes = real_kb.solve("weight_bytes", layers=["llama-3-8b"]).magnitude * 1e9
    missing = 2 * (m["layers"] * m["hidden_size"] * m["intermediate_size"] + m["vocab_size"] * m["hidden_size"])
    assert summary["weight_memory_per_gpu"] == pytest.approx(hwkb_bytes - missing, rel=1e-9)


def test_genz_decodes_llama_3_8b_at_hwkbs_bound(real_kb):
    """docs/peers_side_by_side.md's explanation of GenZ's decode ratio: GenZ reads what hwkb's decode_traffic reads
    (the input embedding looked up by both), at the exported bandwidth, with its efficiencies at 1."""
    genz = pytest.importorskip("GenZ", reason="genz-llm is not installed (the peers extra)")
    m = _llama_3_8b(real_kb)
    (system,) = json.loads(real_kb.export("genz", "h100-sxm").text).values()
    config = genz.ModelConfig(model="hwkb/llama-3-8b", hidden_size=m["hidden_size"], num_attention_heads=m["heads"],
                              num_key_value_heads=m["kv_heads"], num_ffi=2, intermediate_size=m["intermediate_size"],
                              num_decoder_layers=m["layers"], vocab_size=m["vocab_size"], hidden_act="silu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = genz.decode_moddeling(model=config, batch_size=1, input_tokens=1024, output_tokens=1, Bb=1,
                                    system_name=system, bits="bf16")
    step = real_kb.solve("decode_bytes_per_step", gpu="h100-sxm", layers=["llama-3-8b"],
                         facts=["batch=1", "context=1024"]).magnitude * 1e9
    bandwidth = real_kb.solve("memory_bandwidth", gpu="h100-sxm").magnitude * 1e9
    assert out["Throughput"] == pytest.approx(bandwidth / step, rel=2e-3)


def test_aiconfigurator_sol_decodes_llama_3_8b_at_hwkbs_bound(real_kb, tmp_path):
    """As GenZ: AIConfigurator's SOL decode step (its own Llama 3.1 8B config, equal to the KB's) charges the input
    embedding as a lookup, as hwkb's decode_traffic does, and reads the rest at the exported bandwidth."""
    pytest.importorskip("aiconfigurator", reason="aiconfigurator is not installed (the peers extra)")
    from aiconfigurator.cli.api import cli_estimate

    export = real_kb.export("aiconfigurator", "h100-sxm")
    (tmp_path / f"{export.name}.yaml").write_text(export.text)
    result = cli_estimate("meta-llama/Meta-Llama-3.1-8B", export.name, mode="static", database_mode="SOL",
                          systems_paths=str(tmp_path), isl=1024, osl=2, batch_size=1)
    step = real_kb.solve("decode_bytes_per_step", gpu="h100-sxm", layers=["llama-3-8b"],
                         facts=["batch=1", "context=1024"]).magnitude * 1e9
    bandwidth = real_kb.solve("memory_bandwidth", gpu="h100-sxm").magnitude * 1e9
    assert 1e3 / result.tpot == pytest.approx(bandwidth / step, rel=2e-3)
