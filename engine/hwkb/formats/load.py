"""Reading KB files into a :class:`~hwkb.definitions.model.Model`: the only module that imports ruamel.yaml.

The loader works on ruamel's node tree (``compose``), not on constructed Python
objects: nodes keep the text as written (the audit needs the printed digits),
their line and column, and every duplicate key. All problems of a load are
collected and raised together as one :class:`~hwkb.errors.KBErrors`.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from hwkb.errors import (ExpressionError, KBError, KBErrors, LoadError, Location, UnitError,
                     UnknownNameError, suggest)
from hwkb.definitions.expressions import Ref, parse_relation
from hwkb.definitions.model import (ENTITY_KINDS, RULE_KINDS, Entity, Fact, IndexSet, Model, Rule, Simulation,
                    Variable, split_key)
from hwkb.formats.node_cache import cached_tree, store_tree
from hwkb.definitions.units import Units

__all__ = ["load_model", "load_entities", "read_yaml", "NOT_APPLICABLE"]

NOT_APPLICABLE = ("n/a", "na", "none")
_INT_TAG, _FLOAT_TAG, _STR_TAG, _NULL_TAG = (
    "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:str", "tag:yaml.org,2002:null")


def read_yaml(path: Path, errors: list[KBError]) -> Node | None:
    """The node tree of one file, or None with the syntax error appended."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(LoadError(f"cannot read file: {exc}", where=Location(str(path))))
        return None
    root = cached_tree(text, str(path))
    if root is not None:
        return root
    try:
        root = YAML(typ="safe", pure=True).compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path))
        problem = " ".join(p for p in (exc.problem, exc.context) if p)
        errors.append(LoadError(f"malformed YAML: {problem}", where=where,
                                hint="check the indentation and the brackets around this place"))
    except YAMLError as exc:
        errors.append(LoadError(f"malformed YAML: {exc}", where=Location(str(path))))
    else:
        if root is not None:
            store_tree(text, root)
        return root
    return None


def _where(path: Path, node: Node) -> Location:
    return Location(str(path), node.start_mark.line + 1, node.start_mark.column + 1)


class _Reader:
    """Walks one file's nodes, appending every problem to a shared list."""

    def __init__(self, path: Path, errors: list[KBError]):
        self.path, self.errors = path, errors

    def at(self, node: Node) -> Location:
        return _where(self.path, node)

    def error(self, node: Node, message: str, hint: str | None = None, cls=LoadError):
        self.errors.append(cls(message, where=self.at(node), hint=hint))

    def mapping(self, node: Node, what: str, allowed: Iterable[str] | None = None,
                required: Iterable[str] = ()) -> dict[str, tuple[Node, Node]] | None:
        """Keys to (key node, value node); reports duplicates, unknown and missing keys."""
        if not isinstance(node, MappingNode):
            self.error(node, f"{what} must be a mapping of 'key: value' lines")
            return None
        out: dict[str, tuple[Node, Node]] = {}
        allowed = list(allowed) if allowed is not None else None
        suggested: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.error(key_node, f"a key in {what} must be a plain name")
                continue
            key = key_node.value
            if key in out:
                first = self.at(out[key][0])
                self.error(key_node, f"duplicate key {key!r} in {what}",
                           f"it is already given at line {first.line}; keep one")
                continue
            if allowed is not None and key not in allowed:
                close = suggest(key, allowed)
                self.error(key_node, f"unknown field {key!r} in {what}",
                           f"did you mean {close[0]!r}?" if close else f"allowed: {', '.join(allowed)}")
                suggested.update(close[:1])
                continue
            out[key] = (key_node, value_node)
        for key in required:
            if key not in out and key not in suggested:  # a typo of it is reported already
                self.error(node, f"{what} lacks '{key}'")
        return out

    def text(self, node: Node, what: str) -> str | None:
        if not isinstance(node, ScalarNode) or node.tag == _NULL_TAG:
            self.error(node, f"{what} must be a single line of text")
            return None
        return str(node.value)

    def names(self, node: Node, what: str) -> list[str] | None:
        if isinstance(node, ScalarNode):
            return [node.value]
        if isinstance(node, SequenceNode) and all(isinstance(n, ScalarNode) for n in node.value):
            return [n.value for n in node.value]
        self.error(node, f"{what} must be a name or a list of names")
        return None


