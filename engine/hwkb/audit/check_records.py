"""A pattern's checks as plain data: what the analysis found, as expression trees, and as the JSON the check cache
keeps.

The analysis (:mod:`hwkb.audit.analysis`) needs SymPy to plan and cancel; its
result does not. A :class:`CheckRecord` holds one check's relation (by its place in
the system), target, keys and the trees of its three functions and its sides, made
by :func:`~hwkb.definitions.symbolic.exact_tree` node for node from SymPy's
expressions. Both a cold and a warm audit compile the checks from these records
(:func:`~hwkb.audit.enclosures.compile_tree`), so a cached analysis gives the
very bounds an uncached one does. A record is the one place a check's and a
side's fields are declared: :class:`~hwkb.audit.analysis.CompiledCheck` and
:class:`~hwkb.audit.analysis.Side` hold a record and read them through it, adding
only what a running audit has (the relation, the compiled functions, display
units); :meth:`~hwkb.audit.analysis.Analysis.compile` makes one from a record.
:func:`decode` reads the JSON back strictly: any
node, key or field out of place is a :exc:`ValueError`, and the caller treats the
entry as a miss.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from hwkb.audit.findings import CheckKind
from hwkb.definitions.expressions import FUNCTIONS, MAX_DEPTH, BinOp, Call, Expr, Neg, Num, Ref
from hwkb.definitions.model import VarKey

__all__ = ["SideRecord", "CheckRecord", "encode", "decode"]


@dataclass(frozen=True)
class SideRecord:
    """A known value a check shows: its key, the law that gave it and that law's other keys, its tree."""
    key: VarKey
    via: str | None
    inputs: tuple[VarKey, ...]
    tree: Expr
    symbols: tuple[VarKey, ...]


@dataclass(frozen=True)
class CheckRecord:
    """One check of a pattern: ``relation`` is the relation's place in the system's list; ``name`` is set for a
    check hidden in a singular pair (``first with second``)."""
    relation: int
    name: str | None
    kind: CheckKind
    target: VarKey
    symbols: tuple[VarKey, ...]
    variables: tuple[VarKey, ...]
    defaults: tuple[VarKey, ...]
    own: Expr
    implied: Expr
    ratio: Expr
    target_via: str | None
    sides: tuple[SideRecord, ...]


def encode(records: list[CheckRecord]) -> str:
    return json.dumps([{"relation": r.relation, "name": r.name, "kind": r.kind.value, "target": r.target,
                        "symbols": r.symbols, "variables": r.variables, "defaults": r.defaults,
                        "own": _tree_data(r.own), "implied": _tree_data(r.implied), "ratio": _tree_data(r.ratio),
                        "target_via": r.target_via,
                        "sides": [{"key": s.key, "via": s.via, "inputs": s.inputs, "tree": _tree_data(s.tree),
                                   "symbols": s.symbols} for s in r.sides]} for r in records],
                      separators=(",", ":"))


def decode(text: str, relations: int) -> list[CheckRecord]:
    """The records of ``encode``'s text, for a system of ``relations`` relations; ValueError if anything is amiss."""
    try:
        data = json.loads(text)
        return [CheckRecord(_place(r["relation"], relations), _name(r["name"]), CheckKind(r["kind"]),
                            _key(r["target"]), _keys(r["symbols"]), _keys(r["variables"]), _keys(r["defaults"]),
                            _tree(r["own"]), _tree(r["implied"]), _tree(r["ratio"]), _name(r["target_via"]),
                            tuple(SideRecord(_key(s["key"]), _name(s["via"]), _keys(s["inputs"]), _tree(s["tree"]),
                                             _keys(s["symbols"])) for s in _list(r["sides"])))
                for r in _list(data)]
    except (KeyError, TypeError, RecursionError) as exc:
        raise ValueError(f"not a check record: {exc}") from None


def _tree_data(e: Expr) -> list:
    if isinstance(e, Ref):
        return ["ref", str(e)]
    if isinstance(e, Num):
        return ["num", e.value.numerator, e.value.denominator]
    if isinstance(e, Neg):
        return ["neg", _tree_data(e.operand)]
    if isinstance(e, BinOp):
        return [e.op, _tree_data(e.left), _tree_data(e.right)]
    return ["call", e.func, [_tree_data(a) for a in e.args]]


def _tree(data: object, depth: int = 0) -> Expr:
    if depth > 4 * MAX_DEPTH or not isinstance(data, list) or not data:
        raise ValueError("not an expression tree")
    tag = data[0]
    if tag == "ref" and len(data) == 2:
        return Ref(_key(data[1]))
    if tag == "num" and len(data) == 3 and all(type(n) is int for n in data[1:]) and data[2] > 0:
        return Num(Fraction(data[1], data[2]))
    if tag == "neg" and len(data) == 2:
        return Neg(_tree(data[1], depth + 1))
    if tag in ("+", "-", "*", "/", "**") and len(data) == 3:
        return BinOp(tag, _tree(data[1], depth + 1), _tree(data[2], depth + 1))
    if tag == "call" and len(data) == 3 and data[1] in FUNCTIONS and isinstance(data[2], list) and data[2]:
        return Call(data[1], tuple(_tree(a, depth + 1) for a in data[2]))
    raise ValueError(f"not an expression node: {str(tag)[:40]!r}")


def _list(data: object) -> list:
    if not isinstance(data, list):
        raise ValueError("not a list")
    return data


def _key(data: object) -> VarKey:
    if not isinstance(data, str) or not data:
        raise ValueError("not a key")
    return data


def _keys(data: object) -> tuple[VarKey, ...]:
    return tuple(_key(k) for k in _list(data))


def _name(data: object) -> str | None:
    if data is not None and not isinstance(data, str):
        raise ValueError("not a name")
    return data


def _place(data: object, relations: int) -> int:
    if type(data) is not int or not 0 <= data < relations:
        raise ValueError("not a relation's place")
    return data
