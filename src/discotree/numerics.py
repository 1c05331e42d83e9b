"""The numerical rules of the package, each defined once.

* **Ties**: scores within :data:`SCORE_TIE_RTOL` (relative) of each other are equal,
  and a tie goes to the lowest index (:func:`argmax_with_ties`, :func:`sign_with_ties`,
  :func:`order_with_ties`), so that no decision depends on the last bit of a sum.
* **Class prior**: :func:`class_log_prior`, the maximum-likelihood prior of the class
  weights (``-inf`` for a class without weight), or Laplace's with a pseudo-count.
* **Log posteriors**: :func:`normalise_log`, joint log scores less their log-sum-exp.
* **Classification rate**: :func:`weighted_accuracy` (and its complement
  :func:`weighted_error_rate`), :func:`classification_rate` from scores.
* **Tolerances**: the named constants below replace the ad-hoc literals that guarded
  against rounding; their values are those the literals had.

A layer-0 module: it imports numpy and scipy only, so that every layer may use it.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CONSTANT_RTOL",
    "CORRELATION_MARGIN",
    "GAIN_RTOL",
    "QUANTILE_MARGIN",
    "ROOT_RTOL",
    "SCORE_TIE_RTOL",
    "VARIANCE_FLOOR_RTOL",
    "ZERO_TOL",
    "argmax_with_ties",
    "best_index",
    "class_log_prior",
    "classification_rate",
    "compiled_best_index",
    "log_shares",
    "log_sum_exp",
    "normalise_log",
    "order_with_ties",
    "sign_with_ties",
    "weighted_accuracy",
    "weighted_error_rate",
]

#: Relative tolerance under which two scores count as equal. Log-likelihoods summed in
#: another order, or from counts accumulated another way (weighted rows against
#: repeated rows, another BLAS thread count), differ by a few units in the last place
#: of their terms; decisions must not depend on that.
SCORE_TIE_RTOL = 1e-9

#: Relative margin a search's new score must beat the best so far by to replace it
#: (orderings, structure and set searches, the CL line search, the MDL cut points): a
#: smaller gain is rounding, and the first (or current) candidate stays.
GAIN_RTOL = 1e-12

#: A column whose standard deviation is at most this times ``max(1, |mean|)`` (or, for
#: already centred tables, this in absolute terms) is constant: it is scaled by 1.
CONSTANT_RTOL = 1e-12

#: Floor of a variance, relative to the largest variance (at least 1): a constant
#: feature's variance is rounding, never an exact 0 that a division would meet.
VARIANCE_FLOOR_RTOL = 1e-12

#: Weights, step sizes and probability masses at or below this (relative to the largest
#: where a scale is given) are 0: what is left of a weight after subtractions that
#: should have emptied it. Also the floor of a sampler's gamma shapes and the margin
#: that keeps a generated probability away from 0 and 1.
ZERO_TOL = 1e-12

#: Margin kept from a correlation of 1 (``rho**2 <= 1 - CORRELATION_MARGIN``), so that
#: ``log(1 - rho**2)`` of two equal columns stays finite.
CORRELATION_MARGIN = 1e-12

#: Quantile targets are shrunk by ``1 - QUANTILE_MARGIN``, so that a cumulative weight
#: rounded down still reaches the last one.
QUANTILE_MARGIN = 1e-12

#: Relative tolerance of the root finders and optimisers: the boosting and LGMHT line
#: searches, L-BFGS's relative decrease of the objective.
ROOT_RTOL = 1e-12


def _scale(scale: Any, shape: tuple[int, ...]) -> NDArray[np.float64]:
    return np.broadcast_to(np.maximum(np.abs(np.asarray(scale, dtype=np.float64)), 1.0), shape)


def sign_with_ties(values: NDArray[np.float64], scale: Any = 1.0) -> NDArray[np.float64]:
    """``sign(values)`` with values within ``SCORE_TIE_RTOL * max(|scale|, 1)`` of 0
    mapped to 0 (a tie, decided by the caller's rule, never by the last bit).

    Parameters
    ----------
    values : ndarray
        Differences of two scores.
    scale : float or ndarray broadcastable to ``values``
        Magnitude of the scores whose difference ``values`` is (for a log-likelihood
        ratio, the larger of the two log-likelihoods in absolute value).

    Examples
    --------
    >>> sign_with_ties(np.array([2.0, 1e-15, -0.5]))
    array([ 1.,  0., -1.])
    """
    values = np.asarray(values, dtype=np.float64)
    tol = SCORE_TIE_RTOL * _scale(scale, values.shape)
    return np.where(values > tol, 1.0, np.where(values < -tol, -1.0, 0.0))


def argmax_with_ties(scores: NDArray[np.float64]) -> NDArray[np.intp]:
    """Row-wise argmax where scores within ``SCORE_TIE_RTOL * max(|max|, 1)`` of the
    row's maximum tie, and ties go to the lowest index.

    Examples
    --------
    >>> argmax_with_ties(np.array([[-30.0, -30.0 + 1e-14, -31.0], [0.0, 2.0, 1.0]]))
    array([0, 1])
    """
    scores = np.asarray(scores, dtype=np.float64)
    top = scores.max(axis=1, keepdims=True)
    magnitude = np.where(np.isfinite(top), np.abs(top), 0.0)
    tol = SCORE_TIE_RTOL * np.maximum(magnitude, 1.0)
    return np.argmax(scores >= top - tol, axis=1).astype(np.intp)


def best_index(scores: ArrayLike) -> int:
    """The index :func:`argmax_with_ties` gives one row of ``scores`` (1-D): the first
    within ``SCORE_TIE_RTOL * max(|max|, 1)`` of the largest (0 where one is NaN), in
    plain Python: a short row (a grid of weights or concentrations) costs a microsecond
    instead of numpy's tens.

    Examples
    --------
    >>> best_index([-30.0, -30.0 + 1e-14, -31.0]), best_index([0.0, 2.0, 1.0])
    (0, 1)
    """
    values = np.asarray(scores, dtype=np.float64).ravel().tolist()
    if any(map(math.isnan, values)):  # (numpy's maximum is NaN: nothing reaches it)
        return 0
    top = max(values)
    magnitude = abs(top) if math.isfinite(top) else 0.0  # (as argmax_with_ties)
    threshold = top - SCORE_TIE_RTOL * max(magnitude, 1.0)
    for i, value in enumerate(values):
        if value >= threshold:
            return i
    return 0  # (not reached: the largest reaches its own threshold)


@numba.njit(cache=True, nogil=True)
def compiled_best_index(scores):  # pragma: no cover - numba
    """:func:`best_index` for compiled callers (a 1-D float64 array; the same index,
    tested against it).

    Examples
    --------
    >>> int(compiled_best_index(np.array([-30.0, -30.0 + 1e-14, -31.0])))
    0
    """
    top = -np.inf
    for value in scores:
        if value != value:  # (NaN: numpy's maximum is NaN, nothing reaches it)
            return 0
        top = max(top, value)
    magnitude = abs(top) if np.isfinite(top) else 0.0
    threshold = top - SCORE_TIE_RTOL * max(magnitude, 1.0)
    for i in range(scores.shape[0]):
        if scores[i] >= threshold:
            return i
    return 0


def order_with_ties(values: NDArray[np.float64], limit: int | None = None) -> list[int]:
    """The indices by decreasing value, values within ``SCORE_TIE_RTOL * max(|top|, 1)``
    of the largest left counting as equal and going by index (the rule of
    :func:`argmax_with_ties`, applied again to what is left); given ``limit``, only the
    first ``limit`` of them (the same, picked one after the other: the rest is not
    ranked).

    Examples
    --------
    >>> order_with_ties(np.array([0.5, 0.7, 0.7 + 1e-15, 0.1]))
    [1, 2, 0, 3]
    >>> order_with_ties(np.array([0.5, 0.7, 0.7 + 1e-15, 0.1]), limit=2)
    [1, 2]
    """
    values = np.asarray(values, dtype=np.float64)
    ranked = np.argsort(-values, kind="stable")  # exact ties by index
    value = values[ranked].tolist()
    index = ranked.tolist()
    position: dict[int, int] = {}  # (of the indices in the window so far)
    taken = [False] * len(index)
    window: list[int] = []  # the indices of the largest left's window (a heap)
    order: list[int] = []
    top = end = 0
    for _ in range(len(index) if limit is None else min(max(limit, 0), len(index))):
        while taken[top]:  # the largest value left
            top += 1
        largest = value[top]
        floor = largest - SCORE_TIE_RTOL * max(abs(largest), 1.0)
        floor = floor if np.isfinite(largest) else largest
        while end < len(index) and value[end] >= floor:  # the window only grows
            heapq.heappush(window, index[end])
            position[index[end]] = end
            end += 1
        pick = heapq.heappop(window)
        taken[position[pick]] = True
        order.append(pick)
    return order


def log_shares(weights: ArrayLike, total: float | None = None) -> NDArray[np.float64]:
    """``log(w / sum w)``: the log of each weight's share (``-inf``, without a warning,
    for a weight of 0), ``total`` the sum when the caller holds it (summed otherwise).

    Examples
    --------
    >>> log_shares(np.array([1.0, 1.0, 2.0])).round(3).tolist()
    [-1.386, -1.386, -0.693]
    """
    w = np.asarray(weights, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(w / (w.sum() if total is None else total))


def class_log_prior(
    class_weight: ArrayLike, pseudo_count: float = 0.0, total: float | None = None
) -> NDArray[np.float64]:
    """The class prior ``log(w_c / sum w)``: maximum likelihood from the class weights,
    ``-inf`` (without a warning) for a class without weight (a class given to
    ``partial_fit`` but never seen, a fold without it); with ``pseudo_count`` ``a > 0``,
    Laplace's ``log((w_c + a) / (sum w + a C))`` (finite for every class).

    Parameters
    ----------
    class_weight : array-like of shape (n_classes,) or (n_rows, n_classes)
        The summed weight of each class (with a pseudo-count, one prior a row).
    pseudo_count : float, default=0.0
        Added to each class's weight.
    total : float, optional
        The sum of the weights as the caller summed them over the rows (default: the
        sum of ``class_weight``); without a pseudo-count only.

    Returns
    -------
    ndarray of shape (n_classes,)

    Examples
    --------
    >>> class_log_prior(np.array([3.0, 1.0, 0.0])).round(3).tolist()
    [-0.288, -1.386, -inf]
    >>> np.exp(class_log_prior(np.array([3.0, 1.0, 0.0]), 1.0)).round(3).tolist()
    [0.571, 0.286, 0.143]
    """
    w = np.asarray(class_weight, dtype=np.float64)
    if pseudo_count:
        if w.ndim == 1:
            return log_shares(w + pseudo_count, w.sum() + pseudo_count * len(w))
        rows = w.sum(axis=-1, keepdims=True) + pseudo_count * w.shape[-1]
        return log_shares(w + pseudo_count, rows)
    return log_shares(w, total)


def log_sum_exp(values: ArrayLike, axis: int = -1, keepdims: bool = False) -> NDArray[np.float64]:
    """``log(sum(exp(values), axis))`` shifted by the largest value along ``axis`` so
    that nothing overflows (a slice of ``-inf`` only gives ``-inf``): scipy's
    ``logsumexp`` without its array-API dispatch, which cost more than the sums on the
    ensemble's predictions (13 calls, 26 ms of an 84 ms prediction of 11,600 rows).

    Examples
    --------
    >>> log_sum_exp(np.log([[1.0, 3.0], [2.0, 2.0]])).round(12).tolist()
    [1.38629436112, 1.38629436112]
    >>> float(log_sum_exp(np.array([-np.inf, -np.inf])))
    -inf
    """
    values = np.asarray(values, dtype=np.float64)
    top = np.max(values, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(values - shift), axis=axis, keepdims=True)) + shift
    return out if keepdims else np.squeeze(out, axis=axis)


def normalise_log(joint: ArrayLike, axis: int = 1) -> NDArray[np.float64]:
    """Log posteriors from joint log scores: ``joint - logsumexp(joint, axis)``, so that
    the exponentials along ``axis`` (the classes) sum to 1. A slice of ``-inf`` only
    (no class possible) gives NaN, as ``0 / 0`` does: the models never produce one.

    Examples
    --------
    >>> np.exp(normalise_log(np.log([[1.0, 3.0], [2.0, 2.0]]))).round(12).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """
    joint = np.asarray(joint, dtype=np.float64)
    return joint - log_sum_exp(joint, axis=axis, keepdims=True)


def weighted_accuracy(
    y_true: ArrayLike, y_pred: ArrayLike, weights: ArrayLike | None = None
) -> float:
    """The weighted share of rows where ``y_pred`` equals ``y_true`` (the plain share
    without weights; 0 with no rows or weights summing to 0).

    Examples
    --------
    >>> weighted_accuracy(np.array([0, 1, 1]), np.array([0, 1, 0]))
    0.6666666666666666
    >>> weighted_accuracy(np.array([0, 1, 1]), np.array([0, 1, 0]), np.array([1, 1, 2]))
    0.5
    """
    hit = np.asarray(y_true) == np.asarray(y_pred)
    if weights is None:
        return float(hit.mean()) if len(hit) else 0.0
    total = float(np.sum(weights))
    return float(np.asarray(weights)[hit].sum()) / total if total > 0 else 0.0


def weighted_error_rate(
    y_true: ArrayLike, y_pred: ArrayLike, weights: ArrayLike | None = None
) -> float:
    """The weighted share of rows where ``y_pred`` differs from ``y_true`` (0 when the
    weights sum to 0; the plain share without weights): boosting's held-out error.

    Examples
    --------
    >>> weighted_error_rate(np.array([0, 1, 1]), np.array([0, 1, 0]), np.array([1.0, 1.0, 2.0]))
    0.5
    """
    wrong = np.asarray(y_pred) != np.asarray(y_true)
    if weights is None:
        return float(np.mean(wrong))
    w = np.asarray(weights, dtype=np.float64)
    return float(w @ wrong) / max(float(w.sum()), 1e-300)


def classification_rate(
    scores: NDArray[np.float64], truth: NDArray[np.intp], weights: NDArray[np.float64] | None = None
) -> float:
    """The weighted share of rows whose class of largest score (the tie rule of
    :func:`argmax_with_ties`) is ``truth``: the one classification rate of every
    search, selection and cross-validation (0 when the weights sum to 0).

    Examples
    --------
    >>> classification_rate(np.array([[0.0, 1.0], [2.0, 2.0]]), np.array([1, 1]))
    0.5
    """
    return weighted_accuracy(truth, argmax_with_ties(scores), weights)
