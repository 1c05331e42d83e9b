"""Weighted counting kernels: the one counting code path of discotree.

Every statistic the library uses (univariate and pairwise count tables, per class)
comes from the functions in this module. Codes are ``intp`` category indices in
``0..r_i-1`` with ``-1`` for a missing value; a missing value contributes nothing to
any table that involves its feature, so each table counts exactly the samples where
its variables are observed.

The pairwise tables of all pairs are computed at once as the Gram matrix of the
one-hot encoded data, ``Z_c^T Z_c`` for the rows ``Z_c`` of each class, in row chunks
so that the extra memory is one chunk of the one-hot matrix. Unweighted counts use a
float32 product, which is exact for chunks of fewer than 2**24 rows; weighted counts
use ``(sqrt(w) Z)^T (sqrt(w) Z)`` in float64. Both are symmetric rank-k updates that
BLAS performs at near peak speed.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["fill_one_hot", "pairwise_counts", "pairwise_moments", "univariate_counts"]

#: Largest number of rows of the one-hot matrix held in memory at once (float32 sums
#: of at most this many ones are exact).
_MAX_CHUNK_ROWS = 1 << 16
#: Target size in bytes of one chunk of the one-hot matrix.
_CHUNK_BYTES = 128 << 20


@numba.njit(cache=True, nogil=True)
def fill_one_hot(codes, rows, offsets, row_scale, out):  # pragma: no cover - numba
    """Write the (scaled) one-hot encoding of ``codes[rows]`` into ``out``.

    Row ``k`` of ``out`` gets ``row_scale[rows[k]]`` at ``offsets[f] + codes[rows[k], f]``
    for every observed entry and 0 elsewhere.
    """
    n_features = codes.shape[1]
    for k in range(rows.shape[0]):
        r = rows[k]
        s = row_scale[r]
        out[k, :] = 0
        for f in range(n_features):
            v = codes[r, f]
            if v >= 0:
                out[k, offsets[f] + v] = s


@numba.njit(cache=True, nogil=True)
def _univariate_counts_kernel(codes, class_index, weights, offsets, out):  # pragma: no cover
    n_rows, n_features = codes.shape
    for r in range(n_rows):
        c = class_index[r]
        w = weights[r]
        for f in range(n_features):
            v = codes[r, f]
            if v >= 0:
                out[c, offsets[f] + v] += w


def _offsets(n_categories: NDArray[np.intp]) -> NDArray[np.intp]:
    offsets = np.zeros(len(n_categories) + 1, dtype=np.intp)
    np.cumsum(n_categories, out=offsets[1:])
    return offsets


def univariate_counts(
    codes: NDArray[np.intp],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_categories: NDArray[np.intp],
    n_classes: int,
) -> NDArray[np.float64]:
    """Weighted counts of every category of every feature, per class.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), intp
        Category codes, ``-1`` for missing.
    class_index : ndarray of shape (n_samples,), intp
        Class of each sample in ``0..n_classes-1``.
    weights : ndarray of shape (n_samples,), float64
        Non-negative sample weights.
    n_categories : ndarray of shape (n_features,), intp
        Number of categories of each feature.
    n_classes : int
        Number of classes.

    Returns
    -------
    counts : ndarray of shape (n_classes, sum(n_categories)), float64
        ``counts[c, offsets[f] + v]`` is the weight of the class-``c`` samples with
        feature ``f`` equal to ``v``; ``offsets`` are the cumulative sums of
        ``n_categories`` starting at 0.

    Notes
    -----
    One pass over the data, O(n_samples * n_features).
    """
    offsets = _offsets(n_categories)
    out = np.zeros((n_classes, offsets[-1]), dtype=np.float64)
    _univariate_counts_kernel(codes, class_index, weights, offsets, out)
    return out


def _chunk_rows(n_columns: int, itemsize: int) -> int:
    rows = _CHUNK_BYTES // max(1, n_columns * itemsize)
    return int(min(_MAX_CHUNK_ROWS, max(256, rows)))


def pairwise_counts(
    codes: NDArray[np.intp],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
    n_categories: NDArray[np.intp],
    n_classes: int,
) -> NDArray[np.float64]:
    """Weighted pairwise count tables of all feature pairs, per class, in one pass.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), signed integers
        Category codes, ``-1`` for missing (int8 codes read 8x less memory than intp).
    class_index : ndarray of shape (n_samples,), intp
        Class of each sample in ``0..n_classes-1``.
    weights : ndarray of shape (n_samples,) or None
        Non-negative sample weights; ``None`` counts every sample once, exactly.
    n_categories : ndarray of shape (n_features,), intp
        Number of categories of each feature.
    n_classes : int
        Number of classes.

    Returns
    -------
    counts : ndarray of shape (n_classes, D, D), float64
        With ``D = sum(n_categories)`` and ``offsets`` the cumulative category counts,
        the block ``counts[c, offsets[i]:offsets[i+1], offsets[j]:offsets[j+1]]`` is the
        weighted table of ``(X_i, X_j)`` over the class-``c`` samples where both are
        observed. Diagonal blocks are diagonal matrices holding the univariate counts.

    Notes
    -----
    Cost: one symmetric rank-k update per chunk, ``n_samples * D**2`` multiply-adds in
    all (BLAS ``syrk``). Extra memory: one chunk of the one-hot matrix (about 128 MB) and
    the output, ``8 * n_classes * D**2`` bytes. Unweighted counts are exact integers.
    """
    codes = np.ascontiguousarray(codes)
    offsets = _offsets(n_categories)
    n_columns = int(offsets[-1])
    out = np.zeros((n_classes, n_columns, n_columns), dtype=np.float64)
    dtype = np.float32 if weights is None else np.float64
    if weights is None:
        scale = np.ones(len(class_index), dtype=np.float32)
    else:
        scale = np.sqrt(weights).astype(np.float64)
    order = np.argsort(class_index, kind="stable")
    bounds = np.searchsorted(class_index[order], np.arange(n_classes + 1))
    chunk = _chunk_rows(n_columns, np.dtype(dtype).itemsize)
    buffer = np.empty((chunk, n_columns), dtype=dtype)
    for c in range(n_classes):
        rows_c = order[bounds[c] : bounds[c + 1]]
        for start in range(0, len(rows_c), chunk):
            rows = rows_c[start : start + chunk]
            block = buffer[: len(rows)]
            fill_one_hot(codes, rows, offsets, scale, block)
            out[c] += block.T @ block
    return out


def pairwise_moments(
    values: NDArray[np.float64],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
    n_classes: int,
) -> tuple[NDArray[np.float64], ...]:
    """Weighted pairwise-complete moments of continuous data, per class.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features), float64
        Data with NaN for missing values.
    class_index : ndarray of shape (n_samples,), intp
    weights : ndarray of shape (n_samples,) or None
    n_classes : int

    Returns
    -------
    weight, sum_x, sum_xx, sum_xy : ndarrays of shape (n_classes, n_features, n_features)
        Over the class-``c`` samples where features i and j are both observed: the
        total weight, the weighted sums of ``x_i``, of ``x_i**2`` and of ``x_i * x_j``
        (``sum_x[c, i, j]`` is the sum of ``x_i``, not ``x_j``).

    Notes
    -----
    Four matrix products per chunk of rows: ``n_samples * n_features**2`` multiply-adds
    each, with extra memory of a few chunk-sized arrays.
    """
    n_samples, n_features = values.shape
    shape = (n_classes, n_features, n_features)
    weight, sum_x, sum_xx, sum_xy = (np.zeros(shape) for _ in range(4))
    w_all = np.ones(n_samples) if weights is None else np.asarray(weights, dtype=np.float64)
    chunk = _chunk_rows(4 * n_features, 8)
    for c in range(n_classes):
        rows_c = np.flatnonzero(class_index == c)
        for start in range(0, len(rows_c), chunk):
            rows = rows_c[start : start + chunk]
            block = values[rows]
            observed = ~np.isnan(block)
            x0 = np.where(observed, block, 0.0)
            m = observed.astype(np.float64)
            w = w_all[rows, None]
            weight[c] += (w * m).T @ m
            sum_x[c] += (w * x0).T @ m
            sum_xx[c] += (w * x0 * x0).T @ m
            sum_xy[c] += (w * x0).T @ x0
    return weight, sum_x, sum_xx, sum_xy
