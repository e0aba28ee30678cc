"""Rule files (``rules/*.yaml``): index sets, variables and rules, simulated rules among them.

Index sets are built as their file is read; variables and rules are kept as
:class:`~hwkb.formats.yaml_nodes.Declaration` until every file is read, since a
rule may use a variable of a later file. References to variables (in rules,
facts and simulation inputs) are checked here, against the index sets.
"""
from __future__ import annotations

import math
import re
from typing import Mapping

from hwkb.definitions.choices import Choice
from hwkb.definitions.expressions import Ref, parse_relation
from hwkb.definitions.model import (RULE_KINDS, SIMULATION_MODELS, IndexSet, Range, Rule, Simulation, Variable,
                                    alias_table, resolve_name, split_key, var_key)
from hwkb.definitions.quantities import read_quantity
from hwkb.definitions.units import Units
from hwkb.definitions.limits import MAX_RULE_INSTANCES, MAX_SIMULATION_OPTION
from hwkb.errors import ExpressionError, KBError, LimitError, UnitError, UnknownNameError
from hwkb.formats.choice_files import CHOICE_FIELDS, chosen_indices
from hwkb.formats.facts import read_fact, read_tolerance
from hwkb.formats.names import check_name
from hwkb.formats.yaml_nodes import Declaration, Node, NodeReader

__all__ = ["read_rule_file", "build_variable", "build_rule", "check_ref", "check_key", "check_aliases"]

_VARIABLE_FIELDS = ("unit", "doc", "index", "integer", "positive", "capacity", "default", "source", "aliases",
                    "range", "at_most")
#: a range's fields: its bounds (min/max include the bound, above/below exclude it) and the document or reason
_RANGE_FIELDS = ("min", "max", "above", "below", "source")
_RULE_FIELDS = ("kind", "doc", "for", "eq", "source", "example", "tolerance", "model", "inputs", "output", "options")


def read_rule_file(reader: NodeReader, root: Node, indices: dict[str, IndexSet], variables: list[Declaration],
                   rules: list[Declaration], choices: list[Declaration]) -> None:
    """Add the file's index sets to ``indices`` and its variables, rules and choices, as written, to the lists."""
    sections = reader.mapping(root, "a rules file", allowed=("indices", "choices", "variables", "rules"))
    if not sections:
        return
    if "indices" in sections:
        for name, (key_node, node) in (reader.mapping(sections["indices"][1], "indices") or {}).items():
            fields = reader.mapping(node, f"index set {name!r}", ("values", "integer", "doc", "headline"),
                                    ("values",))
            if fields is None or "values" not in fields:
                continue
            values = reader.names(fields["values"][1], f"the values of {name!r}") or []
            if not (check_name(reader, key_node, name, "index set")
                    and all(check_name(reader, fields["values"][1], v, "index value") for v in values)):
                continue
            integer = reader.names(fields["integer"][1], f"the integer values of {name!r}") or [] \
                if "integer" in fields else []
            unknown = [v for v in integer if v not in values]
            if unknown:
                reader.errors.append(UnknownNameError(f"{name} value", unknown[0], values,
                                                      where=reader.at(fields["integer"][1])))
                continue
            doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else ""
            headline = _headline(reader, fields["headline"][1], name, values) if "headline" in fields else ()
            if headline is None:
                continue
            reader.declare(indices, name, key_node, IndexSet(name, tuple(values), doc or "", reader.at(key_node),
                                                             tuple(integer), headline))
    for section, what, allowed, required, out in (
            ("variables", "variable", _VARIABLE_FIELDS, ("unit", "doc"), variables),
            ("rules", "rule", _RULE_FIELDS, ("doc", "source"), rules),
            ("choices", "choice", CHOICE_FIELDS, CHOICE_FIELDS, choices)):
        if section in sections:
            for name, (key_node, node) in (reader.mapping(sections[section][1], section) or {}).items():
                fields = reader.mapping(node, f"{what} {name!r}", allowed, required)
                if fields is not None:
                    out.append(Declaration(reader, name, key_node, fields))


