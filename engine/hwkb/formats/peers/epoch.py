"""Epoch AI's Machine Learning Hardware data (epoch.ai/data/machine-learning-hardware): ``ml_hardware.csv``.

One row per accelerator; the header names each column with its unit, and
every figure is in base units (FLOP/s, OP/s, byte, byte/s, W, MHz, mm^2). The
rows' own notes make the tensor figures dense ("Performance figures are listed
without sparsity", the B100, B200 and B300 rows) and per GPU ("per GPU, not per
GB200 superchip"); the B300 row's intranode 1.8e12 byte/s is NVIDIA's NVLink 5
"1.8 TB/s", a two-way total. Epoch documents the dataset at
epoch.ai/data/machine-learning-hardware-documentation.
The layout read here is the CSV of December 2025 (38 columns); a column it
does not map is passed over, and a row is named by ``Hardware name``:

column                                          KB key
FP64 (double precision) performance (FLOP/s)    fp64_peak
FP32 (single precision) performance (FLOP/s)    fp32_peak
FP16 (half precision) performance (FLOP/s)      fp16_peak (non-tensor)
TF32 (TensorFloat-32) performance (FLOP/s)      tc_peak[tf32] (dense)
Tensor-FP16/BF16 performance (FLOP/s)           tc_peak[bf16] (dense)
FP8 performance (FLOP/s)                        tc_peak[fp8] (dense)
FP4 performance (FLOP/s)                        tc_peak[fp4] (dense)
INT8 performance (OP/s)                         tc_peak[int8] (dense)
Memory size per board (Byte)                    memory_size (named "Memory (bytes)" since 16 December 2025)
Memory bandwidth (byte/s)                       memory_bandwidth
Intranode bandwidth (byte/s)                    interconnect_bandwidth (two-way: B300 1.8e12, NVIDIA's NVLink 5)
Die Size (mm^2)                                 die_area
TDP (W)                                         tdp
Base clock (MHz) / Boost clock (MHz)            clock_base / clock_boost
Memory clock (MHz)                              memory_clock
Memory bus (bit)                                memory_bus_bits
Tensor cores                                    tensor_core_count
Transistors (millions)                          transistor_count (Mtransistor)

INT4 (no KB precision), INT16, internode bandwidth (the network), prices,
dates, foundry, process and Epoch's computed columns (Max performance,
Energy efficiency, Price-performance, ML OP/s, Total processing performance)
are not mapped. Epoch is a dataset, not a tool: there is no consuming code, so
each column's meaning is its header's unit and the rows' notes.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Iterator, Mapping

from hwkb.definitions.model import Model, VarKey
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, Location
from hwkb.formats.peers.documents import NotHardwareFile, cell_text, read_csv_cells
from hwkb.formats.peers.entries import NameMatch, PeerEntry, PeerField, PeerFormat, Written, name_table, tool_figures
from hwkb.formats.peers.entry_facts import CellLayout

__all__ = ["FORMAT", "FIELDS", "NAMES", "COLUMNS", "RENAMED"]

_DOC = "ml_hardware.csv header (the unit in the column's name)"


def _column(column: str, key: VarKey, unit: str, exact: bool = False, doc: str = "") -> PeerField:
    return PeerField(column, (column,), key, unit, _DOC, exact=exact, doc=doc)


FIELDS = (
    _column("FP64 (double precision) performance (FLOP/s)", "fp64_peak", "FLOPS"),
    _column("FP32 (single precision) performance (FLOP/s)", "fp32_peak", "FLOPS"),
    _column("FP16 (half precision) performance (FLOP/s)", "fp16_peak", "FLOPS", doc="non-tensor"),
    _column("TF32 (TensorFloat-32) performance (FLOP/s)", "tc_peak[tf32]", "FLOPS", doc="dense"),
    _column("Tensor-FP16/BF16 performance (FLOP/s)", "tc_peak[bf16]", "FLOPS", doc="dense"),
    _column("FP8 performance (FLOP/s)", "tc_peak[fp8]", "FLOPS", doc="dense"),
    _column("FP4 performance (FLOP/s)", "tc_peak[fp4]", "FLOPS", doc="dense"),
    _column("INT8 performance (OP/s)", "tc_peak[int8]", "FLOPS", doc="dense"),
    _column("Memory size per board (Byte)", "memory_size", "B"),
    _column("Memory bandwidth (byte/s)", "memory_bandwidth", "B/s"),
    _column("Intranode bandwidth (byte/s)", "interconnect_bandwidth", "B/s", doc="two-way"),
    _column("Die Size (mm^2)", "die_area", "mm^2"),
    _column("TDP (W)", "tdp", "W"),
    _column("Base clock (MHz)", "clock_base", "MHz"),
    _column("Boost clock (MHz)", "clock_boost", "MHz"),
    _column("Memory clock (MHz)", "memory_clock", "MHz"),
    _column("Memory bus (bit)", "memory_bus_bits", "", exact=True),
    _column("Tensor cores", "tensor_core_count", "", exact=True),
    _column("Transistors (millions)", "transistor_count", "Mtransistor"),
)

#: the CSV's header of December 2025, in order (what ``export`` writes)
COLUMNS = ("Hardware name", "Manufacturer", "Type", "Notes", "Release date", "Release price (USD)",
           "FP64 (double precision) performance (FLOP/s)", "FP32 (single precision) performance (FLOP/s)",
           "FP16 (half precision) performance (FLOP/s)", "TF32 (TensorFloat-32) performance (FLOP/s)",
           "Tensor-FP16/BF16 performance (FLOP/s)", "INT16 performance (OP/s)", "INT8 performance (OP/s)",
           "INT4 performance (OP/s)", "Memory size per board (Byte)", "Memory bandwidth (byte/s)",
           "Intranode bandwidth (byte/s)", "Internode bandwidth (bit/s)", "Die Size (mm^2)", "TDP (W)",
           "Base clock (MHz)", "Boost clock (MHz)", "Memory clock (MHz)", "Memory bus (bit)", "Tensor cores",
           "Process size (nm)", "Foundry", "Transistors (millions)", "Link to datasheet", "Source for the price",
           "ML models", "Last modified", "Max performance", "Energy efficiency", "FP8 performance (FLOP/s)",
           "FP4 performance (FLOP/s)", "Total processing performance (bit-OP/s)", "Price-performance", "ML OP/s")

#: a later layout's column -> the name this reader's fields use (Epoch renamed it in its CSV of 16 December 2025)
RENAMED: Mapping[str, str] = {"Memory (bytes)": "Memory size per board (Byte)"}

#: every row of the CSV of 16 December 2025 (and of the one before) whose product the KB holds; "NVIDIA A100" is
#: the 40 GB SXM4 part (400 W), "NVIDIA V100" the SXM2 (300 W); "NVIDIA P100" is the PCIe card (250 W), which
#: the KB does not hold, nor the GH100 die or the "MI300" of no suffix
NAMES: Mapping[str, NameMatch] = name_table("""
    NVIDIA H100 SXM5 80GB         h100-sxm
    NVIDIA H100 PCIe              h100-pcie
    NVIDIA H100 NVL               h100-nvl
    NVIDIA H200 SXM               h200-sxm
    NVIDIA GH200                  gh200-144gb
    NVIDIA HGX H20                h20
    NVIDIA A100                   a100
    NVIDIA A100 SXM4 40 GB        a100
    NVIDIA A100 SXM4 80 GB        a100-80gb-sxm
    NVIDIA A100 PCIe              a100-40gb-pcie
    NVIDIA A10 PCIe               a10
    NVIDIA L4                     l4
    NVIDIA L40                    l40
    NVIDIA RTX 6000 Ada Generation  rtx-6000-ada
    NVIDIA GeForce RTX 4090       rtx-4090
    NVIDIA V100                   v100
    NVIDIA GB200                  gb200
    NVIDIA B300 (Blackwell Ultra)   b300
    NVIDIA GB300 (Blackwell Ultra)  gb300
    AMD Instinct MI300A           mi300a
    AMD Instinct MI350X           mi350x
    Amazon Trainium2              trainium2
    Amazon Trainium3              trainium3
    Google TPU v7 Ironwood        tpu7x
    NVIDIA Tesla V100 SXM2        v100
    NVIDIA Tesla V100 SXM2 16 GB  v100
    NVIDIA Tesla V100 SXM2 32 GB  v100
    NVIDIA B200                   b200
    NVIDIA Tesla T4               t4
    NVIDIA Tesla P100 SXM2        p100
    AMD Instinct MI300X           mi300x
    AMD Instinct MI325X           mi325x
    AMD Instinct MI355X           mi355x
    AMD Radeon Instinct MI250X    mi250x
    Google TPU v4                 tpu-v4
    Google TPU v5e                tpu-v5e
    Google TPU v5p                tpu-v5p
    Google TPU v6e Trillium       tpu-v6e
    Intel Habana Gaudi3           gaudi3
    Intel Habana Gaudi2           gaudi2
    Intel Habana GAUDI HL-205     gaudi
