"""A sweep's grid, in chunks: 10^7 points evaluated without ever holding the grid.

The grid is the product of the axes, the first varying slowest; a chunk of it is computed from the flat
point numbers (:func:`grid_chunk`), a listed axis's values made an array once (:func:`axis_take`), so a
sweep point by point costs the same per point at 10^5 points as at 10. A range axis computes its values
when asked (:class:`AxisValues`): 10^7 of them as a tuple of Python floats would be 320 MB. The printing of
a grid is the render stage's (:mod:`hwkb.render.sweep_tables`).
"""
from __future__ import annotations

import math
from typing import Iterator, Sequence

import numpy as np

__all__ = ["CHUNK", "AxisValues", "axis_take", "all_whole", "grid_chunk", "grid_indices"]

#: points per chunk: the whole of 10^7 points' intermediate arrays would take gigabytes
CHUNK = 1 << 16


class AxisValues(Sequence):
    """A range axis's values, ``start + step * i`` for ``i`` below ``count``, computed when asked for: it reads as
    the tuple of its values, and holds three numbers however long it is."""

    def __init__(self, start: float, step: float, count: int):
        self.start, self.step, self.count = float(start), float(step), int(count)

    def take(self, index: np.ndarray) -> np.ndarray:
        """The values at ``index`` (an integer array), as ``start + step * np.arange(count)`` gives them."""
        return self.start + self.step * np.asarray(index, dtype=np.int64)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self)[i]
        if not -self.count <= i < self.count:
            raise IndexError("axis value out of range")
        return float(self.take(np.array([i % self.count]))[0])

    def __iter__(self) -> Iterator[float]:
        for start in range(0, self.count, CHUNK):
            yield from self.take(np.arange(start, min(start + CHUNK, self.count))).tolist()

    def __eq__(self, other) -> bool:
        if isinstance(other, AxisValues):
            return (self.start, self.step, self.count) == (other.start, other.step, other.count)
        return isinstance(other, (tuple, list)) and len(other) == len(self) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash((self.start, self.step, self.count))

    def __repr__(self) -> str:
        return repr(tuple(self))


#: the arrays of the listed axes last asked for, each beside the values it was made from (so an id is not reused)
_ARRAYS: dict[int, tuple[Sequence, np.ndarray]] = {}


def axis_take(axis, index: np.ndarray) -> np.ndarray:
    """An axis's values at ``index`` (an integer array): a range's computed, a list's from its array, made once
    per axis (a sweep point by point asks at every point)."""
    values = axis.values
    if isinstance(values, AxisValues):
        return values.take(index)
    kept = _ARRAYS.get(id(values))
    if kept is None or kept[0] is not values:
        if len(_ARRAYS) >= 16:
            _ARRAYS.clear()
        kept = _ARRAYS[id(values)] = (values, np.asarray(values, dtype=float))
    return kept[1][index]


def all_whole(values: Sequence[float]) -> bool:
    """Whether every value is a whole number: a range's from its start and step, a list's in one pass."""
    if isinstance(values, AxisValues):
        return (values.start.is_integer() and values.step.is_integer()
                and abs(values.start) + abs(values.step) * values.count < 2.0 ** 53)
    array = np.asarray(values, dtype=float)
    return bool(np.all(array == np.trunc(array)))


def grid_chunk(axes: Sequence, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """The grid's points ``start`` to ``stop`` (flat numbers, the first axis slowest), one array per axis."""
    return tuple(axis_take(axis, index) for axis, index in zip(axes, grid_indices(axes, start, stop)))


def grid_indices(axes: Sequence, start: int, stop: int) -> list[np.ndarray]:
    """Each axis's value numbers at the grid's points ``start`` to ``stop``."""
    flat = np.arange(start, stop, dtype=np.int64)
    out, stride = [], math.prod(len(a.values) for a in axes)
    for axis in axes:
        stride //= len(axis.values)
        out.append((flat // stride) % len(axis.values))
    return out
