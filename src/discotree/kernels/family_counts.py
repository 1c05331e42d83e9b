"""Weighted counts of families of a node and its attribute parents: one family
(:func:`family_cells` and :func:`family_cell_counts`, for every lookup of a structure
search), or many families of one node with two parents at once
(:func:`pair_family_counts`, the candidates of the k = 2 order search of Pernkopf & Bilmes 2010,
Algorithm 1).

:func:`family_counts` is the one way the package counts one family (parameters,
structure searches, cross-validation, the Dask engine). The missing-value rule of
:mod:`discotree.kernels.counts`: a row adds to a family's table only where the node and
every parent are observed (available-case counts). Each count adds the weights of its rows
in sample order, as :func:`numpy.bincount` does for one family, so the sums are the
same to the bit.
"""

from __future__ import annotations

import math
from itertools import accumulate, pairwise

import numba
import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..missing_values import is_missing_code
from .counts import sparse_family_counts

__all__ = [
    "dense_prefix_family_counts",
    "dense_sparse_family_counts",
    "family_cell_counts",
    "family_cells",
    "family_counts",
    "pair_family_counts",
]


@numba.njit(cache=True, nogil=True)
def _family_cells(codes_by_feature, family, radix, out):  # pragma: no cover - numba
    n_rows = out.shape[0]
    for s in range(np.uint64(n_rows)):
        out[s] = 0
    for i in range(np.uint64(family.shape[0])):  # one member at a time: a stream each
        row = codes_by_feature[family[i]]
        r = radix[i]
        for s in range(np.uint64(n_rows)):
            x, cell = row[s], out[s]
            out[s] = cell * r + x if (x | cell) >= 0 else -1


def family_cells(
    codes_by_feature: NDArray[np.intp],
    family: tuple[int, ...],
    n_categories: NDArray[np.intp],
) -> NDArray[np.intp]:
    """Each row's cell of the family's table: ``x_f0 * r_f1 * ... + x_f1 * ... + x_fk``
    (the mixed radix of the family's values, in the order of ``family``), or ``-1`` where
    one of them is missing.

    Parameters
    ----------
    codes_by_feature : ndarray of shape (n_features, n_samples), intp
        ``codes.T``, contiguous; ``-1`` for missing.
    family : tuple of int
        The features, the node last (its parents first, in order).
    n_categories : ndarray of shape (n_features,)

    Returns
    -------
    cells : ndarray of shape (n_samples,), intp

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 2], [-1, 0]])  # by feature: 3 features, 2 rows
    >>> family_cells(codes, (0, 1), np.array([2, 3, 2])).tolist()
    [1, 5]
    >>> family_cells(codes, (2, 0), np.array([2, 3, 2])).tolist()
    [-1, 1]
    """
    codes_by_feature = np.ascontiguousarray(codes_by_feature, dtype=np.intp)
    members = np.asarray(family, dtype=np.intp)
    radix = np.asarray(n_categories, dtype=np.intp)[members]
    out = np.empty(codes_by_feature.shape[1], dtype=np.intp)
    _family_cells(codes_by_feature, members, radix, out)
    return out


@numba.njit(cache=True, nogil=True)
def _family_cell_counts(cells, class_index, weights, n_cells, out):  # pragma: no cover
    for s in range(np.uint64(cells.shape[0])):
        cell = cells[s]
        if cell >= 0:
            out[class_index[s] * n_cells + cell] += weights[s]


def family_cell_counts(
    cells: NDArray[np.intp],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_cells: int,
) -> NDArray[np.float64]:
    """Weighted counts n(c, cell), shape (n_classes, n_cells), of the rows whose cell
    (:func:`family_cells`) is not ``-1``; each count adds its rows' weights in sample
    order, as :func:`numpy.bincount` does, so the sums are the same to the bit.

    Examples
    --------
    >>> family_cell_counts(np.array([1, -1, 1, 0]), np.array([0, 0, 1, 1]),
    ...                    np.array([1.0, 5.0, 2.0, 0.5]), 2, 2)
    array([[0. , 1. ],
           [0.5, 2. ]])
    """
    out = np.zeros(n_classes * n_cells, dtype=np.float64)
    _family_cell_counts(
        np.ascontiguousarray(cells, dtype=np.intp),
        np.ascontiguousarray(class_index, dtype=np.intp),
        np.ascontiguousarray(weights, dtype=np.float64),
        n_cells,
        out,
    )
    return out.reshape(n_classes, n_cells)