# ---------------------------------------------------------------- rule files

_VARIABLE_FIELDS = ("unit", "doc", "index", "integer", "default", "source")
_RULE_FIELDS = ("kind", "doc", "for", "eq", "source", "tolerance", "model", "inputs", "output", "options")


def _read_rule_file(reader: _Reader, root: Node, indices: dict, variables: dict, rules: dict, raw: list):
    sections = reader.mapping(root, "a rules file", allowed=("indices", "variables", "rules"))
    if not sections:
        return
    if "indices" in sections:
        for name, (key_node, node) in (reader.mapping(sections["indices"][1], "indices") or {}).items():
            fields = reader.mapping(node, f"index set {name!r}", ("values", "doc"), ("values",))
            if fields is None or "values" not in fields:
                continue
            values = reader.names(fields["values"][1], f"the values of {name!r}") or []
            doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else ""
            _declare(reader, indices, name, key_node, IndexSet(name, tuple(values), doc or "", reader.at(key_node)))
    if "variables" in sections:
        for name, (key_node, node) in (reader.mapping(sections["variables"][1], "variables") or {}).items():
            fields = reader.mapping(node, f"variable {name!r}", _VARIABLE_FIELDS, ("unit", "doc"))
            if fields is not None:
                raw.append(("variable", reader, name, key_node, fields))
    if "rules" in sections:
        for name, (key_node, node) in (reader.mapping(sections["rules"][1], "rules") or {}).items():
            fields = reader.mapping(node, f"rule {name!r}", _RULE_FIELDS, ("doc", "source"))
            if fields is not None:
                raw.append(("rule", reader, name, key_node, fields))


def _declare(reader: _Reader, table: dict, name: str, key_node: Node, item):
    if name in table:
        reader.error(key_node, f"{name!r} is declared twice", f"the first is at {table[name].where}")
    else:
        table[name] = item


def _build_variable(reader, name, key_node, fields, indices, units: Units) -> Variable | None:
    if "unit" not in fields or "doc" not in fields:  # reported by the mapping
        return None
    unit = reader.text(fields["unit"][1], "unit")
    doc = reader.text(fields["doc"][1], "doc")
    if unit is None or doc is None:
        return None
    where = reader.at(key_node)
    try:
        units.parse_unit(unit, where=reader.at(fields["unit"][1]))
        units.dimensions(unit)
    except UnitError as exc:
        reader.errors.append(exc if exc.where else UnitError(exc.message, where=reader.at(fields["unit"][1]),
                                                             hint=exc.hint))
        return None
    index = None
    if "index" in fields:
        index = reader.text(fields["index"][1], "index")
        if index is not None and index not in indices:
            reader.errors.append(UnknownNameError("index set", index, indices, where=reader.at(fields["index"][1])))
            return None
    integer = False
    if "integer" in fields:
        flag = fields["integer"][1]
        if not (isinstance(flag, ScalarNode) and flag.value in ("true", "false")):
            reader.error(flag, "integer must be true or false")
        integer = isinstance(flag, ScalarNode) and flag.value == "true"
    variable = Variable(name, unit, doc, where, index, integer)
    default = None
    if "default" in fields:
        source = reader.text(fields["source"][1], "source") if "source" in fields else None
        default = _read_fact(reader, fields["default"][1], variable, name, None, source, units)
    elif "source" in fields:
        reader.error(fields["source"][0], "'source' on a variable belongs to its 'default'",
                     "give a default value or move the source to the facts")
    return Variable(name, unit, doc, where, index, integer, default)


