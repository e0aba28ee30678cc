"""Compiling rules into relations: dimension checks, solved directions compiled to numeric functions.

A rule written ``for: precision`` becomes one :class:`Relation` per index value.
Each relation is checked for dimensional balance when the KB loads. Solving a
relation for one of its variables happens once per rule *template* (the
instances of one rule share it) and only when a plan first needs that
direction; the result is a plain Python function of canonical numbers.
A direction without one explicit positive solution (through ``min``, ``floor``
or an equation with several roots) is marked forward-only and never used.

SymPy solves a direction once; its solution is turned into the KB's own expression
tree (:func:`~hwkb.definitions.symbolic.from_sympy`), kept as that tree's text
(:mod:`hwkb.formats.caches`) and compiled by :mod:`hwkb.definitions.compiled`. A warm run reads that
code back through the whitelist parser, checks it against the rule at two trial
points and compiles it, without importing SymPy: SymPy is imported only to
solve a direction the cache does not hold, and for the symbolic questions
(closed forms, blocks, the SymPy sides :attr:`Relation.lhs` and :attr:`Relation.rhs`).
"""
from __future__ import annotations

import re

import itertools
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Mapping

from hwkb.errors import DimensionError, KBError, KBErrors
from hwkb.formats.caches import UNSOLVABLE, SolutionCache
from hwkb.definitions.compiled import mapping_function, positional_function
from hwkb.definitions.expressions import Call, Expr, Ref, RelationTree, parse_expression, references
from hwkb.definitions.symbolic import from_sympy, to_sympy, to_text
from hwkb.definitions.model import Model, Rule, VarKey, var_key
from hwkb.solving.lambdify import lambdify_math
from hwkb.solving.solve_bounds import solve_refusal
from hwkb.definitions.units import Units
from hwkb.solving.dimensions import check_dimensions

if TYPE_CHECKING:
    import sympy

__all__ = ["Relation", "compile_relations", "symbol_of", "key_of_symbol", "check_dimensions"]

_TRIAL_POINTS = ((1.37, 0.61, 2.3), (0.83, 1.9, 1.13))
#: how closely a solved direction must give back the trial value it solves for
_AGREEMENT = 1e-9


def symbol_of(key: VarKey) -> sympy.Symbol:
    """The SymPy symbol of a key; ``tc_peak[bf16]`` becomes ``tc_peak__bf16`` so str() parses back."""
    import sympy
    return sympy.Symbol(key.replace("[", "__").replace("]", ""), positive=True)


def key_of_symbol(symbol: sympy.Symbol) -> VarKey:
    name, sep, index = symbol.name.partition("__")
    return var_key(name, index) if sep else name


@dataclass(frozen=True)
class _Direction:
    """A solved direction: its tree in the placeholders (None when the KB's syntax cannot write it, e.g. a
    ``LambertW``) and a function of the other placeholders, in order."""
    tree: Expr | None
    function: Callable


