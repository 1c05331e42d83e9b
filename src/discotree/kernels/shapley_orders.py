"""Values of feature subsets from tabulated score terms, one feature at a time: the
inner loops of Shapley values by model structure
(:mod:`discotree.models.score_terms`, :mod:`discotree.shapley`).

A row's terms each read a few features and add, per class, the entry of their
observed-pattern to one group's score. Adding feature ``j`` to the observed set changes
only the terms that read it (an incidence list per feature), so a whole order of the
``d`` features costs ``d`` value evaluations and one lookup per (term, feature) pair.
A value is the log-odds of every class of the pooled posterior: the members'
posteriors (groups ``0..n_members-1``) averaged as probabilities, mixed linearly with
the linear group's, then pooled with the pair group's (logarithmically or linearly);
the logistic groups give the prior when no feature is observed.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["incidence", "order_gains", "subset_values"]


@numba.njit(cache=True, nogil=True)
def _log_sum_exp(x, skip):  # pragma: no cover - numba
    # scipy's logsumexp of x without entry `skip` (-1: none): max + log sum exp
    top = -np.inf
    for c in range(x.shape[0]):
        if c != skip and x[c] > top:
            top = x[c]
    if top == -np.inf:
        return top
    total = 0.0
    for c in range(x.shape[0]):
        if c != skip:
            total += np.exp(x[c] - top)
    return top + np.log(total)


@numba.njit(cache=True, nogil=True)
def _log_add_exp(x, y):  # pragma: no cover - numba
    # numpy's logaddexp
    if x == y:
        return x + np.log(2.0)
    if x > y:
        return x + np.log1p(np.exp(y - x))
    return y + np.log1p(np.exp(x - y))


@numba.njit(cache=True, nogil=True)
def _pool(mean, other, weight, log_pool, work):  # pragma: no cover - numba
    # pooled_log_posterior(mean, other, weight, pooling), in place in mean
    n_classes = mean.shape[0]
    if weight >= 1.0:
        mean[:] = other
    elif weight > 0.0:
        if log_pool:
            for c in range(n_classes):
                work[c] = (1.0 - weight) * mean[c] + weight * other[c]
            total = _log_sum_exp(work, -1)
            for c in range(n_classes):
                mean[c] = work[c] - total
        else:
            a, b = np.log1p(-weight), np.log(weight)
            for c in range(n_classes):
                mean[c] = _log_add_exp(mean[c] + a, other[c] + b)


@numba.njit(cache=True, nogil=True)
def _member_mean(scores, n_members, mean, e):  # pragma: no cover - numba
    # log of the mean of the members' posteriors: as probabilities (one exponential per
    # member and class), in logarithms where a class's mean would underflow
    n_classes = scores.shape[1]
    for c in range(n_classes):
        mean[c] = 0.0
    for g in range(n_members):
        top = scores[g, 0]
        for c in range(1, n_classes):
            top = max(top, scores[g, c])
        total = 0.0
        for c in range(n_classes):
            e[c] = np.exp(scores[g, c] - top)
            total += e[c]
        for c in range(n_classes):
            mean[c] += e[c] / total
    small = False
    for c in range(n_classes):
        small = small or mean[c] < 1e-280
    if not small:
        for c in range(n_classes):
            mean[c] = np.log(mean[c]) - np.log(n_members)
        return
    for c in range(n_classes):
        mean[c] = -np.inf
    for g in range(n_members):
        total = _log_sum_exp(scores[g], -1)
        for c in range(n_classes):
            mean[c] = _log_add_exp(mean[c], scores[g, c] - total)
    for c in range(n_classes):
        mean[c] -= np.log(n_members)


@numba.njit(cache=True, nogil=True)
def _value(scores, blank, pooling, prior, out, work):  # pragma: no cover - numba
    # out: the log-odds of every class of the pooled posterior of the groups' scores
    n_members, linear_group, pair_group = pooling[0], pooling[1], pooling[2]
    linear_weight, pair_weight, log_pool = pooling[3], pooling[4], pooling[5] > 0
    n_classes = scores.shape[1]
    mean, other, posterior = work[0], work[1], work[2]
    _member_mean(scores, int(n_members), mean, work[3])
    for group, weight in ((linear_group, linear_weight), (pair_group, pair_weight)):
        if group < 0 or weight <= 0.0:
            continue
        if blank:
            other[:] = prior
        else:
            total = _log_sum_exp(scores[int(group)], -1)
            for c in range(n_classes):
                other[c] = scores[int(group), c] - total
        _pool(mean, other, weight, log_pool and group == pair_group, work[3])
    total = _log_sum_exp(mean, -1)  # (the estimator's normalisation)
    for c in range(n_classes):
        posterior[c] = mean[c] - total
    for c in range(n_classes):
        out[c] = posterior[c] - _log_sum_exp(posterior, c)


@numba.njit(cache=True, nogil=True)
def _reset(sizes, groups, offsets, tables, base, state, scores):  # pragma: no cover - numba
    # every term at pattern 0 (nothing observed)
    scores[:] = base
    for t in range(sizes.shape[0]):
        state[t] = 0
        for c in range(scores.shape[1]):
            scores[groups[t], c] += tables[offsets[t], c]


@numba.njit(cache=True, nogil=True)
def _add(j, inc_start, inc_term, inc_bit, groups, offsets, tables, state, scores):
    # pragma: no cover - numba
    for e in range(inc_start[j], inc_start[j + 1]):
        t = inc_term[e]
        old = offsets[t] + state[t]
        state[t] |= 1 << inc_bit[e]
        new = offsets[t] + state[t]
        g = groups[t]
        for c in range(scores.shape[1]):
            scores[g, c] += tables[new, c] - tables[old, c]


@numba.njit(cache=True, nogil=True)
def _order_gains(
    orders,
    inc_start,
    inc_term,
    inc_bit,
    sizes,
    groups,
    offsets,
    tables,
    base,
    observed,
    pooling,
    prior,
    gains,
    ends,
):  # pragma: no cover - numba
    n_orders, d = orders.shape
    n_classes = tables.shape[1]
    state = np.zeros(sizes.shape[0], dtype=np.int64)
    scores = np.empty_like(base)
    before, after = np.empty(n_classes), np.empty(n_classes)
    work = np.empty((4, n_classes))
    for o in range(n_orders):
        _reset(sizes, groups, offsets, tables, base, state, scores)
        _value(scores, True, pooling, prior, before, work)
        if o == 0:
            ends[0] = before
        seen = 0
        for step in range(d):
            j = orders[o, step]
            _add(j, inc_start, inc_term, inc_bit, groups, offsets, tables, state, scores)
            seen += observed[j]
            _value(scores, seen == 0, pooling, prior, after, work)
            for c in range(n_classes):
                gains[o, j, c] = after[c] - before[c]
                before[c] = after[c]
        if o == 0:
            ends[1] = before


@numba.njit(cache=True, nogil=True)
def _subset_values(
    masks,
    d,
    inc_start,
    inc_term,
    inc_bit,
    sizes,
    groups,
    offsets,
    tables,
    base,
    observed,
    pooling,
    prior,
    out,
):  # pragma: no cover - numba
    n_classes = tables.shape[1]
    state = np.zeros(sizes.shape[0], dtype=np.int64)
    scores = np.empty_like(base)
    work = np.empty((4, n_classes))
    for s in range(masks.shape[0]):
        _reset(sizes, groups, offsets, tables, base, state, scores)
        seen = 0
        for j in range(d):
            if (masks[s] >> j) & 1:
                _add(j, inc_start, inc_term, inc_bit, groups, offsets, tables, state, scores)
                seen += observed[j]
        _value(scores, seen == 0, pooling, prior, out[s], work)


def incidence(
    features: NDArray[np.int64], sizes: NDArray[np.int64], n_features: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Per feature, the terms that read it and at which bit, as CSR arrays ``(start,
    term, bit)``: feature ``j``'s are ``term[start[j]:start[j + 1]]``.

    Examples
    --------
    >>> start, term, bit = incidence(np.array([[0, 1], [1, -1]]), np.array([2, 1]), 3)
    >>> start.tolist(), term.tolist(), bit.tolist()
    ([0, 1, 3, 3], [0, 0, 1], [0, 1, 0])
    """
    bits = np.arange(features.shape[1])
    used = bits[None, :] < sizes[:, None]
    term = np.broadcast_to(np.arange(len(features))[:, None], features.shape)[used]
    bit = np.broadcast_to(bits[None, :], features.shape)[used]
    feature = features[used]
    order = np.argsort(feature, kind="stable")
    start = np.searchsorted(feature[order], np.arange(n_features + 1)).astype(np.int64)
    return start, term[order].astype(np.int64), bit[order].astype(np.int64)