def _build_rule(reader, name, key_node, fields, model_parts, units) -> Rule | None:
    indices, variables = model_parts
    where = reader.at(key_node)
    doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else None  # a missing one is reported
    source = reader.text(fields["source"][1], "source") if "source" in fields else None
    kind = reader.text(fields["kind"][1], "kind") if "kind" in fields else "law"
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
    tolerance = 0.0
    if "tolerance" in fields:
        tolerance = _relative_tolerance(reader, fields["tolerance"][1], units)
    if kind == "simulated":
        simulation = _read_simulation(reader, key_node, fields, variables, indices)
        if simulation is None or doc is None or source is None:
            return None
        return Rule(name, kind, doc, source, where, over=tuple(over), simulation=simulation)
    if "eq" not in fields:
        reader.error(key_node, f"rule {name!r} lacks 'eq'", "write eq: LHS = RHS")
        return None
    eq_node = fields["eq"][1]
    text = reader.text(eq_node, "eq")
    if text is None:
        return None
    try:
        relation = parse_relation(text, _text_start(reader, eq_node))
    except ExpressionError as exc:
        reader.errors.append(exc)
        return None
    if relation.op != "=":
        reader.error(eq_node, f"a rule states an equation, not {relation.op!r}",
                     "constraints belong in a query's --where")
        return None
    ok = True
    for ref in dict.fromkeys(relation.references()):
        ok &= _check_ref(reader, eq_node, ref, set(over), indices, variables)
    if not ok or doc is None or source is None:
        return None
    return Rule(name, kind, doc, source, where, relation, text, tuple(over), tolerance)


def _check_ref(reader, node, ref: Ref, over: set, indices, variables, in_rule: bool = True) -> bool:
    where = reader.at(node)
    if ref.name not in variables:
        reader.errors.append(UnknownNameError("variable", ref.name, variables, where=where))
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
                     if in_rule else f"write {ref.name}[{values[0]}] (one of {', '.join(values)})")
        return False
    if ref.index in over:
        if ref.index != variable.index:
            reader.error(node, f"{ref} runs over {ref.index}, but {ref.name} is indexed by {variable.index}")
            return False
        return True
    if ref.index not in values:
        reader.errors.append(UnknownNameError(f"{variable.index} value", ref.index, values, where=where))
        return False
    return True


def _relative_tolerance(reader, node, units: Units) -> float:
    text = reader.text(node, "tolerance")
    if text is None:
        return 0.0
    try:
        q = units.parse_quantity(text, reader.at(node))
        return float(q.to("dimensionless").magnitude)
    except Exception:
        reader.error(node, f"tolerance {text!r} must be a fraction, e.g. '1 %' or 0.01", cls=UnitError)
        return 0.0


def _read_simulation(reader, key_node, fields, variables, indices) -> Simulation | None:
    for key in ("model", "inputs", "output"):
        if key not in fields:
            reader.error(key_node, f"a simulated rule needs '{key}'")
            return None
    from hwkb.solving.simulated import MODEL_OPTIONS, MODELS
    model = reader.text(fields["model"][1], "model")
    if model not in MODELS:
        reader.errors.append(UnknownNameError("simulation model", model or "", MODELS, where=reader.at(fields["model"][1])))
        return None
    inputs = {}
    for param, (_, value) in (reader.mapping(fields["inputs"][1], "inputs") or {}).items():
        key = reader.text(value, f"input {param}")
        if key is not None and _check_key(reader, value, key, variables, indices):
            inputs[param] = key
    missing = [p for p in MODELS[model] if p not in inputs]
    extra = [p for p in inputs if p not in MODELS[model]]
    if missing or extra:
        reader.error(fields["inputs"][1], f"model {model!r} takes the inputs {', '.join(MODELS[model])}",
                     f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(extra) or 'none'}")
        return None
    output = reader.text(fields["output"][1], "output")
    if output is None or not _check_key(reader, fields["output"][1], output, variables, indices):
        return None
    options = {}
    if "options" in fields:
        for opt, (_, value) in (reader.mapping(fields["options"][1], "options") or {}).items():
            if opt not in MODEL_OPTIONS[model]:
                reader.error(value, f"model {model!r} has no option {opt!r}",
                             f"its options: {', '.join(MODEL_OPTIONS[model])}")
            options[opt] = _scalar(value)
    return Simulation(model or "", inputs, output, options)


