"""Closed forms: a variable as an expression in chosen free variables, the context's other facts substituted.

The free variables join the context's facts as knowns and the planner
(:mod:`hwkb.solving.plan`) finds how the target follows from them, exactly as for a
numeric solve. Walking that plan back from the target, each step's relation is
replaced by its explicit solution (:meth:`hwkb.solving.relations.Relation.solution`)
and each input by its own expression, down to exact numbers (the facts, read
from their printed digits) and the free symbols. A block of simultaneous
relations is solved jointly; a simulated rule has no closed form.

The result is given in *display units*: each symbol stands for its variable
in that variable's unit (``clock_tc`` in GHz) and the expression gives the
target in its unit, so ``str(expression)`` reads back with SymPy and evaluates
to what ``hwkb solve`` prints. Symbols of indexed keys are named as
:func:`hwkb.solving.relations.symbol_of` names them (``tc_peak__bf16``).

Example (the H100's BF16 exp utilization in the head dimensions):

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> form = closed_form(kb, "exp_utilization[bf16]", kb.context("h100-sxm"), ["d_qk", "d_v"])
>>> form.text, form.latex
('128/(d_qk + d_v)', '\\\\frac{128}{\\\\mathrm{d\\\\_qk} + \\\\mathrm{d\\\\_v}}')
>>> form.evaluate({"d_qk": 128, "d_v": 128})
0.5
>>> {k: float(e) for k, e in form.elasticities({"d_qk": 128, "d_v": 128}).items()}
{'d_qk': -0.5, 'd_v': -0.5}
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from hwkb.definitions.model import Fact, VarKey, split_key
from hwkb.errors import Location, NoClosedForm, NotDetermined, QueryError
from hwkb.questions.interventions import intervene
from hwkb.results import Result
from hwkb.solving.blocks import positive_roots
from hwkb.solving.context import Context
from hwkb.solving.lambdify import lambdify_math, lambdify_numpy
from hwkb.solving.need_search import search_needs
from hwkb.solving.needs import same_figure
from hwkb.solving.plan import Step, make_plan
from hwkb.solving.relations import key_of_symbol, symbol_of
from hwkb.solving.solution import Solution, Status
from hwkb.solving.solver import Solver, Structure
from hwkb.solving.system import System
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["ClosedForm", "SymbolicSolution", "closed_form", "canonical_forms", "solve_symbolic", "default_free",
           "parse_free", "exact_number", "latex_of"]

_SIMPLIFY_MAX_OPS = 400


@dataclass(frozen=True)
class ClosedForm:
    """``variable`` (in ``unit``) as ``expression`` of the ``free`` keys, each in its display unit."""
    variable: VarKey
    unit: str
    free: tuple[VarKey, ...]
    expression: sympy.Expr
    rules: tuple[str, ...] = ()

    @property
    def symbols(self) -> tuple[sympy.Symbol, ...]:
        return tuple(symbol_of(k) for k in self.free)

    @property
    def text(self) -> str:
        """SymPy's ``str`` form: parseable back by SymPy, names as :func:`symbol_of` gives them."""
        return str(self.expression)

    @property
    def latex(self) -> str:
        return latex_of(self.expression)

    @property
    def pretty(self) -> str:
        return sympy.pretty(self.expression, use_unicode=True)

    @property
    def approximate(self) -> str:
        """The expression with its exact rationals as six-digit decimals, for reading."""
        return str(self.expression.evalf(6))

    @cached_property
    def function(self) -> Callable:
        """The vectorised form: NumPy arrays (or scalars) of the free keys, positionally, in display units."""
        fn = lambdify_numpy(self.symbols, self.expression)
        if self.expression.free_symbols:
            return fn
        constant = float(self.expression)
        return lambda *args: np.full(np.broadcast(*args).shape, constant) if args else constant

    @cached_property
    def scalar_function(self) -> Callable:
        """The same form over plain floats (``math``), one point per call."""
        return lambdify_math(self.symbols, self.expression)

    def evaluate(self, point: Mapping[VarKey, float]) -> float:
        """The value at one point of the free keys (display units)."""
        missing = [k for k in self.free if k not in point]
        if missing:
            raise QueryError(f"no value for {', '.join(missing)}", hint="give every free variable a value")
        return float(self.scalar_function(*(float(point[k]) for k in self.free)))

    def elasticity(self, key: VarKey) -> sympy.Expr:
        """∂ln f / ∂ln x: the relative change of the target per relative change of ``key``.

        NaN through floor, ceil, min or max, whose derivative is a step, not a sensitivity.
        """
        x = symbol_of(key)
        if any(step.has(x) for step in self.expression.atoms(sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)):
            return sympy.nan
        return _simplify(sympy.diff(self.expression, x) * x / self.expression)

    def elasticities(self, point: Mapping[VarKey, float] | None = None) -> dict[VarKey, sympy.Expr]:
        """Every free key's elasticity, evaluated where ``point`` gives all free keys."""
        out = {}
        subs = {symbol_of(k): exact_number(v) for k, v in (point or {}).items() if k in self.free}
        for key in self.free:
            out[key] = _simplify(self.elasticity(key).xreplace(subs))
        return out

    def to_dict(self) -> dict:
        return {"expression": self.text, "latex": self.latex, "free": list(self.free), "pretty": self.pretty,
                "approximate": self.approximate}


