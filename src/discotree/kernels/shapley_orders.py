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

from typing import Any, NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from .log_space import log_sum_exp

__all__ = ["incidence", "order_gains", "subset_values"]


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
            total = log_sum_exp(work, work.shape[0], -1)
            for c in range(n_classes):
                mean[c] = work[c] - total
        else:
            a, b = np.log1p(-weight), np.log(weight)
            for c in range(n_classes):
                mean[c] = _log_add_exp(mean[c] + a, other[c] + b)


@numba.njit(cache=True, nogil=True)
def _mixed_probabilities(
    scores, blank, n_members, linear_group, linear_weight, prior, acc, e
):  # pragma: no cover - numba
    # acc: the members' mean posterior mixed with the linear group's, as probabilities
    # (one exponential per group and class); False where a class's would underflow
    n_classes = scores.shape[1]
    for c in range(n_classes):
        acc[c] = 0.0
    for g in range(n_members):
        _softmax(scores[g], e)
        for c in range(n_classes):
            acc[c] += e[c] / n_members
    if linear_group >= 0 and linear_weight > 0.0:
        if blank:
            for c in range(n_classes):
                e[c] = np.exp(prior[c])
        else:
            _softmax(scores[linear_group], e)
        w = min(linear_weight, 1.0)
        for c in range(n_classes):
            acc[c] = (1.0 - w) * acc[c] + w * e[c]
    for c in range(n_classes):
        if acc[c] < 1e-280:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _softmax(x, e):  # pragma: no cover - numba
    top = x[0]
    for c in range(1, x.shape[0]):
        top = max(top, x[c])
    total = 0.0
    for c in range(x.shape[0]):
        e[c] = np.exp(x[c] - top)
        total += e[c]
    for c in range(x.shape[0]):
        e[c] /= total


@numba.njit(cache=True, nogil=True)
def _posterior(scores, group, blank, prior, out):  # pragma: no cover - numba
    # a group's log posterior (the prior for a logistic group with nothing observed)
    if blank and group >= 0:
        out[:] = prior
        return
    total = log_sum_exp(scores[group], scores.shape[1], -1)
    for c in range(scores.shape[1]):
        out[c] = scores[group, c] - total


@numba.njit(cache=True, nogil=True)
def _mixed_logs(scores, blank, n_members, linear_group, linear_weight, prior, mean, other, work):
    # pragma: no cover - numba
    # the same as _mixed_probabilities, in logarithms (pooled_log_posterior's way)
    n_classes = scores.shape[1]
    for c in range(n_classes):
        mean[c] = -np.inf
    for g in range(n_members):
        _posterior(scores, g, False, prior, other)
        for c in range(n_classes):
            mean[c] = _log_add_exp(mean[c], other[c])
    for c in range(n_classes):
        mean[c] -= np.log(n_members)
    if linear_group >= 0 and linear_weight > 0.0:
        _posterior(scores, linear_group, blank, prior, other)
        _pool(mean, other, linear_weight, False, work)


@numba.njit(cache=True, nogil=True)
def _value(scores, blank, pooling, prior, out, work):  # pragma: no cover - numba
    # out: the log-odds of every class of the pooled posterior of the groups' scores
    n_members, linear_group, pair_group = int(pooling[0]), int(pooling[1]), int(pooling[2])
    linear_weight, pair_weight, log_pool = pooling[3], pooling[4], pooling[5] > 0
    n_classes = scores.shape[1]
    mean, other, e = work[0], work[1], work[2]
    if _mixed_probabilities(scores, blank, n_members, linear_group, linear_weight, prior, mean, e):
        for c in range(n_classes):
            mean[c] = np.log(mean[c])
    else:
        _mixed_logs(scores, blank, n_members, linear_group, linear_weight, prior, mean, other, e)
    if pair_group >= 0 and pair_weight > 0.0:
        _posterior(scores, pair_group, blank, prior, other)
        _pool(mean, other, pair_weight, log_pool, e)
    # log-odds (normalising first changes nothing): mean_c less the others' logsumexp
    top = mean[0]
    for c in range(1, n_classes):
        top = max(top, mean[c])
    for c in range(n_classes):
        e[c] = np.exp(mean[c] - top)
    for c in range(n_classes):
        rest = 0.0
        for k in range(n_classes):
            if k != c:
                rest += e[k]
        if rest > 1e-280:
            out[c] = mean[c] - top - np.log(rest)
        else:
            out[c] = mean[c] - log_sum_exp(mean, mean.shape[0], c)