def _headline(reader: NodeReader, node: Node, name: str, values: list[str]) -> tuple[str, ...] | None:
    """An index set's headline values, each one of its values and listed once; None with the problem reported."""
    headline = reader.names(node, f"the headline values of {name!r}")
    if headline is None:
        return None
    unknown = [v for v in headline if v not in values]
    if unknown:
        reader.error(node, f"headline value {unknown[0]!r} is not a value of index set {name!r}",
                     f"list some of {', '.join(values)}")
        return None
    if len(set(headline)) != len(headline):
        reader.error(node, f"the headline values of {name!r} list a value twice")
        return None
    return tuple(headline)


def build_variable(item: Declaration, indices: Mapping[str, IndexSet], units: Units) -> Variable | None:
    reader, name, fields = item.reader, item.name, item.fields
    if "unit" not in fields or "doc" not in fields:  # reported by the mapping
        return None
    unit = reader.text(fields["unit"][1], "unit")
    doc = reader.text(fields["doc"][1], "doc")
    if unit is None or doc is None or not check_name(reader, item.key_node, name, "variable"):
        return None
    try:
        units.parse_unit(unit, where=reader.at(fields["unit"][1]))
        units.dimensions(unit)
    except KBError as exc:  # an unknown unit, or one beyond a limit
        reader.errors.append(exc.at(reader.at(fields["unit"][1])))
        return None
    index = None
    if "index" in fields:
        index = reader.text(fields["index"][1], "index")
        if index is not None and index not in indices:
            reader.errors.append(UnknownNameError("index set", index, indices, where=reader.at(fields["index"][1])))
            return None
    integer = reader.flag(fields["integer"][1], "integer") if "integer" in fields else False
    positive = reader.flag(fields["positive"][1], "positive") if "positive" in fields else False
    aliases = _aliases(item) if "aliases" in fields else ()
    capacity = reader.flag(fields["capacity"][1], "capacity") if "capacity" in fields else False
    if capacity and units.dimensions(unit) != units.dimensions("B"):
        reader.error(fields["capacity"][0],
                     f"capacity: true is for sizes in bytes, but {name} is in {unit or 'a count'}",
                     "leave 'capacity' out, or give the variable a unit of bytes")
        capacity = False
    variable = Variable(name, unit, doc, item.where, index, integer, positive=positive, capacity=capacity)
    default = None
    if "default" in fields:
        source = reader.text(fields["source"][1], "source") if "source" in fields else None
        default = read_fact(reader, fields["default"][1], variable, name, None, source, units)
    elif "source" in fields:
        reader.error(fields["source"][0], "'source' on a variable belongs to its 'default'",
                     "give a default value or move the source to the facts")
    plausible = _range(item, unit, units) if "range" in fields else None
    return Variable(name, unit, doc, item.where, index, integer, default, aliases, positive, plausible, capacity)


