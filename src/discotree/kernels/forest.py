"""Log-likelihood of class-conditional directed forests with exact marginalisation."""

from __future__ import annotations

import math

import numba
import numpy as np

from ..missing_values import is_missing_code, is_observed_code


@numba.njit(cache=True, nogil=True)
def _message(log_cpt, row, beta_j, rj, terms):  # pragma: no cover - numba
    """``log sum_v exp(log_cpt[row + v] + beta_j[v])`` over the rj values of a node."""
    m = -np.inf
    for v in range(rj):
        terms[v] = log_cpt[row + v] + beta_j[v]
        m = max(m, terms[v])
    acc = 0.0
    for v in range(rj):
        acc += math.exp(terms[v] - m)
    return m + math.log(acc)


@numba.njit(cache=True, nogil=True)
def message_scratch(n_categories):  # pragma: no cover - numba
    """The message arrays: beta (n_features, max r) and terms (max r)."""
    max_r = 1
    for f in range(n_categories.shape[0]):
        max_r = max(max_r, n_categories[f])
    return np.zeros((n_categories.shape[0], max_r)), np.empty(max_r)


@numba.njit(cache=True, nogil=True)
def _is_complete(codes, s):  # pragma: no cover - numba
    for f in range(codes.shape[1]):
        if is_missing_code(codes[s, f]):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def forest_log_likelihood(
    codes, parents, order, n_categories, log_cpt, cpt_offset, out
):  # pragma: no cover - numba
    """Fill ``out[s, c] = log P(x_s | c)`` summing out the missing features exactly.

    Parameters
    ----------
    codes : ndarray (n_samples, n_features), intp
        Category codes, ``-1`` for missing.
    parents : ndarray (n_classes, n_features), intp
        Parent of each feature in the forest of each class, ``-1`` for roots.
    order : ndarray (n_classes, n_features), intp
        A topological order (parents first) of each class's forest.
    n_categories : ndarray (n_features,), intp
    log_cpt : ndarray (total,), float64
        All log conditional probability tables, flattened. The table of feature j in
        class c starts at ``cpt_offset[c, j]`` and is a row-major (r_parent, r_j)
        matrix, ``r_parent = 1`` for roots.
    cpt_offset : ndarray (n_classes, n_features), intp
    out : ndarray (n_samples, n_classes), float64

    Notes
    -----
    Sum-product from the leaves to the roots, in log space: each node sends its parent
    ``log sum_v P(v | u) exp(beta_j(v))`` where ``beta_j`` collects its children's
    messages; an observed node restricts the sum to its value, a missing node sums over
    all its values. A complete sample takes the direct sum of one CPT entry per feature.
    Cost per sample and class: O(n_features) when complete, O(sum of r_j * r_parent)
    over missing nodes otherwise.
    """
    n_samples, n_features = codes.shape
    n_classes = parents.shape[0]
    beta, terms = message_scratch(n_categories)
    for s in range(n_samples):
        complete = _is_complete(codes, s)
        for c in range(n_classes):
            if complete:  # fast path: one CPT entry per feature, no messages
                total = 0.0
                for j in range(n_features):
                    pa = parents[c, j]
                    row = 0 if pa < 0 else codes[s, pa] * n_categories[j]
                    total += log_cpt[cpt_offset[c, j] + row + codes[s, j]]
                out[s, c] = total
                continue
            out[s, c] = incomplete_row(
                codes, s, c, parents, order, n_categories, log_cpt, cpt_offset, beta, terms
            )


@numba.njit(cache=True, nogil=True)
def incomplete_row(
    codes, s, c, parents, order, n_categories, log_cpt, cpt_offset, beta, terms
):  # pragma: no cover - numba
    """``log P(x_s | c)`` of a sample with missing features, by messages (see
    :func:`forest_log_likelihood`); ``beta`` and ``terms`` are scratch arrays."""
    n_features = codes.shape[1]
    for f in range(n_features):
        for v in range(n_categories[f]):
            beta[f, v] = 0.0
    total = 0.0
    for t in range(n_features - 1, -1, -1):
        j = order[c, t]
        pa = parents[c, j]
        rj = n_categories[j]
        base = cpt_offset[c, j]
        xj = codes[s, j]
        if pa < 0:
            if is_observed_code(xj):
                total += log_cpt[base + xj] + beta[j, xj]
            else:
                total += _message(log_cpt, base, beta[j], rj, terms)
            continue
        xp = codes[s, pa]
        u_lo = 0
        u_hi = n_categories[pa]
        if is_observed_code(xp):
            u_lo = xp
            u_hi = xp + 1
        for u in range(u_lo, u_hi):
            row = base + u * rj
            if is_observed_code(xj):
                beta[pa, u] += log_cpt[row + xj] + beta[j, xj]
            else:
                beta[pa, u] += _message(log_cpt, row, beta[j], rj, terms)
    return total
