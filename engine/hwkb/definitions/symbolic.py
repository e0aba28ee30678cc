"""Expression trees to and from SymPy.

:func:`to_sympy` builds the SymPy expression of a checked tree (for solving, closed forms, blocks);
:func:`from_sympy` turns what SymPy solved back into a tree of the whitelist, which :func:`to_text` writes
as text :func:`~hwkb.definitions.expressions.parse_expression` reads back. A solved direction is kept that
way (:mod:`hwkb.solving.relations`), so a warm run compiles it without SymPy. :func:`exact_tree` writes a
SymPy expression node for node (no rewriting), so what is computed from the tree is what SymPy's expression
gave: the audit's checks are kept that way (:mod:`hwkb.audit.check_records`). SymPy is imported by these
functions when called, never by the module.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from hwkb.definitions.expressions import ARITHMETIC, MAX_NUMBER, BinOp, Call, Expr, Neg, Num, Ref

__all__ = ["to_sympy", "from_sympy", "exact_tree", "to_text"]


def to_sympy(e: Expr, symbol: Callable[[Ref], object]):
    """Build the SymPy expression of a checked tree; ``symbol`` maps references to symbols.

    SymPy is imported here, on first use: parsing and compiling (:mod:`hwkb.definitions.compiled`) need none.
    """
    import sympy
    funcs = {"min": sympy.Min, "max": sympy.Max, "floor": sympy.floor, "ceil": sympy.ceiling,
             "sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log}

    def build(node: Expr):
        if isinstance(node, Num):
            return sympy.Rational(node.value.numerator, node.value.denominator)
        if isinstance(node, Ref):
            return symbol(node)
        if isinstance(node, Neg):
            return -build(node.operand)
        if isinstance(node, Call):
            return funcs[node.func](*(build(a) for a in node.args))
        return ARITHMETIC[node.op](build(node.left), build(node.right))

    return build(e)


def from_sympy(expr, reference: Callable[[object], Ref]) -> Expr | None:
    """The checked tree of a SymPy expression (a solved direction), or None when the whitelist cannot write it.

    The inverse of :func:`to_sympy`: ``reference`` maps symbols back to references. A product is written as
    SymPy prints it, numerator over denominator (``x0/(x1*x2)``), and a square root as ``sqrt``.
    """
    import sympy
    calls = {sympy.Min: "min", sympy.Max: "max", sympy.floor: "floor", sympy.ceiling: "ceil",
             sympy.exp: "exp", sympy.log: "log"}

    def fold(op: str, parts) -> Expr:
        tree = build(parts[0])
        for part in parts[1:]:
            tree = BinOp(op, tree, build(part))
        return tree

    def build(node) -> Expr:
        if node.is_Symbol:
            return reference(node)
        if node.is_Rational:
            value = Fraction(int(node.p), int(node.q))
            return Num(value) if value >= 0 else Neg(Num(-value))
        if node is sympy.E:
            return Call("exp", (Num(Fraction(1)),))
        if node.is_Add:
            return fold("+", node.args)
        if node.is_Mul:
            if node.could_extract_minus_sign():
                return Neg(build(-node))
            numerator, denominator = [], []
            for factor in node.args:
                if factor.is_Rational:
                    numerator += [factor.p] if factor.p != 1 else []
                    denominator += [factor.q] if factor.q != 1 else []
                elif factor.is_Pow and factor.exp.is_Rational and factor.exp < 0:
                    denominator.append(factor.base ** -factor.exp)
                else:
                    numerator.append(factor)
            top = fold("*", [sympy.Integer(n) if isinstance(n, int) else n for n in numerator]) if numerator \
                else Num(Fraction(1))
            if not denominator:
                return top
            return BinOp("/", top, fold("*", [sympy.Integer(d) if isinstance(d, int) else d for d in denominator]))
        if node.is_Pow:
            base, exponent = node.args
            if exponent == sympy.S.Half:
                return Call("sqrt", (build(base),))
            if exponent.is_Rational and exponent < 0:
                return BinOp("/", Num(Fraction(1)), build(base ** -exponent))
            return BinOp("**", build(base), build(exponent))
        return Call(calls[node.func], tuple(build(a) for a in node.args))

    for node in sympy.preorder_traversal(expr):  # what the whitelist cannot write: LambertW, floats, I, 1e40
        if node.is_Atom and not (node.is_Symbol or node is sympy.E or node.is_Rational
                                 and max(abs(node.p), node.q) <= MAX_NUMBER):
            return None
        if not node.is_Atom and not (node.is_Add or node.is_Mul or node.is_Pow or node.func in calls):
            return None
    try:
        return build(expr)
    except RecursionError:
        return None


def exact_tree(expr, reference: Callable[[object], Ref]) -> Expr:
    """The tree of a SymPy expression as SymPy holds it: a sum or product of n terms folded from the left in
    SymPy's order, a power as ``**`` (a quotient is a product with a power -1), numbers as (possibly negative)
    ``Num``. Raises NotImplementedError for what has no tree (``E``, ``I``, infinities, other functions).
    """
    import sympy
    calls = {sympy.Min: "min", sympy.Max: "max", sympy.floor: "floor", sympy.ceiling: "ceil",
             sympy.exp: "exp", sympy.log: "log"}
    ops = {sympy.Add: "+", sympy.Mul: "*"}

    def build(node) -> Expr:
        if node.is_Symbol:
            return reference(node)
        if node.is_Rational:
            return Num(Fraction(int(node.p), int(node.q)))
        if node.is_Float and node.is_finite:
            return Num(Fraction(float(node)))
        if node.func in ops:
            tree = build(node.args[0])
            for part in node.args[1:]:
                tree = BinOp(ops[node.func], tree, build(part))
            return tree
        if node.is_Pow:
            return BinOp("**", build(node.args[0]), build(node.args[1]))
        if node.func in calls:
            return Call(calls[node.func], tuple(build(a) for a in node.args))
        raise NotImplementedError(f"no interval form for {type(node).__name__}")

    return build(expr if isinstance(expr, sympy.Basic) else sympy.Number(expr))


def to_text(e: Expr) -> str:
    """A tree as text :func:`parse_expression` reads back to an equal function, every operation in brackets."""
    if isinstance(e, Num):
        v = e.value
        return str(v.numerator) if v.denominator == 1 else f"({v.numerator}/{v.denominator})"
    if isinstance(e, Ref):
        return str(e)
    if isinstance(e, Neg):
        return f"(-{to_text(e.operand)})"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(map(to_text, e.args))})"
    return f"({to_text(e.left)} {e.op} {to_text(e.right)})"
