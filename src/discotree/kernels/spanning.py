"""Union-find Kruskal kernel over pre-sorted candidate edges."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _find(parent, a):  # pragma: no cover - numba
    root = a
    while parent[root] != root:
        root = parent[root]
    while parent[a] != root:  # path compression
        nxt = parent[a]
        parent[a] = root
        a = nxt
    return root


@numba.njit(cache=True, nogil=True)
def kruskal_select(n_nodes, heads, tails, max_edges, out):  # pragma: no cover - numba
    """Scan candidate edges in the given order and keep those joining two components.

    Parameters
    ----------
    n_nodes : int
    heads, tails : ndarray of shape (n_candidates,), intp
        Endpoints of the candidate edges, already sorted best first.
    max_edges : int
        Stop after this many accepted edges.
    out : ndarray of shape (n_candidates,), intp
        Receives the positions (in the candidate arrays) of the accepted edges, in the
        order they were accepted.

    Returns
    -------
    n_accepted : int
    """
    parent = np.arange(n_nodes)
    rank = np.zeros(n_nodes, dtype=np.intp)
    n_accepted = 0
    for e in range(heads.shape[0]):
        if n_accepted >= max_edges:
            break
        ra = _find(parent, heads[e])
        rb = _find(parent, tails[e])
        if ra == rb:
            continue
        if rank[ra] < rank[rb]:
            ra, rb = rb, ra
        parent[rb] = ra
        if rank[ra] == rank[rb]:
            rank[ra] += 1
        out[n_accepted] = e
        n_accepted += 1
    return n_accepted
