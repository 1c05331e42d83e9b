"""Log-partition function and marginals of a forest-structured exponential family.

The distribution is ``p(x) = exp(sum_j t_j(x_j) + sum_(pa(j), j) t_j(x_pa, x_j) -
Phi)`` on a directed forest (``parents``); ``Phi`` and every node and edge marginal
come from one upward and one downward pass of sum-product in log space. This is the
log-partition function of eq. (5) of Sanghavi et al. 2007 and its gradient (the
mean parameters), which LGMHT-altmax needs at every step.
"""

from __future__ import annotations

import numba
import numpy as np

from .log_space import log_sum_exp

__all__ = ["tree_log_partition"]


@numba.njit(cache=True, nogil=True)
def tree_log_partition(
    parents, order, n_categories, node_theta, edge_theta, node_out, edge_out
):  # pragma: no cover - numba
    """``Phi(theta)``; fills the log node and edge marginals.

    Parameters
    ----------
    parents : ndarray (n_features,), intp
        Parent of each node, ``-1`` for roots.
    order : ndarray (n_features,), intp
        A topological order (parents first).
    n_categories : ndarray (n_features,), intp
    node_theta : ndarray (n_features, r_max), float64
        ``node_theta[j, v]`` for ``v < r_j`` (the rest is ignored).
    edge_theta : ndarray (n_features, r_max, r_max), float64
        ``edge_theta[j, u, v]``: the potential of (x_parent(j) = u, x_j = v); ignored
        for roots.
    node_out : ndarray (n_features, r_max), float64
        Receives ``log P(x_j = v)``.
    edge_out : ndarray (n_features, r_max, r_max), float64
        Receives ``log P(x_parent(j) = u, x_j = v)`` for every non-root j.

    Returns
    -------
    float
        ``Phi = log sum_x exp(<theta, phi(x)>)`` (sum over the trees' partitions).
    """
    n = parents.shape[0]
    r_max = node_theta.shape[1]
    inward = np.zeros((n, r_max))  # sum of the children's messages into each node
    up = np.zeros((n, r_max))  # message of each node to its parent
    down = np.zeros((n, r_max))  # message of the parent into each node
    terms = np.empty(r_max)
    log_z = np.zeros(n)  # log partition of each node's tree
    phi = 0.0
    for t in range(n - 1, -1, -1):  # leaves to roots
        j = order[t]
        pa = parents[j]
        rj = n_categories[j]
        if pa < 0:
            for v in range(rj):
                terms[v] = node_theta[j, v] + inward[j, v]
            log_z[j] = log_sum_exp(terms, rj, -1)
            phi += log_z[j]
            continue
        for u in range(n_categories[pa]):
            for v in range(rj):
                terms[v] = edge_theta[j, u, v] + node_theta[j, v] + inward[j, v]
            up[j, u] = log_sum_exp(terms, rj, -1)
            inward[pa, u] += up[j, u]
    for t in range(n):  # roots to leaves
        j = order[t]
        pa = parents[j]
        rj = n_categories[j]
        if pa >= 0:
            log_z[j] = log_z[pa]
            rp = n_categories[pa]
            for v in range(rj):
                for u in range(rp):
                    terms[u] = (
                        node_theta[pa, u] + inward[pa, u] + down[pa, u] - up[j, u]
                    ) + edge_theta[j, u, v]
                down[j, v] = log_sum_exp(terms, rp, -1)
            for u in range(rp):
                outside = node_theta[pa, u] + inward[pa, u] + down[pa, u] - up[j, u]
                for v in range(rj):
                    edge_out[j, u, v] = (
                        outside + edge_theta[j, u, v] + node_theta[j, v] + inward[j, v] - log_z[j]
                    )
        for v in range(rj):
            node_out[j, v] = node_theta[j, v] + inward[j, v] + down[j, v] - log_z[j]
    return phi
