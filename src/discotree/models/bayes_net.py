"""Bayesian network classifiers with k attribute parents per attribute (Pernkopf & Bilmes 2010,
Section 2).

The class C is a parent of every attribute and has no parent; attribute X_j has at most
k further attribute parents ``pa(j)``. Then

    log P(c, x) = log P(c) + sum_j log theta_j[c, x_pa(j), x_j]            (Section 2)

with conditional probability tables theta_j of shape (C, r_pa1, ..., r_pak, r_j).
Naive Bayes is k = 0, TAN a 1-tree, the paper's 2-trees k = 2.

Missing features are summed out exactly (:meth:`log_likelihood`): by the vectorised
forest kernel of :mod:`discotree.kernels.forest` when every attribute has at most one
attribute parent, otherwise by variable elimination:
every factor restricted to a sample's observed values keeps only its missing variables,
which are eliminated one at a time in a greedy order (min-degree, min-fill or
min-weight, the one of the smallest largest factor:
:mod:`~discotree.models.elimination_order`). For a k-tree the cost is linear in the
number of features for fixed k.
The slow reference is brute-force summation in the tests.

The search state (:class:`NodeScores` and the column classes) lives in
:mod:`discotree.structure.search_state` and :func:`family_counts` in
:mod:`discotree.kernels.family_counts`; both are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import class_totals
from ..kernels.family_counts import family_counts
from ..numerics import class_log_prior
from ..stats.dirichlet import smoothed_conditional
from ..stored_checks import check_class_prior, check_counts, check_shape, fail, log_probabilities
from ..stored_classes import stored
from ..structure.search_state import (
    LazyColumn,
    NodeScores,
    PairParentColumns,
    SingleParentColumns,
)
from .elimination_order import EliminationOrder, elimination_order
from .elimination_plan import FlatTables, elimination_plan
from .file_checks import StoredModel
from .protocol import JointScoring

__all__ = [
    "BayesNetModel",
    "LazyColumn",
    "NodeScores",
    "PairParentColumns",
    "SingleParentColumns",
    "family_counts",
    "rows_by_pattern",
]


# ------------------------------------------------ checks of a loaded model
def _check_bayes_net(model: Any, where: str) -> int:
    """A class-rooted network's tables against its categories and parents; its classes."""
    counts = check_counts(model.n_categories, f"{where}.n_categories")
    n = len(counts)
    if len(model.parents) != n or len(model.log_cpts) != n:
        raise fail(where, f"{n} features but {len(model.parents)} parent sets and "
                    f"{len(model.log_cpts)} tables")  # fmt: skip
    prior = np.asarray(model.class_log_prior)
    if prior.ndim != 1 or len(prior) < 1:
        raise fail(f"{where}.class_log_prior", "must be a 1-D array of the classes")
    for j, (parents, table) in enumerate(zip(model.parents, model.log_cpts, strict=True)):
        if any(not isinstance(p, int) or not 0 <= p < n or p == j for p in parents):
            raise fail(f"{where}.parents[{j}]", f"{parents!r} are not other features")
        shape = (len(prior), *(int(counts[p]) for p in parents), int(counts[j]))
        check_shape(table, shape, f"{where}.log_cpts[{j}]")
    return len(prior)


def _bayes_net(model: BayesNetModel, where: str) -> None:
    """Every table a distribution per context; the prior a distribution."""
    for j, table in enumerate(model.log_cpts):
        log_probabilities(table, -1, f"{where}.log_cpts[{j}]")
    check_class_prior(model.class_log_prior, f"{where}.class_log_prior")