@dataclass(eq=False)
class _Template:
    """What instances of one rule share: the equation in placeholders ``x0, x1, ...`` and its solutions.

    Nothing here touches SymPy until a direction the cache does not hold is first asked for.
    """
    ast: RelationTree
    size: int
    cache: SolutionCache
    directions: dict[int, _Direction | None] = field(default_factory=dict)
    expressions: dict[int, object] = field(default_factory=dict)  # SymPy solutions, when asked for

    def parameters(self, position: int) -> list[str]:
        return [f"x{i}" for i in range(self.size) if i != position]

    @cached_property
    def placeholders(self) -> tuple[sympy.Symbol, ...]:
        import sympy
        return tuple(sympy.Symbol(f"x{i}", positive=True) for i in range(self.size))

    def _placeholder(self, ref: Ref) -> sympy.Symbol:
        return self.placeholders[int(ref.name[1:])]

    @cached_property
    def residual(self) -> sympy.Expr:
        return to_sympy(self.ast.lhs, self._placeholder) - to_sympy(self.ast.rhs, self._placeholder)

    @cached_property
    def sides(self) -> Callable:
        """Both sides of the equation as one numeric function of the placeholders, in order."""
        return positional_function([self.ast.lhs, self.ast.rhs], [f"x{i}" for i in range(self.size)])

    def direction(self, position: int) -> _Direction | None:
        """The solved direction for the placeholder at ``position``: from the cache, else from SymPy."""
        if position not in self.directions:
            key = self.cache.key(repr(self.ast), position)
            text = self.cache.get(key)
            found = None if text in (None, UNSOLVABLE) else self._trusted(text, position)
            if found is None and text != UNSOLVABLE:
                found = self._solve(key, position)
            self.directions[position] = found
        return self.directions[position]

    def solution(self, position: int) -> sympy.Expr | None:
        """The SymPy expression of a direction (read back from its tree when the cache gave it)."""
        if position not in self.expressions:
            direction = self.direction(position)  # solving fills self.expressions
            if position not in self.expressions:
                self.expressions[position] = None if direction is None else to_sympy(direction.tree,
                                                                                     self._placeholder)
        return self.expressions[position]

    def _solve(self, key: str, position: int) -> _Direction | None:
        expr = _solve_for(self.residual, self.placeholders[position])
        self.expressions[position] = expr
        if expr is None:
            self.cache.put(key, UNSOLVABLE)
            return None
        others = [p for i, p in enumerate(self.placeholders) if i != position]
        tree = from_sympy(expr, lambda symbol: Ref(symbol.name))
        code = None if tree is None else to_text(tree)
        direction = None if code is None else self._trusted(code, position)
        if direction is None:  # not writable in the KB's syntax: SymPy's own function, solved again next run
            return _Direction(None, lambdify_math(others, expr))
        self.cache.put(key, code)
        return direction

    def _trusted(self, text: str, position: int) -> _Direction | None:
        """A solution's code read through the whitelist and compiled, if it solves the equation; else None."""
        try:
            tree = parse_expression(text)
            function = positional_function([tree], self.parameters(position))
        except (KBError, RecursionError):
            return None
        return _Direction(tree, function) if self._gives_back(function, position) else None

    def _gives_back(self, function: Callable, position: int) -> bool:
        """Whether ``function`` gives the value at ``position`` of points that satisfy the equation.

        Where the left side is a lone placeholder, each trial point is put on the relation by computing
        it from the right side, so a root that no positive input reaches (``(a - d)**2`` for ``b`` in
        ``a = sqrt(b) + d``) is still checked where it holds; otherwise the solution is substituted and
        both sides compared.
        """
        lhs = self.ast.lhs
        forward = isinstance(lhs, Ref) and lhs not in set(references(self.ast.rhs))
        for trial in _TRIAL_POINTS:
            point = [trial[i % len(trial)] * (1 + i) for i in range(self.size)]
            try:
                if forward:
                    point[int(lhs.name[1:])] = self.sides(*point)[1]
                value = function(*(x for i, x in enumerate(point) if i != position))
                if forward:
                    expected = point[position]
                else:
                    point[position] = value
                    value, expected = self.sides(*point)
                if not abs(value - expected) <= _AGREEMENT * max(abs(value), abs(expected), 1.0):
                    return False
            except (ArithmeticError, ValueError, TypeError):
                return False
        return True


