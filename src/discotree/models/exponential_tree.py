"""Forest-structured distributions as exponential families (Sanghavi et al. 2007, eq. 5).

A distribution Markov on a forest is ``p(x) = exp(<theta, phi(x)> - Phi(theta))`` with
``phi(x)`` the indicators of every node value and every edge value pair. The first
category of each feature is the reference and its indicators are dropped: that keeps
the same family (a log table over an edge splits into the edge's interaction, two node
terms and a constant that ``Phi`` absorbs) with no redundant direction, and for binary
data it is the paper's family ``x_i``, ``x_i x_j``. :class:`TreeExponentialFamily`
holds the layout of ``theta``, the sparse feature matrix of a set of samples, the
log-partition function and its gradient (sum-product,
:func:`discotree.kernels.tree_partition.tree_log_partition`), and the conversions to
and from the conditional probability tables of
:class:`~discotree.models.discrete_forest.DiscreteForestModel`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.tree_partition import tree_log_partition
from ..structure.spanning import topological_order

__all__ = ["TreeExponentialFamily"]


@dataclass(frozen=True)
class TreeExponentialFamily:
    """The exponential family of distributions Markov on one directed forest.

    Parameters
    ----------
    parents : ndarray of shape (n_features,)
        Parent of each feature, ``-1`` for a root (the direction only fixes the layout
        of the edge parameters; the family is that of the undirected forest).
    n_categories : ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> family = TreeExponentialFamily(np.array([-1, 0]), np.array([2, 2]))
    >>> family.n_parameters  # x_0, x_1 and x_0 x_1
    3
    >>> bool(np.isclose(family.log_partition(np.zeros(3))[0], np.log(4)))
    True
    """

    parents: NDArray[np.intp]
    n_categories: NDArray[np.intp]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parents", np.asarray(self.parents, dtype=np.intp))
        object.__setattr__(self, "n_categories", np.asarray(self.n_categories, dtype=np.intp))

    # ----------------------------------------------------------------- layout
    @cached_property
    def _columns(self) -> tuple[NDArray[np.intp], NDArray[np.intp], int]:
        """Column of every (node, value) and (child, parent value, value) indicator in
        ``theta``, ``-1`` for the reference category and for padding."""
        d, r = len(self.parents), int(max(self.n_categories.max(initial=1), 1))
        node = np.full((d, r), -1, dtype=np.intp)
        edge = np.full((d, r, r), -1, dtype=np.intp)
        column = 0
        for j in range(d):
            rj = int(self.n_categories[j])
            node[j, 1:rj] = np.arange(column, column + rj - 1)
            column += rj - 1
        for j in range(d):
            pa = int(self.parents[j])
            if pa < 0:
                continue
            rp, rj = int(self.n_categories[pa]), int(self.n_categories[j])
            size = (rp - 1) * (rj - 1)
            edge[j, 1:rp, 1:rj] = np.arange(column, column + size).reshape(rp - 1, rj - 1)
            column += size
        return node, edge, column

    @cached_property
    def _order(self) -> NDArray[np.intp]:
        return topological_order(self.parents)

    @property
    def n_parameters(self) -> int:
        """The length of ``theta``."""
        return self._columns[2]

    def tables(self, theta: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """Padded node (n_features, r_max) and edge (n_features, r_max, r_max) potentials
        of ``theta`` (zero at the reference category and the padding)."""
        node_col, edge_col, n_parameters = self._columns
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape != (n_parameters,):
            raise ValueError(f"theta must have shape ({n_parameters},), got {theta.shape}.")
        padded = np.append(theta, 0.0)  # column -1 reads the appended zero
        return padded[node_col], padded[edge_col]

    # ------------------------------------------------------------- inference
    def log_partition(self, theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """``Phi(theta)`` and its gradient, the mean of ``phi(x)`` (node and edge
        marginals at the non-reference values), by sum-product."""
        node_log, edge_log, phi = self._marginals(theta)
        node_col, edge_col, n_parameters = self._columns
        grad = np.zeros(n_parameters)
        mask = node_col >= 0
        grad[node_col[mask]] = np.exp(node_log[mask])
        mask = edge_col >= 0
        grad[edge_col[mask]] = np.exp(edge_log[mask])
        return phi, grad

    def _marginals(self, theta):
        node_theta, edge_theta = self.tables(theta)
        node_log = np.zeros_like(node_theta)
        edge_log = np.zeros_like(edge_theta)
        phi = tree_log_partition(
            self.parents,
            self._order,
            self.n_categories,
            node_theta,
            edge_theta,
            node_log,
            edge_log,
        )
        return node_log, edge_log, float(phi)

    def features(self, codes: NDArray[np.integer]) -> sp.csr_matrix:
        """The indicator features ``phi(x)`` of complete samples, (n_samples,
        n_parameters), so that ``features(codes) @ theta`` is ``<theta, phi(x)>``."""
        codes = np.asarray(codes, dtype=np.intp)
        if codes.ndim != 2 or codes.shape[1] != len(self.parents):
            raise ValueError(f"codes must have {len(self.parents)} columns.")
        if missing_values.has_missing(codes) or (codes >= self.n_categories).any():
            raise ValueError("features need complete codes within each feature's categories.")
        node_col, edge_col, n_parameters = self._columns
        n = len(codes)
        columns = [node_col[j, codes[:, j]] for j in range(codes.shape[1])]
        columns += [
            edge_col[j, codes[:, pa], codes[:, j]] for j, pa in enumerate(self.parents) if pa >= 0
        ]
        cols = np.stack(columns, axis=1) if columns else np.empty((n, 0), np.intp)
        rows = np.broadcast_to(np.arange(n)[:, None], cols.shape)
        keep = cols >= 0
        return sp.csr_matrix(
            (np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(n, n_parameters)
        )

    def log_probability(self, theta: NDArray[np.float64], codes: NDArray) -> NDArray[np.float64]:
        """``log p(x) = <theta, phi(x)> - Phi(theta)`` of complete samples."""
        return (
            self.features(codes) @ np.asarray(theta, dtype=np.float64)
            - self.log_partition(theta)[0]
        )

    # ------------------------------------------------------------ conversions
    def from_log_cpts(self, log_cpts: list[NDArray[np.float64]]) -> NDArray[np.float64]:
        """``theta`` of the forest distribution ``prod_j P(x_j | x_parent(j))``.

        ``log_cpts[j]`` has shape (r_parent, r_j), ``r_parent = 1`` for roots (one class
        of a :class:`~discotree.models.discrete_forest.DiscreteForestModel` on the same
        parents). Each table ``L`` splits exactly into ``L[0, 0]`` (into ``Phi``),
        ``L[u, 0] - L[0, 0]`` (a parent term), ``L[0, v] - L[0, 0]`` (a node term) and
        the interaction ``L[u, v] - L[u, 0] - L[0, v] + L[0, 0]``.
        """
        node_col, edge_col, n_parameters = self._columns
        theta = np.zeros(n_parameters)
        for j, pa in enumerate(self.parents):
            table = np.asarray(log_cpts[j], dtype=np.float64)
            rj = int(self.n_categories[j])
            theta[node_col[j, 1:rj]] += table[0, 1:] - table[0, 0]
            if pa < 0:
                continue
            rp = int(self.n_categories[pa])
            theta[node_col[pa, 1:rp]] += table[1:, 0] - table[0, 0]
            interaction = table - table[:, :1] - table[:1, :] + table[0, 0]
            theta[edge_col[j, 1:rp, 1:rj].ravel()] = interaction[1:, 1:].ravel()
        return theta

    def to_log_cpts(self, theta: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        """The conditional tables ``log P(x_j | x_parent(j))`` of ``theta``'s
        distribution (the inverse of :meth:`from_log_cpts`): ratios of the marginals,
        computed in log space so that large parameters stay exact."""
        node_log, edge_log, _ = self._marginals(theta)
        tables = []
        for j, pa in enumerate(self.parents):
            rj = int(self.n_categories[j])
            if pa < 0:
                tables.append(node_log[j, :rj][None, :].copy())
                continue
            rp = int(self.n_categories[pa])
            joint = edge_log[j, :rp, :rj]
            tables.append(joint - node_log[pa, :rp][:, None])
        return tables
