"""Weighted counting kernels: the one counting code path of discotree.

Every statistic the library uses (univariate and pairwise count tables, per class)
comes from the functions in this module. Codes are signed integer category indices
in ``0..r_i-1`` with ``-1`` for a missing value; a missing value contributes nothing
to any table that involves its feature, so each table counts exactly the samples
where its variables are observed.

The pairwise tables of all pairs are computed at once from the Gram matrix of a
reduced one-hot encoding, ``Z_c^T Z_c`` for the rows ``Z_c`` of each class, in row
chunks so that the extra memory is one chunk of that matrix. Unweighted counts use a
float32 product, which is exact for chunks of fewer than 2**24 rows; weighted counts
use ``(sqrt(w) Z)^T (sqrt(w) Z)`` in float64. Both are symmetric rank-k updates that
BLAS performs at near peak speed.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..missing_values import is_missing_code, is_observed_code
from ..numerics import ZERO_TOL
from ..threads import available_cores, in_chunks, single_threaded_blas
from .encode import count_negatives

__all__ = [
    "DENSE_IDS",
    "DENSE_IDS_PER_ROW",
    "class_configuration_counts",
    "class_totals",
    "configuration_ids",
    "configuration_masses",
    "fill_reduced_one_hot",
    "pairwise_counts",
    "pairwise_counts_bytes",
    "pairwise_moments",
    "present_configurations",
    "reconstruct_tables",
    "sparse_family_counts",
    "triple_counts",
    "triple_layout",
    "univariate_counts",
]

#: Largest number of cells (parent configurations x classes x values) whose mixed-radix
#: ids fit a signed 64-bit integer with room to spare.
MAX_FAMILY_CELLS = 1 << 62

#: Largest number of rows of the one-hot matrix held in memory at once (float32 sums
#: of at most this many ones are exact).
_MAX_CHUNK_ROWS = 1 << 16
#: Target size in bytes of one chunk of the one-hot matrix (all threads together):
#: small enough to stay in cache between the filling and BLAS and to be reused by the
#: allocator (a fresh 100 MB buffer costs page faults on every call)...
_CHUNK_BYTES = 16 << 20
#: ...but at least as many rows as columns (up to this size), so that each chunk's
#: multiply-adds outweigh writing its ``width**2`` Gram matrix.
_MAX_CHUNK_BYTES = 128 << 20
#: Multiply-adds (rows x width**2) below which a class's Gram matrix is one thread's.
_THREAD_WORK = 200_000_000
#: Widest reduced one-hot matrix counted on several threads (each keeps its own Gram
#: matrix of ``8 * width**2`` bytes; wider ones leave the threads to BLAS).
_THREAD_MAX_WIDTH = 2048
#: Cells (rows x features) up to which :func:`fill_reduced_one_hot` runs as numpy
#: (about as fast on so few; issue #48: a first fit on small data compiles less)...
_NUMPY_CELLS = 2_000
#: ...and the widest pair tables (``sum(n_categories)`` columns) expanded from an integer Gram
#: matrix by two products with numpy (:func:`_expansion`) instead of compiling
#: :func:`reconstruct_tables` (issue #48: a first fit on small data compiles less).
_NUMPY_TABLE_COLUMNS = 64


def fill_reduced_one_hot(
    codes: NDArray[np.integer],
    rows: NDArray[np.intp],
    n_categories: NDArray[np.intp],
    indicator_start: NDArray[np.intp],
    observed_column: NDArray[np.intp],
    has_missing: NDArray[np.bool_],
    ones_column: int,
    row_scale: NDArray[np.floating],
    out: NDArray[np.floating],
) -> None:
    """Row k of ``out``: the reduced one-hot encoding of ``codes[rows[k]]`` times
    ``row_scale[rows[k]]`` (indicators of categories 0..r-2, observed flags of the
    features with missing values, a constant column). A compiled pass; numpy's
    indexed writes of the same values on small data."""
    if len(rows) * codes.shape[1] > _NUMPY_CELLS:
        _fill_reduced_one_hot(
            codes, rows, n_categories, indicator_start, observed_column, has_missing,
            ones_column, row_scale, out,
        )  # fmt: skip
        return
    block, scale = codes[rows], row_scale[rows]
    out[: len(rows)] = 0
    k, f = np.nonzero((block >= 0) & (block < n_categories - 1))
    out[k, indicator_start[f] + block[k, f]] = scale[k]
    k, f = np.nonzero((block >= 0) & has_missing)
    out[k, observed_column[f]] = scale[k]
    out[: len(rows), ones_column] = scale


@numba.njit(cache=True, nogil=True)
def _fill_reduced_one_hot(
    codes,
    rows,
    n_categories,
    indicator_start,
    observed_column,
    has_missing,
    ones_column,
    row_scale,
    out,
):  # pragma: no cover - numba
    """:func:`fill_reduced_one_hot`'s compiled pass."""
    n_features = codes.shape[1]
    for k in range(rows.shape[0]):
        r = rows[k]
        s = row_scale[r]
        out[k, :] = 0
        for f in range(n_features):
            v = codes[r, f]
            if is_observed_code(v):
                if v < n_categories[f] - 1:
                    out[k, indicator_start[f] + v] = s
                if has_missing[f]:
                    out[k, observed_column[f]] = s
        out[k, ones_column] = s


