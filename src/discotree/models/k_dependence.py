"""k-dependence Bayesian network classifiers with sparse family tables (kDB, Sahami
1996; the nested models of selective kDB, Martinez, Webb, Chen & Zaidi 2016, JMLR
17(44)).

The class is a parent of every attribute; attribute j, when used, also has the first
``k`` of its ranked parents. ``log P(x | c) = sum_j log P(x_j | c, pa_j)`` over the used
attributes, each factor from a :class:`~discotree.stats.family_tables.SparseFamilyTable`
(a parent configuration never observed gives the uniform distribution, as a dense
smoothed table would).

With ``concentrations`` (per node, one per level), each factor is the hierarchical
estimate of :mod:`discotree.stats.hierarchical` instead: it backs off along the prefixes
of the ranked parents, down to the class level and the node's marginal.

Missing values at predict time: a missing attribute is summed out (its factor is 1,
exact); a missing parent is **backed off**: the attribute's factor uses the longest
observed prefix of its ranked parents (the table of that prefix, counted on the rows
where it is observed). That is not the exact marginal of the network (which would need
variable elimination over the parents' configurations); it is the rule, stated and
tested, and it is exact where no parent is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..kernels.counts import configuration_ids
from ..stats.family_tables import SparseFamilyTable
from ..stats.hierarchical import backoff_log_probability, level_counts

__all__ = ["KDependenceModel", "observed_prefix_lengths"]


def observed_prefix_lengths(
    codes: NDArray[np.integer], ranked: tuple[int, ...]
) -> NDArray[np.intp]:
    """How many of ``ranked``'s leading parents each row observes.

    Examples
    --------
    >>> observed_prefix_lengths(np.array([[0, -1, 1], [1, 1, 1]]), (2, 1, 0))
    array([1, 3])
    """
    length = np.zeros(len(codes), dtype=np.intp)
    still = np.ones(len(codes), dtype=bool)
    for parent in ranked:
        still &= codes[:, parent] >= 0
        length += still
    return length


@dataclass
class KDependenceModel:
    """A fitted k-dependence classifier.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,)
    attributes : list of int
        The attributes used, in the order they were ranked (the others are ignored).
    parents : list of tuple of int
        Per feature, its ranked parents in use (at most ``k``).
    tables : list of list of SparseFamilyTable
        Per feature, the tables under each prefix of its ranked parents (lengths 0 up
        to at least ``len(parents[j])``).
    alpha, epsilon : float
        The smoothing of every table (hierarchical smoothing: ``alpha`` smooths the
        nodes' marginals).
    concentrations : list of ndarray or None
        Hierarchical smoothing: per node, the concentration of each level 0..k of its
        parents in use; None: ``alpha`` per cell of each table (Dirichlet).

    Examples
    --------
    >>> from discotree.stats.family_tables import prefix_family_tables
    >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
    >>> y = np.array([0, 1, 1, 0])
    >>> tables = prefix_family_tables(codes, y, None, 2, np.array([2, 2]), [(), (0,)])
    >>> model = KDependenceModel(np.array([2, 2]), [0, 1], [(), (0,)], tables, 1.0, 0.0)
    >>> np.exp(model.log_likelihood(np.array([[1, 1]]))).round(3)
    array([[0.125, 0.562]])
    """

    n_categories: NDArray[np.intp]
    attributes: list[int]
    parents: list[tuple[int, ...]]
    tables: list[list[SparseFamilyTable]]
    alpha: float
    epsilon: float
    concentrations: list[NDArray[np.float64]] | None = None

    @property
    def n_classes(self) -> int:
        return int(self.tables[0][0].n_classes)

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def node_log_probability(self, node: int, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x_node | c, pa)`` of every row and class (0 where x_node is missing;
        a missing parent backed off to the observed prefix)."""
        ranked = self.parents[node]
        if self.concentrations is not None:
            levels = level_counts(self.tables[node], codes, ranked, self.n_categories, len(ranked))
            r = int(self.n_categories[node])
            return backoff_log_probability(
                levels, len(ranked), self.concentrations[node], self.alpha, r
            )
        out = np.zeros((len(codes), self.n_classes))
        values = codes[:, node]
        usable = observed_prefix_lengths(codes, ranked)
        for length in range(len(ranked) + 1):
            rows = np.flatnonzero((values >= 0) & (usable == length))
            if len(rows) == 0:
                continue
            ids, _ = configuration_ids(codes[rows], ranked[:length], self.n_categories)
            table = self.tables[node][length]
            out[rows] = table.log_probability(ids, values[rows], self.alpha, self.epsilon)
        return out

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)`` of every row and class (the class prior excluded)."""
        codes = np.asarray(codes)
        out = np.zeros((len(codes), self.n_classes))
        for node in self.attributes:
            out += self.node_log_probability(node, codes)
        return out

    def edges(self) -> list[tuple[int, int]]:
        """The attribute edges (parent, child) in use."""
        return [(int(p), int(j)) for j in self.attributes for p in self.parents[j]]

    @property
    def nbytes(self) -> int:
        """The memory of the tables in use."""
        return sum(
            table.nbytes
            for j in self.attributes
            for table in self.tables[j][: len(self.parents[j]) + 1]
        )
