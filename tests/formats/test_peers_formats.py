"""hwkb.formats.peers: the five peer layouts read into facts (units as each tool's code reads them, printed
digits kept) and written back; bad files are one error at their file:line. Runs on the peers' test KB."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from conftest import FIXTURES
from hwkb import KnowledgeBase
from hwkb.errors import LimitError, LoadError, UnknownNameError
from hwkb.formats.peers.documents import read_csv_cells, read_csv_rows, read_tree, split_lines
from hwkb.definitions.model import half_unit
from hwkb.formats.peers.entries import printable
from hwkb.formats.peers.registry import FORMATS, peer_format, read_peer_files

PEERS = FIXTURES / "peers"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([PEERS / "kb"], default=False)


def read(kb, fmt: str, path) -> list:
    return list(read_peer_files(FORMATS[fmt], [path], kb.model, kb.units).entries)


def test_llm_analysis_reads_its_units_from_the_tools_code(kb):
    (entry,) = read(kb, "llm-analysis", PEERS / "llm-analysis" / "gpu-x.json")
    memory, peak, link = (entry.facts[k] for k in ("memory_size", "tc_peak[fp16]", "interconnect_bandwidth"))
    assert (memory.value, memory.unit, memory.text) == (74.5058, "GiB", "74.5058")  # x 1024**3 in the tool
    assert (peak.value, peak.unit, peak.rounding) == (204.8, "TFLOPS", 0.05)
    assert (link.value, link.unit, link.rounding) == (600, "GB/s", 10.0)  # '300' read to 2 figures, x 2 both ways
    assert entry.match.entity == "gpu-x" and "peak_i8_TFLOPS is 0: read as not given" in entry.notes
    assert memory.where.line == 3 and memory.source.endswith("gpu-x.json: gpu-x (mem_per_GPU_in_GB)")


def test_genz_reads_binary_bandwidths_and_one_entry_per_system(kb):
    entries = read(kb, "genz", PEERS / "genz" / "systems.json")
    assert [e.name for e in entries] == ["gpu-x", "Unlisted_GPU"] and entries[1].match is None
    bandwidth = entries[0].facts["memory_bandwidth"]
    assert (bandwidth.unit, kb.units.to_canonical(bandwidth.value, bandwidth.unit) / 8e9) == ("GiB/s", pytest.approx(2000, rel=1e-6))


def test_llmcompass_multiplies_the_fields_the_tool_multiplies(kb):
    (entry,) = read(kb, "llmcompass", PEERS / "llmcompass" / "gpu-x.json")
    fma = entry.facts["tc_fma_per_sm_cycle[fp16]"]
    assert (fma.value, fma.unit, fma.rounding) == (1024, "FMA/cycle", 0.0)  # 4 sublanes x 16 x 16 x 1, exact
    assert entry.facts["memory_bus_bits"].value == 5120 and entry.facts["sm_count"].value == 100
    assert entry.facts["clock_tc"].rounding == 5e7  # '1000e6': its zeros say nothing, read to 2 figures (1.0e9)


def test_llmcompass_names_a_data_type_it_cannot_map(kb, tmp_path):
    data = json.loads((PEERS / "llmcompass" / "gpu-x.json").read_text())
    data["device"]["compute_chiplet"]["core"]["systolic_array"]["data_type"] = "posit8"
    path = tmp_path / "x.json"
    path.write_text(json.dumps(data))
    (entry,) = read(kb, "llmcompass", path)
    assert not any(k.startswith("tc_fma") for k in entry.facts)
    assert any("'posit8' has no KB precision" in n for n in entry.notes)


def test_aiconfigurator_names_the_system_by_its_file(kb):
    (entry,) = read(kb, "aiconfigurator", PEERS / "aiconfigurator" / "gpu-x.yaml")
    assert entry.name == "gpu-x" and entry.facts["memory_bandwidth"].unit == "B/s"
    assert entry.facts["interconnect_bandwidth"].value == 600e9


def test_epoch_rows_keep_their_first_line_across_quoted_newlines(kb):
    entries = read(kb, "epoch", PEERS / "epoch" / "ml_hardware.csv")
    assert [(e.name, e.where.line) for e in entries] == [("gpu-x", 2), ("Unlisted chip", 4)]
    assert entries[0].facts["tc_peak[bf16]"].unit == "FLOPS" and "tdp" in entries[0].facts


@pytest.mark.parametrize("text, message, line", [
    ('{"name": "x",\n "peak_fp16_TFLOPS": 1,,}', "malformed JSON", 2),
    ('{"name": "x",\n "peak_fp16_TFLOPS": "fast"}', "peak_fp16_TFLOPS must be a number", 2),
    ('{"name": "x",\n "hbm_bandwidth_in_GB_per_sec": -1}', "must not be negative", 2),
    ('{"name": "x", "name": "y"}', "duplicate key 'name'", 1),
    ('[1, 2]', "not an llm-analysis GPU config", 1),
])
def test_a_bad_llm_analysis_file_is_one_error_at_its_line(kb, tmp_path, text, message, line):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(LoadError) as info:
        read(kb, "llm-analysis", path)
    assert message in str(info.value) and info.value.where.file == str(path) and info.value.where.line == line


def test_unknown_fields_are_named_with_the_nearest(kb, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"gpu-x": {"Flop": 1, "Memory_BW": 2000}}')
    (entry,) = read(kb, "genz", path)
    assert entry.unread == ("Flop (did you mean 'Flops'?)",) and list(entry.facts) == ["memory_bandwidth"]


@pytest.mark.parametrize("fmt, name, text, message", [
    ("aiconfigurator", "x.yaml", "gpu: [1, 2\n", "malformed YAML"),
    ("aiconfigurator", "x.yaml", "node: {}\n", "no 'gpu' mapping: not an AIConfigurator system file"),
    ("aiconfigurator", "x.yaml", "gpu:\n  mem_bw: .inf\n", "not a decimal number"),
    ("aiconfigurator", "x.yaml", "gpu:\n  mem_bw: 1e400\n", "not a finite number"),
    ("llmcompass", "x.json", '{"name": "x"}', "a 'device' object"),
    ("genz", "x.json", "[]", "an object of system name"),
    ("epoch", "x.csv", "Name,TDP (W)\nx,1\n", "a 'Hardware name' column"),
    ("epoch", "x.csv", "Hardware name,TDP (W)\nx,1,2\n", "a row of 3 cells"),
    ("epoch", "x.csv", 'Hardware name,TDP (W)\n"x\x1b[2J",1\n', "control character"),
    ("epoch", "x.csv", "", "no header line"),
    ("llm-analysis", "x.json", "", "malformed JSON"),
])
def test_bad_files_of_every_format(kb, tmp_path, fmt, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(LoadError, match=message):
        read(kb, fmt, path)


def test_files_that_are_not_there_or_too_big(kb, tmp_path):
    with pytest.raises(LoadError, match="no such file"):
        read(kb, "epoch", tmp_path / "missing.csv")
    with pytest.raises(LoadError, match="not a regular file"):
        read(kb, "genz", tmp_path)
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "a" * (2 ** 20 + 10) + '"}')
    with pytest.raises(LimitError):
        read(kb, "llm-analysis", big)


def test_an_alias_bomb_is_refused_not_expanded(kb, tmp_path):
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
              for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\ngpu: {mem_bw: 1}\n")
    with pytest.raises(LimitError, match="YAML nodes"):
        read(kb, "aiconfigurator", path)


def test_a_format_name_is_checked_with_suggestions():
    with pytest.raises(UnknownNameError, match="did you mean 'llm-analysis'"):
        peer_format("llm_analysis")


def test_trees_and_rows_keep_places(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a:\n  b: 1410e6\n  c: '12'\n  d: null\n")
    tree = read_tree(path)
    b, c, d = (tree.get("a", k) for k in "bcd")
    assert (b.value, b.text, b.where.line, b.where.col) == (1410e6, "1410e6", 2, 6)
    assert (c.value, c.text, d.value) == ("12", None, None)
    path = tmp_path / "x.csv"
    path.write_text('h,n\n"a\nb",2.5\n')
    header, rows = read_csv_rows(path)
    assert header == ["h", "n"] and rows[0]["n"].value == 2.5 and rows[0]["h"].where.line == 2


def test_csv_cells_come_a_row_at_a_time_each_checked(tmp_path):
    """The cells stream: a row's fault is raised when the row is reached, at its line."""
    path = tmp_path / "x.csv"
    path.write_text('h,n\n"a\nb",2.5\n,\nc,\n', encoding="utf-8")
    header, rows = read_csv_cells(path)
    assert header == ["h", "n"] and [(w.line, cells) for w, cells in rows] == [(2, ["a\nb", "2.5"]), (5, ["c", ""])]
    path.write_text("h,n\na,1\nb,2,3\n", encoding="utf-8")
    header, rows = read_csv_cells(path)
    assert next(rows)[1] == ["a", "1"]
    with pytest.raises(LoadError, match="a row of 3 cells under a header of 2") as caught:
        next(rows)
    assert caught.value.where.line == 3


