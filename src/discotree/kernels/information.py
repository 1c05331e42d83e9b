"""Information-theoretic kernels on the block count matrix of :mod:`.counts`."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def pairwise_mutual_information(counts, offsets, out):  # pragma: no cover - numba
    """Fill ``out[c, i, j]`` with the empirical MI (nats) of features i and j in class c.

    ``counts`` has shape (n_classes, D, D) (see :func:`.counts.pairwise_counts`);
    ``out`` has shape (n_classes, n_features, n_features) and gets a symmetric matrix
    with zero diagonal. Each pair uses only its own table, that is the samples where
    both features are observed; an empty table has MI 0.
    """
    n_classes = counts.shape[0]
    n_features = offsets.shape[0] - 1
    max_r = 1
    for f in range(n_features):
        max_r = max(max_r, offsets[f + 1] - offsets[f])
    row_sum = np.empty(max_r)
    col_sum = np.empty(max_r)
    for c in range(n_classes):
        for i in range(n_features):
            out[c, i, i] = 0.0
            r0 = offsets[i]
            ri = offsets[i + 1] - r0
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
                            if v > 0.0:
                                mi += v * math.log(n * v / (row_sum[a] * col_sum[b]))
                    mi /= n
                out[c, i, j] = mi
                out[c, j, i] = mi


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
