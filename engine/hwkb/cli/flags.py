"""What every command shares: the common, context and output flags, loading the KB, and writing the result.

Every command is: parse the flags, call one :class:`hwkb.KnowledgeBase` method, render the result it
returns (:func:`output`). The one grammar of the output: ``--format {text,markdown,html,csv,json}`` (a
command's help says which forms it has and why not the others), ``--json`` its shorthand for json, and
``--output FILE`` (written atomically, ``--force`` to replace a file). Bad input goes to stderr as
``error:`` lines. Commands call :func:`load_kb` through this module, so a test can hand every command one
loaded KB by replacing it here.

Every JSON document is an object with ``"command"`` and ``"status"`` (a string),
pinned by ``schema.json`` beside this module (the render stage writes it,
:mod:`hwkb.render.json_form`). This module imports no engine at the top, so the
parser builds without SymPy or Pint.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Iterable

from hwkb.errors import KBError, KBErrors, UsageError
from hwkb.render import render
from hwkb.render.json_form import document, error_document, json_text

__all__ = ["add_common", "settle_common", "add_context", "context_keywords", "load_kb", "json_text", "emit_json",
           "document", "error_document", "report_error", "print_errors", "COMMON_DEFAULTS",
           "SCHEMA", "PEER_FORMATS", "add_output", "form", "output", "write", "FORMATS"]

#: the common options' values when not given; they are accepted before the subcommand and after it
COMMON_DEFAULTS = {"json": False, "kb": (), "no_default_kb": False, "verbose": False}
KB_BEFORE_COMMAND = "kb_before_command"
#: the JSON Schema every command's document validates against (package data)
SCHEMA = Path(__file__).with_name("schema.json")
#: the peer tools' layouts, for ``audit --from`` and ``export --to`` (hwkb.formats.peers.registry.FORMAT_NAMES,
#: named here so that the parser imports no engine; tests/cli/test_flags.py keeps the two alike)
PEER_FORMATS = ("llm-analysis", "genz", "llmcompass", "aiconfigurator", "epoch")
#: every form a result may be asked for (hwkb.results.FORMATS); a command's help says which of them it has
FORMATS = ("text", "markdown", "html", "csv", "json")


def add_common(parser: argparse.ArgumentParser, before_command: bool = False) -> None:
    """--json, --kb, --no-default-kb, -v; on main's parser too (``before_command``), merged by :func:`settle_common`.

    Their defaults are left out of the namespace (a subcommand's default would
    overwrite what was given before it); --kb before the subcommand has a dest
    of its own, so that ``hwkb --kb a solve ... --kb b`` keeps both, in order.
    """
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="one JSON document on stdout")
    parser.add_argument("--kb", action="append", dest=KB_BEFORE_COMMAND if before_command else "kb",
                        default=argparse.SUPPRESS, metavar="DIR",
                        help="a further KB directory on top of the default (repeatable)")
    parser.add_argument("--no-default-kb", action="store_true", default=argparse.SUPPRESS,
                        help="leave the built-in KB out")
    parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="log what the engine does to stderr")


def settle_common(args: argparse.Namespace) -> argparse.Namespace:
    """The common options wherever they were given: defaults filled in, --kb from both places in order."""
    for name, default in COMMON_DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, tuple) else default)
    args.kb = [*vars(args).pop(KB_BEFORE_COMMAND, []), *args.kb]
    return args


def _format_name(text: str) -> str:
    return "text" if text == "table" else text  # "table", the audit's and the sweep's old name for text


def add_output(parser: argparse.ArgumentParser, forms: Iterable[str] = FORMATS, why_not: str = "",
               output: bool = True) -> None:
    """--format (the forms the command has, ``why_not`` saying why not the others), --output FILE and --force."""
    forms = [f for f in FORMATS if f in forms or f == "json"]
    lacking = [f for f in FORMATS if f not in forms]
    parser.add_argument("--format", type=_format_name, choices=forms, default="text", metavar="FORM",
                        help=f"the output's form: {', '.join(forms)} (default text; --json is --format json)"
                             + (f"; no {' or '.join(lacking)}: {why_not}" if lacking and why_not else ""))
    if output:
        parser.add_argument("--output", metavar="FILE",
                            help="write there (atomically) instead of to stdout, which then says what was written")
        parser.add_argument("--force", action="store_true", help="with --output: replace an existing file")


def form(args: argparse.Namespace) -> str:
    """The form the flags ask for: ``--json`` and ``--format json`` are one; with another --format, an error."""
    fmt = getattr(args, "format", "text")
    if args.json and fmt not in ("text", "json"):
        raise UsageError(f"--json and --format {fmt} ask for two different documents", hint="give one of them")
    return "json" if args.json else fmt


def output(args: argparse.Namespace, result, written: str = "", **options) -> None:
    """``result`` in the form the flags ask for, to stdout or ``--output FILE``: then stdout says what was written
    (``written`` the line, by default the file and its form), except with ``--json``, whose document is always
    on stdout."""
    fmt = form(args)
    text = render(result, fmt, command=args.command, **options)
    write(args, text if text.endswith("\n") or not text else text + "\n", written or f"wrote {args.output}: {fmt}")


def write(args: argparse.Namespace, pieces: str | Iterable[str], written: str) -> None:
    """The rendered ``pieces`` to ``--output FILE`` (atomically; ``written`` then goes to stdout) or to stdout."""
    target = getattr(args, "output", None)
    if target:
        from hwkb.render.files import write_atomic  # tempfile and shutil: not for `hwkb --help`
        write_atomic(Path(target), pieces, overwrite=args.force)
        if form(args) == "json":
            with open(target, encoding="utf-8") as document:  # a chunk at a time: a database's audit is 240 MB
                shutil.copyfileobj(document, sys.stdout)
            return
        pieces = written + "\n"
    sys.stdout.writelines([pieces] if isinstance(pieces, str) else pieces)


def add_context(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu", metavar="ID", help="the product or architecture")
    add_layers(parser, "a further entity layered on top (workload, instruction shape, scenario); later wins",
               "a fact for this query, e.g. clock_tc=1.755GHz (a bare number is in the variable's unit)")
    parser.add_argument("--where", action="append", default=[], metavar="'LHS OP RHS'",
                        help="a relation or constraint for this query, e.g. 'd_v = d_qk', 'exp_utilization[fp8] <= 1' "
                             "or 'decode_tokens_per_s >= 100 token/s' (a side may be a number with a unit)")


def add_layers(parser: argparse.ArgumentParser, with_help: str, set_help: str) -> None:
    """``--with`` and ``--set``, spelled alike on every command that takes them; each command says what they do."""
    parser.add_argument("--with", dest="with_", action="append", default=[], metavar="ID", help=with_help)
    parser.add_argument("--set", dest="set", action="append", default=[], metavar="VAR=VALUE", help=set_help)


def context_keywords(args: argparse.Namespace) -> dict:
    """The context flags as the keyword arguments of :meth:`KnowledgeBase.context` and the questions."""
    return {"gpu": args.gpu, "layers": args.with_, "facts": args.set}


def load_kb(args: argparse.Namespace):
    """The KB the flags name (a :class:`hwkb.KnowledgeBase`), with the disk caches on: the command line is where
    they pay off."""
    from hwkb.kb import KnowledgeBase
    return KnowledgeBase.load(args.kb, default=not args.no_default_kb, cache=True)


def emit_json(data) -> None:
    sys.stdout.write(json_text(data))


def report_error(command: str | None, as_json: bool, error: KBError) -> int:
    """Bad input as the contract says: the ``error:`` lines, with ``--json`` also the error document; exit 2."""
    if as_json:
        emit_json(error_document(command, error))
    print_errors(error)
    return 2


def print_errors(error: KBError) -> None:
    """Bad input as the contract says: one ``error:`` line per problem on stderr, never a traceback."""
    for each in error.errors if isinstance(error, KBErrors) else (error,):
        print(f"error: {each}", file=sys.stderr)