def _range(item: Declaration, unit: str, units: Units) -> Range | None:
    """A variable's ``range: {min: 0.1 GHz, max: 3.5 GHz, source: "..."}``: each bound a quantity of the variable's
    dimension (``above``/``below`` for an open end), at least one bound, the lower not above the upper, and a
    ``source`` saying which document or reason the bounds come from. None with the problem reported."""
    reader, node = item.reader, item.fields["range"][1]
    what = f"the range of {item.name!r}"
    fields = reader.mapping(node, what, _RANGE_FIELDS)
    if fields is None:
        return None
    ok = True
    if "source" not in fields:
        reader.error(node, f"{what} lacks 'source'",
                     "say where the bounds come from: a document, or the reason no real part lies outside them")
        ok = False
    for closed, open_ in (("min", "above"), ("max", "below")):
        if closed in fields and open_ in fields:
            reader.error(fields[open_][0], f"{what} gives both '{closed}' and '{open_}'",
                         f"'{closed}' includes the bound, '{open_}' excludes it: keep one")
            ok = False
    ends: dict[str, float] = {}
    for end in ("min", "above", "max", "below"):
        if end in fields:
            value_node = fields[end][1]
            text = reader.scalar(value_node, null=False)
            try:
                reading = None if text is None else read_quantity(text, unit, units, reader.at(value_node),
                                                                  key=item.name, in_file=True)
            except KBError as exc:
                reader.errors.append(exc.at(reader.at(value_node)))
                ok = False
                continue
            if reading is None or reading.value is None:
                reader.error(value_node, f"'{end}' of {what} must be a quantity",
                             f"e.g. {end}: {'1 ' + unit if unit else '1'}")
                ok = False
                continue
            ends[end] = reading.value
    if not ends and ok and len(fields) == len(node.value):  # an unknown field (a mistyped bound) is reported
        reader.error(node, f"{what} gives no bound", "give min (or above), max (or below), or both")
        return None
    lower, upper = ends.get("min", ends.get("above")), ends.get("max", ends.get("below"))
    lower_open, upper_open = "above" in ends, "below" in ends
    if lower is not None and upper is not None and (lower > upper or (lower == upper and (lower_open or upper_open))):
        shown = f" {unit}" if unit else ""
        reader.error(node, f"{what} is empty: its lower bound {lower:g}{shown} is not below its upper bound "
                     f"{upper:g}{shown}", "swap the bounds, or correct the one mistyped")
        return None
    source = reader.text(fields["source"][1], "source") if "source" in fields else None
    if not ok or source is None:
        return None
    return Range(lower, upper, source, reader.at(node), lower_open, upper_open)


def _aliases(item: Declaration) -> tuple[str, ...]:
    """A variable's vendor aliases as declared: each a variable name, none its own name or written twice."""
    reader, node = item.reader, item.fields["aliases"][1]
    names = reader.names(node, f"the aliases of {item.name!r}") or []
    out: list[str] = []
    for alias in names:
        if not check_name(reader, node, alias, "variable"):
            continue
        if alias == item.name or alias in out:
            reader.error(node, f"alias {alias!r} of {item.name!r} is " + ("its own name" if alias == item.name
                                                                           else "written twice"))
            continue
        out.append(alias)
    return tuple(out)


def check_aliases(items: list[Declaration], variables: Mapping[str, Variable]) -> None:
    """Report every alias that names two things: another variable, or an alias another variable declares."""
    owners: dict[str, str] = {}
    for item in items:
        variable = variables.get(item.name)
        if variable is None or variable.where != item.where or "aliases" not in item.fields:
            continue
        node = item.fields["aliases"][1]
        for alias in variable.aliases:
            if alias in variables:
                item.reader.error(node, f"alias {alias!r} of {item.name!r} is the name of another variable",
                                  f"that variable is declared at {variables[alias].where}")
            elif alias in owners:
                item.reader.error(node, f"alias {alias!r} of {item.name!r} is declared twice",
                                  f"it is an alias of {owners[alias]!r} at {variables[owners[alias]].where}")
            else:
                owners[alias] = item.name

