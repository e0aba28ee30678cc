"""Compiling rules into relations: SymPy, dimension checks, solved and lambdified directions.

A rule written ``for: precision`` becomes one :class:`Relation` per index value.
Each relation is checked for dimensional balance when the KB loads. Solving a
relation for one of its variables happens once per rule *template* (the
instances of one rule share it) and only when a plan first needs that
direction; the result is a plain Python function of canonical numbers.
A direction without one explicit positive solution (through ``min``, ``floor``
or an equation with several roots) is marked forward-only and never used.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction
from operator import itemgetter
from typing import Callable, Mapping

import sympy

from hwkb.errors import DimensionError, KBError, KBErrors
from hwkb.formats.caches import UNSOLVABLE, SolutionCache
from hwkb.definitions.expressions import Call, Expr, Neg, Num, Ref, RelationTree, parse_expression, to_sympy
from hwkb.definitions.model import Model, Rule, VarKey, var_key
from hwkb.solving.lambdify import lambdify_math
from hwkb.definitions.units import Dimensions, Units, format_dimensions

__all__ = ["Relation", "compile_relations", "symbol_of", "key_of_symbol", "check_dimensions"]

_NON_INVERTIBLE = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)


def symbol_of(key: VarKey) -> sympy.Symbol:
    """The SymPy symbol of a key; ``tc_peak[bf16]`` becomes ``tc_peak__bf16`` so str() parses back."""
    return sympy.Symbol(key.replace("[", "__").replace("]", ""), positive=True)


def key_of_symbol(symbol: sympy.Symbol) -> VarKey:
    name, sep, index = symbol.name.partition("__")
    return var_key(name, index) if sep else name


@dataclass(eq=False)
class _Template:
    """What instances of one rule share: the equation in placeholders ``x0, x1, ...`` and its solutions.

    Nothing here touches SymPy's solver until a direction is first asked for,
    and then the disk cache (:mod:`hwkb.formats.caches`) is asked first.
    """
    ast: RelationTree
    size: int
    cache: SolutionCache
    solved: dict[int, Callable | None] = field(default_factory=dict)
    expressions: dict[int, sympy.Expr | None] = field(default_factory=dict)

    @cached_property
    def placeholders(self) -> tuple[sympy.Symbol, ...]:
        return tuple(sympy.Symbol(f"x{i}", positive=True) for i in range(self.size))

    @cached_property
    def residual(self) -> sympy.Expr:
        symbol = lambda ref: self.placeholders[int(ref.name[1:])]
        return to_sympy(self.ast.lhs, symbol) - to_sympy(self.ast.rhs, symbol)

    def solution(self, position: int) -> sympy.Expr | None:
        if position not in self.expressions:
            self.expressions[position] = self._cached_or_solved(position)
        return self.expressions[position]

    def _cached_or_solved(self, position: int) -> sympy.Expr | None:
        key = self.cache.key(repr(self.ast), position)
        text = self.cache.get(key)
        if text == UNSOLVABLE:
            return None
        if text is not None:
            expr = self._read_back(text, position)
            if expr is not None:
                return expr
        expr = _solve_for(self.residual, self.placeholders[position])
        text = UNSOLVABLE if expr is None else _as_text(expr)
        if text is not None and (expr is None or self._read_back(text, position) is not None):
            self.cache.put(key, text)
        return expr

    def _read_back(self, text: str, position: int) -> sympy.Expr | None:
        """A cached solution, trusted only if it still zeroes the residual."""
        try:
            expr = to_sympy(parse_expression(text), lambda ref: self.placeholders[int(ref.name[1:])])
        except (KBError, ValueError, IndexError):
            return None
        residual = self.residual.xreplace({self.placeholders[position]: expr})
        for trial in _TRIAL_POINTS:
            point = {p: sympy.Float(trial[i % len(trial)] * (1 + i)) for i, p in enumerate(self.placeholders)}
            scale = max(1.0, *(abs(float(v)) for v in point.values()))
            try:
                if abs(complex(residual.xreplace(point).evalf())) > 1e-9 * scale ** 4:
                    return None
            except (TypeError, ValueError, ZeroDivisionError):
                return None
        return expr

    @cached_property
    def sides(self) -> Callable:
        """Both sides of the equation as one numeric function of the placeholders, in order."""
        symbol = lambda ref: self.placeholders[int(ref.name[1:])]
        return lambdify_math(self.placeholders, [to_sympy(self.ast.lhs, symbol), to_sympy(self.ast.rhs, symbol)])

    def function(self, position: int) -> Callable | None:
        if position not in self.solved:
            expr = self.solution(position)
            others = [p for i, p in enumerate(self.placeholders) if i != position]
            self.solved[position] = None if expr is None else lambdify_math(others, expr)
        return self.solved[position]


_TEXT_NAMES = {"Min": "min", "Max": "max", "ceiling": "ceil"}
_TRIAL_POINTS = ((1.37, 0.61, 2.3), (0.83, 1.9, 1.13))


def _as_text(expr: sympy.Expr) -> str | None:
    """The expression in the KB's own syntax, or None if it has something the syntax lacks."""
    text = str(expr)
    for sympy_name, ours in _TEXT_NAMES.items():
        text = text.replace(f"{sympy_name}(", f"{ours}(")
    try:
        parse_expression(text)
    except KBError:
        return None
    return text