@pytest.mark.parametrize("x", [1.8299404e9, 74.50580596923828, 1234565.7, 3.35e12, 0.1 + 0.2, 989.4, 5.234375e9])
def test_a_written_figure_encloses_the_value_within_its_last_digit(x):
    number = printable(x)
    assert abs(float(number.text) - x) <= half_unit(number.text)
    assert printable(x, exact=True).text == str(round(x))


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_writer_writes_a_file_its_reader_reads_back(kb, tmp_path, fmt):
    figures = {"tc_peak[bf16]": 2.048e14, "tc_peak[fp16]": 2.048e14, "memory_bandwidth": 1.6e13, "sm_count": 100.0,
               "tc_fma_per_sm_cycle[fp16]": 2048.0, "partitions_per_sm": 4.0, "clock_tc": 1e9,
               "memory_size": 80.0 * 2 ** 30, "interconnect_bandwidth": 6e11}
    written = FORMATS[fmt].write("gpu-x", figures, kb.units)
    path = tmp_path / f"gpu-x{FORMATS[fmt].suffix}"
    path.write_text(written.text)
    (entry,) = read(kb, fmt, path)
    for key, fact in entry.facts.items():
        assert kb.units.to_canonical(fact.value, fact.unit) == pytest.approx(figures[key], rel=1e-5), key  # six digits
    assert set(written.used.values()) <= set(figures) and set(written.missing.values()).isdisjoint(figures)