""")


def read(path: Path, model: Model, units: Units) -> list[PeerEntry]:
    return list(entries(path, model, units))


def entries(path: Path, model: Model, units: Units) -> Iterator[PeerEntry]:
    """The rows' entries as they are read; the header is checked before the first is asked for."""
    path = Path(path)
    header, rows = read_csv_cells(path)
    if "Hardware name" not in header:
        raise NotHardwareFile("an Epoch hardware CSV has a 'Hardware name' column", where=Location(str(path), 1),
                        hint="the header is Epoch's ml_hardware.csv's first line")
    columns = [RENAMED.get(column, column) for column in header]
    for column, now in zip(header, columns):
        if column != now and now in header:
            raise LoadError(f"column {column!r} is {now!r} renamed, and the file gives both",
                            where=Location(str(path), 1),
                            hint="a CSV names each column once; which of the two is meant cannot be told")
    layout = CellLayout("epoch", "Epoch AI", columns, FIELDS, NAMES, model, units, also_read=("Hardware name",),
                        known=COLUMNS + tuple(RENAMED))
    return _entries(layout, header.index("Hardware name"), rows)


def _entries(layout: CellLayout, named: int, rows: Iterator[tuple[Location, list[str]]]) -> Iterator[PeerEntry]:
    for where, cells in rows:
        name = cell_text(cells[named], where, "Hardware name")
        if not name:
            raise LoadError("a row without a Hardware name", where=where)
        yield layout.entry(name, cells, where)


def write(name: str, figures: Mapping[VarKey, float], units: Units, na: Mapping[VarKey, str] = {}) -> Written:
    values, used, missing = tool_figures(FIELDS, figures, units)
    cells = {column: "" for column in COLUMNS}
    cells["Hardware name"] = name
    cells["Notes"] = "written by hwkb export: every figure sourced or derived in the KB; dense tensor figures"
    for f in FIELDS:
        number = values[f.path]
        cells[f.field] = "" if number is None else number.text
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerow([cells[c] for c in COLUMNS])
    return Written(out.getvalue(), used, missing, ())


FORMAT = PeerFormat("epoch", "Epoch AI Machine Learning Hardware", "ml_hardware.csv, one accelerator per row", FIELDS,
                    NAMES, read, write, ".csv", __doc__ or "", entries=entries)
