"""Summing the missing parents of rows out of a k-dependence model by enumeration
(:meth:`~discotree.models.k_dependence.KDependenceModel.log_likelihood`): every row is
repeated once for each joint value of the parents it sums out, all the copies of all the
rows are scored in one call of the model's back-off scoring (the rows of every pattern
of missing parents together), and each row's likelihood is the sum of its copies'
(:func:`enumerated_log_likelihood`).

A copy's missing attributes that are not filled in are either not parents (their own
factor sums to 1 over their values) or barren (every descendant missing too: their
factors and their descendants' sum to 1), so the scoring's term 0 for a missing node is
exact for them, and the sum over the filled ones is the exact marginal.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ["enumerated_log_likelihood", "joint_values"]


def joint_values(summed: NDArray[np.bool_], n_categories: NDArray[np.intp]) -> NDArray[np.float64]:
    """How many joint values each row's ``summed`` attributes have (rows x features
    mask), as floats (inf beyond the floats' range, without a warning).

    Examples
    --------
    >>> joint_values(np.array([[True, True], [False, False]]), np.array([3, 4])).tolist()
    [12.0, 1.0]
    """
    sizes = np.where(summed, np.asarray(n_categories, dtype=np.float64), 1.0)
    with np.errstate(over="ignore"):
        return np.prod(sizes, axis=1) if sizes.shape[1] else np.ones(len(sizes))


def enumerated_log_likelihood(
    score: Callable[[NDArray[np.integer]], NDArray[np.float64]],
    codes: NDArray[np.integer],
    summed: NDArray[np.bool_],
    n_categories: NDArray[np.intp],
    block_rows: int,
) -> NDArray[np.float64]:
    """``log sum_v exp(score(row with its summed attributes set to v))`` of every row
    of ``codes``, over every joint value ``v`` of the attributes ``summed`` marks in
    that row (rows x features), ``score`` giving the log-likelihoods (rows x classes)
    of complete copies: the copies of whole rows at once, at most ``block_rows`` of
    them in one call (a row's copies never split).

    Examples
    --------
    Two independent binary features, uniform: summing the first out leaves 1/2.

    >>> score = lambda rows: np.full((len(rows), 1), np.log(0.25))
    >>> out = enumerated_log_likelihood(score, np.array([[-1, 0]]),
    ...                                 np.array([[True, False]]), np.array([2, 2]), 8)
    >>> np.exp(out).round(6).tolist()
    [[0.5]]
    """
    codes = np.asarray(codes)
    values = joint_values(summed, n_categories).astype(np.int64)
    ends = np.cumsum(values)
    out: NDArray[np.float64] | None = None
    start = 0
    while start < len(codes):
        # (whole rows while within the block, at least one)
        before = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, before + block_rows, side="right")))
        part = _block_log_likelihood(
            score, codes[start:stop], summed[start:stop], values[start:stop], n_categories
        )
        if out is None:
            out = np.empty((len(codes), part.shape[1]))
        out[start:stop] = part
        start = stop
    return np.zeros((0, 0)) if out is None else out


def _block_log_likelihood(
    score: Callable[[NDArray[np.integer]], NDArray[np.float64]],
    codes: NDArray[np.integer],
    summed: NDArray[np.bool_],
    values: NDArray[np.int64],
    n_categories: NDArray[np.intp],
) -> NDArray[np.float64]:
    """:func:`enumerated_log_likelihood` of one block of rows."""
    total = int(values.sum())
    starts = np.concatenate([[0], np.cumsum(values)[:-1]]).astype(np.intp)
    copies = np.repeat(codes, values, axis=0)
    rank = np.arange(total) - np.repeat(starts, values)  # (each copy's joint value)
    stride = np.ones(total, dtype=np.int64)
    for j in np.flatnonzero(summed.any(axis=0)):  # (mixed radix, the first fastest)
        filled = np.repeat(summed[:, j], values)
        r = int(n_categories[j])
        copies[filled, j] = (rank[filled] // stride[filled]) % r
        stride[filled] *= r
    terms = score(copies)
    top = np.maximum.reduceat(terms, starts, axis=0)
    shift = np.where(np.isfinite(top), top, 0.0)
    sums = np.add.reduceat(np.exp(terms - np.repeat(shift, values, axis=0)), starts, axis=0)
    with np.errstate(divide="ignore"):
        return shift + np.log(sums)
