"""Tests of ``hwkb simulate`` (hwkb.cli.simulate) through its own parser, and of hwkb.render.plots."""
from __future__ import annotations

import argparse
import json
import sys

import pytest

from hwkb.cli import simulate as cli_simulate
from hwkb.cli.main import build_parser
from hwkb.render.plots import plot_utilization
from hwkb.errors import MissingExtraError
from hwkb.errors import SimulationInputError
from hwkb.simulation.scheduler import simulate


def _main(argv: list[str]) -> int:
    args = build_parser().parse_args(["simulate", *argv])
    assert args.handler.module == cli_simulate.__name__
    return cli_simulate.run(args)


CHAPTER_ARGS = ["--warps", "1,2,4,8,16", "--ilp", "1", "--compute", "16", "--latency", "500"]


def test_table(capsys):
    assert _main(CHAPTER_ARGS) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert err == ""
    assert lines[0].split() == ["warps", "ilp", "compute", "latency", "iters", "policy", "utilization",
                                "issued", "cycles"]
    assert [line.split() for line in lines[1:]] == [
        ["1", "1", "16", "500", "100", "gto", "3.295", "%", "1700", "51600"],   # a fraction: percent, 4 digits
        ["2", "1", "16", "500", "100", "gto", "6.558", "%", "3384", "51600"],
        ["4", "1", "16", "500", "100", "gto", "13.09", "%", "6752", "51600"],
        ["8", "1", "16", "500", "100", "gto", "26.14", "%", "13488", "51600"],
        ["16", "1", "16", "500", "100", "gto", "52.25", "%", "26960", "51600"],
    ]
    assert len({len(line) for line in lines}) == 1  # aligned: numbers right-justified to one width
    assert lines[0].endswith("cycles") and lines[-1].endswith("51600")


def test_json(capsys):
    assert _main(["--warps", "1:2", "--ilp", "1,4", "--compute", "16", "--latency", "500", "--iters", "10",
                  "--policy", "lrr", "--json"]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)  # exactly one document, nothing else on stdout
    assert err == ""
    assert list(document) == ["command", "status", "units", "runs"] and document["status"] == "ok"
    runs = document["runs"]
    assert [(r["warps"], r["ilp"]) for r in runs] == [(1, 1), (1, 4), (2, 1), (2, 4)]
    assert list(runs[0]) == ["warps", "ilp", "compute", "latency", "iters", "policy", "utilization",
                             "cycles", "issued"]
    expected = simulate(2, 4, 16, 500, iters=10, policy="lrr")
    assert runs[3] == {"warps": 2, "ilp": 4, "compute": 16, "latency": 500, "iters": 10, "policy": "lrr",
                       "utilization": expected.utilization, "cycles": expected.cycles, "issued": expected.issued}


def test_ranges_and_steps():
    assert cli_simulate.parse_int_list("1:4", "--warps") == [1, 2, 3, 4]
    assert cli_simulate.parse_int_list(" 8, 1:9:4 ,2", "--warps") == [8, 1, 5, 9, 2]
    assert cli_simulate.parse_int_list("-3", "--latency") == [-3]  # the scheduler says what is wrong with it


BAD = [
    (["--warps", "0"], "error: warps must be an integer >= 1, got 0"),
    (["--warps", "x"], "error: --warps: 'x' is not an integer or a START:STOP[:STEP] range (LIST is "
                       "comma-separated integers and inclusive START:STOP[:STEP] ranges, e.g. 1,2,4 or 1:16)"),
    (["--ilp", "4.0"], "error: --ilp: '4.0' is not an integer or a START:STOP[:STEP] range (LIST is "
                       "comma-separated integers and inclusive START:STOP[:STEP] ranges, e.g. 1,2,4 or 1:16)"),
    (["--compute", "1,,2"], "error: --compute: '' is not an integer or a START:STOP[:STEP] range (LIST is "
                            "comma-separated integers and inclusive START:STOP[:STEP] ranges, e.g. 1,2,4 or 1:16)"),
    (["--warps", "4:1"], "error: --warps: range '4:1' needs START <= STOP and STEP >= 1"),
    (["--warps", "1:4:0"], "error: --warps: range '1:4:0' needs START <= STOP and STEP >= 1"),
    (["--warps", "1:1000000"], "error: --warps: range '1:1000000' has 1000000 values, more than the 100000 one "
                               "simulation may run; take a larger STEP (START:STOP:STEP) or a shorter range"),
    (["--latency", "-1"], "error: latency must be an integer >= 0, got -1"),
    (["--iters", "ten"], "error: --iters: 'ten' is not an integer"),
    (["--iters", "0"], "error: iters must be an integer >= 1, got 0"),
    (["--policy", "rr"], "error: policy must be one of 'gto', 'lrr', got 'rr'"),
    (["--warps", "1000"], "error: 1000 warps at 100 iters is too large to simulate: its work, iters x warps^2 = "
                          "100000000, may be at most 20000000; give at most 447 warps at 100 iters, or fewer iters"),
    (["--warps", "1:100000"], "error: 100000 warps at 100 iters is too large to simulate: its work, iters x warps^2 "
                              "= 1000000000000, may be at most 20000000; give at most 447 warps at 100 iters, or "
                              "fewer iters"),   # the example: the most warps asked, in the flag's words
    (["--warps", "1:100", "--ilp", "1:100", "--compute", "1:11"],
     "error: the grid has 110000 configurations, more than the 100000 one simulation may run; give shorter lists "
     "of warps, ilp, compute or latency"),
    (["--plot", "u.pdf"], "error: plot file must be a path ending in .png or .svg, got 'u.pdf'"),
]


@pytest.mark.parametrize("change, message", BAD)
def test_bad_input(capsys, change, message):
    argv = ["--warps", "2", "--ilp", "1", "--compute", "4", "--latency", "10", *change]
    assert _main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == message + "\n"


def test_missing_matplotlib(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib...` raise ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert _main([*CHAPTER_ARGS, "--plot", str(tmp_path / "u.png")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("error: plotting needs matplotlib, which is not installed; "
                   "install it with: pip install matplotlib (hwkb's 'plot' extra)\n")
    with pytest.raises(MissingExtraError) as info:
        plot_utilization([simulate(1, 1, 1, 1)], tmp_path / "u.svg")
    assert info.value.extra == "plot" and info.value.module == "matplotlib"


def test_unwritable_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    assert _main([*CHAPTER_ARGS, "--plot", str(tmp_path / "missing" / "u.png")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'missing'}: no such directory\n"


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_plot(capsys, tmp_path, suffix, magic):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"u{suffix}"
    assert _main(["--warps", "1,2,4,8,16", "--ilp", "1,4", "--compute", "16,64", "--latency", "500",
                  "--plot", str(path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 20  # the plot adds nothing to stdout
    assert path.read_bytes().startswith(magic)
    if suffix == ".svg":
        text = path.read_text()
        assert "ilp=4, compute=64" in text and "utilization (%)" in text  # what varies, in the legend
        assert "scheduler utilization (latency=500 cycles, gto)" in text  # what does not, in the title


def test_plot_errors(tmp_path):
    with pytest.raises(SimulationInputError, match=r"^plot file must be a path ending in \.png or \.svg, got "):
        plot_utilization([simulate(1, 1, 1, 1)], tmp_path / "u.jpg")
    pytest.importorskip("matplotlib")
    with pytest.raises(SimulationInputError, match=r"^runs must be at least one SimulationResult, got \[\] \(list\)$"):
        plot_utilization([], tmp_path / "u.png")
