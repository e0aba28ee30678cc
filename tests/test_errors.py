"""hwkb.errors: one-line messages that carry their data."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from hwkb import errors
from hwkb.errors import (ContextError, DimensionError, ExpressionError, KBError, KBErrors, LoadError, Location,
                         MissingExtraError, NoClosedForm, NotDetermined, QueryError, SimulationInputError, UnitError,
                         UnknownNameError, UsageError, suggest)


def test_all_names_exist():
    assert sorted(errors.__all__) == sorted([
        "Location", "KBError", "LoadError", "NotHardwareFile", "ExpressionError", "UnitError", "DimensionError",
        "UnknownNameError", "ContextError", "QueryError", "NotDetermined", "NoClosedForm", "UnevaluablePoint",
        "SimulationInputError", "MissingExtraError", "UsageError", "LimitError", "OutsideLimit", "CacheRefused",
        "KBErrors", "suggest", "escaped", "markdown_text"])
    for name in errors.__all__:
        assert hasattr(errors, name)


@pytest.mark.parametrize("cls, parent", [
    (LoadError, KBError), (ExpressionError, LoadError), (UnitError, KBError), (DimensionError, UnitError),
    (UnknownNameError, KBError), (ContextError, KBError), (QueryError, KBError), (KBErrors, KBError),
    (NotDetermined, QueryError), (NoClosedForm, QueryError), (SimulationInputError, KBError),
    (SimulationInputError, ValueError), (MissingExtraError, KBError), (UsageError, KBError), (KBError, Exception),
])
def test_hierarchy(cls, parent):
    assert issubclass(cls, parent)


@pytest.mark.parametrize("where, text", [
    (Location("kb/gpus/nvidia.yaml", 12, 5), "kb/gpus/nvidia.yaml:12:5"),
    (Location("kb/gpus/nvidia.yaml", 12), "kb/gpus/nvidia.yaml:12"),
    (Location("kb/gpus/nvidia.yaml"), "kb/gpus/nvidia.yaml"),
    (Location("kb/gpus/nvidia.yaml", None, 5), "kb/gpus/nvidia.yaml"),
    (Location("--set"), "--set"),
])
def test_location_prints_file_line_col(where, text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert str(where) == text


def test_location_is_shown_relative_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "rules").mkdir()
    monkeypatch.chdir(tmp_path)
    assert str(Location(str(tmp_path / "rules" / "x.yaml"), 3, 1)) == "rules/x.yaml:3:1"


def test_location_outside_the_working_directory_stays_absolute(tmp_path, monkeypatch):
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.chdir(inner)
    assert str(Location(str(tmp_path / "x.yaml"), 3)) == f"{tmp_path / 'x.yaml'}:3"


def test_locations_order_by_file_then_line_then_col():
    a, b, c = Location("a.yaml", 2, 9), Location("a.yaml", 10, 1), Location("b.yaml", 1, 1)
    assert sorted([c, b, a]) == [a, b, c]


def test_location_is_frozen():
    with pytest.raises(AttributeError):
        Location("a.yaml").line = 3


@pytest.mark.parametrize("error, text", [
    (KBError("bad"), "bad"),
    (KBError("bad", hint="do this"), "bad; do this"),
    (KBError("bad", where=Location("f.yaml", 3, 4)), "f.yaml:3:4: bad"),
    (KBError("bad", where=Location("f.yaml", 3, 4), hint="do this"), "f.yaml:3:4: bad; do this"),
])
def test_one_line_format(error, text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert str(error) == text
    assert "\n" not in str(error)


def test_error_carries_its_fields():
    where = Location("f.yaml", 3, 4)
    e = UnitError("unknown unit 'GHzz'", where=where, hint="units are defined in units.txt")
    assert (e.message, e.where, e.hint) == ("unknown unit 'GHzz'", where, "units are defined in units.txt")


def test_as_dict_keeps_the_file_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    e = LoadError("duplicate key 'x'", where=Location(str(tmp_path / "f.yaml"), 3, 4), hint="keep one")
    assert e.to_dict() == {"file": str(tmp_path / "f.yaml"), "line": 3, "column": 4, "message": "duplicate key 'x'",
                           "hint": "keep one"}
    assert str(e) == "f.yaml:3:4: duplicate key 'x'; keep one"  # the text shows it from the working directory
    assert KBError("bad").to_dict() == {"file": None, "line": None, "column": None, "message": "bad", "hint": None}


def test_unknown_name_suggests_the_nearest():
    e = UnknownNameError("variable", "sm_cout", ["sm_count", "clock_tc", "sm_count_full"])
    assert (e.kind, e.name, e.suggestions) == ("variable", "sm_cout", ["sm_count", "sm_count_full"])
    assert str(e) == "unknown variable 'sm_cout'; did you mean 'sm_count' or 'sm_count_full'?"


def test_unknown_name_without_a_close_one_lists_a_short_table():
    e = UnknownNameError("precision value", "fp32", ("fp16", "bf16"), where=Location("f.yaml", 6, 5))
    assert e.suggestions == []
    assert str(e) == "f.yaml:6:5: unknown precision value 'fp32'; one of fp16, bf16"


def test_unknown_name_without_a_close_one_in_a_long_table_has_no_hint():
    known = [f"name{i}" for i in range(errors.MAX_LISTED + 1)]
    e = UnknownNameError("variable", "zzz", known)
    assert (str(e), e.hint) == ("unknown variable 'zzz'", None)


def test_unknown_name_takes_any_iterable_once():
    e = UnknownNameError("entity", "h100", iter(["h100-sxm", "h100-pcie", "b200"]))
    assert str(e) == "unknown entity 'h100'; did you mean 'h100-sxm' or 'h100-pcie'?"


def test_kb_errors_sorts_by_place_and_prints_one_line_each(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    late = LoadError("late", where=Location("b.yaml", 1, 1))
    early = LoadError("early", where=Location("a.yaml", 9, 1))
    nowhere = KBError("nowhere")
    e = KBErrors([late, nowhere, early])
    assert e.errors == [nowhere, early, late]
    assert str(e) == "nowhere\na.yaml:9:1: early\nb.yaml:1:1: late"
    assert e.message == "3 error(s) in the knowledge base"


@pytest.mark.parametrize("name, known, expected", [
    ("sm_cout", ["sm_count", "clock_tc", "sm_count_full"], ["sm_count", "sm_count_full"]),
    ("clok_tc", ["clock_tc", "clock_fp32", "clock_boost"], ["clock_tc"]),   # clock_boost is a word further
    ("zzz", ["clock_tc"], []),
    ("a", [], []),
])
def test_suggest(name, known, expected):
    assert suggest(name, known) == expected


ENTITIES = ["volta", "v100", "p100", "a100", "h100-sxm", "h100-pcie", "b200", "mi300x"]


@pytest.mark.parametrize("name, known, spellings, expected", [
    ("h100", ENTITIES, None, ["h100-sxm", "h100-pcie"]),            # a word of the name, not a letter off another
    ("H100_SXM", ENTITIES, None, ["h100-sxm"]),                     # case and - or _
    ("sxm_h100", ENTITIES, None, ["h100-sxm"]),                     # word order
    ("h100sxm", ENTITIES, None, ["h100-sxm"]),                      # words run together
    ("peak_bf16", ["tc_peak_fp16_acc", "tc_peak[fp16]", "tc_peak[bf16]"], None, ["tc_peak[bf16]"]),  # index: a word
    ("bf61", ["fp16", "bf16", "fp8"], None, ["bf16"]),               # two letters swapped are one edit
    ("matrix_peek", ["tc_peak", "tc_peak[bf16]", "sm_count"],         # by an alias, in the nearest spelling, once
     {"matrix_peak": "tc_peak", "matrix_peak[bf16]": "tc_peak[bf16]"}, ["matrix_peak"]),
    ("cu_cont", ["sm_count", "clock_tc"], {"cu_count": "sm_count"}, ["cu_count"]),
    ("tc_peek", ["tc_peak", "sm_count"], {"matrix_peak": "tc_peak"}, ["tc_peak"]),
    ("mm", ["n", "m"], None, ["m"]),                                   # one letter off a short name is near
])
def test_suggest_ranks_by_edit_distance_over_words_and_aliases(name, known, spellings, expected):
    assert suggest(name, known, spellings=spellings) == expected


def test_an_unknown_name_lists_the_names_not_their_spellings():
    error = UnknownNameError("variable", "zzz", ["sm_count", "clock_tc"], spellings={"cu_count": "sm_count"})
    assert error.hint == "one of sm_count, clock_tc" and error.suggestions == []


def test_suggest_gives_at_most_n_best_first():
    assert suggest("abcd", ["abcdxyz", "abc", "abcde", "abcd1"], n=2) == ["abcde", "abcd1"]


@pytest.mark.parametrize("error, text", [
    (DimensionError("[time]", "[time]/[cycle]"), "the left side is [time], the right side [time]/[cycle]"),
    (DimensionError("[time]", "[bit]", operation="'+'"), "'+' joins [time] and [bit]"),
    (DimensionError("[time]", operation="exp()"), "exp() of [time]"),
    (DimensionError("[bit]", operation="**"), "an exponent of [bit]"),
    (DimensionError("[bit]", operation="power"), "[bit] raised to a variable power"),
    (DimensionError("[time]", "[bit]", rule="peak[bf16]"), "rule peak[bf16] does not balance: the left side is [time], "
                                                           "the right side [bit]"),
])
def test_a_dimension_error_is_built_from_its_dimensions(error, text):
    assert error.message == text
    assert error.in_rule("r", Location("f.yaml", 3)).rule == "r"


def test_errors_carry_their_data():
    missing = MissingExtraError("matplotlib", "plot", "plotting")
    assert (missing.module, missing.extra, missing.feature) == ("matplotlib", "plot", "plotting")
    assert str(missing) == ("plotting needs matplotlib, which is not installed; "
                            "install it with: pip install matplotlib (hwkb's 'plot' extra)")
    needs = NotDetermined("x does not follow", [("a", "b"), ("c",)])
    assert needs.needs == (("a", "b"), ("c",)) and needs.hint == "also give one of {a, b} or {c}"
    bad = SimulationInputError("warps", 0, "a positive integer")
    assert (bad.parameter, bad.value, str(bad)) == ("warps", 0, "warps must be a positive integer, got 0")


def test_placing_an_error_keeps_a_place_it_has():
    error = UnitError("unknown unit 'x'")
    placed = error.at(Location("kb/rules/a.yaml", 4, 2))
    assert str(placed) == "kb/rules/a.yaml:4:2: unknown unit 'x'" and error.where is None
    assert placed.at(Location("elsewhere")) is placed


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@given(st.text("abc_", max_size=12), st.text("abc_", max_size=12))
def test_the_bit_parallel_distance_is_levenshteins_over_the_longer_length_of_three_at_least(a, b):
    from hwkb.errors import SUGGEST_CUTOFF, _distance
    longest = max(len(a), len(b), 3)
    swapped = len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 2 and sorted(a) == sorted(b) and \
        any(a[:i] + a[i + 1] + a[i] + a[i + 2:] == b for i in range(len(a) - 1))
    far = abs(len(a) - len(b)) / longest > SUGGEST_CUTOFF or not set(a) & set(b)
    expected = 0.0 if a == b else 1.0 if far \
        else 1 / longest if swapped else _levenshtein(a, b) / longest
    assert _distance(a, b) == pytest.approx(expected)