@dataclass(frozen=True, repr=False)
class SymbolicSolution(Result):
    """A closed-form answer: prints as ``hwkb solve --symbolic`` does; its JSON is the solution's."""
    solution: Solution

    def __repr__(self) -> str:
        return str(self)

    def to_dict(self) -> dict:
        return self.solution.to_dict()

    @property
    def expression(self) -> str:
        return self.solution.extra["expression"]


def closed_form(kb: System, variable: VarKey, context: Context, free: Iterable[VarKey],
                where: Iterable[str] = ()) -> ClosedForm:
    """``variable`` in terms of ``free``, everything else the context states substituted.

    A free key the context states is freed (its fact set aside), and so is
    the target's own fact: the answer is how the target *follows*. Raises
    :class:`NotDetermined` when the target does not follow, :class:`NoClosedForm`
    when it follows only numerically.
    """
    variable = kb.check_key(variable)
    free = tuple(dict.fromkeys(kb.model.resolve_key(k) for k in free))
    context, _ = intervene(kb, context, context, free, where)  # a free clock frees the peaks it gives
    context = context if variable in free else context.without([variable])
    canonical, used = canonical_forms(kb, [variable], context, free, where)
    # display units: x_canonical = factor * x_display, target_display = target_canonical / factor
    to_display = {symbol_of(k): symbol_of(k) * _unit_factor(kb, k) for k in free}
    expression = _simplify(canonical[variable].xreplace(to_display) / _unit_factor(kb, variable))
    return ClosedForm(variable, kb.model.unit_of(variable), free, expression, used)


def canonical_forms(kb: System, targets: Sequence[VarKey], context: Context, free: Iterable[VarKey],
                    where: Iterable[str] = ()) -> tuple[dict[VarKey, sympy.Expr], tuple[str, ...]]:
    """Each target's canonical value as an expression in the free keys' symbols (which stand for canonical values).

    The context's facts stay (except the free keys'); returns the expressions
    and the relations used, in the order met.
    """
    free = tuple(dict.fromkeys(kb.model.resolve_key(k) for k in free))
    for key in free:
        kb.model.check_key(key, where=Location("--free"))
    structure = Structure(kb, context.without(free), where)
    units = kb.units
    facts = {k: f for k, f in structure.context.facts.items() if f.applicable}
    known = set(facts) | set(free)
    plan = make_plan(structure.keysets, known, structure.can_solve, structure.usable)
    for target in targets:
        if target not in plan.determined:
            needs = search_needs(structure.keysets, known, target, structure.can_solve, structure.usable,
                                 excluded=structure.context.not_applicable,
                                 same=same_figure(structure, target)).sets  # as solve's: never the target renamed
            names = ", ".join(free) or "no free variables"
            raise NotDetermined(f"{target} does not follow from this context and {names}", needs)
    producer: dict[VarKey, Step] = {out: step for step in plan.steps for out in step.outputs}
    memo: dict[VarKey, sympy.Expr] = {}
    used: list[str] = []

    def expr(key: VarKey) -> sympy.Expr:
        if key in memo:
            return memo[key]
        if key in free:
            result = symbol_of(key)
        elif key in facts:
            result = _fact_number(facts[key], units)
        else:
            result = _step_expression(structure, producer[key], key, expr, memo, used)
        memo[key] = result
        return result

    return {t: expr(t) for t in targets}, tuple(dict.fromkeys(used))


