"""Elimination orders for variable elimination (Koller & Friedman 2009, Section 9.4.3):
which missing variable to sum out next so that the factors formed stay small.

A variable's elimination joins every factor whose scope holds it into one factor over
their union (its neighbours, itself included) and leaves that union less itself. The
greedy heuristics pick, at each step, the variable with the smallest

- *min-degree*: number of neighbours (the order the guard of
  :func:`~discotree.models.enumeration.elimination_cells` measures);
- *min-fill*: number of pairs of its neighbours not yet sharing a factor (the edges
  its elimination adds to the interaction graph);
- *min-weight*: configurations of the factor it forms (the product of its neighbours'
  arities).

:func:`elimination_order` runs all three and keeps the order whose largest factor is the
smallest (then the fewest cells formed in all; min-degree first among equals, so a
pattern that no other heuristic improves is summed out as before). A different order
sums the same products in a different order: the same marginal up to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["HEURISTICS", "EliminationOrder", "elimination_order", "greedy_order"]


@dataclass(frozen=True)
class EliminationOrder:
    """The variables in the order they are summed out, the largest factor formed
    (configurations of its variables; 1: nothing to sum) and the cells of every factor
    formed, summed (the work, per row and class)."""

    order: tuple[int, ...]
    largest: int
    total: int


# (the scores read each variable's neighbours as a bit set: bit i for the i-th variable
# in increasing order, the variable's own included)
def _degree(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    return neighbours[v].bit_count()


def _fill(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    rest, count = neighbours[v] & ~(1 << v), 0
    while rest:  # each neighbour a against the later ones not its neighbours
        low = rest & -rest
        rest ^= low
        count += (rest & ~neighbours[low.bit_length() - 1]).bit_count()
    return count


def _weight(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    return math.prod(arity[u] for u in _members(neighbours[v]))


def _union(masks: list[int], held: set[int]) -> int:
    out = 0
    for at in held:
        out |= masks[at]
    return out


def _members(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        bits ^= low
        out.append(low.bit_length() - 1)
    return out


#: The greedy heuristics by name: the scores of a candidate variable from the current
#: neighbours (each variable's included) and the arities, compared in turn (the lowest
#: goes next; then the lowest variable). Min-degree breaks its ties by the variable
#: alone, as :func:`~discotree.models.enumeration.elimination_cells` does.
HEURISTICS: dict[str, tuple[Callable[[dict[int, int], int, list[int]], int], ...]] = {
    "min-degree": (_degree,),
    "min-fill": (_fill, _weight),
    "min-weight": (_weight, _fill),
}


def greedy_order(
    scopes: Iterable[Iterable[int]], arities: dict[int, int], heuristic: str = "min-degree"
) -> EliminationOrder:
    """Eliminate every variable of ``scopes`` (the factors' variables), the one of the
    lowest ``heuristic`` scores first (:data:`HEURISTICS`).

    Examples
    --------
    >>> greedy_order([(0,), (0, 1), (0, 1, 2)], {0: 2, 1: 3, 2: 4})
    EliminationOrder(order=(0, 1, 2), largest=24, total=40)
    """
    scores = HEURISTICS[heuristic]
    sets = [set(s) for s in scopes]
    names = sorted({v for s in sets for v in s})  # (bit i: names[i]; the same order)
    bit = {v: i for i, v in enumerate(names)}
    arity = [int(arities[v]) for v in names]
    masks = [sum(1 << bit[v] for v in s) for s in sets if s]
    holding: dict[int, set[int]] = {i: set() for i in range(len(names))}  # live scopes
    for at, mask in enumerate(masks):
        for v in _members(mask):
            holding[v].add(at)
    neighbours = {v: _union(masks, held) for v, held in holding.items()}
    order, largest, total = [], 1, 0
    while neighbours:
        variable = min(neighbours, key=lambda v: (*(h(neighbours, v, arity) for h in scores), v))
        joined = neighbours.pop(variable)
        cells = math.prod(arity[u] for u in _members(joined))
        order.append(names[variable])
        largest, total = max(largest, cells), total + cells
        for at in holding.pop(variable):  # (the scopes joined: no longer live)
            for u in _members(masks[at] & ~(1 << variable)):
                holding[u].discard(at)
        rest = joined & ~(1 << variable)
        if rest:
            masks.append(rest)
            for u in _members(rest):
                holding[u].add(len(masks) - 1)
                neighbours[u] = _union(masks, holding[u])
    return EliminationOrder(tuple(order), largest, total)


def elimination_order(scopes: Iterable[Iterable[int]], arities: dict[int, int]) -> EliminationOrder:
    """The order of the smallest largest factor (then of the fewest cells) that the
    greedy heuristics find, min-degree's among equals.

    Examples
    --------
    The families of 0 -> 1, 0 -> 2, 1 -> 3, (2, 3) -> 4, all missing, 1 and 2 wide:
    min-degree sums 0 out first and joins 0, 1 and 2 (2 * 9 * 9 configurations);
    min-weight sums the narrow 4 and 0 first and never joins 1 and 2.

    >>> scopes = [(0,), (0, 1), (0, 2), (1, 3), (2, 3, 4)]
    >>> arities = {0: 2, 1: 9, 2: 9, 3: 2, 4: 2}
    >>> greedy_order(scopes, arities)
    EliminationOrder(order=(0, 1, 2, 3, 4), largest=162, total=366)
    >>> elimination_order(scopes, arities)
    EliminationOrder(order=(4, 1, 0, 2, 3), largest=36, total=128)
    """
    scopes = [tuple(s) for s in scopes]
    best = None
    for heuristic in HEURISTICS:
        found = greedy_order(scopes, arities, heuristic)
        if best is None or (found.largest, found.total) < (best.largest, best.total):
            best = found
    assert best is not None
    return best
