"""hwkb: a declarative knowledge base of GPU hardware facts and the engine that solves it.

The door for a notebook user:

>>> from engine import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> round(kb.solve("clock_tc", gpu="v100").value.magnitude, 2)
1.53
"""
from .errors import KBError, KBErrors
from .kb import KnowledgeBase
from .solve import Solution
from .values import Value

__all__ = ["KnowledgeBase", "Solution", "Value", "KBError", "KBErrors"]
