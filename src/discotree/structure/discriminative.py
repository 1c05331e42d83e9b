"""Optimal pairs of discriminative forests (Section III of 000_73c31e535057fe50.txt).

The edge part of the tree-approximate J-divergence (eq. 16) is
``sum_{E_p} psi(+) + sum_{E_q} psi(-)`` (the "both" weight of eq. 17 is
psi(+) + psi(-)), so the best pair of forests with at most k edges each (eq. 23) is a
pair of independent maximum-weight forests: one Kruskal run on psi(+) for p-hat and
one on psi(-) for q-hat, each stopped at the first non-positive weight (Algorithm 1)
and cut after k edges. Both sequences are nested (Corollary 6), so one run of each
gives every k. A single greedy pass over the three-valued weights is not optimal in
general (see docs/design/discriminative-forests.md for a counterexample).

Edge costs (eq. 24) are charged to each forest that uses the edge: p-hat's weights
become psi(+) - c and q-hat's psi(-) - c, which keeps the problem decoupled and exactly
solvable, with the natural stopping rule "stop when every remaining weight is
negative". Eq. 24 charges an edge used by both forests once; that accounting couples
the two forests and is not what is optimised here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .spanning import maximum_spanning_forest

__all__ = ["ForestPath", "discriminative_forest_paths"]


@dataclass(frozen=True)
class ForestPath:
    """The edges of one discriminative forest in the order Kruskal added them.

    ``edges[:k]`` is the optimal forest with at most k edges.
    """

    edges: list[tuple[int, int]]
    weights: NDArray[np.float64]

    def forest(self, n_edges: int | None) -> list[tuple[int, int]]:
        """The first ``n_edges`` edges (all when None)."""
        return list(self.edges if n_edges is None else self.edges[:n_edges])


def _cost_matrix(edge_cost, n_features: int) -> NDArray[np.float64]:
    cost = np.asarray(edge_cost, dtype=np.float64)
    if cost.ndim == 0:
        cost = np.full((n_features, n_features), float(cost))
    if cost.shape != (n_features, n_features):
        raise ValueError(
            f"edge_cost must be a scalar or a ({n_features}, {n_features}) matrix, "
            f"got shape {cost.shape}"
        )
    if not np.isfinite(cost).all() or (cost < 0).any():
        raise ValueError("edge_cost must be finite and >= 0")
    return np.triu(cost, 1) + np.triu(cost, 1).T


def discriminative_forest_paths(
    psi_pos: NDArray[np.float64],
    psi_neg: NDArray[np.float64],
    edge_cost: float | NDArray[np.float64] = 0.0,
) -> tuple[ForestPath, ForestPath]:
    """Nested optimal forests for p-hat and q-hat (eq. 23, with costs as eq. 24).

    Parameters
    ----------
    psi_pos, psi_neg : ndarray of shape (n_features, n_features)
        Edge weights of eq. 21.
    edge_cost : float or ndarray of shape (n_features, n_features), default=0
        Non-negative cost of each edge, charged to each forest using it (the upper
        triangle is read).

    Returns
    -------
    path_pos, path_neg : ForestPath
        Full paths (every edge of positive cost-adjusted weight that Kruskal accepts).

    Notes
    -----
    O(n^2 log n) for the two Kruskal runs.
    """
    no_cost = np.ndim(edge_cost) == 0 and float(edge_cost) == 0.0
    cost = 0.0 if no_cost else _cost_matrix(edge_cost, psi_pos.shape[0])
    paths = []
    for psi in (psi_pos, psi_neg):
        adjusted = psi - cost
        edges, weights = maximum_spanning_forest(adjusted, positive_only=True)
        paths.append(ForestPath(edges, weights))
    return paths[0], paths[1]