def _solve_for(residual: sympy.Expr, symbol: sympy.Symbol) -> sympy.Expr | None:
    if any(symbol in f.free_symbols for f in residual.atoms(*_NON_INVERTIBLE)):
        return None
    try:
        roots = sympy.solve(residual, symbol, dict=True)
    except (NotImplementedError, ValueError):
        return None
    roots = [r[symbol] for r in roots if symbol in r]
    return roots[0] if len(roots) == 1 else None


@dataclass(eq=False)
class Relation:
    """One instance of a rule over concrete keys: ``lhs - rhs = 0`` in canonical units.

    ``ast`` is the instance's checked expression tree; its SymPy sides are
    built only when something asks for them.
    """
    name: str
    rule: Rule
    keys: tuple[VarKey, ...]
    ast: RelationTree | None
    template: _Template | None
    binding: Mapping[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.rule.kind

    @cached_property
    def lhs(self) -> sympy.Expr:
        return sympy.S.Zero if self.ast is None else to_sympy(self.ast.lhs, lambda r: symbol_of(str(r)))

    @cached_property
    def rhs(self) -> sympy.Expr:
        return sympy.S.Zero if self.ast is None else to_sympy(self.ast.rhs, lambda r: symbol_of(str(r)))

    @property
    def residual(self) -> sympy.Expr:
        return self.lhs - self.rhs

    def can_solve_for(self, key: VarKey) -> bool:
        if self.template is None:  # simulated: forward only, to its output
            return key == self.rule.simulation.output
        return self.template.function(self.keys.index(key)) is not None

    def solver(self, key: VarKey) -> Callable[[Mapping[VarKey, float]], float] | None:
        """A function of the other keys' canonical values giving ``key``'s, or None."""
        position = self.keys.index(key)
        fn = self.template.function(position)
        if fn is None:
            return None
        others = [k for i, k in enumerate(self.keys) if i != position]
        if not others:  # a relation of one key: `sm_count = 100`
            return lambda values: float(fn())
        if len(others) == 1:
            (only,) = others
            return lambda values: float(fn(values[only]))
        pick = itemgetter(*others)  # one C call for the arguments: this runs on every route of every query
        return lambda values: float(fn(*pick(values)))

    def solution(self, key: VarKey) -> sympy.Expr | None:
        """The explicit expression of ``key`` in the other keys' symbols, if there is one."""
        expr = self.template.solution(self.keys.index(key))
        if expr is None:
            return None
        return expr.xreplace(dict(zip(self.template.placeholders, map(symbol_of, self.keys))))

    def limits(self, key: VarKey) -> tuple[VarKey, ...]:
        """The arguments of ``key = min(a, b, ...)`` (or max), when each is a variable: the named limits.

        Solved for its left side, such a law takes the least (greatest) of them; the solver
        reports which one that was (:attr:`~hwkb.solving.values.RuleOrigin.bound_by`).
        """
        if self.ast is None or str(self.ast.lhs) != key or not isinstance(self.ast.rhs, Call):
            return ()
        call = self.ast.rhs
        if call.func not in ("min", "max") or not all(isinstance(a, Ref) for a in call.args):
            return ()
        return tuple(str(a) for a in call.args)

    def residual_value(self, values: Mapping[VarKey, float]) -> tuple[float, float]:
        """Both sides at canonical values (for audits and consistency checks)."""
        try:
            lhs, rhs = self.template.sides(*(float(values[k]) for k in self.keys))
            return float(lhs), float(rhs)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):  # outside math's domain: SymPy's answer
            subs = {symbol_of(k): values[k] for k in self.keys}
            return float(self.lhs.xreplace(subs)), float(self.rhs.xreplace(subs))

    def holds(self, values: Mapping[VarKey, float], relative: float = 1e-7) -> bool:
        """Whether the equation holds at these canonical values, to ``relative`` of its larger side.

        A solved direction can be an extraneous root: ``a = sqrt(b) + d`` solved for ``b`` gives
        ``(a - d)**2``, which no positive ``b`` satisfies when ``a < d``.
        """
        try:
            lhs, rhs = self.residual_value(values)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return False
        return abs(lhs - rhs) <= relative * max(abs(lhs), abs(rhs), 1e-300)


