"""The ``hwkb`` command: the parser built from the command modules, and the one place errors become exit codes.

Exit codes: 0 answered, 1 answered negatively (not determined, inconsistent),
2 bad input, with one ``error:`` line on stderr and never a traceback. Each
command module adds its subcommand through ``register(subparsers)``, which
sets the subcommand's handler: a function of the parsed arguments that
returns the exit code.
"""
from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from hwkb.cli import audit, check, derive, explain, listing, run, simulate, solve, whatif
from hwkb.cli.flags import print_errors
from hwkb.errors import KBError, UsageError

__all__ = ["main", "build_parser", "COMMANDS"]

#: the command modules, in the order ``hwkb --help`` lists their subcommands
COMMANDS = (solve, explain, derive, check, listing, run, simulate, audit, whatif)


class OneLineParser(argparse.ArgumentParser):
    """argparse would print the usage and exit 2 itself; a usage error is one ``error:`` line like any other."""

    def error(self, message):
        raise UsageError(message, hint=f"see '{self.prog} --help'")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="hwkb", description="GPU hardware facts and the laws that tie them, "
                                                    "solved for any unknown.")
    subparsers = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    subparsers.required = True
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "verbose", False):
            logging.basicConfig(level=logging.INFO, format="hwkb: %(message)s", stream=sys.stderr)
        return args.handler(args)
    except KBError as exc:
        print_errors(exc)
        return 2
    except BrokenPipeError:  # the reader (head, less) went away: nothing more to say
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
