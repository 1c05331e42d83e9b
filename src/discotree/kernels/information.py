"""Information-theoretic kernels on the block count matrix of :mod:`.counts`."""

from __future__ import annotations

import functools
import math
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

#: Cells of the pair tables (classes x pairs x the largest table, padded) up to which
#: :func:`pairwise_mutual_information` runs as numpy instead of compiling its kernel
#: (issue #48: a first fit on small data compiles less).
_NUMPY_CELLS = 1_000


def pairwise_mutual_information(
    counts: NDArray[np.float64],
    offsets: NDArray[np.intp],
    out: NDArray[np.float64],
    totals: NDArray[np.float64],
) -> None:
    """Fill ``out[c, i, j]`` with the empirical MI (nats) of features i and j in class c,
    and ``totals[c, i, j]`` with the total weight of their table (what
    :func:`pairwise_table_totals` computes, read in the same pass).

    ``counts`` has shape (n_classes, D, D) (see :func:`.counts.pairwise_counts`);
    ``out`` and ``totals`` have shape (n_classes, n_features, n_features); ``out`` gets
    a symmetric matrix with zero diagonal. Each pair uses only its own table, that is
    the samples where both features are observed; an empty table has MI 0.

    A compiled pass; on small tables numpy, every pair at once, with the same sums in
    the same order (running sums, ``cumsum``) and the C library's ``log``: the same
    values to the bit.
    """
    n_features = len(offsets) - 1
    widest = int(np.diff(offsets).max(initial=1))
    n_pairs = n_features * (n_features - 1) // 2
    if counts.shape[0] * max(n_pairs, n_features) * widest * widest > _NUMPY_CELLS:
        row_sum, col_sum = np.empty(widest), np.empty(widest)  # (scratch)
        _pairwise_mutual_information(counts, offsets, out, totals, row_sum, col_sum)
        return
    cells, inside, diagonal, first, second, mask = _pair_layout(
        np.asarray(offsets, dtype=np.intp).tobytes()
    )
    own = np.where(inside, counts[:, cells, cells], 0.0)  # (class, feature, category)
    out.fill(0.0)
    totals[:, diagonal, diagonal] = _running_sum(own, 2)
    if not n_pairs:
        return
    rows, columns = cells[first][:, :, None], cells[second][:, None, :]
    pairs = np.where(mask, counts[:, rows, columns], 0.0)  # (class, pair, a, b)
    row_sum = _running_sum(pairs, 3)
    col_sum = _running_sum(pairs, 2)
    n = _running_sum(row_sum, 2)
    positive = pairs > 0.0
    c, k, a, b = np.nonzero(positive)
    v = pairs[positive]
    ratio = (v / row_sum[c, k, a]) * (n[c, k] / col_sum[c, k, b])
    terms = np.zeros(pairs.shape)
    terms[positive] = v * np.array([math.log(x) for x in ratio.tolist()])
    mi = _running_sum(terms.reshape(*n.shape, -1), 2)
    mi = np.divide(mi, n, out=np.zeros(n.shape), where=n > 0.0)
    out[:, first, second] = out[:, second, first] = mi
    totals[:, first, second] = totals[:, second, first] = n


@functools.lru_cache(maxsize=64)
def _pair_layout(offsets_bytes: bytes) -> tuple[NDArray[Any], ...]:
    """Index arrays of the numpy path for the layout ``offsets`` (as bytes): every
    feature's cells padded to the widest feature (indices clipped, ``inside`` masks
    them), the diagonal, the pairs ``first < second`` and their cells' mask."""
    offsets = np.frombuffer(offsets_bytes, dtype=np.intp)
    sizes = np.diff(offsets)
    steps = np.arange(int(sizes.max(initial=1)))
    cells = np.minimum(offsets[:-1, None] + steps, max(int(offsets[-1]) - 1, 0))
    inside = steps < sizes[:, None]
    first, second = np.triu_indices(len(sizes), 1)
    mask = inside[first][:, :, None] & inside[second][:, None, :]
    layout = (cells, inside, np.arange(len(sizes)), first, second, mask)
    for array in layout:  # (shared by every call: read only)
        array.setflags(write=False)
    return layout


