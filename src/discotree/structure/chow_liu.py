"""Generative tree structures: Chow-Liu forests and the TAN forest.

References
----------
C. Chow and C. Liu, "Approximating discrete probability distributions with
dependence trees", IEEE Trans. Information Theory, 1968 (eq. 9-10 of
000_73c31e535057fe50.txt, Section II-C).
N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers", Machine
Learning, 1997 (Section 4.3 of 002_4035af8a3a458042.txt).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .spanning import maximum_spanning_forest, orient_forest

__all__ = ["chow_liu_forest", "forest_parents"]


def chow_liu_forest(
    weights: NDArray[np.float64], n_edges: int | None = None
) -> list[tuple[int, int]]:
    """Edges of the maximum-weight spanning tree (or optimal ``n_edges``-edge forest).

    With ``weights`` the pairwise mutual informations of one class this is the
    Chow-Liu tree (eq. 10 of 000); with the class-conditional mutual informations
    I(X_i; X_j | C) it is the TAN tree (step 2 of Section 4.3 of 002).

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


def forest_parents(n_nodes: int, edges: list[tuple[int, int]], root: int = 0) -> NDArray[np.intp]:
    """Parents array of an edge set directed away from ``root`` (step 3 of Section 4.3)."""
    return orient_forest(n_nodes, edges, root=root)
