"""llm-analysis (github.com/cli99/llm-analysis): ``llm_analysis/gpu_configs/*.json``, one GPU per file.

A file is the keyword arguments of ``GPUConfig`` (``llm_analysis/config.py:85-100``,
read by ``GPUConfig(**config_json)`` at ``config.py:251``). Each field's unit is the one
``llm_analysis/analysis.py`` (commit d841e40) reads it in:

field                                 KB key (unit the tool reads)       where the tool reads it
peak_fp16_TFLOPS                      tc_peak[fp16] (TFLOPS, dense)      x 10**12 (analysis.py:234, :1070)
peak_i8_TFLOPS                        tc_peak[int8] (TOPS, dense)        x 10**12 (analysis.py:230); 0 = none
hbm_bandwidth_in_GB_per_sec           memory_bandwidth (GB/s)            x 10**9 (analysis.py:205, :1075)
mem_per_GPU_in_GB                     memory_size (GiB!)                 x 1024**3 (analysis.py:1611, :2081)
intra_node_bandwidth_in_GB_per_sec    interconnect_bandwidth / 2 (GB/s)  x 10**9, one direction of a ring
                                                                         all-reduce (analysis.py:1223, :1102)

The peaks are dense: the shipped configs give the A100 312 and the H100 SXM 989
TFLOPS, NVIDIA's dense BF16/FP16 figures, and the tool divides work by them
as attainable throughput. ``peak_i4_TFLOPS`` has no KB precision (no int4),
``intra_node_min_message_latency`` and ``inter_node_bandwidth_in_GB_per_sec``
(the network, default 200) no KB variable: they are read but not mapped.
``mem_per_GPU_in_GB`` is multiplied by 1024**3, so the tool reads "80" as
80 GiB (85.9 GB); the intra-node figure is per direction (300 for an A100's
600 GB/s of NVLink 3), so the KB's two-way ``interconnect_bandwidth`` is twice it.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Mapping

from hwkb.definitions.model import Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import QueryError
from hwkb.formats.peers.documents import NotHardwareFile, read_tree, text_of
from hwkb.formats.peers.entries import (EXPORT_PREFIX, NameMatch, Number, PeerDefault, PeerEntry, PeerField, PeerFormat,
                                        Written, json_text, name_table, nest, tool_figures)
from hwkb.formats.peers.entry_facts import build_entry

__all__ = ["FORMAT", "FIELDS", "NAMES"]

_SRC = "llm_analysis/analysis.py"
FIELDS = (
    PeerField("peak_fp16_TFLOPS", ("peak_fp16_TFLOPS",), "tc_peak[fp16]", "TFLOPS",
              f"{_SRC}:234 gemm_TFOPS, :1070 x 10**12", doc="dense Tensor-Core FP16"),
    PeerField("peak_i8_TFLOPS", ("peak_i8_TFLOPS",), "tc_peak[int8]", "TFLOPS",
              f"{_SRC}:230 gemm_TFOPS for 8-bit, x 10**12", doc="dense INT8 TOPS; 0 in the V100 files: none"),
    PeerField("hbm_bandwidth_in_GB_per_sec", ("hbm_bandwidth_in_GB_per_sec",), "memory_bandwidth", "GB/s",
              f"{_SRC}:205 get_gpu_hbm_bandwidth, :1075 x 10**9"),
    PeerField("mem_per_GPU_in_GB", ("mem_per_GPU_in_GB",), "memory_size", "GiB",
              f"{_SRC}:1611 mem_per_GPU_in_GB * 1024**3", doc="read as GiB"),
    PeerField("intra_node_bandwidth_in_GB_per_sec", ("intra_node_bandwidth_in_GB_per_sec",),
              "interconnect_bandwidth", "GB/s", f"{_SRC}:1223 ring all-reduce over it x 10**9, one direction",
              scale=2.0, doc="per direction: the KB's two-way figure is twice it"),
)

#: every field GPUConfig takes (config.py:86-94)
_KNOWN = ("name", "mem_per_GPU_in_GB", "hbm_bandwidth_in_GB_per_sec", "intra_node_bandwidth_in_GB_per_sec",
          "intra_node_min_message_latency", "peak_fp16_TFLOPS", "peak_i8_TFLOPS", "peak_i4_TFLOPS",
          "inter_node_bandwidth_in_GB_per_sec")

#: what GPUConfig fills in for a figure left out (config.py:97-98)
DEFAULTS = (PeerDefault("tc_peak[int8]", "tc_peak[fp16]", 2.0,
                        "llm-analysis's default when INT8 is not given (llm_analysis/config.py:97-98: "
                        "peak_i8_TFLOPS = 2 * peak_fp16_TFLOPS)"),)

#: every shipped config (gpu_configs/, commit d841e40) whose product the KB holds; not held: a10g-pcie-24gb,
#: a6000-48gb (the RTX A6000) and the V100 PCIe cards (the KB's v100 is the SXM2 part)
NAMES: Mapping[str, NameMatch] = name_table("""
    a10-pcie-28gb   a10
    a100-pcie-40gb  a100-40gb-pcie
    a100-pcie-80gb  a100-80gb-pcie
    a100-sxm-40gb   a100
    a100-sxm-80gb   a100-80gb-sxm
    h100-sxm-80gb   h100-sxm
    h100-pcie-80gb  h100-pcie
    v100-sxm-16gb   v100
    v100-sxm-32gb   v100
    mi100-32gb      mi100
    mi210-64gb      mi210
    mi250-128gb     mi250
    mi250x-128gb    mi250x
