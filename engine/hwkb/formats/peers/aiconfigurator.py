"""NVIDIA AIConfigurator (github.com/ai-dynamo/aiconfigurator): ``systems/<system>.yaml``, one GPU per file.

The file's stem is the system's name (``h100_sxm``). Every figure is in base
units, as the Rust ``SystemSpec`` documents them
(``aic-core/rust/aiconfigurator-core/src/common/system_spec.rs:31-110``, commit
095f58a) and the Python side reads them (``sdk/common.py:1310-1338``
``get_quant_tc_flops``; ``sdk/memory.py:226`` "mem_capacity is already bytes"):

field                    KB key (unit the tool reads)              source (system_spec.rs)
gpu.mem_bw               memory_bandwidth (B/s)                    :34 "HBM memory bandwidth, bytes/s"
gpu.mem_capacity         memory_size (B)                           :42 "HBM capacity in bytes"
gpu.bfloat16_tc_flops    tc_peak[bf16] (FLOP/s, dense)             :45, quant_tc_flops :72-96
gpu.int8_tc_flops        tc_peak[int8] (OP/s, dense)               :48
gpu.fp8_tc_flops         tc_peak[fp8] (FLOP/s, dense)              :51
gpu.fp4_tc_flops         tc_peak[fp4] (FLOP/s, dense)              :54
gpu.power                tdp (W)                                   :57 "Per-GPU TDP, watts"
gpu.sm_version           compute_capability x 10                   :60 "CUDA SM architecture version"
node.intra_node_bw       interconnect_bandwidth / 2 (B/s)          :104 "bytes/s per GPU, single direction"
node.pcie_bw             pcie_bandwidth / 2 (B/s)                  :106 "PCIe bandwidth, bytes/s, single direction"

The peaks are dense: the H100 PCIe file says so ("756.5TFLOPS (dense; NVIDIA
specs list 1513TFLOPS with sparsity)"), and the others carry NVIDIA's dense
figures. The empirical factors and latencies, ``inter_node_bw`` (the network),
``num_gpus_per_node`` and ``misc`` are not hardware figures of the KB.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from hwkb.definitions.model import Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, QueryError
from hwkb.formats.peers.documents import NotHardwareFile, read_tree
from hwkb.formats.peers.entries import NameMatch, PeerEntry, PeerField, PeerFormat, Written, name_table, tool_figures
from hwkb.formats.peers.entry_facts import build_entry

__all__ = ["FORMAT", "FIELDS", "NAMES"]

_RS = "aic-core/rust/aiconfigurator-core/src/common/system_spec.rs"
FIELDS = (
    PeerField("gpu.mem_bw", ("gpu", "mem_bw"), "memory_bandwidth", "B/s", f"{_RS}:34-35"),
    PeerField("gpu.mem_capacity", ("gpu", "mem_capacity"), "memory_size", "B", f"{_RS}:42-44"),
    PeerField("gpu.bfloat16_tc_flops", ("gpu", "bfloat16_tc_flops"), "tc_peak[bf16]", "FLOPS", f"{_RS}:45-47, :80",
              doc="dense"),
    PeerField("gpu.int8_tc_flops", ("gpu", "int8_tc_flops"), "tc_peak[int8]", "FLOPS", f"{_RS}:48-50, :81", doc="dense"),
    PeerField("gpu.fp8_tc_flops", ("gpu", "fp8_tc_flops"), "tc_peak[fp8]", "FLOPS", f"{_RS}:51-53, :82", doc="dense"),
    PeerField("gpu.fp4_tc_flops", ("gpu", "fp4_tc_flops"), "tc_peak[fp4]", "FLOPS", f"{_RS}:54-56, :83", doc="dense"),
    PeerField("gpu.power", ("gpu", "power"), "tdp", "W", f"{_RS}:57-59"),
    PeerField("gpu.sm_version", ("gpu", "sm_version"), "compute_capability", "", f"{_RS}:60-62", scale=0.1,
              exact=True, doc="90 is compute capability 9.0"),
    PeerField("node.intra_node_bw", ("node", "intra_node_bw"), "interconnect_bandwidth", "B/s", f"{_RS}:104-105",
              scale=2.0, doc="per GPU, one direction"),
    PeerField("node.pcie_bw", ("node", "pcie_bw"), "pcie_bandwidth", "B/s", f"{_RS}:106-108", scale=2.0,
              doc="one direction"),
)

_GPU = ("mem_bw", "mem_bw_empirical_scaling_factor", "mem_empirical_constant_latency", "mem_capacity",
        "bfloat16_tc_flops", "int8_tc_flops", "fp8_tc_flops", "fp4_tc_flops", "power", "sm_version")
_NODE = ("num_gpus_per_node", "num_gpus_per_rack", "inter_node_bw", "intra_node_bw", "inter_rack_bw", "pcie_bw",
         "p2p_latency", "inter_rack_latency")

#: the keys AIConfigurator reads, mapped or not (SystemSpec, system_spec.rs:31-141)
_KNOWN = ("data_dir", *(f"gpu.{k}" for k in _GPU), *(f"node.{k}" for k in _NODE), "misc.nccl_mem.", "misc.other_mem",
          "misc.nccl_version", "misc.oneccl_version")

#: every system of systems/*.yaml (commit 095f58a) whose product the KB holds (a30, gb200, gb300, l4, l40s are
#: the KB's ids already); not held: b60 (Intel Arc Pro B60)
NAMES: Mapping[str, NameMatch] = name_table("""
    a100_pcie            a100-80gb-pcie
    a100_sxm             a100-80gb-sxm
    h100_sxm             h100-sxm
    h100_pcie            h100-pcie
    h200_sxm             h200-sxm
    b200_sxm             b200
    b300_sxm             b300
    rtx_pro_6000_server  rtx-pro-6000-server
