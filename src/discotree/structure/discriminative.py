"""Optimal pairs of discriminative forests (Tan et al. 2010, Section III).

The edge part of the tree-approximate J-divergence (eq. 16) is
``sum_{E_p} psi(+) + sum_{E_q} psi(-)`` (the "both" weight of eq. 17 is
psi(+) + psi(-)), so the best pair of forests with at most k edges each (eq. 23) is a
pair of independent maximum-weight forests: one Kruskal run on psi(+) for p-hat and
one on psi(-) for q-hat, each stopped at the first non-positive weight (Algorithm 1)
and cut after k edges. Both sequences are nested (Corollary 6), so one run of each
gives every k. A single greedy pass over the three-valued weights is not optimal in
general (see docs/design/discriminative-forests.md for a counterexample).

Edge costs (eq. 24). ``accounting="per-forest"`` charges c to each forest that uses
the edge: p-hat's weights become psi(+) - c and q-hat's psi(-) - c, which keeps the
problem decoupled and exactly solvable (nested in k), with the natural stopping rule
"stop when every remaining weight is negative". ``accounting="union"`` charges an edge
of E_p union E_q once, as eq. 24 writes it; an edge used by both forests then earns a
bonus c over the per-forest objective, which couples the forests. Its exact optimum is
a weighted matroid intersection (docs/design/discriminative-forests.md); here it is
approached by exact block-coordinate ascent: given E_q, the best E_p is a
maximum-weight forest for psi(+) - c + c [e in E_q] (a Kruskal run), then the same for
E_q given E_p, until the objective stops increasing. It is started twice, from the
per-forest optimum and from the forest of psi(+) + psi(-) - c shared by both (every
edge paid once), and the better end point is kept. Every step is exact for its block,
so the result is never worse than the per-forest solution under eq. 24 and no single
forest can be improved; it is not always the global optimum (the tests measure how
often it is, against exhaustive search).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..numerics import GAIN_RTOL
from ..stored_checks import CheckedState
from ..stored_classes import stored
from .spanning import maximum_spanning_forest

__all__ = ["ForestPath", "discriminative_forest_paths", "union_cost_objective"]

_ACCOUNTING = ("per-forest", "union")


@stored
@dataclass(frozen=True)
class ForestPath(CheckedState):
    """The edges of one discriminative forest in the order Kruskal added them.

    ``edges[:k]`` is the optimal forest with at most k edges.
    """

    _NUMBER_FIELDS = ("weights",)  # finite (the reader's check)

    edges: list[tuple[int, int]]
    weights: NDArray[np.float64]

    def forest(self, n_edges: int | None) -> list[tuple[int, int]]:
        """The first ``n_edges`` edges (all when None)."""
        return list(self.edges if n_edges is None else self.edges[:n_edges])


def _cost_matrix(edge_cost, n_features: int) -> NDArray[np.float64]:
    try:
        cost = np.asarray(edge_cost, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"edge_cost must be a non-negative number or a ({n_features}, {n_features}) "
            f"matrix of them, got {edge_cost!r}"
        ) from None
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
    accounting: str = "per-forest",
    max_rounds: int = 100,
) -> tuple[ForestPath, ForestPath]:
    """Nested optimal forests for p-hat and q-hat (eq. 23, with costs as eq. 24).

    Parameters
    ----------
    psi_pos, psi_neg : ndarray of shape (n_features, n_features)
        Edge weights of eq. 21.
    edge_cost : float or ndarray of shape (n_features, n_features), default=0
        Non-negative cost of each edge (the upper triangle is read).
    accounting : {"per-forest", "union"}, default="per-forest"
        Charge the cost to each forest using the edge (exact), or once per edge of the
        union as eq. 24 (block-coordinate ascent; module notes).
    max_rounds : int, default=100
        Limit on the alternations of the union accounting.

    Returns
    -------
    path_pos, path_neg : ForestPath
        Full paths (every edge of positive cost-adjusted weight that Kruskal accepts).

    Notes
    -----
    O(n^2 log n) for the two Kruskal runs (per alternation with ``"union"``). With
    ``"union"`` the paths are the Kruskal orders of the last alternation; a prefix of
    one forest is optimal given the other forest, not jointly.
    """
    if accounting not in _ACCOUNTING:
        raise ValueError(f"accounting must be one of {_ACCOUNTING}, got {accounting!r}")
    no_cost = np.ndim(edge_cost) == 0 and float(edge_cost) == 0.0
    cost = np.zeros_like(psi_pos) if no_cost else _cost_matrix(edge_cost, psi_pos.shape[0])
    paths = []
    for psi in (psi_pos, psi_neg):
        edges, weights = maximum_spanning_forest(psi - cost, positive_only=True)
        paths.append(ForestPath(edges, weights))
    if accounting == "per-forest" or no_cost:
        return paths[0], paths[1]
    # second start: the forest that pays each shared edge once, used by both
    shared, _ = maximum_spanning_forest(psi_pos + psi_neg - cost, positive_only=True)
    best = _block_ascent(psi_pos, psi_neg, cost, paths[1].edges, max_rounds)
    result = _block_ascent(psi_pos, psi_neg, cost, shared, max_rounds)
    if result[0] > best[0] + GAIN_RTOL * max(1.0, abs(best[0])):
        best = result
    return best[1], best[2]


def _block_ascent(psi_pos, psi_neg, cost, start_neg, max_rounds):
    """Alternate exact best responses from E_q = ``start_neg``; (value, path_p, path_q)."""
    path_neg = ForestPath(list(start_neg), np.zeros(len(start_neg)))
    value = -np.inf
    for _ in range(max_rounds):
        path_pos = _best_given(psi_pos, cost, path_neg.edges)
        path_neg = _best_given(psi_neg, cost, path_pos.edges)
        new = union_cost_objective(psi_pos, psi_neg, cost, path_pos.edges, path_neg.edges)
        if new <= value + GAIN_RTOL * max(1.0, abs(value)):
            break
        value = new
    return value, path_pos, path_neg


def _best_given(psi, cost, other_edges) -> ForestPath:
    """Maximum-weight forest when the edges of the other forest are already paid for."""
    adjusted = psi - cost
    for i, j in other_edges:
        adjusted[i, j] = adjusted[j, i] = psi[i, j]
    edges, weights = maximum_spanning_forest(adjusted, positive_only=True)
    return ForestPath(edges, weights)


def union_cost_objective(psi_pos, psi_neg, edge_cost, edges_pos, edges_neg) -> float:
    """Edge part of eq. 24: ``sum_{E_p} psi(+) + sum_{E_q} psi(-) - sum_{E_p u E_q} c``."""
    cost = np.broadcast_to(np.asarray(edge_cost, dtype=np.float64), np.shape(psi_pos))
    union = {tuple(sorted(e)) for e in edges_pos} | {tuple(sorted(e)) for e in edges_neg}
    return float(
        sum(psi_pos[e] for e in edges_pos)
        + sum(psi_neg[e] for e in edges_neg)
        - sum(cost[e] for e in union)
    )
