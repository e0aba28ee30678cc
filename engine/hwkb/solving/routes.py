"""The order routes to one value are shown in: the one most closely stated first.

A route that rests on fewer derived steps is closer to what the documents print, so it leads; among routes
as close, the one through the index values datasheets headline (an index set's ``headline``: dense BF16
before FP64) leads; otherwise the plan's order stands. ``explain`` prints the first as the answer's
derivation and the rest as independent routes.
"""
from __future__ import annotations

from typing import Sequence

from hwkb.definitions.model import Model, split_key
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["ordered_routes", "derived_steps"]


def derived_steps(value: Value) -> int:
    """The rule steps in ``value``'s derivation: 0 for a stated value."""
    steps, stack = 0, [value]
    while stack:
        node = stack.pop()
        if isinstance(node.origin, RuleOrigin):
            steps += 1
            stack.extend(node.origin.inputs)
    return steps


def _headline_rank(model: Model, value: Value) -> int:
    """How far down its index sets' headline lists the route's own keys come (the first rule's, not deeper)."""
    keys = [value.key] + ([i.key for i in value.origin.inputs] if isinstance(value.origin, RuleOrigin) else [])
    ranks = []
    for key in keys:
        name, index_value = split_key(key)
        variable = model.variables.get(name)
        if index_value is None or variable is None or variable.index is None:
            continue
        headline = model.indices[variable.index].headline
        ranks.append(headline.index(index_value) if index_value in headline else len(headline))
    return min(ranks, default=0)


def ordered_routes(model: Model, routes: Sequence[Value]) -> list[Value]:
    """``routes`` most closely stated first: fewest derived steps, then the headline index values, then as given."""
    ranked = sorted(enumerate(routes), key=lambda p: (derived_steps(p[1]), _headline_rank(model, p[1]), p[0]))
    return [route for _, route in ranked]