@numba.njit(cache=True, nogil=True)
def reconstruct_tables(
    gram, n_categories, offsets, indicator_start, observed_column, out
):  # pragma: no cover - numba
    """Expand the Gram matrix of the reduced one-hot data into every pair table.

    With I_a the indicator of category a < r-1 and O the observed flag of a feature,
    ``N(a, b) = <I_a, I_b>``, ``N(a, last) = <I_a, O_j> - sum_b N(a, b)``, the same by
    symmetry for the last row, and ``N(last, last) = <O_i, O_j>`` minus every other
    cell. ``out`` has the full one-hot layout (see :func:`pairwise_counts`). Blocks
    (i, j) with i <= j are computed and mirrored, so ``out`` is exactly symmetric.
    """
    n_features = n_categories.shape[0]
    for i in range(n_features):
        ri = n_categories[i]
        si = indicator_start[i]
        oi = observed_column[i]
        for j in range(i, n_features):
            rj = n_categories[j]
            sj = indicator_start[j]
            oj = observed_column[j]
            r0 = offsets[i]
            c0 = offsets[j]
            total = gram[oi, oj]
            rest = 0.0
            for a in range(ri - 1):
                row = 0.0
                for b in range(rj - 1):
                    v = gram[si + a, sj + b]
                    out[r0 + a, c0 + b] = v
                    row += v
                last = gram[si + a, oj] - row
                out[r0 + a, c0 + rj - 1] = last
                rest += row + last
            for b in range(rj - 1):
                column = 0.0
                for a in range(ri - 1):
                    column += gram[si + a, sj + b]
                last = gram[oi, sj + b] - column
                out[r0 + ri - 1, c0 + b] = last
                rest += last
            out[r0 + ri - 1, c0 + rj - 1] = total - rest
            if j != i:
                for a in range(ri):
                    for b in range(rj):
                        out[c0 + b, r0 + a] = out[r0 + a, c0 + b]


def _expansion(
    n_categories: NDArray[np.intp],
    offsets: NDArray[np.intp],
    indicator_start: NDArray[np.intp],
    observed_column: NDArray[np.intp],
    n_reduced: int,
) -> NDArray[np.float64]:
    """The ``(n_reduced, D)`` matrix ``E`` with ``E.T @ gram @ E`` the pair tables that
    :func:`reconstruct_tables` computes: the column of category a < r-1 of a feature
    is its indicator, that of its last category the observed flag minus every
    indicator. On a Gram matrix of integers (unweighted counts) every product and sum
    is an exact integer, so the tables are equal to the bit (and exactly symmetric)."""
    expand = np.zeros((n_reduced, int(offsets[-1])))
    for f, r in enumerate(n_categories):
        inner = np.arange(r - 1)
        expand[indicator_start[f] + inner, offsets[f] + inner] = 1.0
        expand[indicator_start[f] + inner, offsets[f] + r - 1] = -1.0
        expand[observed_column[f], offsets[f] + r - 1] = 1.0
    return expand


