"""Bayesian network classifiers with k attribute parents per attribute (002, Section 2).

The class C is a parent of every attribute and has no parent; attribute X_j has at most
k further attribute parents ``pa(j)``. Then

    log P(c, x) = log P(c) + sum_j log theta_j[c, x_pa(j), x_j]            (Section 2)

with conditional probability tables theta_j of shape (C, r_pa1, ..., r_pak, r_j).
Naive Bayes is k = 0, TAN a 1-tree, the paper's 2-trees k = 2.

Missing features are summed out exactly (:meth:`log_likelihood`): by the vectorised
forest kernel of :mod:`discotree.kernels.forest` when every attribute has at most one
attribute parent, otherwise by variable elimination:
every factor restricted to a sample's observed values keeps only its missing variables,
which are eliminated one at a time, the variable with the fewest neighbours first
(min-degree). For a k-tree the cost is linear in the number of features for fixed k.
The slow reference is brute-force summation in the tests.

:class:`NodeScores` holds each node's log-probability column per training sample so a
change of one node's parents updates the joint by replacing one column (the paper's
speed-up 2, Section 4.4.1).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..kernels.candidate_scores import pair_table_rows, single_table_rows
from ..kernels.family_counts import family_cell_counts, family_cells, pair_family_counts
from ..stats.discrete import PairStatistics, smoothed_conditional

__all__ = [
    "BayesNetModel",
    "LazyColumn",
    "NodeScores",
    "PairParentColumns",
    "SingleParentColumns",
    "family_counts",
]


def family_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    node: int,
    parents: tuple[int, ...],
) -> NDArray[np.float64]:
    """Weighted counts n(c, x_pa, x_j) of one family, shape (C, r_pa..., r_j).

    Rows where the node or one of its parents is missing are left out (available-case
    counts, as the pairwise tables of the foundation).
    """
    family = (*parents, node)
    shape = (n_classes, *(int(n_categories[v]) for v in family))
    index = class_index.astype(np.intp)
    observed = np.ones(len(index), dtype=bool)
    for v in family:
        column = codes[:, v]
        observed &= column >= 0
        index = index * int(n_categories[v]) + np.maximum(column, 0)
    counts = np.bincount(index[observed], weights[observed], int(np.prod(shape)))
    return counts.reshape(shape).astype(np.float64, copy=False)


@dataclass
class BayesNetModel:
    """Class-rooted Bayesian network over discrete attributes.

    Attributes
    ----------
    n_categories : ndarray of shape (n_features,)
    parents : list of tuple of int
        Attribute parents of each attribute (the class is implicit).
    log_cpts : list of ndarray
        ``log theta_j`` with shape (n_classes, r_pa..., r_j).
    class_log_prior : ndarray of shape (n_classes,)
    """

    n_categories: NDArray[np.intp]
    parents: list[tuple[int, ...]]
    log_cpts: list[NDArray[np.float64]]
    class_log_prior: NDArray[np.float64]

    @classmethod
    def maximum_likelihood(
        cls,
        codes: NDArray[np.integer],
        class_index: NDArray[np.intp],
        weights: NDArray[np.float64],
        n_classes: int,
        n_categories: NDArray[np.intp],
        parents: list[tuple[int, ...]],
        *,
        alpha: float,
        epsilon: float,
    ) -> BayesNetModel:
        """ML parameters (Section 4.1) with Dirichlet ``alpha`` and the zero floor
        ``epsilon`` of Section 6.1 (:func:`~discotree.stats.discrete.smoothed_conditional`)."""
        counts = [
            family_counts(codes, class_index, weights, n_classes, n_categories, j, tuple(pa))
            for j, pa in enumerate(parents)
        ]
        prior = np.bincount(class_index, weights, n_classes).astype(np.float64, copy=False)
        return cls.from_family_counts(
            counts, prior, n_categories, parents, alpha=alpha, epsilon=epsilon
        )

    @classmethod
    def from_family_counts(
        cls,
        counts: list[NDArray[np.float64]],
        class_weight: NDArray[np.float64],
        n_categories: NDArray[np.intp],
        parents: list[tuple[int, ...]],
        *,
        alpha: float,
        epsilon: float,
    ) -> BayesNetModel:
        """ML parameters from family counts (:func:`family_counts` of each attribute,
        summed over any parts of the data) and the class weights."""
        log_cpts = [np.log(smoothed_conditional(c, alpha, epsilon)) for c in counts]
        prior = np.asarray(class_weight, dtype=np.float64)
        with np.errstate(divide="ignore"):  # a class given to partial_fit, never seen
            log_prior = np.log(prior / prior.sum())
        return cls(
            np.asarray(n_categories, dtype=np.intp),
            [tuple(int(p) for p in pa) for pa in parents],
            log_cpts,
            log_prior,
        )

    @property
    def n_classes(self) -> int:
        return len(self.class_log_prior)

    @property
    def n_features(self) -> int:
        return len(self.parents)

    def node_log_probability(self, node: int, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log theta_j[c, x_pa, x_j]`` per sample and class, shape (n, C); complete rows."""
        index = _family_index(codes, self.parents[node], node, self.n_categories)
        flat = self.log_cpts[node].reshape(self.n_classes, -1)
        return flat[:, index].T

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)`` (the class prior excluded), missing features summed out.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        codes = np.asarray(codes)
        if all(len(pa) <= 1 for pa in self.parents):
            # a forest: the vectorised sum-product kernel of the foundation
            return self.as_forest().log_likelihood(codes)
        out = np.zeros((len(codes), self.n_classes))
        missing = codes < 0
        complete = ~missing.any(axis=1)
        if complete.any():
            rows = codes[complete]
            out[complete] = sum(self.node_log_probability(j, rows) for j in range(self.n_features))
        for s in np.flatnonzero(~complete):
            out[s] = self._marginal(codes[s])
        return out

    def as_forest(self):
        """The same model as a :class:`~discotree.models.discrete_forest.DiscreteForestModel`
        (only when every attribute has at most one attribute parent)."""
        from .discrete_forest import DiscreteForestModel

        if any(len(pa) > 1 for pa in self.parents):
            raise ValueError("only a model with at most one attribute parent is a forest")
        row = np.array([pa[0] if pa else -1 for pa in self.parents], dtype=np.intp)
        log_cpts = [
            [
                t[c] if pa else t[c][None, :]
                for t, pa in zip(self.log_cpts, self.parents, strict=True)
            ]
            for c in range(self.n_classes)
        ]
        return DiscreteForestModel(np.tile(row, (self.n_classes, 1)), self.n_categories, log_cpts)

    def joint_log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x, c)``, shape (n_samples, n_classes)."""
        return self.log_likelihood(codes) + self.class_log_prior

    # ---------------------------------------------------------------- inference
    def _marginal(self, row: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log sum_{x_missing} prod_j theta_j`` for one row, per class."""
        missing = {int(v) for v in np.flatnonzero(row < 0)}
        log_total = np.zeros(self.n_classes)
        factors: list[tuple[tuple[int, ...], NDArray[np.float64]]] = []
        for j, pa in enumerate(self.parents):
            family = (*pa, j)
            index = tuple(slice(None) if v in missing else int(row[v]) for v in family)
            table = self.log_cpts[j][(slice(None), *index)]
            kept = tuple(v for v in family if v in missing)
            if not kept:
                log_total += table
                continue
            # to probabilities, scaled per class so nothing underflows
            axes = tuple(range(1, table.ndim))
            scale = table.max(axis=axes)
            log_total += scale
            factors.append((kept, np.exp(table - scale.reshape(-1, *[1] * len(kept)))))
        while factors:
            variable = _min_degree(factors)
            involved = [f for f in factors if variable in f[0]]
            factors = [f for f in factors if variable not in f[0]]
            variables = sorted({v for f in involved for v in f[0]})
            letters = {v: string.ascii_letters[1 + i] for i, v in enumerate(variables)}
            kept = tuple(v for v in variables if v != variable)
            spec = ",".join("a" + "".join(letters[v] for v in f[0]) for f in involved)
            spec += "->a" + "".join(letters[v] for v in kept)
            product = np.einsum(spec, *(f[1] for f in involved), optimize=len(involved) > 2)
            if kept:
                axes = tuple(range(1, product.ndim))
                scale = product.max(axis=axes)
                scale = np.where(scale > 0, scale, 1.0)
                log_total += np.log(scale)
                factors.append((kept, product / scale.reshape(-1, *[1] * len(kept))))
            else:
                log_total += np.log(np.maximum(product, 1e-300))
        return log_total