@stored
@dataclass
class BayesNetModel(JointScoring, StoredModel):
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

    _FILE_CHECKS = (_check_bayes_net, _bayes_net)

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
            family_counts(
                codes, class_index, weights, n_classes, n_categories, node=j, parents=tuple(pa)
            )
            for j, pa in enumerate(parents)
        ]
        prior = class_totals(class_index, weights, n_classes)
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
        log_prior = class_log_prior(class_weight)  # -inf: given to partial_fit, never seen
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
        missing = missing_values.is_missing(codes)
        complete = ~missing.any(axis=1)
        if complete.any():
            rows = codes[complete]
            out[complete] = sum(self.node_log_probability(j, rows) for j in range(self.n_features))
        incomplete = np.flatnonzero(~complete)
        tables = self.flat_tables() if len(incomplete) else None
        for rows in rows_by_pattern(missing[incomplete]):
            out[incomplete[rows]] = self.marginals(codes[incomplete[rows]], tables=tables)
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
    def marginal(self, row: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x_observed | c)`` of one row, the missing features summed out by
        variable elimination (:meth:`marginals`)."""
        return self.marginals(np.asarray(row)[None])[0]

    def marginals(
        self,
        codes: NDArray[np.integer],
        order: EliminationOrder | None = None,
        tables: FlatTables | None = None,
    ) -> NDArray[np.float64]:
        """``log P(x_observed | c)`` of rows that miss the same features, summed out by
        variable elimination, every row at once: the elimination order and the
        factors' scopes depend only on which features are missing, so one compiled
        program (:func:`~discotree.models.elimination_plan.elimination_plan`) sums
        them out of every row (in blocks of at most
        :data:`~discotree.models.elimination_plan.MAX_BLOCK_CELLS` cells).

        Parameters
        ----------
        codes : ndarray of shape (n_rows, n_features)
            Category codes, -1 missing, the same features missing in every row.
        order : EliminationOrder, optional
            :meth:`elimination_order` of the missing features (searched when not given).
        tables : FlatTables, optional
            The model's tables flattened (:meth:`flat_tables`; made when not given).

        Returns
        -------
        ndarray of shape (n_rows, n_classes)

        Examples
        --------
        >>> model = BayesNetModel(np.array([2, 2, 2]), [(), (0,), (0, 1)],
        ...     [np.log(np.full((2, 2), 0.5)), np.log(np.full((2, 2, 2), 0.5)),
        ...      np.log(np.full((2, 2, 2, 2), 0.5))], np.log([0.5, 0.5]))
        >>> np.exp(model.marginals(np.array([[-1, 1, 0], [-1, 0, 1]]))).round(3)
        array([[0.25, 0.25],
               [0.25, 0.25]])
        """
        codes = np.asarray(codes)
        pattern = missing_values.is_missing(codes)
        if len(codes) and (pattern != pattern[0]).any():
            raise ValueError("marginals: the rows must miss the same features")
        missing = {int(v) for v in np.flatnonzero(pattern[0])} if len(codes) else set()
        if order is None:
            order = self.elimination_order(missing)
        if tables is None:
            tables = self.flat_tables()
        nodes = range(self.n_features)
        plan = elimination_plan(self.n_categories, nodes, missing, order.order, tables)
        return plan.log_marginals(codes, tables, self.n_classes)

    def flat_tables(self) -> FlatTables:
        """The log tables in one array (:class:`~discotree.models.elimination_plan.FlatTables`)."""
        return FlatTables.of(self.log_cpts, self.parents, range(self.n_features))

    def elimination_order(
        self, missing: set[int], nodes: Iterable[int] | None = None
    ) -> EliminationOrder:
        """The order in which :meth:`marginals` sums the features ``missing`` out of the
        families of ``nodes`` (None: every feature's)
        (:func:`~discotree.models.elimination_order.elimination_order` of their factors'
        scopes: greedy min-degree, min-fill or min-weight, the smallest largest factor).

        Examples
        --------
        >>> model = BayesNetModel(np.array([2, 3, 4]), [(), (0,), (0, 1)],
        ...     [np.zeros((2, 2)), np.zeros((2, 2, 3)), np.zeros((2, 2, 3, 4))], np.zeros(2))
        >>> model.elimination_order({0, 1})
        EliminationOrder(order=(0, 1), largest=6, total=9)
        """
        chosen = range(self.n_features) if nodes is None else nodes
        scopes = [[v for v in (*self.parents[j], j) if v in missing] for j in chosen]
        return elimination_order(scopes, {v: int(self.n_categories[v]) for v in missing})


def rows_by_pattern(missing: NDArray[np.bool_]) -> list[NDArray[np.intp]]:
    """The rows of each pattern of missing features (row indices into ``missing``).

    Examples
    --------
    >>> [r.tolist() for r in rows_by_pattern(np.array([[True, False], [False, False],
    ...     [True, False]]))]
    [[1], [0, 2]]
    """
    if len(missing) == 0:
        return []
    if np.shape(missing)[1] == 0:  # (no feature: one pattern)
        return [np.arange(len(missing))]
    # (each row's bits packed into bytes, compared as one key: the patterns in the
    # order of the rows of booleans, without numpy's slower unique over rows)
    bits = np.packbits(np.asarray(missing, dtype=bool), axis=1)
    keys = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).ravel()
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    return np.split(order, bounds)


def _family_index(codes, parents, node, n_categories) -> NDArray[np.intp]:
    index = np.zeros(len(codes), dtype=np.intp)
    for v in (*parents, node):
        index = index * int(n_categories[v]) + codes[:, v]
    return index