def _arguments(terms: Any, pooling: Any) -> tuple[Any, ...]:
    start, term, bit = incidence(terms.features, terms.sizes, len(terms.observed))
    flags = np.array(
        [
            pooling.n_members,
            pooling.linear_group,
            pooling.pair_group,
            pooling.linear_weight,
            pooling.pair_weight,
            float(pooling.log_pool),
        ],
        dtype=np.float64,
    )
    return (
        start,
        term,
        bit,
        terms.sizes,
        terms.groups,
        terms.offsets,
        np.ascontiguousarray(terms.tables, dtype=np.float64),
        np.ascontiguousarray(terms.base, dtype=np.float64),
        terms.observed.astype(np.int64),
        flags,
        np.ascontiguousarray(pooling.prior, dtype=np.float64),
    )


def order_gains(
    terms: Any, pooling: Any, orders: NDArray[np.integer]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Each feature's gain of value in each order (orders x features x classes), and
    the values of no feature and of every feature.

    Parameters
    ----------
    terms : RowTerms
        One row's terms (:func:`discotree.models.score_terms.score_terms`).
    pooling : ScorePooling
    orders : ndarray of shape (n_orders, n_features)
        Permutations of the features.
    """
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    n_classes = terms.tables.shape[1]
    gains = np.empty((orders.shape[0], orders.shape[1], n_classes))
    ends = np.empty((2, n_classes))
    start, term, bit, sizes, groups, offsets, tables, base, observed, flags, prior = _arguments(
        terms, pooling
    )
    _order_gains(
        orders,
        start,
        term,
        bit,
        sizes,
        groups,
        offsets,
        tables,
        base,
        observed,
        flags,
        prior,
        gains,
        ends,
    )
    return gains, ends[0], ends[1]


def subset_values(terms: Any, pooling: Any, masks: NDArray[np.integer]) -> NDArray[np.float64]:
    """The value (log-odds of every class) of each subset, given as a bit mask of the
    features (``d <= 62``), shape (n_masks, classes)."""
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    out = np.empty((len(masks), terms.tables.shape[1]))
    d = len(terms.observed)
    start, term, bit, sizes, groups, offsets, tables, base, observed, flags, prior = _arguments(
        terms, pooling
    )
    _subset_values(
        masks,
        d,
        start,
        term,
        bit,
        sizes,
        groups,
        offsets,
        tables,
        base,
        observed,
        flags,
        prior,
        out,
    )
    return out