def test_the_epoch_writer_keeps_epochs_header(kb):
    written = FORMATS["epoch"].write("gpu-x", {"tdp": 400.0}, kb.units)
    header, row = list(csv.reader(io.StringIO(written.text)))
    assert header[0] == "Hardware name" and len(header) == len(row) == 39 and row[header.index("TDP (W)")] == "400"


def test_the_docs_name_every_format_and_field():
    text = (FIXTURES.parents[1] / "docs" / "peer_formats.md").read_text(encoding="utf-8")
    for fmt in FORMATS.values():
        assert f"`{fmt.name}`" in text
        for field in fmt.fields:
            assert field.field.rsplit(".", 1)[-1] in text, (fmt.name, field.field)


@pytest.mark.parametrize("source, message", [
    ("system_configs = {**other}\n", "1:21: a key must be a quoted name"),
    ("system_configs = {'a': {'Flops': 1e999}}\n", "1:34: '1e999' is not a finite number"),
    ("system_configs = {'a': {'Flops': 0x10}}\n", "1:34: '0x10' is not a decimal number"),
    ("system_configs = {'a': {'Flops': 3j}}\n", "1:34: a complex where hwkb reads numbers, texts and mappings"),
    ("system_configs = [1]\n", "1:18: system_configs is not a dict literal"),
    ("x = 1\n", "1: no assignment to 'system_configs' in the module"),
    ("system_configs = {'a': {'Flops': 1" + "0" * 5000 + "}}\n", "not valid Python: Exceeds the limit"),
    ("system_configs = {'a': {}, 'a': {}}\n", "1:28: duplicate key 'a'"),
])
def test_genz_python_is_read_never_run_and_refused_at_its_place(tmp_path, source, message):
    from hwkb.formats.peers.documents import read_python_dict
    path = tmp_path / "system_configs.py"
    path.write_text(source)
    with pytest.raises(LoadError) as info:
        read_python_dict(path, "system_configs")
    assert str(info.value).startswith(f"{path}:") and message in str(info.value)


@given(st.lists(st.sampled_from(["a", ",", "\r", "\n", "\r\n", '"', "\u2028", "\x0b", "\x1c", "\ufeff"]), max_size=40),
       st.lists(st.integers(0, 40), max_size=6))
def test_a_csv_read_in_pieces_splits_its_lines_as_a_file_opened_with_newline_empty(chars, cuts):
    text = "".join(chars)
    cuts = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert list(split_lines(iter(pieces))) == list(io.StringIO(text.removeprefix("\ufeff"), newline=""))


