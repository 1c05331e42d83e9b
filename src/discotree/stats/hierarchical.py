"""Hierarchical smoothing of a conditional table along the prefixes of its ranked
parents (the back-off structure of Petitjean, Buntine, Webb & Zaidi, "Accurate parameter
estimation for Bayesian network classifiers using hierarchical Dirichlet processes",
Machine Learning 107, 2018, Section 3), with concentrations chosen from the counts by
leave-one-out: a fast deterministic estimator of the same shape.

For a node x with ranked parents (p_1, ..., p_k), the estimate under the first L parents
backs off to the one under the first L - 1, and the class-level one to the node's
marginal::

    P_root(x)              = (N(x) + alpha) / (N + alpha r)
    P_0(x | c)             = (N(x, c) + b_0 P_root(x)) / (N(c) + b_0)
    P_L(x | c, p_1..p_L)   = (N(x, c, p_1..p_L) + b_L P_{L-1}(x | c, p_1..p_{L-1}))
                             / (N(c, p_1..p_L) + b_L)

(the posterior mean of a Dirichlet whose mean is the parent level's estimate and whose
concentration is ``b_L``: the HDP's structure with each concentration fixed instead of
sampled). A configuration never observed (or whose parents are not all observed) has no
counts at its level and so keeps the shorter prefix's estimate: the back-off is
automatic. The concentrations are chosen level by level, each maximising the
leave-one-out log-likelihood of the node's values (each row's own unit of weight out
of every level it was counted in) over :data:`CONCENTRATION_GRID`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..fitting import argmax_with_ties
from ..kernels.sparse_families import backoff_scores, sparse_cell_lookup
from .family_tables import SparseFamilyTable, observed_prefix_lengths

__all__ = [
    "CONCENTRATION_GRID",
    "LevelCounts",
    "backoff_log_probabilities",
    "backoff_log_probability",
    "choose_concentrations",
    "hierarchical_forest_tables",
    "level_counts",
]

#: The concentrations each level chooses from.
CONCENTRATION_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


@dataclass
class LevelCounts:
    """For each row, the weight of its node value and the total weight under its
    configuration of every prefix of the ranked parents (0 where that prefix is not
    observed), per class, and the node's marginal counts."""

    counts: list[NDArray[np.float64]]  # per level, (n_rows, n_classes)
    totals: list[NDArray[np.float64]]
    root_count: NDArray[np.float64]  # (n_rows,)
    root_total: NDArray[np.float64]
    counted: list[NDArray[np.bool_]]  # per level: the row itself was counted there

    def without(self, class_index: NDArray[np.intp], unit: NDArray[np.float64]) -> LevelCounts:
        """The counts with each row's ``unit`` of weight taken out of its class at every
        level it was counted in (leave-one-out)."""
        rows = np.arange(len(class_index))
        counts, totals = [], []
        for n, t, here in zip(self.counts, self.totals, self.counted, strict=True):
            n, t = n.copy(), t.copy()
            n[rows, class_index] -= np.where(here, unit, 0.0)
            t[rows, class_index] -= np.where(here, unit, 0.0)
            counts.append(np.maximum(n, 0.0))
            totals.append(np.maximum(t, 0.0))
        root = self.counted[0]
        return LevelCounts(
            counts,
            totals,
            np.maximum(self.root_count - np.where(root, unit, 0.0), 0.0),
            np.maximum(self.root_total - np.where(root, unit, 0.0), 0.0),
            self.counted,
        )


def level_counts(
    tables: list[SparseFamilyTable],
    codes: NDArray[np.integer],
    ranked: tuple[int, ...],
    n_categories: NDArray[np.intp],
    upto: int,
) -> LevelCounts:
    """The :class:`LevelCounts` of ``codes`` for levels 0..``upto`` of ``tables`` (the
    node's tables under each prefix of ``ranked``); the marginal is the class-level
    table summed over the classes."""
    node = tables[0].node
    values = codes[:, node]
    seen = values >= 0
    observed = observed_prefix_lengths(codes, ranked[:upto])
    n_classes = tables[0].n_classes
    counts, totals, counted = [], [], []
    # the configuration ids of every prefix, one column at a time (the ids of
    # kernels.counts.configuration_ids where the prefix is observed, the rows looked up)
    ids = np.zeros(len(codes), dtype=np.int64)
    for length in range(upto + 1):
        if length:
            parent = ranked[length - 1]
            ids = ids * int(n_categories[parent]) + np.maximum(codes[:, parent], 0)
        n = np.zeros((len(codes), n_classes))
        t = np.zeros((len(codes), n_classes))
        here = seen & (observed >= length)
        rows = np.flatnonzero(here)
        if len(rows):
            table = tables[length]
            n[rows], t[rows], _ = sparse_cell_lookup(
                table.cells, table.masses, ids[rows], values[rows], n_classes, table.r_node
            )
        counts.append(n)
        totals.append(t)
        counted.append(here)
    # the marginal of the node: the class-level table summed over classes (its total
    # is the weight of the rows observing the node, the same for every row)
    first = tables[0]
    root_total = np.full(len(codes), float(first.masses.sum()))
    root_count = counts[0].sum(axis=1)
    return LevelCounts(counts, totals, root_count, root_total, counted)


