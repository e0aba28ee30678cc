"""hwkb.render.note_words: a note that shows a figure is data below the render stage, worded here for the text and
the JSON alike."""
from __future__ import annotations

import json

from hwkb.definitions.model import Location, Range
from hwkb.questions.export import Capacities, Capacity
from hwkb.questions.set_aside import AskedSetAside, FixingSetAside, sets_aside
from hwkb.questions.thresholds import AlsoAdmissible, SearchEdge
from hwkb.render.json_form import json_text
from hwkb.render.note_words import intervals_text, note_text
from hwkb.solving.solution import Interval, OutsideRange


def test_each_note_that_is_data_in_words():
    clock = Range(0.005, 3.5, "a survey", Location("r.yaml", 1))
    assert note_text(OutsideRange("clock", clock, "GHz")) == \
        "the stated clock lies outside [0.005, 3.5] GHz, the range real hardware spans (a survey)"
    assert note_text(OutsideRange("share", Range(0, 1, "fractions", Location("r.yaml", 2), lower_open=True),
                                  "fraction")) == \
        "the stated share lies outside (0, 100] %, the range real hardware spans (fractions)"
    assert note_text(SearchEdge("n", 200.0, "", ("n_limit",))) == "n searched up to 200 (launch limit n_limit)"
    assert note_text(SearchEdge("regs", 255.0, "register/thread", ("a", "b"))) == \
        "regs searched up to 255 register/thread (launch limit a, b)"
    assert note_text(AskedSetAside("n", 8.0, "", None)) == "set aside n = 8  (default) to solve for it"
    assert note_text(FixingSetAside((("bus", 8192.0, "bit"), ("rate", 5.2, "Gbit/s")), ("mi300x",), "bw", "bw_law")) == \
        "set aside bus = 8192 bit and rate = 5.2 Gbit/s (mi300x) too: they fix bw through bw_law"
    assert note_text(FixingSetAside((("rate", 1 / 3, "Gbit/s"),), ("a", "b"), "bw", "bw_law")) == \
        "set aside rate = 0.3333 Gbit/s (a, b) too: it fixes bw through bw_law"
    written = Capacities((Capacity("memory_size", 80.0, "GiB", "GB", "mem_gb", "GB", "config.py:3"),))
    assert note_text(written) == ("capacities as vendors print them (JEDEC): 1 KB = 1024 B, 1 MB = 1024 KB, 1 GB = "
                                  "1024 MB: memory_size 80 GB = 80 GiB, written as mem_gb in GB (config.py:3)")


def test_a_sentence_is_its_own_words():
    assert note_text("held at their baseline values: clock") == "held at their baseline values: clock"


def test_intervals_as_a_union():
    runs = (Interval(128.0, None, True, False), Interval(0.0, 2.5, False, True), Interval(None, 1e-7, False, False))
    assert intervals_text(runs) == "[128, inf) ∪ (0, 2.5] ∪ (-inf, 1e-07)"
    assert note_text(AlsoAdmissible(runs[:1])) == "the headline is the first admissible run; also admissible: [128, inf)"


def test_the_json_words_a_note_as_the_text_does():
    note = SearchEdge("n", 200.0, "", ("n_limit",))
    assert json.loads(json_text({"notes": ["a sentence", note]})) == {"notes": ["a sentence", note_text(note)]}


def test_a_what_if_keeps_the_notes_that_set_figures_aside():
    assert sets_aside(AskedSetAside("n", 8.0, "", None)) and sets_aside(FixingSetAside((), (), "n", "law"))
    assert sets_aside("held at their baseline values: clock") and sets_aside("set aside peak = 1 TFLOPS (chip) too")
    assert not sets_aside(SearchEdge("n", 200.0, "", ())) and not sets_aside("searched 'fit = 2' as constraints")


def test_a_simulated_rule_given_a_fractional_count_says_so_as_data():
    from hwkb.definitions.model import Simulation
    from hwkb.simulation.rules import NotWholeInput, run_simulated_rule
    spec = Simulation("warp_scheduler", {"warps": "w", "ilp": "i", "compute": "c", "latency": "l"}, "u")
    run = run_simulated_rule("gto", spec, {"w": 8.0, "i": 1.0, "c": 4.0, "l": 400.5})
    assert run.utilization is None and run.note == NotWholeInput("gto", "l", 400.5)
    assert note_text(run.note) == "gto needs a whole number for l, not 400.5"