def _family_index(codes, parents, node, n_categories) -> NDArray[np.intp]:
    index = np.zeros(len(codes), dtype=np.intp)
    for v in (*parents, node):
        index = index * int(n_categories[v]) + codes[:, v]
    return index


def _min_degree(factors) -> int:
    neighbours: dict[int, set[int]] = {}
    for variables, _ in factors:
        for v in variables:
            neighbours.setdefault(v, set()).update(variables)
    return min(neighbours, key=lambda v: (len(neighbours[v]), v))


@dataclass
class NodeScores:
    """Per-node log-probability columns of training samples, for fast structure search.

    ``columns[j]`` is ``log theta_j[c, x_pa(j), x_j]`` for every sample (shape (n, C)) under
    ML parameters; ``joint`` their sum plus the class log prior. Changing node j's
    parents recomputes that node's table and column only (speed-up 2 of Section 4.4.1).
    For scoring only, a sample whose node value is missing contributes 0 for that node,
    and one with a missing parent uses the node's table given the class alone.
    """

    codes: NDArray[np.integer]
    class_index: NDArray[np.intp]
    weights: NDArray[np.float64]
    n_classes: int
    n_categories: NDArray[np.intp]
    alpha: float
    epsilon: float
    parents: list[tuple[int, ...]] = field(default_factory=list)
    columns: list[NDArray[np.float64]] = field(default_factory=list)
    joint: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    pair_stats: PairStatistics | None = None
    complete: bool = False
    _codes_by_feature: NDArray[np.intp] | None = field(default=None, repr=False)

    @property
    def codes_by_feature(self) -> NDArray[np.intp]:
        """``codes.T`` contiguous (one row per attribute), made once."""
        if self._codes_by_feature is None:
            self._codes_by_feature = np.ascontiguousarray(self.codes.T, dtype=np.intp)
        return self._codes_by_feature

    @classmethod
    def naive_bayes(
        cls,
        codes,
        class_index,
        weights,
        n_classes,
        n_categories,
        alpha,
        epsilon,
        pair_stats: PairStatistics | None = None,
    ):
        """Scores of the naive Bayes structure (no attribute parents).

        ``pair_stats`` (the foundation's one-pass pair tables of the same data) serves
        the counts of every family with at most one attribute parent, so only 2-parent
        families are counted here.
        """
        state = cls(codes, class_index, weights, n_classes, n_categories, alpha, epsilon)
        state.pair_stats = pair_stats
        state.complete = bool((codes >= 0).all())
        prior = np.bincount(class_index, weights, n_classes)
        with np.errstate(divide="ignore"):  # a class without rows here (a CV fold): -inf
            state.joint = np.tile(np.log(prior / prior.sum()), (len(codes), 1))
        for j in range(codes.shape[1]):
            state.parents.append(())
            column = state.column(j, ())
            state.columns.append(column)
            state.joint = state.joint + column
        return state

    def family(
        self, node: int, parents: tuple[int, ...], cells: NDArray[np.intp] | None = None
    ) -> NDArray[np.float64]:
        """Counts n(c, x_pa, x_j) (from the pair tables when there are any and at most
        one parent; else counted, from ``cells``, the rows' :func:`family_cells`, when
        given). The same numbers as :func:`family_counts`, to the bit."""
        if self.pair_stats is not None and len(parents) == 1:
            return self.pair_stats.table(parents[0], node)
        if self.pair_stats is not None and not parents:
            return self.pair_stats.marginal(node)
        family = (*parents, node)
        if cells is None:
            cells = family_cells(self.codes_by_feature, family, self.n_categories)
        shape = (self.n_classes, *(int(self.n_categories[v]) for v in family))
        n_cells = int(np.prod(shape[1:]))
        counts = family_cell_counts(cells, self.class_index, self.weights, self.n_classes, n_cells)
        return counts.reshape(shape)

    def lookup(self, node: int, parents: tuple[int, ...]) -> LazyColumn:
        """The node's log-probability column with the given parents, as a table and a
        row index into it (rows are gathered only when read)."""
        cells = family_cells(self.codes_by_feature, (*parents, node), self.n_categories)
        counts = self.family(node, parents, cells)
        log_cpt = np.log(smoothed_conditional(counts, self.alpha, self.epsilon))
        by_cell = log_cpt.reshape(self.n_classes, -1).T  # (cells, C)
        complete = cells >= 0
        if complete.all():
            return LazyColumn(np.ascontiguousarray(by_cell), cells)
        # extra rows: P(x_j | c) for a missing parent, then zeros for a missing node
        value = self.codes_by_feature[node]
        observed = value >= 0
        marginal = np.log(smoothed_conditional(self.family(node, ()), self.alpha, self.epsilon))
        n_cells = by_cell.shape[0]
        r = marginal.shape[1]
        table = np.vstack([by_cell, marginal.T, np.zeros((1, self.n_classes))])
        index = np.full(len(cells), n_cells + r, dtype=np.intp)
        index[complete] = cells[complete]
        partial = observed & ~complete
        index[partial] = n_cells + value[partial]
        return LazyColumn(np.ascontiguousarray(table), index)

    def single_parent_columns(self, node: int) -> SingleParentColumns | None:
        """The node's columns given each single attribute parent, all from one smoothed
        slice of the pair tables; ``None`` without pair tables (then :meth:`lookup`
        serves each parent set). Missing values are scored as in :meth:`lookup`."""
        if self.pair_stats is None:
            return None
        offsets = self.pair_stats.offsets
        counts = self.pair_stats.counts[:, :, offsets[node] : offsets[node + 1]]  # (C, D, r)
        # each row (c, parent category) is smoothed on its own: the same numbers as
        # smoothing each parent's table n(c, x_p, x_node) separately in lookup
        log_cpt = np.log(smoothed_conditional(counts, self.alpha, self.epsilon))
        table = log_cpt.reshape(self.n_classes, -1).T
        if not self.complete:  # rows for a missing parent, then for a missing node
            marginal = np.log(smoothed_conditional(self.family(node, ()), self.alpha, self.epsilon))
            table = np.vstack([table, marginal.T, np.zeros((1, self.n_classes))])
        return SingleParentColumns(
            np.ascontiguousarray(table),
            self.codes_by_feature,
            offsets,
            node,
            counts.shape[2],
            self.complete,
        )

    def pair_parent_columns(self, node: int, pairs: list[tuple[int, int]]) -> PairParentColumns:
        """The node's columns given each pair of attribute parents, counted together
        (one ``bincount`` over the keys (pair, c, x_a, x_b, x_node)) and smoothed
        together: the same numbers as :meth:`lookup` of each pair (the counts add the
        same weights in the same sample order; smoothing is per (c, x_a, x_b) row)."""
        first, second = (np.array([p[i] for p in pairs], dtype=np.intp) for i in (0, 1))
        counts, starts, complete = pair_family_counts(
            self.codes_by_feature,
            self.class_index,
            self.weights,
            self.n_classes,
            self.n_categories,
            node,
            first,
            second,
        )
        r_node, r_second = int(self.n_categories[node]), self.n_categories[second].astype(np.intp)
        log_cpt = np.log(smoothed_conditional(counts, self.alpha, self.epsilon))
        table = log_cpt.reshape(self.n_classes, -1).T  # row (start + x_a r_b + x_b) r + x
        if not complete:  # rows for a missing parent, then for a missing node
            marginal = np.log(smoothed_conditional(self.family(node, ()), self.alpha, self.epsilon))
            table = np.vstack([table, marginal.T, np.zeros((1, self.n_classes))])
        return PairParentColumns(
            np.ascontiguousarray(table),
            self.codes_by_feature,
            first,
            second,
            starts,
            r_second,
            node,
            r_node,
            complete,
        )

    def column(self, node: int, parents: tuple[int, ...]) -> NDArray[np.float64]:
        """The node's log-probability column with the given parents (not stored)."""
        return self.lookup(node, parents).full()

    def set_parents(self, node: int, parents: tuple[int, ...], column=None) -> None:
        """Replace one node's parents, updating its column and the joint."""
        if column is None:
            column = self.column(node, parents)
        elif isinstance(column, LazyColumn):
            column = column.full()
        self.joint = self.joint - self.columns[node] + column
        self.columns[node] = column
        self.parents[node] = tuple(parents)