""", {stem: NameMatch(entity, ("memory_size",), f"mem_capacity is {comment}, what a program can allocate, not "
                                                 f"the nominal capacity the KB states")
      for stem, entity, comment in (
          ("b300_sxm", "b300", "'275040MiB reported by nvidia-smi' (the file's comment)"),
          ("gb200", "gb200", "'189471MiB reported by nvidia-smi' (the file's comment)"),
          ("gb300", "gb300", "'284208MiB reported by nvidia-smi' (the file's comment)"),
          ("l40s", "l40s", "46068 MiB (the file's comment), the L40S's memory with ECC on"))})


def read(path: Path, model: Model, units: Units) -> list[PeerEntry]:
    path = Path(path)
    tree = read_tree(path)
    gpu = tree.get("gpu")
    if gpu is None or not isinstance(gpu.value, dict):
        raise NotHardwareFile("no 'gpu' mapping: not an AIConfigurator system file", where=tree.where,
                              hint="a system file is like aiconfigurator's systems/h100_sxm.yaml")
    node = tree.get("node")
    if node is not None and node.value is not None and not isinstance(node.value, dict):
        raise LoadError("'node' must be a mapping of the node's figures", where=node.where,
                        hint="see aiconfigurator's systems/h100_sxm.yaml")
    return [build_entry("aiconfigurator", "AIConfigurator", path.stem, tree, tree.where, FIELDS, NAMES, model, units,
                        known=_KNOWN)]


def write(name: str, figures: Mapping[VarKey, float], units: Units, na: Mapping[VarKey, str] = {}) -> Written:
    """Never a null: a key the KB cannot settle, or states as n/a on the GPU (``na``: an H100's FP4), is a comment
    saying why and what AIConfigurator does without it; the node and ``misc`` keys that are no GPU figure are
    written as every system AIConfigurator ships has them, each commented as its figure (its Rust loader takes no
    null there, system_spec.rs, and its estimates compute with them); a product without a figure it computes with
    is refused."""
    values, used, missing = tool_figures(FIELDS, figures, units)
    needed = [field for field in _COMPUTED_WITH if field in missing]
    if needed:
        raise QueryError(f"AIConfigurator computes with {', '.join(needed)}, and the KB cannot settle "
                         f"{', '.join(missing[f] for f in needed)} for {name}",
                         hint="its Rust loader refuses a null there ('invalid type: unit value, expected f64', "
                              f"{_RS}:31-110); state the figure in the KB, or write the system by hand")
    lines = [f"data_dir: {json.dumps('data/' + name)}  # AIConfigurator's measured data for this system, if any", "gpu:"]
    gpu = [_line(f, values[f.path], na) for f in FIELDS if f.path[0] == "gpu"]
    node = [_line(f, values[f.path], na) for f in FIELDS if f.path[0] == "node"]
    lines += gpu + ["node:"] + [f"  {key}: {value}  # {_SHIPPED}{why}" for key, value, why in _NODE_SHIPPED] + node
    lines += ["misc:", f"  nccl_mem:  # {_SHIPPED}: observed NCCL buffers by GPU count, not a KB figure"]
    lines += [f"    {gpus}: {size}" for gpus, size in _NCCL_MEM]
    lines.append(f"  other_mem: {_OTHER_MEM}  # {_SHIPPED}: a safety reserve, not a KB figure")
    notes = (f"node.num_gpus_per_node {_NODE_SHIPPED[0][1]}, node.inter_node_bw {_NODE_SHIPPED[1][1]} B/s and misc are "
             f"{_SHIPPED}, not KB figures (its loader takes no null there): set your system's",
             f"save it as systems/{name}.yaml: AIConfigurator names a system by its file")
    return Written("\n".join(lines) + "\n", used, missing, notes)


#: the fields AIConfigurator's Rust SystemSpec reads as numbers with no default, and every estimate computes with
_COMPUTED_WITH = ("gpu.mem_bw", "gpu.mem_capacity", "gpu.bfloat16_tc_flops", "node.intra_node_bw")
_SHIPPED = "AIConfigurator's figure in its shipped systems/*.yaml (commit 095f58a)"
#: node keys no GPU figure settles: every shipped single-GPU-board system has 8 a node; 50 GB/s is h100_sxm's network
_NODE_SHIPPED = (("num_gpus_per_node", "8", ", a system's choice"),
                 ("inter_node_bw", "50000000000", " for h100_sxm (one 400 Gb/s NIC a GPU), the network's"))
_NCCL_MEM = ((1, 0), (2, 358612992), (4, 411041792), (8, 411041792))
_OTHER_MEM = 3758096384


def _line(f: PeerField, number, na: Mapping[VarKey, str]) -> str:
    """A field's line; one the KB cannot settle is a comment, as AIConfigurator reads an absent key (never a null,
    which its Python side turns into a TypeError: ``int(None)`` at perf_database.py:344)."""
    if number is not None:
        return f"  {f.path[1]}: {_whole(number)}"
    why = f"n/a: {na[f.key]}" if f.key in na else f"the KB cannot settle {f.key}"
    return f"  # {f.path[1]} left out ({why}); {_ABSENT.get(f.path[1], _ABSENT_ANY)}"


#: what AIConfigurator does where a key the export cannot settle is absent
_ABSENT = {"sm_version": "AIConfigurator takes -1 (sdk/perf_database.py:344, operations/attention.py:61)",
           **{k: "AIConfigurator reads no key as no such hardware (sdk/common.py:1329-1366)"
              for k in ("int8_tc_flops", "fp8_tc_flops", "fp4_tc_flops")}}
_ABSENT_ANY = "an optional key of AIConfigurator's SystemSpec (system_spec.rs)"


def _whole(number) -> str:
    """A figure in base units as an integer (PyYAML reads '3.35e12' as text)."""
    return str(int(round(number.value)))


FORMAT = PeerFormat("aiconfigurator", "NVIDIA AIConfigurator", "systems/<system>.yaml, one GPU per file", FIELDS,
                    NAMES, read, write, ".yaml", __doc__ or "", finds_data_by_name=True)
