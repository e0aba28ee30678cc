"""Readable renderings of values and their derivations, for the terminal."""
from __future__ import annotations

from hwkb.definitions.quantities import format_number
from hwkb.solving.values import Value

__all__ = ["render_tree", "format_intervals", "format_value"]


def format_value(value: Value) -> str:
    return f"{format_number(value.magnitude)} {value.unit}".rstrip()


def render_tree(value: Value, indent: str = "") -> str:
    """The derivation as an indented tree, rules with their source, facts with entity and source.

    A fact met twice is printed in full once; later it is only named.
    """
    lines: list[str] = []
    _render(value, indent, lines, set(), last=True, root=True)
    return "\n".join(lines)


def _render(value: Value, prefix: str, lines: list[str], seen: set, last: bool, root: bool = False):
    branch = "" if root else ("└─ " if last else "├─ ")
    head = f"{value.key} = {format_value(value)}"
    origin = value.origin
    if value.stated:
        label = {"default": "default", "scenario": "scenario"}.get(origin.via)
        who = ", ".join(p for p in (origin.entity, label, origin.source) if p)
        lines.append(f"{prefix}{branch}{head}   [{who or 'fact'}]")
        return
    label = "simulation" if origin.kind == "simulated" else origin.kind
    lines.append(f"{prefix}{branch}{head}   by {label} {origin.rule}" + (f" — {origin.source}" if origin.source else ""))
    if origin.parameters:
        params = ", ".join(f"{k}={v}" for k, v in origin.parameters)
        lines.append(f"{prefix}{'' if root else ('   ' if last else '│  ')}   ({params})")
    child_prefix = prefix + ("" if root else ("   " if last else "│  "))
    for i, child in enumerate(origin.inputs):
        _render(child, child_prefix, lines, seen, last=i == len(origin.inputs) - 1)


def format_intervals(intervals) -> str:
    parts = []
    for iv in intervals:
        lo, hi = iv.get("lower"), iv.get("upper")
        left = "(" if lo is None or not iv.get("lower_closed") else "["
        right = ")" if hi is None or not iv.get("upper_closed") else "]"
        parts.append(f"{left}{'-inf' if lo is None else lo:g}, {'inf' if hi is None else hi:g}{right}"
                     if lo is not None and hi is not None else
                     f"{left}{'-inf' if lo is None else f'{lo:g}'}, {'inf' if hi is None else f'{hi:g}'}{right}")
    return " ∪ ".join(parts)
