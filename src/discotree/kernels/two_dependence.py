"""The joint log-likelihood of averaged two-dependence estimators (A2DE; Webb,
Boughton, Zheng, Ting & Salem, "Learning by extrapolation from marginal to full-multivariate
probability distributions: decreasingly naive Bayesian classification", Machine
Learning 86, 2012, Section 3), with missing values summed out exactly.

For every pair of super-parents ``i < j`` the estimator
``P(c, x_i, x_j) prod_{k != i, j} P(x_k | c, x_i, x_j)`` is a distribution over the
class and every attribute: a missing child contributes the factor 1 (its conditional
sums to one), and the estimator of a missing super-parent is summed over that
parent's values. The average of those marginals is the marginal of the average.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from ..missing_values import is_missing_code, is_observed_code
from ..threads import in_chunks
from .log_space import log_sum_exp

__all__ = ["two_dependence_conditionals", "two_dependence_joint"]

#: Lookups below twice this many are one thread's.
_MIN_WORK = 2_000_000


@numba.njit(cache=True, nogil=True)
def _smooth_context(counts, out, first, stride, r, n_classes, alpha, epsilon):
    # pragma: no cover - numba
    # the r cells first + v * stride (v < r) of every class c (+ c): smoothed, logged
    for c in range(n_classes):
        total = 0.0
        for v in range(r):
            total += counts[first + v * stride + c] + alpha
        zeros = 0
        for v in range(r):
            cell = first + v * stride + c
            p = (counts[cell] + alpha) / total if total > 0 else 1.0 / r
            out[cell] = p
            if p <= 0:
                zeros += 1
        scale = 1.0
        if epsilon > 0 and zeros > 0:
            kept = 0.0
            for v in range(r):
                cell = first + v * stride + c
                if out[cell] <= 0:
                    out[cell] = epsilon
                kept += out[cell]
            scale = 1.0 / kept
        for v in range(r):
            cell = first + v * stride + c
            out[cell] = np.log(out[cell] * scale)


@numba.njit(cache=True, nogil=True)
def _smooth_child(
    counts,
    base,
    n_classes,
    alpha,
    epsilon,
    out,
    r_outer,
    s_outer,
    r_inner,
    s_inner,
    s_child,
    r_child,
):  # pragma: no cover - numba
    # _smooth_context of every context (u, v) of the two parents, u outer
    for u in range(r_outer):
        for v in range(r_inner):
            first = base + u * s_outer + v * s_inner
            _smooth_context(counts, out, first, s_child, r_child, n_classes, alpha, epsilon)


@numba.njit(cache=True, nogil=True)
def _conditionals_kernel(counts, n_categories, n_classes, layout, alpha, epsilon, out):
    # pragma: no cover - numba
    d = n_categories.shape[0]
    t = 0
    for i in range(d):
        ri = n_categories[i]
        for j in range(i + 1, d):
            rj = n_categories[j]
            for k in range(j + 1, d):
                rk = n_categories[k]
                base = layout[t]
                s_e = n_classes  # strides of the (r_i, r_j, r_k, C) table
                s_b = rk * s_e
                s_a = rj * s_b
                # i given (j, k), j given (i, k), k given (i, j)
                args = (counts, base, n_classes, alpha, epsilon)
                _smooth_child(*args, out[0], rj, s_b, rk, s_e, s_a, ri)
                _smooth_child(*args, out[1], ri, s_a, rk, s_e, s_b, rj)
                _smooth_child(*args, out[2], ri, s_a, rj, s_b, s_e, rk)
                t += 1


def two_dependence_conditionals(
    counts: NDArray[np.float64],
    n_categories: NDArray[np.intp],
    n_classes: int,
    layout: NDArray[np.int64],
    alpha: float,
    *,
    epsilon: float,
) -> NDArray[np.float64]:
    """The log-conditionals of each member of every triple given the other two and the
    class, from the triple tables: row ``m`` of the result holds ``log P(x_m-th | c,
    the other two)`` at the cells of the counts (the layout of
    :func:`~discotree.kernels.counts.triple_counts`). Smoothed as
    :func:`~discotree.stats.dirichlet.smoothed_conditional` (``alpha`` per cell; a
    context never observed is uniform; zeros floored at ``epsilon`` and renormalised)."""
    out = np.zeros((3, len(counts)))
    if len(counts):
        _conditionals_kernel(
            np.ascontiguousarray(counts, dtype=np.float64),
            np.asarray(n_categories, dtype=np.int64),
            int(n_classes),
            layout,
            float(alpha),
            float(epsilon),
            out,
        )
    return out


@numba.njit(cache=True, nogil=True)
def _joint_rows(
    codes,
    n_categories,
    pair_start,
    pair_log,
    triple_index,
    layout,
    cond_log,
    n_classes,
    start,
    stop,
    out,
):  # pragma: no cover - numba
    d = codes.shape[1]
    n_pairs = d * (d - 1) // 2
    estimators = np.empty((n_classes, n_pairs))
    rmax = 1
    for f in range(d):
        rmax = max(rmax, n_categories[f])
    summed = np.empty((n_classes, rmax * rmax))
    value = np.empty(n_classes)
    for r in range(start, stop):
        t = 0
        for i in range(d):
            xi = codes[r, i]
            for j in range(i + 1, d):
                xj = codes[r, j]
                a_lo, a_hi = (xi, xi + 1) if is_observed_code(xi) else (0, n_categories[i])
                b_lo, b_hi = (xj, xj + 1) if is_observed_code(xj) else (0, n_categories[j])
                m = 0
                for a in range(a_lo, a_hi):
                    for b in range(b_lo, b_hi):
                        first = pair_start[i, j] + (a * n_categories[j] + b) * n_classes
                        for c in range(n_classes):
                            value[c] = pair_log[first + c]
                        for k in range(d):
                            e = codes[r, k]
                            if k == i or k == j or is_missing_code(e):
                                continue
                            # the sorted triple and the child's position in it
                            if k < i:
                                tri = triple_index[k, i, j]
                                cell = (e * n_categories[i] + a) * n_categories[j] + b
                                role = 0
                            elif k < j:
                                tri = triple_index[i, k, j]
                                cell = (a * n_categories[k] + e) * n_categories[j] + b
                                role = 1
                            else:
                                tri = triple_index[i, j, k]
                                cell = (a * n_categories[j] + b) * n_categories[k] + e
                                role = 2
                            at = layout[tri] + cell * n_classes
                            for c in range(n_classes):
                                value[c] += cond_log[role, at + c]
                        for c in range(n_classes):
                            summed[c, m] = value[c]
                        m += 1
                for c in range(n_classes):
                    estimators[c, t] = log_sum_exp(summed[c], m, -1)
                t += 1
        for c in range(n_classes):
            out[r, c] = log_sum_exp(estimators[c], n_pairs, -1) - np.log(n_pairs)


def two_dependence_joint(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    pair_start: NDArray[np.int64],
    pair_log: NDArray[np.float64],
    triple_index: NDArray[np.int64],
    *,
    layout: NDArray[np.int64],
    cond_log: NDArray[np.float64],
    n_classes: int,
) -> NDArray[np.float64]:
    """``log P(c, x)`` of the A2DE average for every row (missing codes -1 summed out).

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), at least 2 features
    n_categories : ndarray of shape (n_features,)
    pair_start : ndarray of shape (n_features, n_features)
        Where the (r_i, r_j, C) table of ``log P(c, x_i, x_j)`` of the pair ``i < j``
        starts in ``pair_log``.
    pair_log : ndarray
    triple_index : ndarray of shape (n_features,) * 3
        The rank of each sorted triple ``i < j < k`` in :func:`~discotree.kernels.
        counts.triple_layout`'s order.
    layout : ndarray
        :func:`~discotree.kernels.counts.triple_layout`.
    cond_log : ndarray of shape (3, layout[-1])
        :func:`two_dependence_conditionals`.
    n_classes : int

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Notes
    -----
    O(n C d**3 / 2) lookups for complete rows; a pair with one missing super-parent
    costs r times as many, with both missing r**2 times.
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    out = np.empty((len(codes), n_classes))
    args = (
        codes,
        np.asarray(n_categories, dtype=np.int64),
        pair_start,
        pair_log,
        triple_index,
        layout,
        cond_log,
        int(n_classes),
    )

    def part(start: int, stop: int) -> None:
        _joint_rows(*args, start, stop, out)

    d = codes.shape[1]
    in_chunks(part, len(codes), len(codes) * n_classes * d**3 // 2, _MIN_WORK)
    return out