def _solve_for(residual: sympy.Expr, symbol: sympy.Symbol) -> sympy.Expr | None:
    import sympy
    if any(symbol in f.free_symbols for f in residual.atoms(sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)) \
            or solve_refusal(residual, symbol):  # past the bound on work: forward-only, the reason logged
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
    _solvers: dict = field(default_factory=dict, init=False, repr=False)  # key -> its compiled direction
    _solvable: dict = field(default_factory=dict, init=False, repr=False)  # key -> whether it has one

    @property
    def kind(self) -> str:
        return self.rule.kind

    def chosen_in(self, selected: Mapping[str, str]) -> bool:
        """Whether the instance holds where the choices have these values (``matmul_peak[fp8]`` where
        ``matmul_precision`` is fp8); an instance no choice indexes always does."""
        return all(selected.get(choice) == self.binding[choice] for choice in self.rule.chosen)

    @property
    def law(self) -> str:
        """The instance's equation in symbols, as the rule writes it with its indices bound:
        ``tc_peak[bf16] = sm_count * tc_fma_per_sm_cycle[bf16] * clock_tc``; a simulation as its model
        applied to its inputs: ``scheduler_utilization = warp_scheduler(warps=warps_per_scheduler, ...)``."""
        simulation = self.rule.simulation
        if simulation is not None:
            arguments = ", ".join(f"{parameter}={key}" for parameter, key in simulation.inputs.items())
            return f"{simulation.output} = {simulation.model}({arguments})"
        return _INDEX.sub(lambda m: f"[{self.binding.get(m.group(1), m.group(1))}]", self.rule.text)

    @property
    def defined_key(self) -> VarKey | None:
        """The key a law defines, alone on its left (``memory_bandwidth`` in ``memory_bandwidth = ...``); None
        for a constraint, a law with an expression on its left, or a simulation. Read from the tree: no SymPy."""
        if self.kind == "law" and self.ast is not None and isinstance(self.ast.lhs, Ref):
            return str(self.ast.lhs)
        return None

    @cached_property
    def lhs(self) -> sympy.Expr:
        return self._sympy_side(0)

    @cached_property
    def rhs(self) -> sympy.Expr:
        return self._sympy_side(1)

    def _sympy_side(self, side: int) -> sympy.Expr:
        if self.ast is None:
            import sympy
            return sympy.S.Zero
        return to_sympy((self.ast.lhs, self.ast.rhs)[side], lambda r: symbol_of(str(r)))

    @property
    def residual(self) -> sympy.Expr:
        return self.lhs - self.rhs

    def can_solve_for(self, key: VarKey) -> bool:
        solvable = self._solvable.get(key)
        if solvable is None:
            if self.template is None:  # simulated: forward only, to its output
                solvable = key == self.rule.simulation.output
            else:
                solvable = self.template.direction(self.keys.index(key)) is not None
            self._solvable[key] = solvable
        return solvable

    def solver(self, key: VarKey) -> Callable[[Mapping[VarKey, float]], float] | None:
        """A function of the other keys' canonical values giving ``key``'s, or None.

        Compiled once per relation and direction, reading each input straight from the mapping: the
        function a person would write for this one formula, with a dictionary look-up per input.
        """
        if key not in self._solvers:
            self._solvers[key] = self._compile_solver(key)
        return self._solvers[key]

    def _compile_solver(self, key: VarKey) -> Callable[[Mapping[VarKey, float]], float] | None:
        position = self.keys.index(key)
        direction = self.template.direction(position)
        if direction is None:
            return None
        others = [k for i, k in enumerate(self.keys) if i != position]
        if direction.tree is not None:
            return mapping_function([direction.tree], dict(zip(self.template.parameters(position), others)))
        fn = direction.function
        if not others:  # a relation of one key: `sm_count = 100`
            return lambda values: float(fn())
        pick = itemgetter(*others)
        if len(others) == 1:
            return lambda values: float(fn(pick(values)))
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

    @cached_property
    def _sides(self) -> Callable[[Mapping[VarKey, float]], tuple[float, float]]:
        return mapping_function([self.ast.lhs, self.ast.rhs], {k: k for k in self.keys})

    def residual_value(self, values: Mapping[VarKey, float]) -> tuple[float, float]:
        """Both sides at canonical values (for audits and consistency checks)."""
        try:
            return self._sides(values)
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
        sets = [model.choices[i].over if i in rule.chosen else i for i in rule.over]
        bindings = [dict(zip(rule.over, combo))
                    for combo in itertools.product(*(model.indices[i].values for i in sets))]
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
            if rule.kind == "limit":  # an inequality a context must satisfy (solving.limit_rules), never solved
                continue
            keys = tuple(dict.fromkeys(str(r) for r in ast.references()))
            position = {k: i for i, k in enumerate(keys)}
            shape = ast.map_refs(lambda r: Ref(f"x{position[str(r)]}"))
            template = templates.setdefault(repr(shape), _Template(shape, len(keys), cache))
            relations.append(Relation(_instance_name(rule, binding), rule, keys, ast, template, binding))
    if errors:
        raise KBErrors(errors)
    return relations


_INDEX = re.compile(r"\[(\w+)\]")


def _instance_name(rule: Rule, binding: Mapping[str, str]) -> str:
    return rule.name if not binding else f"{rule.name}[{','.join(binding.values())}]"