@numba.njit(cache=True, nogil=True)
def _univariate_counts_kernel(codes, class_index, weights, offsets, out):  # pragma: no cover
    n_rows, n_features = codes.shape
    for r in range(n_rows):
        c = class_index[r]
        w = weights[r]
        for f in range(n_features):
            v = codes[r, f]
            if is_observed_code(v):
                out[c, offsets[f] + v] += w


def _offsets(n_categories: NDArray[np.intp]) -> NDArray[np.intp]:
    offsets = np.zeros(len(n_categories) + 1, dtype=np.intp)
    np.cumsum(n_categories, out=offsets[1:])
    return offsets


def class_totals(
    class_index: NDArray[np.integer], weights: NDArray[np.floating] | None, n_classes: int
) -> NDArray[np.float64]:
    """The weight of each class (the count with ``weights=None``): the class totals of
    every fit, fold and engine.

    Examples
    --------
    >>> class_totals(np.array([0, 2, 2]), np.array([1.0, 0.5, 2.0]), 3)
    array([1. , 0. , 2.5])
    """
    return np.bincount(class_index, weights, n_classes).astype(np.float64, copy=False)


def configuration_masses(
    ids: NDArray[np.integer], weights: NDArray[np.floating] | None, size: int | None = None
) -> NDArray[np.float64]:
    """The weight of each configuration of a set of variables, given as integer ids
    (sparse histograms of the configurations present, Pernkopf & Bilmes 2010, Section
    5.1): ``size`` cells when given; else dense when the ids are small (below 4 times
    their number), else one cell per distinct id present, in increasing order.

    Examples
    --------
    >>> configuration_masses(np.array([0, 2, 2]), np.array([1.0, 0.5, 2.0]))
    array([1. , 0. , 2.5])
    >>> configuration_masses(np.array([7, 10**9]), None)
    array([1., 1.])
    """
    ids = np.asarray(ids)
    if size is not None:
        return np.bincount(ids, weights, size).astype(np.float64, copy=False)
    if len(ids) == 0:
        return np.zeros(0)
    if int(ids.max()) < 4 * len(ids):
        return np.bincount(ids, weights).astype(np.float64, copy=False)
    inverse = np.unique(ids, return_inverse=True)[1].reshape(-1)
    return np.bincount(inverse, weights).astype(np.float64, copy=False)


#: :func:`present_configurations` counts densely (a bin per possible id, no sort) when
#: the ids lie below this, or below this many times the number of rows.
DENSE_IDS = 1 << 16
#: See :data:`DENSE_IDS`.
DENSE_IDS_PER_ROW = 4


def present_configurations(
    ids: NDArray[np.integer], weights: NDArray[np.floating] | None, size: int | None = None
) -> tuple[NDArray[np.integer], NDArray[np.float64]]:
    """The distinct configuration ids present (sorted) and the weight of each.

    Given ``size`` (every id below it) and few enough possible ids
    (:data:`DENSE_IDS`), counted in a bin per id instead of by sorting: the same cells
    (those with a row, even of weight 0) and the same sums, each adding its rows in
    row order.

    Examples
    --------
    >>> present_configurations(np.array([5, 9, 5]), None)
    (array([5, 9]), array([2., 1.]))
    >>> present_configurations(np.array([5, 9, 5]), np.array([1.0, 0.0, 2.0]), size=10)
    (array([5, 9]), array([3., 0.]))
    """
    ids = np.asarray(ids)
    if size is not None and size <= max(DENSE_IDS, DENSE_IDS_PER_ROW * len(ids)):
        rows = np.bincount(ids, minlength=size)
        present = np.flatnonzero(rows)
        if weights is None:
            return present, rows[present].astype(np.float64)
        masses = np.bincount(ids, weights, minlength=size)[present].astype(np.float64)
        return present, masses
    cells, inverse = np.unique(ids, return_inverse=True)
    masses = np.bincount(inverse.reshape(-1), weights, len(cells)).astype(np.float64, copy=False)
    return cells, masses


