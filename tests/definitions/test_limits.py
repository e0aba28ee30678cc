"""hwkb.definitions.limits: every limit in one place, documented, and the guarded read of a file."""
from __future__ import annotations

import pytest

from conftest import FIXTURES
from hwkb.definitions import limits
from hwkb.definitions.limits import read_regular_file
from hwkb.errors import LimitError, LoadError


def test_every_limit_is_documented_in_the_kb_readme():
    readme = (FIXTURES.parent.parent / "kb" / "README.md").read_text()
    assert "## Limits" in readme and "definitions/limits.py" in readme
    values = {"MAX_YAML_BYTES": "1 MiB", "MAX_FILE_BYTES": "64 MiB", "MAX_YAML_DEPTH": "64 levels",
              "MAX_YAML_NODES": "200,000", "MAX_QUANTITY_CHARS": "200 characters", "MAX_UNIT_EXPONENT": "-8 .. 8",
              "MAX_MAGNITUDE": "1e30", "MAX_DEFINITION_EXPONENT": "| 80 |", "MAX_NAME_CHARS": "100 characters",
              "MAX_RULE_INSTANCES": "| 1,000 |", "MAX_SIMULATION_OPTION": "1 .. 100,000"}
    assert sorted(values) == sorted(n for n in limits.__all__ if n.startswith("MAX_"))
    assert [name for name, shown in values.items() if shown not in readme] == []


def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("héllo\n")
    assert read_regular_file(path) == "héllo\n"
    with pytest.raises(LimitError) as info:
        read_regular_file(path, limit=3)
    assert str(info.value) == f"{path}: file size 7 bytes exceeds the limit of 3 bytes"


def test_missing_and_undecodable_files(tmp_path):
    with pytest.raises(LoadError) as info:
        read_regular_file(tmp_path / "none.txt")
    assert info.value.message == "cannot read file: no such file"
    (tmp_path / "bad.txt").write_bytes(b"ab\xff")
    with pytest.raises(LoadError) as info:
        read_regular_file(tmp_path / "bad.txt")
    assert info.value.message == "cannot read file: not UTF-8 text (byte 2)"
