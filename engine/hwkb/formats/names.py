"""What a KB may call things: ASCII names that cannot be mistaken for anything else.

Python reads identifiers in NFKC form, so a rule written in fullwidth letters
would silently bind to the ASCII variable; a variable called ``exp`` would
shadow the function, one called ``x0`` a placeholder of the solved directions,
``math`` or a builtin a name of the compiled code. A name of the KB is therefore
ASCII, of at most :data:`~hwkb.definitions.limits.MAX_NAME_CHARS`, and a
variable's is none of those.
"""
from __future__ import annotations

import builtins
import keyword
import re

from hwkb.definitions.expressions import FUNCTIONS
from hwkb.definitions.limits import MAX_NAME_CHARS
from hwkb.errors import LimitError
from hwkb.formats.yaml_nodes import Node, NodeReader

__all__ = ["RESERVED_NAMES", "check_name"]

#: what a variable may not be called: the expression functions, the modules and builtins of compiled code,
#: Python's keywords
RESERVED_NAMES = frozenset((*FUNCTIONS, "math", "numpy", "np", "sympy", "mpmath", *dir(builtins), *keyword.kwlist))
_PLACEHOLDER = re.compile(r"x[0-9]+\Z")  # the placeholders x0, x1, ... of a rule's solved directions
_PATTERNS = {
    "variable": (re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z"), "letters, digits and underscores, starting with a letter"),
    "rule": (re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z"), "letters, digits and underscores, starting with a letter"),
    "choice": (re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z"), "letters, digits and underscores, starting with a letter"),
    "index set": (re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z"), "letters, digits and underscores, starting with a letter"),
    "index value": (re.compile(r"[A-Za-z0-9_]+\Z"), "letters, digits and underscores"),
    "entity": (re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*\Z"),
               "letters, digits and _ . + -, starting with a letter or digit"),
}


def check_name(reader: NodeReader, node: Node, name: str, what: str) -> bool:
    """Whether ``name`` may name a ``what`` (a key of ``_PATTERNS``); reports why not at ``node``."""
    if len(name) > MAX_NAME_CHARS:
        reader.errors.append(LimitError("length", f"{len(name)} characters", f"{MAX_NAME_CHARS} characters",
                                        subject=f"{what} name {name[:20]!r}...", where=reader.at(node)))
        return False
    pattern, allowed = _PATTERNS[what]
    if not pattern.match(name) or ("__" in name and what != "entity"):
        article = "an" if what[0] in "aeiou" else "a"
        reader.error(node, f"{what} name {name!r} is not allowed", f"{article} {what} name is ASCII {allowed}")
        return False
    if what == "variable" and (name in RESERVED_NAMES or _PLACEHOLDER.match(name)):
        reader.error(node, f"variable name {name!r} is reserved",
                     "a variable may not be called like a function (" + ", ".join(FUNCTIONS)
                     + "), a builtin, a module or a placeholder x0, x1, ...")
        return False
    return True