@dataclass(frozen=True)
class LazyColumn:
    """A node's column ``table[index]`` (shape (n, C)), gathered only where read."""

    table: NDArray[np.float64]
    index: NDArray[np.intp]

    def __getitem__(self, rows) -> NDArray[np.float64]:
        return self.table[self.index[rows]]

    def full(self) -> NDArray[np.float64]:
        return self.table[self.index]


@dataclass(frozen=True)
class SingleParentColumns:
    """One node's columns given each single attribute parent p.

    ``table`` holds ``log theta[c, x_p, x_node]`` of every parent at row
    ``(offsets[p] + x_p) * r + x_node``, so the column of parent p is ``table[index]``
    with that row index per sample, and several parents share one table. With missing
    values (``complete=False``) rows ``D * r + x_node`` follow with ``log P(x_node | c)``
    for a missing parent, and a last row of zeros for a missing node.
    """

    table: NDArray[np.float64]
    codes_by_feature: NDArray[np.intp]
    offsets: NDArray[np.intp]
    node: int
    r: int
    complete: bool = True

    def index(self, parents: NDArray[np.intp], rows, codes_by_feature=None) -> NDArray[np.intp]:
        """Row indices into :attr:`table` of the given parents' columns, shape
        (len(parents), len(rows)) (:func:`~discotree.kernels.candidate_scores.
        single_table_rows`: only the codes of those parents are read), from
        ``codes_by_feature`` when given (the same codes with the samples reordered,
        ``rows`` then counting in that order), else from :attr:`codes_by_feature`."""
        codes = self.codes_by_feature if codes_by_feature is None else codes_by_feature
        if isinstance(rows, slice):
            rows = np.arange(*rows.indices(codes.shape[1]))
        past = self.offsets[-1] * self.r  # rows for a missing parent, then a missing node
        return single_table_rows(codes, parents, self.offsets, self.node, self.r, past, rows)

    def column(self, parent: int) -> LazyColumn:
        """The column of one parent."""
        index = self.index(np.array([parent], dtype=np.intp), slice(None))[0]
        return LazyColumn(self.table, index)


