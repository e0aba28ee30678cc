"""Every file ``hwkb export`` writes, loaded by the peer's own code where the peer is installed (the ``peers``
extra: ``pip install -e .[peers]``), plus one forward estimate; skipped cleanly where it is not."""
from __future__ import annotations

import json

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


def test_genz_loads_every_export(real_kb):
    genz = pytest.importorskip("GenZ", reason="genz-llm is not installed (the peers extra)")
    for name, text in exported(real_kb, "genz").items():
        (system,) = json.loads(text).values()
        assert genz.get_inference_system(system_name=system) is not None, name  # GenZ's own reader of a system


def test_aiconfigurator_loads_every_export(real_kb, tmp_path):
    pytest.importorskip("aiconfigurator", reason="aiconfigurator is not installed (the peers extra)")
    yaml = pytest.importorskip("yaml")
    for name, text in exported(real_kb, "aiconfigurator").items():
        spec = yaml.safe_load(text)  # the loader AIConfigurator reads systems with (SafeLoader)
        assert spec["gpu"]["mem_bw"] is None or spec["gpu"]["mem_bw"] > 0, name


def _exports(kb, fmt: str, gpu: str) -> bool:
    try:
        kb.export(fmt, gpu)
    except QueryError:
        return False
    return True
