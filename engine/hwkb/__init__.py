"""hwkb: a declarative knowledge base of GPU hardware facts and the engine that solves it.

The door for a notebook user:

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> round(kb.solve("clock_tc", gpu="v100").value.magnitude, 2)
1.53
"""
from hwkb.errors import KBError, KBErrors
from hwkb.kb import KnowledgeBase
from hwkb.solving.solver import Solution
from hwkb.solving.values import Value

__all__ = ["KnowledgeBase", "Solution", "Value", "KBError", "KBErrors"]