def compile_relations(model: Model, units: Units, cache: SolutionCache | None = None) -> list[Relation]:
    """Every rule instance of the model, dimension-checked; raises KBErrors listing all imbalances.

    Solved directions are kept in ``cache`` (a disk cache shares them between runs); None keeps them in memory.
    """
    cache = SolutionCache() if cache is None else cache
    relations: list[Relation] = []
    errors: list[KBError] = []
    for rule in model.rules.values():
        bindings = [dict(zip(rule.over, combo))
                    for combo in itertools.product(*(model.indices[i].values for i in rule.over))]
        if rule.simulation is not None:
            for binding in bindings:
                keys = tuple(dict.fromkeys([*rule.simulation.inputs.values(), rule.simulation.output]))
                relations.append(Relation(_instance_name(rule, binding), rule, keys, None, None, binding))
            continue
        templates: dict[str, _Template] = {}
        for binding in bindings:
            ast = rule.relation.map_refs(lambda r: Ref(r.name, binding.get(r.index, r.index)))
            try:
                check_dimensions(ast, model, units)
            except DimensionError as exc:
                errors.append(exc.in_rule(_instance_name(rule, binding), rule.where))
                break
            keys = tuple(dict.fromkeys(str(r) for r in ast.references()))
            position = {k: i for i, k in enumerate(keys)}
            shape = ast.map_refs(lambda r: Ref(f"x{position[str(r)]}"))
            template = templates.setdefault(repr(shape), _Template(shape, len(keys), cache))
            relations.append(Relation(_instance_name(rule, binding), rule, keys, ast, template, binding))
    if errors:
        raise KBErrors(errors)
    return relations


def _instance_name(rule: Rule, binding: Mapping[str, str]) -> str:
    return rule.name if not binding else f"{rule.name}[{','.join(binding.values())}]"


# ---------------------------------------------------------------- dimensions

def check_dimensions(relation: RelationTree, model: Model, units: Units, where=None) -> None:
    """Raise DimensionError (at ``where``) unless both sides (and every sum, min, max inside) agree."""
    try:
        left = _dims(relation.lhs, model, units) or frozenset()
        right = _dims(relation.rhs, model, units) or frozenset()
        if left != right:
            raise DimensionError(format_dimensions(left), format_dimensions(right),
                                 hint="check each variable's unit and the factors of the equation")
    except DimensionError as exc:
        raise exc.at(where) from None


def _dims(e: Expr, model: Model, units: Units) -> Dimensions | None:
    """Dimensions of an expression; None for a pure number (which fits any dimensionless place)."""
    if isinstance(e, Num):
        return None
    if isinstance(e, Ref):
        return units.dimensions(model.variables[e.name].unit)
    if isinstance(e, Neg):
        return _dims(e.operand, model, units)
    if isinstance(e, Call):
        args = [_dims(a, model, units) for a in e.args]
        if e.func in ("exp", "log"):
            if any(a for a in args):
                raise DimensionError(format_dimensions(args[0]), operation=f"{e.func}()",
                                     hint=f"{e.func}() takes a dimensionless argument")
            return frozenset()
        if e.func == "sqrt":
            return _power(args[0], Fraction(1, 2))
        if e.func in ("min", "max"):
            return _same(args, e.func + "()")
        return args[0]
    left, right = _dims(e.left, model, units), _dims(e.right, model, units)
    if e.op in "+-":
        return _same([left, right], f"'{e.op}'")
    if e.op == "*":
        return _combine(left, right, 1)
    if e.op == "/":
        return _combine(left, right, -1)
    if right:
        raise DimensionError(format_dimensions(right), operation="**", hint="exponents are plain numbers")
    if not left:
        return left
    if not isinstance(e.right, Num):
        raise DimensionError(format_dimensions(left), operation="power",
                             hint="only a number may be the exponent of a quantity with a unit")
    return _power(left, e.right.value)


def _same(args: list, what: str) -> Dimensions | None:
    known = [a if a is not None else frozenset() for a in args]
    if any(a != known[0] for a in known):
        raise DimensionError(format_dimensions(known[0]), " and ".join(format_dimensions(a) for a in known[1:]),
                             operation=what,
                             hint="only quantities of the same dimension can be added or compared")
    return None if all(a is None for a in args) else known[0]


def _combine(a: Dimensions | None, b: Dimensions | None, sign: int) -> Dimensions | None:
    if a is None and b is None:
        return None
    out: dict = dict(a or ())
    for d, e in (b or ()):
        out[d] = out.get(d, 0) + sign * e
    return frozenset((d, e) for d, e in out.items() if e != 0)


def _power(a: Dimensions | None, exponent: Fraction) -> Dimensions | None:
    if a is None:
        return None
    return frozenset((d, e * exponent) for d, e in a if e * exponent != 0)