def class_configuration_counts(
    ids: NDArray[Any], class_index: NDArray[np.intp], weights: NDArray[np.floating], n_classes: int
) -> tuple[NDArray[Any], NDArray[np.float64], NDArray[np.intp]]:
    """The distinct values of ``ids`` (sorted), the (distinct, n_classes) table of the
    weight of each class there, and each row's index into them.

    Examples
    --------
    >>> values, table, _ = class_configuration_counts(
    ...     np.array([3.0, 1.0, 3.0]), np.array([0, 1, 1]), np.ones(3), 2)
    >>> values, table
    (array([1., 3.]), array([[0., 1.],
           [1., 1.]]))
    """
    values, inverse = np.unique(np.asarray(ids), return_inverse=True)
    inverse = inverse.reshape(-1)
    table = np.zeros((len(values), n_classes))
    np.add.at(table, (inverse, class_index), weights)
    return values, table, inverse


def configuration_ids(
    codes: NDArray[np.integer], columns: tuple[int, ...] | list[int], n_categories: NDArray[np.intp]
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The mixed-radix id of each row's configuration of ``columns`` (the first column
    most significant; 0 for no column) and whether every one of them is observed.

    Examples
    --------
    >>> codes = np.array([[1, 2], [0, -1]])
    >>> configuration_ids(codes, (0, 1), np.array([2, 3]))
    (array([5, 0]), array([ True, False]))
    """
    ids = np.zeros(len(codes), dtype=np.int64)
    observed = np.ones(len(codes), dtype=bool)
    for column in columns:
        values = codes[:, column]
        observed &= missing_values.observed(values)
        ids = ids * int(n_categories[column]) + np.maximum(values, 0)
    ids[~observed] = 0
    return ids, observed


def sparse_family_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.floating] | None,
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    node: int,
    parents: tuple[int, ...],
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The family table of ``node`` under ``parents``, stored sparsely: the cells
    present, as sorted ids ``(configuration * n_classes + class) * r_node + value`` (the
    configuration's mixed-radix id, :func:`configuration_ids`), and their weights; rows
    where the node or a parent is missing count nowhere (available-case). Memory grows
    with the cells present (at most one per row), never with the product of the
    parents' arities.

    Raises
    ------
    ValueError
        When the family has 2**62 cells or more (the ids would overflow).

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [-1, 0]])
    >>> sparse_family_counts(codes, np.array([0, 1, 1, 0]), None, 2, np.array([2, 2]), node=1,
    ...                      parents=(0,))
    (array([1, 3, 6]), array([1., 1., 1.]))
    """
    r_node = int(n_categories[node])
    n_configurations = 1
    for parent in parents:
        n_configurations *= int(n_categories[parent])
    if n_configurations * n_classes * r_node >= MAX_FAMILY_CELLS:
        raise ValueError(
            f"the family of feature {node} under parents {tuple(parents)} has 2**62 cells "
            "or more (parent configurations x classes x values); use fewer parents or "
            "fewer categories"
        )
    ids, observed = configuration_ids(codes, parents, n_categories)
    values = codes[:, node]
    observed &= missing_values.observed(values)
    cells = (ids[observed] * n_classes + class_index[observed]) * r_node + values[observed]
    present, masses = present_configurations(
        cells,
        None if weights is None else np.asarray(weights)[observed],
        n_configurations * n_classes * r_node,
    )
    return present.astype(np.int64, copy=False), masses