""")


def read(path: Path, model: Model, units: Units) -> list[PeerEntry]:
    tree = read_tree(Path(path))
    if not isinstance(tree.value, dict) or not any(k in tree.value for k in _KNOWN[1:]):
        raise NotHardwareFile("no GPUConfig field: not an llm-analysis GPU config", where=tree.where,
                              hint="a GPU config is like llm-analysis's gpu_configs/h100-sxm-80gb.json")
    name = text_of(tree.get("name"), "name") or Path(path).stem
    entry = build_entry("llm-analysis", "llm-analysis", name, tree, tree.where, FIELDS, NAMES, model, units,
                        also_read=("name",), known=_KNOWN)
    return [replace(entry, defaults=DEFAULTS)]


def write(name: str, figures: Mapping[VarKey, float], units: Units, na: Mapping[VarKey, str] = {}) -> Written:
    values, used, missing = tool_figures(FIELDS, figures, units)
    needed = [field for field in _COMPUTED_WITH if field in missing]
    if needed:
        raise QueryError(f"llm-analysis computes with {', '.join(needed)}, and the KB cannot settle "
                         f"{', '.join(missing[f] for f in needed)} for {name.removeprefix(EXPORT_PREFIX)}",
                         hint="a null there is a TypeError in llm-analysis (config.py:86-99, analysis.py:208-210, "
                              ":1223); state the figure in the KB, or write the file by hand")
    document = {"name": name, **nest(values)}
    document["intra_node_min_message_latency"] = Number(_SHIPPED_LATENCY)
    ordered = {k: document.get(k) for k in _KNOWN if k in document and document[k] is not None}
    notes = [f"intra_node_min_message_latency: {_SHIPPED_LATENCY} s is not a KB figure: it is the value every config "
             "llm-analysis ships writes (gpu_configs/*.json, commit d841e40), which analysis.py:1227 takes as the "
             "floor of an all-reduce; GPUConfig takes no comment field (config.py:250 GPUConfig(**config_json))",
             f"save it as llm_analysis/gpu_configs/{name}.json: llm-analysis keeps the first config of each name "
             "(config.py:255), so a name of its own never shadows a shipped one"]
    if "peak_i8_TFLOPS" in missing:
        notes.append("peak_i8_TFLOPS left out: llm-analysis will take 2 x peak_fp16_TFLOPS (config.py:97-98), "
                     "which is not this GPU's figure where INT8 runs at the FP16 rate")
    return Written(json_text(ordered) + "\n", used, {k: v for k, v in missing.items()}, tuple(notes))


#: the fields GPUConfig has no default for and llm-analysis's estimates compute with (config.py:86-91)
_COMPUTED_WITH = ("mem_per_GPU_in_GB", "hbm_bandwidth_in_GB_per_sec", "intra_node_bandwidth_in_GB_per_sec",
                  "peak_fp16_TFLOPS")
#: intra_node_min_message_latency in every shipped config (seconds)
_SHIPPED_LATENCY = "8e-06"


FORMAT = PeerFormat("llm-analysis", "llm-analysis", "llm_analysis/gpu_configs/*.json, one GPU per file", FIELDS,
                    NAMES, read, write, ".json", __doc__ or "")
