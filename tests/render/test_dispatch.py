"""hwkb.render: one place renders every result, each in the forms it has; a result reaches it by name."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import TINY
from hwkb.errors import UsageError
from hwkb.render import FORMATS, forms_of, render


def test_a_result_renders_through_the_stage_above_it(tiny_kb):
    result = tiny_kb.compare(["chip"], ["clock"])
    for fmt in FORMATS:
        assert result.render(fmt) == render(result, fmt)
    assert json.loads(result.render("json", command="compare"))["command"] == "compare"


def test_a_form_a_result_lacks_says_why(tiny_kb):
    export_like = tiny_kb.explain("clock", gpu="chip")
    with pytest.raises(UsageError) as caught:
        render(export_like, "csv")
    assert str(caught.value).startswith("Explanation has no csv form: a derivation is a tree, not a table")
    assert forms_of(tiny_kb.solve("clock", gpu="chip")) == {
        "text": None, "markdown": "one value: the text is its form (--format csv or --json for data)",
        "html": "one value: the text is its form (--format csv or --json for data)", "csv": None, "json": None}
    with pytest.raises(UsageError, match="no form 'yaml'"):
        render(tiny_kb.solve("clock", gpu="chip"), "yaml")
    with pytest.raises(UsageError, match="not a result the render stage knows"):
        render(object(), "text")


def test_making_a_result_does_not_load_the_render_stage():
    code = ("import sys, hwkb; from hwkb.questions.comparison import Comparison; Comparison((), ());"
            "print('hwkb.render' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_the_python_door_of_the_issue_works():
    code = ("import hwkb; kb = hwkb.KnowledgeBase.load(); print(kb.compare(['h100-sxm', 'mi300x']).render('markdown'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == "| variable | unit | H100 SXM5 | AMD Instinct MI300X |"
    assert "| **peaks by precision** | | | |" in out


def test_every_door_method_returns_a_result_with_every_form_it_names(tiny_kb):
    from hwkb.results import Result
    results = [tiny_kb.compare(["chip", "arch"]), tiny_kb.sheet("chip"), tiny_kb.listing("variables"),
               tiny_kb.audit(["chip"]), tiny_kb.check_report()]
    for result in results:
        assert isinstance(result, Result)
        for fmt, why_not in forms_of(result).items():
            assert why_not is not None or isinstance(result.render(fmt), str)