@numba.njit(cache=True, nogil=True)
def _pair_family_counts(
    codes_by_feature, node_keys, weights, first, second, starts, r_second, r_node, out
):  # pragma: no cover - numba
    """Add to ``out`` (flat) at ``node_keys[s] + (start + x_a r_b + x_b) r_node``;
    ``node_keys[s]`` is ``c * (block) + x_node``, or negative where the node is
    missing. Returns how many (pair, row) entries were left out for a missing value."""
    n_pairs = first.shape[0]
    n_rows = node_keys.shape[0]
    missing = 0
    for i in range(np.uint64(n_pairs)):
        a_codes = codes_by_feature[first[i]]
        b_codes = codes_by_feature[second[i]]
        base = starts[i] * r_node  # the pair's block, and the strides of x_a and x_b
        a_stride = r_second[i] * r_node
        for s in range(np.uint64(n_rows)):
            a, b, key = a_codes[s], b_codes[s], node_keys[s]
            if (a | b | key) < 0:  # one branch: any code negative (missing)
                missing += 1
            else:
                out[key + base + a * a_stride + b * r_node] += weights[s]
    return missing


def pair_family_counts(
    codes_by_feature: NDArray[np.intp],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    node: int,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
) -> tuple[NDArray[np.float64], NDArray[np.intp], bool]:
    """Counts n(c, x_a, x_b, x_node) of the families (first[i], second[i]) -> node.

    Parameters
    ----------
    codes_by_feature : ndarray of shape (n_features, n_samples), intp
        ``codes.T``, contiguous (one row per attribute); ``-1`` for missing.
    class_index, weights : ndarrays of shape (n_samples,)
    n_classes : int
    n_categories : ndarray of shape (n_features,)
    node : int
    first, second : ndarrays of shape (n_pairs,)
        The two parents of each family.

    Returns
    -------
    counts : ndarray of shape (n_classes, n_configurations, r_node)
        Pair i's count at ``[c, starts[i] + x_a * r_b + x_b, x_node]``.
    starts : ndarray of shape (n_pairs,)
        Where each pair's parent configurations begin.
    complete : bool
        Whether every row had the node and both parents of every pair.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1, 1], [1, 1, 0], [1, 0, 0]]).T.copy()  # 3 attributes
    >>> counts, starts, complete = pair_family_counts(
    ...     codes, np.array([0, 0, 1]), np.ones(3), 2, np.array([2, 2, 2]), 2,
    ...     np.array([0]), np.array([1]))
    >>> counts[0]  # class 0: (x_0, x_1) = (0, 1) with x_2 = 1, (1, 1) with x_2 = 0
    array([[0., 0.],
           [0., 1.],
           [0., 0.],
           [1., 0.]])
    """
    r = np.asarray(n_categories, dtype=np.intp)
    first = np.asarray(first, dtype=np.intp)
    second = np.asarray(second, dtype=np.intp)
    r_second = r[second]
    cells = r[first] * r_second  # parent configurations of each pair
    starts = np.concatenate([[0], np.cumsum(cells)[:-1]]).astype(np.intp)
    r_node = int(r[node])
    out = np.zeros((n_classes, int(cells.sum()), r_node), dtype=np.float64)
    node_values = np.asarray(codes_by_feature[node], dtype=np.intp)
    node_keys = np.asarray(class_index, dtype=np.intp) * (out.size // max(n_classes, 1))
    node_keys = np.where(missing_values.is_missing(node_values), -1, node_keys + node_values)
    missing = _pair_family_counts(
        np.ascontiguousarray(codes_by_feature, dtype=np.intp),
        node_keys,
        np.ascontiguousarray(weights, dtype=np.float64),
        first,
        second,
        starts,
        r_second,
        r_node,
        out.reshape(-1),
    )
    return out, starts, missing == 0


def family_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    node: int,
    parents: tuple[int, ...],
) -> NDArray[np.float64]:
    """Weighted counts n(c, x_pa, x_j) of one family, shape (C, r_pa..., r_j).

    Rows where the node or one of its parents is missing are left out (available-case
    counts, as the pairwise tables). By :func:`family_cells` and
    :func:`family_cell_counts` over the family's columns: the sums of
    :func:`numpy.bincount`, to the bit.

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, -1], [1, 0]])
    >>> family_counts(codes, np.array([0, 0, 1, 1]), np.ones(4), 2, np.array([2, 2]), node=1,
    ...               parents=(0,))
    array([[[0., 1.],
            [0., 1.]],
    <BLANKLINE>
           [[0., 0.],
            [1., 0.]]])
    """
    family = (*parents, node)
    shape = (n_classes, *(int(n_categories[v]) for v in family))
    codes = np.asarray(codes)
    columns = np.ascontiguousarray(codes[:, list(family)].T, dtype=np.intp)
    cells = family_cells(columns, tuple(range(len(family))), np.asarray(n_categories)[list(family)])
    counts = family_cell_counts(
        cells,
        class_index,
        np.asarray(weights, dtype=np.float64),
        n_classes,
        int(np.prod(shape[1:])),
    )
    return counts.reshape(shape)