def build_rule(item: Declaration, indices: Mapping[str, IndexSet], variables: Mapping[str, Variable],
               units: Units, choices: Mapping[str, Choice] | None = None) -> Rule | None:
    reader, name, fields = item.reader, item.name, item.fields
    doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else None  # a missing one is reported
    source = reader.text(fields["source"][1], "source") if "source" in fields else None
    example = (reader.text(fields["example"][1], "example") or "") if "example" in fields else ""
    kind = reader.text(fields["kind"][1], "kind") if "kind" in fields else "law"
    if not check_name(reader, item.key_node, name, "rule"):
        return None
    if kind not in RULE_KINDS:
        reader.error(fields["kind"][1], f"unknown rule kind {kind!r}", f"use one of {', '.join(RULE_KINDS)}")
        return None
    over: list[str] = []
    if "for" in fields:
        over = reader.names(fields["for"][1], "for") or []
        for index in over:
            if index not in indices:
                reader.errors.append(UnknownNameError("index set", index, indices, where=reader.at(fields["for"][1])))
                return None
        instances = math.prod(len(indices[index].values) for index in over)
        if instances > MAX_RULE_INSTANCES:
            reader.errors.append(LimitError(f"instances of rule {name!r}", instances, MAX_RULE_INSTANCES,
                                            where=reader.at(fields["for"][1]),
                                            hint="one relation is built per combination of the index values"))
            return None
    tolerance = _relative_tolerance(reader, fields["tolerance"][1], units) if "tolerance" in fields else 0.0
    if kind == "simulated":
        simulation = _read_simulation(item, indices, variables)
        if simulation is None or doc is None or source is None:
            return None
        return Rule(name, kind, doc, source, item.where, over=tuple(over), simulation=simulation, example=example)
    if "eq" not in fields:
        reader.error(item.key_node, f"rule {name!r} lacks 'eq'", "write eq: LHS = RHS")
        return None
    eq_node = fields["eq"][1]
    text = reader.text(eq_node, "eq")
    if text is None:
        return None
    try:
        relation = parse_relation(text, reader.text_start(eq_node))
    except ExpressionError as exc:
        reader.errors.append(exc)
        return None
    if (relation.op == "=") == (kind == "limit"):
        if kind == "limit":
            reader.error(eq_node, "a limit states an inequality, not '='", "write eq: LHS <= RHS")
        else:
            reader.error(eq_node, f"a rule states an equation, not {relation.op!r}",
                         "constraints belong in a query's --where, launch limits in a rule of kind: limit")
        return None
    if any(ref.name not in variables for ref in relation.references()):  # a vendor alias, or an unknown name
        relation = relation.map_refs(lambda ref: Ref(resolve_name(ref.name, variables), ref.index))
    chosen, runs_over = chosen_indices(relation, over, choices or {})
    ok = True
    for ref in dict.fromkeys(relation.references()):
        ok &= check_ref(reader, eq_node, ref, indices, variables, over=runs_over)
    if not ok or doc is None or source is None:
        return None
    if chosen and kind != "law":  # an expectation or a limit holds whatever a context chooses
        return reader.error(eq_node, f"only a law may take an index from a choice, and {name!r} is a {kind}")
    return Rule(name, kind, doc, source, item.where, relation, text, (*over, *chosen), tolerance, example=example,
                chosen=chosen)


def check_ref(reader: NodeReader, node: Node, ref: Ref, indices: Mapping[str, IndexSet],
              variables: Mapping[str, Variable], over: Mapping[str, str] | None = None) -> bool:
    """Whether ``ref`` names a declared variable with a fitting index; reports why not at ``node``.

    ``over``: a rule's index names -> their index sets (a choice -> the set it takes); None outside a rule.
    """
    where = reader.at(node)
    if ref.name not in variables:  # the suggestions include the aliases
        reader.errors.append(UnknownNameError("variable", ref.name, [*variables, *alias_table(variables)], where=where))
        return False
    variable = variables[ref.name]
    if variable.index is None:
        if ref.index is not None:
            reader.error(node, f"{ref.name} has no index, but is written {ref}", f"write {ref.name}")
            return False
        return True
    values = indices[variable.index].values
    if ref.index is None:
        reader.error(node, f"{ref.name} is indexed by {variable.index}",
                     f"write {ref.name}[{variable.index}] with 'for: {variable.index}', or {ref.name}[{values[0]}]"
                     if over is not None else f"write {ref.name}[{values[0]}] (one of {', '.join(values)})")
        return False
    if over is not None and ref.index in over:
        if over[ref.index] != variable.index:
            reader.error(node, f"{ref} runs over {over[ref.index]}, but {ref.name} is indexed by {variable.index}")
            return False
        return True
    if ref.index not in values:
        names = [*values, *(name for name, index in (over or {}).items() if index == variable.index)]
        reader.errors.append(UnknownNameError(f"{variable.index} value", ref.index, names, where=where))
        return False
    return True


