"""hwkb's ideal LLM bounds side by side with llm-analysis 0.2.2, GenZ 0.0.16 and AIConfigurator 0.12.0 (issue 25).

Run by hand from a checkout with the peers extra installed (``pip install -e '.[peers]'``):
``python benchmarks/peers_side_by_side.py [--models ...] [--gpus ...] [--prompt N]``. A peer that is
not installed is skipped with one line; a GPU the KB cannot export to a peer is printed with the
refusal's reason.

Equal inputs: each peer reads the hardware file ``hwkb export`` writes for it (the same figures the
KB's own bounds use), and a model config written from the KB's workload (kb/workloads/llm.yaml:
layers, hidden size, heads, KV heads, MLP width, vocabulary, experts, each read from the published
config file). One case is batch 1, a prompt of ``--prompt`` tokens (prefill), and the next token
generated with that prompt in the key/value cache (decode), on one GPU, in BF16 (weights and cache)
or FP8 (``--precision fp8``: hwkb's ``fp8`` scenario, llm-analysis's ``w8a8e16``, GenZ's ``bits='fp8'``;
AIConfigurator ``gemm_quant_mode='fp8'`` with a BF16 cache).
A model too large for the GPU's memory is refused by both peers (their message is printed); hwkb's
decode bound then runs on the ``gpus`` that hold it (tensor parallel), so only the cases that fit compare.

Per case it prints hwkb's ideal bound (``decode_tokens_per_s`` with ``context`` = the prompt;
``prefill_time``), the peer's estimate, the ratio peer / hwkb, and the model's weights in memory
as each side counts them (the peer's from its own functions), the first cause of a ratio. The peers' efficiency factors, read in their code, are all 1 by default (listed at the
top of the output); docs/peers_side_by_side.md explains every ratio from the peers' code.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from hwkb import KnowledgeBase
from hwkb.errors import QueryError

MODELS = ["llama-3-8b", "llama-3-70b", "mixtral-8x7b", "qwen2-72b"]
GPUS = ["h100-sxm", "a100-80gb-sxm", "mi300x", "b200"]

FACTORS = {
    "llm-analysis": [
        "flops_efficiency = FLOPS_EFFICIENCY = 1 (llm_analysis/constant.py:29-31; analysis.py:141-153 takes it when "
        "neither flops_efficiency nor achieved_tflops is given)",
        "hbm_memory_efficiency = HBM_MEMORY_EFFICIENCY = 1 (constant.py:32; analysis.py:120-134)",
        "intra/inter_node_memory_efficiency = 1.0 (constant.py:33-34; unused at tensor parallel 1)",
    ],
    "AIConfigurator": [
        "database_mode SOL: every operator on its analytic speed-of-light branch (sdk/engine.py:1050-1062), no "
        "measured data; gpu.mem_bw_empirical_scaling_factor (0.8 in every shipped system) is not applied there: "
        "the same TPOT with and without it in hwkb's H100 export",
        "static mode: TTFT is one prefill of the prompt (agg mode's TTFT adds a scheduled decode step)",
    ],
    "GenZ": [
        "system_eff = 1: compute_efficiency = memory_efficiency = 1 (GenZ/LLM_inference/llm_decode.py:15, :35; "
        "llm_prefill.py:14, :31; applied per operator in operator_base.py:250-253)",
        "comm_efficiency = 1 (GenZ/system.py:14; unused on one chip)",
        "Bb = 4 beams by default in decode_moddeling (llm_decode.py:14): set to 1 here, as hwkb's batch of 1",
    ],
}


@dataclass(frozen=True)
class Model:
    """The KB's figures of one workload, as the peers' model configs need them."""
    id: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    experts: int
    experts_per_token: int


def kb_model(kb: KnowledgeBase, workload: str) -> Model:
    def get(name):
        return kb.solve(name, layers=[workload]).magnitude
    return Model(workload, int(get("layers")), int(get("hidden_size")), int(get("heads")), int(get("kv_heads")),
                 int(get("intermediate_size")), int(get("vocab_size")), int(get("experts")),
                 int(get("experts_per_token")))


@dataclass(frozen=True)
class Estimate:
    """One side's answer for a case, with the counts behind it."""
    decode_tokens_per_s: float
    prefill_ms: float
    decode_bytes: float      # device memory one decode step reads, as this side counts it
    prefill_flop: float      # the prefill's work, as this side counts it
    weight_bytes: float      # the model's weights in memory, as this side counts them