def _scalar(node: Node):
    if not isinstance(node, ScalarNode):
        return None
    if node.tag == _INT_TAG:
        return int(node.value)
    if node.tag == _FLOAT_TAG:
        return float(node.value)
    return node.value


def _check_key(reader, node, key: str, variables, indices) -> bool:
    name, index = split_key(key)
    return _check_ref(reader, node, Ref(name, index), set(), indices, variables, in_rule=False)


# ---------------------------------------------------------------- entity files

_ENTITY_FIELDS = ("kind", "name", "doc", "extends", "source", "facts")
_FACT_FIELDS = ("value", "source", "doc", "tolerance")


def _read_entity_file(reader: _Reader, root: Node, raw: list):
    for eid, (key_node, node) in (reader.mapping(root, "an entities file") or {}).items():
        fields = reader.mapping(node, f"entity {eid!r}", _ENTITY_FIELDS, ("kind",))
        if fields is not None:
            raw.append(("entity", reader, eid, key_node, fields))


def _build_entity(reader, eid, key_node, fields, model_parts, units) -> Entity | None:
    indices, variables = model_parts
    kind = reader.text(fields["kind"][1], "kind") if "kind" in fields else None  # a missing one is reported
    if kind is not None and kind not in ENTITY_KINDS:
        reader.error(fields["kind"][1], f"unknown entity kind {kind!r}", f"use one of {', '.join(ENTITY_KINDS)}")
    name = reader.text(fields["name"][1], "name") if "name" in fields else eid
    doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else ""
    source = reader.text(fields["source"][1], "source") if "source" in fields else None
    extends = tuple(reader.names(fields["extends"][1], "extends") or ()) if "extends" in fields else ()
    facts = {}
    if "facts" in fields:
        for key, (fact_key_node, node) in (reader.mapping(fields["facts"][1], f"the facts of {eid!r}") or {}).items():
            vname, index = split_key(key)
            if not _check_ref(reader, fact_key_node, Ref(vname, index), set(), indices, variables, in_rule=False):
                continue
            fact = _read_fact(reader, node, variables[vname], key, eid, source, units)
            if fact is not None:
                facts[key] = fact
    return Entity(eid, kind or "", name or eid, doc or "", reader.at(key_node), extends, facts, source)


