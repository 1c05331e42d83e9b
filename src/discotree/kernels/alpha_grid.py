"""Kernels that score forests for every smoothing value of a grid at once.

What ``alpha="auto"`` (:mod:`discotree.stats.alpha_selection`) runs on every cross-validation
fold: the smoothed log tables of many forests for every pseudo-count of the grid, read
straight from the block count matrices (:func:`forest_log_tables_grid`); the
log-likelihood of the held-out rows under every forest and pseudo-count
(:func:`forest_log_likelihood_grid`), with the pseudo-counts on the fastest axis so that
one table index serves them all; and the held-out errors and log-loss of every
pseudo-count from the joint scores (:func:`grid_losses`). Each has an obviously-correct
counterpart in the tests' slow references (``tests/reference.py``) or in the one-table-at-a-time
code (``smoothed_conditional``, ``forest_log_likelihood``), which the tests compare.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..missing_values import is_missing_code, is_observed_code
from .forest import incomplete_row, message_scratch


@numba.njit(cache=True, nogil=True)
def forest_log_tables_grid(
    counts, plus, minus, parents, n_categories, block_start, cpt_offset, alphas, bdeu_classes,
    epsilon, out,
):  # pragma: no cover - numba  # fmt: skip
    """Fill ``out[cpt_offset[k, j] + u * r_j + v, a] = log P_a(X_j = v | X_parent = u)``.

    Parameters
    ----------
    counts : ndarray (n_sources, D, D), float64
        Block count matrices (:class:`~discotree.stats.discrete.PairStatistics`).
    plus, minus : ndarray (n_forests,), intp
        The counts of forest k are ``counts[plus[k]] - counts[minus[k]]`` (``minus[k]
        = -1``: ``counts[plus[k]]`` alone), clipped at 0: a class, or "every class but
        one" from a row of totals.
    parents : ndarray (n_forests, n_features), intp
    n_categories : ndarray (n_features,), intp
    block_start : ndarray (n_features + 1,), intp
        First column of each feature's block in ``counts``.
    cpt_offset : ndarray (n_forests, n_features), intp
        Start of each (r_parent, r_j) table in the flat layout.
    alphas : ndarray (n_alphas,), float64
        Dirichlet pseudo-count per cell, or with ``bdeu_classes > 0`` the equivalent
        sample size, spread as ``alpha / (bdeu_classes * r_parent * r_j)`` per cell.
    epsilon : float
        Floor of the probabilities that are still zero (then renormalised).
    out : ndarray (size, n_alphas), float64

    Notes
    -----
    The arithmetic of :func:`~discotree.stats.discrete.smoothed_conditional` with
    :func:`~discotree.stats.discrete.cell_pseudo_count`, one row of one table at a time:
    ``(n(u, v) + a) / (n(u) + r_j a)``, the uniform row when that total is 0, then the
    ``epsilon`` floor. A root's counts are the diagonal of its own block.
    """
    n_forests, n_features = parents.shape
    n_alphas = alphas.shape[0]
    max_r = 1
    for f in range(n_features):
        max_r = max(max_r, n_categories[f])
    row = np.empty(max_r)
    prob = np.empty(max_r)
    for k in range(n_forests):
        sp = plus[k]
        sm = minus[k]
        for j in range(n_features):
            p = parents[k, j]
            rj = n_categories[j]
            rp = 1 if p < 0 else n_categories[p]
            oj = block_start[j]
            for u in range(rp):
                for v in range(rj):
                    r_index = oj + v if p < 0 else block_start[p] + u
                    x = counts[sp, r_index, oj + v]
                    if sm >= 0:
                        x -= counts[sm, r_index, oj + v]
                    row[v] = max(x, 0.0)
                base = cpt_offset[k, j] + u * rj
                for a in range(n_alphas):
                    cell = alphas[a]
                    if bdeu_classes > 0:
                        cell = alphas[a] / (bdeu_classes * rp * rj)
                    total = 0.0
                    for v in range(rj):
                        prob[v] = row[v] + cell
                        total += prob[v]
                    for v in range(rj):
                        prob[v] = prob[v] / total if total > 0 else 1.0 / rj
                    if epsilon > 0:
                        total = 0.0
                        for v in range(rj):
                            if prob[v] <= 0:
                                prob[v] = epsilon
                            total += prob[v]
                        for v in range(rj):
                            prob[v] /= total
                    for v in range(rj):
                        out[base + v, a] = math.log(prob[v]) if prob[v] > 0 else -np.inf


@numba.njit(cache=True, nogil=True)
def _rescale(lam, log_scale, node, r, a):  # pragma: no cover - numba
    """When the maximum of ``lam[node, :r, a]`` falls below 1e-100, divide by it and
    add its log to ``log_scale[node, a]`` (messages only shrink, so this keeps them
    far from underflow at the cost of a log now and then); False when the maximum is
    0 (underflow)."""
    top = 0.0
    for u in range(r):
        top = max(top, lam[node, u, a])
    if not top > 0:
        return False
    if top < 1e-100:
        for u in range(r):
            lam[node, u, a] /= top
        log_scale[node, a] += math.log(top)
    return True


@numba.njit(cache=True, nogil=True)
def _incomplete_row_grid(
    codes, s, k, parents, order, n_categories, log_tables, tables, cpt_offset, lam,
    log_scale, out,
):  # pragma: no cover - numba  # fmt: skip
    """``out[a] = log P_a(x_s | forest k)`` for a row with missing values, by
    sum-product in linear space (no ``exp`` per cell): only the missing nodes carry a
    message vector ``lam[j, :, a]`` (rescaled before it nears underflow, the scale in
    ``log_scale``);
    an observed node's factors go straight into the total. Returns False if a message
    underflowed to 0 (the caller then uses the log-space messages)."""
    n_features = codes.shape[1]
    n_alphas = out.shape[0]
    for a in range(n_alphas):
        out[a] = 0.0
    for j in range(n_features):
        if is_missing_code(codes[s, j]):
            for v in range(n_categories[j]):
                for a in range(n_alphas):
                    lam[j, v, a] = 1.0
            for a in range(n_alphas):
                log_scale[j, a] = 0.0
    for t in range(n_features - 1, -1, -1):
        j = order[k, t]
        pa = parents[k, j]
        rj = n_categories[j]
        base = cpt_offset[k, j]
        xj = codes[s, j]
        xp = -1 if pa < 0 else codes[s, pa]
        if pa >= 0 and is_observed_code(xp):
            base += xp * rj
        if is_observed_code(xj):
            if pa < 0 or is_observed_code(xp):  # a factor of observed values
                for a in range(n_alphas):
                    out[a] += log_tables[base + xj, a]
                continue
            for u in range(n_categories[pa]):  # vector message to a missing parent
                for a in range(n_alphas):
                    lam[pa, u, a] *= tables[base + u * rj + xj, a]
            for a in range(n_alphas):
                if not _rescale(lam, log_scale, pa, n_categories[pa], a):
                    return False
            continue
        if pa < 0 or is_observed_code(xp):  # a missing node summed against one table row
            for a in range(n_alphas):
                acc = 0.0
                for v in range(rj):
                    acc += tables[base + v, a] * lam[j, v, a]
                if not acc > 0:
                    return False
                out[a] += log_scale[j, a] + math.log(acc)
            continue
        for u in range(n_categories[pa]):  # missing node and missing parent
            for a in range(n_alphas):
                acc = 0.0
                for v in range(rj):
                    acc += tables[base + u * rj + v, a] * lam[j, v, a]
                lam[pa, u, a] *= acc
        for a in range(n_alphas):
            log_scale[pa, a] += log_scale[j, a]
            if not _rescale(lam, log_scale, pa, n_categories[pa], a):
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _sum_entries(log_tables, index, out, s, k):  # pragma: no cover - numba
    """``out[s, k, a] = sum_j log_tables[index[j], a]``, eight alphas at a time (then
    four, then one) in scalar accumulators: independent chains that the compiler keeps
    in registers (eight: two vector registers, the whole default grid in one pass)."""
    n_alphas = log_tables.shape[1]
    b = 0
    while b + 8 <= n_alphas:
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for j in range(index.shape[0]):
            i = index[j]
            s0 += log_tables[i, b]
            s1 += log_tables[i, b + 1]
            s2 += log_tables[i, b + 2]
            s3 += log_tables[i, b + 3]
            s4 += log_tables[i, b + 4]
            s5 += log_tables[i, b + 5]
            s6 += log_tables[i, b + 6]
            s7 += log_tables[i, b + 7]
        out[s, k, b] = s0
        out[s, k, b + 1] = s1
        out[s, k, b + 2] = s2
        out[s, k, b + 3] = s3
        out[s, k, b + 4] = s4
        out[s, k, b + 5] = s5
        out[s, k, b + 6] = s6
        out[s, k, b + 7] = s7
        b += 8
    while b + 4 <= n_alphas:
        s0 = s1 = s2 = s3 = 0.0
        for j in range(index.shape[0]):
            i = index[j]
            s0 += log_tables[i, b]
            s1 += log_tables[i, b + 1]
            s2 += log_tables[i, b + 2]
            s3 += log_tables[i, b + 3]
        out[s, k, b] = s0
        out[s, k, b + 1] = s1
        out[s, k, b + 2] = s2
        out[s, k, b + 3] = s3
        b += 4
    while b < n_alphas:
        s0 = 0.0
        for j in range(index.shape[0]):
            s0 += log_tables[index[j], b]
        out[s, k, b] = s0
        b += 1


@numba.njit(cache=True, nogil=True)
def forest_log_likelihood_grid(
    codes, parents, order, n_categories, log_tables, tables, cpt_offset, out
):  # pragma: no cover - numba
    """Fill ``out[s, k, a] = log P_a(x_s | forest k)``, summing out missing features.

    Parameters
    ----------
    codes : ndarray (n_samples, n_features), integer
        Category codes, ``-1`` for missing.
    parents, order : ndarray (n_forests, n_features), intp
        Parents (``-1``: root) and a topological order of every forest.
    n_categories : ndarray (n_features,), intp
    log_tables : ndarray (size, n_alphas), float64
        The log tables of :func:`forest_log_tables_grid` (flat layout ``cpt_offset``).
    tables : ndarray (size, n_alphas), float64
        ``exp(log_tables)``, read for the rows with missing values only (any array
        when every row is complete).
    cpt_offset : ndarray (n_forests, n_features), intp
    out : ndarray (n_samples, n_forests, n_alphas), float64

    Notes
    -----
    A complete row adds one table entry per feature, the index computed once for
    every alpha. A row with missing values runs sum-product (as
    :func:`~discotree.kernels.forest.forest_log_likelihood`) in linear space with
    rescaled messages, which needs no ``exp`` per cell; if a message underflows (tables
    with probabilities below about 1e-150), that row is recomputed with the log-space
    messages.
    """
    n_samples, n_features = codes.shape
    n_forests = parents.shape[0]
    n_alphas = log_tables.shape[1]
    max_r = 1
    for f in range(n_features):
        max_r = max(max_r, n_categories[f])
    lam = np.empty((n_features, max_r, n_alphas))
    log_scale = np.empty((n_features, n_alphas))
    beta, terms = message_scratch(n_categories)
    column = np.empty(log_tables.shape[0])
    index = np.empty(n_features, dtype=np.intp)
    complete = np.ones(n_samples, dtype=np.bool_)
    for s in range(n_samples):
        for f in range(n_features):
            if is_missing_code(codes[s, f]):
                complete[s] = False
                break
    for k in range(n_forests):  # forest by forest: its tables stay in cache
        for s in range(n_samples):
            if complete[s]:
                for j in range(n_features):
                    pa = parents[k, j]
                    row = 0 if pa < 0 else codes[s, pa] * n_categories[j]
                    index[j] = cpt_offset[k, j] + row + codes[s, j]
                _sum_entries(log_tables, index, out, s, k)
                continue
            if _incomplete_row_grid(
                codes, s, k, parents, order, n_categories, log_tables, tables, cpt_offset,
                lam, log_scale, out[s, k],
            ):  # fmt: skip
                continue
            for a in range(n_alphas):  # underflow: the log-space messages
                for i in range(column.shape[0]):
                    column[i] = log_tables[i, a]
                out[s, k, a] = incomplete_row(
                    codes, s, k, parents, order, n_categories, column, cpt_offset, beta, terms
                )


#: log2(e), and ln(2) split in a high part exact in 32 bits and the rest (Cody-Waite).
_LOG2E = 1.4426950408889634
_LN2_HI = 0.693147180369123816490
_LN2_LO = 1.90821492927058770002e-10
#: 1.5 * 2**52: added to a double below 2**51 in magnitude, it leaves the nearest
#: integer in the low bits of the sum.
_ROUNDING_SHIFT = 6755399441055744.0


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def exp_nonpositive(x, out, scratch):  # pragma: no cover - numba
    """``out[i] = exp(x[i])`` for ``x[i] <= 0``, and 0 where ``x[i] <= -700`` or is NaN
    (within 2 ulp of ``np.exp`` above -700), in loops without branches or calls that
    the compiler runs on vector registers: about 3x ``math.exp`` one value at a time.

    Parameters
    ----------
    x : ndarray (n,), float64
        Values at most 0 (larger ones give wrong results: the caller's gaps to a
        maximum never are).
    out, scratch : ndarray (n,), float64
        The result, and room for the powers of two.

    Notes
    -----
    ``exp(x) = 2**k exp(r)`` with ``k = round(x / ln 2)`` and ``|r| <= ln(2) / 2``;
    ``exp(r)`` by its Taylor polynomial of degree 13 (remainder below 2e-16 relative),
    ``k`` by adding ``_ROUNDING_SHIFT`` (the integer lands in the low bits), and
    ``2**k`` by writing ``k + 1023`` in the exponent field of a double.
    """
    n = x.shape[0]
    for i in range(n):
        xi = x[i]
        v = xi if xi > -700.0 else -700.0
        shifted = v * _LOG2E + _ROUNDING_SHIFT
        k = shifted - _ROUNDING_SHIFT
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        out[i] = p * r + 1.0
        scratch[i] = shifted
    bits = scratch.view(np.int64)
    for i in range(n):  # the low bits of the shifted sum hold k: 2**k
        bits[i] = (bits[i] + 1023) << 52
    for i in range(n):
        out[i] = out[i] * scratch[i] if x[i] > -700.0 else 0.0


@numba.njit(cache=True, nogil=True)
def grid_losses(joints, truth, tie_rtol, errors, losses):  # pragma: no cover - numba
    """Held-out errors and log-loss of every alpha from joint scores.

    Parameters
    ----------
    joints : ndarray (n_samples, n_classes, n_alphas), float64, C-contiguous
        ``log P(x, c)`` (or scores whose softmax is the posterior) under every alpha.
    truth : ndarray (n_samples,), intp
        The true class of each row.
    tie_rtol : float
        Scores within ``tie_rtol * max(|top|, 1)`` of a row's maximum tie, and ties go
        to the lowest class (:func:`discotree.numerics.argmax_with_ties`).
    errors, losses : ndarray (n_samples, n_alphas), float64
        Filled with 1.0 where the predicted class is wrong (else 0.0) and with
        ``-log P(truth | x)``.

    Notes
    -----
    Every loop runs along a row's (class, alpha) cells, contiguous and without
    branches, with unsigned indices (no wraparound checks), so that the compiler
    vectorises them; the exponentials of the log-sum-exp by :func:`exp_nonpositive`.
    """
    n_samples, n_classes, n_alphas = joints.shape
    n_c = np.uint64(n_classes)
    n_a = np.uint64(n_alphas)
    flat = joints.reshape(n_samples, n_classes * n_alphas)
    top = np.empty(n_alphas)
    floor = np.empty(n_alphas)
    predicted = np.empty(n_alphas, dtype=np.int64)
    total = np.empty(n_alphas)
    gaps = np.empty(n_classes * n_alphas)
    terms = np.empty_like(gaps)
    scratch = np.empty_like(gaps)
    for s in range(n_samples):
        row = flat[s]
        for a in range(n_a):
            top[a] = row[a]
        for c in range(np.uint64(1), n_c):
            for a in range(n_a):
                value = row[c * n_a + a]
                top[a] = value if value > top[a] else top[a]
        for a in range(n_a):
            magnitude = abs(top[a]) if math.isfinite(top[a]) else 0.0
            floor[a] = top[a] - tie_rtol * max(magnitude, 1.0)
            predicted[a] = 0  # (when no class reaches the floor: every score is NaN)
        for i in range(n_c):  # down from the last class: the lowest one that ties wins
            c = n_c - np.uint64(1) - i
            for a in range(n_a):
                predicted[a] = np.int64(c) if row[c * n_a + a] >= floor[a] else predicted[a]
        for c in range(n_c):
            for a in range(n_a):
                gaps[c * n_a + a] = row[c * n_a + a] - top[a]
        exp_nonpositive(gaps, terms, scratch)
        for a in range(n_a):
            total[a] = terms[a]
        for c in range(np.uint64(1), n_c):
            for a in range(n_a):
                total[a] += terms[c * n_a + a]
        true_cell = np.uint64(truth[s]) * n_a
        for a in range(n_a):
            errors[s, a] = 1.0 if predicted[a] != truth[s] else 0.0
            losses[s, a] = top[a] + math.log(total[a]) - row[true_cell + a]


@numba.njit(cache=True, nogil=True)
def composite_grid_scores(
    log_likelihood, positive, negative, log_prior, out
):  # pragma: no cover - numba
    """The multiclass scores of eq. 32 for every alpha (what
    :func:`discotree.classifiers._forest_pairs.composite_scores` computes for one).

    Parameters
    ----------
    log_likelihood : ndarray (n_samples, 2 * n_tasks, n_alphas), float64
        Binary problem t's negative side is forest 2t, its positive class 2t + 1.
    positive, negative : ndarray (n_tasks,), intp
        The classes of each problem (``negative = -1``: every other class).
    log_prior : ndarray (n_classes,), float64
    out : ndarray (n_samples, n_classes, n_alphas), float64
    """
    n_samples, _, n_alphas = log_likelihood.shape
    n_classes = out.shape[1]
    for s in range(n_samples):
        for c in range(n_classes):
            for a in range(n_alphas):
                out[s, c, a] = 0.0
        for t in range(positive.shape[0]):
            p = positive[t]
            q = negative[t]
            if q < 0:
                rest = math.log(-math.expm1(log_prior[p]))
                for a in range(n_alphas):
                    ratio = log_likelihood[s, 2 * t + 1, a] - log_likelihood[s, 2 * t, a]
                    out[s, p, a] = ratio + log_prior[p] - rest
                continue
            for a in range(n_alphas):
                ratio = log_likelihood[s, 2 * t + 1, a] - log_likelihood[s, 2 * t, a]
                f = ratio + log_prior[p] - log_prior[q]
                out[s, p, a] += f
                out[s, q, a] -= f


@numba.njit(cache=True, nogil=True)
def topological_orders(parents, out):  # pragma: no cover - numba
    """Fill ``out[k]`` with the order of
    :func:`discotree.structure.spanning.topological_order` for forest ``parents[k]``
    (breadth first from the roots by increasing index, children by increasing index);
    False if some row is not a forest."""
    n_forests, n_nodes = parents.shape
    for k in range(n_forests):
        size = 0
        for j in range(n_nodes):
            if parents[k, j] < 0:
                out[k, size] = j
                size += 1
        head = 0
        while head < size:
            u = out[k, head]
            head += 1
            for j in range(n_nodes):
                if parents[k, j] == u:
                    out[k, size] = j
                    size += 1
                    if size > n_nodes:
                        return False
        if size != n_nodes:
            return False
    return True
