"""Generative tree structures: Chow-Liu forests and the TAN forest.

References
----------
C. Chow and C. Liu, "Approximating discrete probability distributions with
dependence trees", IEEE Trans. Information Theory, 1968 (Tan et al. 2010, eq. 9-10, Section II-C).
N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers", Machine
Learning, 1997 (Pernkopf & Bilmes 2010, Section 4.3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .spanning import maximum_spanning_forest, orient_forest

__all__ = ["PENALTIES", "chow_liu_forest", "edge_penalty", "forest_parents", "penalized_forest"]

#: Model-selection scores for ``n_edges``: the penalty per free parameter, given the
#: total weight N of the data the forest is fitted to.
PENALTIES = {"bic": lambda n: 0.5 * float(np.log(max(n, 1.0))), "aic": lambda n: 1.0}


def chow_liu_forest(
    weights: NDArray[np.float64], n_edges: int | None = None
) -> list[tuple[int, int]]:
    """Edges of the maximum-weight spanning tree (or optimal ``n_edges``-edge forest).

    With ``weights`` the pairwise mutual informations of one class this is the
    Chow-Liu tree (Tan et al. 2010, eq. 10); with the class-conditional mutual informations
    I(X_i; X_j | C) it is the TAN tree (Pernkopf & Bilmes 2010, step 2 of Section 4.3).

    Parameters
    ----------
    weights : ndarray of shape (n_features, n_features)
    n_edges : int or None
        ``None`` for a spanning tree.

    Returns
    -------
    list of (i, j), i < j, in the order Kruskal added them.
    """
    edges, _ = maximum_spanning_forest(weights, max_edges=n_edges)
    return edges


def edge_penalty(
    n_categories: NDArray[np.intp], n_tables: int, criterion: str, total: float
) -> NDArray[np.float64]:
    """The penalty of every edge (i, j): the free parameters it adds,
    ``n_tables * (r_i - 1) * (r_j - 1)`` (one conditional table per class for TAN, one
    for a Chow-Liu tree), times ``log(N) / 2`` (BIC) or 1 (AIC).

    Examples
    --------
    >>> edge_penalty(np.array([2, 3]), 1, "aic", 100.0)
    array([[0., 2.],
           [2., 0.]])
    """
    free = np.asarray(n_categories, dtype=np.float64) - 1.0
    penalty = n_tables * np.outer(free, free) * PENALTIES[criterion](total)
    np.fill_diagonal(penalty, 0.0)
    return penalty


def penalized_forest(
    gain: NDArray[np.float64], penalty: NDArray[np.float64]
) -> list[tuple[int, int]]:
    """The forest maximising ``sum (gain - penalty)`` over its edges: Kruskal on the
    penalised weights, stopping at the first edge that does not pay for itself.

    ``gain[i, j]`` is the log-likelihood gain of the edge: ``N_ij I(X_i; X_j)`` for a
    Chow-Liu tree, ``N_ij I(X_i; X_j | C)`` for TAN (with ``N_ij`` the weight of the
    rows where both are observed). This is the BIC/AIC-optimal forest among forests of
    the same family (as ``tan_cl(score="bic")`` of bnclassify).
    """
    edges, _ = maximum_spanning_forest(gain - penalty, positive_only=True)
    return edges


def forest_parents(n_nodes: int, edges: list[tuple[int, int]], root: int = 0) -> NDArray[np.intp]:
    """Parents array of an edge set directed away from ``root`` (step 3 of Section 4.3)."""
    return orient_forest(n_nodes, edges, root=root)