def _read_fact(reader, node: Node, variable: Variable, key: str, entity, default_source, units: Units) -> Fact | None:
    source, doc, tolerance_node = default_source, None, None
    value_node = node
    if isinstance(node, MappingNode):
        fields = reader.mapping(node, f"fact {key!r}", _FACT_FIELDS, ("value",))
        if fields is None or "value" not in fields:
            return None
        value_node = fields["value"][1]
        if "source" in fields:
            source = reader.text(fields["source"][1], "source")
        if "doc" in fields:
            doc = reader.text(fields["doc"][1], "doc")
        tolerance_node = fields.get("tolerance", (None, None))[1]
    if not isinstance(value_node, ScalarNode) or value_node.tag == _NULL_TAG:
        reader.error(value_node, f"the value of {key!r} must be a number with its unit, e.g. '1.83 GHz', or n/a")
        return None
    text = str(value_node.value).strip()
    where = reader.at(value_node)
    if text.lower() in NOT_APPLICABLE:
        return Fact(key, None, variable.unit, text, source, entity, where, doc)
    try:
        number_text, unit = _split_value(text, variable.unit)
        magnitude = float(number_text)
    except ValueError:
        reader.error(value_node, f"cannot read {text!r} as a value of {key}",
                     f"write a number and a unit that fits {variable.unit or 'a count'}, e.g. '{_example(variable)}'",
                     cls=UnitError)
        return None
    try:
        quantity = units.parse_quantity(f"{number_text} {unit}" if unit else number_text, where)
    except UnitError:
        reader.error(value_node, f"unknown unit {unit!r} in {text!r}",
                     f"units are defined in {Path(units.source).name}; {key} is in {variable.unit or 'plain numbers'}",
                     cls=UnitError)
        return None
    try:
        fits = units.dimensions(str(quantity.units)) == units.dimensions(variable.unit)
    except UnitError as exc:
        reader.error(value_node, f"{exc.message} in {text!r}", exc.hint, cls=UnitError)
        return None
    if not fits:
        reader.error(value_node, f"{text!r} does not fit {key}, which is in {variable.unit or 'plain numbers'}",
                     f"give it in {variable.unit or 'plain numbers'} or a unit of the same dimension", cls=UnitError)
        return None
    tolerance = None
    if tolerance_node is not None:
        tolerance = _absolute_tolerance(reader, tolerance_node, magnitude, unit, units)
    if variable.integer and tolerance is None:
        tolerance = 0.0
    if not (magnitude == magnitude and abs(magnitude) != float("inf")):
        reader.error(value_node, f"{text!r} is not a finite number")
        return None
    if magnitude < 0:
        reader.error(value_node, f"{text!r} is negative, and no KB quantity is",
                     f"give the size of {key}; every variable is a count, rate, size or time")
        return None
    if variable.integer and tolerance_node is None:
        whole = float(quantity.to(variable.unit or "dimensionless").magnitude)
        if abs(whole - round(whole)) > 1e-9 * max(1.0, abs(whole)):
            reader.error(value_node, f"{key} counts whole things, but {text!r} is not whole",
                         "give a whole number, or a tolerance if the figure is an estimate")
            return None
    return Fact(key, magnitude, unit, number_text, source, entity, where, doc, tolerance)


def _split_value(text: str, default_unit: str) -> tuple[str, str]:
    """'989.4 TFLOPS' -> ('989.4', 'TFLOPS'); a bare number takes the variable's unit."""
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"{text!r} does not start with a number")
    number, unit = match.group(0), text[match.end():].strip()
    float(number)  # ValueError if it is not a number
    if unit.startswith("/"):  # '1 /cycle' is one per cycle: the unit is 1/cycle
        unit = "1" + unit
    return number, (unit or default_unit)


# a float literal; an exponent needs digits after the e, so '16exp/cycle' is 16 exp/cycle
_NUMBER = re.compile(r"[+-]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?")


def _text_start(reader, node: Node) -> Location:
    """Where a scalar's text begins: one past the opening quote of a quoted scalar."""
    where = reader.at(node)
    if isinstance(node, ScalarNode) and node.style in ("'", '"') and where.col is not None:
        return Location(where.file, where.line, where.col + 1)
    return where


def _example(variable: Variable) -> str:
    return f"1 {variable.unit}" if variable.unit else "1"


def _absolute_tolerance(reader, node, magnitude: float, unit: str, units: Units) -> float | None:
    text = reader.text(node, "tolerance")
    if text is None:
        return None
    try:
        q = units.parse_quantity(text, reader.at(node))
        if units.dimensions(str(q.units)) == frozenset():
            relative = float(q.to("dimensionless").magnitude)
            if units.dimensions(unit) == frozenset() and not text.strip().endswith("%"):
                return abs(float(q.magnitude))
            return abs(magnitude) * relative
        return abs(float(q.to(unit).magnitude))
    except Exception:
        reader.error(node, f"tolerance {text!r} must be in the fact's unit or a percentage", cls=UnitError)
        return None


# ---------------------------------------------------------------- the whole load

def _kb_files(directory: Path) -> tuple[list[Path], list[Path]]:
    return sorted((directory / "rules").glob("*.yaml")), sorted((directory / "gpus").glob("*.yaml"))


