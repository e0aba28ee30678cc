"""hwkb: a declarative knowledge base of GPU hardware facts and the engine that solves it.

The door for a notebook user is :class:`KnowledgeBase`, one method per question;
every answer prints as the ``hwkb`` command prints it, renders as text, markdown,
html, csv or json with ``render(fmt)`` (``render("json")`` is the command's JSON) and gives its data with
``to_dict()`` (an audit's sentences are the render stage's words, in its JSON only):

>>> import hwkb
>>> kb = hwkb.KnowledgeBase.load()
>>> print(kb.solve("clock_tc", gpu="h100-sxm"))
clock_tc = 1.83 GHz  (derived)
>>> print(kb.what_if(["sm_count"], gpu="v100", changes=["sm_count=84"]).rows[0].change)
0.05

The package is built in stages, each importing only those before it:
``errors`` | ``results`` -> ``definitions`` -> ``formats`` -> ``solving`` -> ``questions`` | ``audit``
-> ``kb`` (this door) -> ``render`` (every form of every result) -> ``cli``.
"""
from importlib import import_module

#: each public name -> the module that defines it; imported on first use, so that ``import hwkb.cli.main``
#: (``hwkb --help``) does not pay for SymPy and Pint
PUBLIC = {
    "Verdict": "hwkb.audit.findings", "AuditReport": "hwkb.audit.report",
    "KBError": "hwkb.errors", "KBErrors": "hwkb.errors", "NotDetermined": "hwkb.errors",
    "UnknownNameError": "hwkb.errors", "CheckReport": "hwkb.kb", "KnowledgeBase": "hwkb.kb",
    "SymbolicSolution": "hwkb.questions.closed_forms", "QueryResult": "hwkb.questions.saved_queries",
    "SweepResult": "hwkb.questions.sweeps", "WhatIf": "hwkb.questions.whatif",
    "SimulationRuns": "hwkb.simulation.scheduler", "Derived": "hwkb.solving.solution",
    "Explanation": "hwkb.solving.solution", "Solution": "hwkb.solving.solution", "Status": "hwkb.solving.solution",
    "Value": "hwkb.solving.values", "Result": "hwkb.results", "Comparison": "hwkb.questions.comparison",
    "Sheet": "hwkb.questions.sheet", "Rooflines": "hwkb.questions.rooflines", "Listing": "hwkb.questions.listing",
    "Export": "hwkb.questions.export", "PeerAudit": "hwkb.audit.peer_findings",
}


def __getattr__(name: str):
    if name == "__version__":
        globals()[name] = _installed_version()
        return globals()[name]
    if name not in PUBLIC:
        raise AttributeError(f"module 'hwkb' has no attribute {name!r}")
    value = getattr(import_module(PUBLIC[name]), name)
    globals()[name] = value
    return value


def _installed_version() -> str:
    """The installed distribution's version, read when asked: importlib.metadata is ~11 ms of `hwkb --help`."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("hwkb")
    except PackageNotFoundError:  # a checkout that is not installed
        return "0+unknown"


def __dir__():
    return sorted({*globals(), *PUBLIC, "__version__"})


__all__ = [
    "KnowledgeBase",
    # what the questions return
    "Solution", "Status", "Value", "Explanation", "Derived", "WhatIf", "SymbolicSolution", "SweepResult",
    "AuditReport", "Verdict", "SimulationRuns", "QueryResult", "CheckReport", "Comparison", "Sheet", "Rooflines",
    "Listing", "Export", "PeerAudit", "Result",
    # what goes wrong
    "KBError", "KBErrors", "UnknownNameError", "NotDetermined",
]