def hwkb_bounds(kb: KnowledgeBase, gpu: str, workload: str, prompt: int, precision: str) -> Estimate:
    """The KB's ideal bounds at batch 1: the decode rate with the prompt in the cache, the prefill time."""
    layers = [workload, precision]
    decode_facts, prefill_facts = ["batch=1", f"context={prompt}"], ["batch=1", f"prompt_tokens={prompt}"]

    def get(name, facts=(), gpu_=None, unit=None):
        solution = kb.solve(name, gpu=gpu_, layers=layers, facts=list(facts))
        return kb.units.from_canonical(kb.units.to_canonical(solution.magnitude, solution.unit), unit or solution.unit)
    return Estimate(get("decode_tokens_per_s", decode_facts, gpu), get("prefill_time", prefill_facts, gpu, "ms"),
                    get("decode_bytes_per_step", decode_facts, unit="B"), get("prefill_flop", prefill_facts, unit="FLOP"),
                    get("weight_bytes", unit="B"))


def hwkb_not_applicable(kb: KnowledgeBase, gpu: str, workload: str, prompt: int, precision: str) -> str | None:
    """Why hwkb's bounds do not exist for this case (the first note of a not-applicable answer), or None."""
    for name, facts in (("decode_tokens_per_s", ["batch=1", f"context={prompt}"]),
                        ("prefill_time", ["batch=1", f"prompt_tokens={prompt}"])):
        solution = kb.solve(name, gpu=gpu, layers=[workload, precision], facts=facts)
        if str(solution.status) == "not_applicable":
            return "hwkb: " + re.sub(r"\(\S+:\d+:\d+: ", "(", solution.notes[0])  # the reason, not the KB's line
    return None


class LlmAnalysis:
    name = "llm-analysis"

    def __init__(self, folder: Path):
        from llm_analysis import analysis, config
        self.analysis, self.config, self.folder = analysis, config, folder

    def estimate(self, kb: KnowledgeBase, gpu: str, model: Model, prompt: int, precision: str) -> Estimate:
        export = kb.export("llm-analysis", gpu)
        gpu_config = self.config.GPUConfig(**json.loads(export.text))  # as config.read_configs builds it
        self.config.gpu_configs[gpu_config.name] = gpu_config
        path = self.folder / f"{model.id}.json"
        path.write_text(json.dumps({
            "name": f"hwkb-{model.id}", "num_layers": model.layers, "n_head": model.heads, "hidden_dim": model.hidden,
            "vocab_size": model.vocab, "num_key_value_heads": model.kv_heads, "ffn_embed_dim": model.intermediate,
            "expansion_ratio": model.intermediate / model.hidden, "model_type": "llama",
            "moe_num_experts": model.experts, "moe_top_k": model.experts_per_token}))
        dtype = {"bf16": "w16a16e16", "fp8": "w8a8e16"}[precision]
        try:
            summary = self.analysis.infer(model_name=str(path), gpu_name=gpu_config.name, dtype_name=dtype, tp_size=1,
                                          batch_size_per_gpu=1, seq_len=prompt, num_tokens_to_generate=1,
                                          log_level="ERROR")
        except AssertionError as refused:  # analysis.py:1487, a model larger than the GPU's memory
            raise QueryError(f"llm-analysis refuses: {refused}") from None
        return Estimate(1 / summary["decode_latency"], summary["prefill_latency"] * 1e3,
                        summary["weight_memory_per_gpu"] + summary["kv_cache_memory_per_gpu"],
                        summary["prefill_num_flops_fwd_total"], summary["weight_memory_per_gpu"])


class GenZ:
    name = "GenZ"

    def __init__(self, folder: Path):
        import GenZ as genz
        self.genz = genz

    def estimate(self, kb: KnowledgeBase, gpu: str, model: Model, prompt: int, precision: str) -> Estimate:
        (system,) = json.loads(kb.export("genz", gpu).text).values()
        config = self.genz.ModelConfig(
            model=f"hwkb/{model.id}", hidden_size=model.hidden, num_attention_heads=model.heads,
            num_key_value_heads=model.kv_heads, num_ffi=2, intermediate_size=model.intermediate,
            num_decoder_layers=model.layers, vocab_size=model.vocab, num_experts=model.experts,
            expert_top_k=model.experts_per_token, hidden_act="silu")
        common = dict(model=config, batch_size=1, input_tokens=prompt, system_name=system, bits=precision)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            try:
                decode = self.genz.decode_moddeling(output_tokens=1, Bb=1, **common)
                prefill = self.genz.prefill_moddeling(**common)
            except ValueError as refused:  # llm_decode.py:66-74, a model larger than the chip's memory
                raise QueryError(f"GenZ refuses: {str(refused).splitlines()[0]}") from None
        step, whole = decode["summary_table"].iloc[0], prefill["summary_table"].iloc[0]
        # GenZ's MB are MiB (unit.py:6, binary_dicts); its "MACs (MFLOP)" column sums each operator's FLOP
        return Estimate(decode["Throughput"], prefill["Latency"], step["Total Data (MB)"] * 2 ** 20,
                        whole["MACs (MFLOP)"] * 1e6, step["Total Weights (MB)"] * 2 ** 20)