def check_key(reader: NodeReader, node: Node, key: str, indices: Mapping[str, IndexSet],
              variables: Mapping[str, Variable]) -> str | None:
    """The key of a declared variable that ``key`` (``sm_count``, ``tc_peak[bf16]``, an alias ``cu_count``) names,
    or None with the reason reported."""
    name, index = split_key(key)
    resolved = resolve_name(name, variables)
    if not check_ref(reader, node, Ref(resolved, index), indices, variables):
        return None
    return key if resolved == name else var_key(resolved, index)


def _relative_tolerance(reader: NodeReader, node: Node, units: Units) -> float:
    unreadable = "tolerance {!r} must be a fraction, e.g. '1 %' or 0.01"
    read = read_tolerance(reader, node, units, unreadable)
    if read is None:
        return 0.0
    text, amount, written = read
    if units.dimensions(written) != frozenset():
        reader.error(node, unreadable.format(text), cls=UnitError)
        return 0.0
    return units.to_canonical(amount, written)


def _read_simulation(item: Declaration, indices: Mapping[str, IndexSet],
                     variables: Mapping[str, Variable]) -> Simulation | None:
    reader, fields = item.reader, item.fields
    for key in ("model", "inputs", "output"):
        if key not in fields:
            reader.error(item.key_node, f"a simulated rule needs '{key}'")
            return None
    model = reader.text(fields["model"][1], "model")
    if model not in SIMULATION_MODELS:
        reader.errors.append(UnknownNameError("simulation model", model or "", SIMULATION_MODELS,
                                              where=reader.at(fields["model"][1])))
        return None
    parameters, allowed_options = SIMULATION_MODELS[model].parameters, SIMULATION_MODELS[model].options
    inputs = {}
    for param, (_, value) in (reader.mapping(fields["inputs"][1], "inputs") or {}).items():
        key = reader.text(value, f"input {param}")
        key = None if key is None else check_key(reader, value, key, indices, variables)
        if key is not None:
            inputs[param] = key
    missing = [p for p in parameters if p not in inputs]
    extra = [p for p in inputs if p not in parameters]
    if missing or extra:
        reader.error(fields["inputs"][1], f"model {model!r} takes the inputs {', '.join(parameters)}",
                     f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(extra) or 'none'}")
        return None
    output = reader.text(fields["output"][1], "output")
    output = None if output is None else check_key(reader, fields["output"][1], output, indices, variables)
    if output is None:
        return None
    options = {}
    if "options" in fields:
        for opt, (_, value) in (reader.mapping(fields["options"][1], "options") or {}).items():
            if opt not in allowed_options:
                reader.error(value, f"model {model!r} has no option {opt!r}",
                             f"its options: {', '.join(allowed_options)}")
                continue
            option = _option(reader, value, opt, allowed_options[opt])
            if option is None:
                return None
            options[opt] = option
    return Simulation(model, inputs, output, options)


def _option(reader: NodeReader, node: Node, name: str, default: object) -> int | str | None:
    """A simulation option as written, of its default's type: a whole number from 1 to MAX_SIMULATION_OPTION
    written in decimal digits, or a name; None with the problem reported."""
    text = reader.scalar(node, null=False)
    if isinstance(default, int):
        if text is None or not re.fullmatch(r"[0-9]{1,12}", text) or int(text) < 1:
            reader.error(node, f"option {name} must be a whole number from 1 to {MAX_SIMULATION_OPTION}",
                         f"write it in decimal digits, e.g. {name}: {default}")
            return None
        if int(text) > MAX_SIMULATION_OPTION:
            reader.errors.append(LimitError(f"option {name}", int(text), MAX_SIMULATION_OPTION, where=reader.at(node)))
            return None
        return int(text)
    if text is None or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", text):
        reader.error(node, f"option {name} must be a name, e.g. {name}: {default}")
        return None
    return text