def _step_expression(structure: Structure, step: Step, key: VarKey, expr, memo, used) -> sympy.Expr:
    relations = [structure.relations[r] for r in step.relations]
    for relation in relations:
        if relation.template is None:
            raise NoClosedForm(f"{key} comes from the simulated rule {relation.name}, which has no closed form",
                               where=relation.rule.where,
                               hint="a --sweep or a --where threshold evaluates it point by point")
    if not step.is_block:
        (relation,) = relations
        solution = relation.solution(key)
        if solution is None:
            raise NoClosedForm(f"{relation.name} has no explicit solution for {key}", where=relation.rule.where)
        used.append(relation.name)
        subs = {symbol_of(k): expr(k) for k in relation.keys if k != key}
        return solution.xreplace(subs)
    unknowns = [symbol_of(k) for k in step.outputs]
    equations = []
    for relation in relations:
        subs = {symbol_of(k): expr(k) for k in relation.keys if k not in step.outputs}
        equations.append(relation.residual.xreplace(subs))
    names = ", ".join(r.name for r in relations)
    found = positive_roots(equations, unknowns)
    if found.failure is not None:
        raise NoClosedForm(f"the system {names} cannot be solved in closed form: {found.failure}")
    roots = found.roots
    if len(roots) != 1:
        raise NoClosedForm(f"the system {names} has {len(roots)} admissible closed-form solutions for "
                           f"{', '.join(step.outputs)}", hint="fix one of its variables with --set")
    used.extend(r.name for r in relations)
    for symbol in unknowns:
        memo[key_of_symbol(symbol)] = roots[0][symbol]
    return roots[0][symbol_of(key)]


def default_free(kb: System, variable: VarKey, context: Context,
                 where: Iterable[str] = ()) -> tuple[tuple[VarKey, ...], str]:
    """The free variables ``--symbolic`` uses without ``--free``, and why.

    A determined target is written in the command-line facts it rests on (the
    query's parameters), or in all the facts it rests on when there are none.
    An undetermined one is expanded through the rules that *define* it (the
    rule's left side) down to the variables nothing in the context defines:
    the H100's ``exp_utilization[bf16]`` becomes a function of ``d_qk, d_v``.
    """
    if variable in context.facts:  # a stated target is written in what it would follow from
        context = context.without([variable])
    solution = Solver(kb, context, list(where)).solution(variable)
    if solution.value is not None:
        facts = solution.value.facts()
        given = [f.key for f in facts if f.origin.via in ("set", "given", "scenario")]
        if given:
            return tuple(given), "the facts given for this query"
        return tuple(f.key for f in facts), "every fact it rests on"
    if solution.status == "not_applicable":
        raise NotDetermined(f"{variable} is not applicable in this context", hint=" ".join(solution.notes) or None)
    structure = Structure(kb, context, where)
    known = {k for k, f in context.facts.items() if f.applicable}
    leaves = _expand_definitions(structure, variable, known)
    if leaves and variable in make_plan(structure.keysets, known | set(leaves), structure.can_solve,
                                        structure.usable).determined:
        return leaves, "the variables its defining rules rest on"
    if solution.needs:
        return tuple(solution.needs[0]), "what the context lacks"
    raise NotDetermined(f"{variable} does not follow from this context", hint="name the free variables with --free")


def _expand_definitions(structure: Structure, variable: VarKey, known: set) -> tuple[VarKey, ...]:
    """Replace each unknown by the unknowns of the rule whose left side it is, until none is left to expand."""
    frontier, used, leaves = [variable], set(), []
    while frontier:
        key = frontier.pop(0)
        rule = next((r for r, relation in enumerate(structure.relations)
                     if r not in used and structure.usable(r) and relation.ast is not None
                     and str(relation.ast.lhs) == key and structure.can_solve(r, key)), None)
        if rule is None:
            if key not in leaves:
                leaves.append(key)
            continue
        used.add(rule)
        frontier.extend(k for k in structure.relations[rule].keys if k != key and k not in known
                        and k not in leaves and k not in frontier)
    return tuple(leaves) if leaves != [variable] else ()


def parse_free(kb: System, text: str) -> tuple[VarKey, ...]:
    """``'d_qk,d_v'`` -> keys, each checked (unknown names get suggestions)."""
    keys = tuple(kb.model.resolve_key(k.strip()) for k in text.split(",") if k.strip())
    for key in keys:
        kb.model.check_key(key, where=Location("--free"))
    return keys


