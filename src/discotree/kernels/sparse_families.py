"""Lookups in sparse family tables and the losses of joint scores (the inner loops of
k-dependence prediction and of selective kDB's leave-one-out pass, Martinez, Webb,
Chen & Zaidi 2016, Section 3).

A sparse table stores its cells as sorted ids ``(configuration * n_classes + class) *
r + value`` (:func:`discotree.kernels.counts.sparse_family_counts`), so the cells of one
parent configuration are one contiguous block: a row needs one binary search for the
block's start and a scan of at most ``n_classes * r`` cells to read its value's weight
in every class, every class's total and how many values have weight.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from ..threads import in_chunks

__all__ = [
    "NEGLIGIBLE_LOG_RATIO",
    "backoff_scores",
    "first_at_least",
    "posterior_loss_sums",
    "sparse_cell_lookup",
    "sparse_cells_are_valid",
    "squared_error",
]

#: Below twice this many rows, one thread does the lookup.
_MIN_ROWS = 1 << 14


@numba.njit(cache=True, nogil=True)
def first_at_least(cells, low, high, value):  # pragma: no cover - numba
    """The first position of ``cells[low:high]`` (sorted) holding ``value`` or more
    (``high`` if none): a binary search, compiled (call it from compiled code).

    Examples
    --------
    >>> int(first_at_least(np.array([1, 3, 3, 7]), 0, 4, 3))
    1
    """
    while low < high:
        middle = (low + high) >> 1
        if cells[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


@numba.njit(cache=True, nogil=True)
def _lookup(cells, masses, ids, values, n_classes, r, start, stop, counts, totals, support):
    # pragma: no cover - numba
    width = n_classes * r
    n_cells = cells.shape[0]
    for i in range(start, stop):
        first = ids[i] * width
        j = first_at_least(cells, 0, n_cells, first)
        while j < n_cells and cells[j] < first + width:
            rest = cells[j] - first
            c = rest // r
            mass = masses[j]
            totals[i, c] += mass
            if mass > 0:
                support[i, c] += 1
            if rest - c * r == values[i]:
                counts[i, c] = mass
            j += 1


def sparse_cell_lookup(
    cells: NDArray[np.int64],
    masses: NDArray[np.float64],
    ids: NDArray[np.int64],
    values: NDArray[np.integer],
    n_classes: int,
    *,
    r: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """For each row i: the weight of value ``values[i]`` in every class under
    configuration ``ids[i]``, every class's total there, and how many values have
    positive weight there (all 0 for a configuration never observed), each of shape
    (n_rows, n_classes).

    Examples
    --------
    >>> cells = np.array([1, 3, 6])  # config 0: (c0, v1), (c1, v1); config 1: (c1, v0)
    >>> counts, totals, support = sparse_cell_lookup(
    ...     cells, np.array([1.0, 2.0, 5.0]), np.array([0, 1]), np.array([1, 1]), 2, r=2)
    >>> counts, totals
    (array([[1., 2.],
           [0., 0.]]), array([[1., 2.],
           [0., 5.]]))
    """
    n = len(ids)
    counts = np.zeros((n, n_classes))
    totals = np.zeros((n, n_classes))
    support = np.zeros((n, n_classes), dtype=np.intp)
    arrays = (
        np.ascontiguousarray(cells, dtype=np.int64),
        np.ascontiguousarray(masses, dtype=np.float64),
        np.ascontiguousarray(ids, dtype=np.int64),
        np.ascontiguousarray(values, dtype=np.int64),
    )
    in_chunks(
        lambda a, b: _lookup(*arrays, n_classes, r, a, b, counts, totals, support),
        n,
        n,
        _MIN_ROWS,
    )
    return counts, totals, support


#: In :func:`posterior_loss_sums`, a class whose joint lies more than this below the
#: row's largest counts as probability 0: ``exp(-50) < 2e-22``, below a double's
#: resolution of the row's total, so the sums move by less than 1e-20 relative (far
#: inside the selection's tie tolerance) and most exponentials of a confident row are
#: not computed.
NEGLIGIBLE_LOG_RATIO = 50.0


@numba.njit(cache=True, nogil=True, inline="always")
def squared_error(weights, total, y):  # pragma: no cover - numba
    """``sum_c (P(c) - [c = y])**2`` of the probabilities ``weights / total`` (one row,
    unnormalised: ``total`` their sum), compiled (call it from compiled code).

    Examples
    --------
    >>> float(squared_error(np.array([1.0, 3.0]), 4.0, 1))
    0.125
    """
    inverse = 1.0 / total
    squares = 0.0
    for c in range(weights.shape[0]):
        if c != y:
            p = weights[c] * inverse
            squares += p * p
    miss = 1.0 - weights[y] * inverse
    return squares + miss * miss


@numba.njit(cache=True, nogil=True, fastmath=False)
def _loss_sums(joint, truth, weights, with_squares, with_log_loss, out):  # pragma: no cover
    # out[0] the squares' sum (when with_squares), out[1] the log-loss's (when
    # with_log_loss): each its own sum in row order, whether or not the other is taken
    n, n_classes = joint.shape
    scaled = np.empty(n_classes)
    for i in range(n):
        top = joint[i, 0]
        for c in range(1, n_classes):
            top = max(top, joint[i, c])
        total = 0.0
        for c in range(n_classes):
            gap = joint[i, c] - top
            if gap == 0.0:  # (the largest: exp(0) is 1, not computed)
                scaled[c] = 1.0
            else:
                scaled[c] = np.exp(gap) if gap > -NEGLIGIBLE_LOG_RATIO else 0.0
            total += scaled[c]
        y = truth[i]
        if with_squares:
            out[0] += weights[i] * squared_error(scaled, total, y)
        if with_log_loss:
            out[1] -= weights[i] * (joint[i, y] - top - np.log(total))


def posterior_loss_sums(
    joint: NDArray[np.float64],
    truth: NDArray[np.intp],
    weights: NDArray[np.float64],
    *,
    only: str | None = None,
) -> tuple[float, float]:
    """The weighted sums over rows of ``sum_c (P(c | x) - [c = y])**2`` and of
    ``-log P(y | x)``, the posterior being ``softmax(joint)`` of each row.

    ``only``: ``"squares"`` or ``"log_loss"`` computes that sum alone (the same number
    to the bit; the other is returned as NaN): one logarithm per row fewer, or the
    squares' arithmetic.

    Examples
    --------
    >>> joint = np.log([[0.2, 0.6], [0.5, 0.5]])
    >>> [round(v, 4) for v in posterior_loss_sums(joint, np.array([1, 0]), np.ones(2))]
    [0.625, 0.9808]
    >>> posterior_loss_sums(joint, np.array([1, 0]), np.ones(2), only="squares")[1]
    nan
    """
    if only not in (None, "squares", "log_loss"):
        raise ValueError(f"only must be None, 'squares' or 'log_loss', got {only!r}")
    out = np.zeros(2)
    _loss_sums(
        np.ascontiguousarray(joint, dtype=np.float64),
        np.ascontiguousarray(truth, dtype=np.intp),
        np.ascontiguousarray(weights, dtype=np.float64),
        only != "log_loss",
        only != "squares",
        out,
    )
    squares = float(out[0]) if only != "log_loss" else float("nan")
    log_loss = float(out[1]) if only != "squares" else float("nan")
    return squares, log_loss


@numba.njit(cache=True, nogil=True)
def _backoff_scores(counts, totals, below, weights, grid, out):  # pragma: no cover
    for i in range(counts.shape[0]):
        if weights[i] == 0.0:
            continue
        for g in range(grid.shape[0]):
            b = grid[g]
            p = (counts[i] + b * below[i]) / (totals[i] + b)
            out[g] += weights[i] * np.log(max(p, 1e-300))


def backoff_scores(
    counts: NDArray[np.float64],
    totals: NDArray[np.float64],
    below: NDArray[np.float64],
    weights: NDArray[np.float64],
    grid: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``sum_i w_i log((n_i + b p_i) / (t_i + b))`` for every concentration ``b`` of
    ``grid``: the log-likelihood of one level of hierarchical smoothing
    (:func:`discotree.stats.hierarchical.choose_concentrations`).

    Examples
    --------
    >>> out = backoff_scores(np.array([1.0]), np.array([2.0]), np.array([0.5]),
    ...                      np.array([1.0]), np.array([1.0, 2.0]))
    >>> np.allclose(out, np.log([0.5, 0.5]))
    True
    """
    out = np.zeros(len(grid))
    _backoff_scores(
        np.ascontiguousarray(counts, dtype=np.float64),
        np.ascontiguousarray(totals, dtype=np.float64),
        np.ascontiguousarray(below, dtype=np.float64),
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(grid, dtype=np.float64),
        out,
    )
    return out


@numba.njit(cache=True, nogil=True)
def _cells_are_valid(ids, masses):  # pragma: no cover - numba
    # (the cells' ids: not codes, a negative id is no missing value)
    for j in range(ids.shape[0]):
        if ids[j] < 0 if j == 0 else ids[j] <= ids[j - 1]:
            return False
        if not (masses[j] >= 0.0 and masses[j] < np.inf):  # (NaN fails both)
            return False
    return True


def sparse_cells_are_valid(cells: NDArray[np.int64], masses: NDArray[np.float64]) -> bool:
    """Whether a sparse table's cells are increasing ids >= 0 and its weights finite and
    >= 0 (one of each, the shapes checked by the caller): the array checks
    ``cells[0] >= 0``, ``np.diff(cells) > 0`` and ``np.isfinite(masses) & (masses >= 0)``
    in one compiled pass.

    Examples
    --------
    >>> sparse_cells_are_valid(np.array([0, 3, 7]), np.array([1.0, 0.0, 2.5]))
    True
    >>> sparse_cells_are_valid(np.array([0, 3, 3]), np.ones(3))
    False
    >>> sparse_cells_are_valid(np.array([1]), np.array([np.nan]))
    False
    """
    return bool(_cells_are_valid(cells, masses))