@dataclass(frozen=True)
class PairParentColumns:
    """One node's columns given each of several pairs (a, b) of attribute parents.

    ``table`` holds ``log theta[c, x_a, x_b, x_node]`` of pair i at row
    ``(starts[i] + x_a r_b + x_b) * r + x_node``, so all pairs share one table. With
    missing values (``complete=False``) rows ``past + x_node`` follow with
    ``log P(x_node | c)`` for a missing parent, and a last row of zeros for a missing
    node (``past`` the number of rows before them), as :meth:`NodeScores.lookup`.
    """

    table: NDArray[np.float64]
    codes_by_feature: NDArray[np.intp]
    first: NDArray[np.intp]
    second: NDArray[np.intp]
    starts: NDArray[np.intp]
    r_second: NDArray[np.intp]
    node: int
    r: int
    complete: bool = True

    def __len__(self) -> int:
        return len(self.first)

    def index(self, pairs: NDArray[np.intp], rows, codes_by_feature=None) -> NDArray[np.intp]:
        """Row indices into :attr:`table` of the columns of pairs ``pairs`` (positions
        in this batch) at samples ``rows``, shape (len(pairs), len(rows)); from
        ``codes_by_feature`` when given (the same codes with the samples reordered,
        ``rows`` then counting in that order), else from :attr:`codes_by_feature`."""
        codes = self.codes_by_feature if codes_by_feature is None else codes_by_feature
        if isinstance(rows, slice):
            rows = np.arange(*rows.indices(codes.shape[1]))
        return pair_table_rows(
            codes,
            self.first,
            self.second,
            self.starts,
            self.r_second,
            self.node,
            self.r,
            self._past,
            pairs,
            rows,
        )

    @property
    def _past(self) -> int:
        """Rows of the pairs' parameters (the missing-value rows follow)."""
        return self.table.shape[0] - self.r - 1

    def column(self, i: int) -> LazyColumn:
        """The column of pair i."""
        index = self.index(np.array([i], dtype=np.intp), slice(None))[0]
        return LazyColumn(self.table, index)