def test_a_plain_epoch_row_reads_as_its_cells_do_the_full_way(real_kb):
    """A row whose mapped figures are all plain keeps its canonical numbers and makes its facts when asked: the
    same facts, fields, text and numbers as reading each cell into a Fact (:meth:`CellLayout._stated`)."""
    from hwkb.audit.rows import fact_numbers
    from hwkb.formats.peers.epoch import COLUMNS, FIELDS, NAMES
    from hwkb.formats.peers.entry_facts import CellLayout
    from hwkb.errors import Location
    layout = CellLayout("epoch", "Epoch AI", COLUMNS, FIELDS, NAMES, real_kb.model, real_kb.units,
                        also_read=("Hardware name",), known=COLUMNS)
    place = {c: i for i, c in enumerate(COLUMNS)}
    rows = {"plain": {"TDP (W)": "400.0", "Tensor cores": "528", "Memory bandwidth (byte/s)": "3352000000000.0001",
                      "FP16 (half precision) performance (FLOP/s)": "1.2345678901234567e+14", "Price-performance": "x"},
            "an infinite figure": {"TDP (W)": "inf", "Die Size (mm^2)": "814"},
            "a zero": {"TDP (W)": "0", "Die Size (mm^2)": "814"},
            "a count not whole": {"Tensor cores": "52.5"}}
    read = {}
    for name, given in rows.items():
        cells = [""] * len(COLUMNS)
        for column, text in given.items():
            cells[place[column]] = text
        where = Location("rows.csv", 2)
        try:
            full = layout._stated(name, cells, where).entry(layout.names, layout.unread)
        except LoadError as error:
            with pytest.raises(LoadError, match=re.escape(error.message)):
                layout.entry(name, cells, where)
            read[name] = "error"
            continue
        entry = layout.entry(name, cells, where)
        read[name] = entry.canonical is not None
        assert (dict(entry.facts), dict(entry.fields), dict(entry.written), entry.notes, entry.match) == (
            full.facts, full.fields, full.written, full.notes, full.match)
        if entry.canonical is not None:
            assert entry.canonical.mid == fact_numbers(real_kb.model, real_kb.units, full.facts)[0]
            assert list(entry.canonical.keys) == list(full.facts)
    assert read == {"plain": True, "an infinite figure": True, "a zero": False, "a count not whole": "error"}


def test_an_entry_set_at_once_equals_one_made_field_by_field():
    import dataclasses
    from hwkb.errors import Location
    from hwkb.formats.peers.entries import CanonicalFigures, PeerEntry
    figures = CanonicalFigures(("tdp",), {"tdp": 400.0})
    args = ("epoch", "gpu", Location("x.csv", 2), {"tdp": 1}, {"tdp": 2}, None, {"tdp": "400"}, ("Notes",), figures)
    at_once = PeerEntry.at_once(*args)
    plain = PeerEntry(*args[:6], (), args[6], args[7], canonical=figures)
    assert plain.id == at_once.id == "epoch:gpu"
    assert at_once == plain and vars(at_once) == vars(plain)
    assert set(vars(at_once)) == {f.name for f in dataclasses.fields(PeerEntry)} | {"id"}
    assert dataclasses.replace(at_once, name="other").id == "epoch:other"


@given(st.text(alphabet=st.sampled_from("aeinfty_.0123456789+-INFé\x1b\u0662x "), max_size=10)
       | st.sampled_from(["inf", "Infinity", "NaN", "nan1", "e5", "NVIDIA H100", "٢٠٤٨"]))
def test_a_name_cell_reads_as_any_cell_does(text):
    """cell_text, which takes a cell opening with a letter as text without trying it as a number, says what
    text_of(cell_item(...)) says: the text, None, or the same error."""
    from hwkb.errors import KBError, Location
    from hwkb.formats.peers.documents import cell_item, cell_text, text_of
    where = Location("x.csv", 3)

    def outcome(read):
        try:
            return read()
        except KBError as error:
            return type(error), str(error)
    assert outcome(lambda: cell_text(text, where, "Hardware name")) == outcome(
        lambda: text_of(cell_item(text, where), "Hardware name") if text else None)


def _rows_as_csv_reads_them(text: str):
    """read_csv_cells' rows of ``text`` the plain way, every line through ``csv.reader``: (line, cells) each, or
    ("width", line) at the first row of the wrong width."""
    reader = csv.reader(io.StringIO(text, newline=""))
    width = len(next(reader))
    rows, start = [], reader.line_num + 1
    for cells in reader:
        line, start = start, reader.line_num + 1
        cells = [c.strip() for c in cells]
        if not any(cells):
            continue
        if len(cells) != width:
            return ("width", line)
        rows.append((line, cells))
    return rows


