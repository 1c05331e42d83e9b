"""Maximum-weight spanning forests and their orientation.

Kruskal's algorithm adds edges by decreasing weight, skipping those that close a
cycle. Because the accepted edges are returned in insertion order, the first ``k`` of
them form a maximum-weight forest with ``k`` edges (a matroid greedy property), which
is what the nested optimal forests of Tan et al. 2010 (Proposition 5,
Corollary 6) rely on.
"""

from __future__ import annotations

import functools
from collections import deque

import numpy as np
from numpy.typing import NDArray

from ..kernels.spanning import kruskal_select
from ..numerics import SCORE_TIE_RTOL

__all__ = [
    "maximum_spanning_forest",
    "orient_forest",
    "random_spanning_tree",
    "topological_order",
]


def maximum_spanning_forest(
    weights: NDArray[np.float64],
    *,
    max_edges: int | None = None,
    positive_only: bool = False,
) -> tuple[list[tuple[int, int]], NDArray[np.float64]]:
    """Maximum-weight spanning forest of a complete graph by Kruskal's algorithm.

    Parameters
    ----------
    weights : ndarray of shape (n_nodes, n_nodes)
        Symmetric edge weights; only the upper triangle is read. NaN is not allowed.
    max_edges : int or None, default=None
        Stop after this many edges (``None``: a spanning tree, ``n_nodes - 1`` edges).
    positive_only : bool, default=False
        Stop at the first edge whose weight is not positive, so the result is the
        maximum-weight forest of any size.

    Returns
    -------
    edges : list of (int, int)
        The accepted edges ``(i, j)`` with ``i < j``, in the order Kruskal added them:
        every prefix of length k is a maximum-weight forest with k edges.
    edge_weights : ndarray of shape (n_edges,)
        Their weights.

    Raises
    ------
    ValueError
        If ``weights`` is not square or contains NaN.

    Notes
    -----
    Ties are broken deterministically by (weight descending, i, j), so the result does
    not depend on any random state. Cost O(m) to select the heaviest ``8 n`` candidates
    of the ``m = n(n-1)/2`` and O(m log m) only when the forest needs lighter edges.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {weights.shape}")
    n_nodes = weights.shape[0]
    heads, tails = _upper_pairs(n_nodes)
    candidate_weights = weights[heads, tails]
    if np.isnan(candidate_weights).any():
        raise ValueError("weights contain NaN")
    if positive_only:
        keep = np.flatnonzero(candidate_weights > 0)
        heads, tails, candidate_weights = heads[keep], tails[keep], candidate_weights[keep]
    limit = n_nodes - 1 if max_edges is None else min(int(max_edges), max(n_nodes - 1, 0))
    limit = max(limit, 0)
    n_candidates = len(candidate_weights)
    # Kruskal only reads a prefix of the sorted candidates: try the heaviest ones first
    # (all edges at least as heavy as the m-th, so the prefix order is exact) and fall
    # back to the full sort if the forest is not complete.
    m = min(n_candidates, max(8 * n_nodes, 1024))
    while True:
        if m < n_candidates:
            threshold = np.partition(candidate_weights, n_candidates - m)[n_candidates - m]
            slack = SCORE_TIE_RTOL * max(abs(float(threshold)), 1.0)
            subset = np.flatnonzero(candidate_weights >= threshold - slack)
        else:
            subset = np.arange(n_candidates)
        order = _tie_order(subset, candidate_weights)
        accepted = np.empty(len(order), dtype=np.intp)
        n_accepted = kruskal_select(n_nodes, heads[order], tails[order], limit, accepted)
        if n_accepted >= limit or len(subset) == n_candidates:
            break
        m = n_candidates
    chosen = order[accepted[:n_accepted]]
    edges = [(int(heads[e]), int(tails[e])) for e in chosen]
    return edges, candidate_weights[chosen].copy()


@functools.lru_cache(maxsize=16)
def _upper_pairs(n_nodes: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``np.triu_indices(n_nodes, k=1)`` as intp, computed once per size (read-only:
    every Kruskal run of a fit, on every fold, asks for the same pairs)."""
    pairs = tuple(idx.astype(np.intp) for idx in np.triu_indices(n_nodes, k=1))
    for idx in pairs:
        idx.setflags(write=False)
    return pairs[0], pairs[1]


