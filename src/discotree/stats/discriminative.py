"""Discriminative edge weights and the tree-approximate J-divergence.

Tan, Sanghavi, Fisher and Willsky 2010, Section III: for
tree models p-hat (of the positive class) and q-hat (of the negative class) that are
marginally consistent with p and q, the tree-approximate J-divergence (eq. 14)
decomposes as (eq. 16)

    J-hat = sum_i J(p_i, q_i) + sum_{E_p} psi(+)_ij + sum_{E_q} psi(-)_ij,

where psi(+) (eq. 21) is the weight of edge (i, j) in p-hat's tree and psi(-) the same
with p and q swapped. The three-valued weights w_ij of eq. 17 are psi(+) (edge in p-hat
only), psi(-) (in q-hat only) and psi(+) + psi(-) (in both).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..kernels.information import pairwise_discriminative_weights
from ..numerics import CORRELATION_MARGIN, VARIANCE_FLOOR_RTOL
from .dirichlet import smoothed_conditional
from .information import j_divergence
from .pair_statistics import PairStatistics

__all__ = [
    "discriminative_weights",
    "gaussian_discriminative_weights",
    "tree_approximate_j_divergence",
]


def discriminative_weights(
    stats: PairStatistics, positive: int, negative: int, alpha: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """psi(+) and psi(-) of eq. 21 for every pair of features.

    Parameters
    ----------
    stats : PairStatistics
    positive, negative : int
        Class indices of p (positive) and q (negative).
    alpha : float
        Dirichlet pseudo-count added to every cell of each pair table before
        normalising; must be > 0, so that the pairwise distributions are mutually
        absolutely continuous (assumption (i) of Proposition 1).

    Returns
    -------
    psi_pos, psi_neg : ndarrays of shape (n_features, n_features)
        Symmetric, zero diagonal.

    Raises
    ------
    ValueError
        If ``alpha <= 0``.

    Notes
    -----
    ``psi(+)_ij = sum_ab (p_ij - q_ij)(a, b) log[p_ij(a, b) / (p_i(a) p_j(b))]``, an
    equivalent form of eq. 21. O(n_features**2 * r**2).
    """
    if not alpha > 0:
        raise ValueError(
            f"alpha must be > 0 for discriminative weights (got {alpha}): an empty cell of "
            "one class's table would make psi infinite"
        )
    d = stats.n_features
    psi_pos, psi_neg = np.empty((d, d)), np.empty((d, d))
    pairwise_discriminative_weights(
        stats.counts, stats.offsets, positive, negative, float(alpha), psi_pos, psi_neg
    )
    return psi_pos, psi_neg


def gaussian_discriminative_weights(
    mean_p: NDArray[np.float64],
    cov_p: NDArray[np.float64],
    mean_q: NDArray[np.float64],
    cov_q: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """psi(+) and psi(-) of eq. 21 for two Gaussians, in closed form.

    With u, v the features of a pair standardised under p and rho p's correlation,
    ``f = log p_ij / (p_i p_j) = -log(1 - rho^2)/2 - [(u^2 - 2 rho u v + v^2) /
    (1 - rho^2) - u^2 - v^2] / 2``; psi(+) = E_p f - E_q f with the second moments of
    u and v under q. psi(-) swaps p and q.

    Returns
    -------
    psi_pos, psi_neg : ndarrays of shape (n_features, n_features)
    """
    return (
        _gaussian_psi(mean_p, cov_p, mean_q, cov_q),
        _gaussian_psi(mean_q, cov_q, mean_p, cov_p),
    )


#: |rho| <= 1 - 1e-12: beyond, 1 - rho**2 is rounding noise that psi divides by.
_RHO_MARGIN = CORRELATION_MARGIN


def _gaussian_psi(mean_p, cov_p, mean_q, cov_q) -> NDArray[np.float64]:
    mean_p, mean_q = np.asarray(mean_p, float), np.asarray(mean_q, float)
    cov_p, cov_q = np.asarray(cov_p, float), np.asarray(cov_q, float)
    var = np.diag(cov_p)
    floor = VARIANCE_FLOOR_RTOL * max(1.0, float(var.max(initial=0.0)))
    constant = var <= floor  # a constant feature has no correlation: its covariances
    # are rounding noise, which divided by the floored deviations would decide psi
    sd = np.sqrt(np.maximum(var, floor))
    rho = np.clip(cov_p / np.outer(sd, sd), -1 + _RHO_MARGIN, 1 - _RHO_MARGIN)
    rho[constant, :] = 0.0
    rho[:, constant] = 0.0
    shift = (mean_q - mean_p) / sd
    e_uu = np.diag(cov_q) / sd**2 + shift**2  # E_q[u^2] per feature
    e_uv = cov_q / np.outer(sd, sd) + np.outer(shift, shift)  # E_q[u v]
    u2, v2 = e_uu[:, None], e_uu[None, :]
    one_minus = 1 - rho**2
    e_q_f = -0.5 * np.log(one_minus) - 0.5 * ((u2 - 2 * rho * e_uv + v2) / one_minus - u2 - v2)
    psi = -0.5 * np.log(one_minus) - e_q_f
    np.fill_diagonal(psi, 0.0)
    return psi


def tree_approximate_j_divergence(
    stats: PairStatistics,
    positive: int,
    negative: int,
    edges_pos: list[tuple[int, int]],
    edges_neg: list[tuple[int, int]],
    *,
    alpha: float,
) -> float:
    """The tree-approximate J-divergence of eq. 16 for given edge sets.

    ``sum_i J(p_i, q_i) + sum_{E_p} psi(+) + sum_{E_q} psi(-)``, with the node marginals
    smoothed like the pair tables (pseudo-count alpha per cell).
    """
    psi_pos, psi_neg = discriminative_weights(stats, positive, negative, alpha)
    total = 0.0
    for i in range(stats.n_features):
        marginal = stats.marginal(i)
        p = smoothed_conditional(marginal[positive], alpha, 0.0)
        q = smoothed_conditional(marginal[negative], alpha, 0.0)
        total += j_divergence(p, q)
    total += sum(psi_pos[i, j] for i, j in edges_pos)
    total += sum(psi_neg[i, j] for i, j in edges_neg)
    return float(total)