def backoff_log_probability(
    levels: LevelCounts,
    upto: int,
    concentrations: NDArray[np.float64],
    alpha: float,
    r: int,
) -> NDArray[np.float64]:
    """``log P_upto(x | c, first upto parents)`` of every row and class (see the module
    notes); rows whose node is missing get 0."""
    return backoff_log_probabilities(levels, upto, concentrations, alpha, r)[upto]


def backoff_log_probabilities(
    levels: LevelCounts,
    upto: int,
    concentrations: NDArray[np.float64],
    alpha: float,
    r: int,
) -> list[NDArray[np.float64]]:
    """:func:`backoff_log_probability` of every level 0..``upto`` at once (each level's
    estimate is the next one's back-off: one pass down the levels).

    Examples
    --------
    >>> levels = LevelCounts(
    ...     [np.array([[3.0, 1.0]]), np.array([[1.0, 0.0]])],
    ...     [np.array([[4.0, 2.0]]), np.array([[1.0, 1.0]])],
    ...     np.array([4.0]), np.array([6.0]), [np.array([True]), np.array([True])],
    ... )
    >>> [np.exp(t).round(3).tolist() for t in backoff_log_probabilities(
    ...     levels, 1, np.ones(2), 1.0, 2)]
    [[[0.725, 0.542]], [[0.862, 0.271]]]
    """
    p = (levels.root_count + alpha) / (levels.root_total + alpha * r)
    p = np.repeat(p[:, None], levels.counts[0].shape[1], axis=1)
    missing = ~levels.counted[0]
    out = []
    for length in range(upto + 1):
        b = float(concentrations[length])
        p = (levels.counts[length] + b * p) / (levels.totals[length] + b)
        with np.errstate(divide="ignore"):
            term = np.log(p)
        term[missing] = 0.0
        out.append(term)
    return out


def choose_concentrations(
    levels: LevelCounts,
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    alpha: float,
    r: int,
    grid: tuple[float, ...] = CONCENTRATION_GRID,
) -> NDArray[np.float64]:
    """Each level's concentration in turn (from the class level down), the one of
    ``grid`` of largest leave-one-out log-likelihood of the rows' node values given
    their class and configuration (``levels`` already left-out; ties: the smaller)."""
    rows = np.arange(len(class_index))
    w = np.where(levels.counted[0], weights, 0.0)
    p = (levels.root_count + alpha) / (levels.root_total + alpha * r)
    chosen = np.zeros(len(levels.counts))
    for length in range(len(levels.counts)):
        n = levels.counts[length][rows, class_index]
        t = levels.totals[length][rows, class_index]
        scores = backoff_scores(n, t, p, w, np.asarray(grid, dtype=np.float64))
        best = int(np.argmax(scores))
        chosen[length] = grid[best]
        p = (n + grid[best] * p) / (t + grid[best])
    return chosen


def _best(scores: NDArray[np.float64], grid: tuple[float, ...]) -> float:
    """The concentration of largest score (ties within the package's tolerance: the
    smaller)."""
    return float(grid[int(argmax_with_ties(np.asarray(scores, dtype=np.float64)[None])[0])])


def _cell_scores(
    cells: NDArray[np.float64],
    totals: NDArray[np.float64],
    below: NDArray[np.float64],
    grid: tuple[float, ...],
) -> NDArray[np.float64]:
    """:func:`~discotree.kernels.sparse_families.backoff_scores` of cells instead of
    rows: each cell's weight ``n`` times the leave-one-out log-probability of one unit
    of it, ``(n - 1 + b below) / (total - 1 + b)`` (weights below 1 clipped at 0)."""
    cells, totals, below = np.broadcast_arrays(cells, totals, below)
    held = cells > 0
    return backoff_scores(
        np.maximum(cells[held] - 1.0, 0.0),
        np.maximum(totals[held] - 1.0, 0.0),
        below[held],
        cells[held],
        np.asarray(grid, dtype=np.float64),
    )


