"""hwkb: a declarative knowledge base of GPU hardware facts and the engine that solves it.

The door for a notebook user is :class:`KnowledgeBase`, one method per question;
every answer prints as the ``hwkb`` command prints it and gives the command's
JSON with ``to_dict()``:

>>> import hwkb
>>> kb = hwkb.KnowledgeBase.load()
>>> print(kb.solve("clock_tc", gpu="h100-sxm"))
clock_tc = 1.83 GHz  (derived)
>>> print(kb.what_if(["sm_count"], gpu="v100", changes=["sm_count=84"]).rows[0].change)
0.05

The package is built in stages, each importing only those before it:
``errors`` -> ``definitions`` -> ``formats`` -> ``solving`` -> ``questions`` | ``audit``
-> ``kb`` (this door) -> ``cli``.
"""
from importlib.metadata import PackageNotFoundError, version

from hwkb.audit.findings import Verdict
from hwkb.audit.report import AuditReport
from hwkb.errors import KBError, KBErrors, NotDetermined, UnknownNameError
from hwkb.kb import CheckReport, KnowledgeBase
from hwkb.questions.closed_forms import SymbolicSolution
from hwkb.questions.saved_queries import QueryResult
from hwkb.questions.sweeps import SweepResult
from hwkb.questions.whatif import WhatIf
from hwkb.solving.scheduler import SimulationRuns
from hwkb.solving.solution import Derived, Explanation, Solution, Status
from hwkb.solving.values import Value

try:
    __version__ = version("hwkb")
except PackageNotFoundError:  # a checkout that is not installed
    __version__ = "0+unknown"

__all__ = [
    "KnowledgeBase",
    # what the questions return
    "Solution", "Status", "Value", "Explanation", "Derived", "WhatIf", "SymbolicSolution", "SweepResult",
    "AuditReport", "Verdict", "SimulationRuns", "QueryResult", "CheckReport",
    # what goes wrong
    "KBError", "KBErrors", "UnknownNameError", "NotDetermined",
]
