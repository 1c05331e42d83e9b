"""Elimination orders for variable elimination (Koller & Friedman 2009, Section 9.4.3):
which missing variable to sum out next so that the factors formed stay small.

A variable's elimination joins every factor whose scope holds it into one factor over
their union (its neighbours, itself included) and leaves that union less itself. The
greedy heuristics pick, at each step, the variable with the smallest

- *min-degree*: number of neighbours;
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

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..kernels.elimination import GREEDY_HEURISTICS, best_greedy_elimination, greedy_elimination

__all__ = [
    "HEURISTICS",
    "MAX_COUNTED_CELLS",
    "EliminationOrder",
    "elimination_order",
    "greedy_order",
]


@dataclass(frozen=True)
class EliminationOrder:
    """The variables in the order they are summed out, the largest factor formed
    (configurations of its variables; 1: nothing to sum) and the cells of every factor
    formed, summed (the work, per row and class)."""

    order: tuple[int, ...]
    largest: int
    total: int


#: The largest number of cells an order reports (beyond: this number).
MAX_COUNTED_CELLS = 1 << 62

#: The greedy heuristics by name, each a score of a candidate variable compared in turn
#: (the lowest goes next; then the lowest variable): min-degree its neighbours;
#: min-fill the pairs of its neighbours not yet sharing a factor, then min-weight's
#: score; min-weight the configurations of the factor it forms, then min-fill's.
#: Compiled (:func:`~discotree.kernels.elimination.greedy_elimination`; the slow
#: reference, on bit sets of Python integers, is in the tests): a model's first
#: prediction of rows with many patterns of missing values orders each pattern.
HEURISTICS = GREEDY_HEURISTICS


def greedy_order(
    scopes: Iterable[Iterable[int]],
    arities: dict[int, int],
    heuristic: str = "min-degree",
    bound: float = math.inf,
) -> EliminationOrder:
    """Eliminate every variable of ``scopes`` (the factors' variables), the one of the
    lowest ``heuristic`` scores first (:data:`HEURISTICS`); stop at the first factor
    larger than ``bound`` (the order then holds the variables eliminated so far, and
    ``largest`` that factor).

    Examples
    --------
    >>> greedy_order([(0,), (0, 1), (0, 1, 2)], {0: 2, 1: 3, 2: 4})
    EliminationOrder(order=(0, 1, 2), largest=24, total=40)
    """
    names, adjacent, arity = _interaction(scopes, arities)
    found = greedy_elimination(adjacent, arity, HEURISTICS.index(heuristic), float(bound))
    return _order(names, *found)


def _interaction(
    scopes: Iterable[Iterable[int]], arities: dict[int, int]
) -> tuple[list[int], NDArray[np.bool_], NDArray[np.float64]]:
    """The variables of ``scopes`` in increasing order, which of them share a scope
    (a boolean matrix, from the scopes' incidence matrix) and their arities."""
    sets = [tuple(s) for s in scopes]
    lengths = [len(s) for s in sets]
    flat = np.fromiter(itertools.chain.from_iterable(sets), dtype=np.int64, count=sum(lengths))
    names = np.unique(flat)
    incidence = np.zeros((len(sets), len(names)))
    incidence[np.repeat(np.arange(len(sets)), lengths), np.searchsorted(names, flat)] = 1.0
    adjacent = (incidence.T @ incidence) > 0
    listed = names.tolist()
    return listed, adjacent, np.array([arities[v] for v in listed], dtype=np.float64)


def _order(
    names: list[int], order: NDArray[np.int64], largest: float, total: float
) -> EliminationOrder:
    """The kernel's order of ``names``, its cells counted as floats as integers (exact
    below 2 ** 53; :data:`MAX_COUNTED_CELLS` at most, far past every guard)."""
    return EliminationOrder(
        tuple(names[i] for i in order.tolist()), _counted(largest), _counted(total)
    )


def _counted(cells: float) -> int:
    return MAX_COUNTED_CELLS if not cells < MAX_COUNTED_CELLS else round(float(cells))


def elimination_order(
    scopes: Iterable[Iterable[int]], arities: dict[int, int], bound: float = math.inf
) -> EliminationOrder:
    """The order of the smallest largest factor (then of the fewest cells) that the
    greedy heuristics find, min-degree's among equals; min-degree's alone (cut short)
    when its largest factor exceeds ``bound``, the others only while they can still do
    better.

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
    sets = [tuple(scope) for scope in scopes]
    flat = np.fromiter(itertools.chain.from_iterable(sets), dtype=np.int64)
    starts = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([len(scope) for scope in sets], out=starts[1:])
    arity = np.zeros(int(flat.max(initial=-1)) + 1, dtype=np.int64)
    for v, r in arities.items():
        if v < len(arity):
            arity[v] = r
    unknown = sorted(set(flat.tolist()) - set(arities))
    if unknown:
        raise ValueError(f"elimination_order: no arity for variables {unknown}")
    order, largest, total = best_greedy_elimination(
        starts, flat, arity, float(bound), float(MAX_COUNTED_CELLS)
    )
    return EliminationOrder(tuple(order.tolist()), _counted(largest), _counted(total))
