"""GenZ-LLM-Analyzer (github.com/abhibambhaniya/GenZ-LLM-Analyzer): its systems, in a JSON form of our definition.

GenZ ships its systems only as a Python dict, ``system_configs`` in
``Systems/system_configs.py`` (commit 091bdd0); hwkb never runs Python, so the
format is that dict written as JSON: an object of system name -> the same
fields, e.g. ``{"H100_GPU": {"Flops": 989, "Memory_size": 80, "Memory_BW": 3400,
"ICN": 450, "real_values": true}}``. GenZ reads the fields in
``GenZ/LLM_inference/utils.py:90-107`` (``get_inference_system``) and converts
them through ``GenZ/unit.py``, whose bandwidth and memory prefixes are binary:

field          KB key (unit the tool reads)          where the tool reads it
Flops          tc_peak[bf16] (TFLOPS, dense)          unit 'Tflops' -> 1e12 (system.py:30, unit.py:21); the
                                                      bf16 multiplier is 1 (system.py:6): other precisions
                                                      scale from this figure
Memory_BW      memory_bandwidth (GiB/s!)              unit 'GBsec' -> 2**30 (unit.py:27, system.py:35)
Memory_size    memory_size (GiB)                      x 1024 'MB' of 2**20 (utils.py:107, unit.py:23)
ICN            interconnect_bandwidth / 2 (GiB/s!)    'GBsec' -> 2**30 (system.py:36); one direction of a ring
                                                      all-reduce (collective_times.py:16)

``ICN_LL`` (link latency, µs, system.py:37) has no KB variable; ``real_values``
must be true for GenZ to use the figures (utils.py:90). Flops is dense (the
H100 989, NVIDIA's dense BF16). Memory_BW in GiB/s means GenZ's H100 "3400"
is 3651 GB/s, and its ICN "450" per direction 483 GB/s: the binary prefix
is GenZ's own convention, and the audit names it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from hwkb.definitions.model import Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, QueryError
from hwkb.formats.peers.documents import NotHardwareFile, read_python_dict, read_tree
from hwkb.formats.peers.entries import (EXPORT_PREFIX, NameMatch, PeerEntry, PeerField, PeerFormat, Written, json_text,
                                        name_table, nest, tool_figures)
from hwkb.formats.peers.entry_facts import build_entry

__all__ = ["FORMAT", "FIELDS", "NAMES"]

FIELDS = (
    PeerField("Flops", ("Flops",), "tc_peak[bf16]", "TFLOPS", "GenZ/system.py:30 unit_to_raw(flops, 'C'): x 1e12",
              doc="dense BF16"),
    PeerField("Memory_BW", ("Memory_BW",), "memory_bandwidth", "GiB/s",
              "GenZ/system.py:35 unit_to_raw(offchip_mem_bw, 'BW'): x 2**30 (unit.py:27)", doc="read as GiB/s"),
    PeerField("Memory_size", ("Memory_size",), "memory_size", "GiB",
              "GenZ/LLM_inference/utils.py:107 per_chip_memory*1024 MB of 2**20", doc="read as GiB"),
    PeerField("ICN", ("ICN",), "interconnect_bandwidth", "GiB/s",
              "GenZ/system.py:36 interchip_link_bw x 2**30; collective_times.py:16 ring all-reduce",
              scale=2.0, doc="per direction, read as GiB/s"),
)

#: every system of system_configs.py (commit 091bdd0) whose product the KB holds; not held: B100
NAMES: Mapping[str, NameMatch] = name_table("""
    A100_40GB_GPU  a100
    A100_80GB_GPU  a100-80gb-sxm
    GH200_GPU      gh200-144gb
    GB200          gb200
    H100_GPU       h100-sxm
    TPUv6          tpu-v6e
    TPUv5e         tpu-v5e
    TPUv5p         tpu-v5p
    TPUv4          tpu-v4
    MI300X         mi300x
    MI325X         mi325x
    Gaudi3         gaudi3
""")


def read(path: Path, model: Model, units: Units) -> list[PeerEntry]:
    path = Path(path)
    tree = read_python_dict(path, "system_configs") if path.suffix == ".py" else read_tree(path)
    if not isinstance(tree.value, dict) or not tree.value:
        raise NotHardwareFile("a GenZ systems file is an object of system name -> fields", where=tree.where,
                              hint="GenZ's Systems/system_configs.py, or its dict as JSON: "
                                   '{"H100_GPU": {"Flops": 989, "Memory_size": 80, "Memory_BW": 3350, "ICN": 450}}')
    entries = []
    for name, system in tree.value.items():
        if not isinstance(system.value, dict):
            raise LoadError(f"system {name!r} must be a mapping of 'field: value'", where=system.where)
        entry = build_entry("genz", "GenZ", name, system, system.where, FIELDS, NAMES, model, units,
                            also_read=("real_values",), known=("ICN_LL", COMMENT))
        real = system.get("real_values")
        if real is None or real.value is not True:
            entry = entry.with_note("real_values is not true: GenZ does not use these figures (utils.py:90)")
        entries.append(entry)
    return entries


def write(name: str, figures: Mapping[VarKey, float], units: Units, na: Mapping[VarKey, str] = {}) -> Written:
    values, used, missing = tool_figures(FIELDS, figures, units)
    needed = [field for field in _COMPUTED_WITH if field in missing]
    if needed:
        raise QueryError(f"GenZ computes with {', '.join(needed)}, and the KB cannot settle "
                         f"{', '.join(missing[f] for f in needed)} for {name.removeprefix(EXPORT_PREFIX)}",
                         hint="a null there is a TypeError in GenZ (LLM_inference/utils.py:107, system.py:30-35) and a "
                              "missing key its .get default (Flops 320, Memory_BW 40, Memory_size 2000, utils.py:91-93); "
                              "state the figure in the KB, or write the system by hand")
    system = {**nest({path: value for path, value in values.items() if value is not None}), "real_values": True}
    notes = ()
    if "ICN" in missing:
        key = missing["ICN"]
        why = f"{key} is n/a on this GPU ({na[key]})" if key in na else f"the KB cannot settle {key}"
        comment = (f"ICN left out: {why}; GenZ takes its default ICN 150 (GiB/s, LLM_inference/utils.py:94) "
                   "in collectives at tensor or expert parallel > 1; not a KB figure")
        system[COMMENT] = comment
        notes = (comment,)
    return Written(json_text({name: system}) + "\n", used, missing, notes)


#: the fields GenZ's System does arithmetic with on every estimate (utils.py:107, system.py:30-35)
_COMPUTED_WITH = ("Flops", "Memory_BW", "Memory_size")
#: a key GenZ's get_inference_system does not read (it reads the dict by .get), where hwkb says what it left out
COMMENT = "comment"


FORMAT = PeerFormat("genz", "GenZ-LLM-Analyzer", "Systems/system_configs.py's dict as JSON: name -> fields", FIELDS,
                    NAMES, read, write, ".json", __doc__ or "")
