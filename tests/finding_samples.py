"""Small audit results built by hand, shared by the tests of hwkb.audit.findings and hwkb.render.finding_words."""
from __future__ import annotations

from hwkb.audit.findings import Check, CheckKind, CheckShape, Figure, SideShape, Sides, Suspect, Verdict


def figure(key: str, value: float, unit: str = "GHz", via: str | None = None, inputs=()) -> Figure:
    return Figure(key, value, unit, value * 0.99, value * 1.01, via, tuple(inputs))


def check(status: Verdict = Verdict.INCONSISTENT, kind: CheckKind = CheckKind.EXPECTATION, **changes) -> Check:
    """An expectation broken by 50 % (boost clock against the clock the peak implies), fields overridable."""
    fields = dict(
        rule="boost_is_clock", kind=kind, status=status, deviation=50.0, variables=("n", "peak", "boost"),
        target="boost", value=figure("boost", 1.5), implied=figure("boost", 1.0, via="boost_is_clock"),
        sides=(figure("boost", 1.5), figure("clock", 1.0, via="peak_law", inputs=("peak", "n")),
               figure("peak", 0.4, "TFLOPS"), figure("n", 100, "")),
        doc="the peak is stated at the boost clock", source="test",
        suspects=(Suspect("boost", "sheet", 1.5, "GHz", "1.5", 1.0, 10.0, 1, 0, True),))
    fields.update(changes)
    return Check(**fields)


def shaped(status: Verdict = Verdict.CONSISTENT, deviation: float | None = 0.5,
           values: tuple = (1.5, 1.0, 0.4, 100.0)) -> tuple[Check, Check]:
    """A law check as an audit makes it (its sides' values over its shape) and the same check made of Figures."""
    shape = CheckShape("boost_law", CheckKind.LAW, ("n", "peak", "boost"), "boost", "GHz", None, "the boost \"law\"",
                       "test, 100% made up {}", ("issue",), 0.0,
                       (SideShape("boost", "GHz", None, ()), SideShape("clock", "GHz", "peak_law", ("peak", "n")),
                        SideShape("peak", "TFLOPS", None, ()), SideShape("n", "", None, ())))
    value, implied = figure("boost", 1.5), figure("boost", 1.49, via="boost_law")
    fields = dict(rule="boost_law", kind=CheckKind.LAW, status=status, deviation=deviation,
                  variables=shape.variables, target="boost", value=value, implied=implied, doc=shape.doc,
                  source=shape.source, defaults=shape.defaults)
    figures = tuple(Figure(s.key, v, s.unit, v, v, s.via, s.inputs) for s, v in zip(shape.sides, values))
    return Check(**fields, sides=Sides(shape.sides, values), shape=shape), Check(**fields, sides=figures)
