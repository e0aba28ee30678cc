"""The small KBs the audit's engine tests run on, and datasheets written the way a user would write them.

``GRID`` has three laws over six facts, built so that every fact sits in a
different set of checks (a perturbed fact is then always the only single
culprit), and one expectation. ``FAMILY`` has an architecture and its products,
an n/a fact, and two defaults tied by a law (a check of defaults alone). ``HINTS`` has the quantities the
hints know: a dense peak with a sparse twin, a bus in bits, a register file in
KiB and MiB.
"""
from __future__ import annotations

from pathlib import Path

from hwkb import KnowledgeBase
from hwkb.formats.load import load_entities

from conftest import kb_from_text

GRID = """
variables:
  n:            {unit: "", integer: true, doc: units on the chip}
  rate:         {unit: FMA/cycle, doc: multiply-adds per unit per cycle}
  clock:        {unit: GHz, doc: the clock}
  peak:         {unit: TFLOPS, doc: the chip's peak}
  cycles_total: {unit: GHz, doc: unit-cycles per second}
  unit_peak:    {unit: TFLOPS, doc: one unit's peak}
  boost:        {unit: GHz, doc: the boost clock}
rules:
  peak_law:
    doc: the peak is units x rate x clock
    eq: peak = n * rate * clock
    source: test
  cycles_law:
    doc: unit-cycles per second
    eq: cycles_total = n * clock
    source: test
  unit_peak_law:
    doc: one unit's peak
    eq: unit_peak = rate * clock
    source: test
  boost_is_clock:
    kind: expectation
    doc: the peak is stated at the boost clock
    eq: boost = clock
    source: test
"""

GRID_FACTS = ("n", "rate", "clock", "peak", "cycles_total", "unit_peak")

FAMILY = """
variables:
  n:      {unit: "", integer: true, doc: units on the chip}
  rate:   {unit: FMA/cycle, default: 2 FMA/cycle, doc: multiply-adds per unit per cycle}
  clock:  {unit: GHz, doc: the clock}
  peak:   {unit: TFLOPS, doc: the chip's peak}
  boost:  {unit: GHz, doc: the boost clock}
  lanes:  {unit: "", integer: true, doc: lanes per unit}
  width:  {unit: "", integer: true, doc: lanes on the chip}
  issue:  {unit: FMA/cycle, default: 2 FMA/cycle, doc: multiply-adds issued per unit per cycle}
rules:
  peak_law:
    doc: the peak is units x rate x clock
    eq: peak = n * rate * clock
    source: test
  width_law:
    doc: lanes on the chip
    eq: width = n * lanes
    source: test
  boost_is_clock:
    kind: expectation
    doc: the peak is stated at the boost clock
    eq: boost = clock
    source: test
  issue_is_rate:
    doc: every multiply-add issued retires
    eq: issue = rate
    source: test
"""

FAMILY_GPUS = """
arch:
  kind: architecture
  name: Test architecture
  facts:
    lanes: 32
chip:
  kind: product
  name: Test chip
  extends: arch
  facts:
    n: 100
    clock: 1.5 GHz
    peak: 0.6 TFLOPS
    boost: 1.5 GHz
    width: 3200
slow:
  kind: product
  name: Slow chip
  extends: arch
  facts:
    n: 100
    clock: 1.5 GHz
    peak: 0.9 TFLOPS
    lanes: n/a
    width: 3200
"""

HINTS = """
variables:
  n:                 {unit: "", integer: true, doc: SMs}
  rate:              {unit: FMA/cycle, doc: multiply-adds per SM per cycle}
  clock:             {unit: GHz, doc: the clock}
  peak:              {unit: TFLOPS, doc: dense peak}
  peak_sparse:       {unit: TFLOPS, doc: 2:4 sparse peak}
  bus_bits:          {unit: "", integer: true, doc: data pins}
  data_rate:         {unit: Gbit/s, doc: data rate of one pin}
  bandwidth:         {unit: GB/s, doc: memory bandwidth}
  register_file:     {unit: KiB, doc: register file of one SM}
  register_total:    {unit: MiB, doc: register files of all SMs}
rules:
  peak_law:
    doc: the peak is SMs x rate x clock
    eq: peak = n * rate * clock
    source: test
  bandwidth_law:
    doc: every data pin at its data rate
    eq: bandwidth = bus_bits * data_rate
    source: test
  register_law:
    doc: the register files add up
    eq: register_total = n * register_file
    source: test
"""


def make_kb(root: Path, rules: str, gpus: str = "{}\n") -> KnowledgeBase:
    """A KB of ``rules`` and the entities ``gpus`` in a new directory ``root``."""
    root.mkdir(parents=True)
    return kb_from_text(root, rules, gpus)


def sheet(kb: KnowledgeBase, tmp_path: Path, facts: dict[str, str], eid: str = "sheet", extends: str | None = None,
          name: str = "sheet.yaml"):
    """An entity file written the way a user would, loaded against ``kb``."""
    lines = [f"{eid}:", "  kind: datasheet"] + ([f"  extends: {extends}"] if extends else []) + ["  facts:"]
    lines += [f"    {k}: {v}" for k, v in facts.items()]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return load_entities(path, kb.model, kb.units)[eid]


def digits(x: float) -> str:
    """Eleven significant digits, printed so (``2.0000000000e-02``): the text says how exact it is."""
    return f"{x:.10e}"


def exact_facts(n: int, rate_k: int, clock_k: int) -> dict[str, str]:
    """A GRID sheet whose figures agree exactly."""
    rate, clock = rate_k / 1000, clock_k / 1000
    return {"n": str(n), "rate": f"{rate:.3f}", "clock": f"{clock:.3f}",
            "peak": digits(n * rate * clock * 2 / 1000), "cycles_total": digits(n * clock),
            "unit_peak": digits(rate * clock * 2 / 1000)}


def by_rule(entity_audit):
    return {c.rule: c for c in entity_audit.checks}
