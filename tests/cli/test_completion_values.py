"""``hwkb completion bash`` completes option values: fixed choices, entity ids, scenarios, precisions, variable
names, saved queries, and asks ``hwkb list --names`` with the ``--kb`` of the line being completed."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import run_cli
from hwkb.cli.completion import bash_script, option_values
from hwkb.cli.main import build_parser

#: what `hwkb list --names entities|variables|scenarios|precisions` would print, without loading a KB (one line
#: that no KB name could be, which completion must drop); the arguments it got go to a log
FAKE_HWKB = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/calls.log"
for last; do :; done
case "$last" in
  entities) printf '%s\\n' h100-sxm h100-pcie a100 sfu-doubled 'a1$(touch PWNED)';;
  scenarios) echo sfu-doubled; echo b300-like;;
  precisions) echo fp32; echo fp16; echo fp8;;
  variables) printf '%s\\n' clock_tc clock_fp32 sm_count cu_count tensorcore_count tc_peak matrix_peak;;
esac
"""


@pytest.fixture(scope="module")
def complete(tmp_path_factory):
    """``complete("hwkb solve --format ")`` -> the words bash offers for the last (possibly empty) word."""
    if not shutil.which("bash"):
        pytest.skip("no bash")
    folder = tmp_path_factory.mktemp("completion")
    fake = folder / "hwkb"
    fake.write_text(FAKE_HWKB)
    fake.chmod(0o755)
    script = bash_script()

    def run(line: str) -> list[str]:
        words = line.split(" ")
        array = " ".join(f"'{w}'" for w in words)
        probe = script + f'COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; _hwkb; printf "%s\\n" "${{COMPREPLY[@]}}"\n'
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True,
                              env={"PATH": f"{folder}:/usr/bin:/bin"})
        return [w for w in done.stdout.splitlines() if w]
    run.log = folder / "calls.log"
    return run


@pytest.mark.parametrize("line, offered", [
    ("hwkb solve clock_tc --sweep sm_count=1,2 --format ", ["text", "csv", "json"]),
    ("hwkb audit --format m", ["markdown"]),
    ("hwkb audit --fail-on ", ["any", "laws"]),
    ("hwkb compare --format ", ["text", "markdown", "html", "csv", "json"]),
    ("hwkb simulate --policy ", ["gto", "lrr"]),
    ("hwkb solve --gpu h100", ["h100-sxm", "h100-pcie"]),
    ("hwkb roofline --gpu a1", ["a100"]),
    ("hwkb compare h100-sxm a", ["a100"]),
    ("hwkb solve clo", ["clock_tc", "clock_fp32"]),
    ("hwkb explain clock_t", ["clock_tc"]),
    ("hwkb solve clock_tc --set sm", ["sm_count"]),
    ("hwkb whatif clock_tc --given clock_f", ["clock_fp32"]),
    ("hwkb solve clock_tc --sweep sm_", ["sm_count"]),
    ("hwkb solve clock_tc --symbolic --free sm_count,clock_f", ["sm_count,clock_fp32"]),
    ("hwkb solve cu", ["cu_count"]),
    ("hwkb explain tensor", ["tensorcore_count"]),
    ("hwkb solve clock_tc --set cu", ["cu_count"]),
    ("hwkb whatif clock_tc --given matrix", ["matrix_peak"]),
    ("hwkb solve clock_tc --sweep cu_", ["cu_count"]),
    ("hwkb solve clock_tc --symbolic --free clock_tc,cu", ["clock_tc,cu_count"]),
    ("hwkb compare h100-sxm --vars sm_count,matrix_", ["sm_count,matrix_peak"]),
    ("hwkb run pe", ["peaks"]),
    ("hwkb run occ", ["occupancy"]),
    ("hwkb completion z", ["zsh"]),
    ("hwkb roofline --precision fp", ["fp32", "fp16", "fp8"]),
    ("hwkb roofline --precision ", ["fp32", "fp16", "fp8"]),
    ("hwkb whatif clock_tc --scenario ", ["sfu-doubled", "b300-like"]),
    ("hwkb simulate --warps ", []),
    ("hwkb roofline --point ", []),
])
def test_option_values_are_completed(complete, line, offered):
    assert complete(line) == offered


def test_the_lines_kb_is_asked(complete):
    complete.log.unlink(missing_ok=True)
    assert complete("hwkb --kb mine solve --no-default-kb --gpu h100-s") == ["h100-sxm"]
    assert complete.log.read_text() == "--kb mine --no-default-kb list --names entities\n"


def test_every_fixed_choice_of_the_parser_is_in_the_script(capsys):
    values = option_values(build_parser())
    assert values["solve --format"] == ["text", "csv", "json"] and values["simulate --policy"] == ["gto", "lrr"]
    script = run_cli(capsys, "completion", "bash")[1]
    assert all(f'"{key}")' in script for key in values)


def test_aliases_are_offered_beside_the_names(complete):
    """An alias is a variable's other name: it is offered beside the names, and nothing of a doc besides."""
    offered = complete("hwkb solve --set ")
    assert offered == ["clock_tc", "clock_fp32", "sm_count", "cu_count", "tensorcore_count", "tc_peak", "matrix_peak"]
    assert "product" not in complete("hwkb solve --gpu ") and "(aliases:" not in " ".join(offered)