def hierarchical_forest_tables(
    stats: Any,
    parents: NDArray[np.intp],
    alpha: float,
    epsilon: float,
    univariate: list[NDArray[np.float64]] | None = None,
    grid: tuple[float, ...] = CONCENTRATION_GRID,
) -> tuple[list[list[NDArray[np.float64]]], list[list[NDArray[np.float64]]], list[NDArray]]:
    """The tables of per-class forests (naive Bayes, TAN, Chow-Liu) smoothed along the
    same back-off as kDB's (module notes): the node's marginal ``P_root``, the class
    level ``P_0(x | c) = (N(x, c) + b_0 P_root(x)) / (N(c) + b_0)`` and, for a feature
    with a parent in class c, ``P_1(x | c, a) = (N(a, x, c) + b_1 P_0(x | c)) / (N(a, c)
    + b_1)``; each feature's ``b_0`` then ``b_1`` chosen on ``grid`` by leave-one-out
    log-likelihood computed from the counts (every unit of weight out of its own cell:
    exact for whole-number weights), so that ``partial_fit`` and engines that count
    elsewhere give the tables of ``fit``.

    Parameters
    ----------
    stats : PairStatistics or None
        Pair tables (the roots read their diagonal blocks unless ``univariate``).
    parents : ndarray of shape (n_classes, n_features)
    alpha : float
        The pseudo-count per cell of the nodes' marginals (> 0).
    epsilon : float
        The floor of a probability that is still zero (only without data and alpha).
    univariate : list of ndarray, optional
        Per feature the (n_classes, r) counts (naive Bayes without pair tables).

    Returns
    -------
    log_cpts, posterior, concentrations
        Per class and feature the (r_parent, r) log-table and the Dirichlet parameters
        of its rows (counts plus ``b`` times the level above), and per feature its
        concentrations (class level, then parent level when a class gives it one).

    Examples
    --------
    >>> counts = [np.array([[8.0, 2.0], [1.0, 9.0]])]
    >>> logs, _, b = hierarchical_forest_tables(None, np.full((2, 1), -1), 1.0, 0.0, counts)
    >>> np.exp(logs[0][0]).sum().round(12), b[0].shape
    (np.float64(1.0), (1,))
    """
    parents = np.asarray(parents, dtype=np.intp)
    n_classes, n_features = parents.shape
    log_cpts: list[list[Any]] = [[None] * n_features for _ in range(n_classes)]
    posterior: list[list[Any]] = [[None] * n_features for _ in range(n_classes)]
    concentrations = []
    for j in range(n_features):
        by_class = univariate[j] if univariate is not None else stats.marginal(j)
        by_class = np.asarray(by_class, dtype=np.float64)  # (C, r)
        r = by_class.shape[1]
        node = by_class.sum(axis=0)
        total = node.sum()
        root = (node + alpha) / (total + alpha * r)
        root_out = (np.maximum(node - 1.0, 0.0) + alpha) / (max(total - 1.0, 0.0) + alpha * r)
        class_totals = np.repeat(by_class.sum(axis=1, keepdims=True), r, axis=1)
        b0 = _best(_cell_scores(by_class, class_totals, root_out[None, :], grid), grid)
        level0 = (by_class + b0 * root) / (class_totals + b0)
        level0_out = (np.maximum(by_class - 1.0, 0.0) + b0 * root_out) / (
            np.maximum(class_totals - 1.0, 0.0) + b0
        )
        chosen = [b0]
        families = [(c, int(parents[c, j])) for c in range(n_classes) if parents[c, j] >= 0]
        b1 = 0.0
        if families:
            tables = [np.asarray(stats.table(p, j)[c], dtype=np.float64) for c, p in families]
            scores = np.zeros(len(grid))
            for (c, _), table in zip(families, tables, strict=True):
                totals = table.sum(axis=1, keepdims=True)
                scores += _cell_scores(table, totals, level0_out[c][None, :], grid)
            b1 = _best(scores, grid)
            chosen.append(b1)
        concentrations.append(np.asarray(chosen))
        for c in range(n_classes):
            p = int(parents[c, j])
            if p < 0:
                mass = by_class[c][None, :] + b0 * root[None, :]
            else:
                mass = np.asarray(stats.table(p, j)[c], dtype=np.float64) + b1 * level0[c][None, :]
            probability = mass / mass.sum(axis=1, keepdims=True)
            if epsilon > 0:
                probability = np.where(probability <= 0, epsilon, probability)
                probability /= probability.sum(axis=1, keepdims=True)
            log_cpts[c][j] = np.log(probability)
            posterior[c][j] = mass
    return log_cpts, posterior, concentrations