@given(st.lists(st.tuples(st.lists(st.sampled_from(["a", ",", " ", '"', "\x00", "\t", "\x0b", "\u2028", "é", "1.5"]),
                                   max_size=12).map("".join),
                          st.sampled_from(["\n", "\r\n", "\r", ""])), max_size=12))
def test_csv_rows_their_cells_and_lines_are_csv_readers_over_any_text(tmp_path_factory, lines):
    """read_csv_cells' rows, their stripped cells and their line numbers (blank rows passed over, a row of the
    wrong width an error at its first line) are csv.reader's over the whole text, for any text: quotes running over
    lines, NULs, every line ending."""
    text = "a,b,c\n" + "".join(body + end for body, end in lines)
    path = tmp_path_factory.mktemp("csv") / "rows.csv"
    path.write_text(text, encoding="utf-8", newline="")
    expected = _rows_as_csv_reads_them(text)
    if isinstance(expected, tuple):
        with pytest.raises(LoadError, match="cells under a header of 3") as info:
            list(read_csv_cells(path)[1])
        assert info.value.where.line == expected[1]
    else:
        assert [(where.line, cells) for where, cells in read_csv_cells(path)[1]] == expected


_NUMBER_TEXTS = st.builds(
    lambda sign, digits, point, exponent: sign + (digits[:point] + "." + digits[point:] if point is not None
                                                 else digits) + exponent,
    st.sampled_from(["", "+"]), st.text("0123456789", min_size=1, max_size=22),
    st.one_of(st.none(), st.integers(0, 22)),
    st.one_of(st.just(""), st.builds(lambda e, s, d: e + s + d, st.sampled_from(["e", "E"]),
                                     st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=1, max_size=3))))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_NUMBER_TEXTS, min_size=3, max_size=3))
@example(["671000000000000.0", "289856000000000.0", "999999999999000000.0"])  # whole, 12 digits or fewer
@example(["1000000000000000000.0", "1271225599999.9998", "123456789012300000"])  # 10^18; noise; 12 digits
@example(["1.2345678901230000e+17", "1234567890123000000", "9007199254740993000000"])
def test_a_plain_row_reads_any_figure_to_twelve_digits_as_its_fact_does(real_kb, texts):
    """A plain row's canonical figure is its Fact's, for any decimal text: a text of more than 12 significant
    digits read to 12 (as _Stated.add reads it), one of 12 or fewer as it is, whatever its length, zeros and
    exponent."""
    from hwkb.audit.rows import fact_numbers
    from hwkb.formats.peers.epoch import COLUMNS, FIELDS, NAMES
    from hwkb.formats.peers.entry_facts import CellLayout
    from hwkb.errors import Location
    layout = CellLayout("epoch", "Epoch AI", COLUMNS, FIELDS, NAMES, real_kb.model, real_kb.units,
                        also_read=("Hardware name",), known=COLUMNS)
    cells = [""] * len(COLUMNS)
    for column, text in zip(("Memory bandwidth (byte/s)", "TDP (W)", "Transistors (millions)"), texts):
        cells[COLUMNS.index(column)] = text
    try:
        entry = layout.entry("gpu", cells, Location("rows.csv", 2))
    except (LoadError, LimitError):  # a negative figure, or one beyond the magnitude limit: an error either way
        return
    if entry.canonical is not None:
        full = layout._stated("gpu", cells, Location("rows.csv", 2))
        assert entry.canonical.mid == fact_numbers(real_kb.model, real_kb.units, full.facts)[0]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from("aZ #-é\x00\x1b\x7f\x85\x9f\xa0\xad\u200b\u2028\ud800\U0001f600"),
               min_size=1, max_size=8))
def test_a_plain_rows_name_is_escaped_as_any_printed_name(real_kb, name):
    """A plain row's name, passed over when printable, is what escaped() makes of it, for any name."""
    from hwkb.errors import Location, escaped
    from hwkb.formats.peers.epoch import COLUMNS, FIELDS, NAMES
    from hwkb.formats.peers.entry_facts import CellLayout
    layout = CellLayout("epoch", "Epoch AI", COLUMNS, FIELDS, NAMES, real_kb.model, real_kb.units,
                        also_read=("Hardware name",), known=COLUMNS)
    cells = [""] * len(COLUMNS)
    cells[COLUMNS.index("TDP (W)")] = "300"
    entry = layout.entry(name, cells, Location("rows.csv", 2))
    assert entry.canonical is not None and entry.name == escaped(name) and entry.id == f"epoch:{escaped(name)}"