def univariate_counts(
    codes: NDArray[np.integer],
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


def _chunk_rows(width: int, itemsize: int, n_threads: int = 1) -> int:
    """Rows per chunk of a ``width``-column one-hot matrix, for each of ``n_threads``."""
    row_bytes = max(1, width * itemsize * n_threads)
    rows = max(_CHUNK_BYTES // row_bytes, min(width, _MAX_CHUNK_BYTES // row_bytes))
    return int(min(_MAX_CHUNK_ROWS, max(256, rows)))


def _gram_of_rows(codes, rows_c, layout, scale, n_reduced, *, dtype, chunk) -> NDArray[np.float64]:
    """``Z^T Z`` of the reduced one-hot rows ``rows_c``, ``chunk`` rows at a time."""
    buffer = np.empty((min(chunk, max(len(rows_c), 1)), n_reduced), dtype=dtype)
    gram = np.zeros((n_reduced, n_reduced), dtype=np.float64)
    for start in range(0, len(rows_c), chunk):
        rows = rows_c[start : start + chunk]
        block = buffer[: len(rows)]
        fill_reduced_one_hot(codes, rows, *layout, scale, block)  # type: ignore[call-arg]
        gram += block.T @ block  # BLAS syrk
    return gram


def _gram(codes, rows_c, layout, scale, n_reduced, *, dtype) -> NDArray[np.float64]:
    """:func:`_gram_of_rows` of one class, its rows split over the cores when each
    core gets enough work: every thread fills its own chunks and calls BLAS on them
    (on one BLAS thread), so the one-hot filling, which is not BLAS, runs in parallel
    too and no core waits for another."""
    work = len(rows_c) * n_reduced * n_reduced
    n_threads = available_cores()
    if n_threads < 2 or work < 2 * _THREAD_WORK or n_reduced > _THREAD_MAX_WIDTH:
        chunk = _chunk_rows(n_reduced, np.dtype(dtype).itemsize)
        return _gram_of_rows(codes, rows_c, layout, scale, n_reduced, dtype=dtype, chunk=chunk)
    chunk = _chunk_rows(n_reduced, np.dtype(dtype).itemsize, n_threads)
    grams: dict[int, NDArray[np.float64]] = {}

    def count(start: int, stop: int) -> None:
        grams[start] = _gram_of_rows(
            codes, rows_c[start:stop], layout, scale, n_reduced, dtype=dtype, chunk=chunk
        )

    with single_threaded_blas() as single:
        if single:
            in_chunks(count, len(rows_c), work, _THREAD_WORK)
        else:  # BLAS keeps its threads (another thread controls them): split nothing
            count(0, len(rows_c))
    return np.sum([grams[k] for k in sorted(grams)], axis=0)


def pairwise_counts(
    codes: NDArray[np.integer],
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
    The Gram matrix is taken of a *reduced* one-hot matrix that drops the last
    category of every feature (its counts follow by subtraction) and adds an observed
    flag only for the features with missing values: ``D' = sum(r_i - 1) + n_missing +
    1`` columns instead of ``D`` (785 instead of 1568 for 784 complete binary
    features, a quarter of the multiply-adds). Cost: one symmetric rank-k update per
    chunk (BLAS ``syrk``), ``n_samples * D'**2`` multiply-adds in all, plus
    O(n_classes * D**2) to expand the tables. A class with enough rows is split over
    the cores, each thread filling its own chunks and calling a one-thread BLAS on
    them (:func:`discotree.threads.single_threaded_blas`): the filling runs in
    parallel too, about 20 % faster than one filler feeding a threaded BLAS. Extra
    memory: chunks of the reduced matrix (16 MB in all, up to 128 MB for very wide
    matrices), one ``D' x D'`` Gram matrix per thread and the output,
    ``8 * n_classes * D**2`` bytes. Unweighted
    counts are exact integers.
    """
    codes = np.ascontiguousarray(codes)
    n_categories = np.asarray(n_categories, dtype=np.intp)
    offsets = _offsets(n_categories)
    n_columns = int(offsets[-1])
    # Reduced one-hot layout: indicators of categories 0..r-2 of each feature, an
    # "observed" column for each feature that has missing values, and one column of
    # ones; the last category's counts follow by subtraction (see reconstruct_tables).
    negatives = np.zeros(len(n_categories), dtype=np.intp)
    count_negatives(codes, negatives)
    has_missing = negatives > 0
    indicator_start = np.zeros(len(n_categories), dtype=np.intp)
    observed_column = np.zeros(len(n_categories), dtype=np.intp)
    width = 0
    for f, r in enumerate(n_categories):
        indicator_start[f] = width
        width += r - 1
    ones_column = width + int(has_missing.sum())
    k = width
    for f in range(len(n_categories)):
        if has_missing[f]:
            observed_column[f] = k
            k += 1
        else:
            observed_column[f] = ones_column
    n_reduced = ones_column + 1
    dtype = np.float32 if weights is None else np.float64
    if weights is None:
        scale = np.ones(len(class_index), dtype=np.float32)
    else:
        scale = np.sqrt(weights).astype(np.float64)
    order = np.argsort(class_index, kind="stable")
    bounds = np.searchsorted(class_index[order], np.arange(n_classes + 1))
    layout = (n_categories, indicator_start, observed_column, has_missing, ones_column)
    out = np.empty((n_classes, n_columns, n_columns), dtype=np.float64)
    expand = None  # unit weights, few columns: integer Gram matrices expanded by numpy
    if n_columns <= _NUMPY_TABLE_COLUMNS and (weights is None or bool(np.all(weights == 1.0))):
        expand = _expansion(n_categories, offsets, indicator_start, observed_column, n_reduced)
    for c in range(n_classes):
        rows_c = order[bounds[c] : bounds[c + 1]]
        gram = _gram(codes, rows_c, layout, scale, n_reduced, dtype=dtype)
        if expand is not None:
            np.matmul(expand.T, gram @ expand, out=out[c])
            out[c] += 0.0  # (a zero is +0.0, as the kernel leaves it)
        else:
            reconstruct_tables(
                gram, n_categories, offsets, indicator_start, observed_column, out[c]
            )
    if weights is not None:
        # sqrt(w)**2 is w up to rounding, which the subtractions expose as cells of
        # about 1e-16 * total where the count is 0: snap them to 0
        for c in range(n_classes):
            tiny = ZERO_TOL * max(float(out[c].max(initial=0.0)), 1e-300)
            out[c][out[c] < tiny] = 0.0
    return out


def features_with_missing(codes: NDArray[np.integer]) -> int:
    """How many columns of ``codes`` hold a missing value (``-1``): one compiled pass,
    no temporary array (what :func:`pairwise_counts_bytes` needs of the data).

    Examples
    --------
    >>> features_with_missing(np.array([[0, -1, 1], [1, 0, -1]], dtype=np.int8))
    2
    """
    negatives = np.zeros(codes.shape[1], dtype=np.intp)
    if codes.size:
        count_negatives(np.ascontiguousarray(codes), negatives)
    return int(np.count_nonzero(negatives))


def pairwise_counts_bytes(
    class_rows: NDArray[np.intp],
    n_categories: NDArray[np.intp],
    n_missing_features: int = 0,
    weighted: bool = False,
) -> float:
    """The peak memory :func:`pairwise_counts` allocates, in bytes, for classes of
    ``class_rows`` rows: the output (``8 n_classes D**2``), the Gram matrices of the
    reduced one-hot layout (``D'`` columns; on one thread an accumulator and a product,
    on T threads T of each, their stack and their sum), the one-hot buffers and the
    per-row arrays (the class order and the row scales). The memory guard of
    :meth:`~discotree.stats.discrete.PairStatistics.from_codes` checks it;
    ``benchmarks/bench_memory.py`` measures it.

    Examples
    --------
    >>> round(pairwise_counts_bytes(np.array([100, 100]), np.full(5000, 2)) / 2**30, 2)
    1.86
    """
    class_rows = np.asarray(class_rows, dtype=np.int64)
    n_categories = np.asarray(n_categories, dtype=np.int64)
    n_classes, n_rows = len(class_rows), int(class_rows.sum())
    width = float(n_categories.sum())
    reduced = float((n_categories - 1).sum() + n_missing_features + 1)
    itemsize = 8 if weighted else 4
    largest = int(class_rows.max(initial=0))
    n_threads = available_cores()
    threaded = (
        n_threads > 1
        and largest * reduced * reduced >= 2 * _THREAD_WORK
        and reduced <= _THREAD_MAX_WIDTH
    )
    if threaded:
        chunk = _chunk_rows(int(reduced), itemsize, n_threads)
        grams = (3 * n_threads + 1) * reduced * reduced * 8
        buffers = n_threads * min(chunk, largest) * reduced * itemsize
    else:
        chunk = _chunk_rows(int(reduced), itemsize)
        grams = 2 * reduced * reduced * 8
        buffers = min(chunk, max(largest, 1)) * reduced * itemsize
    rows = n_rows * (4 * 8 + itemsize + (8 if weighted else 0))  # order, its sort, scales
    return 8.0 * n_classes * width * width + grams + buffers + rows


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


def triple_layout(n_categories: NDArray[np.intp], n_classes: int) -> NDArray[np.int64]:
    """Where the table of every triple of features starts in the flat array of
    :func:`triple_counts`: the triples ``i < j < k`` in lexicographic order, each table
    of shape ``(r_i, r_j, r_k, n_classes)`` (C order: the classes of a cell side by
    side); the last entry is the total size.

    Examples
    --------
    >>> triple_layout(np.array([2, 3, 2, 2]), 2).tolist()  # 012, 013, 023, 123
    [0, 24, 48, 64, 88]
    """
    r = np.asarray(n_categories, dtype=np.int64)
    d = len(r)
    sizes = [
        n_classes * r[i] * r[j] * r[k]
        for i in range(d)
        for j in range(i + 1, d)
        for k in range(j + 1, d)
    ]
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64), out=out[1:])
    return out


@numba.njit(cache=True, nogil=True)
def _triple_counts_kernel(
    codes, class_index, weights, n_categories, n_classes, layout, out
):  # pragma: no cover - numba
    n_rows, d = codes.shape
    for r in range(n_rows):
        c = class_index[r]
        w = weights[r]
        t = 0
        for i in range(d):
            a = codes[r, i]
            for j in range(i + 1, d):
                b = codes[r, j]
                if is_missing_code(a) or is_missing_code(b):  # every triple of this pair skipped
                    t += d - j - 1
                    continue
                base = a * n_categories[j] + b
                for k in range(j + 1, d):
                    e = codes[r, k]
                    if is_observed_code(e):
                        cell = (base * n_categories[k] + e) * n_classes + c
                        out[layout[t] + cell] += w
                    t += 1


def triple_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_categories: NDArray[np.intp],
    n_classes: int,
) -> NDArray[np.float64]:
    """Weighted counts of every triple of features, per class, in one pass.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Category codes, ``-1`` for missing (a row counts in a triple's table only when
        the three are observed).
    class_index, weights, n_categories, n_classes
        As for :func:`univariate_counts`.

    Returns
    -------
    ndarray of shape (triple_layout(n_categories, n_classes)[-1],)
        The tables ``n(x_i, x_j, x_k, c)`` of the triples ``i < j < k``, flat, at the
        offsets of :func:`triple_layout`.

    Notes
    -----
    O(n_samples * n_features**3 / 6) additions; memory C * sum over triples of
    r_i r_j r_k numbers (A2DE's statistics).

    Examples
    --------
    >>> codes = np.array([[0, 1, 1], [1, 0, -1]])
    >>> triple_counts(codes, np.array([0, 1]), np.ones(2), np.array([2, 2, 2]), 2).sum()
    np.float64(1.0)
    """
    n_categories = np.asarray(n_categories, dtype=np.int64)
    layout = triple_layout(n_categories, n_classes)
    out = np.zeros(int(layout[-1]), dtype=np.float64)
    if len(n_categories) >= 3 and len(codes):
        _triple_counts_kernel(
            np.ascontiguousarray(codes, dtype=np.int64),
            np.ascontiguousarray(class_index, dtype=np.int64),
            np.ascontiguousarray(weights, dtype=np.float64),
            n_categories,
            int(n_classes),
            layout,
            out,
        )
    return out
