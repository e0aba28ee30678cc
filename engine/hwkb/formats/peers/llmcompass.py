"""LLMCompass (github.com/PrincetonUniversity/LLMCompass): ``configs/*.json``, one device type per file.

A file describes ``device_count`` identical devices; ``template_to_system`` in
``design_space_exploration/dse.py:28-107`` (commit 2e015fd) reads it, and
``hardware_model/compute_module.py:137-145`` makes the systolic peak
``core_count x sublane_count x mac_per_cycle x 2 x array_height x array_width x
frequency_Hz``. Every figure is in base units (Hz, bytes, bit/s) except the
three sizes the code scales by binary prefixes:

field (under device unless named)                KB key (unit the tool reads)              read at (dse.py)
frequency_Hz                                     clock_tc (Hz)                             :65 clock_freq
compute_chiplet.core_count x compute_chiplet_count  sm_count                               :64
core.sublane_count                               partitions_per_sm                         :33, :58
core.systolic_array: sublane_count x array_height   tc_fma_per_sm_cycle[data_type]         :47-53, :58
  x array_width x mac_per_cycle                  (FMA/cycle, dense)
core.SRAM_KB                                     l1_smem_per_sm (KiB)                      :59 x 1024
io.global_buffer_MB                              l2_size (MiB)                             :66 x 1024 x 1024
io.memory_channel_active_count x pin_count_per_channel  memory_bus_bits                    :72-73
io.bandwidth_per_pin_bit                         memory_data_rate (bit/s)                  :74
memory.total_capacity_GB                         memory_size (GiB)                         :80 x 1024**3
interconnect.link.bandwidth_both_directions_byte  interconnect_link_bandwidth (B/s)        :89
interconnect.link_count_per_device               interconnect_links                        :101

The name table is keyed by the file's name, not the ``name`` field: every shipped
config calls itself "NVIDIA A100(80GB)x4", the design-space points too; a
file of another name is matched by its ``name`` when that is a KB entity id.
``data_type`` names the precision of the systolic arrays (``fp16`` in every
shipped config); the vector unit (its FLOP per cycle in its own data type),
the global-buffer bandwidth, latencies, packet sizes and process nodes have
no KB variable and are not mapped. Memory bandwidth is not a field: LLMCompass
derives it (channels x pins x bit rate / 8), and so does the KB.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

from hwkb.definitions.model import Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import LoadError
from hwkb.formats.peers.documents import NotHardwareFile, read_tree, text_of
from hwkb.formats.peers.entries import (NOT_A_PRODUCT, NameMatch, Number, PeerEntry, PeerField, PeerFormat, Written,
                                        json_text, printable, tool_figures)
from hwkb.formats.peers.entry_facts import build_entry

__all__ = ["FORMAT", "FIELDS", "NAMES"]

_D, _CC = ("device",), ("device", "compute_chiplet")
_CORE, _IO = _CC + ("core",), ("device", "io")
_SA = _CORE + ("systolic_array",)
_DSE = "design_space_exploration/dse.py"
FIELDS = (
    PeerField("frequency_Hz", _D + ("frequency_Hz",), "clock_tc", "Hz", f"{_DSE}:65 ComputeModule clock_freq"),
    PeerField("core_count", _CC + ("core_count",), "sm_count", "", f"{_DSE}:64 core_count x compute_chiplet_count",
              times=(_D + ("compute_chiplet_count",),), exact=True),
    PeerField("sublane_count", _CORE + ("sublane_count",), "partitions_per_sm", "", f"{_DSE}:58 systolic arrays per core",
              exact=True),
    PeerField("systolic_array", _SA + ("array_height",), "tc_fma_per_sm_cycle[{dtype}]", "FMA/cycle",
              "hardware_model/compute_module.py:137-145 sublanes x mac_per_cycle x 2 x height x width",
              times=(_SA + ("array_width",), _SA + ("mac_per_cycle",), _CORE + ("sublane_count",)), exact=True,
              dtype=_SA + ("data_type",), doc="dense"),
    PeerField("SRAM_KB", _CORE + ("SRAM_KB",), "l1_smem_per_sm", "KiB", f"{_DSE}:59 SRAM_KB * 1024"),
    PeerField("global_buffer_MB", _IO + ("global_buffer_MB",), "l2_size", "MiB", f"{_DSE}:66 global_buffer_MB * 1024 * 1024"),
    PeerField("memory_channel_active_count", _IO + ("memory_channel_active_count",), "memory_bus_bits", "",
              f"{_DSE}:72-73 active channels x pin_count_per_channel", times=(_IO + ("pin_count_per_channel",),),
              exact=True),
    PeerField("bandwidth_per_pin_bit", _IO + ("bandwidth_per_pin_bit",), "memory_data_rate", "bit/s", f"{_DSE}:74"),
    PeerField("total_capacity_GB", _D + ("memory", "total_capacity_GB"), "memory_size", "GiB",
              f"{_DSE}:80 total_capacity_GB * 1024**3", doc="read as GiB"),
    PeerField("bandwidth_both_directions_byte", ("interconnect", "link", "bandwidth_both_directions_byte"),
              "interconnect_link_bandwidth", "B/s", f"{_DSE}:89 LinkModule; software_model/communication_primitives.py:35"),
    PeerField("link_count_per_device", ("interconnect", "link_count_per_device"), "interconnect_links", "",
              f"{_DSE}:101", exact=True),
)

_DESIGN = ("a design point of LLMCompass's design-space exploration under the A100's name, not a product: "
           "audited against itself only")
#: by file name: LLMCompass's shipped configs all call themselves "NVIDIA A100(80GB)x4", whatever they model
#: (the design-space points generation_system, prefilling_system and latency_design too, and the GA102 template)
NAMES: Mapping[str, NameMatch] = {
    "template": NameMatch("a100", ("memory_size", "memory_data_rate", "memory_bandwidth"),
                          "the file is the 80 GB A100 (HBM2e); the KB's a100 is the 40 GB part, whose die it shares"),
    "GA100": NameMatch("ampere", (), "the file is the whole GA100 die; the KB's per-SM figures are Ampere's"),
    "mi210": NameMatch("mi210"),
    "mi210_template": NameMatch(NOT_A_PRODUCT, (), "a design-space template named 'AMD MI210' that keeps the A100's "
                                "108 cores, 1.41 GHz and 80 GB: not a product, audited against itself only"),
    **{stem: NameMatch(NOT_A_PRODUCT, (), _DESIGN)
       for stem in ("generation_system", "prefilling_system", "latency_design", "ga102_template")},
}


def read(path: Path, model: Model, units: Units) -> list[PeerEntry]:
    tree = read_tree(Path(path))
    if not isinstance(tree.value, dict) or not isinstance(tree.get("device") and tree.get("device").value, dict):
        raise NotHardwareFile("an LLMCompass config is an object with a 'device' object", where=tree.where,
                        hint="see LLMCompass's configs/template.json")
    stem = Path(path).stem
    name = text_of(tree.get("name"), "name") or stem
    names = {name: NAMES[stem]} if stem in NAMES else {}
    return [build_entry("llmcompass", "LLMCompass", name, tree, tree.where, FIELDS, names, model, units,
                        also_read=("name",))]


def write(name: str, figures: Mapping[VarKey, float], units: Units, na: Mapping[VarKey, str] = {}) -> Written:
    values, used, missing = tool_figures(FIELDS, figures, units)
    notes = []
    sms, partitions = figures.get("sm_count"), figures.get("partitions_per_sm")
    fma, bits = figures.get("tc_fma_per_sm_cycle[fp16]"), figures.get("memory_bus_bits")
    fma = None if fma is None else units.from_canonical(fma, "FMA/cycle")
    full = figures.get("sm_count_full", sms)
    height = width = None
    if fma is not None and partitions:
        height, width = _shape(round(fma / partitions))
        used["systolic_array"] = "tc_fma_per_sm_cycle[fp16]"
        notes.append(f"systolic_array: {height} x {width} per sublane is one shape of the KB's "
                     f"{printable(fma, True).text} FMA/cycle per SM; only the product is a KB figure")
    else:
        missing["systolic_array"] = "tc_fma_per_sm_cycle[fp16]"
    channels, pins = _channels(bits)
    for field, key, value in (("core_count", "sm_count", sms), ("memory_channel_active_count", "memory_bus_bits", bits)):
        (used if value is not None else missing)[field] = key
    link = figures.get("interconnect_link_bandwidth")
    half_link = None if link is None else printable(units.from_canonical(link, "B/s") / 2)
    document = {
        "name": name, "device_count": None,
        "interconnect": {"link": {"name": None, "bandwidth_per_direction_byte": half_link,
                                  "bandwidth_both_directions_byte": values[FIELDS[9].path], "latency_second": None,
                                  "flit_size_byte": None, "header_size_byte": None, "max_payload_size_byte": None},
                         "link_count_per_device": values[FIELDS[10].path], "topology": "FC"},
        "device": {
            "frequency_Hz": values[FIELDS[0].path], "compute_chiplet_count": 1,
            "compute_chiplet": {
                "physical_core_count": None if full is None else printable(full, True),
                "core_count": None if sms is None else printable(sms, True), "process_node": None,
                "core": {"sublane_count": values[FIELDS[2].path],
                         "systolic_array": {"array_width": _count(width), "array_height": _count(height),
                                            "data_type": "fp16", "mac_per_cycle": None if height is None else _count(1)},
                         "vector_unit": {"vector_width": None, "flop_per_cycle": None, "data_type": "fp16"},
                         "SRAM_KB": values[FIELDS[4].path]}},
            "memory_protocol": None,
            "io": {"process_node": None, "global_buffer_MB": values[FIELDS[5].path],
                   "physical_global_buffer_MB": values[FIELDS[5].path], "global_buffer_bandwidth_per_cycle_byte": None,
                   "memory_channel_physical_count": _count(channels), "memory_channel_active_count": _count(channels),
                   "pin_count_per_channel": _count(pins), "bandwidth_per_pin_bit": values[FIELDS[7].path]},
            "memory": {"total_capacity_GB": values[FIELDS[8].path]}}}
    notes.append("device_count, latencies, packet sizes, the vector unit, the global-buffer bandwidth and process "
                 "nodes are not KB figures: null, fill them in before LLMCompass reads the file")
    return Written(json_text(document) + "\n", used, missing, tuple(notes))


def _count(n: int | None) -> Number | None:
    return None if n is None else printable(n, True)


def _shape(per_sublane: int) -> tuple[int, int]:
    """An array height x width whose product is ``per_sublane``, as square as its divisors allow."""
    height = max(d for d in range(1, math.isqrt(per_sublane) + 1) if per_sublane % d == 0)
    return height, per_sublane // height


def _channels(bits: float | None) -> tuple[int | None, int | None]:
    """Channels and pins per channel for a bus: 1024-bit HBM stacks where the width allows, else one channel."""
    if bits is None:
        return None, None
    bits = int(round(bits))
    return (bits // 1024, 1024) if bits % 1024 == 0 else (1, bits)


FORMAT = PeerFormat("llmcompass", "LLMCompass", "configs/*.json, one device type per file", FIELDS, NAMES, read,
                    write, ".json", __doc__ or "",
                    tuple(dict.fromkeys(f.key.replace("{dtype}", "fp16") for f in FIELDS)) + ("sm_count_full",))