def load_model(directories: list[Path], extra_entity_files: Iterable[Path] = ()) -> tuple[Model, Units]:
    """Read KB directories (later ones add to earlier ones) into a Model; raise KBErrors."""
    errors: list[KBError] = []
    directories = [Path(d) for d in directories]
    for directory in directories:
        if not directory.is_dir():
            raise KBErrors([LoadError("no such KB directory", where=Location(str(directory)),
                                      hint="--kb takes a directory holding rules/ and gpus/")])
    units_file = next((d / "units.txt" for d in reversed(directories) if (d / "units.txt").is_file()), None)
    if units_file is None:
        raise KBErrors([LoadError("no units.txt in the KB directories", where=Location(str(directories[0])))])
    try:
        units = Units.from_file(units_file)
    except UnitError as exc:
        raise KBErrors([exc]) from exc
    raw: list = []
    indices: dict[str, IndexSet] = {}
    files: list[str] = []
    entity_files: list[Path] = []
    for directory in directories:
        rule_files, gpu_files = _kb_files(directory)
        entity_files += gpu_files
        for path in rule_files:
            files.append(str(path))
            root = read_yaml(path, errors)
            if root is not None:
                _read_rule_file(_Reader(path, errors), root, indices, {}, {}, raw)
    for path in [*entity_files, *map(Path, extra_entity_files)]:
        files.append(str(path))
        root = read_yaml(path, errors)
        if root is not None:
            _read_entity_file(_Reader(path, errors), root, raw)
    model = _assemble(raw, indices, units, errors)
    if errors:
        raise KBErrors(errors)
    return Model(indices, model[0], model[1], model[2], tuple(files)), units


def _assemble(raw, indices, units, errors):
    variables: dict[str, Variable] = {}
    for item, reader, name, key_node, fields in raw:
        if item == "variable":
            variable = _build_variable(reader, name, key_node, fields, indices, units)
            if variable is not None:
                _declare(reader, variables, name, key_node, variable)
            elif name not in variables:
                variables[name] = Variable(name, "", "", reader.at(key_node))  # keep the name known
    rules: dict[str, Rule] = {}
    entities: dict[str, Entity] = {}
    for item, reader, name, key_node, fields in raw:
        if item == "rule":
            rule = _build_rule(reader, name, key_node, fields, (indices, variables), units)
            if rule is not None:
                _declare(reader, rules, name, key_node, rule)
        elif item == "entity":
            entity = _build_entity(reader, name, key_node, fields, (indices, variables), units)
            if entity is not None:
                _declare(reader, entities, name, key_node, entity)
    _check_extends(entities, errors)
    return variables, rules, entities


def _check_extends(entities: dict[str, Entity], errors: list[KBError]):
    for entity in entities.values():
        for parent in entity.extends:
            if parent not in entities:
                errors.append(UnknownNameError("entity", parent, entities, where=entity.where))
    state: dict[str, int] = {}

    def visit(eid: str, path: list[str]) -> None:
        state[eid] = 1
        for parent in entities[eid].extends:
            if parent not in entities:
                continue
            if state.get(parent) == 1:
                cycle = path[path.index(parent):] + [parent] if parent in path else [eid, parent]
                errors.append(LoadError(f"'extends' forms a cycle: {' -> '.join(cycle)}",
                                        where=entities[eid].where, hint="an entity cannot extend itself"))
            elif parent not in state:
                visit(parent, path + [parent])
        state[eid] = 2

    for eid in entities:
        if eid not in state:
            visit(eid, [eid])


def load_entities(path: Path, model: Model, units: Units) -> dict[str, Entity]:
    """Entities of one extra YAML file (a user's datasheet) against a loaded model."""
    errors: list[KBError] = []
    root = read_yaml(Path(path), errors)
    raw: list = []
    if root is not None:
        _read_entity_file(_Reader(Path(path), errors), root, raw)
    entities: dict[str, Entity] = {}
    for _, reader, name, key_node, fields in raw:
        entity = _build_entity(reader, name, key_node, fields, (model.indices, dict(model.variables)), units)
        if entity is not None:
            _declare(reader, entities, name, key_node, entity)
    combined = {**model.entities, **entities}
    _check_extends(combined, errors)
    if errors:
        raise KBErrors(errors)
    return entities