class AIConfigurator:
    """AIConfigurator 0.12.0 in its SOL mode (the analytic speed-of-light branch of its Rust engine, no measured
    data), static mode (one prefill of the prompt, then decode steps), on its own config of the model: it reads
    models by Hugging Face name from aiconfigurator_core/model_configs/, whose Llama 3.1 configs agree with the KB's
    (``--configs``); it has none of Mixtral 8x7B or Qwen2 72B."""
    name = "AIConfigurator"
    MODELS = {"llama-3-8b": "meta-llama/Meta-Llama-3.1-8B", "llama-3-70b": "meta-llama/Meta-Llama-3.1-70B",
              "llama-3-405b": "meta-llama/Meta-Llama-3.1-405B"}

    def __init__(self, folder: Path):
        from aiconfigurator.cli.api import cli_estimate
        self.cli_estimate, self.folder = cli_estimate, folder / "aiconfigurator"
        self.folder.mkdir(exist_ok=True)

    def estimate(self, kb: KnowledgeBase, gpu: str, model: Model, prompt: int, precision: str) -> Estimate:
        if model.id not in self.MODELS:
            raise QueryError(f"AIConfigurator ships no config of {model.id}")
        export = kb.export("aiconfigurator", gpu)
        (self.folder / f"{export.name}.yaml").write_text(export.text)
        quant = {} if precision == "bf16" else {"gemm_quant_mode": "fp8", "kvcache_quant_mode": "bfloat16",
                                                "fmha_quant_mode": "bfloat16"}  # hwkb's fp8: W8A8, a BF16 cache
        try:
            result = self.cli_estimate(self.MODELS[model.id], export.name, mode="static", database_mode="SOL",
                                       systems_paths=str(self.folder), isl=prompt, osl=2, batch_size=1, **quant)
        except RuntimeError as refused:  # its memory check: 'OOM: the model ... does not fit in GPU memory'
            raise QueryError(f"AIConfigurator refuses: {str(refused).split('.')[0]}") from None
        nan = float("nan")
        return Estimate(1e3 / result.tpot, result.ttft, nan, nan, nan)


def run(kb: KnowledgeBase, peer, models: list[Model], gpus: list[str], prompt: int, precision: str) -> list[dict]:
    rows = []
    for gpu in gpus:
        for model in models:
            row = {"peer": peer.name, "gpu": gpu, "model": model.id, "precision": precision}
            absent = hwkb_not_applicable(kb, gpu, model.id, prompt, precision)
            if absent:  # no figure to set a peer's beside (FP8 on a GPU without FP8 Tensor Cores)
                rows.append({**row, "refused": absent})
                continue
            try:
                theirs = peer.estimate(kb, gpu, model, prompt, precision)
            except QueryError as refused:
                rows.append({**row, "refused": str(refused).split(";")[0]})
                continue
            ours = hwkb_bounds(kb, gpu, model.id, prompt, precision)
            rows.append({**row, "hwkb": ours.__dict__, "peer_estimate": theirs.__dict__,
                         "decode_ratio": theirs.decode_tokens_per_s / ours.decode_tokens_per_s,
                         "decode_bytes_ratio": theirs.decode_bytes / ours.decode_bytes,
                         "prefill_ratio": theirs.prefill_ms / ours.prefill_ms,
                         "prefill_flop_ratio": theirs.prefill_flop / ours.prefill_flop,
                         "weights_ratio": theirs.weight_bytes / ours.weight_bytes})
    return rows


def table(rows: list[dict]) -> str:
    """Ratios peer / hwkb: decode rate and the bytes a step reads, prefill time and its FLOP, and the rest once the
    count is taken out (decode: rate x bytes; prefill: time / FLOP), which the peer's per-operator rules explain."""
    head = ("| peer | GPU | model | prec. | hwkb decode token/s | peer | decode peer/hwkb | bytes/step peer/hwkb "
            "| rest | hwkb prefill ms | peer | prefill peer/hwkb | FLOP peer/hwkb | rest | weights GB hwkb / peer |")
    lines = [head, "|" + "---|" * (head.count(" | ") + 1)]
    for r in rows:
        if "refused" in r:
            lines.append(f"| {r['peer']} | {r['gpu']} | {r['model']} | {r['precision']} | {r['refused']} |" + " |" * 10)
            continue
        ours, theirs = r["hwkb"], r["peer_estimate"]
        if math.isnan(theirs["decode_bytes"]):  # a peer whose counts the benchmark cannot read
            lines.append(f"| {r['peer']} | {r['gpu']} | {r['model']} | {r['precision']} "
                         f"| {ours['decode_tokens_per_s']:.4g} | {theirs['decode_tokens_per_s']:.4g} "
                         f"| {r['decode_ratio']:.3f} | - | - | {ours['prefill_ms']:.4g} | {theirs['prefill_ms']:.4g} "
                         f"| {r['prefill_ratio']:.3f} | - | - | {ours['weight_bytes'] / 1e9:.4g} / - |")
            continue
        lines.append(
            f"| {r['peer']} | {r['gpu']} | {r['model']} | {r['precision']} | {ours['decode_tokens_per_s']:.4g} "
            f"| {theirs['decode_tokens_per_s']:.4g} | {r['decode_ratio']:.3f} | {r['decode_bytes_ratio']:.3f} "
            f"| {r['decode_ratio'] * r['decode_bytes_ratio']:.3f} | {ours['prefill_ms']:.4g} | {theirs['prefill_ms']:.4g} "
            f"| {r['prefill_ratio']:.3f} | {r['prefill_flop_ratio']:.3f} | {r['prefill_ratio'] / r['prefill_flop_ratio']:.3f} "
            f"| {ours['weight_bytes'] / 1e9:.4g} / {theirs['weight_bytes'] / 1e9:.4g} |")
    return "\n".join(lines)