def _tie_order(subset: NDArray[np.intp], weights: NDArray[np.float64]) -> NDArray[np.intp]:
    """``subset`` by weight, heaviest first, where weights that agree to
    ``SCORE_TIE_RTOL`` (relative, at least absolute) tie and ties go by position, that is
    by (i, j): equal weights computed in another order, or from counts accumulated
    another way, give the same forest."""
    order = subset[np.lexsort((subset, -weights[subset]))]
    if len(order) < 2:
        return order
    ranked = weights[order]
    tol = SCORE_TIE_RTOL * np.maximum(np.abs(ranked[:-1]), 1.0)
    group = np.concatenate([[0], np.cumsum(ranked[:-1] - ranked[1:] > tol)])
    return order[np.lexsort((order, group))]


def orient_forest(n_nodes: int, edges: list[tuple[int, int]], root: int = 0) -> NDArray[np.intp]:
    """Direct every edge of a forest away from a root.

    Parameters
    ----------
    n_nodes : int
    edges : list of (int, int)
        An acyclic edge set.
    root : int, default=0
        Root of the component containing it; every other component is rooted at its
        smallest node.

    Returns
    -------
    parents : ndarray of shape (n_nodes,), intp
        ``parents[j]`` is the parent of node j, ``-1`` for roots.

    Raises
    ------
    ValueError
        If the edges contain a cycle or name a node outside ``0..n_nodes-1``.
    """
    neighbours: list[list[int]] = [[] for _ in range(n_nodes)]
    for i, j in edges:
        if not (0 <= i < n_nodes and 0 <= j < n_nodes) or i == j:
            raise ValueError(f"invalid edge ({i}, {j}) for {n_nodes} nodes")
        neighbours[i].append(j)
        neighbours[j].append(i)
    parents = np.full(n_nodes, -1, dtype=np.intp)
    visited = np.zeros(n_nodes, dtype=bool)
    starts = [root] + [v for v in range(n_nodes) if v != root] if n_nodes else []
    n_tree_edges = 0
    for start in starts:
        if visited[start]:
            continue
        visited[start] = True
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in neighbours[u]:
                if v == parents[u]:
                    continue
                if visited[v]:
                    raise ValueError("edges contain a cycle")
                visited[v] = True
                parents[v] = u
                n_tree_edges += 1
                queue.append(v)
    if n_tree_edges != len(edges):
        raise ValueError("edges contain a cycle or repeated edges")
    return parents


def topological_order(parents: NDArray[np.intp]) -> NDArray[np.intp]:
    """Order the nodes of a directed forest so that every parent precedes its children.

    Parameters
    ----------
    parents : ndarray of shape (n_nodes,)
        Parent of each node, ``-1`` for roots.

    Returns
    -------
    order : ndarray of shape (n_nodes,), intp
        Breadth-first order from the roots, roots by increasing index.
    """
    n_nodes = len(parents)
    children: list[list[int]] = [[] for _ in range(n_nodes)]
    roots = []
    for j, p in enumerate(parents):
        if p < 0:
            roots.append(j)
        else:
            children[int(p)].append(j)
    order: list[int] = []
    queue = deque(roots)
    while queue:
        u = queue.popleft()
        order.append(u)
        queue.extend(children[u])
    if len(order) != n_nodes:
        raise ValueError("parents do not describe a forest (cycle found)")
    return np.asarray(order, dtype=np.intp)


def random_spanning_tree(n_nodes: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """A uniformly random labelled tree on ``n_nodes`` nodes: the decoding of a uniform
    Pruefer sequence. Edges as (i, j) with i < j."""
    if n_nodes <= 1:
        return []
    sequence = [int(v) for v in rng.integers(0, n_nodes, n_nodes - 2)]
    degree = [1] * n_nodes
    for v in sequence:
        degree[v] += 1
    edges = []
    for v in sequence:
        leaf = degree.index(1)  # the smallest leaf
        edges.append((min(leaf, v), max(leaf, v)))
        degree[leaf] -= 1
        degree[v] -= 1
    u, w = (v for v in range(n_nodes) if degree[v] == 1)
    edges.append((u, w))
    return edges
