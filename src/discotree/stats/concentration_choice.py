"""The concentrations of hierarchical smoothing chosen from a node's prefix tables
alone, without a pass over the rows.

:func:`~discotree.stats.hierarchical.choose_concentrations` chooses each level's
concentration ``b_L`` of largest leave-one-out log-likelihood of the rows' node values,
each row's own unit of weight (``min(w, 1)``) out of every count it is in (Petitjean,
Buntine, Webb & Zaidi 2018, Section 3, with the concentrations fixed by that choice as in
:mod:`discotree.stats.hierarchical`). When every row of positive weight weighs at least
1, every row of a cell ``(configuration, class, value)`` of level ``L`` takes the same
unit out, so its leave-one-out ratio

    (N(cell) - 1 + b P_{L-1}) / (T(configuration, class) - 1 + b)

is the same for all of them, and so is the back-off estimate ``P_{L-1}`` it reads: the
cell's parent cell one level up (the configuration without its last parent) fixes the
rows' path through the levels above. The log-likelihood of ``b`` is then a sum over
the cells, each weighted by its mass (the sum of its rows' weights): the same choice in
work proportional to the cells instead of the rows times the levels. Rows whose
configuration and class hold no other weight (``T - 1 = 0``) add the same to every
``b`` and are left out, as the rows' kernels leave them out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ..numerics import best_index
from .family_tables import SparseFamilyTable
from .hierarchical import CONCENTRATION_GRID

__all__ = ["concentrations_from_tables", "tables_choose_concentrations"]

#: The least ratio whose logarithm a score adds (as the rows' kernels floor it).
SMALLEST_RATIO = 1e-300


def tables_choose_concentrations(weights: NDArray[np.floating]) -> bool:
    """Whether :func:`concentrations_from_tables` gives the rows' choice: every weight
    is 0 or at least 1 (every row of a cell then takes the same unit out).

    Examples
    --------
    >>> tables_choose_concentrations(np.array([1.0, 0.0, 2.5])), tables_choose_concentrations(
    ...     np.array([1.0, 0.5]))
    (True, False)
    """
    weights = np.asarray(weights, dtype=np.float64)
    return bool(np.all((weights == 0.0) | (weights >= 1.0)))


def _leave_one_out(
    table: SparseFamilyTable,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each cell's weight and its (configuration, class)'s total weight, one unit out
    of each (clipped at 0)."""
    cells, masses = table.cells, np.asarray(table.masses, dtype=np.float64)
    group = cells // table.r_node  # configuration * n_classes + class, sorted
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    sizes = np.diff(np.concatenate([starts, [len(cells)]]))
    totals = np.repeat(np.add.reduceat(masses, starts), sizes) if len(cells) else masses
    return np.maximum(masses - 1.0, 0.0), np.maximum(totals - 1.0, 0.0)


def concentrations_from_tables(
    tables: Sequence[SparseFamilyTable],
    radices: NDArray[np.integer],
    alpha: float,
    *,
    grid: tuple[float, ...] = CONCENTRATION_GRID,
) -> NDArray[np.float64]:
    """Each level's concentration, the one of ``grid`` of largest leave-one-out
    log-likelihood (ties within the package's tolerance: the first), from the node's
    tables under every prefix of its ranked parents (level 0 the class level) when every
    row of positive weight weighs at least 1 (:func:`tables_choose_concentrations`; see the module).

    Parameters
    ----------
    tables : sequence of SparseFamilyTable
        The node's tables under the first 0, 1, ..., K ranked parents.
    radices : ndarray of shape (K,)
        The ranked parents' numbers of categories.
    alpha : float
        The marginal's pseudo-count.
    grid : tuple of float
        The concentrations to choose from.

    Returns
    -------
    ndarray of shape (K + 1,)

    Examples
    --------
    >>> from discotree.stats.family_tables import prefix_family_tables
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 1]])
    >>> y = np.array([0, 1, 1, 0, 1])
    >>> tables = prefix_family_tables(codes, y, np.ones(5), 2, np.array([2, 2]), [(), (0,)])
    >>> concentrations_from_tables(tables[1], np.array([2]), 1.0).tolist()
    [64.0, 64.0]
    """
    grid_array = np.asarray(grid, dtype=np.float64)
    chosen = np.zeros(len(tables))
    above_cells = np.zeros(0, dtype=np.int64)
    above_estimate = np.zeros(0)
    for level, table in enumerate(tables):
        cells, masses = table.cells, np.asarray(table.masses, dtype=np.float64)
        r, n_classes = int(table.r_node), int(table.n_classes)
        value = cells % r
        below: NDArray[np.float64]
        if level == 0:  # the node's marginal with the row's unit out
            node = np.bincount(value, weights=masses, minlength=r)
            weight = float(np.cumsum(masses)[-1]) if len(masses) else 0.0
            below = (np.maximum(node[value] - 1.0, 0.0) + alpha) / (
                max(weight - 1.0, 0.0) + alpha * r
            )
        else:  # the estimate of the cell one level up: the configuration's last digit off
            klass = (cells // r) % n_classes
            configuration = cells // (r * n_classes)
            up = ((configuration // int(radices[level - 1])) * n_classes + klass) * r + value
            below = above_estimate[np.searchsorted(above_cells, up)]
        count, total = _leave_one_out(table)
        scored: NDArray[np.bool_] = total > 0.0
        ratios = (count[scored, None] + grid_array * below[scored, None]) / (
            total[scored, None] + grid_array
        )
        scores = masses[scored] @ np.log(np.maximum(ratios, SMALLEST_RATIO))
        b = float(grid_array[best_index(scores)]) if scored.any() else grid[0]
        chosen[level] = b
        above_cells, above_estimate = cells, (count + b * below) / (total + b)
    return chosen