def exact_number(value: float) -> sympy.Expr:
    """A float as the exact decimal it prints as: ``0.1`` -> ``1/10``.

    >>> exact_number(0.1), exact_number(1e12), exact_number(4096.0)
    (1/10, 1000000000000, 4096)
    """
    if isinstance(value, int) or float(value).is_integer():
        return sympy.Integer(int(value))
    return sympy.Rational(repr(float(value)))


def _fact_number(fact: Fact, units) -> sympy.Expr:
    """A fact's canonical value, exact from its printed digits where they read as a number."""
    try:
        printed = sympy.Rational(fact.text.strip().replace("_", ""))
    except (TypeError, ValueError):
        return exact_number(units.to_canonical(fact.value, fact.unit))
    if printed != exact_number(fact.value):
        return exact_number(units.to_canonical(fact.value, fact.unit))
    return printed * exact_number(units.to_canonical(1.0, fact.unit))



def _unit_factor(kb: System, key: VarKey) -> sympy.Expr:
    return exact_number(kb.units.to_canonical(1.0, kb.model.unit_of(key)))


def _simplify(expr: sympy.Expr) -> sympy.Expr:
    if sympy.count_ops(expr) > _SIMPLIFY_MAX_OPS:
        return sympy.cancel(expr)
    try:
        return sympy.simplify(expr)
    except (TypeError, ValueError, NotImplementedError):
        return expr


def latex_of(expr: sympy.Expr) -> str:
    r"""LaTeX with every KB name upright and whole: ``d_qk`` is ``\mathrm{d\_qk}``, ``tc_peak[bf16]`` ``\mathrm{tc\_peak}_{\mathrm{bf16}}``."""
    names = {}
    for symbol in expr.free_symbols:
        name, index = split_key(key_of_symbol(symbol))
        text = r"\mathrm{" + name.replace("_", r"\_") + "}"
        if index is not None:
            text += r"_{\mathrm{" + index.replace("_", r"\_") + "}}"
        names[symbol] = text
    return sympy.latex(expr, symbol_names=names)


def solve_symbolic(kb: System, variable: VarKey, context: Context, free: Sequence[VarKey] | None = None,
                   where: Iterable[str] = (), sensitivity: bool = False):
    """The closed form as a :class:`~hwkb.solving.solver.Solution`: ``extra`` holds expression, latex, free (and more).

    ``value`` is the context's own value of the target when it has one, else
    the closed form at the context's values of the free variables, if all are
    known. With ``sensitivity``, ``extra["sensitivity"]`` lists each free
    variable's elasticity, as an expression and, where the point is known, a number.
    """
    asked, variable = variable, kb.check_key(variable)
    where = list(where)
    notes = []
    if free is None:
        free, why = default_free(kb, variable, context, where)
        notes.append(f"free variables: {', '.join(free)} ({why}); choose others with --free")
    form = closed_form(kb, variable, context, free, where)
    solver = Solver(kb, context, where)
    base = solver.solution(variable)
    point = {k: solver.values[k].magnitude for k in form.free if k in solver.values}
    extra = {**form.to_dict(), "free_units": {k: kb.model.unit_of(k) for k in form.free}, "point": point}
    value, status = (base.value, base.status) if base.determined else (None, base.status)
    if value is None and len(point) == len(form.free):
        magnitude = form.evaluate(point)
        inputs = tuple(solver.values[k] for k in form.free)
        origin = RuleOrigin("closed form", "law", f"{variable} = {form.text}", inputs)
        value = Value(variable, magnitude, form.unit, kb.units.to_canonical(magnitude, form.unit), origin)
        status = Status.DERIVED
    if sensitivity:
        known = point if len(point) == len(form.free) else {}
        extra["sensitivity"] = [
            {"variable": k, "expression": ("not differentiable (through floor, ceil, min or max)"
                                           if form.elasticity(k) is sympy.nan else str(form.elasticity(k))),
             "elasticity": float(e) if e.is_number and e is not sympy.nan else None}
            for k, e in form.elasticities(known).items()]
    needs = base.needs if value is None else ()
    solution = Solution(variable, status, form.unit, value, needs=needs, notes=(*notes, *base.notes), extra=extra)
    return solution if variable == asked else solution.asked_as(asked)