def _running_sum(values: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    """The sum along ``axis`` added in order from 0.0, as a loop does (``cumsum``
    adds in sequence; ``sum`` pairs the terms, which can round differently)."""
    if values.shape[axis] == 0:
        return np.zeros(np.delete(values.shape, axis))
    return np.add(np.cumsum(values, axis=axis).take(-1, axis=axis), 0.0)


@numba.njit(cache=True, nogil=True)
def _pairwise_mutual_information(
    counts, offsets, out, totals, row_sum, col_sum
):  # pragma: no cover - numba
    """:func:`pairwise_mutual_information`'s compiled pass (``row_sum`` and ``col_sum``:
    scratch as long as the most categories of a feature)."""
    n_classes = counts.shape[0]
    n_features = offsets.shape[0] - 1
    for c in range(n_classes):
        for i in range(n_features):
            out[c, i, i] = 0.0
            r0 = offsets[i]
            ri = offsets[i + 1] - r0
            own = 0.0
            for a in range(ri):
                own += counts[c, r0 + a, r0 + a]
            totals[c, i, i] = own
            for j in range(i + 1, n_features):
                c0 = offsets[j]
                rj = offsets[j + 1] - c0
                for b in range(rj):
                    col_sum[b] = 0.0
                n = 0.0
                for a in range(ri):
                    s = 0.0
                    for b in range(rj):
                        v = counts[c, r0 + a, c0 + b]
                        s += v
                        col_sum[b] += v
                    row_sum[a] = s
                    n += s
                mi = 0.0
                if n > 0.0:
                    for a in range(ri):
                        for b in range(rj):
                            v = counts[c, r0 + a, c0 + b]
                            if v > 0.0:  # ratios first: no overflow or underflow
                                mi += v * math.log((v / row_sum[a]) * (n / col_sum[b]))
                    mi /= n
                out[c, i, j] = mi
                out[c, j, i] = mi
                totals[c, i, j] = n
                totals[c, j, i] = n


@numba.njit(cache=True, nogil=True)
def pairwise_table_totals(counts, offsets, out):  # pragma: no cover - numba
    """Fill ``out[c, i, j]`` with the total weight of the (i, j) table of class c."""
    n_classes = counts.shape[0]
    n_features = offsets.shape[0] - 1
    for c in range(n_classes):
        for i in range(n_features):
            for j in range(i, n_features):
                s = 0.0
                for a in range(offsets[i], offsets[i + 1]):
                    for b in range(offsets[j], offsets[j + 1]):
                        s += counts[c, a, b]
                out[c, i, j] = s
                out[c, j, i] = s


@numba.njit(cache=True, nogil=True)
def pairwise_discriminative_weights(
    counts, offsets, positive, negative, alpha, out_pos, out_neg
):  # pragma: no cover - numba
    """Fill ``out_pos[i, j]`` = psi(+) and ``out_neg[i, j]`` = psi(-) of Tan et al. 2010, eq. 21
    for every pair, from the tables of two classes.

    With p the smoothed pairwise distribution of class ``positive`` and q that of class
    ``negative`` (``(n_ab + alpha) / (n + r_i r_j alpha)`` on each pair's own table, so
    every cell is positive when alpha > 0), and f = log p_ij / (p_i p_j) with the
    marginals of p_ij: ``psi(+) = sum_ab (p_ij - q_ij) f``; psi(-) swaps p and q. An
    empty table gives the uniform distribution.
    """
    n_features = offsets.shape[0] - 1
    max_r = 1
    for f in range(n_features):
        max_r = max(max_r, offsets[f + 1] - offsets[f])
    p = np.empty((max_r, max_r))
    q = np.empty((max_r, max_r))
    p_row = np.empty(max_r)
    p_col = np.empty(max_r)
    q_row = np.empty(max_r)
    q_col = np.empty(max_r)
    for i in range(n_features):
        out_pos[i, i] = 0.0
        out_neg[i, i] = 0.0
        r0 = offsets[i]
        ri = offsets[i + 1] - r0
        for j in range(i + 1, n_features):
            c0 = offsets[j]
            rj = offsets[j + 1] - c0
            n_p = 0.0
            n_q = 0.0
            for a in range(ri):
                for b in range(rj):
                    p[a, b] = counts[positive, r0 + a, c0 + b] + alpha
                    q[a, b] = counts[negative, r0 + a, c0 + b] + alpha
                    n_p += p[a, b]
                    n_q += q[a, b]
            for a in range(ri):
                p_row[a] = 0.0
                q_row[a] = 0.0
            for b in range(rj):
                p_col[b] = 0.0
                q_col[b] = 0.0
            for a in range(ri):
                for b in range(rj):
                    p[a, b] = p[a, b] / n_p if n_p > 0 else 1.0 / (ri * rj)
                    q[a, b] = q[a, b] / n_q if n_q > 0 else 1.0 / (ri * rj)
                    p_row[a] += p[a, b]
                    p_col[b] += p[a, b]
                    q_row[a] += q[a, b]
                    q_col[b] += q[a, b]
            psi_pos = 0.0
            psi_neg = 0.0
            for a in range(ri):
                for b in range(rj):
                    diff = p[a, b] - q[a, b]
                    if diff != 0.0:  # ratios first: no underflow of the products
                        psi_pos += diff * math.log((p[a, b] / p_row[a]) / p_col[b])
                        psi_neg -= diff * math.log((q[a, b] / q_row[a]) / q_col[b])
            out_pos[i, j] = psi_pos
            out_pos[j, i] = psi_pos
            out_neg[i, j] = psi_neg
            out_neg[j, i] = psi_neg