#: the peers' own configs of the KB's models: GenZ's by name (GenZ/Models/Model_sets/*.py), AIConfigurator's copies
#: of the Hugging Face config.json (aiconfigurator_core/model_configs/); llm-analysis ships none of them
PEER_CONFIGS = {"llama-3-8b": ("meta-llama/Llama-3.1-8B", "meta-llama--Meta-Llama-3.1-8B"),
                "llama-3-70b": ("meta-llama/Llama-3.1-70B", "meta-llama--Meta-Llama-3.1-70B"),
                "llama-3-405b": ("meta-llama/Llama-3.1-405B", "meta-llama--Meta-Llama-3.1-405B"),
                "mixtral-8x7b": ("mistralai/Mixtral-8x7B", None)}
_GENZ_FIELDS = {"layers": "num_decoder_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
                "kv_heads": "num_key_value_heads", "intermediate": "intermediate_size", "vocab": "vocab_size",
                "experts": "num_experts", "experts_per_token": "expert_top_k"}
_HF_FIELDS = {"layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
              "kv_heads": "num_key_value_heads", "intermediate": "intermediate_size", "vocab": "vocab_size"}


def config_differences(kb: KnowledgeBase) -> list[str]:
    """Each field where a peer's own config of a KB model differs from the KB's (the published config), and what
    was compared where none differs."""
    lines = []
    for workload, (genz_name, aic_name) in PEER_CONFIGS.items():
        model = kb_model(kb, workload)
        peers = []
        with contextlib.suppress(ImportError):
            from GenZ.Models.get_language_model import get_configs
            peers.append(("GenZ " + genz_name, {f: getattr(get_configs(genz_name), a) for f, a in _GENZ_FIELDS.items()}))
        if aic_name:
            with contextlib.suppress(ImportError):
                import aiconfigurator_core
                path = Path(aiconfigurator_core.__file__).parent / "model_configs" / f"{aic_name}_config.json"
                raw = json.loads(path.read_text())
                peers.append((f"AIConfigurator {path.name}", {f: raw[a] for f, a in _HF_FIELDS.items()}))
        for peer, fields in peers:
            differ = [f"{f} {v} (KB {getattr(model, f)})" for f, v in fields.items() if v != getattr(model, f)]
            lines.append(f"{peer} vs KB {workload}: " + ("; ".join(differ) if differ else
                                                         f"{len(fields)} fields agree ({', '.join(fields)})"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--gpus", nargs="+", default=GPUS)
    parser.add_argument("--prompt", type=int, default=1024, help="prompt tokens (default 1024)")
    parser.add_argument("--precision", nargs="+", choices=["bf16", "fp8"], default=["bf16", "fp8"])
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    parser.add_argument("--configs", action="store_true", help="only the peers' own model configs against the KB's")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    kb = KnowledgeBase.load()
    if args.configs:
        print("\n".join(config_differences(kb)))
        return 0
    models = [kb_model(kb, m) for m in args.models]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for cls, module in ((LlmAnalysis, "llm_analysis"), (GenZ, "GenZ"), (AIConfigurator, "aiconfigurator")):
            try:
                peer = cls(Path(folder))
            except ImportError:
                print(f"{cls.name}: not installed ({module}); skipped", file=sys.stderr)
                continue
            print(f"{peer.name}'s efficiency factors (defaults, read in its code):")
            print("\n".join(f"  - {factor}" for factor in FACTORS[peer.name]))
            for precision in args.precision:
                rows += run(kb, peer, models, args.gpus, args.prompt, precision)
    print(json.dumps(rows, indent=1) if args.json else "\n" + table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
