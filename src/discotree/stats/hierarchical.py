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

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.hierarchical_terms import distinct_level_terms, rows_of
from ..kernels.sparse_families import backoff_scores, sparse_cell_lookup
from ..numerics import argmax_with_ties, best_index
from .family_tables import SparseFamilyTable, observed_prefix_lengths

__all__ = [
    "CONCENTRATION_GRID",
    "LevelCounts",
    "backoff_log_probabilities",
    "backoff_log_probability",
    "choose_concentrations",
    "distinct_backoff_terms",
    "hierarchical_forest_tables",
    "hierarchical_two_dependence_conditionals",
    "leave_one_out_backoff_terms",
    "level_counts",
    "ranked_two_parent_families",
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
    seen = missing_values.observed(values)
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
                table.cells, table.masses, ids[rows], values[rows], n_classes, r=table.r_node
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
    # In logs: with heavy weights (counts of 1e200) a value unseen under its
    # configuration gets b P_{L-1} / N at each level, which underflows to 0 in a few
    # levels as a product (log 0 = -inf) but not as a sum of logs.
    log_p = np.log(levels.root_count + alpha) - np.log(levels.root_total + alpha * r)
    log_p = np.repeat(log_p[:, None], levels.counts[0].shape[1], axis=1)
    missing = ~levels.counted[0]
    out = []
    for length in range(upto + 1):
        b = float(concentrations[length])
        with np.errstate(divide="ignore"):
            log_counts = np.log(levels.counts[length])
        log_p = np.logaddexp(log_counts, np.log(b) + log_p) - np.log(levels.totals[length] + b)
        term = log_p.copy()
        term[missing] = 0.0
        out.append(term)
    return out


def leave_one_out_backoff_terms(
    *arguments: Any, **keywords: Any
) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
    """The leave-one-out :func:`backoff_log_probabilities` of every level of ``ranked``
    (each row's ``unit`` out of its class, :meth:`LevelCounts.without`), one array
    (n_rows, n_classes) a level, and the levels' concentrations: given, or chosen from
    ``weights`` as :func:`choose_concentrations` chooses them; the arguments of
    :func:`distinct_backoff_terms`, each row then given its distinct row's terms.

    Examples
    --------
    >>> from discotree.stats.family_tables import prefix_family_tables
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [0, 1]])
    >>> y = np.array([0, 1, 1, 0, 0])
    >>> tables = prefix_family_tables(codes, y, np.ones(5), 2, np.array([2, 2]),
    ...                               [(), (0,)])[1]
    >>> terms, chosen = leave_one_out_backoff_terms(
    ...     tables, codes, (0,), np.array([2, 2]), y, unit=np.ones(5), alpha=1.0,
    ...     weights=np.ones(5))
    >>> len(terms), terms[1].shape, chosen.tolist()
    (2, (5, 2), [64.0, 64.0])

    The terms of the distinct rows (rows 0 and 4 alike), each row's distinct row:

    >>> distinct, _, row_key = distinct_backoff_terms(
    ...     tables, codes, (0,), np.array([2, 2]), y, unit=np.ones(5), alpha=1.0,
    ...     weights=np.ones(5))
    >>> distinct.shape, row_key.tolist(), bool(np.array_equal(distinct[1][row_key], terms[1]))
    ((2, 4, 2), [0, 1, 2, 3, 0], True)
    """
    terms, chosen, row_key = distinct_backoff_terms(*arguments, **keywords)
    return list(rows_of(terms, row_key)), chosen


def distinct_backoff_terms(
    tables: list[SparseFamilyTable],
    codes: NDArray[np.integer],
    ranked: tuple[int, ...],
    n_categories: NDArray[np.intp],
    class_index: NDArray[np.intp],
    *,
    unit: NDArray[np.float64],
    alpha: float,
    concentrations: NDArray[np.float64] | None = None,
    weights: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The leave-one-out terms of every level of ``ranked`` (each row's ``unit`` out of
    its class) of the distinct rows, one array (levels, distinct rows, classes), the
    levels' concentrations (given, or chosen from ``weights``) and each row's distinct
    row: row i's terms are ``terms[:, row_key[i]]``; in one compiled pass per level
    (:func:`~discotree.kernels.hierarchical_terms.distinct_level_terms`).

    Examples
    --------
    See :func:`leave_one_out_backoff_terms`'s.
    """
    node = tables[0].node
    ranked = tuple(ranked)
    used = tables[: len(ranked) + 1]
    return distinct_level_terms(
        codes[:, node],
        codes[:, list(ranked)] if ranked else np.zeros((len(codes), 0), dtype=np.int64),
        np.asarray(n_categories, dtype=np.int64)[list(ranked)],
        class_index,
        unit,
        tables=[(table.cells, table.masses) for table in used],
        n_classes=used[0].n_classes,
        r=int(n_categories[node]),
        alpha=float(alpha),
        concentrations=concentrations,
        weights=weights,
        grid=CONCENTRATION_GRID,
    )


def choose_concentrations(
    levels: LevelCounts,
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    alpha: float,
    r: int,
    *,
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
        best = best_index(scores)
        chosen[length] = grid[best]
        p = (n + grid[best] * p) / (t + grid[best])
    return chosen


def _best(scores: NDArray[np.float64], grid: tuple[float, ...]) -> float:
    """The concentration of largest score (ties within the package's tolerance: the
    smaller)."""
    return float(grid[best_index(scores)])


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


def _class_level(
    by_class: NDArray[np.float64], alpha: float, grid: tuple[float, ...]
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """A node's class level from its (classes, values) counts: its concentration
    ``b_0``, the marginal ``P_root``, ``P_0(x | c)`` and ``P_0`` with one unit of each
    cell's weight out (the leave-one-out probability the level below backs off to)."""
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
    return b0, root, level0, level0_out


def _next_level(
    counts: NDArray[np.float64],
    above: NDArray[np.float64],
    above_out: NDArray[np.float64],
    grid: tuple[float, ...],
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """One level down: the counts (..., values) of each configuration, backed off to the
    level above (``above``, and ``above_out`` with each unit out, broadcast to the
    counts); the concentration of largest leave-one-out score, the level's estimate and
    its leave-one-out version."""
    totals = counts.sum(axis=-1, keepdims=True)
    b = _best(_cell_scores(counts, totals, above_out, grid), grid)
    level = (counts + b * above) / (totals + b)
    level_out = (np.maximum(counts - 1.0, 0.0) + b * above_out) / (
        np.maximum(totals - 1.0, 0.0) + b
    )
    return b, level, level_out


def ranked_two_parent_families(
    stats: Any, triples: NDArray[np.float64]
) -> Iterator[tuple[int, int, int, int, int, tuple[int, ...], NDArray[np.float64]]]:
    """A2DE's conditionals ``P(x_m | c, x_p, x_q)`` as families with ranked parents: for
    every triple t (in :func:`~discotree.kernels.counts.triple_layout`'s order) and member
    m of it, ``(t, member, m, first, second, axes, counts)``, the super-parent of larger
    ``I(x_m; x_p | C)`` first (kept longest; ties: the lower index, the package's tie
    rule) and ``counts = block.transpose(axes)`` of shape (C, r_first, r_second, r_m),
    ``block`` the triple's (r_i, r_j, r_k, C) table."""
    from ..kernels.counts import triple_layout

    r = np.asarray(stats.n_categories, dtype=np.intp)
    d, n_classes = len(r), stats.n_classes
    layout = triple_layout(r, n_classes)
    cmi = stats.conditional_mutual_information()
    trios = [(i, j, k) for i in range(d) for j in range(i + 1, d) for k in range(j + 1, d)]
    if not trios:
        return
    # each member's two super-parents (a < b), ranked by one call of the tie rule
    members = np.array(
        [[m, *(f for f in trio if f != m)] for trio in trios for m in trio], dtype=np.intp
    )
    b_first = argmax_with_ties(
        np.column_stack([cmi[members[:, 0], members[:, 1]], cmi[members[:, 0], members[:, 2]]])
    )
    for t, trio in enumerate(trios):
        block = np.asarray(triples[layout[t] : layout[t + 1]], dtype=np.float64)
        block = block.reshape(*(int(r[f]) for f in trio), n_classes)
        for member, m in enumerate(trio):
            row = 3 * t + member
            a, b = int(members[row, 1]), int(members[row, 2])
            first, second = (b, a) if b_first[row] else (a, b)
            axes = (3, trio.index(first), trio.index(second), member)
            yield t, member, m, first, second, axes, block.transpose(axes)


def _next_levels(
    counts: NDArray[np.float64],
    above: NDArray[np.float64],
    above_out: NDArray[np.float64],
    grid: tuple[float, ...],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`_next_level` of a stack of families (axis 0) at once: each family's
    concentration of largest leave-one-out score (the scores of :func:`_cell_scores`,
    summed over each family's cells) and its level's estimate."""
    totals = counts.sum(axis=-1, keepdims=True)
    held = counts > 0
    n = np.maximum(counts - 1.0, 0.0)
    t = np.maximum(totals - 1.0, 0.0)
    cells = tuple(range(1, counts.ndim))
    scores = np.empty((len(counts), len(grid)))
    for g, concentration in enumerate(grid):
        p = np.maximum((n + concentration * above_out) / (t + concentration), 1e-300)
        scores[:, g] = np.where(held, counts * np.log(p), 0.0).sum(axis=cells)
    chosen = np.asarray(grid, dtype=np.float64)[argmax_with_ties(scores)]
    b = chosen.reshape(-1, *([1] * (counts.ndim - 1)))
    return chosen, (counts + b * above) / (totals + b)


def hierarchical_two_dependence_conditionals(
    stats: Any,
    triples: NDArray[np.float64],
    alpha: float,
    epsilon: float,
    grid: tuple[float, ...] = CONCENTRATION_GRID,
) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]]]:
    """A2DE's conditionals ``log P(x_m | c, x_p, x_q)`` backed off along
    ``P(x_m | c, x_p)``, ``P(x_m | c)`` and the marginal of ``x_m`` (module notes), in
    the layout of :func:`~discotree.kernels.two_dependence.two_dependence_conditionals`.

    Of the two super-parents, the one of larger ``I(x_m; x_p | C)`` comes first (kept
    longest; ties: the lower index), as kDB ranks parents. Concentrations: the class
    level per feature, the one-parent level per (parent, child) (as hierarchical A1DE),
    the two-parent level per triple and child, each chosen by leave-one-out from the
    counts (the pair tables of ``stats``, the ``triples`` of
    :func:`~discotree.kernels.counts.triple_counts`): for each (node, parents) it is
    kDB's hierarchical estimate with those ranked parents.

    Returns
    -------
    cond_log : ndarray of shape (3, T)
    concentrations : dict
        ``"class"`` (n_features,), ``"one_parent"`` (n_features, n_features) indexed
        [parent, child], ``"two_parents"`` (3, n_triples) indexed [member, triple].
    """
    from ..kernels.counts import triple_layout

    r = np.asarray(stats.n_categories, dtype=np.intp)
    d, n_classes = len(r), stats.n_classes
    level0, level0_out, b0 = [], [], np.zeros(d)
    for m in range(d):
        b0[m], _, p0, p0_out = _class_level(np.asarray(stats.marginal(m), float), alpha, grid)
        level0.append(p0)
        level0_out.append(p0_out)
    level1, level1_out, b1 = {}, {}, np.zeros((d, d))
    for p in range(d):
        for m in range(d):
            if p != m:  # (C, r_p, r_m), backed off to (C, 1, r_m)
                table = np.asarray(stats.table(p, m), dtype=np.float64)
                b1[p, m], level1[p, m], level1_out[p, m] = _next_level(
                    table, level0[m][:, None, :], level0_out[m][:, None, :], grid
                )
    layout = triple_layout(r, n_classes)
    cond_log = np.zeros((3, int(layout[-1])))
    b2 = np.zeros((3, len(layout) - 1))
    # the two-parent level, the families of one shape at once (counts (C, r_first,
    # r_second, r_m), each backed off to its (first parent, child) level)
    by_shape: dict[tuple[int, ...], list[tuple]] = {}
    for family in ranked_two_parent_families(stats, triples):
        by_shape.setdefault(family[6].shape, []).append(family)
    for families in by_shape.values():
        counts = np.stack([family[6] for family in families])
        above = np.stack([level1[first, m] for _, _, m, first, *_ in families])[:, :, :, None]
        above_out = np.stack([level1_out[first, m] for _, _, m, first, *_ in families])
        chosen, level2 = _next_levels(counts, above, above_out[:, :, :, None], grid)
        if epsilon > 0:
            level2 = np.where(level2 <= 0, epsilon, level2)
            level2 /= level2.sum(axis=-1, keepdims=True)
        logs = np.log(level2)
        for (t, member, _, _, _, axes, _), b, log in zip(families, chosen, logs, strict=True):
            b2[member, t] = b
            cond_log[member, layout[t] : layout[t + 1]] = log.transpose(np.argsort(axes)).reshape(
                -1
            )
    return cond_log, {"class": b0, "one_parent": b1, "two_parents": b2}


def hierarchical_forest_tables(
    stats: Any,
    parents: NDArray[np.intp],
    alpha: float,
    epsilon: float,
    *,
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
    >>> logs, _, b = hierarchical_forest_tables(
    ...     None, np.full((2, 1), -1), 1.0, 0.0, univariate=counts)
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
        b0, root, level0, level0_out = _class_level(by_class, alpha, grid)
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