class _Row(NamedTuple):
    """One row's terms and pooling as the kernels read them: the incidence lists
    (:func:`incidence`), each term's size, group and offset, the tables, the groups'
    base scores, which features are observed, the pooling (as a float array: members,
    linear group, pair group, their weights, logarithmic pooling) and the prior."""

    inc_start: NDArray[np.int64]
    inc_term: NDArray[np.int64]
    inc_bit: NDArray[np.int64]
    sizes: NDArray[np.int64]
    groups: NDArray[np.int64]
    offsets: NDArray[np.int64]
    tables: NDArray[np.float64]
    base: NDArray[np.float64]
    observed: NDArray[np.int64]
    pooling: NDArray[np.float64]
    prior: NDArray[np.float64]


@numba.njit(cache=True, nogil=True, inline="always")
def _reset(row, state, scores):  # pragma: no cover - numba
    # every term at pattern 0 (nothing observed)
    scores[:] = row.base
    for t in range(row.sizes.shape[0]):
        state[t] = 0
        for c in range(scores.shape[1]):
            scores[row.groups[t], c] += row.tables[row.offsets[t], c]


@numba.njit(cache=True, nogil=True, inline="always")
def _add(j, row, state, scores):  # pragma: no cover - numba
    # feature j observed: every term that reads it moves to its new pattern
    offsets, tables = row.offsets, row.tables
    for e in range(row.inc_start[j], row.inc_start[j + 1]):
        t = row.inc_term[e]
        old = offsets[t] + state[t]
        state[t] |= 1 << row.inc_bit[e]
        new = offsets[t] + state[t]
        g = row.groups[t]
        for c in range(scores.shape[1]):
            scores[g, c] += tables[new, c] - tables[old, c]


@numba.njit(cache=True, nogil=True)
def _order_gains(orders, row, gains, ends):  # pragma: no cover - numba
    n_orders, d = orders.shape
    n_classes = row.tables.shape[1]
    state = np.zeros(row.sizes.shape[0], dtype=np.int64)
    scores = np.empty_like(row.base)
    before, after = np.empty(n_classes), np.empty(n_classes)
    work = np.empty((3, n_classes))
    for o in range(n_orders):
        _reset(row, state, scores)
        _value(scores, True, row.pooling, row.prior, before, work)
        if o == 0:
            ends[0] = before
        seen = 0
        for step in range(d):
            j = orders[o, step]
            _add(j, row, state, scores)
            seen += row.observed[j]
            _value(scores, seen == 0, row.pooling, row.prior, after, work)
            for c in range(n_classes):
                gains[o, j, c] = after[c] - before[c]
                before[c] = after[c]
        if o == 0:
            ends[1] = before


@numba.njit(cache=True, nogil=True)
def _subset_values(masks, d, row, out):  # pragma: no cover - numba
    state = np.zeros(row.sizes.shape[0], dtype=np.int64)
    scores = np.empty_like(row.base)
    work = np.empty((3, row.tables.shape[1]))
    for s in range(masks.shape[0]):
        _reset(row, state, scores)
        seen = 0
        for j in range(d):
            if (masks[s] >> j) & 1:
                _add(j, row, state, scores)
                seen += row.observed[j]
        _value(scores, seen == 0, row.pooling, row.prior, out[s], work)


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


def _row(terms: Any, pooling: Any) -> _Row:
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
    return _Row(
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
    _order_gains(orders, _row(terms, pooling), gains, ends)
    return gains, ends[0], ends[1]


def subset_values(terms: Any, pooling: Any, masks: NDArray[np.integer]) -> NDArray[np.float64]:
    """The value (log-odds of every class) of each subset, given as a bit mask of the
    features (``d <= 62``), shape (n_masks, classes)."""
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    out = np.empty((len(masks), terms.tables.shape[1]))
    d = len(terms.observed)
    _subset_values(masks, d, _row(terms, pooling), out)
    return out
