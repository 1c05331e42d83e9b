"""The state of a structure search over class-rooted Bayesian networks: each node's
log-probability column per training sample under ML parameters, so that a change of one
node's parents updates the joint by replacing one column (Pernkopf & Bilmes 2010,
speed-up 2 of Section 4.4.1), and the candidates' columns read lazily.

It lives with the searches (:mod:`discotree.structure.bayes_net_search`,
:mod:`~discotree.structure.candidates`, :mod:`~discotree.structure.scorer`), below the
models; :class:`~discotree.models.bayes_net.BayesNetModel` is what a search's result
becomes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.candidate_scores import pair_table_rows, single_table_rows
from ..kernels.counts import class_totals
from ..kernels.family_counts import family_cell_counts, family_cells, pair_family_counts
from ..numerics import class_log_prior
from ..stats.dirichlet import smoothed_conditional
from ..stats.pair_statistics import PairStatistics

__all__ = ["LazyColumn", "NodeScores", "PairParentColumns", "SingleParentColumns"]


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
        state.complete = not missing_values.has_missing(codes)
        prior = class_totals(class_index, weights, n_classes)
        # a class without rows here (a CV fold): -inf
        state.joint = np.tile(class_log_prior(prior), (len(codes), 1))
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
        complete = missing_values.observed(cells)
        if complete.all():
            return LazyColumn(np.ascontiguousarray(by_cell), cells)
        # extra rows: P(x_j | c) for a missing parent, then zeros for a missing node
        value = self.codes_by_feature[node]
        observed = missing_values.observed(value)
        marginal = np.log(smoothed_conditional(self.family(node, ()), self.alpha, self.epsilon))
        n_cells = by_cell.shape[0]
        r = marginal.shape[1]
        table = np.vstack([by_cell, marginal.T, np.zeros((1, self.n_classes))])
        index = np.full(len(cells), n_cells + r, dtype=np.intp)
        index[complete] = cells[complete]
        partial = observed & ~complete
        index[partial] = n_cells + value[partial]
        return LazyColumn(np.ascontiguousarray(table), index)

    def _column_table(
        self, node: int, counts: NDArray[np.float64], complete: bool
    ) -> NDArray[np.float64]:
        """The smoothed log-CPT rows of ``counts`` (classes, parent rows, node values),
        one table row per (parent row, value), a column per class; unless
        ``complete``, then the rows for a missing parent (the node's marginal) and one
        of zeros for a missing node."""
        log_cpt = np.log(smoothed_conditional(counts, self.alpha, self.epsilon))
        table = log_cpt.reshape(self.n_classes, -1).T
        if not complete:  # rows for a missing parent, then for a missing node
            marginal = np.log(smoothed_conditional(self.family(node, ()), self.alpha, self.epsilon))
            table = np.vstack([table, marginal.T, np.zeros((1, self.n_classes))])
        return np.ascontiguousarray(table)

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
        return SingleParentColumns(
            self._column_table(node, counts, self.complete),
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
        return PairParentColumns(
            self._column_table(node, counts, complete),  # row (start + x_a r_b + x_b) r + x
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
        return single_table_rows(
            codes, parents, self.offsets, self.node, self.r, past=past, rows=rows
        )

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
            node=self.node,
            r_node=self.r,
            past=self._past,
            live=pairs,
            rows=rows,
        )

    @property
    def _past(self) -> int:
        """Rows of the pairs' parameters (the missing-value rows follow)."""
        return self.table.shape[0] - self.r - 1

    def column(self, i: int) -> LazyColumn:
        """The column of pair i."""
        index = self.index(np.array([i], dtype=np.intp), slice(None))[0]
        return LazyColumn(self.table, index)