def dense_sparse_family_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.floating] | None,
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    node: int,
    parents: tuple[int, ...],
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """:func:`~discotree.kernels.counts.sparse_family_counts` (the cells present, as
    sorted ids ``(configuration * n_classes + class) * r_node + value``, and their
    weights) counted in one compiled pass into a bin per possible id: for families of
    few cells (the caller checks), the same cells and the same sums to the bit (each
    adds its rows in row order, as :func:`numpy.bincount` does), without the array
    operations per parent.

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [-1, 0]])
    >>> dense_sparse_family_counts(
    ...     codes, np.array([0, 1, 1, 0]), None, 2, np.array([2, 2]), node=1, parents=(0,))
    (array([1, 3, 6]), array([1., 1., 1.]))
    """
    depth = len(parents)
    return dense_prefix_family_counts(
        codes,
        class_index,
        weights,
        n_classes,
        n_categories,
        node=node,
        parents=parents,
        levels=range(depth, depth + 1),
    )[0]


@numba.njit(cache=True, nogil=True)
def _prefix_id_counts(
    codes,
    class_index,
    weights,
    node,
    parents,
    radices,
    r,
    n_classes,
    first,
    offsets,
    rows_out,
    weight_out,
):  # pragma: no cover - numba
    # every row observing the node adds 1 and its weight at its sparse-table id
    # (configuration * n_classes + class) * r + value of each prefix parents[:L],
    # L = first..len(offsets) - 1, in one pass: level L's id at offsets[L - first] + id.
    # A row adds to every level
    # whose parents it observes (up to its first missing parent), in row order; False
    # (the counts left partial) where the deepest level's count would say False
    last = first + offsets.shape[0] - 1
    for i in range(codes.shape[0]):
        value = codes[i, node]
        if is_missing_code(value):
            continue
        y = class_index[i]
        if value >= r or y < 0 or y >= n_classes:
            return False
        configuration = 0
        for level in range(last + 1):
            if level > 0:
                x = codes[i, parents[level - 1]]
                if is_missing_code(x):
                    break
                if x >= radices[level - 1]:
                    return False
                configuration = configuration * radices[level - 1] + x
            if level >= first:
                cell = offsets[level - first] + (configuration * n_classes + y) * r + value
                rows_out[cell] += 1
                weight_out[cell] += weights[i]
    return True


def dense_prefix_family_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.floating] | None,
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    node: int,
    parents: tuple[int, ...],
    levels: range,
) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """:func:`dense_sparse_family_counts` of the node under ``parents[:L]`` for every
    ``L`` of ``levels`` (consecutive), counted in one compiled pass over the rows (a bin
    per possible id of every level, the caller keeping their total small): the same
    cells and the same sums to the bit (each level's bin adds its rows in row order).

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [-1, 0]])
    >>> dense_prefix_family_counts(codes, np.array([0, 1, 1, 0]), None, 2,
    ...     np.array([2, 2]), node=1, parents=(0,), levels=range(2))[1]
    (array([1, 3, 6]), array([1., 1., 1.]))
    """
    r = int(n_categories[node])
    radices = np.array([int(n_categories[p]) for p in parents], dtype=np.int64)
    sizes = [math.prod(radices[:level].tolist()) * n_classes * r for level in levels]
    offsets = np.array([0, *accumulate(sizes)], dtype=np.int64)
    rows_out = np.zeros(int(offsets[-1]), dtype=np.int64)
    weight_out = np.zeros(int(offsets[-1]))
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=np.float64)
    in_range = len(levels) == 0 or _prefix_id_counts(
        np.asarray(codes),
        np.asarray(class_index, dtype=np.intp),
        w,
        int(node),
        np.array(parents, dtype=np.int64).reshape(-1),
        radices,
        r,
        int(n_classes),
        int(levels[0]) if len(levels) else 0,
        offsets[:-1],
        rows_out,
        weight_out,
    )
    if not in_range:  # (codes beyond their categories: the sorted count's ids)
        return [
            sparse_family_counts(
                codes,
                class_index,
                weights,
                n_classes,
                n_categories,
                node=node,
                parents=tuple(parents[:level]),
            )
            for level in levels
        ]
    out = []
    for low, high in pairwise(offsets.tolist()):
        present = np.flatnonzero(rows_out[low:high])
        masses = rows_out[low:high][present].astype(np.float64) if weights is None else None
        out.append((present, weight_out[low:high][present] if masses is None else masses))
    return out
